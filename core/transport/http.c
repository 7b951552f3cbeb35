#include "transport/http.h"
#include "transport/httpmsg.h"

#include "lib/base64.h"
#include "protocol/dispatch.h"
#include "wire/jsonrpc.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "protocol/modern.h"
#include "served/registry.h"
#include "wire/revision.h"
#include "lib/sha256.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HTTP_SESSION_HEADER "Mcp-Session-Id"
#define HTTP_VERSION_HEADER "MCP-Protocol-Version"
#define HTTP_MAX_TOKENS 64
/* libmicrohttpd, opened only when mcph listens: a stdio server maps none of it (nor the TLS
 * libraries it brings). Each member is the function of that name with MHD_ before it. */
struct http_lib {
    void *dl;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_create_response_from_callback) *create_response_from_callback;
    __typeof__(MHD_destroy_response) *destroy_response;
    __typeof__(MHD_get_connection_info) *get_connection_info;
    __typeof__(MHD_get_connection_values) *get_connection_values;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_quiesce_daemon) *quiesce_daemon;
    __typeof__(MHD_resume_connection) *resume_connection;
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_suspend_connection) *suspend_connection;
};

/* The table http_lib_open fills: each function's name and where it goes. */
static const struct {
    const char *name;
    size_t at;
} http_lib_syms[] = {
    {"MHD_add_response_header", offsetof(struct http_lib, add_response_header)},
    {"MHD_create_response_from_buffer", offsetof(struct http_lib, create_response_from_buffer)},
    {"MHD_create_response_from_callback", offsetof(struct http_lib, create_response_from_callback)},
    {"MHD_destroy_response", offsetof(struct http_lib, destroy_response)},
    {"MHD_get_connection_info", offsetof(struct http_lib, get_connection_info)},
    {"MHD_get_connection_values", offsetof(struct http_lib, get_connection_values)},
    {"MHD_get_daemon_info", offsetof(struct http_lib, get_daemon_info)},
    {"MHD_lookup_connection_value", offsetof(struct http_lib, lookup_connection_value)},
    {"MHD_queue_response", offsetof(struct http_lib, queue_response)},
    {"MHD_quiesce_daemon", offsetof(struct http_lib, quiesce_daemon)},
    {"MHD_resume_connection", offsetof(struct http_lib, resume_connection)},
    {"MHD_start_daemon", offsetof(struct http_lib, start_daemon)},
    {"MHD_stop_daemon", offsetof(struct http_lib, stop_daemon)},
    {"MHD_suspend_connection", offsetof(struct http_lib, suspend_connection)},
};

/* Open libmicrohttpd and find its functions. Returns STATUS_OK, or STATUS_IO with the reason
 * logged. */
static int http_lib_open(struct http_lib *lib, const struct log *lg)
{
    static const char *const names[] = {"libmicrohttpd.so.12", "libmicrohttpd.so"};

    for (size_t i = 0; i < 2 && lib->dl == NULL; i++)
        lib->dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (lib->dl == NULL) {
        log_msg(lg, LOG_ERROR, NULL,
                "HTTP needs libmicrohttpd (Debian: apt-get install libmicrohttpd12): %s",
                dlerror());
        return STATUS_IO;
    }
    for (size_t i = 0; i < sizeof(http_lib_syms) / sizeof(http_lib_syms[0]); i++) {
        void *sym = dlsym(lib->dl, http_lib_syms[i].name);

        if (sym == NULL) {
            log_msg(lg, LOG_ERROR, NULL, "libmicrohttpd has no %s: it is too old (0.9.75 or newer)",
                    http_lib_syms[i].name);
            return STATUS_IO;
        }
        /* A data pointer to a function pointer, without the cast ISO C does not define. */
        memcpy((char *)lib + http_lib_syms[i].at, &sym, sizeof(sym));
    }
    return STATUS_OK;
}

enum http_kind {
    HTTP_POST,   /* a POST: its answers, JSON or an event stream */
    HTTP_STREAM, /* a GET: a legacy session's event stream */
};

enum http_mode {
    HTTP_WAITING, /* no response yet: the answer is not ready */
    HTTP_EVENTS,  /* an event stream is being sent */
    HTTP_DONE,    /* a whole response was queued */
};

struct http_session;

/* One request being served: the connection's con_cls, and the peer its messages came from. */
struct http_conn {
    struct peer peer;              /* first: the peer is the conn */
    struct out out;                /* the peer's out: its lines come to http_conn_sink */
    struct session own_session;    /* a sessionless (2026-07-28) request's: never initialized */
    struct inflight *own_inflight; /* owned: a sessionless request's; NULL in a session */
    struct http *h;
    struct MHD_Connection *mc;
    enum http_kind kind;
    struct strbuf body;        /* the POST's body as received */
    int too_big;               /* the body passed LIMIT_MESSAGE_BYTES */
    int processed;             /* the body was dispatched */
    int requests;              /* how many requests the body held */
    struct http_session *sess; /* held (its peer): the legacy session, or NULL */
    int new_session;           /* this POST made sess (initialize): its id goes back */
    struct http_conn *prev;    /* in h->conns, under h->lock */
    struct http_conn *next;
    pthread_mutex_t lock; /* guards everything below, and refs' last steps */
    struct strbuf raw;    /* lines written, not yet sent (before the mode is chosen) */
    struct strbuf events; /* the event stream's text not yet sent */
    size_t events_at;     /* how much of events went */
    enum http_mode mode;
    unsigned long wakes; /* bumped by anything that should wake the connection */
    int suspended;       /* MHD holds the connection until resumed */
    int gone;            /* the connection closed: nothing more can be sent */
    int ended;           /* the stream ends once what is queued is sent */
    int dead;            /* the client closed its end: the connection is dropped */
    int answers;         /* answers (responses) written for its requests */
    int mid_line;        /* the last write ended inside a line */
    size_t held;         /* bytes of raw and events counted in server.transport_held */
    int fd;              /* the connection's socket, for the ticker to look at */
    int streaming;       /* a long-lived stream, counted in h->nstreams (under h->lock) */
    char client[64];     /* who opened it, when known ("token 2", "address 192.0.2.7"), or "" */
};

/* A legacy session (Mcp-Session-Id): the home of its POSTs. */
struct http_session {
    struct peer peer; /* first; refs: 1 for the table, +1 for each POST of it */
    struct out out;   /* what nobody asked for: to the GET stream, when one is open */
    struct session session;
    struct inflight inflight;
    struct http *h;
    char id[LIMIT_ID_ROUTE + 34]; /* [session_route-]32 hex digits */
    pthread_mutex_t lock;         /* guards stream, closed */
    int closed;                   /* ended: no stream attaches any more */
    struct http_conn *stream;     /* the GET stream, or NULL */
    struct timespec used;         /* last request (under h->lock) */
    atomic_int greeted;           /* notifications/initialized came (session.initialized) */
};

/* One TCP connection (libmicrohttpd's socket context), watched by the ticker: a request that
 * takes longer than http_timeout_s to arrive (headers and body) is cut, however it trickles. */
struct http_sock {
    int fd;
    struct timespec since;  /* the request being read started (or the last one ended) */
    int answering;          /* the request is whole: its answer may take as long as it takes */
    int cut;                /* shut down by the ticker */
    struct http_sock *prev; /* in h->socks, under h->lock */
    struct http_sock *next;
};

struct http {
    struct server *srv;
    struct http_lib lib; /* libmicrohttpd's functions */
    struct log quiet;    /* mcph's log without its clients: for libmicrohttpd's own lines */
    struct MHD_Daemon *daemon;
    char path[256];
    char *hosts[32]; /* owned: Host names accepted (lower case) */
    size_t nhosts;
    char *origins[32]; /* owned: Origins accepted besides http(s)://ALLOWED-HOST[:port] */
    size_t norigins;
    unsigned char tokens[HTTP_MAX_TOKENS][SHA256_BYTES]; /* hashes of the bearer tokens */
    size_t ntokens;
    pthread_mutex_t lock;           /* guards sessions, conns, stopping */
    struct http_session **sessions; /* owned references */
    size_t nsessions;
    struct http_conn *conns; /* every connection being served */
    struct http_sock *socks; /* every TCP connection open */
    atomic_int stopping;     /* http_stop began: streams end, nothing new starts */
    atomic_int closing;      /* http_quiesce: new requests get 503 and their connection closes */
    size_t max_sessions;     /* [server] max_sessions, as at the start */
    char *route;             /* owned or NULL: [server] session_route */
    long idle_ms;            /* [server] session_idle_s, as at the start */
    long timeout_ms;         /* [server] http_timeout_s, as at the start */
    size_t nstreams;         /* long-lived streams open (GET streams, listen POSTs), under lock */
    size_t max_streams;      /* max_connections / LIMIT_HTTP_STREAM_SHARE */
    size_t client_streams;   /* of which one client may hold (LIMIT_HTTP_CLIENT_STREAM_SHARE) */
    int loopback;            /* the listener is on a loopback address */
    size_t refused;          /* streams refused and not logged yet, under lock */
    struct timespec refused_logged; /* when the last refusal was logged, under lock */
    int refused_once;               /* one was logged (refused_logged is set), under lock */
    pthread_t ticker;               /* keep-alive comments and idle sessions */
    pthread_cond_t tick;
    int ticker_started;
    int listen_fd; /* the listening socket once quiesced (closed after the daemon stops), or -1 */
};

