#include "protocol/dispatch.h"

#include "lib/base64.h"
#include "calls/call.h"
#include "lib/limits.h"
#include "protocol/modern.h"
#include "wire/out.h"
#include "host/result.h"
#include "wire/revision.h"
#include "lib/schema.h"
#include "served/decorate.h"
#include "served/notify.h"
#include "served/session.h"
#include "lib/status.h"
#include "lib/strbuf.h"
#include "lib/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One message being handled. */
struct dispatch_req {
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
    void (*fn)(struct dispatch_req *req);
    unsigned flags;
};

/* --- Replies. --- */

static void dispatch_reply(struct dispatch_req *req, cJSON *result)
{
    if (req->modern)
        decorate_result(result, req->srv->reg, NULL, req->cacheable);
    out_result(req->peer->out, req->batch, req->slot, req->id, result);
}

static void dispatch_error(struct dispatch_req *req, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void dispatch_error(struct dispatch_req *req, int code, const char *fmt, ...)
{
    struct strbuf message = STRBUF_INIT;
    va_list ap;

    va_start(ap, fmt);
    strbuf_vaddf(&message, fmt, ap);
    va_end(ap);
    out_error(req->peer->out, req->batch, req->slot, req->id, code, message.buf, NULL);
    strbuf_release(&message);
}

/* A whole message (an error made elsewhere; owned) as the answer. */
static void dispatch_answer(struct dispatch_req *req, cJSON *msg)
{
    out_reply(req->peer->out, req->batch, req->slot, msg);
}

/* The message gets no reply (a notification). */
static void dispatch_no_reply(struct dispatch_req *req)
{
    if (req->batch != NULL)
        out_reply(req->peer->out, req->batch, req->slot, NULL);
}

/* --- Session methods (legacy). --- */

static void dispatch_initialize(struct dispatch_req *req)
{
    struct server *srv = req->srv;
    struct session_error err;
    cJSON *result = NULL;
    int status = session_initialize(req->peer->session, req->params, srv->reg,
                                    srv->reg->meta.instructions, &result, &err);

    if (status == STATUS_OK)
        dispatch_reply(req, result);
    else if (status == STATUS_NOMEM)
        dispatch_no_reply(req);
    else
        dispatch_error(req, err.code, "%s", err.message);
}

static void dispatch_initialized(struct dispatch_req *req)
{
    session_initialized(req->peer->session);
}

static void dispatch_ping(struct dispatch_req *req)
{
    dispatch_reply(req, cJSON_CreateObject());
}

static void dispatch_set_level(struct dispatch_req *req)
{
    struct session_error err;
    int level;

    if (session_level(req->params, &level, &err) != STATUS_OK) {
        dispatch_error(req, err.code, "%s", err.message);
        return;
    }
    atomic_store(&req->peer->session->log_level, level);
    /* The server-wide level only screens: each peer gets what its session asked for. */
    if (level < atomic_load(&req->srv->log.sink_level))
        atomic_store(&req->srv->log.sink_level, level);
    dispatch_reply(req, cJSON_CreateObject());
}

/* --- Lists. --- */

struct dispatch_list {
    const char *key; /* "tools" */
    char tag;        /* marks cursors of this list */
    size_t (*count)(const struct registry *reg);
    cJSON *(*item)(const struct registry *reg, size_t i, int rev);
};

static size_t dispatch_ntools(const struct registry *reg)
{
    return reg->ntools;
}

static size_t dispatch_nresources(const struct registry *reg)
{
    return reg->nresources;
}

static size_t dispatch_ntemplates(const struct registry *reg)
{
    return reg->ntemplates;
}

static size_t dispatch_nprompts(const struct registry *reg)
{
    return reg->nprompts;
}

static cJSON *dispatch_tool_item(const struct registry *reg, size_t i, int rev)
{
    return registry_tool_json(&reg->tools[i], rev);
}

static cJSON *dispatch_resource_item(const struct registry *reg, size_t i, int rev)
{
    return registry_resource_json(&reg->resources[i], rev);
}

static cJSON *dispatch_template_item(const struct registry *reg, size_t i, int rev)
{
    return registry_template_json(&reg->templates[i], rev);
}

static cJSON *dispatch_prompt_item(const struct registry *reg, size_t i, int rev)
{
    return registry_prompt_json(&reg->prompts[i], rev);
}

static const struct dispatch_list dispatch_lists[] = {
    {.key = "tools", .tag = 't', .count = dispatch_ntools, .item = dispatch_tool_item},
    {.key = "resources", .tag = 'r', .count = dispatch_nresources, .item = dispatch_resource_item},
    {.key = "resourceTemplates",
     .tag = 'u',
     .count = dispatch_ntemplates,
     .item = dispatch_template_item},
    {.key = "prompts", .tag = 'p', .count = dispatch_nprompts, .item = dispatch_prompt_item},
    {0},
};

char *dispatch_cursor(char tag, size_t offset)
{
    char plain[64];

    snprintf(plain, sizeof(plain), "mcph:%c:%zu", tag, offset);
    return base64_encode(plain, strlen(plain));
}

int dispatch_cursor_offset(const char *cursor, char tag, size_t count, size_t *offset)
{
    size_t len = 0;
    unsigned char *plain = base64_decode(cursor, &len);
    char want[8], *end = NULL;
    unsigned long long n;
    int status = STATUS_INVALID;

    snprintf(want, sizeof(want), "mcph:%c:", tag);
    if (plain != NULL && len > 7 && len < 40 && memcmp(plain, want, 7) == 0) {
        plain[len] = '\0';
        n = strtoull((char *)plain + 7, &end, 10);
        if (*end == '\0' && end > (char *)plain + 7 && n <= count) {
            *offset = (size_t)n;
            status = STATUS_OK;
        }
    }
    free(plain);
    return status;
}

/* The result object of a list page, printed; for 2026-07-28 with its envelope members. */
static char *dispatch_print_page(struct dispatch_req *req, const struct dispatch_list *list,
                                 size_t offset, size_t count)
{
    const struct registry *reg = req->srv->reg;
    size_t end = offset + (size_t)req->srv->cfg.page_size;
    cJSON *result = cJSON_CreateObject();
    cJSON *items = cJSON_AddArrayToObject(result, list->key);
    char *text = NULL;

    if (end > count)
        end = count;
    for (size_t i = offset; items != NULL && i < end; i++)
        cJSON_AddItemToArray(items, list->item(reg, i, req->rev));
    if (items != NULL && end < count) {
        char *next = dispatch_cursor(list->tag, end);

        if (next == NULL || cJSON_AddStringToObject(result, "nextCursor", next) == NULL)
            items = NULL;
        free(next);
    }
    if (items != NULL) {
        if (req->modern)
            decorate_result(result, reg, NULL, req->cacheable);
        /* Checked once here, not each time the page is sent. */
        text = utf8_own(cJSON_PrintUnformatted(result));
    }
    cJSON_Delete(result);
    return text;
}

static void dispatch_list_page(struct dispatch_req *req, const struct dispatch_list *list)
{
    struct registry *reg = req->srv->reg;
    const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(req->params, "cursor");
    size_t count = list->count(reg), offset = 0;
    const char *page;

    if (cursor != NULL &&
        (!cJSON_IsString(cursor) ||
         dispatch_cursor_offset(cursor->valuestring, list->tag, count, &offset) != STATUS_OK)) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS,
                       "Invalid cursor: use the nextCursor of "
                       "the previous page, or none for the first page");
        return;
    }
    /* A served set never changes, so each page is printed once per revision. */
    page = registry_page_get(reg, list->tag, req->rev, offset, req->srv->cfg.page_size);
    if (page == NULL) {
        char *text = dispatch_print_page(req, list, offset, count);

        if (text == NULL) {
            dispatch_no_reply(req);
            return;
        }
        if (!registry_page_put(reg, list->tag, req->rev, offset, req->srv->cfg.page_size, text)) {
            /* The cache is full: answer from the text, then let it go. */
            out_result_text(req->peer->out, req->batch, req->slot, req->id, text);
            free(text);
            return;
        }
        page = text;
    }
    out_result_text(req->peer->out, req->batch, req->slot, req->id, page);
}

