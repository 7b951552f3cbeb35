/*
 * spawn.c: starting a command for the exec plugin, directly or under a guard.
 *
 * fork() and execve(), not posix_spawn(): the child has to ask for PR_SET_PDEATHSIG before
 * it runs the command, so that the command dies with mcph even when mcph is killed with
 * SIGKILL and can stop nothing. The kernel sends that signal when the thread that forked
 * the child ends; that is the handler's thread, which waits for the command, so in effect
 * when mcph dies. The kernel clears it when the command runs a set-user-ID or set-group-ID
 * program, or one with file capabilities. Otherwise the child does what posix_spawn did:
 * stdin from /dev/null, stdout and stderr to the pipes, every other descriptor closed,
 * every signal disposition reset and none blocked, a process group of its own, and cwd
 * through the descriptor the path placeholders were checked against. An execve() failure
 * comes back through a close-on-exec pipe, so it is known before exec_spawn() returns.
 *
 * mcph has other threads, so between fork and execve a child may only make async-signal-
 * safe calls (another thread may have held a lock that the copy keeps held forever): only
 * system calls here, no malloc, no stdio.
 *
 * What PR_SET_PDEATHSIG does not reach: what the command starts. When a command exits, run.c
 * kills the rest of its process group; but a process that left the group (setsid, or a
 * daemon) outlives the call, and if mcph is killed with SIGKILL, everything but the command
 * itself outlives mcph. The guard (guard = yes) closes both gaps without privileges: mcph
 * forks a guard, a small process (a copy of mcph that never runs mcph's code again) that
 * makes itself a child subreaper (PR_SET_CHILD_SUBREAPER: the orphans among its
 * descendants become its children, wherever their session or group), has a PDEATHSIG of its
 * own, and starts the command as above. It forwards mcph's stop requests to the command's
 * group (EXEC_GUARD_TERM, EXEC_GUARD_KILL), and when the command exits, or mcph dies, it
 * kills the command's group and then, round after round until none is left (at most
 * SPAWN_SWEEP_ROUNDS), every child it has: each descendant whose parent died is one, however
 * it left the group. It reports the start and the command's exit status on a pipe, and exits.
 * It needs /proc/thread-self/children (Linux 3.17+ built with CONFIG_PROC_CHILDREN, as
 * distribution kernels are); without it only the group is killed. A process that a
 * descendant put under another subreaper of its own still becomes the guard's when that
 * one dies. The guard is one more process per call.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"

#define SPAWN_SWEEP_ROUNDS 100       /* guard: rounds of killing its children, ... */
#define SPAWN_SWEEP_TICK_NS 10000000 /* ... waiting up to 10 ms between two: 1 s in all */
#define SPAWN_REAP_MAX 1024          /* guard: zombies reaped per wake-up while it watches */
#define SPAWN_CHILDREN_BUF 4096      /* bytes of /proc/thread-self/children read per round */
#define SPAWN_LOW_FD 10              /* the guard moves its descriptors above this first */

/* The guard's descriptors, once it arranged them. */
enum { SPAWN_FD_REPORT = 3, SPAWN_FD_OUT, SPAWN_FD_ERR, SPAWN_FD_CWD, SPAWN_FD_FIRST_FREE };

/* One message from the guard to mcph: a single write of a few bytes, so atomic. */
enum spawn_what { SPAWN_STARTED = 1, SPAWN_FAILED, SPAWN_EXITED };
struct spawn_report {
    int what;   /* enum spawn_what */
    int code;   /* SPAWN_FAILED: the errno value; SPAWN_EXITED: si_code (CLD_EXITED, ...) */
    int status; /* SPAWN_EXITED: si_status (the exit status or the signal) */
};

/* Writes n bytes at p to fd, once; a failure can only mean nobody is reading. */
static void spawn_write(int fd, const void *p, size_t n)
{
    ssize_t done = write(fd, p, n);

    (void)done;
}

/* Moves *fd to 3 or above, so that the dup2() onto 0-2 cannot clobber it. */
static void spawn_lift(int *fd)
{
    if (*fd >= 0 && *fd < 3)
        *fd = fcntl(*fd, F_DUPFD, 3);
}

