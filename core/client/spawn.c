/*
 * spawn.c: starting the process of a spec so that it never outlives mcph, nor does anything
 * it starts. The process mcph knows is a keeper (a fork of mcph, no exec): the server is its child,
 * and it is the subreaper of the server's tree, so what the server starts stays under it even after
 * setsid() and double forks. When the server ends, or mcph does, the keeper kills the tree,
 * then ends as the server did; with max_procs or max_cpu_s it counts the tree's processes and
 * CPU every SPAWN_TICK_NS and ends it past them. No privilege is needed. The server's stderr
 * goes through a pipe: each line reaches mcph's stderr tagged "[section] ", escaped, and cut
 * at SPAWN_LINE_MAX.
 */
#include "client/link.h"

#include "client/confine.h"

#include "mcph-env.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SPAWN_LINE_MAX 4000 /* bytes of one stderr line of a server; the rest is cut */

static void spawn_tail_stop(struct spawn_tail *t);

void mcp_spec_release(struct mcp_spec *spec)
{
    mcph_env_free(spec->argv);
    mcph_env_free(spec->envp);
    free(spec->cwd);
    free(spec->display);
    free(spec->tag);
    free(spec->remote);
    spawn_tail_stop(spec->tail);
    confine_free(spec->confine);
    for (int i = 0; i < spec->npass; i++)
        close(spec->pass[i]);
    memset(spec, 0, sizeof(*spec));
}

char **mcp_list_copy(const char *const *words)
{
    size_t n = 0;
    char **list;

    while (words[n] != NULL)
        n++;
    list = calloc(n + 1, sizeof(*list));
    for (size_t i = 0; list != NULL && i < n; i++) {
        list[i] = strdup(words[i]);
        if (list[i] == NULL) {
            mcph_env_free(list);
            return NULL;
        }
    }
    return list;
}

int mcp_spec_confine(const struct mcph_host *host, struct mcp_spec *spec, const char *read,
                     const char *write, const char *exec, int network)
{
    struct mcph_strbuf why = MCPH_STRBUF_INIT;
    const char *path = NULL;
    int rc;

    for (size_t i = 0; spec->envp[i] != NULL; i++) {
        if (strncmp(spec->envp[i], "PATH=", 5) == 0)
            path = spec->envp[i] + 5;
    }
    confine_free(spec->confine);
    rc = confine_new(&spec->confine, read, write, exec, network, spec->argv[0], path, &why);
    if (rc == MCPH_ERR_INVALID)
        host->log(host, MCPH_LOG_ERROR, "confinement: %s", why.nomem ? "out of memory" : why.buf);
    mcph_sb_reset(&why);
    if (rc == MCPH_OK && confine_gaps(spec->confine, &why) > 0)
        host->log(host, MCPH_LOG_WARNING,
                  "confinement: this kernel does not enforce %s; the rest is applied",
                  why.nomem ? "every rule" : why.buf);
    mcph_sb_release(&why);
    return rc;
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
           a->max_cpu_s == b->max_cpu_s && a->max_files == b->max_files &&
           a->max_procs == b->max_procs && confine_same(a->confine, b->confine) &&
           a->idle_stop_s == b->idle_stop_s && /* the link's thread reads it unlocked */
           a->keep_trying == b->keep_trying && (a->remote == NULL) == (b->remote == NULL) &&
           (a->remote == NULL || strcmp(a->remote, b->remote) == 0) &&
           (a->tag == NULL) == (b->tag == NULL) && (a->tag == NULL || strcmp(a->tag, b->tag) == 0);
}

/* The next word of *pp into a new string: '...' and "..." quote (\" and \\ inside "..."). */

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

/* --- The keeper: the process mcph knows, above the server's tree. ---
 *
 * Between fork and exec, in a process of one thread: only system calls and what needs no
 * lock (no malloc, no stdio). */

#define SPAWN_TREE_MAX 65536     /* processes of one tree the keeper can see at once */
#define SPAWN_TICK_NS 100000000L /* the keeper counts the tree this often (with limits) */