static void dispatch_tools_list(struct dispatch_req *req)
{
    dispatch_list_page(req, &dispatch_lists[0]);
}

static void dispatch_resources_list(struct dispatch_req *req)
{
    dispatch_list_page(req, &dispatch_lists[1]);
}

static void dispatch_templates_list(struct dispatch_req *req)
{
    dispatch_list_page(req, &dispatch_lists[2]);
}

static void dispatch_prompts_list(struct dispatch_req *req)
{
    dispatch_list_page(req, &dispatch_lists[3]);
}

/* --- Calls into plugins. --- */

static const char *dispatch_param_string(struct dispatch_req *req, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req->params, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* What the client of this request can be asked, from the capabilities it declared. */
static unsigned dispatch_client_can(const struct dispatch_req *req)
{
    /* A modern request carries its client's capabilities; a legacy one has the session's. */
    const cJSON *caps = req->modern ? req->env.caps : req->peer->session->client_caps;
    const cJSON *elicit = cJSON_GetObjectItemCaseSensitive(caps, "elicitation");
    unsigned can = 0;

    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps, "sampling")))
        can |= CALL_CAN_SAMPLE;
    if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps, "roots")))
        can |= CALL_CAN_ROOTS;
    /* Form mode: an empty elicitation object means form (2025-06-18 had nothing else). */
    if (cJSON_IsObject(elicit) && revision_has(req->rev, REVF_ELICITATION) &&
        (elicit->child == NULL || cJSON_HasObjectItem(elicit, "form")))
        can |= CALL_CAN_ELICIT;
    return can;
}

