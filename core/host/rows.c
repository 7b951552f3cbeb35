#include "host/rows.h"

#include "lib/limits.h"
#include "lib/schema.h"
#include "lib/status.h"
#include "lib/strbuf.h"
#include "lib/uritemplate.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* What ABI 1.0 requires of each row: a plugin built for an older minor may have rows shorter
 * than the structs of this header, never shorter than these. */
#define ROWS_END(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

void rows_fail(struct rows_load *ld, const char *fmt, ...)
{
    struct strbuf where = STRBUF_INIT;
    va_list ap;

    ld->failed = 1;
    /* FILE:LINE of the section's path (its header when path is defaulted): the line to fix,
     * or the plugin the line names. */
    if (ld->ini_file != NULL && ld->cp->path_line > 0)
        (void)strbuf_addf(&where, "%s:%d: ", ld->ini_file, ld->cp->path_line);
    if (strbuf_addf(&where, "plugin '%s' (%s)", ld->cp->id, ld->cp->path) != STATUS_OK)
        ld->errs->nomem = 1;
    va_start(ap, fmt);
    diag_vadd_at(ld->errs, where.buf, 0, fmt, ap);
    va_end(ap);
    strbuf_release(&where);
}

/* Row i of a table of `stride`-byte rows, copied into `row` (of `size` bytes, zeroed
 * first: members the plugin's minor lacks read as zero). Returns 0 at the end row (first
 * member NULL). */
int rows_read(const void *table, size_t stride, size_t i, void *row, size_t size)
{
    const char *src = (const char *)table + i * stride;
    const void *first;

    memcpy(&first, src, sizeof(first));
    if (first == NULL)
        return 0;
    memset(row, 0, size);
    memcpy(row, src, stride < size ? stride : size);
    return 1;
}

/* The number of rows before the end row, or -1 past LIMIT_ROWS. */
static long rows_count(const void *table, size_t stride)
{
    long n = 0;

    if (table == NULL)
        return 0;
    for (;;) {
        const void *first;

        memcpy(&first, (const char *)table + (size_t)n * stride, sizeof(first));
        if (first == NULL)
            return n;
        if (++n > LIMIT_ROWS)
            return -1;
    }
}

char *rows_dup(struct rows_load *ld, const char *s)
{
    char *copy;

    if (s == NULL)
        return NULL;
    copy = strdup(s);
    if (copy == NULL)
        ld->errs->nomem = 1;
    return copy;
}

/* A schema as written by the plugin: valid JSON of an object whose type is "object". */
static cJSON *rows_schema(struct rows_load *ld, const char *what, const char *name,
                          const char *text)
{
    cJSON *schema = cJSON_Parse(text != NULL ? text : "{\"type\":\"object\"}");
    const cJSON *type;
    struct strbuf why = STRBUF_INIT;

    if (schema == NULL) {
        rows_fail(ld, "%s of '%s' is not valid JSON (near \"%.20s\"); fix the string", what, name,
                  cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "");
        return NULL;
    }
    type = cJSON_GetObjectItemCaseSensitive(schema, "type");
    if (!cJSON_IsObject(schema) || !cJSON_IsString(type) ||
        strcmp(type->valuestring, "object") != 0) {
        const char *found = !cJSON_IsObject(schema) ? "not an object"
                            : cJSON_IsString(type)  ? type->valuestring
                                                    : "missing";

        rows_fail(ld,
                  "%s of '%s' must be a JSON Schema object with \"type\": \"object\"; "
                  "its type is \"%s\"",
                  what, name, found);
        cJSON_Delete(schema);
        return NULL;
    }
    if (schema_check(schema, &why) != STATUS_OK) {
        rows_fail(ld, "%s of '%s': %s; fix the schema", what, name, why.buf);
        cJSON_Delete(schema);
        schema = NULL;
    }
    strbuf_release(&why);
    return schema;
}

/* The compiled form of a schema checked already (NULL gives NULL). */
static struct schema *rows_compile(struct rows_load *ld, const cJSON *schema)
{
    struct schema *compiled = NULL;

