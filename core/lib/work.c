#include "lib/work.h"

#include "lib/crash.h"
#include "lib/limits.h"
#include "lib/status.h"
#include "lib/work_ring.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One thread of the pool. */
struct work_thread {
    struct work *w;
    pthread_t tid;
    struct work_thread *next; /* in work.threads */
    int done;                 /* its function returned: join it */
    int woken;                /* started for a job or a role: counted in work.nwoken */
    atomic_int reading;       /* it waits in src.read (the stop interrupt is for this) */
};

/* The signal that interrupts a reader waiting for input when the pool stops reading: a
 * handler that does nothing, installed without SA_RESTART, so the read returns EINTR. */
static int work_signal(void)
{
    return SIGRTMIN + 1;
}

static void work_on_signal(int sig)
{
    (void)sig;
}

static void work_wake_one(struct work *w);

void work_lane_resize(struct work *w, struct work_lane *lane, size_t max)
{
    int started = w->max_threads > 0;
    size_t room;

    if (!started) {
        lane->max = max;
        return;
    }
    pthread_mutex_lock(&w->lock);
    room = lane->running < work_lane_max(lane) ? work_lane_max(lane) - lane->running : 0;
    lane->max = max;
    /* Room may have opened for queued jobs: a thread for each job that can start now. */
    for (size_t i = room; i < lane->queued && lane->running + i < work_lane_max(lane); i++)
        work_wake_one(w);
    pthread_mutex_unlock(&w->lock);
}

