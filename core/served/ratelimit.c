/*
 * ratelimit.c: the token buckets of srv->rates: a chained hash table of named buckets, in the
 * order they were last used (the least recent goes first when the table is full), under one
 * mutex.
 */
#include "served/ratelimit.h"

#include "config/filter.h"
#include "lib/limits.h"
#include "lib/status.h"

#include <stdio.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A bucket's name: its kind, its section and whose it is. Sections are at most LIMIT_ID and
 * principals PRINCIPAL_ID_MAX bytes, which fit; a longer name is cut (two such names then
 * share a bucket: stricter, never lenient). */
#define RATELIMIT_KEY 256

struct ratelimit_bucket {
    struct ratelimit_bucket *chain; /* the next one in its hash slot */
    struct ratelimit_bucket *newer; /* toward rl->newest */
    struct ratelimit_bucket *older; /* toward rl->oldest */
    unsigned long long op;          /* the take that used it last */
    double tokens;                  /* as at `at` */
    long long at;                   /* ns: when tokens was counted */
    long long logged;               /* ns: its last log line */
    int logged_once;                /* logged is set */
    unsigned long refused;          /* refusals since its last log line */
    unsigned long hash;             /* of key */
    char key[RATELIMIT_KEY];        /* see ratelimit_key */
};

struct ratelimit {
    pthread_mutex_t lock; /* guards everything below */
    struct ratelimit_bucket **slots;
    size_t nslots; /* a power of two */
    size_t count, cap;
    struct ratelimit_bucket *newest, *oldest;
    unsigned long long ops; /* takes so far */
    long long log_ns;
    ratelimit_clock_fn clock;
    void *clock_ctx;
};

