#include "call.h"

#include "dispatch.h"
#include "inflight.h"
#include "log.h"
#include "registry.h"
#include "revision.h"
#include "schema.h"
#include "status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct call_job {
    struct work_job work; /* first: the pool hands this back */
    struct call_origin o; /* msg owned */
    struct call_target t; /* owned_args owned */
    struct registry *reg; /* one reference: keeps plugin and definitions alive */
    struct inflight_call *flight;
    cJSON *progress_token; /* owned copy of _meta.progressToken, or NULL */
    struct host_env env;
    int ask_timeout_ms; /* copied: the config may be swapped by a reload meanwhile */
};

static const char *const call_ask_methods[] = {
    [HOST_ASK_SAMPLE] = "sampling/createMessage",
    [HOST_ASK_ELICIT] = "elicitation/create",
    [HOST_ASK_ROOTS] = "roots/list",
};

/* --- Services handed to the handler (struct host_env), on its thread. --- */

static void call_progress(void *ctx, double progress, double total, const char *message)
{
    struct call_job *job = ctx;
    cJSON *params;

    /* Nothing more for a cancelled request, progress included. */
    if (job->progress_token == NULL || atomic_load(&job->flight->cancelled))
        return;
    params = cJSON_CreateObject();
    if (params == NULL)
        return;
    cJSON_AddItemToObject(params, "progressToken", cJSON_Duplicate(job->progress_token, 1));
    cJSON_AddNumberToObject(params, "progress", progress);
    if (total > 0)
        cJSON_AddNumberToObject(params, "total", total);
    /* ProgressNotification.message came with 2025-03-26. */
    if (message != NULL && revision_has(job->o.rev, REVF_AUDIO))
        cJSON_AddStringToObject(params, "message", message);
    dispatch_deliver(job->o.srv, NULL, 0, jsonrpc_notification("notifications/progress", params));
}

static int call_cancelled(void *ctx)
{
    struct call_job *job = ctx;

    return atomic_load(&job->flight->cancelled);
}

static unsigned call_needs(int what)
{
    if (what == HOST_ASK_SAMPLE)
        return CALL_CAN_SAMPLE;
    return what == HOST_ASK_ELICIT ? CALL_CAN_ELICIT : CALL_CAN_ROOTS;
}

/* Tell the client to stop working on our request. */
static void call_ask_abandon(struct call_job *job, const char *ask_id, const char *reason)
{
    cJSON *params = cJSON_CreateObject();

    cJSON_AddStringToObject(params, "requestId", ask_id);
    cJSON_AddStringToObject(params, "reason", reason);
    dispatch_deliver(job->o.srv, NULL, 0, jsonrpc_notification("notifications/cancelled", params));
}

static int call_ask(void *ctx, int what, cJSON *params, cJSON **answer)
{
    struct call_job *job = ctx;
    struct server *srv = job->o.srv;
    cJSON *req = NULL, *reply = NULL, *err;
    char ask_id[32];
    int status;

    if (!(job->o.can & call_needs(what))) {
        cJSON_Delete(params);
        return MCPH_ERR_UNSUPPORTED;
    }
    /* A cancelled call asks nothing more. */
    if (atomic_load(&job->flight->cancelled)) {
        cJSON_Delete(params);
        return MCPH_ERR_CANCELLED;
    }
    /* Registered before it is sent, so the answer cannot overtake the wait. */
    inflight_ask_begin(&srv->inflight, job->flight, ask_id);
    req = jsonrpc_notification(call_ask_methods[what], params);
    if (req == NULL)
        return MCPH_ERR_NOMEM;
    cJSON_AddStringToObject(req, "id", ask_id);
    dispatch_deliver(srv, NULL, 0, req);
    status = inflight_ask_wait(&srv->inflight, job->flight, job->ask_timeout_ms, &reply);
    if (status == STATUS_EOF) {
        /* Input has ended, so no answer can come; stdout may still be read. */
        call_ask_abandon(job, ask_id, "end of input");
        return MCPH_ERR_CANCELLED;
    }
    if (status != STATUS_OK) {
        call_ask_abandon(job, ask_id, status == STATUS_AGAIN ? "timed out" : "cancelled");
        return status == STATUS_AGAIN ? MCPH_ERR_TIMEOUT : MCPH_ERR_CANCELLED;
    }
    err = cJSON_DetachItemFromObjectCaseSensitive(reply, "error");
    *answer = err ? err : cJSON_DetachItemFromObjectCaseSensitive(reply, "result");
    cJSON_Delete(reply);
    if (err != NULL)
        return MCPH_ERR_CLIENT;
    return cJSON_IsObject(*answer) ? MCPH_OK : MCPH_ERR_CLIENT;
}

/* --- Answers. --- */

static cJSON *call_plugin_error(const struct call_job *job, int rc, const char *msg)
{
    const char *id = job->t.plugin->id;
    char text[512];

    if (rc == MCPH_ERR_INVALID) {
        snprintf(text, sizeof(text), "%s", msg ? msg : "Invalid params");
        return jsonrpc_error(job->o.id, JSONRPC_INVALID_PARAMS, text, NULL);
    }
    if (rc == MCPH_ERR_NOT_FOUND && job->t.kind == HOST_CALL_RESOURCE) {
        cJSON *data = cJSON_CreateObject();

        cJSON_AddStringToObject(data, "uri", job->t.uri);
        snprintf(text, sizeof(text), "%s", msg ? msg : "Resource not found");
        return jsonrpc_error(job->o.id, JSONRPC_RESOURCE_NOT_FOUND, text, data);
    }
    if (rc == MCPH_ERR_NOT_FOUND) {
        snprintf(text, sizeof(text), "%s", msg ? msg : "Not found");
        return jsonrpc_error(job->o.id, JSONRPC_INVALID_PARAMS, text, NULL);
    }
    log_msg(&job->o.srv->log, LOG_WARNING, NULL, "plugin '%s' failed a request (status %d)%s%s", id,
            rc, msg ? ": " : "", msg ? msg : "");
    snprintf(text, sizeof(text), "Internal error in plugin '%s'%s%s", id, msg ? ": " : "",
             msg ? msg : "");
    return jsonrpc_error(job->o.id, JSONRPC_INTERNAL_ERROR, text, NULL);
}

