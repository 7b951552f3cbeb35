/*
 * mrtr.c: a 2026-07-28 call's questions and answers, and the requestState that carries the
 * answers from one round to its retry (sealed, and bound to who asked, over HTTP).
 */
#include "calls/mrtr.h"

#include "lib/base64.h"
#include "lib/sha256.h"
#include "lib/status.h"
#include "lib/strbuf.h"
#include "served/decorate.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* Whether key has mcph's own form, "ask-" and digits only. */
static int mrtr_numbered(const char *key)
{
    const char *d;

    if (strncmp(key, "ask-", 4) != 0 || key[4] == '\0')
        return 0;
    for (d = key + 4; *d >= '0' && *d <= '9'; d++)
        ;
    return *d == '\0';
}

/* Whether a text is a name of the free form: 1 to LIMIT_MRTR_KEY of A-Z a-z 0-9 _ . -, and
 * not of mcph's own form. */
static int mrtr_name_free(const char *name)
{
    size_t len = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-");

    return len >= 1 && len <= LIMIT_MRTR_KEY && name[len] == '\0' && !mrtr_numbered(name);
}

/* Whether key is one a question may go under: "ask-N", N from 1 to LIMIT_MRTR_ASKS written
 * without leading zeros, or a name of the free form. */
static int mrtr_key(const char *key)
{
    char *end = NULL;
    long n;

    if (key == NULL)
        return 0;
    if (!mrtr_numbered(key))
        return mrtr_name_free(key);
    if (key[4] < '1' || key[4] > '9')
        return 0;
    n = strtol(key + 4, &end, 10);
    return *end == '\0' && n >= 1 && n <= LIMIT_MRTR_ASKS;
}

/* Whether a name this run went under already (a name given, or an ask-N taken). */
static int mrtr_taken(const struct mrtr *m, const char *name)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, m->named)
    {
        if (strcmp(e->valuestring, name) == 0)
            return 1;
    }
    return 0;
}

/* Copy the members of `from` (an object of answers, or NULL) that answers lacks into it,
 * newest source first, so an answer given now wins over one carried from before. Only keys a
 * question may go under count, and answers holds at most LIMIT_MRTR_ASKS (as many as a call
 * may ask): a client's forged state or inputResponses with thousands of keys costs one pass
 * and a search of a bounded object for each, not a search of every key so far; past the
 * bound, what the client sent more is ignored, like any key nothing asked under. */
static void mrtr_merge(cJSON *answers, const cJSON *from)
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
        if (!mrtr_key(e->string) || cJSON_GetObjectItemCaseSensitive(answers, e->string) != NULL)
            continue;
        copy = cJSON_Duplicate(e, 1);
        if (copy != NULL && cJSON_AddItemToObject(answers, e->string, copy))
            n++;
        else
            cJSON_Delete(copy);
    }
}

/* The seal of a state's text under key: base64 of its HMAC-SHA256 (owned; NULL: no memory). */
static char *mrtr_seal(const unsigned char *key, size_t keylen, const char *text, size_t len)
{
    unsigned char mac[SHA256_BYTES];

    sha256_hmac(key, keylen, text, len, mac);
    return base64_encode(mac, sizeof(mac));
}

/* A sealed requestState ("STATE.SEAL") checked under key: the STATE part (owned), or NULL
 * when the seal is missing or wrong. */
static char *mrtr_unseal(const unsigned char *key, size_t keylen, const char *sealed)
{
    const char *dot = strrchr(sealed, '.');
    char *want, *state = NULL;

    if (dot == NULL)
        return NULL;
    want = mrtr_seal(key, keylen, sealed, (size_t)(dot - sealed));
    if (want != NULL && strlen(want) == strlen(dot + 1) &&
        sha256_equal(want, dot + 1, strlen(want)))
        state = strndup(sealed, (size_t)(dot - sealed));
    free(want);
    return state;
}