/* --- Small parts. --- */

static long http_ms_since(const struct timespec *t)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t->tv_sec) * 1000L + (now.tv_nsec - t->tv_nsec) / 1000000L;
}

static const char *http_header(const struct http *h, struct MHD_Connection *mc, const char *name)
{
    return h->lib.lookup_connection_value(mc, MHD_HEADER_KIND, name);
}

/* A header's value without the optional whitespace around it (RFC 9110 5.5), copied into buf
 * (size bytes; a longer value is cut). NULL when the header is absent. */
static const char *http_value(const struct http *h, struct MHD_Connection *mc, const char *name,
                              char *buf, size_t size)
{
    const char *v = http_header(h, mc, name);
    size_t n;

    if (v == NULL)
        return NULL;
    v += strspn(v, " \t");
    n = strlen(v);
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    if (n >= size)
        n = size - 1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    return buf;
}

/* A JSON-RPC error with id null, as the body of an HTTP error. Owned text. */
static char *http_error_text(int code, const char *message)
{
    cJSON *msg = jsonrpc_error(NULL, code, message, NULL);
    char *text = msg ? cJSON_PrintUnformatted(msg) : NULL;

    cJSON_Delete(msg);
    return text;
}

static enum MHD_Result http_queue(const struct http *h, struct MHD_Connection *mc, unsigned status,
                                  struct MHD_Response *r)
{
    enum MHD_Result rc;

    if (r == NULL)
        return MHD_NO;
    rc = h->lib.queue_response(mc, status, r);
    h->lib.destroy_response(r);
    return rc;
}

static struct MHD_Response *http_json_response(const struct http *h, const char *text, size_t len)
{
    struct MHD_Response *r =
        h->lib.create_response_from_buffer(len, (void *)text, MHD_RESPMEM_MUST_COPY);

    if (r != NULL)
        h->lib.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    return r;
}

/* An HTTP error whose body is a JSON-RPC error (id null). */
static enum MHD_Result http_fail(const struct http *h, struct MHD_Connection *mc, unsigned status,
                                 int code, const char *message)
{
    char *text = http_error_text(code, message);
    struct MHD_Response *r = http_json_response(h, text ? text : "", text ? strlen(text) : 0);

    free(text);
    if (r != NULL && status == MHD_HTTP_METHOD_NOT_ALLOWED)
        h->lib.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, POST, DELETE");
    if (r != NULL && status == MHD_HTTP_SERVICE_UNAVAILABLE)
        h->lib.add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    return http_queue(h, mc, status, r);
}

/* --- Streams: what a peer's out writes, queued for the connection. --- */

/* Wake a connection that waits for something to send. conn lock held. */
static void http_wake(struct http_conn *c)
{
    const struct http *h = c->h;
    c->wakes++;
    if (c->suspended) {
        c->suspended = 0;
        h->lib.resume_connection(c->mc);
    }
}

/* Every whole line of raw to events. conn lock held. */
static void http_raw_to_events(struct http_conn *c)
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
static void http_count_answers(struct http_conn *c, const struct iovec *v, int cnt)
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
static void http_conn_account(struct http_conn *c)
{
    size_t now = c->raw.len + c->events.len - c->events_at;

    if (now >= c->held)
        atomic_fetch_add(&c->h->srv->transport_held, now - c->held);
    else
        atomic_fetch_sub(&c->h->srv->transport_held, c->held - now);
    c->held = now;
}

/* Lines for c: kept for its response. Returns STATUS_IO when c can take no more. */
static int http_conn_push(struct http_conn *c, const struct iovec *v, int cnt)
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
    }
    pthread_mutex_unlock(&c->lock);
    return status;
}

static int http_conn_sink(void *ctx, const struct iovec *v, int cnt)
{
    return http_conn_push(ctx, v, cnt);
}

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

/* --- Sessions. --- */

static void http_session_free(struct peer *p)
{
    struct http_session *s = (struct http_session *)p;

    /* Again, for what a POST of the session did after it ended (a subscribe, say). */
    server_remove_peer(s->h->srv, &s->peer);
    subs_unsubscribe_all(&s->h->srv->subs, &s->peer);
    out_release(&s->out);
    session_release(&s->session);
    inflight_release(&s->inflight);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static struct http_session *http_session_new(struct http *h)
{
    struct http_session *s = calloc(1, sizeof(*s));
    unsigned char rnd[16];

    if (s == NULL || getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
        free(s);
        return NULL;
    }
    char hex[33];

    for (size_t i = 0; i < sizeof(rnd); i++)
        snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
    snprintf(s->id, sizeof(s->id), "%s%s%s", h->route ? h->route : "", h->route ? "-" : "", hex);
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
                            .free = http_session_free};
    atomic_init(&s->peer.refs, 1);
    atomic_init(&s->greeted, 0);
    clock_gettime(CLOCK_MONOTONIC, &s->used);
    return s;
}

/* The session with this id, held (peer_drop it), or NULL. */
static struct http_session *http_session_find(struct http *h, const char *id)
{
    struct http_session *found = NULL;

    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; i < h->nsessions && found == NULL; i++) {
        if (strcmp(h->sessions[i]->id, id) == 0)
            found = h->sessions[i];
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
static void http_session_end(struct http *h, struct http_session *s)
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
static int http_session_add(struct http *h, struct http_session *s)
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

/* --- Connections. --- */

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

static struct http_conn *http_conn_new(struct http *h, struct MHD_Connection *mc,
                                       enum http_kind kind)
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
        .out = &c->out, .session = &c->own_session, .home = &c->peer, .release = http_conn_release};
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
static void http_conn_close(struct http_conn *c, int aborted)
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