static uint64_t work_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Run a job and note how long it took (the lane's moving average). */
static uint64_t work_run_timed(struct work_job *job)
{
    uint64_t t0 = work_now_ns();

    job->run(job);
    return work_now_ns() - t0;
}

/* --- Threads. --- */

static void *work_main(void *arg);

/* Join the threads that ended. */
static void work_reap(struct work *w)
{
    struct work_thread **p = &w->threads;

    if (w->let_go)
        return;
    while (*p != NULL) {
        struct work_thread *t = *p;

        if (!t->done) {
            p = &t->next;
            continue;
        }
        *p = t->next;
        /* It set done under the lock and only returns after: the join is immediate. */
        pthread_join(t->tid, NULL);
        free(t);
    }
}

/* A thread that idled out lets itself go (w->lock held): nobody waits for it, and one left
 * ended and unjoined would be reported (TSan) should mcph exit without stopping the pool (a
 * second stop signal, the watchdog). */
static void work_let_go(struct work *w, struct work_thread *t)
{
    struct work_thread **p = &w->threads;

    while (*p != NULL && *p != t)
        p = &(*p)->next;
    if (*p != NULL)
        *p = t->next;
    pthread_setspecific(w->self, NULL);
    pthread_detach(t->tid);
    free(t);
}

size_t work_listed(const struct work *w)
{
    size_t n = 0;

    for (const struct work_thread *t = w->threads; t != NULL; t = t->next)
        n++;
    return n;
}

/* Start one more thread, unless there are max_threads already. Returns STATUS_OK,
 * STATUS_LIMIT or STATUS_NOMEM/STATUS_IO. */
static int work_spawn(struct work *w, int woken)
{
    struct work_thread *t;
    int rc;

    work_reap(w);
    if (w->nthreads >= w->max_threads)
        return STATUS_LIMIT;
    t = calloc(1, sizeof(*t));
    if (t == NULL)
        return STATUS_NOMEM;
    t->w = w;
    t->woken = woken;
    atomic_init(&t->reading, 0);
    /* The signal mask is the starting thread's: handlers run with the mask a plugin expects
     * (a child it starts inherits it), and the pool's interrupt is never blocked. */
    rc = pthread_create(&t->tid, NULL, work_main, t);
    if (rc != 0) {
        free(t);
        return STATUS_IO;
    }
    if (w->let_go)
        pthread_detach(t->tid);
    t->next = w->threads;
    w->threads = t;
    w->nthreads++;
    w->nwoken += woken != 0;
    return STATUS_OK;
}

/* Get one more thread going: an idle one not woken yet, or a new one. */
static void work_wake_one(struct work *w)
{
    if (w->nidle > w->nwoken) {
        w->nwoken++;
        pthread_cond_signal(&w->wake);
    } else {
        (void)work_spawn(w, 1);
    }
}

/* Make sure some thread watches: an idle one takes the role, or a new thread does. */
static void work_need_watcher(struct work *w)
{
    if (w->watcher == NULL)
        work_wake_one(w);
}

/* The watcher ticks from now on. */
static void work_arm_locked(struct work *w)
{
    atomic_store(&w->armed, 1);
    pthread_cond_signal(&w->watch);
    work_need_watcher(w);
}

static void work_arm(struct work *w)
{
    pthread_mutex_lock(&w->lock);
    work_arm_locked(w);
    pthread_mutex_unlock(&w->lock);
}

void work_kick(struct work *w)
{
    work_arm(w);
}

/* The job is over, after ns: its lane has room again; then it may free itself. */
static void work_finish(struct work *w, struct work_job *job, uint64_t ns)
{
    struct work_lane *l = job->lane != NULL ? job->lane : &w->own;

    pthread_mutex_lock(&w->lock);
    l->running--;
    w->running--;
    l->avg_ns = l->avg_ns == 0 ? ns : (l->avg_ns * 7 + ns) / 8;
    if (w->queued + w->running + w->flushing == 0)
        pthread_cond_broadcast(&w->idle);
    pthread_mutex_unlock(&w->lock);
    /* Only now may the job let go of what keeps its lane alive. */
    if (job->done != NULL)
        job->done(job);
}

/* Write the replies queued (src.flush), counted as work: a flush a client holds up by not
 * reading keeps the pool from being idle, so shutdown's bounded waits see it. */
static void work_flush(struct work *w)
{
    if (w->src.flush == NULL)
        return;
    pthread_mutex_lock(&w->lock);
    w->flushing++;
    pthread_mutex_unlock(&w->lock);
    w->src.flush(w->src.ctx);
    pthread_mutex_lock(&w->lock);
    w->flushing--;
    if (w->queued + w->running + w->flushing == 0)
        pthread_cond_broadcast(&w->idle);
    pthread_mutex_unlock(&w->lock);
}

/* --- The reader role. --- */

/*
 * Run a job on the reader's thread, where the watcher can see it: the reader state says
 * "inside call N" while it runs. Returns 1 when this thread still holds the role afterwards,
 * 0 when the watcher took it over meanwhile.
 */
static int work_run_inline(struct work *w, struct work_job *job)
{
    uint_fast64_t out = atomic_load(&w->rstate);
    uint_fast64_t in = out + 1;
    uint64_t ns;
    int kept;

    atomic_store(&w->rstate, in);
    if (!atomic_load(&w->armed))
        work_arm(w);
    ns = work_run_timed(job);
    kept = atomic_compare_exchange_strong(&w->rstate, &in, out + 2);
    work_finish(w, job, ns);
    return kept;
}

/* Leave the reader role (w->lock held). */
static void work_leave_reader(struct work *w, struct work_thread *t)
{
    if (w->reader == t)
        w->reader = NULL;
    pthread_cond_broadcast(&w->idle);
}

/* Whether nobody may read any more. w->lock held. */
static int work_input_closed(const struct work *w)
{
    return w->input_done || w->stopping;
}

/* Dispatch what is buffered, run the calls it queued, flush. Returns 0 when the role was
 * lost to the watcher (the thread is a plain one again), else 1. */
static int work_serve_buffered(struct work *w)
{
    struct work_job *job;

    if (w->src.dispatch != NULL)
        w->src.dispatch(w->src.ctx);
    pthread_mutex_lock(&w->lock);
    /* Pipelined calls: a batch worth it gets one helper, so both cores work. Otherwise the
     * reader runs them all at once (a helper would cost more than it saves). */
    if (w->nhelpers + w->nwoken == 0 && work_worth_a_helper(w))
        work_wake_one(w);
    while ((job = work_take(w)) != NULL) {
        pthread_mutex_unlock(&w->lock);
        if (!work_run_inline(w, job)) {
            /* The new reader flushes what came before; this call's answer is this thread's
             * to send. */
            work_flush(w);
            return 0;
        }
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    work_flush(w);
    return 1;
}

/* Leave the role unless input may still be read: at the end of input (eof), or when the
 * pool stops reading. Returns 1 when t left it. */
static int work_read_over(struct work_thread *t, int eof)
{
    struct work *w = t->w;
    int closed, ended = 0;

    pthread_mutex_lock(&w->lock);
    closed = work_input_closed(w);
    if (closed || eof) {
        work_leave_reader(w, t);
        ended = eof && !closed;
        if (ended)
            w->input_done = 1;
    }
    pthread_mutex_unlock(&w->lock);
    if (ended && w->src.ended != NULL)
        w->src.ended(w->src.ctx);
    return closed || eof;
}

/* The reader loop of thread t, which holds the role. Returns (without w->lock) when the role
 * is lost, the input ended, or the pool stops reading. */
static void work_read(struct work_thread *t)
{
    struct work *w = t->w;

    for (;;) {
        int rc;

        if (!work_serve_buffered(w) || work_read_over(t, 0))
            return;
        atomic_store(&t->reading, 1);
        rc = w->src.read(w->src.ctx);
        atomic_store(&t->reading, 0);
        /* Interrupted: stop if that is what it was for. */
        if (rc < 0 && work_read_over(t, 0))
            return;
        /* At the end of input a last line without newline may be buffered: serve it too. */
        if (rc == 0) {
            if (work_serve_buffered(w))
                work_read_over(t, 1);
            return;
        }
    }
}

int work_reading(struct work *w)
{
    struct work_thread *t = pthread_getspecific(w->self);
    int reading;

    if (t == NULL)
        return 0;
    pthread_mutex_lock(&w->lock);
    reading = w->reader == t;
    pthread_mutex_unlock(&w->lock);
    return reading;
}

void work_blocking(struct work *w)
{
    struct work_thread *t = pthread_getspecific(w->self);
    uint_fast64_t s = atomic_load(&w->rstate);

    if (t == NULL || !(s & 1))
        return;
    pthread_mutex_lock(&w->lock);
    /* The CAS tells the thread itself, once its call returns, that the role is gone. */
    if (w->reader == t && atomic_compare_exchange_strong(&w->rstate, &s, s + 1)) {
        w->reader = NULL;
        if (w->watcher != NULL)
            pthread_cond_signal(&w->watch);
        else
            work_wake_one(w);
    }
    pthread_mutex_unlock(&w->lock);
}

/* --- The watcher. --- */

/* Threads for queued jobs nobody started for a tick: every running thread is busy. */
static void work_unstall(struct work *w)
{
    size_t n = work_runnable(w, SIZE_MAX);

    for (size_t i = 0; i < n; i++)
        work_wake_one(w);
}

/* *ts: `us` microseconds from now (CLOCK_MONOTONIC, the clock of every wait here). */
static void work_deadline(struct timespec *ts, long long us)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
    ts->tv_sec += (time_t)(us / 1000000);
    ts->tv_nsec += (long)(us % 1000000) * 1000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* Whether the time is past deadline. */
static int work_passed(const struct timespec *deadline)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > deadline->tv_sec ||
           (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/* Take the reader role from a reader that has been inside one call for a whole tick. Returns
 * 1 when this thread holds the role now. */
static int work_steal(struct work *w, struct work_thread *t, uint_fast64_t seen)
{
    uint_fast64_t v = seen;

    if (!(seen & 1) || w->reader == NULL || w->reader == t || work_input_closed(w))
        return 0;
    return atomic_compare_exchange_strong(&w->rstate, &v, seen + 1);
}

/* What the watcher saw at its last tick, to tell a stuck reader and a stalled queue. */
struct work_seen {
    uint_fast64_t rstate; /* w->rstate */
    uint64_t ns;          /* when rstate last changed */
    unsigned long taken;  /* w->taken */
    unsigned long since;  /* the input source's own mark, for src.stale */
    size_t queued;        /* w->queued */
    int quiet;            /* ticks in a row with nothing to serve */
};

/* Whether the reader role is free while there is input to read. Lock held. */
static int work_vacant(struct work *w)
{
    return w->reader == NULL && !work_input_closed(w) && w->src.read != NULL;
}

/* Start watching afresh (after a wait with nothing to watch). Lock held. */
static void work_seen_reset(struct work *w, struct work_seen *seen)
{
    seen->rstate = atomic_load(&w->rstate);
    seen->ns = work_now_ns();
    seen->taken = w->taken;
    seen->queued = w->queued;
    seen->quiet = 0;
}

/* One tick in which the reader was not taken over: a stalled queue gets a thread, a stale
 * input is flushed, and after quiet ticks the watch is disarmed. Lock held (dropped around
 * src.stale). */
static void work_tick(struct work *w, struct work_seen *seen, uint_fast64_t now)
{
    /* Ticks serve a reader inside a call, queued jobs, and replies a new call may leave
     * behind; a long call on another thread alone does not need them. */
    int busy = now != seen->rstate || (now & 1) || w->taken != seen->taken || w->queued > 0;

    /* Jobs queued a tick ago, none taken since: every running thread is busy. */
    if (seen->queued > 0 && w->queued > 0 && w->taken == seen->taken)
        work_unstall(w);
    seen->queued = w->queued;
    if (now != seen->rstate) {
        seen->rstate = now;
        seen->ns = work_now_ns();
    }
    seen->taken = w->taken;
    if (w->src.stale != NULL) {
        int stale;

        pthread_mutex_unlock(&w->lock);
        stale = w->src.stale(w->src.ctx, &seen->since);
        if (stale)
            work_flush(w);
        pthread_mutex_lock(&w->lock);
    }
    seen->quiet = busy ? 0 : seen->quiet + 1;
    if (seen->quiet >= LIMIT_WORK_QUIET_TICKS) {
        atomic_store(&w->armed, 0);
        /* A call that started while disarming must still be watched. */
        if (atomic_load(&w->rstate) & 1)
            atomic_store(&w->armed, 1);
    }
}

/* Watch while calls run (w->lock held, t is the watcher). Returns, lock held, when the pool
 * stops or t took the reader role and lost or ended it again. */
static void work_watch(struct work_thread *t)
{
    struct work *w = t->w;
    struct work_seen seen = {0};
    struct timespec deadline;

    work_seen_reset(w, &seen);
    while (!w->stopping) {
        uint_fast64_t now;
        int vacant = work_vacant(w);

        if (!vacant && !atomic_load(&w->armed)) {
            pthread_cond_wait(&w->watch, &w->lock);
            work_seen_reset(w, &seen);
            continue;
        }
        if (!vacant) {
            work_deadline(&deadline, LIMIT_WORK_TICK_US);
            pthread_cond_timedwait(&w->watch, &w->lock, &deadline);
            vacant = work_vacant(w);
        }
        now = atomic_load(&w->rstate);
        /* A reader inside the same call as a whole tick ago (or a role left free) is taken
         * over; a wait that ended early (a signal, a spurious wake-up) is not a tick. */
        if (!w->stopping && (vacant || (now == seen.rstate &&
                                        work_now_ns() - seen.ns >= LIMIT_WORK_TICK_US * 1000u &&
                                        work_steal(w, t, now)))) {
            w->reader = t;
            w->watcher = NULL;
            work_need_watcher(w);
            pthread_mutex_unlock(&w->lock);
            work_read(t);
            pthread_mutex_lock(&w->lock);
            return;
        }
        work_tick(w, &seen, now);
    }
}

/* --- The threads' loop. --- */

/* Wait for something to do; returns 0 when the thread should end (idle too long while
 * enough others are around). w->lock held. */
static int work_idle(struct work *w)
{
    struct timespec deadline;
    int rc;

    work_deadline(&deadline, w->idle_ms * 1000LL);
    w->nidle++;
    rc = pthread_cond_timedwait(&w->wake, &w->lock, &deadline);
    w->nidle--;
    if (w->nwoken > 0)
        w->nwoken--;
    return !(rc == ETIMEDOUT && w->nthreads > 2 && w->queued == 0);
}

/* Run jobs while there are any; flush once they are done. w->lock held. */
static void work_help(struct work *w, struct work_job *job)
{
    w->nhelpers++;
    do {
        if (!atomic_load(&w->armed))
            work_arm_locked(w);
        pthread_mutex_unlock(&w->lock);
        work_finish(w, job, work_run_timed(job));
        pthread_mutex_lock(&w->lock);
    } while (!w->stopping && (job = work_take(w)) != NULL);
    w->nhelpers--;
    pthread_mutex_unlock(&w->lock);
    work_flush(w);
    pthread_mutex_lock(&w->lock);
}

static void *work_main(void *arg)
{
    struct work_thread *t = arg;
    struct work *w = t->w;
    struct work_job *job;
    int idled = 0;

    pthread_setspecific(w->self, t);
    /* Plugin code runs here: a stack overflow in it is reported too (crash.h). */
    crash_thread_enter();
    pthread_mutex_lock(&w->lock);
    if (t->woken && w->nwoken > 0)
        w->nwoken--;
    for (;;) {
        if (w->reader == NULL && !work_input_closed(w) && w->src.read != NULL) {
            w->reader = t;
            pthread_mutex_unlock(&w->lock);
            work_read(t);
            pthread_mutex_lock(&w->lock);
        } else if (w->watcher == NULL && !w->stopping) {
            /* Watching comes before helping: the reader's calls are its own to run. */
            w->watcher = t;
            work_watch(t);
            if (w->watcher == t)
                w->watcher = NULL;
        } else if (!w->stopping && (job = work_take(w)) != NULL) {
            work_help(w, job);
        } else if (w->stopping) {
            break;
        } else if (!work_idle(w)) {
            idled = 1;
            break;
        }
    }
    w->nthreads--;
    if (idled && !w->let_go)
        work_let_go(w, t);
    else
        t->done = 1;
    pthread_cond_broadcast(&w->idle);
    pthread_mutex_unlock(&w->lock);
    crash_thread_leave();
    return NULL;
}

/* --- The pool. --- */

int work_start(struct work *w, const struct work_source *src, size_t max_threads)
{
    struct sigaction sa;
    pthread_condattr_t attr;
    pthread_mutexattr_t mattr;
    int status = STATUS_OK;

    memset(w, 0, sizeof(*w));
    w->src = *src;
    w->max_threads = max_threads < 3 ? 3 : max_threads;
    work_lane_init(&w->own, SIZE_MAX);
    atomic_init(&w->rstate, 0);
    atomic_init(&w->armed, 0);
    pthread_mutexattr_init(&mattr);
    pthread_mutexattr_settype(&mattr, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&w->lock, &mattr);
    pthread_mutexattr_destroy(&mattr);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w->wake, &attr);
    pthread_cond_init(&w->watch, &attr);
    pthread_cond_init(&w->idle, &attr);
    pthread_condattr_destroy(&attr);
    w->idle_ms = LIMIT_WORK_IDLE_MS;
    if (pthread_key_create(&w->self, NULL) != 0)
        return STATUS_NOMEM;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = work_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(work_signal(), &sa, NULL);
    pthread_mutex_lock(&w->lock);
    for (int i = 0; i < 2 && status == STATUS_OK; i++)
        status = work_spawn(w, 0);
    pthread_mutex_unlock(&w->lock);
    /* A thread that started may already be reading: it stops before the caller lets go of
     * what it reads. */
    if (status != STATUS_OK && !work_stop(w, LIMIT_SHUTDOWN_CANCEL_MS))
        return STATUS_IO;
    return status;
}

void work_submit(struct work *w, struct work_job *job)
{
    struct work_lane *l = job->lane != NULL ? job->lane : &w->own;
    struct work_thread *self = pthread_getspecific(w->self);

    job->next = NULL;
    pthread_mutex_lock(&w->lock);
    if (l->tail != NULL)
        l->tail->next = job;
    else
        l->head = job;
    l->tail = job;
    l->queued++;
    w->queued++;
    work_ring_add(w, l);
    /* The reader runs what it queued, or hands it on, once the buffered messages are
     * dispatched; from anywhere else a thread is woken for it. */
    if ((self == NULL || self != w->reader) && w->nhelpers + w->nwoken == 0 &&
        work_runnable(w, 1) > 0)
        work_wake_one(w);
    pthread_mutex_unlock(&w->lock);
}

int work_drain(struct work *w, int timeout_ms)
{
    struct timespec deadline;
    int idle;

    work_deadline(&deadline, timeout_ms * 1000LL);
    pthread_mutex_lock(&w->lock);
    while (w->queued + w->running + w->flushing > 0) {
        if (timeout_ms < 0)
            pthread_cond_wait(&w->idle, &w->lock);
        else if (pthread_cond_timedwait(&w->idle, &w->lock, &deadline) == ETIMEDOUT)
            break;
    }
    idle = w->queued + w->running + w->flushing == 0;
    pthread_mutex_unlock(&w->lock);
    return idle;
}

int work_stop_input(struct work *w, int timeout_ms)
{
    struct timespec deadline, tick;
    int left;

    work_deadline(&deadline, timeout_ms * 1000LL);
    pthread_mutex_lock(&w->lock);
    w->input_done = 1;
    /* A reader inside a call leaves after it; one waiting for input is interrupted (again
     * every millisecond, in case the signal came just before it started waiting); one held
     * up writing to a client that does not read may never leave: the wait is bounded. */
    while (w->reader != NULL && !(atomic_load(&w->rstate) & 1)) {
        if (atomic_load(&w->reader->reading))
            pthread_kill(w->reader->tid, work_signal());
        if (work_passed(&deadline))
            break;
        work_deadline(&tick, 1000);
        pthread_cond_timedwait(&w->idle, &w->lock, &tick);
    }
    left = w->reader == NULL || (atomic_load(&w->rstate) & 1);
    pthread_mutex_unlock(&w->lock);
    return left;
}

/* Unlink every queued job. w->lock held. */
static struct work_job *work_unqueue(struct work *w)
{
    struct work_job *all = NULL, **tail = &all;

    while (w->ring != NULL) {
        struct work_lane *l = w->ring;

        *tail = l->head;
        tail = &l->tail->next;
        l->head = l->tail = NULL;
        l->queued = 0;
        work_ring_remove(w, l);
    }
    w->queued = 0;
    return all;
}

int work_stop(struct work *w, int timeout_ms)
{
    struct work_job *dropped;
    struct timespec deadline;
    int stopped = 1;

    work_stop_input(w, timeout_ms < 0 ? 1000 : timeout_ms);
    pthread_mutex_lock(&w->lock);
    w->stopping = 1;
    dropped = work_unqueue(w);
    pthread_cond_broadcast(&w->wake);
    pthread_cond_broadcast(&w->watch);
    pthread_mutex_unlock(&w->lock);
    while (dropped != NULL) {
        struct work_job *next = dropped->next;

        dropped->drop(dropped);
        dropped = next;
    }
    work_deadline(&deadline, timeout_ms * 1000LL);
    pthread_mutex_lock(&w->lock);
    while (w->nthreads > 0 && stopped) {
        if (timeout_ms < 0)
            pthread_cond_wait(&w->idle, &w->lock);
        else if (pthread_cond_timedwait(&w->idle, &w->lock, &deadline) == ETIMEDOUT)
            stopped = w->nthreads == 0;
    }
    if (!stopped) {
        /* A thread is held up (a client that does not read): the pool stays as it is, and
         * the caller exits without it. Its threads are let go: one that ends from now on
         * is nobody's to join. */
        work_reap(w);
        w->let_go = 1;
        for (struct work_thread *t = w->threads; t != NULL; t = t->next)
            pthread_detach(t->tid);
        pthread_mutex_unlock(&w->lock);
        return 0;
    }
    work_reap(w);
    pthread_mutex_unlock(&w->lock);
    pthread_key_delete(w->self);
    pthread_cond_destroy(&w->wake);
    pthread_cond_destroy(&w->watch);
    pthread_cond_destroy(&w->idle);
    pthread_mutex_destroy(&w->lock);
    return 1;
}
