/*
 * out.h: the output side. Every message mcph sends goes through here: replies, JSON-RPC
 * batches, notifications and mcph's own requests to the client, each written whole as one
 * line.
 *
 * Replies are gathered: out_reply() and its kin only queue the line, and the thread that
 * answered flushes when it has nothing more to answer at once (the pool's flush points, see
 * work.h), so replies that are ready together leave in one write(). Notifications and
 * requests to the client (out_notify, out_request) are flushed at once. A flush while
 * another thread is writing leaves its lines to that writer, which writes until nothing is
 * queued: no thread waits for another's write unless the queue is over its cap (the client
 * is not reading).
 *
 * Every wait on the client has a deadline: writes to a pipe or socket never block, and a
 * client that takes no byte of output for LIMIT_OUT_STALL_MS while output waits is gone
 * (the out fails as if it had closed the pipe; every waiting thread wakes then). A thread
 * that must never wait on the client (the one that handles signals and reloads, the reader
 * while it holds the state lock) says so with out_thread_nowait(): its lines are queued past
 * the cap, and it writes only what the fd takes at once.
 */
#ifndef MCPH_OUT_H
#define MCPH_OUT_H

#include "lib/strbuf.h"

#include <cJSON.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/uio.h>

struct out {
    int fd;
    pthread_mutex_t lock;       /* guards pending, wbuf, writing and queued */
    pthread_cond_t drained;     /* a write finished (back-pressure waits for it) */
    struct strbuf pending;      /* whole lines queued, not yet written */
    struct strbuf wbuf;         /* the lines being written (taken from pending) */
    int writing;                /* a thread is writing; it also writes what is queued meanwhile */
    unsigned long queued;       /* lines queued so far (the pool's watcher checks for staleness) */
    unsigned long written;      /* lines written or dropped so far */
    atomic_int failed;          /* the peer is gone (EPIPE or another write error); any thread */
    atomic_int stalled;         /* ... because it took no byte for stall_ms */
    int stall_ms;               /* LIMIT_OUT_STALL_MS (a test may set less before any write) */
    atomic_llong progress_ms;   /* monotonic ms: the client last took a byte, or a write began */
    int nonblock;               /* writes to fd never block (waits are polls with a deadline) */
    int sock;                   /* fd is a socket: written with MSG_DONTWAIT */
    atomic_size_t held;         /* bytes queued or being written; read without the lock */
    void (*on_fail)(void *ctx); /* NULL, or called once when the peer is found gone */
    void *fail_ctx;
    /* NULL, or called (without the lock) when a thread that may not wait leaves lines queued
     * with nobody writing them: somebody who may wait should write them. Set with
     * out_set_on_left. */
    void (*on_left)(void *ctx);
    void *left_ctx;
    /* NULL: lines are written to fd. Else every write goes to sink instead, cnt parts of
     * whole lines (borrowed for the call), by one writer at a time without the lock, and
     * nothing waits for a flush point: a transport that frames messages itself (HTTP).
     * Returns STATUS_OK, or STATUS_IO when the peer is gone (what is queued is dropped). */
    int (*sink)(void *ctx, const struct iovec *v, int cnt);
    void *sink_ctx;
};

/* A JSON-RPC batch (2025-03-26) being answered: replies fill slots from any thread; the last
 * one queues them all as one array. */
struct out_batch;

/* fd: a pipe is opened again as a file description of mcph's own, where O_NONBLOCK is set. */
void out_init(struct out *o, int fd);
void out_release(struct out *o);

/* Set (or clear: fn NULL) o->on_left. Any thread; once it returns, the old one is not
 * called any more (unless it runs already). */
void out_set_on_left(struct out *o, void (*fn)(void *ctx), void *ctx);

/* Bytes of replies queued or being written, not yet taken by the client. Any thread. */
size_t out_held(struct out *o);

/* Queue one message (JSON text, no newline; borrowed). Any thread. Returns STATUS_OK,
 * STATUS_IO when the peer is gone (the line is dropped) or STATUS_NOMEM. */
int out_put(struct out *o, const char *text, size_t len);

/* Write everything queued, unless another thread is writing (it then writes it too). Any
 * thread. */
void out_flush(struct out *o);

/* The calling thread never waits on a client (on = 1) or waits as the stall limit allows (0,
 * the default). Per thread. Returns the setting it had. */
int out_thread_nowait(int on);

/* Wait until the queue is under its cap, writing it if nobody else does; until the client is
 * gone. For a thread that queued past the cap under out_thread_nowait, once it may wait. */
void out_make_room(struct out *o);

/* out_flush, waiting for the client at most ms, even in a thread that otherwise never waits
 * (a bounded last flush: shutdown). */
void out_flush_for(struct out *o, int ms);

/* Whether lines queued `since` (a value of o->queued read earlier) are still waiting: the
 * watcher flushes lines a busy thread left behind. Any thread. */
int out_stale(struct out *o, unsigned long *since);

/* --- Replies: queued (or put in batch b's slot when b is not NULL). Any thread. --- */

/* msg (owned) printed; NULL sends nothing (in a batch: the slot stays empty). */
void out_reply(struct out *o, struct out_batch *b, size_t slot, cJSON *msg);

/* The same for a message already printed (text taken; NULL sends nothing). */
void out_reply_text(struct out *o, struct out_batch *b, size_t slot, char *text);

/* {"jsonrpc":"2.0","id":ID,"result":RESULT} from result (owned), printed straight into the
 * queue around the id's text; NULL result (out of memory) sends nothing. */
void out_result(struct out *o, struct out_batch *b, size_t slot, const cJSON *id, cJSON *result);

/* The same from the result's JSON text (borrowed: a cached list page), which the caller made
 * sure is UTF-8 (utf8_own). */
void out_result_text(struct out *o, struct out_batch *b, size_t slot, const cJSON *id,
                     const char *result);

/* A JSON-RPC error reply; data (owned) may be NULL. */
void out_error(struct out *o, struct out_batch *b, size_t slot, const cJSON *id, int code,
               const char *message, cJSON *data);

/* --- Messages mcph starts: queued and flushed at once. Any thread. --- */

/* A notification {"jsonrpc":"2.0","method":M[,"params":P]}; params (owned) may be NULL. */
void out_notify(struct out *o, const char *method, cJSON *params);

/* A whole message mcph sends on its own (a request to the client, a listen request's final
 * result); msg owned. */
void out_send(struct out *o, cJSON *msg);

/* --- Batches. --- */

/* A batch of n messages, answered through o. NULL when out of memory. */
struct out_batch *out_batch_new(struct out *o, size_t n);

/* Every message of the batch has been handed on (each answers its slot, now or later): the
 * batch goes out once the last slot is answered. */
void out_batch_close(struct out_batch *b);

#endif
