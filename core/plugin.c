#include "plugin.h"

#include "limits.h"
#include "schema.h"
#include "status.h"
#include "uritemplate.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* What ABI 1.0 requires of the descriptor and of each row: a plugin built for an older
 * minor may be shorter than the structs of this header, never shorter than these. */
#define PLUGIN_END(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))
#define PLUGIN_MIN_DESC PLUGIN_END(struct mcph_plugin, shutdown)
#define PLUGIN_MIN_TOOL PLUGIN_END(struct mcph_tool, call)
#define PLUGIN_MIN_RESOURCE PLUGIN_END(struct mcph_resource, read)
#define PLUGIN_MIN_TEMPLATE PLUGIN_END(struct mcph_resource_template, read)
#define PLUGIN_MIN_PROMPT PLUGIN_END(struct mcph_prompt, get)
#define PLUGIN_MIN_PROMPT_ARG PLUGIN_END(struct mcph_prompt_arg, required)
#define PLUGIN_MIN_KEY PLUGIN_END(struct mcph_config_key, required)

/* Largest plugin file mcph copies into memory to load. */
#define PLUGIN_MAX_FILE (256L * 1024 * 1024)

/* The load in progress: where messages go and what they name. */
struct plugin_load {
    struct plugin *pl;
    const struct config_plugin *cp;
    const char *ini_file;
    struct diag *errs;
    int failed;
};

static void plugin_fail(struct plugin_load *ld, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void plugin_fail(struct plugin_load *ld, const char *fmt, ...)
{
    char *what = NULL;
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&what, fmt, ap);
    va_end(ap);
    ld->failed = 1;
    if (n < 0) {
        ld->errs->nomem = 1;
        return;
    }
    diag_add(ld->errs, "plugin '%s' (%s): %s", ld->cp->id, ld->cp->path, what);
    free(what);
}

int plugin_valid_name(const char *name)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
    size_t n;

    if (name == NULL)
        return 0;
    n = strlen(name);
    return n >= 1 && n <= LIMIT_NAME && strspn(name, chars) == n;
}

/* --- The file: checked through the descriptor we then load from, so what is checked is
 * what runs. --- */

static int plugin_check_dir(struct plugin_load *ld, const char *file)
{
    char real[PATH_MAX];
    struct stat st;
    char *slash;

    if (realpath(file, real) == NULL) {
        plugin_fail(ld, "cannot resolve the path: %s; check [plugin.%s] path", strerror(errno),
                    ld->cp->id);
        return STATUS_PLUGIN;
    }
    slash = strrchr(real, '/');
    if (slash == real)
        slash[1] = '\0';
    else
        *slash = '\0';
    if (stat(real, &st) != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
        plugin_fail(ld,
                    "its folder %s is writable by group or others, so anyone could swap "
                    "the plugin; run chmod go-w %s",
                    real, real);
        return STATUS_PLUGIN;
    }
    return STATUS_OK;
}

static int plugin_check_file(struct plugin_load *ld, int fd, struct stat *st)
{
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        plugin_fail(ld, "not a regular file; point path at the plugin's .so");
        return STATUS_PLUGIN;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        plugin_fail(ld, "the file is writable by group or others; run chmod go-w %s", ld->cp->path);
        return STATUS_PLUGIN;
    }
    if (st->st_size > PLUGIN_MAX_FILE) {
        plugin_fail(ld, "the file is larger than %ld bytes", PLUGIN_MAX_FILE);
        return STATUS_PLUGIN;
    }
    return plugin_check_dir(ld, ld->cp->path);
}

/* Copy the file into a sealed memfd and dlopen that as /proc/self/fd/N: glibc hands back
 * the loaded handle for a path it has open already, so a rebuilt .so at the same path would
 * otherwise run the old code; and the sealed copy cannot change after the checks. The memfd
 * stays open while the library is loaded, so no other plugin's name can be that path. */
static int plugin_copy_to_memfd(struct plugin_load *ld, int fd, off_t size)
{
    char buf[65536];
    int mfd = memfd_create(ld->cp->id, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    off_t done = 0;

    if (mfd < 0) {
        plugin_fail(ld, "memfd_create: %s", strerror(errno));
        return -1;
    }
    while (done < size) {
        ssize_t n = read(fd, buf, sizeof(buf));

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || write(mfd, buf, (size_t)n) != n) {
            plugin_fail(ld, "cannot copy the file: %s", n < 0 ? strerror(errno) : "short read");
            close(mfd);
            return -1;
        }
        done += n;
    }
    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    return mfd;
}

static int plugin_open(struct plugin_load *ld)
{
    struct plugin *pl = ld->pl;
    char name[64];
    struct stat st;
    int fd, mfd;

    fd = open(ld->cp->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        plugin_fail(ld, "cannot open: %s; build it (make) or fix [plugin.%s] path in %s",
                    strerror(errno), ld->cp->id, ld->ini_file);
        return STATUS_PLUGIN;
    }
    if (plugin_check_file(ld, fd, &st) != STATUS_OK) {
        close(fd);
        return STATUS_PLUGIN;
    }
    pl->dev = st.st_dev;
    pl->ino = st.st_ino;
    pl->mtime = st.st_mtim;
    pl->size = st.st_size;
    mfd = plugin_copy_to_memfd(ld, fd, st.st_size);
    close(fd);
    if (mfd < 0)
        return STATUS_PLUGIN;
    snprintf(name, sizeof(name), "/proc/self/fd/%d", mfd);
    pl->memfd = mfd;
    pl->handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (pl->handle == NULL) {
        plugin_fail(ld, "dlopen failed: %s", dlerror());
        return STATUS_PLUGIN;
    }
    return STATUS_OK;
}

