#include "work.h"

#include "plugin.h"
#include "status.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

/* The first queued job that may run now, unlinked; NULL when none may. w->lock held. */
static struct work_job *work_take(struct work *w)
{
    struct work_job *prev = NULL;

    for (struct work_job *job = w->head; job != NULL; prev = job, job = job->next) {
        if (job->excl != NULL && job->excl->busy)
            continue;
        if (prev == NULL)
            w->head = job->next;
        else
            prev->next = job->next;
        if (w->tail == job)
            w->tail = prev;
        job->next = NULL;
        if (job->excl != NULL)
            job->excl->busy = 1;
        w->queued--;
        w->running++;
        return job;
    }
    return NULL;
}

static void *work_main(void *arg)
{
    struct work *w = arg;

    pthread_mutex_lock(&w->lock);
    for (;;) {
        struct work_job *job = work_take(w);
        struct plugin *excl;

        if (job == NULL) {
            if (w->stopping)
                break;
            pthread_cond_wait(&w->ready, &w->lock);
            continue;
        }
        excl = job->excl;
        pthread_mutex_unlock(&w->lock);
        job->run(job);
        pthread_mutex_lock(&w->lock);
        if (excl != NULL) {
            excl->busy = 0;
            /* A job of this instance may be waiting behind it. */
            pthread_cond_broadcast(&w->ready);
        }
        pthread_mutex_unlock(&w->lock);
        /* Only now may the job let go of what keeps excl alive. */
        if (job->done != NULL)
            job->done(job);
        pthread_mutex_lock(&w->lock);
        w->running--;
        pthread_cond_broadcast(&w->idle);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

int work_start(struct work *w, size_t n)
{
    w->head = w->tail = NULL;
    w->queued = w->running = 0;
    w->stopping = 0;
    w->nthreads = 0;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->ready, NULL);
    pthread_cond_init(&w->idle, NULL);
    w->threads = calloc(n, sizeof(*w->threads));
    if (w->threads == NULL)
        return STATUS_NOMEM;
    for (size_t i = 0; i < n; i++) {
        if (pthread_create(&w->threads[i], NULL, work_main, w) != 0)
            return STATUS_IO;
        w->nthreads++;
    }
    return STATUS_OK;
}

void work_submit(struct work *w, struct work_job *job)
{
    job->next = NULL;
    pthread_mutex_lock(&w->lock);
    if (w->tail != NULL)
        w->tail->next = job;
    else
        w->head = job;
    w->tail = job;
    w->queued++;
    pthread_cond_signal(&w->ready);
    pthread_mutex_unlock(&w->lock);
}

int work_drain(struct work *w, int timeout_ms)
{
    struct timespec deadline;
    int idle;

    clock_gettime(CLOCK_REALTIME, &deadline);
    if (timeout_ms >= 0) {
        deadline.tv_sec += timeout_ms / 1000;
        deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&w->lock);
    while (w->queued + w->running > 0) {
        if (timeout_ms < 0)
            pthread_cond_wait(&w->idle, &w->lock);
        else if (pthread_cond_timedwait(&w->idle, &w->lock, &deadline) == ETIMEDOUT)
            break;
    }
    idle = w->queued + w->running == 0;
    pthread_mutex_unlock(&w->lock);
    return idle;
}

size_t work_pending(struct work *w)
{
    size_t n;

    pthread_mutex_lock(&w->lock);
    n = w->queued + w->running;
    pthread_mutex_unlock(&w->lock);
    return n;
}

void work_stop(struct work *w)
{
    struct work_job *dropped;

    pthread_mutex_lock(&w->lock);
    w->stopping = 1;
    dropped = w->head;
    w->head = w->tail = NULL;
    w->queued = 0;
    pthread_cond_broadcast(&w->ready);
    pthread_mutex_unlock(&w->lock);
    while (dropped != NULL) {
        struct work_job *next = dropped->next;

        dropped->drop(dropped);
        dropped = next;
    }
    for (size_t i = 0; i < w->nthreads; i++)
        pthread_join(w->threads[i], NULL);
    free(w->threads);
    w->threads = NULL;
    w->nthreads = 0;
    pthread_cond_destroy(&w->ready);
    pthread_cond_destroy(&w->idle);
    pthread_mutex_destroy(&w->lock);
}
