/*
 * http_conn.c: one request being served (struct http_conn, a peer of its own): the lines its
 * out writes, kept for its response and counted against [server] max_pending_mb; its place in
 * h->conns; its close, and a client seen gone while it waited. Also the TCP connections
 * (struct http_sock) the ticker watches for a request that takes too long to arrive.
 */
#include "transport/http_int.h"
#include "transport/httpmsg.h"
#include "lib/status.h"
#include "served/server.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>

/* Wake a connection that waits for something to send. conn lock held. */
void http_wake(struct http_conn *c)
{
    const struct http *h = c->h;
    c->wakes++;
    if (c->suspended) {
        c->suspended = 0;
        h->lib.resume_connection(c->mc);
        http_kick(h); /* whoever waits for the daemon runs it: the connection goes on */
    }
}

/* Every whole line of raw to events. conn lock held. */
void http_raw_to_events(struct http_conn *c)
{
    size_t at = 0;

    for (;;) {
        const char *nl = memchr(c->raw.buf + at, '\n', c->raw.len - at);

        if (nl == NULL)
            break;
        httpmsg_event(&c->events, c->raw.buf + at, (size_t)(nl - (c->raw.buf + at)));
        at = (size_t)(nl - c->raw.buf) + 1;
    }
    if (at > 0) {
        memmove(c->raw.buf, c->raw.buf + at, c->raw.len - at);
        c->raw.len -= at;
        c->raw.buf[c->raw.len] = '\0';
    }
}

/* Count the answers among lines written (whole lines, in parts: a line starts a part or
 * follows a newline inside one). conn lock held. */
void http_count_answers(struct http_conn *c, const struct iovec *v, int cnt)
{
    for (int i = 0; i < cnt; i++) {
        const char *p = v[i].iov_base, *end = p + v[i].iov_len;

        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));

            if (!c->mid_line && httpmsg_is_answer(p, (size_t)(end - p)))
                c->answers++;
            c->mid_line = nl == NULL;
            p = nl != NULL ? nl + 1 : end;
        }
    }
}

/* What c holds unsent, counted against [server] max_pending_mb with the calls in flight (as
 * the pipe's unread replies are). conn lock held. */
void http_conn_account(struct http_conn *c)
{
    size_t now = c->raw.len + c->events.len - c->events_at;

    if (now >= c->held)
        atomic_fetch_add(&c->h->srv->transport_held, now - c->held);
    else
        atomic_fetch_sub(&c->h->srv->transport_held, c->held - now);
    c->held = now;
}

/* Lines for c: kept for its response. Returns STATUS_IO when c can take no more. */
int http_conn_push(struct http_conn *c, const struct iovec *v, int cnt)
{
    int status = STATUS_OK;

    pthread_mutex_lock(&c->lock);
    if (c->gone || c->ended) {
        status = STATUS_IO;
    } else {
        http_count_answers(c, v, cnt);
        for (int i = 0; i < cnt; i++)
            strbuf_add(&c->raw, v[i].iov_base, v[i].iov_len);
        if (c->mode == HTTP_EVENTS)
            http_raw_to_events(c);
        if (c->raw.nomem || c->events.nomem ||
            c->raw.len + c->events.len - c->events_at > LIMIT_HTTP_STREAM_BYTES) {
            /* A client that does not read its stream loses it, not the server its memory. */
            c->ended = 1;
            strbuf_reset(&c->raw);
            status = STATUS_IO;
        }
        http_conn_account(c);
        http_wake(c);
        atomic_store(&c->h->pushed, 1); /* the flush that follows runs the daemon */
    }
    pthread_mutex_unlock(&c->lock);
    return status;
}

static int http_conn_sink(void *ctx, const struct iovec *v, int cnt)
{
    return http_conn_push(ctx, v, cnt);
}

static void http_conn_free(struct http_conn *c)
{
    atomic_fetch_sub(&c->h->srv->transport_held, c->held);
    out_release(&c->out);
    session_release(&c->own_session);
    if (c->own_inflight != NULL) {
        inflight_release(c->own_inflight);
        free(c->own_inflight);
    }
    if (c->sess != NULL)
        peer_drop(&c->sess->peer);
    strbuf_release(&c->body);
    strbuf_release(&c->raw);
    strbuf_release(&c->events);
    principal_drop(c->peer.principal);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* peer_drop of a conn: under its lock, so the connection learns when only its own reference
 * is left (every call it made has answered) and nothing frees it meanwhile. */
static void http_conn_release(struct peer *p)
{
    struct http_conn *c = (struct http_conn *)p;
    int left;

    pthread_mutex_lock(&c->lock);
    left = atomic_fetch_sub(&c->peer.refs, 1) - 1;
    if (left == 1 && !c->gone)
        http_wake(c);
    pthread_mutex_unlock(&c->lock);
    if (left == 0)
        http_conn_free(c);
}

struct http_conn *http_conn_new(struct http *h, struct MHD_Connection *mc, enum http_kind kind,
                                struct principal *who)
{
    struct http_conn *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return NULL;
    const union MHD_ConnectionInfo *info =
        h->lib.get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);

    c->h = h;
    c->mc = mc;
    c->kind = kind;
    c->fd = info != NULL ? info->connect_fd : -1;
    out_init(&c->out, -1);
    c->out.sink = http_conn_sink;
    c->out.sink_ctx = c;
    session_init(&c->own_session);
    strbuf_init(&c->body);
    strbuf_init(&c->raw);
    strbuf_init(&c->events);
    pthread_mutex_init(&c->lock, NULL);
    c->peer = (struct peer){
        .out = &c->out,
        .session = &c->own_session,
        .home = &c->peer,
        .release = http_conn_release,
        .principal = principal_hold(who),
    };
    atomic_init(&c->peer.refs, 1);
    pthread_mutex_lock(&h->lock);
    c->next = h->conns;
    if (h->conns != NULL)
        h->conns->prev = c;
    h->conns = c;
    pthread_mutex_unlock(&h->lock);
    return c;
}

