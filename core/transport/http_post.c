/*
 * http_post.c: a POST's life: which peer it is (a legacy session's, or its own for a
 * 2026-07-28 request), the checks of its headers against its body, dispatch, and its answer:
 * JSON, 202, or an event stream.
 */
#include "transport/http_int.h"
#include "transport/httpmsg.h"
#include "lib/log.h"
#include "lib/status.h"
#include "protocol/dispatch.h"
#include "served/access.h"
#include "served/registry.h"
#include "wire/jsonrpc.h"
#include "wire/revision.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void http_add_session_header(struct http_conn *c, struct MHD_Response *r)
{
    const struct http *h = c->h;
    if (r != NULL && c->new_session)
        h->lib.add_response_header(r, HTTP_SESSION_HEADER, c->sess->id);
}

/* The HTTP status of a POST answered with one message (raw, one line). conn lock held. */
static unsigned http_status_of(const struct http_conn *c)
{
    return httpmsg_status(c->raw.buf, c->raw.len, c->requests, c->sess != NULL);
}

/* Answer the POST if it is time (the access handler, on its first go and after each wake):
 * JSON when its one answer is all it gets, an event stream when more comes or while it waits
 * with something to send, 202 when it held no request; else wait. */
enum MHD_Result http_post_answer(struct http_conn *c)
{
    const struct http *h = c->h;
    struct MHD_Response *r = NULL;
    unsigned status = MHD_HTTP_OK;
    unsigned long seen;
    long retry_ms = 0;
    int settled;

    pthread_mutex_lock(&c->lock);
    seen = c->wakes;
    pthread_mutex_unlock(&c->lock);
    settled = http_conn_settled(c);
    pthread_mutex_lock(&c->lock);
    if (c->dead) {
        pthread_mutex_unlock(&c->lock);
        return MHD_NO;
    }
    if (c->mode != HTTP_WAITING) {
        pthread_mutex_unlock(&c->lock);
        return MHD_YES;
    }
    if (settled && c->raw.len == 0 && c->requests > 0) {
        /* Its requests were cancelled and get no answer: no response, the connection closes. */
        pthread_mutex_unlock(&c->lock);
        return MHD_NO;
    }
    if (settled && c->raw.len == 0 && c->requests == 0) {
        r = h->lib.create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
        status = MHD_HTTP_ACCEPTED;
        c->mode = HTTP_DONE;
    } else if (settled && memchr(c->raw.buf, '\n', c->raw.len) == c->raw.buf + c->raw.len - 1) {
        r = http_json_response(h, c->raw.buf, c->raw.len - 1);
        status = http_status_of(c);
        /* A tool call refused by its rate limit, alone in the POST: 429 and Retry-After. */
        retry_ms = status == MHD_HTTP_OK ? http_rate_refused(c->raw.buf, c->raw.len - 1) : 0;
        if (retry_ms > 0) {
            status = MHD_HTTP_TOO_MANY_REQUESTS;
            http_rate_header(h, r, retry_ms);
        }
        c->mode = HTTP_DONE;
    } else if (settled || httpmsg_has_message(c->raw.buf, c->raw.len) ||
               atomic_load(&c->h->stopping)) {
        r = http_events_response(c);
        c->ended = settled || atomic_load(&c->h->stopping);
    } else if (c->wakes == seen && !c->fresh) {
        /* Not on the look right after dispatch: the calls it queued run next on this
         * thread, and the daemon looks again when they are done (http_loop.c). */
        c->suspended = 1;
        h->lib.suspend_connection(c->mc);
    }
    pthread_mutex_unlock(&c->lock);
    if (r == NULL)
        return c->mode == HTTP_WAITING ? MHD_YES : MHD_NO;
    http_add_session_header(c, r);
    return http_queue(h, c->mc, status, r);
}

/* Whether a POST's body is a 2026-07-28 message: its _meta names a version, or its header names
 * a version of that era. */
static int http_is_modern(const struct http *h, struct MHD_Connection *mc, const cJSON *root)
{
    char buf[64];
    const char *version = http_value(h, mc, HTTP_VERSION_HEADER, buf, sizeof(buf));
    const cJSON *first = cJSON_IsArray(root) ? cJSON_GetArrayItem(root, 0) : root;

    return httpmsg_meta_version(first) != NULL ||
           (version != NULL && revision_has(revision_parse(version), REVF_MODERN));
}

