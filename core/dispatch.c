#include "dispatch.h"

#include "base64.h"
#include "host.h"
#include "limits.h"
#include "revision.h"
#include "status.h"
#include "version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A JSON-RPC batch (2025-03-26) being answered: replies fill slots, from the main thread
 * and workers; the last one sends them all as one array. */
struct dispatch_batch {
    struct server *srv;
    pthread_mutex_t lock; /* guards pending and slots */
    size_t pending;       /* replies still to come, +1 while the batch is being read */
    char **slots;         /* owned: each element's reply text, or NULL (notification) */
    size_t n;
};

/* One message being handled. */
struct dispatch_req {
    struct server *srv;
    cJSON *msg;          /* owned until a job takes it (then NULL) */
    const cJSON *id;     /* borrowed from msg; NULL for a notification */
    const cJSON *params; /* borrowed from msg; an object or NULL */
    const char *method;
    int rev; /* enum revision the request is served under */
    struct dispatch_batch *batch;
    size_t slot;
};

/* A call into a plugin, run on a worker. */
struct dispatch_job {
    struct work_job work; /* first: the pool hands this back */
    struct server *srv;
    struct registry *reg; /* one reference: keeps plugin and definitions alive */
    struct plugin *plugin;
    mcph_handler_fn fn;
    int kind; /* enum host_call_kind */
    int rev;
    cJSON *msg;            /* owned: the request */
    const cJSON *id;       /* borrowed from msg */
    const cJSON *args;     /* borrowed from msg or vars, or empty */
    cJSON *owned_args;     /* owned: template variables or an empty object */
    const char *uri;       /* borrowed from msg, or NULL */
    const char *mime_type; /* borrowed from the definition, or NULL */
    struct dispatch_batch *batch;
    size_t slot;
};

enum dispatch_flags {
    DISPATCH_NOTIFICATION = 1u << 0, /* a notification method: never answered */
    DISPATCH_NO_SESSION = 1u << 1,   /* allowed before initialize */
    DISPATCH_NO_BATCH = 1u << 2,     /* must not be part of a batch */
};

struct dispatch_method {
    const char *name;
    void (*fn)(struct dispatch_req *req);
    unsigned flags;
};

/* --- Replies. --- */

static void dispatch_batch_done(struct dispatch_batch *b, size_t slot, char *text);

/* Send (or store in the batch) a reply; takes ownership of msg. Any thread. */
static void dispatch_send(struct server *srv, struct dispatch_batch *b, size_t slot, cJSON *msg)
{
    char *text;

    if (msg == NULL) {
        log_msg(&srv->log, LOG_ERROR, NULL, "out of memory building a reply");
        if (b != NULL)
            dispatch_batch_done(b, slot, NULL);
        return;
    }
    text = cJSON_PrintUnformatted(msg);
    cJSON_Delete(msg);
    if (b != NULL) {
        dispatch_batch_done(b, slot, text);
        return;
    }
    if (text != NULL)
        jsonrpc_write(&srv->out, text, strlen(text));
    free(text);
}

static void dispatch_reply(struct dispatch_req *req, cJSON *result)
{
    dispatch_send(req->srv, req->batch, req->slot, jsonrpc_result(req->id, result));
}

