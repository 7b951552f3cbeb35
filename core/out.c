#include "out.h"

#include "jsonrpc.h"
#include "limits.h"
#include "status.h"
#include "utf8.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

struct out_batch {
    struct out *out;
    pthread_mutex_t lock; /* guards pending and slots */
    size_t pending;       /* replies still to come, +1 until out_batch_close */
    char **slots;         /* owned: each element's reply text, or NULL (notification) */
    size_t n;
};

void out_init(struct out *o, int fd)
{
    pthread_mutexattr_t attr;

    memset(o, 0, sizeof(*o));
    o->fd = fd;
    strbuf_init(&o->pending);
    strbuf_init(&o->wbuf);
    atomic_init(&o->failed, 0);
    atomic_init(&o->held, 0);
    /* Replies from two threads meet here for a moment each: spin a little before sleeping. */
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&o->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    pthread_cond_init(&o->drained, NULL);
}

void out_release(struct out *o)
{
    if (o == NULL)
        return;
    strbuf_release(&o->pending);
    strbuf_release(&o->wbuf);
    pthread_cond_destroy(&o->drained);
    pthread_mutex_destroy(&o->lock);
}

/* Publish what is held now. Lock held. */
static void out_note_held(struct out *o)
{
    atomic_store_explicit(&o->held, o->pending.len + (o->writing ? o->wbuf.len : 0),
                          memory_order_relaxed);
}

size_t out_held(struct out *o)
{
    return atomic_load_explicit(&o->held, memory_order_relaxed);
}

/* Write every part, in order, whatever writev() takes at a time. */
static int out_writev_all(int fd, struct iovec *v, int cnt)
{
    while (cnt > 0) {
        ssize_t n = writev(fd, v, cnt);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return STATUS_IO;
        while (cnt > 0 && (size_t)n >= v->iov_len) {
            n -= (ssize_t)v->iov_len;
            v++;
            cnt--;
        }
        if (cnt > 0) {
            v->iov_base = (char *)v->iov_base + n;
            v->iov_len -= (size_t)n;
        }
    }
    return STATUS_OK;
}

/* The peer is gone: drop what is queued and say so once. Lock held. */
static void out_fail(struct out *o)
{
    o->written = o->queued;
    strbuf_reset(&o->pending);
    out_note_held(o);
    if (atomic_exchange(&o->failed, 1) == 0 && o->on_fail != NULL)
        o->on_fail(o->fail_ctx);
}

/* Write what is queued, then the `n` parts of one more line (none: n = 0) straight from
 * where they are. The caller is the writer (o->writing); the lock is released while writing. */
static void out_write_queued(struct out *o, const char *const *parts, const size_t *lens, int n)
{
    struct strbuf swap = o->wbuf;
    struct iovec v[8];
    unsigned long lines = o->queued;
    int cnt = 0, status;

    o->wbuf = o->pending;
    o->pending = swap;
    v[cnt++] = (struct iovec){o->wbuf.buf, o->wbuf.len};
    for (int i = 0; i < n; i++)
        v[cnt++] = (struct iovec){(void *)parts[i], lens[i]};
    if (n > 0)
        v[cnt++] = (struct iovec){(void *)"\n", 1};
    out_note_held(o);
    pthread_mutex_unlock(&o->lock);
    status = o->sink != NULL ? o->sink(o->sink_ctx, v, cnt) : out_writev_all(o->fd, v, cnt);
    pthread_mutex_lock(&o->lock);
    o->written = lines;
    /* A 1 MiB reply once should not keep a 1 MiB buffer for good. */
    if (o->wbuf.alloc > LIMIT_OUT_KEEP_BYTES)
        strbuf_release(&o->wbuf);
    else
        strbuf_reset(&o->wbuf);
    if (status != STATUS_OK)
        out_fail(o);
    out_note_held(o);
    pthread_cond_broadcast(&o->drained);
}

