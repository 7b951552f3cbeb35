/*
 * diag.h: a list of user-facing messages (config and load errors) collected while doing
 * work with no side effects, to be logged, counted or compared later.
 */
#ifndef MCPH_DIAG_H
#define MCPH_DIAG_H

#include <stdarg.h>
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

/* The one form of config and load errors: "WHERE:LINE: message" ("FILE:LINE: ..."), or
 * "WHERE: message" when line is 0 ("plugin 'ID' (PATH): ..."), or the message alone when
 * where is NULL. On allocation failure sets d->nomem. */
void diag_add_at(struct diag *d, const char *where, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_vadd_at(struct diag *d, const char *where, int line, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

#endif