/* Hand a call to the worker pool; it answers from there. Takes req->msg and t->owned_args. */
static void dispatch_call(struct dispatch_req *req, struct call_target *t)
{
    struct call_origin o = {.srv = req->srv,
                            .peer = req->peer,
                            .msg = req->msg,
                            .id = req->id,
                            .method = req->method,
                            .rev = req->rev,
                            .batch = req->batch,
                            .slot = req->slot,
                            .bytes = req->bytes,
                            .modern = req->modern,
                            .log_level = req->modern ? req->env.log_level : LOG_OFF};

    o.can = dispatch_client_can(req);
    req->msg = NULL;
    call_submit(&o, t);
}

/* Arguments that break the tool's inputSchema never reach the plugin: the answer is a tool
 * error naming the failing path, so the model can correct itself. */
static int dispatch_check_tool_args(struct dispatch_req *req, const struct registry_tool *t,
                                    const cJSON *args)
{
    struct strbuf why = STRBUF_INIT, text = STRBUF_INIT;
    cJSON *result, *content;

    if (schema_match(t->def->input_check, args, &why) == STATUS_OK)
        return STATUS_OK;
    strbuf_addf(&text, "Invalid arguments for tool '%s': %s", t->name, why.buf);
    result = cJSON_CreateObject();
    content = cJSON_AddArrayToObject(result, "content");
    cJSON *item = cJSON_CreateObject();

    cJSON_AddStringToObject(item, "type", "text");
    cJSON_AddStringToObject(item, "text", text.buf);
    cJSON_AddItemToArray(content, item);
    cJSON_AddBoolToObject(result, "isError", 1);
    dispatch_reply(req, result);
    strbuf_release(&why);
    strbuf_release(&text);
    return STATUS_INVALID;
}

