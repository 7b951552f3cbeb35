#include "config/config.h"
#include "config/edge.h"

#include "config/inifile.h"
#include "config/keys.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/status.h"
#include "lib/strbuf.h"

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
                                   * that a ';' in quotes stays (inifile_value) */
    char *section;                /* owned: the section of the last key */
    char *last_key;               /* owned: the last key, for continuation lines */
    int server_seen;
    unsigned long long server_set; /* bit per server key already set */
    struct strbuf why;             /* what a plugin key's setter found wrong, when it says more than
                                    * the key's help text */
};

static char *config_strdup(struct config_parse *p, const char *s)
{
    char *copy = strdup(s);

    if (copy == NULL)
        p->errs->nomem = 1;
    return copy;
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

static void config_server_key(struct config_parse *p, const char *key, const char *value)
{
    const struct config_key *k = config_key_find(config_server_keys, key);
    size_t i = k != NULL ? (size_t)(k - config_server_keys) : 0;
    struct strbuf text = STRBUF_INIT;
    int status;

    if (k == NULL) {
        config_key_names(config_server_keys, &text);
        config_error(p, "unknown key '%s' in [server]; the keys are: %s", key, text.buf);
    } else if (p->server_set & (1ull << i)) {
        config_error(p, "'%s' is set twice in [server]; keep one", key);
    } else {
        p->server_set |= 1ull << i;
        status = config_key_set(k, p->cfg, p->cfg->dir, value, &p->why);
        config_key_help(k, &text);
        if (status == STATUS_INVALID)
            config_error(p, "[server] %s = '%s' is not valid; use %s", key, value, text.buf);
        else if (status == STATUS_NOMEM)
            p->errs->nomem = 1;
    }
    strbuf_release(&text);
}

static struct config_plugin *config_current_plugin(struct config_parse *p)
{
    struct config *cfg = p->cfg;

    if (cfg->nplugins == 0)
        return NULL;
    return &cfg->plugins[cfg->nplugins - 1];
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

/* A key of mcph's own in a [plugin.NAME] section (config_plugin_keys), set on pl. */
static void config_plugin_core_key(struct config_parse *p, struct config_plugin *pl,
                                   const struct config_key *k, const char *value)
{
    int *line = (int *)(void *)((char *)pl + k->line);
    struct strbuf help = STRBUF_INIT;
    int status;

    if (*line != 0) {
        config_error(p, "'%s' is set twice in [plugin.%s] (first on line %d); keep one", k->name,
                     pl->id, *line);
        return;
    }
    strbuf_reset(&p->why);
    status = config_key_set(k, pl, p->cfg->dir, value, &p->why);
    config_key_help(k, &help);
    if (status == STATUS_INVALID && p->why.len > 0)
        config_error(p, "[plugin.%s] %s = '%s' is not valid: %s; use %s", pl->id, k->name, value,
                     p->why.buf, help.buf);
    else if (status == STATUS_INVALID)
        config_error(p, "[plugin.%s] %s = '%s' is not valid; use %s", pl->id, k->name, value,
                     help.buf);
    else if (status == STATUS_NOMEM)
        p->errs->nomem = 1;
    else if (status == STATUS_OK)
        *line = p->line;
    strbuf_release(&help);
}

/* The key of a [plugin.NAME] section: mcph's own (config_plugin_keys), or the plugin's. */
static void config_plugin_key(struct config_parse *p, const char *key, const char *value)
{
    struct config_plugin *pl = config_current_plugin(p);
    const struct config_key *k = config_key_find(config_plugin_keys, key);

    if (k != NULL)
        config_plugin_core_key(p, pl, k, value);
    else
        config_add_kv(p, pl, key, value);
}

static int config_new_plugin(struct config_parse *p, const char *id)
{
    struct config *cfg = p->cfg;
    struct config_plugin *plugins, *pl;

    if (config_id_check(id, NULL) != STATUS_OK) {
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
    if (config_edge_section(section))
        return config_edge_new(p->cfg, section, p->line, p->errs);
    config_error(p,
                 "unknown section [%s]; use [server], [plugin.NAME], [access.NAME] or "
                 "[limit.NAME]",
                 section);
    return STATUS_INVALID;
}

static int config_handler(void *user, const char *section, const char *key, const char *inih)
{
    struct config_parse *p = user;
    int status = STATUS_OK;
    char buf[sizeof(p->raw)];
    /* libinih continues the last key on an indented line, whatever the line holds. */
    const char *value = inifile_value(
        p->raw, p->line_indented && p->last_key != NULL && strcmp(p->last_key, key) == 0, buf);

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
        else if (config_edge_section(section))
            config_edge_key(p->cfg, section, key, value, p->line, p->errs);
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
    cfg->oauth_leeway_s = LIMIT_OAUTH_LEEWAY_S;
    cfg->oauth_jwks_refresh_s = LIMIT_OAUTH_JWKS_REFRESH_S;
    cfg->audit_buffer = LIMIT_AUDIT_BUFFER_DEFAULT;
}

void config_plugin_release(struct config_plugin *pl)
{
    if (pl == NULL)
        return;
    free(pl->id);
    free(pl->path);
    free(pl->prefix);
    for (int i = 0; i < FILTER_KEYS; i++)
        free(pl->filter[i]);
    free(pl->confine.read);
    free(pl->confine.write);
    free(pl->confine.exec);
    for (size_t i = 0; i < pl->nkeys; i++) {
        free(pl->keys[i].key);
        free(pl->keys[i].value);
    }
    free(pl->keys);
}

/* s copied into *to; 1 when it could be (NULL stays NULL). */
static int config_copy_str(char **to, const char *s)
{
    *to = s != NULL ? strdup(s) : NULL;
    return s == NULL || *to != NULL;
}

int config_plugin_copy(struct config_plugin *dst, const struct config_plugin *src)
{
    int ok;

    *dst = *src;
    dst->nkeys = 0;
    dst->keys = calloc(src->nkeys + 1, sizeof(*dst->keys));
    ok = config_copy_str(&dst->id, src->id) & config_copy_str(&dst->path, src->path) &
         config_copy_str(&dst->prefix, src->prefix) & (dst->keys != NULL);
    for (int i = 0; i < FILTER_KEYS; i++)
        ok &= config_copy_str(&dst->filter[i], src->filter[i]);
    ok &= config_copy_str(&dst->confine.read, src->confine.read) &
          config_copy_str(&dst->confine.write, src->confine.write) &
          config_copy_str(&dst->confine.exec, src->confine.exec);
    for (size_t i = 0; ok && i < src->nkeys; i++, dst->nkeys++) {
        dst->keys[i].line = src->keys[i].line;
        ok = config_copy_str(&dst->keys[i].key, src->keys[i].key) &
             config_copy_str(&dst->keys[i].value, src->keys[i].value);
    }
    if (ok)
        return STATUS_OK;
    config_plugin_release(dst);
    memset(dst, 0, sizeof(*dst));
    return STATUS_NOMEM;
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
    free(cfg->oauth_issuer);
    free(cfg->oauth_resource);
    free(cfg->oauth_jwks_file);
    free(cfg->oauth_jwks_url);
    free(cfg->oauth_authorization_servers);
    free(cfg->oauth_scopes);
    free(cfg->metrics_path);
    free(cfg->live_path);
    free(cfg->ready_path);
    free(cfg->metrics_listen);
    free(cfg->lock);
    free(cfg->audit);
    free(cfg->audit_key_file);
    config_edge_release(cfg);
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

/* An mcp section confines its server, a process of its own: isolating the section too would
 * confine the isolated child, and with it the keeper of the server's tree, which then could
 * not see that tree to end it. Known by the plugin's file name (mcp.so, or the section's
 * name when path is not set). */
static void config_check_confine_mcp(struct config_parse *p, const struct config_plugin *pl)
{
    const char *file = pl->path != NULL ? strrchr(pl->path, '/') : NULL;

    file = file != NULL ? file + 1 : pl->path;
    if (!pl->isolate.on || !pl->confine.on ||
        (file != NULL ? strcmp(file, "mcp.so") != 0 : strcmp(pl->id, "mcp") != 0))
        return;
    diag_add_at(p->errs, p->cfg->file, pl->isolate_line,
                "[plugin.%s] an mcp section's server runs in a process of its own, confined by "
                "the section's rules; remove 'isolate = process' (it would confine the server's "
                "keeper too, which then could not end the server's processes)",
                pl->id);
}

/* confine is on when set so, or when a rule is set; confine = no with a rule is a mistake. */
static void config_check_confine(struct config_parse *p, struct config_plugin *pl)
{
    const struct {
        const char *key;
        int line;
    } rules[] = {{"read", pl->read_line},
                 {"write", pl->write_line},
                 {"exec", pl->exec_line},
                 {"network", pl->network_line}};

    for (size_t k = 0; k < sizeof(rules) / sizeof(rules[0]); k++) {
        if (rules[k].line == 0)
            continue;
        if (pl->confine_line != 0 && !pl->confine.on)
            diag_add_at(p->errs, p->cfg->file, rules[k].line,
                        "[plugin.%s] %s confines the process, and 'confine = no' (line %d) says "
                        "not to; remove one of them",
                        pl->id, rules[k].key, pl->confine_line);
        else
            pl->confine.on = 1;
    }
    config_check_confine_mcp(p, pl);
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

        config_check_confine(p, &cfg->plugins[i]);
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
    config_edge_check(cfg, errs);
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
    char *text = inifile_read_file(path, errs);

    if (text == NULL) {
        config_set_paths(cfg, path);
        return errs->nomem ? STATUS_NOMEM : STATUS_IO;
    }
    return config_parse_text(cfg, path, text, -1, errs);
}

int config_load_fd(struct config *cfg, const char *path, int fd, struct diag *errs)
{
    char *text = inifile_read_fd(fd, path, errs);

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
        a->audit_arguments != b->audit_arguments ||
        memcmp(&a->isolate, &b->isolate, sizeof(a->isolate)) != 0 ||
        a->confine.on != b->confine.on || a->confine.network != b->confine.network ||
        !config_str_eq(a->confine.read, b->confine.read) ||
        !config_str_eq(a->confine.write, b->confine.write) ||
        !config_str_eq(a->confine.exec, b->confine.exec))
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
