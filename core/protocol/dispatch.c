/*
 * dispatch.c: one message to its handler: parse, envelope, era routing and the method table.
 */
#include "protocol/dispatch.h"

#include "protocol/lists.h"
#include "protocol/request.h"
#include "protocol/targets.h"

#include "protocol/modern.h"
#include "wire/out.h"
#include "wire/revision.h"
#include "served/notify.h"
#include "served/session.h"
#include "lib/limits.h"
#include "lib/status.h"

#include <string.h>

enum dispatch_flags {
    DISPATCH_NOTIFICATION = 1u << 0, /* a notification method: never answered */
    DISPATCH_NO_SESSION = 1u << 1,   /* allowed before initialize */
    DISPATCH_NO_BATCH = 1u << 2,     /* must not be part of a batch */
    DISPATCH_LEGACY = 1u << 3,       /* removed in 2026-07-28: -32601 to a modern request */
    DISPATCH_MODERN = 1u << 4,       /* only in 2026-07-28: -32601 in a legacy session */
    DISPATCH_CACHEABLE = 1u << 5,    /* its 2026-07-28 result carries ttlMs and cacheScope */
};

struct dispatch_method {
    const char *name;
    void (*fn)(struct request *req);
    unsigned flags;
};

/* --- Session methods (legacy). --- */

static void dispatch_initialize(struct request *req)
{
    struct server *srv = req->srv;
    struct session_error err;
    cJSON *result = NULL;
    int status = session_initialize(req->peer->session, req->params, srv->reg,
                                    srv->reg->meta.instructions, &result, &err);

    if (status == STATUS_OK)
        request_reply(req, result);
    else if (status == STATUS_NOMEM)
        request_no_reply(req);
    else
        request_error(req, err.code, "%s", err.message);
}

static void dispatch_initialized(struct request *req)
{
    session_initialized(req->peer->session);
}

static void dispatch_ping(struct request *req)
{
    request_reply(req, cJSON_CreateObject());
}

static void dispatch_set_level(struct request *req)
{
    struct session_error err;
    int level;

    if (session_level(req->params, &level, &err) != STATUS_OK) {
        request_error(req, err.code, "%s", err.message);
        return;
    }
    atomic_store(&req->peer->session->log_level, level);
    /* The server-wide level only screens: each peer gets what its session asked for. */
    if (level < atomic_load(&req->srv->log.sink_level))
        atomic_store(&req->srv->log.sink_level, level);
    request_reply(req, cJSON_CreateObject());
}

/* --- Subscriptions (legacy session). --- */

/* Whether uri is a resource of the set, or matches a template, that the principal sees. */
static int dispatch_names_resource(const struct request *req, const char *uri)
{
    const struct registry *reg = req->srv->reg;
    const struct registry_template *t;

    if (registry_find_resource(reg, uri) != NULL)
        return request_sees(req, FILTER_RESOURCES, uri);
    t = registry_match_template(reg, uri, NULL);
    return t != NULL && request_sees(req, FILTER_RESOURCES, t->def->uri_template);
}

static void dispatch_subscribe(struct request *req)
{
    struct server *srv = req->srv;
    const char *uri = request_param_string(req, "uri");
    int status;

    if (uri == NULL) {
        request_error(req, JSONRPC_INVALID_PARAMS, "%s needs params.uri, a string", req->method);
        return;
    }
    if (!dispatch_names_resource(req, uri)) {
        request_not_found(req, uri);
        return;
    }
    status = subs_subscribe(&srv->subs, req->peer->home, uri);
    if (status == STATUS_LIMIT)
        request_error(req, JSONRPC_INVALID_PARAMS,
                      "more than %d subscriptions; unsubscribe from some first",
                      LIMIT_SUBSCRIPTIONS);
    else if (status != STATUS_OK)
        request_error(req, JSONRPC_INTERNAL_ERROR, "Out of memory");
    else
        request_reply(req, cJSON_CreateObject());
}

