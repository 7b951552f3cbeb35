#include "calls/call.h"

#include "lib/crash.h"
#include "host/host.h"
#include "served/inflight.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "wire/out.h"
#include "calls/mrtr.h"
#include "calls/question.h"
#include "served/audit.h"
#include "served/decorate.h"
#include "served/metrics.h"
#include "served/notify.h"
#include "served/ratelimit.h"
#include "wire/principal.h"
#include "served/registry.h"
#include "wire/revision.h"
#include "wire/trace.h"
#include "lib/schema.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct call_job {
    struct work_job work;        /* first: the pool hands this back */
    struct call_origin o;        /* msg owned */
    struct call_target t;        /* owned_args owned */
    size_t held;                 /* counted in srv->calls_held while the job lives */
    size_t result_cost;          /* the handler's result parsed: what mcph_json_trim is given */
    struct inflight_call flight; /* registered in its peer's inflight while the job lives */
    cJSON *progress_token;       /* owned copy of _meta.progressToken, or NULL */
    struct host_env env;
    unsigned missing;            /* CALL_CAN_* bits the handler asked for and the client lacks */
    int ask_timeout_ms;          /* copied: the config may be swapped by a reload meanwhile */
    struct mrtr mrtr;            /* 2026-07-28: the questions and the retry's answers */
    struct notify_caller caller; /* under srv->call_key while the handler runs */
    struct metrics_call meter;   /* counted in srv->metrics (zero when it is NULL) */
    struct trace trace;          /* its W3C trace context, made when first asked for */
    long long audit_began;       /* CLOCK_MONOTONIC ns at its submission, with an audit log */
    char name[];                 /* t.name (which the registry owns) copied, in the same block */
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
    if (job->progress_token == NULL || atomic_load(&job->flight.cancelled))
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
    out_notify(job->o.peer->out, "notifications/progress", params);
}

static int call_cancelled(void *ctx)
{
    struct call_job *job = ctx;

    return atomic_load(&job->flight.cancelled);
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
    out_notify(job->o.peer->out, "notifications/cancelled", params);
}

