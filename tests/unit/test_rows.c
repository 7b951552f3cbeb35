/* test_rows.c: a plugin's rows checked and copied into core memory, without loading a
 * plugin: tables read whatever their row size, the ABI 1.0 row sizes, the static tables
 * through the section's filters, each kind's refusals and their messages, rows defined at
 * init (1.2), prompt arguments, and freeing it all. */
#include "host/rows.h"

#include "check.h"
#include "lib/limits.h"
#include "lib/status.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rw_handler(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)host;
    (void)state;
    (void)call;
    return MCPH_OK;
}

/* A load of section "demo" (path demo.so, line 7 of demo.ini) into a zeroed instance whose
 * recorded row sizes are this header's. */
struct rw_fixture {
    struct plugin pl;
    struct config_plugin cp;
    struct diag errs;
    struct rows_load ld;
    char id[8], path[16], filter[32]; /* what cp and the section point at */
};

static void rw_setup(struct rw_fixture *f)
{
    memset(f, 0, sizeof(*f));
    strcpy(f->id, "demo");
    strcpy(f->path, "demo.so");
    f->cp.id = f->id;
    f->cp.path = f->path;
    f->cp.path_line = 7;
    f->pl.tool_size = sizeof(struct mcph_tool);
    f->pl.resource_size = sizeof(struct mcph_resource);
    f->pl.template_size = sizeof(struct mcph_resource_template);
    f->pl.prompt_size = sizeof(struct mcph_prompt);
    f->pl.prompt_arg_size = sizeof(struct mcph_prompt_arg);
    for (int k = 0; k <= PLUGIN_ROW_PROMPT; k++)
        filter_names_init(&f->pl.dropped[k]);
    diag_init(&f->errs);
    f->ld =
        (struct rows_load){.pl = &f->pl, .cp = &f->cp, .ini_file = "demo.ini", .errs = &f->errs};
}

static void rw_teardown(struct rw_fixture *f)
{
    rows_free(&f->pl);
    diag_release(&f->errs);
}

/* Whether any message of the load holds `part`. */
static int rw_said(const struct rw_fixture *f, const char *part)
{
    for (size_t i = 0; i < f->errs.count; i++) {
        if (strstr(f->errs.msgs[i], part) != NULL)
            return 1;
    }
    return 0;
}

/* A row shorter than this header's is read zero-filled past its end; the end row stops. */
static void test_read(void)
{
    struct short_row {
        const char *name;
        const char *title;
    } table[] = {{"a", "A"}, {"b", NULL}, {0}};
    struct mcph_tool row;

    memset(&row, 0xff, sizeof(row));
    CHECK_INT_EQ(rows_read(table, sizeof(table[0]), 0, &row, sizeof(row)), 1);
    CHECK_STR_EQ(row.name, "a");
    CHECK_STR_EQ(row.title, "A");
    CHECK(row.description == NULL && row.call == NULL && row.data == NULL);
    CHECK_INT_EQ(rows_read(table, sizeof(table[0]), 1, &row, sizeof(row)), 1);
    CHECK(row.title == NULL);
    CHECK_INT_EQ(rows_read(table, sizeof(table[0]), 2, &row, sizeof(row)), 0);
}

/* Rows are counted to the end row; a table without one within LIMIT_ROWS is refused. */
static void test_table_size(void)
{
    struct rw_fixture f;
    const char *names[] = {"x", "y", "z", NULL};
    const char **many = malloc((LIMIT_ROWS + 2) * sizeof(*many));

    rw_setup(&f);
    CHECK_INT_EQ(rows_table_size(&f.ld, "tool", names, sizeof(names[0])), 3);
    CHECK_INT_EQ(rows_table_size(&f.ld, "tool", NULL, sizeof(names[0])), 0);
    CHECK_INT_EQ(f.errs.count, 0);
    if (CHECK(many != NULL)) {
        for (size_t i = 0; i < LIMIT_ROWS + 1; i++)
            many[i] = "x";
        many[LIMIT_ROWS + 1] = NULL;
        CHECK_INT_EQ(rows_table_size(&f.ld, "tool", many, sizeof(many[0])), -1);
        CHECK(f.ld.failed);
        CHECK(rw_said(&f, "demo.ini:7: plugin 'demo' (demo.so): the tool table has more than"));
        many[LIMIT_ROWS] = NULL;
        CHECK_INT_EQ(rows_table_size(&f.ld, "tool", many, sizeof(many[0])), LIMIT_ROWS);
    }
    free(many);
    rw_teardown(&f);
}