/* In the child, never returns: becomes the command. Async-signal-safe calls only. */
static void spawn_exec(const struct exec_spawn *sp, int out, int err, int cwd_fd, int errw,
                       pid_t parent)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigset_t none;
    int null, e;

    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        goto fail;
    if (getppid() != parent) /* the parent died before the line above: nobody waits */
        _exit(127);
    for (int sig = 1; sig < NSIG; sig++) /* KILL, STOP and libc's own say EINVAL: fine */
        sigaction(sig, &dfl, NULL);
    spawn_lift(&out);
    spawn_lift(&err);
    spawn_lift(&cwd_fd);
    spawn_lift(&errw);
    if (setpgid(0, 0) != 0 || fchdir(cwd_fd) != 0)
        goto fail;
    null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
        goto fail;
    if (errw > 3)
        close_range(3, (unsigned)errw - 1, 0);
    close_range((unsigned)errw + 1, ~0U, 0);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execve(sp->argv[0], sp->argv, sp->envp);
fail:
    e = errno;
    spawn_write(errw, &e, sizeof(e));
    _exit(127);
}

/* --- The guard. Async-signal-safe calls only. --- */

/* Sends SIGKILL to every child listed in /proc/thread-self/children. Returns how many, or -1
 * when the list cannot be read. Only a number followed by a space counts: a read cut in the
 * middle of one must not kill another process. */
static int spawn_kill_children(void)
{
    char buf[SPAWN_CHILDREN_BUF];
    int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
    ssize_t n;
    long pid = 0;
    int count = 0;

    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof(buf));
    close(fd);
    if (n < 0)
        return -1;
    for (ssize_t i = 0; i < n; i++) {
        if (buf[i] >= '0' && buf[i] <= '9') {
            pid = pid * 10 + (buf[i] - '0');
            continue;
        }
        if (buf[i] == ' ' && pid > 0) {
            kill((pid_t)pid, SIGKILL);
            count++;
        }
        pid = 0;
    }
    return count;
}

/* Kills and reaps every child left, round by round (orphans of killed ones become children
 * in turn), for at most SPAWN_SWEEP_ROUNDS rounds. */
static void spawn_sweep(void)
{
    struct timespec tick = {.tv_sec = 0, .tv_nsec = SPAWN_SWEEP_TICK_NS};
    sigset_t chld;

    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    for (int round = 0; round < SPAWN_SWEEP_ROUNDS; round++) {
        int listed = spawn_kill_children();

        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (listed < 0 || waitpid(-1, NULL, WNOHANG) < 0) /* ECHILD: none left */
            return;
        sigtimedwait(&chld, NULL, &tick);
    }
}

/* Reaps the children that exited, but the command: its pid must stay its group's. */
static void spawn_reap_others(pid_t cmd)
{
    for (int i = 0; i < SPAWN_REAP_MAX; i++) {
        siginfo_t si = {0};

        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0 ||
            si.si_pid == cmd)
            return;
        waitpid(si.si_pid, NULL, WNOHANG);
    }
}

/* Forwards stop requests until the command exits; then clears up and reports its status. */
static void spawn_watch(pid_t cmd)
{
    struct spawn_report rep = {.what = SPAWN_EXITED};
    siginfo_t info;
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, EXEC_GUARD_TERM);
    sigaddset(&set, EXEC_GUARD_KILL);
    sigaddset(&set, SIGTERM); /* the guard's PDEATHSIG: mcph is gone */
    for (;;) {
        int sig = sigwaitinfo(&set, &info);

        if (sig == EXEC_GUARD_TERM)
            kill(-cmd, SIGTERM);
        else if (sig == EXEC_GUARD_KILL || sig == SIGTERM)
            kill(-cmd, SIGKILL);
        info = (siginfo_t){0};
        if (waitid(P_PID, (id_t)cmd, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == cmd)
            break;
        spawn_reap_others(cmd);
    }
    kill(-cmd, SIGKILL); /* before the reap, while the group id cannot be reused */
    waitpid(cmd, NULL, 0);
    rep.code = info.si_code;
    rep.status = info.si_status;
    spawn_write(SPAWN_FD_REPORT, &rep, sizeof(rep));
    spawn_sweep();
}

/* Puts the guard's descriptors at SPAWN_FD_*, /dev/null on 0 and 1 (mcph's protocol), and
 * closes the rest (those of other calls among them). 2 stays mcph's log, where a sanitizer
 * would report. Returns 0 or -1. */