/* The pids in one of /proc's lists of numbers (a children file) appended to tree[*n..max). */
static void spawn_read_pids(const char *path, pid_t *tree, size_t *n, size_t max)
{
    char buf[4096];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t got;
    long v = -1;

    if (fd < 0)
        return;
    while ((got = read(fd, buf, sizeof(buf))) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            if (buf[i] >= '0' && buf[i] <= '9') {
                v = (v < 0 ? 0 : v * 10) + (buf[i] - '0');
            } else if (v >= 0) {
                if (*n < max)
                    tree[(*n)++] = (pid_t)v;
                v = -1;
            }
        }
    }
    if (v >= 0 && *n < max)
        tree[(*n)++] = (pid_t)v;
    close(fd);
}

/* Append the children of pid (of each of its threads) to tree. */
static void spawn_children_of(pid_t pid, pid_t *tree, size_t *n, size_t max)
{
    char path[64], dents[4096];
    int dir;
    long got;

    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0)
        return;
    while ((got = syscall(SYS_getdents64, dir, dents, sizeof(dents))) > 0) {
        for (long off = 0; off < got;) {
            const char *name = dents + off + 19; /* struct linux_dirent64's d_name */
            unsigned short reclen;

            memcpy(&reclen, dents + off + 16, sizeof(reclen));
            if (name[0] >= '0' && name[0] <= '9') {
                char children[96];

                snprintf(children, sizeof(children), "/proc/%d/task/%s/children", (int)pid, name);
                spawn_read_pids(children, tree, n, max);
            }
            off += reclen;
        }
    }
    close(dir);
}

/* Every process under this one (orphans come to it: it is their subreaper). */
static size_t spawn_tree(pid_t *tree, size_t max)
{
    size_t n = 0;

    spawn_children_of(getpid(), tree, &n, max);
    for (size_t i = 0; i < n; i++)
        spawn_children_of(tree[i], tree, &n, max);
    return n;
}

/* Clock ticks of CPU a live process used, with its children it reaped. */
static long long spawn_ticks(pid_t pid)
{
    char path[64], buf[1024];
    int fd;
    ssize_t got;
    long long field[4] = {0};
    const char *p;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    got = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (got <= 0)
        return 0;
    buf[got] = '\0';
    p = strrchr(buf, ')');
    /* After "pid (comm)": state is field 3; utime, stime, cutime, cstime are 14 to 17. */
    for (int f = 2; p != NULL && f <= 17; f++) {
        p = strchr(p + 1, ' ');
        if (p != NULL && f >= 13 && f <= 16)
            field[f - 13] = strtoll(p + 1, NULL, 10);
    }
    return field[0] + field[1] + field[2] + field[3];
}

/* CPU seconds of the whole tree: the live processes, and the ones reaped (here, or by a
 * live one). */
static long long spawn_tree_cpu(const pid_t *tree, size_t n)
{
    struct rusage ru;
    long long ticks = 0, hz = sysconf(_SC_CLK_TCK);

    for (size_t i = 0; i < n; i++)
        ticks += spawn_ticks(tree[i]);
    getrusage(RUSAGE_CHILDREN, &ru);
    return ticks / (hz > 0 ? hz : 100) + ru.ru_utime.tv_sec + ru.ru_stime.tv_sec;
}

/* Kill every process under this one (the server's group first: the keeper's pid names it),
 * and reap them (at most 5 s: a process in the kernel's uninterruptible sleep is left). */
static void spawn_tree_kill(pid_t *tree)
{
    for (int round = 0; round < 500; round++) {
        struct timespec pause = {0, 10000000L};
        size_t n;

        kill(-getpid(), SIGKILL);
        n = spawn_tree(tree, SPAWN_TREE_MAX);
        for (size_t i = 0; i < n; i++)
            kill(tree[i], SIGKILL);
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
            return;
        nanosleep(&pause, NULL);
    }
}

/* The line a limit of the tree ends it with (mcph's stderr, as mcph's own lines): what is
 * "used N CPU-seconds in all" or "has N processes under it". */
