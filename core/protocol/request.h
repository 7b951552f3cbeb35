/*
 * request.h: one message being handled by the dispatcher, and the ways it is answered. The
 * method handlers (dispatch.c, lists.c, targets.c) get a struct request and answer through
 * these, on the dispatching thread under the server's state lock.
 */
#ifndef MCPH_REQUEST_H
#define MCPH_REQUEST_H

#include "protocol/modern.h"
#include "served/access.h"
#include "served/server.h"
#include "wire/out.h"
#include "wire/peer.h"

#include <cJSON.h>
#include <stddef.h>

/* One message being handled. */
struct request {
    struct server *srv;
    struct peer *peer;   /* who sent it: answers go to peer->out */
    cJSON *msg;          /* owned until a job takes it (then NULL) */
    const cJSON *id;     /* borrowed from msg; NULL for a notification */
    const cJSON *params; /* borrowed from msg; an object or NULL */
    const char *method;
    int rev; /* enum revision the request is served under */
    struct out_batch *batch;
    size_t slot;
    int modern;                 /* served per request under 2026-07-28 */
    struct modern_envelope env; /* its _meta, when modern */
    int cacheable;              /* the result carries cache hints (2026-07-28) */
    size_t bytes;               /* its share of the line it came in, for max_pending_mb */
};

/* Answer with result (owned), which a 2026-07-28 request gets decorated (served/decorate.h). */
void request_reply(struct request *req, cJSON *result);

/* Answer with a JSON-RPC error: code (enum jsonrpc_code) and the message fmt makes. */
void request_error(struct request *req, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A whole message (an error made elsewhere; owned) as the answer. */
void request_answer(struct request *req, cJSON *msg);

/* The message gets no reply (a notification, or no memory to make one). */
void request_no_reply(struct request *req);

/* params.key when it is a string (borrowed from the message), else NULL. */
const char *request_param_string(struct request *req, const char *key);

/* The error for a missing resource, in the request's era (jsonrpc_not_found). */
void request_not_found(struct request *req, const char *uri);

/* The rows the request's principal sees under the config in service (served/access.h): made
 * each time from srv->cfg, under the state lock, so a reload counts from the next request. */
struct access_view request_view_of(const struct request *req);

/* Whether the request's principal sees the row of kind (enum filter_key) exposed as name. A
 * row it does not see answers as one that does not exist. */
int request_sees_row(const struct request *req, int kind, const char *name);

/* The same, inline for what nearly every request is: the pipe's (no principal), or a server
 * without access sections. */
static inline int request_sees_all(const struct request *req)
{
    return req->peer->principal == NULL || req->srv->cfg.naccess == 0;
}

static inline struct access_view request_view(const struct request *req)
{
    return request_sees_all(req) ? (struct access_view){.all = 1} : request_view_of(req);
}

static inline int request_sees(const struct request *req, int kind, const char *name)
{
    return request_sees_all(req) || request_sees_row(req, kind, name);
}

#endif
