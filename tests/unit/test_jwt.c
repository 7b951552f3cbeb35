/*
 * test_jwt.c: lib/jwt.h. Keys are made and tokens signed here with libcrypto (RS256, PS256,
 * ES256, EdDSA); each is checked against a JWKS written from those keys, and every refusal
 * is tried: a bad signature, another key, alg none, HS256 keyed with the RSA key, the wrong
 * issuer or audience, the times at the leeway's edges, malformed parts, an unknown kid.
 */
#include "check.h"

#include "lib/jwt.h"
#include "lib/status.h"

#include <cJSON.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <time.h>

#define ISS "https://issuer.test"
#define AUD "https://mcp.test/mcp"

static EVP_PKEY *rsa_key, *rsa_other, *ec_key, *ed_key;
static struct jwt_lib *lib;
static struct jwt_keys *keys;
static long long now;

static char *b64url(const unsigned char *data, size_t len)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    char *out = malloc(len * 4 / 3 + 4);
    size_t n = 0;
    unsigned long acc = 0;
    int bits = 0;

    for (size_t i = 0; i < len; i++) {
        acc = (acc << 8) | data[i];
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out[n++] = abc[(acc >> bits) & 63];
        }
    }
    if (bits > 0)
        out[n++] = abc[(acc << (6 - bits)) & 63];
    out[n] = '\0';
    return out;
}

static char *b64url_str(const char *s)
{
    return b64url((const unsigned char *)s, strlen(s));
}

static char *b64url_bn(EVP_PKEY *k, const char *name, int pad)
{
    BIGNUM *bn = NULL;
    unsigned char buf[512];
    int n;
    char *out;

    EVP_PKEY_get_bn_param(k, name, &bn);
    n = pad ? BN_bn2binpad(bn, buf, pad) : BN_bn2bin(bn, buf);
    out = b64url(buf, (size_t)n);
    BN_free(bn);
    return out;
}

/* One JWK of k with kid (and alg when not NULL) appended to arr. */
static void add_jwk(cJSON *arr, EVP_PKEY *k, const char *kid, const char *alg)
{
    cJSON *jwk = cJSON_CreateObject();
    char *a, *b;

    cJSON_AddStringToObject(jwk, "kid", kid);
    if (alg != NULL)
        cJSON_AddStringToObject(jwk, "alg", alg);
    if (EVP_PKEY_is_a(k, "RSA")) {
        a = b64url_bn(k, OSSL_PKEY_PARAM_RSA_N, 0);
        b = b64url_bn(k, OSSL_PKEY_PARAM_RSA_E, 0);
        cJSON_AddStringToObject(jwk, "kty", "RSA");
        cJSON_AddStringToObject(jwk, "n", a);
        cJSON_AddStringToObject(jwk, "e", b);
    } else if (EVP_PKEY_is_a(k, "EC")) {
        a = b64url_bn(k, OSSL_PKEY_PARAM_EC_PUB_X, 32);
        b = b64url_bn(k, OSSL_PKEY_PARAM_EC_PUB_Y, 32);
        cJSON_AddStringToObject(jwk, "kty", "EC");
        cJSON_AddStringToObject(jwk, "crv", "P-256");
        cJSON_AddStringToObject(jwk, "x", a);
        cJSON_AddStringToObject(jwk, "y", b);
    } else {
        unsigned char raw[32];
        size_t n = sizeof(raw);

        EVP_PKEY_get_raw_public_key(k, raw, &n);
        a = b64url(raw, n);
        b = NULL;
        cJSON_AddStringToObject(jwk, "kty", "OKP");
        cJSON_AddStringToObject(jwk, "crv", "Ed25519");
        cJSON_AddStringToObject(jwk, "x", a);
    }
    free(a);
    free(b);
    cJSON_AddItemToArray(arr, jwk);
}

/* The signature of msg by k for alg, in JOSE form (owned b64url). */
static char *sign(EVP_PKEY *k, const char *alg, const char *msg)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_PKEY_CTX *pctx = NULL;
    const char *md = strncmp(alg, "EdDSA", 5) == 0 ? NULL : "SHA256";
    unsigned char sig[1024];
    size_t n = sizeof(sig);
    char *out;

    EVP_DigestSignInit_ex(ctx, &pctx, md, NULL, NULL, k, NULL);
    if (strcmp(alg, "PS256") == 0) {
        EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
        EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
    }
    EVP_DigestSign(ctx, sig, &n, (const unsigned char *)msg, strlen(msg));
    EVP_MD_CTX_free(ctx);
    if (strcmp(alg, "ES256") == 0) {
        const unsigned char *p = sig;
        ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)n);
        unsigned char rs[64];

        BN_bn2binpad(ECDSA_SIG_get0_r(es), rs, 32);
        BN_bn2binpad(ECDSA_SIG_get0_s(es), rs + 32, 32);
        ECDSA_SIG_free(es);
        return b64url(rs, 64);
    }
    out = b64url(sig, n);
    return out;
}

