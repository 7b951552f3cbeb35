#include "protocol/modern.h"

#include "lib/base64.h"
#include "wire/jsonrpc.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "wire/out.h"
#include "wire/revision.h"
#include "lib/sha256.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

cJSON *modern_not_found(const cJSON *id, const char *uri, const char *message, int modern)
{
    cJSON *data = cJSON_CreateObject();
    /* 2026-07-28 retired -32002: a missing resource is invalid params there. */
    int code = modern ? JSONRPC_INVALID_PARAMS : JSONRPC_RESOURCE_NOT_FOUND;

    cJSON_AddStringToObject(data, "uri", uri);
    return jsonrpc_error(id, code, message, data);
}

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
        return jsonrpc_error(id, MODERN_UNSUPPORTED_VERSION, "Unsupported protocol version", data);
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

void modern_result(cJSON *result, const struct registry *reg, const struct plugin *pl,
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
    if (meta != NULL && !cJSON_HasObjectItem(meta, MODERN_KEY_SERVER))
        cJSON_AddItemToObject(meta, MODERN_KEY_SERVER, registry_server_info(reg, REV_MODERN));
    if (!cacheable)
        return;
    int ttl =
        pl != NULL && pl->section.cache_ttl_ms >= 0 ? pl->section.cache_ttl_ms : reg->meta.ttl_ms;
    int pub = pl != NULL && pl->section.cache_public >= 0 ? pl->section.cache_public
                                                          : reg->meta.cache_public;

    cJSON_AddNumberToObject(result, "ttlMs", ttl);
    cJSON_AddStringToObject(result, "cacheScope", pub ? "public" : "private");
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
    modern_result(result, srv->reg, NULL, 1);
    return result;
}

/* --- Listeners. --- */

static const struct {
    const char *key;
    unsigned list;
} modern_lists[] = {
    {"toolsListChanged", REGISTRY_TOOLS},
    {"resourcesListChanged", REGISTRY_RESOURCES},
    {"promptsListChanged", REGISTRY_PROMPTS},
    {0},
};

/* Read the filter into l; returns 0, -1 when it is not a SubscriptionFilter, -2 when it
 * lists more than LIMIT_SUBSCRIPTIONS resources. */
static int modern_filter(struct listener *l, const cJSON *filter)
{
    const cJSON *uris = cJSON_GetObjectItemCaseSensitive(filter, "resourceSubscriptions");
    const cJSON *u;

    if (!cJSON_IsObject(filter) || (uris != NULL && !cJSON_IsArray(uris)))
        return -1;
    for (size_t i = 0; modern_lists[i].key != NULL; i++) {
        const cJSON *flag = cJSON_GetObjectItemCaseSensitive(filter, modern_lists[i].key);

        if (flag != NULL && !cJSON_IsBool(flag))
            return -1;
        if (cJSON_IsTrue(flag))
            l->lists |= modern_lists[i].list;
    }
    if (cJSON_GetArraySize(uris) > LIMIT_SUBSCRIPTIONS)
        return -2;
    l->uris = calloc((size_t)cJSON_GetArraySize(uris) + 1, sizeof(*l->uris));
    if (l->uris == NULL)
        return -1;
    cJSON_ArrayForEach(u, uris)
    {
        if (!cJSON_IsString(u))
            return -1;
        l->uris[l->nuris] = strdup(u->valuestring);
        if (l->uris[l->nuris] == NULL)
            return -1;
        l->nuris++;
    }
    return 0;
}

/* {"_meta": {subscriptionId: id}} plus what the caller adds. */
static cJSON *modern_tagged(const cJSON *id)
{
    cJSON *params = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(params, "_meta");

    if (meta == NULL) {
        cJSON_Delete(params);
        return NULL;
    }
    cJSON_AddItemToObject(meta, MODERN_KEY_SUB, cJSON_Duplicate(id, 1));
    return params;
}

/* What mcph honours of a listener's filter: every list (all advertise listChanged) and the
 * URIs (resources advertise subscribe). */
