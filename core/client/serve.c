/*
 * serve.c: an upstream MCP server (any language, over stdio) served as the rows of an
 * instance. mcp_serve() starts the server (link_run.c) and defines a row for each of its tools,
 * resources, resource templates and prompts; the handlers forward each call, read, get and
 * completion with its arguments, pass the server's progress on to the client and the
 * client's cancellation to the server, ask the client the server's questions (sampling,
 * elicitation, roots) through the host, and hand the server's result back whole
 * (host->result_json).
 *
 * A reload that keeps the section, a refresh (the server said list_changed, or it started
 * again after a crash) and the next instance of the same section take the running server
 * over (MCPH_PLUGIN_TAKE_OVER): the process is not started again, only listed again.
 *
 * Questions under 2026-07-28: the host answers a question with MCPH_ERR_AGAIN and runs the
 * handler again once the client has answered. A 2026-07-28 server asks in its result
 * (input_required): its round is kept with the call (host->keep) and the retry continues it
 * with one request (mcp_resume). A legacy server is still waiting inside the same
 * request, so the request is parked under a key made of the request's origin
 * (host->call_origin: the same for the retries of one request, another for any other
 * request or client) and the call (method, name, arguments), and the call that comes back
 * with that key resumes it: the questions asked so far are asked again in the same order
 * (the host now has their answers) and the new answers go to the server. Two clients making
 * the same call each find their own. An isolated plugin's child is sent the origin in _meta
 * (MCP_ORIGIN_KEY), so that what its plugin keeps is keyed by the parent's request too.
 */
#include "client/link.h"
#include "client/rounds.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a forwarded request serves, for its errors. */
enum mcp_kind {
    MCP_TOOL,
    MCP_READ,
    MCP_GET,
    MCP_COMPLETE,
};

/* --- Answers to the server's questions, through the client. --- */

/* Send the server the outcome of asking. */
static void mcp_answer(struct mcp_link *l, const cJSON *id, const char *method, int rc,
                       cJSON *answer)
{
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(answer, "code");
    const cJSON *message = cJSON_GetObjectItemCaseSensitive(answer, "message");

    switch (rc) {
    case MCPH_OK:
        mcp_link_respond(l, id, answer, 0, NULL);
        return;
    case MCPH_ERR_CLIENT:
        mcp_link_respond(l, id, NULL, cJSON_IsNumber(code) ? code->valueint : -32603,
                         cJSON_IsString(message) ? message->valuestring : "the client refused");
        break;
    case MCPH_ERR_UNSUPPORTED:
        mcp_link_respond(l, id, NULL, -32601,
                         strcmp(method, "roots/list") == 0
                             ? "the client does not offer roots"
                             : "the client does not offer this capability");
        break;
    case MCPH_ERR_TIMEOUT:
        mcp_link_respond(l, id, NULL, -32603, "the client did not answer in time");
        break;
    case MCPH_ERR_CANCELLED:
        mcp_link_respond(l, id, NULL, -32603, "the call was cancelled");
        break;
    default:
        mcp_link_respond(l, id, NULL, -32603, "mcph could not ask its client");
        break;
    }
    cJSON_Delete(answer);
}

/* Record a question of the server's on p, for a call that may come back. */
static int mcp_record(struct mcp_pending *p, const char *method, const cJSON *params)
{
    struct mcp_asked *grown = realloc(p->asked, (p->nasked + 1) * sizeof(*grown));

    if (grown == NULL)
        return MCPH_ERR_NOMEM;
    p->asked = grown;
    grown[p->nasked].method = strdup(method);
    grown[p->nasked].params = params != NULL ? cJSON_PrintUnformatted(params) : NULL;
    if (grown[p->nasked].method == NULL) {
        free(grown[p->nasked].params);
        return MCPH_ERR_NOMEM;
    }
    p->nasked++;
    return MCPH_OK;
}

/* Ask the questions not asked yet in this run of the handler (the open one has p->open_id).
 * Returns MCPH_OK, or MCPH_ERR_AGAIN when the call must park. */
