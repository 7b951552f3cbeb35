#include "host/result.h"

#include "lib/base64.h"
#include "lib/limits.h"
#include "lib/number.h"
#include "wire/revision.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Content. --- */

/* JSON text from a plugin (borrowed), parsed; NULL when it is not JSON or when it would cost
 * more than LIMIT_JSON_COST once parsed: then *over is set and c's error says so. */
static cJSON *result_parse(struct mcph_call *c, const char *json, int *over)
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
static int result_account(struct mcph_call *c, size_t len)
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

int result_text(struct mcph_call *c, const char *text)
{
    int rc = result_content_ok(c);

    if (rc != MCPH_OK)
        return rc;
    if (text == NULL)
        return MCPH_ERR_INVALID;
    rc = result_account(c, strlen(text));
    if (rc != MCPH_OK)
        return rc;
    c->has_text = 1;
    return result_add_content(c, result_text_item(text));
}

/* A text item standing for content the client's revision cannot carry, or NULL when out of
 * memory. The sinks and result_json make the same ones. */
static cJSON *result_stand_in(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static cJSON *result_stand_in(const char *fmt, ...)
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

static cJSON *result_audio_stand_in(const char *mime_type, size_t len)
{
    static const char fmt[] =
        "[%s audio, %zu bytes: this client's protocol revision cannot carry audio]";

    return result_stand_in(fmt, mime_type, len);
}

static cJSON *result_link_stand_in(const char *uri, const char *name)
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

/* --- Since 1.3: a whole result given as JSON text (host->result_json). --- */

/* Members of a result that mcph sets itself for the client's era: a plugin's are dropped. */
static const char *const result_envelope[] = {
    "resultType", "ttlMs", "cacheScope", "inputRequests", "requestState", NULL,
};

/* The content types a revision may lack, the string members each must have, and the
 * feature a revision needs to carry it. "resource" is checked as resource contents. */
static const struct {
    const char *type;
    const char *needs[3];
    unsigned feature;
} result_content_types[] = {
    {.type = "text", .needs = {"text"}},
    {.type = "image", .needs = {"data", "mimeType"}},
    {.type = "audio", .needs = {"data", "mimeType"}, .feature = REVF_AUDIO},
    {.type = "resource_link", .needs = {"uri", "name"}, .feature = REVF_RESOURCE_LINK},
    {.type = "resource"},
    {0},
};

/* What result_json adds to a call, made whole before any of it reaches the call, so that a
 * member of the wrong type adds nothing. */
struct result_add {
    const struct mcph_call *c; /* borrowed: the call (its kind, revision, defaults) */
    cJSON *items;              /* owned: content items, messages, contents or values */
    cJSON *structured;         /* owned or NULL */
    cJSON *extra;              /* owned: members passed on, and _meta */
    char *description;         /* owned or NULL */
    int is_error, has_text, more;
    double total; /* completion total given, or -1 */
};

static const char *result_string_of(const cJSON *obj, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, key));
}

/* Whether obj's member key is absent or of the type `is` checks. */
static int result_absent_or(const cJSON *obj, const char *key, cJSON_bool (*is)(const cJSON *))
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return v == NULL || is(v);
}

/* Drop `key` from obj unless the revision has `feature`. */
static void result_keep_if(cJSON *obj, const char *key, int rev, unsigned feature)
{
    if (!revision_has(rev, feature))
        cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
}

/* TextResourceContents or BlobResourceContents: a string uri (or none, when `uri` gives the
 * default), an optional string mimeType and _meta object, exactly one of text and blob. */
static int result_contents_ok(const cJSON *r, int default_uri)
{
    const cJSON *text = cJSON_GetObjectItemCaseSensitive(r, "text");
    const cJSON *blob = cJSON_GetObjectItemCaseSensitive(r, "blob");
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(r, "uri");

    if (!cJSON_IsObject(r) || (uri == NULL ? !default_uri : !cJSON_IsString(uri)) ||
        !result_absent_or(r, "mimeType", cJSON_IsString) ||
        !result_absent_or(r, "_meta", cJSON_IsObject))
        return 0;
    return text != NULL ? blob == NULL && cJSON_IsString(text) : cJSON_IsString(blob);
}

/* How many bytes the base64 text b64 stands for. */
static size_t result_b64_bytes(const char *b64)
{
    size_t n = strlen(b64);
    size_t pad = n > 0 && b64[n - 1] == '=' ? 1 + (n > 1 && b64[n - 2] == '=') : 0;

    return n / 4 * 3 - (n % 4 == 0 ? pad : 0);
}

