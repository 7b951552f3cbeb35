/* test_registry.c: merging plugins into a registry: order, prefixes, collisions, lookups,
 * template matching, the list entries of each revision, and the diff used on reload.
 * Real plugins come from build/tests/plugins/; the JSON shapes use a plugin built by hand. */
#include "served/registry.h"
#include "served/entry.h"

#include "check.h"
#include "fixture.h"
#include "host/host.h"
#include "lib/limits.h"
#include "wire/revision.h"
#include "lib/status.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char reg_dir[256];
static struct log reg_log;
static struct plugin_env reg_env = {.log = &reg_log, .host_setup = host_setup};
static int reg_log_read = -1;

/* Load instance `id` of an INI made of `sections` (plugin_dir: the test plugins). */
static struct plugin *reg_load(const char *sections, const char *id)
{
    char ini[512];
    struct plugin *pl = NULL;
    const struct config_plugin *cp;
    struct config cfg;
    struct diag errs;
    FILE *f;

    snprintf(ini, sizeof(ini), "%s/registry.ini", reg_dir);
    f = fopen(ini, "w");
    if (f == NULL)
        return NULL;
    fprintf(f, "[server]\nplugin_dir = ../../plugins\n%s", sections);
    fclose(f);
    config_init(&cfg);
    diag_init(&errs);
    if (config_load(&cfg, ini, &errs) == STATUS_OK) {
        cp = config_find_plugin(&cfg, id);
        if (cp == NULL || plugin_load(&pl, cp, ini, &reg_env, &errs) != STATUS_OK)
            pl = NULL;
    }
    for (size_t i = 0; i < errs.count; i++)
        fprintf(stderr, "    load of %s: %s\n", id, errs.msgs[i]);
    config_release(&cfg);
    diag_release(&errs);
    unlink(ini);
    return pl;
}

/* Drop the caller's reference to each plugin of the array. */
static void reg_drop(struct plugin **pls, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (pls[i] != NULL && plugin_unref(pls[i]))
            plugin_free(pls[i]);
    }
}

static int reg_all_loaded(struct plugin **pls, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (pls[i] == NULL)
            return 0;
    }
    return 1;
}

static void test_build_order(void)
{
    static const char *const names[] = {"echo", "sleep", "overlap",   "greet",
                                        "fail", "boom",  "overlap_mt"};
    struct plugin *pls[2];
    struct registry *reg = NULL;
    struct diag errs;
    size_t collisions = 99;

    pls[0] = reg_load("[plugin.b]\npath = basic.so\n", "b");
    pls[1] = reg_load("[plugin.t]\npath = threadsafe.so\n", "t");
    diag_init(&errs);
    if (!CHECK(reg_all_loaded(pls, 2)) ||
        !CHECK_INT_EQ(registry_build(&reg, pls, 2, &reg_log, &errs, &collisions), STATUS_OK))
        goto out;
    CHECK_INT_EQ(collisions, 0);
    CHECK_INT_EQ(errs.count, 0);
    CHECK_INT_EQ(reg->nplugins, 2);
    CHECK(reg->plugins[0] == pls[0] && reg->plugins[1] == pls[1]);
    CHECK_INT_EQ(atomic_load(&pls[0]->refs), 2);
    CHECK_INT_EQ(atomic_load(&reg->refs), 1);
    if (CHECK_INT_EQ(reg->ntools, 7)) {
        for (size_t i = 0; i < 7; i++)
            CHECK_STR_EQ(reg->tools[i].name, names[i]);
        CHECK(reg->tools[0].plugin == pls[0]);
        CHECK(reg->tools[6].plugin == pls[1]);
        CHECK(reg->tools[6].def == &pls[1]->tools[0]);
    }
    CHECK_INT_EQ(reg->nresources, 1);
    CHECK_INT_EQ(reg->ntemplates, 2);
    CHECK_INT_EQ(reg->nprompts, 1);
    registry_free(reg);
    CHECK_INT_EQ(atomic_load(&pls[0]->refs), 1);
    CHECK_INT_EQ(atomic_load(&pls[1]->refs), 1);
out:
    diag_release(&errs);
    reg_drop(pls, 2);
}

