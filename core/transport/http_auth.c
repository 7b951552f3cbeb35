/*
 * http_auth.c: who a request speaks for. The credential of each request to the endpoint
 * becomes its principal (wire/principal.h), or the request is refused with 401 (or 403) and
 * WWW-Authenticate. Credentials: a bearer token of [server] auth_token_file (compared in
 * constant time, tried first), then, with [server] oauth_issuer, an OAuth 2.1 access token: a
 * JWT checked against the JWKS (lib/jwt.h) for its signature, issuer, audience
 * (oauth_resource), times and the scopes of oauth_scopes. Without credentials configured every
 * request is anonymous. The Protected Resource Metadata (RFC 9728) is served without one.
 *
 * Keys and verified tokens are http_keys.c's: the JWKS is loaded by a thread of its own, never
 * on a request's thread; a request verifies with the keys in hand, and a token naming a kid
 * they lack is refused (401 invalid_token) at once while a load is flagged for it. Only a
 * request that finds no keys at all waits, HTTP_KEYS_WAIT_MS at most (http_keys.h).
 *
 * Locks: those of http_keys.c; the metadata takes srv->lock alone.
 */
#include "transport/http_int.h"

#include "lib/jwt.h"
#include "lib/log.h"
#include "lib/status.h"
#include "served/server.h"
#include "transport/http_keys.h"
#include "wire/jsonrpc.h"

#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define HTTP_OAUTH_WELL_KNOWN "/.well-known/oauth-protected-resource"
#define HTTP_OAUTH_MAX_SCOPES 64
/* Scopes are space-delimited (RFC 6749 3.3; a comma may be part of one); the URLs of
 * oauth_authorization_servers may be separated by commas as well. */
#define HTTP_OAUTH_SCOPE_SEP " \t"
#define HTTP_OAUTH_URL_SEP " \t,"

struct http_oauth {
    char *issuer; /* owned copies of the [server] keys, as at the start */
    char *resource;
    char *file;             /* owned or NULL: oauth_jwks_file */
    char *url;              /* owned or NULL: oauth_jwks_url */
    char *servers;          /* owned or NULL: oauth_authorization_servers */
    char *scopes;           /* owned or NULL: oauth_scopes */
    char *metadata;         /* owned: the resource_metadata URL of the challenges */
    char *res_path;         /* owned: the resource's path ("" for none) */
    struct jwt_lib *lib;    /* owned: libcrypto (and libcurl for a URL), opened at start */
    struct http_keys *keys; /* owned: the keys and the verified tokens */
    long long leeway_s;
    long long refresh_s;
};

/* --- Static tokens --- */

/* The bearer token against every one configured, each compared in full (constant time).
 * *which: the one it is (its line among the tokens), or -1 (none configured, or no match). */
int http_token_ok(const struct http *h, const char *authorization, int *which)
{
    unsigned char given[SHA256_BYTES];
    int ok = 0;

    *which = -1;
    if (h->ntokens == 0)
        return 1;
    if (authorization == NULL || strncasecmp(authorization, "Bearer ", 7) != 0)
        return 0;
    authorization += 7;
    authorization += strspn(authorization, " ");
    sha256_hmac("mcph", 4, authorization, strlen(authorization), given);
    for (size_t i = 0; i < h->ntokens; i++) {
        int same = sha256_equal(given, h->tokens[i], SHA256_BYTES);

        ok |= same;
        *which = same ? (int)i : *which;
    }
    return ok;
}

int http_parse_tokens(struct http *h, char *text)
{
    int status = STATUS_OK;

    for (char *line = text, *next; status == STATUS_OK && line != NULL && *line; line = next) {
        size_t len = strcspn(line, "\r\n");

        next = line[len] ? line + len + 1 : NULL;
        line[len] = '\0';
        while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
            line[--len] = '\0';
        line += strspn(line, " \t");
        if (*line == '\0' || *line == '#')
            continue;
        if (h->ntokens == HTTP_MAX_TOKENS)
            status = STATUS_LIMIT;
        else
            sha256_hmac("mcph", 4, line, strlen(line), h->tokens[h->ntokens++]);
    }
    if (status == STATUS_OK && h->ntokens == 0)
        status = STATUS_INVALID;
    return status;
}