static void http_completed(void *cls, struct MHD_Connection *mc, void **con_cls,
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

static void http_notify_connection(void *cls, struct MHD_Connection *mc, void **socket_context,
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
static int http_conn_settled(struct http_conn *c)
{
    return atomic_load(&c->peer.refs) == 1 && !subs_listening(&c->h->srv->subs, &c->peer);
}

/* Whether the client closed its end of socket fd (a peer that is gone; a suspended connection
 * is not watched by libmicrohttpd, so this is how its close is seen). */
static int http_fd_closed(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLRDHUP};

    return fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* The client of c went away while c waited: a sessionless request's calls are cancelled (the
 * spec's cancellation for 2026-07-28), and c is woken to be dropped. h->lock held. */
static void http_conn_dead(struct http_conn *c)
{
    pthread_mutex_lock(&c->lock);
    c->dead = 1;
    http_wake(c);
    pthread_mutex_unlock(&c->lock);
    if (c->own_inflight != NULL)
        inflight_cancel_all(c->own_inflight);
}

/* --- The event stream. --- */

static ssize_t http_events_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    const struct http *h = ((struct http_conn *)cls)->h;
    struct http_conn *c = cls;
    unsigned long seen;
    int settled;

    (void)pos;
    pthread_mutex_lock(&c->lock);
    if (c->dead) {
        pthread_mutex_unlock(&c->lock);
        return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    if (c->events_at < c->events.len) {
        size_t n = c->events.len - c->events_at;

        if (n > max)
            n = max;
        memcpy(buf, c->events.buf + c->events_at, n);
        c->events_at += n;
        if (c->events_at == c->events.len) {
            strbuf_reset(&c->events);
            c->events_at = 0;
        } else if (c->events_at > c->events.len / 2) {
            /* A stream that never quite catches up must not keep what it sent. */
            memmove(c->events.buf, c->events.buf + c->events_at, c->events.len - c->events_at);
            c->events.len -= c->events_at;
            c->events.buf[c->events.len] = '\0';
            c->events_at = 0;
        }
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
static struct MHD_Response *http_events_response(struct http_conn *c)
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

/* --- Who the client is, and room for its streams. --- */

/* The bearer token against every one configured, each compared in full (constant time).
 * *which: the one it is (its line among the tokens), or -1 (none configured, or no match). */
static int http_token_ok(const struct http *h, const char *authorization, int *which)
{
    unsigned char given[SHA256_BYTES];
    int ok = 0;

    *which = -1;
    if (h->ntokens == 0)
        return 1;
    if (authorization == NULL || strncasecmp(authorization, "Bearer ", 7) != 0)
        return 0;
    authorization += 7;
    authorization += strspn(authorization, " ");
    sha256_hmac("mcph", 4, authorization, strlen(authorization), given);
    for (size_t i = 0; i < h->ntokens; i++) {
        int same = sha256_equal(given, h->tokens[i], SHA256_BYTES);

        ok |= same;
        *which = same ? (int)i : *which;
    }
    return ok;
}

/* Who a connection's client is, as far as mcph can tell: its bearer token, else its address
 * when the listener is not on loopback (there every client, and a reverse proxy's, share one).
 * "" when unknown. Into buf (size bytes). */
static void http_client_of(const struct http *h, struct MHD_Connection *mc, char *buf, size_t size)
{
    char auth_buf[1024], addr[INET6_ADDRSTRLEN];
    const char *authorization =
        http_value(h, mc, MHD_HTTP_HEADER_AUTHORIZATION, auth_buf, sizeof(auth_buf));
    const union MHD_ConnectionInfo *info;
    const struct sockaddr *sa;
    int which;

    buf[0] = '\0';
    if (http_token_ok(h, authorization, &which) && which >= 0) {
        snprintf(buf, size, "token %d", which + 1);
        return;
    }
    info = h->loopback ? NULL : h->lib.get_connection_info(mc, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    sa = info != NULL ? info->client_addr : NULL;
    if (sa != NULL && sa->sa_family == AF_INET &&
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, addr,
                  sizeof(addr)) != NULL)
        snprintf(buf, size, "address %s", addr);
    else if (sa != NULL && sa->sa_family == AF_INET6 &&
             inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, addr,
                       sizeof(addr)) != NULL)
        snprintf(buf, size, "address %s", addr);
}

/* Room for a long-lived stream (a session's GET stream, a subscriptions/listen) for c: at
 * most max_connections / LIMIT_HTTP_STREAM_SHARE in all, the rest kept for short requests,
 * and a share of those per client when mcph knows who it is. NULL when c may have one (it is
 * counted until it closes), else why not (a 503), written into buf. */
static const char *http_stream_admit(struct http *h, struct http_conn *c, char *buf, size_t size)
{
    const char *problem = NULL;
    char client[sizeof(c->client)];
    size_t mine = 0, refused = 0;

    /* c is in h->conns already: its client is written under the lock that readers take. */
    http_client_of(h, c->mc, client, sizeof(client));
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

/* --- Answering a POST. --- */

static void http_add_session_header(struct http_conn *c, struct MHD_Response *r)
{
    const struct http *h = c->h;
    if (r != NULL && c->new_session)
        h->lib.add_response_header(r, HTTP_SESSION_HEADER, c->sess->id);
}

/* The HTTP status of a POST answered with one message (raw, one line). conn lock held. */
static unsigned http_status_of(const struct http_conn *c)
{
    return httpmsg_status(c->raw.buf, c->raw.len, c->requests, c->sess != NULL);
}

/* Answer the POST if it is time (the access handler, on its first go and after each wake):
 * JSON when its one answer is all it gets, an event stream when more comes or while it waits
 * with something to send, 202 when it held no request; else wait. */
static enum MHD_Result http_post_answer(struct http_conn *c)
{
    const struct http *h = c->h;
    struct MHD_Response *r = NULL;
    unsigned status = MHD_HTTP_OK;
    unsigned long seen;
    int settled;

    pthread_mutex_lock(&c->lock);
    seen = c->wakes;
    pthread_mutex_unlock(&c->lock);
    settled = http_conn_settled(c);
    pthread_mutex_lock(&c->lock);
    if (c->dead) {
        pthread_mutex_unlock(&c->lock);
        return MHD_NO;
    }
    if (c->mode != HTTP_WAITING) {
        pthread_mutex_unlock(&c->lock);
        return MHD_YES;
    }
    if (settled && c->raw.len == 0 && c->requests > 0) {
        /* Its requests were cancelled and get no answer: no response, the connection closes. */
        pthread_mutex_unlock(&c->lock);
        return MHD_NO;
    }
    if (settled && c->raw.len == 0 && c->requests == 0) {
        r = h->lib.create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
        status = MHD_HTTP_ACCEPTED;
        c->mode = HTTP_DONE;
    } else if (settled && memchr(c->raw.buf, '\n', c->raw.len) == c->raw.buf + c->raw.len - 1) {
        r = http_json_response(h, c->raw.buf, c->raw.len - 1);
        status = http_status_of(c);
        c->mode = HTTP_DONE;
    } else if (settled || httpmsg_has_message(c->raw.buf, c->raw.len) ||
               atomic_load(&c->h->stopping)) {
        r = http_events_response(c);
        c->ended = settled || atomic_load(&c->h->stopping);
    } else if (c->wakes == seen) {
        c->suspended = 1;
        h->lib.suspend_connection(c->mc);
    }
    pthread_mutex_unlock(&c->lock);
    if (r == NULL)
        return c->mode == HTTP_WAITING ? MHD_YES : MHD_NO;
    http_add_session_header(c, r);
    return http_queue(h, c->mc, status, r);
}

/* Whether a POST's body is a 2026-07-28 message: its _meta names a version, or its header names
 * a version of that era. */
static int http_is_modern(const struct http *h, struct MHD_Connection *mc, const cJSON *root)
{
    char buf[64];
    const char *version = http_value(h, mc, HTTP_VERSION_HEADER, buf, sizeof(buf));
    const cJSON *first = cJSON_IsArray(root) ? cJSON_GetArrayItem(root, 0) : root;

    return httpmsg_meta_version(first) != NULL ||
           (version != NULL && revision_has(revision_parse(version), REVF_MODERN));
}

/* Looking up one Mcp-Param-NAME header: every line of it is counted. */
struct http_param_look {
    const struct http *h;
    struct MHD_Connection *mc;
    const char *name;  /* NAME */
    const char *found; /* the first line's value */
    int count;
    char value[4096]; /* found without the white space around it */
};

static enum MHD_Result http_param_seen(void *cls, enum MHD_ValueKind kind, const char *key,
                                       const char *value)
{
    struct http_param_look *look = cls;

    (void)kind;
    if (strncasecmp(key, "Mcp-Param-", 10) == 0 && strcasecmp(key + 10, look->name) == 0 &&
        look->count++ == 0)
        look->found = value ? value : "";
    return MHD_YES;
}

/* httpmsg_param_fn over the request's headers. */
static const char *http_param_header(void *ctx, const char *name, int *count)
{
    struct http_param_look *look = ctx;
    const char *v;
    size_t n;

    look->name = name;
    look->found = NULL;
    look->count = 0;
    look->h->lib.get_connection_values(look->mc, MHD_HEADER_KIND, http_param_seen, look);
    *count = look->count;
    if (look->found == NULL)
        return NULL;
    v = look->found + strspn(look->found, " \t");
    n = strlen(v);
    while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    if (n >= sizeof(look->value))
        n = sizeof(look->value) - 1;
    memcpy(look->value, v, n);
    look->value[n] = '\0';
    return look->value;
}

/* A 2026-07-28 tools/call's Mcp-Param-* headers against its arguments, as the tool's
 * inputSchema (x-mcp-header) in the set served now mirrors them. An unknown tool is left to
 * dispatch. NULL, or what is wrong. */
static const char *http_check_params(const struct http *h, struct MHD_Connection *mc,
                                     const cJSON *root, char *buf, size_t size)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "name"));
    struct registry *reg;
    const struct registry_tool *t;
    struct http_param_look *look;
    const char *problem = NULL;

    if (name == NULL)
        return NULL;
    look = malloc(sizeof(*look));
    if (look == NULL)
        return "out of memory";
    look->h = h;
    look->mc = mc;
    reg = server_hold_registry(h->srv);
    t = reg != NULL ? registry_find_tool(reg, name) : NULL;
    if (t != NULL && t->def->input_schema != NULL)
        problem = httpmsg_check_params(t->def->input_schema,
                                       cJSON_GetObjectItemCaseSensitive(params, "arguments"),
                                       http_param_header, look, buf, size);
    if (reg != NULL)
        server_release_registry(h->srv, reg);
    free(look);
    return problem;
}

/* A 2026-07-28 request's headers against its body: each must be there and say what the body
 * says (a notification needs none), and so must the Mcp-Param-* headers a tool's schema asks
 * for. Returns NULL, or what is wrong (a -32020 HeaderMismatch). */
static const char *http_check_mirrored(const struct http *h, struct MHD_Connection *mc,
                                       const cJSON *root, char *buf, size_t size)
{
    const char *method, *problem, *name;
    char value[1024];
    int needed;

    if (!cJSON_IsObject(root))
        return "Header mismatch: a 2026-07-28 POST carries one message, not a batch";
    method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "method"));
    if (method == NULL || cJSON_GetObjectItemCaseSensitive(root, "id") == NULL)
        return NULL;
    problem = httpmsg_check_header(HTTP_VERSION_HEADER,
                                   http_value(h, mc, HTTP_VERSION_HEADER, value, sizeof(value)),
                                   httpmsg_meta_version(root), 1, buf, size);
    if (problem == NULL)
        problem = httpmsg_check_header("Mcp-Method",
                                       http_value(h, mc, "Mcp-Method", value, sizeof(value)),
                                       method, 1, buf, size);
    /* Mcp-Name belongs to the methods that name something; elsewhere it is not looked at. */
    name = httpmsg_name_of(root, method, &needed);
    if (problem == NULL && needed)
        problem =
            httpmsg_check_header("Mcp-Name", http_value(h, mc, "Mcp-Name", value, sizeof(value)),
                                 name, needed, buf, size);
    if (problem == NULL && strcmp(method, "tools/call") == 0)
        problem = http_check_params(h, mc, root, buf, size);
    return problem;
}