static void dispatch_error(struct dispatch_req *req, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void dispatch_error(struct dispatch_req *req, int code, const char *fmt, ...)
{
    char message[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    dispatch_send(req->srv, req->batch, req->slot, jsonrpc_error(req->id, code, message, NULL));
}

/* The message gets no reply (a notification). */
static void dispatch_no_reply(struct dispatch_req *req)
{
    if (req->batch != NULL)
        dispatch_batch_done(req->batch, req->slot, NULL);
}

/* --- Batches. --- */

static void dispatch_batch_flush(struct dispatch_batch *b)
{
    size_t len = 2;
    char *text, *p;

    for (size_t i = 0; i < b->n; i++)
        len += b->slots[i] ? strlen(b->slots[i]) + 1 : 0;
    text = malloc(len + 1);
    if (text != NULL) {
        p = text;
        *p++ = '[';
        for (size_t i = 0; i < b->n; i++) {
            if (b->slots[i] == NULL)
                continue;
            if (p > text + 1)
                *p++ = ',';
            p = stpcpy(p, b->slots[i]);
        }
        *p++ = ']';
        /* Only notifications: JSON-RPC sends nothing at all. */
        if (p - text > 2)
            jsonrpc_write(&b->srv->out, text, (size_t)(p - text));
        free(text);
    }
    for (size_t i = 0; i < b->n; i++)
        free(b->slots[i]);
    free(b->slots);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

static void dispatch_batch_done(struct dispatch_batch *b, size_t slot, char *text)
{
    size_t left;

    pthread_mutex_lock(&b->lock);
    if (slot < b->n)
        b->slots[slot] = text;
    else
        free(text);
    left = --b->pending;
    pthread_mutex_unlock(&b->lock);
    if (left == 0)
        dispatch_batch_flush(b);
}

/* --- Session methods. --- */

/* A list capability with listChanged: mcph really sends it after a reload. */
static int dispatch_add_list_cap(cJSON *caps, const char *name)
{
    cJSON *cap = cJSON_AddObjectToObject(caps, name);

    return cap != NULL && cJSON_AddBoolToObject(cap, "listChanged", 1) != NULL ? 0 : -1;
}

/*
 * Tools, resources and prompts are advertised whatever is loaded now: a reload may bring
 * any of them, and a client that was told a list does not exist would never ask for it.
 */
static cJSON *dispatch_capabilities(const struct server *srv)
{
    cJSON *caps = cJSON_CreateObject();

    (void)srv;
    if (caps == NULL || cJSON_AddObjectToObject(caps, "logging") == NULL ||
        dispatch_add_list_cap(caps, "tools") != 0 ||
        dispatch_add_list_cap(caps, "resources") != 0 ||
        dispatch_add_list_cap(caps, "prompts") != 0) {
        cJSON_Delete(caps);
        return NULL;
    }
    return caps;
}

static cJSON *dispatch_server_info(const struct server *srv, int rev)
{
    cJSON *info = cJSON_CreateObject();

    if (info == NULL || cJSON_AddStringToObject(info, "name", srv->cfg.name) == NULL ||
        cJSON_AddStringToObject(info, "version", MCPH_VERSION) == NULL ||
        (srv->cfg.title != NULL && revision_has(rev, REVF_TITLE) &&
         cJSON_AddStringToObject(info, "title", srv->cfg.title) == NULL)) {
        cJSON_Delete(info);
        return NULL;
    }
    return info;
}

static void dispatch_initialize(struct dispatch_req *req)
{
    struct session *s = &req->srv->session;
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(req->params, "protocolVersion");
    cJSON *result;
    int rev;

    if (!cJSON_IsString(version)) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS,
                       "initialize needs params.protocolVersion, "
                       "a string such as \"%s\"",
                       revision_get(REV_LATEST_LEGACY)->name);
        return;
    }
    if (s->rev != REV_NONE) {
        dispatch_error(req, JSONRPC_INVALID_REQUEST,
                       "initialize was already done on this "
                       "connection (protocol %s)",
                       revision_get(s->rev)->name);
        return;
    }
    /* An unknown version is answered with the newest one mcph speaks, never echoed. */
    rev = revision_parse(version->valuestring);
    if (rev == REV_NONE)
        rev = REV_LATEST_LEGACY;
    result = cJSON_CreateObject();
    if (result == NULL ||
        cJSON_AddStringToObject(result, "protocolVersion", revision_get(rev)->name) == NULL) {
        cJSON_Delete(result);
        dispatch_send(req->srv, req->batch, req->slot, NULL);
        return;
    }
    cJSON_AddItemToObject(result, "capabilities", dispatch_capabilities(req->srv));
    cJSON_AddItemToObject(result, "serverInfo", dispatch_server_info(req->srv, rev));
    if (req->srv->cfg.instructions != NULL)
        cJSON_AddStringToObject(result, "instructions", req->srv->cfg.instructions);
    s->rev = rev;
    s->client_caps =
        cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(req->params, "capabilities"), 1);
    s->client_info =
        cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(req->params, "clientInfo"), 1);
    dispatch_reply(req, result);
}

static void dispatch_initialized(struct dispatch_req *req)
{
    req->srv->session.initialized = 1;
}

static void dispatch_ignore(struct dispatch_req *req)
{
    (void)req;
}

static void dispatch_ping(struct dispatch_req *req)
{
    dispatch_reply(req, cJSON_CreateObject());
}