/* A request without a credential (none configured): on a listener off loopback, its client
 * address is who it is (for [server] rate and [limit.NAME] per principal); on loopback every
 * such request is the one local user. */
static struct principal *http_anonymous(const struct http *h, struct MHD_Connection *mc)
{
    char addr[INET6_ADDRSTRLEN + 8], id[sizeof(addr) + 8], label[sizeof(addr) + 16];

    if (h->loopback || !http_client_address(h, mc, addr, sizeof(addr)))
        return principal_new(PRINCIPAL_ANONYMOUS, "anonymous", "anonymous");
    snprintf(id, sizeof(id), "addr:%s", addr);
    snprintf(label, sizeof(label), "address %s", addr);
    return principal_new(PRINCIPAL_ANONYMOUS, id, label);
}

static struct principal *http_token_principal(const struct http *h, struct MHD_Connection *mc,
                                              int which)
{
    char id[32], label[32];
    struct principal *p;

    if (which < 0)
        return http_anonymous(h, mc);
    snprintf(id, sizeof(id), "token:%d", which + 1);
    snprintf(label, sizeof(label), "token %d", which + 1);
    p = principal_new(PRINCIPAL_TOKEN, id, label);
    if (p != NULL) {
        p->token = which;
        memcpy(p->digest, h->tokens[which], sizeof(p->digest));
    }
    return p;
}

/* --- Refusals --- */

/* 401 (or 403 for insufficient_scope) with its challenge. error: NULL (no credential sent),
 * "invalid_token" or "insufficient_scope"; why: the error_description, or NULL. */
static enum MHD_Result http_challenge(const struct http *h, struct MHD_Connection *mc,
                                      const char *error, const char *why)
{
    const struct http_oauth *o = h->oauth;
    int forbidden = error != NULL && strcmp(error, "insufficient_scope") == 0;
    struct strbuf head = STRBUF_INIT;
    char msg[256];
    char *text;
    struct MHD_Response *r;

    if (o != NULL) {
        (void)strbuf_addf(&head, "Bearer resource_metadata=\"%s\"", o->metadata);
        if (o->scopes != NULL)
            (void)strbuf_addf(&head, ", scope=\"%s\"", o->scopes);
    } else {
        (void)strbuf_addstr(&head, "Bearer realm=\"mcph\"");
    }
    if (error != NULL)
        (void)strbuf_addf(&head, ", error=\"%s\"", error);
    if (error != NULL && why != NULL)
        (void)strbuf_addf(&head, ", error_description=\"%s\"", why);
    snprintf(msg, sizeof(msg), "%s: %s", forbidden ? "Forbidden" : "Unauthorized",
             why             ? why
             : error != NULL ? "the bearer token is not valid"
                             : "send Authorization: Bearer TOKEN");
    text = http_error_text(JSONRPC_SERVER_ERROR, msg);
    r = http_json_response(h, text ? text : "", text ? strlen(text) : 0);
    free(text);
    if (r != NULL && !head.nomem)
        h->lib.add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, head.buf);
    strbuf_release(&head);
    return http_queue(h, mc, forbidden ? MHD_HTTP_FORBIDDEN : MHD_HTTP_UNAUTHORIZED, r);
}

/* --- Verified tokens --- */

