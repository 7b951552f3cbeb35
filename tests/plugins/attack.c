/*
 * attack.c: a plugin that tries, from inside its own process, what a confined section must
 * not be able to do, for tests/confine/ (run it with isolate = process and the confinement
 * keys of mcph.ini(5): read, write, exec, network).
 *
 * - attack {what, arg}: ONE attempt, answered as a normal tool result (never a tool error):
 *   "ok" when it succeeded, else "refused: ENAME (strerror)", the error the process saw; a
 *   refusal is also logged at warning level ("attack: WHAT [ARG] refused: ..."), so that it
 *   reaches mcph's stderr. What it tries, by `what` (arg in brackets):
 *     read [FILE]          open it and read a few bytes
 *     read_fd [FD]         pread the first bytes of an open descriptor of the INI text, or of
 *                          a file whose name has "inherited" (EBADF: FD is another file;
 *                          ENODATA: empty)
 *     write [FILE]         create it or append a line to it
 *     list [FOLDER]        opendir and one readdir
 *     symlink_read [LINK]  read through a symbolic link (refused with EINVAL if it is none)
 *     connect [PORT]       TCP to 127.0.0.1:PORT
 *     unix [PATH]          connect to the UNIX socket PATH (@NAME: the abstract NAME, see
 *                          attack_unix)
 *     exec [PROGRAM ARGS]  fork, then execve PROGRAM with ARGS (words split at spaces; stdin
 *                          and stdout /dev/null); the execve's errno comes back through a
 *                          close-on-exec pipe
 *     getenv [NAME]        whether the variable NAME is in the environment (ENOENT: not)
 *     ptrace [PID]         PTRACE_ATTACH, then (when it worked) wait for the stop and detach
 *     kill [PID]           SIGTERM
 *     raise_nofile []      RLIMIT_NOFILE's hard limit one above the current one (restored)
 *     mount [FOLDER]       a tmpfs on FOLDER (unmounted at once when it worked)
 *     bpf []               BPF_MAP_CREATE of a one-entry array (closed at once)
 *     unshare_user []      unshare(CLONE_NEWUSER) in a forked child (the process has threads)
 * - ok: answers "ok pid N", to show the section keeps serving after the attempts.
 * Thread-safe: handlers share nothing but the host.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugin-api.h"

#define ATTACK_TEXT_MAX 512

/* The errno names a refusal is reported with (the rest as "E" and the number). */
struct attack_errno {
    int code;
    const char *name;
};

static const struct attack_errno attack_errnos[] = {
    {EACCES, "EACCES"},
    {EPERM, "EPERM"},
    {ENOENT, "ENOENT"},
    {EINVAL, "EINVAL"},
    {ENOSYS, "ENOSYS"},
    {EAFNOSUPPORT, "EAFNOSUPPORT"},
    {ECONNREFUSED, "ECONNREFUSED"},
    {EXDEV, "EXDEV"},
    {EROFS, "EROFS"},
    {ESRCH, "ESRCH"},
    {EBADF, "EBADF"},
    {ENOTDIR, "ENOTDIR"},
    {EISDIR, "EISDIR"},
    {ELOOP, "ELOOP"},
    {EMFILE, "EMFILE"},
    {ENOMEM, "ENOMEM"},
    {EAGAIN, "EAGAIN"},
    {ENODATA, "ENODATA"},
    {E2BIG, "E2BIG"},
    {0, NULL},
};

static void attack_errno_name(int code, char *buf, size_t size)
{
    for (size_t i = 0; attack_errnos[i].name != NULL; i++) {
        if (attack_errnos[i].code == code) {
            snprintf(buf, size, "%s", attack_errnos[i].name);
            return;
        }
    }
    snprintf(buf, size, "E%d", code);
}

/* Close without caring: the attempt's result is already known. */
static void attack_close(int fd)
{
    if (fd >= 0)
        (void)close(fd);
}