/* Row sizes of this header pass; one below ABI 1.0's is refused, naming both sizes. */
static void test_check_sizes(void)
{
    struct mcph_plugin d = {MCPH_PLUGIN_HEADER};
    struct rw_fixture f;

    rw_setup(&f);
    CHECK_INT_EQ(rows_check_sizes(&f.ld, &d), STATUS_OK);
    CHECK_INT_EQ(f.errs.count, 0);
    d.tool_size = 8;
    d.prompt_arg_size = 1;
    CHECK_INT_EQ(rows_check_sizes(&f.ld, &d), STATUS_PLUGIN);
    CHECK_INT_EQ(f.errs.count, 2);
    CHECK(rw_said(&f, "tool rows are 8 bytes, ABI 1.0 needs at least"));
    CHECK(rw_said(&f, "prompt argument rows are 1 bytes"));
    d.tool_size = sizeof(struct mcph_tool);
    CHECK_INT_EQ(rows_check_sizes(&f.ld, &d), STATUS_PLUGIN);
    rw_teardown(&f);
}

/* The static table through the section's filter: kept rows copied (schemas parsed and
 * compiled), dropped ones only named. */
static void test_copy_tools(void)
{
    static const struct mcph_tool tools[] = {
        {.name = "keep", .description = "kept", .call = rw_handler, .read_only_hint = 1},
        {.name = "hidden", .call = rw_handler},
        {.name = "also",
         .input_schema = "{\"type\":\"object\",\"required\":[\"q\"]}",
         .output_schema = "{\"type\":\"object\"}",
         .icons = "[]",
         .call = rw_handler},
        {0},
    };
    struct mcph_plugin d = {MCPH_PLUGIN_HEADER, .tools = tools};
    struct rw_fixture f;

    rw_setup(&f);
    strcpy(f.filter, "!hidden");
    f.pl.section.filter[FILTER_TOOLS] = f.filter;
    CHECK_INT_EQ(rows_copy_table(&f.ld, &d, PLUGIN_ROW_TOOL), STATUS_OK);
    CHECK_INT_EQ(f.errs.count, 0);
    CHECK_INT_EQ(rows_count_of(&f.pl, PLUGIN_ROW_TOOL), 2);
    CHECK_STR_EQ(rows_name_of(&f.pl, PLUGIN_ROW_TOOL, 0), "keep");
    CHECK_STR_EQ(rows_name_of(&f.pl, PLUGIN_ROW_TOOL, 1), "also");
    CHECK_INT_EQ(f.pl.dropped[PLUGIN_ROW_TOOL].n, 1);
    if (f.pl.ntools == 2) {
        CHECK(f.pl.tools[0].description != tools[0].description);
        CHECK_STR_EQ(f.pl.tools[0].description, "kept");
        CHECK_INT_EQ(f.pl.tools[0].hints[0], 1);
        /* No input schema: an object of any members. */
        CHECK(f.pl.tools[0].input_schema != NULL && f.pl.tools[0].input_check != NULL);
        CHECK(f.pl.tools[0].output_schema == NULL && f.pl.tools[0].output_check == NULL);
        CHECK(f.pl.tools[1].output_check != NULL);
        CHECK(cJSON_IsArray(f.pl.tools[1].icons));
    }
    if (f.pl.dropped[PLUGIN_ROW_TOOL].n == 1)
        CHECK_STR_EQ(f.pl.dropped[PLUGIN_ROW_TOOL].names[0], "hidden");
    rw_teardown(&f);
}