/* The scopes of the token: "scope" (words) and "scp" (an array of strings, or words). */
static int http_oauth_scopes(struct principal *p, const cJSON *claim)
{
    const cJSON *one;
    int status = STATUS_OK;

    if (cJSON_IsString(claim)) {
        char *copy = strdup(claim->valuestring), *save = NULL;

        if (copy == NULL)
            return STATUS_NOMEM;
        for (char *w = strtok_r(copy, " ", &save); w != NULL && status == STATUS_OK;
             w = strtok_r(NULL, " ", &save)) {
            if (p->nscopes < HTTP_OAUTH_MAX_SCOPES && !principal_has_scope(p, w))
                status = principal_add_scope(p, w);
        }
        free(copy);
        return status;
    }
    if (!cJSON_IsArray(claim))
        return STATUS_OK;
    cJSON_ArrayForEach(one, claim)
    {
        if (status == STATUS_OK && cJSON_IsString(one) && p->nscopes < HTTP_OAUTH_MAX_SCOPES &&
            !principal_has_scope(p, one->valuestring))
            status = principal_add_scope(p, one->valuestring);
    }
    return status;
}

/* The principal of a verified token (owned), payload taken (freed on failure), or NULL. */
static struct principal *http_oauth_principal(const struct http_oauth *o, cJSON *payload,
                                              const unsigned char *digest)
{
    const char *sub = cJSON_GetObjectItemCaseSensitive(payload, "sub")->valuestring;
    char id[PRINCIPAL_ID_MAX];
    int n = snprintf(id, sizeof(id), "jwt:%s#%s", o->issuer, sub);
    struct principal *p;

    /* Too long to keep whole: the hash of both, so two subjects never share an id. */
    if (n < 0 || (size_t)n >= sizeof(id)) {
        unsigned char d[SHA256_BYTES];

        sha256_hmac(o->issuer, strlen(o->issuer), sub, strlen(sub), d);
        n = snprintf(id, sizeof(id), "jwt:");
        for (size_t i = 0; i < SHA256_BYTES; i++)
            n += snprintf(id + n, sizeof(id) - (size_t)n, "%02x", d[i]);
    }
    p = principal_new(PRINCIPAL_JWT, id, sub);
    if (p == NULL || http_oauth_scopes(p, cJSON_GetObjectItemCaseSensitive(payload, "scope")) ||
        http_oauth_scopes(p, cJSON_GetObjectItemCaseSensitive(payload, "scp"))) {
        principal_drop(p);
        cJSON_Delete(payload);
        return NULL;
    }
    p->expires = (long long)cJSON_GetObjectItemCaseSensitive(payload, "exp")->valuedouble;
    memcpy(p->digest, digest, SHA256_BYTES);
    p->claims = payload;
    return p;
}

/* Verify token (its digest given) against the keys in hand. A kid they lack flags a load and
 * is refused now: the next load (HTTP_KEYS_RETRY_S at most away) brings it, if published.
 * STATUS_OK with *out (owned) and *gen (the keys' generation), else *why. */
static int http_oauth_verify(struct http *h, const char *token, const unsigned char *digest,
                             struct principal **out, unsigned long long *gen, const char **why)
{
    const struct http_oauth *o = h->oauth;
    struct jwt_rules rules = {.issuer = o->issuer,
                              .audience = o->resource,
                              .leeway_s = o->leeway_s,
                              .now = (long long)time(NULL)};
    struct jwt_keys *keys = http_keys_get(o->keys, gen);
    cJSON *payload = NULL;
    int status = jwt_verify(token, strlen(token), keys, &rules, &payload, why);

    if (status == STATUS_NOT_FOUND && keys == NULL)
        *why = "no JWKS is loaded";
    else if (status == STATUS_NOT_FOUND)
        http_keys_want(o->keys);
    jwt_keys_drop(keys);
    if (status != STATUS_OK)
        return status;
    *out = http_oauth_principal(o, payload, digest);
    return *out ? STATUS_OK : STATUS_NOMEM;
}

/* The first scope of oauth_scopes who lacks, copied into buf; or NULL (it holds them all).
 * Scopes are space-delimited (RFC 6749 3.3): a comma belongs to the scope. */
