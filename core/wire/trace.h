/*
 * trace.h: W3C Trace Context (version 00) for a call. A request's traceparent and tracestate
 * (its params._meta, else the HTTP request's headers) are kept with the call; a call without
 * a valid one starts a trace of its own. mcph is a span of the trace: what it passes on
 * (to a plugin, a proxied server, an isolated child) is "00-TRACEID-SPAN-FLAGS", with
 * mcph's own span id as the parent.
 *
 * Nothing is parsed nor drawn when the call is set up (trace_init stores pointers): the
 * trace is made the first time something asks for it (trace_id, trace_context), so a call
 * that nobody traces pays nothing. Ids are drawn from a per-thread generator seeded from
 * getrandom() once per thread: no system call per call.
 *
 * A struct trace belongs to one call and is used by one thread at a time (the thread
 * running the call): it has no lock.
 */
#ifndef MCPH_TRACE_H
#define MCPH_TRACE_H

#include "wire/peer.h"

#include <cJSON.h>
#include <stddef.h>

#define TRACE_KEY_PARENT "traceparent" /* the _meta key, and the HTTP header */
#define TRACE_KEY_STATE "tracestate"
#define TRACE_ID_LEN 32     /* hex digits of a trace id */
#define TRACE_SPAN_LEN 16   /* hex digits of a parent (span) id */
#define TRACE_PARENT_LEN 55 /* "00-" 32 "-" 16 "-" 2 */
#define TRACE_STATE_MAX 512 /* the longest tracestate kept (W3C: at least 512 propagated) */

/* What is made when the trace is first asked for (trace_make). */
struct trace_made {
    const char *state;                 /* borrowed from the request or its peer: the tracestate
                                        * passed on, or NULL */
    char tag[6 + TRACE_ID_LEN + 1];    /* "trace=TRACEID": what log lines of the call carry */
    char parent[TRACE_PARENT_LEN + 1]; /* "00-TRACEID-SPAN-FLAGS": what mcph passes on */
};

/* Small on purpose: it lives in every call, and most calls never ask. */
struct trace {
    const cJSON *msg;        /* borrowed for the call's life: the request (params._meta) */
    const struct peer *peer; /* borrowed likewise: its traceparent and tracestate (HTTP) */
    struct trace_made *made; /* owned: NULL until first asked for */
};

/* Set up t for a request (msg: the JSON-RPC request, whose params._meta may carry
 * traceparent and tracestate) that came from peer (whose traceparent and tracestate, the
 * HTTP request's headers, count when _meta has no traceparent; NULL: no peer). Stores the
 * pointers only; both must live as long as t is used. */
void trace_init(struct trace *t, const cJSON *msg, const struct peer *peer);

/* Free what was made, and set t up for nothing. Any thread, once the call is done. */
void trace_release(struct trace *t);

/* The call's trace id, 32 lowercase hex digits: the one it came with, else a new one (made
 * now if not yet; "" when out of memory). Lent until trace_release. The thread running the
 * call. */
const char *trace_id(struct trace *t);

/* "trace=TRACEID", for log lines ("" when out of memory). As trace_id. */
const char *trace_tag(struct trace *t);

/* The traceparent to pass on: "00-TRACEID-SPAN-FLAGS", SPAN mcph's own span id for the call
 * (drawn once per call), FLAGS as the call came (01, sampled, for a trace mcph starts); ""
 * when out of memory. When state is not NULL, *state is the tracestate to pass with it (as
 * it came, only with a valid traceparent), or NULL. As trace_id. */
const char *trace_context(struct trace *t, const char **state);

/* Check a traceparent (W3C Trace Context: version 00 exactly, or a later version's first 55
 * characters followed by the end or '-'; never version ff; lowercase hex; trace id and parent
 * id not all zeros) and copy its trace id (33 bytes with the NUL) and flags (3) out. Returns
 * STATUS_OK or STATUS_INVALID (id and flags untouched). Any thread. */
int trace_parse(const char *text, char *id, char *flags);

/* Whether a tracestate is one mcph passes on: 1 to TRACE_STATE_MAX printable ASCII
 * characters. Any thread. */
int trace_state_ok(const char *text);

/* n random bytes from the calling thread's generator (seeded from getrandom on its first use
 * in the thread): for ids, not for keys. Any thread. */
void trace_random(unsigned char *buf, size_t n);

#endif