/* A token: header and payload as given, signed by k for alg (k NULL: no signature). */
static char *token_as(EVP_PKEY *k, const char *alg, const char *header, const char *payload)
{
    char *h, *p, *s, *msg, *tok;
    size_t len;

    h = b64url_str(header);
    p = b64url_str(payload);
    len = strlen(h) + strlen(p) + 2;
    msg = malloc(len);
    snprintf(msg, len, "%s.%s", h, p);
    s = k ? sign(k, alg, msg) : strdup("");
    tok = malloc(len + strlen(s) + 1);
    snprintf(tok, len + strlen(s) + 1, "%s.%s", msg, s);
    free(h);
    free(p);
    free(s);
    free(msg);
    return tok;
}

/* A token: header {alg, kid} and payload as given, signed by k (NULL: sig as given). */
static char *token(EVP_PKEY *k, const char *alg, const char *kid, const char *payload)
{
    char header[256];

    if (kid != NULL)
        snprintf(header, sizeof(header), "{\"alg\":\"%s\",\"typ\":\"JWT\",\"kid\":\"%s\"}", alg,
                 kid);
    else
        snprintf(header, sizeof(header), "{\"alg\":\"%s\",\"typ\":\"JWT\"}", alg);
    return token_as(k, alg, header, payload);
}

/* A payload with iss, aud, sub and exp (from now), and extra members after them. */
static char *claims(const char *iss, const char *aud_json, long long exp_in, const char *extra)
{
    char *out = malloc(1024);

    snprintf(out, 1024, "{\"iss\":\"%s\",\"aud\":%s,\"sub\":\"alice\",\"exp\":%lld%s%s}", iss,
             aud_json, now + exp_in, extra ? "," : "", extra ? extra : "");
    return out;
}

static int verify(const char *tok, const char **reason)
{
    struct jwt_rules rules = {.issuer = ISS, .audience = AUD, .leeway_s = 60, .now = now};
    cJSON *payload = NULL;
    int status = jwt_verify(tok, strlen(tok), keys, &rules, &payload, reason);

    if (status == STATUS_OK && payload == NULL)
        return -100;
    cJSON_Delete(payload);
    return status;
}

/* Sign a standard payload with k/alg/kid and verify it. */
static int verify_with(EVP_PKEY *k, const char *alg, const char *kid, const char *payload)
{
    const char *reason = NULL;
    char *tok = token(k, alg, kid, payload);
    int status = verify(tok, &reason);

    free(tok);
    return status;
}

static const char *good(void)
{
    static char buf[256];

    snprintf(buf, sizeof(buf), "{\"iss\":\"%s\",\"aud\":\"%s\",\"sub\":\"alice\",\"exp\":%lld}",
             ISS, AUD, now + 300);
    return buf;
}

static void setup(void)
{
    cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "keys");
    char why[256] = "", *text;

    now = (long long)time(NULL);
    CHECK_INT_EQ(jwt_lib_open(0, &lib, why, sizeof(why)), STATUS_OK);
    rsa_key = EVP_RSA_gen(2048);
    rsa_other = EVP_RSA_gen(2048);
    ec_key = EVP_EC_gen("P-256");
    ed_key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    add_jwk(arr, rsa_key, "rsa1", NULL);
    add_jwk(arr, ec_key, "ec1", "ES256");
    add_jwk(arr, ed_key, "ed1", NULL);
    text = cJSON_PrintUnformatted(doc);
    CHECK_INT_EQ(jwt_keys_parse(lib, text, strlen(text), &keys, why, sizeof(why)), STATUS_OK);
    CHECK_INT_EQ((long long)jwt_keys_count(keys), 3);
    free(text);
    cJSON_Delete(doc);
}

