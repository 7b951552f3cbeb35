/*
 * remote_conf.c: the relay's settings (the JSON object on fd 3) and the files they name: the
 * token file (trimmed) and the headers file ("Name: value" lines). A fault is said on stderr
 * naming the setting, and the relay exits 78.
 */
#include "client/remote_int.h"

#include "lib/status.h"

#include <cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* The whole of a file (at most REMOTE_FILE_MAX bytes) as a string. Owned; NULL said. */
static char *remote_slurp(const struct remote *r, const char *key, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    struct strbuf sb = STRBUF_INIT;
    char buf[4096];
    ssize_t n = 0;

    struct stat st;

    if (fd < 0) {
        remote_say(r, "%s %s: %s", key, path, strerror(errno));
        return NULL;
    }
    /* A secret others may read is used, but said: the section works, the file is fixed. */
    if (fstat(fd, &st) == 0 && (st.st_mode & S_IROTH) != 0 && strstr(key, "headers") == NULL)
        remote_say(r, "warning: %s %s can be read by other users (chmod o-r %s)", key, path, path);
    while (sb.len <= REMOTE_FILE_MAX && (n = read(fd, buf, sizeof(buf))) > 0) {
        if (strbuf_add(&sb, buf, (size_t)n) != STATUS_OK)
            break;
    }
    close(fd);
    if (n < 0 || sb.nomem || sb.len > REMOTE_FILE_MAX) {
        remote_say(r, "%s %s: %s", key, path,
                   n < 0 ? strerror(errno) : "larger than 64 KiB, or out of memory");
        strbuf_release(&sb);
        return NULL;
    }
    return strbuf_detach(&sb, NULL);
}

/* A value that may go into a header: no control character. */
static int remote_header_safe(const char *s)
{
    for (; *s != '\0'; s++)
        if ((unsigned char)*s < 0x20 && *s != '\t')
            return 0;
    return 1;
}

static int remote_read_token(struct remote *r, const char *path)
{
    char *text = remote_slurp(r, "token_file", path);
    size_t start = 0, end;

    if (text == NULL)
        return STATUS_INVALID;
    end = strlen(text);
    while (start < end && isspace((unsigned char)text[start]))
        start++;
    while (end > start && isspace((unsigned char)text[end - 1]))
        end--;
    text[end] = '\0';
    memmove(text, text + start, end - start + 1);
    if (text[0] == '\0' || !remote_header_safe(text)) {
        remote_say(r, "token_file %s: %s", path,
                   text[0] == '\0' ? "empty" : "the token has a line break or control character");
        free(text);
        return STATUS_INVALID;
    }
    free(r->token);
    r->token = text;
    return STATUS_OK;
}

