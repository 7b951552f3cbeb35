/*
 * debounce.h: many events, one action. An event arms the timer; the action is due once
 * events have been quiet for `quiet_ms`, and at the latest `max_ms` after the first event of
 * the burst (0: no latest). Watch mode's reload and plugins' refresh requests both use it.
 * One thread.
 */
#ifndef MCPH_DEBOUNCE_H
#define MCPH_DEBOUNCE_H

#include <time.h>

struct debounce {
    long quiet_ms, max_ms;
    int pending;                 /* an event is waiting for its action */
    struct timespec first, last; /* CLOCK_MONOTONIC: the burst's first and last events */
};

void debounce_init(struct debounce *d, long quiet_ms, long max_ms);

/* An event happened now. */
void debounce_note(struct debounce *d);

/* Milliseconds until the action is due (0: now); -1 when nothing is pending. */
int debounce_timeout_ms(const struct debounce *d);

/* Whether the action is due; clears the timer when it returns 1. */
int debounce_due(struct debounce *d);

/* The earlier of two poll timeouts (-1: none). */
int debounce_earlier(int a, int b);

/* Milliseconds since t (CLOCK_MONOTONIC). */
long debounce_ms_since(const struct timespec *t);

#endif