static void dispatch_tools_call(struct dispatch_req *req)
{
    const char *name = dispatch_param_string(req, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(req->params, "arguments");
    struct call_target target = {.kind = RESULT_TOOL};
    const struct registry_tool *t;

    if (name == NULL) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "tools/call needs params.name, a string");
        return;
    }
    t = registry_find_tool(req->srv->reg, name);
    if (t == NULL) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "Unknown tool: %.*s", (int)LIMIT_QUOTED_BYTES,
                       name);
        return;
    }
    if (args != NULL && !cJSON_IsObject(args)) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "params.arguments must be an object");
        return;
    }
    target.owned_args = args ? NULL : cJSON_CreateObject();
    if (dispatch_check_tool_args(req, t, args ? args : target.owned_args) != STATUS_OK) {
        cJSON_Delete(target.owned_args);
        return;
    }
    target.plugin = t->plugin;
    target.fn = t->def->call;
    target.args = args;
    target.name = t->name;
    target.own_name = t->def->name;
    target.own_data = t->def->data;
    target.output_schema = t->def->output_check;
    dispatch_call(req, &target);
}

static void dispatch_not_found(struct dispatch_req *req, const char *uri)
{
    dispatch_answer(req, jsonrpc_not_found(req->id, uri, "Resource not found", req->modern));
}

static void dispatch_resources_read(struct dispatch_req *req)
{
    const char *uri = dispatch_param_string(req, "uri");
    struct call_target target = {.kind = RESULT_RESOURCE};
    const struct registry_resource *r;
    const struct registry_template *t;
    cJSON *vars = NULL;

    if (uri == NULL) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "resources/read needs params.uri, a string");
        return;
    }
    if (strlen(uri) > LIMIT_URI) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS,
                       "params.uri is longer than %d bytes, the longest URI mcph serves",
                       LIMIT_URI);
        return;
    }
    r = registry_find_resource(req->srv->reg, uri);
    t = r ? NULL : registry_match_template(req->srv->reg, uri, &vars);
    if (r == NULL && t == NULL) {
        dispatch_not_found(req, uri);
        return;
    }
    target.plugin = r ? r->plugin : t->plugin;
    target.fn = r ? r->def->read : t->def->read;
    target.owned_args = r ? cJSON_CreateObject() : vars;
    target.uri = uri;
    target.mime_type = r ? r->def->mime_type : t->def->mime_type;
    target.name = uri;
    target.own_name = r ? r->def->uri : t->def->uri_template;
    target.own_data = r ? r->def->data : t->def->data;
    dispatch_call(req, &target);
}

/* Prompt arguments: an object of strings with every required one present. */
static int dispatch_check_prompt_args(struct dispatch_req *req, const struct registry_prompt *p,
                                      const cJSON *args)
{
    const cJSON *a;

    if (args != NULL && !cJSON_IsObject(args)) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "params.arguments must be an object");
        return STATUS_INVALID;
    }
    cJSON_ArrayForEach(a, args)
    {
        if (!cJSON_IsString(a)) {
            dispatch_error(req, JSONRPC_INVALID_PARAMS,
                           "Invalid arguments for prompt '%s': /%.*s: expected string", p->name,
                           (int)LIMIT_QUOTED_BYTES, a->string);
            return STATUS_INVALID;
        }
    }
    for (size_t i = 0; i < p->def->nargs; i++) {
        const struct plugin_prompt_arg *arg = &p->def->args[i];

        if (arg->required && cJSON_GetObjectItemCaseSensitive(args, arg->name) == NULL) {
            dispatch_error(req, JSONRPC_INVALID_PARAMS,
                           "Missing required argument '%s' for prompt '%s'", arg->name, p->name);
            return STATUS_INVALID;
        }
    }
    return STATUS_OK;
}