/* Become the writer and write until nothing is queued. Lock held (released while writing). */
static void out_drain(struct out *o)
{
    o->writing = 1;
    while (o->pending.len > 0 && !atomic_load(&o->failed))
        out_write_queued(o, NULL, NULL, 0);
    o->writing = 0;
}

void out_flush(struct out *o)
{
    pthread_mutex_lock(&o->lock);
    if (!o->writing)
        out_drain(o);
    pthread_mutex_unlock(&o->lock);
}

int out_stale(struct out *o, unsigned long *since)
{
    int stale;

    pthread_mutex_lock(&o->lock);
    stale = !o->writing && o->written < *since && o->pending.len > 0;
    *since = o->queued;
    pthread_mutex_unlock(&o->lock);
    return stale;
}

/* Room for one more line: a client that does not read holds writers back here, once the
 * queue passes its cap, instead of letting it grow without bound. Lock held. */
static void out_wait_room(struct out *o)
{
    while (o->pending.len > LIMIT_OUT_PENDING_BYTES && !atomic_load(&o->failed)) {
        if (!o->writing) {
            out_drain(o);
            continue;
        }
        pthread_cond_wait(&o->drained, &o->lock);
    }
}

/* A large line is not copied into the queue: once no other thread writes, it goes out with
 * what is queued before it, straight from its parts. Lock held (released while writing). */
static int out_put_direct(struct out *o, const char *const *parts, const size_t *lens, int n)
{
    while (o->writing && !atomic_load(&o->failed))
        pthread_cond_wait(&o->drained, &o->lock);
    if (atomic_load(&o->failed))
        return STATUS_IO;
    o->writing = 1;
    o->queued++;
    out_write_queued(o, parts, lens, n);
    /* Lines queued meanwhile: this thread is the writer still. */
    out_drain(o);
    return atomic_load(&o->failed) ? STATUS_IO : STATUS_OK;
}

/* Queue the pieces of one line (at most 6), as they are. */
static int out_put_valid(struct out *o, const char *const *parts, const size_t *lens, int n)
{
    int status = STATUS_OK;
    size_t mark, total = 0;

    for (int i = 0; i < n; i++)
        total += lens[i];
    pthread_mutex_lock(&o->lock);
    if (total >= LIMIT_OUT_DIRECT_BYTES) {
        status = out_put_direct(o, parts, lens, n);
        pthread_mutex_unlock(&o->lock);
        return status;
    }
    out_wait_room(o);
    if (atomic_load(&o->failed)) {
        pthread_mutex_unlock(&o->lock);
        return STATUS_IO;
    }
    mark = o->pending.len;
    for (int i = 0; i < n && status == STATUS_OK; i++)
        status = strbuf_add(&o->pending, parts[i], lens[i]);
    if (status == STATUS_OK)
        status = strbuf_addch(&o->pending, '\n');
    if (status == STATUS_OK) {
        o->queued++;
    } else {
        /* Never half a line. */
        o->pending.len = mark;
        o->pending.buf[mark] = '\0';
    }
    /* A sink has no flush points: its lines go at once. */
    if (o->sink != NULL && !o->writing)
        out_drain(o);
    out_note_held(o);
    pthread_mutex_unlock(&o->lock);
    return status;
}

/* Queue the pieces of one line (at most 6). Every line written is UTF-8: bytes that are not
 * part of a well-formed sequence (a plugin's text, a path quoted in a message) become U+FFFD.
 * They can only be inside JSON strings, where cJSON copies bytes of 0x80 and above as they
 * are, so the line stays the same JSON otherwise. */