/* Looking up one Mcp-Param-NAME header: every line of it is counted. */
struct http_param_look {
    const struct http *h;
    struct MHD_Connection *mc;
    const char *name;  /* NAME */
    const char *found; /* the first line's value */
    int count;
    char value[4096]; /* found without the white space around it */
};

static enum MHD_Result http_param_seen(void *cls, enum MHD_ValueKind kind, const char *key,
                                       const char *value)
{
    struct http_param_look *look = cls;

    (void)kind;
    if (strncasecmp(key, "Mcp-Param-", 10) == 0 && strcasecmp(key + 10, look->name) == 0 &&
        look->count++ == 0)
        look->found = value ? value : "";
    return MHD_YES;
}

/* httpmsg_param_fn over the request's headers. */
static const char *http_param_header(void *ctx, const char *name, int *count)
{
    struct http_param_look *look = ctx;

    look->name = name;
    look->found = NULL;
    look->count = 0;
    look->h->lib.get_connection_values(look->mc, MHD_HEADER_KIND, http_param_seen, look);
    *count = look->count;
    if (look->found == NULL)
        return NULL;
    return http_trim(look->found, look->value, sizeof(look->value));
}

/* Whether who sees tool name ([access.NAME] sections): one it does not see is left to
 * dispatch, which answers it as unknown, so that its headers tell nothing about it. */
static int http_sees_tool(const struct http *h, const struct principal *who, const char *name)
{
    int seen;

    pthread_mutex_lock(&h->srv->lock);
    seen = access_sees(&h->srv->cfg, access_view_of(&h->srv->cfg, who), FILTER_TOOLS, name);
    pthread_mutex_unlock(&h->srv->lock);
    return seen;
}

/* A 2026-07-28 tools/call's Mcp-Param-* headers against its arguments, as the tool's
 * inputSchema (x-mcp-header) in the set served now mirrors them. An unknown tool, or one who
 * does not see, is left to dispatch. NULL, or what is wrong. */
static const char *http_check_params(const struct http *h, struct MHD_Connection *mc,
                                     const struct principal *who, const cJSON *root, char *buf,
                                     size_t size)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(root, "params");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "name"));
    struct registry *reg;
    const struct registry_tool *t;
    struct http_param_look *look;
    const char *problem = NULL;

    if (name == NULL || !http_sees_tool(h, who, name))
        return NULL;
    look = malloc(sizeof(*look));
    if (look == NULL)
        return "out of memory";
    look->h = h;
    look->mc = mc;
    reg = server_hold_registry(h->srv);
    t = reg != NULL ? registry_find_tool(reg, name) : NULL;
    if (t != NULL && t->def->input_schema != NULL)
        problem = httpmsg_check_params(t->def->input_schema,
                                       cJSON_GetObjectItemCaseSensitive(params, "arguments"),
                                       http_param_header, look, buf, size);
    if (reg != NULL)
        server_release_registry(h->srv, reg);
    free(look);
    return problem;
}

/* A 2026-07-28 request's headers against its body: each must be there and say what the body
 * says (a notification needs none), and so must the Mcp-Param-* headers a tool's schema asks
 * for. Returns NULL, or what is wrong (a -32020 HeaderMismatch). */
static const char *http_check_mirrored(const struct http *h, struct MHD_Connection *mc,
                                       const struct principal *who, const cJSON *root, char *buf,
                                       size_t size)
{
    const char *method, *problem, *name;
    char value[1024];
    int needed;

    if (!cJSON_IsObject(root))
        return "Header mismatch: a 2026-07-28 POST carries one message, not a batch";
    method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "method"));
    if (method == NULL || cJSON_GetObjectItemCaseSensitive(root, "id") == NULL)
        return NULL;
    problem = httpmsg_check_header(HTTP_VERSION_HEADER,
                                   http_value(h, mc, HTTP_VERSION_HEADER, value, sizeof(value)),
                                   httpmsg_meta_version(root), 1, buf, size);
    if (problem == NULL)
        problem = httpmsg_check_header("Mcp-Method",
                                       http_value(h, mc, "Mcp-Method", value, sizeof(value)),
                                       method, 1, buf, size);
    /* Mcp-Name belongs to the methods that name something; elsewhere it is not looked at. */
    name = httpmsg_name_of(root, method, &needed);
    if (problem == NULL && needed)
        problem =
            httpmsg_check_header("Mcp-Name", http_value(h, mc, "Mcp-Name", value, sizeof(value)),
                                 name, needed, buf, size);
    if (problem == NULL && strcmp(method, "tools/call") == 0)
        problem = http_check_params(h, mc, who, root, buf, size);
    return problem;
}

