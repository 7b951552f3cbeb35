#include "served/session.h"

#include "wire/jsonrpc.h"
#include "lib/log.h"
#include "served/registry.h"
#include "wire/revision.h"
#include "lib/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void session_init(struct session *s)
{
    memset(s, 0, sizeof(*s));
    s->rev = REV_NONE;
    atomic_init(&s->log_level, LOG_OFF);
}

void session_release(struct session *s)
{
    if (s == NULL)
        return;
    cJSON_Delete(s->client_caps);
    cJSON_Delete(s->client_info);
    session_init(s);
}

/* A list capability with listChanged: mcph really sends it after a reload. */
static int session_add_list_cap(cJSON *caps, const char *name)
{
    cJSON *cap = cJSON_AddObjectToObject(caps, name);

    return cap != NULL && cJSON_AddBoolToObject(cap, "listChanged", 1) != NULL ? 0 : -1;
}

/* Whether any prompt or resource template of reg can complete its arguments. */
static int session_completes(const struct registry *reg)
{
    for (size_t i = 0; i < reg->nprompts; i++) {
        if (reg->prompts[i].def->complete != NULL)
            return 1;
    }
    for (size_t i = 0; i < reg->ntemplates; i++) {
        if (reg->templates[i].def->complete != NULL)
            return 1;
    }
    return 0;
}

cJSON *session_capabilities(const struct registry *reg, int rev)
{
    cJSON *caps = cJSON_CreateObject();

    if (caps == NULL || cJSON_AddObjectToObject(caps, "logging") == NULL ||
        session_add_list_cap(caps, "tools") != 0 || session_add_list_cap(caps, "resources") != 0 ||
        session_add_list_cap(caps, "prompts") != 0 ||
        cJSON_AddBoolToObject(cJSON_GetObjectItemCaseSensitive(caps, "resources"), "subscribe",
                              1) == NULL ||
        (revision_has(rev, REVF_COMPLETIONS) && session_completes(reg) &&
         cJSON_AddObjectToObject(caps, "completions") == NULL)) {
        cJSON_Delete(caps);
        return NULL;
    }
    return caps;
}

static int session_refuse(struct session_error *err, int code, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int session_refuse(struct session_error *err, int code, int status, const char *fmt, ...)
{
    va_list ap;

    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    return status;
}

/* The revision an initialize gets: the one asked for if mcph speaks it through initialize,
 * else the newest legacy one. */
static int session_negotiate(const char *asked)
{
    int rev = revision_parse(asked);

    /* 2026-07-28 has no initialize: asking for it here gets the newest legacy revision. */
    if (rev == REV_NONE || revision_has(rev, REVF_MODERN))
        return REV_LATEST_LEGACY;
    return rev;
}

static cJSON *session_result(const struct registry *reg, int rev, const char *instructions)
{
    cJSON *result = cJSON_CreateObject();

    if (result == NULL ||
        cJSON_AddStringToObject(result, "protocolVersion", revision_get(rev)->name) == NULL ||
        !cJSON_AddItemToObject(result, "capabilities", session_capabilities(reg, rev)) ||
        !cJSON_AddItemToObject(result, "serverInfo", registry_server_info(reg, rev)) ||
        (instructions != NULL &&
         cJSON_AddStringToObject(result, "instructions", instructions) == NULL)) {
        cJSON_Delete(result);
        return NULL;
    }
    return result;
}

int session_initialize(struct session *s, const cJSON *params, const struct registry *reg,
                       const char *instructions, cJSON **result, struct session_error *err)
{
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
    int rev;

    if (!cJSON_IsString(version))
        return session_refuse(err, JSONRPC_INVALID_PARAMS, STATUS_INVALID,
                              "initialize needs params.protocolVersion, a string such as \"%s\"",
                              revision_get(REV_LATEST_LEGACY)->name);
    if (s->rev != REV_NONE)
        return session_refuse(err, JSONRPC_INVALID_REQUEST, STATUS_EXISTS,
                              "initialize was already done on this connection (protocol %s)",
                              revision_get(s->rev)->name);
    rev = session_negotiate(version->valuestring);
    *result = session_result(reg, rev, instructions);
    if (*result == NULL)
        return STATUS_NOMEM;
    s->rev = rev;
    s->client_caps = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(params, "capabilities"), 1);
    s->client_info = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(params, "clientInfo"), 1);
    return STATUS_OK;
}

void session_initialized(struct session *s)
{
    s->initialized = 1;
}

int session_level(const cJSON *params, int *level, struct session_error *err)
{
    const cJSON *given = cJSON_GetObjectItemCaseSensitive(params, "level");

    /* Only the spec's names: "warn" is an INI nicety, not a protocol value. */
    if (!cJSON_IsString(given) || strcmp(given->valuestring, "warn") == 0 ||
        log_level_parse(given->valuestring, level) != STATUS_OK)
        return session_refuse(err, JSONRPC_INVALID_PARAMS, STATUS_INVALID,
                              "logging/setLevel needs params.level, one of debug, info, notice, "
                              "warning, error, critical, alert, emergency");
    return STATUS_OK;
}