static void dispatch_set_level(struct dispatch_req *req)
{
    const char *name = NULL;
    const cJSON *level = cJSON_GetObjectItemCaseSensitive(req->params, "level");
    int value;

    if (cJSON_IsString(level))
        name = level->valuestring;
    /* Only the spec's names: "warn" is an INI nicety, not a protocol value. */
    if (name == NULL || strcmp(name, "warn") == 0 || log_level_parse(name, &value) != 0) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS,
                       "logging/setLevel needs params.level, one "
                       "of debug, info, notice, warning, error, critical, alert, emergency");
        return;
    }
    atomic_store(&req->srv->log.sink_level, value);
    dispatch_reply(req, cJSON_CreateObject());
}

void dispatch_log_sink(void *ctx, int level, const char *who, const char *text)
{
    struct server *srv = ctx;
    cJSON *params = cJSON_CreateObject();

    if (params == NULL || cJSON_AddStringToObject(params, "level", log_level_name(level)) == NULL ||
        (who != NULL && cJSON_AddStringToObject(params, "logger", who) == NULL) ||
        cJSON_AddStringToObject(params, "data", text) == NULL) {
        cJSON_Delete(params);
        return;
    }
    dispatch_send(srv, NULL, 0, jsonrpc_notification("notifications/message", params));
}

void dispatch_lists_changed(struct server *srv, unsigned lists)
{
    static const struct {
        unsigned list;
        const char *method;
    } notes[] = {
        {REGISTRY_TOOLS, "notifications/tools/list_changed"},
        {REGISTRY_RESOURCES, "notifications/resources/list_changed"},
        {REGISTRY_PROMPTS, "notifications/prompts/list_changed"},
        {0},
    };

    if (!srv->session.initialized)
        return;
    for (size_t i = 0; notes[i].list != 0; i++) {
        if (lists & notes[i].list)
            dispatch_send(srv, NULL, 0, jsonrpc_notification(notes[i].method, NULL));
    }
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

/* Cursors are opaque to clients: base64 of "mcph:<tag>:<offset>". */
static char *dispatch_cursor(char tag, size_t offset)
{
    char plain[64];

    snprintf(plain, sizeof(plain), "mcph:%c:%zu", tag, offset);
    return base64_encode(plain, strlen(plain));
}

/* The offset a cursor stands for; STATUS_INVALID for one mcph did not make for this list. */
static int dispatch_cursor_offset(const char *cursor, char tag, size_t count, size_t *offset)
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

static void dispatch_list_page(struct dispatch_req *req, const struct dispatch_list *list)
{
    const struct registry *reg = req->srv->reg;
    const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(req->params, "cursor");
    size_t count = list->count(reg), offset = 0, end;
    cJSON *result, *items;

    if (cursor != NULL &&
        (!cJSON_IsString(cursor) ||
         dispatch_cursor_offset(cursor->valuestring, list->tag, count, &offset) != STATUS_OK)) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS,
                       "Invalid cursor: use the nextCursor of "
                       "the previous page, or none for the first page");
        return;
    }
    end = offset + (size_t)req->srv->cfg.page_size;
    if (end > count)
        end = count;
    result = cJSON_CreateObject();
    items = cJSON_AddArrayToObject(result, list->key);
    for (size_t i = offset; items != NULL && i < end; i++)
        cJSON_AddItemToArray(items, list->item(reg, i, req->rev));
    if (end < count && result != NULL) {
        char *next = dispatch_cursor(list->tag, end);

        if (next == NULL || cJSON_AddStringToObject(result, "nextCursor", next) == NULL)
            items = NULL;
        free(next);
    }
    if (items == NULL) {
        cJSON_Delete(result);
        result = NULL;
    }
    dispatch_reply(req, result);
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

static void dispatch_job_free(struct dispatch_job *job)
{
    cJSON_Delete(job->msg);
    cJSON_Delete(job->owned_args);
    server_release_registry(job->srv, job->reg);
    free(job);
}

