/*
 * remote_sse.c: the event-stream parser of the relay (remote_sse.h).
 */
#include "client/remote_sse.h"

#include "lib/status.h"

#include <string.h>

void remote_sse_init(struct remote_sse *s, size_t max)
{
    memset(s, 0, sizeof(*s));
    strbuf_init(&s->line);
    strbuf_init(&s->data);
    strbuf_init(&s->id);
    s->max = max;
}

void remote_sse_release(struct remote_sse *s)
{
    strbuf_release(&s->line);
    strbuf_release(&s->data);
    strbuf_release(&s->id);
}

/* The end of an event: its data to fn, when it has some. */
static int remote_sse_dispatch(struct remote_sse *s, remote_sse_fn fn, void *ctx)
{
    int rc = 0;

    if (s->has_data && s->data.len > 0)
        rc = fn(ctx, s->data.buf, s->data.len);
    s->has_data = 0;
    strbuf_reset(&s->data);
    return rc;
}

/* One field line (no line end): data, id, or something skipped. */
static int remote_sse_field(struct remote_sse *s, const char *line, size_t len)
{
    const char *colon = memchr(line, ':', len);
    size_t name = colon ? (size_t)(colon - line) : len;
    const char *value = colon ? colon + 1 : line + len;
    size_t vlen = (size_t)(line + len - value);

    if (vlen > 0 && value[0] == ' ') {
        value++;
        vlen--;
    }
    if (name == 4 && memcmp(line, "data", 4) == 0) {
        if (s->has_data && strbuf_addch(&s->data, ' ') != STATUS_OK)
            return STATUS_NOMEM;
        if (s->data.len + vlen > s->max)
            return STATUS_LIMIT;
        s->has_data = 1;
        return strbuf_add(&s->data, value, vlen);
    }
    if (name == 2 && memcmp(line, "id", 2) == 0 && memchr(value, '\0', vlen) == NULL) {
        strbuf_reset(&s->id);
        return strbuf_add(&s->id, value, vlen);
    }
    return STATUS_OK; /* a comment (name 0), event, retry, or a field not known */
}

/* A whole line: an empty one ends the event. */
static int remote_sse_line(struct remote_sse *s, const char *line, size_t len, remote_sse_fn fn,
                           void *ctx)
{
    if (len == 0)
        return remote_sse_dispatch(s, fn, ctx);
    return remote_sse_field(s, line, len);
}

/* The bytes of buf up to the next line end, added to the line being read; *used: how many
 * were taken (the end included), *ended: whether the line ended. */
static int remote_sse_take(struct remote_sse *s, const char *buf, size_t len, size_t *used,
                           int *ended)
{
    size_t n = 0;

    while (n < len && buf[n] != '\n' && buf[n] != '\r')
        n++;
    *ended = n < len;
    *used = n + (size_t)*ended;
    if (*ended)
        s->after_cr = buf[n] == '\r';
    if (s->line.len + n > s->max)
        return STATUS_LIMIT;
    return strbuf_add(&s->line, buf, n);
}

/* A leading byte-order mark is skipped, whatever pieces it comes in; the bytes of one that
 * turns out not to be go to the line. */
static int remote_sse_bom(struct remote_sse *s, const char **buf, size_t *len)
{
    static const char bom[3] = {'\xef', '\xbb', '\xbf'};

    while (!s->started && *len > 0) {
        if (**buf != bom[s->bom_seen]) {
            s->started = 1;
            return strbuf_add(&s->line, bom, (size_t)s->bom_seen);
        }
        (*buf)++;
        (*len)--;
        s->started = ++s->bom_seen == 3;
    }
    return STATUS_OK;
}

int remote_sse_feed(struct remote_sse *s, const char *buf, size_t len, remote_sse_fn fn, void *ctx)
{
    if (remote_sse_bom(s, &buf, &len) != STATUS_OK)
        return STATUS_NOMEM;
    while (len > 0) {
        size_t used;
        int ended, rc;

        if (s->after_cr && buf[0] == '\n') {
            s->after_cr = 0;
            buf++;
            len--;
            continue;
        }
        s->after_cr = 0;
        rc = remote_sse_take(s, buf, len, &used, &ended);
        buf += used;
        len -= used;
        if (rc == STATUS_OK && ended) {
            rc = remote_sse_line(s, s->line.buf, s->line.len, fn, ctx);
            strbuf_reset(&s->line);
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}