/* --- The descriptor. --- */

static int plugin_check_version(struct plugin_load *ld, const struct mcph_plugin *raw)
{
    if (raw->abi_major != MCPH_ABI_MAJOR) {
        plugin_fail(ld,
                    "built for plugin ABI %u.%u, this mcph has ABI %d.%d; rebuild the "
                    "plugin against this mcph's plugin-api.h",
                    raw->abi_major, raw->abi_minor, MCPH_ABI_MAJOR, MCPH_ABI_MINOR);
        return STATUS_PLUGIN;
    }
    if (raw->abi_minor > MCPH_ABI_MINOR) {
        plugin_fail(ld,
                    "built for plugin ABI %u.%u, newer than this mcph's ABI %d.%d; "
                    "upgrade mcph, or rebuild the plugin against this mcph's plugin-api.h",
                    raw->abi_major, raw->abi_minor, MCPH_ABI_MAJOR, MCPH_ABI_MINOR);
        return STATUS_PLUGIN;
    }
    if (raw->size < PLUGIN_MIN_DESC) {
        plugin_fail(ld,
                    "descriptor is %u bytes, ABI %u.%u needs at least %zu; fill it with "
                    "MCPH_PLUGIN_HEADER and rebuild",
                    raw->size, raw->abi_major, raw->abi_minor, (size_t)PLUGIN_MIN_DESC);
        return STATUS_PLUGIN;
    }
    return STATUS_OK;
}

static int plugin_check_row_size(struct plugin_load *ld, const char *what, unsigned size,
                                 size_t min)
{
    if (size >= min)
        return STATUS_OK;
    plugin_fail(ld,
                "%s rows are %u bytes, ABI 1.0 needs at least %zu; fill the descriptor "
                "with MCPH_PLUGIN_HEADER and rebuild",
                what, size, min);
    return STATUS_PLUGIN;
}

static int plugin_read_descriptor(struct plugin_load *ld, struct mcph_plugin *d)
{
    const struct mcph_plugin *(*entry)(void);
    const struct mcph_plugin *raw;
    int bad = 0;

    *(void **)&entry = dlsym(ld->pl->handle, MCPH_ENTRY_SYMBOL);
    if (entry == NULL) {
        plugin_fail(ld, "no %s() in it; is it an mcph plugin? (see plugin-api/README.md)",
                    MCPH_ENTRY_SYMBOL);
        return STATUS_PLUGIN;
    }
    raw = entry();
    if (raw == NULL) {
        plugin_fail(ld, "%s() returned NULL; return the address of the descriptor",
                    MCPH_ENTRY_SYMBOL);
        return STATUS_PLUGIN;
    }
    if (plugin_check_version(ld, raw) != STATUS_OK)
        return STATUS_PLUGIN;
    memset(d, 0, sizeof(*d));
    memcpy(d, raw, raw->size < sizeof(*d) ? raw->size : sizeof(*d));
    bad |= plugin_check_row_size(ld, "tool", d->tool_size, PLUGIN_MIN_TOOL);
    bad |= plugin_check_row_size(ld, "resource", d->resource_size, PLUGIN_MIN_RESOURCE);
    bad |= plugin_check_row_size(ld, "template", d->template_size, PLUGIN_MIN_TEMPLATE);
    bad |= plugin_check_row_size(ld, "prompt", d->prompt_size, PLUGIN_MIN_PROMPT);
    bad |= plugin_check_row_size(ld, "prompt argument", d->prompt_arg_size, PLUGIN_MIN_PROMPT_ARG);
    bad |= plugin_check_row_size(ld, "config key", d->config_key_size, PLUGIN_MIN_KEY);
    return bad ? STATUS_PLUGIN : STATUS_OK;
}

/* Row i of a table of `stride`-byte rows, copied into `row` (of `size` bytes, zeroed
 * first: members the plugin's minor lacks read as zero). Returns 0 at the end row (first
 * member NULL). */
static int plugin_row(const void *table, size_t stride, size_t i, void *row, size_t size)
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
static long plugin_count_rows(const void *table, size_t stride)
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

static char *plugin_dup(struct plugin_load *ld, const char *s)
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
static cJSON *plugin_schema(struct plugin_load *ld, const char *what, const char *name,
                            const char *text)
{
    cJSON *schema = cJSON_Parse(text != NULL ? text : "{\"type\":\"object\"}");
    const cJSON *type;
    char why[256];

    if (schema == NULL) {
        plugin_fail(ld, "%s of '%s' is not valid JSON (near \"%.20s\"); fix the string", what, name,
                    cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() : "");
        return NULL;
    }
    type = cJSON_GetObjectItemCaseSensitive(schema, "type");
    if (!cJSON_IsObject(schema) || !cJSON_IsString(type) ||
        strcmp(type->valuestring, "object") != 0) {
        const char *found = !cJSON_IsObject(schema) ? "not an object"
                            : cJSON_IsString(type)  ? type->valuestring
                                                    : "missing";

        plugin_fail(ld,
                    "%s of '%s' must be a JSON Schema object with \"type\": \"object\"; "
                    "its type is \"%s\"",
                    what, name, found);
        cJSON_Delete(schema);
        return NULL;
    }
    if (schema_check(schema, why, sizeof(why)) != STATUS_OK) {
        plugin_fail(ld, "%s of '%s': %s; fix the schema", what, name, why);
        cJSON_Delete(schema);
        return NULL;
    }
    return schema;
}

