/*
 * remote_params.c: the Mcp-Param-* headers of a 2026-07-28 tools/call. A tool whose
 * inputSchema annotates properties with x-mcp-header wants each such argument mirrored in a
 * header; the relay learns the schemas from the tools/list answers that pass through it and
 * adds the headers to each call of such a tool.
 */
#include "client/remote_int.h"

#include "lib/status.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REMOTE_PARAM_DEPTH 16   /* as HTTPMSG_PARAM_DEPTH: how deep annotations are looked for */
#define REMOTE_PARAM_TOOLS 4096 /* tools whose schemas are kept */
#define REMOTE_PARAM_BYTES (4u * 1024u * 1024u) /* of them, printed, at most */

/* Whether schema has an x-mcp-header annotation in its properties, depth levels down. */
static int remote_annotated(const cJSON *schema, int depth)
{
    const cJSON *prop;

    if (depth > REMOTE_PARAM_DEPTH)
        return 0;
    cJSON_ArrayForEach(prop, cJSON_GetObjectItemCaseSensitive(schema, "properties"))
    {
        if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(prop, "x-mcp-header")) ||
            remote_annotated(prop, depth + 1))
            return 1;
    }
    return 0;
}

void remote_params_learn(struct remote *r, const cJSON *result)
{
    const cJSON *tool;

    if (r->schemas == NULL)
        r->schemas = cJSON_CreateObject();
    if (r->schemas == NULL)
        return;
    cJSON_ArrayForEach(tool, cJSON_GetObjectItemCaseSensitive(result, "tools"))
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tool, "name"));
        const cJSON *schema = cJSON_GetObjectItemCaseSensitive(tool, "inputSchema");
        cJSON *copy;
        char *printed;
        size_t size;

        if (name == NULL)
            continue;
        /* A tool listed again: its schema before is forgotten, and its bytes with it. */
        copy = cJSON_DetachItemFromObjectCaseSensitive(r->schemas, name);
        if (copy != NULL) {
            printed = cJSON_PrintUnformatted(copy);
            size = printed != NULL ? strlen(printed) : r->schema_bytes;
            r->schema_bytes -= size < r->schema_bytes ? size : r->schema_bytes;
            free(printed);
            cJSON_Delete(copy);
        }
        if (!remote_annotated(schema, 0) || cJSON_GetArraySize(r->schemas) >= REMOTE_PARAM_TOOLS)
            continue;
        printed = cJSON_PrintUnformatted(schema);
        size = printed != NULL ? strlen(printed) : 0;
        free(printed);
        if (size == 0 || size > REMOTE_PARAM_BYTES - r->schema_bytes)
            continue;
        copy = cJSON_Duplicate(schema, 1);
        if (copy != NULL) {
            cJSON_AddItemToObject(r->schemas, name, copy);
            r->schema_bytes += size;
        }
    }
}

/* One argument's header, when it is a value a header can carry. */
static int remote_param(struct remote_req *req, const char *name, const cJSON *value)
{
    char header[160], text[32];
    const char *v = NULL;

    if (cJSON_IsString(value))
        v = value->valuestring;
    else if (cJSON_IsBool(value))
        v = cJSON_IsTrue(value) ? "true" : "false";
    else if (cJSON_IsNumber(value)) {
        snprintf(text, sizeof(text), "%.17g", value->valuedouble);
        v = text;
    }
    /* The name is the upstream's: only a token (RFC 9110) becomes a header name, so that no
     * CR, LF or colon reaches the request. */
    if (v == NULL || strlen(name) > 100 ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                     "!#$%&'*+-.^_`|~") != strlen(name))
        return STATUS_OK;
    snprintf(header, sizeof(header), "Mcp-Param-%s", name);
    return remote_mirror(req, header, v);
}

static int remote_walk(struct remote_req *req, const cJSON *schema, const cJSON *args, int depth)
{
    const cJSON *prop;
    int status = STATUS_OK;

    if (depth > REMOTE_PARAM_DEPTH || !cJSON_IsObject(args))
        return STATUS_OK;
    cJSON_ArrayForEach(prop, cJSON_GetObjectItemCaseSensitive(schema, "properties"))
    {
        const char *name =
            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(prop, "x-mcp-header"));
        const cJSON *value =
            prop->string ? cJSON_GetObjectItemCaseSensitive(args, prop->string) : NULL;

        if (value == NULL || !cJSON_IsObject(prop))
            continue;
        if (name != NULL && *name != '\0')
            status = remote_param(req, name, value);
        if (status == STATUS_OK)
            status = remote_walk(req, prop, value, depth + 1);
        if (status != STATUS_OK)
            break;
    }
    return status;
}

int remote_params_add(struct remote_req *req, const cJSON *params)
{
    const char *tool = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "name"));
    const cJSON *schema =
        tool != NULL ? cJSON_GetObjectItemCaseSensitive(req->r->schemas, tool) : NULL;

    if (schema == NULL)
        return STATUS_OK;
    return remote_walk(req, schema, cJSON_GetObjectItemCaseSensitive(params, "arguments"), 0);
}
