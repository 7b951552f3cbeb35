/*
 * jwt_keys.c: a JSON Web Key Set made into libcrypto keys (EVP_PKEY_fromdata from RSA n/e and
 * EC crv/x/y; Ed25519's raw x), a signature checked with one of them (EVP_DigestVerify), and a
 * key set fetched over HTTP(S) with libcurl (jwt.h); both libraries through jwt_lib.h.
 */
#include "lib/jwt.h"

#include "lib/status.h"

#include "lib/jwt_lib.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum jwt_kty {
    JWT_RSA = 1,
    JWT_P256,
    JWT_P384,
    JWT_ED25519,
};

struct jwt_key {
    char kid[JWT_KID_MAX]; /* "" when the JWK has none */
    char alg[16];          /* the JWK's alg, or "" */
    int kty;               /* enum jwt_kty */
    EVP_PKEY *pkey;        /* owned */
};

struct jwt_keys {
    atomic_int refs;
    const struct jwt_lib *lib; /* borrowed: outlives the set */
    size_t n;
    struct jwt_key keys[JWT_MAX_KEYS];
};

/* Each accepted alg: the key type it needs, its digest, and how its signature is coded. */
static const struct {
    const char *alg;
    int kty;
    const char *md; /* NULL: none (EdDSA) */
    int pss;
    size_t ec_half; /* ECDSA: the size of r and of s in the JOSE signature; 0: not ECDSA */
} jwt_alg_table[] = {
    {.alg = "RS256", .kty = JWT_RSA, .md = "SHA256"},
    {.alg = "PS256", .kty = JWT_RSA, .md = "SHA256", .pss = 1},
    {.alg = "ES256", .kty = JWT_P256, .md = "SHA256", .ec_half = 32},
    {.alg = "ES384", .kty = JWT_P384, .md = "SHA384", .ec_half = 48},
    {.alg = "EdDSA", .kty = JWT_ED25519},
    {0},
};

/* A base64url member of a JWK decoded (owned, *len bytes), or NULL. */
static unsigned char *jwt_jwk_bytes(const cJSON *jwk, const char *name, size_t *len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(jwk, name);
    unsigned char *out;
    size_t n;

    if (!cJSON_IsString(v) || (n = strlen(v->valuestring)) == 0 || n > 4096)
        return NULL;
    out = malloc(n * 3 / 4 + 1);
    if (out != NULL && jwt_b64url_decode(v->valuestring, n, out, len) != STATUS_OK) {
        free(out);
        out = NULL;
    }
    return out;
}

/* An EVP_PKEY of type name from params, or NULL. */
static EVP_PKEY *jwt_fromdata(const struct jwt_lib *L, const char *name, OSSL_PARAM_BLD *bld)
{
    OSSL_PARAM *params = L->OSSL_PARAM_BLD_to_param(bld);
    EVP_PKEY_CTX *ctx = L->EVP_PKEY_CTX_new_from_name(NULL, name, NULL);
    EVP_PKEY *pkey = NULL;

    if (params == NULL || ctx == NULL || L->EVP_PKEY_fromdata_init(ctx) <= 0 ||
        L->EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
        pkey = NULL;
    L->EVP_PKEY_CTX_free(ctx);
    L->OSSL_PARAM_free(params);
    return pkey;
}

static EVP_PKEY *jwt_rsa_key(const struct jwt_lib *L, const cJSON *jwk)
{
    size_t nlen = 0, elen = 0;
    unsigned char *n = jwt_jwk_bytes(jwk, "n", &nlen), *e = jwt_jwk_bytes(jwk, "e", &elen);
    BIGNUM *bn = n ? L->BN_bin2bn(n, (int)nlen, NULL) : NULL;
    BIGNUM *be = e ? L->BN_bin2bn(e, (int)elen, NULL) : NULL;
    OSSL_PARAM_BLD *bld = L->OSSL_PARAM_BLD_new();
    EVP_PKEY *pkey = NULL;

    /* RFC 7518 3.3: 2048 bits at least. */
    if (bn != NULL && be != NULL && bld != NULL && L->BN_num_bits(bn) >= 2048 &&
        L->OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn) &&
        L->OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, be))
        pkey = jwt_fromdata(L, "RSA", bld);
    L->OSSL_PARAM_BLD_free(bld);
    L->BN_free(bn);
    L->BN_free(be);
    free(n);
    free(e);
    return pkey;
}

