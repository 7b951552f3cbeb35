/*
 * targets.c: tools/call, resources/read, prompts/get and completion/complete: the row named,
 * if the principal sees it, its arguments checked, and the call handed on.
 */
#include "protocol/targets.h"

#include "calls/call.h"
#include "host/result.h"
#include "lib/limits.h"
#include "lib/schema.h"
#include "lib/status.h"
#include "lib/strbuf.h"
#include "served/audit.h"
#include "wire/jsonrpc.h"
#include "wire/revision.h"

#include <string.h>

/* What the client of this request can be asked, from the capabilities it declared. */
static unsigned targets_client_can(const struct request *req)
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

/* The audit line of a call refused here, before any plugin code runs (why: audit.h). */
static void targets_refused_by(struct request *req, const char *target, struct plugin *pl, int code,
                               const char *why)
{
    call_audit_answered(req->srv, req->peer, req->msg, target, pl, AUDIT_REFUSED, code, why);
}

static void targets_refused(struct request *req, const char *target, int code, const char *why)
{
    targets_refused_by(req, target, NULL, code, why);
}

/* Hand a call to the worker pool; it answers from there. Takes req->msg and t->owned_args. */
static void targets_call(struct request *req, struct call_target *t)
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
                            .log_level = req->modern ? req->env.log_level : LOG_OFF,
                            .private_view = !request_view(req).all};

    o.can = targets_client_can(req);
    req->msg = NULL;
    call_submit(&o, t);
}

/* Arguments that break the tool's inputSchema never reach the plugin: the answer is a tool
 * error naming the failing path, so the model can correct itself. */
static int targets_check_tool_args(struct request *req, const struct registry_tool *t,
                                   const cJSON *args)
{
    struct strbuf why = STRBUF_INIT, text = STRBUF_INIT;
    cJSON *result, *content;

    if (schema_match(t->def->input_check, args, &why) == STATUS_OK)
        return STATUS_OK;
    targets_refused_by(req, t->name, t->plugin, 0, "invalid_arguments");
    strbuf_addf(&text, "Invalid arguments for tool '%s': %s", t->name, why.buf);
    result = cJSON_CreateObject();
    content = cJSON_AddArrayToObject(result, "content");
    cJSON *item = cJSON_CreateObject();

    cJSON_AddStringToObject(item, "type", "text");
    cJSON_AddStringToObject(item, "text", text.buf);
    cJSON_AddItemToArray(content, item);
    cJSON_AddBoolToObject(result, "isError", 1);
    request_reply(req, result);
    strbuf_release(&why);
    strbuf_release(&text);
    return STATUS_INVALID;
}