static void test_signatures(void)
{
    CHECK_INT_EQ(verify_with(rsa_key, "RS256", "rsa1", good()), STATUS_OK);
    CHECK_INT_EQ(verify_with(rsa_key, "PS256", "rsa1", good()), STATUS_OK);
    CHECK_INT_EQ(verify_with(ec_key, "ES256", "ec1", good()), STATUS_OK);
    CHECK_INT_EQ(verify_with(ed_key, "EdDSA", "ed1", good()), STATUS_OK);
    /* No kid: every key that fits the alg is tried. */
    CHECK_INT_EQ(verify_with(ed_key, "EdDSA", NULL, good()), STATUS_OK);
}

static void test_bad_signatures(void)
{
    const char *reason = NULL;
    char *tok = token(rsa_key, "RS256", "rsa1", good());
    size_t n = strlen(tok);

    tok[n - 5] = tok[n - 5] == 'A' ? 'B' : 'A';
    CHECK_INT_EQ(verify(tok, &reason), STATUS_INVALID);
    CHECK_STR_HAS(reason, "signature");
    free(tok);
    /* Another key under a kid of the set. */
    CHECK_INT_EQ(verify_with(rsa_other, "RS256", "rsa1", good()), STATUS_INVALID);
    CHECK_INT_EQ(verify_with(rsa_other, "RS256", NULL, good()), STATUS_INVALID);
    /* A key of the wrong type for the alg, named by kid; and a key whose alg differs. */
    CHECK_INT_EQ(verify_with(ec_key, "ES256", "rsa1", good()), STATUS_INVALID);
    CHECK_INT_EQ(verify_with(ed_key, "EdDSA", "ec1", good()), STATUS_INVALID);
    /* A signature of the wrong size for ES256. */
    tok = token(ec_key, "ES256", "ec1", good());
    tok[strlen(tok) - 4] = '\0';
    CHECK_INT_EQ(verify(tok, &reason), STATUS_INVALID);
    free(tok);
}

static void test_algs_refused(void)
{
    const char *reason = NULL;
    char *tok = token(NULL, "none", "rsa1", good());
    char *msg, *sig;
    unsigned char mac[32];
    unsigned int maclen = 0;
    unsigned char der[1024], *p = der;
    int derlen;

    CHECK_INT_EQ(verify(tok, &reason), STATUS_INVALID); /* "h.p." */
    free(tok);
    tok = token(NULL, "none", NULL, good());
    CHECK_INT_EQ(verify(tok, &reason), STATUS_INVALID);
    free(tok);
    /* alg none with some signature part */
    tok = token(rsa_key, "RS256", "rsa1", good());
    msg = b64url_str("{\"alg\":\"none\",\"kid\":\"rsa1\"}");
    free(tok);
    tok = malloc(2048);
    sig = b64url_str(good());
    snprintf(tok, 2048, "%s.%s.AAAA", msg, sig);
    CHECK_INT_EQ(verify(tok, &reason), STATUS_INVALID);
    CHECK_STR_HAS(reason, "alg");
    free(msg);
    free(sig);
    free(tok);
    /* HS256 keyed with the RSA public key (the confusion attack). */
    derlen = i2d_PUBKEY(rsa_key, &p);
    tok = token(NULL, "HS256", "rsa1", good());
    tok[strlen(tok) - 1] = '\0'; /* drop the trailing dot: "h.p" */
    HMAC(EVP_sha256(), der, derlen, (unsigned char *)tok, strlen(tok), mac, &maclen);
    sig = b64url(mac, maclen);
    msg = malloc(4096);
    snprintf(msg, 4096, "%s.%s", tok, sig);
    CHECK_INT_EQ(verify(msg, &reason), STATUS_INVALID);
    CHECK_STR_HAS(reason, "alg");
    free(msg);
    free(sig);
    free(tok);
}

