#include "protocol/modern.h"

#include "wire/jsonrpc.h"
#include "lib/log.h"
#include "wire/revision.h"
#include "lib/status.h"
#include "lib/strbuf.h"
#include "served/decorate.h"

#include <string.h>

int modern_claims(const cJSON *params)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");

    return cJSON_IsObject(meta) && cJSON_HasObjectItem(meta, MODERN_KEY_VERSION);
}

/* Every revision mcph speaks, newest first: per request or through initialize. */
static cJSON *modern_versions(void)
{
    cJSON *list = cJSON_CreateArray();

    for (int rev = REV_COUNT - 1; list != NULL && rev > REV_NONE; rev--)
        cJSON_AddItemToArray(list, cJSON_CreateString(revision_get(rev)->name));
    return list;
}

static cJSON *modern_bad_envelope(const cJSON *id, const char *key, const char *problem)
{
    struct strbuf message = STRBUF_INIT;
    cJSON *data = cJSON_CreateObject();
    cJSON *envelope = cJSON_AddObjectToObject(data, "envelope");
    cJSON *error;

    cJSON_AddStringToObject(envelope, "key", key);
    cJSON_AddStringToObject(envelope, "problem", problem);
    strbuf_addf(&message, "Invalid _meta envelope for protocol revision %s: %s: %s",
                revision_get(REV_MODERN)->name, key, problem);
    error = jsonrpc_error(id, JSONRPC_INVALID_PARAMS, message.buf, data);
    strbuf_release(&message);
    return error;
}

cJSON *modern_check(const cJSON *id, const cJSON *params, struct modern_envelope *env)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(meta, MODERN_KEY_VERSION);
    const cJSON *caps = cJSON_GetObjectItemCaseSensitive(meta, MODERN_KEY_CAPS);
    const cJSON *level = cJSON_GetObjectItemCaseSensitive(meta, MODERN_KEY_LOG);
    int rev;

    if (!cJSON_IsString(version))
        return modern_bad_envelope(id, MODERN_KEY_VERSION, "must be a string");
    rev = revision_parse(version->valuestring);
    if (!revision_has(rev, REVF_MODERN)) {
        cJSON *data = cJSON_CreateObject();

        cJSON_AddItemToObject(data, "supported", modern_versions());
        cJSON_AddStringToObject(data, "requested", version->valuestring);
        return jsonrpc_error(id, JSONRPC_UNSUPPORTED_VERSION, "Unsupported protocol version", data);
    }
    if (!cJSON_IsObject(caps))
        return modern_bad_envelope(id, MODERN_KEY_CAPS, "is required and must be an object");
    env->caps = caps;
    env->log_level = LOG_OFF;
    if (level != NULL && (!cJSON_IsString(level) || strcmp(level->valuestring, "warn") == 0 ||
                          log_level_parse(level->valuestring, &env->log_level) != STATUS_OK))
        return modern_bad_envelope(id, MODERN_KEY_LOG, "must be a logging level");
    return NULL;
}

cJSON *modern_discover(const struct server *srv, cJSON *caps)
{
    cJSON *result = cJSON_CreateObject();

    if (result == NULL || caps == NULL) {
        cJSON_Delete(result);
        cJSON_Delete(caps);
        return NULL;
    }
    cJSON_AddItemToObject(result, "supportedVersions", modern_versions());
    cJSON_AddItemToObject(result, "capabilities", caps);
    if (srv->reg->meta.instructions != NULL)
        cJSON_AddStringToObject(result, "instructions", srv->reg->meta.instructions);
    decorate_result(result, srv->reg, NULL, 1);
    return result;
}