static int mrtr_name_cmp(const void *a, const void *b)
{
    return strcmp((*(cJSON *const *)a)->string, (*(cJSON *const *)b)->string);
}

/* Sort the members of every object in node by name, so that two texts of the same JSON print
 * alike. STATUS_OK or STATUS_NOMEM. Nesting is bounded by the parser's limit. */
static int mrtr_sort(cJSON *node)
{
    cJSON *c, **kids;
    size_t n = 0;

    cJSON_ArrayForEach(c, node)
    {
        if (mrtr_sort(c) != STATUS_OK)
            return STATUS_NOMEM;
        n++;
    }
    if (!cJSON_IsObject(node) || n < 2)
        return STATUS_OK;
    kids = malloc(n * sizeof(*kids));
    if (kids == NULL)
        return STATUS_NOMEM;
    for (size_t i = 0; i < n; i++)
        kids[i] = cJSON_DetachItemViaPointer(node, node->child);
    qsort(kids, n, sizeof(*kids), mrtr_name_cmp);
    /* Added as array items, members keep their names. */
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(node, kids[i]);
    free(kids);
    return STATUS_OK;
}

/* The digest (hex) of the request a state belongs to: its method and its params, without
 * what changes from one round to the next (inputResponses, requestState) or says nothing of
 * the call (_meta), members in name order. A retry of the same call has the same digest;
 * another tool, URI, prompt or other arguments has another. "" when out of memory. */
static void mrtr_digest(const cJSON *msg, char out[2 * SHA256_BYTES + 1])
{
    static const char hex[] = "0123456789abcdef";
    const char *method = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(msg, "method"));
    cJSON *params = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(msg, "params"), 1);
    unsigned char sum[SHA256_BYTES];
    struct sha256 c;
    char *text;

    out[0] = '\0';
    cJSON_DeleteItemFromObjectCaseSensitive(params, "inputResponses");
    cJSON_DeleteItemFromObjectCaseSensitive(params, "requestState");
    cJSON_DeleteItemFromObjectCaseSensitive(params, "_meta");
    text = mrtr_sort(params) == STATUS_OK ? cJSON_PrintUnformatted(params) : NULL;
    if (params == NULL || text != NULL) {
        sha256_init(&c);
        sha256_update(&c, method ? method : "", method ? strlen(method) + 1 : 1);
        sha256_update(&c, text ? text : "", text ? strlen(text) : 0);
        sha256_final(&c, sum);
        for (size_t i = 0; i < SHA256_BYTES; i++) {
            out[2 * i] = hex[sum[i] >> 4];
            out[2 * i + 1] = hex[sum[i] & 15];
        }
        out[2 * SHA256_BYTES] = '\0';
    }
    free(text);
    cJSON_Delete(params);
}

/* Whether a state this server sealed belongs here: the same principal, the same request, not
 * expired. NULL, or why not (the end of an "Invalid requestState: " message). */
static const char *mrtr_unbound(const struct mrtr *m, const cJSON *state)
{
    const char *who = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(state, "p"));
    const char *digest = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(state, "d"));
    const cJSON *expires = cJSON_GetObjectItemCaseSensitive(state, "x");

    if (who == NULL || strcmp(who, m->who) != 0)
        return "it was issued to another principal; retry without it";
    if (digest == NULL || m->digest[0] == '\0' || strcmp(digest, m->digest) != 0)
        return "it belongs to another request (another method, name, URI or arguments); retry "
               "without it";
    if (!cJSON_IsNumber(expires) || expires->valuedouble < (double)m->now)
        return "it has expired; retry without it";
    return NULL;
}

/* The state a retry carries, checked: its text parsed (owned; NULL for none, one not sealed
 * under key, or one costing more than a message may), and *status STATUS_INVALID with
 * m->refused set when it must be refused. */