static const char *http_oauth_lacks(const struct http_oauth *o, const struct principal *who,
                                    char *buf, size_t size)
{
    const char *s = o->scopes;

    while (s != NULL && *s) {
        size_t n;

        s += strspn(s, HTTP_OAUTH_SCOPE_SEP);
        n = strcspn(s, HTTP_OAUTH_SCOPE_SEP);
        if (n == 0)
            break;
        snprintf(buf, size, "%.*s", (int)n, s);
        if (!principal_has_scope(who, buf))
            return buf;
        s += n;
    }
    return NULL;
}

/* An OAuth access token: 1 with *out, or 0 with the refusal queued in *rc. */
static int http_oauth_auth(struct http *h, struct MHD_Connection *mc, const char *token,
                           struct principal **out, enum MHD_Result *rc)
{
    unsigned char digest[SHA256_BYTES];
    char lacking[128], why[256];
    const char *reason = NULL;
    struct sha256 c;
    struct principal *who;
    unsigned long long gen = 0;
    int status = STATUS_OK;

    sha256_init(&c);
    sha256_update(&c, token, strlen(token));
    sha256_final(&c, digest);
    who = http_keys_cached(h->oauth->keys, digest);
    if (who == NULL) {
        status = http_oauth_verify(h, token, digest, &who, &gen, &reason);
        if (status == STATUS_OK)
            http_keys_keep(h->oauth->keys, who, gen);
    }
    if (status == STATUS_NOMEM) {
        *rc = MHD_NO;
        return 0;
    }
    if (status != STATUS_OK) {
        log_msg(&h->srv->log, LOG_DEBUG, NULL, "HTTP: an OAuth token was refused: %s", reason);
        *rc = http_challenge(h, mc, "invalid_token", reason);
        return 0;
    }
    if (http_oauth_lacks(h->oauth, who, lacking, sizeof(lacking)) != NULL) {
        snprintf(why, sizeof(why), "the token lacks the scope %s", lacking);
        principal_drop(who);
        *rc = http_challenge(h, mc, "insufficient_scope", why);
        return 0;
    }
    *out = who;
    return 1;
}

/* The token of a Bearer Authorization value, or NULL. */
static const char *http_bearer(const char *authorization)
{
    if (authorization == NULL || strncasecmp(authorization, "Bearer ", 7) != 0)
        return NULL;
    authorization += 7;
    authorization += strspn(authorization, " ");
    return *authorization ? authorization : NULL;
}

int http_auth(struct http *h, struct MHD_Connection *mc, const char *authorization,
              struct principal **out, enum MHD_Result *rc)
{
    const char *token = http_bearer(authorization);
    int which = -1;

    *out = NULL;
    if (h->oauth == NULL || h->ntokens > 0) {
        int ok = http_token_ok(h, authorization, &which);

        if (ok && (h->oauth == NULL || which >= 0)) {
            *out = http_token_principal(h, mc, which);
            *rc = MHD_NO;
            return *out != NULL;
        }
        if (h->oauth == NULL) {
            *rc = http_challenge(h, mc, authorization ? "invalid_token" : NULL, NULL);
            return 0;
        }
    }
    if (token == NULL) {
        *rc = http_challenge(h, mc, NULL, NULL);
        return 0;
    }
    return http_oauth_auth(h, mc, token, out, rc);
}

/* --- The Protected Resource Metadata (RFC 9728) --- */

/* Each word of words (any of the characters of between between) into arr, once. */
static void http_oauth_words(cJSON *arr, const char *words, const char *between)
{
    char one[128];

    while (words != NULL && *words) {
        size_t n;
        const cJSON *have;
        int dup = 0;

        words += strspn(words, between);
        n = strcspn(words, between);
        if (n == 0)
            break;
        snprintf(one, sizeof(one), "%.*s", (int)n, words);
        words += n;
        cJSON_ArrayForEach(have, arr)
        {
            dup |= strcmp(have->valuestring, one) == 0;
        }
        if (!dup && cJSON_GetArraySize(arr) < HTTP_OAUTH_MAX_SCOPES)
            cJSON_AddItemToArray(arr, cJSON_CreateString(one));
    }
}

