/*
 * spec.c: the exec plugin's config, read once by init().
 *
 * The `commands` grammar, one command per line (see the top of exec.c for the user's view):
 *
 *   line    = name [ description ] ":" word { word }
 *   name    = 1-64 of A-Za-z0-9 _ . -              (the tool name)
 *   description = a quoted word                     (optional, for the model)
 *   word    = one or more adjacent parts: plain characters, '...' or "..."
 *   placeholder = "{" pname [ "?" ] [ ":" type ] "}"  (a whole word, unquoted)
 *   stdin   = "<{" pname [ "?" ] ":file}"           (a whole word, unquoted; one at most)
 *   pname   = 1-64 of A-Za-z0-9 _, not a digit first  (the argument's name)
 *   type    = "file" | "dir" | "path"               (a path beneath cwd: see path.c)
 *
 * Words are separated by spaces or tabs. '...' keeps everything literally; inside "..." a
 * backslash escapes " and \ (elsewhere a backslash is an ordinary character). The first word
 * is the executable, an absolute path. An unquoted word of the placeholder form is a
 * placeholder ("?": optional; a type: see path.c), and "<" before a {name:file} placeholder makes
 * the file the command's stdin instead of an argument; any other unquoted word holding { or } is
 * refused, so that a placeholder can never hide inside a word (write '{}' to pass braces
 * literally). A literal "--" lets the placeholders after it take values that start with '-',
 * '+' or '@', whatever the "--" means to the command (it may be an option's argument, as in
 * grep -e --: the plugin cannot know).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec.h"
#include "mcph-env.h"
#include "mcph-value.h"

#define SPEC_ERR_LEN 1024
#define SPEC_PATH_SHOWN "%.300s" /* paths in messages: enough to name any real one */

/* Returns a malloc'd copy of s[0..n), or NULL when out of memory. */
static char *spec_strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);

    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static const char *spec_skip(const char *p)
{
    return mcph_word_skip(p);
}

/* --- Numbers, folder, environment. --- */

static int spec_number(const struct mcph_host *host, const char *key, int64_t min, int64_t max,
                       int64_t *out)
{
    const char *v = host->config(host, key);
    long long n;

    if (mcph_value_int(v, min, max, &n) != MCPH_OK) {
        host->log(host, MCPH_LOG_ERROR,
                  "%s = '%s' in [plugin.%s]: give a whole number from %lld to %lld", key,
                  v ? v : "", host->instance, (long long)min, (long long)max);
        return MCPH_ERR_INVALID;
    }
    *out = n;
    return MCPH_OK;
}

/* Reads a yes/no value as mcph does. */
static int spec_bool(const struct mcph_host *host, const char *key, int *out)
{
    const char *v = host->config(host, key);

    if (mcph_value_bool(v, out) == MCPH_OK)
        return MCPH_OK;
    host->log(host, MCPH_LOG_ERROR, "%s = '%s' in [plugin.%s]: use yes or no", key, v ? v : "",
              host->instance);
    return MCPH_ERR_INVALID;
}

static int spec_limits(struct exec *ex)
{
    const struct mcph_host *host = ex->host;
    int64_t timeout, output, arg;

    if (spec_number(host, "timeout_ms", 1, EXEC_TIMEOUT_MAX_MS, &timeout) != MCPH_OK ||
        spec_number(host, "max_output", 1, EXEC_OUTPUT_MAX, &output) != MCPH_OK ||
        spec_number(host, "max_arg", 1, EXEC_ARG_MAX, &arg) != MCPH_OK ||
        spec_bool(host, "guard", &ex->guard) != MCPH_OK)
        return MCPH_ERR_INVALID;
    ex->timeout_ms = timeout;
    ex->max_output = (size_t)output;
    ex->max_arg = (size_t)arg;
    return MCPH_OK;
}