static void modern_acknowledge(void *ctx, const struct listener *l)
{
    struct peer *peer = ctx;
    cJSON *params = modern_tagged(l->id);
    cJSON *honoured = cJSON_AddObjectToObject(params, "notifications");

    if (honoured == NULL) {
        cJSON_Delete(params);
        return;
    }
    for (size_t i = 0; modern_lists[i].key != NULL; i++) {
        if (l->lists & modern_lists[i].list)
            cJSON_AddBoolToObject(honoured, modern_lists[i].key, 1);
    }
    if (l->nuris > 0) {
        cJSON *uris = cJSON_AddArrayToObject(honoured, "resourceSubscriptions");

        for (size_t i = 0; i < l->nuris; i++)
            cJSON_AddItemToArray(uris, cJSON_CreateString(l->uris[i]));
    }
    out_notify(peer->out, "notifications/subscriptions/acknowledged", params);
}

cJSON *modern_listen(struct server *srv, struct peer *peer, const cJSON *id, const cJSON *params)
{
    struct listener l = {.owner = peer, .id = cJSON_Duplicate(id, 1)};
    int status;

    _Static_assert(LIMIT_SUBSCRIPTIONS == 4096, "the message below names the limit");
    status = modern_filter(&l, cJSON_GetObjectItemCaseSensitive(params, "notifications"));
    if (status != 0) {
        subs_listener_release(&l);
        return jsonrpc_error(id, JSONRPC_INVALID_PARAMS,
                             status == -2 ? "Invalid params: resourceSubscriptions lists more "
                                            "than 4096 resources"
                                          : "Invalid params: 'notifications' is "
                                            "required and must be a SubscriptionFilter",
                             NULL);
    }
    /* The stored copy is acknowledged before any notification can be sent to it. */
    status = subs_listen(&srv->subs, &l, modern_acknowledge, peer);
    if (status == STATUS_OK)
        return NULL;
    subs_listener_release(&l);
    if (status == STATUS_EXISTS)
        return jsonrpc_error(id, JSONRPC_INVALID_REQUEST,
                             "Invalid Request: a listen "
                             "request with this id is still open",
                             NULL);
    return jsonrpc_error(id, JSONRPC_INTERNAL_ERROR,
                         status == STATUS_LIMIT ? "Subscription limit reached" : "Out of memory",
                         NULL);
}

int modern_unlisten(struct server *srv, const struct peer *peer, const cJSON *id)
{
    return subs_unlisten(&srv->subs, peer, id);
}

struct modern_notice {
    struct server *srv;
    unsigned lists;  /* the lists that changed */
    const char *uri; /* or the resource that changed */
};

/* Tell one listener what it follows of the change. */
static void modern_notify_one(void *ctx, const struct listener *l)
{
    const struct modern_notice *n = ctx;
    const struct peer *peer = l->owner;

    for (size_t k = 0; modern_lists[k].key != NULL; k++) {
        if (n->lists & l->lists & modern_lists[k].list)
            out_notify(peer->out, registry_list_method(modern_lists[k].list), modern_tagged(l->id));
    }
    for (size_t k = 0; n->uri != NULL && k < l->nuris; k++) {
        cJSON *params;

        if (strcmp(l->uris[k], n->uri) != 0)
            continue;
        params = modern_tagged(l->id);
        cJSON_AddStringToObject(params, "uri", n->uri);
        out_notify(peer->out, "notifications/resources/updated", params);
        break;
    }
}

void modern_lists_changed(struct server *srv, unsigned lists)
{
    struct modern_notice n = {.srv = srv, .lists = lists};

    subs_each_listener(&srv->subs, modern_notify_one, &n);
}

void modern_resource_updated(struct server *srv, const char *uri)
{
    struct modern_notice n = {.srv = srv, .uri = uri};

    subs_each_listener(&srv->subs, modern_notify_one, &n);
}

/* The final reply of a listen request. */
static void modern_close_one(void *ctx, const struct listener *l)
{
    struct server *srv = ctx;
    const struct peer *peer = l->owner;
    cJSON *result = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(result, "_meta");

    cJSON_AddItemToObject(meta, MODERN_KEY_SUB, cJSON_Duplicate(l->id, 1));
    modern_result(result, srv->reg, NULL, 0);
    out_send(peer->out, jsonrpc_result(l->id, result));
}

void modern_listeners_close(struct server *srv)
{
    subs_close_listeners(&srv->subs, modern_close_one, srv);
}

