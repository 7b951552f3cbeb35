/*
 * jwt.c: a JWS compact token taken apart and its claims checked (jwt.h); the signature itself
 * goes to jwt_keys.c, which hands it to libcrypto.
 */
#include "lib/jwt.h"

#include "lib/status.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The algorithms accepted: anything else ("none", HS256, ...) is refused before any key is
 * looked at. */
static const char *const jwt_algs[] = {"RS256", "PS256", "ES256", "ES384", "EdDSA", NULL};

static int jwt_b64url_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '-')
        return 62;
    if (c == '_')
        return 63;
    return -1;
}

int jwt_b64url_decode(const char *in, size_t len, unsigned char *out, size_t *outlen)
{
    unsigned long acc = 0;
    int bits = 0;
    size_t n = 0;

    *outlen = 0;
    if (len % 4 == 1)
        return STATUS_INVALID;
    for (size_t i = 0; i < len; i++) {
        int v = jwt_b64url_value(in[i]);

        if (v < 0)
            return STATUS_INVALID;
        acc = ((acc << 6) | (unsigned long)v) & 0xffffffUL;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (unsigned char)((acc >> bits) & 0xff);
        }
    }
    /* The bits left over must be zero (a canonical encoding). */
    if ((acc & ((1UL << bits) - 1)) != 0)
        return STATUS_INVALID;
    *outlen = n;
    return STATUS_OK;
}

/* One base64url part of the token decoded into a new NUL-terminated buffer (owned), or NULL
 * (*status says why). */
static unsigned char *jwt_part(const char *in, size_t len, size_t *outlen, int *status)
{
    unsigned char *out = malloc(len * 3 / 4 + 2);

    if (out == NULL) {
        *status = STATUS_NOMEM;
        return NULL;
    }
    *status = jwt_b64url_decode(in, len, out, outlen);
    if (*status != STATUS_OK) {
        free(out);
        return NULL;
    }
    out[*outlen] = '\0';
    return out;
}

/* A part that is a JSON object (owned), or NULL. */
static cJSON *jwt_json_part(const char *in, size_t len, int *status)
{
    size_t n;
    unsigned char *raw = jwt_part(in, len, &n, status);
    cJSON *obj;

    if (raw == NULL)
        return NULL;
    obj = cJSON_ParseWithLength((const char *)raw, n);
    free(raw);
    if (obj == NULL || !cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        *status = STATUS_INVALID;
        return NULL;
    }
    return obj;
}

static int jwt_alg_ok(const char *alg)
{
    for (size_t i = 0; alg != NULL && jwt_algs[i] != NULL; i++) {
        if (strcmp(alg, jwt_algs[i]) == 0)
            return 1;
    }
    return 0;
}

/* The header's typ, when present (RFC 9068 section 4): "at+jwt" (or its media type
 * "application/at+jwt"), or "JWT", which many identity providers put on their access tokens;
 * any other (an ID token's or a logout token's type, say) is another kind of JWT signed by the
 * same keys, not an access token. Compared without regard to case (RFC 7515 4.1.9). */
static int jwt_typ_ok(const cJSON *typ)
{
    static const char *const ok[] = {"at+jwt", "application/at+jwt", "JWT", NULL};

    if (typ == NULL)
        return 1;
    for (size_t i = 0; cJSON_IsString(typ) && ok[i] != NULL; i++) {
        if (strcasecmp(typ->valuestring, ok[i]) == 0)
            return 1;
    }
    return 0;
}

/* A numeric claim: 1 with *v when present and a number, 0 when absent, -1 when not a
 * number. */
static int jwt_time(const cJSON *payload, const char *name, long long *v)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(payload, name);

    if (c == NULL)
        return 0;
    if (!cJSON_IsNumber(c) || c->valuedouble < 0 || c->valuedouble > 1e15)
        return -1;
    *v = (long long)c->valuedouble;
    return 1;
}

static int jwt_aud_ok(const cJSON *payload, const char *audience)
{
    const cJSON *aud = cJSON_GetObjectItemCaseSensitive(payload, "aud");
    const cJSON *one;

    if (cJSON_IsString(aud))
        return strcmp(aud->valuestring, audience) == 0;
    if (!cJSON_IsArray(aud))
        return 0;
    cJSON_ArrayForEach(one, aud)
    {
        if (cJSON_IsString(one) && strcmp(one->valuestring, audience) == 0)
            return 1;
    }
    return 0;
}

/* The time claims: exp required; nbf and iat when present. */
static const char *jwt_times_problem(const cJSON *payload, const struct jwt_rules *r)
{
    long long exp = 0, nbf = 0, iat = 0;
    int has;

    has = jwt_time(payload, "exp", &exp);
    if (has <= 0)
        return has == 0 ? "the token has no exp" : "exp is not a number";
    if (r->now >= exp + r->leeway_s)
        return "the token has expired";
    has = jwt_time(payload, "nbf", &nbf);
    if (has < 0)
        return "nbf is not a number";
    if (has > 0 && r->now < nbf - r->leeway_s)
        return "the token is not valid yet (nbf)";
    has = jwt_time(payload, "iat", &iat);
    if (has < 0)
        return "iat is not a number";
    if (has > 0 && iat > r->now + r->leeway_s)
        return "the token was issued in the future (iat)";
    return NULL;
}

