/*
 * work.h: the worker pool. Jobs run on a few threads so a slow tool never holds up the
 * protocol thread. A job may name a plugin instance that is not thread-safe: the pool then
 * never runs two jobs of that instance at once, and a worker skips to the next job rather
 * than wait, so one slow plugin cannot starve the others.
 */
#ifndef MCPH_WORK_H
#define MCPH_WORK_H

#include <pthread.h>
#include <stddef.h>

struct plugin;
struct work_job;

typedef void (*work_fn)(struct work_job *job);

/* Embed this in a job struct; the pool links it while queued. */
struct work_job {
    struct work_job *next; /* guarded by work.lock while queued */
    work_fn run;           /* runs on a worker */
    work_fn done;          /* NULL, or then frees the job (and what keeps excl alive); the
                            * pool no longer touches excl by then */
    work_fn drop;          /* frees a job that will never run (work_stop) */
    struct plugin *excl;   /* not NULL: run alone among jobs of this instance */
};

struct work {
    pthread_mutex_t lock;  /* guards everything below */
    pthread_cond_t ready;  /* a job was queued, an instance freed, or stopping */
    pthread_cond_t idle;   /* a job finished */
    struct work_job *head; /* queue, oldest first */
    struct work_job *tail;
    size_t queued;
    size_t running;
    int stopping;
    pthread_t *threads; /* owned */
    size_t nthreads;
};

/* Start n worker threads. Returns STATUS_OK or STATUS_NOMEM/STATUS_IO. */
int work_start(struct work *w, size_t n) __attribute__((warn_unused_result));

/* Queue a job (any thread). */
void work_submit(struct work *w, struct work_job *job);

/* Wait until no job is queued or running, at most timeout_ms (<0: forever). Returns 1 when
 * idle, 0 on time-out. */
int work_drain(struct work *w, int timeout_ms);

/* Number of jobs queued or running (any thread). */
size_t work_pending(struct work *w);

/* Stop and join the threads; jobs still queued are not run: each gets its drop(). Then
 * release everything. */
void work_stop(struct work *w);

#endif
