/*
 * call.h: a request that runs plugin code (tools/call, resources/read, prompts/get,
 * completion/complete), from the moment the dispatcher has found its target to its answer:
 * registered in flight (for cancellation), queued on its plugin's lane, run with progress,
 * cancellation and questions to the client available to the handler, its result checked
 * (a tool's structured result against its outputSchema) and sent, unless it was cancelled.
 */
#ifndef MCPH_CALL_H
#define MCPH_CALL_H

#include "host/result.h"
#include "served/server.h"

#include <cJSON.h>
#include <stddef.h>

struct out_batch;
struct schema;

/* What the client can be asked, from its declared capabilities. */
enum call_can {
    CALL_CAN_SAMPLE = 1u << 0,
    CALL_CAN_ELICIT = 1u << 1,
    CALL_CAN_ROOTS = 1u << 2,
    /* (the order of sampling, elicitation, roots is that of call_missing_capability's names) */
};

/* The plugin code to run. */
struct call_target {
    int kind;              /* enum result_kind */
    struct plugin *plugin; /* borrowed from the registry in service */
    mcph_handler_fn fn;
    const cJSON *args;                  /* borrowed from the request; NULL to use owned_args */
    cJSON *owned_args;                  /* owned (taken by call_submit): variables, or {} */
    const char *uri;                    /* borrowed from the request: the URI read, or NULL */
    const char *mime_type;              /* borrowed from the definition, or NULL */
    const char *name;                   /* borrowed: the exposed name, for messages */
    const char *own_name;               /* borrowed from the definition: its own name (tool, prompt,
                                         * resource URI or URI template), for host->call_name */
    const void *own_data;               /* the definition's data pointer, for host->call_data */
    const struct schema *output_schema; /* borrowed from a tool's definition, or NULL */
};

/* Who asked, and how the answer goes back. */
struct call_origin {
    struct server *srv;
    struct peer *peer;       /* who asked: answered through it, held while the call lives */
    cJSON *msg;              /* the request; taken by call_submit */
    const cJSON *id;         /* borrowed from msg */
    const char *method;      /* borrowed from msg */
    int rev;                 /* enum revision the request is served under */
    unsigned can;            /* enum call_can */
    struct out_batch *batch; /* or NULL */
    size_t slot;
    int modern;       /* a 2026-07-28 request: modern results, MRTR, its own log level */
    int log_level;    /* modern: the level its _meta asked for, LOG_OFF for none */
    int private_view; /* what the asker sees depends on its credential ([access.NAME]): a
                       * cacheable result says cacheScope private */
    size_t bytes;     /* input it came in (its share of a batch), counted against max_pending_mb */
};

/* Queue the call on its plugin's lane; the reader runs it once the messages buffered are
 * dispatched, or a pool thread does, and answers from there. A request whose id is already in
 * flight gets an error at once, and so does one that would take the bytes held for calls in
 * flight and replies not yet written past [server] max_pending_mb. Takes o->msg and t->owned_args.
 * The dispatching thread, under the state lock. */
void call_submit(struct call_origin *o, struct call_target *t);

/* The audit line (served/audit.h) of a call answered without running plugin code: refused
 * (outcome AUDIT_REFUSED, why "unknown", "invalid", ...; code the JSON-RPC error sent, 0 for
 * none) or answered at once. msg: the request, target: what it named, pl: the instance or
 * NULL (all borrowed for the call). Nothing without an audit log. The dispatching thread. */
void call_audit_answered(struct server *srv, const struct peer *peer, const cJSON *msg,
                         const char *target, const struct plugin *pl, int outcome, int code,
                         const char *why);

/* The audit line of a resources/read refused as unknown whose URI (uri, borrowed) may carry
 * secrets in a template's variables: tmpl, the template it matched (of plugin pl), is the
 * target, and the URI is logged as uri_sha256 only (as uri too with pl's audit_arguments);
 * tmpl NULL (nothing matched): target null, pl NULL. The dispatching thread. */
void call_audit_refused_read(struct server *srv, const struct peer *peer, const cJSON *msg,
                             const char *tmpl, const char *uri, const struct plugin *pl);

#endif
