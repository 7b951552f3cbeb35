/*
 * trace.c: W3C Trace Context for a call: the traceparent it came with checked, or a trace of
 * its own started, and mcph's span; made on first use (trace.h).
 */
#include "wire/trace.h"

#include "lib/status.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* The calling thread's generator (splitmix64): ids must not repeat, not be secret, so one
 * getrandom per thread seeds it and every id after is a few instructions. The only
 * file-scope state, and it is per thread. */
static _Thread_local uint64_t trace_rng;
static _Thread_local int trace_rng_seeded;

static void trace_seed(void)
{
    uint64_t seed = 0;

    if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed)) {
        struct timespec ts;

        /* No entropy yet (early boot): time and this thread's address still differ. */
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^
               (uint64_t)(uintptr_t)&trace_rng;
    }
    trace_rng = seed;
    trace_rng_seeded = 1;
}

static uint64_t trace_next(void)
{
    uint64_t z;

    if (!trace_rng_seeded)
        trace_seed();
    trace_rng += 0x9e3779b97f4a7c15u;
    z = trace_rng;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

void trace_random(unsigned char *buf, size_t n)
{
    while (n > 0) {
        uint64_t r = trace_next();
        size_t k = n < sizeof(r) ? n : sizeof(r);

        memcpy(buf, &r, k);
        buf += k;
        n -= k;
    }
}

/* n random lowercase hex digits, not all zeros (W3C: an all-zero id is invalid). */
static void trace_hex_random(char *out, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char bytes[TRACE_ID_LEN / 2];
    int zero = 1;

    while (zero) {
        trace_random(bytes, n / 2);
        for (size_t i = 0; i < n / 2; i++)
            zero &= bytes[i] == 0;
    }
    for (size_t i = 0; i < n / 2; i++) {
        out[2 * i] = hex[bytes[i] >> 4];
        out[2 * i + 1] = hex[bytes[i] & 15];
    }
}

/* n lowercase hex digits; *zero cleared when one is not '0'. */
static int trace_hex(const char *s, size_t n, int *zero)
{
    for (size_t i = 0; i < n; i++) {
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
        if (s[i] != '0')
            *zero = 0;
    }
    return 1;
}

int trace_parse(const char *text, char *id, char *flags)
{
    int vzero = 1, izero = 1, pzero = 1, fzero = 1;
    size_t len;

    if (text == NULL)
        return STATUS_INVALID;
    len = strnlen(text, TRACE_PARENT_LEN + 1);
    if (len < TRACE_PARENT_LEN || text[2] != '-' || text[35] != '-' || text[52] != '-')
        return STATUS_INVALID;
    if (!trace_hex(text, 2, &vzero) || !trace_hex(text + 3, TRACE_ID_LEN, &izero) ||
        !trace_hex(text + 36, TRACE_SPAN_LEN, &pzero) || !trace_hex(text + 53, 2, &fzero))
        return STATUS_INVALID;
    /* Version ff is forbidden; 00 has exactly these fields; a later one may add some after a
     * '-', which a version 00 reader skips. */
    if (memcmp(text, "ff", 2) == 0 || izero || pzero)
        return STATUS_INVALID;
    if (len > TRACE_PARENT_LEN && (vzero || text[TRACE_PARENT_LEN] != '-'))
        return STATUS_INVALID;
    memcpy(id, text + 3, TRACE_ID_LEN);
    id[TRACE_ID_LEN] = '\0';
    memcpy(flags, text + 53, 2);
    flags[2] = '\0';
    return STATUS_OK;
}

int trace_state_ok(const char *text)
{
    size_t n = 0;

    if (text == NULL)
        return 0;
    for (; text[n] != '\0'; n++) {
        if (n >= TRACE_STATE_MAX || (unsigned char)text[n] < 0x20 || (unsigned char)text[n] > 0x7e)
            return 0;
    }
    return n > 0;
}

void trace_init(struct trace *t, const cJSON *msg, const struct peer *peer)
{
    t->msg = msg;
    t->peer = peer;
    t->made = NULL;
}

void trace_release(struct trace *t)
{
    free(t->made);
    t->made = NULL;
}

/* The request's own pair when its _meta names a traceparent, else the HTTP headers'. */
static void trace_given(const struct trace *t, const char **parent, const char **state)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(t->msg, "params");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(meta, TRACE_KEY_PARENT);

    if (p != NULL) {
        *parent = cJSON_GetStringValue(p);
        *state = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, TRACE_KEY_STATE));
        return;
    }
    *parent = t->peer != NULL ? t->peer->traceparent : NULL;
    *state = t->peer != NULL ? t->peer->tracestate : NULL;
}

/* The trace made: NULL when out of memory. */
static struct trace_made *trace_make(struct trace *t)
{
    struct trace_made *m;
    const char *given, *state;
    char id[TRACE_ID_LEN + 1], flags[3];

    if (t->made != NULL)
        return t->made;
    m = malloc(sizeof(*m));
    if (m == NULL)
        return NULL;
    trace_given(t, &given, &state);
    if (trace_parse(given, id, flags) == STATUS_OK) {
        m->state = trace_state_ok(state) ? state : NULL;
    } else {
        /* Absent or malformed: ignored (W3C), and the call starts a trace of its own. */
        trace_hex_random(id, TRACE_ID_LEN);
        id[TRACE_ID_LEN] = '\0';
        memcpy(flags, "01", 3);
        m->state = NULL;
    }
    memcpy(m->parent, "00-", 3);
    memcpy(m->parent + 3, id, TRACE_ID_LEN);
    m->parent[35] = '-';
    trace_hex_random(m->parent + 36, TRACE_SPAN_LEN);
    m->parent[52] = '-';
    memcpy(m->parent + 53, flags, 3);
    memcpy(m->tag, "trace=", 6);
    memcpy(m->tag + 6, id, TRACE_ID_LEN + 1);
    t->made = m;
    return m;
}

const char *trace_tag(struct trace *t)
{
    struct trace_made *m = trace_make(t);

    return m != NULL ? m->tag : "";
}

const char *trace_id(struct trace *t)
{
    struct trace_made *m = trace_make(t);

    return m != NULL ? m->tag + 6 : "";
}

const char *trace_context(struct trace *t, const char **state)
{
    struct trace_made *m = trace_make(t);

    if (state != NULL)
        *state = m != NULL ? m->state : NULL;
    return m != NULL ? m->parent : "";
}
