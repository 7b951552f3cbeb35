/*
 * http_stream.c: the event stream as libmicrohttpd pulls it (what is queued, then a wait
 * while the connection is suspended), and room for long-lived streams (GET streams,
 * subscriptions/listen): a share of the connections in all, a share of those per client.
 */
#include "transport/http_int.h"
#include "lib/log.h"
#include "lib/status.h"
#include "served/server.h"

#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

size_t http_events_take(struct http_conn *c, char *buf, size_t max)
{
    size_t n = c->events.len - c->events_at;

    if (n > max)
        n = max;
    memcpy(buf, c->events.buf + c->events_at, n);
    c->events_at += n;
    if (c->events_at == c->events.len) {
        /* An event lost to memory stays known once the rest is sent (http_events_read). */
        int lost = c->events.nomem;

        strbuf_reset(&c->events);
        c->events.nomem = lost;
        c->events_at = 0;
    } else if (c->events_at > c->events.len / 2) {
        /* A stream that never quite catches up must not keep what it sent. */
        memmove(c->events.buf, c->events.buf + c->events_at, c->events.len - c->events_at);
        c->events.len -= c->events_at;
        c->events.buf[c->events.len] = '\0';
        c->events_at = 0;
    }
    return n;
}

static ssize_t http_events_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    const struct http *h = ((struct http_conn *)cls)->h;
    struct http_conn *c = cls;
    unsigned long seen;
    int settled;

    (void)pos;
    pthread_mutex_lock(&c->lock);
    /* A stream that lost an event to memory breaks off once what it holds is sent: its
     * client sees the failure instead of waiting for an answer that cannot come. */
    if (c->dead || (c->events.nomem && c->events_at >= c->events.len)) {
        pthread_mutex_unlock(&c->lock);
        return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    if (c->events_at < c->events.len) {
        size_t n = http_events_take(c, buf, max);

        http_conn_account(c);
        pthread_mutex_unlock(&c->lock);
        return (ssize_t)n;
    }
    if (c->ended) {
        int unanswered = c->kind == HTTP_POST && c->requests > 0 && c->answers == 0;

        pthread_mutex_unlock(&c->lock);
        return unanswered ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
    }
    seen = c->wakes;
    pthread_mutex_unlock(&c->lock);
    settled = c->kind == HTTP_POST && http_conn_settled(c);
    pthread_mutex_lock(&c->lock);
    if (settled && c->events.len == 0) {
        /* Requests that got no answer (cancelled, by a shutdown say): the stream breaks off,
         * so the client sees them fail instead of waiting for what cannot come. */
        int unanswered = c->requests > 0 && c->answers == 0;

        pthread_mutex_unlock(&c->lock);
        return unanswered ? MHD_CONTENT_READER_END_WITH_ERROR : MHD_CONTENT_READER_END_OF_STREAM;
    }
    /* Nothing to send yet: wait for a wake (unless one came meanwhile). */
    if (c->wakes == seen && !settled) {
        c->suspended = 1;
        h->lib.suspend_connection(c->mc);
    }
    pthread_mutex_unlock(&c->lock);
    return 0;
}

/* The event stream as the response (conn lock held): what is queued goes first. */
struct MHD_Response *http_events_response(struct http_conn *c)
{
    const struct http *h = c->h;
    struct MHD_Response *r =
        h->lib.create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, http_events_read, c, NULL);

    if (r == NULL)
        return NULL;
    c->mode = HTTP_EVENTS;
    http_raw_to_events(c);
    h->lib.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
    h->lib.add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
    /* nginx and its kin pass events on as they come instead of buffering them. */
    h->lib.add_response_header(r, "X-Accel-Buffering", "no");
    return r;
}

/* Who a connection's client is, as far as mcph can tell: its principal (a credential's, or
 * for an anonymous one off loopback its address: http_auth.c). "" when unknown (anonymous on
 * loopback, where every client, and a reverse proxy's, are one). Into buf (size bytes). */
static void http_client_of(const struct http_conn *c, char *buf, size_t size)
{
    const struct principal *who = c->peer.principal;

    snprintf(buf, size, "%s", who != NULL && strcmp(who->id, "anonymous") != 0 ? who->id : "");
}

/* Room for a long-lived stream (a session's GET stream, a subscriptions/listen) for c: at
 * most max_connections / LIMIT_HTTP_STREAM_SHARE in all, the rest kept for short requests,
 * and a share of those per client when mcph knows who it is. NULL when c may have one (it is
 * counted until it closes), else why not (a 503), written into buf. */
const char *http_stream_admit(struct http *h, struct http_conn *c, char *buf, size_t size)
{
    const char *problem = NULL;
    char client[sizeof(c->client)];
    size_t mine = 0, refused = 0;

    /* c is in h->conns already: its client is written under the lock that readers take. */
    http_client_of(c, client, sizeof(client));
    pthread_mutex_lock(&h->lock);
    memcpy(c->client, client, sizeof(client));
    for (const struct http_conn *o = h->conns; o != NULL && client[0] != '\0'; o = o->next)
        mine += o->streaming && strcmp(o->client, client) == 0;
    if (h->nstreams >= h->max_streams) {
        snprintf(buf, size,
                 "Service Unavailable: %zu long-lived streams open (GET streams and "
                 "subscriptions/listen; at most [server] max_connections / %d, the rest is kept "
                 "for requests); try again later",
                 h->nstreams, LIMIT_HTTP_STREAM_SHARE);
        problem = buf;
    } else if (client[0] != '\0' && mine >= h->client_streams) {
        snprintf(buf, size,
                 "Service Unavailable: this client (%s) has %zu long-lived streams open, the "
                 "most one client may hold; close one or try again later",
                 client, mine);
        problem = buf;
    } else {
        c->streaming = 1;
        h->nstreams++;
    }
    /* One line a second at most, however fast a client is refused. */
    if (problem != NULL && ++h->refused > 0 &&
        (!h->refused_once || http_ms_since(&h->refused_logged) >= 1000)) {
        refused = h->refused;
        h->refused = 0;
        h->refused_once = 1;
        clock_gettime(CLOCK_MONOTONIC, &h->refused_logged);
    }
    pthread_mutex_unlock(&h->lock);
    if (refused > 0)
        log_msg(&h->srv->log, LOG_WARNING, NULL,
                "http: %zu long-lived stream(s) refused since the last such line; the last: %s",
                refused, problem + strlen("Service Unavailable: "));
    return problem;
}