/* --- Questions to the client: input requests and the retry that answers them. --- */

/* Whether key has mcph's own form, "ask-" and digits only. */
static int modern_mrtr_numbered(const char *key)
{
    const char *d;

    if (strncmp(key, "ask-", 4) != 0 || key[4] == '\0')
        return 0;
    for (d = key + 4; *d >= '0' && *d <= '9'; d++)
        ;
    return *d == '\0';
}

/* Whether a handler may name a question `name` (host->ask_key): 1 to LIMIT_MRTR_KEY of
 * A-Z a-z 0-9 _ . -, and not of mcph's own form, so a name never takes an ask-N key. */
static int modern_mrtr_name_ok(const char *name)
{
    size_t len = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-");

    return len >= 1 && len <= LIMIT_MRTR_KEY && name[len] == '\0' && !modern_mrtr_numbered(name);
}

/* Whether key is one a question may go under: "ask-N", N from 1 to LIMIT_MRTR_ASKS, or a
 * name a handler may give. */
static int modern_mrtr_key(const char *key)
{
    char *end = NULL;
    long n;

    if (key == NULL)
        return 0;
    if (!modern_mrtr_numbered(key))
        return modern_mrtr_name_ok(key);
    if (key[4] < '1' || key[4] > '9')
        return 0;
    n = strtol(key + 4, &end, 10);
    return *end == '\0' && n >= 1 && n <= LIMIT_MRTR_ASKS;
}

/* Copy the members of `from` (an object of answers, or NULL) that answers lacks into it,
 * newest source first, so an answer given now wins over one carried from before. Only keys a
 * question may go under count, and answers holds at most LIMIT_MRTR_ASKS (as many as a call
 * may ask): a client's forged state or inputResponses with thousands of keys costs one pass
 * and a search of a bounded object for each, not a search of every key so far; past the
 * bound, what the client sent more is ignored, like any key nothing asked under. */
static void modern_mrtr_merge(cJSON *answers, const cJSON *from)
{
    int n = cJSON_GetArraySize(answers);
    const cJSON *e;

    if (answers == NULL)
        return;
    cJSON_ArrayForEach(e, from)
    {
        cJSON *copy;

        if (n >= LIMIT_MRTR_ASKS)
            return;
        if (!modern_mrtr_key(e->string) ||
            cJSON_GetObjectItemCaseSensitive(answers, e->string) != NULL)
            continue;
        copy = cJSON_Duplicate(e, 1);
        if (copy != NULL && cJSON_AddItemToObject(answers, e->string, copy))
            n++;
        else
            cJSON_Delete(copy);
    }
}

/* The seal of a state's text under key: base64 of its HMAC-SHA256 (owned; NULL: no memory). */
static char *modern_mrtr_seal(const unsigned char *key, size_t keylen, const char *text, size_t len)
{
    unsigned char mac[SHA256_BYTES];

    sha256_hmac(key, keylen, text, len, mac);
    return base64_encode(mac, sizeof(mac));
}

/* A sealed requestState ("STATE.SEAL") checked under key: the STATE part (owned), or NULL
 * when the seal is missing or wrong. */
static char *modern_mrtr_unseal(const unsigned char *key, size_t keylen, const char *sealed)
{
    const char *dot = strrchr(sealed, '.');
    char *want, *state = NULL;

    if (dot == NULL)
        return NULL;
    want = modern_mrtr_seal(key, keylen, sealed, (size_t)(dot - sealed));
    if (want != NULL && strlen(want) == strlen(dot + 1) &&
        sha256_equal(want, dot + 1, strlen(want)))
        state = strndup(sealed, (size_t)(dot - sealed));
    free(want);
    return state;
}