static int mcp_ask_open(struct mcp_link *l, const struct mcph_host *host, struct mcph_call *call,
                        struct mcp_pending *p)
{
    /* Under 2026-07-28 the host answers a run's questions in the order they were asked: a run
     * that comes back (unparked: asked_now 0) asks the ones answered to the server already
     * again, and their answers are dropped. Within one run, and so in a legacy session
     * (whose only run never parks), each is asked once. */
    for (size_t i = p->asked_now; i < p->nasked; i++) {
        cJSON *answer = NULL;
        int rc;

        if (host->cancelled(call))
            return MCPH_OK; /* mcp_link_wait says so next */
        rc = mcp_ask(host, call, p->asked[i].method, p->asked[i].params, &answer);
        if (rc == MCPH_ERR_AGAIN)
            return MCPH_ERR_AGAIN;
        p->asked_now = i + 1;
        if (i < p->answered) {
            cJSON_Delete(answer);
            continue;
        }
        mcp_answer(l, p->open_id, p->asked[i].method, rc, answer);
        cJSON_Delete(p->open_id);
        p->open_id = NULL;
        p->answered = i + 1;
    }
    return MCPH_OK;
}

/* One event that reached a waiting call. Returns MCPH_OK or MCPH_ERR_AGAIN (park). */
static int mcp_event(struct mcp_link *l, const struct mcph_host *host, struct mcph_call *call,
                     struct mcp_pending *p, struct mcp_event *ev)
{
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(ev->msg, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(ev->msg, "params");

    if (strcmp(method->valuestring, "notifications/progress") == 0) {
        const cJSON *progress = cJSON_GetObjectItemCaseSensitive(params, "progress");
        const cJSON *total = cJSON_GetObjectItemCaseSensitive(params, "total");
        const cJSON *message = cJSON_GetObjectItemCaseSensitive(params, "message");

        if (cJSON_IsNumber(progress))
            host->progress(call, progress->valuedouble,
                           cJSON_IsNumber(total) ? total->valuedouble : 0,
                           cJSON_IsString(message) ? message->valuestring : NULL);
        return MCPH_OK;
    }
    if (mcp_record(p, method->valuestring, params) != MCPH_OK) {
        mcp_link_respond(l, cJSON_GetObjectItemCaseSensitive(ev->msg, "id"), NULL, -32603,
                         "out of memory");
        return MCPH_OK;
    }
    cJSON_Delete(p->open_id);
    p->open_id = cJSON_DetachItemFromObjectCaseSensitive(ev->msg, "id");
    return mcp_ask_open(l, host, call, p);
}

/* --- Forwarding. --- */

static int mcp_fail(const struct mcph_host *host, struct mcph_call *call, enum mcp_kind kind,
                    const char *text)
{
    if (kind == MCP_TOOL)
        return host->tool_error(call, "%s", text);
    return host->error(call, MCPH_ERR, "%s", text);
}

/* The server's result given to the host as JSON text: the text it wrote (raw), or the tree
 * printed. */
static int mcp_result(const struct mcph_host *host, struct mcph_call *call, const char *raw,
                      const cJSON *result)
{
    char *json = raw == NULL ? cJSON_PrintUnformatted(result) : NULL;
    size_t len;
    int rc;

    if (raw == NULL && json == NULL)
        return MCPH_ERR_NOMEM;
    len = strlen(raw != NULL ? raw : json);
    rc = host->result_json(call, raw != NULL ? raw : json);
    free(json);
    if (rc == MCPH_ERR_INVALID)
        return host->error(call, MCPH_ERR, "the server's result is not a valid %s result", "MCP");
    if (rc == MCPH_ERR_LIMIT)
        return host->error(call, MCPH_ERR,
                           "the server's result is %zu bytes; mcph passes results of at "
                           "most %u MiB (MCPH_MAX_RESULT_BYTES)",
                           len, MCPH_MAX_RESULT_BYTES >> 20);
    return rc;
}

/* The server's answer: its result whole (raw: its text, unparsed: link_read.c), or its error
 * as the same JSON-RPC error. */
static int mcp_reply(const struct mcph_host *host, struct mcph_call *call, const char *raw,
                     const cJSON *reply)
{
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(reply, "result");
    const cJSON *error = cJSON_GetObjectItemCaseSensitive(reply, "error");

    if (raw != NULL)
        return mcp_result(host, call, raw, NULL);
    /* cJSON cut a string of it at a \u0000 (mcp_json_mark_cut): refused, never passed on
     * cut, as a client's own text holding U+0000 is. */
    if (cJSON_IsObject(result) && (result->type & MCP_JSON_CUT) != 0)
        return host->error(call, MCPH_ERR,
                           "the server's result holds text with U+0000 (\\u0000), which mcph "
                           "cannot pass on whole; refused rather than cut");
    if (cJSON_IsObject(result))
        return mcp_result(host, call, NULL, result);
    {
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(error, "code");
        const cJSON *message = cJSON_GetObjectItemCaseSensitive(error, "message");
        int c = cJSON_IsNumber(code) ? code->valueint : -32603;
        int status = c == -32602 ? MCPH_ERR_INVALID : c == -32002 ? MCPH_ERR_NOT_FOUND : MCPH_ERR;

        return host->error(call, status, "%s",
                           cJSON_IsString(message) ? message->valuestring : "the server failed");
    }
}

/* What identifies a call that comes back with its client's answer (2026-07-28): its origin
 * (the request and its retries), method, name (or URI) and arguments. The key is made only
 * when a call parks or something is parked, not on every call. */
struct mcp_callkey {
    const char *origin; /* host->call_origin(), set by mcp_forward */
    const char *method;
    const char *name;
    const char *args; /* JSON text */
    char *key;        /* owned, made when first needed, or NULL */
};

static char *mcp_key(struct mcp_callkey *k)
{
    if (k->key == NULL) {
        struct mcph_strbuf sb = MCPH_STRBUF_INIT;

        mcph_sb_addf(&sb, "%s\n%s\n%s\n%s", k->origin, k->method, k->name, k->args);
        k->key = sb.nomem ? NULL : mcph_sb_detach(&sb, NULL);
        mcph_sb_release(&sb);
    }
    return k->key;
}

/* Park p for the call's return, or, when it cannot be (out of memory, or MCP_PARKED_MAX
 * calls parked), answer the server's open question with an error so that it does not wait
 * for nothing. Returns 1 when parked. */
static int mcp_park(struct mcp_link *l, struct mcp_pending *p, struct mcp_callkey *k)
{
    char why[96];

    if (mcp_key(k) == NULL) {
        snprintf(why, sizeof(why), "out of memory");
    } else if (mcp_link_park(l, p, k->key) != MCPH_OK) {
        snprintf(why, sizeof(why), "mcph keeps at most %d calls waiting for their clients",
                 MCP_PARKED_MAX);
        k->key = NULL; /* freed */
    } else {
        k->key = NULL;
        return 1;
    }
    mcp_link_respond(l, p->open_id, NULL, -32603, why);
    cJSON_Delete(p->open_id);
    p->open_id = NULL;
    return 0;
}

/* The call's W3C trace context in the request's _meta (traceparent, and tracestate when there
 * is one), so that the server's work joins the client's trace with mcph's span as its
 * parent: only these keys, never the client's whole _meta. */
static void mcp_pass_trace(const struct mcph_host *host, struct mcph_call *call, cJSON *params)
{
    const char *state = NULL;
    const char *parent = host->abi_minor >= 6 && host->trace_context != NULL
                             ? host->trace_context(call, &state)
                             : NULL;
    cJSON *meta;

    if (parent == NULL || parent[0] == '\0')
        return;
    meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    if (meta == NULL)
        meta = cJSON_AddObjectToObject(params, "_meta");
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "traceparent");
    cJSON_DeleteItemFromObjectCaseSensitive(meta, "tracestate");
    cJSON_AddStringToObject(meta, "traceparent", parent);
    if (state != NULL)
        cJSON_AddStringToObject(meta, "tracestate", state);
}

