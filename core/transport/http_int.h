/*
 * http_int.h: what the files of the Streamable HTTP transport share, and nobody else sees
 * (the public surface is http.h). The transport is cut along a request's life:
 *
 *   http_mhd.c      libmicrohttpd, opened with dlopen, and the responses made with it
 *   http_check.c    a request's first look: framing, Host, Origin, bearer token, method, media
 *                   types; then it goes to its method
 *   http_post.c     a POST's life: its peer, its checks, dispatch, its answer (JSON, 202 or an
 *                   event stream)
 *   http_session.c  the legacy sessions (Mcp-Session-Id): the table, GET streams, DELETE,
 *                   idle ones ended
 *   http_conn.c     one request being served (a peer): the lines it is written, its close
 *   http_stream.c   the event stream as sent, and room for long-lived streams
 *   http.c          start and stop, the ticker
 *
 * Locks: run_lock (held by whoever runs libmicrohttpd, so around every callback: taken
 * before any other lock of mcph's, never while one is held), then h->lock before a session's
 * lock before a conn's lock. The pure parts declared at the
 * end are here for tests/unit/test_http.c.
 */
#ifndef MCPH_HTTP_INT_H
#define MCPH_HTTP_INT_H

#include "transport/http.h"

#include "lib/limits.h"
#include "lib/sha256.h"
#include "lib/strbuf.h"
#include "wire/principal.h"
#include "wire/trace.h"

#include <cJSON.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/uio.h>
#include <time.h>

#define HTTP_SESSION_HEADER "Mcp-Session-Id"
#define HTTP_VERSION_HEADER "MCP-Protocol-Version"
#define HTTP_MAX_TOKENS 64
#define HTTP_FOREIGN_SESSION                                                                       \
    "Forbidden: this session was opened with another credential; use that one, or initialize "     \
    "a session of your own"

/* The libmicrohttpd functions mcph calls, listed once: X(name) is MHD_name. */
#define HTTP_LIB_FUNCTIONS(X)                                                                      \
    X(add_response_header)                                                                         \
    X(create_response_from_buffer)                                                                 \
    X(create_response_from_callback)                                                               \
    X(destroy_response)                                                                            \
    X(get_connection_info)                                                                         \
    X(get_connection_values)                                                                       \
    X(get_daemon_info)                                                                             \
    X(lookup_connection_value)                                                                     \
    X(queue_response)                                                                              \
    X(quiesce_daemon)                                                                              \
    X(resume_connection)                                                                           \
    X(run)                                                                                         \
    X(get_timeout)                                                                                 \
    X(start_daemon)                                                                                \
    X(stop_daemon)                                                                                 \
    X(suspend_connection)

/* libmicrohttpd, opened only when mcph listens: a stdio server maps none of it (nor the TLS
 * libraries it brings). Each member is the function of that name with MHD_ before it. */
struct http_lib {
    void *dl;
#define HTTP_LIB_MEMBER(name) __typeof__(MHD_##name) *name;
    HTTP_LIB_FUNCTIONS(HTTP_LIB_MEMBER)
#undef HTTP_LIB_MEMBER
};

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
    unsigned long wakes;           /* bumped by anything that should wake the connection */
    int suspended;                 /* MHD holds the connection until resumed */
    int gone;                      /* the connection closed: nothing more can be sent */
    int ended;                     /* the stream ends once what is queued is sent */
    int dead;                      /* the client closed its end: the connection is dropped */
    int answers;                   /* answers (responses) written for its requests */
    int mid_line;                  /* the last write ended inside a line */
    int fresh;                     /* http_post's own look, right after dispatch */
    size_t held;                   /* bytes of raw and events counted in server.transport_held */
    int fd;                        /* the connection's socket, for the ticker to look at */
    int streaming;                 /* a long-lived stream, counted in h->nstreams (under h->lock) */
    char client[PRINCIPAL_ID_MAX]; /* who opened it, when known ("token:2", "address 192.0.2.7"), or
                                      "" */
    /* A POST's traceparent and tracestate headers (peer.traceparent, peer.tracestate point
     * here): room for a longer tracestate than is kept, so that one is seen as too long. */
    char traceparent[TRACE_PARENT_LEN + 64];
    char tracestate[TRACE_STATE_MAX + 2];
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
    struct http_oauth *oauth; /* owned or NULL: the OAuth resource server (http_auth.c) */
    struct http_ops *ops;     /* owned or NULL: metrics and health's own listener
                               * (http_metrics.c) */
    /* The daemon is run by whoever holds run_lock (http_loop.c): the pool's reader, or the
     * pump once quiesced. */
    pthread_mutex_t run_lock;
    int epoll_fd;       /* the daemon's epoll descriptor: ready when it has work */
    int wake_fd;        /* an eventfd: a connection was resumed (http_kick) */
    pthread_t pump;     /* runs the daemon from http_quiesce to http_stop */
    int pump_started;   /* pump runs */
    atomic_int pumping; /* pump: 1 while it may run, 0 to stop */
    atomic_int pushed;  /* lines were written to a connection since the daemon last ran */
};