    if (schema != NULL && schema_compile(schema, &compiled) != STATUS_OK)
        ld->errs->nomem = 1;
    return compiled;
}

/* An optional JSON member of a row (1.1): NULL text gives NULL; otherwise it must parse to
 * the given type (cJSON_Object or cJSON_Array). */
static cJSON *rows_json(struct rows_load *ld, const char *what, const char *name, const char *text,
                        int type)
{
    cJSON *value;

    if (text == NULL)
        return NULL;
    value = cJSON_Parse(text);
    if (value == NULL || (value->type & 0xFF) != type) {
        rows_fail(ld, "%s of '%s' must be JSON text of an %s; fix the string", what, name,
                  type == cJSON_Array ? "array" : "object");
        cJSON_Delete(value);
        return NULL;
    }
    return value;
}

static void rows_check_name(struct rows_load *ld, const char *what, const char *name)
{
    if (!plugin_valid_name(name))
        rows_fail(ld, "%s name '%s' is not valid; use 1-%d of A-Z a-z 0-9 _ . -", what,
                  name ? name : "(null)", LIMIT_NAME);
}

long rows_table_size(struct rows_load *ld, const char *what, const void *table, size_t stride)
{
    long n = rows_count(table, stride);

    if (n < 0)
        rows_fail(ld, "the %s table has more than %d rows or no end row {0}", what, LIMIT_ROWS);
    return n;
}

/* Room for one more row: returns the table (grown when full, new rows zeroed), or NULL when
 * out of memory (the table is then unchanged). */
static void *rows_grow(void *table, size_t *cap, size_t n, size_t elem)
{
    size_t want = *cap ? *cap * 2 : 8;
    char *grown;

    if (n < *cap)
        return table;
    grown = realloc(table, want * elem);
    if (grown == NULL)
        return NULL;
    memset(grown + *cap * elem, 0, (want - *cap) * elem);
    *cap = want;
    return grown;
}

/* --- One row of each kind: checked and copied into core memory. The same code serves the
 * static tables and the rows defined at init (1.2); problems go to ld. --- */

static void rows_fill_tool(struct rows_load *ld, const void *raw, void *slot)
{
    const struct mcph_tool *row = raw;
    struct plugin_tool *t = slot;
    size_t before = ld->errs->count;
    const struct plugin *pl = ld->pl;

    rows_check_name(ld, "tool", row->name);
    for (size_t j = 0; row->name != NULL && j < pl->ntools; j++) {
        if (pl->tools[j].name != NULL && strcmp(pl->tools[j].name, row->name) == 0)
            rows_fail(ld, "two tools are named '%s'; rename one", row->name);
    }
    if (row->call == NULL)
        rows_fail(ld, "tool '%s' has no call handler", row->name ? row->name : "(null)");
    if (ld->errs->count > before)
        return;
    t->name = rows_dup(ld, row->name);
    t->title = rows_dup(ld, row->title);
    t->description = rows_dup(ld, row->description);
    t->input_schema = rows_schema(ld, "input_schema", row->name, row->input_schema);
    if (row->output_schema != NULL)
        t->output_schema = rows_schema(ld, "output_schema", row->name, row->output_schema);
    /* Arguments are checked on every call: against a compiled form, made once. */
    t->input_check = rows_compile(ld, t->input_schema);
    t->output_check = rows_compile(ld, t->output_schema);
    t->hints[0] = row->read_only_hint;
    t->hints[1] = row->destructive_hint;
    t->hints[2] = row->idempotent_hint;
    t->hints[3] = row->open_world_hint;
    t->call = row->call;
    t->icons = rows_json(ld, "icons", row->name, row->icons, cJSON_Array);
    t->meta = rows_json(ld, "meta", row->name, row->meta, cJSON_Object);
    t->data = row->data;
}

static void rows_release_tool(void *slot)
{
    struct plugin_tool *t = slot;

    free(t->name);
    free(t->title);
    free(t->description);
    schema_free(t->input_check);
    schema_free(t->output_check);
    cJSON_Delete(t->input_schema);
    cJSON_Delete(t->output_schema);
    cJSON_Delete(t->icons);
    cJSON_Delete(t->meta);
}

