#include "served/inflight.h"

#include "wire/jsonrpc.h"
#include "lib/status.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void inflight_setup(struct inflight *t, size_t nbuckets)
{
    pthread_mutexattr_t attr;

    /* Held for a few instructions by the reader and a helper at once: spin before sleeping. */
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&t->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    t->one = NULL;
    t->buckets = nbuckets > 1 ? calloc(nbuckets, sizeof(*t->buckets)) : NULL;
    t->nbuckets = t->buckets != NULL ? nbuckets : 1;
    if (t->buckets == NULL)
        t->buckets = &t->one;
    t->closed = 0;
    t->next_ask = 1;
}

void inflight_init(struct inflight *t)
{
    inflight_setup(t, INFLIGHT_BUCKETS);
}

void inflight_init_small(struct inflight *t)
{
    inflight_setup(t, 1);
}

void inflight_release(struct inflight *t)
{
    if (t->buckets != &t->one)
        free(t->buckets);
    t->buckets = &t->one;
    t->nbuckets = 1;
    pthread_mutex_destroy(&t->lock);
}

/* A key that tells ids apart: "s" + a string id, "n" + an integer id (1 and "1" differ),
 * into buf (32 bytes) when it fits, else allocated. Made directly: cJSON's number printer
 * costs more than the rest of a call's bookkeeping. NULL when out of memory or not an id. */
static char *inflight_key(const cJSON *id, char *buf)
{
    size_t len;
    char *key;

    if (cJSON_IsNumber(id)) {
        if (!jsonrpc_valid_id(id))
            return NULL;
        buf[0] = 'n';
        jsonrpc_int_text(id, buf + 1);
        return buf;
    }
    if (!cJSON_IsString(id))
        return NULL;
    len = strlen(id->valuestring);
    key = len + 2 <= 32 ? buf : malloc(len + 2);
    if (key != NULL) {
        key[0] = 's';
        memcpy(key + 1, id->valuestring, len + 1);
    }
    return key;
}

static void inflight_key_free(char *key, const char *buf)
{
    if (key != buf)
        free(key);
}

static struct inflight_call **inflight_bucket(struct inflight *t, const char *key)
{
    uint32_t h = 2166136261u;