const char *http_version_problem(const char *version, char *buf, size_t size)
{
    if (version == NULL || revision_parse(version) != REV_NONE)
        return NULL;
    snprintf(buf, size,
             "Bad Request: Unsupported protocol version: %.40s (supported versions: "
             "2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)",
             version);
    return buf;
}

/* A legacy session's MCP-Protocol-Version must be one mcph speaks (-32000, as the SDK). */
static const char *http_check_session_version(struct http_conn *c, char *buf, size_t size)
{
    char value[64];

    return http_version_problem(http_value(c->h, c->mc, HTTP_VERSION_HEADER, value, sizeof(value)),
                                buf, size);
}

/* Bind the POST to its peer's state: a session's, or its own (sessionless). */
static int http_bind(struct http_conn *c)
{
    if (c->sess != NULL) {
        c->peer.session = &c->sess->session;
        c->peer.inflight = &c->sess->inflight;
        c->peer.home = &c->sess->peer;
        return STATUS_OK;
    }
    struct inflight *own = malloc(sizeof(*own));

    if (own == NULL)
        return STATUS_NOMEM;
    inflight_init_small(own);
    c->peer.inflight = own;
    /* Seen by http_cancel_all (a shutdown) from now on. */
    pthread_mutex_lock(&c->h->lock);
    c->own_inflight = own;
    pthread_mutex_unlock(&c->h->lock);
    return STATUS_OK;
}

/* An initialize made this POST a new session: keep it when the handshake succeeded. */
static void http_keep_session(struct http_conn *c)
{
    int status;

    if (!c->new_session)
        return;
    if (c->sess->session.rev == REV_NONE) {
        c->new_session = 0;
        return;
    }
    status = http_session_add(c->h, c->sess);
    if (status != STATUS_OK) {
        log_msg(&c->h->srv->log, LOG_WARNING, NULL,
                "http: %zu sessions open ([server] max_sessions); a new client is refused",
                c->h->max_sessions);
        c->new_session = 0;
        pthread_mutex_lock(&c->lock);
        strbuf_reset(&c->raw);
        pthread_mutex_unlock(&c->lock);
        c->requests = -1;
    }
}

/* A 400 whose body is a JSON-RPC error about the message root (its id, when it has one). */
static enum MHD_Result http_refuse(struct http_conn *c, const cJSON *root, int code,
                                   const char *message)
{
    const struct http *h = c->h;
    const cJSON *id = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "id") : NULL;
    cJSON *msg = jsonrpc_error(jsonrpc_valid_id(id) ? id : NULL, code, message, NULL);
    char *text = msg ? cJSON_PrintUnformatted(msg) : NULL;
    struct MHD_Response *r = http_json_response(h, text ? text : "", text ? strlen(text) : 0);

    cJSON_Delete(msg);
    free(text);
    return http_queue(h, c->mc, MHD_HTTP_BAD_REQUEST, r);
}

/* Which peer the POST is: a session's (Mcp-Session-Id, or a new one for initialize), or its
 * own (2026-07-28). Returns NULL, or why it is refused (*code: its JSON-RPC code). */
static const char *http_classify(struct http_conn *c, const cJSON *root, int *code, char *buf,
                                 size_t size)
{
    const struct http *h = c->h;
    const char *method = httpmsg_request_method(root);

    *code = JSONRPC_SERVER_ERROR;
    if (c->sess != NULL)
        return http_check_session_version(c, buf, size);
    if (method != NULL && strcmp(method, "initialize") == 0 && !http_is_modern(h, c->mc, root)) {
        c->sess = http_session_new(c->h, c->peer.principal);
        c->new_session = c->sess != NULL;
        return c->sess != NULL ? NULL : "out of memory";
    }
    if (!http_is_modern(h, c->mc, root))
        return "Bad Request: Mcp-Session-Id header is required (initialize first, or send a "
               "2026-07-28 request)";
    if (cJSON_IsObject(root) && httpmsg_request_method(root) != NULL &&
        httpmsg_meta_version(root) == NULL) {
        *code = JSONRPC_INVALID_PARAMS;
        return "Invalid _meta envelope: MCP-Protocol-Version names 2026-07-28, but the request has "
               "no _meta io.modelcontextprotocol/protocolVersion";
    }
    *code = JSONRPC_HEADER_MISMATCH;
    return http_check_mirrored(h, c->mc, c->peer.principal, root, buf, size);
}