static void test_prefix(void)
{
    struct plugin *pl = reg_load("[plugin.b]\npath = basic.so\nprefix = px\n", "b");
    struct registry *reg = NULL;
    struct diag errs;
    cJSON *json;

    diag_init(&errs);
    if (!CHECK(pl != NULL) ||
        !CHECK_INT_EQ(registry_build(&reg, &pl, 1, &reg_log, &errs, NULL), STATUS_OK))
        goto out;
    if (CHECK_INT_EQ(reg->ntools, 6)) {
        CHECK_STR_EQ(reg->tools[0].name, "px_echo");
        CHECK_STR_EQ(reg->tools[5].name, "px_boom");
        CHECK_STR_EQ(reg->tools[0].def->name, "echo");
    }
    if (CHECK_INT_EQ(reg->nprompts, 1))
        CHECK_STR_EQ(reg->prompts[0].name, "px_greet");
    CHECK(registry_find_tool(reg, "px_echo") != NULL);
    CHECK(registry_find_tool(reg, "echo") == NULL);
    CHECK(registry_find_prompt(reg, "px_greet") != NULL);
    CHECK(registry_find_prompt(reg, "greet") == NULL);
    /* Resources are named by URI: no prefix. */
    CHECK(registry_find_resource(reg, "basic://hello") != NULL);
    CHECK(registry_find_resource(reg, "px_basic://hello") == NULL);
    CHECK(registry_match_template(reg, "basic://items/1", NULL) != NULL);
    if (reg->ntools > 0) {
        json = entry_tool(&reg->tools[0], REV_2025_06_18);
        CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(json, "name")),
                     "px_echo");
        cJSON_Delete(json);
    }
    if (reg->ntemplates > 0) {
        json = entry_template(&reg->templates[0], REV_2025_06_18);
        CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(json, "uriTemplate")),
                     "basic://items/{id}");
        cJSON_Delete(json);
    }
    registry_free(reg);
out:
    diag_release(&errs);
    reg_drop(&pl, 1);
}

static void test_collision(void)
{
    struct plugin *pls[2];
    struct registry *reg = NULL;
    struct diag errs;
    size_t collisions = 0;
    const struct registry_tool *t;

    pls[0] = reg_load("[plugin.b]\npath = basic.so\n", "b");
    pls[1] = reg_load("[plugin.c]\npath = collide.so\n", "c");
    diag_init(&errs);
    if (!CHECK(reg_all_loaded(pls, 2)) ||
        !CHECK_INT_EQ(registry_build(&reg, pls, 2, &reg_log, &errs, &collisions), STATUS_OK))
        goto out;
    CHECK_INT_EQ(collisions, 1);
    CHECK_INT_EQ(errs.count, 1);
    CHECK(
        FIXTURE_HAS(&errs, "plugin 'c'", "collide.so", "tool 'echo'", "plugin 'b'", "[plugin.c]"));
    CHECK_INT_EQ(reg->ntools, 6);
    t = registry_find_tool(reg, "echo");
    if (CHECK(t != NULL))
        CHECK(t->plugin == pls[0]);
    registry_free(reg);
    diag_release(&errs);

    /* The other order: the first one keeps the name. */
    {
        struct plugin *rev[2] = {pls[1], pls[0]};

        diag_init(&errs);
        if (CHECK_INT_EQ(registry_build(&reg, rev, 2, &reg_log, &errs, &collisions), STATUS_OK)) {
            CHECK_INT_EQ(collisions, 1);
            CHECK(FIXTURE_HAS(&errs, "plugin 'b'", "tool 'echo'", "plugin 'c'"));
            t = registry_find_tool(reg, "echo");
            if (CHECK(t != NULL))
                CHECK(t->plugin == pls[1]);
            CHECK_INT_EQ(reg->ntools, 6);
            registry_free(reg);
        }
    }
out:
    diag_release(&errs);
    reg_drop(pls, 2);
}

/* A reload: the instance serving a name keeps it, whichever comes first in the new set; the
 * newcomer's row is left out, and registry_new_collisions counts that unless excused. */
static int reg_excuse_c(const char *id, void *ctx)
{
    (void)ctx;
    return strcmp(id, "c") == 0;
}