static void test_claims(void)
{
    char *c;

    c = claims("https://other.test", "\"" AUD "\"", 300, NULL);
    CHECK_INT_EQ(verify_with(rsa_key, "RS256", "rsa1", c), STATUS_INVALID);
    free(c);
    c = claims(ISS, "\"https://other.test/mcp\"", 300, NULL);
    CHECK_INT_EQ(verify_with(rsa_key, "RS256", "rsa1", c), STATUS_INVALID);
    free(c);
    c = claims(ISS, "[\"https://other.test/mcp\",\"" AUD "\"]", 300, NULL);
    CHECK_INT_EQ(verify_with(rsa_key, "RS256", "rsa1", c), STATUS_OK);
    free(c);
    c = claims(ISS, "[\"https://other.test/mcp\"]", 300, NULL);
    CHECK_INT_EQ(verify_with(rsa_key, "RS256", "rsa1", c), STATUS_INVALID);
    free(c);
    /* The audience exactly: a prefix or a longer one is another resource. */
    c = claims(ISS, "\"https://mcp.test/mcp/\"", 300, NULL);
    CHECK_INT_EQ(verify_with(rsa_key, "RS256", "rsa1", c), STATUS_INVALID);
    free(c);
    c = claims(ISS, "\"https://mcp.test\"", 300, NULL);
    CHECK_INT_EQ(verify_with(rsa_key, "RS256", "rsa1", c), STATUS_INVALID);
    free(c);
    c = malloc(256);
    snprintf(c, 256, "{\"iss\":\"%s\",\"aud\":\"%s\",\"exp\":%lld}", ISS, AUD, now + 60);
    CHECK_INT_EQ(verify_with(rsa_key, "RS256", "rsa1", c), STATUS_INVALID); /* no sub */
    snprintf(c, 256, "{\"iss\":\"%s\",\"aud\":\"%s\",\"sub\":\"a\"}", ISS, AUD);
    CHECK_INT_EQ(verify_with(rsa_key, "RS256", "rsa1", c), STATUS_INVALID); /* no exp */
    snprintf(c, 256, "{\"iss\":\"%s\",\"aud\":\"%s\",\"sub\":\"a\",\"exp\":\"soon\"}", ISS, AUD);
    CHECK_INT_EQ(verify_with(rsa_key, "RS256", "rsa1", c), STATUS_INVALID);
    free(c);
}

static void test_times(void)
{
    char extra[64], *c;

    /* exp: accepted while now < exp + leeway (60). */
    c = claims(ISS, "\"" AUD "\"", -59, NULL);
    CHECK_INT_EQ(verify_with(ed_key, "EdDSA", "ed1", c), STATUS_OK);
    free(c);
    c = claims(ISS, "\"" AUD "\"", -60, NULL);
    CHECK_INT_EQ(verify_with(ed_key, "EdDSA", "ed1", c), STATUS_INVALID);
    free(c);
    c = claims(ISS, "\"" AUD "\"", -3600, NULL);
    CHECK_INT_EQ(verify_with(ed_key, "EdDSA", "ed1", c), STATUS_INVALID);
    free(c);
    /* nbf: accepted from nbf - leeway. */
    snprintf(extra, sizeof(extra), "\"nbf\":%lld", now + 60);
    c = claims(ISS, "\"" AUD "\"", 300, extra);
    CHECK_INT_EQ(verify_with(ed_key, "EdDSA", "ed1", c), STATUS_OK);
    free(c);
    snprintf(extra, sizeof(extra), "\"nbf\":%lld", now + 61);
    c = claims(ISS, "\"" AUD "\"", 300, extra);
    CHECK_INT_EQ(verify_with(ed_key, "EdDSA", "ed1", c), STATUS_INVALID);
    free(c);
    /* iat: not after now + leeway. */
    snprintf(extra, sizeof(extra), "\"iat\":%lld", now + 60);
    c = claims(ISS, "\"" AUD "\"", 300, extra);
    CHECK_INT_EQ(verify_with(ed_key, "EdDSA", "ed1", c), STATUS_OK);
    free(c);
    snprintf(extra, sizeof(extra), "\"iat\":%lld", now + 61);
    c = claims(ISS, "\"" AUD "\"", 300, extra);
    CHECK_INT_EQ(verify_with(ed_key, "EdDSA", "ed1", c), STATUS_INVALID);
    free(c);
}