/* Every refusal of a tool, each said with the section it comes from. */
static void test_tool_refusals(void)
{
    static const struct mcph_tool tools[] = {
        {.name = "bad name", .call = rw_handler},
        {.name = "twice", .call = rw_handler},
        {.name = "twice", .call = rw_handler},
        {.name = "nocall"},
        {.name = "array", .input_schema = "{\"type\":\"array\"}", .call = rw_handler},
        {.name = "broken", .input_schema = "{\"type\":", .call = rw_handler},
        {.name = "meta", .meta = "[1]", .call = rw_handler},
        {0},
    };
    struct mcph_plugin d = {MCPH_PLUGIN_HEADER, .tools = tools};
    struct rw_fixture f;

    rw_setup(&f);
    CHECK_INT_EQ(rows_copy_table(&f.ld, &d, PLUGIN_ROW_TOOL), STATUS_OK);
    CHECK(f.ld.failed);
    CHECK(rw_said(&f, "demo.ini:7: plugin 'demo' (demo.so): tool name 'bad name' is not valid"));
    CHECK(rw_said(&f, "two tools are named 'twice'; rename one"));
    CHECK(rw_said(&f, "tool 'nocall' has no call handler"));
    CHECK(rw_said(&f, "input_schema of 'array' must be a JSON Schema object with \"type\": "
                      "\"object\"; its type is \"array\""));
    CHECK(rw_said(&f, "input_schema of 'broken' is not valid JSON"));
    CHECK(rw_said(&f, "meta of 'meta' must be JSON text of an object"));
    CHECK_INT_EQ(f.errs.count, 6);
    rw_teardown(&f);
}

/* Resources need an absolute URI, once each, a name and a handler; templates a valid URI
 * template. */
static void test_resources(void)
{
    static const struct mcph_resource resources[] = {
        {.uri = "file:///a", .name = "a", .mime_type = "text/plain", .read = rw_handler},
        {.uri = "no-scheme", .name = "b", .read = rw_handler},
        {.uri = "file:///a", .name = "again", .read = rw_handler},
        {.uri = "file:///c", .read = rw_handler},
        {0},
    };
    static const struct mcph_resource_template templates[] = {
        {.uri_template = "file:///{path}", .name = "t", .read = rw_handler},
        {.uri_template = "file:///{path", .name = "u", .read = rw_handler},
        {0},
    };
    struct mcph_plugin d = {MCPH_PLUGIN_HEADER, .resources = resources,
                            .resource_templates = templates};
    struct rw_fixture f;

    rw_setup(&f);
    CHECK_INT_EQ(rows_copy_table(&f.ld, &d, PLUGIN_ROW_RESOURCE), STATUS_OK);
    CHECK_INT_EQ(rows_copy_table(&f.ld, &d, PLUGIN_ROW_TEMPLATE), STATUS_OK);
    CHECK(rw_said(&f, "resource uri 'no-scheme' is not an absolute URI"));
    CHECK(rw_said(&f, "two resources have the uri 'file:///a'; change one"));
    CHECK(rw_said(&f, "resource 'file:///c' needs a name and a read handler"));
    CHECK(rw_said(&f, "resource template 'file:///{path' is not valid"));
    CHECK_INT_EQ(f.errs.count, 4);
    if (CHECK(f.pl.nresources >= 1))
        CHECK_STR_EQ(f.pl.resources[0].mime_type, "text/plain");
    CHECK_STR_EQ(rows_name_of(&f.pl, PLUGIN_ROW_TEMPLATE, 0), "file:///{path}");
    rw_teardown(&f);
}