static void test_collision_incumbent(void)
{
    struct plugin *pls[2];
    struct registry *old = NULL, *next = NULL;
    struct diag errs;
    size_t collisions = 0;
    const struct registry_tool *t;

    pls[0] = reg_load("[plugin.b]\npath = basic.so\n", "b");
    pls[1] = reg_load("[plugin.c]\npath = collide.so\n", "c");
    diag_init(&errs);
    if (!CHECK(reg_all_loaded(pls, 2)) ||
        !CHECK_INT_EQ(registry_build(&old, pls, 1, &reg_log, &errs, NULL), STATUS_OK))
        goto out;
    {
        struct plugin *rev[2] = {pls[1], pls[0]};

        if (!CHECK_INT_EQ(registry_build_over(&next, rev, 2, old, &reg_log, &errs, &collisions),
                          STATUS_OK))
            goto out;
    }
    CHECK_INT_EQ(collisions, 1);
    CHECK(FIXTURE_HAS(&errs, "plugin 'c'", "tool 'echo'", "already served by plugin 'b'"));
    t = registry_find_tool(next, "echo");
    if (CHECK(t != NULL))
        CHECK(t->plugin == pls[0]);
    CHECK_INT_EQ(registry_new_collisions(old, next, NULL, NULL), 1);
    CHECK_INT_EQ(registry_new_collisions(old, next, reg_excuse_c, NULL), 0);
    /* Once in service, the same collision is not new. */
    CHECK_INT_EQ(registry_new_collisions(next, next, NULL, NULL), 0);
out:
    registry_free(next);
    registry_free(old);
    diag_release(&errs);
    reg_drop(pls, 2);
}

static void test_collision_avoided_by_prefix(void)
{
    struct plugin *pls[2];
    struct registry *reg = NULL;
    struct diag errs;
    size_t collisions = 99;

    pls[0] = reg_load("[plugin.b]\npath = basic.so\n", "b");
    pls[1] = reg_load("[plugin.c]\npath = collide.so\nprefix = c\n", "c");
    diag_init(&errs);
    if (CHECK(reg_all_loaded(pls, 2)) &&
        CHECK_INT_EQ(registry_build(&reg, pls, 2, &reg_log, &errs, &collisions), STATUS_OK)) {
        CHECK_INT_EQ(collisions, 0);
        CHECK_INT_EQ(reg->ntools, 7);
        CHECK(registry_find_tool(reg, "c_echo") != NULL);
        CHECK(registry_find_tool(reg, "echo") != NULL);
        registry_free(reg);
    }
    diag_release(&errs);
    reg_drop(pls, 2);
}

/* Two instances of basic, the second prefixed: tools and prompts coexist, but the resource
 * and both templates keep their URIs and collide. */
static void test_resource_collision(void)
{
    struct plugin *pls[2];
    struct registry *reg = NULL;
    struct diag errs;
    size_t collisions = 0;

    pls[0] = reg_load("[plugin.b1]\npath = basic.so\n", "b1");
    pls[1] = reg_load("[plugin.b2]\npath = basic.so\nprefix = two\n", "b2");
    diag_init(&errs);
    if (CHECK(reg_all_loaded(pls, 2)) &&
        CHECK_INT_EQ(registry_build(&reg, pls, 2, &reg_log, &errs, &collisions), STATUS_OK)) {
        CHECK_INT_EQ(collisions, 3);
        CHECK_INT_EQ(reg->ntools, 12);
        CHECK_INT_EQ(reg->nprompts, 2);
        CHECK_INT_EQ(reg->nresources, 1);
        CHECK_INT_EQ(reg->ntemplates, 2);
        CHECK(FIXTURE_HAS(&errs, "plugin 'b2'", "resource 'basic://hello'", "plugin 'b1'"));
        CHECK(FIXTURE_HAS(&errs, "plugin 'b2'", "resource template 'basic://items/{id}'"));
        CHECK(FIXTURE_HAS(&errs, "plugin 'b2'", "resource template 'basic://files/{+path}'"));
        if (reg->nresources == 1)
            CHECK(reg->resources[0].plugin == pls[0]);
        registry_free(reg);
    }
    diag_release(&errs);
    reg_drop(pls, 2);
}

