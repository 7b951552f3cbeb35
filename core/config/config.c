#include "config/config.h"

#include "lib/limits.h"
#include "lib/log.h"
#include "lib/status.h"
#include "lib/strbuf.h"
#include "mcph-value.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The parse in progress: the reader counts lines so the handler knows where a key is
 * (Debian's libinih is built without INI_HANDLER_LINENO). */
struct config_parse {
    struct config *cfg;
    struct diag *errs;
    const char *text; /* the whole file, NUL-terminated */
    size_t pos;
    int line;                     /* the line the reader returned last */
    int line_indented;            /* it started with white space (a continuation line) */
    char raw[LIMIT_INI_LINE + 2]; /* that line as read: values are taken from it again, so
                                   * that a ';' in quotes stays (config_value) */
    char *section;                /* owned: the section of the last key */
    char *last_key;               /* owned: the last key, for continuation lines */
    int server_seen;
    unsigned server_set; /* bit per server key already set */
    struct strbuf why;   /* what a plugin key's setter found wrong, when it says more than
                          * the key's help text */
};

typedef int (*config_server_fn)(struct config_parse *p, const char *value);

struct config_server_key {
    const char *name;
    config_server_fn set;
    const char *help; /* what the value is, for error messages */
};

static char *config_strdup(struct config_parse *p, const char *s)
{
    char *copy = strdup(s);

    if (copy == NULL)
        p->errs->nomem = 1;
    return copy;
}

/* Values read as plugins read theirs (mcph-value.h), in the core's status codes. */
static int config_parse_bool(const char *value, int *out)
{
    return mcph_value_bool(value, out) == MCPH_OK ? STATUS_OK : STATUS_INVALID;
}

static int config_parse_int(const char *value, int min, int max, int *out)
{
    long long n;

    if (mcph_value_int(value, min, max, &n) != MCPH_OK)
        return STATUS_INVALID;
    *out = (int)n;
    return STATUS_OK;
}

char *config_join(const char *base, const char *rel)
{
    char *out = NULL;

    /* "dir" and "./x" join as "dir" and "dir/x", not "dir/." and "dir/./x". */
    while (rel[0] == '.' && rel[1] == '/')
        rel += 2;
    if (strcmp(rel, ".") == 0 && base != NULL)
        return strdup(base);
    if (rel[0] == '/' || base == NULL || base[0] == '\0')
        return strdup(rel);
    if (asprintf(&out, "%s/%s", base, rel) < 0)
        return NULL;
    return out;
}

static void config_error(struct config_parse *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void config_error(struct config_parse *p, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag_vadd_at(p->errs, p->cfg->file, p->line, fmt, ap);
    va_end(ap);
}

static int config_set_string(struct config_parse *p, char **field, const char *value)
{
    char *copy = config_strdup(p, value);

    if (copy == NULL)
        return STATUS_NOMEM;
    free(*field);
    *field = copy;
    return STATUS_OK;
}

static int config_set_name(struct config_parse *p, const char *value)
{
    return config_set_string(p, &p->cfg->name, value);
}

static int config_set_title(struct config_parse *p, const char *value)
{
    return config_set_string(p, &p->cfg->title, value);
}

static int config_set_instructions(struct config_parse *p, const char *value)
{
    return config_set_string(p, &p->cfg->instructions, value);
}

static int config_set_plugin_dir(struct config_parse *p, const char *value)
{
    char *dir = config_join(p->cfg->dir, value);

    if (dir == NULL) {
        p->errs->nomem = 1;
        return STATUS_NOMEM;
    }
    free(p->cfg->plugin_dir);
    p->cfg->plugin_dir = dir;
    return STATUS_OK;
}

static int config_set_workers(struct config_parse *p, const char *value)
{
    return config_parse_int(value, 1, LIMIT_WORKERS_MAX, &p->cfg->workers);
}

static int config_set_log_level(struct config_parse *p, const char *value)
{
    return log_level_parse(value, &p->cfg->log_level);
}

static int config_set_strict(struct config_parse *p, const char *value)
{
    return config_parse_bool(value, &p->cfg->strict);
}

static int config_set_watch(struct config_parse *p, const char *value)
{
    return config_parse_bool(value, &p->cfg->watch);
}

static int config_set_ask_timeout(struct config_parse *p, const char *value)
{
    return config_parse_int(value, 100, 3600000, &p->cfg->ask_timeout_ms);
}

static int config_parse_scope(const char *value, int *out)
{
    if (strcmp(value, "public") == 0 || strcmp(value, "private") == 0) {
        *out = strcmp(value, "public") == 0;
        return STATUS_OK;
    }
    return STATUS_INVALID;
}

static int config_set_cache_ttl(struct config_parse *p, const char *value)
{
    return config_parse_int(value, 0, LIMIT_CACHE_TTL_MAX_MS, &p->cfg->cache_ttl_ms);
}

static int config_set_cache_scope(struct config_parse *p, const char *value)
{
    return config_parse_scope(value, &p->cfg->cache_public);
}

static int config_set_page_size(struct config_parse *p, const char *value)
{
    return config_parse_int(value, 1, LIMIT_PAGE_MAX, &p->cfg->page_size);
}

static int config_set_max_pending(struct config_parse *p, const char *value)
{
    return config_parse_int(value, 1, LIMIT_PENDING_MB_MAX, &p->cfg->max_pending_mb);
}

static int config_set_file(struct config_parse *p, char **field, const char *value)
{
    char *path = config_join(p->cfg->dir, value);

    if (path == NULL) {
        p->errs->nomem = 1;
        return STATUS_NOMEM;
    }
    free(*field);
    *field = path;
    return STATUS_OK;
}

static int config_set_listen(struct config_parse *p, const char *value)
{
    if (config_listen_split(value, NULL, 0, NULL) != STATUS_OK)
        return STATUS_INVALID;
    return config_set_string(p, &p->cfg->listen, value);
}

static int config_set_http_path(struct config_parse *p, const char *value)
{
    if (value[0] != '/' || strlen(value) > 200 || strpbrk(value, "?# \t") != NULL)
        return STATUS_INVALID;
    return config_set_string(p, &p->cfg->http_path, value);
}

static int config_set_allowed_hosts(struct config_parse *p, const char *value)
{
    return config_set_string(p, &p->cfg->allowed_hosts, value);
}

static int config_set_allowed_origins(struct config_parse *p, const char *value)
{
    return config_set_string(p, &p->cfg->allowed_origins, value);
}

static int config_set_auth_token_file(struct config_parse *p, const char *value)
{
    return config_set_file(p, &p->cfg->auth_token_file, value);
}

static int config_set_state_key_file(struct config_parse *p, const char *value)
{
    return config_set_file(p, &p->cfg->state_key_file, value);
}

static int config_set_session_route(struct config_parse *p, const char *value)
{
    size_t n = strspn(value, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");

    if (n == 0 || n > LIMIT_ID_ROUTE || value[n] != '\0')
        return STATUS_INVALID;
    return config_set_string(p, &p->cfg->session_route, value);
}

static int config_set_max_sessions(struct config_parse *p, const char *value)
{
    return config_parse_int(value, 1, LIMIT_HTTP_SESSIONS_MAX, &p->cfg->max_sessions);
}

static int config_set_session_idle(struct config_parse *p, const char *value)
{
    return config_parse_int(value, 1, 86400, &p->cfg->session_idle_s);
}

static int config_set_max_connections(struct config_parse *p, const char *value)
{
    return config_parse_int(value, 1, LIMIT_HTTP_CONNECTIONS_MAX, &p->cfg->max_connections);
}

static int config_set_http_timeout(struct config_parse *p, const char *value)
{
    return config_parse_int(value, 1, 3600, &p->cfg->http_timeout_s);
}

static const struct config_server_key config_server_keys[] = {
    {.name = "name", .set = config_set_name, .help = "the server name sent to clients"},
    {.name = "title", .set = config_set_title, .help = "a human-readable server title"},
    {.name = "instructions", .set = config_set_instructions, .help = "text for the client"},
    {.name = "plugin_dir", .set = config_set_plugin_dir, .help = "a folder"},
    {.name = "workers", .set = config_set_workers, .help = "a number from 1 to 64"},
    {.name = "log_level",
     .set = config_set_log_level,
     .help = "one of debug, info, notice, warning, error, critical, alert, emergency"},
    {.name = "strict", .set = config_set_strict, .help = "yes or no"},
    {.name = "page_size", .set = config_set_page_size, .help = "a number from 1 to 1000"},
    {.name = "watch", .set = config_set_watch, .help = "yes or no"},
    {.name = "cache_ttl_ms",
     .set = config_set_cache_ttl,
     .help = "milliseconds from 0 to 86400000"},
    {.name = "cache_scope", .set = config_set_cache_scope, .help = "public or private"},
    {.name = "ask_timeout_ms",
     .set = config_set_ask_timeout,
     .help = "milliseconds from 100 to 3600000"},
    {.name = "max_pending_mb", .set = config_set_max_pending, .help = "MiB from 1 to 4096"},
    {.name = "listen",
     .set = config_set_listen,
     .help = "HOST:PORT, an IPv4 address, [IPv6] or localhost, and a port from 0 (any free one) to "
             "65535"},
    {.name = "http_path",
     .set = config_set_http_path,
     .help = "a path that starts with / (no query, no spaces)"},
    {.name = "allowed_hosts", .set = config_set_allowed_hosts, .help = "host names"},
    {.name = "allowed_origins", .set = config_set_allowed_origins, .help = "origins"},
    {.name = "auth_token_file", .set = config_set_auth_token_file, .help = "a file"},
    {.name = "state_key_file", .set = config_set_state_key_file, .help = "a file"},
    {.name = "session_route",
     .set = config_set_session_route,
     .help = "1 to 32 letters, digits or _"},
    {.name = "max_sessions", .set = config_set_max_sessions, .help = "a number from 1 to 4096"},
    {.name = "session_idle_s", .set = config_set_session_idle, .help = "seconds from 1 to 86400"},
    {.name = "max_connections",
     .set = config_set_max_connections,
     .help = "a number from 1 to 4096"},
    {.name = "http_timeout_s", .set = config_set_http_timeout, .help = "seconds from 1 to 3600"},
    {0},
};

/* "name, title, ..." into sb. */
static void config_known_server_keys(struct strbuf *sb)
{
    for (size_t i = 0; config_server_keys[i].name != NULL; i++)
        (void)strbuf_addf(sb, "%s%s", i ? ", " : "", config_server_keys[i].name);
}

static void config_server_key(struct config_parse *p, const char *key, const char *value)
{
    for (size_t i = 0; config_server_keys[i].name != NULL; i++) {
        const struct config_server_key *k = &config_server_keys[i];

        if (strcmp(k->name, key) != 0)
            continue;
        if (p->server_set & (1u << i)) {
            config_error(p, "'%s' is set twice in [server]; keep one", key);
            return;
        }
        p->server_set |= 1u << i;
        if (k->set(p, value) == STATUS_INVALID)
            config_error(p, "[server] %s = '%s' is not valid; use %s", key, value, k->help);
        return;
    }
    struct strbuf known = STRBUF_INIT;

    config_known_server_keys(&known);
    config_error(p, "unknown key '%s' in [server]; the keys are: %s", key, known.buf);
    strbuf_release(&known);
}

static struct config_plugin *config_current_plugin(struct config_parse *p)
{
    struct config *cfg = p->cfg;

    if (cfg->nplugins == 0)
        return NULL;
    return &cfg->plugins[cfg->nplugins - 1];
}

static int config_valid_id(const char *s)
{
    size_t n = strlen(s);

    if (n == 0 || n > LIMIT_ID)
        return 0;
    return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

static void config_add_kv(struct config_parse *p, struct config_plugin *pl, const char *key,
                          const char *value)
{
    struct config_kv *keys;

    for (size_t i = 0; i < pl->nkeys; i++) {
        if (strcmp(pl->keys[i].key, key) == 0) {
            config_error(p, "'%s' is set twice in [plugin.%s] (first on line %d); keep one", key,
                         pl->id, pl->keys[i].line);
            return;
        }
    }
    keys = realloc(pl->keys, (pl->nkeys + 1) * sizeof(*keys));
    if (keys == NULL) {
        p->errs->nomem = 1;
        return;
    }
    pl->keys = keys;
    keys[pl->nkeys].key = config_strdup(p, key);
    keys[pl->nkeys].value = config_strdup(p, value);
    keys[pl->nkeys].line = p->line;
    pl->nkeys++;
}

/* The keys of a [plugin.NAME] section that belong to mcph, not to the plugin: the one
 * list (config_core_key, the loader's messages and plugin-api.h name these). */
static int config_set_path(struct config_parse *p, struct config_plugin *pl, const char *value)
{
    /* Kept as written: plugin_dir may come later in the file. */
    return config_set_string(p, &pl->path, value) == STATUS_NOMEM ? STATUS_NOMEM : STATUS_OK;
}

static int config_set_enabled(struct config_parse *p, struct config_plugin *pl, const char *value)
{
    (void)p;
    return config_parse_bool(value, &pl->enabled);
}

static int config_set_prefix(struct config_parse *p, struct config_plugin *pl, const char *value)
{
    if (!config_valid_id(value))
        return STATUS_INVALID;
    return config_set_string(p, &pl->prefix, value) == STATUS_NOMEM ? STATUS_NOMEM : STATUS_OK;
}

static int config_set_plugin_ttl(struct config_parse *p, struct config_plugin *pl,
                                 const char *value)
{
    (void)p;
    return config_parse_int(value, 0, LIMIT_CACHE_TTL_MAX_MS, &pl->cache_ttl_ms);
}

static int config_set_plugin_scope(struct config_parse *p, struct config_plugin *pl,
                                   const char *value)
{
    (void)p;
    return config_parse_scope(value, &pl->cache_public);
}

static int config_set_max_concurrent(struct config_parse *p, struct config_plugin *pl,
                                     const char *value)
{
    (void)p;
    return config_parse_int(value, 1, LIMIT_WORKERS_MAX, &pl->max_concurrent);
}

static int config_set_filter(struct config_parse *p, struct config_plugin *pl, int key,
                             const char *value)
{
    int status = filter_check(value, &p->why);

    if (status != STATUS_OK)
        return status;
    return config_set_string(p, &pl->filter[key], value) == STATUS_NOMEM ? STATUS_NOMEM : STATUS_OK;
}

static int config_set_tools(struct config_parse *p, struct config_plugin *pl, const char *value)
{
    return config_set_filter(p, pl, FILTER_TOOLS, value);
}

static int config_set_resources(struct config_parse *p, struct config_plugin *pl, const char *value)
{
    return config_set_filter(p, pl, FILTER_RESOURCES, value);
}

static int config_set_prompts(struct config_parse *p, struct config_plugin *pl, const char *value)
{
    return config_set_filter(p, pl, FILTER_PROMPTS, value);
}

_Static_assert(LIMIT_ID == 64 && LIMIT_WORKERS_MAX == 64 && LIMIT_CACHE_TTL_MAX_MS == 86400000,
               "the help texts of config_core_keys name these limits");

static int config_set_isolate(struct config_parse *p, struct config_plugin *pl, const char *value)
{
    (void)p;
    if (strcmp(value, "process") == 0)
        pl->isolate.on = 1;
    else if (strcmp(value, "no") == 0)
        pl->isolate.on = 0;
    else
        return STATUS_INVALID;
    return STATUS_OK;
}

static int config_set_call_timeout(struct config_parse *p, struct config_plugin *pl,
                                   const char *value)
{
    (void)p;
    return config_parse_int(value, 1, LIMIT_CALL_TIMEOUT_MAX_MS, &pl->isolate.call_timeout_ms);
}

/* Bytes, with K, M or G (1024-based). */
static int config_set_max_memory(struct config_parse *p, struct config_plugin *pl,
                                 const char *value)
{
    char *end = NULL;
    long long n;
    int shift = 0;

    (void)p;
    errno = 0;
    n = strtoll(value, &end, 10);
    if (end == value || errno != 0 || n <= 0 || value[0] == '-' || value[0] == '+')
        return STATUS_INVALID;
    if (*end == 'K' || *end == 'M' || *end == 'G')
        shift = *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
    if (shift != 0)
        end++;
    if (*end != '\0' || n > (LIMIT_ISOLATE_MEMORY_MAX >> shift) ||
        (n << shift) < LIMIT_ISOLATE_MEMORY_MIN)
        return STATUS_INVALID;
    pl->isolate.max_memory = n << shift;
    return STATUS_OK;
}

static int config_set_max_cpu(struct config_parse *p, struct config_plugin *pl, const char *value)
{
    (void)p;
    return config_parse_int(value, 1, LIMIT_ISOLATE_CPU_MAX_S, &pl->isolate.max_cpu_s);
}

static int config_set_max_files(struct config_parse *p, struct config_plugin *pl, const char *value)
{
    (void)p;
    return config_parse_int(value, LIMIT_ISOLATE_FILES_MIN, LIMIT_ISOLATE_FILES_MAX,
                            &pl->isolate.max_files);
}

static int config_set_max_procs(struct config_parse *p, struct config_plugin *pl, const char *value)
{
    (void)p;
    return config_parse_int(value, 1, LIMIT_ISOLATE_PROCS_MAX, &pl->isolate.max_procs);
}

static const struct config_core_key {
    const char *name;
    size_t line; /* offsetof the member holding the line it was set on (0: not set) */
    int (*set)(struct config_parse *p, struct config_plugin *pl, const char *value);
    const char *help;
} config_core_keys[] = {
    {"path", offsetof(struct config_plugin, path_line), config_set_path, "a file name"},
    {"enabled", offsetof(struct config_plugin, enabled_line), config_set_enabled, "yes or no"},
    {"prefix", offsetof(struct config_plugin, prefix_line), config_set_prefix,
     "1-64 of A-Z a-z 0-9 _ -"},
    {"cache_ttl_ms", offsetof(struct config_plugin, cache_ttl_line), config_set_plugin_ttl,
     "milliseconds from 0 to 86400000"},
    {"cache_scope", offsetof(struct config_plugin, cache_scope_line), config_set_plugin_scope,
     "public or private"},
    {"max_concurrent", offsetof(struct config_plugin, max_concurrent_line),
     config_set_max_concurrent, "a number from 1 to 64"},
    {"tools", offsetof(struct config_plugin, filter_line[FILTER_TOOLS]), config_set_tools,
     "globs of tool names, space-separated (* ? [set] [!set], \\ escapes; !glob excludes)"},
    {"resources", offsetof(struct config_plugin, filter_line[FILTER_RESOURCES]),
     config_set_resources,
     "globs of resource URIs and URI templates, space-separated (* ? [set] [!set], \\ "
     "escapes; !glob excludes)"},
    {"prompts", offsetof(struct config_plugin, filter_line[FILTER_PROMPTS]), config_set_prompts,
     "globs of prompt names, space-separated (* ? [set] [!set], \\ escapes; !glob excludes)"},
    {"isolate", offsetof(struct config_plugin, isolate_line), config_set_isolate,
     "process (the plugin runs in a child process of its own) or no"},
    {"call_timeout_ms", offsetof(struct config_plugin, call_timeout_line), config_set_call_timeout,
     "milliseconds from 1 to 86400000"},
    {"max_memory", offsetof(struct config_plugin, max_memory_line), config_set_max_memory,
     "bytes from 16M to 1024G, with K, M or G (1024-based)"},
    {"max_cpu_s", offsetof(struct config_plugin, max_cpu_line), config_set_max_cpu,
     "CPU seconds from 1 to 86400"},
    {"max_files", offsetof(struct config_plugin, max_files_line), config_set_max_files,
     "a number of open files from 16 to 1048576"},
    {"max_procs", offsetof(struct config_plugin, max_procs_line), config_set_max_procs,
     "a number of processes from 1 to 4096"},
    {0},
};

int config_core_key(const char *key)
{
    for (size_t i = 0; config_core_keys[i].name != NULL; i++) {
        if (strcmp(key, config_core_keys[i].name) == 0)
            return 1;
    }
    /* Reserved for mcph's own cache settings to come. */
    return strncmp(key, "cache_", 6) == 0;
}

/* The core keys a plugin may declare too (config_shared_key): in mcph's own process, where
 * their isolate = process meaning does not apply, the plugin that declares one does the work
 * (the mcp plugin bounds its server's calls), and gets the value through host->config. */
static const struct config_shared_key {
    const char *name;
    size_t line;  /* offsetof the member holding the line it was set on (0: not set) */
    size_t value; /* offsetof the int member holding its value */
} config_shared_keys[] = {
    {"call_timeout_ms", offsetof(struct config_plugin, call_timeout_line),
     offsetof(struct config_plugin, isolate.call_timeout_ms)},
    {0},
};

const char *config_shared_key_name(size_t i)
{
    return i < sizeof(config_shared_keys) / sizeof(config_shared_keys[0])
               ? config_shared_keys[i].name
               : NULL;
}

int config_shared_key(const char *key)
{
    for (size_t i = 0; config_shared_keys[i].name != NULL; i++) {
        if (strcmp(key, config_shared_keys[i].name) == 0)
            return 1;
    }
    return 0;
}

int config_shared_key_get(const struct config_plugin *pl, const char *key, char *buf, size_t size)
{
    for (size_t i = 0; config_shared_keys[i].name != NULL; i++) {
        const struct config_shared_key *k = &config_shared_keys[i];
        int line = *(const int *)(const void *)((const char *)pl + k->line);

        if (strcmp(key, k->name) != 0 || line == 0)
            continue;
        snprintf(buf, size, "%d", *(const int *)(const void *)((const char *)pl + k->value));
        return line;
    }
    return 0;
}

const char *config_core_key_names(void)
{
    _Static_assert(sizeof(config_core_keys) / sizeof(config_core_keys[0]) == 16,
                   "the list below names every core key");
    return "path, enabled, prefix, cache_ttl_ms, cache_scope, max_concurrent, tools, resources, "
           "prompts, isolate, call_timeout_ms, max_memory, max_cpu_s, max_files, max_procs";
}

/* The key of a [plugin.NAME] section: mcph's own (config_core_keys), or the plugin's. */
static void config_plugin_key(struct config_parse *p, const char *key, const char *value)
{
    struct config_plugin *pl = config_current_plugin(p);

    for (size_t i = 0; config_core_keys[i].name != NULL; i++) {
        const struct config_core_key *k = &config_core_keys[i];
        int *line = (int *)(void *)((char *)pl + k->line);
        int status;

        if (strcmp(key, k->name) != 0)
            continue;
        if (*line != 0) {
            config_error(p, "'%s' is set twice in [plugin.%s] (first on line %d); keep one", key,
                         pl->id, *line);
            return;
        }
        strbuf_reset(&p->why);
        status = k->set(p, pl, value);
        if (status == STATUS_INVALID && p->why.len > 0)
            config_error(p, "[plugin.%s] %s = '%s' is not valid: %s; use %s", pl->id, key, value,
                         p->why.buf, k->help);
        else if (status == STATUS_INVALID)
            config_error(p, "[plugin.%s] %s = '%s' is not valid; use %s", pl->id, key, value,
                         k->help);
        else if (status == STATUS_NOMEM)
            p->errs->nomem = 1;
        else if (status == STATUS_OK)
            *line = p->line;
        return;
    }
    config_add_kv(p, pl, key, value);
}

static int config_new_plugin(struct config_parse *p, const char *id)
{
    struct config *cfg = p->cfg;
    struct config_plugin *plugins, *pl;

    if (!config_valid_id(id)) {
        config_error(p, "[plugin.%s]: the name must be 1-%d of A-Z a-z 0-9 _ -", id, LIMIT_ID);
        return STATUS_INVALID;
    }
    if (config_find_plugin(cfg, id) != NULL) {
        config_error(p, "[plugin.%s] appears twice (first on line %d); merge the sections", id,
                     config_find_plugin(cfg, id)->line);
        return STATUS_INVALID;
    }
    if (cfg->nplugins == LIMIT_PLUGINS) {
        config_error(p, "more than %d plugin sections; remove some", LIMIT_PLUGINS);
        return STATUS_LIMIT;
    }
    plugins = realloc(cfg->plugins, (cfg->nplugins + 1) * sizeof(*plugins));
    if (plugins == NULL) {
        p->errs->nomem = 1;
        return STATUS_NOMEM;
    }
    cfg->plugins = plugins;
    pl = &plugins[cfg->nplugins++];
    memset(pl, 0, sizeof(*pl));
    pl->id = config_strdup(p, id);
    pl->line = p->line;
    pl->enabled = 1;
    pl->cache_ttl_ms = -1;
    pl->cache_public = -1;
    pl->ini_fd = -1;
    pl->image_fd = -1;
    return STATUS_OK;
}

/* Append a line to the multi-line value of `key`. */
static void config_append_line(struct config_parse *p, const char *key, char **field,
                               const char *value)
{
    size_t len = *field ? strlen(*field) : 0;
    char *joined = NULL;

    if (len + 1 + strlen(value) > LIMIT_INI_VALUE) {
        config_error(p, "'%s' is longer than %d bytes with this line; shorten it", key,
                     LIMIT_INI_VALUE);
        return;
    }
    if (asprintf(&joined, "%s\n%s", *field ? *field : "", value) < 0) {
        p->errs->nomem = 1;
        return;
    }
    free(*field);
    *field = joined;
}

/* The plugin's own key that a continuation line of `key` extends, or NULL. */
static struct config_kv *config_multiline_kv(struct config_parse *p, const char *section,
                                             const char *key)
{
    struct config_plugin *pl = config_current_plugin(p);

    if (strncmp(section, "plugin.", 7) != 0 || pl == NULL || strcmp(pl->id, section + 7) != 0 ||
        config_core_key(key) || pl->nkeys == 0 || strcmp(pl->keys[pl->nkeys - 1].key, key) != 0)
        return NULL;
    return &pl->keys[pl->nkeys - 1];
}

/* A continuation line (indented, right after a key) adds a line to that key's value. The
 * instructions and a plugin's own keys are multi-line; elsewhere it is an error. */
static int config_continuation(struct config_parse *p, const char *section, const char *key,
                               const char *value)
{
    struct config_kv *kv;

    if (!p->line_indented || p->last_key == NULL || strcmp(p->last_key, key) != 0 ||
        p->section == NULL || strcmp(p->section, section) != 0)
        return 0;
    if (strcmp(section, "server") == 0 && strcmp(key, "instructions") == 0) {
        config_append_line(p, key, &p->cfg->instructions, value);
        return 1;
    }
    kv = config_multiline_kv(p, section, key);
    if (kv == NULL) {
        config_error(p, "indented line continues '%s', which takes one line; unindent it", key);
        return 1;
    }
    config_append_line(p, key, &kv->value, value);
    return 1;
}

static int config_enter_section(struct config_parse *p, const char *section)
{
    free(p->section);
    p->section = config_strdup(p, section);
    if (strcmp(section, "server") == 0) {
        if (p->server_seen) {
            config_error(p, "[server] appears twice; merge the sections");
            return STATUS_INVALID;
        }
        p->server_seen = 1;
        return STATUS_OK;
    }
    if (strncmp(section, "plugin.", 7) == 0)
        return config_new_plugin(p, section + 7);
    config_error(p, "unknown section [%s]; use [server] or [plugin.NAME]", section);
    return STATUS_INVALID;
}

/* Where the quote opened at *q ends on the line (in "..." a backslash escapes the next
 * character), or NULL when it does not. */
static const char *config_quote_end(const char *q)
{
    for (const char *c = q + 1; *c != '\0'; c++) {
        if (*q == '"' && *c == '\\' && c[1] != '\0')
            c++;
        else if (*c == *q)
            return c;
    }
    return NULL;
}

/* The length of value text s up to its comment: a ';' after white space, unless in quotes
 * (a " or ' at the start of a word, closed later on the line). libinih cuts at every such
 * ';', quotes or not. */
static size_t config_uncommented(const char *s)
{
    int was_space = 0;

    for (const char *c = s; *c != '\0'; c++) {
        const char *end = NULL;

        if ((*c == '"' || *c == '\'') && (c == s || isspace((unsigned char)c[-1])))
            end = config_quote_end(c);
        if (end != NULL) {
            c = end;
            was_space = 0;
            continue;
        }
        if (was_space && *c == ';')
            return (size_t)(c - s);
        was_space = isspace((unsigned char)*c) != 0;
    }
    return strlen(s);
}

/* The value of the line the handler got (the last one read): after the first '=' or ':' of
 * a key line, or the whole of a continuation line, without its comment and outer white
 * space. Into out (LIMIT_INI_LINE + 2 bytes). */
static const char *config_value(struct config_parse *p, int continuation, char *out)
{
    const char *s = p->raw + strspn(p->raw, " \t");
    size_t len;

    if (!continuation)
        s += strcspn(s, "=:") + (s[strcspn(s, "=:")] != '\0');
    len = config_uncommented(s);
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    while (len > 0 && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    memcpy(out, s, len);
    out[len] = '\0';
    return out;
}

static int config_handler(void *user, const char *section, const char *key, const char *inih)
{
    struct config_parse *p = user;
    int status = STATUS_OK;
    char buf[sizeof(p->raw)];
    /* libinih continues the last key on an indented line, whatever the line holds. */
    const char *value = config_value(
        p, p->line_indented && p->last_key != NULL && strcmp(p->last_key, key) == 0, buf);

    (void)inih;

    if (config_continuation(p, section, key, value))
        return 1;
    if (section[0] == '\0') {
        config_error(p, "'%s' is outside any section; put it under [server] or [plugin.NAME]", key);
        return 1;
    }
    if (p->section == NULL || strcmp(p->section, section) != 0)
        status = config_enter_section(p, section);
    if (status == STATUS_OK) {
        if (strcmp(section, "server") == 0)
            config_server_key(p, key, value);
        else if (strncmp(section, "plugin.", 7) == 0 && config_current_plugin(p) != NULL &&
                 strcmp(config_current_plugin(p)->id, section + 7) == 0)
            config_plugin_key(p, key, value);
    }
    free(p->last_key);
    p->last_key = config_strdup(p, key);
    return 1;
}

/* Section headers with no keys never reach the handler; the reader sees them. */
static void config_scan_header(struct config_parse *p, const char *line)
{
    const char *start = line + strspn(line, " \t");
    const char *end;
    char name[LIMIT_INI_LINE + 1];

    if (*start != '[')
        return;
    end = strchr(start, ']');
    if (end == NULL || (size_t)(end - start - 1) >= sizeof(name))
        return;
    memcpy(name, start + 1, (size_t)(end - start - 1));
    name[end - start - 1] = '\0';
    /* Every header, even one naming the section just left: a repeat is an error. */
    config_enter_section(p, name);
    free(p->last_key);
    p->last_key = NULL;
}

static char *config_reader(char *str, int num, void *stream)
{
    struct config_parse *p = stream;
    const char *line = p->text + p->pos;
    size_t len;

    if (*line == '\0')
        return NULL;
    len = strcspn(line, "\n");
    p->line++;
    p->pos += len + (line[len] == '\n');
    if (len > 0 && line[len - 1] == '\r')
        len--;
    /* p->raw holds LIMIT_INI_LINE bytes, libinih's line (num - 1) as Debian builds it. */
    if (len >= (size_t)num || len >= sizeof(p->raw) - 1) {
        config_error(p, "line is longer than %d bytes; shorten it", num - 1);
        len = 0;
    }
    memcpy(str, line, len);
    str[len] = '\0';
    memcpy(p->raw, str, len + 1);
    p->line_indented = len > 0 && (str[0] == ' ' || str[0] == '\t');
    config_scan_header(p, str);
    return str;
}

/* The whole text behind fd, from its start: pread, because a descriptor an isolated child
 * shares with its parent shares its offset too. path names it in messages. */
static char *config_read_fd(int fd, const char *path, struct diag *errs)
{
    char *text = NULL;
    size_t len = 0, cap = 0;
    ssize_t n;

    do {
        if (cap - len < 4096) {
            char *grown = realloc(text, cap + 65536);

            if (grown == NULL) {
                errs->nomem = 1;
                free(text);
                return NULL;
            }
            text = grown;
            cap += 65536;
        }
        n = pread(fd, text + len, cap - len - 1, (off_t)len);
        if (n > 0)
            len += (size_t)n;
    } while (n > 0 || (n < 0 && errno == EINTR));
    text[len] = '\0';
    if (n < 0 || memchr(text, '\0', len) != NULL) {
        diag_add(errs, "%s: cannot read it as text; is it an INI file?", path);
        free(text);
        return NULL;
    }
    return text;
}

static char *config_read_file(const char *path, struct diag *errs)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char *text;

    if (fd < 0) {
        diag_add(errs, "%s: cannot open: %s; check the path", path, strerror(errno));
        return NULL;
    }
    text = config_read_fd(fd, path, errs);
    close(fd);
    return text;
}

void config_init(struct config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->workers = LIMIT_WORKERS_DEFAULT;
    cfg->log_level = LOG_INFO;
    cfg->page_size = LIMIT_PAGE_DEFAULT;
    cfg->ask_timeout_ms = LIMIT_ASK_TIMEOUT_MS;
    cfg->max_pending_mb = LIMIT_PENDING_MB_DEFAULT;
    cfg->cache_ttl_ms = 0;
    cfg->cache_public = 0;
    cfg->text_fd = -1;
    cfg->max_sessions = LIMIT_HTTP_SESSIONS_DEFAULT;
    cfg->session_idle_s = LIMIT_HTTP_SESSION_IDLE_S;
    cfg->max_connections = LIMIT_HTTP_CONNECTIONS_DEFAULT;
    cfg->http_timeout_s = LIMIT_HTTP_TIMEOUT_S;
}

static void config_plugin_release(struct config_plugin *pl)
{
    free(pl->id);
    free(pl->path);
    free(pl->prefix);
    for (int i = 0; i < FILTER_KEYS; i++)
        free(pl->filter[i]);
    for (size_t i = 0; i < pl->nkeys; i++) {
        free(pl->keys[i].key);
        free(pl->keys[i].value);
    }
    free(pl->keys);
}

void config_release(struct config *cfg)
{
    if (cfg == NULL)
        return;
    free(cfg->file);
    free(cfg->dir);
    free(cfg->name);
    free(cfg->title);
    free(cfg->instructions);
    free(cfg->plugin_dir);
    free(cfg->listen);
    free(cfg->http_path);
    free(cfg->allowed_hosts);
    free(cfg->allowed_origins);
    free(cfg->auth_token_file);
    free(cfg->state_key_file);
    free(cfg->session_route);
    if (cfg->text_fd >= 0)
        close(cfg->text_fd);
    for (size_t i = 0; i < cfg->nplugins; i++)
        config_plugin_release(&cfg->plugins[i]);
    free(cfg->plugins);
    config_init(cfg);
}

int config_listen_split(const char *listen, char *host, size_t size, int *port)
{
    const char *colon = strrchr(listen, ':');
    size_t hlen = colon ? (size_t)(colon - listen) : 0;
    char *end;
    long n;

    if (colon == NULL || hlen == 0 || colon[1] == '\0')
        return STATUS_INVALID;
    errno = 0;
    n = strtol(colon + 1, &end, 10);
    if (errno != 0 || *end != '\0' || n < 0 || n > 65535 || colon[1] == '-' || colon[1] == '+')
        return STATUS_INVALID;
    if (listen[0] == '[' ? listen[hlen - 1] != ']' : memchr(listen, ':', hlen) != NULL)
        return STATUS_INVALID;
    if (listen[0] == '[') {
        listen++;
        hlen -= 2;
    }
    if (hlen == 0 || hlen >= 64)
        return STATUS_INVALID;
    if (host != NULL) {
        if (hlen >= size)
            return STATUS_INVALID;
        memcpy(host, listen, hlen);
        host[hlen] = '\0';
    }
    if (port != NULL)
        *port = (int)n;
    return STATUS_OK;
}

char *config_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');

    if (slash == NULL)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

static int config_set_paths(struct config *cfg, const char *path)
{
    cfg->file = strdup(path);
    cfg->dir = config_dirname(path);
    cfg->name = strdup("mcph");
    cfg->plugin_dir = cfg->dir ? strdup(cfg->dir) : NULL;
    if (cfg->file == NULL || cfg->dir == NULL || cfg->name == NULL || cfg->plugin_dir == NULL)
        return STATUS_NOMEM;
    return STATUS_OK;
}

/* plugin_dir may come after the sections that use it: paths are resolved at the end. */
static void config_resolve_paths(struct config_parse *p)
{
    struct config *cfg = p->cfg;

    for (size_t i = 0; i < cfg->nplugins; i++) {
        struct config_plugin *pl = &cfg->plugins[i];
        char *file = NULL;

        if (pl->path_line == 0)
            pl->path_line = pl->line;
        if (pl->path == NULL && asprintf(&file, "%s.so", pl->id) < 0) {
            p->errs->nomem = 1;
            continue;
        }
        file = file ? file : pl->path;
        pl->path = config_join(cfg->plugin_dir, file);
        free(file);
        if (pl->path == NULL)
            p->errs->nomem = 1;
    }
}

/* The limits of isolate = process mean nothing for a plugin in mcph's own process. A shared
 * key (call_timeout_ms) is the loader's to judge: the plugin may declare it. */
static void config_check_isolation(struct config_parse *p)
{
    struct config *cfg = p->cfg;

    for (size_t i = 0; i < cfg->nplugins; i++) {
        const struct config_plugin *pl = &cfg->plugins[i];
        const struct {
            const char *key;
            int line;
        } limits[] = {{"max_memory", pl->max_memory_line},
                      {"max_cpu_s", pl->max_cpu_line},
                      {"max_files", pl->max_files_line},
                      {"max_procs", pl->max_procs_line}};

        for (size_t k = 0; !pl->isolate.on && k < sizeof(limits) / sizeof(limits[0]); k++) {
            if (limits[k].line == 0)
                continue;
            diag_add_at(p->errs, cfg->file, limits[k].line,
                        "[plugin.%s] %s applies to a plugin in a process of its own; add "
                        "'isolate = process' to the section or remove the key",
                        pl->id, limits[k].key);
        }
    }
}

/* The text, sealed, for the children of isolated sections, which read the section they serve
 * from it (the file may change before a child starts again): `from`, when the text came from
 * such a copy already (a child's own), else a new copy. */
static int config_share_text(struct config *cfg, const char *text, int from)
{
    size_t len = strlen(text), done = 0;
    int isolated = 0, fd;

    for (size_t i = 0; i < cfg->nplugins; i++)
        isolated |= cfg->plugins[i].isolate.on;
    if (!isolated)
        return STATUS_OK;
    fd = from >= 0 ? fcntl(from, F_DUPFD_CLOEXEC, 3)
                   : memfd_create("mcph.ini", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return STATUS_IO;
    while (from < 0 && done < len) {
        ssize_t n = write(fd, text + done, len - done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return STATUS_IO;
        }
        done += (size_t)n;
    }
    if (from < 0)
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    cfg->text_fd = fd;
    for (size_t i = 0; i < cfg->nplugins; i++)
        cfg->plugins[i].ini_fd = fd;
    return STATUS_OK;
}

/* Parse text (taken over and freed) read from path, or from fd when it is not -1. */
static int config_parse_text(struct config *cfg, const char *path, char *text, int fd,
                             struct diag *errs)
{
    struct config_parse p = {.cfg = cfg, .errs = errs, .text = text, .why = STRBUF_INIT};
    size_t before = errs->count;
    int line, status = STATUS_OK;

    if (config_set_paths(cfg, path) != STATUS_OK) {
        free(text);
        return STATUS_NOMEM;
    }
    line = ini_parse_stream(config_reader, &p, config_handler, &p);
    if (line > 0) {
        p.line = line;
        config_error(&p, "cannot parse this line; write 'key = value' or '[section]'");
    }
    config_resolve_paths(&p);
    config_check_isolation(&p);
    free(p.section);
    free(p.last_key);
    strbuf_release(&p.why);
    if (errs->nomem)
        status = STATUS_NOMEM;
    else if (errs->count > before)
        status = STATUS_CONFIG;
    else if (config_share_text(cfg, text, fd) != STATUS_OK) {
        diag_add(errs, "%s: cannot keep a copy for isolated plugins: %s", path, strerror(errno));
        status = STATUS_IO;
    }
    free(text);
    return status;
}

int config_load(struct config *cfg, const char *path, struct diag *errs)
{
    char *text = config_read_file(path, errs);

    if (text == NULL) {
        config_set_paths(cfg, path);
        return errs->nomem ? STATUS_NOMEM : STATUS_IO;
    }
    return config_parse_text(cfg, path, text, -1, errs);
}

int config_load_fd(struct config *cfg, const char *path, int fd, struct diag *errs)
{
    char *text = config_read_fd(fd, path, errs);

    if (text == NULL) {
        config_set_paths(cfg, path);
        return errs->nomem ? STATUS_NOMEM : STATUS_IO;
    }
    return config_parse_text(cfg, path, text, fd, errs);
}

const struct config_plugin *config_find_plugin(const struct config *cfg, const char *id)
{
    for (size_t i = 0; i < cfg->nplugins; i++) {
        if (strcmp(cfg->plugins[i].id, id) == 0)
            return &cfg->plugins[i];
    }
    return NULL;
}

static const char *config_kv_get(const struct config_plugin *pl, const char *key)
{
    for (size_t i = 0; i < pl->nkeys; i++) {
        if (strcmp(pl->keys[i].key, key) == 0)
            return pl->keys[i].value;
    }
    return NULL;
}

static int config_str_eq(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

int config_plugin_same(const struct config_plugin *a, const struct config_plugin *b)
{
    if (!config_str_eq(a->path, b->path) || a->enabled != b->enabled ||
        !config_str_eq(a->prefix, b->prefix) || a->cache_ttl_ms != b->cache_ttl_ms ||
        a->cache_public != b->cache_public || a->nkeys != b->nkeys ||
        memcmp(&a->isolate, &b->isolate, sizeof(a->isolate)) != 0)
        return 0;
    for (int i = 0; i < FILTER_KEYS; i++) {
        if (!config_str_eq(a->filter[i], b->filter[i]))
            return 0;
    }
    for (size_t i = 0; i < a->nkeys; i++) {
        if (!config_str_eq(a->keys[i].value, config_kv_get(b, a->keys[i].key)))
            return 0;
    }
    return 1;
}