static void dispatch_prompts_get(struct dispatch_req *req)
{
    const char *name = dispatch_param_string(req, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(req->params, "arguments");
    struct call_target target = {.kind = RESULT_PROMPT};
    const struct registry_prompt *p;

    if (name == NULL) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "prompts/get needs params.name, a string");
        return;
    }
    p = registry_find_prompt(req->srv->reg, name);
    if (p == NULL) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "Unknown prompt: %.*s", (int)LIMIT_QUOTED_BYTES,
                       name);
        return;
    }
    if (dispatch_check_prompt_args(req, p, args) != STATUS_OK)
        return;
    target.plugin = p->plugin;
    target.fn = p->def->get;
    target.args = args;
    target.owned_args = args ? NULL : cJSON_CreateObject();
    target.name = p->name;
    target.own_name = p->def->name;
    target.own_data = p->def->data;
    dispatch_call(req, &target);
}

/* --- Completions. --- */

static cJSON *dispatch_empty_completion(void)
{
    cJSON *result = cJSON_CreateObject();
    cJSON *completion = cJSON_AddObjectToObject(result, "completion");

    cJSON_AddArrayToObject(completion, "values");
    cJSON_AddNumberToObject(completion, "total", 0);
    cJSON_AddBoolToObject(completion, "hasMore", 0);
    return result;
}

/* The completion handler a ref names: a prompt's, or a resource template's. */
static int dispatch_find_completer(struct dispatch_req *req, const cJSON *ref,
                                   struct call_target *t)
{
    const struct registry *reg = req->srv->reg;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(ref, "type");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "name"));
    const char *uri = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "uri"));

    if (cJSON_IsString(type) && strcmp(type->valuestring, "ref/prompt") == 0 && name != NULL) {
        const struct registry_prompt *p = registry_find_prompt(reg, name);

        if (p == NULL)
            return STATUS_NOT_FOUND;
        t->plugin = p->plugin;
        t->fn = p->def->complete;
        t->name = p->name;
        t->own_name = p->def->name;
        t->own_data = p->def->data;
        return STATUS_OK;
    }
    if (cJSON_IsString(type) && strcmp(type->valuestring, "ref/resource") == 0 && uri != NULL) {
        for (size_t i = 0; i < reg->ntemplates; i++) {
            if (strcmp(reg->templates[i].def->uri_template, uri) != 0)
                continue;
            t->plugin = reg->templates[i].plugin;
            t->fn = reg->templates[i].def->complete;
            t->name = uri;
            t->own_name = reg->templates[i].def->uri_template;
            t->own_data = reg->templates[i].def->data;
            return STATUS_OK;
        }
        return STATUS_NOT_FOUND;
    }
    return STATUS_INVALID;
}

/* The handler's arguments: {"argument": NAME, "value": VALUE[, "context": {...}]}. */
static cJSON *dispatch_completion_args(const cJSON *argument, const cJSON *context)
{
    cJSON *args = cJSON_CreateObject();
    const cJSON *given = cJSON_GetObjectItemCaseSensitive(context, "arguments");

    cJSON_AddStringToObject(args, "argument",
                            cJSON_GetObjectItemCaseSensitive(argument, "name")->valuestring);
    cJSON_AddStringToObject(args, "value",
                            cJSON_GetObjectItemCaseSensitive(argument, "value")->valuestring);
    if (cJSON_IsObject(given))
        cJSON_AddItemToObject(args, "context", cJSON_Duplicate(given, 1));
    return args;
}

static void dispatch_complete(struct dispatch_req *req)
{
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(req->params, "ref");
    const cJSON *argument = cJSON_GetObjectItemCaseSensitive(req->params, "argument");
    struct call_target target = {.kind = RESULT_COMPLETE};
    int status;

    if (!cJSON_IsObject(ref) ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(argument, "name")) ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(argument, "value"))) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS,
                       "completion/complete needs params.ref and "
                       "params.argument {name, value}");
        return;
    }
    status = dispatch_find_completer(req, ref, &target);
    if (status != STATUS_OK) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS,
                       status == STATUS_NOT_FOUND
                           ? "No such prompt or resource template to complete"
                           : "params.ref must be a ref/prompt with a name or a ref/resource with "
                             "a uri");
        return;
    }
    if (target.fn == NULL) {
        dispatch_reply(req, dispatch_empty_completion());
        return;
    }
    target.owned_args = dispatch_completion_args(
        argument, cJSON_GetObjectItemCaseSensitive(req->params, "context"));
    dispatch_call(req, &target);
}

