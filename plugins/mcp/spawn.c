/*
 * spawn.c: the section's command (words, quotes, no shell), the server's environment (the
 * exec plugin's rules: PATH, LANG and HOME, plus the env key's NAME and NAME=VALUE words) and
 * starting the process so that it never outlives mcph.
 */
#include "mcp.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SPAWN_WORDS_MAX 256

static void spawn_free_list(char **list)
{
    if (list == NULL)
        return;
    for (size_t i = 0; list[i] != NULL; i++)
        free(list[i]);
    free(list);
}

void mcp_spec_release(struct mcp_spec *spec)
{
    spawn_free_list(spec->argv);
    spawn_free_list(spec->envp);
    free(spec->cwd);
    free(spec->display);
    for (int i = 0; i < spec->npass; i++)
        close(spec->pass[i]);
    memset(spec, 0, sizeof(*spec));
}

static int spawn_list_same(char **a, char **b)
{
    size_t i = 0;

    for (; a[i] != NULL && b[i] != NULL; i++) {
        if (strcmp(a[i], b[i]) != 0)
            return 0;
    }
    return a[i] == NULL && b[i] == NULL;
}

/* The descriptors passed are not compared: an isolated child's are the config's text and the
 * plugin's image, and a take-over happens only for the same section of an unchanged file. */
int mcp_spec_same(const struct mcp_spec *a, const struct mcp_spec *b)
{
    return spawn_list_same(a->argv, b->argv) && spawn_list_same(a->envp, b->envp) &&
           strcmp(a->cwd, b->cwd) == 0 && a->startup_ms == b->startup_ms &&
           a->call_timeout_ms == b->call_timeout_ms && a->max_memory == b->max_memory &&
           a->max_cpu_s == b->max_cpu_s && a->max_files == b->max_files;
}

/* The next word of *pp into a new string: '...' and "..." quote (\" and \\ inside "..."). */
static int spawn_word(const struct mcph_host *host, const char **pp, char **out)
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

static int spawn_words(const struct mcph_host *host, const char *cmd, char ***out)
{
    char **argv = calloc(SPAWN_WORDS_MAX + 1, sizeof(*argv));
    size_t n = 0;
    int rc = MCPH_OK;

    if (argv == NULL)
        return MCPH_ERR_NOMEM;
    for (const char *p = cmd; rc == MCPH_OK;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            break;
        if (n == SPAWN_WORDS_MAX) {
            host->log(host, MCPH_LOG_ERROR, "command in [plugin.%s]: more than %d words",
                      host->instance, SPAWN_WORDS_MAX);
            rc = MCPH_ERR_INVALID;
            break;
        }
        rc = spawn_word(host, &p, &argv[n]);
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
        spawn_free_list(argv);
        return rc;
    }
    *out = argv;
    return MCPH_OK;
}

/* --- The environment. --- */

