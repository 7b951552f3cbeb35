/*
 * modern.h: what protocol revision 2026-07-28 adds on top of the legacy ones, for the
 * dispatcher: the per-request _meta envelope, the decoration of every result (resultType,
 * serverInfo, cache hints), server/discover, and subscriptions/listen with its tagged
 * notifications. Legacy clients never see any of it.
 */
#ifndef MCPH_MODERN_H
#define MCPH_MODERN_H

#include "lib/limits.h"
#include "served/registry.h"
#include "served/server.h"

#include "plugin-api.h"

#include <cJSON.h>

#define MODERN_KEY_VERSION "io.modelcontextprotocol/protocolVersion"
#define MODERN_KEY_CAPS "io.modelcontextprotocol/clientCapabilities"
#define MODERN_KEY_INFO "io.modelcontextprotocol/clientInfo"
#define MODERN_KEY_LOG "io.modelcontextprotocol/logLevel"
#define MODERN_KEY_SERVER "io.modelcontextprotocol/serverInfo"
#define MODERN_KEY_SUB "io.modelcontextprotocol/subscriptionId"
/* mcph's own: the origin (host->call_origin) of the request an isolated plugin's parent
 * serves, in the _meta of what it sends its child; only an isolated child reads it. */
#define MODERN_KEY_ORIGIN "dev.mcph/origin"

/* The longest origin text (host->call_origin), in bytes. mcph makes MODERN_ORIGIN_FRESH of
 * them: 128 random bits in hex. */
#define MODERN_ORIGIN_MAX 64
#define MODERN_ORIGIN_FRESH 32

/* JSON-RPC error code of an unsupported protocol version (2026-07-28). */
#define MODERN_UNSUPPORTED_VERSION (-32022)

/* What a valid modern envelope says. */
struct modern_envelope {
    const cJSON *caps; /* borrowed from the request: clientCapabilities */
    int log_level;     /* enum log_level from logLevel, or LOG_OFF when absent */
};

/* The error for a missing resource in the request's era: -32002 (legacy) or -32602
 * (2026-07-28), with data {uri}. A new object. */
cJSON *modern_not_found(const cJSON *id, const char *uri, const char *message, int modern);

/* Whether params carry the modern claim: _meta with a protocolVersion key. */
int modern_claims(const cJSON *params);

/* Check the envelope of a claiming request. Returns NULL when it is valid (env filled), else
 * the JSON-RPC error to send (new object): -32602 for a malformed envelope, -32022 (with
 * supported and requested) for a version mcph does not serve per request. */
cJSON *modern_check(const cJSON *id, const cJSON *params, struct modern_envelope *env);

/* Make result a modern one: resultType "complete" (unless it has one), serverInfo in _meta,
 * and, when cacheable, ttlMs and cacheScope (pl's override, else the set's). Any thread. */
void modern_result(cJSON *result, const struct registry *reg, const struct plugin *pl,
                   int cacheable);

/* The server/discover result (new object). caps is taken. The dispatching thread. */
cJSON *modern_discover(const struct server *srv, cJSON *caps);

/*
 * Open a subscriptions/listen request: remember which notifications it asked for and send
 * notifications/subscriptions/acknowledged with the subset mcph honours. The request gets
 * no response while it stays open. Returns NULL, or the JSON-RPC error to send instead
 * (new object). The dispatching thread.
 */
cJSON *modern_listen(struct server *srv, struct peer *peer, const cJSON *id, const cJSON *params);

/* Close peer's listen request with this id (the client cancelled it, or its stream closed):
 * nothing more is sent for it. Returns 1 when there was one. Any thread. */
int modern_unlisten(struct server *srv, const struct peer *peer, const cJSON *id);

/* Tagged list_changed to each listener that asked for the list. Main thread (reload). */
void modern_lists_changed(struct server *srv, unsigned lists);

/* Tagged resources/updated to each listener that asked for uri. Any thread. */
void modern_resource_updated(struct server *srv, const char *uri);

/* End every open listen request gracefully (a result tagged with its id, to its peer), at
 * shutdown. */
void modern_listeners_close(struct server *srv);