static int spec_cwd(struct exec *ex)
{
    const struct mcph_host *host = ex->host;
    struct stat st;

    ex->cwd = host->config_path(host, "cwd");
    if (ex->cwd == NULL) {
        host->log(host, MCPH_LOG_ERROR, "cwd in [plugin.%s]: no folder (the key has no value)",
                  host->instance);
        return MCPH_ERR_INVALID;
    }
    ex->cwd_fd = open(ex->cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int found = ex->cwd_fd >= 0 && fstat(ex->cwd_fd, &st) == 0;

    if (!found || !S_ISDIR(st.st_mode)) {
        host->log(host, MCPH_LOG_ERROR,
                  "cwd = %s in [plugin.%s]: %s; create the folder or point cwd at one "
                  "(a relative path is relative to the INI file's folder)",
                  ex->cwd, host->instance, found ? "not a folder" : strerror(errno));
        return MCPH_ERR_INVALID;
    }
    ex->openat2 = exec_path_supported(ex);
    return MCPH_OK;
}

/* The child's environment: mcph-env.h's rules, with PATH=/usr/bin:/bin. */
static int spec_env(struct exec *ex)
{
    return mcph_env_read(ex->host, "/usr/bin:/bin", "commands run", &ex->envp);
}

/* --- The commands grammar. --- */

/* Reads the word at *pp into out (mcph-env.h's words); err says why not. */
static int spec_word(const char **pp, char *out, int *quoted, char *err, size_t errlen)
{
    if (mcph_word_next(pp, out, quoted) == MCPH_OK)
        return MCPH_OK;
    snprintf(err, errlen, "a %c quote is not closed", **pp);
    return MCPH_ERR_INVALID;
}

/* The kinds a placeholder may take after ':'. */
static const struct spec_kind {
    const char *name;
    enum exec_kind kind;
} spec_kinds[] = {
    {.name = "file", .kind = EXEC_KIND_FILE},
    {.name = "dir", .kind = EXEC_KIND_DIR},
    {.name = "path", .kind = EXEC_KIND_PATH},
    {0},
};

/* Whether s[0..n) names a kind; sets *kind. */
static int spec_kind(const char *s, size_t n, enum exec_kind *kind)
{
    for (const struct spec_kind *k = spec_kinds; k->name != NULL; k++) {
        if (strlen(k->name) == n && memcmp(k->name, s, n) == 0) {
            *kind = k->kind;
            return 1;
        }
    }
    return 0;
}

/* Whether an unquoted word is {name}, {name?}, {name:KIND} or {name?:KIND}; sets the parts. */
static int spec_placeholder(const char *w, size_t *name_len, int *optional, enum exec_kind *kind)
{
    size_t n = strlen(w);
    const char *end = w + n - 1, *colon;

    if (n < 3 || w[0] != '{' || *end != '}')
        return 0;
    colon = memchr(w, ':', n);
    *kind = EXEC_KIND_TEXT;
    if (colon != NULL) {
        if (!spec_kind(colon + 1, (size_t)(end - colon - 1), kind))
            return 0;
        end = colon;
    }
    *optional = end[-1] == '?';
    *name_len = (size_t)(end - w - 1) - (size_t)*optional;
    /* A name is an identifier, as an environment variable's is. */
    if (*name_len == 0 || *name_len > EXEC_PARAM_NAME_MAX || !mcph_env_name_ok(w + 1, *name_len))
        return 0;
    return 1;
}

/* The word of the same placeholder seen earlier in cmd, or NULL. */
static struct exec_word *spec_find_param(struct exec_cmd *cmd, const char *name)
{
    for (size_t i = 0; i < cmd->nwords; i++) {
        if (cmd->words[i].param && strcmp(cmd->words[i].text, name) == 0)
            return &cmd->words[i];
    }
    return NULL;
}

/* Turns a word into the template's next word. */
static int spec_add_word(struct exec_cmd *cmd, const char *w, int quoted, int *dashdash, char *err,
                         size_t errlen)
{
    struct exec_word *word = &cmd->words[cmd->nwords];
    size_t name_len = 0;
    int optional = 0, to_stdin = !quoted && w[0] == '<' && w[1] == '{';
    const char *ph = w + to_stdin; /* the placeholder, after a '<' */
    enum exec_kind kind = EXEC_KIND_TEXT;

    if (cmd->nwords == EXEC_WORDS_MAX) {
        snprintf(err, errlen, "more than %d words", EXEC_WORDS_MAX);
        return MCPH_ERR_INVALID;
    }
    if (quoted || (strchr(w, '{') == NULL && strchr(w, '}') == NULL)) {
        word->text = strdup(w);
        *dashdash = *dashdash || (cmd->nwords > 0 && strcmp(w, "--") == 0);
    } else if (spec_placeholder(ph, &name_len, &optional, &kind)) {
        word->text = spec_strndup(ph + 1, name_len);
        word->param = 1;
        word->optional = optional;
        word->dash_ok = *dashdash || to_stdin; /* stdin: the value never reaches argv */
        word->kind = kind;
        word->to_stdin = to_stdin;
    } else {
        snprintf(err, errlen,
                 "'%s' is not a placeholder ({name}, {name?}, or with a type {name:file}, "
                 "{name:dir}, {name:path}, {name?:file}, or <{name:file} for stdin; a whole "
                 "word; a name is letters, digits and _); quote it ('...') to pass braces "
                 "literally",
                 w);
        return MCPH_ERR_INVALID;
    }
    if (word->text == NULL)
        return MCPH_ERR_NOMEM;
    cmd->nwords++;
    return MCPH_OK;
}

/* Checks the path placeholder words: each is a descriptor handed to the command, and stdin
 * is one file. */
static int spec_check_paths(const struct exec_cmd *cmd, char *err, size_t errlen)
{
    size_t paths = 0, stdins = 0;

    for (size_t i = 1; i < cmd->nwords; i++) {
        const struct exec_word *w = &cmd->words[i];

        if (w->to_stdin && w->kind != EXEC_KIND_FILE) {
            snprintf(err, errlen, "<{%s%s%s%s} must name a file: write <{%s%s:file}", w->text,
                     w->optional ? "?" : "", w->kind != EXEC_KIND_TEXT ? ":" : "",
                     exec_kind_name(w->kind), w->text, w->optional ? "?" : "");
            return MCPH_ERR_INVALID;
        }
        stdins += (size_t)w->to_stdin;
        paths += (size_t)(w->param && w->kind != EXEC_KIND_TEXT && !w->to_stdin);
    }
    if (stdins > 1) {
        snprintf(err, errlen, "more than one <{name:file} word: a command has one stdin");
        return MCPH_ERR_INVALID;
    }
    if (paths > EXEC_PATHS_MAX) {
        snprintf(err, errlen,
                 "more than %d path placeholder words ({name:file}, {name:dir}, {name:path}): "
                 "each is a descriptor handed to the command",
                 EXEC_PATHS_MAX);
        return MCPH_ERR_INVALID;
    }
    return MCPH_OK;
}

/* Checks what the words make together: an absolute executable, consistent placeholders. */
static int spec_check_words(struct exec_cmd *cmd, char *err, size_t errlen)
{
    if (cmd->nwords == 0) {
        snprintf(err, errlen, "no executable after ':'");
        return MCPH_ERR_INVALID;
    }
    if (cmd->words[0].param) {
        snprintf(err, errlen, "the first word must be the executable's absolute path, not {%s}",
                 cmd->words[0].text);
        return MCPH_ERR_INVALID;
    }
    if (cmd->words[0].text[0] != '/') {
        snprintf(err, errlen,
                 "the executable '%s' is not an absolute path (there is no PATH lookup); write "
                 "it in full, e.g. /usr/bin/%s",
                 cmd->words[0].text, cmd->words[0].text);
        return MCPH_ERR_INVALID;
    }
    for (size_t i = 1; i < cmd->nwords; i++) {
        struct exec_word *w = &cmd->words[i], *first;

        if (!w->param)
            continue;
        first = spec_find_param(cmd, w->text);
        if (first == w && ++cmd->nparams > EXEC_PARAMS_MAX) {
            snprintf(err, errlen, "more than %d placeholders", EXEC_PARAMS_MAX);
            return MCPH_ERR_INVALID;
        }
        if (first->optional != w->optional) {
            snprintf(err, errlen, "{%s} is written both optional ({%s?}) and required", w->text,
                     w->text);
            return MCPH_ERR_INVALID;
        }
        if (first->kind != w->kind) {
            snprintf(err, errlen, "{%s} is written with two different types", w->text);
            return MCPH_ERR_INVALID;
        }
    }
    return spec_check_paths(cmd, err, errlen);
}

/* Reads the tool name and the optional description; leaves *pp after the ':'. */
static int spec_head(struct exec_cmd *cmd, const char **pp, char *buf, char *err, size_t errlen)
{
    const char *p = spec_skip(*pp);
    size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");

    if (n == 0 || n > EXEC_NAME_MAX) {
        snprintf(err, errlen,
                 "a command starts with its tool name (1-%d of A-Za-z0-9 _ . -), then ':'",
                 EXEC_NAME_MAX);
        return MCPH_ERR_INVALID;
    }
    cmd->name = spec_strndup(p, n);
    if (cmd->name == NULL)
        return MCPH_ERR_NOMEM;
    p = spec_skip(p + n);
    if (*p == '"' || *p == '\'') {
        size_t len = 0;

        if (mcph_word_quoted(&p, buf, &len) != MCPH_OK) {
            snprintf(err, errlen, "a %c quote is not closed", *p);
            return MCPH_ERR_INVALID;
        }
        buf[len] = '\0';
        cmd->description = strdup(buf);
        if (cmd->description == NULL)
            return MCPH_ERR_NOMEM;
        p = spec_skip(p);
    }
    if (*p != ':') {
        snprintf(err, errlen, "expected ':' after the tool name%s",
                 cmd->description ? " and its description" : "");
        return MCPH_ERR_INVALID;
    }
    *pp = p + 1;
    return MCPH_OK;
}

/* Parses one line into cmd (zeroed). err says why when MCPH_ERR_INVALID is returned. */
static int spec_line(struct exec_cmd *cmd, const char *line, char *err, size_t errlen)
{
    char *buf = malloc(strlen(line) + 1);
    const char *p = line;
    int rc, quoted, dashdash = 0;

    cmd->words = calloc(EXEC_WORDS_MAX, sizeof(*cmd->words));
    if (buf == NULL || cmd->words == NULL) {
        free(buf);
        return MCPH_ERR_NOMEM;
    }
    rc = spec_head(cmd, &p, buf, err, errlen);
    for (p = spec_skip(p); rc == MCPH_OK && *p != '\0'; p = spec_skip(p)) {
        rc = spec_word(&p, buf, &quoted, err, errlen);
        if (rc == MCPH_OK)
            rc = spec_add_word(cmd, buf, quoted, &dashdash, err, errlen);
    }
    if (rc == MCPH_OK)
        rc = spec_check_words(cmd, err, errlen);
    free(buf);
    return rc;
}

static void spec_cmd_release(struct exec_cmd *cmd)
{
    for (size_t i = 0; i < cmd->nwords; i++)
        free(cmd->words[i].text);
    free(cmd->words);
    free(cmd->name);
    free(cmd->description);
    free(cmd->display);
    memset(cmd, 0, sizeof(*cmd));
}

/* Appends w to the display string at d (room enough: 3 bytes per byte of w, plus 3). */
static char *spec_display_word(char *d, const struct exec_word *w)
{
    int plain = w->text[0] != '\0' && strpbrk(w->text, " \t'\"{}\\") == NULL;

    if (w->param)
        return d + sprintf(d, "%s{%s%s%s%s}", w->to_stdin ? "<" : "", w->text,
                           w->optional ? "?" : "", w->kind != EXEC_KIND_TEXT ? ":" : "",
                           exec_kind_name(w->kind));
    if (plain)
        return d + sprintf(d, "%s", w->text);
    *d++ = '"';
    for (const char *s = w->text; *s != '\0'; s++) {
        if (*s == '"' || *s == '\\')
            *d++ = '\\';
        *d++ = *s;
    }
    *d++ = '"';
    return d;
}

/* The template written back in the grammar, for the tool's description. */
static int spec_display(struct exec_cmd *cmd)
{
    size_t room = 1;
    char *d;

    for (size_t i = 0; i < cmd->nwords; i++)
        room += 2 * strlen(cmd->words[i].text) + 10;
    cmd->display = malloc(room);
    if (cmd->display == NULL)
        return MCPH_ERR_NOMEM;
    d = cmd->display;
    for (size_t i = 0; i < cmd->nwords; i++) {
        if (i > 0)
            *d++ = ' ';
        d = spec_display_word(d, &cmd->words[i]);
    }
    *d = '\0';
    return MCPH_OK;
}

/* Whether the file at real (a resolved path) and its folder are safe from other users:
 * neither writable by group or others, as mcph requires of a plugin's .so. */
static int spec_unshared(const char *path, const char *real, const struct stat *st, char *why,
                         size_t n)
{
    char folder[PATH_MAX];
    const char *slash = strrchr(real, '/');
    struct stat dst;

    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        int link = strcmp(path, real) != 0;

        snprintf(why, n,
                 "%s%s" SPEC_PATH_SHOWN "%s is writable by group or others, so another user "
                 "could change what runs; run chmod go-w " SPEC_PATH_SHOWN,
                 path, link ? " (really " : "", link ? real : "", link ? ")" : "", real);
        return 0;
    }
    snprintf(folder, sizeof(folder), "%.*s", slash == real ? 1 : (int)(slash - real), real);
    if (stat(folder, &dst) != 0 || (dst.st_mode & (S_IWGRP | S_IWOTH))) {
        snprintf(why, n,
                 "the folder " SPEC_PATH_SHOWN " of %s is writable by group or others, so "
                 "another user could swap the executable; run chmod go-w " SPEC_PATH_SHOWN,
                 folder, path, folder);
        return 0;
    }
    return 1;
}