static void test_find_and_match(void)
{
    struct plugin *pl = reg_load("[plugin.b]\npath = basic.so\n", "b");
    struct registry *reg = NULL;
    const struct registry_template *t;
    const struct registry_tool *tool;
    const struct registry_prompt *p;
    const struct registry_resource *r;
    struct diag errs;
    cJSON *vars = NULL;

    diag_init(&errs);
    if (!CHECK(pl != NULL) ||
        !CHECK_INT_EQ(registry_build(&reg, &pl, 1, &reg_log, &errs, NULL), STATUS_OK))
        goto out;
    for (size_t i = 0; i < reg->ntools; i++) {
        tool = registry_find_tool(reg, reg->tools[i].name);
        CHECK(tool == &reg->tools[i]);
    }
    tool = registry_find_tool(reg, "greet");
    if (CHECK(tool != NULL))
        CHECK_STR_EQ(tool->def->description, "Returns the configured greeting.");
    CHECK(registry_find_tool(reg, "nope") == NULL);
    CHECK(registry_find_tool(reg, "") == NULL);
    CHECK(registry_find_tool(reg, "ech") == NULL);
    p = registry_find_prompt(reg, "greet");
    if (CHECK(p != NULL))
        CHECK(p->def == &pl->prompts[0]);
    CHECK(registry_find_prompt(reg, "echo") == NULL);
    r = registry_find_resource(reg, "basic://hello");
    if (CHECK(r != NULL))
        CHECK_STR_EQ(r->def->name, "hello");
    CHECK(registry_find_resource(reg, "basic://hello/") == NULL);
    CHECK(registry_find_resource(reg, "basic://items/1") == NULL);

    t = registry_match_template(reg, "basic://items/42", &vars);
    if (CHECK(t != NULL)) {
        CHECK_STR_EQ(t->def->name, "item");
        CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(vars, "id")), "42");
    }
    cJSON_Delete(vars);
    vars = NULL;
    t = registry_match_template(reg, "basic://files/a/b.txt", &vars);
    if (CHECK(t != NULL)) {
        CHECK_STR_EQ(t->def->name, "file");
        CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(vars, "path")),
                     "a/b.txt");
    }
    cJSON_Delete(vars);
    vars = NULL;
    /* {id} is one segment: a/b goes to no template of basic://items/. */
    CHECK(registry_match_template(reg, "basic://items/a/b", &vars) == NULL);
    CHECK(registry_match_template(reg, "basic://other", &vars) == NULL);
    CHECK(vars == NULL);
    registry_free(reg);
out:
    diag_release(&errs);
    reg_drop(&pl, 1);
}

/* --- A plugin built by hand, for the JSON of each field. --- */

static char *reg_dup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static struct plugin *reg_fake_plugin(const char *id, const char *prefix)
{
    struct plugin *pl = calloc(1, sizeof(*pl));

    if (pl == NULL)
        return NULL;
    pl->id = strdup(id);
    pl->section.path = strdup("fake.so");
    pl->section.prefix = reg_dup(prefix);
    pl->name = strdup("fake");
    atomic_init(&pl->refs, 1);
    return pl;
}

static void reg_fake_tools(struct plugin *pl)
{
    pl->tools = calloc(3, sizeof(*pl->tools));
    pl->ntools = 3;
    pl->tools[0].name = strdup("full");
    pl->tools[0].title = strdup("Full Tool");
    pl->tools[0].description = strdup("Does it all.");
    pl->tools[0].input_schema = cJSON_Parse("{\"type\":\"object\",\"properties\":{\"a\":"
                                            "{\"type\":\"number\"}}}");
    pl->tools[0].output_schema = cJSON_Parse("{\"type\":\"object\",\"properties\":{\"sum\":"
                                             "{\"type\":\"number\"}}}");
    pl->tools[0].hints[0] = MCPH_HINT_TRUE;
    pl->tools[0].hints[1] = MCPH_HINT_FALSE;
    pl->tools[1].name = strdup("titled");
    pl->tools[1].title = strdup("Only Title");
    pl->tools[1].input_schema = cJSON_Parse("{\"type\":\"object\"}");
    pl->tools[2].name = strdup("bare");
    pl->tools[2].input_schema = cJSON_Parse("{\"type\":\"object\"}");
    pl->tools[2].hints[3] = MCPH_HINT_TRUE;
}