static void spawn_say(const struct mcp_spec *spec, const char *what, long long n, const char *unit,
                      const char *key, int limit)
{
    char line[512];
    int len = snprintf(line, sizeof(line),
                       "mcph: error: %s '%s' %s %lld %s, more than %s = %d; ending them\n",
                       mcp_noun(spec), spec->display, what, n, unit, key, limit);

    if (len > 0 && write(2, line, (size_t)len < sizeof(line) ? (size_t)len : sizeof(line)) < 0)
        return;
}

/* Whether the tree is past a limit of spec; said, and the server signalled, when it is. */
static int spawn_over(const struct mcp_spec *spec, pid_t server, pid_t *tree)
{
    size_t n = spawn_tree(tree, SPAWN_TREE_MAX);
    long long cpu;

    /* The server itself is not one of the processes max_procs counts. */
    if (spec->max_procs > 0 && n > (size_t)spec->max_procs + 1) {
        spawn_say(spec, "has", (long long)n - 1, "processes under it", "max_procs",
                  spec->max_procs);
        kill(server, SIGKILL);
        return 1;
    }
    cpu = spec->max_cpu_s > 0 ? spawn_tree_cpu(tree, n) : 0;
    if (spec->max_cpu_s > 0 && cpu > spec->max_cpu_s) {
        spawn_say(spec, "and its processes used", cpu, "CPU-seconds in all", "max_cpu_s",
                  spec->max_cpu_s);
        kill(server, SIGXCPU);
        return 1;
    }
    return 0;
}

/* End as the server ended: its exit status, or its signal. */
static void spawn_mirror(int st)
{
    if (WIFSIGNALED(st)) {
        sigset_t one;

        signal(WTERMSIG(st), SIG_DFL);
        sigemptyset(&one);
        sigaddset(&one, WTERMSIG(st));
        sigprocmask(SIG_UNBLOCK, &one, NULL);
        prctl(PR_SET_DUMPABLE, 0);
        kill(getpid(), WTERMSIG(st));
    }
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 125);
}

/* The keeper's life: the server is its child and in the process group mcph signals, which
 * the keeper left; whatever the server starts comes back to it when orphaned (setsid() or
 * not). When the server ends, or mcph does (PR_SET_PDEATHSIG), or the tree goes past
 * max_procs or max_cpu_s, it kills the tree, then ends as the server did. Never returns. */
