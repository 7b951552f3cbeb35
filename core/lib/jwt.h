/*
 * jwt.h: JSON Web Tokens (RFC 7519) signed with JWS compact serialization (RFC 7515), checked
 * against a JSON Web Key Set (RFC 7517), as an OAuth 2.1 resource server verifies access
 * tokens. Nothing here knows of MCP or HTTP.
 *
 *     struct jwt_lib *lib;
 *     struct jwt_keys *keys;
 *     char why[128];
 *     if (jwt_lib_open(0, &lib, why, sizeof(why)) != STATUS_OK) ...
 *     if (jwt_keys_parse(lib, text, len, &keys, why, sizeof(why)) != STATUS_OK) ...
 *     struct jwt_rules rules = {.issuer = ISS, .audience = AUD, .leeway_s = 60, .now = time(0)};
 *     cJSON *payload;
 *     const char *reason;
 *     int status = jwt_verify(token, strlen(token), keys, &rules, &payload, &reason);
 *     jwt_keys_drop(keys);
 *     jwt_lib_close(lib);
 *
 * The parsing (base64url, the JSON of header and payload, the claims) is here; every signature
 * is checked by OpenSSL's libcrypto (EVP_DigestVerify), opened with dlopen (jwt_lib_open).
 * Algorithms accepted: RS256, PS256 (RSA, 2048 bits or more), ES256 (P-256), ES384 (P-384) and
 * EdDSA (Ed25519). "none", the HMAC ones (HS*) and every other name are refused, whatever the key
 * set holds.
 *
 * A key set is immutable once parsed and counted: any thread may hold, use and drop it.
 * jwt_verify keeps no state: any thread may call it at any time. jwt_keys_fetch blocks for
 * at most its timeout.
 */
#ifndef MCPH_JWT_H
#define MCPH_JWT_H

#include "lib/strbuf.h"

#include <cJSON.h>
#include <stddef.h>

/* Bounds: a token longer than JWT_MAX_BYTES is refused unread; a key set keeps at most
 * JWT_MAX_KEYS usable keys (the rest are skipped) and is read up to JWT_KEYS_MAX_BYTES. */
#define JWT_MAX_BYTES 16384
#define JWT_MAX_KEYS 32
#define JWT_KEYS_MAX_BYTES (256 * 1024)
#define JWT_KID_MAX 128

/* libcrypto (and libcurl) opened with dlopen: a server without OAuth maps neither. Members
 * are private to lib/jwt*. */
struct jwt_lib;

/* Open libcrypto, and libcurl too when fetch (with its global set-up: call this on the main
 * thread while no other thread uses libcurl). *out is owned: jwt_lib_close, after every key
 * set made with it is dropped. STATUS_OK, or STATUS_IO (why, size bytes, names what is
 * missing and the Debian package) or STATUS_NOMEM. */
int jwt_lib_open(int fetch, struct jwt_lib **out, char *why, size_t size);

/* Close it (NULL is fine); the libraries stay mapped (their exit handlers may still run). */
void jwt_lib_close(struct jwt_lib *lib);

/* A key set: the keys of a JWKS that mcph can use (kty RSA, EC P-256/P-384, OKP Ed25519,
 * "use" absent or "sig"). Members are private to jwt_keys.c. */
struct jwt_keys;

/* Parse a JWKS document (text, len bytes, borrowed for the call) into *out (owned: one
 * reference, jwt_keys_drop), with lib's libcrypto (borrowed: it must outlive the set). Keys of
 * another type or curve, for encryption, or malformed are skipped; a set with no usable key is
 * STATUS_INVALID. Returns STATUS_OK, STATUS_INVALID (why, size bytes, says what is wrong),
 * STATUS_NOMEM. */
int jwt_keys_parse(const struct jwt_lib *lib, const char *text, size_t len, struct jwt_keys **out,
                   char *why, size_t size);

/* Another reference to keys (NULL is fine); returns keys. */
struct jwt_keys *jwt_keys_hold(struct jwt_keys *keys);

/* Drop a reference; the last frees the set. NULL is fine. */
void jwt_keys_drop(struct jwt_keys *keys);

/* How many keys the set holds. */
size_t jwt_keys_count(const struct jwt_keys *keys);

/* Whether the set holds a key with this kid (NULL kid: no). */
int jwt_keys_has(const struct jwt_keys *keys, const char *kid);

/* GET url (http or https, no redirects) with lib's libcurl (opened with fetch), at most
 * timeout_ms in all, into out (up to JWT_KEYS_MAX_BYTES). STATUS_OK; STATUS_IO with why (size
 * bytes) saying what failed (the connection, a status other than 200, the time, the size). */
int jwt_keys_fetch(const struct jwt_lib *lib, const char *url, long timeout_ms, struct strbuf *out,
                   char *why, size_t size);

/* What a token must satisfy besides its signature. */
struct jwt_rules {
    const char *issuer;   /* borrowed: "iss" must equal it */
    const char *audience; /* borrowed: "aud" (a string, or an array) must hold it exactly */
    long long leeway_s;   /* clock skew allowed on exp, nbf and iat */
    long long now;        /* seconds since the epoch */
};

/* Verify token (len bytes, borrowed for the call; not NUL-terminated necessarily): its
 * header (alg accepted, kid, typ absent or at+jwt, application/at+jwt or JWT in any case),
 * its signature by a key of keys that fits (its kid when the
 * header names one, its kty/crv and, when the key has them, its alg and use), then its
 * claims: iss, aud, exp (required: now < exp + leeway), nbf (now >= nbf - leeway), iat (not
 * after now + leeway), sub (a string, required).
 * Returns STATUS_OK with *payload the claims (owned: cJSON_Delete); STATUS_NOT_FOUND when
 * the header's kid is not in keys (the caller may fetch the keys again); STATUS_INVALID when
 * the token is refused; STATUS_NOMEM. On failure *payload is NULL and *reason (static text)
 * says why, for a log line or a challenge's error_description. */
int jwt_verify(const char *token, size_t len, const struct jwt_keys *keys,
               const struct jwt_rules *rules, cJSON **payload, const char **reason);

/* Decode base64url without padding (RFC 7515 section 2) of in (len bytes) into out (at
 * least len * 3 / 4 + 1 bytes); *outlen its length. STATUS_OK, or STATUS_INVALID for a
 * character outside the alphabet, padding, or an impossible length. */
int jwt_b64url_decode(const char *in, size_t len, unsigned char *out, size_t *outlen);

/* --- jwt_keys.c, for jwt.c --- */

/* Check sig (siglen bytes) over msg (msglen bytes) with the keys of the set that fit alg
 * (one of the accepted names) and kid (NULL: every key that fits). STATUS_OK when one
 * verifies it; STATUS_NOT_FOUND when kid names no key of the set; STATUS_INVALID otherwise
 * (*reason says why). */
int jwt_keys_verify(const struct jwt_keys *keys, const char *alg, const char *kid,
                    const unsigned char *msg, size_t msglen, const unsigned char *sig,
                    size_t siglen, const char **reason);

#endif