static void test_malformed(void)
{
    static const char *const bad[] = {"",
                                      "abc",
                                      "a.b",
                                      "a.b.c.d",
                                      "..",
                                      "eyJhbGciOiJFZERTQSJ9..sig",
                                      "eyJhbGciOiJFZERTQSJ9.e30=.AAAA", /* padding */
                                      "eyJhbGciOiJFZERTQSJ9.e*30.AAAA", /* outside the alphabet */
                                      "bm90IGpzb24.e30.AAAA",           /* header not JSON */
                                      "WzFd.e30.AAAA",                  /* header an array */
                                      "eyJhbGciOiJFZERTQSJ9.bm90IGpzb24.AAAA",
                                      NULL};
    const char *reason = NULL;
    char *tok;
    char hdr[128];

    for (size_t i = 0; bad[i] != NULL; i++) {
        if (!CHECK_INT_EQ(verify(bad[i], &reason), STATUS_INVALID))
            fprintf(stderr, "  token %zu: %s\n", i, bad[i]);
    }
    CHECK_INT_EQ(verify("bm90IGpzb24.e30.AAAA", &reason), STATUS_INVALID);
    CHECK_STR_HAS(reason, "JSON");
    CHECK_INT_EQ(verify("a.b", &reason), STATUS_INVALID);
    CHECK_STR_HAS(reason, "three");
    /* crit headers are refused. */
    snprintf(hdr, sizeof(hdr), "EdDSA\",\"crit\":[\"exp\"],\"x\":\"");
    tok = token(ed_key, hdr, "ed1", good());
    CHECK_INT_EQ(verify(tok, &reason), STATUS_INVALID);
    free(tok);
    /* Too long. */
    tok = malloc(JWT_MAX_BYTES + 10);
    memset(tok, 'a', JWT_MAX_BYTES + 9);
    tok[JWT_MAX_BYTES + 9] = '\0';
    CHECK_INT_EQ(verify(tok, &reason), STATUS_INVALID);
    free(tok);
}

static void test_unknown_kid(void)
{
    const char *reason = NULL;
    char *tok = token(rsa_other, "RS256", "rsa2", good());

    CHECK_INT_EQ(verify(tok, &reason), STATUS_NOT_FOUND);
    CHECK(!jwt_keys_has(keys, "rsa2"));
    CHECK(jwt_keys_has(keys, "rsa1"));
    free(tok);
}

/* A token without a kid: verified when one key of the set fits its alg, refused when more
 * than one does (no signature check per key for a request not yet authenticated). */
static void test_no_kid(void)
{
    cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "keys");
    struct jwt_keys *two = NULL, *saved = keys;
    char why[256] = "", *text, *tok;
    const char *reason = NULL;

    CHECK_INT_EQ(verify_with(rsa_key, "RS256", NULL, good()), STATUS_OK);
    CHECK_INT_EQ(verify_with(ed_key, "EdDSA", NULL, good()), STATUS_OK);
    add_jwk(arr, rsa_other, "rsa2", NULL);
    add_jwk(arr, rsa_key, "rsa1", NULL);
    text = cJSON_PrintUnformatted(doc);
    CHECK_INT_EQ(jwt_keys_parse(lib, text, strlen(text), &two, why, sizeof(why)), STATUS_OK);
    keys = two;
    tok = token(rsa_key, "RS256", NULL, good());
    CHECK_INT_EQ(verify(tok, &reason), STATUS_INVALID);
    CHECK(reason != NULL && strstr(reason, "no kid") != NULL);
    CHECK_INT_EQ(verify_with(rsa_key, "RS256", "rsa1", good()), STATUS_OK);
    keys = saved;
    jwt_keys_drop(two);
    free(tok);
    free(text);
    cJSON_Delete(doc);
}

/* RFC 9068 section 4: typ at+jwt (or its media type, in any case), JWT as many providers
 * issue, or none; another type is another kind of token (an ID token, a logout token). */
static void test_typ(void)
{
    static const char *const taken[] = {
        "at+jwt", "AT+JWT", "application/at+jwt", "Application/AT+JWT", "JWT", "jwt", NULL};
    static const char *const refused[] = {"logout+jwt", "secevent+jwt",       "dpop+jwt", "at+jwt2",
                                          "",           "application/jwt+at", NULL};
    const char *reason = NULL;
    char header[128], *tok;

    for (size_t i = 0; taken[i] != NULL; i++) {
        snprintf(header, sizeof(header), "{\"alg\":\"EdDSA\",\"kid\":\"ed1\",\"typ\":\"%s\"}",
                 taken[i]);
        tok = token_as(ed_key, "EdDSA", header, good());
        if (!CHECK_INT_EQ(verify(tok, &reason), STATUS_OK))
            fprintf(stderr, "  typ %s: %s\n", taken[i], reason);
        free(tok);
    }
    tok = token_as(ed_key, "EdDSA", "{\"alg\":\"EdDSA\",\"kid\":\"ed1\"}", good());
    CHECK_INT_EQ(verify(tok, &reason), STATUS_OK);
    free(tok);
    for (size_t i = 0; refused[i] != NULL; i++) {
        snprintf(header, sizeof(header), "{\"alg\":\"EdDSA\",\"kid\":\"ed1\",\"typ\":\"%s\"}",
                 refused[i]);
        tok = token_as(ed_key, "EdDSA", header, good());
        if (!CHECK_INT_EQ(verify(tok, &reason), STATUS_INVALID))
            fprintf(stderr, "  typ %s taken\n", refused[i]);
        else
            CHECK_STR_HAS(reason, "typ");
        free(tok);
    }
    /* Not a string. */
    tok = token_as(ed_key, "EdDSA", "{\"alg\":\"EdDSA\",\"kid\":\"ed1\",\"typ\":1}", good());
    CHECK_INT_EQ(verify(tok, &reason), STATUS_INVALID);
    free(tok);
}

