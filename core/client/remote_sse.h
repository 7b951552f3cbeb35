/*
 * remote_sse.h: the relay's parser of a text/event-stream body (the WHATWG event stream
 * format): bytes in, in pieces of any size, one callback per event with its data. Lines end
 * with CRLF, LF or CR; "data:" lines are joined with a space (a message is one line on the
 * relay's stdout), "id:" sets the last event id, comments and other fields are skipped. No
 * thread of its own; one stream per parser.
 */
#ifndef MCPH_REMOTE_SSE_H
#define MCPH_REMOTE_SSE_H

#include "lib/strbuf.h"

#include <stddef.h>

/* Called with each event's data (len bytes, NUL-terminated, borrowed for the call; never
 * empty). Returns 0 to go on, anything else to stop the stream (remote_sse_feed returns it). */
typedef int (*remote_sse_fn)(void *ctx, const char *data, size_t len);

struct remote_sse {
    struct strbuf line; /* the line being read */
    struct strbuf data; /* the event being read: its data lines joined by spaces */
    struct strbuf id;   /* the last event id seen on the stream ("" until one came) */
    size_t max;         /* the most a line or an event's data may hold */
    int has_data;       /* a data line came since the last event */
    int after_cr;       /* the last byte was CR: a LF next ends no line */
    int started;        /* past a leading byte-order mark */
    int bom_seen;       /* how many of its bytes came so far */
};

/* Set up s for a new stream whose events may hold max bytes. No allocation. */
void remote_sse_init(struct remote_sse *s, size_t max);

/* Free s's buffers. */
void remote_sse_release(struct remote_sse *s);

/* Feed len bytes of the stream; fn(ctx, ...) for each event they complete. Returns 0,
 * fn's nonzero value, STATUS_LIMIT for a line or an event longer than max, or STATUS_NOMEM. */
int remote_sse_feed(struct remote_sse *s, const char *buf, size_t len, remote_sse_fn fn, void *ctx);

#endif
