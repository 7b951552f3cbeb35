/*
 * mcph-env.h: the words of a command line and the environment of a child process, read one
 * way by every plugin that starts programs (exec, mcp). Header only: every function is static
 * inline, so there is nothing to link and nothing is exported.
 *
 * Words. Words are separated by spaces, tabs or newlines; no shell runs. A word is one or
 * more adjacent parts: plain characters, '...' (everything literal) or "..." (a backslash
 * escapes " and \ inside; elsewhere it is an ordinary character).
 *
 *     char *word = malloc(strlen(text) + 1);      (room for the longest word)
 *     const char *p = mcph_word_skip(text);
 *     while (*p != '\0') {
 *         if (mcph_word_next(&p, word, &quoted) != MCPH_OK)
 *             ... "a %c quote is not closed", *p ...
 *         ...
 *         p = mcph_word_skip(p);
 *     }
 *
 * Environment. A child gets PATH (the caller's default), LANG=C.UTF-8 and HOME (mcph's when it
 * is an absolute path, else /), then each word of the section's env key: NAME, copied from
 * mcph's environment when set there (else left out, and said), or NAME=VALUE as written;
 * either replaces an earlier value, the defaults included. A name is letters, digits and _,
 * not a digit first, under MCPH_ENV_NAME_MAX bytes; a value is as long as the INI line lets
 * it be. At most MCPH_ENV_MAX variables.
 *
 *     char **envp;
 *     rc = mcph_env_read(host, "/usr/bin:/bin", "commands run", &envp);   (logs why not)
 *     ...
 *     mcph_env_free(envp);
 *
 * The header needs C99 or later and the C library only. It includes plugin-api.h for the
 * status codes and the host, through which mcph_env_read logs.
 */
#ifndef MCPH_PLUGIN_ENV_H
#define MCPH_PLUGIN_ENV_H

#include "plugin-api.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MCPH_ENV_MAX 64       /* variables of a child's environment */
#define MCPH_ENV_NAME_MAX 128 /* bytes of a variable's name, its NUL included */
#define MCPH_WORD_SEPARATORS " \t\n"

/* --- Words. --- */

static inline int mcph_word_space(char c)
{
    return c != '\0' && strchr(MCPH_WORD_SEPARATORS, c) != NULL;
}

static inline const char *mcph_word_skip(const char *p)
{
    while (mcph_word_space(*p))
        p++;
    return p;
}

/* The quoted part at *pp ('...' or "...") onto out + *n; *pp moves past it. MCPH_ERR_INVALID
 * when the quote is not closed: *pp is left at it. */
static inline int mcph_word_quoted(const char **pp, char *out, size_t *n)
{
    const char *p = *pp;
    char q = *p;

    for (p++; *p != '\0' && *p != q; p++) {
        if (q == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\'))
            p++;
        out[(*n)++] = *p;
    }
    if (*p == '\0')
        return MCPH_ERR_INVALID;
    *pp = p + 1;
    return MCPH_OK;
}

/* The word at *pp into out (room for strlen(*pp) + 1); *pp moves past it, and *quoted says
 * whether a part of it was quoted. MCPH_ERR_INVALID when a quote is not closed: *pp is left
 * at that quote. */
static inline int mcph_word_next(const char **pp, char *out, int *quoted)
{
    const char *p = *pp;
    size_t n = 0;

    *quoted = 0;
    while (*p != '\0' && !mcph_word_space(*p)) {
        if (*p != '\'' && *p != '"') {
            out[n++] = *p++;
            continue;
        }
        *quoted = 1;
        if (mcph_word_quoted(&p, out, &n) != MCPH_OK) {
            *pp = p;
            return MCPH_ERR_INVALID;
        }
    }
    out[n] = '\0';
    *pp = p;
    return MCPH_OK;
}

/* --- Environment. --- */

/* Free a NULL-ended list of strings (an environment, an argv), and the list. */
static inline void mcph_env_free(char **list)
{
    if (list == NULL)
        return;
    for (size_t i = 0; list[i] != NULL; i++)
        free(list[i]);
    free(list);
}

/* Whether s[0..n) is a variable's name: letters, digits and _, not a digit first. */
static inline int mcph_env_name_ok(const char *s, size_t n)
{
    if (n == 0 || n >= MCPH_ENV_NAME_MAX || isdigit((unsigned char)s[0]))
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return 0;
    }
    return 1;
}

/* name[0..n)=value into envp (NULL-ended, room for MCPH_ENV_MAX), replacing an earlier value
 * of the name: MCPH_OK, MCPH_ERR_NOMEM, or MCPH_ERR_LIMIT when MCPH_ENV_MAX are set already. */