/* A legacy session: a request to the client, and a wait for its response. */
static int call_ask_legacy(struct call_job *job, int what, cJSON *params, cJSON **answer)
{
    struct server *srv = job->o.srv;
    struct peer *peer = job->o.peer;
    cJSON *req, *reply = NULL, *err;
    char ask_id[32];
    int status;

    /* Registered before it is sent, so the answer cannot overtake the wait. */
    inflight_ask_begin(peer->inflight, &job->flight, ask_id);
    req = jsonrpc_notification(call_ask_methods[what], params);
    if (req == NULL)
        return MCPH_ERR_NOMEM;
    cJSON_AddStringToObject(req, "id", ask_id);
    /* The answer comes through the reader: if this thread is it, another reads on. */
    work_blocking(&srv->work);
    out_send(peer->out, req);
    status = inflight_ask_wait(peer->inflight, &job->flight, job->ask_timeout_ms, &reply);
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

/* A question that is not asked: it still uses up the name the handler gave it. */
static int call_ask_refuse(struct call_job *job, cJSON *params, int status)
{
    mrtr_pass(&job->mrtr, 0);
    cJSON_Delete(params);
    return status;
}

/* Fit a legacy question to the session's revision; one that does not fit is not asked and
 * the log says why. */
static int call_ask_fits(struct call_job *job, int what, cJSON *params)
{
    struct strbuf why = STRBUF_INIT;
    int status = question_fit(what, params, job->o.rev, &why);

    if (status != STATUS_OK)
        log_msg(&job->o.srv->log, LOG_WARNING, NULL,
                "plugin '%s' (%s): %s not asked: %s; the client speaks %s (the plugin gets "
                "MCPH_ERR_UNSUPPORTED; ask without it, or the client needs 2025-11-25)",
                job->t.plugin->id, job->name, call_ask_methods[what], why.buf,
                revision_get(job->o.rev)->name);
    strbuf_release(&why);
    return status;
}

static int call_ask(void *ctx, int what, cJSON *params, cJSON **answer)
{
    struct call_job *job = ctx;

    /* Only tools, reads and gets may answer input_required under 2026-07-28. */
    if (!(job->o.can & call_needs(what)) || (job->o.modern && job->t.kind == RESULT_COMPLETE)) {
        if (!(job->o.can & call_needs(what)))
            job->missing |= call_needs(what);
        return call_ask_refuse(job, params, MCPH_ERR_UNSUPPORTED);
    }
    /* A cancelled call asks nothing more. */
    if (atomic_load(&job->flight.cancelled))
        return call_ask_refuse(job, params, MCPH_ERR_CANCELLED);
    if (job->o.modern)
        return status_to_mcph(mrtr_ask(&job->mrtr, call_ask_methods[what], params, answer));
    /* Only what the client's revision defines is asked. */
    if (call_ask_fits(job, what, params) != STATUS_OK)
        return call_ask_refuse(job, params, MCPH_ERR_UNSUPPORTED);
    /* A legacy question is a request of its own: its name only counts as used. */
    if (mrtr_pass(&job->mrtr, 1) != STATUS_OK)
        return call_ask_refuse(job, params, MCPH_ERR_NOMEM);
    return call_ask_legacy(job, what, params, answer);
}

/* host->ask_key: the name of the next question, kept by the call's struct mrtr in both
 * eras, so that a name is checked the same way whichever revision the client speaks. */
static int call_ask_key(void *ctx, const char *key)
{
    struct call_job *job = ctx;

    return status_to_mcph(mrtr_name(&job->mrtr, key));
}

/* host->call_origin: the request's origin, made when first asked for (mrtr_origin): most
 * calls never ask, and pay nothing for it. The handler's thread. */
static const char *call_origin_text(void *ctx)
{
    struct call_job *job = ctx;

    return mrtr_origin(&job->mrtr);
}

/* host->trace_context: the traceparent to pass on (wire/trace.h). The handler's thread. */
static const char *call_trace(void *ctx, const char **state)
{
    struct call_job *job = ctx;

    return trace_context(&job->trace, state);
}

/* host->keep and host->kept: a text carried in the call's requestState to its retry (under
 * 2026-07-28; a legacy call keeps it for its one run). The handler's thread. */
static int call_keep(void *ctx, const char *text)
{
    struct call_job *job = ctx;

    return status_to_mcph(mrtr_keep(&job->mrtr, text));
}

static const char *call_kept(void *ctx)
{
    struct call_job *job = ctx;

    return job->mrtr.kept;
}

/* The origin of the request: what a 2026-07-28 retry's requestState carries (set by
 * mrtr_begin), else made when the handler first asks (call_origin_text); in an
 * isolated plugin's child, the one its parent passes in _meta (the parent's request, which
 * the child serves in several requests of its own when its plugin asks). */
static void call_set_origin(struct call_job *job)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(job->o.msg, "params");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const char *given =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, MRTR_KEY_ORIGIN));

    if (job->o.srv->isolated != NULL && mrtr_origin_ok(given))
        memcpy(job->mrtr.origin, given, strlen(given) + 1);
}

/* --- Answers. --- */

/* "trace=TRACEID" for the lines mcph writes about the call once its handler returned (while
 * it runs, the log adds it: notify_log_tag). Made now if nothing asked before. */
static const char *call_trace_tag(struct call_job *job)
{
    return trace_tag(&job->trace);
}

/* Under 2026-07-28, a handler that gave up because the client lacks a capability it asked
 * for: -32021 naming what it needs (data.requiredCapabilities, a ClientCapabilities object). */
static cJSON *call_missing_capability(const struct call_job *job)
{
    static const char *const names[] = {"sampling", "elicitation", "roots"};
    cJSON *data = cJSON_CreateObject();
    cJSON *caps = cJSON_AddObjectToObject(data, "requiredCapabilities");
    struct strbuf text = STRBUF_INIT;
    cJSON *error;

    strbuf_addstr(&text, "Missing required client capability:");
    for (unsigned i = 0; i < 3; i++) {
        if (!(job->missing & (1u << i)))
            continue;
        cJSON_AddObjectToObject(caps, names[i]);
        strbuf_addf(&text, " %s", names[i]);
    }
    error = jsonrpc_error(job->o.id, JSONRPC_MISSING_CAPABILITY, text.buf, data);
    strbuf_release(&text);
    return error;
}

