#include "config/keys.h"

#include "config/config.h"
#include "config/filter.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/status.h"
#include "mcph-env.h"
#include "mcph-value.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- The checks of text values and the words of word values. --- */

static int config_check_listen(const char *value, struct strbuf *why)
{
    (void)why;
    return config_listen_split(value, NULL, 0, NULL);
}

static int config_check_http_path(const char *value, struct strbuf *why)
{
    (void)why;
    if (value[0] != '/' || strlen(value) > 200 || strpbrk(value, "?# \t") != NULL)
        return STATUS_INVALID;
    return STATUS_OK;
}

static int config_check_word(const char *value, size_t max)
{
    size_t n = strspn(value, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");

    return n == 0 || n > max || value[n] != '\0' ? STATUS_INVALID : STATUS_OK;
}

static int config_check_route(const char *value, struct strbuf *why)
{
    (void)why;
    return config_check_word(value, LIMIT_ID_ROUTE);
}

int config_id_check(const char *value, struct strbuf *why)
{
    size_t n = strlen(value);

    (void)why;
    if (n == 0 || n > LIMIT_ID ||
        strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n)
        return STATUS_INVALID;
    return STATUS_OK;
}

static int config_word_scope(const char *value, int *out)
{
    if (strcmp(value, "public") == 0 || strcmp(value, "private") == 0) {
        *out = strcmp(value, "public") == 0;
        return STATUS_OK;
    }
    return STATUS_INVALID;
}

static int config_word_isolate(const char *value, int *out)
{
    if (strcmp(value, "process") == 0 || strcmp(value, "no") == 0) {
        *out = strcmp(value, "process") == 0;
        return STATUS_OK;
    }
    return STATUS_INVALID;
}

static int config_word_network(const char *value, int *out)
{
    return mcph_value_bool(value, out) == MCPH_OK ? STATUS_OK : STATUS_INVALID;
}

static int config_word_lock_new(const char *value, int *out)
{
    if (strcmp(value, "accept") == 0 || strcmp(value, "refuse") == 0) {
        *out = strcmp(value, "accept") == 0;
        return STATUS_OK;
    }
    return STATUS_INVALID;
}

static int config_check_url(const char *value, struct strbuf *why)
{
    const char *host = strncmp(value, "https://", 8) == 0  ? value + 8
                       : strncmp(value, "http://", 7) == 0 ? value + 7
                                                           : NULL;
    size_t n = host != NULL ? strcspn(host, ":/") : 0;

    if (host == NULL || n == 0 || strlen(value) > 512 || strpbrk(value, " \t\"#") != NULL)
        return STATUS_INVALID;
    if (value[4] == ':' && !(n == 9 && strncmp(host, "localhost", 9) == 0) &&
        !(n > 4 && strncmp(host, "127.", 4) == 0) && strncmp(host, "[::1]", 5) != 0) {
        (void)strbuf_addstr(why, "http:// is only for a loopback host");
        return STATUS_INVALID;
    }
    return STATUS_OK;
}

/* Space-separated words, each checked by one. */
static int config_check_each(const char *value, struct strbuf *why,
                             int (*one)(const char *word, struct strbuf *why))
{
    char word[513];
    int n = 0;

    for (const char *p = value + strspn(value, " \t"); *p != '\0'; p += strspn(p, " \t"), n++) {
        size_t len = strcspn(p, " \t");

        if (len >= sizeof(word))
            return STATUS_INVALID;
        memcpy(word, p, len);
        word[len] = '\0';
        if (one(word, why) != STATUS_OK)
            return STATUS_INVALID;
        p += len;
    }
    return n > 0 ? STATUS_OK : STATUS_INVALID;
}

static int config_check_urls(const char *value, struct strbuf *why)
{
    return config_check_each(value, why, config_check_url);
}

/* A scope: RFC 6749's scope-token, printable ASCII but '"' and '\\'. */
static int config_check_scope(const char *word, struct strbuf *why)
{
    (void)why;
    for (const char *c = word; *c != '\0'; c++) {
        if (*c < 0x21 || *c > 0x7e || *c == '"' || *c == '\\')
            return STATUS_INVALID;
    }
    return STATUS_OK;
}

static int config_check_scopes(const char *value, struct strbuf *why)
{
    return config_check_each(value, why, config_check_scope);
}

static int config_check_claim(const char *word, struct strbuf *why)
{
    const char *eq = strchr(word, '=');

    if (eq == NULL || eq == word || eq[1] == '\0') {
        (void)strbuf_addf(why, "'%s' is not NAME=VALUE", word);
        return STATUS_INVALID;
    }
    return STATUS_OK;
}

static int config_check_claims(const char *value, struct strbuf *why)
{
    return config_check_each(value, why, config_check_claim);
}

static int config_check_number(const char *word, struct strbuf *why)
{
    long long n;

    (void)why;
    return mcph_value_int(word, 1, 1000000, &n) == MCPH_OK ? STATUS_OK : STATUS_INVALID;
}

static int config_check_numbers(const char *value, struct strbuf *why)
{
    return config_check_each(value, why, config_check_number);
}

int config_rate_parse(const char *value, double *per_s, int *n)
{
    const char *slash = strchr(value, '/');
    char num[16];
    long long count;
    double secs;

    if (slash == NULL || slash == value || (size_t)(slash - value) >= sizeof(num))
        return STATUS_INVALID;
    memcpy(num, value, (size_t)(slash - value));
    num[slash - value] = '\0';
    if (mcph_value_int(num, 1, 1000000, &count) != MCPH_OK)
        return STATUS_INVALID;
    if (strcmp(slash + 1, "s") == 0)
        secs = 1;
    else if (strcmp(slash + 1, "min") == 0)
        secs = 60;
    else if (strcmp(slash + 1, "h") == 0)
        secs = 3600;
    else
        return STATUS_INVALID;
    *per_s = (double)count / secs;
    if (n != NULL)
        *n = (int)count;
    return STATUS_OK;
}

static int config_word_per(const char *value, int *out)
{
    if (strcmp(value, "principal") == 0 || strcmp(value, "server") == 0) {
        *out = strcmp(value, "principal") == 0;
        return STATUS_OK;
    }
    return STATUS_INVALID;
}

#define CONFIG_URL(what) what ": a URL, https:// (http:// only on loopback)"
#define CONFIG_RATE "N/s, N/min or N/h, N a whole number from 1 to 1000000"
#define CONFIG_SERVER(member) .field = offsetof(struct config, member)
#define CONFIG_PLUGIN(member, at)                                                                  \
    .field = offsetof(struct config_plugin, member), .line = offsetof(struct config_plugin, at)
#define CONFIG_PATHS(what)                                                                         \
    what ", words ('...' and \"...\" quote) relative to the INI file's folder"
#define CONFIG_GLOBS(what)                                                                         \
    "globs of " what ", space-separated (* ? [set] [!set], \\ escapes; !glob excludes)"

const struct config_key config_server_keys[] = {
    {"name", CONFIG_KEY_TEXT, CONFIG_SERVER(name), .help = "the server name sent to clients"},
    {"title", CONFIG_KEY_TEXT, CONFIG_SERVER(title), .help = "a human-readable server title"},
    {"instructions", CONFIG_KEY_TEXT, CONFIG_SERVER(instructions), .help = "text for the client"},
    {"plugin_dir", CONFIG_KEY_FILE, CONFIG_SERVER(plugin_dir), .help = "a folder"},
    {"workers", CONFIG_KEY_INT, CONFIG_SERVER(workers), .min = 1, .max = LIMIT_WORKERS_MAX,
     .unit = "a number"},
    {"log_level", CONFIG_KEY_WORD, CONFIG_SERVER(log_level), .word = log_level_parse,
     .help = "one of debug, info, notice, warning, error, critical, alert, emergency"},
    {"strict", CONFIG_KEY_BOOL, CONFIG_SERVER(strict)},
    {"page_size", CONFIG_KEY_INT, CONFIG_SERVER(page_size), .min = 1, .max = LIMIT_PAGE_MAX,
     .unit = "a number"},
    {"watch", CONFIG_KEY_BOOL, CONFIG_SERVER(watch)},
    {"cache_ttl_ms", CONFIG_KEY_INT, CONFIG_SERVER(cache_ttl_ms), .min = 0,
     .max = LIMIT_CACHE_TTL_MAX_MS, .unit = "milliseconds"},
    {"cache_scope", CONFIG_KEY_WORD, CONFIG_SERVER(cache_public), .word = config_word_scope,
     .help = "public or private"},
    {"ask_timeout_ms", CONFIG_KEY_INT, CONFIG_SERVER(ask_timeout_ms), .min = 100, .max = 3600000,
     .unit = "milliseconds"},
    {"max_pending_mb", CONFIG_KEY_INT, CONFIG_SERVER(max_pending_mb), .min = 1,
     .max = LIMIT_PENDING_MB_MAX, .unit = "MiB"},
    {"listen", CONFIG_KEY_TEXT, CONFIG_SERVER(listen), .check = config_check_listen,
     .help = "HOST:PORT, an IPv4 address, [IPv6] or localhost, and a port from 0 (any free one) "
             "to 65535"},
    {"http_path", CONFIG_KEY_TEXT, CONFIG_SERVER(http_path), .check = config_check_http_path,
     .help = "a path that starts with / (no query, no spaces)"},
    {"allowed_hosts", CONFIG_KEY_TEXT, CONFIG_SERVER(allowed_hosts), .help = "host names"},
    {"allowed_origins", CONFIG_KEY_TEXT, CONFIG_SERVER(allowed_origins), .help = "origins"},
    {"auth_token_file", CONFIG_KEY_FILE, CONFIG_SERVER(auth_token_file), .help = "a file"},
    {"state_key_file", CONFIG_KEY_FILE, CONFIG_SERVER(state_key_file), .help = "a file"},
    {"session_route", CONFIG_KEY_TEXT, CONFIG_SERVER(session_route), .check = config_check_route,
     .help = "1 to 32 letters, digits or _"},
    {"max_sessions", CONFIG_KEY_INT, CONFIG_SERVER(max_sessions), .min = 1,
     .max = LIMIT_HTTP_SESSIONS_MAX, .unit = "a number"},
    {"session_idle_s", CONFIG_KEY_INT, CONFIG_SERVER(session_idle_s), .min = 1, .max = 86400,
     .unit = "seconds"},
    {"max_connections", CONFIG_KEY_INT, CONFIG_SERVER(max_connections), .min = 1,
     .max = LIMIT_HTTP_CONNECTIONS_MAX, .unit = "a number"},
    {"http_timeout_s", CONFIG_KEY_INT, CONFIG_SERVER(http_timeout_s), .min = 1, .max = 3600,
     .unit = "seconds"},
    {"oauth_issuer", CONFIG_KEY_TEXT, CONFIG_SERVER(oauth_issuer), .check = config_check_url,
     .help = CONFIG_URL("the authorization server's issuer")},
    {"oauth_resource", CONFIG_KEY_TEXT, CONFIG_SERVER(oauth_resource), .check = config_check_url,
     .help = CONFIG_URL("this server's canonical URI (the MCP endpoint as clients reach it)")},
    {"oauth_jwks_file", CONFIG_KEY_FILE, CONFIG_SERVER(oauth_jwks_file), .help = "a file"},
    {"oauth_jwks_url", CONFIG_KEY_TEXT, CONFIG_SERVER(oauth_jwks_url), .check = config_check_url,
     .help = CONFIG_URL("the JWKS")},
    {"oauth_authorization_servers", CONFIG_KEY_TEXT, CONFIG_SERVER(oauth_authorization_servers),
     .check = config_check_urls,
     .help = "URLs (https://, or http:// on loopback), space-separated"},
    {"oauth_scopes", CONFIG_KEY_TEXT, CONFIG_SERVER(oauth_scopes), .check = config_check_scopes,
     .help = "scopes, space-separated"},
    {"oauth_leeway_s", CONFIG_KEY_INT, CONFIG_SERVER(oauth_leeway_s), .min = 0, .max = 600,
     .unit = "seconds"},
    {"oauth_jwks_refresh_s", CONFIG_KEY_INT, CONFIG_SERVER(oauth_jwks_refresh_s), .min = 10,
     .max = 86400, .unit = "seconds"},
    {"rate", CONFIG_KEY_RATE, CONFIG_SERVER(rate), .help = CONFIG_RATE},
    {"rate_burst", CONFIG_KEY_INT, CONFIG_SERVER(rate_burst), .min = 1, .max = 1000000,
     .unit = "a number of requests"},
    {"metrics_path", CONFIG_KEY_TEXT, CONFIG_SERVER(metrics_path), .check = config_check_http_path,
     .help = "a path that starts with / (no query, no spaces)"},
    {"live_path", CONFIG_KEY_TEXT, CONFIG_SERVER(live_path), .check = config_check_http_path,
     .help = "a path that starts with / (no query, no spaces)"},
    {"ready_path", CONFIG_KEY_TEXT, CONFIG_SERVER(ready_path), .check = config_check_http_path,
     .help = "a path that starts with / (no query, no spaces)"},
    {"metrics_listen", CONFIG_KEY_TEXT, CONFIG_SERVER(metrics_listen), .check = config_check_listen,
     .help = "HOST:PORT, as for listen"},
    {"lock", CONFIG_KEY_FILE, CONFIG_SERVER(lock), .help = "a file (written by mcph --lock)"},
    {"lock_new", CONFIG_KEY_WORD, CONFIG_SERVER(lock_new), .word = config_word_lock_new,
     .help = "refuse (a definition the lock file lacks is not served) or accept (it is served "
             "and pinned)"},
    {"audit", CONFIG_KEY_FILE, CONFIG_SERVER(audit), .help = "a file"},
    {"audit_key_file", CONFIG_KEY_FILE, CONFIG_SERVER(audit_key_file), .help = "a file"},
    {"audit_buffer", CONFIG_KEY_BYTES, CONFIG_SERVER(audit_buffer), .min = LIMIT_AUDIT_BUFFER_MIN,
     .max = LIMIT_AUDIT_BUFFER_MAX},
    {0},
};

#define CONFIG_ACCESS(member, at)                                                                  \
    .field = offsetof(struct config_access, member), .line = offsetof(struct config_access, at)
#define CONFIG_LIMIT(member, at)                                                                   \
    .field = offsetof(struct config_limit, member), .line = offsetof(struct config_limit, at)

const struct config_key config_access_keys[] = {
    {"scopes", CONFIG_KEY_TEXT, CONFIG_ACCESS(scopes, scopes_line), .check = config_check_scopes,
     .help = "scopes, space-separated: the token must hold each"},
    {"claims", CONFIG_KEY_TEXT, CONFIG_ACCESS(claims, claims_line), .check = config_check_claims,
     .help = "NAME=VALUE words, space-separated: each claim equals VALUE or is an array that "
             "holds it"},
    {"tokens", CONFIG_KEY_TEXT, CONFIG_ACCESS(tokens, tokens_line), .check = config_check_numbers,
     .help = "tokens of auth_token_file by their place in it (from 1; comments and blank "
             "lines are not counted), space-separated"},
    {"tools", CONFIG_KEY_TEXT, CONFIG_ACCESS(filter[FILTER_TOOLS], filter_line[FILTER_TOOLS]),
     .check = filter_check, .help = CONFIG_GLOBS("tool names as clients see them")},
    {"resources", CONFIG_KEY_TEXT,
     CONFIG_ACCESS(filter[FILTER_RESOURCES], filter_line[FILTER_RESOURCES]), .check = filter_check,
     .help = CONFIG_GLOBS("resource URIs and URI templates as clients see them")},
    {"prompts", CONFIG_KEY_TEXT, CONFIG_ACCESS(filter[FILTER_PROMPTS], filter_line[FILTER_PROMPTS]),
     .check = filter_check, .help = CONFIG_GLOBS("prompt names as clients see them")},
    {0},
};

const struct config_key config_limit_keys[] = {
    {"tools", CONFIG_KEY_TEXT, CONFIG_LIMIT(tools, tools_line), .check = filter_check,
     .help = CONFIG_GLOBS("tool names as clients see them")},
    {"rate", CONFIG_KEY_RATE, CONFIG_LIMIT(rate, rate_line), .help = CONFIG_RATE},
    {"burst", CONFIG_KEY_INT, CONFIG_LIMIT(burst, burst_line), .min = 1, .max = 1000000,
     .unit = "a number of calls"},
    {"per", CONFIG_KEY_WORD, CONFIG_LIMIT(per_principal, per_line), .word = config_word_per,
     .help = "principal (a bucket for each credential) or server (one for all)"},
    {0},
};

/* The keys of a [plugin.NAME] section that belong to mcph, not to the plugin: a plugin may
 * not declare one (config_core_key), unless it is shared. */
const struct config_key config_plugin_keys[] = {
    /* Kept as written: plugin_dir may come later in the file. */
    {"path", CONFIG_KEY_TEXT, CONFIG_PLUGIN(path, path_line), .help = "a file name"},
    {"enabled", CONFIG_KEY_BOOL, CONFIG_PLUGIN(enabled, enabled_line)},
    {"prefix", CONFIG_KEY_TEXT, CONFIG_PLUGIN(prefix, prefix_line), .check = config_id_check,
     .help = "1-64 of A-Z a-z 0-9 _ -"},
    {"cache_ttl_ms", CONFIG_KEY_INT, CONFIG_PLUGIN(cache_ttl_ms, cache_ttl_line), .min = 0,
     .max = LIMIT_CACHE_TTL_MAX_MS, .unit = "milliseconds"},
    {"cache_scope", CONFIG_KEY_WORD, CONFIG_PLUGIN(cache_public, cache_scope_line),
     .word = config_word_scope, .help = "public or private"},
    {"max_concurrent", CONFIG_KEY_INT, CONFIG_PLUGIN(max_concurrent, max_concurrent_line), .min = 1,
     .max = LIMIT_WORKERS_MAX, .unit = "a number"},
    {"tools", CONFIG_KEY_TEXT, CONFIG_PLUGIN(filter[FILTER_TOOLS], filter_line[FILTER_TOOLS]),
     .check = filter_check, .help = CONFIG_GLOBS("tool names")},
    {"resources", CONFIG_KEY_TEXT,
     CONFIG_PLUGIN(filter[FILTER_RESOURCES], filter_line[FILTER_RESOURCES]), .check = filter_check,
     .help = CONFIG_GLOBS("resource URIs and URI templates")},
    {"prompts", CONFIG_KEY_TEXT, CONFIG_PLUGIN(filter[FILTER_PROMPTS], filter_line[FILTER_PROMPTS]),
     .check = filter_check, .help = CONFIG_GLOBS("prompt names")},
    {"isolate", CONFIG_KEY_WORD, CONFIG_PLUGIN(isolate.on, isolate_line),
     .word = config_word_isolate,
     .help = "process (the plugin runs in a child process of its own) or no"},
    {"call_timeout_ms", CONFIG_KEY_INT, CONFIG_PLUGIN(isolate.call_timeout_ms, call_timeout_line),
     .min = 1, .max = LIMIT_CALL_TIMEOUT_MAX_MS, .unit = "milliseconds", .shared = 1},
    {"max_memory", CONFIG_KEY_BYTES, CONFIG_PLUGIN(isolate.max_memory, max_memory_line),
     .min = LIMIT_ISOLATE_MEMORY_MIN, .max = LIMIT_ISOLATE_MEMORY_MAX},
    {"max_cpu_s", CONFIG_KEY_INT, CONFIG_PLUGIN(isolate.max_cpu_s, max_cpu_line), .min = 1,
     .max = LIMIT_ISOLATE_CPU_MAX_S, .unit = "CPU seconds"},
    {"max_files", CONFIG_KEY_INT, CONFIG_PLUGIN(isolate.max_files, max_files_line),
     .min = LIMIT_ISOLATE_FILES_MIN, .max = LIMIT_ISOLATE_FILES_MAX,
     .unit = "a number of open files"},
    {"max_procs", CONFIG_KEY_INT, CONFIG_PLUGIN(isolate.max_procs, max_procs_line), .min = 1,
     .max = LIMIT_ISOLATE_PROCS_MAX, .unit = "a number of processes"},
    /* Confinement (client/confine.h): shared, for the mcp plugin declares them. */
    {"confine", CONFIG_KEY_BOOL, CONFIG_PLUGIN(confine.on, confine_line), .shared = 1},
    {"read", CONFIG_KEY_PATHS, CONFIG_PLUGIN(confine.read, read_line), .shared = 1,
     .help = CONFIG_PATHS("files and folders the process may read")},
    {"write", CONFIG_KEY_PATHS, CONFIG_PLUGIN(confine.write, write_line), .shared = 1,
     .help = CONFIG_PATHS("files and folders the process may write, create and remove in")},
    {"exec", CONFIG_KEY_PATHS, CONFIG_PLUGIN(confine.exec, exec_line), .shared = 1,
     .help = CONFIG_PATHS("programs, or folders of programs, the process may run")},
    {"network", CONFIG_KEY_WORD, CONFIG_PLUGIN(confine.network, network_line),
     .word = config_word_network, .shared = 1,
     .help = "no (the process may open no socket; socketpair() only) or yes"},
    {"audit_arguments", CONFIG_KEY_BOOL, CONFIG_PLUGIN(audit_arguments, audit_arguments_line)},
    {0},
};

_Static_assert(LIMIT_ID == 64, "the help of prefix names this limit");
_Static_assert(LIMIT_ID_ROUTE == 32, "the help of session_route names this limit");

const struct config_key *config_key_find(const struct config_key *keys, const char *name)
{
    for (size_t i = 0; keys[i].name != NULL; i++) {
        if (strcmp(keys[i].name, name) == 0)
            return &keys[i];
    }
    return NULL;
}

/* Bytes, with K, M or G (1024-based), from min to max. */
static int config_parse_bytes(const char *value, long long min, long long max, long long *out)
{
    char *end = NULL;
    long long n;
    int shift = 0;

    errno = 0;
    n = strtoll(value, &end, 10);
    if (end == value || errno != 0 || n <= 0 || value[0] == '-' || value[0] == '+')
        return STATUS_INVALID;
    if (*end == 'K' || *end == 'M' || *end == 'G')
        shift = *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
    if (shift != 0)
        end++;
    if (*end != '\0' || n > (max >> shift) || (n << shift) < min)
        return STATUS_INVALID;
    *out = n << shift;
    return STATUS_OK;
}

/* A text member: value copied (or resolved, for a file), the old one freed. */
static int config_key_set_text(const struct config_key *k, char **field, const char *dir,
                               const char *value, struct strbuf *why)
{
    char *copy;

    if (k->check != NULL && k->check(value, why) != STATUS_OK)
        return STATUS_INVALID;
    copy = k->type == CONFIG_KEY_FILE ? config_join(dir, value) : strdup(value);
    if (copy == NULL)
        return STATUS_NOMEM;
    free(*field);
    *field = copy;
    return STATUS_OK;
}

/* A CONFIG_KEY_PATHS member: each word resolved against dir, kept "..."-quoted, the old
 * value freed. */
static int config_key_set_paths(char **field, const char *dir, const char *value,
                                struct strbuf *why)
{
    struct strbuf sb = STRBUF_INIT;
    char *word = malloc(strlen(value) + 1);
    int quoted, n = 0;

    if (word == NULL)
        return STATUS_NOMEM;
    for (const char *p = mcph_word_skip(value); *p != '\0'; p = mcph_word_skip(p), n++) {
        char *path;

        if (mcph_word_next(&p, word, &quoted) != MCPH_OK) {
            (void)strbuf_addf(why, "a %c quote is not closed", *p);
            break;
        }
        path = config_join(dir, word);
        if (path == NULL) {
            sb.nomem = 1;
            break;
        }
        (void)strbuf_addstr(&sb, n > 0 ? " \"" : "\"");
        for (const char *c = path; *c != '\0'; c++) {
            if (*c == '"' || *c == '\\')
                (void)strbuf_addch(&sb, '\\');
            (void)strbuf_addch(&sb, *c);
        }
        (void)strbuf_addch(&sb, '"');
        free(path);
    }
    free(word);
    if (why->len > 0 || n == 0 || sb.nomem) {
        int nomem = sb.nomem;

        strbuf_release(&sb);
        return nomem ? STATUS_NOMEM : STATUS_INVALID;
    }
    free(*field);
    *field = strbuf_detach(&sb, NULL);
    return *field != NULL ? STATUS_OK : STATUS_NOMEM;
}

int config_key_set(const struct config_key *k, void *base, const char *dir, const char *value,
                   struct strbuf *why)
{
    void *field = (char *)base + k->field;
    long long n;

    switch (k->type) {
    case CONFIG_KEY_TEXT:
    case CONFIG_KEY_FILE:
        return config_key_set_text(k, field, dir, value, why);
    case CONFIG_KEY_INT:
        if (mcph_value_int(value, k->min, k->max, &n) != MCPH_OK)
            return STATUS_INVALID;
        *(int *)field = (int)n;
        return STATUS_OK;
    case CONFIG_KEY_BOOL:
        return mcph_value_bool(value, field) == MCPH_OK ? STATUS_OK : STATUS_INVALID;
    case CONFIG_KEY_WORD:
        return k->word(value, field);
    case CONFIG_KEY_BYTES:
        return config_parse_bytes(value, k->min, k->max, field);
    case CONFIG_KEY_PATHS:
        return config_key_set_paths(field, dir, value, why);
    case CONFIG_KEY_RATE:
        return config_rate_parse(value, &((struct config_rate *)field)->per_s,
                                 &((struct config_rate *)field)->n);
    }
    return STATUS_INVALID;
}

/* n bytes as the largest of G, M, K that divides it. */
static void config_bytes_name(long long n, struct strbuf *sb)
{
    static const char units[] = "GMK";

    for (int i = 0; i < 3; i++) {
        long long unit = 1LL << (10 * (3 - i));

        if (n % unit == 0) {
            (void)strbuf_addf(sb, "%lld%c", n / unit, units[i]);
            return;
        }
    }
    (void)strbuf_addf(sb, "%lld", n);
}

void config_key_help(const struct config_key *k, struct strbuf *sb)
{
    if (k->type == CONFIG_KEY_INT) {
        (void)strbuf_addf(sb, "%s from %lld to %lld", k->unit, k->min, k->max);
    } else if (k->type == CONFIG_KEY_BOOL) {
        (void)strbuf_addf(sb, "yes or no");
    } else if (k->type == CONFIG_KEY_BYTES) {
        (void)strbuf_addf(sb, "bytes from ");
        config_bytes_name(k->min, sb);
        (void)strbuf_addf(sb, " to ");
        config_bytes_name(k->max, sb);
        (void)strbuf_addf(sb, ", with K, M or G (1024-based)");
    } else {
        (void)strbuf_addf(sb, "%s", k->help);
    }
}

void config_key_names(const struct config_key *keys, struct strbuf *sb)
{
    for (size_t i = 0; keys[i].name != NULL; i++)
        (void)strbuf_addf(sb, "%s%s", i ? ", " : "", keys[i].name);
}

int config_core_key(const char *key)
{
    /* Reserved for mcph's own cache settings to come. */
    return config_key_find(config_plugin_keys, key) != NULL || strncmp(key, "cache_", 6) == 0;
}

int config_shared_key(const char *key)
{
    const struct config_key *k = config_key_find(config_plugin_keys, key);

    return k != NULL && k->shared;
}

const char *config_shared_key_name(size_t i)
{
    for (size_t k = 0; config_plugin_keys[k].name != NULL; k++) {
        if (config_plugin_keys[k].shared && i-- == 0)
            return config_plugin_keys[k].name;
    }
    return NULL;
}

int config_shared_key_get(const struct config_plugin *pl, const char *key, struct strbuf *sb)
{
    const struct config_key *k = config_key_find(config_plugin_keys, key);
    const void *field;
    int line;

    if (k == NULL || !k->shared)
        return 0;
    line = *(const int *)(const void *)((const char *)pl + k->line);
    field = (const char *)pl + k->field;
    if (line == 0)
        return 0;
    if (k->type == CONFIG_KEY_PATHS)
        (void)strbuf_addstr(sb, *(char *const *)field);
    else if (k->type == CONFIG_KEY_BOOL || k->type == CONFIG_KEY_WORD)
        (void)strbuf_addstr(sb, *(const int *)field ? "yes" : "no"); /* the shared words */
    else
        (void)strbuf_addf(sb, "%d", *(const int *)field);
    return line;
}

void config_core_key_names(struct strbuf *sb)
{
    config_key_names(config_plugin_keys, sb);
}
