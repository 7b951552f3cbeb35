/*
 * fuzz_sse.c: the relay's event-stream parser (client/remote_sse.h) on any bytes. The first
 * byte picks the size of the pieces the rest is fed in (1 to 64; 0: whole). Properties: every
 * feed returns 0 or STATUS_LIMIT; an event's data is never empty, never longer than the bound,
 * holds no CR nor LF (it becomes one line), and its length is its strlen when it holds no NUL;
 * fed in pieces or whole, the same events come in the same order, and the same last event id.
 */
#include "client/remote_sse.h"
#include "lib/status.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_SSE_MAX 256
#define FUZZ_SSE_EVENTS 4096

struct fuzz_events {
    unsigned long long hash; /* of every event's data, in order */
    size_t count;
};

static void fuzz_fail(const char *why)
{
    fprintf(stderr, "fuzz_sse: %s\n", why);
    abort();
}

static int fuzz_on_event(void *ctx, const char *d, size_t len)
{
    struct fuzz_events *ev = ctx;

    if (len == 0 || len > FUZZ_SSE_MAX)
        fuzz_fail("an event's data is empty or past the bound");
    if (memchr(d, '\r', len) != NULL || memchr(d, '\n', len) != NULL)
        fuzz_fail("an event's data holds a line end");
    if (d[len] != '\0')
        fuzz_fail("an event's data is not NUL-terminated");
    for (size_t i = 0; i < len; i++)
        ev->hash = ev->hash * 1099511628211ULL + (unsigned char)d[i];
    ev->hash = ev->hash * 31 + 0x100;
    ev->count++;
    return ev->count >= FUZZ_SSE_EVENTS;
}

/* Feed bytes in pieces of step (0: whole); the events into ev, the last id into id. */
static int fuzz_feed(const uint8_t *bytes, size_t len, size_t step, struct fuzz_events *ev,
                     char **id)
{
    struct remote_sse s;
    int rc = 0;

    remote_sse_init(&s, FUZZ_SSE_MAX);
    if (step == 0)
        step = len > 0 ? len : 1;
    for (size_t at = 0; at < len && rc == 0; at += step)
        rc = remote_sse_feed(&s, (const char *)bytes + at, len - at < step ? len - at : step,
                             fuzz_on_event, ev);
    if (rc != 0 && rc != 1 && rc != STATUS_LIMIT)
        fuzz_fail("a feed returned neither 0, the callback's stop nor STATUS_LIMIT");
    *id = strdup(s.id.buf);
    remote_sse_release(&s);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_events whole = {0}, pieces = {0};
    char *id_whole, *id_pieces;
    int rc_whole, rc_pieces;
    size_t step;

    if (size == 0)
        return 0;
    step = data[0] % 65;
    rc_whole = fuzz_feed(data + 1, size - 1, 0, &whole, &id_whole);
    rc_pieces = fuzz_feed(data + 1, size - 1, step == 0 ? 1 : step, &pieces, &id_pieces);
    /* A limit hit may come at a different event when fed whole; only clean runs compare. */
    if (rc_whole == 0 && rc_pieces == 0) {
        if (whole.count != pieces.count || whole.hash != pieces.hash)
            fuzz_fail("fed in pieces, the events differ from fed whole");
        if (strcmp(id_whole, id_pieces) != 0)
            fuzz_fail("fed in pieces, the last event id differs from fed whole");
    }
    free(id_whole);
    free(id_pieces);
    return 0;
}
