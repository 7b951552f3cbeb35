/*
 * inflight.h: the client requests queued or running in plugins, and the requests mcph itself
 * sends the client on their behalf (sampling, elicitation, roots). The dispatching thread
 * marks cancellations and hands the client's answers over; a call waiting for an answer
 * wakes on it, on cancellation or on its time-out.
 */
#ifndef MCPH_INFLIGHT_H
#define MCPH_INFLIGHT_H

#include "lib/strbuf.h"

#include <cJSON.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

/* One client request in flight. The caller provides the memory (a call embeds it); the
 * table links it while registered. */
struct inflight_call {
    char *key; /* the request id as a key: key_buf, or owned when longer */
    char key_buf[32];
    atomic_int cancelled;       /* notifications/cancelled arrived for it */
    const char *method;         /* borrowed, for log lines: its method and target (set by */
    const char *target;         /* the caller before inflight_add, which keeps them) */
    struct inflight_call *next; /* guarded by inflight.lock */
    /* The one request to the client this call waits for; all guarded by inflight.lock. */
    char ask_id[32];         /* our request id ("mcph-N"), "" when not waiting */
    cJSON *answer;           /* owned: the client's response message once answered */
    pthread_cond_t answered; /* signalled on answer or cancellation */
};

/* Buckets of the table of calls in flight, by a hash of the id: adding, finding and removing
 * stay cheap with thousands of requests queued. */
#define INFLIGHT_BUCKETS 1024

struct inflight {
    pthread_mutex_t lock;           /* guards the buckets, the ask fields, next_ask and closed */
    int closed;                     /* end of input: no answer can come any more */
    struct inflight_call **buckets; /* nbuckets of them: a table allocated, or &one */
    size_t nbuckets;                /* a power of two */
    struct inflight_call *one;      /* the one bucket of a small table */
    uint64_t next_ask;
};

/* A table of INFLIGHT_BUCKETS buckets (of one, when that cannot be allocated: slower, never
 * wrong). */
void inflight_init(struct inflight *t);
/* A table of one bucket, for a peer that holds a request or two (a 2026-07-28 POST): nothing
 * to allocate or clear for each request. */
void inflight_init_small(struct inflight *t);
/* Release the table; every call must have been removed. */
void inflight_release(struct inflight *t);

/* Register request `call` (memory of the caller's, set up here) by its id (borrowed). The
 * dispatching thread. Returns STATUS_OK (call is in the table until inflight_remove),
 * STATUS_EXISTS when a request with that id is still in flight, or STATUS_NOMEM; call needs
 * no release unless registered. */
int inflight_add(struct inflight *t, const cJSON *id, struct inflight_call *call)
    __attribute__((warn_unused_result));

/* Unregister a call and release what it holds (its memory stays the caller's). Returns
 * whether it was cancelled. Any thread. */
int inflight_remove(struct inflight *t, struct inflight_call *call);

/* Mark the request with this id cancelled and wake it if it waits for the client. Main
 * thread. Returns STATUS_OK or STATUS_NOT_FOUND (finished or never seen). */
int inflight_cancel(struct inflight *t, const cJSON *id);

/* Start waiting for an answer: the id to send the client is written to ask_id (size 32).
 * The thread running `call`. */
void inflight_ask_begin(struct inflight *t, struct inflight_call *call, char *ask_id);

/* Wait for the answer to the request begun with inflight_ask_begin, at most timeout_ms.
 * Returns STATUS_OK with *answer (the client's whole response message, owned by the
 * caller), STATUS_AGAIN on time-out, or STATUS_INVALID when the call was cancelled. The
 * ask is over either way. STATUS_EOF when the input has ended (inflight_close). */
int inflight_ask_wait(struct inflight *t, struct inflight_call *call, int timeout_ms,
                      cJSON **answer);

/* End of input: every wait for an answer ends now (STATUS_EOF), and later ones at once.
 * The dispatching thread. */
void inflight_close(struct inflight *t);

/* Shutting down: mark every request in flight cancelled (no answer will be sent for them)
 * and wake those waiting for the client, so handlers that poll cancelled() stop. Main
 * thread. Returns how many were marked. */
size_t inflight_cancel_all(struct inflight *t);

/* Say which requests are in flight, for a log line: `2 (tools/call count), "x" (...)`, at most
 * `max` of them and then how many more, appended to sb. Returns how many there are. Any
 * thread. */
size_t inflight_describe(struct inflight *t, struct strbuf *sb, size_t max);

/* Hand the client's response msg (owned; taken on STATUS_OK) to the call waiting for id.
 * The dispatching thread. STATUS_NOT_FOUND when nobody waits for it (late, or not ours). */
int inflight_answer(struct inflight *t, const cJSON *id, cJSON *msg);

#endif
