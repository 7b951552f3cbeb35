#include "lib/diag.h"

#include "lib/strbuf.h"

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

void diag_vadd_at(struct diag *d, const char *where, int line, const char *fmt, va_list ap)
{
    struct strbuf sb = STRBUF_INIT;
    char *msg;

    if (where != NULL && line > 0)
        (void)strbuf_addf(&sb, "%s:%d: ", where, line);
    else if (where != NULL)
        (void)strbuf_addf(&sb, "%s: ", where);
    (void)strbuf_vaddf(&sb, fmt, ap);
    msg = sb.nomem ? NULL : strbuf_detach(&sb, NULL);
    strbuf_release(&sb);
    if (msg == NULL || diag_push(d, msg) != 0) {
        free(msg);
        d->nomem = 1;
    }
}

void diag_add(struct diag *d, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag_vadd_at(d, NULL, 0, fmt, ap);
    va_end(ap);
}

void diag_add_at(struct diag *d, const char *where, int line, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    diag_vadd_at(d, where, line, fmt, ap);
    va_end(ap);
}
