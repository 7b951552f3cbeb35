/*
 * spec.c: the section's command (words, quotes, no shell), the server's environment (the
 * exec plugin's rules: PATH, LANG and HOME, plus the env key's NAME and NAME=VALUE words), the
 * program's path and idle_stop_s, read into the client engine's spec; a url section's
 * settings are remote.c's.
 */
#include "mcp.h"

#include "mcph-env.h"
#include "mcph-strbuf.h"
#include "mcph-value.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SPEC_WORDS_MAX 256

/* The command's words (mcph-env.h's), at most SPEC_WORDS_MAX. */
static int spec_words(const struct mcph_host *host, const char *cmd, char ***out)
{
    char **argv = calloc(SPEC_WORDS_MAX + 1, sizeof(*argv));
    char *word = malloc(strlen(cmd) + 1);
    size_t n = 0;
    int rc = argv != NULL && word != NULL ? MCPH_OK : MCPH_ERR_NOMEM, quoted;

    for (const char *p = mcph_word_skip(cmd); rc == MCPH_OK && *p != '\0'; p = mcph_word_skip(p)) {
        if (n == SPEC_WORDS_MAX) {
            host->log(host, MCPH_LOG_ERROR, "command in [plugin.%s]: more than %d words",
                      host->instance, SPEC_WORDS_MAX);
            rc = MCPH_ERR_INVALID;
        } else if (mcph_word_next(&p, word, &quoted) != MCPH_OK) {
            host->log(host, MCPH_LOG_ERROR,
                      "command in [plugin.%s]: a %c quote is not closed; close it or remove it",
                      host->instance, *p);
            rc = MCPH_ERR_INVALID;
        } else {
            argv[n] = strdup(word);
            rc = argv[n++] != NULL ? MCPH_OK : MCPH_ERR_NOMEM;
        }
    }
    if (rc == MCPH_OK && n == 0) {
        host->log(host, MCPH_LOG_ERROR,
                  "command in [plugin.%s] is empty; set it to the server's program and its "
                  "arguments",
                  host->instance);
        rc = MCPH_ERR_INVALID;
    }
    free(word);
    if (rc != MCPH_OK) {
        mcph_env_free(argv);
        return rc;
    }
    *out = argv;
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

/* idle_stop_s: seconds idle before the server is stopped until the next request; 0 or unset:
 * never. */
static int spec_idle(const struct mcph_host *host, struct mcp_spec *spec)
{
    const char *text = host->config(host, "idle_stop_s");
    long long s;

    if (text == NULL || text[0] == '\0')
        return MCPH_OK;
    if (mcph_value_int(text, 0, 86400, &s) != MCPH_OK) {
        host->log(host, MCPH_LOG_ERROR,
                  "idle_stop_s in [plugin.%s] is '%s'; give seconds from 1 to 86400, or 0 for "
                  "never",
                  host->instance, text);
        return MCPH_ERR_INVALID;
    }
    spec->idle_stop_s = (int)s;
    return MCPH_OK;
}

int mcp_spec_read(const struct mcph_host *host, struct mcp_spec *spec)
{
    const char *cmd = host->config(host, "command");
    const char *cwd = host->config_path(host, "cwd");
    const char *startup = host->config(host, "startup_timeout_ms");
    long long ms;
    int rc;

    memset(spec, 0, sizeof(*spec));
    if (mcph_value_int(startup, 100, 600000, &ms) != MCPH_OK) {
        host->log(host, MCPH_LOG_ERROR,
                  "startup_timeout_ms in [plugin.%s] is '%s'; give milliseconds from 100 to "
                  "600000",
                  host->instance, startup != NULL ? startup : "");
        return MCPH_ERR_INVALID;
    }
    spec->startup_ms = (int)ms;
    if (spec_idle(host, spec) != MCPH_OK)
        return MCPH_ERR_INVALID;
    if ((cmd == NULL) == (host->config(host, "url") == NULL)) {
        host->log(host, MCPH_LOG_ERROR,
                  "[plugin.%s] sets %s; set command (a server mcph starts) or url (a remote "
                  "server over Streamable HTTP)",
                  host->instance, cmd == NULL ? "neither command nor url" : "both command and url");
        return MCPH_ERR_INVALID;
    }
    if (cmd == NULL) {
        rc = mcp_remote_read(host, spec);
        if (rc != MCPH_OK)
            mcp_spec_release(spec);
        return rc;
    }
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
        rc = mcph_env_read(host, "/usr/local/bin:/usr/bin:/bin", "the server runs", &spec->envp);
    if (rc == MCPH_OK)
        rc = spec_program(host, spec);
    if (rc != MCPH_OK)
        mcp_spec_release(spec);
    return rc;
}

/* --- Starting the process. --- */