/* The text stand-in for a content item of a type the revision lacks (row i of the types). */
static cJSON *result_stand_in_for(const cJSON *in, long i)
{
    const char *type = result_string_of(in, "type");

    if (i >= 0 && strcmp(type, "audio") == 0)
        return result_audio_stand_in(result_string_of(in, "mimeType"),
                                     result_b64_bytes(result_string_of(in, "data")));
    if (i >= 0)
        return result_link_stand_in(result_string_of(in, "uri"), result_string_of(in, "name"));
    return result_stand_in("[%s content: this client's protocol revision cannot carry it]", type);
}

/* The row of the content item's type, -1 for a type mcph does not know (it gets a stand-in),
 * -2 for an item that is not a ContentBlock. */
static long result_content_type(const cJSON *in)
{
    const char *type = result_string_of(in, "type");

    if (!cJSON_IsObject(in) || type == NULL ||
        !result_absent_or(in, "annotations", cJSON_IsObject) ||
        !result_absent_or(in, "_meta", cJSON_IsObject))
        return -2;
    for (long i = 0; result_content_types[i].type != NULL; i++) {
        const char *const *needs = result_content_types[i].needs;

        if (strcmp(type, result_content_types[i].type) != 0)
            continue;
        for (size_t k = 0; k < 3 && needs[k] != NULL; k++) {
            if (result_string_of(in, needs[k]) == NULL)
                return -2;
        }
        if (strcmp(type, "resource") == 0 &&
            !result_contents_ok(cJSON_GetObjectItemCaseSensitive(in, "resource"), 0))
            return -2;
        return i;
    }
    return -1;
}

/* A copy of content item `in` as the client's revision carries it: a type it lacks becomes
 * the sinks' text stand-in; annotations lose lastModified, and _meta (of the item and of an
 * embedded resource) and icons go, where the revision has none. NULL with *status set:
 * MCPH_ERR_INVALID for an item that is not a ContentBlock, MCPH_ERR_NOMEM. */
static cJSON *result_adapt_content(struct result_add *add, const cJSON *in, int *status)
{
    int rev = add->c->rev;
    long i = result_content_type(in);
    cJSON *out;

    *status = MCPH_ERR_INVALID;
    if (i == -2)
        return NULL;
    *status = MCPH_ERR_NOMEM;
    if (i < 0 || !revision_has(rev, result_content_types[i].feature))
        return result_stand_in_for(in, i);
    out = cJSON_Duplicate(in, 1);
    if (out == NULL)
        return NULL;
    add->has_text |= strcmp(result_content_types[i].type, "text") == 0;
    result_keep_if(cJSON_GetObjectItemCaseSensitive(out, "annotations"), "lastModified", rev,
                   REVF_META);
    result_keep_if(out, "_meta", rev, REVF_META);
    result_keep_if(out, "icons", rev, REVF_ICONS);
    result_keep_if(cJSON_GetObjectItemCaseSensitive(out, "resource"), "_meta", rev, REVF_META);
    return out;
}

/* Append the adapted copy of each element of `array` (absent: none) to add->items, each made
 * by `adapt`. MCPH_OK, MCPH_ERR_INVALID (not an array, or an element refused), MCPH_ERR_NOMEM. */
static int result_add_each(struct result_add *add, const cJSON *array,
                           cJSON *(*adapt)(struct result_add *add, const cJSON *in, int *status))
{
    const cJSON *el;
    int status = MCPH_OK;

    if (array != NULL && !cJSON_IsArray(array))
        return MCPH_ERR_INVALID;
    cJSON_ArrayForEach(el, array)
    {
        cJSON *out = adapt(add, el, &status);

        if (out == NULL)
            return status;
        cJSON_AddItemToArray(add->items, out);
    }
    return MCPH_OK;
}

/* PromptMessage: a role and one content item. */
static cJSON *result_adapt_message(struct result_add *add, const cJSON *in, int *status)
{
    const char *role = result_string_of(in, "role");
    cJSON *msg, *content;

    *status = MCPH_ERR_INVALID;
    if (role == NULL || (strcmp(role, "user") != 0 && strcmp(role, "assistant") != 0))
        return NULL;
    content = result_adapt_content(add, cJSON_GetObjectItemCaseSensitive(in, "content"), status);
    msg = content != NULL ? cJSON_CreateObject() : NULL;
    if (msg == NULL || cJSON_AddStringToObject(msg, "role", role) == NULL) {
        *status = content != NULL ? MCPH_ERR_NOMEM : *status;
        cJSON_Delete(content);
        cJSON_Delete(msg);
        return NULL;
    }
    cJSON_AddItemToObject(msg, "content", content);
    return msg;
}

