/*
 * dispatch.h: one input line to its answer. Parses, checks the JSON-RPC envelope, applies
 * the session rules of the negotiated revision, and routes through the method table, all
 * under the server's state lock on the transport's thread: list and session
 * methods are answered there from the registry; calls into plugins are queued on their
 * plugin's lane and answered by the thread that runs them (most often this one, at once).
 */
#ifndef MCPH_DISPATCH_H
#define MCPH_DISPATCH_H

#include "served/server.h"

#include <stddef.h>

/* Handle one message from peer (NUL-terminated, len bytes, borrowed for the call): parsed,
 * then handled under the server's state lock. The transport's thread (stdio: the thread
 * holding the reader role); it must not be one that a call waits for. */
void dispatch_line(struct server *srv, struct peer *peer, const char *line, size_t len);

/* The first half of dispatch_line: the text checked (UTF-8, control characters, depth, U+0000)
 * and parsed. Returns the message, or NULL when it was answered with an error (a parse error
 * or an invalid request). *cost is what the message costs parsed: mcph_json_over's estimate
 * for a text long enough to be scanned, else its length; it is what dispatch_root is given as
 * the message's bytes, and what mcph_json_trim is given once the message was handled. A
 * transport that looks at a message before dispatching it (HTTP) calls this, then
 * dispatch_root. */
cJSON *dispatch_parse(struct server *srv, struct peer *peer, const char *line, size_t len,
                      size_t *cost);

/* The second half: handle root (owned; one message or a batch), `bytes` long as received. */
void dispatch_root(struct server *srv, struct peer *peer, cJSON *root, size_t bytes);

/* Answer a message that was longer than LIMIT_MESSAGE_BYTES. */
void dispatch_oversized(struct server *srv, struct peer *peer);

/* The log sink (struct log's sink; ctx is the server): sends notifications/message to a
 * client that asked for logging with logging/setLevel. Any thread. */
void dispatch_log_sink(void *ctx, int level, const char *who, const char *text);

/* notifications/message at `level` from `logger` (may be NULL) with `data` (any JSON value,
 * owned by the callee): plugin_env's client_log (ctx is the server), which the caller calls
 * only for a level log_sink_wants admits; the log sink sends its lines through it. Any
 * thread. */
void dispatch_client_log(void *ctx, int level, const char *logger, cJSON *data);

/* The log sink's filter (struct log's sink_wants): a line logged while a 2026-07-28 request's
 * handler runs goes to that request if its _meta asked for the level; any other line goes to
 * a legacy session that set a level with logging/setLevel. Any thread. */
int dispatch_log_wants(void *ctx, int level);

/* Tell the clients which lists (enum registry_list bits) changed: one list_changed
 * notification each to every listener that asked and every legacy session initialized. Main thread,
 * under the state lock. */
void dispatch_lists_changed(struct server *srv, unsigned lists);

/* plugin_env's resource_updated (ctx is the server): notifications/resources/updated to a
 * session subscribed to uri. Any thread. */
void dispatch_resource_updated(void *ctx, const char *uri);

/* After a reload replaced instance pl: resources/updated for every subscribed URI it serves.
 * Main thread, after the swap. */
void dispatch_resources_reloaded(struct server *srv, const struct plugin *pl);

/* subs' heard callback (ctx is the server): tell the instance of the set served that serves
 * uri (a resource of its, or a template match) that clients began (on 1) or ceased (on 0) to
 * follow it, through its descriptor's subscribe. Runs on the thread that changed the
 * subscriptions, without the subs lock: the dispatcher under the state lock (which keeps the
 * changes in order), or the main thread at shutdown. */
void dispatch_heard(void *ctx, const char *uri, int on);

/* After a swap from set `old` to srv->reg: each URI still followed whose serving instance
 * changed is told to the new one (on 1; every new instance thus hears what it serves) and,
 * if the old one stays in service, to the old one (on 0). Main thread, under the state lock,
 * after the swap (old is still referenced). */
void dispatch_subscriptions_moved(struct server *srv, const struct registry *old);

/* A list cursor (opaque to clients: base64 of "mcph:<tag>:<offset>"), owned; NULL when out
 * of memory. */
char *dispatch_cursor(char tag, size_t offset);

/* The offset a client's cursor stands for in a list of `count` items tagged `tag`:
 * STATUS_OK, or STATUS_INVALID for one mcph did not make for this list. */
int dispatch_cursor_offset(const char *cursor, char tag, size_t count, size_t *offset);

#endif