static int spawn_env_name_ok(const char *s, size_t n)
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
static int spawn_env_set(const struct mcph_host *host, char **envp, const char *name, size_t n,
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

static int spawn_env_word(const struct mcph_host *host, char **envp, const char *w, size_t n)
{
    const char *eq = memchr(w, '=', n);
    size_t name_len = eq != NULL ? (size_t)(eq - w) : n;
    char name[128];
    const char *inherited;

    if (!spawn_env_name_ok(w, name_len) || name_len >= sizeof(name)) {
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
        int rc = value != NULL ? spawn_env_set(host, envp, name, name_len, value) : MCPH_ERR_NOMEM;

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
    return spawn_env_set(host, envp, name, name_len, inherited);
}

static int spawn_env(const struct mcph_host *host, char ***out)
{
    const char *home = getenv("HOME");
    const char *list = host->config(host, "env");
    char **envp = calloc(MCP_ENV_MAX + 1, sizeof(*envp));
    int rc;

    if (envp == NULL)
        return MCPH_ERR_NOMEM;
    rc = spawn_env_set(host, envp, "PATH", 4, "/usr/local/bin:/usr/bin:/bin");
    if (rc == MCPH_OK)
        rc = spawn_env_set(host, envp, "LANG", 4, "C.UTF-8");
    if (rc == MCPH_OK)
        rc = spawn_env_set(host, envp, "HOME", 4, home != NULL && home[0] == '/' ? home : "/");
    for (const char *p = list != NULL ? list : ""; rc == MCPH_OK && *p != '\0';) {
        size_t n;

        p += strspn(p, " \t\n");
        n = strcspn(p, " \t\n");
        if (n > 0)
            rc = spawn_env_word(host, envp, p, n);
        p += n;
    }
    if (rc != MCPH_OK) {
        spawn_free_list(envp);
        return rc;
    }
    *out = envp;
    return MCPH_OK;
}

/* --- The program. --- */

static int spawn_runnable(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* argv[0] as a path: a bare name is looked up in the server's PATH, a relative path is
 * taken from cwd (which is the INI file's folder unless set). */
static int spawn_program(const struct mcph_host *host, struct mcp_spec *spec)
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
        if (!spawn_runnable(sb.buf))
            mcph_sb_reset(&sb);
        path += n + (path[n] == ':');
    }
    if (sb.nomem) {
        mcph_sb_release(&sb);
        return MCPH_ERR_NOMEM;
    }
    if (sb.len == 0 || !spawn_runnable(sb.buf)) {
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
    /* Absolute: the child changes to it before it runs a program named relative to it. */
    spec->cwd = realpath(cwd != NULL ? cwd : ".", NULL);
    if (spec->cwd == NULL && errno != ENOMEM) {
        host->log(host, MCPH_LOG_ERROR,
                  "cwd in [plugin.%s] is '%s': %s; set it to an existing folder", host->instance,
                  cwd != NULL ? cwd : ".", strerror(errno));
        mcp_spec_release(spec);
        return MCPH_ERR_INVALID;
    }
    if (spec->display == NULL || spec->cwd == NULL) {
        mcp_spec_release(spec);
        return MCPH_ERR_NOMEM;
    }
    rc = spawn_words(host, spec->display, &spec->argv);
    if (rc == MCPH_OK)
        rc = spawn_env(host, &spec->envp);
    if (rc == MCPH_OK)
        rc = spawn_program(host, spec);
    if (rc != MCPH_OK)
        mcp_spec_release(spec);
    return rc;
}

/* --- Starting the process. --- */

/* The descriptors passed become 3, 4, ...: first each is copied above them (one may be 3
 * already), then put in place without close-on-exec. Between fork and exec. */
static int spawn_pass(const struct mcp_spec *spec)
{
    int high[MCP_PASS_MAX];

    for (int i = 0; i < spec->npass; i++) {
        high[i] = fcntl(spec->pass[i], F_DUPFD_CLOEXEC, 3 + MCP_PASS_MAX);
        if (high[i] < 0)
            return -1;
    }
    for (int i = 0; i < spec->npass; i++) {
        if (dup2(high[i], 3 + i) < 0)
            return -1;
    }
    return 0;
}

static int spawn_limit(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit rl = {.rlim_cur = soft, .rlim_max = hard};

    return setrlimit(resource, &rl);
}

/* max_memory, max_cpu_s, max_files. RLIMIT_CPU's soft limit sends SIGXCPU; a process that
 * ignores it is killed at the hard limit, a second later. Between fork and exec. */
static int spawn_limits(const struct mcp_spec *spec)
{
    if (spec->max_memory > 0 &&
        spawn_limit(RLIMIT_AS, (rlim_t)spec->max_memory, (rlim_t)spec->max_memory) != 0)
        return -1;
    if (spec->max_cpu_s > 0 &&
        spawn_limit(RLIMIT_CPU, (rlim_t)spec->max_cpu_s, (rlim_t)spec->max_cpu_s + 1) != 0)
        return -1;
    if (spec->max_files > 0 &&
        spawn_limit(RLIMIT_NOFILE, (rlim_t)spec->max_files, (rlim_t)spec->max_files) != 0)
        return -1;
    return 0;
}

static void spawn_child(const struct mcp_spec *spec, int in, int out, int err, pid_t parent)
{
    sigset_t none;
    int e;

    /* Dies with the thread that started it (the link's), and so with mcph, even by SIGKILL. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(127);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    setpgid(0, 0);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0)
        goto fail;
    if (spawn_pass(spec) != 0 || spawn_limits(spec) != 0)
        goto fail;
    if (chdir(spec->cwd) != 0)
        goto fail;
    execve(spec->argv[0], spec->argv, spec->envp);
fail:
    e = errno;
    while (write(err, &e, sizeof(e)) < 0 && errno == EINTR)
        ;
    _exit(127);
}

int mcp_spawn(const struct mcp_spec *spec, pid_t *pid, int *to, int *from, struct mcph_strbuf *why)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    pid_t parent = getpid();
    int e = 0;
    ssize_t n;

    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        mcph_sb_addf(why, "pipe: %s", strerror(errno));
        goto fail;
    }
    *pid = fork();
    if (*pid < 0) {
        mcph_sb_addf(why, "fork: %s", strerror(errno));
        goto fail;
    }
    if (*pid == 0)
        spawn_child(spec, in[0], out[1], err[1], parent);
    close(in[0]);
    close(out[1]);
    close(err[1]);
    in[0] = out[1] = err[1] = -1;
    do
        n = read(err[0], &e, sizeof(e));
    while (n < 0 && errno == EINTR);
    close(err[0]);
    if (n == (ssize_t)sizeof(e)) {
        mcph_sb_addf(why, "could not run %s in %s: %s", spec->argv[0], spec->cwd, strerror(e));
        while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
            ;
        close(in[1]);
        close(out[0]);
        return MCPH_ERR;
    }
    *to = in[1];
    *from = out[0];
    return MCPH_OK;
fail:
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0)
            close(in[i]);
        if (out[i] >= 0)
            close(out[i]);
        if (err[i] >= 0)
            close(err[i]);
    }
    return MCPH_ERR;
}

void mcp_describe_end(int wstatus, char *buf, size_t n)
{
    if (WIFEXITED(wstatus))
        snprintf(buf, n, "exited with status %d", WEXITSTATUS(wstatus));
    else if (WIFSIGNALED(wstatus))
        snprintf(buf, n, "was killed by SIG%s",
                 sigabbrev_np(WTERMSIG(wstatus)) != NULL ? sigabbrev_np(WTERMSIG(wstatus)) : "?");
    else
        snprintf(buf, n, "ended (wait status %d)", wstatus);
}
