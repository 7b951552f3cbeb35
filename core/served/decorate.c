/*
 * decorate.c: the members every 2026-07-28 result carries about the set served (resultType,
 * serverInfo, cache hints).
 */
#include "served/decorate.h"

#include "wire/revision.h"

void decorate_result(cJSON *result, const struct registry *reg, const struct plugin *pl,
                     int cacheable)
{
    cJSON *meta;

    if (result == NULL)
        return;
    if (!cJSON_HasObjectItem(result, "resultType"))
        cJSON_AddStringToObject(result, "resultType", "complete");
    meta = cJSON_GetObjectItemCaseSensitive(result, "_meta");
    if (meta == NULL)
        meta = cJSON_AddObjectToObject(result, "_meta");
    if (meta != NULL && !cJSON_HasObjectItem(meta, DECORATE_KEY_SERVER))
        cJSON_AddItemToObject(meta, DECORATE_KEY_SERVER, registry_server_info(reg, REV_MODERN));
    if (!cacheable)
        return;
    int ttl =
        pl != NULL && pl->section.cache_ttl_ms >= 0 ? pl->section.cache_ttl_ms : reg->meta.ttl_ms;
    int pub = pl != NULL && pl->section.cache_public >= 0 ? pl->section.cache_public
                                                          : reg->meta.cache_public;

    cJSON_AddNumberToObject(result, "ttlMs", ttl);
    cJSON_AddStringToObject(result, "cacheScope", pub ? "public" : "private");
}

void decorate_private(cJSON *result)
{
    if (cJSON_HasObjectItem(result, "cacheScope"))
        cJSON_ReplaceItemInObjectCaseSensitive(result, "cacheScope", cJSON_CreateString("private"));
}
