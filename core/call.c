#include "call.h"

#include "dispatch.h"
#include "inflight.h"
#include "base64.h"
#include "log.h"
#include "modern.h"

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
    /* MRTR (2026-07-28): the client answers questions by retrying the request. */
    const cJSON *input_responses; /* borrowed from msg: this round's answers, or NULL */
    cJSON *answers;               /* owned: every answer so far (requestState and this round) */
    cJSON *input_requests;        /* owned: questions this run could not have answered */
    int nasks;                    /* questions asked by this run of the handler */
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

/* 2026-07-28: no request to the client. The n-th question of a run is keyed "ask-n"; its
 * answer comes in a retry of the request (inputResponses, or earlier rounds' answers carried
 * in requestState). Without one, the question is recorded for an InputRequiredResult. */
static int call_ask_modern(struct call_job *job, int what, cJSON *params, cJSON **answer)
{
    char key[32];
    const cJSON *given;
    cJSON *request;

    /* Only these three requests may answer input_required. */
    if (job->t.kind == HOST_CALL_COMPLETE) {
        cJSON_Delete(params);
        return MCPH_ERR_UNSUPPORTED;
    }
    snprintf(key, sizeof(key), "ask-%d", ++job->nasks);
    given = cJSON_GetObjectItemCaseSensitive(job->answers, key);
    if (cJSON_IsObject(given)) {
        cJSON_Delete(params);
        *answer = cJSON_Duplicate(given, 1);
        return *answer != NULL ? MCPH_OK : MCPH_ERR_NOMEM;
    }
    request = cJSON_CreateObject();
    if (request == NULL ||
        (job->input_requests == NULL && (job->input_requests = cJSON_CreateObject()) == NULL)) {
        cJSON_Delete(request);
        cJSON_Delete(params);
        return MCPH_ERR_NOMEM;
    }
    cJSON_AddStringToObject(request, "method", call_ask_methods[what]);
    if (params != NULL)
        cJSON_AddItemToObject(request, "params", params);
    cJSON_AddItemToObject(job->input_requests, key, request);
    return MCPH_ERR_AGAIN;
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
    if (job->o.modern)
        return call_ask_modern(job, what, params, answer);
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
    if (rc == MCPH_ERR_NOT_FOUND && job->t.kind == HOST_CALL_RESOURCE)
        return modern_not_found(job->o.id, job->t.uri, msg ? msg : "Resource not found",
                                job->o.modern);
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

/* requestState: the answers so far, bound to the request they belong to (method and target).
 * It only carries what the client itself answered, so a client that alters it can only
 * change its own answers; a state for another request is ignored (the questions come again).
 */
static char *call_state_encode(const struct call_job *job)
{
    cJSON *state = cJSON_CreateObject();
    char *text, *b64;

    cJSON_AddStringToObject(
        state, "m", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(job->o.msg, "method")));
    cJSON_AddStringToObject(state, "n", job->t.name);
    cJSON_AddItemToObject(state, "a",
                          job->answers ? cJSON_Duplicate(job->answers, 1) : cJSON_CreateObject());
    text = cJSON_PrintUnformatted(state);
    cJSON_Delete(state);
    if (text == NULL)
        return NULL;
    b64 = base64_encode(text, strlen(text));
    free(text);
    return b64;
}

/* The answers of requestState (if it is one of ours for this request) and of inputResponses,
 * merged into job->answers. */
static void call_state_decode(struct call_job *job)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(job->o.msg, "params");
    const char *b64 =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "requestState"));
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(job->o.msg, "method");
    const cJSON *given = cJSON_GetObjectItemCaseSensitive(params, "inputResponses");
    size_t len = 0;
    unsigned char *text = b64 ? base64_decode(b64, &len) : NULL;
    cJSON *state = text ? cJSON_ParseWithLength((const char *)text, len) : NULL;
    const char *target = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(state, "n"));
    const cJSON *e;

    job->answers = cJSON_CreateObject();
    if (cJSON_IsString(method) &&
        cJSON_Compare(cJSON_GetObjectItemCaseSensitive(state, "m"), method, 1) && target != NULL &&
        strcmp(target, job->t.name) == 0) {
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(state, "a"))
        {
            cJSON_AddItemToObject(job->answers, e->string, cJSON_Duplicate(e, 1));
        }
    }
    if (!cJSON_IsObject(given))
        given = NULL;
    cJSON_ArrayForEach(e, given)
    {
        cJSON_DeleteItemFromObjectCaseSensitive(job->answers, e->string);
        cJSON_AddItemToObject(job->answers, e->string, cJSON_Duplicate(e, 1));
    }
    cJSON_Delete(state);
    free(text);
}