/* An EC public key: the point 04 || x || y on group (half: the size of a coordinate). */
static EVP_PKEY *jwt_ec_key(const struct jwt_lib *L, const cJSON *jwk, const char *group,
                            size_t half)
{
    size_t xlen = 0, ylen = 0;
    unsigned char *x = jwt_jwk_bytes(jwk, "x", &xlen), *y = jwt_jwk_bytes(jwk, "y", &ylen);
    unsigned char point[1 + 2 * 66];
    OSSL_PARAM_BLD *bld = L->OSSL_PARAM_BLD_new();
    EVP_PKEY *pkey = NULL;

    if (x != NULL && y != NULL && bld != NULL && xlen == half && ylen == half) {
        point[0] = 0x04;
        memcpy(point + 1, x, half);
        memcpy(point + 1 + half, y, half);
        if (L->OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, group, 0) &&
            L->OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, 1 + 2 * half))
            pkey = jwt_fromdata(L, "EC", bld);
    }
    L->OSSL_PARAM_BLD_free(bld);
    free(x);
    free(y);
    return pkey;
}

static EVP_PKEY *jwt_ed25519_key(const struct jwt_lib *L, const cJSON *jwk)
{
    size_t xlen = 0;
    unsigned char *x = jwt_jwk_bytes(jwk, "x", &xlen);
    EVP_PKEY *pkey = NULL;

    if (x != NULL && xlen == 32)
        pkey = L->EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, x, xlen);
    free(x);
    return pkey;
}

static const char *jwt_str(const cJSON *obj, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* One JWK into key; 0 when it is not one mcph can use for signatures (skipped). */
static int jwt_key_from(const struct jwt_lib *L, const cJSON *jwk, struct jwt_key *key)
{
    const char *kty = jwt_str(jwk, "kty"), *crv = jwt_str(jwk, "crv");
    const char *use = jwt_str(jwk, "use"), *kid = jwt_str(jwk, "kid"), *alg = jwt_str(jwk, "alg");

    if (kty == NULL || (use != NULL && strcmp(use, "sig") != 0))
        return 0;
    if ((kid != NULL && strlen(kid) >= sizeof(key->kid)) ||
        (alg != NULL && strlen(alg) >= sizeof(key->alg)))
        return 0;
    memset(key, 0, sizeof(*key));
    if (strcmp(kty, "RSA") == 0) {
        key->kty = JWT_RSA;
        key->pkey = jwt_rsa_key(L, jwk);
    } else if (strcmp(kty, "EC") == 0 && crv != NULL && strcmp(crv, "P-256") == 0) {
        key->kty = JWT_P256;
        key->pkey = jwt_ec_key(L, jwk, "P-256", 32);
    } else if (strcmp(kty, "EC") == 0 && crv != NULL && strcmp(crv, "P-384") == 0) {
        key->kty = JWT_P384;
        key->pkey = jwt_ec_key(L, jwk, "P-384", 48);
    } else if (strcmp(kty, "OKP") == 0 && crv != NULL && strcmp(crv, "Ed25519") == 0) {
        key->kty = JWT_ED25519;
        key->pkey = jwt_ed25519_key(L, jwk);
    }
    if (key->pkey == NULL)
        return 0;
    snprintf(key->kid, sizeof(key->kid), "%s", kid ? kid : "");
    snprintf(key->alg, sizeof(key->alg), "%s", alg ? alg : "");
    return 1;
}

int jwt_keys_parse(const struct jwt_lib *L, const char *text, size_t len, struct jwt_keys **out,
                   char *why, size_t size)
{
    cJSON *doc = cJSON_ParseWithLength(text, len);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "keys"), *jwk;
    struct jwt_keys *ks;

    *out = NULL;
    if (!cJSON_IsArray(list)) {
        snprintf(why, size, "not a JWKS: a JSON object with a \"keys\" array is expected");
        cJSON_Delete(doc);
        return STATUS_INVALID;
    }
    ks = calloc(1, sizeof(*ks));
    if (ks == NULL) {
        cJSON_Delete(doc);
        return STATUS_NOMEM;
    }
    atomic_init(&ks->refs, 1);
    ks->lib = L;
    cJSON_ArrayForEach(jwk, list)
    {
        if (ks->n < JWT_MAX_KEYS && jwt_key_from(L, jwk, &ks->keys[ks->n]))
            ks->n++;
    }
    cJSON_Delete(doc);
    if (ks->n == 0) {
        snprintf(why, size,
                 "no usable key in the JWKS (RSA of 2048 bits or more, EC P-256 or P-384, "
                 "OKP Ed25519; use absent or \"sig\")");
        jwt_keys_drop(ks);
        return STATUS_INVALID;
    }
    *out = ks;
    return STATUS_OK;
}