static void reg_fake_resources(struct plugin *pl)
{
    pl->resources = calloc(2, sizeof(*pl->resources));
    pl->nresources = 2;
    pl->resources[0] = (struct plugin_resource){.uri = strdup("fake://r"),
                                                .name = strdup("r"),
                                                .title = strdup("The R"),
                                                .description = strdup("An r."),
                                                .mime_type = strdup("text/plain"),
                                                .size = 42};
    pl->resources[1] = (struct plugin_resource){.uri = strdup("fake://s"), .name = strdup("s")};
    pl->templates = calloc(1, sizeof(*pl->templates));
    pl->ntemplates = 1;
    pl->templates[0] = (struct plugin_template){.uri_template = strdup("fake://t/{id}"),
                                                .name = strdup("t"),
                                                .title = strdup("The T"),
                                                .description = strdup("A t."),
                                                .mime_type = strdup("application/json")};
}

static void reg_fake_prompts(struct plugin *pl)
{
    struct plugin_prompt *p;

    pl->prompts = calloc(1, sizeof(*pl->prompts));
    pl->nprompts = 1;
    p = &pl->prompts[0];
    p->name = strdup("review");
    p->title = strdup("Review");
    p->description = strdup("Reviews code.");
    p->args = calloc(2, sizeof(*p->args));
    p->nargs = 2;
    p->args[0] = (struct plugin_prompt_arg){.name = strdup("code"),
                                            .title = strdup("Code"),
                                            .description = strdup("The code"),
                                            .required = 1};
    p->args[1] = (struct plugin_prompt_arg){.name = strdup("lang")};
}

static struct plugin *reg_fake_full(const char *id, const char *prefix)
{
    struct plugin *pl = reg_fake_plugin(id, prefix);

    if (pl != NULL) {
        reg_fake_tools(pl);
        reg_fake_resources(pl);
        reg_fake_prompts(pl);
    }
    return pl;
}

#define REG_IN "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"}}}"
#define REG_OUT                                                                                    \
    "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"sum\":{\"type\":\"number\"}}}"

static const struct {
    int rev;
    const char *full, *titled, *bare;
} reg_tool_json[] = {
    {REV_2024_11_05, "{\"name\":\"full\",\"description\":\"Does it all.\"," REG_IN "}",
     "{\"name\":\"titled\",\"inputSchema\":{\"type\":\"object\"}}",
     "{\"name\":\"bare\",\"inputSchema\":{\"type\":\"object\"}}"},
    {REV_2025_03_26,
     "{\"name\":\"full\",\"description\":\"Does it all.\"," REG_IN ",\"annotations\":"
     "{\"title\":\"Full Tool\",\"readOnlyHint\":true,\"destructiveHint\":false}}",
     "{\"name\":\"titled\",\"inputSchema\":{\"type\":\"object\"},\"annotations\":"
     "{\"title\":\"Only Title\"}}",
     "{\"name\":\"bare\",\"inputSchema\":{\"type\":\"object\"},\"annotations\":"
     "{\"openWorldHint\":true}}"},
    {REV_2025_06_18,
     "{\"name\":\"full\",\"title\":\"Full Tool\",\"description\":\"Does it all.\"," REG_IN
     "," REG_OUT ",\"annotations\":{\"readOnlyHint\":true,\"destructiveHint\":false}}",
     "{\"name\":\"titled\",\"title\":\"Only Title\",\"inputSchema\":{\"type\":\"object\"}}",
     "{\"name\":\"bare\",\"inputSchema\":{\"type\":\"object\"},\"annotations\":"
     "{\"openWorldHint\":true}}"},
    {REV_2025_11_25,
     "{\"name\":\"full\",\"title\":\"Full Tool\",\"description\":\"Does it all.\"," REG_IN
     "," REG_OUT ",\"annotations\":{\"readOnlyHint\":true,\"destructiveHint\":false}}",
     "{\"name\":\"titled\",\"title\":\"Only Title\",\"inputSchema\":{\"type\":\"object\"}}",
     "{\"name\":\"bare\",\"inputSchema\":{\"type\":\"object\"},\"annotations\":"
     "{\"openWorldHint\":true}}"},
    {0},
};