static cJSON *dispatch_plugin_error(const struct dispatch_job *job, int rc, const char *msg)
{
    const char *id = job->plugin->id;
    char text[512];

    if (rc == MCPH_ERR_INVALID) {
        snprintf(text, sizeof(text), "%s", msg ? msg : "Invalid params");
        return jsonrpc_error(job->id, JSONRPC_INVALID_PARAMS, text, NULL);
    }
    if (rc == MCPH_ERR_NOT_FOUND && job->kind == HOST_CALL_RESOURCE) {
        cJSON *data = cJSON_CreateObject();

        cJSON_AddStringToObject(data, "uri", job->uri);
        snprintf(text, sizeof(text), "%s", msg ? msg : "Resource not found");
        return jsonrpc_error(job->id, JSONRPC_RESOURCE_NOT_FOUND, text, data);
    }
    if (rc == MCPH_ERR_NOT_FOUND) {
        snprintf(text, sizeof(text), "%s", msg ? msg : "Not found");
        return jsonrpc_error(job->id, JSONRPC_INVALID_PARAMS, text, NULL);
    }
    log_msg(&job->srv->log, LOG_WARNING, NULL, "plugin '%s' failed a request (status %d)%s%s", id,
            rc, msg ? ": " : "", msg ? msg : "");
    snprintf(text, sizeof(text), "Internal error in plugin '%s'%s%s", id, msg ? ": " : "",
             msg ? msg : "");
    return jsonrpc_error(job->id, JSONRPC_INTERNAL_ERROR, text, NULL);
}

static void dispatch_job_run(struct work_job *work)
{
    struct dispatch_job *job = (struct dispatch_job *)work;
    struct plugin *pl = job->plugin;
    struct mcph_call call;
    cJSON *reply;
    int rc;

    if (host_call_init(&call, job->kind, job->rev, job->args, job->uri) != STATUS_OK) {
        reply = jsonrpc_error(job->id, JSONRPC_INTERNAL_ERROR, "Out of memory", NULL);
    } else {
        call.mime_type = job->mime_type;
        rc = job->fn(&pl->host.vt, pl->state, &call);
        if (rc == MCPH_OK)
            reply = jsonrpc_result(job->id, host_call_result(&call));
        else
            reply = dispatch_plugin_error(job, rc, call.error);
    }
    host_call_release(&call);
    dispatch_send(job->srv, job->batch, job->slot, reply);
    dispatch_job_free(job);
}

static void dispatch_job_drop(struct work_job *work)
{
    struct dispatch_job *job = (struct dispatch_job *)work;

    if (job->batch != NULL)
        dispatch_batch_done(job->batch, job->slot, NULL);
    dispatch_job_free(job);
}

static const char *dispatch_param_string(struct dispatch_req *req, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(req->params, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Hand the request to a worker. The job takes req->msg and owned_args. */
static void dispatch_submit(struct dispatch_req *req, int kind, struct plugin *pl,
                            mcph_handler_fn fn, const cJSON *args, cJSON *owned_args,
                            const char *mime_type)
{
    struct dispatch_job *job = calloc(1, sizeof(*job));
    struct server *srv = req->srv;

    if (job == NULL || (args == NULL && owned_args == NULL)) {
        free(job);
        cJSON_Delete(owned_args);
        dispatch_send(srv, req->batch, req->slot, NULL);
        return;
    }
    job->work.run = dispatch_job_run;
    job->work.drop = dispatch_job_drop;
    job->work.excl = (pl->flags & MCPH_PLUGIN_THREAD_SAFE) ? NULL : pl;
    job->srv = srv;
    job->reg = srv->reg;
    registry_ref(srv->reg);
    job->plugin = pl;
    job->fn = fn;
    job->kind = kind;
    job->rev = req->rev;
    job->msg = req->msg;
    job->id = req->id;
    job->args = args ? args : owned_args;
    job->owned_args = owned_args;
    if (kind == HOST_CALL_RESOURCE)
        job->uri = dispatch_param_string(req, "uri");
    job->mime_type = mime_type;
    job->batch = req->batch;
    job->slot = req->slot;
    req->msg = NULL;
    work_submit(&srv->work, &job->work);
}

static void dispatch_tools_call(struct dispatch_req *req)
{
    const char *name = dispatch_param_string(req, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(req->params, "arguments");
    const struct registry_tool *t;

    if (name == NULL) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "tools/call needs params.name, a string");
        return;
    }
    t = registry_find_tool(req->srv->reg, name);
    if (t == NULL) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "Unknown tool: %s", name);
        return;
    }
    if (args != NULL && !cJSON_IsObject(args)) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "params.arguments must be an object");
        return;
    }
    dispatch_submit(req, HOST_CALL_TOOL, t->plugin, t->def->call, args,
                    args ? NULL : cJSON_CreateObject(), NULL);
}

