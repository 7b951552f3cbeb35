#include "host/result.h"

#include "host/result_item.h"
#include "lib/base64.h"
#include "lib/limits.h"
#include "lib/number.h"
#include "wire/revision.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Content. --- */

/* JSON text from a plugin (borrowed), parsed; NULL when it is not JSON or when it would cost
 * more than LIMIT_JSON_COST once parsed: then *over is set and c's error says so. */
cJSON *result_parse(struct mcph_call *c, const char *json, int *over)
{
    size_t len = strlen(json), values, cost;

    *over = mcph_json_over(json, len, LIMIT_JSON_COST, &values, &cost);
    if (!*over) {
        c->parsed += cost;
        return cJSON_ParseWithLength(json, len);
    }
    result_error(c, MCPH_ERR_LIMIT,
                 "the result holds %zu JSON values and would take %zu MiB once parsed, over "
                 "mcph's limit of %u MiB per message (%u bytes per value besides its text)",
                 values, cost >> 20, LIMIT_JSON_COST >> 20, MCPH_JSON_VALUE_COST);
    return NULL;
}

/* Count bytes against the result limit. */
int result_account(struct mcph_call *c, size_t len)
{
    if (len > LIMIT_RESULT_BYTES || c->bytes + len > LIMIT_RESULT_BYTES)
        return MCPH_ERR_LIMIT;
    c->bytes += len;
    return MCPH_OK;
}

/* Append a content item to a tool result, or as a message of the current role to a prompt.
 * Takes ownership of item. */