/* A whole decimal number from 1 to max, else -1. */
static long attack_number(const char *arg, long max)
{
    char *end;

    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno != 0 || end == arg || *end != '\0' || v < 1 || v > max)
        return -1;
    return v;
}

/* Each attempt returns 0 when it succeeded, else the errno the process saw. */

static int attack_read(const char *arg)
{
    char buf[64];
    int fd = open(arg, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return errno;
    ssize_t n = read(fd, buf, sizeof(buf));
    int err = n < 0 ? errno : 0;
    attack_close(fd);
    return err;
}

/* Reading what an open file descriptor holds needs no path, so no file rule can refuse it:
 * only a descriptor that is not there can. */
static int attack_read_fd(const char *arg)
{
    char buf[64];
    long fd = attack_number(arg, 1L << 20);

    if (fd < 0)
        return EINVAL;
    /* The descriptor must still be the INI text (a memfd named mcph.ini), not a file opened
     * since under the same number. */
    char link[64], target[256];
    snprintf(link, sizeof(link), "/proc/self/fd/%ld", fd);
    ssize_t len = readlink(link, target, sizeof(target) - 1);
    if (len < 0)
        return errno;
    target[len] = '\0';
    if (strstr(target, "mcph.ini") == NULL && strstr(target, "inherited") == NULL)
        return EBADF;
    ssize_t n = pread((int)fd, buf, sizeof(buf), 0);
    if (n < 0)
        return errno;
    return n > 0 ? 0 : ENODATA;
}

static int attack_write(const char *arg)
{
    static const char line[] = "written by the attack plugin\n";
    int fd = open(arg, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

    if (fd < 0)
        return errno;
    ssize_t n = write(fd, line, sizeof(line) - 1);
    int err = n < 0 ? errno : 0;
    attack_close(fd);
    return err;
}

static int attack_list(const char *arg)
{
    DIR *dir = opendir(arg);

    if (dir == NULL)
        return errno;
    errno = 0;
    int err = readdir(dir) == NULL ? errno : 0;
    closedir(dir);
    return err;
}

static int attack_symlink_read(const char *arg)
{
    struct stat st;

    if (lstat(arg, &st) != 0)
        return errno;
    if (!S_ISLNK(st.st_mode))
        return EINVAL;
    return attack_read(arg);
}

static int attack_connect_to(int fd, const struct sockaddr *addr, socklen_t len)
{
    int err = connect(fd, addr, len) != 0 ? errno : 0;

    attack_close(fd);
    return err;
}

static int attack_connect(const char *arg)
{
    struct sockaddr_in sin = {.sin_family = AF_INET};
    long port = attack_number(arg, 65535);

    if (port < 0)
        return EINVAL;
    sin.sin_port = htons((uint16_t)port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    return attack_connect_to(fd, (const struct sockaddr *)&sin, sizeof(sin));
}

/* A path, or @NAME: the abstract NAME, as exactly NAME and, when nothing listens there (an
 * abstract name is bytes, NUL bytes too), as NAME padded with NUL bytes to the whole sun_path,
 * which is how Node.js 20 binds one. */
static int attack_unix(const char *arg)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    size_t len = strlen(arg);
    socklen_t size = sizeof(sun);

    if (len >= sizeof(sun.sun_path))
        return EINVAL;
    memcpy(sun.sun_path, arg, len + 1);
    if (arg[0] == '@') {
        sun.sun_path[0] = '\0';
        size = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    int err = attack_connect_to(fd, (const struct sockaddr *)&sun, size);
    if (err != ECONNREFUSED || arg[0] != '@')
        return err;
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno;
    return attack_connect_to(fd, (const struct sockaddr *)&sun, sizeof(sun));
}

/* The error a forked child wrote to fd (a close-on-exec pipe): 0 when it wrote nothing (its
 * execve worked, or it had nothing to report), then the child is reaped. */
static int attack_child_error(int fd, pid_t pid)
{
    int err = 0;
    ssize_t n;

    do {
        n = read(fd, &err, sizeof(err));
    } while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(err))
        err = 0;
    attack_close(fd);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    return err;
}

/* In the child (async-signal-safe calls only: the process has threads): report err through fd
 * and end. */
static void attack_child_report(int fd, int err)
{
    ssize_t n = write(fd, &err, sizeof(err));

    (void)n;
    _exit(127);
}

/* Run in a forked child, whose stdin and stdout (mcph's channel in this process) are /dev/null
 * from then on. Returns 0 or the errno the child (or the fork) saw. */
static int attack_forked(void (*body)(int report, const char *arg), const char *arg)
{
    int p[2];

    if (pipe2(p, O_CLOEXEC) != 0)
        return errno;
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        attack_close(p[0]);
        attack_close(p[1]);
        return err;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
            attack_child_report(p[1], errno);
        body(p[1], arg);
        _exit(0);
    }
    attack_close(p[1]);
    return attack_child_error(p[0], pid);
}

#define ATTACK_ARGV_MAX 8

/* In the forked child: arg is the program and its arguments, split at spaces. */
static void attack_exec_body(int report, const char *arg)
{
    char words[ATTACK_TEXT_MAX], *argv[ATTACK_ARGV_MAX + 1], *envp[] = {NULL}, *save = NULL;
    int n = 0;

    if (strlen(arg) >= sizeof(words))
        attack_child_report(report, E2BIG);
    memcpy(words, arg, strlen(arg) + 1);
    for (char *w = strtok_r(words, " ", &save); w != NULL && n < ATTACK_ARGV_MAX;
         w = strtok_r(NULL, " ", &save))
        argv[n++] = w;
    argv[n] = NULL;
    if (n == 0)
        attack_child_report(report, EINVAL);
    execve(argv[0], argv, envp);
    attack_child_report(report, errno);
}

static int attack_exec(const char *arg)
{
    return attack_forked(attack_exec_body, arg);
}

static int attack_getenv(const char *arg)
{
    return getenv(arg) != NULL ? 0 : ENOENT;
}

static int attack_ptrace(const char *arg)
{
    long pid = attack_number(arg, 1L << 22);

    if (pid < 0)
        return EINVAL;
    if (ptrace(PTRACE_ATTACH, (pid_t)pid, NULL, NULL) != 0)
        return errno;
    /* It worked: let the process go on as it was (the SIGSTOP of the attach is dropped). */
    while (waitpid((pid_t)pid, NULL, __WALL) < 0 && errno == EINTR)
        ;
    (void)ptrace(PTRACE_DETACH, (pid_t)pid, NULL, NULL);
    return 0;
}

static int attack_kill(const char *arg)
{
    long pid = attack_number(arg, 1L << 22);

    if (pid < 0)
        return EINVAL;
    return kill((pid_t)pid, SIGTERM) != 0 ? errno : 0;
}

static int attack_raise_nofile(const char *arg)
{
    struct rlimit was, more;

    (void)arg;
    if (getrlimit(RLIMIT_NOFILE, &was) != 0)
        return errno;
    if (was.rlim_max == RLIM_INFINITY)
        return EINVAL;
    more = was;
    more.rlim_max = was.rlim_max + 1;
    if (setrlimit(RLIMIT_NOFILE, &more) != 0)
        return errno;
    (void)setrlimit(RLIMIT_NOFILE, &was);
    return 0;
}

static int attack_mount(const char *arg)
{
    if (mount("attack", arg, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64k") != 0)
        return errno;
    (void)umount2(arg, MNT_DETACH);
    return 0;
}

static int attack_bpf(const char *arg)
{
    union bpf_attr attr;

    (void)arg;
    memset(&attr, 0, sizeof(attr));
    attr.map_type = BPF_MAP_TYPE_ARRAY;
    attr.key_size = 4;
    attr.value_size = 4;
    attr.max_entries = 1;
    long fd = syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
    if (fd < 0)
        return errno;
    attack_close((int)fd);
    return 0;
}

static void attack_unshare_body(int report, const char *arg)
{
    (void)arg;
    if (unshare(CLONE_NEWUSER) != 0)
        attack_child_report(report, errno);
}

static int attack_unshare_user(const char *arg)
{
    return attack_forked(attack_unshare_body, arg);
}

/* The attempts, by the attack tool's `what`. */
struct attack_kind {
    const char *what;
    int (*fn)(const char *arg);
};

static const struct attack_kind attack_kinds[] = {
    {.what = "read", .fn = attack_read},
    {.what = "read_fd", .fn = attack_read_fd},
    {.what = "write", .fn = attack_write},
    {.what = "list", .fn = attack_list},
    {.what = "symlink_read", .fn = attack_symlink_read},
    {.what = "connect", .fn = attack_connect},
    {.what = "unix", .fn = attack_unix},
    {.what = "exec", .fn = attack_exec},
    {.what = "getenv", .fn = attack_getenv},
    {.what = "ptrace", .fn = attack_ptrace},
    {.what = "kill", .fn = attack_kill},
    {.what = "raise_nofile", .fn = attack_raise_nofile},
    {.what = "mount", .fn = attack_mount},
    {.what = "bpf", .fn = attack_bpf},
    {.what = "unshare_user", .fn = attack_unshare_user},
    {0},
};

/* The answer for an attempt that ended with err (0: it worked); a refusal is logged too. */
static int attack_answer(const struct mcph_host *host, struct mcph_call *call, const char *what,
                         const char *arg, int err)
{
    char name[32], buf[128], text[ATTACK_TEXT_MAX];

    if (err == 0)
        return host->text(call, "ok");
    attack_errno_name(err, name, sizeof(name));
    /* GNU strerror_r (_GNU_SOURCE): the text may be in buf or a static string. */
    const char *why = strerror_r(err, buf, sizeof(buf));
    snprintf(text, sizeof(text), "refused: %s (%s)", name, why);
    host->log(host, MCPH_LOG_WARNING, "attack: %s%s%s %s", what, arg[0] ? " " : "", arg, text);
    return host->text(call, text);
}

static int attack_tool(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *what, *arg = "";

    (void)state;
    if (host->arg_string(call, "what", &what) != MCPH_OK)
        return host->tool_error(call, "what must be a string");
    if (host->arg_string(call, "arg", &arg) == MCPH_ERR_TYPE)
        return host->tool_error(call, "arg must be a string");
    for (size_t i = 0; attack_kinds[i].what != NULL; i++) {
        if (strcmp(attack_kinds[i].what, what) == 0)
            return attack_answer(host, call, what, arg, attack_kinds[i].fn(arg));
    }
    return host->tool_error(call, "no attempt named \"%s\"", what);
}

static int attack_ok(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    char text[64];

    (void)state;
    snprintf(text, sizeof(text), "ok pid %ld", (long)getpid());
    return host->text(call, text);
}

static const struct mcph_tool attack_tools[] = {
    {
        .name = "attack",
        .description = "Makes one attempt (what, with arg) and says \"ok\" or how it was refused.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"what\":{\"type\":\"string\","
                        "\"enum\":[\"read\",\"read_fd\",\"write\",\"list\",\"symlink_read\","
                        "\"connect\",\"unix\",\"exec\",\"getenv\",\"ptrace\",\"kill\","
                        "\"raise_nofile\",\"mount\",\"bpf\",\"unshare_user\"]},"
                        "\"arg\":{\"type\":\"string\"}},"
                        "\"required\":[\"what\"],\"additionalProperties\":false}",
        .call = attack_tool,
    },
    {
        .name = "ok",
        .description = "Answers \"ok pid N\".",
        .input_schema = "{\"type\":\"object\",\"additionalProperties\":false}",
        .call = attack_ok,
    },
    {0},
};

static const struct mcph_plugin attack_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "attack",
    .version = "1.0.0",
    .description = "Test plugin: tries what a confined section must not do (isolate = process)",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = attack_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &attack_plugin;
}