static int rows_valid_uri(const char *uri)
{
    size_t scheme;

    if (uri == NULL || strlen(uri) > LIMIT_URI)
        return 0;
    scheme = strspn(uri, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
    return scheme > 0 && uri[scheme] == ':';
}

static void rows_fill_resource(struct rows_load *ld, const void *raw, void *slot)
{
    const struct mcph_resource *row = raw;
    struct plugin_resource *r = slot;
    size_t before = ld->errs->count;
    const struct plugin *pl = ld->pl;

    if (!rows_valid_uri(row->uri))
        rows_fail(ld,
                  "resource uri '%.200s' is not an absolute URI (scheme:...) of at most %d "
                  "bytes",
                  row->uri ? row->uri : "(null)", LIMIT_URI);
    for (size_t j = 0; row->uri != NULL && j < pl->nresources; j++) {
        if (pl->resources[j].uri != NULL && strcmp(pl->resources[j].uri, row->uri) == 0)
            rows_fail(ld, "two resources have the uri '%s'; change one", row->uri);
    }
    if (row->name == NULL || row->read == NULL)
        rows_fail(ld, "resource '%s' needs a name and a read handler",
                  row->uri ? row->uri : "(null)");
    if (ld->errs->count > before)
        return;
    r->uri = rows_dup(ld, row->uri);
    r->name = rows_dup(ld, row->name);
    r->title = rows_dup(ld, row->title);
    r->description = rows_dup(ld, row->description);
    r->mime_type = rows_dup(ld, row->mime_type);
    r->size = row->size;
    r->read = row->read;
    r->annotations = rows_json(ld, "annotations", row->uri, row->annotations, cJSON_Object);
    r->icons = rows_json(ld, "icons", row->uri, row->icons, cJSON_Array);
    r->meta = rows_json(ld, "meta", row->uri, row->meta, cJSON_Object);
    r->data = row->data;
}

static void rows_release_resource(void *slot)
{
    struct plugin_resource *r = slot;

    free(r->uri);
    free(r->name);
    free(r->title);
    free(r->description);
    free(r->mime_type);
    cJSON_Delete(r->annotations);
    cJSON_Delete(r->icons);
    cJSON_Delete(r->meta);
}

static void rows_fill_template(struct rows_load *ld, const void *raw, void *slot)
{
    const struct mcph_resource_template *row = raw;
    struct plugin_template *t = slot;
    size_t before = ld->errs->count;
    const char *why = NULL;
    const char *uri = row->uri_template ? row->uri_template : "(null)";

    if (!rows_valid_uri(row->uri_template) ||
        uritemplate_check(row->uri_template, &why) != STATUS_OK)
        rows_fail(ld, "resource template '%.200s' is not valid: %s", uri,
                  why ? why : "not an absolute URI (scheme:...)");
    if (row->name == NULL || row->read == NULL)
        rows_fail(ld, "resource template '%s' needs a name and a read handler", uri);
    if (ld->errs->count > before)
        return;
    t->uri_template = rows_dup(ld, row->uri_template);
    t->name = rows_dup(ld, row->name);
    t->title = rows_dup(ld, row->title);
    t->description = rows_dup(ld, row->description);
    t->mime_type = rows_dup(ld, row->mime_type);
    t->read = row->read;
    t->annotations = rows_json(ld, "annotations", uri, row->annotations, cJSON_Object);
    t->icons = rows_json(ld, "icons", uri, row->icons, cJSON_Array);
    t->meta = rows_json(ld, "meta", uri, row->meta, cJSON_Object);
    t->complete = row->complete;
    t->data = row->data;
}

static void rows_release_template(void *slot)
{
    struct plugin_template *t = slot;

    free(t->uri_template);
    free(t->name);
    free(t->title);
    free(t->description);
    free(t->mime_type);
    cJSON_Delete(t->annotations);
    cJSON_Delete(t->icons);
    cJSON_Delete(t->meta);
}

static void rows_fill_args(struct rows_load *ld, const struct mcph_prompt *row,
                           struct plugin_prompt *p)
{
    size_t stride = ld->pl->prompt_arg_size;
    long n = rows_count(row->arguments, stride);
    struct mcph_prompt_arg arg;

    if (n < 0 || n > LIMIT_ARGS) {
        rows_fail(ld, "prompt '%s' has more than %d arguments or no end row {0}", row->name,
                  LIMIT_ARGS);
        return;
    }
    if (n == 0)
        return;
    p->args = calloc((size_t)n, sizeof(*p->args));
    if (p->args == NULL) {
        ld->errs->nomem = 1;
        ld->failed = 1;
        return;
    }
    for (size_t i = 0; rows_read(row->arguments, stride, i, &arg, sizeof(arg)); i++) {
        for (size_t j = 0; j < p->nargs; j++) {
            if (p->args[j].name != NULL && arg.name != NULL &&
                strcmp(p->args[j].name, arg.name) == 0)
                rows_fail(ld, "prompt '%s' has two arguments named '%s'", row->name, arg.name);
        }
        p->args[p->nargs].name = rows_dup(ld, arg.name);
        p->args[p->nargs].title = rows_dup(ld, arg.title);
        p->args[p->nargs].description = rows_dup(ld, arg.description);
        p->args[p->nargs].required = arg.required != 0;
        p->nargs++;
    }
}

static void rows_fill_prompt(struct rows_load *ld, const void *raw, void *slot)
{
    const struct mcph_prompt *row = raw;
    struct plugin_prompt *p = slot;
    size_t before = ld->errs->count;
    const struct plugin *pl = ld->pl;

    rows_check_name(ld, "prompt", row->name);
    for (size_t j = 0; row->name != NULL && j < pl->nprompts; j++) {
        if (pl->prompts[j].name != NULL && strcmp(pl->prompts[j].name, row->name) == 0)
            rows_fail(ld, "two prompts are named '%s'; rename one", row->name);
    }
    if (row->get == NULL)
        rows_fail(ld, "prompt '%s' has no get handler", row->name ? row->name : "(null)");
    if (ld->errs->count > before)
        return;
    p->name = rows_dup(ld, row->name);
    p->title = rows_dup(ld, row->title);
    p->description = rows_dup(ld, row->description);
    p->get = row->get;
    p->icons = rows_json(ld, "icons", row->name, row->icons, cJSON_Array);
    p->meta = rows_json(ld, "meta", row->name, row->meta, cJSON_Object);
    p->complete = row->complete;
    p->data = row->data;
    rows_fill_args(ld, row, p);
}

static void rows_release_prompt(void *slot)
{
    struct plugin_prompt *p = slot;

    for (size_t j = 0; j < p->nargs; j++) {
        free(p->args[j].name);
        free(p->args[j].title);
        free(p->args[j].description);
    }
    free(p->args);
    cJSON_Delete(p->icons);
    cJSON_Delete(p->meta);
    free(p->name);
    free(p->title);
    free(p->description);
}

/* --- The kinds. --- */

#define ROWS_KIND(name, row, min_member, copy, desc_rows, desc_stride, rows_, n, cap_, fill_,      \
                  release_, filter_)                                                               \
    {                                                                                              \
        .what = name, .min_size = ROWS_END(row, min_member), .row_size = sizeof(row),              \
        .elem = sizeof(copy), .desc_table = offsetof(struct mcph_plugin, desc_rows),               \
        .desc_size = offsetof(struct mcph_plugin, desc_stride),                                    \
        .table = offsetof(struct plugin, rows_), .count = offsetof(struct plugin, n),              \
        .cap = offsetof(struct plugin, cap_), .size = offsetof(struct plugin, desc_stride),        \
        .fill = fill_, .release = release_, .filter = filter_                                      \
    }