/* The connection closed (or failed): nothing more is sent to it. A sessionless request's
 * calls are cancelled (its client can no longer hear their answers, and has no session to
 * come back to); a legacy one's go on, as the spec asks. Its listen requests end. */
void http_conn_close(struct http_conn *c, int aborted)
{
    struct http *h = c->h;

    pthread_mutex_lock(&h->lock);
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        h->conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    if (c->streaming)
        h->nstreams--;
    c->streaming = 0;
    pthread_mutex_unlock(&h->lock);
    if (c->kind == HTTP_STREAM && c->sess != NULL) {
        pthread_mutex_lock(&c->sess->lock);
        if (c->sess->stream == c)
            c->sess->stream = NULL;
        pthread_mutex_unlock(&c->sess->lock);
    }
    pthread_mutex_lock(&c->lock);
    c->gone = 1;
    pthread_mutex_unlock(&c->lock);
    if (c->kind == HTTP_POST) {
        subs_unlisten_owner(&h->srv->subs, &c->peer);
        if (aborted && c->own_inflight != NULL)
            inflight_cancel_all(c->own_inflight);
    }
    peer_drop(&c->peer);
}

void http_completed(void *cls, struct MHD_Connection *mc, void **con_cls,
                    enum MHD_RequestTerminationCode toe)
{
    struct http *h = cls;
    struct http_conn *c = *con_cls;
    const union MHD_ConnectionInfo *info =
        h->lib.get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct http_sock *sock = info != NULL ? info->socket_context : NULL;

    /* The next request on this connection has http_timeout_s to arrive. */
    if (sock != NULL) {
        pthread_mutex_lock(&h->lock);
        sock->answering = 0;
        clock_gettime(CLOCK_MONOTONIC, &sock->since);
        pthread_mutex_unlock(&h->lock);
    }
    if (c == NULL)
        return;
    *con_cls = NULL;
    http_conn_close(c, toe != MHD_REQUEST_TERMINATED_COMPLETED_OK);
}

void http_notify_connection(void *cls, struct MHD_Connection *mc, void **socket_context,
                            enum MHD_ConnectionNotificationCode toe)
{
    struct http *h = cls;
    struct http_sock *sock = *socket_context;

    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info =
            h->lib.get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);

        sock = calloc(1, sizeof(*sock));
        if (sock == NULL)
            return;
        sock->fd = info != NULL ? info->connect_fd : -1;
        clock_gettime(CLOCK_MONOTONIC, &sock->since);
        pthread_mutex_lock(&h->lock);
        sock->next = h->socks;
        if (h->socks != NULL)
            h->socks->prev = sock;
        h->socks = sock;
        pthread_mutex_unlock(&h->lock);
        *socket_context = sock;
        return;
    }
    if (sock == NULL)
        return;
    pthread_mutex_lock(&h->lock);
    if (sock->prev != NULL)
        sock->prev->next = sock->next;
    else
        h->socks = sock->next;
    if (sock->next != NULL)
        sock->next->prev = sock->prev;
    pthread_mutex_unlock(&h->lock);
    free(sock);
    *socket_context = NULL;
}

/* Whether a POST has nothing more coming: every call it made answered, no listen open. */
int http_conn_settled(struct http_conn *c)
{
    return atomic_load(&c->peer.refs) == 1 && !subs_listening(&c->h->srv->subs, &c->peer);
}

/* Whether the client closed its end of socket fd (a peer that is gone; a suspended connection
 * is not watched by libmicrohttpd, so this is how its close is seen). */
int http_fd_closed(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLRDHUP};

    return fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* The client of c went away while c waited: a sessionless request's calls are cancelled (the
 * spec's cancellation for 2026-07-28), and c is woken to be dropped. h->lock held. */
void http_conn_dead(struct http_conn *c)
{
    pthread_mutex_lock(&c->lock);
    c->dead = 1;
    http_wake(c);
    pthread_mutex_unlock(&c->lock);
    if (c->own_inflight != NULL)
        inflight_cancel_all(c->own_inflight);
}
