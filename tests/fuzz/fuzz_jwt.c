/*
 * fuzz_jwt.c: an access token, read before any authentication (lib/jwt.h). A fixed key set (an
 * RSA key "rsa1", an EC P-256 key "ec1" with alg ES256, an Ed25519 key "ed1") is parsed once
 * with jwt_keys_parse, as http_keys.c does. The first byte of the input picks the mode:
 *   even  the rest is a token, verified against the fixed set with a fixed issuer, audience
 *         and time;
 *   odd   the rest is a JWKS text, parsed; a set that parses verifies the fixed tokens below
 *         (one per alg), and is asked for each of their kids.
 * Properties besides no crash, leak or out-of-bounds read: jwt_verify returns STATUS_OK with
 * a payload and no reason, or STATUS_INVALID, STATUS_NOT_FOUND or STATUS_NOMEM with a reason
 * and no payload; an accepted token's payload names the issuer and a subject. jwt_keys_parse
 * gives a set of 1 to JWT_MAX_KEYS keys with STATUS_OK, or no set and a reason.
 */
#include "lib/jwt.h"
#include "lib/status.h"

#include <cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ISS "https://issuer.example"
#define FUZZ_AUD "https://mcp.example/mcp"
/* 2027-01-15: after every seed's iat and nbf, before its exp (2100) */
#define FUZZ_NOW 1800000000LL

/* The public halves of keys made for this harness (their private halves are gone). */
static const char fuzz_jwks[] =
    "{\"keys\":["
    "{\"kty\":\"RSA\",\"n\":\"sjMX69zMVx3HvArxdAcjEHd2533dgeTmijkmR01sji497DgUrrfRm1gmC0jGSnm"
    "0eKoiyl5YRX7t_5E7s2C_l3hHzhWIbywTSScTGcoIx0IRY08qKI4gPQrYS5GmyZraGMtCnkBxhFh7OcJ7-LOCg6V"
    "oxYoM9rVUCzBDU8aQ38wq6a-q6J_pXdfxZrH2p2XvBA9REui3fqiit8W_vglWRsFdgkwLzlTlc3mjs3c6lzq4WH8"
    "0BjFiBaEKeJdj9ggooV9tkkvqJxCGqBUP6cMQzRiCPca-3tEqow2Wznp0j8Yh-gQ48ihN1yY81rjWrLiYdPPPjYf"
    "uky6_RMsnhEENxQ\",\"e\":\"AQAB\",\"kid\":\"rsa1\",\"use\":\"sig\"},"
    "{\"kty\":\"EC\",\"x\":\"SNKQg8hdf-6fR0hd234UYqwPULokmbDg-djYBJwMHoY\",\"y\":\"a80i8zK_hz"
    "XlyyTYp46R_Qukak6TyjBa_KW0Tm7iDG8\",\"crv\":\"P-256\",\"kid\":\"ec1\",\"alg\":\"ES256\"}"
    ","
    "{\"crv\":\"Ed25519\",\"x\":\"RLighzL-pd7QriCkAGj3rGQUwNQw4NbS5Lce2Tqr5oA\",\"kty\":\"OKP"
    "\",\"kid\":\"ed1\"}"
    "]}";