static void dispatch_resources_read(struct dispatch_req *req)
{
    const char *uri = dispatch_param_string(req, "uri");
    const struct registry_resource *r;
    const struct registry_template *t;
    cJSON *vars = NULL;

    if (uri == NULL) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "resources/read needs params.uri, a string");
        return;
    }
    r = registry_find_resource(req->srv->reg, uri);
    if (r != NULL) {
        dispatch_submit(req, HOST_CALL_RESOURCE, r->plugin, r->def->read, NULL,
                        cJSON_CreateObject(), r->def->mime_type);
        return;
    }
    t = registry_match_template(req->srv->reg, uri, &vars);
    if (t != NULL) {
        dispatch_submit(req, HOST_CALL_RESOURCE, t->plugin, t->def->read, NULL, vars,
                        t->def->mime_type);
        return;
    }
    cJSON *data = cJSON_CreateObject();

    cJSON_AddStringToObject(data, "uri", uri);
    dispatch_send(req->srv, req->batch, req->slot,
                  jsonrpc_error(req->id, JSONRPC_RESOURCE_NOT_FOUND, "Resource not found", data));
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
                           "argument '%s' of prompt '%s' must be "
                           "a string",
                           a->string, p->name);
            return STATUS_INVALID;
        }
    }
    for (size_t i = 0; i < p->def->nargs; i++) {
        const struct plugin_prompt_arg *arg = &p->def->args[i];

        if (arg->required && cJSON_GetObjectItemCaseSensitive(args, arg->name) == NULL) {
            dispatch_error(req, JSONRPC_INVALID_PARAMS,
                           "Missing required argument '%s' for "
                           "prompt '%s'",
                           arg->name, p->name);
            return STATUS_INVALID;
        }
    }
    return STATUS_OK;
}

static void dispatch_prompts_get(struct dispatch_req *req)
{
    const char *name = dispatch_param_string(req, "name");
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(req->params, "arguments");
    const struct registry_prompt *p;

    if (name == NULL) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "prompts/get needs params.name, a string");
        return;
    }
    p = registry_find_prompt(req->srv->reg, name);
    if (p == NULL) {
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "Unknown prompt: %s", name);
        return;
    }
    if (dispatch_check_prompt_args(req, p, args) != STATUS_OK)
        return;
    dispatch_submit(req, HOST_CALL_PROMPT, p->plugin, p->def->get, args,
                    args ? NULL : cJSON_CreateObject(), NULL);
}