void targets_tools_call(struct request *req)
{
    const char *name = request_param_string(req, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(req->params, "arguments");
    struct call_target target = {.kind = RESULT_TOOL};
    const struct registry_tool *t;

    if (name == NULL) {
        targets_refused(req, NULL, JSONRPC_INVALID_PARAMS, "invalid");
        request_error(req, JSONRPC_INVALID_PARAMS, "tools/call needs params.name, a string");
        return;
    }
    t = registry_find_tool(req->srv->reg, name);
    /* A tool the principal does not see answers as one that does not exist. */
    if (t == NULL || !request_sees(req, FILTER_TOOLS, t->name)) {
        targets_refused(req, name, JSONRPC_INVALID_PARAMS, "unknown");
        request_error(req, JSONRPC_INVALID_PARAMS, "Unknown tool: %.*s", (int)LIMIT_QUOTED_BYTES,
                      name);
        return;
    }
    if (args != NULL && !cJSON_IsObject(args)) {
        targets_refused(req, name, JSONRPC_INVALID_PARAMS, "invalid");
        request_error(req, JSONRPC_INVALID_PARAMS, "params.arguments must be an object");
        return;
    }
    target.owned_args = args ? NULL : cJSON_CreateObject();
    if (targets_check_tool_args(req, t, args ? args : target.owned_args) != STATUS_OK) {
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
    targets_call(req, &target);
}

void targets_resources_read(struct request *req)
{
    const char *uri = request_param_string(req, "uri");
    struct call_target target = {.kind = RESULT_RESOURCE};
    const struct registry_resource *r;
    const struct registry_template *t;
    cJSON *vars = NULL;

    if (uri == NULL) {
        targets_refused(req, NULL, JSONRPC_INVALID_PARAMS, "invalid");
        request_error(req, JSONRPC_INVALID_PARAMS, "resources/read needs params.uri, a string");
        return;
    }
    if (strlen(uri) > LIMIT_URI) {
        targets_refused(req, NULL, JSONRPC_INVALID_PARAMS, "invalid");
        request_error(req, JSONRPC_INVALID_PARAMS,
                      "params.uri is longer than %d bytes, the longest URI mcph serves", LIMIT_URI);
        return;
    }
    r = registry_find_resource(req->srv->reg, uri);
    t = r ? NULL : registry_match_template(req->srv->reg, uri, &vars);
    /* The row the URI names, hidden from the principal, is as good as none: not found. A
     * fixed resource's URI is its name; any other URI may carry secrets (a template's
     * variables, a token pasted by mistake): its line names the template, or nothing, and
     * the URI only as a digest. */
    if (r != NULL && !request_sees(req, FILTER_RESOURCES, uri)) {
        targets_refused(req, uri, 0, "unknown");
        request_not_found(req, uri);
        return;
    }
    if (r == NULL && (t == NULL || !request_sees(req, FILTER_RESOURCES, t->def->uri_template))) {
        cJSON_Delete(vars);
        call_audit_refused_read(req->srv, req->peer, req->msg, t ? t->def->uri_template : NULL, uri,
                                t ? t->plugin : NULL);
        request_not_found(req, uri);
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
    targets_call(req, &target);
}

/* Prompt arguments: an object of strings with every required one present. */
static int targets_check_prompt_args(struct request *req, const struct registry_prompt *p,
                                     const cJSON *args)
{
    const cJSON *a;

    if (args != NULL && !cJSON_IsObject(args)) {
        request_error(req, JSONRPC_INVALID_PARAMS, "params.arguments must be an object");
        return STATUS_INVALID;
    }
    cJSON_ArrayForEach(a, args)
    {
        if (!cJSON_IsString(a)) {
            request_error(req, JSONRPC_INVALID_PARAMS,
                          "Invalid arguments for prompt '%s': /%.*s: expected string", p->name,
                          (int)LIMIT_QUOTED_BYTES, a->string);
            return STATUS_INVALID;
        }
    }
    for (size_t i = 0; i < p->def->nargs; i++) {
        const struct plugin_prompt_arg *arg = &p->def->args[i];

        if (arg->required && cJSON_GetObjectItemCaseSensitive(args, arg->name) == NULL) {
            request_error(req, JSONRPC_INVALID_PARAMS,
                          "Missing required argument '%s' for prompt '%s'", arg->name, p->name);
            return STATUS_INVALID;
        }
    }
    return STATUS_OK;
}

void targets_prompts_get(struct request *req)
{
    const char *name = request_param_string(req, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(req->params, "arguments");
    struct call_target target = {.kind = RESULT_PROMPT};
    const struct registry_prompt *p;

    if (name == NULL) {
        targets_refused(req, NULL, JSONRPC_INVALID_PARAMS, "invalid");
        request_error(req, JSONRPC_INVALID_PARAMS, "prompts/get needs params.name, a string");
        return;
    }
    p = registry_find_prompt(req->srv->reg, name);
    if (p == NULL || !request_sees(req, FILTER_PROMPTS, p->name)) {
        targets_refused(req, name, JSONRPC_INVALID_PARAMS, "unknown");
        request_error(req, JSONRPC_INVALID_PARAMS, "Unknown prompt: %.*s", (int)LIMIT_QUOTED_BYTES,
                      name);
        return;
    }
    if (targets_check_prompt_args(req, p, args) != STATUS_OK) {
        targets_refused(req, p->name, JSONRPC_INVALID_PARAMS, "invalid");
        return;
    }
    target.plugin = p->plugin;
    target.fn = p->def->get;
    target.args = args;
    target.owned_args = args ? NULL : cJSON_CreateObject();
    target.name = p->name;
    target.own_name = p->def->name;
    target.own_data = p->def->data;
    targets_call(req, &target);
}

/* --- Completions. --- */

static cJSON *targets_empty_completion(void)
{
    cJSON *result = cJSON_CreateObject();
    cJSON *completion = cJSON_AddObjectToObject(result, "completion");

    cJSON_AddArrayToObject(completion, "values");
    cJSON_AddNumberToObject(completion, "total", 0);
    cJSON_AddBoolToObject(completion, "hasMore", 0);
    return result;
}

/* The completion handler a ref names: a prompt's, or a resource template's. */
static int targets_find_completer(struct request *req, const cJSON *ref, struct call_target *t)
{
    const struct registry *reg = req->srv->reg;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(ref, "type");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "name"));
    const char *uri = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ref, "uri"));

    if (cJSON_IsString(type) && strcmp(type->valuestring, "ref/prompt") == 0 && name != NULL) {
        const struct registry_prompt *p = registry_find_prompt(reg, name);

        if (p == NULL || !request_sees(req, FILTER_PROMPTS, p->name))
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
            if (!request_sees(req, FILTER_RESOURCES, uri))
                return STATUS_NOT_FOUND;
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
static cJSON *targets_completion_args(const cJSON *argument, const cJSON *context)
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

void targets_complete(struct request *req)
{
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(req->params, "ref");
    const cJSON *argument = cJSON_GetObjectItemCaseSensitive(req->params, "argument");
    struct call_target target = {.kind = RESULT_COMPLETE};
    int status;

    if (!cJSON_IsObject(ref) ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(argument, "name")) ||
        !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(argument, "value"))) {
        targets_refused(req, NULL, JSONRPC_INVALID_PARAMS, "invalid");
        request_error(req, JSONRPC_INVALID_PARAMS,
                      "completion/complete needs params.ref and "
                      "params.argument {name, value}");
        return;
    }
    status = targets_find_completer(req, ref, &target);
    if (status != STATUS_OK) {
        targets_refused(req, NULL, JSONRPC_INVALID_PARAMS,
                        status == STATUS_NOT_FOUND ? "unknown" : "invalid");
        request_error(req, JSONRPC_INVALID_PARAMS,
                      status == STATUS_NOT_FOUND
                          ? "No such prompt or resource template to complete"
                          : "params.ref must be a ref/prompt with a name or a ref/resource with "
                            "a uri");
        return;
    }
    if (target.fn == NULL) {
        call_audit_answered(req->srv, req->peer, req->msg, target.name, target.plugin, AUDIT_RESULT,
                            0, NULL);
        request_reply(req, targets_empty_completion());
        return;
    }
    target.owned_args =
        targets_completion_args(argument, cJSON_GetObjectItemCaseSensitive(req->params, "context"));
    targets_call(req, &target);
}
