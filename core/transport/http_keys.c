/*
 * http_keys.c: the OAuth keys and the verified tokens of http_auth.c, and the thread that
 * loads the keys, so that no request thread ever waits on the identity provider (http_keys.h).
 */
#include "transport/http_keys.h"

#include "lib/sha256.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A verified token: its principal, until its exp. */
struct http_keys_entry {
    struct principal *who;  /* held, or NULL: a free slot */
    unsigned long long age; /* when it was put (k->clock) */
};

struct http_keys {
    struct http_keys_conf conf; /* borrowed pointers (http_keys.h) */
    pthread_t thread;
    pthread_mutex_t lock;    /* guards everything below */
    int running;             /* the loader was started and not joined yet */
    pthread_cond_t wake;     /* the loader's: a load wanted, or stop */
    pthread_cond_t done;     /* a load ended, or the loader did */
    struct jwt_keys *keys;   /* owned reference, or NULL (none loaded yet) */
    unsigned long long gen;  /* bumped each time keys change */
    unsigned long long ends; /* loads ended, whether they worked or not */
    long long loaded;        /* CLOCK_MONOTONIC ms of the last load that worked */
    long long tried;         /* of the last load begun; 0: none */
    int wanted;              /* a request asked for a load */
    int loading;             /* the loader is loading */
    int stop;                /* http_keys_stop asks the loader to end */
    int ended;               /* the loader has ended */
    unsigned long long clock;
    struct http_keys_entry cache[HTTP_KEYS_SETS][HTTP_KEYS_WAYS];
};

static long long http_keys_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static struct timespec http_keys_at(long long ms)
{
    struct timespec t = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000};

    return t;
}

int http_keys_new(const struct http_keys_conf *conf, struct http_keys **out)
{
    struct http_keys *k = calloc(1, sizeof(*k));
    pthread_condattr_t attr;

    *out = NULL;
    if (k == NULL)
        return STATUS_NOMEM;
    k->conf = *conf;
    pthread_mutex_init(&k->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&k->wake, &attr);
    pthread_cond_init(&k->done, &attr);
    pthread_condattr_destroy(&attr);
    *out = k;
    return STATUS_OK;
}

/* --- Loading --- */

/* The JWKS file's text into out (bounded). */
static int http_keys_read(const char *file, struct strbuf *out, char *why, size_t size)
{
    FILE *f = fopen(file, "r");
    char buf[4096];
    size_t n;

    if (f == NULL) {
        snprintf(why, size, "cannot open it: %s", strerror(errno));
        return STATUS_IO;
    }
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0 && out->len <= JWT_KEYS_MAX_BYTES)
        (void)strbuf_add(out, buf, n);
    fclose(f);
    if (out->len > JWT_KEYS_MAX_BYTES || out->nomem) {
        snprintf(why, size, "%s", out->nomem ? "out of memory" : "too large (256 KiB at most)");
        return STATUS_LIMIT;
    }
    return STATUS_OK;
}

/* Read the file or fetch the URL, and parse it; no lock held. */
static int http_keys_fetch(const struct http_keys_conf *c, struct jwt_keys **out, char *why,
                           size_t size)
{
    struct strbuf text = STRBUF_INIT;
    int status;

    *out = NULL;
    if (c->url != NULL)
        status = jwt_keys_fetch(c->lib, c->url, HTTP_KEYS_FETCH_MS, &text, why, size);
    else
        status = http_keys_read(c->file, &text, why, size);
    if (status == STATUS_OK)
        status = jwt_keys_parse(c->lib, text.buf ? text.buf : "", text.len, out, why, size);
    strbuf_release(&text);
    return status;
}

static void http_keys_flush(struct http_keys *k)
{
    for (size_t s = 0; s < HTTP_KEYS_SETS; s++) {
        for (size_t w = 0; w < HTTP_KEYS_WAYS; w++) {
            principal_drop(k->cache[s][w].who);
            k->cache[s][w].who = NULL;
        }
    }
}

/* Load the keys and put them in place: no lock held on entry, k->tried set by the caller. */
static int http_keys_reload(struct http_keys *k)
{
    const struct http_keys_conf *c = &k->conf;
    struct jwt_keys *keys = NULL;
    char why[256] = "";
    int status = http_keys_fetch(c, &keys, why, sizeof(why)), had;

    pthread_mutex_lock(&k->lock);
    had = k->keys != NULL;
    if (status == STATUS_OK) {
        jwt_keys_drop(k->keys);
        k->keys = keys;
        k->gen++;
        k->loaded = http_keys_ms();
        http_keys_flush(k);
    }
    k->ends++;
    pthread_cond_broadcast(&k->done);
    pthread_mutex_unlock(&k->lock);
    if (status != STATUS_OK)
        log_msg(c->log, LOG_WARNING, NULL,
                "[server] %s = %s: the JWKS could not be loaded (%s); %s",
                c->url ? "oauth_jwks_url" : "oauth_jwks_file", c->url ? c->url : c->file, why,
                had ? "the keys loaded before stay in use" : "every OAuth token is refused");
    return status;
}

int http_keys_load(struct http_keys *k)
{
    pthread_mutex_lock(&k->lock);
    k->tried = http_keys_ms();
    pthread_mutex_unlock(&k->lock);
    return http_keys_reload(k);
}

/* The loader: wait for a load wanted and HTTP_KEYS_RETRY_S after the last one begun, load,
 * again until told to stop. Every wait has a deadline (a minute at most when idle). */
