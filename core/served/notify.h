/*
 * notify.h: the set served telling its clients what changed, without being asked in the
 * request that caused it: log lines (notifications/message), list_changed after a reload,
 * resources/updated, and the 2026-07-28 listen requests (subscriptions/listen) that receive
 * them tagged. Also the other direction of a subscription: the instance that serves a URI
 * hears when clients begin or cease to follow it. The server, reload and the plugins'
 * environment call down into it; so do the dispatcher and the calls.
 */
#ifndef MCPH_NOTIFY_H
#define MCPH_NOTIFY_H

#include "served/registry.h"
#include "served/server.h"
#include "wire/trace.h"

#include <cJSON.h>
#include <stdatomic.h>

/* The _meta key that tags a notification with the listen request it answers (2026-07-28). */
#define NOTIFY_KEY_SUB "io.modelcontextprotocol/subscriptionId"

/* What the log needs of the call whose handler runs on a thread: a call puts one under
 * srv->call_key while its handler runs (calls/call.c), so that what the handler logs goes to
 * the peer that made the call, at that call's level. */
struct notify_caller {
    struct peer *peer;           /* borrowed: the peer that made the call */
    const atomic_int *cancelled; /* borrowed: its in-flight entry's flag (inflight.h) */
    int modern;                  /* a 2026-07-28 request: log_level is its own */
    int log_level;               /* modern: the level its _meta asked for, LOG_OFF for none */
    struct trace *trace;         /* borrowed: the call's trace context (wire/trace.h) */
};

/* Whether the calling thread runs a handler, whose log lines then go to its peer (*peer) at
 * or above *level: a modern request's own level, a legacy one's session level (LOG_OFF when
 * it asked for none, or was cancelled). Returns 0 when no handler runs here (every peer gets
 * what its session asked for), else 1. Any thread. */
int notify_caller_level(struct server *srv, struct peer **peer, int *level);

/* The log sink's filter (struct log's sink_wants; ctx is the server): a line logged while a
 * 2026-07-28 request's handler runs goes to that request if its _meta asked for the level;
 * any other line goes to a legacy session that set a level with logging/setLevel. Any
 * thread. */
int notify_log_wants(void *ctx, int level);

/* The log's tag (struct log's tag; ctx is the server): "trace=TRACEID" on the thread of a
 * call whose handler runs, else NULL. Any thread. */
const char *notify_log_tag(void *ctx);

/* notifications/message at `level` from `logger` (may be NULL) with `data` (any JSON value,
 * owned by the callee): plugin_env's client_log (ctx is the server), which the caller calls
 * only for a level log_sink_wants admits; the log sink sends its lines through it. Any
 * thread. */
void notify_client_log(void *ctx, int level, const char *logger, cJSON *data);

/* The log sink (struct log's sink; ctx is the server): sends notifications/message to a
 * client that asked for logging with logging/setLevel. Any thread. */
void notify_log_sink(void *ctx, int level, const char *who, const char *text);

/* Tell the clients which lists (enum registry_list bits) changed: one list_changed
 * notification each to every listener that asked and every legacy session initialized. Main
 * thread, under the state lock. */
void notify_lists_changed(struct server *srv, unsigned lists);

/* plugin_env's resource_updated (ctx is the server): notifications/resources/updated to a
 * session subscribed to uri and, tagged, to each listener that asked for it, unless it is
 * hidden from them (notify_access_changed). Any thread. */
void notify_resource_updated(void *ctx, const char *uri);

/* After a reload replaced instance pl: resources/updated for every subscribed URI it serves.
 * Main thread, after the swap. */
void notify_resources_reloaded(struct server *srv, const struct plugin *pl);

/* subs' heard callback (ctx is the server): tell the instance of the set served that serves
 * uri (a resource of its, or a template match) that clients began (on 1) or ceased (on 0) to
 * follow it, through its descriptor's subscribe. Runs on the thread that changed the
 * subscriptions, without the subs lock: the dispatcher under the state lock (which keeps the
 * changes in order), or the main thread at shutdown. */
void notify_heard(void *ctx, const char *uri, int on);

/* After a swap from set `old` to srv->reg: each URI still followed whose serving instance
 * changed is told to the new one (on 1; every new instance thus hears what it serves) and,
 * if the old one stays in service, to the old one (on 0). Main thread, under the state lock,
 * after the swap (old is still referenced). */
void notify_subscriptions_moved(struct server *srv, const struct registry *old);

/* After srv->cfg or srv->reg changed: each resource subscription and each URI of a listen
 * request is told of again only if its principal (its peer's) still sees it under the access
 * sections and the set now in service (served/access.h), and is no longer told of if not. A
 * listen request's URI is judged so when it is opened too; resources/subscribe refuses a URI
 * the principal does not see. Main thread, under the state lock, before anything is told. */
void notify_access_changed(struct server *srv);

/*
 * Open a subscriptions/listen request (id and params borrowed): remember which notifications
 * it asked for and send notifications/subscriptions/acknowledged with the subset mcph
 * honours. The request gets no response while it stays open. A URI of resourceSubscriptions
 * that peer's principal does not see is acknowledged like any other, as a missing one is, but
 * never told of (notify_access_changed). Returns NULL, or the JSON-RPC error to send instead
 * (new object). The dispatching thread, under the state lock.
 */
cJSON *notify_listen(struct server *srv, struct peer *peer, const cJSON *id, const cJSON *params);

/* Close peer's listen request with this id (the client cancelled it, or its stream closed):
 * nothing more is sent for it. Returns 1 when there was one. Any thread. */
int notify_unlisten(struct server *srv, const struct peer *peer, const cJSON *id);

/* End every open listen request gracefully (a result tagged with its id, to its peer), at
 * shutdown. Main thread. */
void notify_listeners_close(struct server *srv);

#endif
