/*
 * work.h: the threads that read requests and run calls, and the hand-off between them.
 *
 * Leader/follower. One thread at a time holds the reader role: it reads the input, has
 * every complete message buffered dispatched, and then runs the calls that dispatch queued
 * itself, one after another, before it flushes the replies and reads again. A sequential
 * client therefore never crosses threads: the thread that read a request runs it and writes
 * its answer, and no other thread wakes.
 *
 * The other threads wait. One of them, the watcher, ticks (every LIMIT_WORK_TICK_US) while
 * calls run, and only then:
 * - a reader that has been inside one call for a whole tick loses the role: the watcher
 *   takes it over and reads on, so ping, lists, cancellations and other calls are answered
 *   while a slow tool runs (the old reader finishes its call and joins the others);
 * - when calls are queued and no call was started for a whole tick (every running thread is
 *   busy), it wakes or starts threads for them;
 * - replies queued by a thread that has been busy since are flushed.
 * When calls are pipelined, the reader wakes one helper for a batch of two or more, so both
 * cores work; a helper runs calls until none is left and then waits again.
 *
 * Lanes. Every plugin instance has a lane: its queued calls, oldest first, and how many of
 * them may run at once (1 for a plugin not declared thread-safe, else its share, [server]
 * workers or the section's max_concurrent). Threads take calls from the lanes in turn, and
 * start when a runnable call waits, up to LIMIT_THREADS: a plugin whose share is full of
 * slow calls delays its own queued calls, not other plugins' calls.
 */
#ifndef MCPH_WORK_H
#define MCPH_WORK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct work_job;
struct work_thread;

typedef void (*work_fn)(struct work_job *job);

/* One plugin instance's queue and share. Embedded in the instance; every field is guarded by
 * work.lock once the instance serves. */
struct work_lane {
    struct work_job *head; /* queued, oldest first */
    struct work_job *tail;
    size_t queued;               /* jobs queued */
    size_t running;              /* jobs of the lane running now */
    size_t max;                  /* at most this many at once; 0 counts as 1 */
    uint64_t avg_ns;             /* how long its jobs take, a moving average; 0: unknown */
    struct work_lane *ring_prev; /* in the ring of lanes with queued jobs, or NULL */
    struct work_lane *ring_next;
};

/* Embed this in a job struct; the pool links it while queued. */
struct work_job {
    struct work_job *next;  /* guarded by work.lock while queued */
    work_fn run;            /* runs on a pool thread (perhaps the reader) */
    work_fn done;           /* NULL, or then frees the job (and what keeps lane alive); the
                             * pool no longer touches lane by then */
    work_fn drop;           /* frees a job that will never run (work_stop) */
    struct work_lane *lane; /* its plugin instance's lane; NULL: the pool's own, unbounded */
};

/* What the reader role does with the input; the transport provides it. Each is called by
 * the thread holding the role, without work.lock. */
struct work_source {
    void *ctx;
    /* Dispatch every complete message buffered; calls are submitted, not run. */
    void (*dispatch)(void *ctx);
    /* Wait for more input and buffer it. Returns 1, 0 at the end of input (EOF or a read
     * error), or -1 when interrupted by a signal (the pool then checks whether it stops). */
    int (*read)(void *ctx);
    /* Write the replies queued (a flush point). */
    void (*flush)(void *ctx);
    /* Whether replies queued before *since are still waiting (out_stale). */
    int (*stale)(void *ctx, unsigned long *since);
    /* The input ended (the reader saw EOF); called once, by the last reader. */
    void (*ended)(void *ctx);
};

