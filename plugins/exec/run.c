/*
 * run.c: running one argv for the exec plugin.
 *
 * Never a shell. spawn.c starts the process (stdin /dev/null or a checked file, stdout and
 * stderr to two pipes, the checked descriptors of path placeholders at 3, 4, ..., every
 * other descriptor closed, signal dispositions and mask reset, the environment
 * init() built, cwd, a process group of its own, and death with mcph), directly or under a
 * guard.
 *
 * One loop then waits for output, for the process's exit (a pidfd when the kernel has them)
 * and for the time limit, at most EXEC_POLL_MS at a time so that a cancellation is noticed
 * quickly. To stop the process (time limit, cancellation, too much output) the group gets
 * SIGTERM, then SIGKILL EXEC_KILL_GRACE_MS later. Once the leader has exited, and before it
 * is reaped (so the group's id cannot have been reused), the rest of the group gets SIGKILL:
 * nothing left in its group outlives the call. A process that left the group (setsid) is
 * out of reach, unless guard = yes: the guard does all this for the command (mcph asks it
 * with signals), then kills whatever else the command started. The pipes are then waited
 * for at most EXEC_DRAIN_MS.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec.h"

#define RUN_FIRST_BUFFER 4096

/* One process being run. */
struct run {
    const struct exec *ex;   /* borrowed: the instance */
    struct mcph_call *call;  /* borrowed: the call being served */
    struct exec_result *res; /* borrowed: what is being filled */
    pid_t pid;               /* the leader, also the group's id; or, with guard, the guard */
    int pidfd;               /* readable once it exits; -1 without pidfds */
    int report;              /* with guard: the read end of the guard's report pipe, or -1 */
    int fd[2];               /* read ends of the stdout and stderr pipes; -1 once closed */
    size_t room[2];          /* bytes allocated at res->out[i] */
    int64_t start, deadline, kill_at, next_progress;
    int stopping; /* SIGTERM was sent */
    int killed;   /* SIGKILL was sent */
    int exited;   /* the leader's exit was seen (it is a zombie until reaped) */
    int lost;     /* waitid said ECHILD: someone else reaped the leader */
    int nomem;
    siginfo_t info; /* the leader's exit */
};

int64_t exec_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void exec_result_release(struct exec_result *res)
{
    if (res == NULL)
        return;
    free(res->out[0]);
    free(res->out[1]);
    res->out[0] = res->out[1] = NULL;
}

/* --- Spawning. --- */