/* The claims of a payload whose signature verified: NULL when the rules hold, else why. */
static const char *jwt_claims_problem(const cJSON *payload, const struct jwt_rules *r)
{
    const cJSON *iss = cJSON_GetObjectItemCaseSensitive(payload, "iss");
    const cJSON *sub = cJSON_GetObjectItemCaseSensitive(payload, "sub");

    if (!cJSON_IsString(iss) || strcmp(iss->valuestring, r->issuer) != 0)
        return "the token's issuer (iss) is not the one configured";
    if (!jwt_aud_ok(payload, r->audience))
        return "the token's audience (aud) is not this resource";
    if (!cJSON_IsString(sub) || sub->valuestring[0] == '\0')
        return "the token has no subject (sub)";
    return jwt_times_problem(payload, r);
}

/* The header: its alg accepted, its kid (borrowed from header, or NULL). */
static const char *jwt_header_problem(const cJSON *header, const char **alg, const char **kid)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(header, "alg");
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(header, "kid");
    const cJSON *crit = cJSON_GetObjectItemCaseSensitive(header, "crit");

    if (!cJSON_IsString(a))
        return "the token's header has no alg";
    if (!jwt_alg_ok(a->valuestring))
        return "the token's alg is not accepted (RS256, PS256, ES256, ES384, EdDSA)";
    if (k != NULL && (!cJSON_IsString(k) || strlen(k->valuestring) >= JWT_KID_MAX))
        return "the token's kid is not a string";
    if (!jwt_typ_ok(cJSON_GetObjectItemCaseSensitive(header, "typ")))
        return "the token's typ is not at+jwt (RFC 9068) or JWT: not an access token";
    /* RFC 7515 4.1.11: extensions that must be understood; mcph understands none. */
    if (crit != NULL)
        return "the token's header has crit extensions";
    *alg = a->valuestring;
    *kid = k ? k->valuestring : NULL;
    return NULL;
}

/* The three parts of a compact JWS: dots[0] and dots[1] are where the dots are. */
static int jwt_split(const char *token, size_t len, size_t dots[2])
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++) {
        if (token[i] != '.')
            continue;
        if (n == 2)
            return STATUS_INVALID;
        dots[n++] = i;
    }
    if (n != 2 || dots[0] == 0 || dots[1] == dots[0] + 1 || dots[1] + 1 == len)
        return STATUS_INVALID;
    return STATUS_OK;
}

/* The signature of token over its first two parts, by the keys. */
static int jwt_check_signature(const char *token, const size_t dots[2], size_t len,
                               const struct jwt_keys *keys, const char *alg, const char *kid,
                               const char **reason)
{
    size_t siglen;
    int status;
    unsigned char *sig = jwt_part(token + dots[1] + 1, len - dots[1] - 1, &siglen, &status);

    if (sig == NULL) {
        *reason = "the token's signature is not base64url";
        return status;
    }
    status =
        jwt_keys_verify(keys, alg, kid, (const unsigned char *)token, dots[1], sig, siglen, reason);
    free(sig);
    return status;
}

int jwt_verify(const char *token, size_t len, const struct jwt_keys *keys,
               const struct jwt_rules *rules, cJSON **payload, const char **reason)
{
    size_t dots[2];
    cJSON *header = NULL, *body = NULL;
    const char *alg = NULL, *kid = NULL;
    int status;

    *payload = NULL;
    *reason = "the token is not a JWS (three base64url parts)";
    if (len > JWT_MAX_BYTES) {
        *reason = "the token is too long";
        return STATUS_INVALID;
    }
    status = jwt_split(token, len, dots);
    if (status == STATUS_OK) {
        *reason = "the token's header or payload is not a base64url-encoded JSON object";
        header = jwt_json_part(token, dots[0], &status);
    }
    if (status == STATUS_OK)
        body = jwt_json_part(token + dots[0] + 1, dots[1] - dots[0] - 1, &status);
    if (status == STATUS_OK) {
        *reason = jwt_header_problem(header, &alg, &kid);
        status = *reason ? STATUS_INVALID : STATUS_OK;
    }
    if (status == STATUS_OK)
        status = jwt_check_signature(token, dots, len, keys, alg, kid, reason);
    if (status == STATUS_OK) {
        *reason = jwt_claims_problem(body, rules);
        status = *reason ? STATUS_INVALID : STATUS_OK;
    }
    cJSON_Delete(header);
    if (status != STATUS_OK) {
        cJSON_Delete(body);
        return status;
    }
    *payload = body;
    *reason = NULL;
    return STATUS_OK;
}