/* A legacy session's MCP-Protocol-Version must be one mcph speaks (-32000, as the SDK). */
static const char *http_check_session_version(struct http_conn *c, char *buf, size_t size)
{
    const struct http *h = c->h;
    char value[64];
    const char *version = http_value(h, c->mc, HTTP_VERSION_HEADER, value, sizeof(value));

    if (version == NULL || revision_parse(version) != REV_NONE)
        return NULL;
    snprintf(buf, size,
             "Bad Request: Unsupported protocol version: %.40s (supported versions: "
             "2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)",
             version);
    return buf;
}

/* Bind the POST to its peer's state: a session's, or its own (sessionless). */
static int http_bind(struct http_conn *c)
{
    if (c->sess != NULL) {
        c->peer.session = &c->sess->session;
        c->peer.inflight = &c->sess->inflight;
        c->peer.home = &c->sess->peer;
        return STATUS_OK;
    }
    struct inflight *own = malloc(sizeof(*own));

    if (own == NULL)
        return STATUS_NOMEM;
    inflight_init(own);
    c->peer.inflight = own;
    /* Seen by http_cancel_all (a shutdown) from now on. */
    pthread_mutex_lock(&c->h->lock);
    c->own_inflight = own;
    pthread_mutex_unlock(&c->h->lock);
    return STATUS_OK;
}

/* An initialize made this POST a new session: keep it when the handshake succeeded. */
static void http_keep_session(struct http_conn *c)
{
    int status;

    if (!c->new_session)
        return;
    if (c->sess->session.rev == REV_NONE) {
        c->new_session = 0;
        return;
    }
    status = http_session_add(c->h, c->sess);
    if (status != STATUS_OK) {
        log_msg(&c->h->srv->log, LOG_WARNING, NULL,
                "http: %zu sessions open ([server] max_sessions); a new client is refused",
                c->h->max_sessions);
        c->new_session = 0;
        pthread_mutex_lock(&c->lock);
        strbuf_reset(&c->raw);
        pthread_mutex_unlock(&c->lock);
        c->requests = -1;
    }
}

/* A 400 whose body is a JSON-RPC error about the message root (its id, when it has one). */
static enum MHD_Result http_refuse(struct http_conn *c, const cJSON *root, int code,
                                   const char *message)
{
    const struct http *h = c->h;
    const cJSON *id = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "id") : NULL;
    cJSON *msg = jsonrpc_error(jsonrpc_valid_id(id) ? id : NULL, code, message, NULL);
    char *text = msg ? cJSON_PrintUnformatted(msg) : NULL;
    struct MHD_Response *r = http_json_response(h, text ? text : "", text ? strlen(text) : 0);

    cJSON_Delete(msg);
    free(text);
    return http_queue(h, c->mc, MHD_HTTP_BAD_REQUEST, r);
}

/* Which peer the POST is: a session's (Mcp-Session-Id, or a new one for initialize), or its
 * own (2026-07-28). Returns NULL, or why it is refused (*code: its JSON-RPC code). */
static const char *http_classify(struct http_conn *c, const cJSON *root, int *code, char *buf,
                                 size_t size)
{
    const struct http *h = c->h;
    const char *method = httpmsg_request_method(root);

    *code = HTTPMSG_ERROR;
    if (c->sess != NULL)
        return http_check_session_version(c, buf, size);
    if (method != NULL && strcmp(method, "initialize") == 0 && !http_is_modern(h, c->mc, root)) {
        c->sess = http_session_new(c->h);
        c->new_session = c->sess != NULL;
        return c->sess != NULL ? NULL : "out of memory";
    }
    if (!http_is_modern(h, c->mc, root))
        return "Bad Request: Mcp-Session-Id header is required (initialize first, or send a "
               "2026-07-28 request)";
    if (cJSON_IsObject(root) && httpmsg_request_method(root) != NULL &&
        httpmsg_meta_version(root) == NULL) {
        *code = JSONRPC_INVALID_PARAMS;
        return "Invalid _meta envelope: MCP-Protocol-Version names 2026-07-28, but the request has "
               "no _meta io.modelcontextprotocol/protocolVersion";
    }
    *code = HTTPMSG_HEADER_MISMATCH;
    return http_check_mirrored(h, c->mc, root, buf, size);
}

/* Whether a POST's body opens a long-lived stream: a subscriptions/listen request in it. */
static int http_listens(const cJSON *root)
{
    const cJSON *el;
    const char *method = httpmsg_request_method(root);

    if (method != NULL)
        return strcmp(method, "subscriptions/listen") == 0;
    if (!cJSON_IsArray(root))
        return 0;
    cJSON_ArrayForEach(el, root)
    {
        method = httpmsg_request_method(el);
        if (method != NULL && strcmp(method, "subscriptions/listen") == 0)
            return 1;
    }
    return 0;
}

/* The POST's body is whole: check it, dispatch it, answer or wait. */
static enum MHD_Result http_post(struct http_conn *c)
{
    const struct http *h = c->h;
    struct server *srv = c->h->srv;
    char sid_buf[128];
    const char *sid = http_value(h, c->mc, HTTP_SESSION_HEADER, sid_buf, sizeof(sid_buf));
    const char *problem;
    char buf[320];
    cJSON *root;
    size_t cost = 0;
    int code;

    if (c->too_big) {
        snprintf(buf, sizeof(buf), "Payload Too Large: a body longer than %u bytes",
                 LIMIT_MESSAGE_BYTES);
        return http_fail(h, c->mc, MHD_HTTP_CONTENT_TOO_LARGE, HTTPMSG_ERROR, buf);
    }
    if (sid != NULL && (c->sess = http_session_find(c->h, sid)) == NULL)
        return http_fail(h, c->mc, MHD_HTTP_NOT_FOUND, HTTPMSG_SESSION_NOT_FOUND,
                         "Session not found");
    root = dispatch_parse(srv, &c->peer, c->body.buf ? c->body.buf : "", c->body.len, &cost);
    if (root == NULL)
        return http_post_answer(c);
    problem = http_classify(c, root, &code, buf, sizeof(buf));
    if (problem == NULL && http_bind(c) != STATUS_OK)
        problem = "out of memory";
    if (problem != NULL) {
        enum MHD_Result rc = http_refuse(c, root, code, problem);

        cJSON_Delete(root);
        c->new_session = 0;
        return rc;
    }
    if (http_listens(root) && http_stream_admit(c->h, c, buf, sizeof(buf)) != NULL) {
        cJSON_Delete(root);
        return http_fail(h, c->mc, MHD_HTTP_SERVICE_UNAVAILABLE, HTTPMSG_ERROR, buf);
    }
    c->requests = httpmsg_count_requests(root);
    /* What it holds in flight is what it costs parsed ([server] max_pending_mb). */
    dispatch_root(srv, &c->peer, root, cost > c->body.len ? cost : c->body.len);
    strbuf_release(&c->body);
    /* A costly message answered (or run) by now leaves its tree's blocks free. */
    mcph_json_trim(cost);
    http_keep_session(c);
    if (c->sess != NULL && !atomic_load(&c->sess->greeted)) {
        int greeted;

        pthread_mutex_lock(&srv->lock);
        greeted = c->sess->session.initialized;
        pthread_mutex_unlock(&srv->lock);
        atomic_store(&c->sess->greeted, greeted);
    }
    if (c->requests < 0)
        return http_fail(h, c->mc, MHD_HTTP_SERVICE_UNAVAILABLE, HTTPMSG_ERROR,
                         "Too many sessions open; try again later");
    return http_post_answer(c);
}