static int result_add_content(struct mcph_call *c, cJSON *item)
{
    static const char *const roles[] = {
        [MCPH_ROLE_USER] = "user", [MCPH_ROLE_ASSISTANT] = "assistant"};
    cJSON *msg;

    if (item == NULL)
        return MCPH_ERR_NOMEM;
    if (c->kind == RESULT_TOOL) {
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
static int result_content_ok(struct mcph_call *c)
{
    if (c == NULL)
        return MCPH_ERR_INVALID;
    if (c->kind == RESULT_TOOL)
        return MCPH_OK;
    if (c->kind == RESULT_PROMPT && c->role >= 0)
        return MCPH_OK;
    return MCPH_ERR_STATE;
}

static cJSON *result_text_item(const char *text)
{
    cJSON *item = cJSON_CreateObject();

    if (item == NULL || cJSON_AddStringToObject(item, "type", "text") == NULL ||
        cJSON_AddStringToObject(item, "text", text) == NULL) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}

/* Whether text is the value of one of the call's arguments, and long enough for a copy to
 * matter: a handler handing an argument back (echo does). */
static int result_is_arg(const struct mcph_call *c, const char *text, size_t len)
{
    const cJSON *a;

    if (len < RESULT_BORROW_MIN)
        return 0;
    cJSON_ArrayForEach(a, c->args)
    {
        if (cJSON_IsString(a) && a->valuestring == text)
            return 1;
    }
    return 0;
}

/* A text item that borrows text (an argument of the call: result_build's result may borrow
 * from args) instead of copying it, or NULL when out of memory. */
static cJSON *result_text_borrowed(const char *text)
{
    cJSON *item = cJSON_CreateObject();
    cJSON *value = cJSON_CreateStringReference(text);

    if (item == NULL || value == NULL || cJSON_AddStringToObject(item, "type", "text") == NULL ||
        !cJSON_AddItemToObject(item, "text", value)) {
        cJSON_Delete(item);
        cJSON_Delete(value);
        return NULL;
    }
    return item;
}

int result_text(struct mcph_call *c, const char *text)
{
    int rc = result_content_ok(c);
    size_t len;

    if (rc != MCPH_OK)
        return rc;
    if (text == NULL)
        return MCPH_ERR_INVALID;
    len = strlen(text);
    rc = result_account(c, len);
    if (rc != MCPH_OK)
        return rc;
    c->has_text = 1;
    if (result_is_arg(c, text, len))
        return result_add_content(c, result_text_borrowed(text));
    return result_add_content(c, result_text_item(text));
}

/* A text item standing for content the client's revision cannot carry, or NULL when out of
 * memory. The sinks and result_json make the same ones. */
cJSON *result_stand_in(const char *fmt, ...)
{
    struct strbuf text = STRBUF_INIT;
    cJSON *item;
    va_list ap;

    va_start(ap, fmt);
    strbuf_vaddf(&text, fmt, ap);
    va_end(ap);
    item = text.nomem ? NULL : result_text_item(text.buf);
    strbuf_release(&text);
    return item;
}

cJSON *result_audio_stand_in(const char *mime_type, size_t len)
{
    static const char fmt[] =
        "[%s audio, %zu bytes: this client's protocol revision cannot carry audio]";

    return result_stand_in(fmt, mime_type, len);
}

cJSON *result_link_stand_in(const char *uri, const char *name)
{
    return result_stand_in("[resource link] %s: %.*s", name, LIMIT_URI, uri);
}

static cJSON *result_binary_item(const char *type, const void *data, size_t len,
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

static int result_binary(struct mcph_call *c, const char *type, const void *data, size_t len,
                         const char *mime_type)
{
    int rc = result_content_ok(c);

    if (rc != MCPH_OK)
        return rc;
    if ((data == NULL && len > 0) || mime_type == NULL)
        return MCPH_ERR_INVALID;
    rc = result_account(c, len / 3 * 4 + 4);
    if (rc != MCPH_OK)
        return rc;
    if (strcmp(type, "audio") == 0 && !revision_has(c->rev, REVF_AUDIO))
        return result_add_content(c, result_audio_stand_in(mime_type, len));
    return result_add_content(c, result_binary_item(type, data, len, mime_type));
}

int result_image(struct mcph_call *c, const void *data, size_t len, const char *mime_type)
{
    return result_binary(c, "image", data, len, mime_type);
}

int result_audio(struct mcph_call *c, const void *data, size_t len, const char *mime_type)
{
    return result_binary(c, "audio", data, len, mime_type);
}

int result_resource_link(struct mcph_call *c, const char *uri, const char *name,
                         const char *mime_type, const char *description)
{
    int rc = result_content_ok(c);
    cJSON *item;

    if (rc != MCPH_OK)
        return rc;
    if (uri == NULL || name == NULL)
        return MCPH_ERR_INVALID;
    if (!revision_has(c->rev, REVF_RESOURCE_LINK))
        return result_add_content(c, result_link_stand_in(uri, name));
    item = cJSON_CreateObject();
    if (item == NULL || cJSON_AddStringToObject(item, "type", "resource_link") == NULL ||
        cJSON_AddStringToObject(item, "uri", uri) == NULL ||
        cJSON_AddStringToObject(item, "name", name) == NULL ||
        (mime_type && cJSON_AddStringToObject(item, "mimeType", mime_type) == NULL) ||
        (description && cJSON_AddStringToObject(item, "description", description) == NULL)) {
        cJSON_Delete(item);
        return MCPH_ERR_NOMEM;
    }
    return result_add_content(c, item);
}

/* TextResourceContents / BlobResourceContents. */
static cJSON *result_contents_item(const char *uri, const char *mime_type, const char *key,
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

static int result_embedded(struct mcph_call *c, const char *uri, const char *mime_type,
                           const char *key, const char *value)
{
    cJSON *item = cJSON_CreateObject();
    cJSON *contents = result_contents_item(uri, mime_type, key, value);

    if (item == NULL || contents == NULL ||
        cJSON_AddStringToObject(item, "type", "resource") == NULL) {
        cJSON_Delete(item);
        cJSON_Delete(contents);
        return MCPH_ERR_NOMEM;
    }
    cJSON_AddItemToObject(item, "resource", contents);
    return result_add_content(c, item);
}

int result_embedded_text(struct mcph_call *c, const char *uri, const char *mime_type,
                         const char *text)
{
    int rc = result_content_ok(c);

    if (rc != MCPH_OK)
        return rc;
    if (uri == NULL || text == NULL)
        return MCPH_ERR_INVALID;
    rc = result_account(c, strlen(text));
    if (rc != MCPH_OK)
        return rc;
    return result_embedded(c, uri, mime_type, "text", text);
}

int result_embedded_blob(struct mcph_call *c, const char *uri, const char *mime_type,
                         const void *data, size_t len)
{
    int rc = result_content_ok(c);
    char *b64;

    if (rc != MCPH_OK)
        return rc;
    if (uri == NULL || (data == NULL && len > 0))
        return MCPH_ERR_INVALID;
    rc = result_account(c, len / 3 * 4 + 4);
    if (rc != MCPH_OK)
        return rc;
    b64 = base64_encode(data, len);
    if (b64 == NULL)
        return MCPH_ERR_NOMEM;
    rc = result_embedded(c, uri, mime_type, "blob", b64);
    free(b64);
    return rc;
}

int result_structured(struct mcph_call *c, const char *json)
{
    cJSON *value;
    int over;

    if (c == NULL || c->kind != RESULT_TOOL)
        return MCPH_ERR_STATE;
    if (json == NULL)
        return MCPH_ERR_INVALID;
    if (result_account(c, strlen(json)) != MCPH_OK)
        return MCPH_ERR_LIMIT;
    value = result_parse(c, json, &over);
    if (over)
        return MCPH_ERR_LIMIT;
    if (!cJSON_IsObject(value)) {
        cJSON_Delete(value);
        return MCPH_ERR_INVALID;
    }
    cJSON_Delete(c->structured);
    c->structured = value;
    return MCPH_OK;
}

int result_tool_error(struct mcph_call *c, const char *fmt, ...)
{
    char *text = NULL;
    va_list ap;
    int n, rc;

    if (c == NULL || c->kind != RESULT_TOOL)
        return MCPH_ERR_STATE;
    va_start(ap, fmt);
    n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0)
        return MCPH_ERR_NOMEM;
    c->is_error = 1;
    rc = result_text(c, text);
    free(text);
    return rc == MCPH_OK ? MCPH_OK : rc;
}

/* --- Resource contents. --- */

static int result_contents_add(struct mcph_call *c, const char *uri, const char *mime_type,
                               const char *key, const char *value)
{
    cJSON *contents;

    contents =
        result_contents_item(uri ? uri : c->uri, mime_type ? mime_type : c->mime_type, key, value);
    if (contents == NULL)
        return MCPH_ERR_NOMEM;
    cJSON_AddItemToArray(c->items, contents);
    return MCPH_OK;
}

int result_contents_text(struct mcph_call *c, const char *uri, const char *mime_type,
                         const char *text)
{
    if (c == NULL || c->kind != RESULT_RESOURCE)
        return MCPH_ERR_STATE;
    if (text == NULL)
        return MCPH_ERR_INVALID;
    if (result_account(c, strlen(text)) != MCPH_OK)
        return MCPH_ERR_LIMIT;
    return result_contents_add(c, uri, mime_type, "text", text);
}

int result_contents_blob(struct mcph_call *c, const char *uri, const char *mime_type,
                         const void *data, size_t len)
{
    char *b64;
    int rc;

    if (c == NULL || c->kind != RESULT_RESOURCE)
        return MCPH_ERR_STATE;
    if (data == NULL && len > 0)
        return MCPH_ERR_INVALID;
    if (result_account(c, len / 3 * 4 + 4) != MCPH_OK)
        return MCPH_ERR_LIMIT;
    b64 = base64_encode(data, len);
    if (b64 == NULL)
        return MCPH_ERR_NOMEM;
    rc = result_contents_add(c, uri, mime_type, "blob", b64);
    free(b64);
    return rc;
}

/* --- Prompts. --- */

int result_prompt_message(struct mcph_call *c, enum mcph_role role)
{
    if (c == NULL || c->kind != RESULT_PROMPT)
        return MCPH_ERR_STATE;
    if (role != MCPH_ROLE_USER && role != MCPH_ROLE_ASSISTANT)
        return MCPH_ERR_INVALID;
    c->role = (int)role;
    return MCPH_OK;
}

int result_prompt_description(struct mcph_call *c, const char *text)
{
    char *copy;

    if (c == NULL || c->kind != RESULT_PROMPT)
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

/* --- Protocol errors. --- */

int result_error(struct mcph_call *c, int status, const char *fmt, ...)
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

/* --- Since 1.1: completion values, annotations and _meta of content. --- */

int result_completion(struct mcph_call *c, const char *value)
{
    if (c == NULL || c->kind != RESULT_COMPLETE)
        return MCPH_ERR_STATE;
    if (value == NULL)
        return MCPH_ERR_INVALID;
    /* Count every value (for total) but keep only what one answer carries. */
    if (c->ncompletions++ >= RESULT_COMPLETION_MAX)
        return MCPH_OK;
    if (result_account(c, strlen(value)) != MCPH_OK)
        return MCPH_ERR_LIMIT;
    cJSON_AddItemToArray(c->items, cJSON_CreateString(value));
    return MCPH_OK;
}

/* The content item added last: a tool content item, or a prompt message's content. */
static cJSON *result_last_item(struct mcph_call *c)
{
    cJSON *last;

    if (c == NULL || (c->kind != RESULT_TOOL && c->kind != RESULT_PROMPT))
        return NULL;
    last = cJSON_GetArrayItem(c->items, cJSON_GetArraySize(c->items) - 1);
    if (last != NULL && c->kind == RESULT_PROMPT)
        last = cJSON_GetObjectItemCaseSensitive(last, "content");
    return last;
}

/* Set member key of the last item to the JSON object text (replacing any). */
static int result_set_on_last(struct mcph_call *c, const char *key, const char *json)
{
    cJSON *last = result_last_item(c);
    cJSON *value;
    int over = 0;

    if (last == NULL)
        return MCPH_ERR_STATE;
    value = json ? result_parse(c, json, &over) : NULL;
    if (over)
        return MCPH_ERR_LIMIT;
    if (!cJSON_IsObject(value)) {
        cJSON_Delete(value);
        return MCPH_ERR_INVALID;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(last, key);
    cJSON_AddItemToObject(last, key, value);
    return MCPH_OK;
}

int result_annotate(struct mcph_call *c, const char *annotations_json)
{
    cJSON *ann;
    int rc = result_set_on_last(c, "annotations", annotations_json);

    if (rc != MCPH_OK)
        return rc;
    ann = cJSON_GetObjectItemCaseSensitive(result_last_item(c), "annotations");
    /* Only the members the client's revision defines. */
    if (!revision_has(c->rev, REVF_META))
        cJSON_DeleteItemFromObjectCaseSensitive(ann, "lastModified");
    return MCPH_OK;
}

int result_content_meta(struct mcph_call *c, const char *meta_json)
{
    int rc = result_set_on_last(c, "_meta", meta_json);

    if (rc == MCPH_OK && !revision_has(c->rev, REVF_META))
        cJSON_DeleteItemFromObjectCaseSensitive(result_last_item(c), "_meta");
    return rc;
}

/* --- The call and its result. --- */

int result_init(struct mcph_call *c, int kind, int rev, const cJSON *args, const char *uri)
{
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    c->rev = rev;
    c->args = args;
    c->uri = uri;
    c->role = -1;
    c->total = -1;
    c->items = cJSON_CreateArray();
    return c->items != NULL ? STATUS_OK : STATUS_NOMEM;
}

void result_release(struct mcph_call *c)
{
    if (c == NULL)
        return;
    cJSON_Delete(c->items);
    cJSON_Delete(c->structured);
    cJSON_Delete(c->extra);
    free(c->description);
    free(c->error);
    for (size_t i = 0; i < c->nscratch; i++)
        free(c->scratch[i]);
    free(c->scratch);
    memset(c, 0, sizeof(*c));
}

static cJSON *result_tool_result(struct mcph_call *c, cJSON *result)
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
        cJSON_AddItemToArray(c->items, result_text_item(text));
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

/* CompleteResult: a total result_json gave is kept (never below the values offered), and so
 * is its hasMore. */
static cJSON *result_complete_result(struct mcph_call *c, cJSON *result)
{
    cJSON *completion = cJSON_AddObjectToObject(result, "completion");
    double offered = (double)c->ncompletions;

    if (completion == NULL) {
        cJSON_Delete(result);
        return NULL;
    }
    cJSON_AddItemToObject(completion, "values", c->items);
    c->items = NULL;
    cJSON_AddNumberToObject(completion, "total", c->total > offered ? c->total : offered);
    cJSON_AddBoolToObject(completion, "hasMore",
                          c->more || c->ncompletions > RESULT_COMPLETION_MAX);
    return result;
}

/* The members result_json passed on, where the result has none of that name. */
static cJSON *result_add_extra(struct mcph_call *c, cJSON *result)
{
    cJSON *el;

    while (result != NULL && c->extra != NULL && (el = c->extra->child) != NULL) {
        cJSON_DetachItemViaPointer(c->extra, el);
        if (cJSON_HasObjectItem(result, el->string))
            cJSON_Delete(el);
        else
            cJSON_AddItemToArray(result, el);
    }
    return result;
}

static cJSON *result_kind_result(struct mcph_call *c, cJSON *result)
{
    switch (c->kind) {
    case RESULT_TOOL:
        return result_tool_result(c, result);
    case RESULT_RESOURCE:
        cJSON_AddItemToObject(result, "contents", c->items);
        break;
    case RESULT_COMPLETE:
        return result_complete_result(c, result);
    default:
        if (c->description != NULL)
            cJSON_AddStringToObject(result, "description", c->description);
        cJSON_AddItemToObject(result, "messages", c->items);
        break;
    }
    c->items = NULL;
    return result;
}

cJSON *result_build(struct mcph_call *c)
{
    cJSON *result = cJSON_CreateObject();

    if (result == NULL)
        return NULL;
    return result_add_extra(c, result_kind_result(c, result));
}