static int reg_check_json(cJSON *json, const char *want, int rev)
{
    int ok = CHECK(fixture_json_is(json, want));

    if (!ok)
        fprintf(stderr, "    revision %s\n", revision_get(rev)->name);
    cJSON_Delete(json);
    return ok;
}

static void test_tool_json_per_revision(void)
{
    struct plugin *pl = reg_fake_full("f", NULL);
    struct registry *reg = NULL;
    struct diag errs;

    diag_init(&errs);
    if (!CHECK(pl != NULL) ||
        !CHECK_INT_EQ(registry_build(&reg, &pl, 1, &reg_log, &errs, NULL), STATUS_OK) ||
        !CHECK_INT_EQ(reg->ntools, 3))
        goto out;
    for (size_t i = 0; reg_tool_json[i].rev != 0; i++) {
        int rev = reg_tool_json[i].rev;

        reg_check_json(entry_tool(&reg->tools[0], rev), reg_tool_json[i].full, rev);
        reg_check_json(entry_tool(&reg->tools[1], rev), reg_tool_json[i].titled, rev);
        reg_check_json(entry_tool(&reg->tools[2], rev), reg_tool_json[i].bare, rev);
    }
out:
    registry_free(reg);
    diag_release(&errs);
    reg_drop(&pl, 1);
}

static void test_resource_prompt_json_per_revision(void)
{
    static const char res_old[] = "{\"uri\":\"fake://r\",\"name\":\"r\",\"description\":"
                                  "\"An r.\",\"mimeType\":\"text/plain\",\"size\":42}";
    static const char res_new[] = "{\"uri\":\"fake://r\",\"name\":\"r\",\"title\":\"The R\","
                                  "\"description\":\"An r.\",\"mimeType\":\"text/plain\","
                                  "\"size\":42}";
    static const char tpl_old[] = "{\"uriTemplate\":\"fake://t/{id}\",\"name\":\"t\","
                                  "\"description\":\"A t.\",\"mimeType\":\"application/json\"}";
    static const char tpl_new[] = "{\"uriTemplate\":\"fake://t/{id}\",\"name\":\"t\","
                                  "\"title\":\"The T\",\"description\":\"A t.\","
                                  "\"mimeType\":\"application/json\"}";
    static const char prompt_old[] = "{\"name\":\"pre_review\",\"description\":\"Reviews code.\","
                                     "\"arguments\":[{\"name\":\"code\",\"description\":"
                                     "\"The code\",\"required\":true},{\"name\":\"lang\"}]}";
    static const char prompt_new[] =
        "{\"name\":\"pre_review\",\"title\":\"Review\",\"description\":"
        "\"Reviews code.\",\"arguments\":[{\"name\":\"code\","
        "\"title\":\"Code\",\"description\":\"The code\","
        "\"required\":true},{\"name\":\"lang\"}]}";
    struct plugin *pl = reg_fake_full("f", "pre");
    struct registry *reg = NULL;
    struct diag errs;

    diag_init(&errs);
    if (!CHECK(pl != NULL) ||
        !CHECK_INT_EQ(registry_build(&reg, &pl, 1, &reg_log, &errs, NULL), STATUS_OK) ||
        !CHECK_INT_EQ(reg->nresources, 2) || !CHECK_INT_EQ(reg->nprompts, 1))
        goto out;
    for (int rev = REV_2024_11_05; rev < REV_COUNT; rev++) {
        int titled = rev >= REV_2025_06_18;

        /* The prompt is exposed with the prefix; the resource URIs are not touched. */
        reg_check_json(entry_resource(&reg->resources[0], rev), titled ? res_new : res_old, rev);
        reg_check_json(entry_resource(&reg->resources[1], rev),
                       "{\"uri\":\"fake://s\",\"name\":\"s\"}", rev);
        reg_check_json(entry_template(&reg->templates[0], rev), titled ? tpl_new : tpl_old, rev);
        reg_check_json(entry_prompt(&reg->prompts[0], rev), titled ? prompt_new : prompt_old, rev);
    }
out:
    registry_free(reg);
    diag_release(&errs);
    reg_drop(&pl, 1);
}