static void http_take_body(struct http_conn *c, const char *data, size_t len)
{
    if (c->too_big || c->body.len + len > LIMIT_MESSAGE_BYTES) {
        c->too_big = 1;
        strbuf_release(&c->body);
        return;
    }
    strbuf_add(&c->body, data, len);
    if (c->body.nomem)
        c->too_big = 1;
}

/* --- Before anything is read: who asks, and for what. --- */

static int http_host_allowed(const struct http *h, const char *authority, size_t len)
{
    char host[256];

    httpmsg_host_part(authority, len, host, sizeof(host));
    for (size_t i = 0; i < h->nhosts; i++) {
        if (strcmp(h->hosts[i], host) == 0)
            return 1;
    }
    return 0;
}

/* Origin: absent (not a browser), an allowed host over http(s), or one listed. */
static int http_origin_allowed(const struct http *h, const char *origin)
{
    const char *authority;

    if (origin == NULL)
        return 1;
    for (size_t i = 0; i < h->norigins; i++) {
        if (strcasecmp(h->origins[i], origin) == 0)
            return 1;
    }
    if (strncasecmp(origin, "http://", 7) == 0)
        authority = origin + 7;
    else if (strncasecmp(origin, "https://", 8) == 0)
        authority = origin + 8;
    else
        return 0;
    return http_host_allowed(h, authority, strcspn(authority, "/"));
}

static enum MHD_Result http_unauthorized(const struct http *h, struct MHD_Connection *mc, int given)
{
    char *text =
        http_error_text(HTTPMSG_ERROR, given ? "Unauthorized: the bearer token is not valid"
                                             : "Unauthorized: send Authorization: Bearer TOKEN");
    struct MHD_Response *r = http_json_response(h, text ? text : "", text ? strlen(text) : 0);

    free(text);
    if (r != NULL)
        h->lib.add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
                                   given ? "Bearer realm=\"mcph\", error=\"invalid_token\""
                                         : "Bearer realm=\"mcph\"");
    return http_queue(h, mc, MHD_HTTP_UNAUTHORIZED, r);
}

/* A legacy session's GET stream: its notifications from now on. */
static enum MHD_Result http_open_stream(struct http *h, struct MHD_Connection *mc, void **con_cls)
{
    char sid_buf[128];
    const char *sid = http_value(h, mc, HTTP_SESSION_HEADER, sid_buf, sizeof(sid_buf));
    struct http_session *s;
    struct http_conn *c;
    struct MHD_Response *r;
    char buf[320];

    if (!httpmsg_accepts(http_header(h, mc, MHD_HTTP_HEADER_ACCEPT), "text/event-stream"))
        return http_fail(h, mc, MHD_HTTP_NOT_ACCEPTABLE, HTTPMSG_ERROR,
                         "Not Acceptable: Client must accept text/event-stream");
    if (sid == NULL)
        return http_fail(h, mc, MHD_HTTP_BAD_REQUEST, HTTPMSG_ERROR,
                         "Bad Request: " HTTP_SESSION_HEADER
                         " header is required (GET opens a legacy session's stream; a 2026-07-28 "
                         "client listens with a POST of subscriptions/listen)");
    s = http_session_find(h, sid);
    if (s == NULL)
        return http_fail(h, mc, MHD_HTTP_NOT_FOUND, HTTPMSG_SESSION_NOT_FOUND, "Session not found");
    c = http_conn_new(h, mc, HTTP_STREAM);
    if (c == NULL) {
        peer_drop(&s->peer);
        return MHD_NO;
    }
    c->sess = s;
    if (http_stream_admit(h, c, buf, sizeof(buf)) != NULL) {
        http_conn_close(c, 0);
        return http_fail(h, mc, MHD_HTTP_SERVICE_UNAVAILABLE, HTTPMSG_ERROR, buf);
    }
    pthread_mutex_lock(&s->lock);
    if (s->stream != NULL && http_fd_closed(s->stream->fd)) {
        /* The old stream's client is gone (a reconnect): this one takes its place. */
        pthread_mutex_lock(&s->stream->lock);
        s->stream->dead = 1;
        http_wake(s->stream);
        pthread_mutex_unlock(&s->stream->lock);
        s->stream = NULL;
    }
    if (s->stream != NULL || s->closed) {
        int closed = s->closed;

        pthread_mutex_unlock(&s->lock);
        http_conn_close(c, 0);
        if (closed)
            return http_fail(h, mc, MHD_HTTP_NOT_FOUND, HTTPMSG_SESSION_NOT_FOUND,
                             "Session not found");
        return http_fail(h, mc, MHD_HTTP_CONFLICT, HTTPMSG_ERROR,
                         "Conflict: Only one SSE stream is allowed per session");
    }
    s->stream = c;
    pthread_mutex_unlock(&s->lock);
    *con_cls = c;
    pthread_mutex_lock(&c->lock);
    r = http_events_response(c);
    pthread_mutex_unlock(&c->lock);
    return http_queue(h, mc, MHD_HTTP_OK, r);
}

static enum MHD_Result http_delete(struct http *h, struct MHD_Connection *mc)
{
    char sid_buf[128];
    const char *sid = http_value(h, mc, HTTP_SESSION_HEADER, sid_buf, sizeof(sid_buf));
    struct http_session *s;
    int was;

    if (sid == NULL)
        return http_fail(h, mc, MHD_HTTP_BAD_REQUEST, HTTPMSG_ERROR,
                         "Bad Request: " HTTP_SESSION_HEADER
                         " header is required (DELETE ends a legacy session; 2026-07-28 has no "
                         "sessions)");
    s = http_session_find(h, sid);
    if (s == NULL)
        return http_fail(h, mc, MHD_HTTP_NOT_FOUND, HTTPMSG_SESSION_NOT_FOUND, "Session not found");
    pthread_mutex_lock(&h->lock);
    was = http_session_unlink(h, s);
    pthread_mutex_unlock(&h->lock);
    if (was)
        http_session_end(h, s);
    peer_drop(&s->peer);
    return http_queue(h, mc, MHD_HTTP_OK,
                      h->lib.create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT));
}

static enum MHD_Result http_open_post(struct http *h, struct MHD_Connection *mc, void **con_cls)
{
    const char *type = http_header(h, mc, MHD_HTTP_HEADER_CONTENT_TYPE);
    const char *accept = http_header(h, mc, MHD_HTTP_HEADER_ACCEPT);
    const char *length = http_header(h, mc, MHD_HTTP_HEADER_CONTENT_LENGTH);
    struct http_conn *c;

    if (type == NULL || strncasecmp(type, "application/json", 16) != 0 ||
        (type[16] != '\0' && type[16] != ';' && type[16] != ' '))
        return http_fail(h, mc, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, HTTPMSG_ERROR,
                         "Unsupported Media Type: Content-Type must be application/json");
    if (!httpmsg_accepts(accept, "application/json") ||
        !httpmsg_accepts(accept, "text/event-stream"))
        return http_fail(h, mc, MHD_HTTP_NOT_ACCEPTABLE, HTTPMSG_ERROR,
                         "Not Acceptable: Client must accept both application/json and "
                         "text/event-stream");
    if (length != NULL && strtoull(length, NULL, 10) > LIMIT_MESSAGE_BYTES)
        return http_fail(h, mc, MHD_HTTP_CONTENT_TOO_LARGE, HTTPMSG_ERROR,
                         "Payload Too Large: a body longer than 16 MiB");
    c = http_conn_new(h, mc, HTTP_POST);
    if (c == NULL)
        return MHD_NO;
    *con_cls = c;
    return MHD_YES;
}

