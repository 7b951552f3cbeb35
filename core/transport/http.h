/*
 * http.h: the Streamable HTTP transport ([server] listen, or mcph --listen HOST:PORT), with
 * libmicrohttpd run by the pool's reader role (http_loop.c), at one endpoint ([server] http_path,
 * default /mcp).
 *
 * Each POST is a peer of its own (peer.h): dispatch answers it through the peer's out, whose
 * lines come here instead of to a descriptor. The POST is answered with JSON when its answer
 * is all it gets, with an event stream when anything else comes first (progress, a log line,
 * a question to the client) or while a subscriptions/listen stays open, and with 202 when it
 * held no request. A legacy client (initialize) gets a session, Mcp-Session-Id: a peer that
 * its POSTs share as their home, whose GET stream hears list_changed, log lines outside calls
 * and resource updates. A 2026-07-28 request has no session: what it needs is in its _meta,
 * and its MCP-Protocol-Version, Mcp-Method and Mcp-Name headers must say what its body says,
 * as must the Mcp-Param-* headers of a tools/call whose tool's inputSchema asks for them
 * (x-mcp-header). A legacy session that has not sent notifications/initialized ends after
 * LIMIT_HTTP_SESSION_UNINIT_S unused.
 *
 * Before anything is read: the framing (a header that must come once, Content-Length with
 * chunked), Host and Origin against the allowed names (DNS rebinding), the bearer token when
 * [server] auth_token_file is set (compared in constant time), the method, the media types,
 * and the body's size (LIMIT_MESSAGE_BYTES). Connections are capped ([server]
 * max_connections), long-lived streams (GET streams, subscriptions/listen) to a share of them
 * and a share of those per client (LIMIT_HTTP_STREAM_SHARE): past it a 503 at once, so short
 * requests always find room; a request still arriving after http_timeout_s is cut, however it
 * trickles. Secret files others may read or write, and a listener off loopback without bearer
 * tokens, get a warning at start. A ticker (LIMIT_HTTP_TICK_MS) looks at the sockets of requests
 * waiting for their answer: a client gone cancels a sessionless request's calls (the 2026-07-28
 * cancellation) and frees a session's GET stream for a reconnect. requestState is sealed under
 * state_key_file's key, or one made at start (server.state_key).
 *
 * libmicrohttpd is opened (dlopen) only here, when mcph listens: a stdio server maps none of
 * it. Dispatch, calls and reload do not know about any of this.
 */
#ifndef MCPH_HTTP_H
#define MCPH_HTTP_H

#include "served/server.h"

struct http;

/* Listen on srv->cfg.listen and serve. Every problem is logged (the address, a file that
 * cannot be read, a key that is too short). Returns STATUS_OK with *out (owned: http_stop),
 * or STATUS_IO / STATUS_INVALID / STATUS_CONFIG / STATUS_NOMEM. The main thread, before
 * server_start (nothing is served until the pool runs the daemon: http_source). */
int http_start(struct server *srv, struct http **out) __attribute__((warn_unused_result));

/* What the pool's reader role does to serve HTTP (http_loop.c): it runs libmicrohttpd, so a
 * request is dispatched, run and answered by one thread. Before server_start. */
void http_source(struct http *h, struct work_source *src);

/* Stop taking connections (before server_stop); requests being answered go on. */
void http_quiesce(struct http *h);

/* End every stream and session (after server_stop: calls are done), stop the threads and
 * free h. NULL is fine. The main thread. */
void http_stop(struct http *h);

#endif