/* A name too long with its prefix is left out; a long one is kept with a warning. */
static void test_long_names(void)
{
    char prefix[LIMIT_ID + 1], name[80];
    struct plugin *pl;
    struct registry *reg = NULL;
    struct diag errs;
    size_t collisions = 99;
    char logged[4096];
    ssize_t n;

    memset(prefix, 'p', LIMIT_ID);
    prefix[LIMIT_ID] = '\0';
    pl = reg_fake_plugin("longish", prefix);
    if (!CHECK(pl != NULL))
        return;
    pl->tools = calloc(2, sizeof(*pl->tools));
    pl->ntools = 2;
    memset(name, 't', 70);
    name[70] = '\0';
    pl->tools[0].name = strdup(name); /* 64 + 1 + 70 = 135 > 128 */
    pl->tools[0].input_schema = cJSON_CreateObject();
    pl->tools[1].name = strdup("short"); /* 64 + 1 + 5 = 70 > 64: kept, with a warning */
    pl->tools[1].input_schema = cJSON_CreateObject();
    /* Prompts follow the same rule. */
    pl->prompts = calloc(2, sizeof(*pl->prompts));
    pl->nprompts = 2;
    pl->prompts[0].name = strdup(name);
    pl->prompts[1].name = strdup("brief");
    diag_init(&errs);
    while (read(reg_log_read, logged, sizeof(logged)) > 0)
        ;
    if (CHECK_INT_EQ(registry_build(&reg, &pl, 1, &reg_log, &errs, &collisions), STATUS_OK)) {
        CHECK_INT_EQ(collisions, 0);
        CHECK_INT_EQ(reg->ntools, 1);
        CHECK_INT_EQ(reg->nprompts, 1);
        CHECK(FIXTURE_HAS(&errs, "plugin 'longish': tool", "longer than 128", "shorter prefix"));
        CHECK(FIXTURE_HAS(&errs, "plugin 'longish': prompt", "longer than 128", "shorter prefix"));
        n = read(reg_log_read, logged, sizeof(logged) - 1);
        logged[n > 0 ? n : 0] = '\0';
        CHECK_STR_HAS(logged, "mcph: warning: ");
        CHECK_STR_HAS(logged, "_short' is longer than 64");
        CHECK_STR_HAS(logged, "prompt name 'pppp");
        registry_free(reg);
    }
    diag_release(&errs);
    reg_drop(&pl, 1);
}

static void test_empty_registry(void)
{
    struct registry *reg = NULL;
    struct diag errs;
    size_t collisions = 99;

    diag_init(&errs);
    if (CHECK_INT_EQ(registry_build(&reg, NULL, 0, &reg_log, &errs, &collisions), STATUS_OK)) {
        CHECK_INT_EQ(collisions, 0);
        CHECK_INT_EQ(reg->ntools + reg->nresources + reg->ntemplates + reg->nprompts, 0);
        CHECK(registry_find_tool(reg, "echo") == NULL);
        CHECK(registry_find_prompt(reg, "greet") == NULL);
        CHECK(registry_find_resource(reg, "basic://hello") == NULL);
        CHECK(registry_match_template(reg, "basic://items/1", NULL) == NULL);
        CHECK_INT_EQ(registry_diff(reg, reg), 0);
        registry_ref(reg);
        CHECK_INT_EQ(registry_unref(reg), 0);
        CHECK_INT_EQ(registry_unref(reg), 1);
        registry_free(reg);
    }
    registry_free(NULL);
    diag_release(&errs);
}

/* Build a registry of pls; NULL on failure. */
static struct registry *reg_of(struct plugin **pls, size_t n)
{
    struct registry *reg = NULL;
    struct diag errs;

    diag_init(&errs);
    if (!reg_all_loaded(pls, n) || registry_build(&reg, pls, n, &reg_log, &errs, NULL) != STATUS_OK)
        reg = NULL;
    diag_release(&errs);
    return reg;
}