/* Resource contents, with the call's URI and the definition's mimeType where absent, as the
 * sinks do. */
static cJSON *result_adapt_contents(struct result_add *add, const cJSON *in, int *status)
{
    const struct mcph_call *c = add->c;
    cJSON *out;

    *status = MCPH_ERR_INVALID;
    if (!result_contents_ok(in, c->uri != NULL))
        return NULL;
    *status = MCPH_ERR_NOMEM;
    out = cJSON_Duplicate(in, 1);
    if (out == NULL ||
        (!cJSON_HasObjectItem(out, "uri") && cJSON_AddStringToObject(out, "uri", c->uri) == NULL) ||
        (c->mime_type != NULL && !cJSON_HasObjectItem(out, "mimeType") &&
         cJSON_AddStringToObject(out, "mimeType", c->mime_type) == NULL)) {
        cJSON_Delete(out);
        return NULL;
    }
    result_keep_if(out, "_meta", c->rev, REVF_META);
    return out;
}

/* A completion value: a string. */
static cJSON *result_adapt_value(struct result_add *add, const cJSON *in, int *status)
{
    (void)add;
    *status = cJSON_IsString(in) ? MCPH_ERR_NOMEM : MCPH_ERR_INVALID;
    return cJSON_IsString(in) ? cJSON_CreateString(in->valuestring) : NULL;
}

static int result_json_tool(struct result_add *add, const cJSON *r)
{
    const cJSON *structured = cJSON_GetObjectItemCaseSensitive(r, "structuredContent");

    if (!result_absent_or(r, "isError", cJSON_IsBool) ||
        !result_absent_or(r, "structuredContent", cJSON_IsObject))
        return MCPH_ERR_INVALID;
    add->is_error = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "isError"));
    if (structured != NULL && (add->structured = cJSON_Duplicate(structured, 1)) == NULL)
        return MCPH_ERR_NOMEM;
    return result_add_each(add, cJSON_GetObjectItemCaseSensitive(r, "content"),
                           result_adapt_content);
}

static int result_json_prompt(struct result_add *add, const cJSON *r)
{
    const char *description = result_string_of(r, "description");

    if (!result_absent_or(r, "description", cJSON_IsString))
        return MCPH_ERR_INVALID;
    if (description != NULL && (add->description = strdup(description)) == NULL)
        return MCPH_ERR_NOMEM;
    return result_add_each(add, cJSON_GetObjectItemCaseSensitive(r, "messages"),
                           result_adapt_message);
}

static int result_json_resource(struct result_add *add, const cJSON *r)
{
    return result_add_each(add, cJSON_GetObjectItemCaseSensitive(r, "contents"),
                           result_adapt_contents);
}

static int result_json_complete(struct result_add *add, const cJSON *r)
{
    const cJSON *completion = cJSON_GetObjectItemCaseSensitive(r, "completion");
    const cJSON *total = cJSON_GetObjectItemCaseSensitive(completion, "total");

    if ((completion != NULL && !cJSON_IsObject(completion)) ||
        !result_absent_or(completion, "hasMore", cJSON_IsBool) ||
        (total != NULL && (!cJSON_IsNumber(total) || total->valuedouble < 0 ||
                           total->valuedouble != floor(total->valuedouble))))
        return MCPH_ERR_INVALID;
    add->more = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(completion, "hasMore"));
    add->total = total != NULL ? total->valuedouble : -1;
    return result_add_each(add, cJSON_GetObjectItemCaseSensitive(completion, "values"),
                           result_adapt_value);
}

/* Per kind: the members it reads, and what reads them. */
static const struct {
    const char *members[4];
    int (*read)(struct result_add *add, const cJSON *r);
} result_json_kinds[] = {
    [RESULT_TOOL] = {{"content", "structuredContent", "isError"}, result_json_tool},
    [RESULT_RESOURCE] = {{"contents"}, result_json_resource},
    [RESULT_PROMPT] = {{"description", "messages"}, result_json_prompt},
    [RESULT_COMPLETE] = {{"completion"}, result_json_complete},
};

/* Whether key is one of the NULL-ended list (at most n long). */
static int result_listed(const char *key, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n && list[i] != NULL; i++) {
        if (strcmp(list[i], key) == 0)
            return 1;
    }
    return 0;
}

/* The members the kind does not read, passed on as they are (but mcph's envelope), and _meta
 * for revisions that have it, without the keys of the protocol's own namespace. */