struct work {
    pthread_mutex_t lock;        /* guards everything below but the atomics */
    pthread_cond_t wake;         /* idle threads: a job is runnable, a role is free, or stop */
    pthread_cond_t watch;        /* the watcher: armed again, or stop */
    pthread_cond_t idle;         /* a job finished (work_drain), or a thread ended */
    struct work_lane own;        /* jobs submitted without a lane */
    struct work_lane *ring;      /* lanes with queued jobs, taken from in turn */
    size_t queued;               /* jobs queued in all lanes */
    size_t running;              /* jobs running, the reader's included */
    unsigned long taken;         /* jobs taken so far (the watcher sees stalls by it) */
    size_t nthreads;             /* threads alive */
    size_t max_threads;          /* LIMIT_THREADS, or fewer (tests) */
    int idle_ms;                 /* idle this long, a thread ends (LIMIT_WORK_IDLE_MS) */
    size_t nidle;                /* threads waiting on wake */
    size_t nhelpers;             /* threads running jobs off the reader role */
    size_t nwoken;               /* threads woken or started for a job or a role, not yet at it */
    size_t flushing;             /* threads writing replies (counted by work_drain) */
    struct work_thread *reader;  /* the thread holding the reader role, or NULL */
    struct work_thread *watcher; /* the thread watching, or NULL */
    struct work_thread *threads; /* every thread not yet joined */
    int input_done;              /* the input ended: nobody reads any more */
    int stopping;
    int let_go;                  /* work_stop gave up: threads are detached, never joined */
    atomic_uint_fast64_t rstate; /* the reader: (sequence << 1) | inside a call */
    atomic_int armed;            /* the watcher ticks */
    struct work_source src;
    pthread_key_t self; /* on a pool thread: its struct work_thread */
};

/* Start the pool: `max_threads` threads at most (at least 3), two of them now; one takes the
 * reader role at once when src has a read function (when one cannot start, those that did are
 * stopped before it returns). The threads keep the caller's signal
 * mask; the pool installs a do-nothing handler for its own interrupt (SIGRTMIN + 1, sent only
 * to a reader waiting for input when reading stops). Returns STATUS_OK or
 * STATUS_NOMEM/STATUS_IO. */
int work_start(struct work *w, const struct work_source *src, size_t max_threads)
    __attribute__((warn_unused_result));

/* Queue a job on its lane. From the reader (dispatch) the reader runs it or hands it on
 * after the messages buffered; from any other thread a thread is woken for it. */
void work_submit(struct work *w, struct work_job *job);

/* Whether the calling thread holds the reader role now. */
int work_reading(struct work *w);

/* The calling thread is about to wait for the client (a question to it): if it holds the
 * reader role inside a call, the role goes to another thread now, which reads the answer. */
void work_blocking(struct work *w);

/* The watcher ticks from now on: it flushes replies left queued with nobody writing them
 * (src.stale). Any thread, while the pool runs. */
void work_kick(struct work *w);

/* Wait until no job is queued or running and no thread is writing replies, at most
 * timeout_ms (<0: forever). Returns 1 when idle, 0 on time-out. */
int work_drain(struct work *w, int timeout_ms);

/* Stop reading: nobody takes the reader role again, and the reader leaves it (interrupted if
 * it waits for input; one inside a call leaves after it); jobs queued and running go on.
 * Waits at most timeout_ms for a reader that is neither, which a client that stopped reading
 * may hold up in a write. Returns 1 when the reader left or is inside a call, else 0. Any
 * thread but the reader. */
int work_stop_input(struct work *w, int timeout_ms);

/* Stop and join the threads; jobs still queued are not run: each gets its drop(). Then
 * release everything. Waits at most timeout_ms (<0: forever) for the threads; returns 1 when
 * they all ended, 0 when one is still held up (the pool is then left as it is: exit without
 * releasing it). Not from a pool thread. */
int work_stop(struct work *w, int timeout_ms);

/* A lane with room for `max` jobs at once (0 or 1: one at a time). */
/* The threads in the pool's list, alive or ended and not yet joined (w->lock held). Only
 * threads a stop ends wait there to be joined: one that idled out lets itself go. */
size_t work_listed(const struct work *w);

void work_lane_init(struct work_lane *lane, size_t max);

/* Change how many jobs of a lane may run at once; jobs running go on. Under the pool's lock
 * once it started (w zeroed before work_start: none needed). */
void work_lane_resize(struct work *w, struct work_lane *lane, size_t max);

#endif