static const struct dispatch_method dispatch_methods[] = {
    {.name = "initialize",
     .fn = dispatch_initialize,
     .flags = DISPATCH_NO_SESSION | DISPATCH_NO_BATCH},
    {.name = "ping", .fn = dispatch_ping, .flags = DISPATCH_NO_SESSION},
    {.name = "logging/setLevel", .fn = dispatch_set_level},
    {.name = "tools/list", .fn = dispatch_tools_list},
    {.name = "tools/call", .fn = dispatch_tools_call},
    {.name = "resources/list", .fn = dispatch_resources_list},
    {.name = "resources/templates/list", .fn = dispatch_templates_list},
    {.name = "resources/read", .fn = dispatch_resources_read},
    {.name = "prompts/list", .fn = dispatch_prompts_list},
    {.name = "prompts/get", .fn = dispatch_prompts_get},
    {.name = "notifications/initialized",
     .fn = dispatch_initialized,
     .flags = DISPATCH_NOTIFICATION},
    {.name = "notifications/cancelled",
     .fn = dispatch_ignore,
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
    struct session *s = &req->srv->session;

    if (req->id == NULL) {
        /* A notification: never answered, whatever it is. */
        if (m != NULL && (m->flags & DISPATCH_NOTIFICATION) &&
            (s->rev != REV_NONE || (m->flags & DISPATCH_NO_SESSION)))
            m->fn(req);
        dispatch_no_reply(req);
        return;
    }
    if (m == NULL) {
        dispatch_error(req, JSONRPC_METHOD_NOT_FOUND, "Method not found: %s", req->method);
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
        dispatch_error(req, JSONRPC_INVALID_PARAMS, "No session: send initialize first");
        return;
    }
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
    if (req->id != NULL && !jsonrpc_valid_id(req->id)) {
        req->id = NULL;
        dispatch_error(req, JSONRPC_INVALID_REQUEST,
                       "Invalid Request: id must be a string or "
                       "an integer");
        return;
    }
    if (method == NULL && req->id != NULL &&
        (cJSON_HasObjectItem(msg, "result") || cJSON_HasObjectItem(msg, "error"))) {
        /* A response from the client; mcph sends no requests it waits for yet. */
        dispatch_no_reply(req);
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
    dispatch_route(req);
}

/* Handle one message; takes ownership of msg. In a batch, exactly one reply (or no-reply)
 * reaches slot. */
static void dispatch_message(struct server *srv, cJSON *msg, struct dispatch_batch *b, size_t slot)
{
    struct dispatch_req req = {.srv = srv, .msg = msg, .batch = b, .slot = slot};

    req.rev = srv->session.rev;
    if (!cJSON_IsObject(msg))
        dispatch_error(&req, JSONRPC_INVALID_REQUEST, "Invalid Request: expected an object");
    else
        dispatch_envelope(&req);
    cJSON_Delete(req.msg);
}

static void dispatch_batch_message(struct server *srv, cJSON *root)
{
    int n = cJSON_GetArraySize(root);
    struct dispatch_req req = {.srv = srv};
    struct dispatch_batch *b;
    cJSON *el;

    if (n == 0 || n > LIMIT_BATCH || !revision_has(srv->session.rev, REVF_BATCH)) {
        if (n == 0 || n > LIMIT_BATCH)
            dispatch_error(&req, JSONRPC_INVALID_REQUEST,
                           "Invalid Request: a batch holds 1 "
                           "to %d messages",
                           LIMIT_BATCH);
        else
            dispatch_error(&req, JSONRPC_INVALID_REQUEST,
                           "Invalid Request: JSON-RPC batches "
                           "are not part of protocol %s; send one message per line",
                           srv->session.rev ? revision_get(srv->session.rev)->name
                                            : "negotiation (initialize first)");
        cJSON_Delete(root);
        return;
    }
    b = calloc(1, sizeof(*b));
    if (b == NULL || (b->slots = calloc((size_t)n, sizeof(*b->slots))) == NULL) {
        free(b);
        cJSON_Delete(root);
        dispatch_send(srv, NULL, 0, NULL);
        return;
    }
    b->srv = srv;
    b->n = (size_t)n;
    b->pending = (size_t)n + 1;
    pthread_mutex_init(&b->lock, NULL);
    for (size_t i = 0; (el = cJSON_DetachItemFromArray(root, 0)) != NULL; i++)
        dispatch_message(srv, el, b, i);
    cJSON_Delete(root);
    dispatch_batch_done(b, b->n, NULL);
}

void dispatch_line(struct server *srv, const char *line, size_t len)
{
    struct dispatch_req req = {.srv = srv};
    const char *end = NULL;
    cJSON *root;

    if (strspn(line, " \t\r") == len)
        return;
    if (jsonrpc_depth(line, len, LIMIT_JSON_DEPTH) > LIMIT_JSON_DEPTH) {
        dispatch_error(&req, JSONRPC_INVALID_REQUEST,
                       "Invalid Request: nested deeper than "
                       "%d levels",
                       LIMIT_JSON_DEPTH);
        return;
    }
    root = cJSON_ParseWithLengthOpts(line, len + 1, &end, 1);
    if (root == NULL) {
        dispatch_error(&req, JSONRPC_PARSE_ERROR, "Parse error: not valid JSON (at byte %zu)",
                       end && end >= line ? (size_t)(end - line) : (size_t)0);
        return;
    }
    if (jsonrpc_has_nul(line, len)) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(root, "id");

        req.id = jsonrpc_valid_id(id) ? id : NULL;
        dispatch_error(&req, req.id ? JSONRPC_INVALID_PARAMS : JSONRPC_INVALID_REQUEST,
                       "Strings containing U+0000 are not supported");
        cJSON_Delete(root);
        return;
    }
    if (cJSON_IsArray(root))
        dispatch_batch_message(srv, root);
    else
        dispatch_message(srv, root, NULL, 0);
}

void dispatch_oversized(struct server *srv)
{
    struct dispatch_req req = {.srv = srv};

    dispatch_error(&req, JSONRPC_INVALID_REQUEST,
                   "Invalid Request: message longer than %u "
                   "bytes",
                   LIMIT_MESSAGE_BYTES);
}

void dispatch_session_release(struct session *s)
{
    cJSON_Delete(s->client_caps);
    cJSON_Delete(s->client_info);
    memset(s, 0, sizeof(*s));
}