/* One "Name: value" line of headers_file (no line end), onto r->extra. */
static int remote_header_line(struct remote *r, const char *path, int lineno, char *line)
{
    char *colon = strchr(line, ':');
    struct curl_slist *more;

    if (colon == NULL || colon == line ||
        strspn(line, "!#$%&'*+-.^_`|~0123456789"
                     "abcdefghijklmnopqrstuvwxyz"
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != (size_t)(colon - line)) {
        remote_say(r, "headers_file %s:%d: not a 'Name: value' line", path, lineno);
        return STATUS_INVALID;
    }
    if (!remote_header_safe(colon + 1)) {
        remote_say(r, "headers_file %s:%d: a control character in the value", path, lineno);
        return STATUS_INVALID;
    }
    more = r->lib->curl_slist_append(r->extra, line);
    if (more == NULL)
        return STATUS_NOMEM;
    r->extra = more;
    return STATUS_OK;
}

static int remote_read_headers(struct remote *r, const char *path)
{
    char *text = remote_slurp(r, "headers_file", path);
    char *save = NULL, *line;
    int lineno = 0, status = STATUS_OK;

    if (text == NULL)
        return STATUS_INVALID;
    for (char *p = text; *p != '\0'; p++)
        if (*p == '\r')
            *p = '\n';
    /* strtok_r skips empty lines: line numbers count the lines with text. */
    for (line = strtok_r(text, "\n", &save); line != NULL && status == STATUS_OK;
         line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        line += strspn(line, " \t");
        if (line[0] != '\0' && line[0] != '#')
            status = remote_header_line(r, path, lineno, line);
    }
    free(text);
    return status;
}

/* r->host from the url: between "://" and the path, without user info. */
static void remote_set_host(struct remote *r)
{
    const char *start = strstr(r->url, "://");
    size_t len;
    const char *at;

    start = start ? start + 3 : r->url;
    len = strcspn(start, "/?#");
    at = memchr(start, '@', len);
    if (at != NULL) {
        len -= (size_t)(at + 1 - start);
        start = at + 1;
    }
    if (len >= sizeof(r->host))
        len = sizeof(r->host) - 1;
    memcpy(r->host, start, len);
    r->host[len] = '\0';
}

static int remote_check_url(struct remote *r)
{
    int https = strncasecmp(r->url, "https://", 8) == 0;
    int http = strncasecmp(r->url, "http://", 7) == 0;

    if (!https && !(http && r->allow_http)) {
        remote_say(r, "url %.200s: %s", r->url,
                   http ? "plain http is refused (set allow_http = yes to allow it on purpose)"
                        : "not an https:// URL");
        return STATUS_INVALID;
    }
    if (!remote_header_safe(r->url) || strchr(r->url, ' ') != NULL) {
        remote_say(r, "url: a space or control character in it");
        return STATUS_INVALID;
    }
    remote_set_host(r);
    if (r->host[0] == '\0') {
        remote_say(r, "url %.200s: no host", r->url);
        return STATUS_INVALID;
    }
    return STATUS_OK;
}

/* A string member: NULL when absent; *bad when present and not a string. */
static const char *remote_str(const cJSON *obj, const char *key, int *bad)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (item != NULL && !cJSON_IsString(item))
        *bad = 1;
    return cJSON_GetStringValue(item);
}

static int remote_read_networks(struct remote *r, const cJSON *nets)
{
    const cJSON *net;

    if (nets != NULL && !cJSON_IsArray(nets)) {
        remote_say(r, "allow_networks: not a list");
        return STATUS_INVALID;
    }
    cJSON_ArrayForEach(net, nets)
    {
        const char *text = cJSON_GetStringValue(net);
        int status = text ? remote_guard_add(&r->guard, text) : STATUS_INVALID;

        if (status != STATUS_OK) {
            remote_say(r, "allow_networks: %.100s: %s", text ? text : "(not a string)",
                       status == STATUS_LIMIT ? "too many networks (at most 64)"
                                              : "not an address or CIDR (10.0.0.0/8, ::1/128)");
            return STATUS_INVALID;
        }
    }
    return STATUS_OK;
}

/* The members other than the files. */
static int remote_read_members(struct remote *r, const cJSON *root)
{
    const cJSON *connect = cJSON_GetObjectItemCaseSensitive(root, "connect_ms");
    const cJSON *allow = cJSON_GetObjectItemCaseSensitive(root, "allow_http");
    int bad = 0;
    const char *url = remote_str(root, "url", &bad);
    const char *token = remote_str(root, "token", &bad);
    const char *ca = remote_str(root, "ca_file", &bad);

    if (url == NULL || bad) {
        remote_say(r, "%s",
                   url == NULL ? "url: missing from the settings"
                               : "url, token or ca_file: not a string");
        return STATUS_INVALID;
    }
    r->allow_http = cJSON_IsTrue(allow);
    r->connect_ms =
        cJSON_IsNumber(connect) && connect->valuedouble >= 1 && connect->valuedouble <= 600000
            ? (long)connect->valuedouble
            : 10000;
    r->url = strdup(url);
    r->token = token ? strdup(token) : NULL;
    r->ca_file = ca ? strdup(ca) : NULL;
    if (r->url == NULL || (token && r->token == NULL) || (ca && r->ca_file == NULL))
        return STATUS_NOMEM;
    if (r->token != NULL && (r->token[0] == '\0' || !remote_header_safe(r->token))) {
        remote_say(r, "token: empty, or a line break or control character in it");
        return STATUS_INVALID;
    }
    if (r->ca_file != NULL && access(r->ca_file, R_OK) != 0) {
        remote_say(r, "ca_file %s: %s", r->ca_file, strerror(errno));
        return STATUS_INVALID;
    }
    if (remote_check_url(r) != STATUS_OK)
        return STATUS_INVALID;
    return remote_read_networks(r, cJSON_GetObjectItemCaseSensitive(root, "allow_networks"));
}