/* --- Subscriptions (legacy session). --- */

static void dispatch_subscribe(struct dispatch_req *req)
{
    struct server *srv = req->srv;
    const char *uri = dispatch_param_string(req, "uri");
    int status;

    if (uri == NULL) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "%s needs params.uri, a string", req->method);
        return;
    }
    if (registry_find_resource(srv->reg, uri) == NULL &&
        registry_match_template(srv->reg, uri, NULL) == NULL) {
        dispatch_not_found(req, uri);
        return;
    }
    status = subs_subscribe(&srv->subs, req->peer->home, uri);
    if (status == STATUS_LIMIT)
        dispatch_error(req, JSONRPC_INVALID_PARAMS,
                       "more than %d subscriptions; unsubscribe from some first",
                       LIMIT_SUBSCRIPTIONS);
    else if (status != STATUS_OK)
        dispatch_error(req, JSONRPC_INTERNAL_ERROR, "Out of memory");
    else
        dispatch_reply(req, cJSON_CreateObject());
}

static void dispatch_unsubscribe(struct dispatch_req *req)
{
    const char *uri = dispatch_param_string(req, "uri");

    if (uri == NULL) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "%s needs params.uri, a string", req->method);
        return;
    }
    subs_unsubscribe(&req->srv->subs, req->peer->home, uri);
    dispatch_reply(req, cJSON_CreateObject());
}

/* --- Cancellation and the client's answers. --- */

static void dispatch_cancelled(struct dispatch_req *req)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(req->params, "requestId");

    /* A listen request ends; a call is marked; unknown or finished ids are ignored. */
    if (jsonrpc_valid_id(id) && !notify_unlisten(req->srv, req->peer->home, id))
        inflight_cancel(req->peer->inflight, id);
}

/* --- 2026-07-28 methods. --- */

static void dispatch_discover(struct dispatch_req *req)
{
    cJSON *caps = session_capabilities(req->srv->reg, req->rev);

    out_result(req->peer->out, req->batch, req->slot, req->id, modern_discover(req->srv, caps));
}

static void dispatch_listen(struct dispatch_req *req)
{
    /* No response while it stays open; an error instead of the acknowledgement. */
    cJSON *err = notify_listen(req->srv, req->peer->home, req->id, req->params);

    if (err != NULL)
        dispatch_answer(req, err);
}