int modern_mrtr_begin(struct modern_mrtr *m, const unsigned char *key, size_t keylen,
                      const cJSON *msg, const char *target)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const char *given_state =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "requestState"));
    char *b64 = given_state && key ? modern_mrtr_unseal(key, keylen, given_state)
                : given_state      ? strdup(given_state)
                                   : NULL;
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *given = cJSON_GetObjectItemCaseSensitive(params, "inputResponses");
    size_t len = 0;
    unsigned char *text = b64 ? base64_decode(b64, &len) : NULL;
    /* A state costing more than a message may is none of ours: its questions come again. */
    cJSON *state = text && !mcph_json_over((const char *)text, len, LIMIT_JSON_COST, NULL, NULL)
                       ? cJSON_ParseWithLength((const char *)text, len)
                       : NULL;
    const char *bound = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(state, "n"));
    const cJSON *earlier = cJSON_GetObjectItemCaseSensitive(state, "a");
    const char *origin = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(state, "o"));
    int status = given_state != NULL && key != NULL && b64 == NULL ? STATUS_INVALID : STATUS_OK;

    free(b64);
    memset(m, 0, sizeof(*m));
    m->key = key;
    m->keylen = keylen;
    m->answers = cJSON_CreateObject();
    /* A state made for another request (method and target) is ignored: the questions come
     * again. Only objects of answers count: anything else in "a" is not one of ours. */
    if (!cJSON_IsString(method) ||
        !cJSON_Compare(cJSON_GetObjectItemCaseSensitive(state, "m"), method, 1) || bound == NULL ||
        strcmp(bound, target) != 0 || !cJSON_IsObject(earlier))
        earlier = NULL;
    modern_mrtr_merge(m->answers, cJSON_IsObject(given) ? given : NULL);
    modern_mrtr_merge(m->answers, earlier);
    /* A retry is the same request as the round whose state it carries: the same origin. */
    if (earlier != NULL && origin != NULL && modern_origin_ok(origin))
        memcpy(m->origin, origin, strlen(origin) + 1);
    /* Otherwise made when the handler first asks for it (modern_origin). */
    cJSON_Delete(state);
    free(text);
    return status;
}

int modern_origin_ok(const char *text)
{
    size_t n = 0;

    if (text == NULL)
        return 0;
    for (; text[n] != '\0'; n++) {
        char c = text[n];

        if (n >= MODERN_ORIGIN_MAX ||
            !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == ':' || c == '-'))
            return 0;
    }
    return n > 0;
}

int modern_origin_fresh(char *out)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char rnd[MODERN_ORIGIN_FRESH / 2];

    out[0] = '\0';
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
        return STATUS_IO;
    for (size_t i = 0; i < sizeof(rnd); i++) {
        out[2 * i] = hex[rnd[i] >> 4];
        out[2 * i + 1] = hex[rnd[i] & 15];
    }
    out[MODERN_ORIGIN_FRESH] = '\0';
    return STATUS_OK;
}

const char *modern_origin(struct modern_mrtr *m)
{
    struct timespec now;

    if (m->origin[0] != '\0' || modern_origin_fresh(m->origin) == STATUS_OK)
        return m->origin;
    /* No two requests alive at once share m's address, nor one later the same instant. */
    clock_gettime(CLOCK_MONOTONIC, &now);
    snprintf(m->origin, sizeof(m->origin), "p%ld-%lx-%lld.%09ld", (long)getpid(),
             (unsigned long)(uintptr_t)m, (long long)now.tv_sec, now.tv_nsec);
    return m->origin;
}

/* Record that a question of this run went under name (a new one). */
static int modern_mrtr_used(struct modern_mrtr *m, const char *name)
{
    cJSON *copy;

    if (m->named == NULL && (m->named = cJSON_CreateArray()) == NULL)
        return MCPH_ERR_NOMEM;
    copy = cJSON_CreateString(name);
    if (copy == NULL || !cJSON_AddItemToArray(m->named, copy)) {
        cJSON_Delete(copy);
        return MCPH_ERR_NOMEM;
    }
    return MCPH_OK;
}

int modern_mrtr_name(struct modern_mrtr *m, const char *name)
{
    const cJSON *e;

    if (name == NULL) {
        m->next[0] = '\0';
        return MCPH_OK;
    }
    if (!modern_mrtr_name_ok(name))
        return MCPH_ERR_INVALID;
    cJSON_ArrayForEach(e, m->named)
    {
        if (strcmp(e->valuestring, name) == 0)
            return MCPH_ERR_INVALID;
    }
    memcpy(m->next, name, strlen(name) + 1);
    return MCPH_OK;
}

int modern_mrtr_pass(struct modern_mrtr *m, int asked)
{
    int status = asked && m->next[0] != '\0' ? modern_mrtr_used(m, m->next) : MCPH_OK;

    m->next[0] = '\0';
    return status;
}