/*
 * Questions to the client under 2026-07-28 (MRTR): there is no request from server to
 * client. The handler's n-th question is keyed "ask-n", or by the name the handler gave it
 * (host->ask_key; n still counts it, so the keys of the others do not shift); its answer comes
 * in a retry of the request (inputResponses, or an earlier round's answers carried in
 * requestState), or already in the first run's inputResponses. A question with no answer yet
 * is recorded, and the request answers with an InputRequiredResult listing them; the client
 * asks the user and retries. One request's handler, one thread.
 */
struct modern_mrtr {
    cJSON *answers;                /* owned: every answer so far (requestState and this round's) */
    cJSON *requests;               /* owned: questions asked with no answer yet, or NULL */
    cJSON *named;                  /* owned: the names this run's questions went under, or NULL */
    int nasks;                     /* questions asked by this run of the handler */
    char next[LIMIT_MRTR_KEY + 1]; /* the name of the next question, or "": ask-n */
    const unsigned char *key;      /* borrowed, or NULL: requestState is sealed with it */
    size_t keylen;
    char origin[MODERN_ORIGIN_MAX + 1]; /* who asks: kept in requestState for the retries */
};

/* Whether text may be an origin: 1 to MODERN_ORIGIN_MAX of A-Z a-z 0-9 _ . : -. */
int modern_origin_ok(const char *text);

/* A new origin into out (MODERN_ORIGIN_MAX + 1 bytes): random, unlike any other. Returns
 * STATUS_OK, or STATUS_IO when the system gives no randomness (out is then ""). */
int modern_origin_fresh(char *out) __attribute__((warn_unused_result));

/* Read the answers a retry carries: inputResponses, then those of requestState if it is ours
 * for this request (msg's method and `target`, the exposed name or URI) that inputResponses
 * does not replace; only keys a question may go under, LIMIT_MRTR_ASKS at most. m->origin is
 * that state's origin, or "" for a first request (or a state not ours): modern_origin makes
 * one when the handler asks. msg borrowed.
 * With a key ([server] state_key_file; borrowed, keylen bytes, NULL: none), requestState
 * carries an HMAC-SHA256 of its text under that key, so any mcph that shares the key takes a
 * retry and none takes a state it did not seal. Returns STATUS_OK, or STATUS_INVALID when a
 * key is set and requestState is not sealed under it (m is still set up, and released as
 * usual). */
int modern_mrtr_begin(struct modern_mrtr *m, const unsigned char *key, size_t keylen,
                      const cJSON *msg, const char *target) __attribute__((warn_unused_result));

/* The origin of m's request (host->call_origin): the one its state carried, else a fresh one
 * made now (modern_origin_fresh; without randomness from the system, one unique in this
 * process) and kept for the rest of the request. Borrowed for m's life. The handler's thread. */
const char *modern_origin(struct modern_mrtr *m);

/* The handler asks `method` (sampling/createMessage, ...) with params (owned), under the name
 * set by modern_mrtr_name (which it uses up), else "ask-n". Returns MCPH_OK with *answer (owned
 * by the caller) when the request carries it, MCPH_ERR_AGAIN when recorded for an
 * InputRequiredResult, MCPH_ERR_LIMIT past LIMIT_MRTR_ASKS questions, or MCPH_ERR_NOMEM. */
int modern_mrtr_ask(struct modern_mrtr *m, const char *method, cJSON *params, cJSON **answer);

/* Name the handler's next question (host->ask_key): 1 to LIMIT_MRTR_KEY of A-Z a-z 0-9 _ . -,
 * not of the form "ask-<digits>" (mcph's own keys), and not a name a question of this run went
 * under already. name NULL forgets a pending name. Returns MCPH_OK or MCPH_ERR_INVALID (the
 * pending name is then unchanged). m may be all zero (a legacy call, with no begin). */
int modern_mrtr_name(struct modern_mrtr *m, const char *name);

/* The handler's next question does not go through modern_mrtr_ask: it was refused before
 * being asked (asked 0), or it is a legacy session's request to the client (asked 1: its name,
 * if any, counts as used, so the same mistakes are refused in both eras). Either way the
 * pending name is used up. Returns MCPH_OK or MCPH_ERR_NOMEM. */
int modern_mrtr_pass(struct modern_mrtr *m, int asked);

/* The InputRequiredResult (a new object, with requestState and the modern decoration) when a
 * question went unanswered, else NULL. */
cJSON *modern_mrtr_result(struct modern_mrtr *m, const struct registry *reg, const cJSON *msg,
                          const char *target);

void modern_mrtr_release(struct modern_mrtr *m);

#endif