/* The metadata document (owned text), or NULL. The scopes of [access.NAME] sections are read
 * under srv->lock: a reload changes them. */
static char *http_oauth_document(struct http *h)
{
    const struct http_oauth *o = h->oauth;
    struct server *srv = h->srv;
    cJSON *doc = cJSON_CreateObject();
    cJSON *servers = cJSON_AddArrayToObject(doc, "authorization_servers");
    cJSON *scopes = cJSON_CreateArray(), *methods = cJSON_AddArrayToObject(doc, "bearer_methods_"
                                                                                "supported");
    char *text = NULL;

    cJSON_AddStringToObject(doc, "resource", o->resource);
    http_oauth_words(servers, o->servers ? o->servers : o->issuer, HTTP_OAUTH_URL_SEP);
    http_oauth_words(scopes, o->scopes, HTTP_OAUTH_SCOPE_SEP);
    pthread_mutex_lock(&srv->lock);
    for (size_t i = 0; i < srv->cfg.naccess; i++)
        http_oauth_words(scopes, srv->cfg.access[i].scopes, HTTP_OAUTH_SCOPE_SEP);
    pthread_mutex_unlock(&srv->lock);
    if (cJSON_GetArraySize(scopes) > 0) {
        cJSON_AddItemToObject(doc, "scopes_supported", scopes);
        scopes = NULL;
    }
    cJSON_AddItemToArray(methods, cJSON_CreateString("header"));
    cJSON_Delete(scopes);
    text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    return text;
}

/* Whether url is one of the metadata's paths: the well-known one alone, or followed by the
 * endpoint's path or the resource's. */
static int http_oauth_is_meta(const struct http *h, const char *url)
{
    size_t n = strlen(HTTP_OAUTH_WELL_KNOWN);

    if (strncmp(url, HTTP_OAUTH_WELL_KNOWN, n) != 0)
        return 0;
    url += n;
    return *url == '\0' || strcmp(url, h->path) == 0 || strcmp(url, h->oauth->res_path) == 0;
}

int http_auth_route(struct http *h, struct MHD_Connection *mc, const char *url, const char *method,
                    enum MHD_Result *rc)
{
    struct MHD_Response *r;
    char *text;

    if (h->oauth == NULL || !http_oauth_is_meta(h, url))
        return 0;
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0) {
        *rc = http_fail(h, mc, MHD_HTTP_METHOD_NOT_ALLOWED, JSONRPC_SERVER_ERROR,
                        "Method not allowed: the resource metadata is read with GET");
        return 1;
    }
    text = http_oauth_document(h);
    r = text ? http_json_response(h, text, strlen(text)) : NULL;
    free(text);
    if (r != NULL)
        h->lib.add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "max-age=300");
    *rc = http_queue(h, mc, MHD_HTTP_OK, r);
    return 1;
}

/* --- Start and stop --- */

/* The challenge's resource_metadata URL and the resource's path, from oauth_resource. */
static int http_oauth_urls(struct http_oauth *o)
{
    const char *r = o->resource, *auth = strstr(r, "://");
    size_t origin = auth ? (size_t)(auth + 3 - r) + strcspn(auth + 3, "/?#") : strlen(r);
    size_t path = strcspn(r + origin, "?#");
    struct strbuf sb = STRBUF_INIT;

    if (path == 1 && r[origin] == '/')
        path = 0;
    o->res_path = strndup(r + origin, path);
    (void)strbuf_addf(&sb, "%.*s%s%s", (int)origin, r, HTTP_OAUTH_WELL_KNOWN,
                      o->res_path ? o->res_path : "");
    o->metadata = sb.nomem ? NULL : strbuf_detach(&sb, NULL);
    strbuf_release(&sb);
    return o->res_path && o->metadata ? STATUS_OK : STATUS_NOMEM;
}