/* The request of a call: the parked one it comes back for, or a new one (*retry: a copy of
 * it for a MCP_MODERN server's rounds). NULL when there is none to wait for: *rc says. */
static struct mcp_pending *mcp_begin(struct mcp_link *l, const struct mcph_host *host,
                                     struct mcph_call *call, enum mcp_kind kind, cJSON *params,
                                     struct mcp_callkey *k, cJSON **retry, int *rounds, int *rc)
{
    struct mcph_strbuf why = MCPH_STRBUF_INIT;
    struct mcp_pending *p = NULL;

    k->origin = host->call_origin(call);
    if (l->spec.pass_origin) {
        cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");

        if (meta == NULL)
            meta = cJSON_AddObjectToObject(params, "_meta");
        cJSON_AddStringToObject(meta, MCP_ORIGIN_KEY, k->origin);
    }
    mcp_pass_trace(host, call, params);
    if (mcp_link_parked(l) && mcp_key(k) != NULL)
        p = mcp_link_unpark(l, k->key);
    if (p != NULL) {
        cJSON_Delete(params);
        if (p->open_id != NULL && mcp_ask_open(l, host, call, p) == MCPH_ERR_AGAIN &&
            mcp_park(l, p, k))
            p = NULL;
        return p;
    }
    if (mcp_link_modern(l)) {
        cJSON *resumed;

        *retry = cJSON_Duplicate(params, 1);
        resumed = mcp_resume(host, call, *retry, rounds, rc);
        if (resumed == NULL && *rc != MCPH_OK) {
            *rc = *rc == MCPH_ERR_AGAIN ? MCPH_OK : *rc; /* AGAIN: the client retries */
            cJSON_Delete(params);
            return NULL;
        }
        if (resumed != NULL) {
            cJSON_Delete(params);
            params = resumed;
        }
    }
    p = mcp_link_send(l, k->method, params, kind != MCP_COMPLETE, &why);
    if (p == NULL)
        *rc = mcp_fail(host, call, kind, why.buf);
    mcph_sb_release(&why);
    return p;
}