/* A tool with an outputSchema must give a structured result that matches it (unless it
 * reported a tool error). NULL when it does, else the error to send instead. */
static cJSON *call_check_output(const struct call_job *job, const struct mcph_call *c)
{
    char why[512], text[700];

    if (job->t.output_schema == NULL || c->is_error)
        return NULL;
    if (c->structured == NULL)
        snprintf(why, sizeof(why), "it declares an outputSchema but gave no structured result");
    else if (schema_validate(job->t.output_schema, c->structured, why, sizeof(why)) == 0)
        return NULL;
    snprintf(text, sizeof(text), "Tool '%s' (plugin '%s') broke its own outputSchema: %s",
             job->t.name, job->t.plugin->id, why);
    log_msg(&job->o.srv->log, LOG_ERROR, NULL, "%s", text);
    return jsonrpc_error(job->o.id, JSONRPC_INTERNAL_ERROR, text, NULL);
}

static cJSON *call_run_handler(struct call_job *job)
{
    struct plugin *pl = job->t.plugin;
    const cJSON *args = job->t.args ? job->t.args : job->t.owned_args;
    struct mcph_call c;
    cJSON *reply;
    int rc;

    if (host_call_init(&c, job->t.kind, job->o.rev, args, job->t.uri) != STATUS_OK)
        return jsonrpc_error(job->o.id, JSONRPC_INTERNAL_ERROR, "Out of memory", NULL);
    c.mime_type = job->t.mime_type;
    c.env = &job->env;
    rc = job->t.fn(&pl->host.vt, pl->state, &c);
    if (rc != MCPH_OK)
        reply = call_plugin_error(job, rc, c.error);
    else if ((reply = call_check_output(job, &c)) == NULL)
        reply = jsonrpc_result(job->o.id, host_call_result(&c));
    host_call_release(&c);
    return reply;
}

static void call_job_free(struct call_job *job)
{
    cJSON_Delete(job->o.msg);
    cJSON_Delete(job->t.owned_args);
    cJSON_Delete(job->progress_token);
    server_release_registry(job->o.srv, job->reg);
    free(job);
}

static void call_job_run(struct work_job *work)
{
    struct call_job *job = (struct call_job *)work;
    cJSON *reply = NULL;

    /* A request cancelled while queued never reaches the plugin. */
    if (!atomic_load(&job->flight->cancelled))
        reply = call_run_handler(job);
    /* No answer at all for a cancelled request. */
    if (inflight_remove(&job->o.srv->inflight, job->flight)) {
        cJSON_Delete(reply);
        reply = NULL;
        if (job->o.batch != NULL)
            dispatch_deliver(job->o.srv, job->o.batch, job->o.slot, NULL);
    } else {
        dispatch_deliver(job->o.srv, job->o.batch, job->o.slot, reply);
    }
    call_job_free(job);
}

static void call_job_drop(struct work_job *work)
{
    struct call_job *job = (struct call_job *)work;

    inflight_remove(&job->o.srv->inflight, job->flight);
    if (job->o.batch != NULL)
        dispatch_deliver(job->o.srv, job->o.batch, job->o.slot, NULL);
    call_job_free(job);
}

static const cJSON *call_progress_token(const cJSON *msg)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *token = cJSON_GetObjectItemCaseSensitive(meta, "progressToken");

    /* A ProgressToken is a string or an integer, like a request id; anything else is not a
     * token, and the request gets no progress. */
    return jsonrpc_valid_id(token) ? token : NULL;
}

void call_submit(struct call_origin *o, struct call_target *t)
{
    struct server *srv = o->srv;
    struct call_job *job = calloc(1, sizeof(*job));
    const cJSON *token = call_progress_token(o->msg);
    int status = job != NULL ? inflight_add(&srv->inflight, o->id, &job->flight) : STATUS_NOMEM;

    if (status != STATUS_OK) {
        free(job);
        cJSON_Delete(t->owned_args);
        dispatch_deliver(srv, o->batch, o->slot,
                         status == STATUS_EXISTS
                             ? jsonrpc_error(o->id, JSONRPC_INVALID_REQUEST,
                                             "Invalid Request: a "
                                             "request with this id is still in flight",
                                             NULL)
                             : NULL);
        return;
    }
    job->o = *o;
    job->t = *t;
    job->progress_token = token ? cJSON_Duplicate(token, 1) : NULL;
    job->ask_timeout_ms = srv->cfg.ask_timeout_ms;
    job->reg = srv->reg;
    registry_ref(srv->reg);
    job->env = (struct host_env){
        .ctx = job, .progress = call_progress, .cancelled = call_cancelled, .ask = call_ask};
    job->work.run = call_job_run;
    job->work.drop = call_job_drop;
    job->work.excl = (t->plugin->flags & MCPH_PLUGIN_THREAD_SAFE) ? NULL : t->plugin;
    o->msg = NULL;
    t->owned_args = NULL;
    work_submit(&srv->work, &job->work);
}