static int out_put_parts(struct out *o, const char *const *parts, const size_t *lens, int n,
                         unsigned checked)
{
    const char *fixed_parts[6];
    size_t fixed_lens[6];
    char *repaired[6] = {NULL};
    int status = STATUS_OK, bad = 0;

    /* Parts in `checked` (bit i: part i) are known to be UTF-8 already. */
    for (int i = 0; i < n; i++)
        bad |= !(checked & (1u << i)) && utf8_valid(parts[i], lens[i]) != lens[i];
    if (!bad)
        return out_put_valid(o, parts, lens, n);
    for (int i = 0; i < n && status == STATUS_OK; i++) {
        fixed_parts[i] = parts[i];
        fixed_lens[i] = lens[i];
        if ((checked & (1u << i)) || utf8_valid(parts[i], lens[i]) == lens[i])
            continue;
        repaired[i] = utf8_repair(parts[i], lens[i], &fixed_lens[i]);
        fixed_parts[i] = repaired[i];
        if (repaired[i] == NULL)
            status = STATUS_NOMEM;
    }
    if (status == STATUS_OK)
        status = out_put_valid(o, fixed_parts, fixed_lens, n);
    for (int i = 0; i < n; i++)
        free(repaired[i]);
    return status;
}

int out_put(struct out *o, const char *text, size_t len)
{
    const char *parts[1] = {text};
    size_t lens[1] = {len};

    return out_put_parts(o, parts, lens, 1, 0);
}

/* The JSON text of a request id into buf (JSONRPC_INT_TEXT bytes) when it is an integer;
 * else NULL, and the caller prints it. */
static const char *out_int_id(const cJSON *id, char *buf)
{
    if (id == NULL)
        return "null";
    if (!cJSON_IsNumber(id) || !jsonrpc_valid_id(id))
        return NULL;
    return jsonrpc_int_text(id, buf);
}

/* The pieces of {"jsonrpc":"2.0","id":ID,"result":RESULT}: five parts and their lengths. The
 * id's text is in buf (JSONRPC_INT_TEXT bytes) or *printed (owned, free it). Returns
 * STATUS_OK or STATUS_NOMEM. */
static int out_result_parts(const cJSON *id, const char *result, char *buf, char **printed,
                            const char **parts, size_t *lens)
{
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
    static const char mid[] = ",\"result\":";
    const char *idtext = out_int_id(id, buf);

    *printed = idtext ? NULL : cJSON_PrintUnformatted(id);
    if (idtext == NULL && (idtext = *printed) == NULL)
        return STATUS_NOMEM;
    parts[0] = head;
    lens[0] = sizeof(head) - 1;
    parts[1] = idtext;
    lens[1] = strlen(idtext);
    parts[2] = mid;
    lens[2] = sizeof(mid) - 1;
    parts[3] = result;
    lens[3] = strlen(result);
    parts[4] = "}";
    lens[4] = 1;
    return STATUS_OK;
}

/* The result message as one line, queued. The id came in a line that was checked, or is
 * mcph's own: it is UTF-8; so is result when `checked`. */
static int out_put_result(struct out *o, const cJSON *id, const char *result, int checked)
{
    char buf[JSONRPC_INT_TEXT], *printed;
    const char *parts[5];
    size_t lens[5];
    int status = out_result_parts(id, result, buf, &printed, parts, lens);

    if (status == STATUS_OK)
        status = out_put_parts(o, parts, lens, 5, checked ? 0x1Fu : 0x17u);
    free(printed);
    return status;
}

/* The result message as a string (owned), for a batch's slot; NULL when out of memory. */
static char *out_result_string(const cJSON *id, const char *result)
{
    char buf[JSONRPC_INT_TEXT], *printed;
    const char *parts[5];
    size_t lens[5];
    struct strbuf sb = STRBUF_INIT;

    if (out_result_parts(id, result, buf, &printed, parts, lens) == STATUS_OK) {
        for (int i = 0; i < 5; i++)
            strbuf_add(&sb, parts[i], lens[i]);
    }
    free(printed);
    if (sb.nomem || sb.len == 0) {
        strbuf_release(&sb);
        return NULL;
    }
    return strbuf_detach(&sb, NULL);
}

/* --- Batches. --- */