/* Header lines that must come once, counted; and whether a name was malformed. */
struct http_framing {
    int counts[10];
    int bad_name;
};

static const char *const http_once[] = {
    MHD_HTTP_HEADER_HOST,
    MHD_HTTP_HEADER_CONTENT_LENGTH,
    MHD_HTTP_HEADER_TRANSFER_ENCODING,
    MHD_HTTP_HEADER_CONTENT_TYPE,
    MHD_HTTP_HEADER_AUTHORIZATION,
    MHD_HTTP_HEADER_ORIGIN,
    HTTP_VERSION_HEADER,
    "Mcp-Method",
    "Mcp-Name",
    HTTP_SESSION_HEADER,
};

static enum MHD_Result http_count_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                         const char *value)
{
    struct http_framing *f = cls;

    (void)kind;
    (void)value;
    if (strpbrk(key, " \t") != NULL)
        f->bad_name = 1;
    for (size_t i = 0; i < sizeof(http_once) / sizeof(http_once[0]); i++) {
        if (strcasecmp(key, http_once[i]) == 0)
            f->counts[i]++;
    }
    return MHD_YES;
}

/* What is wrong with the request's framing (RFC 9112: a header that must come once came
 * twice, a name with white space, a length and a chunked body at once), or NULL. A request
 * refused here is answered and its connection closed. */
static const char *http_check_framing(const struct http *h, struct MHD_Connection *mc,
                                      unsigned *status)
{
    struct http_framing f = {0};
    const char *te = http_header(h, mc, MHD_HTTP_HEADER_TRANSFER_ENCODING);

    h->lib.get_connection_values(mc, MHD_HEADER_KIND, http_count_header, &f);
    *status = MHD_HTTP_BAD_REQUEST;
    if (f.bad_name)
        return "Bad Request: white space in a header name";
    for (size_t i = 0; i < sizeof(http_once) / sizeof(http_once[0]); i++) {
        if (f.counts[i] > 1)
            return "Bad Request: a header that must come once came twice";
    }
    if (f.counts[1] > 0 && f.counts[2] > 0)
        return "Bad Request: Content-Length and Transfer-Encoding together";
    if (te != NULL && strcasecmp(te, "chunked") != 0) {
        *status = MHD_HTTP_NOT_IMPLEMENTED;
        return "Not Implemented: only the chunked transfer coding is taken";
    }
    return NULL;
}

/* The request is whole (headers, and body when it has one): the ticker's limit on how long
 * a request may take to arrive no longer applies to it. */
static void http_sock_answering(struct http *h, struct MHD_Connection *mc)
{
    const union MHD_ConnectionInfo *info =
        h->lib.get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct http_sock *sock = info != NULL ? info->socket_context : NULL;

    if (sock == NULL)
        return;
    pthread_mutex_lock(&h->lock);
    sock->answering = 1;
    pthread_mutex_unlock(&h->lock);
}

/* A refusal before the body is read: the connection closes after it (what follows on it may
 * be the rest of a body nobody framed). */
static enum MHD_Result http_refuse_framing(const struct http *h, struct MHD_Connection *mc,
                                           unsigned status, const char *message)
{
    char *text = http_error_text(HTTPMSG_ERROR, message);
    struct MHD_Response *r = http_json_response(h, text ? text : "", text ? strlen(text) : 0);

    free(text);
    if (r != NULL)
        h->lib.add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    return http_queue(h, mc, status, r);
}

/* A new request, headers read: who may ask, and what. */
static enum MHD_Result http_begin(struct http *h, struct MHD_Connection *mc, const char *url,
                                  const char *method, void **con_cls)
{
    char host_buf[256], auth_buf[1024], origin_buf[256], buf[400];
    const char *host = http_value(h, mc, MHD_HTTP_HEADER_HOST, host_buf, sizeof(host_buf));
    const char *authorization =
        http_value(h, mc, MHD_HTTP_HEADER_AUTHORIZATION, auth_buf, sizeof(auth_buf));
    const char *origin = http_value(h, mc, MHD_HTTP_HEADER_ORIGIN, origin_buf, sizeof(origin_buf));
    const char *problem;
    unsigned status;
    int which;

    if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
        http_sock_answering(h, mc);
    /* Shutting down: a request on a connection kept alive is turned away. */
    if (atomic_load(&h->closing))
        return http_refuse_framing(h, mc, MHD_HTTP_SERVICE_UNAVAILABLE,
                                   "Service Unavailable: mcph is shutting down");
    problem = http_check_framing(h, mc, &status);
    if (problem != NULL)
        return http_refuse_framing(h, mc, status, problem);
    if (host == NULL || !http_host_allowed(h, host, strlen(host))) {
        snprintf(buf, sizeof(buf), "Invalid Host header: %.64s (see [server] allowed_hosts)",
                 host ? host : "null");
        return http_fail(h, mc, MHD_HTTP_FORBIDDEN, HTTPMSG_ERROR, buf);
    }
    if (!http_origin_allowed(h, origin)) {
        snprintf(buf, sizeof(buf), "Invalid Origin header: %.64s (see [server] allowed_origins)",
                 origin);
        return http_fail(h, mc, MHD_HTTP_FORBIDDEN, HTTPMSG_ERROR, buf);
    }
    if (strcmp(url, h->path) != 0) {
        snprintf(buf, sizeof(buf), "Not Found: the MCP endpoint is %s ([server] http_path)",
                 h->path);
        return http_fail(h, mc, MHD_HTTP_NOT_FOUND, HTTPMSG_ERROR, buf);
    }
    if (!http_token_ok(h, authorization, &which))
        return http_unauthorized(h, mc, authorization != NULL);
    if (strcmp(method, MHD_HTTP_METHOD_POST) == 0)
        return http_open_post(h, mc, con_cls);
    if (strcmp(method, MHD_HTTP_METHOD_GET) == 0)
        return http_open_stream(h, mc, con_cls);
    if (strcmp(method, MHD_HTTP_METHOD_DELETE) == 0)
        return http_delete(h, mc);
    return http_fail(h, mc, MHD_HTTP_METHOD_NOT_ALLOWED, HTTPMSG_ERROR,
                     "Method not allowed: use POST (GET and DELETE for a legacy session)");
}

static enum MHD_Result http_handle(void *cls, struct MHD_Connection *mc, const char *url,
                                   const char *method, const char *version, const char *upload_data,
                                   size_t *upload_size, void **con_cls)
{
    struct http_conn *c = *con_cls;

    (void)version;
    if (c == NULL)
        return http_begin(cls, mc, url, method, con_cls);
    if (c->kind != HTTP_POST)
        return MHD_YES;
    if (!c->processed) {
        if (*upload_size > 0) {
            http_take_body(c, upload_data, *upload_size);
            *upload_size = 0;
            return MHD_YES;
        }
        c->processed = 1;
        http_sock_answering(c->h, mc);
        return http_post(c);
    }
    return http_post_answer(c);
}

/* --- The ticker: keep-alive comments on open streams, and sessions left idle. --- */

static void http_keepalive(struct http *h)
{
    pthread_mutex_lock(&h->lock);
    for (struct http_conn *c = h->conns; c != NULL; c = c->next) {
        pthread_mutex_lock(&c->lock);
        if (c->mode == HTTP_EVENTS && !c->gone && !c->ended) {
            strbuf_addstr(&c->events, ": keep-alive\n\n");
            http_wake(c);
        }
        pthread_mutex_unlock(&c->lock);
    }
    pthread_mutex_unlock(&h->lock);
}

static void http_expire(struct http *h)
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

/* A request still arriving after http_timeout_s (a slowloris trickle: libmicrohttpd's own
 * time-out only counts silence) is cut; the daemon then closes the connection. h->lock held. */
static void http_cut_slow(struct http *h)
{
    for (struct http_sock *sock = h->socks; sock != NULL; sock = sock->next) {
        if (sock->answering || sock->cut || http_ms_since(&sock->since) < h->timeout_ms)
            continue;
        sock->cut = 1;
        shutdown(sock->fd, SHUT_RDWR);
    }
}

