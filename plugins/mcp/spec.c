/*
 * spec.c: the section's command (words, quotes, no shell), the server's environment (the
 * exec plugin's rules: PATH, LANG and HOME, plus the env key's NAME and NAME=VALUE words) and
 * the program's path, read into the client engine's spec.
 */
#include "mcp.h"

#include "mcph-strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPEC_WORDS_MAX 256

static void spec_free_list(char **list)
{
    if (list == NULL)
        return;
    for (size_t i = 0; list[i] != NULL; i++)
        free(list[i]);
    free(list);
}

static int spec_word(const struct mcph_host *host, const char **pp, char **out)
{
    const char *p = *pp;
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;

    while (*p != '\0' && !isspace((unsigned char)*p)) {
        char q = *p;

        if (q != '\'' && q != '"') {
            mcph_sb_addch(&sb, *p++);
            continue;
        }
        for (p++; *p != '\0' && *p != q; p++) {
            if (q == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\'))
                p++;
            mcph_sb_addch(&sb, *p);
        }
        if (*p == '\0') {
            host->log(host, MCPH_LOG_ERROR,
                      "command in [plugin.%s]: a %c quote is not closed; close it or remove it",
                      host->instance, q);
            mcph_sb_release(&sb);
            return MCPH_ERR_INVALID;
        }
        p++;
    }
    *pp = p;
    if (sb.nomem) {
        mcph_sb_release(&sb);
        return MCPH_ERR_NOMEM;
    }
    *out = mcph_sb_detach(&sb, NULL);
    return *out != NULL ? MCPH_OK : MCPH_ERR_NOMEM;
}

static int spec_words(const struct mcph_host *host, const char *cmd, char ***out)
{
    char **argv = calloc(SPEC_WORDS_MAX + 1, sizeof(*argv));
    size_t n = 0;
    int rc = MCPH_OK;

    if (argv == NULL)
        return MCPH_ERR_NOMEM;
    for (const char *p = cmd; rc == MCPH_OK;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            break;
        if (n == SPEC_WORDS_MAX) {
            host->log(host, MCPH_LOG_ERROR, "command in [plugin.%s]: more than %d words",
                      host->instance, SPEC_WORDS_MAX);
            rc = MCPH_ERR_INVALID;
            break;
        }
        rc = spec_word(host, &p, &argv[n]);
        if (rc == MCPH_OK)
            n++;
    }
    if (rc == MCPH_OK && n == 0) {
        host->log(host, MCPH_LOG_ERROR,
                  "command in [plugin.%s] is empty; set it to the server's program and its "
                  "arguments",
                  host->instance);
        rc = MCPH_ERR_INVALID;
    }
    if (rc != MCPH_OK) {
        spec_free_list(argv);
        return rc;
    }
    *out = argv;
    return MCPH_OK;
}

/* --- The environment. --- */

static int spec_env_name_ok(const char *s, size_t n)
{
    if (n == 0 || isdigit((unsigned char)s[0]))
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return 0;
    }
    return 1;
}

/* NAME=value into envp (room for MCP_ENV_MAX), replacing an earlier NAME. */
static int spec_env_set(const struct mcph_host *host, char **envp, const char *name, size_t n,
                        const char *value)
{
    size_t i = 0;
    char *entry = malloc(n + strlen(value) + 2);

    if (entry == NULL)
        return MCPH_ERR_NOMEM;
    sprintf(entry, "%.*s=%s", (int)n, name, value);
    while (envp[i] != NULL && strncmp(envp[i], entry, n + 1) != 0)
        i++;
    if (i == MCP_ENV_MAX) {
        free(entry);
        host->log(host, MCPH_LOG_ERROR, "env in [plugin.%s]: more than %d variables",
                  host->instance, MCP_ENV_MAX);
        return MCPH_ERR_INVALID;
    }
    free(envp[i]);
    envp[i] = entry;
    return MCPH_OK;
}

static int spec_env_word(const struct mcph_host *host, char **envp, const char *w, size_t n)
{
    const char *eq = memchr(w, '=', n);
    size_t name_len = eq != NULL ? (size_t)(eq - w) : n;
    char name[128];
    const char *inherited;

    if (!spec_env_name_ok(w, name_len) || name_len >= sizeof(name)) {
        host->log(host, MCPH_LOG_ERROR,
                  "env in [plugin.%s]: '%.*s' is not NAME or NAME=VALUE (a name is letters, "
                  "digits and _, and a value has no spaces)",
                  host->instance, (int)n, w);
        return MCPH_ERR_INVALID;
    }
    memcpy(name, w, name_len);
    name[name_len] = '\0';
    if (eq != NULL) {
        char *value = strndup(eq + 1, n - name_len - 1);
        int rc = value != NULL ? spec_env_set(host, envp, name, name_len, value) : MCPH_ERR_NOMEM;

        free(value);
        return rc;
    }
    inherited = getenv(name);
    if (inherited == NULL) {
        host->log(host, MCPH_LOG_INFO,
                  "env in [plugin.%s]: %s is not set in mcph's environment; the server runs "
                  "without it",
                  host->instance, name);
        return MCPH_OK;
    }
    return spec_env_set(host, envp, name, name_len, inherited);
}