static long long ratelimit_monotonic(void *ctx)
{
    struct timespec ts;

    (void)ctx;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct ratelimit *ratelimit_new(size_t cap, long log_ms, ratelimit_clock_fn clock, void *ctx)
{
    struct ratelimit *rl = calloc(1, sizeof(*rl));

    if (rl == NULL)
        return NULL;
    rl->cap = cap > 0 ? cap : 1;
    rl->nslots = 16;
    while (rl->nslots < rl->cap)
        rl->nslots *= 2;
    rl->slots = calloc(rl->nslots, sizeof(*rl->slots));
    if (rl->slots == NULL) {
        free(rl);
        return NULL;
    }
    rl->log_ns = (long long)log_ms * 1000000LL;
    rl->clock = clock != NULL ? clock : ratelimit_monotonic;
    rl->clock_ctx = ctx;
    pthread_mutex_init(&rl->lock, NULL);
    return rl;
}

void ratelimit_free(struct ratelimit *rl)
{
    if (rl == NULL)
        return;
    for (struct ratelimit_bucket *b = rl->newest, *next; b != NULL; b = next) {
        next = b->older;
        free(b);
    }
    free(rl->slots);
    pthread_mutex_destroy(&rl->lock);
    free(rl);
}

/* The bucket's name into key (RATELIMIT_KEY bytes), and its hash (FNV-1a). The kind is one
 * byte and a unit separator parts section from who, so no two different triples meet. */
static unsigned long ratelimit_key(const struct ratelimit_ask *a, char *key)
{
    size_t len, room = RATELIMIT_KEY - 2;
    unsigned long hash = 2166136261u;

    key[0] = (char)('0' + a->kind);
    len = strlen(a->section);
    if (len > room / 2)
        len = room / 2;
    memcpy(key + 1, a->section, len);
    key[1 + len] = '\x1f';
    (void)strncpy(key + 2 + len, a->who, RATELIMIT_KEY - 3 - len);
    key[RATELIMIT_KEY - 1] = '\0';
    for (const unsigned char *p = (const unsigned char *)key; *p != '\0'; p++)
        hash = (hash ^ *p) * 16777619u;
    return hash;
}

static void ratelimit_unlink(struct ratelimit *rl, struct ratelimit_bucket *b)
{
    if (b->newer != NULL)
        b->newer->older = b->older;
    else
        rl->newest = b->older;
    if (b->older != NULL)
        b->older->newer = b->newer;
    else
        rl->oldest = b->newer;
    b->newer = b->older = NULL;
}

static void ratelimit_push(struct ratelimit *rl, struct ratelimit_bucket *b)
{
    b->older = rl->newest;
    b->newer = NULL;
    if (rl->newest != NULL)
        rl->newest->newer = b;
    rl->newest = b;
    if (rl->oldest == NULL)
        rl->oldest = b;
}

static struct ratelimit_bucket *ratelimit_find(struct ratelimit *rl, const char *key,
                                               unsigned long hash)
{
    struct ratelimit_bucket *b = rl->slots[hash & (rl->nslots - 1)];

    while (b != NULL && (b->hash != hash || strcmp(b->key, key) != 0))
        b = b->chain;
    return b;
}

/* The least recently used bucket out of the table, for reuse; NULL when it was used by this
 * very take (the table is smaller than one take's asks). */
static struct ratelimit_bucket *ratelimit_evict(struct ratelimit *rl)
{
    struct ratelimit_bucket *b = rl->oldest, **at;

    if (b == NULL || b->op == rl->ops)
        return NULL;
    at = &rl->slots[b->hash & (rl->nslots - 1)];
    while (*at != b)
        at = &(*at)->chain;
    *at = b->chain;
    ratelimit_unlink(rl, b);
    rl->count--;
    return b;
}

/* The bucket of a, made (full) when it is not there; NULL when it cannot be (no memory, or
 * a full table whose every bucket this take uses): a missing bucket admits. */
static struct ratelimit_bucket *ratelimit_get(struct ratelimit *rl, const struct ratelimit_ask *a,
                                              long long now)
{
    char key[RATELIMIT_KEY];
    unsigned long hash = ratelimit_key(a, key);
    struct ratelimit_bucket *b = ratelimit_find(rl, key, hash);

    if (b != NULL) {
        ratelimit_unlink(rl, b);
    } else {
        b = rl->count >= rl->cap ? ratelimit_evict(rl) : malloc(sizeof(*b));
        if (b == NULL)
            return NULL;
        memset(b, 0, sizeof(*b));
        memcpy(b->key, key, sizeof(key));
        b->hash = hash;
        b->tokens = a->burst;
        b->at = now;
        b->chain = rl->slots[hash & (rl->nslots - 1)];
        rl->slots[hash & (rl->nslots - 1)] = b;
        rl->count++;
    }
    ratelimit_push(rl, b);
    b->op = rl->ops;
    return b;
}

/* Bring b's tokens to now at a's rate, no more than a's burst (both may have changed since it
 * was last used: a reload applies at once). */
static void ratelimit_refill(struct ratelimit_bucket *b, const struct ratelimit_ask *a,
                             long long now)
{
    if (now > b->at)
        b->tokens += (double)(now - b->at) / 1e9 * a->rate;
    if (b->tokens > a->burst)
        b->tokens = a->burst;
    b->at = now;
}

/* Milliseconds until tokens (< 1) reach 1 at rate, rounded up, at least 1 (a millionth of
 * a millisecond over is float noise, not a millisecond more). */
static long ratelimit_wait_ms(double tokens, double rate)
{
    double ms = (1 - tokens) / rate * 1000;
    long whole = (long)ms;

    if (ms - (double)whole > 1e-6)
        whole++;
    return whole < 1 ? 1 : whole;
}

/* A refusal counted in b, and whether it is due a log line. */
static void ratelimit_refuse(struct ratelimit *rl, struct ratelimit_bucket *b,
                             struct ratelimit_ask *a, long long now)
{
    b->refused++;
    if (b->logged_once && now - b->logged < rl->log_ns)
        return;
    a->log = 1;
    a->refused = b->refused;
    b->refused = 0;
    b->logged = now;
    b->logged_once = 1;
}

int ratelimit_take(struct ratelimit *rl, struct ratelimit_ask *asks, size_t n, long *retry_ms)
{
    long long now;
    long wait = 0;

    *retry_ms = 0;
    if (rl == NULL || n == 0)
        return STATUS_OK;
    pthread_mutex_lock(&rl->lock);
    now = rl->clock(rl->clock_ctx);
    rl->ops++;
    for (size_t i = 0; i < n; i++) {
        struct ratelimit_ask *a = &asks[i];
        struct ratelimit_bucket *b =
            a->rate > 0 && a->burst >= 1 ? ratelimit_get(rl, a, now) : NULL;

        a->retry_ms = 0;
        a->log = 0;
        a->refused = 0;
        if (b == NULL)
            continue;
        ratelimit_refill(b, a, now);
        if (b->tokens >= 1)
            continue;
        a->retry_ms = ratelimit_wait_ms(b->tokens, a->rate);
        if (a->retry_ms > wait)
            wait = a->retry_ms;
        ratelimit_refuse(rl, b, a, now);
    }
    for (size_t i = 0; i < n && wait == 0; i++) {
        char key[RATELIMIT_KEY];
        unsigned long hash = ratelimit_key(&asks[i], key);
        struct ratelimit_bucket *b = ratelimit_find(rl, key, hash);

        if (b != NULL && b->op == rl->ops)
            b->tokens -= 1;
    }
    pthread_mutex_unlock(&rl->lock);
    *retry_ms = wait;
    return wait == 0 ? STATUS_OK : STATUS_LIMIT;
}

size_t ratelimit_count(struct ratelimit *rl)
{
    size_t n;

    if (rl == NULL)
        return 0;
    pthread_mutex_lock(&rl->lock);
    n = rl->count;
    pthread_mutex_unlock(&rl->lock);
    return n;
}

long ratelimit_seconds(long retry_ms)
{
    long s = (retry_ms + 999) / 1000;

    return s < 1 ? 1 : s;
}

int ratelimit_burst(const struct config_rate *rate, int burst)
{
    if (burst > 0)
        return burst;
    return rate->n > 0 ? rate->n : 1;
}

/* The sections of cfg that count tool, as asks into asks (cfg->nlimits of room). */
static size_t ratelimit_tool_asks(const struct config *cfg, const char *tool, const char *who,
                                  struct ratelimit_ask *asks)
{
    size_t n = 0;

    for (size_t i = 0; i < cfg->nlimits; i++) {
        const struct config_limit *l = &cfg->limits[i];

        if (l->rate.per_s <= 0 || !filter_keeps(l->tools, tool))
            continue;
        asks[n++] = (struct ratelimit_ask){.kind = RATELIMIT_TOOL,
                                           .section = l->id,
                                           .who = l->per_principal ? who : "",
                                           .rate = l->rate.per_s,
                                           .burst = ratelimit_burst(&l->rate, l->burst)};
    }
    return n;
}

/* The refusal as the error's message (the section that waits longest), and its log lines. */
static void ratelimit_tool_refusal(const struct ratelimit_ask *asks, size_t n, long retry_ms,
                                   const struct log *lg, const char *tool, const char *label,
                                   char *msg, size_t size)
{
    for (size_t i = 0; i < n; i++) {
        const struct ratelimit_ask *a = &asks[i];

        if (a->retry_ms == retry_ms)
            snprintf(msg, size,
                     "Rate limit exceeded: [limit.%s] allows %g calls a second (burst %d)%s; "
                     "retry after %ld ms",
                     a->section, a->rate, a->burst, a->who[0] ? " per principal" : "", retry_ms);
        if (a->log)
            log_msg(lg, LOG_WARNING, NULL,
                    "rate: %lu call(s) of %s by %s refused by [limit.%s] (%g a second, burst %d; "
                    "logged at most every %d s)",
                    a->refused, tool, label, a->section, a->rate, a->burst,
                    LIMIT_RATE_LOG_MS / 1000);
    }
}

int ratelimit_tool(struct ratelimit *rl, const struct config *cfg, const struct log *lg,
                   const char *tool, const char *who, const char *label, long *retry_ms, char *msg,
                   size_t size)
{
    struct ratelimit_ask *asks;
    size_t n;
    int status;

    *retry_ms = 0;
    if (rl == NULL || cfg->nlimits == 0)
        return STATUS_OK;
    asks = calloc(cfg->nlimits, sizeof(*asks));
    if (asks == NULL)
        return STATUS_OK;
    n = ratelimit_tool_asks(cfg, tool, who != NULL ? who : "local", asks);
    status = ratelimit_take(rl, asks, n, retry_ms);
    if (status != STATUS_OK)
        ratelimit_tool_refusal(asks, n, *retry_ms, lg, tool,
                               label != NULL ? label : "the local user", msg, size);
    free(asks);
    return status;
}