static const struct dispatch_method dispatch_methods[] = {
    {.name = "initialize",
     .fn = dispatch_initialize,
     .flags = DISPATCH_NO_SESSION | DISPATCH_NO_BATCH | DISPATCH_LEGACY},
    {.name = "ping", .fn = dispatch_ping, .flags = DISPATCH_NO_SESSION | DISPATCH_LEGACY},
    {.name = "logging/setLevel", .fn = dispatch_set_level, .flags = DISPATCH_LEGACY},
    {.name = "tools/list", .fn = dispatch_tools_list, .flags = DISPATCH_CACHEABLE},
    {.name = "tools/call", .fn = dispatch_tools_call},
    {.name = "resources/list", .fn = dispatch_resources_list, .flags = DISPATCH_CACHEABLE},
    {.name = "resources/templates/list",
     .fn = dispatch_templates_list,
     .flags = DISPATCH_CACHEABLE},
    {.name = "resources/read", .fn = dispatch_resources_read},
    {.name = "prompts/list", .fn = dispatch_prompts_list, .flags = DISPATCH_CACHEABLE},
    {.name = "prompts/get", .fn = dispatch_prompts_get},
    {.name = "completion/complete", .fn = dispatch_complete},
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
static void dispatch_route(struct dispatch_req *req)
{
    const struct dispatch_method *m = dispatch_find(req->method);
    struct session *s = req->peer->session;

    if (req->id == NULL) {
        /* A notification: never answered, whatever it is. */
        if (m != NULL && (m->flags & DISPATCH_NOTIFICATION) &&
            (s->rev != REV_NONE || (m->flags & DISPATCH_NO_SESSION)))
            m->fn(req);
        dispatch_no_reply(req);
        return;
    }
    if (m == NULL) {
        dispatch_error(req, JSONRPC_METHOD_NOT_FOUND, "Method not found: %.*s",
                       (int)LIMIT_QUOTED_BYTES, req->method);
        return;
    }
    if (m->flags & DISPATCH_NOTIFICATION) {
        dispatch_error(req, JSONRPC_INVALID_REQUEST,
                       "%s is a notification: send it without "
                       "an id",
                       req->method);
        return;
    }
    if (req->batch != NULL && (m->flags & DISPATCH_NO_BATCH)) {
        dispatch_error(req, JSONRPC_INVALID_REQUEST, "%s must not be part of a batch", req->method);
        return;
    }
    if (s->rev == REV_NONE && !(m->flags & DISPATCH_NO_SESSION)) {
        /* Neither a legacy session nor the 2026-07-28 _meta: malformed in both eras. */
        dispatch_error(req, JSONRPC_INVALID_PARAMS,
                       "No session: send initialize first, or put " MODERN_KEY_VERSION
                       " and " MODERN_KEY_CAPS " in params._meta");
        return;
    }
    if (m->flags & DISPATCH_MODERN) {
        dispatch_error(req, JSONRPC_METHOD_NOT_FOUND,
                       "Method not found: %s is part of protocol %s, not of this session's %s",
                       req->method, revision_get(REV_MODERN)->name, revision_get(s->rev)->name);
        return;
    }
    m->fn(req);
}

/* A request that claims 2026-07-28 in its _meta: served on its own, with no session. */
static void dispatch_route_modern(struct dispatch_req *req)
{
    const struct dispatch_method *m = dispatch_find(req->method);
    cJSON *err;

    if (req->id == NULL) {
        if (m != NULL && m->fn == dispatch_cancelled)
            m->fn(req);
        dispatch_no_reply(req);
        return;
    }
    /* An unknown or removed method outranks a bad envelope. */
    if (m == NULL || (m->flags & (DISPATCH_LEGACY | DISPATCH_NOTIFICATION))) {
        dispatch_error(req, JSONRPC_METHOD_NOT_FOUND, "Method not found: %.*s%s",
                       (int)LIMIT_QUOTED_BYTES, req->method,
                       m != NULL ? " is not part of protocol 2026-07-28" : "");
        return;
    }
    if (req->batch != NULL) {
        dispatch_error(req, JSONRPC_INVALID_REQUEST,
                       "Invalid Request: protocol 2026-07-28 has no batches");
        return;
    }
    err = modern_check(req->id, req->params, &req->env);
    if (err != NULL) {
        dispatch_answer(req, err);
        return;
    }
    req->modern = 1;
    req->rev = REV_MODERN;
    req->cacheable = (m->flags & DISPATCH_CACHEABLE) != 0;
    m->fn(req);
}

/* Check the envelope of msg, then route it. */
static void dispatch_envelope(struct dispatch_req *req)
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
        dispatch_no_reply(req);
        return;
    }
    if (req->id != NULL && !jsonrpc_valid_id(req->id)) {
        req->id = NULL;
        dispatch_error(req, JSONRPC_INVALID_REQUEST,
                       "Invalid Request: id must be a string or "
                       "an integer");
        return;
    }
    if (!cJSON_IsString(version) || strcmp(version->valuestring, "2.0") != 0 ||
        !cJSON_IsString(method)) {
        dispatch_error(req, JSONRPC_INVALID_REQUEST,
                       "Invalid Request: a JSON-RPC 2.0 request "
                       "needs \"jsonrpc\": \"2.0\" and a string \"method\"");
        return;
    }
    req->method = method->valuestring;
    if (params != NULL && !cJSON_IsObject(params)) {
        if (req->id != NULL)
            dispatch_error(req, JSONRPC_INVALID_PARAMS, "params must be an object");
        else
            dispatch_no_reply(req);
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
    struct dispatch_req req = {
        .srv = srv, .peer = peer, .msg = msg, .batch = b, .slot = slot, .bytes = bytes};

    req.rev = peer->session->rev;
    if (!cJSON_IsObject(msg))
        dispatch_error(&req, JSONRPC_INVALID_REQUEST, "Invalid Request: expected an object");
    else
        dispatch_envelope(&req);
    cJSON_Delete(req.msg);
}

