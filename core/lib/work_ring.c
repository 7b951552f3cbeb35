/*
 * work_ring.c: the lanes of the thread pool and the ring of those with queued jobs, which
 * threads take jobs from in turn. No threads here: the pool (work.c) calls these with
 * w->lock held (work_lane_init before the lane is shared).
 */
#include "lib/work.h"

#include "lib/limits.h"
#include "lib/work_ring.h"

#include <stdint.h>
#include <string.h>

void work_lane_init(struct work_lane *lane, size_t max)
{
    memset(lane, 0, sizeof(*lane));
    lane->max = max;
}

size_t work_lane_max(const struct work_lane *l)
{
    return l->max > 0 ? l->max : 1;
}

void work_ring_add(struct work *w, struct work_lane *l)
{
    if (l->ring_next != NULL)
        return;
    if (w->ring == NULL) {
        l->ring_next = l->ring_prev = l;
        w->ring = l;
        return;
    }
    /* At the end of the turn: just before the lane whose turn is next. */
    l->ring_prev = w->ring->ring_prev;
    l->ring_next = w->ring;
    w->ring->ring_prev->ring_next = l;
    w->ring->ring_prev = l;
}

void work_ring_remove(struct work *w, struct work_lane *l)
{
    if (l->ring_next == l) {
        w->ring = NULL;
    } else {
        l->ring_prev->ring_next = l->ring_next;
        l->ring_next->ring_prev = l->ring_prev;
        if (w->ring == l)
            w->ring = l->ring_next;
    }
    l->ring_next = l->ring_prev = NULL;
}

/* The first job of the next lane in turn that has room, unlinked and counted as running;
 * NULL when no lane has. */
struct work_job *work_take(struct work *w)
{
    struct work_lane *l = w->ring;
    struct work_job *job;

    /* Two threads stay out of calls whatever the lanes allow: the reader and the watcher,
     * so ping, cancellations and the client's answers are read even at LIMIT_THREADS. */
    if (l == NULL || w->running + 2 >= w->max_threads)
        return NULL;
    while (l->running >= work_lane_max(l)) {
        l = l->ring_next;
        if (l == w->ring)
            return NULL;
    }
    job = l->head;
    l->head = job->next;
    if (l->head == NULL)
        l->tail = NULL;
    job->next = NULL;
    l->running++;
    l->queued--;
    w->queued--;
    w->running++;
    w->taken++;
    /* The next turn starts after this lane. */
    w->ring = l->ring_next;
    if (l->head == NULL)
        work_ring_remove(w, l);
    return job;
}

/* How many queued jobs could start now, counting up to `enough`. */
size_t work_runnable(const struct work *w, size_t enough)
{
    const struct work_lane *l = w->ring;
    size_t n = 0;

    if (l == NULL)
        return 0;
    do {
        size_t max = work_lane_max(l);
        size_t room = l->running < max ? max - l->running : 0;

        n += l->queued < room ? l->queued : room;
        l = l->ring_next;
    } while (l != w->ring && n < enough);
    return n;
}

/* Whether a helper would pay for itself: the queued jobs of lanes where the reader and a
 * helper could both run one now, and whose jobs take long enough for two threads to gain
 * (under LIMIT_WORK_HELPER_MIN_NS a job costs less than two threads contending over it),
 * add up to LIMIT_WORK_HELPER_NS of work. A lane with no job measured yet does not count. */
int work_worth_a_helper(const struct work *w)
{
    const struct work_lane *l = w->ring;
    uint64_t ns = 0;

    if (l == NULL)
        return 0;
    do {
        if (l->running + 2 <= work_lane_max(l) && l->avg_ns >= LIMIT_WORK_HELPER_MIN_NS)
            ns += l->queued * l->avg_ns;
        l = l->ring_next;
    } while (l != w->ring && ns < LIMIT_WORK_HELPER_NS);
    return ns >= LIMIT_WORK_HELPER_NS;
}
