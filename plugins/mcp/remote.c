/*
 * remote.c: a url section (a remote server over Streamable HTTP) read into the client
 * engine's spec. The engine talks to mcph's relay, `mcph --remote SECTION` (core/client/
 * remote.h), as it talks to a stdio server; the relay gets its settings as one JSON object
 * on fd 3 (a memfd, read from its start at every start). What can be checked here is (the URL's
 * form, the files, the environment), so that a wrong section is refused at start with its
 * key named; the relay checks the rest (the networks, the addresses it connects to).
 * Secrets are never logged: a message names the file or variable, never its text.
 */
#include "mcp.h"

#include "mcph-value.h"

#include <cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

#define REMOTE_EXIT_CONFIG 78 /* the relay's status for a wrong section (sysexits' EX_CONFIG) */
#define REMOTE_URL_MAX 2048

/* The URL's scheme, authority and path: https (or http with allow_http), no user or
 * password in it (credentials come from token_file, token_env, headers_file), a host, no
 * space or control character. *display is the URL without its query and fragment, which
 * may carry a key, for messages. */
static int remote_url(const struct mcph_host *host, const char *url, int http_ok, char **display)
{
    const char *rest = NULL, *why = NULL;
    size_t auth;

    if (strncmp(url, "https://", 8) == 0)
        rest = url + 8;
    else if (strncmp(url, "http://", 7) == 0)
        rest = url + 7;
    if (strlen(url) > REMOTE_URL_MAX)
        why = "is longer than 2048 bytes";
    else if (rest == NULL)
        why = "is not an https:// (or http://) URL";
    else if (rest == url + 7 && !http_ok)
        why = "is plain http, which anyone on the way can read and change; use https, or set "
              "allow_http = yes for a server on a network you trust";
    else if (strpbrk(url, " \t\r\n\"<>\\^`{|}") != NULL)
        why = "holds a character a URL may not (a space, a quote, a control character)";
    if (why == NULL) {
        auth = strcspn(rest, "/?#");
        if (auth == 0)
            why = "names no host";
        else if (memchr(rest, '@', auth) != NULL)
            why = "carries a user or password; give credentials with token_file, token_env "
                  "or headers_file";
    }
    for (const char *p = url; why == NULL && *p != '\0'; p++) {
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            why = "holds a control character";
    }
    if (why != NULL) {
        host->log(host, MCPH_LOG_ERROR, "url in [plugin.%s] %s", host->instance, why);
        return MCPH_ERR_INVALID;
    }
    *display = strndup(url, strcspn(url, "?#"));
    return *display != NULL ? MCPH_OK : MCPH_ERR_NOMEM;
}

/* A file of secrets (token_file, headers_file, oauth_client_secret_file): a regular file mcph
 * can read, which no one else may read or write. Returns MCPH_OK, or MCPH_ERR_INVALID after
 * saying why. */
static int remote_secret_file(const struct mcph_host *host, const char *key, const char *path)
{
    struct stat st;

    if (stat(path, &st) != 0 || access(path, R_OK) != 0) {
        host->log(host, MCPH_LOG_ERROR, "%s in [plugin.%s] is '%s': %s; give a file mcph can read",
                  key, host->instance, path, strerror(errno));
        return MCPH_ERR_INVALID;
    }
    if (!S_ISREG(st.st_mode)) {
        host->log(host, MCPH_LOG_ERROR, "%s in [plugin.%s] is '%s', which is not a file", key,
                  host->instance, path);
        return MCPH_ERR_INVALID;
    }
    if ((st.st_mode & 077) != 0) {
        host->log(host, MCPH_LOG_ERROR,
                  "%s in [plugin.%s] is '%s', which others may read or write (mode %04o); "
                  "chmod 600 it",
                  key, host->instance, path, (unsigned)(st.st_mode & 07777));
        return MCPH_ERR_INVALID;
    }
    return MCPH_OK;
}

/* Key (a path, resolved from the INI file's folder) into settings under name, when set. */
static int remote_file(const struct mcph_host *host, cJSON *settings, const char *key,
                       const char *name, int secret)
{
    const char *path = host->config_path(host, key);

    if (path == NULL || path[0] == '\0')
        return MCPH_OK;
    if (secret && remote_secret_file(host, key, path) != MCPH_OK)
        return MCPH_ERR_INVALID;
    if (!secret && access(path, R_OK) != 0) {
        host->log(host, MCPH_LOG_ERROR, "%s in [plugin.%s] is '%s': %s; give a file mcph can read",
                  key, host->instance, path, strerror(errno));
        return MCPH_ERR_INVALID;
    }
    return cJSON_AddStringToObject(settings, name, path) != NULL ? MCPH_OK : MCPH_ERR_NOMEM;
}

/* token_env: the bearer token from mcph's environment, read once at init. */
static int remote_token_env(const struct mcph_host *host, cJSON *settings)
{
    const char *name = host->config(host, "token_env");
    const char *value;

    if (name == NULL || name[0] == '\0')
        return MCPH_OK;
    if (host->config(host, "token_file") != NULL) {
        host->log(host, MCPH_LOG_ERROR, "[plugin.%s] sets both token_file and token_env; keep one",
                  host->instance);
        return MCPH_ERR_INVALID;
    }
    value = getenv(name);
    if (value == NULL || value[strspn(value, " \t")] == '\0') {
        host->log(host, MCPH_LOG_ERROR,
                  "token_env in [plugin.%s] names %s, which is not set in mcph's environment "
                  "(or is empty); set it before mcph starts",
                  host->instance, name);
        return MCPH_ERR_INVALID;
    }
    return cJSON_AddStringToObject(settings, "token", value) != NULL ? MCPH_OK : MCPH_ERR_NOMEM;
}