static cJSON *mrtr_given_state(struct mrtr *m, const cJSON *params, int *status)
{
    const char *given =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, "requestState"));
    char *b64 = given && m->key ? mrtr_unseal(m->key, m->keylen, given)
                : given         ? strdup(given)
                                : NULL;
    size_t len = 0;
    unsigned char *text = b64 ? base64_decode(b64, &len) : NULL;
    /* A state costing more than a message may is none of ours: its questions come again. */
    cJSON *state = text && !mcph_json_over((const char *)text, len, LIMIT_JSON_COST, NULL, NULL)
                       ? cJSON_ParseWithLength((const char *)text, len)
                       : NULL;

    *status = STATUS_OK;
    if (given != NULL && m->key != NULL && b64 == NULL)
        m->refused = "it was not sealed by this server: it was altered, or sealed under another "
                     "state_key_file; retry without it";
    else if (state != NULL && m->key != NULL)
        m->refused = mrtr_unbound(m, state);
    if (m->refused != NULL) {
        *status = STATUS_INVALID;
        cJSON_Delete(state);
        state = NULL;
    }
    free(b64);
    free(text);
    return state;
}

/* Keep text with the call; `round` starts a new round: the answers and names so far are
 * forgotten. */
static int mrtr_keep_as(struct mrtr *m, const char *text, int round)
{
    char *copy = NULL;

    if (text != NULL && strnlen(text, LIMIT_MRTR_KEPT + 1) > LIMIT_MRTR_KEPT)
        return STATUS_LIMIT;
    if (text != NULL && text[0] != '\0' && (copy = strdup(text)) == NULL)
        return STATUS_NOMEM;
    if (round && m->answers != NULL) {
        cJSON *none = cJSON_CreateObject();

        if (none == NULL) {
            free(copy);
            return STATUS_NOMEM;
        }
        cJSON_Delete(m->answers);
        m->answers = none;
    }
    if (round) {
        cJSON_Delete(m->named);
        m->named = NULL;
    }
    free(m->kept);
    m->kept = copy;
    return STATUS_OK;
}

int mrtr_begin(struct mrtr *m, const unsigned char *key, size_t keylen, const cJSON *msg,
               const char *target)
{
    return mrtr_begin_as(m, key, keylen, msg, target, NULL, (long long)time(NULL));
}

int mrtr_begin_as(struct mrtr *m, const unsigned char *key, size_t keylen, const cJSON *msg,
                  const char *target, const char *who, long long now)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *given = cJSON_GetObjectItemCaseSensitive(params, "inputResponses");
    const cJSON *earlier;
    const char *bound, *origin;
    cJSON *state;
    int status;

    memset(m, 0, sizeof(*m));
    m->key = key;
    m->keylen = keylen;
    m->now = now;
    snprintf(m->who, sizeof(m->who), "%s", who ? who : "");
    /* The digest binds a state to its request: needed to check one given, or to seal one
     * (mrtr_result); most calls do neither. */
    if (key != NULL && cJSON_GetObjectItemCaseSensitive(params, "requestState") != NULL)
        mrtr_digest(msg, m->digest);
    m->answers = cJSON_CreateObject();
    state = mrtr_given_state(m, params, &status);
    bound = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(state, "n"));
    earlier = cJSON_GetObjectItemCaseSensitive(state, "a");
    origin = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(state, "o"));
    /* Unsealed (stdio), a state made for another request (method and target) is ignored: the
     * questions come again. Only objects of answers count: anything else in "a" is not one of
     * ours. */
    if (!cJSON_IsString(method) ||
        !cJSON_Compare(cJSON_GetObjectItemCaseSensitive(state, "m"), method, 1) || bound == NULL ||
        strcmp(bound, target) != 0 || !cJSON_IsObject(earlier))
        earlier = NULL;
    mrtr_merge(m->answers, cJSON_IsObject(given) ? given : NULL);
    mrtr_merge(m->answers, earlier);
    /* A retry is the same request as the round whose state it carries: the same origin, and
     * what the handler kept for it. */
    if (earlier != NULL && origin != NULL && mrtr_origin_ok(origin))
        memcpy(m->origin, origin, strlen(origin) + 1);
    if (earlier != NULL &&
        mrtr_keep_as(m, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(state, "k")), 0) !=
            STATUS_OK) {
        /* Too long (not made by mcph) or no memory: kept() is NULL, the handler starts over. */
    }
    /* Otherwise made when the handler first asks for it (mrtr_origin). */
    cJSON_Delete(state);
    return status;
}