static void dispatch_unsubscribe(struct request *req)
{
    const char *uri = request_param_string(req, "uri");

    if (uri == NULL) {
        request_error(req, JSONRPC_INVALID_PARAMS, "%s needs params.uri, a string", req->method);
        return;
    }
    subs_unsubscribe(&req->srv->subs, req->peer->home, uri);
    request_reply(req, cJSON_CreateObject());
}

/* --- Cancellation and the client's answers. --- */

static void dispatch_cancelled(struct request *req)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req->params, "requestId");

    /* A listen request ends; a call is marked; unknown or finished ids are ignored. */
    if (jsonrpc_valid_id(id) && !notify_unlisten(req->srv, req->peer->home, id))
        inflight_cancel(req->peer->inflight, id);
}

/* --- 2026-07-28 methods. --- */

static void dispatch_discover(struct request *req)
{
    cJSON *caps = session_capabilities(req->srv->reg, req->rev);

    out_result(req->peer->out, req->batch, req->slot, req->id, modern_discover(req->srv, caps));
}

static void dispatch_listen(struct request *req)
{
    /* No response while it stays open; an error instead of the acknowledgement. */
    cJSON *err = notify_listen(req->srv, req->peer->home, req->id, req->params);

    if (err != NULL)
        request_answer(req, err);
}

static const struct dispatch_method dispatch_methods[] = {
    {.name = "initialize",
     .fn = dispatch_initialize,
     .flags = DISPATCH_NO_SESSION | DISPATCH_NO_BATCH | DISPATCH_LEGACY},
    {.name = "ping", .fn = dispatch_ping, .flags = DISPATCH_NO_SESSION | DISPATCH_LEGACY},
    {.name = "logging/setLevel", .fn = dispatch_set_level, .flags = DISPATCH_LEGACY},
    {.name = "tools/list", .fn = lists_tools, .flags = DISPATCH_CACHEABLE},
    {.name = "tools/call", .fn = targets_tools_call},
    {.name = "resources/list", .fn = lists_resources, .flags = DISPATCH_CACHEABLE},
    {.name = "resources/templates/list", .fn = lists_templates, .flags = DISPATCH_CACHEABLE},
    {.name = "resources/read", .fn = targets_resources_read},
    {.name = "prompts/list", .fn = lists_prompts, .flags = DISPATCH_CACHEABLE},
    {.name = "prompts/get", .fn = targets_prompts_get},
    {.name = "completion/complete", .fn = targets_complete},
    {.name = "resources/subscribe", .fn = dispatch_subscribe, .flags = DISPATCH_LEGACY},
    {.name = "resources/unsubscribe", .fn = dispatch_unsubscribe, .flags = DISPATCH_LEGACY},
    {.name = "server/discover", .fn = dispatch_discover, .flags = DISPATCH_MODERN},
    {.name = "subscriptions/listen", .fn = dispatch_listen, .flags = DISPATCH_MODERN},
    {.name = "notifications/initialized",
     .fn = dispatch_initialized,
     .flags = DISPATCH_NOTIFICATION | DISPATCH_LEGACY},
    {.name = "notifications/cancelled",
     .fn = dispatch_cancelled,
     .flags = DISPATCH_NOTIFICATION | DISPATCH_NO_SESSION},
    {0},
};

static const struct dispatch_method *dispatch_find(const char *name)
{
    for (size_t i = 0; dispatch_methods[i].name != NULL; i++) {
        if (strcmp(dispatch_methods[i].name, name) == 0)
            return &dispatch_methods[i];
    }
    return NULL;
}

/* --- Envelope. --- */