/* A prompt's arguments are copied; two of one name are refused. */
static void test_prompt_args(void)
{
    static const struct mcph_prompt_arg args[] = {
        {.name = "topic", .description = "what about", .required = 5},
        {.name = "tone"},
        {0},
    };
    static const struct mcph_prompt_arg twice[] = {{.name = "x"}, {.name = "x"}, {0}};
    static const struct mcph_prompt prompts[] = {
        {.name = "ask", .arguments = args, .get = rw_handler},
        {.name = "dup", .arguments = twice, .get = rw_handler},
        {.name = "noget"},
        {0},
    };
    struct mcph_plugin d = {MCPH_PLUGIN_HEADER, .prompts = prompts};
    struct rw_fixture f;

    rw_setup(&f);
    CHECK_INT_EQ(rows_copy_table(&f.ld, &d, PLUGIN_ROW_PROMPT), STATUS_OK);
    CHECK(rw_said(&f, "prompt 'dup' has two arguments named 'x'"));
    CHECK(rw_said(&f, "prompt 'noget' has no get handler"));
    CHECK_INT_EQ(f.errs.count, 2);
    if (CHECK(f.pl.nprompts >= 1) && CHECK_INT_EQ(f.pl.prompts[0].nargs, 2)) {
        CHECK_STR_EQ(f.pl.prompts[0].args[0].name, "topic");
        CHECK_STR_EQ(f.pl.prompts[0].args[0].description, "what about");
        CHECK_INT_EQ(f.pl.prompts[0].args[0].required, 1);
        CHECK_INT_EQ(f.pl.prompts[0].args[1].required, 0);
    }
    rw_teardown(&f);
}

/* Rows defined at init: a good one counts, a refused one is freed and not counted, one the
 * filter drops is no error. A row of an older, shorter size reads zero past its end. */
static void test_define(void)
{
    struct mcph_tool good = {.name = "late", .call = rw_handler, .meta = "{}"};
    struct mcph_tool bad = {.name = "nohandler", .meta = "{}"};
    struct mcph_tool dropped = {.name = "skip_me", .call = rw_handler};
    struct mcph_tool shorter = {.name = "short", .call = rw_handler, .meta = "[not read]"};
    struct rw_fixture f;

    rw_setup(&f);
    strcpy(f.filter, "!skip_*");
    f.pl.section.filter[FILTER_TOOLS] = f.filter;
    CHECK_INT_EQ(rows_define(&f.ld, PLUGIN_ROW_TOOL, &good), MCPH_OK);
    CHECK_INT_EQ(rows_count_of(&f.pl, PLUGIN_ROW_TOOL), 1);
    CHECK_INT_EQ(rows_define(&f.ld, PLUGIN_ROW_TOOL, &dropped), MCPH_OK);
    CHECK_INT_EQ(rows_count_of(&f.pl, PLUGIN_ROW_TOOL), 1);
    CHECK_INT_EQ(f.pl.dropped[PLUGIN_ROW_TOOL].n, 1);
    f.pl.tool_size = (uint16_t)offsetof(struct mcph_tool, meta);
    CHECK_INT_EQ(rows_define(&f.ld, PLUGIN_ROW_TOOL, &shorter), MCPH_OK);
    CHECK_INT_EQ(rows_count_of(&f.pl, PLUGIN_ROW_TOOL), 2);
    if (f.pl.ntools == 2)
        CHECK(f.pl.tools[1].meta == NULL);
    f.pl.tool_size = sizeof(struct mcph_tool);
    /* Many more: the table grows and keeps what it held. */
    for (int i = 0; i < 40; i++) {
        char name[16];
        struct mcph_tool row = {.name = name, .call = rw_handler};

        snprintf(name, sizeof(name), "t%d", i);
        (void)rows_define(&f.ld, PLUGIN_ROW_TOOL, &row);
    }
    CHECK_INT_EQ(rows_define(&f.ld, PLUGIN_ROW_TOOL, &bad), MCPH_ERR_INVALID);
    CHECK(rw_said(&f, "tool 'nohandler' has no call handler"));
    CHECK_INT_EQ(rows_count_of(&f.pl, PLUGIN_ROW_TOOL), 42);
    CHECK_STR_EQ(rows_name_of(&f.pl, PLUGIN_ROW_TOOL, 0), "late");
    CHECK_STR_EQ(rows_name_of(&f.pl, PLUGIN_ROW_TOOL, 41), "t39");
    rw_teardown(&f);
}

static const struct check_test tests[] = {
    {"read", test_read},
    {"table_size", test_table_size},
    {"check_sizes", test_check_sizes},
    {"copy_tools", test_copy_tools},
    {"tool_refusals", test_tool_refusals},
    {"resources", test_resources},
    {"prompt_args", test_prompt_args},
    {"define", test_define},
    {0},
};

int main(void)
{
    return check_main("test_rows", tests);
}