static inline int mcph_env_set(char **envp, const char *name, size_t n, const char *value)
{
    size_t i = 0;
    char *entry = (char *)malloc(n + strlen(value) + 2);

    if (entry == NULL)
        return MCPH_ERR_NOMEM;
    sprintf(entry, "%.*s=%s", (int)n, name, value);
    while (envp[i] != NULL && strncmp(envp[i], entry, n + 1) != 0)
        i++;
    if (i == MCPH_ENV_MAX) {
        free(entry);
        return MCPH_ERR_LIMIT;
    }
    free(envp[i]);
    envp[i] = entry;
    return MCPH_OK;
}

/* One word w[0..n) of the env key into envp: NAME=VALUE as written, or NAME as mcph has it.
 * MCPH_OK (*unset: NAME is not in mcph's environment, and was left out), MCPH_ERR_INVALID
 * (not NAME or NAME=VALUE), or mcph_env_set's errors. */
static inline int mcph_env_word(char **envp, const char *w, size_t n, int *unset)
{
    const char *eq = (const char *)memchr(w, '=', n);
    size_t name_len = eq != NULL ? (size_t)(eq - w) : n;
    char name[MCPH_ENV_NAME_MAX];
    const char *inherited;

    *unset = 0;
    if (!mcph_env_name_ok(w, name_len))
        return MCPH_ERR_INVALID;
    memcpy(name, w, name_len);
    name[name_len] = '\0';
    if (eq != NULL) {
        char *value = (char *)malloc(n - name_len);
        int rc = MCPH_ERR_NOMEM;

        if (value != NULL) {
            memcpy(value, eq + 1, n - name_len - 1);
            value[n - name_len - 1] = '\0';
            rc = mcph_env_set(envp, name, name_len, value);
        }
        free(value);
        return rc;
    }
    inherited = getenv(name);
    if (inherited == NULL) {
        *unset = 1;
        return MCPH_OK;
    }
    return mcph_env_set(envp, name, name_len, inherited);
}

/* Say what mcph_env_word returned for w[0..n) in the section of host; who: what runs without
 * an unset variable ("commands run", "the server runs"). */
static inline void mcph_env_say(const struct mcph_host *host, int rc, int unset, const char *w,
                                size_t n, const char *who)
{
    if (rc == MCPH_ERR_INVALID)
        host->log(host, MCPH_LOG_ERROR,
                  "env in [plugin.%s]: '%.*s' is not NAME or NAME=VALUE (a name is letters, "
                  "digits and _, and a value has no spaces)",
                  host->instance, (int)n, w);
    else if (rc == MCPH_ERR_LIMIT)
        host->log(host, MCPH_LOG_ERROR, "env in [plugin.%s]: more than %d variables",
                  host->instance, MCPH_ENV_MAX);
    else if (rc == MCPH_OK && unset)
        host->log(host, MCPH_LOG_INFO,
                  "env in [plugin.%s]: %.*s is not set in mcph's environment; %s without it",
                  host->instance, (int)n, w, who);
}

/* The environment of the section's child: PATH=path, LANG, HOME, then the env key's words
 * (see the top). MCPH_OK with *out set (free it with mcph_env_free), else an error after
 * logging why through host. */
static inline int mcph_env_read(const struct mcph_host *host, const char *path, const char *who,
                                char ***out)
{
    const char *home = getenv("HOME");
    const char *list = host->config(host, "env");
    char **envp = (char **)calloc(MCPH_ENV_MAX + 1, sizeof(*envp));
    int rc;

    if (envp == NULL)
        return MCPH_ERR_NOMEM;
    rc = mcph_env_set(envp, "PATH", 4, path);
    if (rc == MCPH_OK)
        rc = mcph_env_set(envp, "LANG", 4, "C.UTF-8");
    if (rc == MCPH_OK)
        rc = mcph_env_set(envp, "HOME", 4, home != NULL && home[0] == '/' ? home : "/");
    for (const char *p = list != NULL ? list : ""; rc == MCPH_OK && *p != '\0';) {
        size_t n;
        int unset = 0;

        p = mcph_word_skip(p);
        n = strcspn(p, MCPH_WORD_SEPARATORS);
        if (n > 0) {
            rc = mcph_env_word(envp, p, n, &unset);
            mcph_env_say(host, rc, unset, p, n, who);
        }
        p += n;
    }
    if (rc != MCPH_OK) {
        mcph_env_free(envp);
        return rc == MCPH_ERR_LIMIT ? MCPH_ERR_INVALID : rc;
    }
    *out = envp;
    return MCPH_OK;
}

#ifdef __cplusplus
}
#endif

#endif