/* The server answered: the call's result, or (a MCP_MODERN server's input_required) the
 * request to send again with the client's answers. */
static cJSON *mcp_on_reply(const struct mcph_host *host, struct mcph_call *call,
                           const struct mcp_pending *p, const cJSON *retry, int rounds, int *rc)
{
    cJSON *again = NULL;

    if (retry != NULL && rounds < MCP_ROUNDS_MAX)
        again = mcp_input_required(host, call, p->reply, retry, rounds, rc);
    else if (retry != NULL && mcp_asks_again(p->reply))
        *rc = host->error(call, MCPH_ERR,
                          "the server still asked for input after %d rounds of "
                          "answers in one call; mcph stops at %d rounds",
                          rounds, MCP_ROUNDS_MAX);
    if (again == NULL && *rc == MCPH_OK)
        *rc = mcp_reply(host, call, p->raw, p->reply);
    else if (*rc == MCPH_ERR_AGAIN) /* the round is kept with the call: nothing to park */
        *rc = MCPH_OK;
    return again;
}

static int mcp_on_failed(struct mcp_link *l, const struct mcph_host *host, struct mcph_call *call,
                         enum mcp_kind kind, const struct mcp_pending *p)
{
    struct mcph_strbuf why = MCPH_STRBUF_INIT;
    int rc;

    /* A server is shown by its command: the section says which one it is. */
    if (l->spec.noun == NULL)
        mcph_sb_addf(&why, "[plugin.%s] ", host->instance);
    mcph_sb_addf(&why, "%s '%s' %s during the %s", mcp_noun(&l->spec), l->spec.display, p->failure,
                 kind == MCP_TOOL ? "call" : "request");
    rc = mcp_fail(host, call, kind, why.buf);
    mcph_sb_release(&why);
    return rc;
}