static void run_close(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Returns 0 or an errno value. The descriptors of files are closed once the child has its
 * copies (or failed): the handler need not hold them while the command runs. */
static int run_spawn(struct run *r, char *const argv[], struct exec_files *files)
{
    int out[2] = {-1, -1}, err[2] = {-1, -1};
    int rc = 0;

    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
        rc = errno;
    if (rc == 0) {
        struct exec_spawn sp = {.argv = argv,
                                .envp = r->ex->envp,
                                .cwd_fd = r->ex->cwd_fd,
                                .out = out[1],
                                .err = err[1],
                                .in = files->in,
                                .fds = files->fd,
                                .nfds = files->n,
                                .guard = r->ex->guard};

        rc = exec_spawn(&sp, &r->pid, &r->report);
    }
    exec_files_release(files);
    run_close(&out[1]);
    run_close(&err[1]);
    if (rc != 0) {
        run_close(&out[0]);
        run_close(&err[0]);
        return rc;
    }
    r->fd[0] = out[0];
    r->fd[1] = err[0];
    fcntl(r->fd[0], F_SETFL, O_NONBLOCK);
    fcntl(r->fd[1], F_SETFL, O_NONBLOCK);
    /* The process is our unreaped child, so its pid cannot name another process here. */
    r->pidfd = pidfd_open(r->pid, 0);
    return 0;
}

/* --- Output. --- */

/* SIGTERM or SIGKILL to the command's group: directly, or through the guard, which knows
 * when the group's id stops being the command's. */
static void run_signal(const struct run *r, int sig)
{
    if (r->ex->guard)
        kill(r->pid, sig == SIGKILL ? EXEC_GUARD_KILL : EXEC_GUARD_TERM);
    else
        kill(-r->pid, sig);
}

static void run_stop(struct run *r)
{
    if (r->stopping || r->exited)
        return;
    run_signal(r, SIGTERM);
    r->stopping = 1;
    r->kill_at = exec_now_ms() + EXEC_KILL_GRACE_MS;
}

/* Makes room for more of stream i, up to max_output bytes and a NUL. */
static int run_grow(struct run *r, int i)
{
    size_t want = r->room[i] * 2, limit = r->ex->max_output + 1;
    char *p;

    if (r->res->len[i] + 1 < r->room[i] || r->room[i] >= limit)
        return MCPH_OK;
    if (want > limit)
        want = limit;
    p = realloc(r->res->out[i], want);
    if (p == NULL)
        return MCPH_ERR_NOMEM;
    r->res->out[i] = p;
    r->room[i] = want;
    return MCPH_OK;
}

/* Past max_output: keep what fits, stop reading, stop the process. */
static void run_cut(struct run *r, int i)
{
    r->res->cut[i] = 1;
    run_close(&r->fd[i]);
    run_stop(r);
}

static void run_read(struct run *r, int i)
{
    struct exec_result *res = r->res;
    char probe[256];
    ssize_t n;

    if (res->len[i] == r->ex->max_output) {
        n = read(r->fd[i], probe, sizeof(probe));
        if (n > 0) {
            run_cut(r, i);
            return;
        }
    } else if (run_grow(r, i) != MCPH_OK) {
        r->nomem = 1;
        run_close(&r->fd[i]);
        run_stop(r);
        return;
    } else {
        n = read(r->fd[i], res->out[i] + res->len[i], r->room[i] - 1 - res->len[i]);
        if (n > 0) {
            res->len[i] += (size_t)n;
            res->out[i][res->len[i]] = '\0';
        }
    }
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
        run_close(&r->fd[i]);
}

/* Waits up to ms for output or the leader's exit, and reads what came. */
static void run_wait(struct run *r, int ms)
{
    struct pollfd pfd[3];
    int map[3], n = 0;

    for (int i = 0; i < 2; i++) {
        if (r->fd[i] >= 0) {
            pfd[n] = (struct pollfd){.fd = r->fd[i], .events = POLLIN};
            map[n++] = i;
        }
    }
    if (r->pidfd >= 0 && !r->exited) {
        pfd[n] = (struct pollfd){.fd = r->pidfd, .events = POLLIN};
        map[n++] = -1;
    } else if (n == 0 && ms > 5) {
        ms = 5; /* no pidfd: nothing tells of the exit but waitid, so ask often */
    }
    if (poll(pfd, (nfds_t)n, ms) <= 0)
        return;
    for (int k = 0; k < n; k++) {
        if (map[k] >= 0 && (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
            run_read(r, map[k]);
    }
}

/* --- The loop. --- */

/* Whether the leader has exited; it stays a zombie (WNOWAIT) so its group id stays ours. */
static int run_exited(struct run *r)
{
    if (r->exited)
        return 1;
    memset(&r->info, 0, sizeof(r->info));
    if (waitid(P_PID, (id_t)r->pid, &r->info, WEXITED | WNOHANG | WNOWAIT) == 0) {
        r->exited = r->info.si_pid == r->pid;
    } else if (errno == ECHILD) {
        r->exited = 1;
        r->lost = 1;
    }
    return r->exited;
}

static int run_wait_ms(const struct run *r, int64_t now)
{
    int64_t ms = EXEC_POLL_MS;
    int64_t until = r->stopping ? (r->killed ? now + ms : r->kill_at) : r->deadline;

    if (until - now < ms)
        ms = until - now;
    return ms < 0 ? 0 : (int)ms;
}

static void run_progress(struct run *r, int64_t now)
{
    char message[96];
    double elapsed = (double)(now - r->start);

    snprintf(message, sizeof(message), "%zu bytes of output after %.1f s",
             r->res->len[0] + r->res->len[1], elapsed / 1000.0);
    r->ex->host->progress(r->call, elapsed, (double)r->ex->timeout_ms, message);
    r->next_progress = now + EXEC_PROGRESS_MS;
}

static void run_step(struct run *r)
{
    int64_t now = exec_now_ms();

    run_wait(r, run_wait_ms(r, now));
    now = exec_now_ms();
    if (!r->stopping && r->ex->host->cancelled(r->call)) {
        r->res->cancelled = 1;
        run_stop(r);
    }
    if (!r->stopping && now >= r->deadline) {
        r->res->timed_out = 1;
        run_stop(r);
    }
    if (r->stopping && !r->killed && now >= r->kill_at) {
        run_signal(r, SIGKILL);
        r->killed = 1;
    }
    if (!r->stopping && now >= r->next_progress)
        run_progress(r, now);
}

/* The leader (or the guard, which cleared up already) exited: clear the leader's group,
 * reap it, and take the command's status. */
static void run_reap(struct run *r)
{
    int code = r->info.si_code, status = r->info.si_status;

    if (r->lost)
        return;
    if (!r->ex->guard)
        kill(-r->pid, SIGKILL); /* before the reap: the group's id is still ours */
    while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    if (r->ex->guard && !exec_spawn_status(r->report, &code, &status))
        return;
    r->res->status_known = 1;
    if (code == CLD_EXITED)
        r->res->exit_code = status;
    else
        r->res->signal = status;
}

/* The process exited: reap it, read what the pipes still hold. */
static void run_finish(struct run *r)
{
    int64_t drain_until;

    run_reap(r);
    drain_until = exec_now_ms() + EXEC_DRAIN_MS;
    for (int64_t now = exec_now_ms(); (r->fd[0] >= 0 || r->fd[1] >= 0) && now < drain_until;
         now = exec_now_ms())
        run_wait(r, (int)(drain_until - now));
    run_close(&r->fd[0]);
    run_close(&r->fd[1]);
    run_close(&r->pidfd);
    run_close(&r->report);
}

int exec_run(const struct exec *ex, char *const argv[], struct exec_files *files,
             struct mcph_call *call, struct exec_result *res)
{
    struct run r = {.ex = ex, .call = call, .res = res, .pidfd = -1, .report = -1, .fd = {-1, -1}};
    size_t first = ex->max_output < RUN_FIRST_BUFFER ? ex->max_output + 1 : RUN_FIRST_BUFFER;

    for (int i = 0; i < 2; i++) {
        res->out[i] = malloc(first);
        if (res->out[i] == NULL) {
            exec_files_release(files);
            return MCPH_ERR_NOMEM;
        }
        res->out[i][0] = '\0';
        r.room[i] = first;
    }
    r.start = exec_now_ms();
    res->spawn_errno = run_spawn(&r, argv, files);
    if (res->spawn_errno == 0) {
        r.deadline = r.start + ex->timeout_ms;
        r.next_progress = r.start + EXEC_PROGRESS_MS;
        while (!run_exited(&r))
            run_step(&r);
        run_finish(&r);
    }
    res->duration_ms = exec_now_ms() - r.start;
    return r.nomem ? MCPH_ERR_NOMEM : MCPH_OK;
}
