#include "calls/question.h"

#include "host/host.h"
#include "wire/revision.h"
#include "lib/status.h"

#include <string.h>

/* The members one kind of elicitation field may carry under 2025-06-18 (its
 * PrimitiveSchemaDefinition): everything else is dropped. */
static const char *const question_string_keys[] = {
    "type", "title", "description", "format", "minLength", "maxLength", NULL};
static const char *const question_enum_keys[] = {"type", "title",     "description",
                                                 "enum", "enumNames", NULL};
static const char *const question_number_keys[] = {"type",    "title",   "description",
                                                   "minimum", "maximum", NULL};
static const char *const question_boolean_keys[] = {"type", "title", "description", "default",
                                                    NULL};
static const char *const question_schema_keys[] = {"type", "properties", "required", NULL};

/* CreateMessageRequest.params before 2025-11-25. */
static const char *const question_sample_keys[] = {
    "messages",       "modelPreferences", "systemPrompt",
    "includeContext", "temperature",      "maxTokens",
    "stopSequences",  "metadata",         NULL};

static int question_listed(const char *const *keys, const char *key)
{
    for (size_t i = 0; keys[i] != NULL; i++) {
        if (strcmp(keys[i], key) == 0)
            return 1;
    }
    return 0;
}

/* Drop every member of obj that keys does not list. */
static void question_keep(cJSON *obj, const char *const *keys)
{
    cJSON *m = obj->child;

    while (m != NULL) {
        cJSON *next = m->next;

        if (m->string == NULL || !question_listed(keys, m->string))
            cJSON_Delete(cJSON_DetachItemViaPointer(obj, m));
        m = next;
    }
}

/* A titled single-select (oneOf of {const, title}) as 2025-06-18 says it: enum + enumNames. */
static int question_untitle(cJSON *field)
{
    cJSON *one_of = cJSON_GetObjectItemCaseSensitive(field, "oneOf");
    cJSON *values = cJSON_CreateArray(), *names = cJSON_CreateArray();
    const cJSON *opt;

    cJSON_ArrayForEach(opt, one_of)
    {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(opt, "const");
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(opt, "title");

        if (!cJSON_IsString(c) || values == NULL || names == NULL)
            break;
        cJSON_AddItemToArray(values, cJSON_CreateString(c->valuestring));
        cJSON_AddItemToArray(
            names, cJSON_CreateString(cJSON_IsString(t) ? t->valuestring : c->valuestring));
    }
    if (opt != NULL || values == NULL || names == NULL || cJSON_GetArraySize(values) == 0) {
        cJSON_Delete(values);
        cJSON_Delete(names);
        return STATUS_INVALID;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(field, "enum");
    cJSON_DeleteItemFromObjectCaseSensitive(field, "enumNames");
    cJSON_AddItemToObject(field, "enum", values);
    cJSON_AddItemToObject(field, "enumNames", names);
    return STATUS_OK;
}

/* One field of a form, fitted to 2025-06-18. */
static int question_field(const char *name, cJSON *field, struct strbuf *why)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(field, "type");
    const char *t = cJSON_IsString(type) ? type->valuestring : "";

    if (strcmp(t, "string") == 0 && cJSON_HasObjectItem(field, "oneOf") &&
        question_untitle(field) != STATUS_OK) {
        strbuf_addf(why, "field '%s' is a titled choice whose options are not {const, title}",
                    name);
        return STATUS_INVALID;
    }
    if (strcmp(t, "string") == 0)
        question_keep(field, cJSON_HasObjectItem(field, "enum") ? question_enum_keys
                                                                : question_string_keys);
    else if (strcmp(t, "number") == 0 || strcmp(t, "integer") == 0)
        question_keep(field, question_number_keys);
    else if (strcmp(t, "boolean") == 0)
        question_keep(field, question_boolean_keys);
    else {
        strbuf_addf(why, "field '%s' is of type '%s'%s, which 2025-06-18 does not define", name, t,
                    strcmp(t, "array") == 0 ? " (a multi-select)" : "");
        return STATUS_INVALID;
    }
    return STATUS_OK;
}

static int question_fit_elicit(cJSON *params, struct strbuf *why)
{
    cJSON *schema = cJSON_GetObjectItemCaseSensitive(params, "requestedSchema");
    cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
    cJSON *field;

    question_keep(params, (const char *const[]){"message", "requestedSchema", NULL});
    if (!cJSON_IsObject(schema))
        return STATUS_OK;
    question_keep(schema, question_schema_keys);
    cJSON_ArrayForEach(field, props)
    {
        if (cJSON_IsObject(field) && question_field(field->string, field, why) != STATUS_OK)
            return STATUS_INVALID;
    }
    return STATUS_OK;
}

/* A content block (or a list of them, 2025-11-25) of a sampling message that rev defines. */
static int question_content_ok(const cJSON *content, int rev, struct strbuf *why)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(content, "type");
    const char *t = cJSON_IsString(type) ? type->valuestring : "";

    if (strcmp(t, "text") == 0 || strcmp(t, "image") == 0 ||
        (strcmp(t, "audio") == 0 && revision_has(rev, REVF_AUDIO)))
        return STATUS_OK;
    strbuf_addf(why, "a sampling message holds %s content, which %s does not define",
                cJSON_IsArray(content) ? "a list of" : t, revision_get(rev)->name);
    return STATUS_INVALID;
}

static int question_fit_sample(cJSON *params, int rev, struct strbuf *why)
{
    const cJSON *messages = cJSON_GetObjectItemCaseSensitive(params, "messages");
    const cJSON *m;

    if (cJSON_HasObjectItem(params, "tools") || cJSON_HasObjectItem(params, "toolChoice")) {
        strbuf_addf(why, "sampling with tools, which %s does not define", revision_get(rev)->name);
        return STATUS_INVALID;
    }
    cJSON_ArrayForEach(m, messages)
    {
        if (question_content_ok(cJSON_GetObjectItemCaseSensitive(m, "content"), rev, why) !=
            STATUS_OK)
            return STATUS_INVALID;
    }
    question_keep(params, question_sample_keys);
    return STATUS_OK;
}

int question_fit(int what, cJSON *params, int rev, struct strbuf *why)
{
    /* 2025-11-25 and 2026-07-28 define everything the ABI lets a plugin ask. */
    if (rev >= REV_2025_11_25 || !cJSON_IsObject(params))
        return STATUS_OK;
    if (what == HOST_ASK_ELICIT)
        return question_fit_elicit(params, why);
    if (what == HOST_ASK_SAMPLE)
        return question_fit_sample(params, rev, why);
    return STATUS_OK;
}
