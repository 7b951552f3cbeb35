#include "transport/httpmsg.h"

#include "lib/base64.h"
#include "wire/jsonrpc.h"
#include "mcph-json.h"
#include "protocol/modern.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int httpmsg_accepts(const char *accept, const char *type)
{
    const char *slash = strchr(type, '/');

    if (accept == NULL)
        return 1;
    for (const char *p = accept; *p != '\0';) {
        size_t n;

        p += strspn(p, " \t,");
        n = strcspn(p, ",;");
        if ((n == strlen(type) && strncasecmp(p, type, n) == 0) ||
            (n == 3 && strncmp(p, "*/*", 3) == 0) ||
            (slash != NULL && n == (size_t)(slash - type) + 2 &&
             strncasecmp(p, type, (size_t)(slash - type) + 1) == 0 && p[n - 1] == '*'))
            return 1;
        p += n;
        p += strcspn(p, ",");
    }
    return 0;
}

void httpmsg_event(struct strbuf *sb, const char *line, size_t len)
{
    strbuf_addstr(sb, "event: message\ndata: ");
    strbuf_add(sb, line, len);
    strbuf_addstr(sb, "\n\n");
}

int httpmsg_is_answer(const char *text, size_t len)
{
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";

    return (len > 0 && text[0] == '[') ||
           (len >= sizeof(head) - 1 && memcmp(text, head, sizeof(head) - 1) == 0);
}

/* The members of an answer its status depends on, "id" and "error", parsed from its text
 * without the rest: a result may be large, and is not looked at. Owned by the caller. */
static cJSON *httpmsg_head(const char *line, size_t len)
{
    static const char *const keys[] = {"id", "error"};
    cJSON *head = cJSON_CreateObject();
    const char *value;
    size_t n;

    for (size_t i = 0; head != NULL && i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (mcph_json_member(line, len, keys[i], &value, &n))
            cJSON_AddItemToObject(head, keys[i], cJSON_ParseWithLength(value, n));
    }
    return head;
}

unsigned httpmsg_status(const char *line, size_t len, int requests, int in_session)
{
    const cJSON *error;
    const char *message;
    cJSON *msg;
    int code, null_id, envelope;

    if (strstr(line, "\"error\":") == NULL)
        return 200;
    msg = httpmsg_head(line, len);
    error = cJSON_GetObjectItemCaseSensitive(msg, "error");
    /* valueint: cJSON's own int of the number (clamped), 0 when there is none. */
    code = cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(error, "code"))
               ? cJSON_GetObjectItemCaseSensitive(error, "code")->valueint
               : 0;
    message = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(error, "message"));
    null_id = cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(msg, "id"));
    /* A 2026-07-28 request whose _meta is wrong never reached its method: a 400 (the SDK's). */
    envelope = code == JSONRPC_INVALID_PARAMS && message != NULL &&
               strncmp(message, "Invalid _meta envelope", 22) == 0;
    cJSON_Delete(msg);
    if ((null_id && requests == 0) || code == JSONRPC_PARSE_ERROR ||
        code == JSONRPC_INVALID_REQUEST || code == JSONRPC_UNSUPPORTED_VERSION ||
        code == JSONRPC_HEADER_MISMATCH || code == JSONRPC_MISSING_CAPABILITY ||
        (envelope && !in_session))
        return 400;
    if (code == JSONRPC_METHOD_NOT_FOUND && !in_session)
        return 404;
    return 200;
}

int httpmsg_has_message(const char *lines, size_t len)
{
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"method\":";

    for (const char *p = lines; p != NULL && p < lines + len;) {
        const char *nl = memchr(p, '\n', (size_t)(lines + len - p));

        if ((size_t)(lines + len - p) >= sizeof(head) - 1 &&
            strncmp(p, head, sizeof(head) - 1) == 0)
            return 1;
        p = nl ? nl + 1 : NULL;
    }
    return 0;
}

const char *httpmsg_request_method(const cJSON *root)
{
    if (!cJSON_IsObject(root) || cJSON_GetObjectItemCaseSensitive(root, "id") == NULL)
        return NULL;
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(root, "method"));
}

int httpmsg_count_requests(const cJSON *root)
{
    const cJSON *el;
    int n = 0;

    if (!cJSON_IsArray(root))
        return httpmsg_request_method(root) != NULL;
    cJSON_ArrayForEach(el, root)
    {
        n += httpmsg_request_method(el) != NULL;
    }
    return n;
}

const char *httpmsg_name_of(const cJSON *msg, const char *method, int *needed)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const char *key = NULL;

    if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0)
        key = "name";
    else if (strcmp(method, "resources/read") == 0)
        key = "uri";
    *needed = key != NULL;
    return key ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, key)) : NULL;
}

const char *httpmsg_meta_version(const cJSON *msg)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");

    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, MODERN_KEY_VERSION));
}

char *httpmsg_decode_value(const char *value)
{
    size_t len = strlen(value), n = 0;
    unsigned char *raw;
    char *text;

    if (len < 12 || strncmp(value, "=?base64?", 9) != 0 || strcmp(value + len - 2, "?=") != 0)
        return strdup(value);
    text = strndup(value + 9, len - 11);
    raw = text ? base64_decode(text, &n) : NULL;
    free(text);
    if (raw == NULL || memchr(raw, '\0', n) != NULL) {
        free(raw);
        return NULL;
    }
    text = strndup((const char *)raw, n);
    free(raw);
    return text;
}

/* Whether a header value (as sent) holds only what RFC 9110 lets a field value hold without
 * the base64 form: visible ASCII, space and tab. */