/* What spec_runnable() found. */
enum spec_exe { SPEC_EXE_OK, SPEC_EXE_MISSING, SPEC_EXE_UNSAFE };

/* Whether the executable can be run and is safe from other users; why says what is wrong
 * otherwise. */
static enum spec_exe spec_runnable(const char *path, char *why, size_t n)
{
    char real[PATH_MAX];
    struct stat st;

    if (realpath(path, real) == NULL || stat(real, &st) != 0)
        snprintf(why, n, "%s: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        snprintf(why, n, "%s is not a regular file", path);
    else if (access(real, X_OK) != 0)
        snprintf(why, n, "%s is not executable by this user (%s)", path, strerror(errno));
    else
        return spec_unshared(path, real, &st, why, n) ? SPEC_EXE_OK : SPEC_EXE_UNSAFE;
    return SPEC_EXE_MISSING;
}

static int spec_duplicate(const struct exec *ex, const char *name)
{
    for (size_t i = 0; i < ex->ncmds; i++) {
        if (strcmp(ex->cmds[i].name, name) == 0)
            return 1;
    }
    return 0;
}

/* Whether cmd has a path placeholder. */
static int spec_has_path(const struct exec_cmd *cmd)
{
    for (size_t i = 0; i < cmd->nwords; i++) {
        if (cmd->words[i].param && cmd->words[i].kind != EXEC_KIND_TEXT)
            return 1;
    }
    return 0;
}

/* Parses one line and, if its executable can run and is safe, keeps the command. */
static int spec_command(struct exec *ex, const char *line, int lineno)
{
    const struct mcph_host *host = ex->host;
    struct exec_cmd cmd = {0};
    char err[SPEC_ERR_LEN];
    int rc = spec_line(&cmd, line, err, sizeof(err));
    enum spec_exe exe;

    if (rc == MCPH_OK && spec_duplicate(ex, cmd.name)) {
        snprintf(err, sizeof(err), "the tool name '%s' is used twice", cmd.name);
        rc = MCPH_ERR_INVALID;
    }
    if (rc == MCPH_ERR_INVALID)
        host->log(host, MCPH_LOG_ERROR, "line %d of commands in [plugin.%s], \"%s\": %s", lineno,
                  host->instance, line, err);
    exe = rc == MCPH_OK ? spec_runnable(cmd.words[0].text, err, sizeof(err)) : SPEC_EXE_OK;
    if (exe == SPEC_EXE_MISSING)
        host->log(host, MCPH_LOG_WARNING,
                  "command '%s' skipped: %s; install it or correct its path in commands of "
                  "[plugin.%s]",
                  cmd.name, err, host->instance);
    else if (exe == SPEC_EXE_UNSAFE)
        host->log(host, MCPH_LOG_ERROR, "command '%s' of [plugin.%s] refused: %s", cmd.name,
                  host->instance, err);
    if (exe == SPEC_EXE_OK && rc == MCPH_OK && !ex->openat2 && spec_has_path(&cmd)) {
        host->log(host, MCPH_LOG_ERROR,
                  "command '%s' of [plugin.%s] skipped: its path placeholders need openat2() "
                  "(Linux 5.6 or later, not blocked by a seccomp filter) and /proc/self/fd, "
                  "which this system lacks",
                  cmd.name, host->instance);
        exe = SPEC_EXE_UNSAFE;
    }
    if (exe != SPEC_EXE_OK) {
        spec_cmd_release(&cmd);
        return MCPH_OK;
    }
    if (rc == MCPH_OK)
        rc = spec_display(&cmd);
    if (rc == MCPH_OK && ex->ncmds == EXEC_COMMANDS_MAX) {
        host->log(host, MCPH_LOG_ERROR, "commands in [plugin.%s]: more than %d commands",
                  host->instance, EXEC_COMMANDS_MAX);
        rc = MCPH_ERR_INVALID;
    }
    if (rc != MCPH_OK) {
        spec_cmd_release(&cmd);
        return rc;
    }
    ex->cmds[ex->ncmds++] = cmd;
    return MCPH_OK;
}

/* Every non-blank line of the commands value is one command. */
static int spec_commands(struct exec *ex)
{
    const char *value = ex->host->config(ex->host, "commands");
    char *copy = strdup(value != NULL ? value : "");
    char *line, *rest;
    int rc = MCPH_OK, lineno = 0;

    ex->cmds = calloc(EXEC_COMMANDS_MAX, sizeof(*ex->cmds));
    if (copy == NULL || ex->cmds == NULL) {
        free(copy);
        return MCPH_ERR_NOMEM;
    }
    for (rest = copy; rc == MCPH_OK && rest != NULL;) {
        line = rest;
        rest = strchr(rest, '\n');
        if (rest != NULL)
            *rest++ = '\0';
        lineno++;
        if (*spec_skip(line) != '\0')
            rc = spec_command(ex, spec_skip(line), lineno);
    }
    free(copy);
    return rc;
}

int exec_spec_read(struct exec *ex)
{
    int rc;

    ex->cwd_fd = -1;
    rc = spec_limits(ex);

    if (rc == MCPH_OK)
        rc = spec_cwd(ex);
    if (rc == MCPH_OK)
        rc = spec_env(ex);
    if (rc == MCPH_OK)
        rc = spec_commands(ex);
    if (rc == MCPH_ERR_NOMEM)
        ex->host->log(ex->host, MCPH_LOG_ERROR, "out of memory reading [plugin.%s]",
                      ex->host->instance);
    return rc;
}

void exec_spec_release(struct exec *ex)
{
    for (size_t i = 0; i < ex->ncmds; i++)
        spec_cmd_release(&ex->cmds[i]);
    free(ex->cmds);
    ex->cmds = NULL;
    ex->ncmds = 0;
    mcph_env_free(ex->envp);
    ex->envp = NULL;
    if (ex->cwd_fd >= 0)
        close(ex->cwd_fd);
    ex->cwd_fd = -1;
}