static cJSON *call_plugin_error(struct call_job *job, int rc, const char *msg)
{
    const char *id = job->t.plugin->id;
    struct strbuf text = STRBUF_INIT;
    cJSON *error;

    /* msg is the plugin's own (host->error), sent whole: what it quotes of the request is
     * its choice. */
    if (rc == MCPH_ERR_INVALID)
        return jsonrpc_error(job->o.id, JSONRPC_INVALID_PARAMS, msg ? msg : "Invalid params", NULL);
    if (rc == MCPH_ERR_UNSUPPORTED && job->o.modern && job->missing != 0)
        return call_missing_capability(job);
    if (rc == MCPH_ERR_NOT_FOUND && job->t.kind == RESULT_RESOURCE)
        return jsonrpc_not_found(job->o.id, job->t.uri, msg ? msg : "Resource not found",
                                 job->o.modern);
    if (rc == MCPH_ERR_NOT_FOUND)
        return jsonrpc_error(job->o.id, JSONRPC_INVALID_PARAMS, msg ? msg : "Not found", NULL);
    log_msg(&job->o.srv->log, LOG_WARNING, NULL, "plugin '%s' failed a request (status %d)%s%s %s",
            id, rc, msg ? ": " : "", msg ? msg : "", call_trace_tag(job));
    strbuf_addf(&text, "Internal error in plugin '%s'%s%s", id, msg ? ": " : "", msg ? msg : "");
    error = jsonrpc_error(job->o.id, JSONRPC_INTERNAL_ERROR, text.buf, NULL);
    strbuf_release(&text);
    return error;
}

/* A tool with an outputSchema must give a structured result that matches it (unless it
 * reported a tool error). NULL when it does, else the error to send instead. */
static cJSON *call_check_output(struct call_job *job, const struct mcph_call *c)
{
    struct strbuf why = STRBUF_INIT, text = STRBUF_INIT;
    cJSON *error;

    if (job->t.output_schema == NULL || c->is_error)
        return NULL;
    if (c->structured == NULL)
        strbuf_addstr(&why, "it declares an outputSchema but gave no structured result");
    else if (schema_match(job->t.output_schema, c->structured, &why) == STATUS_OK)
        return NULL;
    strbuf_addf(&text, "Tool '%s' (plugin '%s') broke its own outputSchema: %s", job->t.name,
                job->t.plugin->id, why.buf);
    log_msg(&job->o.srv->log, LOG_ERROR, NULL, "%s %s", text.buf, call_trace_tag(job));
    error = jsonrpc_error(job->o.id, JSONRPC_INTERNAL_ERROR, text.buf, NULL);
    strbuf_release(&why);
    strbuf_release(&text);
    return error;
}

/* What a crash report calls the row a handler serves. */
static const char *const call_kind_names[] = {
    [RESULT_TOOL] = "tool",
    [RESULT_RESOURCE] = "resource",
    [RESULT_PROMPT] = "prompt",
    [RESULT_COMPLETE] = "completion",
};

/* What the handler's run gives: a result to wrap in the envelope, or a whole error message. */
struct call_answer {
    cJSON *result; /* owned, or NULL */
    cJSON *error;  /* owned, or NULL */
};

/* A 2026-07-28 call's questions begin (the answers its retry carries, in a state bound to the
 * principal of the peer, which holds it while the call lives): NULL, or the error to answer
 * with (a new object). */