/* Header lines that must come once (http_once[], in http_check.c), counted; and whether a
 * name was malformed. */
struct http_framing {
    int counts[10];
    int bad_name;
};

/* --- http_loop.c --- */

/* The pump: runs the daemon from http_quiesce on, while the pool stops, until http_stop
 * stops it and runs the daemon itself. A thread that cannot start is logged. */
void http_pump_start(struct http *h);
void http_pump_stop(struct http *h);
/* Wake whoever waits for the daemon (a connection was resumed). Any thread. */
void http_kick(const struct http *h);
/* Run the daemon once, after waiting at most ms for it to have work (http_stop's own loop). */
void http_pump_for(struct http *h, int ms);

/* --- http.c --- */

/* Milliseconds from t (CLOCK_MONOTONIC) to now. */
long http_ms_since(const struct timespec *t);

/* --- http_mhd.c --- */

/* Open libmicrohttpd and find its functions. Returns STATUS_OK, or STATUS_IO with the reason
 * logged. */
int http_lib_open(struct http_lib *lib, const struct log *lg);

/* A request header's value as sent (borrowed from mc), or NULL. */
const char *http_header(const struct http *h, struct MHD_Connection *mc, const char *name);

/* A header's value without the optional whitespace around it (RFC 9110 5.5), copied into buf
 * (size bytes; a longer value is cut). NULL when the header is absent. */
const char *http_value(const struct http *h, struct MHD_Connection *mc, const char *name, char *buf,
                       size_t size);

/* The client's address (IPv4 or IPv6, as text) into buf (size bytes). 1 when known. */
int http_client_address(const struct http *h, struct MHD_Connection *mc, char *buf, size_t size);

/* Queue r (NULL: MHD_NO) with status, and let go of it. */
enum MHD_Result http_queue(const struct http *h, struct MHD_Connection *mc, unsigned status,
                           struct MHD_Response *r);

/* A response whose body is text (len bytes, copied), of type application/json; or NULL. */
struct MHD_Response *http_json_response(const struct http *h, const char *text, size_t len);

/* An HTTP error whose body is a JSON-RPC error (id null), queued. */
enum MHD_Result http_fail(const struct http *h, struct MHD_Connection *mc, unsigned status,
                          int code, const char *message);

/* --- http_auth.c --- */

/* The credential of a request to the endpoint (authorization: the Authorization value, or
 * NULL): 1 with *out its principal (owned: principal_drop), or 0 with the refusal queued and
 * returned in *rc (401 or 403 with WWW-Authenticate; MHD_NO when out of memory). */
int http_auth(struct http *h, struct MHD_Connection *mc, const char *authorization,
              struct principal **out, enum MHD_Result *rc);

/* The paths of authorization served without a credential (the Protected Resource Metadata):
 * 1 when url is one, with the answer queued and returned in *rc; else 0. */
int http_auth_route(struct http *h, struct MHD_Connection *mc, const char *url, const char *method,
                    enum MHD_Result *rc);

/* Set up what [server]'s OAuth keys ask for (h->oauth), as at the start. STATUS_OK, or the
 * problem logged and its status. */
int http_auth_start(struct http *h);

/* Free h->oauth. */
void http_auth_free(struct http *h);

/* --- http_rate.c --- */

/* The rate of a request of principal who ([server] rate): 1 when it may go on, else 0 with
 * the refusal (429 and Retry-After) queued and returned in *rc. */
int http_rate_admit(struct http *h, struct MHD_Connection *mc, const struct principal *who,
                    enum MHD_Result *rc);

/* Retry-After on r (NULL: nothing): retry_ms in whole seconds, rounded up, at least 1. */
void http_rate_header(const struct http *h, struct MHD_Response *r, long retry_ms);

