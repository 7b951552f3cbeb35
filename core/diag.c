#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void diag_init(struct diag *d)
{
    d->msgs = NULL;
    d->count = 0;
    d->cap = 0;
    d->nomem = 0;
}

void diag_release(struct diag *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->count; i++)
        free(d->msgs[i]);
    free(d->msgs);
    diag_init(d);
}

static int diag_push(struct diag *d, char *msg)
{
    if (d->count == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        char **msgs = realloc(d->msgs, cap * sizeof(*msgs));

        if (msgs == NULL)
            return -1;
        d->msgs = msgs;
        d->cap = cap;
    }
    d->msgs[d->count++] = msg;
    return 0;
}

void diag_add(struct diag *d, const char *fmt, ...)
{
    va_list ap;
    char *msg = NULL;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&msg, fmt, ap);
    va_end(ap);
    if (n < 0 || diag_push(d, msg) != 0) {
        if (n >= 0)
            free(msg);
        d->nomem = 1;
    }
}

void diag_move(struct diag *to, struct diag *from)
{
    for (size_t i = 0; i < from->count; i++) {
        if (diag_push(to, from->msgs[i]) != 0) {
            free(from->msgs[i]);
            to->nomem = 1;
        }
    }
    from->count = 0;
    if (from->nomem)
        to->nomem = 1;
    diag_release(from);
}