static int spawn_guard_fds(const struct exec_spawn *sp, int report)
{
    int fds[] = {report, sp->out, sp->err, sp->cwd_fd};
    int null;

    for (int i = 0; i < 4; i++) { /* above the targets first: no dup2 clobbers another */
        fds[i] = fcntl(fds[i], F_DUPFD, SPAWN_LOW_FD);
        if (fds[i] < 0)
            return -1;
    }
    for (int i = 0; i < 4; i++) {
        if (dup2(fds[i], SPAWN_FD_REPORT + i) < 0)
            return -1;
    }
    close_range(SPAWN_FD_FIRST_FREE, ~0U, 0);
    null = open("/dev/null", O_RDWR);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
        return -1;
    if (null > 1)
        close(null);
    return 0;
}

/* In the child, never returns: becomes the guard, which starts the command. */
static void spawn_guard(const struct exec_spawn *sp, int report, pid_t parent)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    struct spawn_report rep = {.what = SPAWN_FAILED};
    pid_t self = getpid(), cmd;
    int errp[2];
    ssize_t n;

    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent)
        _exit(1);
    /* Signals stay blocked (from mcph's fork); the guard takes them with sigwaitinfo. */
    if (sigaction(SIGCHLD, &dfl, NULL) != 0 || prctl(PR_SET_CHILD_SUBREAPER, 1) != 0 ||
        spawn_guard_fds(sp, report) != 0 || pipe2(errp, O_CLOEXEC) != 0) {
        rep.code = errno;
        spawn_write(report, &rep, sizeof(rep));
        _exit(1);
    }
    cmd = _Fork(); /* no atfork handlers: they are not async-signal-safe */
    if (cmd == 0)
        spawn_exec(sp, SPAWN_FD_OUT, SPAWN_FD_ERR, SPAWN_FD_CWD, errp[1], self);
    rep.code = errno;
    close(errp[1]);
    close(SPAWN_FD_OUT);
    close(SPAWN_FD_ERR);
    close(SPAWN_FD_CWD);
    if (cmd < 0) {
        spawn_write(SPAWN_FD_REPORT, &rep, sizeof(rep));
        _exit(1);
    }
    n = read(errp[0], &rep.code, sizeof(rep.code));
    close(errp[0]);
    rep.what = n == (ssize_t)sizeof(rep.code) ? SPAWN_FAILED : SPAWN_STARTED;
    spawn_write(SPAWN_FD_REPORT, &rep, sizeof(rep));
    spawn_watch(cmd); /* after a failure too: it reaps the child that _exit()ed */
    _exit(0);
}

/* --- mcph's side. --- */

/* Reads n bytes (one message) from fd; returns the count read, 0 at EOF. */
static ssize_t spawn_read(int fd, void *p, size_t n)
{
    ssize_t got;

    do {
        got = read(fd, p, n);
    } while (got < 0 && errno == EINTR);
    return got;
}

/* Waits for the first word from the new child: whether it started. 0 or an errno value;
 * on failure the child is reaped. */
static int spawn_started(int guard, pid_t pid, int fd)
{
    struct spawn_report rep = {0};
    int err = 0;
    ssize_t got;

    if (guard) {
        got = spawn_read(fd, &rep, sizeof(rep));
        err = got != (ssize_t)sizeof(rep) ? EIO : rep.what == SPAWN_STARTED ? 0 : rep.code;
    } else {
        got = spawn_read(fd, &err, sizeof(err));
        err = got == 0 ? 0 : got == (ssize_t)sizeof(err) ? err : EIO;
    }
    if (err != 0) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    return err;
}

int exec_spawn(const struct exec_spawn *sp, pid_t *pid, int *report)
{
    pid_t parent = getpid(), child;
    sigset_t all, old;
    int p[2], err;

    *report = -1;
    if (pipe2(p, O_CLOEXEC) != 0)
        return errno;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* no handler of mcph's may run in the child */
    child = fork();
    if (child == 0 && sp->guard)
        spawn_guard(sp, p[1], parent);
    else if (child == 0)
        spawn_exec(sp, sp->out, sp->err, sp->cwd_fd, p[1], parent);
    err = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(p[1]);
    if (child < 0) {
        close(p[0]);
        return err;
    }
    err = spawn_started(sp->guard, child, p[0]);
    if (err != 0 || !sp->guard)
        close(p[0]);
    else
        *report = p[0];
    *pid = child;
    return err;
}

int exec_spawn_status(int report, int *code, int *status)
{
    struct spawn_report rep = {0};

    if (spawn_read(report, &rep, sizeof(rep)) != (ssize_t)sizeof(rep) || rep.what != SPAWN_EXITED)
        return 0;
    *code = rep.code;
    *status = rep.status;
    return 1;
}