static void spawn_keep(const struct mcp_spec *spec, pid_t server, pid_t parent, sigset_t *wait)
{
    pid_t *tree = mmap(NULL, SPAWN_TREE_MAX * sizeof(*tree), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct timespec tick = {0, SPAWN_TICK_NS};
    int limits = spec->max_cpu_s > 0 || spec->max_procs > 0, st = SIGKILL, over = 0;
    int ticks_over = 0; /* since the server was told: a second on, SIGKILL (SIGXCPU ignored) */

    if (tree == MAP_FAILED)
        _exit(125);
    prctl(PR_SET_PDEATHSIG, SIGUSR1);
    for (;;) {
        int sig = getppid() != parent ? SIGUSR1 : sigtimedwait(wait, NULL, limits ? &tick : NULL);
        pid_t r;

        if (sig == SIGUSR1) /* mcph is gone */
            break;
        while ((r = waitpid(-1, &st, WNOHANG)) > 0 && r != server)
            ;
        if (r == server)
            break;
        if (limits && !over)
            over = spawn_over(spec, server, tree);
        else if (over && ++ticks_over == 1000000000L / SPAWN_TICK_NS)
            kill(server, SIGKILL);
    }
    spawn_tree_kill(tree);
    spawn_mirror(st);
}

/* Fork the server under a keeper (this process, which never returns from here); returns
 * in the server's process, or when the keeper cannot be set up (the server is then this
 * process, as before). Between fork and exec. */
static void spawn_keeper(const struct mcp_spec *spec, pid_t parent, pid_t home)
{
    sigset_t wait, old;
    pid_t server;

    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        return;
    sigemptyset(&wait);
    sigaddset(&wait, SIGCHLD);
    sigaddset(&wait, SIGUSR1);
    sigaddset(&wait, SIGTERM);
    sigaddset(&wait, SIGINT);
    sigaddset(&wait, SIGHUP);
    sigaddset(&wait, SIGQUIT);
    sigprocmask(SIG_BLOCK, &wait, &old);
    server = (pid_t)syscall(SYS_clone, (unsigned long)SIGCHLD, 0UL, 0UL, 0UL, 0UL);
    if (server == 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        prctl(PR_SET_CHILD_SUBREAPER, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        return;
    }
    if (server < 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        prctl(PR_SET_CHILD_SUBREAPER, 0);
        return;
    }
    /* Out of the group mcph signals (the server stays in it): mcph's SIGKILL of the group
     * must leave the keeper to clean up what left the group. */
    setpgid(0, home);
    close_range(0, 1, 0);
    close_range(3, ~0U, 0);
    spawn_keep(spec, server, parent, &wait);
}

int mcp_keeper_support(void)
{
    /* vfork: the probe makes one system call and exits, so it borrows this process's memory
     * instead of copying its page tables (a fork of a process with its plugins loaded costs
     * milliseconds, on the path of every start). */
    pid_t pid = vfork();
    int st = 0;

    if (pid == 0)
        _exit(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0 ? 0 : errno > 0 && errno < 126 ? errno : 125);
    if (pid < 0)
        return errno;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : EINVAL;
}

static void spawn_child(const struct mcp_spec *spec, int in, int out, int err, int errout,
                        pid_t parent)
{
    sigset_t none;
    pid_t home = getpgid(0);
    int e;

    /* Dies with the thread that started it (the link's), and so with mcph, even by SIGKILL. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(127);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    setpgid(0, 0);
    spawn_keeper(spec, parent, home);
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || (errout >= 0 && dup2(errout, 2) < 0))
        goto fail;
    if (spawn_pass(spec) != 0 || spawn_limits(spec) != 0)
        goto fail;
    /* The relay reads its settings from their start each time it starts. */
    if (spec->remote != NULL && lseek(3, 0, SEEK_SET) != 0)
        goto fail;
    /* Whatever mcph holds without close-on-exec (from its own parent, or a plugin's library)
     * is not the process's: closed at exec (not now: err reports a failed exec). */
    if (close_range(3 + (unsigned)spec->npass, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
        goto fail;
    if (chdir(spec->cwd) != 0)
        goto fail;
    if (spec->confine != NULL && (e = confine_apply(spec->confine)) != 0) {
        e = -e; /* the parent says it could not confine it */
        goto said;
    }
    execve(spec->argv[0], spec->argv, spec->envp);
fail:
    e = errno;
said:
    while (write(err, &e, sizeof(e)) < 0 && errno == EINTR)
        ;
    _exit(127);
}

/* --- The server's stderr. --- */

struct spawn_tail {
    pthread_t thread;
    int fd;
    atomic_int stop; /* set by spawn_tail_stop: leave even if a writer is left */
    char tag[64];
};

/* Append s[0..n) escaped to out (room for 4 bytes a byte): control characters as \n, \r, \t,
 * \xNN, the C1 ones as \u00NN, as mcph's own log lines do. Returns the new length. */
static size_t spawn_escape(char *out, size_t len, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];

        if (c == '\n' || c == '\r' || c == '\t') {
            out[len++] = '\\';
            out[len++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        } else if (c < 0x20 || c == 0x7f) {
            len += (size_t)sprintf(out + len, "\\x%02x", c);
        } else if (c == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f) {
            len += (size_t)sprintf(out + len, "\\u%04x", s[++i]);
        } else {
            out[len++] = (char)c;
        }
    }
    return len;
}

/* One line to mcph's stderr in one write: "[tag] line", "..." when cut. */
static void spawn_emit(const struct spawn_tail *t, const char *line, size_t n, int cut)
{
    char out[sizeof(t->tag) + 4 + 6 * SPAWN_LINE_MAX + 8];
    size_t len = (size_t)snprintf(out, sizeof(out), "[%s] ", t->tag);
    size_t done = 0;

    len = spawn_escape(out, len, (const unsigned char *)line, n);
    if (cut) {
        memcpy(out + len, "...", 3);
        len += 3;
    }
    out[len++] = '\n';
    while (done < len) {
        ssize_t w = write(2, out + done, len - done);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        done += (size_t)w;
    }
}

/* Reads the server's stderr (and its children's) until every writer is gone; memory is one
 * line, whatever the server writes. */
static void *spawn_tail_run(void *arg)
{
    struct spawn_tail *t = arg;
    char in[4096], line[SPAWN_LINE_MAX];
    size_t len = 0;
    int skipping = 0;

    while (!atomic_load(&t->stop)) {
        struct pollfd pfd = {.fd = t->fd, .events = POLLIN};
        ssize_t n;

        if (poll(&pfd, 1, 100) == 0)
            continue;
        n = read(t->fd, in, sizeof(in));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++) {
            if (in[i] == '\n') {
                if (!skipping)
                    spawn_emit(t, line, len, 0);
                len = 0;
                skipping = 0;
            } else if (skipping) {
                continue;
            } else if (len == sizeof(line)) {
                spawn_emit(t, line, len, 1);
                skipping = 1;
            } else {
                line[len++] = in[i];
            }
        }
    }
    if (len > 0 && !skipping)
        spawn_emit(t, line, len, 0);
    return NULL;
}

/* Join the reader of a process's stderr (it ends at the end of the process's tree, which
 * the keeper kills; at the latest 100 ms after this asks it to) and free it. */
static void spawn_tail_stop(struct spawn_tail *t)
{
    if (t == NULL)
        return;
    atomic_store(&t->stop, 1);
    pthread_join(t->thread, NULL);
    close(t->fd);
    free(t);
}

/* A pipe for the server's stderr and the thread that reads it (spec->tail, after the one of
 * the process before is joined); *w is its write end, or -1 when spec has no tag (an isolated
 * plugin's process logs as mcph[ID] itself) or it could not be made (the server then writes
 * to mcph's stderr as it is). */
static void spawn_tail_start(struct mcp_spec *spec, int *w)
{
    struct spawn_tail *t;
    pthread_attr_t attr;
    int p[2];

    *w = -1;
    spawn_tail_stop(spec->tail);
    spec->tail = NULL;
    if (spec->tag == NULL || (t = calloc(1, sizeof(*t))) == NULL)
        return;
    snprintf(t->tag, sizeof(t->tag), "%s", spec->tag);
    if (pipe2(p, O_CLOEXEC) != 0) {
        free(t);
        return;
    }
    t->fd = p[0];
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    if (pthread_create(&t->thread, &attr, spawn_tail_run, t) != 0) {
        close(p[0]);
        close(p[1]);
        free(t);
    } else {
        spec->tail = t;
        *w = p[1];
    }
    pthread_attr_destroy(&attr);
}

int mcp_spawn(struct mcp_spec *spec, pid_t *pid, int *to, int *from, struct mcph_strbuf *why)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
    pid_t parent = getpid();
    int e = 0, errout = -1;
    ssize_t n;

    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        mcph_sb_addf(why, "pipe: %s", strerror(errno));
        goto fail;
    }
    /* Closed in this process once the child has it: the reader then ends at the child's
     * end (and its children's). */
    spawn_tail_start(spec, &errout);
    *pid = fork();
    if (*pid < 0) {
        mcph_sb_addf(why, "fork: %s", strerror(errno));
        goto fail;
    }
    if (*pid == 0)
        spawn_child(spec, in[0], out[1], err[1], errout, parent);
    if (errout >= 0)
        close(errout);
    errout = -1;
    close(in[0]);
    close(out[1]);
    close(err[1]);
    in[0] = out[1] = err[1] = -1;
    do
        n = read(err[0], &e, sizeof(e));
    while (n < 0 && errno == EINTR);
    close(err[0]);
    if (n == (ssize_t)sizeof(e)) {
        if (e < 0) {
            struct mcph_strbuf what = MCPH_STRBUF_INIT;

            mcph_sb_addf(why, "could not confine the process of %s: %s", spec->argv[0],
                         strerror(-e));
            if (confine_changed(spec->confine, &what) && !what.nomem)
                mcph_sb_addf(why, "; %s; reload (SIGHUP) to read the section again", what.buf);
            mcph_sb_release(&what);
        } else
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
    if (errout >= 0)
        close(errout);
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