static void *http_keys_loader(void *arg)
{
    struct http_keys *k = arg;

    pthread_mutex_lock(&k->lock);
    while (!k->stop) {
        long long now = http_keys_ms(), next = k->tried + HTTP_KEYS_RETRY_S * 1000LL;
        struct timespec until;

        if (k->wanted && now >= next) {
            k->wanted = 0;
            k->loading = 1;
            k->tried = now;
            pthread_mutex_unlock(&k->lock);
            (void)http_keys_reload(k);
            pthread_mutex_lock(&k->lock);
            k->loading = 0;
            continue;
        }
        until = http_keys_at(k->wanted ? next : now + 60000);
        (void)pthread_cond_timedwait(&k->wake, &k->lock, &until);
    }
    k->ended = 1;
    pthread_cond_broadcast(&k->done);
    pthread_mutex_unlock(&k->lock);
    return NULL;
}

int http_keys_run(struct http_keys *k)
{
    int made;

    /* Under the lock: requests read running (http_keys_await). */
    pthread_mutex_lock(&k->lock);
    made = pthread_create(&k->thread, NULL, http_keys_loader, k) == 0;
    k->running = made;
    pthread_mutex_unlock(&k->lock);
    return made ? STATUS_OK : STATUS_NOMEM;
}

int http_keys_stop(struct http_keys *k)
{
    struct timespec until = http_keys_at(http_keys_ms() + HTTP_KEYS_STOP_MS);
    int ended;

    if (k == NULL)
        return STATUS_OK;
    pthread_mutex_lock(&k->lock);
    if (!k->running) {
        pthread_mutex_unlock(&k->lock);
        return STATUS_OK;
    }
    k->stop = 1;
    pthread_cond_broadcast(&k->wake);
    while (!k->ended && pthread_cond_timedwait(&k->done, &k->lock, &until) != ETIMEDOUT) {
    }
    ended = k->ended;
    pthread_mutex_unlock(&k->lock);
    if (!ended) {
        log_msg(k->conf.log, LOG_ERROR, NULL,
                "OAuth: the JWKS loader did not stop within %d ms; it is left running",
                HTTP_KEYS_STOP_MS);
        return STATUS_AGAIN;
    }
    pthread_join(k->thread, NULL);
    pthread_mutex_lock(&k->lock);
    k->running = 0;
    pthread_mutex_unlock(&k->lock);
    return STATUS_OK;
}

void http_keys_free(struct http_keys *k)
{
    if (k == NULL)
        return;
    http_keys_flush(k);
    jwt_keys_drop(k->keys);
    pthread_cond_destroy(&k->wake);
    pthread_cond_destroy(&k->done);
    pthread_mutex_destroy(&k->lock);
    free(k);
}

/* --- Requests --- */

/* Flag a load (k->lock held). */
static void http_keys_flag(struct http_keys *k)
{
    if (!k->wanted) {
        k->wanted = 1;
        pthread_cond_signal(&k->wake);
    }
}

void http_keys_want(struct http_keys *k)
{
    pthread_mutex_lock(&k->lock);
    http_keys_flag(k);
    pthread_mutex_unlock(&k->lock);
}

/* No keys at all: wait for the load under way, or about to start, to end (k->lock held). */
static void http_keys_await(struct http_keys *k)
{
    long long now = http_keys_ms();
    struct timespec until = http_keys_at(now + HTTP_KEYS_WAIT_MS);
    unsigned long long ends = k->ends;

    if (!k->running || (!k->loading && now < k->tried + HTTP_KEYS_RETRY_S * 1000LL))
        return;
    while (k->keys == NULL && k->ends == ends && !k->stop &&
           pthread_cond_timedwait(&k->done, &k->lock, &until) != ETIMEDOUT)
        ;
}

struct jwt_keys *http_keys_get(struct http_keys *k, unsigned long long *gen)
{
    struct jwt_keys *keys;

    pthread_mutex_lock(&k->lock);
    if (k->keys == NULL || http_keys_ms() - k->loaded >= k->conf.refresh_s * 1000)
        http_keys_flag(k);
    if (k->keys == NULL)
        http_keys_await(k);
    keys = jwt_keys_hold(k->keys);
    *gen = k->gen;
    pthread_mutex_unlock(&k->lock);
    return keys;
}

/* --- Verified tokens --- */

struct principal *http_keys_cached(struct http_keys *k, const unsigned char *digest)
{
    struct http_keys_entry *set = k->cache[digest[0]];
    struct principal *who = NULL;
    long long now = (long long)time(NULL);

    pthread_mutex_lock(&k->lock);
    for (size_t w = 0; w < HTTP_KEYS_WAYS && who == NULL; w++) {
        struct principal *p = set[w].who;

        if (p == NULL || !sha256_equal(p->digest, digest, SHA256_BYTES))
            continue;
        if (now >= p->expires) {
            principal_drop(p);
            set[w].who = NULL;
            continue;
        }
        who = principal_hold(p);
    }
    pthread_mutex_unlock(&k->lock);
    return who;
}

/* In a free or expired slot, else the oldest. */
void http_keys_keep(struct http_keys *k, struct principal *who, unsigned long long gen)
{
    struct http_keys_entry *set = k->cache[who->digest[0]];
    long long now = (long long)time(NULL);
    size_t pick = 0;

    pthread_mutex_lock(&k->lock);
    if (gen != k->gen) {
        pthread_mutex_unlock(&k->lock);
        return;
    }
    for (size_t w = 0; w < HTTP_KEYS_WAYS; w++) {
        if (set[w].who == NULL || now >= set[w].who->expires) {
            pick = w;
            break;
        }
        if (set[w].age < set[pick].age)
            pick = w;
    }
    principal_drop(set[pick].who);
    set[pick].who = principal_hold(who);
    set[pick].age = ++k->clock;
    pthread_mutex_unlock(&k->lock);
}
