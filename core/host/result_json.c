/*
 * result_json.c: host->result_json, a whole result given as JSON text. Its members are read
 * for the call's kind, kept to what the client's revision carries (stand-ins for the rest,
 * as the sinks make), and committed into the call only when all of it was good.
 */
#include "host/result.h"

#include "host/result_item.h"
#include "lib/number.h"
#include "lib/status.h"
#include "wire/revision.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
