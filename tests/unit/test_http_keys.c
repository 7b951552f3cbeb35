/*
 * test_http_keys.c: the OAuth keys' keeper (transport/http_keys.h) with JWKS files: each load
 * bumps the generation and empties the table of verified tokens; a principal verified with
 * keys replaced since is not kept; with no keys at all and a load tried just now, a request
 * gets NULL at once; the loader stops promptly even with a load wanted.
 */
#include "transport/http_keys.h"

#include "lib/status.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* An Ed25519 public key (RFC 8037 appendix A.2), under two kids. */
#define JWK(kid)                                                                                   \
    "{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"kid\":\"" kid "\","                         \
    "\"x\":\"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo\"}]}"

static struct jwt_lib *lib;
static struct log lg;
static char dir[64];
static char file[96];

static long long ms_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void write_file(const char *text)
{
    FILE *f = fopen(file, "w");

    if (CHECK(f != NULL)) {
        fputs(text, f);
        fclose(f);
    }
}

static struct http_keys *keeper(const char *path)
{
    struct http_keys_conf conf = {.lib = lib, .file = path, .refresh_s = 300, .log = &lg};
    struct http_keys *k = NULL;

    CHECK_INT_EQ(http_keys_new(&conf, &k), STATUS_OK);
    return k;
}

static struct principal *someone(unsigned char first)
{
    struct principal *p = principal_new(PRINCIPAL_JWT, "jwt:iss#alice", "alice");

    if (p != NULL) {
        memset(p->digest, 7, sizeof(p->digest));
        p->digest[0] = first;
        p->expires = (long long)time(NULL) + 600;
    }
    return p;
}

static void test_generation(void)
{
    struct http_keys *k;
    struct jwt_keys *keys;
    struct principal *who = someone(1), *got;
    unsigned long long g1 = 0, g2 = 0;

    write_file(JWK("a"));
    k = keeper(file);
    CHECK_INT_EQ(http_keys_load(k), STATUS_OK);
    keys = http_keys_get(k, &g1);
    CHECK(jwt_keys_has(keys, "a"));
    jwt_keys_drop(keys);
    /* Verified with the set of g1; meanwhile another set comes in. */
    write_file(JWK("b"));
    CHECK_INT_EQ(http_keys_load(k), STATUS_OK);
    keys = http_keys_get(k, &g2);
    CHECK(jwt_keys_has(keys, "b") && !jwt_keys_has(keys, "a"));
    jwt_keys_drop(keys);
    CHECK(g2 != g1);
    http_keys_keep(k, who, g1);
    got = http_keys_cached(k, who->digest);
    CHECK(got == NULL);
    principal_drop(got);
    /* Verified with the current set: kept, until the next load. */
    http_keys_keep(k, who, g2);
    got = http_keys_cached(k, who->digest);
    CHECK(got == who);
    principal_drop(got);
    CHECK_INT_EQ(http_keys_load(k), STATUS_OK);
    got = http_keys_cached(k, who->digest);
    CHECK(got == NULL);
    principal_drop(got);
    principal_drop(who);
    CHECK_INT_EQ(http_keys_stop(k), STATUS_OK);
    http_keys_free(k);
}

static void test_no_keys(void)
{
    char missing[128];
    struct http_keys *k;
    struct jwt_keys *keys;
    unsigned long long gen = 0;
    long long t;

    snprintf(missing, sizeof(missing), "%s/missing.json", dir);
    k = keeper(missing);
    CHECK(http_keys_load(k) != STATUS_OK);
    CHECK_INT_EQ(http_keys_run(k), STATUS_OK);
    /* A load was tried just now: no waiting for the next one. */
    t = ms_now();
    keys = http_keys_get(k, &gen);
    CHECK(keys == NULL);
    CHECK(ms_now() - t < 500);
    http_keys_want(k);
    t = ms_now();
    CHECK_INT_EQ(http_keys_stop(k), STATUS_OK);
    CHECK(ms_now() - t < 1000);
    http_keys_free(k);
}

/* A load wanted waits HTTP_KEYS_RETRY_S for its turn; stopping does not wait for that. */
static void test_stop(void)
{
    struct http_keys *k;
    struct jwt_keys *keys;
    unsigned long long gen = 0;
    long long t;

    write_file(JWK("a"));
    k = keeper(file);
    CHECK_INT_EQ(http_keys_load(k), STATUS_OK);
    CHECK_INT_EQ(http_keys_run(k), STATUS_OK);
    http_keys_want(k);
    keys = http_keys_get(k, &gen);
    CHECK(jwt_keys_has(keys, "a"));
    jwt_keys_drop(keys);
    t = ms_now();
    CHECK_INT_EQ(http_keys_stop(k), STATUS_OK);
    CHECK(ms_now() - t < 1000);
    CHECK_INT_EQ(http_keys_stop(k), STATUS_OK);
    http_keys_free(k);
    http_keys_free(NULL);
}

static const struct check_test tests[] = {
    {"generation", test_generation},
    {"no_keys", test_no_keys},
    {"stop", test_stop},
    {0},
};

int main(void)
{
    char why[256] = "";
    int rc;

    log_init(&lg);
    snprintf(dir, sizeof(dir), "/tmp/mcph-test-http-keys-XXXXXX");
    if (mkdtemp(dir) == NULL || jwt_lib_open(0, &lib, why, sizeof(why)) != STATUS_OK) {
        fprintf(stderr, "test_http_keys: cannot set up: %s\n", why);
        return 1;
    }
    snprintf(file, sizeof(file), "%s/jwks.json", dir);
    rc = check_main("test_http_keys", tests);
    unlink(file);
    rmdir(dir);
    jwt_lib_close(lib);
    return rc;
}