/* The compiled form of a schema checked already (NULL gives NULL). */
static struct schema *plugin_compile(struct plugin_load *ld, const cJSON *schema)
{
    struct schema *compiled = NULL;

    if (schema != NULL && schema_compile(schema, &compiled) != STATUS_OK)
        ld->errs->nomem = 1;
    return compiled;
}

/* An optional JSON member of a row (1.1): NULL text gives NULL; otherwise it must parse to
 * the given type (cJSON_Object or cJSON_Array). */
static cJSON *plugin_json(struct plugin_load *ld, const char *what, const char *name,
                          const char *text, int type)
{
    cJSON *value;

    if (text == NULL)
        return NULL;
    value = cJSON_Parse(text);
    if (value == NULL || (value->type & 0xFF) != type) {
        plugin_fail(ld, "%s of '%s' must be JSON text of an %s; fix the string", what, name,
                    type == cJSON_Array ? "array" : "object");
        cJSON_Delete(value);
        return NULL;
    }
    return value;
}

static void plugin_check_name(struct plugin_load *ld, const char *what, const char *name)
{
    if (!plugin_valid_name(name))
        plugin_fail(ld, "%s name '%s' is not valid; use 1-%d of A-Z a-z 0-9 _ . -", what,
                    name ? name : "(null)", LIMIT_NAME);
}

static long plugin_table_size(struct plugin_load *ld, const char *what, const void *table,
                              size_t stride)
{
    long n = plugin_count_rows(table, stride);

    if (n < 0)
        plugin_fail(ld, "the %s table has more than %d rows or no end row {0}", what, LIMIT_ROWS);
    return n;
}

/* Room for one more row: returns the table (grown when full, new rows zeroed), or NULL when
 * out of memory (the table is then unchanged). */
static void *plugin_grow(void *table, size_t *cap, size_t n, size_t elem)
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

static void plugin_fill_tool(struct plugin_load *ld, const struct mcph_tool *row,
                             struct plugin_tool *t)
{
    size_t before = ld->errs->count;
    const struct plugin *pl = ld->pl;

    plugin_check_name(ld, "tool", row->name);
    for (size_t j = 0; row->name != NULL && j < pl->ntools; j++) {
        if (pl->tools[j].name != NULL && strcmp(pl->tools[j].name, row->name) == 0)
            plugin_fail(ld, "two tools are named '%s'; rename one", row->name);
    }
    if (row->call == NULL)
        plugin_fail(ld, "tool '%s' has no call handler", row->name ? row->name : "(null)");
    if (ld->errs->count > before)
        return;
    t->name = plugin_dup(ld, row->name);
    t->title = plugin_dup(ld, row->title);
    t->description = plugin_dup(ld, row->description);
    t->input_schema = plugin_schema(ld, "input_schema", row->name, row->input_schema);
    if (row->output_schema != NULL)
        t->output_schema = plugin_schema(ld, "output_schema", row->name, row->output_schema);
    /* Arguments are checked on every call: against a compiled form, made once. */
    t->input_check = plugin_compile(ld, t->input_schema);
    t->output_check = plugin_compile(ld, t->output_schema);
    t->hints[0] = row->read_only_hint;
    t->hints[1] = row->destructive_hint;
    t->hints[2] = row->idempotent_hint;
    t->hints[3] = row->open_world_hint;
    t->call = row->call;
    t->icons = plugin_json(ld, "icons", row->name, row->icons, cJSON_Array);
    t->meta = plugin_json(ld, "meta", row->name, row->meta, cJSON_Object);
    t->data = row->data;
}