static cJSON *call_begin_mrtr(struct call_job *job)
{
    const struct principal *who = job->o.peer->principal;
    int status = job->o.modern ? mrtr_begin_as(&job->mrtr, job->o.srv->state_key,
                                               job->o.srv->state_key_len, job->o.msg, job->t.name,
                                               who ? who->id : NULL, (long long)time(NULL))
                               : STATUS_OK;
    struct strbuf why = STRBUF_INIT;
    cJSON *error;

    if (status == STATUS_INVALID) {
        strbuf_addf(&why, "Invalid requestState: %s", job->mrtr.refused);
        error = jsonrpc_error(job->o.id, JSONRPC_INVALID_PARAMS,
                              why.nomem ? "Invalid requestState" : why.buf, NULL);
        strbuf_release(&why);
        return error;
    }
    if (status != STATUS_OK)
        return jsonrpc_error(job->o.id, JSONRPC_INTERNAL_ERROR, "Out of memory", NULL);
    return NULL;
}

/* Run the handler on c. While it runs, what it logs goes to the call's peer (the caller under
 * call_key, notify.h) and a crash names it. Returns the handler's MCPH_* code. */
static int call_invoke(struct call_job *job, struct mcph_call *c)
{
    struct plugin *pl = job->t.plugin;
    int rc;

    job->caller = (struct notify_caller){.peer = job->o.peer,
                                         .cancelled = &job->flight.cancelled,
                                         .modern = job->o.modern,
                                         .log_level = job->o.log_level,
                                         .trace = &job->trace};
    pthread_setspecific(job->o.srv->call_key, &job->caller);
    crash_enter(pl->id, call_kind_names[job->t.kind], job->t.uri ? job->t.uri : job->t.name,
                job->o.id);
    rc = job->t.fn(&pl->host.vt, pl->state, c);
    crash_leave();
    pthread_setspecific(job->o.srv->call_key, NULL);
    return rc;
}

static struct call_answer call_run_handler(struct call_job *job)
{
    struct plugin *pl = job->t.plugin;
    const cJSON *args = job->t.args ? job->t.args : job->t.owned_args;
    struct call_answer a = {0};
    struct registry *reg;
    struct mcph_call c;
    int rc;

    job->meter.outcome = METRICS_ERROR;
    if (result_init(&c, job->t.kind, job->o.rev, args, job->t.uri) != STATUS_OK) {
        a.error = jsonrpc_error(job->o.id, JSONRPC_INTERNAL_ERROR, "Out of memory", NULL);
        return a;
    }
    c.mime_type = job->t.mime_type;
    c.name = job->t.own_name;
    c.data = job->t.own_data;
    c.env = &job->env;
    a.error = call_begin_mrtr(job);
    if (a.error != NULL) {
        result_release(&c);
        return a;
    }
    call_set_origin(job);
    rc = call_invoke(job, &c);
    /* The set served now says what a 2026-07-28 result carries (serverInfo, cache hints). */
    reg = job->o.modern ? server_hold_registry(job->o.srv) : NULL;
    if (job->o.modern &&
        (a.result = mrtr_result(&job->mrtr, reg, job->o.msg, job->t.name)) != NULL) {
        /* The handler asked what only a retry can answer. */
        job->meter.outcome = METRICS_INPUT_REQUIRED;
    } else if (rc != MCPH_OK) {
        a.error = call_plugin_error(job, rc, c.error);
        job->meter.outcome = metrics_outcome_of(rc);
    } else if ((a.error = call_check_output(job, &c)) == NULL) {
        a.result = result_build(&c);
        if (job->o.modern)
            decorate_result(a.result, reg, pl, job->t.kind == RESULT_RESOURCE);
        /* A shared cache must not hand what this principal may read to one that may not. */
        if (job->o.modern && job->t.kind == RESULT_RESOURCE && job->o.private_view)
            decorate_private(a.result);
        job->meter.outcome = c.is_error ? METRICS_TOOL_ERROR : METRICS_OK;
    }
    server_release_registry(job->o.srv, reg);
    job->result_cost = c.bytes + c.parsed;
    result_release(&c);
    return a;
}

/* --- The audit log (served/audit.h). --- */