/* The session rules, then the method. */
static void dispatch_route(struct request *req)
{
    const struct dispatch_method *m = dispatch_find(req->method);
    struct session *s = req->peer->session;

    if (req->id == NULL) {
        /* A notification: never answered, whatever it is. */
        if (m != NULL && (m->flags & DISPATCH_NOTIFICATION) &&
            (s->rev != REV_NONE || (m->flags & DISPATCH_NO_SESSION)))
            m->fn(req);
        request_no_reply(req);
        return;
    }
    if (m == NULL) {
        request_error(req, JSONRPC_METHOD_NOT_FOUND, "Method not found: %.*s",
                      (int)LIMIT_QUOTED_BYTES, req->method);
        return;
    }
    if (m->flags & DISPATCH_NOTIFICATION) {
        request_error(req, JSONRPC_INVALID_REQUEST,
                      "%s is a notification: send it without "
                      "an id",
                      req->method);
        return;
    }
    if (req->batch != NULL && (m->flags & DISPATCH_NO_BATCH)) {
        request_error(req, JSONRPC_INVALID_REQUEST, "%s must not be part of a batch", req->method);
        return;
    }
    if (s->rev == REV_NONE && !(m->flags & DISPATCH_NO_SESSION)) {
        /* Neither a legacy session nor the 2026-07-28 _meta: malformed in both eras. */
        request_error(req, JSONRPC_INVALID_PARAMS,
                      "No session: send initialize first, or put " MODERN_KEY_VERSION
                      " and " MODERN_KEY_CAPS " in params._meta");
        return;
    }
    if (m->flags & DISPATCH_MODERN) {
        request_error(req, JSONRPC_METHOD_NOT_FOUND,
                      "Method not found: %s is part of protocol %s, not of this session's %s",
                      req->method, revision_get(REV_MODERN)->name, revision_get(s->rev)->name);
        return;
    }
    m->fn(req);
}

/* A request that claims 2026-07-28 in its _meta: served on its own, with no session. */
static void dispatch_route_modern(struct request *req)
{
    const struct dispatch_method *m = dispatch_find(req->method);
    cJSON *err;

    if (req->id == NULL) {
        if (m != NULL && m->fn == dispatch_cancelled)
            m->fn(req);
        request_no_reply(req);
        return;
    }
    /* An unknown or removed method outranks a bad envelope. */
    if (m == NULL || (m->flags & (DISPATCH_LEGACY | DISPATCH_NOTIFICATION))) {
        request_error(req, JSONRPC_METHOD_NOT_FOUND, "Method not found: %.*s%s",
                      (int)LIMIT_QUOTED_BYTES, req->method,
                      m != NULL ? " is not part of protocol 2026-07-28" : "");
        return;
    }
    if (req->batch != NULL) {
        request_error(req, JSONRPC_INVALID_REQUEST,
                      "Invalid Request: protocol 2026-07-28 has no batches");
        return;
    }
    err = modern_check(req->id, req->params, &req->env);
    if (err != NULL) {
        request_answer(req, err);
        return;
    }
    req->modern = 1;
    req->rev = REV_MODERN;
    req->cacheable = (m->flags & DISPATCH_CACHEABLE) != 0;
    m->fn(req);
}

/* Check the envelope of msg, then route it. */
static void dispatch_envelope(struct request *req)
{
    const cJSON *msg = req->msg;
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");

    req->id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    if (method == NULL &&
        (cJSON_HasObjectItem(msg, "result") || cJSON_HasObjectItem(msg, "error"))) {
        /* A response from the client: an answer to a question a plugin asked, or one nobody
         * asked (late, forged, or about a message the client could not read, with id null).
         * A response is never answered. */
        if (jsonrpc_valid_id(req->id) &&
            inflight_answer(req->peer->inflight, req->id, req->msg) == STATUS_OK)
            req->msg = NULL;
        else
            log_msg(&req->srv->log, LOG_DEBUG, NULL, "a response nobody waits for: ignored");
        req->id = NULL;
        request_no_reply(req);
        return;
    }
    if (req->id != NULL && !jsonrpc_valid_id(req->id)) {
        req->id = NULL;
        request_error(req, JSONRPC_INVALID_REQUEST,
                      "Invalid Request: id must be a string or "
                      "an integer");
        return;
    }
    if (!cJSON_IsString(version) || strcmp(version->valuestring, "2.0") != 0 ||
        !cJSON_IsString(method)) {
        request_error(req, JSONRPC_INVALID_REQUEST,
                      "Invalid Request: a JSON-RPC 2.0 request "
                      "needs \"jsonrpc\": \"2.0\" and a string \"method\"");
        return;
    }
    req->method = method->valuestring;
    if (params != NULL && !cJSON_IsObject(params)) {
        if (req->id != NULL)
            request_error(req, JSONRPC_INVALID_PARAMS, "params must be an object");
        else
            request_no_reply(req);
        return;
    }
    req->params = params;
    if (modern_claims(params))
        dispatch_route_modern(req);
    else
        dispatch_route(req);
}