static void test_b64url(void)
{
    unsigned char out[16];
    size_t n = 0;

    CHECK_INT_EQ(jwt_b64url_decode("YWI", 3, out, &n), STATUS_OK);
    CHECK_INT_EQ((long long)n, 2);
    CHECK(memcmp(out, "ab", 2) == 0);
    CHECK_INT_EQ(jwt_b64url_decode("YWJ", 3, out, &n), STATUS_INVALID); /* stray bits */
    CHECK_INT_EQ(jwt_b64url_decode("YWI=", 4, out, &n), STATUS_INVALID);
    CHECK_INT_EQ(jwt_b64url_decode("YWJjZ", 5, out, &n), STATUS_INVALID);
    CHECK_INT_EQ(jwt_b64url_decode("-_-_", 4, out, &n), STATUS_OK);
    CHECK_INT_EQ(jwt_b64url_decode("+/+/", 4, out, &n), STATUS_INVALID);
}

static void test_keysets(void)
{
    static const char *const refused[] = {
        "",
        "[]",
        "{}",
        "{\"keys\":{}}",
        "{\"keys\":[]}",
        "{\"keys\":[{\"kty\":\"oct\",\"k\":\"c2VjcmV0\"}]}",
        "{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"AAAA\"}]}",
        "{\"keys\":[{\"kty\":\"RSA\",\"n\":\"AQAB\",\"e\":\"AQAB\"}]}", /* far too small */
        NULL};
    cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "keys");
    struct jwt_keys *ks = NULL;
    char why[256], *text;

    for (size_t i = 0; refused[i] != NULL; i++)
        CHECK_INT_EQ(jwt_keys_parse(lib, refused[i], strlen(refused[i]), &ks, why, sizeof(why)),
                     STATUS_INVALID);
    /* A key for encryption is skipped. */
    add_jwk(arr, rsa_other, "enc1", NULL);
    cJSON_AddStringToObject(cJSON_GetArrayItem(arr, 0), "use", "enc");
    text = cJSON_PrintUnformatted(doc);
    CHECK_INT_EQ(jwt_keys_parse(lib, text, strlen(text), &ks, why, sizeof(why)), STATUS_INVALID);
    free(text);
    /* A key whose alg is RS256 does not check PS256. */
    cJSON_DeleteItemFromArray(arr, 0);
    add_jwk(arr, rsa_key, "rsa1", "RS256");
    text = cJSON_PrintUnformatted(doc);
    CHECK_INT_EQ(jwt_keys_parse(lib, text, strlen(text), &ks, why, sizeof(why)), STATUS_OK);
    jwt_keys_drop(keys);
    keys = ks;
    CHECK_INT_EQ(verify_with(rsa_key, "RS256", "rsa1", good()), STATUS_OK);
    CHECK_INT_EQ(verify_with(rsa_key, "PS256", "rsa1", good()), STATUS_INVALID);
    free(text);
    cJSON_Delete(doc);
}

static const struct check_test tests[] = {
    {"signatures", test_signatures},
    {"bad_signatures", test_bad_signatures},
    {"algs_refused", test_algs_refused},
    {"claims", test_claims},
    {"times", test_times},
    {"malformed", test_malformed},
    {"unknown_kid", test_unknown_kid},
    {"no_kid", test_no_kid},
    {"typ", test_typ},
    {"b64url", test_b64url},
    {"keysets", test_keysets},
    {0},
};

int main(void)
{
    int rc;

    setup();
    rc = check_main("test_jwt", tests);
    jwt_keys_drop(keys);
    EVP_PKEY_free(rsa_key);
    EVP_PKEY_free(rsa_other);
    EVP_PKEY_free(ec_key);
    EVP_PKEY_free(ed_key);
    jwt_lib_close(lib);
    return rc;
}
