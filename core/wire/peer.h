/*
 * peer.h: who a message came from, as dispatch sees it. A transport hands dispatch a peer
 * with each message; dispatch, calls and reload answer and notify through it and never know
 * which transport that is.
 *
 * - The stdio pipe is one peer for its whole life (the server's pipe_peer).
 * - Over HTTP, each POST is a peer of its own (its answer and the messages about it go to its
 *   response). A legacy session is a peer too (its GET stream), which the POSTs of the session
 *   point to as their home: they share its session, its requests in flight and its
 *   subscriptions. A 2026-07-28 request is its own home, with a session that is never
 *   initialized.
 *
 * A peer is counted: calls hold their peer until they are answered. The server keeps a list
 * of the homes that hear what nobody asked for (list_changed, log messages outside a call,
 * resources/updated): server_add_peer, server_remove_peer.
 */
#ifndef MCPH_PEER_H
#define MCPH_PEER_H

#include <stdatomic.h>
#include <stddef.h>

struct out;
struct session;
struct inflight;
struct principal;

struct peer {
    struct out *out;              /* its answers and the messages about its requests */
    struct session *session;      /* its legacy session; never initialized for a 2026-07-28 one */
    struct inflight *inflight;    /* its requests in flight and mcph's questions to it */
    struct peer *home;            /* the peer that follows resources and hears list_changed for
                                   * it: itself, or the legacy session it belongs to */
    atomic_int refs;              /* 1 for its transport, +1 for each call that holds it */
    void (*free)(struct peer *p); /* the last reference went; NULL: the transport owns it */
    /* NULL, or it counts the references itself: peer_drop calls it instead (a transport that
     * must know, under its own lock, when only its own reference is left). */
    void (*release)(struct peer *p);
    struct peer *next; /* in the server's list of homes, under peers_lock */
    /* Who its requests speak for (principal.h): held by the peer, dropped by its transport
     * when the peer is freed; NULL for the stdio pipe (the local user). */
    struct principal *principal;
    /* The W3C trace context its messages came with (the HTTP request's traceparent and
     * tracestate headers), for calls whose _meta has none (wire/trace.h); NULL: none. Owned
     * by the transport, living as long as the peer. */
    const char *traceparent;
    const char *tracestate;
};

static inline void peer_hold(struct peer *p)
{
    atomic_fetch_add(&p->refs, 1);
}

static inline void peer_drop(struct peer *p)
{
    if (p->release != NULL) {
        p->release(p);
        return;
    }
    if (atomic_fetch_sub(&p->refs, 1) == 1 && p->free != NULL)
        p->free(p);
}

#endif
