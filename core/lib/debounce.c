#include "lib/debounce.h"

void debounce_init(struct debounce *d, long quiet_ms, long max_ms)
{
    *d = (struct debounce){.quiet_ms = quiet_ms, .max_ms = max_ms};
}

long debounce_ms_since(const struct timespec *t)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t->tv_sec) * 1000L + (now.tv_nsec - t->tv_nsec) / 1000000L;
}

void debounce_note(struct debounce *d)
{
    clock_gettime(CLOCK_MONOTONIC, &d->last);
    if (!d->pending)
        d->first = d->last;
    d->pending = 1;
}

int debounce_timeout_ms(const struct debounce *d)
{
    long left;

    if (!d->pending)
        return -1;
    left = d->quiet_ms - debounce_ms_since(&d->last);
    if (d->max_ms > 0) {
        long cap = d->max_ms - debounce_ms_since(&d->first);

        left = cap < left ? cap : left;
    }
    return left > 0 ? (int)left : 0;
}

int debounce_due(struct debounce *d)
{
    if (debounce_timeout_ms(d) != 0)
        return 0;
    d->pending = 0;
    return 1;
}

int debounce_earlier(int a, int b)
{
    if (a < 0)
        return b;
    return b < 0 || a < b ? a : b;
}