/* Connections waiting (suspended, unwatched by the daemon) whose client went away. */
static void http_find_dead(struct http *h)
{
    for (struct http_conn *c = h->conns; c != NULL; c = c->next) {
        int waiting;

        pthread_mutex_lock(&c->lock);
        waiting = c->suspended && !c->dead && !c->gone;
        pthread_mutex_unlock(&c->lock);
        if (waiting && http_fd_closed(c->fd))
            http_conn_dead(c);
    }
}

static void *http_ticker(void *arg)
{
    struct http *h = arg;
    struct timespec last, expired;

    clock_gettime(CLOCK_MONOTONIC, &last);
    expired = last;
    pthread_mutex_lock(&h->lock);
    while (!atomic_load(&h->stopping)) {
        struct timespec until;

        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += LIMIT_HTTP_TICK_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&h->tick, &h->lock, &until);
        if (atomic_load(&h->stopping))
            break;
        http_cut_slow(h);
        http_find_dead(h);
        pthread_mutex_unlock(&h->lock);
        if (http_ms_since(&expired) >= 1000) {
            http_expire(h);
            clock_gettime(CLOCK_MONOTONIC, &expired);
        }
        if (http_ms_since(&last) >= LIMIT_HTTP_KEEPALIVE_MS) {
            http_keepalive(h);
            clock_gettime(CLOCK_MONOTONIC, &last);
        }
        pthread_mutex_lock(&h->lock);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* --- Start and stop. --- */

static int http_add_name(char **list, size_t *n, size_t cap, const char *name, size_t len)
{
    char *copy;

    if (*n >= cap || len == 0)
        return *n >= cap ? STATUS_LIMIT : STATUS_OK;
    copy = strndup(name, len);
    if (copy == NULL)
        return STATUS_NOMEM;
    for (char *p = copy; *p != '\0'; p++)
        *p = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
    list[(*n)++] = copy;
    return STATUS_OK;
}

/* Names separated by spaces or commas. */
static int http_add_names(char **list, size_t *n, size_t cap, const char *names)
{
    int status = STATUS_OK;

    for (const char *p = names; p != NULL && *p != '\0' && status == STATUS_OK;) {
        size_t len;

        p += strspn(p, " \t,");
        len = strcspn(p, " \t,");
        status = http_add_name(list, n, cap, p, len);
        p += len;
    }
    return status;
}

/* Whether the listen address is a loopback one (127.0.0.0/8, ::1, or 127/8 mapped to IPv6). */
static int http_is_loopback(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;

    if (strcmp(host, "localhost") == 0)
        return 1;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, host, &a6) != 1)
        return 0;
    return IN6_IS_ADDR_LOOPBACK(&a6) || (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
}

/* The Host names answered to: the loopback ones when bound there, and those configured. */
static int http_setup_names(struct http *h, const char *bind_host)
{
    const struct config *cfg = &h->srv->cfg;
    int status = STATUS_OK;

    if (http_is_loopback(bind_host)) {
        status = http_add_names(h->hosts, &h->nhosts, 32, "localhost 127.0.0.1 [::1]");
    } else if (cfg->allowed_hosts == NULL) {
        log_msg(&h->srv->log, LOG_ERROR, NULL,
                "%s: [server] listen = %s is not a loopback address: set [server] "
                "allowed_hosts to the names clients reach it by (a DNS rebinding guard)",
                cfg->file, cfg->listen);
        return STATUS_INVALID;
    }
    if (status == STATUS_OK)
        status = http_add_names(h->hosts, &h->nhosts, 32, cfg->allowed_hosts);
    if (status == STATUS_OK)
        status = http_add_names(h->origins, &h->norigins, 32, cfg->allowed_origins);
    if (status == STATUS_LIMIT)
        log_msg(&h->srv->log, LOG_ERROR, NULL,
                "%s: [server] allowed_hosts or allowed_origins lists more than 32 names",
                cfg->file);
    return status;
}

/* A whole small file (at most 64 KiB) into sb: [server] `key` (a secret). A file others may
 * read or write gets a warning: the secret is theirs too. STATUS_CONFIG when it is not a
 * regular file (a FIFO would hold the start for as long as nobody writes it). */
static int http_read_file(const struct http *h, const char *key, const char *path,
                          struct strbuf *sb)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    FILE *f;
    char buf[4096];
    struct stat st;
    size_t n;

    if (fd < 0)
        return STATUS_IO;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return STATUS_CONFIG;
    }
    f = fdopen(fd, "r");
    if (f == NULL) {
        close(fd);
        return STATUS_IO;
    }
    if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        log_msg(&h->srv->log, LOG_WARNING, NULL,
                "%s: [server] %s = %s is %s by group or others (mode %03o): the secret in it is "
                "theirs too; chmod 600 %s",
                h->srv->cfg.file, key, path,
                (st.st_mode & (S_IWGRP | S_IWOTH)) != 0 ? "writable" : "readable",
                (unsigned)(st.st_mode & 0777), path);
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && sb->len < 65536)
        strbuf_add(sb, buf, n);
    fclose(f);
    return sb->nomem ? STATUS_NOMEM : sb->len >= 65536 ? STATUS_LIMIT : STATUS_OK;
}

/* auth_token_file: one token a line (blank lines and # comments skipped), kept hashed. */
static int http_load_tokens(struct http *h)
{
    const struct config *cfg = &h->srv->cfg;
    struct strbuf sb = STRBUF_INIT;
    int status;

    if (cfg->auth_token_file == NULL)
        return STATUS_OK;
    status = http_read_file(h, "auth_token_file", cfg->auth_token_file, &sb);
    for (char *line = sb.buf, *next; status == STATUS_OK && line != NULL && *line; line = next) {
        size_t len = strcspn(line, "\r\n");

        next = line[len] ? line + len + 1 : NULL;
        line[len] = '\0';
        while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
            line[--len] = '\0';
        line += strspn(line, " \t");
        if (*line == '\0' || *line == '#')
            continue;
        if (h->ntokens == HTTP_MAX_TOKENS)
            status = STATUS_LIMIT;
        else
            sha256_hmac("mcph", 4, line, strlen(line), h->tokens[h->ntokens++]);
    }
    if (status == STATUS_OK && h->ntokens == 0)
        status = STATUS_INVALID;
    if (status != STATUS_OK)
        log_msg(&h->srv->log, LOG_ERROR, NULL,
                "%s: [server] auth_token_file = %s: %s; it needs one token a line (at most %d)",
                cfg->file, cfg->auth_token_file,
                status == STATUS_INVALID  ? "no token in it"
                : status == STATUS_CONFIG ? "not a regular file"
                                          : status_str(status),
                HTTP_MAX_TOKENS);
    strbuf_release(&sb);
    return status;
}

/* state_key_file: the key requestState is sealed with, at least 32 bytes; without it, 32
 * random bytes made now. */
static int http_load_state_key(struct http *h)
{
    struct server *srv = h->srv;
    struct strbuf sb = STRBUF_INIT;
    int status;

    if (srv->cfg.state_key_file == NULL) {
        /* Sealed all the same, under a key of this process's: a state is never taken unchecked
         * (replicas that share retries need the file). */
        unsigned char *key = malloc(32);

        if (key == NULL || getrandom(key, 32, 0) != 32) {
            free(key);
            return STATUS_IO;
        }
        srv->state_key = key;
        srv->state_key_len = 32;
        return STATUS_OK;
    }
    status = http_read_file(h, "state_key_file", srv->cfg.state_key_file, &sb);
    while (status == STATUS_OK && sb.len > 0 &&
           (sb.buf[sb.len - 1] == '\n' || sb.buf[sb.len - 1] == '\r'))
        sb.buf[--sb.len] = '\0';
    if (status == STATUS_OK && sb.len < 32)
        status = STATUS_INVALID;
    if (status != STATUS_OK) {
        log_msg(&srv->log, LOG_ERROR, NULL,
                "%s: [server] state_key_file = %s: %s; it needs a key of 32 bytes or more "
                "(head -c 32 /dev/urandom | base64 > FILE)",
                srv->cfg.file, srv->cfg.state_key_file,
                status == STATUS_INVALID  ? "too short"
                : status == STATUS_CONFIG ? "not a regular file"
                                          : status_str(status));
        strbuf_release(&sb);
        return status;
    }
    srv->state_key_len = sb.len;
    srv->state_key = (unsigned char *)strbuf_detach(&sb, NULL);
    return STATUS_OK;
}