static const int call_audit_outcomes[METRICS_OUTCOMES] = {
    [METRICS_OK] = AUDIT_RESULT,       [METRICS_TOOL_ERROR] = AUDIT_TOOL_ERROR,
    [METRICS_ERROR] = AUDIT_ERROR,     [METRICS_CANCELLED] = AUDIT_CANCELLED,
    [METRICS_TIMEOUT] = AUDIT_TIMEOUT, [METRICS_INPUT_REQUIRED] = AUDIT_INPUT_REQUIRED,
};

static long long call_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* What a call's line names: the tool, prompt or URI; for a read matched by a URI template,
 * the template, *uri getting the URI read (its variables may be secrets: audit.h). */
static const char *call_audit_target(const struct call_target *t, const char **uri)
{
    *uri = NULL;
    if (t->uri == NULL)
        return t->name;
    /* A fixed resource's own name is its URI; a template's is the template. */
    if (t->own_name != NULL && strcmp(t->own_name, t->uri) != 0) {
        *uri = t->uri;
        return t->own_name;
    }
    return t->uri;
}

/* The line of a call whose request is msg; uri: see call_audit_target; us: its duration, -1
 * for none; trace: its trace context (the thread running the call). */
static void call_audit_line(struct server *srv, const struct peer *peer, const cJSON *msg,
                            const char *target, const char *uri, const struct plugin *pl,
                            int outcome, int code, const char *why, long long us,
                            struct trace *trace)
{
    const char *tid = trace_id(trace);
    const struct principal *who = peer->principal;
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
    struct audit_entry e = {
        .principal = who ? who->id : NULL,
        .principal_label = who ? who->label : NULL,
        .id = cJSON_GetObjectItemCaseSensitive(msg, "id"),
        .method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "method")),
        .target = target,
        .uri = uri,
        .plugin = pl ? pl->id : NULL,
        .outcome = outcome,
        .code = code,
        .why = why,
        .duration_us = us,
        .trace_id = tid[0] != '\0' ? tid : NULL,
        /* What the request carried: a completion's argument, tools' and prompts' arguments. */
        .args = args ? args : cJSON_GetObjectItemCaseSensitive(params, "argument"),
        .with_args = pl ? pl->section.audit_arguments : 0,
    };

    audit_call(srv->audit, &e);
}

static void call_audit_now(struct server *srv, const struct peer *peer, const cJSON *msg,
                           const char *target, const char *uri, const struct plugin *pl,
                           int outcome, int code, const char *why)
{
    struct trace trace;

    if (srv->audit == NULL)
        return;
    /* A refusal has no job: the trace it came with (or a new one) for its line alone. */
    trace_init(&trace, msg, peer);
    call_audit_line(srv, peer, msg, target, uri, pl, outcome, code, why, -1, &trace);
    trace_release(&trace);
}

void call_audit_answered(struct server *srv, const struct peer *peer, const cJSON *msg,
                         const char *target, const struct plugin *pl, int outcome, int code,
                         const char *why)
{
    call_audit_now(srv, peer, msg, target, NULL, pl, outcome, code, why);
}

void call_audit_refused_read(struct server *srv, const struct peer *peer, const cJSON *msg,
                             const char *tmpl, const char *uri, const struct plugin *pl)
{
    call_audit_now(srv, peer, msg, tmpl, uri, tmpl ? pl : NULL, AUDIT_REFUSED, 0, "unknown");
}

/* A job's line, as it was answered (error: the message sent, or NULL). */
static void call_audit_end(struct call_job *job, const cJSON *error)
{
    const cJSON *body = cJSON_GetObjectItemCaseSensitive(error, "error");
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(body, "code");
    const char *uri, *target = call_audit_target(&job->t, &uri);

    if (job->o.srv->audit == NULL)
        return;
    call_audit_line(job->o.srv, job->o.peer, job->o.msg, target, uri, job->t.plugin,
                    call_audit_outcomes[job->meter.outcome],
                    cJSON_IsNumber(code) ? code->valueint : 0, NULL,
                    (call_now_ns() - job->audit_began) / 1000, &job->trace);
}