static void test_diff(void)
{
    struct plugin *a[2], *b[2], *c[1], *c2[1], *empty[1] = {NULL};
    struct registry *ra, *rb, *rc, *rc2, *r0;

    a[0] = reg_load("[plugin.b]\npath = basic.so\n", "b");
    a[1] = reg_load("[plugin.t]\npath = threadsafe.so\n", "t");
    b[0] = reg_load("[plugin.b]\npath = basic.so\n", "b");
    b[1] = reg_load("[plugin.t]\npath = threadsafe.so\n", "t");
    c[0] = reg_load("[plugin.c]\npath = collide.so\n", "c");
    c2[0] = reg_load("[plugin.c]\npath = collide.so\n", "c");
    ra = reg_of(a, 2);
    rb = reg_of(b, 2);
    rc = reg_of(c, 1);
    r0 = reg_of(empty, 0);
    if (!CHECK(ra && rb && rc && r0))
        goto out;
    /* Two loads of the same plugins serve the same lists. */
    CHECK_INT_EQ(registry_diff(ra, rb), 0);
    CHECK_INT_EQ(registry_diff(ra, ra), 0);
    /* basic+threadsafe against collide: every list differs. */
    CHECK_INT_EQ(registry_diff(ra, rc), REGISTRY_TOOLS | REGISTRY_RESOURCES | REGISTRY_PROMPTS);
    CHECK_INT_EQ(registry_diff(rc, r0), REGISTRY_TOOLS);
    CHECK_INT_EQ(registry_diff(r0, rc), REGISTRY_TOOLS);

    /* Another load of collide whose tool description changed: only the tools differ. */
    if (CHECK(c2[0] != NULL)) {
        free(c2[0]->tools[0].description);
        c2[0]->tools[0].description = strdup("Returns another text.");
        rc2 = reg_of(c2, 1);
        if (CHECK(rc2 != NULL))
            CHECK_INT_EQ(registry_diff(rc, rc2), REGISTRY_TOOLS);
        registry_free(rc2);
    }
    /* A changed resource description, then a changed prompt title. */
    free(b[0]->resources[0].description);
    b[0]->resources[0].description = strdup("now described");
    CHECK_INT_EQ(registry_diff(ra, rb), REGISTRY_RESOURCES);
    free(b[0]->prompts[0].title);
    b[0]->prompts[0].title = strdup("Greet");
    CHECK_INT_EQ(registry_diff(ra, rb), REGISTRY_RESOURCES | REGISTRY_PROMPTS);
    /* A renamed template counts as a resources change too (the description is back). */
    free(b[0]->templates[1].name);
    b[0]->templates[1].name = strdup("files");
    free(b[0]->resources[0].description);
    b[0]->resources[0].description = NULL;
    CHECK_INT_EQ(registry_diff(ra, rb), REGISTRY_RESOURCES | REGISTRY_PROMPTS);
out:
    registry_free(ra);
    registry_free(rb);
    registry_free(rc);
    registry_free(r0);
    reg_drop(a, 2);
    reg_drop(b, 2);
    reg_drop(c, 1);
    reg_drop(c2, 1);
}

static const struct check_test tests[] = {
    {"build_order", test_build_order},
    {"prefix", test_prefix},
    {"collision", test_collision},
    {"collision_incumbent", test_collision_incumbent},
    {"collision_avoided_by_prefix", test_collision_avoided_by_prefix},
    {"resource_collision", test_resource_collision},
    {"find_and_match", test_find_and_match},
    {"tool_json_per_revision", test_tool_json_per_revision},
    {"resource_prompt_json_per_revision", test_resource_prompt_json_per_revision},
    {"long_names", test_long_names},
    {"empty_registry", test_empty_registry},
    {"diff", test_diff},
    {0},
};

int main(void)
{
    int fds[2], status;

    if (check_tmp(reg_dir, sizeof(reg_dir), "registry") == NULL || pipe(fds) != 0 ||
        fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) {
        fprintf(stderr, "test_registry: cannot set up build/tests/tmp/registry or a pipe\n");
        return 1;
    }
    log_init(&reg_log);
    reg_log.fd = fds[1];
    reg_log_read = fds[0];
    status = check_main("test_registry", tests);
    close(fds[0]);
    close(fds[1]);
    return status;
}