static int mcp_forward(struct mcp *m, const struct mcph_host *host, struct mcph_call *call,
                       enum mcp_kind kind, cJSON *params, struct mcp_callkey *k)
{
    struct mcp_link *l = m->link;
    struct mcph_strbuf why = MCPH_STRBUF_INIT;
    cJSON *retry = NULL; /* the request as first sent, for a MCP_MODERN server's rounds */
    int rc = MCPH_OK, rounds = 0;
    struct mcp_pending *p = mcp_begin(l, host, call, kind, params, k, &retry, &rounds, &rc);

    while (p != NULL) {
        struct mcp_event *ev = NULL;
        cJSON *again = NULL;
        int cancel = 0;

        switch (mcp_link_wait(l, p, host, call, &ev)) {
        case MCP_WAIT_EVENT:
            rc = mcp_event(l, host, call, p, ev);
            mcp_event_free(ev);
            /* Parked, the call's answer is discarded: it comes back with the client's. */
            if (rc == MCPH_ERR_AGAIN && mcp_park(l, p, k))
                p = NULL;
            rc = MCPH_OK;
            continue;
        case MCP_WAIT_REPLY:
            again = mcp_on_reply(host, call, p, retry, rounds, &rc);
            break;
        case MCP_WAIT_FAILED:
            rc = mcp_on_failed(l, host, call, kind, p);
            break;
        case MCP_WAIT_TIMEOUT: /* calls set no deadline: the client cancels */
        case MCP_WAIT_CANCELLED:
            cancel = 1;
            break;
        }
        mcp_link_done(l, p, cancel);
        p = NULL;
        if (again != NULL) {
            rounds++;
            p = mcp_link_send(l, k->method, again, kind != MCP_COMPLETE, &why);
            if (p == NULL)
                rc = mcp_fail(host, call, kind, why.buf);
        }
    }
    cJSON_Delete(retry);
    free(k->key);
    mcph_sb_release(&why);
    return rc;
}

static cJSON *mcp_args(const struct mcph_host *host, struct mcph_call *call, const char **text)
{
    const char *json = "{}";

    if (host->args_json(call, &json) != MCPH_OK)
        json = "{}";
    *text = json;
    return cJSON_Parse(json);
}

/* A tool call or a prompt get: a name and arguments. */
static int mcp_named(const struct mcph_host *host, void *state, struct mcph_call *call,
                     enum mcp_kind kind, const char *method)
{
    struct mcp_callkey k = {.method = method, .name = host->call_name(call)};
    cJSON *params = cJSON_CreateObject();
    cJSON *args = mcp_args(host, call, &k.args);

    cJSON_AddStringToObject(params, "name", k.name);
    cJSON_AddItemToObject(params, "arguments", args != NULL ? args : cJSON_CreateObject());
    return mcp_forward(state, host, call, kind, params, &k);
}

int mcp_call_tool(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    return mcp_named(host, state, call, MCP_TOOL, "tools/call");
}

int mcp_get(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    return mcp_named(host, state, call, MCP_GET, "prompts/get");
}

int mcp_read(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct mcp_callkey k = {.method = "resources/read", .name = host->uri(call), .args = ""};
    cJSON *params = cJSON_CreateObject();

    cJSON_AddStringToObject(params, "uri", k.name);
    return mcp_forward(state, host, call, MCP_READ, params, &k);
}

static int mcp_complete(const struct mcph_host *host, void *state, struct mcph_call *call,
                        const char *ref_type, const char *ref_key)
{
    const char *argument = NULL, *value = "", *context = NULL;
    cJSON *params = cJSON_CreateObject();
    cJSON *ref = cJSON_AddObjectToObject(params, "ref");
    cJSON *arg = cJSON_AddObjectToObject(params, "argument");

    host->arg_string(call, "argument", &argument);
    host->arg_string(call, "value", &value);
    cJSON_AddStringToObject(ref, "type", ref_type);
    cJSON_AddStringToObject(ref, ref_key, host->call_name(call));
    cJSON_AddStringToObject(arg, "name", argument != NULL ? argument : "");
    cJSON_AddStringToObject(arg, "value", value != NULL ? value : "");
    if (host->arg_json(call, "context", &context) == MCPH_OK) {
        cJSON *ctx = cJSON_AddObjectToObject(params, "context");

        cJSON_AddItemToObject(ctx, "arguments", cJSON_Parse(context));
    }
    {
        struct mcp_callkey k = {.method = "completion/complete", .name = host->call_name(call)};

        host->args_json(call, &k.args);
        if (k.args == NULL)
            k.args = "{}";
        return mcp_forward(state, host, call, MCP_COMPLETE, params, &k);
    }
}