/* What a filter sees is the first member of each row (rows_filtered). */
_Static_assert(offsetof(struct mcph_tool, name) == 0 && offsetof(struct mcph_resource, uri) == 0 &&
                   offsetof(struct mcph_resource_template, uri_template) == 0 &&
                   offsetof(struct mcph_prompt, name) == 0,
               "a row's filtered string is its first member");

const struct rows_kind rows_kinds[] = {
    [PLUGIN_ROW_TOOL] =
        ROWS_KIND("tool", struct mcph_tool, call, struct plugin_tool, tools, tool_size, tools,
                  ntools, cap_tools, rows_fill_tool, rows_release_tool, FILTER_TOOLS),
    [PLUGIN_ROW_RESOURCE] =
        ROWS_KIND("resource", struct mcph_resource, read, struct plugin_resource, resources,
                  resource_size, resources, nresources, cap_resources, rows_fill_resource,
                  rows_release_resource, FILTER_RESOURCES),
    [PLUGIN_ROW_TEMPLATE] =
        ROWS_KIND("resource template", struct mcph_resource_template, read, struct plugin_template,
                  resource_templates, template_size, templates, ntemplates, cap_templates,
                  rows_fill_template, rows_release_template, FILTER_RESOURCES),
    [PLUGIN_ROW_PROMPT] = ROWS_KIND("prompt", struct mcph_prompt, get, struct plugin_prompt,
                                    prompts, prompt_size, prompts, nprompts, cap_prompts,
                                    rows_fill_prompt, rows_release_prompt, FILTER_PROMPTS),
};