/* Whether a POST's body opens a long-lived stream: a subscriptions/listen request in it. */
int http_listens(const cJSON *root)
{
    const cJSON *el;
    const char *method = httpmsg_request_method(root);

    if (method != NULL)
        return strcmp(method, "subscriptions/listen") == 0;
    if (!cJSON_IsArray(root))
        return 0;
    cJSON_ArrayForEach(el, root)
    {
        method = httpmsg_request_method(el);
        if (method != NULL && strcmp(method, "subscriptions/listen") == 0)
            return 1;
    }
    return 0;
}

/* The W3C trace context headers, for the calls of the POST whose _meta has none. */
static void http_trace_headers(struct http_conn *c)
{
    c->peer.traceparent =
        http_value(c->h, c->mc, TRACE_KEY_PARENT, c->traceparent, sizeof(c->traceparent));
    c->peer.tracestate =
        http_value(c->h, c->mc, TRACE_KEY_STATE, c->tracestate, sizeof(c->tracestate));
}

/* The POST's body is whole: check it, dispatch it, answer or wait. */
enum MHD_Result http_post(struct http_conn *c)
{
    const struct http *h = c->h;
    struct server *srv = c->h->srv;
    char sid_buf[128];
    const char *sid = http_value(h, c->mc, HTTP_SESSION_HEADER, sid_buf, sizeof(sid_buf));
    const char *problem;
    char buf[320];
    cJSON *root;
    size_t cost = 0;
    int code, foreign;
    enum MHD_Result rc;

    if (c->too_big) {
        snprintf(buf, sizeof(buf), "Payload Too Large: a body longer than %u bytes",
                 LIMIT_MESSAGE_BYTES);
        return http_fail(h, c->mc, MHD_HTTP_CONTENT_TOO_LARGE, JSONRPC_SERVER_ERROR, buf);
    }
    if (sid != NULL &&
        (c->sess = http_session_find(c->h, sid, c->peer.principal, &foreign)) == NULL)
        return foreign ? http_fail(h, c->mc, MHD_HTTP_FORBIDDEN, JSONRPC_SERVER_ERROR,
                                   HTTP_FOREIGN_SESSION)
                       : http_fail(h, c->mc, MHD_HTTP_NOT_FOUND, JSONRPC_SESSION_NOT_FOUND,
                                   "Session not found");
    root = dispatch_parse(srv, &c->peer, c->body.buf ? c->body.buf : "", c->body.len, &cost);
    if (root == NULL)
        return http_post_answer(c);
    problem = http_classify(c, root, &code, buf, sizeof(buf));
    if (problem == NULL && http_bind(c) != STATUS_OK)
        problem = "out of memory";
    if (problem != NULL) {
        rc = http_refuse(c, root, code, problem);
        cJSON_Delete(root);
        c->new_session = 0;
        return rc;
    }
    if (http_listens(root) && http_stream_admit(c->h, c, buf, sizeof(buf)) != NULL) {
        cJSON_Delete(root);
        return http_fail(h, c->mc, MHD_HTTP_SERVICE_UNAVAILABLE, JSONRPC_SERVER_ERROR, buf);
    }
    c->requests = httpmsg_count_requests(root);
    http_trace_headers(c);
    /* What it holds in flight is what it costs parsed ([server] max_pending_mb). */
    dispatch_root(srv, &c->peer, root, cost > c->body.len ? cost : c->body.len);
    strbuf_release(&c->body);
    /* A costly message answered (or run) by now leaves its tree's blocks free. */
    mcph_json_trim(cost);
    http_keep_session(c);
    if (c->sess != NULL && !atomic_load(&c->sess->greeted)) {
        int greeted;

        pthread_mutex_lock(&srv->lock);
        greeted = c->sess->session.initialized;
        pthread_mutex_unlock(&srv->lock);
        atomic_store(&c->sess->greeted, greeted);
    }
    if (c->requests < 0)
        return http_fail(h, c->mc, MHD_HTTP_SERVICE_UNAVAILABLE, JSONRPC_SERVER_ERROR,
                         "Too many sessions open; try again later");
    c->fresh = 1;
    rc = http_post_answer(c);
    c->fresh = 0;
    return rc;
}

void http_take_body(struct http_conn *c, const char *data, size_t len)
{
    if (c->too_big || c->body.len + len > LIMIT_MESSAGE_BYTES) {
        c->too_big = 1;
        strbuf_release(&c->body);
        return;
    }
    strbuf_add(&c->body, data, len);
    if (c->body.nomem)
        c->too_big = 1;
}