/* Handle one message (`bytes` of input); takes ownership of msg. In a batch, exactly one
 * reply (or no-reply) reaches slot. */
static void dispatch_message(struct server *srv, struct peer *peer, cJSON *msg, struct out_batch *b,
                             size_t slot, size_t bytes)
{
    struct request req = {
        .srv = srv, .peer = peer, .msg = msg, .batch = b, .slot = slot, .bytes = bytes};

    req.rev = peer->session->rev;
    if (!cJSON_IsObject(msg))
        request_error(&req, JSONRPC_INVALID_REQUEST, "Invalid Request: expected an object");
    else
        dispatch_envelope(&req);
    cJSON_Delete(req.msg);
}

static void dispatch_batch_message(struct server *srv, struct peer *peer, cJSON *root, size_t bytes)
{
    int n = cJSON_GetArraySize(root);
    struct request req = {.srv = srv, .peer = peer};
    int rev = peer->session->rev;
    struct out_batch *b;
    cJSON *el;

    if (n == 0 || n > LIMIT_BATCH || !revision_has(rev, REVF_BATCH)) {
        if (n == 0 || n > LIMIT_BATCH)
            request_error(&req, JSONRPC_INVALID_REQUEST,
                          "Invalid Request: a batch holds 1 "
                          "to %d messages",
                          LIMIT_BATCH);
        else
            request_error(&req, JSONRPC_INVALID_REQUEST,
                          "Invalid Request: JSON-RPC batches "
                          "are not part of protocol %s; send one message per line",
                          rev ? revision_get(rev)->name : "negotiation (initialize first)");
        cJSON_Delete(root);
        return;
    }
    b = out_batch_new(peer->out, (size_t)n);
    if (b == NULL) {
        cJSON_Delete(root);
        return;
    }
    for (size_t i = 0; (el = cJSON_DetachItemFromArray(root, 0)) != NULL; i++)
        dispatch_message(srv, peer, el, b, i, bytes / (size_t)n);
    cJSON_Delete(root);
    out_batch_close(b);
}

/* The message parsed, under the state lock: what it reads of the state and what it changes
 * is one step between reloads. */
void dispatch_root(struct server *srv, struct peer *peer, cJSON *root, size_t bytes)
{
    pthread_mutex_lock(&srv->lock);
    if (cJSON_IsArray(root))
        dispatch_batch_message(srv, peer, root, bytes);
    else
        dispatch_message(srv, peer, root, NULL, 0, bytes);
    pthread_mutex_unlock(&srv->lock);
}

/* The request id of a message too costly to parse whole, read from its text (an id longer than
 * a number or a short string is not looked for), or NULL. Owned by the caller. */
static cJSON *dispatch_peek_id(const char *line, size_t len)
{
    const char *text;
    size_t n;
    cJSON *id;

    if (!mcph_json_member(line, len, "id", &text, &n) || n > LIMIT_QUOTED_BYTES)
        return NULL;
    id = cJSON_ParseWithLength(text, n);
    if (jsonrpc_valid_id(id))
        return id;
    cJSON_Delete(id);
    return NULL;
}