static void call_job_free(struct call_job *job)
{
    cJSON_Delete(job->o.msg);
    cJSON_Delete(job->t.owned_args);
    cJSON_Delete(job->progress_token);
    mrtr_release(&job->mrtr);
    trace_release(&job->trace);
    server_release_plugin(job->o.srv, job->t.plugin);
    atomic_fetch_sub(&job->o.srv->calls_held, job->held);
    peer_drop(job->o.peer);
    /* A costly request or result leaves many small blocks free: they go back to the system. */
    mcph_json_trim(job->held + job->result_cost);
    free(job);
}

static void call_job_run(struct work_job *work)
{
    struct call_job *job = (struct call_job *)work;
    struct out *out = job->o.peer->out;
    struct call_answer a = {0};

    /* A request cancelled while queued never reaches the plugin. */
    if (!atomic_load(&job->flight.cancelled))
        a = call_run_handler(job);
    /* No answer at all for a cancelled request. */
    if (inflight_remove(job->o.peer->inflight, &job->flight)) {
        cJSON_Delete(a.result);
        cJSON_Delete(a.error);
        job->meter.outcome = METRICS_CANCELLED;
        /* Before the answer goes: once it has, an HTTP connection may read its next request
         * over the headers the call's trace context points at. */
        call_audit_end(job, NULL);
        out_reply(out, job->o.batch, job->o.slot, NULL);
    } else if (a.result != NULL) {
        call_audit_end(job, NULL);
        out_result(out, job->o.batch, job->o.slot, job->o.id, a.result);
    } else {
        call_audit_end(job, a.error);
        out_reply(out, job->o.batch, job->o.slot, a.error);
    }
    if (job->o.srv->metrics != NULL)
        metrics_call_end(job->o.srv->metrics, &job->meter);
}

/* After the pool is done with the job's plugin: the registry reference may go. */
static void call_job_done(struct work_job *work)
{
    call_job_free((struct call_job *)work);
}