/* "oauth": token_url (https unless allow_http), client_id, client_secret_file, scope. */
static int remote_read_oauth(struct remote *r, const cJSON *oauth)
{
    int bad = !cJSON_IsObject(oauth);
    const char *url = remote_str(oauth, "token_url", &bad);
    const char *id = remote_str(oauth, "client_id", &bad);
    const char *secret = remote_str(oauth, "client_secret_file", &bad);
    const char *scope = remote_str(oauth, "scope", &bad);
    char *text;

    if (bad || url == NULL || id == NULL || secret == NULL) {
        remote_say(r, "oauth: token_url, client_id and client_secret_file are needed, as strings");
        return STATUS_INVALID;
    }
    if (strncasecmp(url, "https://", 8) != 0 &&
        !(r->allow_http && strncasecmp(url, "http://", 7) == 0)) {
        remote_say(r, "oauth token_url %.200s: not an https:// URL", url);
        return STATUS_INVALID;
    }
    text = remote_slurp(r, "oauth client_secret_file", secret);
    if (text == NULL)
        return STATUS_INVALID;
    text[strcspn(text, "\r\n")] = '\0';
    r->oauth_secret = text;
    r->oauth_url = strdup(url);
    r->oauth_id = strdup(id);
    r->oauth_scope = scope ? strdup(scope) : NULL;
    if (r->oauth_url == NULL || r->oauth_id == NULL || (scope && r->oauth_scope == NULL))
        return STATUS_NOMEM;
    if (r->oauth_secret[0] == '\0') {
        remote_say(r, "oauth client_secret_file %s: empty", secret);
        return STATUS_INVALID;
    }
    return STATUS_OK;
}

int remote_conf_read(struct remote *r, const char *text, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    int bad = 0, status;
    const char *token_file, *headers_file;

    if (!cJSON_IsObject(root)) {
        remote_say(r, "the settings on fd 3 are not a JSON object");
        cJSON_Delete(root);
        return STATUS_INVALID;
    }
    status = remote_read_members(r, root);
    token_file = remote_str(root, "token_file", &bad);
    headers_file = remote_str(root, "headers_file", &bad);
    if (status == STATUS_OK && bad) {
        remote_say(r, "token_file or headers_file: not a string");
        status = STATUS_INVALID;
    }
    if (status == STATUS_OK && token_file != NULL)
        status = remote_read_token(r, token_file);
    if (status == STATUS_OK && headers_file != NULL)
        status = remote_read_headers(r, headers_file);
    if (status == STATUS_OK && cJSON_GetObjectItemCaseSensitive(root, "oauth") != NULL)
        status = remote_read_oauth(r, cJSON_GetObjectItemCaseSensitive(root, "oauth"));
    cJSON_Delete(root);
    if (status == STATUS_NOMEM)
        remote_say(r, "out of memory reading the settings");
    return status == STATUS_OK ? STATUS_OK : STATUS_INVALID;
}

void remote_conf_release(struct remote *r)
{
    free(r->url);
    free(r->token);
    free(r->ca_file);
    if (r->oauth_secret != NULL)
        memset(r->oauth_secret, 0, strlen(r->oauth_secret));
    free(r->oauth_secret);
    free(r->oauth_url);
    free(r->oauth_id);
    free(r->oauth_scope);
    r->oauth_secret = r->oauth_url = r->oauth_id = r->oauth_scope = NULL;
    if (r->extra != NULL)
        r->lib->curl_slist_free_all(r->extra);
    r->url = r->token = r->ca_file = NULL;
    r->extra = NULL;
}