/* Whether the message would cost more than LIMIT_JSON_COST once parsed: then it was refused,
 * with its id when one can be read from its text without parsing the rest. */
static int dispatch_too_costly(struct request *req, const char *line, size_t len, size_t *cost)
{
    size_t values;
    cJSON *id;

    if (!mcph_json_over(line, len, LIMIT_JSON_COST, &values, cost)) {
        /* Not scanned (values 0): short enough for its bytes to stand for it. */
        if (values == 0)
            *cost = len;
        return 0;
    }
    id = dispatch_peek_id(line, len);
    req->id = id;
    request_error(req, JSONRPC_INVALID_REQUEST,
                  "Invalid Request: the message holds %zu JSON values and would take %zu MiB "
                  "once parsed, over mcph's limit of %u MiB per message (%u bytes per value "
                  "besides its text): send fewer values, e.g. data as one string",
                  values, *cost >> 20, LIMIT_JSON_COST >> 20, MCPH_JSON_VALUE_COST);
    req->id = NULL;
    cJSON_Delete(id);
    return 1;
}

cJSON *dispatch_parse(struct server *srv, struct peer *peer, const char *line, size_t len,
                      size_t *cost)
{
    struct request req = {.srv = srv, .peer = peer};
    struct jsonrpc_scan scan;
    const char *end = NULL;
    cJSON *root;

    jsonrpc_scan(line, len, LIMIT_JSON_DEPTH, &scan);
    if (scan.problem == JSONRPC_TEXT_UTF8) {
        request_error(&req, JSONRPC_PARSE_ERROR, "Parse error: not UTF-8 (at byte %zu)", scan.at);
        return NULL;
    }
    if (scan.problem == JSONRPC_TEXT_CONTROL) {
        request_error(&req, JSONRPC_PARSE_ERROR,
                      "Parse error: control character 0x%02x not escaped (at byte %zu)",
                      (unsigned)(unsigned char)line[scan.at], scan.at);
        return NULL;
    }
    if (scan.depth > LIMIT_JSON_DEPTH) {
        request_error(&req, JSONRPC_INVALID_REQUEST,
                      "Invalid Request: nested deeper than "
                      "%d levels",
                      LIMIT_JSON_DEPTH);
        return NULL;
    }
    if (dispatch_too_costly(&req, line, len, cost))
        return NULL;
    root = cJSON_ParseWithLengthOpts(line, len + 1, &end, 1);
    if (root == NULL) {
        request_error(&req, JSONRPC_PARSE_ERROR, "Parse error: not valid JSON (at byte %zu)",
                      end && end >= line ? (size_t)(end - line) : (size_t)0);
        return NULL;
    }
    if (scan.problem == JSONRPC_TEXT_NUL_ESCAPE) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");

        req.id = jsonrpc_valid_id(id) ? id : NULL;
        request_error(&req, req.id ? JSONRPC_INVALID_PARAMS : JSONRPC_INVALID_REQUEST,
                      "Strings containing U+0000 are not supported");
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

void dispatch_line(struct server *srv, struct peer *peer, const char *line, size_t len)
{
    size_t cost = 0;
    cJSON *root;

    if (strspn(line, " \t\r") == len)
        return;
    root = dispatch_parse(srv, peer, line, len, &cost);
    /* What it holds in flight is what it costs parsed ([server] max_pending_mb). */
    if (root != NULL)
        dispatch_root(srv, peer, root, cost > len ? cost : len);
    /* A costly message answered (or run) by now leaves its tree's blocks free: they go back to
     * the system. One queued as a call goes back when the call ends (call.c). */
    mcph_json_trim(cost);
}

void dispatch_oversized(struct server *srv, struct peer *peer)
{
    struct request req = {.srv = srv, .peer = peer};

    request_error(&req, JSONRPC_INVALID_REQUEST,
                  "Invalid Request: message longer than %u "
                  "bytes",
                  LIMIT_MESSAGE_BYTES);
}