static void dispatch_batch_message(struct server *srv, struct peer *peer, cJSON *root, size_t bytes)
{
    int n = cJSON_GetArraySize(root);
    struct dispatch_req req = {.srv = srv, .peer = peer};
    int rev = peer->session->rev;
    struct out_batch *b;
    cJSON *el;

    if (n == 0 || n > LIMIT_BATCH || !revision_has(rev, REVF_BATCH)) {
        if (n == 0 || n > LIMIT_BATCH)
            dispatch_error(&req, JSONRPC_INVALID_REQUEST,
                           "Invalid Request: a batch holds 1 "
                           "to %d messages",
                           LIMIT_BATCH);
        else
            dispatch_error(&req, JSONRPC_INVALID_REQUEST,
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
static int dispatch_too_costly(struct dispatch_req *req, const char *line, size_t len, size_t *cost)
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
    dispatch_error(req, JSONRPC_INVALID_REQUEST,
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
    struct dispatch_req req = {.srv = srv, .peer = peer};
    struct jsonrpc_scan scan;
    const char *end = NULL;
    cJSON *root;

    jsonrpc_scan(line, len, LIMIT_JSON_DEPTH, &scan);
    if (scan.problem == JSONRPC_TEXT_UTF8) {
        dispatch_error(&req, JSONRPC_PARSE_ERROR, "Parse error: not UTF-8 (at byte %zu)", scan.at);
        return NULL;
    }
    if (scan.problem == JSONRPC_TEXT_CONTROL) {
        dispatch_error(&req, JSONRPC_PARSE_ERROR,
                       "Parse error: control character 0x%02x not escaped (at byte %zu)",
                       (unsigned)(unsigned char)line[scan.at], scan.at);
        return NULL;
    }
    if (scan.depth > LIMIT_JSON_DEPTH) {
        dispatch_error(&req, JSONRPC_INVALID_REQUEST,
                       "Invalid Request: nested deeper than "
                       "%d levels",
                       LIMIT_JSON_DEPTH);
        return NULL;
    }
    if (dispatch_too_costly(&req, line, len, cost))
        return NULL;
    root = cJSON_ParseWithLengthOpts(line, len + 1, &end, 1);
    if (root == NULL) {
        dispatch_error(&req, JSONRPC_PARSE_ERROR, "Parse error: not valid JSON (at byte %zu)",
                       end && end >= line ? (size_t)(end - line) : (size_t)0);
        return NULL;
    }
    if (scan.problem == JSONRPC_TEXT_NUL_ESCAPE) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");

        req.id = jsonrpc_valid_id(id) ? id : NULL;
        dispatch_error(&req, req.id ? JSONRPC_INVALID_PARAMS : JSONRPC_INVALID_REQUEST,
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
    struct dispatch_req req = {.srv = srv, .peer = peer};

    dispatch_error(&req, JSONRPC_INVALID_REQUEST,
                   "Invalid Request: message longer than %u "
                   "bytes",
                   LIMIT_MESSAGE_BYTES);
}
