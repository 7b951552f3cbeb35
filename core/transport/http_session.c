/*
 * http_session.c: the legacy sessions (Mcp-Session-Id): made by an initialize, kept in
 * h->sessions, found by the id each request names, ended by DELETE, by idleness (or no
 * notifications/initialized) or at stop; and each one's GET stream, where what nobody asked
 * for goes. The 2026-07-28 era has no sessions: a request of it is its own peer
 * (http_post.c).
 */
#include "transport/http_int.h"
#include "transport/httpmsg.h"
#include "lib/log.h"
#include "lib/status.h"
#include "served/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* A session's lines go to its GET stream; with none open they are dropped (the spec lets a
 * server send them only there). */
static int http_session_sink(void *ctx, const struct iovec *v, int cnt)
{
    struct http_session *s = ctx;

    pthread_mutex_lock(&s->lock);
    if (s->stream != NULL)
        http_conn_push(s->stream, v, cnt);
    pthread_mutex_unlock(&s->lock);
    return STATUS_OK;
}

static void http_session_free(struct peer *p)
{
    struct http_session *s = (struct http_session *)p;

    /* Again, for what a POST of the session did after it ended (a subscribe, say). */
    server_remove_peer(s->h->srv, &s->peer);
    subs_unsubscribe_all(&s->h->srv->subs, &s->peer);
    out_release(&s->out);
    session_release(&s->session);
    inflight_release(&s->inflight);
    principal_drop(s->peer.principal);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

void http_session_id(char *id, size_t size, const char *route, const unsigned char rnd[16])
{
    char hex[33];

    for (size_t i = 0; i < 16; i++)
        snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
    snprintf(id, size, "%s%s%s", route ? route : "", route ? "-" : "", hex);
}

struct http_session *http_session_new(struct http *h, struct principal *who)
{
    struct http_session *s = calloc(1, sizeof(*s));
    unsigned char rnd[16];

    if (s == NULL || getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
        free(s);
        return NULL;
    }
    http_session_id(s->id, sizeof(s->id), h->route, rnd);
    s->h = h;
    out_init(&s->out, -1);
    s->out.sink = http_session_sink;
    s->out.sink_ctx = s;
    session_init(&s->session);
    inflight_init(&s->inflight);
    pthread_mutex_init(&s->lock, NULL);
    s->peer = (struct peer){.out = &s->out,
                            .session = &s->session,
                            .inflight = &s->inflight,
                            .home = &s->peer,
                            .free = http_session_free,
                            .principal = principal_hold(who)};
    atomic_init(&s->peer.refs, 1);
    atomic_init(&s->greeted, 0);
    clock_gettime(CLOCK_MONOTONIC, &s->used);
    return s;
}

/* The session with this id, held (peer_drop it), or NULL. A session is bound to the
 * credential that opened it: for another (who), NULL with *foreign set. */
struct http_session *http_session_find(struct http *h, const char *id, const struct principal *who,
                                       int *foreign)
{
    struct http_session *found = NULL;

    *foreign = 0;
    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; i < h->nsessions && found == NULL; i++) {
        if (strcmp(h->sessions[i]->id, id) == 0)
            found = h->sessions[i];
    }
    if (found != NULL && !principal_same(found->peer.principal, who)) {
        *foreign = 1;
        found = NULL;
    }
    if (found != NULL) {
        peer_hold(&found->peer);
        clock_gettime(CLOCK_MONOTONIC, &found->used);
    }
    pthread_mutex_unlock(&h->lock);
    return found;
}

/* End a session taken out of the table: nobody hears it or follows its URIs any more, a
 * question waiting for its client ends, its stream closes; then the table's reference goes. */