/* A row of any kind, as this header has it. */
union rows_row {
    struct mcph_tool tool;
    struct mcph_resource resource;
    struct mcph_resource_template template;
    struct mcph_prompt prompt;
};

/* The members of a kind in struct plugin, read and written through their offsets. */
static void *rows_get_table(const struct plugin *pl, const struct rows_kind *k)
{
    void *table;

    memcpy(&table, (const char *)pl + k->table, sizeof(table));
    return table;
}

static void rows_set_table(struct plugin *pl, const struct rows_kind *k, void *table)
{
    memcpy((char *)pl + k->table, &table, sizeof(table));
}

static size_t *rows_n(struct plugin *pl, const struct rows_kind *k)
{
    return (size_t *)(void *)((char *)pl + k->count);
}

size_t rows_count_of(const struct plugin *pl, int kind)
{
    size_t n;

    memcpy(&n, (const char *)pl + rows_kinds[kind].count, sizeof(n));
    return n;
}

_Static_assert(offsetof(struct plugin_tool, name) == 0 &&
                   offsetof(struct plugin_resource, uri) == 0 &&
                   offsetof(struct plugin_template, uri_template) == 0 &&
                   offsetof(struct plugin_prompt, name) == 0,
               "a copied row's filtered string is its first member");

const char *rows_name_of(const struct plugin *pl, int kind, size_t i)
{
    const struct rows_kind *k = &rows_kinds[kind];
    const char *name;

    memcpy(&name, (const char *)rows_get_table(pl, k) + i * k->elem, sizeof(name));
    return name;
}

/* A uint16_t row size at offset `at` of a struct. */
static size_t rows_u16(const void *base, size_t at)
{
    uint16_t v;

    memcpy(&v, (const char *)base + at, sizeof(v));
    return v;
}

/* Whether `size` (a row size the descriptor records) is at least ABI 1.0's `min`. */
static int rows_check_size(struct rows_load *ld, const char *what, size_t size, size_t min)
{
    if (size >= min)
        return 1;
    rows_fail(ld,
              "%s rows are %zu bytes, ABI 1.0 needs at least %zu; fill the descriptor "
              "with MCPH_PLUGIN_HEADER and rebuild",
              what, size, min);
    return 0;
}

int rows_check_sizes(struct rows_load *ld, const struct mcph_plugin *d)
{
    int ok = 1;

    for (int kind = PLUGIN_ROW_TOOL; kind <= PLUGIN_ROW_PROMPT; kind++) {
        const struct rows_kind *k = &rows_kinds[kind];

        ok &= rows_check_size(ld, k->what, rows_u16(d, k->desc_size), k->min_size);
    }
    ok &= rows_check_size(ld, "prompt argument", d->prompt_arg_size,
                          ROWS_END(struct mcph_prompt_arg, required));
    ok &= rows_check_size(ld, "config key", d->config_key_size,
                          ROWS_END(struct mcph_config_key, required));
    return ok ? STATUS_OK : STATUS_PLUGIN;
}