/* Whether a POST's one answer (line, len bytes) is a tool call refused by a [limit.NAME]
 * section (-32000 with data.retryAfterMs, call.c): its retryAfterMs, which makes the answer
 * a 429; else 0. Any thread. */
long http_rate_refused(const char *line, size_t len);

/* --- http_metrics.c --- */

/* Start what metrics_listen asks for (h->ops), once the endpoint listens. STATUS_OK, or the
 * problem logged and its status. */
int http_metrics_start(struct http *h);

/* Stop it (before the endpoint's daemon stops); free h->ops. NULL h->ops is fine. */
void http_metrics_stop(struct http *h);

/* Whether url is one of the operator's paths served beside the endpoint (metrics_path,
 * live_path, ready_path), under the endpoint's Host and credential rules. */
int http_metrics_path(const struct http *h, const char *url);

/* Answer a request for one of them (url), the credential checked. */
enum MHD_Result http_metrics_answer(struct http *h, struct MHD_Connection *mc, const char *url,
                                    const char *method);

/* --- http_check.c --- */

/* libmicrohttpd's access handler: every request, each time its connection wakes. */
enum MHD_Result http_handle(void *cls, struct MHD_Connection *mc, const char *url,
                            const char *method, const char *version, const char *upload_data,
                            size_t *upload_size, void **con_cls);

/* --- http_post.c --- */

/* The POST's body is whole: check it, dispatch it, answer or wait. */
enum MHD_Result http_post(struct http_conn *c);

/* Answer the POST if it is time (after its first go, on each wake); else wait. */
enum MHD_Result http_post_answer(struct http_conn *c);

/* Part of a POST's body, kept up to LIMIT_MESSAGE_BYTES (then c->too_big). */
void http_take_body(struct http_conn *c, const char *data, size_t len);

/* --- http_session.c --- */

/* A new session, not yet in the table (owned: one reference), or NULL. It is bound to who
 * (held; NULL: no credential), the principal of the request that opened it. */
struct http_session *http_session_new(struct http *h, struct principal *who);

/* The session with this id, held (peer_drop it), or NULL. One bound to another principal than
 * who is not given: NULL, and *foreign set (the request is refused with 403). */
struct http_session *http_session_find(struct http *h, const char *id, const struct principal *who,
                                       int *foreign);

/* A new session in the table (s is initialized by now). STATUS_LIMIT past max_sessions,
 * STATUS_IO when shutting down, STATUS_NOMEM. */
int http_session_add(struct http *h, struct http_session *s);

/* End a session taken out of the table, and drop the table's reference. */
void http_session_end(struct http *h, struct http_session *s);

/* A GET: a legacy session's event stream, for who (the request's principal, or NULL). */
enum MHD_Result http_open_stream(struct http *h, struct MHD_Connection *mc, struct principal *who,
                                 void **con_cls);

/* A DELETE: a legacy session ends (who must be the principal that opened it). */
enum MHD_Result http_delete(struct http *h, struct MHD_Connection *mc, const struct principal *who);

/* End the sessions left idle (the ticker, h->lock not held). */
void http_expire(struct http *h);

/* --- http_conn.c --- */

/* A connection being served, in h->conns (owned: one reference, http_conn_close), or NULL.
 * Its peer holds who (the request's principal; NULL: none). */
struct http_conn *http_conn_new(struct http *h, struct MHD_Connection *mc, enum http_kind kind,
                                struct principal *who);

/* The connection closed: nothing more is sent to it; its own reference goes. */
void http_conn_close(struct http_conn *c, int aborted);

/* Lines for c: kept for its response. Returns STATUS_IO when c can take no more. */
int http_conn_push(struct http_conn *c, const struct iovec *v, int cnt);

/* Wake a connection that waits for something to send. conn lock held. */
void http_wake(struct http_conn *c);

/* Recount what c holds unsent against [server] max_pending_mb. conn lock held. */
void http_conn_account(struct http_conn *c);

/* Whether a POST has nothing more coming: every call it made answered, no listen open. */
int http_conn_settled(struct http_conn *c);

/* Whether the client closed its end of socket fd. */
int http_fd_closed(int fd);

/* The client of c went away while c waited. h->lock held. */
void http_conn_dead(struct http_conn *c);