/* Tokens signed by those keys for the fixed issuer and audience, valid at FUZZ_NOW. */
static const char *const fuzz_tokens[] = {
    "eyJhbGciOiJSUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6InJzYTEifQ.eyJpc3MiOiJodHRwczovL2lzc3Vlc"
    "i5leGFtcGxlIiwiYXVkIjoiaHR0cHM6Ly9tY3AuZXhhbXBsZS9tY3AiLCJzdWIiOiJhbGljZSIsImV4cCI6NDEwM"
    "jQ0NDgwMCwiaWF0IjoxNzAwMDAwMDAwLCJuYmYiOjE3MDAwMDAwMDAsInNjb3BlIjoidG9vbHM6cmVhZCJ9.pnbJ"
    "_hBNOn4ORsVDbUj31mhvUUxA5gzBXkrmfBjl1cP5ZG5jitfO10RfvhVwi7UQ63D80yCGU0COeT46TDPelcwNuj33"
    "ByKgD7mqGMFMSZovUmiEH8HUky1q4Rsz01dAp51yYIH5WNyUSfwWsYGhYXeHP3w1K8QL1kBtGCgJdNJZbHt5fgdB"
    "b48qABpPUu7Uck7oHsE_1gpQ1pGlY2HvStNv7pAxPRgWTx7sVT2y1gmR8gS1sKAhCxRJmbF54x0ESJRBSYy3OH6A"
    "kGwfUdvxwRnjD8bJnAYIMS6Cwa93RYMDrXjkyTlnxRe48u75ozwxJWhv3SvjCMBuIDz-XLK6DQ",
    "eyJhbGciOiJQUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6InJzYTEifQ.eyJpc3MiOiJodHRwczovL2lzc3Vlc"
    "i5leGFtcGxlIiwiYXVkIjoiaHR0cHM6Ly9tY3AuZXhhbXBsZS9tY3AiLCJzdWIiOiJhbGljZSIsImV4cCI6NDEwM"
    "jQ0NDgwMCwiaWF0IjoxNzAwMDAwMDAwLCJuYmYiOjE3MDAwMDAwMDAsInNjb3BlIjoidG9vbHM6cmVhZCJ9.TvaX"
    "uZhEMzIfa87QIMTi1FbcZVZGsaYA075p75Bf5qNf--lx8R53PqxpSQYLMDG9jYDAayllwGc3dPVarL1eSXV51J68"
    "Yp1vsPD_rO2USSjjmikgEz8dV_OCRN812Pbc4BRTG3ENJKi5ejv02WaeZIcEb_oVPJzRCjLouPD6u3v6amoII-F6"
    "1LsKLTHqmD6MfnACqECQNBS4LRlduSQ3zpoGuN3x6npleEwIbUzo2vpN_KO1Gvq5rkDCy-A5f6rY6cBMej3IXWkG"
    "Sym4ZFECajAGs5PXysrtPrjwzEtzPBQ6bKsjQkkskIqrE1TigRagtisxPJ4wEuT32hsZ7jK78w",
    "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6ImVjMSJ9.eyJpc3MiOiJodHRwczovL2lzc3Vlci5"
    "leGFtcGxlIiwiYXVkIjoiaHR0cHM6Ly9tY3AuZXhhbXBsZS9tY3AiLCJzdWIiOiJhbGljZSIsImV4cCI6NDEwMjQ"
    "0NDgwMCwiaWF0IjoxNzAwMDAwMDAwLCJuYmYiOjE3MDAwMDAwMDAsInNjb3BlIjoidG9vbHM6cmVhZCJ9.HscnnT"
    "gptUV1I2iLlrzf0pRByMdDgK1fTcmUCQ5vkibG7kZQ-Gz44bkLPl3eJ9NQpvGFiMQLwJ8KSnAdRGBbjA",
    "eyJhbGciOiJFZERTQSIsInR5cCI6ImF0K2p3dCIsImtpZCI6ImVkMSJ9.eyJpc3MiOiJodHRwczovL2lzc3Vlci5"
    "leGFtcGxlIiwiYXVkIjoiaHR0cHM6Ly9tY3AuZXhhbXBsZS9tY3AiLCJzdWIiOiJhbGljZSIsImV4cCI6NDEwMjQ"
    "0NDgwMCwiaWF0IjoxNzAwMDAwMDAwLCJuYmYiOjE3MDAwMDAwMDAsInNjb3BlIjoidG9vbHM6cmVhZCJ9.ihB1Lz"
    "7kVFwoDqYeJq4-0NlGvRjWyfnqbl2Mt2MHWwPKKt2ikoUR8SHJ8qiq8DXZfsXxlv-JohgTGo4R_moxDA",
};
static const char *const fuzz_kids[] = {"rsa1", "ec1", "ed1", "none", NULL};

static struct jwt_lib *fuzz_lib;
static struct jwt_keys *fuzz_keys;
static const struct jwt_rules fuzz_rules = {
    .issuer = FUZZ_ISS, .audience = FUZZ_AUD, .leeway_s = 60, .now = FUZZ_NOW};