static int spec_env(const struct mcph_host *host, char ***out)
{
    const char *home = getenv("HOME");
    const char *list = host->config(host, "env");
    char **envp = calloc(MCP_ENV_MAX + 1, sizeof(*envp));
    int rc;

    if (envp == NULL)
        return MCPH_ERR_NOMEM;
    rc = spec_env_set(host, envp, "PATH", 4, "/usr/local/bin:/usr/bin:/bin");
    if (rc == MCPH_OK)
        rc = spec_env_set(host, envp, "LANG", 4, "C.UTF-8");
    if (rc == MCPH_OK)
        rc = spec_env_set(host, envp, "HOME", 4, home != NULL && home[0] == '/' ? home : "/");
    for (const char *p = list != NULL ? list : ""; rc == MCPH_OK && *p != '\0';) {
        size_t n;

        p += strspn(p, " \t\n");
        n = strcspn(p, " \t\n");
        if (n > 0)
            rc = spec_env_word(host, envp, p, n);
        p += n;
    }
    if (rc != MCPH_OK) {
        spec_free_list(envp);
        return rc;
    }
    *out = envp;
    return MCPH_OK;
}

/* --- The program. --- */

static int spec_runnable(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* argv[0] as a path: a bare name is looked up in the server's PATH, a relative path is
 * taken from cwd (which is the INI file's folder unless set). */
static int spec_program(const struct mcph_host *host, struct mcp_spec *spec)
{
    const char *name = spec->argv[0];
    const char *path = "";
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;

    if (name[0] == '/')
        mcph_sb_addstr(&sb, name);
    else if (strchr(name, '/') != NULL)
        mcph_sb_addf(&sb, "%s/%s", spec->cwd, name);
    for (size_t i = 0; spec->envp[i] != NULL; i++) {
        if (strncmp(spec->envp[i], "PATH=", 5) == 0)
            path = spec->envp[i] + 5;
    }
    while (sb.len == 0 && *path != '\0') {
        size_t n = strcspn(path, ":");

        mcph_sb_addf(&sb, "%.*s/%s", (int)n, path, name);
        if (!spec_runnable(sb.buf))
            mcph_sb_reset(&sb);
        path += n + (path[n] == ':');
    }
    if (sb.nomem) {
        mcph_sb_release(&sb);
        return MCPH_ERR_NOMEM;
    }
    if (sb.len == 0 || !spec_runnable(sb.buf)) {
        host->log(host, MCPH_LOG_ERROR,
                  "command in [plugin.%s]: '%s' is not an executable file%s; give its full path "
                  "or add its folder to PATH with the env key",
                  host->instance, sb.len > 0 ? sb.buf : name,
                  sb.len > 0 ? "" : " in the server's PATH");
        mcph_sb_release(&sb);
        return MCPH_ERR_INVALID;
    }
    free(spec->argv[0]);
    spec->argv[0] = mcph_sb_detach(&sb, NULL);
    return spec->argv[0] != NULL ? MCPH_OK : MCPH_ERR_NOMEM;
}

int mcp_spec_read(const struct mcph_host *host, struct mcp_spec *spec)
{
    const char *cmd = host->config(host, "command");
    const char *cwd = host->config_path(host, "cwd");
    const char *startup = host->config(host, "startup_timeout_ms");
    char *end = NULL;
    long ms;
    int rc;

    memset(spec, 0, sizeof(*spec));
    ms = strtol(startup != NULL ? startup : "", &end, 10);
    if (end == startup || *end != '\0' || ms < 100 || ms > 600000) {
        host->log(host, MCPH_LOG_ERROR,
                  "startup_timeout_ms in [plugin.%s] is '%s'; give milliseconds from 100 to "
                  "600000",
                  host->instance, startup != NULL ? startup : "");
        return MCPH_ERR_INVALID;
    }
    spec->startup_ms = (int)ms;
    spec->display = strdup(cmd != NULL ? cmd : "");
    spec->tag = strdup(host->instance);
    /* Absolute: the child changes to it before it runs a program named relative to it. */
    spec->cwd = realpath(cwd != NULL ? cwd : ".", NULL);
    if (spec->cwd == NULL && errno != ENOMEM) {
        host->log(host, MCPH_LOG_ERROR,
                  "cwd in [plugin.%s] is '%s': %s; set it to an existing folder", host->instance,
                  cwd != NULL ? cwd : ".", strerror(errno));
        mcp_spec_release(spec);
        return MCPH_ERR_INVALID;
    }
    if (spec->display == NULL || spec->cwd == NULL || spec->tag == NULL) {
        mcp_spec_release(spec);
        return MCPH_ERR_NOMEM;
    }
    rc = spec_words(host, spec->display, &spec->argv);
    if (rc == MCPH_OK)
        rc = spec_env(host, &spec->envp);
    if (rc == MCPH_OK)
        rc = spec_program(host, spec);
    if (rc != MCPH_OK)
        mcp_spec_release(spec);
    return rc;
}

/* --- Starting the process. --- */