static int httpmsg_plain_value(const char *value)
{
    for (const unsigned char *p = (const unsigned char *)value; *p != '\0'; p++) {
        if ((*p < 0x20 && *p != '\t') || *p > 0x7e)
            return 0;
    }
    return 1;
}

const char *httpmsg_check_header(const char *name, const char *header, const char *body, int needed,
                                 char *buf, size_t size)
{
    char *value;
    int same;

    if (header == NULL) {
        if (!needed)
            return NULL;
        snprintf(buf, size, "Header mismatch: the %s header is missing", name);
        return buf;
    }
    if (!httpmsg_plain_value(header)) {
        snprintf(buf, size,
                 "Header mismatch: the %s header holds bytes outside visible ASCII; send such a "
                 "value as =?base64?...?=",
                 name);
        return buf;
    }
    value = httpmsg_decode_value(header);
    same = value != NULL && body != NULL && strcmp(value, body) == 0;
    free(value);
    if (same)
        return NULL;
    snprintf(buf, size,
             "Header mismatch: %s header value '%.64s' does not match body value '%.64s'", name,
             header, body ? body : "(none)");
    return buf;
}

void httpmsg_host_part(const char *authority, size_t len, char *buf, size_t size)
{
    size_t n;

    if (len > 0 && authority[0] == '[') {
        const char *close = memchr(authority, ']', len);

        n = close ? (size_t)(close - authority) + 1 : len;
    } else {
        const char *colon = memchr(authority, ':', len);

        n = colon ? (size_t)(colon - authority) : len;
    }
    if (n >= size)
        n = size - 1;
    for (size_t i = 0; i < n; i++)
        buf[i] =
            (char)(authority[i] >= 'A' && authority[i] <= 'Z' ? authority[i] + 32 : authority[i]);
    buf[n] = '\0';
}

/* One mirrored parameter: the header Mcp-Param-NAME (its value as sent, count: how often it
 * came) against the argument's value in the body (NULL: absent). */
static const char *httpmsg_check_param(const char *name, const char *header, int count,
                                       const cJSON *body, char *buf, size_t size)
{
    char text[32], *value;
    const char *want = NULL;
    int same = 0;

    if (body != NULL && cJSON_IsNull(body))
        body = NULL;
    if (count > 1) {
        snprintf(buf, size, "Header mismatch: the Mcp-Param-%.64s header came %d times", name,
                 count);
        return buf;
    }
    if (header == NULL) {
        /* An argument a header cannot carry (an object, say) is left to the schema check. */
        if (body == NULL || !(cJSON_IsString(body) || cJSON_IsNumber(body) || cJSON_IsBool(body)))
            return NULL;
        snprintf(buf, size,
                 "Header mismatch: the Mcp-Param-%.64s header is missing (the tool's inputSchema "
                 "mirrors that argument, x-mcp-header)",
                 name);
        return buf;
    }
    if (!httpmsg_plain_value(header)) {
        snprintf(buf, size,
                 "Header mismatch: the Mcp-Param-%.64s header holds bytes outside visible ASCII; "
                 "send such a value as =?base64?...?=",
                 name);
        return buf;
    }
    value = httpmsg_decode_value(header);
    if (value != NULL && cJSON_IsString(body)) {
        want = body->valuestring;
        same = strcmp(value, want) == 0;
    } else if (value != NULL && cJSON_IsBool(body)) {
        want = cJSON_IsTrue(body) ? "true" : "false";
        same = strcmp(value, want) == 0;
    } else if (value != NULL && cJSON_IsNumber(body)) {
        /* Integers compare as numbers: 42.0 is 42. */
        char *end;
        double d = strtod(value, &end);

        snprintf(text, sizeof(text), "%.17g", body->valuedouble);
        want = text;
        same = *value != '\0' && *end == '\0' && isfinite(d) && d == body->valuedouble &&
               value[strspn(value, "+-0123456789.eE")] == '\0';
    }
    free(value);
    if (same)
        return NULL;
    snprintf(buf, size,
             "Header mismatch: Mcp-Param-%.64s header value '%.64s' does not match body value "
             "'%.64s'",
             name, header, want ? want : "(none)");
    return buf;
}

/* The x-mcp-header annotations of the properties of schema (an object schema), with the
 * instance args at the same place (NULL: none there), depth levels down. */
static const char *httpmsg_walk_params(const cJSON *schema, const cJSON *args, int depth,
                                       httpmsg_param_fn get, void *ctx, char *buf, size_t size)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
    const cJSON *prop;

    if (!cJSON_IsObject(props) || depth > HTTPMSG_PARAM_DEPTH)
        return NULL;
    cJSON_ArrayForEach(prop, props)
    {
        const char *name =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(prop, "x-mcp-header"));
        const cJSON *value = cJSON_IsObject(args) && prop->string != NULL
                                 ? cJSON_GetObjectItemCaseSensitive(args, prop->string)
                                 : NULL;
        const char *problem = NULL;

        if (!cJSON_IsObject(prop))
            continue;
        if (name != NULL && *name != '\0') {
            int count = 0;
            const char *header = get(ctx, name, &count);

            problem = httpmsg_check_param(name, header, count, value, buf, size);
        }
        if (problem == NULL)
            problem = httpmsg_walk_params(prop, value, depth + 1, get, ctx, buf, size);
        if (problem != NULL)
            return problem;
    }
    return NULL;
}

const char *httpmsg_check_params(const cJSON *schema, const cJSON *args, httpmsg_param_fn get,
                                 void *ctx, char *buf, size_t size)
{
    return httpmsg_walk_params(schema, args, 0, get, ctx, buf, size);
}