static int result_json_extra(struct result_add *add, const cJSON *r)
{
    const cJSON *m;
    cJSON *meta;
    int stripped = 0;

    if (!result_absent_or(r, "_meta", cJSON_IsObject))
        return MCPH_ERR_INVALID;
    cJSON_ArrayForEach(m, r)
    {
        if (result_listed(m->string, result_json_kinds[add->c->kind].members, 4) ||
            result_listed(m->string, result_envelope, SIZE_MAX) ||
            (strcmp(m->string, "_meta") == 0 && !revision_has(add->c->rev, REVF_META)))
            continue;
        if (!cJSON_AddItemToObject(add->extra, m->string, cJSON_Duplicate(m, 1)))
            return MCPH_ERR_NOMEM;
    }
    meta = cJSON_GetObjectItemCaseSensitive(add->extra, "_meta");
    for (cJSON *k = meta ? meta->child : NULL, *next; k != NULL; k = next) {
        next = k->next;
        if (strncmp(k->string, "io.modelcontextprotocol/", 24) == 0) {
            cJSON_Delete(cJSON_DetachItemViaPointer(meta, k));
            stripped = 1;
        }
    }
    /* A _meta that held only the protocol's keys is not sent empty. */
    if (stripped && meta->child == NULL)
        cJSON_DeleteItemFromObjectCaseSensitive(add->extra, "_meta");
    return MCPH_OK;
}

/* Move what add holds into the call. Allocates nothing, so it cannot fail half-way. */
static void result_json_commit(struct mcph_call *c, struct result_add *add)
{
    cJSON *el;

    while ((el = cJSON_DetachItemFromArray(add->items, 0)) != NULL) {
        /* Completion values go through the cap of host->completion. */
        if (c->kind == RESULT_COMPLETE && c->ncompletions++ >= RESULT_COMPLETION_MAX)
            cJSON_Delete(el);
        else
            cJSON_AddItemToArray(c->items, el);
    }
    while ((el = add->extra->child) != NULL) {
        cJSON_DetachItemViaPointer(add->extra, el);
        cJSON_DeleteItemFromObjectCaseSensitive(c->extra, el->string);
        /* Keeps el's own key: no copy of it is made. */
        cJSON_AddItemToArray(c->extra, el);
    }
    if (add->structured != NULL) {
        cJSON_Delete(c->structured);
        c->structured = add->structured;
        add->structured = NULL;
    }
    if (add->description != NULL) {
        free(c->description);
        c->description = add->description;
        add->description = NULL;
    }
    c->is_error |= add->is_error;
    c->has_text |= add->has_text;
    c->more |= add->more;
    if (add->total >= 0)
        c->total = add->total;
}

/* Read r into add, each kind's members and the rest. Numbers of what is passed on print
 * exactly (the structured result is checked against its schema first, then made exact when
 * the result is built). */
static int result_json_read(struct result_add *add, const cJSON *r)
{
    int rc = result_json_kinds[add->c->kind].read(add, r);

    if (rc == MCPH_OK)
        rc = result_json_extra(add, r);
    if (rc == MCPH_OK &&
        (number_exact(add->items) != STATUS_OK || number_exact(add->extra) != STATUS_OK))
        rc = MCPH_ERR_NOMEM;
    return rc;
}

int result_json(struct mcph_call *c, const char *json)
{
    struct result_add add = {.c = c, .total = -1};
    cJSON *r;
    int rc, over;

    if (c == NULL || json == NULL)
        return MCPH_ERR_INVALID;
    if (c->kind < RESULT_TOOL || c->kind > RESULT_COMPLETE)
        return MCPH_ERR_STATE;
    r = result_parse(c, json, &over);
    if (over)
        return MCPH_ERR_LIMIT;
    add.items = cJSON_CreateArray();
    add.extra = cJSON_CreateObject();
    if (c->extra == NULL)
        c->extra = cJSON_CreateObject();
    if (!cJSON_IsObject(r))
        rc = MCPH_ERR_INVALID;
    else if (add.items == NULL || add.extra == NULL || c->extra == NULL)
        rc = MCPH_ERR_NOMEM;
    else
        rc = result_json_read(&add, r);
    if (rc == MCPH_OK)
        rc = result_account(c, strlen(json));
    if (rc == MCPH_OK)
        result_json_commit(c, &add);
    cJSON_Delete(r);
    cJSON_Delete(add.items);
    cJSON_Delete(add.extra);
    cJSON_Delete(add.structured);
    free(add.description);
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
