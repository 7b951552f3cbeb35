/*
 * diag.h: a list of user-facing messages (config and load errors) collected while doing
 * work with no side effects, to be logged, counted or compared later.
 */
#ifndef MCPH_DIAG_H
#define MCPH_DIAG_H

#include <stddef.h>

struct diag {
    char **msgs; /* owned; each owned */
    size_t count;
    size_t cap;
    int nomem; /* set when a message could not be stored */
};

void diag_init(struct diag *d);
void diag_release(struct diag *d);

/* Append a formatted message (copied). On allocation failure sets d->nomem. */
void diag_add(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Move every message of `from` to the end of `to`; `from` is left empty. */
void diag_move(struct diag *to, struct diag *from);

#endif