static int fuzz_verify(const char *token, size_t len, const struct jwt_keys *keys);

static void fuzz_fail(const char *why)
{
    fprintf(stderr, "fuzz_jwt: %s\n", why);
    abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    char why[256] = "";

    (void)argc;
    (void)argv;
    if (jwt_lib_open(0, &fuzz_lib, why, sizeof(why)) != STATUS_OK ||
        jwt_keys_parse(fuzz_lib, fuzz_jwks, strlen(fuzz_jwks), &fuzz_keys, why, sizeof(why)) !=
            STATUS_OK ||
        jwt_keys_count(fuzz_keys) != 3) {
        fprintf(stderr, "fuzz_jwt: the fixed key set does not load: %s\n", why);
        abort();
    }
    /* The fixed tokens verify, or the key set mode would explore refusals only. */
    for (size_t i = 0; i < sizeof(fuzz_tokens) / sizeof(fuzz_tokens[0]); i++) {
        if (fuzz_verify(fuzz_tokens[i], strlen(fuzz_tokens[i]), fuzz_keys) != STATUS_OK)
            fuzz_fail("a fixed token does not verify with the fixed key set");
    }
    return 0;
}

/* One verification, its contract checked; returns its status. */
static int fuzz_verify(const char *token, size_t len, const struct jwt_keys *keys)
{
    cJSON *payload = (cJSON *)1;
    const char *reason = "unset";
    int status = jwt_verify(token, len, keys, &fuzz_rules, &payload, &reason);

    if (status == STATUS_OK) {
        const cJSON *iss = cJSON_GetObjectItemCaseSensitive(payload, "iss");
        const cJSON *sub = cJSON_GetObjectItemCaseSensitive(payload, "sub");

        if (payload == NULL || reason != NULL)
            fuzz_fail("an accepted token without a payload, or with a reason");
        if (!cJSON_IsString(iss) || strcmp(iss->valuestring, FUZZ_ISS) != 0 ||
            !cJSON_IsString(sub) || sub->valuestring[0] == '\0')
            fuzz_fail("an accepted token of another issuer or without a subject");
        cJSON_Delete(payload);
    } else if (status == STATUS_INVALID || status == STATUS_NOT_FOUND || status == STATUS_NOMEM) {
        if (payload != NULL || reason == NULL)
            fuzz_fail("a refused token with a payload, or without a reason");
    } else {
        fuzz_fail("jwt_verify returned a status it does not document");
    }
    return status;
}

static void fuzz_keyset(const char *text, size_t len)
{
    struct jwt_keys *keys = (struct jwt_keys *)1;
    char why[128] = "";
    int status = jwt_keys_parse(fuzz_lib, text, len, &keys, why, sizeof(why));

    if (status != STATUS_OK) {
        if (keys != NULL || (status == STATUS_INVALID && why[0] == '\0'))
            fuzz_fail("a refused key set with a set, or without a reason");
        return;
    }
    if (keys == NULL || jwt_keys_count(keys) < 1 || jwt_keys_count(keys) > JWT_MAX_KEYS)
        fuzz_fail("a key set parsed with no key or too many");
    for (size_t i = 0; i < sizeof(fuzz_tokens) / sizeof(fuzz_tokens[0]); i++)
        (void)fuzz_verify(fuzz_tokens[i], strlen(fuzz_tokens[i]), keys);
    for (size_t i = 0; fuzz_kids[i] != NULL; i++)
        (void)jwt_keys_has(keys, fuzz_kids[i]);
    jwt_keys_drop(jwt_keys_hold(keys));
    jwt_keys_drop(keys);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy;

    if (size == 0)
        return 0;
    /* A copy of exactly the bytes given, so that ASan sees any read past them. */
    copy = malloc(size > 1 ? size - 1 : 1);
    if (copy == NULL)
        return 0;
    memcpy(copy, data + 1, size - 1);
    if (data[0] & 1)
        fuzz_keyset(copy, size - 1);
    else
        (void)fuzz_verify(copy, size - 1, fuzz_keys);
    free(copy);
    return 0;
}