__attribute__((format(printf, 2, 0))) static void http_log_mhd(void *cls, const char *fmt,
                                                               va_list ap)
{
    struct http *h = cls;
    char line[512];

    vsnprintf(line, sizeof(line), fmt, ap);
    line[strcspn(line, "\n")] = '\0';
    /* stderr only: this may run under the daemon's own locks, where a client's stream must
     * not be written (and resumed). */
    log_msg(&h->quiet, LOG_DEBUG, NULL, "http: %s", line);
}

static int http_listen(struct http *h, const char *host, int port)
{
    const struct config *cfg = &h->srv->cfg;
    struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
    struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    const struct sockaddr *addr = (const struct sockaddr *)&a4;
    unsigned flags =
        MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC | MHD_USE_ERROR_LOG;

    if (strcmp(host, "localhost") == 0)
        host = "127.0.0.1";
    if (inet_pton(AF_INET6, host, &a6.sin6_addr) == 1) {
        addr = (const struct sockaddr *)&a6;
        flags |= MHD_USE_IPv6;
    } else if (inet_pton(AF_INET, host, &a4.sin_addr) != 1) {
        log_msg(&h->srv->log, LOG_ERROR, NULL,
                "%s: [server] listen = %s: '%s' is not an IP address; use 127.0.0.1, [::1] "
                "or an address of this machine",
                cfg->file, cfg->listen, host);
        return STATUS_INVALID;
    }
    h->daemon = h->lib.start_daemon(
        flags, (uint16_t)port, NULL, NULL, http_handle, h, MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_NOTIFY_COMPLETED, http_completed, h, MHD_OPTION_NOTIFY_CONNECTION,
        http_notify_connection, h, MHD_OPTION_CONNECTION_LIMIT, (unsigned)cfg->max_connections,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)cfg->http_timeout_s, MHD_OPTION_THREAD_POOL_SIZE,
        2u, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)65536, MHD_OPTION_EXTERNAL_LOGGER,
        http_log_mhd, h, MHD_OPTION_END);
    if (h->daemon == NULL) {
        log_msg(&h->srv->log, LOG_ERROR, NULL,
                "%s: [server] listen = %s: cannot listen there (%s); is the port in use?",
                cfg->file, cfg->listen, strerror(errno));
        return STATUS_IO;
    }
    return STATUS_OK;
}

static void http_free(struct http *h)
{
    for (size_t i = 0; i < h->nhosts; i++)
        free(h->hosts[i]);
    for (size_t i = 0; i < h->norigins; i++)
        free(h->origins[i]);
    free(h->sessions);
    free(h->route);
    if (h->lib.dl != NULL)
        dlclose(h->lib.dl);
    pthread_cond_destroy(&h->tick);
    pthread_mutex_destroy(&h->lock);
    free(h);
}

/* server.cancel_more: every call of an HTTP client is cancelled (shutting down). */
static size_t http_cancel_all(void *ctx)
{
    struct http *h = ctx;
    size_t n = 0;

    pthread_mutex_lock(&h->lock);
    for (size_t i = 0; i < h->nsessions; i++)
        n += inflight_cancel_all(&h->sessions[i]->inflight);
    for (struct http_conn *c = h->conns; c != NULL; c = c->next) {
        if (c->own_inflight != NULL)
            n += inflight_cancel_all(c->own_inflight);
    }
    pthread_mutex_unlock(&h->lock);
    if (n > 0)
        log_msg(&h->srv->log, LOG_WARNING, NULL, "http: cancelled %zu request(s) of HTTP clients",
                n);
    return n;
}

int http_start(struct server *srv, struct http **out)
{
    struct http *h = calloc(1, sizeof(*h));
    const union MHD_DaemonInfo *info;
    char host[64];
    int port = 0, status;

    if (h == NULL)
        return STATUS_NOMEM;
    h->srv = srv;
    h->listen_fd = -1;
    log_init(&h->quiet);
    atomic_store(&h->quiet.level, atomic_load(&srv->log.level));
    h->max_sessions = (size_t)srv->cfg.max_sessions;
    h->route = srv->cfg.session_route ? strdup(srv->cfg.session_route) : NULL;
    h->idle_ms = (long)srv->cfg.session_idle_s * 1000L;
    h->timeout_ms = (long)srv->cfg.http_timeout_s * 1000L;
    h->max_streams = (size_t)srv->cfg.max_connections / LIMIT_HTTP_STREAM_SHARE;
    h->client_streams = h->max_streams / LIMIT_HTTP_CLIENT_STREAM_SHARE;
    if (h->client_streams == 0)
        h->client_streams = 1;
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->tick, NULL);
    snprintf(h->path, sizeof(h->path), "%s", srv->cfg.http_path ? srv->cfg.http_path : "/mcp");
    status = http_lib_open(&h->lib, &srv->log);
    if (status == STATUS_OK)
        status = config_listen_split(srv->cfg.listen, host, sizeof(host), &port);
    if (status == STATUS_OK)
        status = http_setup_names(h, host);
    if (status == STATUS_OK)
        status = http_load_tokens(h);
    h->loopback = http_is_loopback(host);
    if (status == STATUS_OK && !h->loopback && h->ntokens == 0)
        log_msg(&srv->log, LOG_WARNING, NULL,
                "%s: [server] listen = %s is not a loopback address and no auth_token_file is "
                "set: anyone who reaches it may call every tool; set [server] auth_token_file (or "
                "put an authenticating proxy in front)",
                srv->cfg.file, srv->cfg.listen);
    if (status == STATUS_OK)
        status = http_load_state_key(h);
    if (status == STATUS_OK)
        status = http_listen(h, host, port);
    if (status == STATUS_OK && pthread_create(&h->ticker, NULL, http_ticker, h) != 0)
        status = STATUS_IO;
    if (status != STATUS_OK) {
        if (h->daemon != NULL)
            h->lib.stop_daemon(h->daemon);
        http_free(h);
        return status;
    }
    h->ticker_started = 1;
    srv->cancel_more = http_cancel_all;
    srv->cancel_ctx = h;
    info = h->lib.get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);
    log_msg(&srv->log, LOG_INFO, NULL, "listening on http://%s%s%s:%u%s%s",
            strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
            info ? info->port : (unsigned)port, h->path,
            h->ntokens ? " (bearer tokens required)" : "");
    *out = h;
    return STATUS_OK;
}

void http_quiesce(struct http *h)
{
    if (h == NULL)
        return;
    atomic_store(&h->closing, 1);
    /* The daemon's threads may still be looking at it: closed once they are gone. */
    h->listen_fd = h->lib.quiesce_daemon(h->daemon);
}

static int http_conns_open(struct http *h)
{
    int open;

    pthread_mutex_lock(&h->lock);
    open = h->conns != NULL;
    pthread_mutex_unlock(&h->lock);
    return open;
}

void http_stop(struct http *h)
{
    if (h == NULL)
        return;
    h->srv->cancel_more = NULL;
    pthread_mutex_lock(&h->lock);
    atomic_store(&h->stopping, 1);
    pthread_cond_broadcast(&h->tick);
    pthread_mutex_unlock(&h->lock);
    if (h->ticker_started)
        pthread_join(h->ticker, NULL);
    /* Sessions end (their streams with them); every other stream ends once what it holds is
     * sent. A suspended connection must be resumed before the daemon stops. */
    for (;;) {
        struct http_session *s;

        pthread_mutex_lock(&h->lock);
        s = h->nsessions > 0 ? h->sessions[--h->nsessions] : NULL;
        pthread_mutex_unlock(&h->lock);
        if (s == NULL)
            break;
        http_session_end(h, s);
    }
    pthread_mutex_lock(&h->lock);
    for (struct http_conn *c = h->conns; c != NULL; c = c->next) {
        pthread_mutex_lock(&c->lock);
        c->ended = 1;
        http_wake(c);
        pthread_mutex_unlock(&c->lock);
    }
    pthread_mutex_unlock(&h->lock);
    /* What they hold is sent, for a little while; then the daemon closes what is left. */
    for (int i = 0; i < LIMIT_HTTP_STOP_MS / 10 && http_conns_open(h); i++)
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    /* The daemon must not stop with a connection suspended: any still open is woken to end. */
    pthread_mutex_lock(&h->lock);
    for (struct http_conn *c = h->conns; c != NULL; c = c->next) {
        pthread_mutex_lock(&c->lock);
        c->ended = 1;
        c->dead = 1;
        http_wake(c);
        pthread_mutex_unlock(&c->lock);
    }
    pthread_mutex_unlock(&h->lock);
    h->lib.stop_daemon(h->daemon);
    if (h->listen_fd >= 0)
        close(h->listen_fd);
    http_free(h);
}