int mrtr_keep(struct mrtr *m, const char *text)
{
    return mrtr_keep_as(m, text, text != NULL);
}

int mrtr_origin_ok(const char *text)
{
    size_t n = 0;

    if (text == NULL)
        return 0;
    for (; text[n] != '\0'; n++) {
        char c = text[n];

        if (n >= MRTR_ORIGIN_MAX ||
            !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == ':' || c == '-'))
            return 0;
    }
    return n > 0;
}

int mrtr_origin_fresh(char *out)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char rnd[MRTR_ORIGIN_FRESH / 2];

    out[0] = '\0';
    if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
        return STATUS_IO;
    for (size_t i = 0; i < sizeof(rnd); i++) {
        out[2 * i] = hex[rnd[i] >> 4];
        out[2 * i + 1] = hex[rnd[i] & 15];
    }
    out[MRTR_ORIGIN_FRESH] = '\0';
    return STATUS_OK;
}

const char *mrtr_origin(struct mrtr *m)
{
    struct timespec now;

    if (m->origin[0] != '\0' || mrtr_origin_fresh(m->origin) == STATUS_OK)
        return m->origin;
    /* No two requests alive at once share m's address, nor one later the same instant. */
    clock_gettime(CLOCK_MONOTONIC, &now);
    snprintf(m->origin, sizeof(m->origin), "p%ld-%lx-%lld.%09ld", (long)getpid(),
             (unsigned long)(uintptr_t)m, (long long)now.tv_sec, now.tv_nsec);
    return m->origin;
}

/* Record that a question of this run went under name (a new one). */
static int mrtr_used(struct mrtr *m, const char *name)
{
    cJSON *copy;

    if (m->named == NULL && (m->named = cJSON_CreateArray()) == NULL)
        return STATUS_NOMEM;
    copy = cJSON_CreateString(name);
    if (copy == NULL || !cJSON_AddItemToArray(m->named, copy)) {
        cJSON_Delete(copy);
        return STATUS_NOMEM;
    }
    return STATUS_OK;
}

int mrtr_name(struct mrtr *m, const char *name)
{
    if (name == NULL) {
        m->next[0] = '\0';
        return STATUS_OK;
    }
    /* An ask-N name is taken as any other (a relayed server's own numbering), and checked
     * against the ask-N of this run's unnamed questions too (mrtr_ask). */
    if (!mrtr_key(name) || mrtr_taken(m, name))
        return STATUS_INVALID;
    memcpy(m->next, name, strlen(name) + 1);
    return STATUS_OK;
}

int mrtr_pass(struct mrtr *m, int asked)
{
    int status = asked && m->next[0] != '\0' ? mrtr_used(m, m->next) : STATUS_OK;

    m->next[0] = '\0';
    return status;
}