int mcp_complete_prompt(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    return mcp_complete(host, state, call, "ref/prompt", "name");
}

int mcp_complete_template(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    return mcp_complete(host, state, call, "ref/resource", "uri");
}

/* --- Life. --- */

/* What the kernel does not let mcph hold is said at start-up, not skipped in silence. */
static void mcp_say_keeper(const struct mcph_host *host, const struct mcp_spec *spec)
{
    int e = mcp_keeper_support();

    if (e == 0)
        return;
    host->log(host, MCPH_LOG_WARNING,
              "%s '%s': this system refuses a subreaper (%s), so what it starts and moves out "
              "of its process group can outlive it%s",
              mcp_noun(spec), spec->display, strerror(e),
              spec->max_procs > 0 || spec->max_cpu_s > 0
                  ? "; max_cpu_s limits its own process alone, and max_procs is not enforced"
                  : "");
}

int mcp_serve(const struct mcph_host *host, void **state, struct mcp_spec *spec)
{
    struct mcp *m = calloc(1, sizeof(*m));
    struct mcp *before = host->predecessor(host);
    int rc = MCPH_ERR, taken = 0, waiting;

    if (m == NULL) {
        mcp_spec_release(spec);
        return MCPH_ERR_NOMEM;
    }
    m->host = host;
    if (before != NULL && before->link != NULL && mcp_spec_same(&before->link->spec, spec)) {
        /* The same server: keep it running, list it again. */
        m->link = before->link;
        mcp_link_ref(m->link);
        mcp_link_retry(m->link);
        mcp_spec_release(spec);
        taken = 1;
    } else {
        mcp_say_keeper(host, spec);
        m->link = mcp_link_open(host, spec, &rc);
        mcp_spec_release(spec);
    }
    if (m->link == NULL) {
        free(m);
        return rc;
    }
    /* A remote server not reachable yet: no rows until it answers (a rebuild then). */
    waiting = mcp_link_waiting(m->link);
    rc = waiting ? MCPH_OK : mcp_define_all(m);
    if (rc == MCPH_OK && !waiting)
        mcp_instructions(m);
    if (rc == MCPH_OK && taken)
        rc = mcp_link_attach(m->link, host);
    if (rc != MCPH_OK) {
        if (!taken)
            mcp_link_detach(m->link, host);
        mcp_link_unref(m->link, host);
        free(m);
        return rc;
    }
    *state = m;
    return MCPH_OK;
}

void mcp_unserve(void *state)
{
    struct mcp *m = state;

    mcp_link_detach(m->link, m->host);
    mcp_link_unref(m->link, m->host);
    free(m);
}

void mcp_serve_subscribe(const struct mcph_host *host, void *state, const char *uri, int on)
{
    struct mcp *m = state;

    (void)host;
    if (m->subscribe)
        mcp_link_subscribe(m->link, uri, on);
}

const char *mcp_serve_health(void *state)
{
    static const char *const names[] = {
        [MCP_STARTING] = "restarting", [MCP_UP] = "up",        [MCP_RESTARTING] = "restarting",
        [MCP_DOWN] = "down",           [MCP_STOPPED] = "down", [MCP_IDLE] = "idle",
    };
    struct mcp *m = state;
    enum mcp_state st;

    pthread_mutex_lock(&m->link->lock);
    st = m->link->state;
    pthread_mutex_unlock(&m->link->lock);
    return names[st];
}