static void call_job_drop(struct work_job *work)
{
    struct call_job *job = (struct call_job *)work;

    inflight_remove(job->o.peer->inflight, &job->flight);
    job->meter.outcome = METRICS_CANCELLED;
    call_audit_end(job, NULL);
    if (job->o.batch != NULL)
        out_reply(job->o.peer->out, job->o.batch, job->o.slot, NULL);
    if (job->o.srv->metrics != NULL)
        metrics_call_end(job->o.srv->metrics, &job->meter);
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

/* Whether a call holding `cost` bytes more would take what is held for calls in flight and
 * replies not yet written past [server] max_pending_mb. Under the state lock (cfg). */
static int call_over_cap(struct server *srv, struct peer *peer, size_t cost)
{
    size_t cap = (size_t)srv->cfg.max_pending_mb * 1024u * 1024u;

    return atomic_load(&srv->calls_held) + out_held(peer->out) + atomic_load(&srv->transport_held) +
               cost >
           cap;
}

/* Answer a call that will not run with error `code` (0: no answer, out of memory), then free
 * what it would have taken. The error echoes the id, which lives in the message: send it,
 * then free both. */
static void call_refuse(struct call_origin *o, struct call_target *t, int code, int mb)
{
    struct out *out = o->peer->out;
    const char *uri, *target = call_audit_target(t, &uri);

    call_audit_now(o->srv, o->peer, o->msg, target, uri, t->plugin, AUDIT_REFUSED, code,
                   code == JSONRPC_INVALID_REQUEST ? "duplicate_id"
                   : code == JSONRPC_SERVER_ERROR  ? "busy"
                                                   : "out_of_memory");
    if (code == JSONRPC_INVALID_REQUEST) {
        out_error(out, o->batch, o->slot, o->id, code,
                  "Invalid Request: a request with this id is still in flight", NULL);
    } else if (code == JSONRPC_SERVER_ERROR) {
        struct strbuf text = STRBUF_INIT;

        strbuf_addf(&text,
                    "Server busy: requests in flight and replies not yet read hold %d MiB, the "
                    "limit of [server] max_pending_mb; send it again when calls have finished",
                    mb);
        out_error(out, o->batch, o->slot, o->id, code, text.buf, NULL);
        strbuf_release(&text);
    } else {
        out_reply(out, o->batch, o->slot, NULL);
    }
    cJSON_Delete(t->owned_args);
    t->owned_args = NULL;
    cJSON_Delete(o->msg);
    o->msg = NULL;
}

/* A tool call past a [limit.NAME] section is answered at once, -32000 with data.retryAfterMs
 * (which the HTTP transport makes a 429), and never queued. Returns 1 when it was. */
static int call_rate_refused(struct call_origin *o, struct call_target *t)
{
    const struct principal *who = o->peer->principal;
    char msg[256];
    long retry_ms;
    cJSON *data;

    if (t->kind != RESULT_TOOL || o->srv->cfg.nlimits == 0 ||
        ratelimit_tool(o->srv->rates, &o->srv->cfg, &o->srv->log, t->name ? t->name : "",
                       who ? who->id : NULL, who ? who->label : NULL, &retry_ms, msg,
                       sizeof(msg)) == STATUS_OK)
        return 0;
    call_audit_answered(o->srv, o->peer, o->msg, t->name, t->plugin, AUDIT_REFUSED,
                        JSONRPC_SERVER_ERROR, "rate_limited");
    data = cJSON_CreateObject();
    if (data != NULL)
        cJSON_AddNumberToObject(data, "retryAfterMs", (double)retry_ms);
    out_error(o->peer->out, o->batch, o->slot, o->id, JSONRPC_SERVER_ERROR, msg, data);
    cJSON_Delete(t->owned_args);
    t->owned_args = NULL;
    cJSON_Delete(o->msg);
    o->msg = NULL;
    return 1;
}

void call_submit(struct call_origin *o, struct call_target *t)
{
    struct server *srv = o->srv;
    size_t cost = o->bytes + LIMIT_PENDING_CALL_BYTES;
    size_t name_len = t->name ? strlen(t->name) : 0;
    struct call_job *job = NULL;
    const cJSON *token = call_progress_token(o->msg);
    int status = STATUS_NOMEM;

    if (call_rate_refused(o, t))
        return;
    if (call_over_cap(srv, o->peer, cost)) {
        call_refuse(o, t, JSONRPC_SERVER_ERROR, srv->cfg.max_pending_mb);
        return;
    }
    job = calloc(1, sizeof(*job) + name_len + 1);
    if (job != NULL) {
        memcpy(job->name, t->name ? t->name : "", name_len);
        job->flight.method = o->method;
        job->flight.target = job->name;
        status = inflight_add(o->peer->inflight, o->id, &job->flight);
    }
    if (status != STATUS_OK) {
        free(job);
        call_refuse(o, t, status == STATUS_EXISTS ? JSONRPC_INVALID_REQUEST : 0, 0);
        return;
    }
    job->held = cost;
    atomic_fetch_add(&srv->calls_held, cost);
    job->o = *o;
    job->t = *t;
    job->t.name = job->name;
    if (srv->audit != NULL)
        job->audit_began = call_now_ns();
    if (srv->metrics != NULL)
        metrics_call_begin(srv->metrics, &job->meter, t->plugin->id, t->kind, job->name);
    job->progress_token = token ? cJSON_Duplicate(token, 1) : NULL;
    job->ask_timeout_ms = srv->cfg.ask_timeout_ms;
    /* The instance, not the whole set served: a queued call must not keep every plugin of an
     * older set loaded across reloads. */
    plugin_ref(t->plugin);
    peer_hold(o->peer);
    job->env = (struct host_env){.ctx = job,
                                 .progress = call_progress,
                                 .cancelled = call_cancelled,
                                 .ask = call_ask,
                                 .ask_key = call_ask_key,
                                 .origin = call_origin_text,
                                 .trace = call_trace,
                                 .keep = call_keep,
                                 .kept = call_kept};
    trace_init(&job->trace, job->o.msg, o->peer);
    job->work.run = call_job_run;
    job->work.done = call_job_done;
    job->work.drop = call_job_drop;
    job->work.lane = &t->plugin->lane;
    o->msg = NULL;
    t->owned_args = NULL;
    work_submit(&srv->work, &job->work);
}
