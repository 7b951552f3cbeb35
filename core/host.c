#include "host.h"

#include "base64.h"
#include "limits.h"
#include "number.h"
#include "log.h"
#include "plugin.h"
#include "revision.h"
#include "status.h"
#include "version.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A host member finds its instance: vt is the first member of struct plugin_host. */
static struct plugin *host_plugin(const struct mcph_host *vt)
{
    return ((const struct plugin_host *)(const void *)vt)->plugin;
}

static void host_log(const struct mcph_host *vt, enum mcph_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void host_vlog(const struct mcph_host *vt, enum mcph_log_level level, const char *fmt,
                      va_list ap) __attribute__((format(printf, 3, 0)));

static void host_log(const struct mcph_host *vt, enum mcph_log_level level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    host_vlog(vt, level, fmt, ap);
    va_end(ap);
}

static const char *host_config(const struct mcph_host *vt, const char *key)
{
    struct plugin *pl = host_plugin(vt);

    if (key == NULL)
        return NULL;
    for (size_t i = 0; i < pl->nconfig; i++) {
        if (strcmp(pl->config[i].key, key) == 0)
            return pl->config[i].value;
    }
    for (size_t i = 0; i < pl->nkeys; i++) {
        if (strcmp(pl->keys[i].name, key) == 0)
            return pl->keys[i].default_value;
    }
    return NULL;
}

/* --- Arguments. --- */

static const cJSON *host_arg(struct mcph_call *c, const char *name)
{
    if (c == NULL || name == NULL)
        return NULL;
    return cJSON_GetObjectItemCaseSensitive(c->args, name);
}

static int host_arg_string(struct mcph_call *c, const char *name, const char **value)
{
    const cJSON *a = host_arg(c, name);

    if (a == NULL)
        return MCPH_ERR_ABSENT;
    if (!cJSON_IsString(a))
        return MCPH_ERR_TYPE;
    *value = a->valuestring;
    return MCPH_OK;
}

static int host_arg_number(struct mcph_call *c, const char *name, double *value)
{
    const cJSON *a = host_arg(c, name);

    if (a == NULL)
        return MCPH_ERR_ABSENT;
    if (!cJSON_IsNumber(a))
        return MCPH_ERR_TYPE;
    *value = a->valuedouble;
    return MCPH_OK;
}

static int host_arg_integer(struct mcph_call *c, const char *name, int64_t *value)
{
    const cJSON *a = host_arg(c, name);
    double d;

    if (a == NULL)
        return MCPH_ERR_ABSENT;
    if (!cJSON_IsNumber(a))
        return MCPH_ERR_TYPE;
    d = a->valuedouble;
    /* 2^63 is exactly representable; anything at or past it is out of range. */
    if (d != floor(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
        return MCPH_ERR_TYPE;
    *value = (int64_t)d;
    return MCPH_OK;
}

static int host_arg_bool(struct mcph_call *c, const char *name, int *value)
{
    const cJSON *a = host_arg(c, name);

    if (a == NULL)
        return MCPH_ERR_ABSENT;
    if (!cJSON_IsBool(a))
        return MCPH_ERR_TYPE;
    *value = cJSON_IsTrue(a);
    return MCPH_OK;
}

/* Keep a printed string until the call ends, so the handler can borrow it. */
static int host_lend(struct mcph_call *c, char *text, const char **out)
{
    char **grown;

    if (text == NULL)
        return MCPH_ERR_NOMEM;
    grown = realloc(c->scratch, (c->nscratch + 1) * sizeof(*grown));
    if (grown == NULL) {
        free(text);
        return MCPH_ERR_NOMEM;
    }
    c->scratch = grown;
    c->scratch[c->nscratch++] = text;
    *out = text;
    return MCPH_OK;
}

static int host_arg_json(struct mcph_call *c, const char *name, const char **json)
{
    const cJSON *a = host_arg(c, name);

    if (a == NULL)
        return MCPH_ERR_ABSENT;
    return host_lend(c, number_print(a), json);
}

static int host_args_json(struct mcph_call *c, const char **json)
{
    if (c == NULL || json == NULL)
        return MCPH_ERR_INVALID;
    return host_lend(c, number_print(c->args), json);
}

static const char *host_uri(struct mcph_call *c)
{
    return c != NULL ? c->uri : NULL;
}

/* --- Content. --- */

/* Count bytes against the result limit. */
static int host_account(struct mcph_call *c, size_t len)
{
    if (len > LIMIT_RESULT_BYTES || c->bytes + len > LIMIT_RESULT_BYTES)
        return MCPH_ERR_LIMIT;
    c->bytes += len;
    return MCPH_OK;
}

/* Append a content item to a tool result, or as a message of the current role to a prompt.
 * Takes ownership of item. */
static int host_add_content(struct mcph_call *c, cJSON *item)
{
    static const char *const roles[] = {
        [MCPH_ROLE_USER] = "user", [MCPH_ROLE_ASSISTANT] = "assistant"};
    cJSON *msg;

    if (item == NULL)
        return MCPH_ERR_NOMEM;
    if (c->kind == HOST_CALL_TOOL) {
        cJSON_AddItemToArray(c->items, item);
        return MCPH_OK;
    }
    msg = cJSON_CreateObject();
    if (msg == NULL || cJSON_AddStringToObject(msg, "role", roles[c->role]) == NULL) {
        cJSON_Delete(msg);
        cJSON_Delete(item);
        return MCPH_ERR_NOMEM;
    }
    cJSON_AddItemToObject(msg, "content", item);
    cJSON_AddItemToArray(c->items, msg);
    return MCPH_OK;
}

/* Whether content sinks apply to this call now. */
static int host_content_ok(struct mcph_call *c)
{
    if (c == NULL)
        return MCPH_ERR_INVALID;
    if (c->kind == HOST_CALL_TOOL)
        return MCPH_OK;
    if (c->kind == HOST_CALL_PROMPT && c->role >= 0)
        return MCPH_OK;
    return MCPH_ERR_STATE;
}

static cJSON *host_text_item(const char *text)
{
    cJSON *item = cJSON_CreateObject();

    if (item == NULL || cJSON_AddStringToObject(item, "type", "text") == NULL ||
        cJSON_AddStringToObject(item, "text", text) == NULL) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

static int host_text(struct mcph_call *c, const char *text)
{
    int rc = host_content_ok(c);

    if (rc != MCPH_OK)
        return rc;
    if (text == NULL)
        return MCPH_ERR_INVALID;
    rc = host_account(c, strlen(text));
    if (rc != MCPH_OK)
        return rc;
    c->has_text = 1;
    return host_add_content(c, host_text_item(text));
}

/* A text item standing for content the client's revision cannot carry. */
static int host_text_stand_in(struct mcph_call *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int host_text_stand_in(struct mcph_call *c, const char *fmt, ...)
{
    char text[LIMIT_URI + 256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return host_add_content(c, host_text_item(text));
}

static cJSON *host_binary_item(const char *type, const void *data, size_t len,
                               const char *mime_type)
{
    cJSON *item = cJSON_CreateObject();
    char *b64 = base64_encode(data, len);

    if (item == NULL || b64 == NULL || cJSON_AddStringToObject(item, "type", type) == NULL ||
        cJSON_AddStringToObject(item, "data", b64) == NULL ||
        cJSON_AddStringToObject(item, "mimeType", mime_type) == NULL) {
        cJSON_Delete(item);
        item = NULL;
    }
    free(b64);
    return item;
}

static int host_binary(struct mcph_call *c, const char *type, const void *data, size_t len,
                       const char *mime_type)
{
    int rc = host_content_ok(c);

    if (rc != MCPH_OK)
        return rc;
    if ((data == NULL && len > 0) || mime_type == NULL)
        return MCPH_ERR_INVALID;
    rc = host_account(c, len / 3 * 4 + 4);
    if (rc != MCPH_OK)
        return rc;
    if (strcmp(type, "audio") == 0 && !revision_has(c->rev, REVF_AUDIO))
        return host_text_stand_in(c,
                                  "[%s audio, %zu bytes: this client's protocol revision "
                                  "cannot carry audio]",
                                  mime_type, len);
    return host_add_content(c, host_binary_item(type, data, len, mime_type));
}

static int host_image(struct mcph_call *c, const void *data, size_t len, const char *mime_type)
{
    return host_binary(c, "image", data, len, mime_type);
}

static int host_audio(struct mcph_call *c, const void *data, size_t len, const char *mime_type)
{
    return host_binary(c, "audio", data, len, mime_type);
}

static int host_resource_link(struct mcph_call *c, const char *uri, const char *name,
                              const char *mime_type, const char *description)
{
    int rc = host_content_ok(c);
    cJSON *item;

    if (rc != MCPH_OK)
        return rc;
    if (uri == NULL || name == NULL)
        return MCPH_ERR_INVALID;
    if (!revision_has(c->rev, REVF_RESOURCE_LINK))
        return host_text_stand_in(c, "[resource link] %s: %.*s", name, LIMIT_URI, uri);
    item = cJSON_CreateObject();
    if (item == NULL || cJSON_AddStringToObject(item, "type", "resource_link") == NULL ||
        cJSON_AddStringToObject(item, "uri", uri) == NULL ||
        cJSON_AddStringToObject(item, "name", name) == NULL ||
        (mime_type && cJSON_AddStringToObject(item, "mimeType", mime_type) == NULL) ||
        (description && cJSON_AddStringToObject(item, "description", description) == NULL)) {
        cJSON_Delete(item);
        return MCPH_ERR_NOMEM;
    }
    return host_add_content(c, item);
}

/* TextResourceContents / BlobResourceContents. */
static cJSON *host_contents(const char *uri, const char *mime_type, const char *key,
                            const char *value)
{
    cJSON *contents = cJSON_CreateObject();

    if (contents == NULL || cJSON_AddStringToObject(contents, "uri", uri) == NULL ||
        (mime_type && cJSON_AddStringToObject(contents, "mimeType", mime_type) == NULL) ||
        cJSON_AddStringToObject(contents, key, value) == NULL) {
        cJSON_Delete(contents);
        return NULL;
    }
    return contents;
}

static int host_embedded(struct mcph_call *c, const char *uri, const char *mime_type,
                         const char *key, const char *value)
{
    cJSON *item = cJSON_CreateObject();
    cJSON *contents = host_contents(uri, mime_type, key, value);

    if (item == NULL || contents == NULL ||
        cJSON_AddStringToObject(item, "type", "resource") == NULL) {
        cJSON_Delete(item);
        cJSON_Delete(contents);
        return MCPH_ERR_NOMEM;
    }
    cJSON_AddItemToObject(item, "resource", contents);
    return host_add_content(c, item);
}

static int host_embedded_text(struct mcph_call *c, const char *uri, const char *mime_type,
                              const char *text)
{
    int rc = host_content_ok(c);

    if (rc != MCPH_OK)
        return rc;
    if (uri == NULL || text == NULL)
        return MCPH_ERR_INVALID;
    rc = host_account(c, strlen(text));
    if (rc != MCPH_OK)
        return rc;
    return host_embedded(c, uri, mime_type, "text", text);
}

static int host_embedded_blob(struct mcph_call *c, const char *uri, const char *mime_type,
                              const void *data, size_t len)
{
    int rc = host_content_ok(c);
    char *b64;

    if (rc != MCPH_OK)
        return rc;
    if (uri == NULL || (data == NULL && len > 0))
        return MCPH_ERR_INVALID;
    rc = host_account(c, len / 3 * 4 + 4);
    if (rc != MCPH_OK)
        return rc;
    b64 = base64_encode(data, len);
    if (b64 == NULL)
        return MCPH_ERR_NOMEM;
    rc = host_embedded(c, uri, mime_type, "blob", b64);
    free(b64);
    return rc;
}

static int host_structured(struct mcph_call *c, const char *json)
{
    cJSON *value;

    if (c == NULL || c->kind != HOST_CALL_TOOL)
        return MCPH_ERR_STATE;
    if (json == NULL)
        return MCPH_ERR_INVALID;
    if (host_account(c, strlen(json)) != MCPH_OK)
        return MCPH_ERR_LIMIT;
    value = cJSON_Parse(json);
    if (!cJSON_IsObject(value)) {
        cJSON_Delete(value);
        return MCPH_ERR_INVALID;
    }
    cJSON_Delete(c->structured);
    c->structured = value;
    return MCPH_OK;
}

static int host_tool_error(struct mcph_call *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int host_tool_error(struct mcph_call *c, const char *fmt, ...)
{
    char *text = NULL;
    va_list ap;
    int n, rc;

    if (c == NULL || c->kind != HOST_CALL_TOOL)
        return MCPH_ERR_STATE;
    va_start(ap, fmt);
    n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0)
        return MCPH_ERR_NOMEM;
    c->is_error = 1;
    rc = host_text(c, text);
    free(text);
    return rc == MCPH_OK ? MCPH_OK : rc;
}

/* --- Resource contents. --- */

static int host_contents_add(struct mcph_call *c, const char *uri, const char *mime_type,
                             const char *key, const char *value)
{
    cJSON *contents;

    contents = host_contents(uri ? uri : c->uri, mime_type ? mime_type : c->mime_type, key, value);
    if (contents == NULL)
        return MCPH_ERR_NOMEM;
    cJSON_AddItemToArray(c->items, contents);
    return MCPH_OK;
}

static int host_contents_text(struct mcph_call *c, const char *uri, const char *mime_type,
                              const char *text)
{
    if (c == NULL || c->kind != HOST_CALL_RESOURCE)
        return MCPH_ERR_STATE;
    if (text == NULL)
        return MCPH_ERR_INVALID;
    if (host_account(c, strlen(text)) != MCPH_OK)
        return MCPH_ERR_LIMIT;
    return host_contents_add(c, uri, mime_type, "text", text);
}

static int host_contents_blob(struct mcph_call *c, const char *uri, const char *mime_type,
                              const void *data, size_t len)
{
    char *b64;
    int rc;

    if (c == NULL || c->kind != HOST_CALL_RESOURCE)
        return MCPH_ERR_STATE;
    if (data == NULL && len > 0)
        return MCPH_ERR_INVALID;
    if (host_account(c, len / 3 * 4 + 4) != MCPH_OK)
        return MCPH_ERR_LIMIT;
    b64 = base64_encode(data, len);
    if (b64 == NULL)
        return MCPH_ERR_NOMEM;
    rc = host_contents_add(c, uri, mime_type, "blob", b64);
    free(b64);
    return rc;
}

/* --- Prompts. --- */

static int host_prompt_message(struct mcph_call *c, enum mcph_role role)
{
    if (c == NULL || c->kind != HOST_CALL_PROMPT)
        return MCPH_ERR_STATE;
    if (role != MCPH_ROLE_USER && role != MCPH_ROLE_ASSISTANT)
        return MCPH_ERR_INVALID;
    c->role = (int)role;
    return MCPH_OK;
}

static int host_prompt_description(struct mcph_call *c, const char *text)
{
    char *copy;

    if (c == NULL || c->kind != HOST_CALL_PROMPT)
        return MCPH_ERR_STATE;
    if (text == NULL)
        return MCPH_ERR_INVALID;
    copy = strdup(text);
    if (copy == NULL)
        return MCPH_ERR_NOMEM;
    free(c->description);
    c->description = copy;
    return MCPH_OK;
}

static int host_error(struct mcph_call *c, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int host_error(struct mcph_call *c, int status, const char *fmt, ...)
{
    char *text = NULL;
    va_list ap;
    int n;

    if (c == NULL)
        return status;
    va_start(ap, fmt);
    n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n >= 0) {
        free(c->error);
        c->error = text;
    }
    return status;
}

/* --- Since 1.1. --- */

static int host_progress(struct mcph_call *c, double progress, double total, const char *message)
{
    if (c == NULL)
        return MCPH_ERR_INVALID;
    if (c->env == NULL || c->env->progress == NULL || isnan(progress))
        return MCPH_OK;
    /* Progress never goes back: a lower value is dropped, not sent. */
    if (c->progress_sent && progress < c->last_progress)
        return MCPH_OK;
    c->progress_sent = 1;
    c->last_progress = progress;
    c->env->progress(c->env->ctx, progress, total, message);
    return MCPH_OK;
}

static int host_cancelled(struct mcph_call *c)
{
    return c != NULL && c->env != NULL && c->env->cancelled != NULL &&
           c->env->cancelled(c->env->ctx);
}

static void host_resource_updated(const struct mcph_host *vt, const char *uri)
{
    struct plugin *pl = host_plugin(vt);

    if (uri != NULL && pl->env != NULL && pl->env->resource_updated != NULL)
        pl->env->resource_updated(pl->env->ctx, uri);
}

static int host_completion(struct mcph_call *c, const char *value)
{
    if (c == NULL || c->kind != HOST_CALL_COMPLETE)
        return MCPH_ERR_STATE;
    if (value == NULL)
        return MCPH_ERR_INVALID;
    /* Count every value (for total) but keep only what one answer carries. */
    if (c->ncompletions++ >= HOST_COMPLETION_MAX)
        return MCPH_OK;
    if (host_account(c, strlen(value)) != MCPH_OK)
        return MCPH_ERR_LIMIT;
    cJSON_AddItemToArray(c->items, cJSON_CreateString(value));
    return MCPH_OK;
}

/* The content item added last: a tool content item, or a prompt message's content. */
static cJSON *host_last_item(struct mcph_call *c)
{
    cJSON *last;

    if (c == NULL || (c->kind != HOST_CALL_TOOL && c->kind != HOST_CALL_PROMPT))
        return NULL;
    last = cJSON_GetArrayItem(c->items, cJSON_GetArraySize(c->items) - 1);
    if (last != NULL && c->kind == HOST_CALL_PROMPT)
        last = cJSON_GetObjectItemCaseSensitive(last, "content");
    return last;
}

/* Set member key of the last item to the JSON object text (replacing any). */
static int host_set_on_last(struct mcph_call *c, const char *key, const char *json)
{
    cJSON *last = host_last_item(c);
    cJSON *value;

    if (last == NULL)
        return MCPH_ERR_STATE;
    value = json ? cJSON_Parse(json) : NULL;
    if (!cJSON_IsObject(value)) {
        cJSON_Delete(value);
        return MCPH_ERR_INVALID;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(last, key);
    cJSON_AddItemToObject(last, key, value);
    return MCPH_OK;
}

static int host_annotate(struct mcph_call *c, const char *annotations_json)
{
    cJSON *ann;
    int rc = host_set_on_last(c, "annotations", annotations_json);

    if (rc != MCPH_OK)
        return rc;
    ann = cJSON_GetObjectItemCaseSensitive(host_last_item(c), "annotations");
    /* Only the members the client's revision defines. */
    if (!revision_has(c->rev, REVF_META))
        cJSON_DeleteItemFromObjectCaseSensitive(ann, "lastModified");
    return MCPH_OK;
}

static int host_content_meta(struct mcph_call *c, const char *meta_json)
{
    int rc = host_set_on_last(c, "_meta", meta_json);

    if (rc == MCPH_OK && !revision_has(c->rev, REVF_META))
        cJSON_DeleteItemFromObjectCaseSensitive(host_last_item(c), "_meta");
    return rc;
}

/* Ask the client; the answer is lent to the handler as JSON text. */
static int host_ask(struct mcph_call *c, int what, cJSON *params, const char **result_json)
{
    cJSON *answer = NULL;
    int rc;

    if (c == NULL || result_json == NULL) {
        cJSON_Delete(params);
        return MCPH_ERR_INVALID;
    }
    if (c->env == NULL || c->env->ask == NULL) {
        cJSON_Delete(params);
        return MCPH_ERR_UNSUPPORTED;
    }
    rc = c->env->ask(c->env->ctx, what, params, &answer);
    if (answer != NULL) {
        int lent = host_lend(c, number_print(answer), result_json);

        cJSON_Delete(answer);
        if (lent != MCPH_OK)
            return lent;
    }
    return rc;
}

static int host_sample(struct mcph_call *c, const char *params_json, const char **result_json)
{
    cJSON *params = params_json ? cJSON_Parse(params_json) : NULL;

    if (!cJSON_IsObject(params)) {
        cJSON_Delete(params);
        return MCPH_ERR_INVALID;
    }
    return host_ask(c, HOST_ASK_SAMPLE, params, result_json);
}

static int host_elicit(struct mcph_call *c, const char *message, const char *schema_json,
                       const char **result_json)
{
    cJSON *schema = schema_json ? cJSON_Parse(schema_json) : NULL;
    cJSON *params = cJSON_CreateObject();

    if (message == NULL || !cJSON_IsObject(schema) || params == NULL ||
        cJSON_AddStringToObject(params, "message", message) == NULL) {
        cJSON_Delete(schema);
        cJSON_Delete(params);
        return message == NULL || !cJSON_IsObject(schema) ? MCPH_ERR_INVALID : MCPH_ERR_NOMEM;
    }
    cJSON_AddItemToObject(params, "requestedSchema", schema);
    return host_ask(c, HOST_ASK_ELICIT, params, result_json);
}

static int host_roots(struct mcph_call *c, const char **result_json)
{
    return host_ask(c, HOST_ASK_ROOTS, NULL, result_json);
}

/* --- Since 1.2. --- */

static int host_define_tool(const struct mcph_host *vt, const struct mcph_tool *tool)
{
    return plugin_define(host_plugin(vt), PLUGIN_ROW_TOOL, tool);
}

static int host_define_resource(const struct mcph_host *vt, const struct mcph_resource *resource)
{
    return plugin_define(host_plugin(vt), PLUGIN_ROW_RESOURCE, resource);
}

static int host_define_template(const struct mcph_host *vt,
                                const struct mcph_resource_template *resource_template)
{
    return plugin_define(host_plugin(vt), PLUGIN_ROW_TEMPLATE, resource_template);
}

static int host_define_prompt(const struct mcph_host *vt, const struct mcph_prompt *prompt)
{
    return plugin_define(host_plugin(vt), PLUGIN_ROW_PROMPT, prompt);
}

static void host_refresh(const struct mcph_host *vt)
{
    struct plugin *pl = host_plugin(vt);

    if (pl->env != NULL && pl->env->refresh != NULL)
        pl->env->refresh(pl->env->ctx, pl->id);
}

static const char *host_call_name(struct mcph_call *c)
{
    return c != NULL ? c->name : NULL;
}

static const void *host_call_data(struct mcph_call *c)
{
    return c != NULL ? c->data : NULL;
}

static void host_vlog(const struct mcph_host *vt, enum mcph_log_level level, const char *fmt,
                      va_list ap) __attribute__((format(printf, 3, 0)));

static void host_vlog(const struct mcph_host *vt, enum mcph_log_level level, const char *fmt,
                      va_list ap)
{
    struct plugin *pl = host_plugin(vt);
    char who[LIMIT_ID + 16];

    if ((int)level < LOG_DEBUG || (int)level > LOG_EMERGENCY)
        level = MCPH_LOG_ERROR;
    snprintf(who, sizeof(who), "plugin %s", pl->id);
    log_vmsg(pl->log, (int)level, who, fmt, ap);
}

static const char *host_config_path(const struct mcph_host *vt, const char *key)
{
    return plugin_config_path(host_plugin(vt), key);
}

void host_setup(struct plugin_host *h, struct plugin *pl)
{
    static const struct mcph_host vtable = {
        .size = sizeof(struct mcph_host),
        .abi_major = MCPH_ABI_MAJOR,
        .abi_minor = MCPH_ABI_MINOR,
        .version = MCPH_VERSION,
        .log = host_log,
        .config = host_config,
        .arg_string = host_arg_string,
        .arg_number = host_arg_number,
        .arg_integer = host_arg_integer,
        .arg_bool = host_arg_bool,
        .arg_json = host_arg_json,
        .args_json = host_args_json,
        .uri = host_uri,
        .text = host_text,
        .image = host_image,
        .audio = host_audio,
        .resource_link = host_resource_link,
        .embedded_text = host_embedded_text,
        .embedded_blob = host_embedded_blob,
        .structured = host_structured,
        .tool_error = host_tool_error,
        .contents_text = host_contents_text,
        .contents_blob = host_contents_blob,
        .prompt_message = host_prompt_message,
        .prompt_description = host_prompt_description,
        .error = host_error,
        .progress = host_progress,
        .cancelled = host_cancelled,
        .resource_updated = host_resource_updated,
        .completion = host_completion,
        .annotate = host_annotate,
        .content_meta = host_content_meta,
        .sample = host_sample,
        .elicit = host_elicit,
        .roots = host_roots,
        .define_tool = host_define_tool,
        .define_resource = host_define_resource,
        .define_template = host_define_template,
        .define_prompt = host_define_prompt,
        .refresh = host_refresh,
        .call_name = host_call_name,
        .config_path = host_config_path,
        .call_data = host_call_data,
        .vlog = host_vlog,
    };

    h->vt = vtable;
    h->vt.instance = pl->id;
    h->plugin = pl;
}

int host_call_init(struct mcph_call *c, int kind, int rev, const cJSON *args, const char *uri)
{
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    c->rev = rev;
    c->args = args;
    c->uri = uri;
    c->role = -1;
    c->items = cJSON_CreateArray();
    return c->items != NULL ? STATUS_OK : STATUS_NOMEM;
}

void host_call_release(struct mcph_call *c)
{
    if (c == NULL)
        return;
    cJSON_Delete(c->items);
    cJSON_Delete(c->structured);
    free(c->description);
    free(c->error);
    for (size_t i = 0; i < c->nscratch; i++)
        free(c->scratch[i]);
    free(c->scratch);
    memset(c, 0, sizeof(*c));
}

static cJSON *host_tool_result(struct mcph_call *c, cJSON *result)
{
    /* Checked against the outputSchema already: from here on its numbers only print. */
    if (number_exact(c->structured) != STATUS_OK) {
        cJSON_Delete(result);
        return NULL;
    }
    if (c->structured != NULL && !c->has_text) {
        /* The spec asks for the serialised JSON as text too, for clients that do not read
         * structuredContent. */
        char *text = cJSON_PrintUnformatted(c->structured);

        if (text == NULL) {
            cJSON_Delete(result);
            return NULL;
        }
        cJSON_AddItemToArray(c->items, host_text_item(text));
        free(text);
    }
    cJSON_AddItemToObject(result, "content", c->items);
    c->items = NULL;
    if (c->structured != NULL && revision_has(c->rev, REVF_STRUCTURED)) {
        cJSON_AddItemToObject(result, "structuredContent", c->structured);
        c->structured = NULL;
    }
    if (c->is_error)
        cJSON_AddBoolToObject(result, "isError", 1);
    return result;
}

cJSON *host_call_result(struct mcph_call *c)
{
    cJSON *result = cJSON_CreateObject();

    if (result == NULL)
        return NULL;
    switch (c->kind) {
    case HOST_CALL_TOOL:
        return host_tool_result(c, result);
    case HOST_CALL_RESOURCE:
        cJSON_AddItemToObject(result, "contents", c->items);
        break;
    case HOST_CALL_COMPLETE: {
        cJSON *completion = cJSON_AddObjectToObject(result, "completion");

        if (completion == NULL) {
            cJSON_Delete(result);
            return NULL;
        }
        cJSON_AddItemToObject(completion, "values", c->items);
        c->items = NULL;
        cJSON_AddNumberToObject(completion, "total", (double)c->ncompletions);
        cJSON_AddBoolToObject(completion, "hasMore", c->ncompletions > HOST_COMPLETION_MAX);
        break;
    }
    default:
        if (c->description != NULL)
            cJSON_AddStringToObject(result, "description", c->description);
        cJSON_AddItemToObject(result, "messages", c->items);
        break;
    }
    c->items = NULL;
    return result;
}