static char *http_oauth_dup(const char *s, int *nomem)
{
    char *copy = s ? strdup(s) : NULL;

    *nomem |= s != NULL && copy == NULL;
    return copy;
}

/* h->oauth from the [server] keys (cfg), nothing loaded yet. */
static int http_oauth_new(struct http *h, const struct config *cfg)
{
    struct http_oauth *o = calloc(1, sizeof(*o));
    int nomem = 0;

    if (o == NULL)
        return STATUS_NOMEM;
    h->oauth = o;
    o->issuer = http_oauth_dup(cfg->oauth_issuer, &nomem);
    o->resource = http_oauth_dup(cfg->oauth_resource, &nomem);
    o->file = http_oauth_dup(cfg->oauth_jwks_file, &nomem);
    o->url = http_oauth_dup(cfg->oauth_jwks_url, &nomem);
    o->servers = http_oauth_dup(cfg->oauth_authorization_servers, &nomem);
    o->scopes = http_oauth_dup(cfg->oauth_scopes, &nomem);
    o->leeway_s = cfg->oauth_leeway_s;
    o->refresh_s = cfg->oauth_jwks_refresh_s > 0 ? cfg->oauth_jwks_refresh_s : 300;
    if (nomem)
        return STATUS_NOMEM;
    return http_oauth_urls(o);
}

/* The keeper of the keys, and their first load. */
static int http_oauth_keeper(struct http *h)
{
    struct http_oauth *o = h->oauth;
    struct http_keys_conf conf = {.lib = o->lib,
                                  .file = o->file,
                                  .url = o->url,
                                  .refresh_s = o->refresh_s,
                                  .log = &h->srv->log};
    int status = http_keys_new(&conf, &o->keys);

    if (status != STATUS_OK)
        return status;
    status = http_keys_load(o->keys);
    /* A file that cannot be used is the operator's mistake: say so now. A URL may answer
     * later (the identity provider starting too): tokens are refused until it does. */
    if (status != STATUS_OK && o->file != NULL) {
        log_msg(&h->srv->log, LOG_ERROR, NULL,
                "%s: [server] oauth_jwks_file = %s: no usable key; it needs a JWKS ({\"keys\": "
                "[...]}) of RSA, EC P-256/P-384 or Ed25519 public keys",
                h->srv->cfg.file, o->file);
        return STATUS_CONFIG;
    }
    return http_keys_run(o->keys);
}

int http_auth_start(struct http *h)
{
    const struct config *cfg = &h->srv->cfg;
    char why[256];
    int status;

    if (cfg->oauth_issuer == NULL)
        return STATUS_OK;
    status = http_oauth_new(h, cfg);
    if (status == STATUS_OK)
        status = jwt_lib_open(h->oauth->url != NULL, &h->oauth->lib, why, sizeof(why));
    if (status == STATUS_IO)
        log_msg(&h->srv->log, LOG_ERROR, NULL, "%s: [server] oauth_issuer: %s", cfg->file, why);
    if (status != STATUS_OK)
        return status;
    return http_oauth_keeper(h);
}

void http_auth_free(struct http *h)
{
    struct http_oauth *o = h->oauth;

    if (o == NULL)
        return;
    /* A loader that does not stop still uses o's strings and lib: leave them all. */
    if (http_keys_stop(o->keys) != STATUS_OK)
        return;
    http_keys_free(o->keys);
    jwt_lib_close(o->lib);
    free(o->issuer);
    free(o->resource);
    free(o->file);
    free(o->url);
    free(o->servers);
    free(o->scopes);
    free(o->metadata);
    free(o->res_path);
    free(o);
    h->oauth = NULL;
}