/* libmicrohttpd's notices: a request completed, a TCP connection opened or closed. */
void http_completed(void *cls, struct MHD_Connection *mc, void **con_cls,
                    enum MHD_RequestTerminationCode toe);
void http_notify_connection(void *cls, struct MHD_Connection *mc, void **socket_context,
                            enum MHD_ConnectionNotificationCode toe);

/* --- http_stream.c --- */

/* The event stream as the response (conn lock held): what is queued goes first. */
struct MHD_Response *http_events_response(struct http_conn *c);

/* Room for a long-lived stream for c: NULL when it may have one, else why not (a 503), in
 * buf. */
const char *http_stream_admit(struct http *h, struct http_conn *c, char *buf, size_t size);

/* --- Pure parts (no connection, no daemon): any thread. --- */

/* v (not NULL) without the optional whitespace around it (RFC 9110 5.5), copied into buf
 * (size bytes; a longer value is cut). Returns buf. http_mhd.c. */
const char *http_trim(const char *v, char *buf, size_t size);

/* A JSON-RPC error with id null, as the body of an HTTP error. Owned text, or NULL.
 * http_mhd.c. */
char *http_error_text(int code, const char *message);

/* Whether a Host value or an origin's authority (len bytes) names an allowed host (h->hosts;
 * the port is not looked at). http_check.c. */
int http_host_allowed(const struct http *h, const char *authority, size_t len);

/* Origin (NULL: absent, not a browser): allowed when absent, listed in h->origins (any case),
 * or an allowed host over http(s). http_check.c. */
int http_origin_allowed(const struct http *h, const char *origin);

/* The Authorization value (NULL: absent) against every bearer token of h, each compared in
 * full (constant time). 1 when none are configured. *which: the one it is (its line among the
 * tokens), or -1. http_auth.c. */
int http_token_ok(const struct http *h, const char *authorization, int *which);

/* auth_token_file's text (changed in place; NULL: empty), one token a line, blank lines and #
 * comments skipped, white space around a token dropped: each kept hashed in h->tokens.
 * STATUS_LIMIT past HTTP_MAX_TOKENS, STATUS_INVALID when none. http_auth.c. */
int http_parse_tokens(struct http *h, char *text);

/* Names separated by spaces, tabs or commas, each copied in lower case to list (*n of cap
 * used). STATUS_LIMIT past cap, STATUS_NOMEM. http_check.c. */
int http_add_names(char **list, size_t *n, size_t cap, const char *names);

/* Whether a listen host is a loopback one (localhost, 127.0.0.0/8, ::1, 127/8 mapped to
 * IPv6). http_check.c. */
int http_is_loopback(const char *host);

/* One header name counted into f; and what is wrong with the framing counted (te: the
 * Transfer-Encoding value, or NULL), or NULL; *status: the HTTP status to refuse with.
 * http_check.c. */
void http_framing_count(struct http_framing *f, const char *key);
const char *http_framing_problem(const struct http_framing *f, const char *te, unsigned *status);

/* Whether a Content-Type value (NULL: absent) is application/json, parameters allowed.
 * http_check.c. */
int http_is_json_type(const char *type);

/* A session's id into id (size bytes): [route-] then the 16 random bytes rnd in lower-case
 * hex. route NULL: no prefix ([server] session_route, for a balancer's affinity).
 * http_session.c. */
void http_session_id(char *id, size_t size, const char *route, const unsigned char rnd[16]);

/* A legacy session's MCP-Protocol-Version (NULL: absent): NULL when mcph speaks it (or it is
 * absent), else the refusal, written into buf (size bytes). http_post.c. */
const char *http_version_problem(const char *version, char *buf, size_t size);

/* Whether a POST's body (root) opens a long-lived stream: a subscriptions/listen request in
 * it, alone or in a batch. http_post.c. */
int http_listens(const cJSON *root);

/* Every whole line of c->raw to c->events as an event; a partial line stays. conn lock held.
 * http_conn.c. */
void http_raw_to_events(struct http_conn *c);

/* Count the answers (c->answers) among lines written in cnt parts, a line cut across parts
 * counted once (c->mid_line). conn lock held. http_conn.c. */
void http_count_answers(struct http_conn *c, const struct iovec *v, int cnt);

/* Up to max bytes of c->events not yet sent into buf, what went dropped once it is more than
 * half. Returns how many. conn lock held. http_stream.c. */
size_t http_events_take(struct http_conn *c, char *buf, size_t max);

#endif