/* Whether the instance's filter drops `row` of `kind` (a row without its first member is
 * kept, for the checks to refuse); a dropped row's name is noted. Out of memory is noted in
 * ld->errs. */
static int rows_filtered(struct rows_load *ld, int kind, const union rows_row *row)
{
    const char *name;

    memcpy(&name, row, sizeof(name));
    if (name == NULL || filter_keeps(ld->pl->section.filter[rows_kinds[kind].filter], name))
        return 0;
    if (filter_names_add(&ld->pl->dropped[kind], name) != STATUS_OK)
        ld->errs->nomem = 1;
    return 1;
}

int rows_copy_table(struct rows_load *ld, const struct mcph_plugin *d, int kind)
{
    const struct rows_kind *k = &rows_kinds[kind];
    struct plugin *pl = ld->pl;
    size_t stride = rows_u16(d, k->desc_size);
    const void *table;
    union rows_row row;
    char *rows;
    long n;

    memcpy(&table, (const char *)d + k->desc_table, sizeof(table));
    n = rows_table_size(ld, k->what, table, stride);
    if (n <= 0)
        return n < 0 ? STATUS_PLUGIN : STATUS_OK;
    rows = calloc((size_t)n, k->elem);
    if (rows == NULL)
        return STATUS_NOMEM;
    rows_set_table(pl, k, rows);
    memcpy((char *)pl + k->cap, &(size_t){(size_t)n}, sizeof(size_t));
    for (size_t i = 0; rows_read(table, stride, i, &row, k->row_size); i++) {
        if (rows_filtered(ld, kind, &row))
            continue;
        k->fill(ld, &row, rows + *rows_n(pl, k) * k->elem);
        (*rows_n(pl, k))++;
    }
    return ld->errs->nomem ? STATUS_NOMEM : STATUS_OK;
}

/* A zeroed slot after the last row of kind k (a refused row's slot is reused), the table
 * grown when full; the row counts only once kept. NULL when out of memory. */
static void *rows_slot(struct plugin *pl, const struct rows_kind *k)
{
    size_t *cap = (size_t *)(void *)((char *)pl + k->cap);
    size_t n = *rows_n(pl, k);
    char *table = rows_grow(rows_get_table(pl, k), cap, n, k->elem);

    if (table == NULL)
        return NULL;
    rows_set_table(pl, k, table);
    return memset(table + n * k->elem, 0, k->elem);
}

int rows_define(struct rows_load *ld, int kind, const void *raw)
{
    const struct rows_kind *k = &rows_kinds[kind];
    size_t stride = rows_u16(ld->pl, k->size);
    union rows_row row;
    void *slot;

    /* The plugin's row, of the size its descriptor records, as this header's struct. */
    memset(&row, 0, sizeof(row));
    memcpy(&row, raw, stride < k->row_size ? stride : k->row_size);
    if (rows_filtered(ld, kind, &row))
        return ld->errs->nomem ? MCPH_ERR_NOMEM : MCPH_OK;
    slot = rows_slot(ld->pl, k);
    if (slot == NULL)
        return MCPH_ERR_NOMEM;
    k->fill(ld, &row, slot);
    if (ld->errs->nomem || ld->errs->count > 0) {
        k->release(slot);
        return ld->errs->nomem ? MCPH_ERR_NOMEM : MCPH_ERR_INVALID;
    }
    (*rows_n(ld->pl, k))++;
    return MCPH_OK;
}

void rows_free(struct plugin *pl)
{
    for (int kind = PLUGIN_ROW_TOOL; kind <= PLUGIN_ROW_PROMPT; kind++) {
        const struct rows_kind *k = &rows_kinds[kind];
        char *table = rows_get_table(pl, k);

        for (size_t i = 0; i < *rows_n(pl, k); i++)
            k->release(table + i * k->elem);
        free(table);
        filter_names_release(&pl->dropped[kind]);
    }
}