/* allow_networks: words, each an address or ADDRESS/BITS (the relay checks their form). */
static int remote_networks(const struct mcph_host *host, cJSON *settings)
{
    const char *text = host->config(host, "allow_networks");
    cJSON *list = cJSON_AddArrayToObject(settings, "allow_networks");

    if (list == NULL)
        return MCPH_ERR_NOMEM;
    while (text != NULL && *(text += strspn(text, " \t,")) != '\0') {
        size_t n = strcspn(text, " \t,");
        char *word = strndup(text, n);
        cJSON *item = word != NULL ? cJSON_CreateString(word) : NULL;

        free(word);
        if (item == NULL)
            return MCPH_ERR_NOMEM;
        cJSON_AddItemToArray(list, item);
        text += n;
    }
    return MCPH_OK;
}

/* oauth_token_url, oauth_client_id, oauth_client_secret_file, oauth_scope: the client
 * credentials grant, all three first ones or none. */
static int remote_oauth(const struct mcph_host *host, cJSON *settings)
{
    const char *url = host->config(host, "oauth_token_url");
    const char *id = host->config(host, "oauth_client_id");
    const char *secret = host->config(host, "oauth_client_secret_file");
    const char *scope = host->config(host, "oauth_scope");
    cJSON *oauth;

    if (url == NULL && id == NULL && secret == NULL && scope == NULL)
        return MCPH_OK;
    if (url == NULL || id == NULL || secret == NULL) {
        host->log(host, MCPH_LOG_ERROR,
                  "[plugin.%s] sets some of oauth_token_url, oauth_client_id and "
                  "oauth_client_secret_file; the client credentials grant needs all three",
                  host->instance);
        return MCPH_ERR_INVALID;
    }
    if (host->config(host, "token_file") != NULL || host->config(host, "token_env") != NULL) {
        host->log(host, MCPH_LOG_ERROR,
                  "[plugin.%s] sets a token (token_file or token_env) and OAuth client "
                  "credentials; keep one",
                  host->instance);
        return MCPH_ERR_INVALID;
    }
    oauth = cJSON_AddObjectToObject(settings, "oauth");
    if (oauth == NULL || cJSON_AddStringToObject(oauth, "token_url", url) == NULL ||
        cJSON_AddStringToObject(oauth, "client_id", id) == NULL ||
        (scope != NULL && cJSON_AddStringToObject(oauth, "scope", scope) == NULL))
        return MCPH_ERR_NOMEM;
    return remote_file(host, oauth, "oauth_client_secret_file", "client_secret_file", 1);
}

/* The settings as JSON text in a memfd: *fd, and the text in *text for comparing specs. */
static int remote_memfd(const struct mcph_host *host, const char *text, int *fd)
{
    size_t n = strlen(text), off = 0;

    *fd = memfd_create("mcph-remote", MFD_CLOEXEC);
    while (*fd >= 0 && off < n) {
        ssize_t w = write(*fd, text + off, n - off);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    if (*fd < 0 || off < n) {
        host->log(host, MCPH_LOG_ERROR, "[plugin.%s]: a memfd for the relay's settings: %s",
                  host->instance, strerror(errno));
        if (*fd >= 0)
            close(*fd);
        return MCPH_ERR;
    }
    return MCPH_OK;
}

int mcp_remote_read(const struct mcph_host *host, struct mcp_spec *spec)
{
    const char *url = host->config(host, "url");
    const char *http = host->config(host, "allow_http");
    /* mcph itself, with mcph's environment (a sanitizer's options among it), as an isolated
     * plugin's child is; proxies named there are not used. */
    const char *const argv[] = {"/proc/self/exe", "--remote", host->instance, NULL};
    int http_ok = 0, rc;
    cJSON *settings;

    if (http != NULL && mcph_value_bool(http, &http_ok) != MCPH_OK)
        return MCPH_ERR_INVALID;
    rc = remote_url(host, url, http_ok, &spec->display);
    if (rc != MCPH_OK)
        return rc;
    settings = cJSON_CreateObject();
    if (settings == NULL || cJSON_AddStringToObject(settings, "url", url) == NULL ||
        cJSON_AddBoolToObject(settings, "allow_http", http_ok) == NULL ||
        cJSON_AddNumberToObject(settings, "connect_ms", spec->startup_ms) == NULL)
        rc = MCPH_ERR_NOMEM;
    if (rc == MCPH_OK)
        rc = remote_file(host, settings, "token_file", "token_file", 1);
    if (rc == MCPH_OK)
        rc = remote_token_env(host, settings);
    if (rc == MCPH_OK)
        rc = remote_file(host, settings, "headers_file", "headers_file", 1);
    if (rc == MCPH_OK)
        rc = remote_file(host, settings, "ca_file", "ca_file", 0);
    if (rc == MCPH_OK)
        rc = remote_networks(host, settings);
    if (rc == MCPH_OK)
        rc = remote_oauth(host, settings);
    if (rc == MCPH_OK) {
        spec->remote = cJSON_PrintUnformatted(settings);
        rc = spec->remote != NULL ? remote_memfd(host, spec->remote, &spec->pass[0])
                                  : MCPH_ERR_NOMEM;
        spec->npass = rc == MCPH_OK;
    }
    cJSON_Delete(settings);
    if (rc != MCPH_OK)
        return rc;
    spec->argv = mcp_list_copy(argv);
    spec->envp = mcp_list_copy((const char *const *)environ);
    spec->cwd = strdup("/");
    spec->tag = strdup(host->instance);
    spec->keep_trying = 1;
    spec->config_exit = REMOTE_EXIT_CONFIG;
    if (spec->argv == NULL || spec->envp == NULL || spec->cwd == NULL || spec->tag == NULL)
        return MCPH_ERR_NOMEM;
    return MCPH_OK;
}