    for (const char *s = key; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return &t->buckets[h & (t->nbuckets - 1)];
}

static struct inflight_call *inflight_find(struct inflight *t, const char *key)
{
    for (struct inflight_call *c = *inflight_bucket(t, key); c != NULL; c = c->next) {
        if (strcmp(c->key, key) == 0)
            return c;
    }
    return NULL;
}

int inflight_add(struct inflight *t, const cJSON *id, struct inflight_call *call)
{
    int status = STATUS_OK;
    const char *method = call->method, *target = call->target;

    memset(call, 0, sizeof(*call));
    call->method = method;
    call->target = target;
    call->key = inflight_key(id, call->key_buf);
    if (call->key == NULL)
        return STATUS_NOMEM;
    atomic_init(&call->cancelled, 0);
    pthread_mutex_lock(&t->lock);
    if (inflight_find(t, call->key) != NULL) {
        status = STATUS_EXISTS;
    } else {
        struct inflight_call **bucket = inflight_bucket(t, call->key);

        pthread_cond_init(&call->answered, NULL);
        call->next = *bucket;
        *bucket = call;
    }
    pthread_mutex_unlock(&t->lock);
    if (status != STATUS_OK)
        inflight_key_free(call->key, call->key_buf);
    return status;
}

int inflight_remove(struct inflight *t, struct inflight_call *call)
{
    pthread_mutex_lock(&t->lock);
    for (struct inflight_call **p = inflight_bucket(t, call->key); *p != NULL; p = &(*p)->next) {
        if (*p == call) {
            *p = call->next;
            break;
        }
    }
    pthread_mutex_unlock(&t->lock);
    cJSON_Delete(call->answer);
    call->answer = NULL;
    pthread_cond_destroy(&call->answered);
    inflight_key_free(call->key, call->key_buf);
    call->key = NULL;
    return atomic_load(&call->cancelled);
}

int inflight_cancel(struct inflight *t, const cJSON *id)
{
    char buf[32];
    char *key = inflight_key(id, buf);
    struct inflight_call *call;

    if (key == NULL)
        return STATUS_NOMEM;
    pthread_mutex_lock(&t->lock);
    call = inflight_find(t, key);
    if (call != NULL) {
        atomic_store(&call->cancelled, 1);
        pthread_cond_broadcast(&call->answered);
    }
    pthread_mutex_unlock(&t->lock);
    inflight_key_free(key, buf);
    return call != NULL ? STATUS_OK : STATUS_NOT_FOUND;
}

void inflight_ask_begin(struct inflight *t, struct inflight_call *call, char *ask_id)
{
    pthread_mutex_lock(&t->lock);
    snprintf(call->ask_id, sizeof(call->ask_id), "mcph-%llu", (unsigned long long)t->next_ask++);
    cJSON_Delete(call->answer);
    call->answer = NULL;
    memcpy(ask_id, call->ask_id, sizeof(call->ask_id));
    pthread_mutex_unlock(&t->lock);
}

static void inflight_deadline(struct timespec *ts, int timeout_ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += timeout_ms / 1000;
    ts->tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

int inflight_ask_wait(struct inflight *t, struct inflight_call *call, int timeout_ms,
                      cJSON **answer)
{
    struct timespec deadline;
    int status = STATUS_AGAIN;

    inflight_deadline(&deadline, timeout_ms);
    pthread_mutex_lock(&t->lock);
    for (;;) {
        if (call->answer != NULL) {
            *answer = call->answer;
            call->answer = NULL;
            status = STATUS_OK;
            break;
        }
        if (atomic_load(&call->cancelled)) {
            status = STATUS_INVALID;
            break;
        }
        if (t->closed) {
            status = STATUS_EOF;
            break;
        }
        if (pthread_cond_timedwait(&call->answered, &t->lock, &deadline) == ETIMEDOUT &&
            call->answer == NULL)
            break;
    }
    call->ask_id[0] = '\0';
    pthread_mutex_unlock(&t->lock);
    return status;
}

void inflight_close(struct inflight *t)
{
    pthread_mutex_lock(&t->lock);
    t->closed = 1;
    for (size_t b = 0; b < t->nbuckets; b++) {
        for (struct inflight_call *c = t->buckets[b]; c != NULL; c = c->next)
            pthread_cond_broadcast(&c->answered);
    }
    pthread_mutex_unlock(&t->lock);
}

size_t inflight_cancel_all(struct inflight *t)
{
    size_t n = 0;

    pthread_mutex_lock(&t->lock);
    for (size_t b = 0; b < t->nbuckets; b++) {
        for (struct inflight_call *c = t->buckets[b]; c != NULL; c = c->next) {
            atomic_store(&c->cancelled, 1);
            pthread_cond_broadcast(&c->answered);
            n++;
        }
    }
    pthread_mutex_unlock(&t->lock);
    return n;
}

/* A request's id as JSON shows it, from its key. */
static void inflight_describe_one(struct strbuf *sb, const struct inflight_call *c)
{
    if (c->key[0] == 'n')
        strbuf_addstr(sb, c->key + 1);
    else
        strbuf_addf(sb, "\"%s\"", c->key + 1);
    strbuf_addf(sb, " (%s%s%s)", c->method ? c->method : "?", c->target ? " " : "",
                c->target ? c->target : "");
}

size_t inflight_describe(struct inflight *t, struct strbuf *sb, size_t max)
{
    size_t n = 0;

    pthread_mutex_lock(&t->lock);
    for (size_t b = 0; b < t->nbuckets; b++) {
        for (struct inflight_call *c = t->buckets[b]; c != NULL; c = c->next) {
            if (n < max) {
                if (n > 0)
                    strbuf_addstr(sb, ", ");
                inflight_describe_one(sb, c);
            }
            n++;
        }
    }
    pthread_mutex_unlock(&t->lock);
    if (n > max)
        strbuf_addf(sb, " and %zu more", n - max);
    return n;
}

int inflight_answer(struct inflight *t, const cJSON *id, cJSON *msg)
{
    struct inflight_call *call;
    int status = STATUS_NOT_FOUND;

    if (!cJSON_IsString(id))
        return status;
    pthread_mutex_lock(&t->lock);
    /* Questions to the client are few: a scan of every call waiting is cheap enough. */
    for (size_t b = 0; b < t->nbuckets && status != STATUS_OK; b++) {
        for (call = t->buckets[b]; call != NULL; call = call->next) {
            if (call->ask_id[0] != '\0' && strcmp(call->ask_id, id->valuestring) == 0 &&
                call->answer == NULL) {
                call->answer = msg;
                pthread_cond_broadcast(&call->answered);
                status = STATUS_OK;
                break;
            }
        }
    }
    pthread_mutex_unlock(&t->lock);
    return status;
}