/* The handler asked what only a retry can answer: InputRequiredResult. */
static cJSON *call_input_required(struct call_job *job)
{
    cJSON *result = cJSON_CreateObject();
    char *state = call_state_encode(job);

    cJSON_AddStringToObject(result, "resultType", "input_required");
    cJSON_AddItemToObject(result, "inputRequests", job->input_requests);
    job->input_requests = NULL;
    if (state != NULL)
        cJSON_AddStringToObject(result, "requestState", state);
    free(state);
    return result;
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
    c.name = job->t.own_name;
    c.env = &job->env;
    if (job->o.modern)
        call_state_decode(job);
    pthread_setspecific(job->o.srv->call_key, job);
    rc = job->t.fn(&pl->host.vt, pl->state, &c);
    pthread_setspecific(job->o.srv->call_key, NULL);
    if (job->input_requests != NULL) {
        cJSON *result = call_input_required(job);

        modern_result(result, job->reg, NULL, 0);
        reply = jsonrpc_result(job->o.id, result);
    } else if (rc != MCPH_OK) {
        reply = call_plugin_error(job, rc, c.error);
    } else if ((reply = call_check_output(job, &c)) == NULL) {
        cJSON *result = host_call_result(&c);

        if (job->o.modern)
            modern_result(result, job->reg, pl, job->t.kind == HOST_CALL_RESOURCE);
        reply = jsonrpc_result(job->o.id, result);
    }
    host_call_release(&c);
    return reply;
}

static void call_job_free(struct call_job *job)
{
    cJSON_Delete(job->o.msg);
    cJSON_Delete(job->t.owned_args);
    cJSON_Delete(job->progress_token);
    cJSON_Delete(job->answers);
    cJSON_Delete(job->input_requests);
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
}

/* After the pool is done with the job's plugin: the registry reference may go. */
static void call_job_done(struct work_job *work)
{
    call_job_free((struct call_job *)work);
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

int call_log_level(struct server *srv, int *level)
{
    const struct call_job *job = pthread_getspecific(srv->call_key);

    if (job == NULL || !job->o.modern)
        return 0;
    *level = atomic_load(&job->flight->cancelled) ? LOG_OFF : job->o.log_level;
    return 1;
}

void call_submit(struct call_origin *o, struct call_target *t)
{
    struct server *srv = o->srv;
    struct call_job *job = calloc(1, sizeof(*job));
    const cJSON *token = call_progress_token(o->msg);
    int status = job != NULL ? inflight_add(&srv->inflight, o->id, &job->flight) : STATUS_NOMEM;

    if (status != STATUS_OK) {
        /* The error echoes the id, which lives in the message: build it, then free both. */
        cJSON *err = status == STATUS_EXISTS
                         ? jsonrpc_error(o->id, JSONRPC_INVALID_REQUEST,
                                         "Invalid Request: a request with this id is still in "
                                         "flight",
                                         NULL)
                         : NULL;

        free(job);
        cJSON_Delete(t->owned_args);
        cJSON_Delete(o->msg);
        o->msg = NULL;
        dispatch_deliver(srv, o->batch, o->slot, err);
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
    job->work.done = call_job_done;
    job->work.drop = call_job_drop;
    job->work.excl = (t->plugin->flags & MCPH_PLUGIN_THREAD_SAFE) ? NULL : t->plugin;
    o->msg = NULL;
    t->owned_args = NULL;
    work_submit(&srv->work, &job->work);
}
