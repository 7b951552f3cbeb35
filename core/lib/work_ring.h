/*
 * work_ring.h: the pool's lanes and its ring of lanes with queued jobs (work_ring.c), shared
 * with the pool itself (work.c) only. Every function runs with w->lock held.
 */
#ifndef MCPH_WORK_RING_H
#define MCPH_WORK_RING_H

#include "lib/work.h"

#include <stddef.h>

/* How many of the lane's jobs may run at once (a max of 0 means 1). */
size_t work_lane_max(const struct work_lane *l);

/* Put l in the ring, at the end of the turn; nothing when it is in already. */
void work_ring_add(struct work *w, struct work_lane *l);

/* Take l out of the ring. */
void work_ring_remove(struct work *w, struct work_lane *l);

/* The first job of the next lane in turn that has room, unlinked and counted as running
 * (owned by the pool until it finishes); NULL when no lane has. */
struct work_job *work_take(struct work *w);

/* How many queued jobs could start now, counting up to `enough`. */
size_t work_runnable(const struct work *w, size_t enough);

/* Whether a helper thread would pay for itself (see work_ring.c). */
int work_worth_a_helper(const struct work *w);

#endif