static void out_batch_flush(struct out_batch *b)
{
    struct strbuf sb = STRBUF_INIT;

    strbuf_addch(&sb, '[');
    for (size_t i = 0; i < b->n; i++) {
        if (b->slots[i] == NULL)
            continue;
        if (sb.len > 1)
            strbuf_addch(&sb, ',');
        strbuf_addstr(&sb, b->slots[i]);
    }
    strbuf_addch(&sb, ']');
    /* Only notifications: JSON-RPC sends nothing at all. */
    if (!sb.nomem && sb.len > 2)
        out_put(b->out, sb.buf, sb.len);
    strbuf_release(&sb);
    for (size_t i = 0; i < b->n; i++)
        free(b->slots[i]);
    free(b->slots);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

static void out_batch_done(struct out_batch *b, size_t slot, char *text)
{
    size_t left;

    pthread_mutex_lock(&b->lock);
    if (slot < b->n && b->slots[slot] == NULL)
        b->slots[slot] = text;
    else
        free(text);
    left = --b->pending;
    pthread_mutex_unlock(&b->lock);
    if (left == 0)
        out_batch_flush(b);
}

struct out_batch *out_batch_new(struct out *o, size_t n)
{
    struct out_batch *b = calloc(1, sizeof(*b));

    if (b == NULL || (b->slots = calloc(n + 1, sizeof(*b->slots))) == NULL) {
        free(b);
        return NULL;
    }
    b->out = o;
    b->n = n;
    b->pending = n + 1;
    pthread_mutex_init(&b->lock, NULL);
    return b;
}

void out_batch_close(struct out_batch *b)
{
    out_batch_done(b, b->n, NULL);
}

/* --- Replies. --- */

void out_reply_text(struct out *o, struct out_batch *b, size_t slot, char *text)
{
    if (b != NULL) {
        out_batch_done(b, slot, text);
        return;
    }
    if (text != NULL)
        out_put(o, text, strlen(text));
    free(text);
}

void out_reply(struct out *o, struct out_batch *b, size_t slot, cJSON *msg)
{
    char *text = msg ? cJSON_PrintUnformatted(msg) : NULL;

    cJSON_Delete(msg);
    out_reply_text(o, b, slot, text);
}

/* out_result_text, for a result text that is not known to be UTF-8 unless `checked`. */
static void out_result_printed(struct out *o, struct out_batch *b, size_t slot, const cJSON *id,
                               const char *result, int checked)
{
    if (b != NULL)
        out_batch_done(b, slot, out_result_string(id, result));
    else
        out_put_result(o, id, result, checked);
}

void out_result_text(struct out *o, struct out_batch *b, size_t slot, const cJSON *id,
                     const char *result)
{
    out_result_printed(o, b, slot, id, result, 1);
}

void out_result(struct out *o, struct out_batch *b, size_t slot, const cJSON *id, cJSON *result)
{
    char *text = result ? cJSON_PrintUnformatted(result) : NULL;

    cJSON_Delete(result);
    if (text == NULL) {
        /* Out of memory: nothing can be said; a batch still needs its slot answered. */
        if (b != NULL)
            out_batch_done(b, slot, NULL);
        return;
    }
    out_result_printed(o, b, slot, id, text, 0);
    free(text);
}

void out_error(struct out *o, struct out_batch *b, size_t slot, const cJSON *id, int code,
               const char *message, cJSON *data)
{
    out_reply(o, b, slot, jsonrpc_error(id, code, message, data));
}

/* --- Messages mcph starts. --- */

void out_send(struct out *o, cJSON *msg)
{
    char *text = msg ? cJSON_PrintUnformatted(msg) : NULL;

    cJSON_Delete(msg);
    if (text == NULL)
        return;
    if (out_put(o, text, strlen(text)) == STATUS_OK)
        out_flush(o);
    free(text);
}

void out_notify(struct out *o, const char *method, cJSON *params)
{
    out_send(o, jsonrpc_notification(method, params));
}
