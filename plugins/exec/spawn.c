/*
 * spawn.c: starting a command for the exec plugin, directly or under a guard.
 *
 * fork() and execve(), not posix_spawn(): the child has to ask for PR_SET_PDEATHSIG before
 * it runs the command, so that the command dies with mcph even when mcph is killed with
 * SIGKILL and can stop nothing. The kernel sends that signal when the thread that forked
 * the child ends; that is the handler's thread, which waits for the command, so in effect
 * when mcph dies. The kernel clears it when the command runs a set-user-ID or set-group-ID
 * program, or one with file capabilities. Otherwise the child does what posix_spawn did:
 * stdin from /dev/null (or the checked file of a <{name:file}), stdout and stderr to the
 * pipes, the checked descriptors of path placeholders at 3, 4, ... (their argv names them
 * so: see path.c), every other descriptor closed,
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

/* The guard's descriptors, once it arranged them: the command's path descriptors follow
 * from SPAWN_FD_FILES. */
enum { SPAWN_FD_REPORT = 3, SPAWN_FD_OUT, SPAWN_FD_ERR, SPAWN_FD_CWD, SPAWN_FD_IN, SPAWN_FD_FILES };
#define SPAWN_GUARD_FDS (SPAWN_FD_FILES - SPAWN_FD_REPORT + EXEC_PATHS_MAX)
#define SPAWN_LOW_FD (SPAWN_FD_FILES + EXEC_PATHS_MAX) /* the guard lifts them here first */

/* Where the descriptors a command needs are, in the process that forks it. */
struct spawn_fds {
    int out, err, cwd; /* its stdout and stderr, and the folder it starts in */
    int errw;          /* close-on-exec: an execve failure is written there */
    int in;            /* its stdin, or -1 for /dev/null */
    const int *files;  /* given to it as 3, 4, ...; nfiles <= EXEC_PATHS_MAX */
    size_t nfiles;
};

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

/* In the child: puts stdin, stdout and stderr on 0-2 and f->files on 3, 4, ..., and closes
 * every other descriptor but errw, which must be at 3 + nfiles or above. Everything is
 * first copied above errw's floor, so that no dup2() below clobbers a descriptor still to
 * be placed. Returns 0, or -1 and errno. Async-signal-safe calls only. */
static int spawn_arrange(const struct spawn_fds *f, int errw)
{
    int base = 3 + (int)f->nfiles;
    int out = fcntl(f->out, F_DUPFD, base), err = fcntl(f->err, F_DUPFD, base);
    int in = f->in >= 0 ? fcntl(f->in, F_DUPFD, base) : open("/dev/null", O_RDONLY);
    int files[EXEC_PATHS_MAX];

    for (size_t i = 0; i < f->nfiles; i++) {
        files[i] = fcntl(f->files[i], F_DUPFD, base);
        if (files[i] < 0)
            return -1;
    }
    if (out < 0 || err < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
        return -1;
    for (size_t i = 0; i < f->nfiles; i++) { /* dup2 clears close-on-exec: they stay */
        if (dup2(files[i], 3 + (int)i) < 0)
            return -1;
    }
    if (errw > base)
        close_range((unsigned)base, (unsigned)errw - 1, 0);
    close_range((unsigned)errw + 1, ~0U, 0);
    return 0;
}

/* In the child, never returns: becomes the command. Async-signal-safe calls only. */
static void spawn_exec(const struct exec_spawn *sp, const struct spawn_fds *f, pid_t parent)
{
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    int errw = f->errw, lifted, e;
    sigset_t none;

    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0)
        goto fail;
    if (getppid() != parent) /* the parent died before the line above: nobody waits */
        _exit(127);
    for (int sig = 1; sig < NSIG; sig++) /* KILL, STOP and libc's own say EINVAL: fine */
        sigaction(sig, &dfl, NULL);
    errno = EMFILE;
    lifted = f->nfiles <= EXEC_PATHS_MAX ? fcntl(errw, F_DUPFD_CLOEXEC, 3 + (int)f->nfiles) : -1;
    if (lifted < 0)
        goto fail;
    errw = lifted;
    if (setpgid(0, 0) != 0 || fchdir(f->cwd) != 0 || spawn_arrange(f, errw) != 0)
        goto fail;
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

/* Puts the guard's descriptors at SPAWN_FD_* (SPAWN_FD_IN stays closed without one; the
 * path descriptors from SPAWN_FD_FILES on), /dev/null on 0 and 1 (mcph's protocol), and
 * closes the rest (those of other calls among them). 2 stays mcph's log, where a sanitizer
 * would report. Returns 0 or -1. */
static int spawn_guard_fds(const struct exec_spawn *sp, int report)
{
    int fds[SPAWN_GUARD_FDS] = {report, sp->out, sp->err, sp->cwd_fd, sp->in};
    int n = SPAWN_FD_FILES - SPAWN_FD_REPORT + (int)sp->nfds, null;

    if (sp->nfds > EXEC_PATHS_MAX) {
        errno = EMFILE;
        return -1;
    }
    for (size_t i = 0; i < sp->nfds; i++)
        fds[SPAWN_FD_FILES - SPAWN_FD_REPORT + i] = sp->fds[i];
    for (int i = 0; i < n; i++) { /* above the targets first: no dup2 clobbers another */
        fds[i] = fds[i] >= 0 ? fcntl(fds[i], F_DUPFD, SPAWN_LOW_FD) : -1;
        if (fds[i] < 0 && i != SPAWN_FD_IN - SPAWN_FD_REPORT)
            return -1;
    }
    for (int i = 0; i < n; i++) {
        if (fds[i] >= 0 && dup2(fds[i], SPAWN_FD_REPORT + i) < 0)
            return -1;
    }
    if (sp->in < 0)
        close(SPAWN_FD_IN); /* whatever of mcph's was there */
    close_range((unsigned)(SPAWN_FD_REPORT + n), ~0U, 0);
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
    int errp[2], files[EXEC_PATHS_MAX];
    struct spawn_fds fds = {.out = SPAWN_FD_OUT,
                            .err = SPAWN_FD_ERR,
                            .cwd = SPAWN_FD_CWD,
                            .in = sp->in >= 0 ? SPAWN_FD_IN : -1,
                            .files = files,
                            .nfiles = sp->nfds};
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
    for (size_t i = 0; i < sp->nfds; i++)
        files[i] = SPAWN_FD_FILES + (int)i;
    fds.errw = errp[1];
    cmd = _Fork(); /* no atfork handlers: they are not async-signal-safe */
    if (cmd == 0)
        spawn_exec(sp, &fds, self);
    rep.code = errno;
    close(errp[1]);
    close(SPAWN_FD_OUT);
    close(SPAWN_FD_ERR);
    close(SPAWN_FD_CWD);
    if (sp->in >= 0)
        close(SPAWN_FD_IN);
    for (size_t i = 0; i < sp->nfds; i++)
        close(files[i]);
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
        spawn_exec(sp,
                   &(struct spawn_fds){.out = sp->out,
                                       .err = sp->err,
                                       .cwd = sp->cwd_fd,
                                       .errw = p[1],
                                       .in = sp->in,
                                       .files = sp->fds,
                                       .nfiles = sp->nfds},
                   parent);
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
