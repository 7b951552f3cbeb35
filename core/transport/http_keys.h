/*
 * http_keys.h: the keys an OAuth resource server verifies tokens with, and the tokens it has
 * verified (for http_auth.c). The JWKS (oauth_jwks_url or oauth_jwks_file) is loaded once at
 * the start, on the caller's thread, then again only by a thread of this module's own: the
 * request threads of libmicrohttpd never fetch. They take the keys in hand, and flag a load
 * as wanted when those are older than oauth_jwks_refresh_s or a token names a kid they lack;
 * the loader starts it at most once per HTTP_KEYS_RETRY_S (a wanted load waits for that), so a
 * stream of tokens naming unknown kids costs one fetch per HTTP_KEYS_RETRY_S and nothing on
 * the request threads. A load that fails keeps the keys there were, with a warning.
 *
 *     struct http_keys *k;
 *     http_keys_new(&conf, &k);                 (main thread)
 *     http_keys_load(k);                        (main thread: the first load)
 *     http_keys_run(k);                         (the loader starts)
 *     keys = http_keys_get(k, &gen);            (any thread)
 *     ... jwt_verify(..., keys, ...); on STATUS_NOT_FOUND: http_keys_want(k)
 *     http_keys_keep(k, who, gen);  ...  who = http_keys_cached(k, digest);
 *     jwt_keys_drop(keys);
 *     http_keys_stop(k); http_keys_free(k);     (main thread, no request running)
 *
 * Verified tokens are kept by their digest (sha256 of the token) until their exp, in a table
 * of HTTP_KEYS_CACHE entries (the oldest replaced), emptied when the keys change. Each change
 * of the keys bumps a generation: a principal verified with keys of an older generation is
 * not kept (the keys that verified it may be gone).
 *
 * Locks: k->lock guards the keys, the generation, the flags and the table; no other lock is
 * taken under it, and it is held across neither a load nor a signature check.
 */
#ifndef MCPH_HTTP_KEYS_H
#define MCPH_HTTP_KEYS_H

#include "lib/jwt.h"
#include "lib/log.h"
#include "wire/principal.h"

/* A load starts at most once per HTTP_KEYS_RETRY_S; a URL's fetch takes HTTP_KEYS_FETCH_MS at
 * most; a request finding no keys at all waits HTTP_KEYS_WAIT_MS at most for a load under way
 * (or about to start) to end; stopping waits HTTP_KEYS_STOP_MS at most for the loader. */
#define HTTP_KEYS_RETRY_S 10
#define HTTP_KEYS_FETCH_MS 3000
#define HTTP_KEYS_WAIT_MS 2000
#define HTTP_KEYS_STOP_MS (HTTP_KEYS_FETCH_MS + 2000)
#define HTTP_KEYS_WAYS 4
#define HTTP_KEYS_SETS 256
#define HTTP_KEYS_CACHE (HTTP_KEYS_WAYS * HTTP_KEYS_SETS)

/* Where the keys come from. Every pointer is borrowed and must outlive the http_keys. */
struct http_keys_conf {
    struct jwt_lib *lib;   /* libcrypto (and libcurl for a URL) */
    const char *file;      /* oauth_jwks_file, or NULL */
    const char *url;       /* oauth_jwks_url, or NULL (one of the two is set) */
    long long refresh_s;   /* oauth_jwks_refresh_s (> 0) */
    const struct log *log; /* where warnings go */
};

struct http_keys;

/* A keeper with no keys yet into *out (owned: http_keys_free). STATUS_OK or STATUS_NOMEM. */
int http_keys_new(const struct http_keys_conf *conf, struct http_keys **out);

/* Load the keys now, on the calling thread (the start; before http_keys_run). STATUS_OK, or
 * the load's failure (logged as a warning). */
int http_keys_load(struct http_keys *k);

/* Start the loader thread. STATUS_OK, or STATUS_NOMEM when no thread could be made. */
int http_keys_run(struct http_keys *k);

/* Stop the loader, waiting HTTP_KEYS_STOP_MS at most (NULL, or never started: nothing to do).
 * STATUS_OK; or STATUS_AGAIN (logged): it still runs, so neither k nor what its conf
 * borrows may be freed. Main thread, no request running. */
int http_keys_stop(struct http_keys *k);

/* Free k, its keys and its table (NULL is fine), the loader stopped (http_keys_stop). */
void http_keys_free(struct http_keys *k);

/* The keys to verify with (held: jwt_keys_drop), or NULL (none loaded), and their generation
 * in *gen. Flags a load when they are older than refresh_s; when none are loaded, flags one
 * and waits HTTP_KEYS_WAIT_MS at most for it, unless the last began less than
 * HTTP_KEYS_RETRY_S ago (then NULL at once). Any thread. */
struct jwt_keys *http_keys_get(struct http_keys *k, unsigned long long *gen);

/* A token named a kid the keys lack: flag a load (it starts within HTTP_KEYS_RETRY_S of the
 * last). Never waits. Any thread. */
void http_keys_want(struct http_keys *k);

/* The principal of a token verified before (its digest, SHA256_BYTES) and not expired
 * (held: principal_drop), or NULL. Any thread. */
struct principal *http_keys_cached(struct http_keys *k, const unsigned char *digest);

/* Keep who (borrowed; a reference is taken) by its digest, if gen (of the keys that verified
 * it) is still the keys' generation; else nothing. Any thread. */
void http_keys_keep(struct http_keys *k, struct principal *who, unsigned long long gen);

#endif