int modern_mrtr_ask(struct modern_mrtr *m, const char *method, cJSON *params, cJSON **answer)
{
    char key[LIMIT_MRTR_KEY + 1];
    const cJSON *given;
    cJSON *request;

    /* The n-th question of a run is keyed "ask-n", the same n in every retry, unless the
     * handler named it; n counts the named ones too, so naming one shifts no other key. */
    if (m->nasks >= LIMIT_MRTR_ASKS) {
        m->next[0] = '\0';
        cJSON_Delete(params);
        return MCPH_ERR_LIMIT;
    }
    m->nasks++;
    if (m->next[0] == '\0') {
        snprintf(key, sizeof(key), "ask-%d", m->nasks);
    } else {
        memcpy(key, m->next, sizeof(key));
        if (modern_mrtr_pass(m, 1) != MCPH_OK) {
            cJSON_Delete(params);
            return MCPH_ERR_NOMEM;
        }
    }
    given = cJSON_GetObjectItemCaseSensitive(m->answers, key);
    if (cJSON_IsObject(given)) {
        cJSON_Delete(params);
        *answer = cJSON_Duplicate(given, 1);
        return *answer != NULL ? MCPH_OK : MCPH_ERR_NOMEM;
    }
    request = cJSON_CreateObject();
    if (request == NULL || (m->requests == NULL && (m->requests = cJSON_CreateObject()) == NULL)) {
        cJSON_Delete(request);
        cJSON_Delete(params);
        return MCPH_ERR_NOMEM;
    }
    cJSON_AddStringToObject(request, "method", method);
    if (params != NULL)
        cJSON_AddItemToObject(request, "params", params);
    cJSON_AddItemToObject(m->requests, key, request);
    return MCPH_ERR_AGAIN;
}

/* requestState: the answers so far, bound to the request they belong to (method and target).
 * It only carries what the client itself answered, so a client that alters it can only
 * change its own answers; a state for another request is ignored. */
static char *modern_mrtr_state(const struct modern_mrtr *m, const cJSON *msg, const char *target)
{
    cJSON *state = cJSON_CreateObject();
    char *text, *b64;

    cJSON_AddStringToObject(state, "m",
                            cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "method")));
    cJSON_AddStringToObject(state, "n", target);
    cJSON_AddItemToObject(state, "a", cJSON_Duplicate(m->answers, 1));
    /* A handler that never asked for the origin kept nothing under it: a retry may get a new
     * one. */
    if (m->origin[0] != '\0')
        cJSON_AddStringToObject(state, "o", m->origin);
    text = cJSON_PrintUnformatted(state);
    cJSON_Delete(state);
    if (text == NULL)
        return NULL;
    b64 = base64_encode(text, strlen(text));
    free(text);
    if (b64 != NULL && m->key != NULL) {
        char *seal = modern_mrtr_seal(m->key, m->keylen, b64, strlen(b64));
        struct strbuf sb = STRBUF_INIT;

        strbuf_addf(&sb, "%s.%s", b64, seal ? seal : "");
        free(seal);
        free(b64);
        b64 = seal != NULL && !sb.nomem ? strbuf_detach(&sb, NULL) : NULL;
        strbuf_release(&sb);
    }
    return b64;
}

cJSON *modern_mrtr_result(struct modern_mrtr *m, const struct registry *reg, const cJSON *msg,
                          const char *target)
{
    cJSON *result;
    char *state;

    if (m->requests == NULL)
        return NULL;
    result = cJSON_CreateObject();
    state = modern_mrtr_state(m, msg, target);
    cJSON_AddStringToObject(result, "resultType", "input_required");
    cJSON_AddItemToObject(result, "inputRequests", m->requests);
    m->requests = NULL;
    if (state != NULL)
        cJSON_AddStringToObject(result, "requestState", state);
    free(state);
    modern_result(result, reg, NULL, 0);
    return result;
}

void modern_mrtr_release(struct modern_mrtr *m)
{
    if (m == NULL)
        return;
    cJSON_Delete(m->answers);
    cJSON_Delete(m->requests);
    cJSON_Delete(m->named);
    memset(m, 0, sizeof(*m));
}