struct jwt_keys *jwt_keys_hold(struct jwt_keys *keys)
{
    if (keys != NULL)
        atomic_fetch_add(&keys->refs, 1);
    return keys;
}

void jwt_keys_drop(struct jwt_keys *keys)
{
    if (keys == NULL || atomic_fetch_sub(&keys->refs, 1) != 1)
        return;
    for (size_t i = 0; i < keys->n; i++)
        keys->lib->EVP_PKEY_free(keys->keys[i].pkey);
    free(keys);
}

size_t jwt_keys_count(const struct jwt_keys *keys)
{
    return keys ? keys->n : 0;
}

int jwt_keys_has(const struct jwt_keys *keys, const char *kid)
{
    for (size_t i = 0; kid != NULL && keys != NULL && i < keys->n; i++) {
        if (strcmp(keys->keys[i].kid, kid) == 0)
            return 1;
    }
    return 0;
}

/* JOSE's ECDSA signature (r || s, half bytes each) as the DER libcrypto reads (owned, *len),
 * or NULL. */
static unsigned char *jwt_ecdsa_der(const struct jwt_lib *L, const unsigned char *sig, size_t half,
                                    int *len)
{
    ECDSA_SIG *es = L->ECDSA_SIG_new();
    BIGNUM *r = L->BN_bin2bn(sig, (int)half, NULL), *s = L->BN_bin2bn(sig + half, (int)half, NULL);
    unsigned char *der = NULL;

    *len = 0;
    if (es != NULL && r != NULL && s != NULL && L->ECDSA_SIG_set0(es, r, s) == 1) {
        r = s = NULL; /* es owns them now */
        *len = L->i2d_ECDSA_SIG(es, &der);
    }
    L->BN_free(r);
    L->BN_free(s);
    L->ECDSA_SIG_free(es);
    return *len > 0 ? der : NULL;
}

/* sig over msg with one key, for the alg at table row a: 1 when it verifies. */
static int jwt_key_verify(const struct jwt_lib *L, const struct jwt_key *key, size_t a,
                          const unsigned char *msg, size_t msglen, const unsigned char *sig,
                          size_t siglen)
{
    EVP_MD_CTX *ctx = L->EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    unsigned char *der = NULL;
    int derlen = 0, ok = 0;

    if (jwt_alg_table[a].ec_half != 0) {
        if (siglen != 2 * jwt_alg_table[a].ec_half)
            goto out;
        der = jwt_ecdsa_der(L, sig, jwt_alg_table[a].ec_half, &derlen);
        if (der == NULL)
            goto out;
        sig = der;
        siglen = (size_t)derlen;
    }
    if (ctx == NULL || L->EVP_DigestVerifyInit_ex(ctx, &pctx, jwt_alg_table[a].md, NULL, NULL,
                                                  key->pkey, NULL) != 1)
        goto out;
    if (jwt_alg_table[a].pss &&
        (L->EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) <= 0 ||
         L->EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) <= 0))
        goto out;
    ok = L->EVP_DigestVerify(ctx, sig, siglen, msg, msglen) == 1;