int mrtr_ask(struct mrtr *m, const char *method, cJSON *params, cJSON **answer)
{
    char key[LIMIT_MRTR_KEY + 1];
    const cJSON *given;
    cJSON *request;

    /* The n-th question of a run is keyed "ask-n", the same n in every retry, unless the
     * handler named it; n counts the named ones too, so naming one shifts no other key. */
    if (m->nasks >= LIMIT_MRTR_ASKS) {
        m->next[0] = '\0';
        cJSON_Delete(params);
        return STATUS_LIMIT;
    }
    m->nasks++;
    if (m->next[0] == '\0') {
        snprintf(key, sizeof(key), "ask-%d", m->nasks);
        /* An earlier question of this run was named so: this one cannot go under it. */
        if (mrtr_taken(m, key)) {
            cJSON_Delete(params);
            return STATUS_INVALID;
        }
        if (mrtr_used(m, key) != STATUS_OK) {
            cJSON_Delete(params);
            return STATUS_NOMEM;
        }
    } else {
        memcpy(key, m->next, sizeof(key));
        if (mrtr_pass(m, 1) != STATUS_OK) {
            cJSON_Delete(params);
            return STATUS_NOMEM;
        }
    }
    given = cJSON_GetObjectItemCaseSensitive(m->answers, key);
    if (cJSON_IsObject(given)) {
        cJSON_Delete(params);
        *answer = cJSON_Duplicate(given, 1);
        return *answer != NULL ? STATUS_OK : STATUS_NOMEM;
    }
    request = cJSON_CreateObject();
    if (request == NULL || (m->requests == NULL && (m->requests = cJSON_CreateObject()) == NULL)) {
        cJSON_Delete(request);
        cJSON_Delete(params);
        return STATUS_NOMEM;
    }
    cJSON_AddStringToObject(request, "method", method);
    if (params != NULL)
        cJSON_AddItemToObject(request, "params", params);
    cJSON_AddItemToObject(m->requests, key, request);
    return STATUS_AGAIN;
}

/* requestState: the answers so far, bound to the request they belong to (method and target).
 * It only carries what the client itself answered, so a client that alters it can only
 * change its own answers; a state for another request is ignored. */
static char *mrtr_state(const struct mrtr *m, const cJSON *msg, const char *target)
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
    if (m->kept != NULL)
        cJSON_AddStringToObject(state, "k", m->kept);
    /* Sealed, it is bound to who asked, to this request, and to a time: the MRTR page's
     * SHOULDs. Unsealed (stdio, the local user) a client could forge these anyway. */
    if (m->key != NULL) {
        cJSON_AddStringToObject(state, "p", m->who);
        cJSON_AddStringToObject(state, "d", m->digest);
        cJSON_AddNumberToObject(state, "x", (double)(m->now + LIMIT_MRTR_STATE_S));
    }
    text = cJSON_PrintUnformatted(state);
    cJSON_Delete(state);
    if (text == NULL)
        return NULL;
    b64 = base64_encode(text, strlen(text));
    free(text);
    if (b64 != NULL && m->key != NULL) {
        char *seal = mrtr_seal(m->key, m->keylen, b64, strlen(b64));
        struct strbuf sb = STRBUF_INIT;

        strbuf_addf(&sb, "%s.%s", b64, seal ? seal : "");
        free(seal);
        free(b64);
        b64 = seal != NULL && !sb.nomem ? strbuf_detach(&sb, NULL) : NULL;
        strbuf_release(&sb);
    }
    return b64;
}

cJSON *mrtr_result(struct mrtr *m, const struct registry *reg, const cJSON *msg, const char *target)
{
    cJSON *result;
    char *state;

    if (m->requests == NULL)
        return NULL;
    result = cJSON_CreateObject();
    if (m->key != NULL && m->digest[0] == '\0')
        mrtr_digest(msg, m->digest); /* the state sealed is bound to this request */
    state = mrtr_state(m, msg, target);
    cJSON_AddStringToObject(result, "resultType", "input_required");
    cJSON_AddItemToObject(result, "inputRequests", m->requests);
    m->requests = NULL;
    if (state != NULL)
        cJSON_AddStringToObject(result, "requestState", state);
    free(state);
    decorate_result(result, reg, NULL, 0);
    return result;
}

void mrtr_release(struct mrtr *m)
{
    if (m == NULL)
        return;
    cJSON_Delete(m->answers);
    cJSON_Delete(m->requests);
    cJSON_Delete(m->named);
    free(m->kept);
    memset(m, 0, sizeof(*m));
}