void http_session_end(struct http *h, struct http_session *s)
{
    server_remove_peer(h->srv, &s->peer);
    subs_unsubscribe_all(&h->srv->subs, &s->peer);
    inflight_close(&s->inflight);
    pthread_mutex_lock(&s->lock);
    s->closed = 1;
    if (s->stream != NULL) {
        pthread_mutex_lock(&s->stream->lock);
        s->stream->ended = 1;
        http_wake(s->stream);
        pthread_mutex_unlock(&s->stream->lock);
        s->stream = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    peer_drop(&s->peer);
}

/* Take session s out of the table (h->lock held). Returns whether it was there. */
static int http_session_unlink(struct http *h, const struct http_session *s)
{
    for (size_t i = 0; i < h->nsessions; i++) {
        if (h->sessions[i] == s) {
            h->sessions[i] = h->sessions[--h->nsessions];
            return 1;
        }
    }
    return 0;
}

/* A new session in the table (s is initialized by now). STATUS_LIMIT past max_sessions. */
int http_session_add(struct http *h, struct http_session *s)
{
    struct http_session **grown;
    int status = STATUS_OK;

    pthread_mutex_lock(&h->lock);
    if (atomic_load(&h->closing)) {
        status = STATUS_IO;
    } else if (h->nsessions >= h->max_sessions) {
        status = STATUS_LIMIT;
    } else if ((grown = realloc(h->sessions, (h->nsessions + 1) * sizeof(*grown))) == NULL) {
        status = STATUS_NOMEM;
    } else {
        h->sessions = grown;
        peer_hold(&s->peer);
        h->sessions[h->nsessions++] = s;
        server_add_peer(h->srv, &s->peer);
    }
    pthread_mutex_unlock(&h->lock);
    return status;
}

/* The session a GET or DELETE names (Mcp-Session-Id), held (peer_drop it); or NULL with the
 * refusal queued into *rc: `required` (a 400) without the header, a 404 for an unknown id. */
static struct http_session *http_session_named(struct http *h, struct MHD_Connection *mc,
                                               const struct principal *who, const char *required,
                                               enum MHD_Result *rc)
{
    char sid_buf[128];
    const char *sid = http_value(h, mc, HTTP_SESSION_HEADER, sid_buf, sizeof(sid_buf));
    struct http_session *s;
    int foreign;

    if (sid == NULL) {
        *rc = http_fail(h, mc, MHD_HTTP_BAD_REQUEST, JSONRPC_SERVER_ERROR, required);
        return NULL;
    }
    s = http_session_find(h, sid, who, &foreign);
    if (s == NULL && foreign)
        *rc = http_fail(h, mc, MHD_HTTP_FORBIDDEN, JSONRPC_SERVER_ERROR, HTTP_FOREIGN_SESSION);
    else if (s == NULL)
        *rc = http_fail(h, mc, MHD_HTTP_NOT_FOUND, JSONRPC_SESSION_NOT_FOUND, "Session not found");
    return s;
}

/* c becomes s's GET stream. Returns 0, or why not: MHD_HTTP_NOT_FOUND (s ended) or
 * MHD_HTTP_CONFLICT (a stream is open, its client still there). */
static unsigned http_session_attach(struct http_session *s, struct http_conn *c)
{
    unsigned refused = 0;

    pthread_mutex_lock(&s->lock);
    if (s->stream != NULL && http_fd_closed(s->stream->fd)) {
        /* The old stream's client is gone (a reconnect): this one takes its place. */
        pthread_mutex_lock(&s->stream->lock);
        s->stream->dead = 1;
        http_wake(s->stream);
        pthread_mutex_unlock(&s->stream->lock);
        s->stream = NULL;
    }
    if (s->closed)
        refused = MHD_HTTP_NOT_FOUND;
    else if (s->stream != NULL)
        refused = MHD_HTTP_CONFLICT;
    else
        s->stream = c;
    pthread_mutex_unlock(&s->lock);
    return refused;
}

/* A legacy session's GET stream: its notifications from now on. */
enum MHD_Result http_open_stream(struct http *h, struct MHD_Connection *mc, struct principal *who,
                                 void **con_cls)
{
    struct http_session *s;
    struct http_conn *c;
    struct MHD_Response *r;
    enum MHD_Result rc = MHD_NO;
    char buf[320];
    unsigned refused;

    if (!httpmsg_accepts(http_header(h, mc, MHD_HTTP_HEADER_ACCEPT), "text/event-stream"))
        return http_fail(h, mc, MHD_HTTP_NOT_ACCEPTABLE, JSONRPC_SERVER_ERROR,
                         "Not Acceptable: Client must accept text/event-stream");
    s = http_session_named(h, mc, who,
                           "Bad Request: " HTTP_SESSION_HEADER
                           " header is required (GET opens a legacy session's stream; a "
                           "2026-07-28 client listens with a POST of subscriptions/listen)",
                           &rc);
    if (s == NULL)
        return rc;
    c = http_conn_new(h, mc, HTTP_STREAM, who);
    if (c == NULL) {
        peer_drop(&s->peer);
        return MHD_NO;
    }
    c->sess = s;
    if (http_stream_admit(h, c, buf, sizeof(buf)) != NULL) {
        http_conn_close(c, 0);
        return http_fail(h, mc, MHD_HTTP_SERVICE_UNAVAILABLE, JSONRPC_SERVER_ERROR, buf);
    }
    refused = http_session_attach(s, c);
    if (refused != 0) {
        http_conn_close(c, 0);
        if (refused == MHD_HTTP_NOT_FOUND)
            return http_fail(h, mc, MHD_HTTP_NOT_FOUND, JSONRPC_SESSION_NOT_FOUND,
                             "Session not found");
        return http_fail(h, mc, MHD_HTTP_CONFLICT, JSONRPC_SERVER_ERROR,
                         "Conflict: Only one SSE stream is allowed per session");
    }
    *con_cls = c;
    pthread_mutex_lock(&c->lock);
    r = http_events_response(c);
    pthread_mutex_unlock(&c->lock);
    return http_queue(h, mc, MHD_HTTP_OK, r);
}

enum MHD_Result http_delete(struct http *h, struct MHD_Connection *mc, const struct principal *who)
{
    struct http_session *s;
    enum MHD_Result rc = MHD_NO;
    int was;

    s = http_session_named(h, mc, who,
                           "Bad Request: " HTTP_SESSION_HEADER
                           " header is required (DELETE ends a legacy session; 2026-07-28 has "
                           "no sessions)",
                           &rc);
    if (s == NULL)
        return rc;
    pthread_mutex_lock(&h->lock);
    was = http_session_unlink(h, s);
    pthread_mutex_unlock(&h->lock);
    if (was)
        http_session_end(h, s);
    peer_drop(&s->peer);
    return http_queue(h, mc, MHD_HTTP_OK,
                      h->lib.create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT));
}

void http_expire(struct http *h)
{
    for (;;) {
        struct http_session *gone = NULL;

        pthread_mutex_lock(&h->lock);
        for (size_t i = 0; i < h->nsessions && gone == NULL; i++) {
            struct http_session *s = h->sessions[i];

            long idle = http_ms_since(&s->used);

            /* A POST or GET stream of the session holds a reference of its own. */
            if (atomic_load(&s->peer.refs) == 1 &&
                (idle >= h->idle_ms ||
                 (!atomic_load(&s->greeted) && idle >= LIMIT_HTTP_SESSION_UNINIT_S * 1000L)))
                gone = s;
        }
        if (gone != NULL)
            http_session_unlink(h, gone);
        pthread_mutex_unlock(&h->lock);
        if (gone == NULL)
            return;
        if (atomic_load(&gone->greeted))
            log_msg(&h->srv->log, LOG_INFO, NULL, "http: session %.8s... idle for %ld s: ended",
                    gone->id, h->idle_ms / 1000);
        else
            log_msg(&h->srv->log, LOG_INFO, NULL,
                    "http: session %.8s... sent no notifications/initialized within %d s: ended",
                    gone->id, LIMIT_HTTP_SESSION_UNINIT_S);
        http_session_end(h, gone);
    }
}