out:
    L->CRYPTO_free(der, __FILE__, __LINE__);
    L->EVP_MD_CTX_free(ctx);
    return ok;
}

/* Whether key may check a signature of the alg at table row a. */
static int jwt_key_fits(const struct jwt_key *key, size_t a)
{
    return key->kty == jwt_alg_table[a].kty &&
           (key->alg[0] == '\0' || strcmp(key->alg, jwt_alg_table[a].alg) == 0);
}

int jwt_keys_verify(const struct jwt_keys *keys, const char *alg, const char *kid,
                    const unsigned char *msg, size_t msglen, const unsigned char *sig,
                    size_t siglen, const char **reason)
{
    size_t a = 0;
    int named = 0, fits = 0;

    while (jwt_alg_table[a].alg != NULL && strcmp(jwt_alg_table[a].alg, alg) != 0)
        a++;
    if (jwt_alg_table[a].alg == NULL) {
        *reason = "the token's alg is not accepted";
        return STATUS_INVALID;
    }
    /* Without a kid, one key of the set may fit the alg, no more: a token must not make an
     * unauthenticated request cost a signature check per key. */
    for (size_t i = 0; kid == NULL && keys != NULL && i < keys->n; i++)
        fits += jwt_key_fits(&keys->keys[i], a);
    if (fits > 1) {
        *reason = "the token names no kid, and more than one key of the JWKS fits its alg";
        return STATUS_INVALID;
    }
    fits = 0;
    for (size_t i = 0; keys != NULL && i < keys->n; i++) {
        const struct jwt_key *key = &keys->keys[i];

        if (kid != NULL && strcmp(key->kid, kid) != 0)
            continue;
        named = 1;
        if (!jwt_key_fits(key, a))
            continue;
        fits = 1;
        if (jwt_key_verify(keys->lib, key, a, msg, msglen, sig, siglen))
            return STATUS_OK;
    }
    if (kid != NULL && !named) {
        *reason = "the token's kid names no key of the JWKS";
        return STATUS_NOT_FOUND;
    }
    *reason =
        fits ? "the token's signature does not verify" : "no key of the JWKS fits the token's alg";
    return STATUS_INVALID;
}

/* --- Fetching a key set --- */

static size_t jwt_fetch_write(char *data, size_t size, size_t n, void *cls)
{
    struct strbuf *out = cls;

    if (out->len + size * n > JWT_KEYS_MAX_BYTES || strbuf_add(out, data, size * n) != 0)
        return 0; /* libcurl stops: CURLE_WRITE_ERROR */
    return size * n;
}

int jwt_keys_fetch(const struct jwt_lib *L, const char *url, long timeout_ms, struct strbuf *out,
                   char *why, size_t size)
{
    CURL *c = L->curl_easy_init();
    long code = 0;
    CURLcode rc;

    if (c == NULL) {
        snprintf(why, size, "libcurl could not start a transfer");
        return STATUS_IO;
    }
    L->curl_easy_setopt(c, CURLOPT_URL, url);
    L->curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    L->curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    L->curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    L->curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    L->curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, jwt_fetch_write);
    L->curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
    L->curl_easy_setopt(c, CURLOPT_USERAGENT, "mcph");
    rc = L->curl_easy_perform(c);
    if (rc == CURLE_OK)
        L->curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    L->curl_easy_cleanup(c);
    if (rc != CURLE_OK)
        snprintf(why, size, "%s",
                 rc == CURLE_WRITE_ERROR ? "the JWKS is too large (256 KiB at most)"
                                         : L->curl_easy_strerror(rc));
    else if (code != 200)
        snprintf(why, size, "HTTP status %ld", code);
    return rc == CURLE_OK && code == 200 ? STATUS_OK : STATUS_IO;
}