static void plugin_release_tool(struct plugin_tool *t)
{
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

static int plugin_valid_uri(const char *uri)
{
    size_t scheme;

    if (uri == NULL || strlen(uri) > LIMIT_URI)
        return 0;
    scheme = strspn(uri, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
    return scheme > 0 && uri[scheme] == ':';
}

static void plugin_fill_resource(struct plugin_load *ld, const struct mcph_resource *row,
                                 struct plugin_resource *r)
{
    size_t before = ld->errs->count;
    const struct plugin *pl = ld->pl;

    if (!plugin_valid_uri(row->uri))
        plugin_fail(ld,
                    "resource uri '%.200s' is not an absolute URI (scheme:...) of at most %d "
                    "bytes",
                    row->uri ? row->uri : "(null)", LIMIT_URI);
    for (size_t j = 0; row->uri != NULL && j < pl->nresources; j++) {
        if (pl->resources[j].uri != NULL && strcmp(pl->resources[j].uri, row->uri) == 0)
            plugin_fail(ld, "two resources have the uri '%s'; change one", row->uri);
    }
    if (row->name == NULL || row->read == NULL)
        plugin_fail(ld, "resource '%s' needs a name and a read handler",
                    row->uri ? row->uri : "(null)");
    if (ld->errs->count > before)
        return;
    r->uri = plugin_dup(ld, row->uri);
    r->name = plugin_dup(ld, row->name);
    r->title = plugin_dup(ld, row->title);
    r->description = plugin_dup(ld, row->description);
    r->mime_type = plugin_dup(ld, row->mime_type);
    r->size = row->size;
    r->read = row->read;
    r->annotations = plugin_json(ld, "annotations", row->uri, row->annotations, cJSON_Object);
    r->icons = plugin_json(ld, "icons", row->uri, row->icons, cJSON_Array);
    r->meta = plugin_json(ld, "meta", row->uri, row->meta, cJSON_Object);
    r->data = row->data;
}

static void plugin_release_resource(struct plugin_resource *r)
{
    free(r->uri);
    free(r->name);
    free(r->title);
    free(r->description);
    free(r->mime_type);
    cJSON_Delete(r->annotations);
    cJSON_Delete(r->icons);
    cJSON_Delete(r->meta);
}

static void plugin_fill_template(struct plugin_load *ld, const struct mcph_resource_template *row,
                                 struct plugin_template *t)
{
    size_t before = ld->errs->count;
    const char *why = NULL;
    const char *uri = row->uri_template ? row->uri_template : "(null)";

    if (!plugin_valid_uri(row->uri_template) ||
        uritemplate_check(row->uri_template, &why) != STATUS_OK)
        plugin_fail(ld, "resource template '%.200s' is not valid: %s", uri,
                    why ? why : "not an absolute URI (scheme:...)");
    if (row->name == NULL || row->read == NULL)
        plugin_fail(ld, "resource template '%s' needs a name and a read handler", uri);
    if (ld->errs->count > before)
        return;
    t->uri_template = plugin_dup(ld, row->uri_template);
    t->name = plugin_dup(ld, row->name);
    t->title = plugin_dup(ld, row->title);
    t->description = plugin_dup(ld, row->description);
    t->mime_type = plugin_dup(ld, row->mime_type);
    t->read = row->read;
    t->annotations = plugin_json(ld, "annotations", uri, row->annotations, cJSON_Object);
    t->icons = plugin_json(ld, "icons", uri, row->icons, cJSON_Array);
    t->meta = plugin_json(ld, "meta", uri, row->meta, cJSON_Object);
    t->complete = row->complete;
    t->data = row->data;
}

static void plugin_release_template(struct plugin_template *t)
{
    free(t->uri_template);
    free(t->name);
    free(t->title);
    free(t->description);
    free(t->mime_type);
    cJSON_Delete(t->annotations);
    cJSON_Delete(t->icons);
    cJSON_Delete(t->meta);
}

static void plugin_fill_args(struct plugin_load *ld, const struct mcph_prompt *row,
                             struct plugin_prompt *p)
{
    size_t stride = ld->pl->prompt_arg_size;
    long n = plugin_count_rows(row->arguments, stride);
    struct mcph_prompt_arg arg;

    if (n < 0 || n > LIMIT_ARGS) {
        plugin_fail(ld, "prompt '%s' has more than %d arguments or no end row {0}", row->name,
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
    for (size_t i = 0; plugin_row(row->arguments, stride, i, &arg, sizeof(arg)); i++) {
        for (size_t j = 0; j < p->nargs; j++) {
            if (p->args[j].name != NULL && arg.name != NULL &&
                strcmp(p->args[j].name, arg.name) == 0)
                plugin_fail(ld, "prompt '%s' has two arguments named '%s'", row->name, arg.name);
        }
        p->args[p->nargs].name = plugin_dup(ld, arg.name);
        p->args[p->nargs].title = plugin_dup(ld, arg.title);
        p->args[p->nargs].description = plugin_dup(ld, arg.description);
        p->args[p->nargs].required = arg.required != 0;
        p->nargs++;
    }
}

static void plugin_fill_prompt(struct plugin_load *ld, const struct mcph_prompt *row,
                               struct plugin_prompt *p)
{
    size_t before = ld->errs->count;
    const struct plugin *pl = ld->pl;

    plugin_check_name(ld, "prompt", row->name);
    for (size_t j = 0; row->name != NULL && j < pl->nprompts; j++) {
        if (pl->prompts[j].name != NULL && strcmp(pl->prompts[j].name, row->name) == 0)
            plugin_fail(ld, "two prompts are named '%s'; rename one", row->name);
    }
    if (row->get == NULL)
        plugin_fail(ld, "prompt '%s' has no get handler", row->name ? row->name : "(null)");
    if (ld->errs->count > before)
        return;
    p->name = plugin_dup(ld, row->name);
    p->title = plugin_dup(ld, row->title);
    p->description = plugin_dup(ld, row->description);
    p->get = row->get;
    p->icons = plugin_json(ld, "icons", row->name, row->icons, cJSON_Array);
    p->meta = plugin_json(ld, "meta", row->name, row->meta, cJSON_Object);
    p->complete = row->complete;
    p->data = row->data;
    plugin_fill_args(ld, row, p);
}

static void plugin_release_prompt(struct plugin_prompt *p)
{
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

/* --- The static tables: every row is kept (a failed one too, so that it is freed with the
 * instance); any problem fails the load. --- */

static int plugin_copy_tools(struct plugin_load *ld, const struct mcph_plugin *d)
{
    struct plugin *pl = ld->pl;
    long n = plugin_table_size(ld, "tool", d->tools, d->tool_size);
    struct mcph_tool row;

    if (n <= 0)
        return n < 0 ? STATUS_PLUGIN : STATUS_OK;
    pl->tools = calloc((size_t)n, sizeof(*pl->tools));
    if (pl->tools == NULL)
        return STATUS_NOMEM;
    pl->cap_tools = (size_t)n;
    for (size_t i = 0; plugin_row(d->tools, d->tool_size, i, &row, sizeof(row)); i++) {
        struct plugin_tool t = {0};

        plugin_fill_tool(ld, &row, &t);
        pl->tools[pl->ntools++] = t;
    }
    return STATUS_OK;
}

static int plugin_copy_resources(struct plugin_load *ld, const struct mcph_plugin *d)
{
    struct plugin *pl = ld->pl;
    long n = plugin_table_size(ld, "resource", d->resources, d->resource_size);
    struct mcph_resource row;

    if (n <= 0)
        return n < 0 ? STATUS_PLUGIN : STATUS_OK;
    pl->resources = calloc((size_t)n, sizeof(*pl->resources));
    if (pl->resources == NULL)
        return STATUS_NOMEM;
    pl->cap_resources = (size_t)n;
    for (size_t i = 0; plugin_row(d->resources, d->resource_size, i, &row, sizeof(row)); i++) {
        struct plugin_resource r = {0};

        plugin_fill_resource(ld, &row, &r);
        pl->resources[pl->nresources++] = r;
    }
    return STATUS_OK;
}

static int plugin_copy_templates(struct plugin_load *ld, const struct mcph_plugin *d)
{
    struct plugin *pl = ld->pl;
    long n = plugin_table_size(ld, "template", d->resource_templates, d->template_size);
    struct mcph_resource_template row;

    if (n <= 0)
        return n < 0 ? STATUS_PLUGIN : STATUS_OK;
    pl->templates = calloc((size_t)n, sizeof(*pl->templates));
    if (pl->templates == NULL)
        return STATUS_NOMEM;
    pl->cap_templates = (size_t)n;
    for (size_t i = 0; plugin_row(d->resource_templates, d->template_size, i, &row, sizeof(row));
         i++) {
        struct plugin_template t = {0};

        plugin_fill_template(ld, &row, &t);
        pl->templates[pl->ntemplates++] = t;
    }
    return STATUS_OK;
}

static int plugin_copy_prompts(struct plugin_load *ld, const struct mcph_plugin *d)
{
    struct plugin *pl = ld->pl;
    long n = plugin_table_size(ld, "prompt", d->prompts, d->prompt_size);
    struct mcph_prompt row;

    if (n <= 0)
        return n < 0 ? STATUS_PLUGIN : STATUS_OK;
    pl->prompts = calloc((size_t)n, sizeof(*pl->prompts));
    if (pl->prompts == NULL)
        return STATUS_NOMEM;
    pl->cap_prompts = (size_t)n;
    for (size_t i = 0; plugin_row(d->prompts, d->prompt_size, i, &row, sizeof(row)); i++) {
        struct plugin_prompt p = {0};

        plugin_fill_prompt(ld, &row, &p);
        pl->prompts[pl->nprompts++] = p;
    }
    return ld->errs->nomem ? STATUS_NOMEM : STATUS_OK;
}

static int plugin_copy_keys(struct plugin_load *ld, const struct mcph_plugin *d)
{
    struct plugin *pl = ld->pl;
    long n = plugin_table_size(ld, "config key", d->config_keys, d->config_key_size);
    struct mcph_config_key row;

    if (n <= 0)
        return n < 0 ? STATUS_PLUGIN : STATUS_OK;
    pl->keys = calloc((size_t)n, sizeof(*pl->keys));
    if (pl->keys == NULL)
        return STATUS_NOMEM;
    for (size_t i = 0; plugin_row(d->config_keys, d->config_key_size, i, &row, sizeof(row)); i++) {
        struct plugin_key *k = &pl->keys[pl->nkeys++];

        if (strcmp(row.name, "path") == 0 || strcmp(row.name, "enabled") == 0 ||
            strcmp(row.name, "prefix") == 0 || strncmp(row.name, "cache_", 6) == 0 ||
            strcmp(row.name, "max_concurrent") == 0)
            plugin_fail(ld, "config key '%s' is mcph's own; rename it", row.name);
        k->name = plugin_dup(ld, row.name);
        k->description = plugin_dup(ld, row.description);
        k->default_value = plugin_dup(ld, row.default_value);
        k->required = row.required != 0;
    }
    return STATUS_OK;
}

static const struct plugin_key *plugin_find_key(const struct plugin *pl, const char *name)
{
    for (size_t i = 0; i < pl->nkeys; i++) {
        if (strcmp(pl->keys[i].name, name) == 0)
            return &pl->keys[i];
    }
    return NULL;
}

static void plugin_key_list(const struct plugin *pl, char *buf, size_t size)
{
    size_t len = 0;

    snprintf(buf, size, "no keys of its own");
    for (size_t i = 0; i < pl->nkeys && len < size; i++) {
        int n = snprintf(buf + len, size - len, "%s%s", i ? ", " : "", pl->keys[i].name);

        if (n < 0)
            return;
        len += (size_t)n;
    }
}

/* The INI section's own keys against the keys the plugin declares. */
static int plugin_check_config(struct plugin_load *ld)
{
    struct plugin *pl = ld->pl;
    const struct config_plugin *cp = ld->cp;
    int bad = 0;
    char known[512];

    plugin_key_list(pl, known, sizeof(known));
    for (size_t i = 0; i < cp->nkeys; i++) {
        if (plugin_find_key(pl, cp->keys[i].key) != NULL)
            continue;
        diag_add(ld->errs,
                 "%s:%d: [plugin.%s] unknown key '%s'; plugin '%s' accepts %s "
                 "(and path, enabled, prefix, cache_ttl_ms, cache_scope, max_concurrent)",
                 ld->ini_file, cp->keys[i].line, cp->id, cp->keys[i].key, pl->name, known);
        bad = 1;
    }
    for (size_t i = 0; i < pl->nkeys; i++) {
        const struct plugin_key *k = &pl->keys[i];
        int set = 0;

        for (size_t j = 0; j < cp->nkeys; j++)
            set |= strcmp(cp->keys[j].key, k->name) == 0;
        if (!k->required || set)
            continue;
        diag_add(ld->errs, "%s:%d: [plugin.%s] needs '%s' (%s); add '%s = ...' to the section",
                 ld->ini_file, cp->line, cp->id, k->name,
                 k->description ? k->description : "no description", k->name);
        bad = 1;
    }
    ld->failed |= bad;
    return bad ? STATUS_CONFIG : STATUS_OK;
}

static int plugin_copy_config(struct plugin_load *ld)
{
    struct plugin *pl = ld->pl;
    const struct config_plugin *cp = ld->cp;

    if (cp->nkeys == 0)
        return STATUS_OK;
    pl->config = calloc(cp->nkeys, sizeof(*pl->config));
    if (pl->config == NULL)
        return STATUS_NOMEM;
    for (size_t i = 0; i < cp->nkeys; i++) {
        pl->config[i].key = plugin_dup(ld, cp->keys[i].key);
        pl->config[i].value = plugin_dup(ld, cp->keys[i].value);
        pl->config[i].line = cp->keys[i].line;
        pl->nconfig++;
    }
    return STATUS_OK;
}

/* --- Config values read as paths (1.2): resolved once, against the INI file's folder. --- */

static int plugin_add_path(struct plugin_load *ld, const char *key, const char *value)
{
    struct plugin *pl = ld->pl;
    struct plugin_path *p = &pl->paths[pl->npaths];

    if (value == NULL)
        return STATUS_OK;
    for (size_t i = 0; i < pl->npaths; i++) {
        if (strcmp(pl->paths[i].key, key) == 0)
            return STATUS_OK; /* the INI's value came first and wins over the default */
    }
    p->key = strdup(key);
    /* An empty value stays empty: the key names no path. */
    p->path = value[0] == '\0' ? strdup("") : config_join(pl->ini_dir, value);
    pl->npaths++;
    return p->key != NULL && p->path != NULL ? STATUS_OK : STATUS_NOMEM;
}

static int plugin_copy_paths(struct plugin_load *ld)
{
    struct plugin *pl = ld->pl;
    int status = STATUS_OK;

    pl->ini_dir = config_dirname(ld->ini_file);
    pl->paths = calloc(ld->cp->nkeys + pl->nkeys + 1, sizeof(*pl->paths));
    if (pl->ini_dir == NULL || pl->paths == NULL)
        return STATUS_NOMEM;
    for (size_t i = 0; status == STATUS_OK && i < ld->cp->nkeys; i++)
        status = plugin_add_path(ld, ld->cp->keys[i].key, ld->cp->keys[i].value);
    for (size_t i = 0; status == STATUS_OK && i < pl->nkeys; i++)
        status = plugin_add_path(ld, pl->keys[i].name, pl->keys[i].default_value);
    return status;
}

const char *plugin_config_path(const struct plugin *pl, const char *key)
{
    if (key == NULL)
        return NULL;
    for (size_t i = 0; i < pl->npaths; i++) {
        if (strcmp(pl->paths[i].key, key) == 0)
            return pl->paths[i].path;
    }
    return NULL;
}

/* --- Rows defined at init (1.2). Each is checked on its own: a refused row is logged and
 * left out, and the load goes on. --- */

/* The plugin's row (of the size its descriptor records) as this header's struct. */
static void plugin_row_copy(void *row, size_t size, const void *raw, size_t stride)
{
    memset(row, 0, size);
    memcpy(row, raw, stride < size ? stride : size);
}

/* What a filled row's check came to: MCPH_OK, or why it is refused. */
static int plugin_defined_status(const struct plugin_load *ld)
{
    if (ld->errs->nomem)
        return MCPH_ERR_NOMEM;
    return ld->errs->count > 0 ? MCPH_ERR_INVALID : MCPH_OK;
}

/* A zeroed slot after the last row of `kind` (a refused row's slot is reused), the table
 * grown when full; the row counts only once kept. NULL when out of memory. */
static void *plugin_slot(struct plugin *pl, int kind)
{
    void *t;

    switch (kind) {
    case PLUGIN_ROW_TOOL:
        t = plugin_grow(pl->tools, &pl->cap_tools, pl->ntools, sizeof(*pl->tools));
        pl->tools = t ? t : pl->tools;
        return t ? memset(&pl->tools[pl->ntools], 0, sizeof(*pl->tools)) : NULL;
    case PLUGIN_ROW_RESOURCE:
        t = plugin_grow(pl->resources, &pl->cap_resources, pl->nresources, sizeof(*pl->resources));
        pl->resources = t ? t : pl->resources;
        return t ? memset(&pl->resources[pl->nresources], 0, sizeof(*pl->resources)) : NULL;
    case PLUGIN_ROW_TEMPLATE:
        t = plugin_grow(pl->templates, &pl->cap_templates, pl->ntemplates, sizeof(*pl->templates));
        pl->templates = t ? t : pl->templates;
        return t ? memset(&pl->templates[pl->ntemplates], 0, sizeof(*pl->templates)) : NULL;
    default:
        t = plugin_grow(pl->prompts, &pl->cap_prompts, pl->nprompts, sizeof(*pl->prompts));
        pl->prompts = t ? t : pl->prompts;
        return t ? memset(&pl->prompts[pl->nprompts], 0, sizeof(*pl->prompts)) : NULL;
    }
}

/* The plugin's row (of the size its descriptor records) checked and copied into slot. */
static void plugin_fill_row(struct plugin_load *ld, int kind, const void *raw, void *slot)
{
    const struct plugin *pl = ld->pl;
    union {
        struct mcph_tool tool;
        struct mcph_resource resource;
        struct mcph_resource_template template;
        struct mcph_prompt prompt;
    } row;

    switch (kind) {
    case PLUGIN_ROW_TOOL:
        plugin_row_copy(&row.tool, sizeof(row.tool), raw, pl->tool_size);
        plugin_fill_tool(ld, &row.tool, slot);
        break;
    case PLUGIN_ROW_RESOURCE:
        plugin_row_copy(&row.resource, sizeof(row.resource), raw, pl->resource_size);
        plugin_fill_resource(ld, &row.resource, slot);
        break;
    case PLUGIN_ROW_TEMPLATE:
        plugin_row_copy(&row.template, sizeof(row.template), raw, pl->template_size);
        plugin_fill_template(ld, &row.template, slot);
        break;
    default:
        plugin_row_copy(&row.prompt, sizeof(row.prompt), raw, pl->prompt_size);
        plugin_fill_prompt(ld, &row.prompt, slot);
    }
}

/* Free what the fill copied of a refused row. */
static void plugin_release_row(int kind, void *slot)
{
    switch (kind) {
    case PLUGIN_ROW_TOOL:
        plugin_release_tool(slot);
        break;
    case PLUGIN_ROW_RESOURCE:
        plugin_release_resource(slot);
        break;
    case PLUGIN_ROW_TEMPLATE:
        plugin_release_template(slot);
        break;
    default:
        plugin_release_prompt(slot);
    }
}

/* The count of rows of `kind`: read it to check the limit, add one to keep a row filled in. */
static size_t *plugin_count_of(struct plugin *pl, int kind)
{
    switch (kind) {
    case PLUGIN_ROW_TOOL:
        return &pl->ntools;
    case PLUGIN_ROW_RESOURCE:
        return &pl->nresources;
    case PLUGIN_ROW_TEMPLATE:
        return &pl->ntemplates;
    default:
        return &pl->nprompts;
    }
}

static int plugin_define_row(struct plugin_load *ld, int kind, const void *raw)
{
    void *slot = plugin_slot(ld->pl, kind);
    int rc;

    if (slot == NULL)
        return MCPH_ERR_NOMEM;
    plugin_fill_row(ld, kind, raw, slot);
    rc = plugin_defined_status(ld);
    if (rc == MCPH_OK)
        (*plugin_count_of(ld->pl, kind))++;
    else
        plugin_release_row(kind, slot);
    return rc;
}

int plugin_define(struct plugin *pl, int kind, const void *row)
{
    static const char *const what[] = {
        [PLUGIN_ROW_TOOL] = "tool",
        [PLUGIN_ROW_RESOURCE] = "resource",
        [PLUGIN_ROW_TEMPLATE] = "resource template",
        [PLUGIN_ROW_PROMPT] = "prompt",
    };
    struct plugin_load ld;
    struct diag errs;
    int rc;

    if (pl->loading == NULL || !pthread_equal(pl->loader, pthread_self()))
        return MCPH_ERR_STATE;
    /* Defining at all makes the instance one that follows its source on reloads, even when
     * every row it tried was refused (the source may be fixed by the next reload). */
    pl->rebuild = 1;
    if (row == NULL || kind < PLUGIN_ROW_TOOL || kind > PLUGIN_ROW_PROMPT)
        return MCPH_ERR_INVALID;
    if (*plugin_count_of(pl, kind) >= LIMIT_ROWS) {
        log_msg(pl->log, LOG_ERROR, NULL, "plugin '%s' (%s): more than %d %s rows; left out",
                pl->id, pl->path, LIMIT_ROWS, what[kind]);
        return MCPH_ERR_LIMIT;
    }
    diag_init(&errs);
    ld = *pl->loading;
    ld.errs = &errs;
    ld.failed = 0;
    rc = plugin_define_row(&ld, kind, row);
    for (size_t i = 0; i < errs.count; i++)
        log_msg(pl->log, LOG_ERROR, NULL, "%s (a %s defined by init; left out)", errs.msgs[i],
                what[kind]);
    diag_release(&errs);
    return rc;
}

static int plugin_copy_tables(struct plugin_load *ld, const struct mcph_plugin *d)
{
    struct plugin *pl = ld->pl;
    int status;

    pl->name = plugin_dup(ld, d->name ? d->name : ld->cp->id);
    pl->version = plugin_dup(ld, d->version);
    pl->flags = d->flags;
    pl->rebuild = (d->flags & MCPH_PLUGIN_REBUILD_ON_RELOAD) != 0;
    pl->abi_minor = d->abi_minor;
    pl->shutdown = d->shutdown;
    pl->tool_size = d->tool_size;
    pl->resource_size = d->resource_size;
    pl->template_size = d->template_size;
    pl->prompt_size = d->prompt_size;
    pl->prompt_arg_size = d->prompt_arg_size;
    status = plugin_copy_tools(ld, d);
    if (status == STATUS_OK)
        status = plugin_copy_resources(ld, d);
    if (status == STATUS_OK)
        status = plugin_copy_templates(ld, d);
    if (status == STATUS_OK)
        status = plugin_copy_prompts(ld, d);
    if (status == STATUS_OK)
        status = plugin_copy_keys(ld, d);
    if (status == STATUS_OK)
        status = plugin_copy_config(ld);
    if (status == STATUS_OK)
        status = plugin_copy_paths(ld);
    if (ld->errs->nomem)
        status = STATUS_NOMEM;
    return status;
}

static int plugin_run_init(struct plugin_load *ld, const struct mcph_plugin *d)
{
    struct plugin *pl = ld->pl;
    int rc;

    pl->env->host_setup(&pl->host, pl);
    if (d->init == NULL) {
        pl->initialized = 1;
        return STATUS_OK;
    }
    pl->loading = ld;
    pl->loader = pthread_self();
    rc = d->init(&pl->host.vt, &pl->state);
    pl->loading = NULL;
    if (rc != MCPH_OK) {
        plugin_fail(ld, "init failed (status %d); see its messages above", rc);
        return STATUS_PLUGIN;
    }
    pl->initialized = 1;
    return STATUS_OK;
}

static int plugin_load_steps(struct plugin_load *ld)
{
    struct mcph_plugin d;
    int status;

    status = plugin_open(ld);
    if (status == STATUS_OK)
        status = plugin_read_descriptor(ld, &d);
    if (status == STATUS_OK)
        status = plugin_copy_tables(ld, &d);
    if (status == STATUS_OK && !ld->failed)
        status = plugin_check_config(ld);
    if (status == STATUS_OK && ld->failed)
        status = STATUS_PLUGIN;
    if (status == STATUS_OK)
        status = plugin_run_init(ld, &d);
    return status;
}

int plugin_load(struct plugin **out, const struct config_plugin *cp, const char *ini_file,
                const struct plugin_env *env, struct diag *errs)
{
    struct plugin_load ld = {.cp = cp, .ini_file = ini_file, .errs = errs};
    struct plugin *pl = calloc(1, sizeof(*pl));
    int status;

    if (pl == NULL)
        return STATUS_NOMEM;
    ld.pl = pl;
    pl->memfd = -1;
    pl->env = env;
    pl->log = env->log;
    atomic_init(&pl->refs, 1);
    pl->id = strdup(cp->id);
    pl->path = strdup(cp->path);
    pl->prefix = cp->prefix ? strdup(cp->prefix) : NULL;
    pl->cache_ttl_ms = cp->cache_ttl_ms;
    pl->cache_public = cp->cache_public;
    /* One call at a time until it is put in service with its share (server_set_shares). */
    work_lane_init(&pl->lane, 1);
    if (pl->id == NULL || pl->path == NULL || (cp->prefix && pl->prefix == NULL)) {
        plugin_free(pl);
        return STATUS_NOMEM;
    }
    status = plugin_load_steps(&ld);
    if (status != STATUS_OK) {
        plugin_free(pl);
        return status;
    }
    *out = pl;
    return STATUS_OK;
}

void plugin_ref(struct plugin *pl)
{
    atomic_fetch_add_explicit(&pl->refs, 1, memory_order_relaxed);
}

int plugin_unref(struct plugin *pl)
{
    return atomic_fetch_sub_explicit(&pl->refs, 1, memory_order_acq_rel) == 1;
}

static void plugin_free_tables(struct plugin *pl)
{
    for (size_t i = 0; i < pl->ntools; i++)
        plugin_release_tool(&pl->tools[i]);
    free(pl->tools);
    for (size_t i = 0; i < pl->nresources; i++)
        plugin_release_resource(&pl->resources[i]);
    free(pl->resources);
    for (size_t i = 0; i < pl->ntemplates; i++)
        plugin_release_template(&pl->templates[i]);
    free(pl->templates);
    for (size_t i = 0; i < pl->nprompts; i++)
        plugin_release_prompt(&pl->prompts[i]);
    free(pl->prompts);
}

static void plugin_free_keys(struct plugin *pl)
{
    for (size_t i = 0; i < pl->nkeys; i++) {
        free(pl->keys[i].name);
        free(pl->keys[i].description);
        free(pl->keys[i].default_value);
    }
    free(pl->keys);
    for (size_t i = 0; i < pl->nconfig; i++) {
        free(pl->config[i].key);
        free(pl->config[i].value);
    }
    free(pl->config);
    for (size_t i = 0; i < pl->npaths; i++) {
        free(pl->paths[i].key);
        free(pl->paths[i].path);
    }
    free(pl->paths);
}

/* dlclose, then release the memfd unless the library stayed mapped (a library marked
 * NODELETE never unloads): its name must then stay unique for the process's life. */
static void plugin_close(struct plugin *pl)
{
    char name[64];
    void *still;

    if (pl->handle != NULL)
        dlclose(pl->handle);
    if (pl->memfd < 0)
        return;
    snprintf(name, sizeof(name), "/proc/self/fd/%d", pl->memfd);
    still = pl->handle != NULL ? dlopen(name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (still != NULL) {
        dlclose(still);
        log_msg(pl->log, LOG_DEBUG, NULL, "plugin '%s' stays mapped after dlclose", pl->id);
        return;
    }
    close(pl->memfd);
}

void plugin_free(struct plugin *pl)
{
    if (pl == NULL)
        return;
    if (pl->initialized && pl->shutdown != NULL)
        pl->shutdown(pl->state);
    plugin_close(pl);
    plugin_free_tables(pl);
    plugin_free_keys(pl);
    free(pl->ini_dir);
    free(pl->id);
    free(pl->path);
    free(pl->prefix);
    free(pl->name);
    free(pl->version);
    free(pl);
}

int plugin_file_changed(const struct plugin *pl)
{
    struct stat st;

    if (stat(pl->path, &st) != 0)
        return 1;
    return st.st_dev != pl->dev || st.st_ino != pl->ino || st.st_size != pl->size ||
           st.st_mtim.tv_sec != pl->mtime.tv_sec || st.st_mtim.tv_nsec != pl->mtime.tv_nsec;
}
