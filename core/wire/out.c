#include "wire/out.h"

#include "wire/jsonrpc.h"
#include "lib/limits.h"
#include "lib/status.h"
#include "lib/utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

struct out_batch {
    struct out *out;
    pthread_mutex_t lock; /* guards pending and slots */
    size_t pending;       /* replies still to come, +1 until out_batch_close */
    char **slots;         /* owned: each element's reply text, or NULL (notification) */
    size_t n;
};

/* How long this thread may wait on a client: -1, until the client has taken no byte for its
 * stall limit; else until this monotonic millisecond (0: never). */
static _Thread_local long long out_until = -1;

int out_thread_nowait(int on)
{
    int was = out_until == 0;

    out_until = on ? 0 : -1;
    return was;
}

static long long out_now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Writes to fd that never block, so that every wait on the client is a poll() with a
 * deadline. A socket is written with MSG_DONTWAIT. A pipe (stdout, most often) is opened
 * again through /proc, which gives it a file description of its own: O_NONBLOCK set there is
 * seen by nobody else holding the pipe; without /proc it is set on the one inherited, which
 * only the process that started mcph may share. A file or a terminal is written as it is: a
 * write there ends without a reader's help. */
static void out_open_fd(struct out *o)
{
    char path[64];
    struct stat st;
    int fd, fdflags, flags;

    if (o->fd < 0 || fstat(o->fd, &st) != 0)
        return;
    if (S_ISSOCK(st.st_mode)) {
        o->sock = 1;
        o->nonblock = 1;
        return;
    }
    if (!S_ISFIFO(st.st_mode))
        return;
    snprintf(path, sizeof(path), "/proc/self/fd/%d", o->fd);
    fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    fdflags = fcntl(o->fd, F_GETFD);
    if (fd >= 0 && fdflags >= 0 &&
        dup3(fd, o->fd, (fdflags & FD_CLOEXEC) ? O_CLOEXEC : 0) == o->fd) {
        o->nonblock = 1;
    } else if ((flags = fcntl(o->fd, F_GETFL)) >= 0 &&
               fcntl(o->fd, F_SETFL, flags | O_NONBLOCK) == 0) {
        o->nonblock = 1;
    }
    if (fd >= 0)
        close(fd);
}

void out_init(struct out *o, int fd)
{
    pthread_mutexattr_t attr;
    pthread_condattr_t cattr;

    memset(o, 0, sizeof(*o));
    o->fd = fd;
    strbuf_init(&o->pending);
    strbuf_init(&o->wbuf);
    atomic_init(&o->failed, 0);
    atomic_init(&o->held, 0);
    atomic_init(&o->stalled, 0);
    atomic_init(&o->progress_ms, 0);
    o->stall_ms = LIMIT_OUT_STALL_MS;
    out_open_fd(o);
    /* Replies from two threads meet here for a moment each: spin a little before sleeping. */
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&o->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    /* Deadlines are on the monotonic clock. */
    pthread_condattr_init(&cattr);
    pthread_condattr_setclock(&cattr, CLOCK_MONOTONIC);
    pthread_cond_init(&o->drained, &cattr);
    pthread_condattr_destroy(&cattr);
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

/* Wait until the fd takes bytes again. Returns STATUS_OK; STATUS_IO when the peer is gone or
 * has taken no byte for o->stall_ms (o->stalled is set then); STATUS_AGAIN when this thread's
 * own bound (out_until) comes first. */
static int out_poll(struct out *o)
{
    for (;;) {
        long long now = out_now_ms();
        long long stall = atomic_load(&o->progress_ms) + o->stall_ms;
        long long until = out_until >= 0 && out_until < stall ? out_until : stall;
        struct pollfd p = {.fd = o->fd, .events = POLLOUT};
        int n;

        if (now >= stall) {
            atomic_store(&o->stalled, 1);
            return STATUS_IO;
        }
        if (now >= until)
            return STATUS_AGAIN;
        n = poll(&p, 1, (int)(until - now));
        if (n > 0)
            return (p.revents & POLLOUT) ? STATUS_OK : STATUS_IO;
        if (n < 0 && errno != EINTR)
            return STATUS_IO;
    }
}

/* Write every part, in order, whatever the fd takes at a time; each byte taken is progress.
 * Returns STATUS_OK, STATUS_IO (the peer is gone, or stalled: see out_poll) or STATUS_AGAIN
 * (this thread may not wait longer: *v and *cnt say what is left). */
static int out_writev_all(struct out *o, struct iovec **vp, int *cntp)
{
    struct iovec *v = *vp;
    int cnt = *cntp, status = STATUS_OK;

    while (cnt > 0 && status == STATUS_OK) {
        struct msghdr m = {.msg_iov = v, .msg_iovlen = (size_t)cnt};
        ssize_t n =
            o->sock ? sendmsg(o->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) : writev(o->fd, v, cnt);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && o->nonblock && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            status = out_poll(o);
            continue;
        }
        if (n <= 0) {
            status = STATUS_IO;
            break;
        }
        atomic_store(&o->progress_ms, out_now_ms());
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
    *vp = v;
    *cntp = cnt;
    return status;
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

/* What the fd did not take of a write (the cnt pieces at rest) goes back before what was
 * queued meanwhile. Lock held. */
static void out_requeue(struct out *o, const struct iovec *rest, int cnt)
{
    struct strbuf sb = STRBUF_INIT;

    for (int i = 0; i < cnt; i++)
        strbuf_add(&sb, rest[i].iov_base, rest[i].iov_len);
    strbuf_add(&sb, o->pending.buf, o->pending.len);
    if (sb.nomem) {
        strbuf_release(&sb);
        out_fail(o);
        return;
    }
    strbuf_release(&o->pending);
    o->pending = sb;
}

/* Write what is queued, then the `n` parts of one more line (none: n = 0) straight from
 * where they are. The caller is the writer (o->writing); the lock is released while writing.
 * Returns STATUS_AGAIN when this thread may wait no longer and a part of what is queued, or
 * of the line, is left (queued again: only the part the fd did not take is copied), else
 * STATUS_OK. */
static int out_write_queued(struct out *o, const char *const *parts, const size_t *lens, int n)
{
    struct strbuf swap = o->wbuf;
    struct iovec v[8], *left = v;
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
    /* The client's time to take a byte starts now. */
    atomic_store(&o->progress_ms, out_now_ms());
    pthread_mutex_unlock(&o->lock);
    status = o->sink != NULL ? o->sink(o->sink_ctx, v, cnt) : out_writev_all(o, &left, &cnt);
    pthread_mutex_lock(&o->lock);
    if (status == STATUS_AGAIN && !atomic_load(&o->failed))
        out_requeue(o, left, cnt);
    else if (status == STATUS_AGAIN)
        status = STATUS_IO;
    if (status != STATUS_AGAIN)
        o->written = lines;
    /* A 1 MiB reply once should not keep a 1 MiB buffer for good. */
    if (o->wbuf.alloc > LIMIT_OUT_KEEP_BYTES)
        strbuf_release(&o->wbuf);
    else
        strbuf_reset(&o->wbuf);
    if (status == STATUS_IO)
        out_fail(o);
    out_note_held(o);
    pthread_cond_broadcast(&o->drained);
    return status;
}

/* Become the writer and write until nothing is queued (or this thread may wait no longer).
 * Lock held (released while writing). */
static void out_drain(struct out *o)
{
    o->writing = 1;
    while (o->pending.len > 0 && !atomic_load(&o->failed) &&
           out_write_queued(o, NULL, NULL, 0) == STATUS_OK)
        ;
    o->writing = 0;
}

/* Wait for the writer to finish a write, or for the client's stall limit: the client has
 * taken no byte for o->stall_ms. Then it is gone (the out fails), and every waiting thread
 * wakes at that deadline, whatever the writer is doing. Lock held. */
static void out_wait_drained(struct out *o)
{
    long long at = atomic_load(&o->progress_ms) + o->stall_ms;
    struct timespec ts = {.tv_sec = (time_t)(at / 1000), .tv_nsec = (long)(at % 1000) * 1000000};

    if (pthread_cond_timedwait(&o->drained, &o->lock, &ts) == ETIMEDOUT &&
        out_now_ms() >= atomic_load(&o->progress_ms) + o->stall_ms) {
        atomic_store(&o->stalled, 1);
        out_fail(o);
    }
}

void out_set_on_left(struct out *o, void (*fn)(void *ctx), void *ctx)
{
    pthread_mutex_lock(&o->lock);
    o->on_left = fn;
    o->left_ctx = ctx;
    pthread_mutex_unlock(&o->lock);
}

void out_flush(struct out *o)
{
    void (*left)(void *ctx) = NULL;
    void *ctx = NULL;

    pthread_mutex_lock(&o->lock);
    if (!o->writing) {
        out_drain(o);
        /* What a thread that may not wait left behind. */
        if (o->pending.len > 0 && !atomic_load(&o->failed) && out_until == 0) {
            left = o->on_left;
            ctx = o->left_ctx;
        }
    }
    pthread_mutex_unlock(&o->lock);
    if (left != NULL)
        left(ctx);
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
 * queue passes its cap, instead of letting it grow without bound; until it is gone (stalled
 * past its limit). A thread that may not wait on the client queues past the cap. Lock held. */
static void out_wait_room(struct out *o)
{
    while (out_until < 0 && o->pending.len > LIMIT_OUT_PENDING_BYTES && !atomic_load(&o->failed)) {
        if (!o->writing) {
            out_drain(o);
            continue;
        }
        out_wait_drained(o);
    }
}

void out_make_room(struct out *o)
{
    pthread_mutex_lock(&o->lock);
    out_wait_room(o);
    pthread_mutex_unlock(&o->lock);
}

void out_flush_for(struct out *o, int ms)
{
    long long saved = out_until;

    out_until = out_now_ms() + ms;
    out_flush(o);
    out_until = saved;
}

/* A large line is not copied into the queue: once no other thread writes, it goes out with
 * what is queued before it, straight from its parts. Lock held (released while writing). */
static int out_put_direct(struct out *o, const char *const *parts, const size_t *lens, int n)
{
    while (o->writing && !atomic_load(&o->failed))
        out_wait_drained(o);
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
    /* A thread that may not wait on the client writes it only when nothing else is being
     * written or waits to be (a client keeping up), giving the client a moment
     * (LIMIT_OUT_NOWAIT_DIRECT_MS) to take it, and leaves what the fd did not take queued:
     * only that part is copied. Behind a backlog it queues at once: a client that does not
     * read costs that moment once, not once a line. */
    if (total >= LIMIT_OUT_DIRECT_BYTES &&
        (out_until < 0 || (!o->writing && o->pending.len == 0))) {
        long long saved = out_until;

        if (out_until == 0)
            out_until = out_now_ms() + LIMIT_OUT_NOWAIT_DIRECT_MS;
        status = out_put_direct(o, parts, lens, n);
        out_until = saved;
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

/* About the bytes item (and what follows it in its list) prints to: its names and strings,
 * and a little for each value. */
static size_t out_estimate(const cJSON *item)
{
    size_t n = 0;

    for (; item != NULL; item = item->next) {
        n += 8;
        if (item->string != NULL)
            n += strlen(item->string) + 3;
        if ((cJSON_IsString(item) || cJSON_IsRaw(item)) && item->valuestring != NULL)
            n += strlen(item->valuestring);
        else if (cJSON_IsNumber(item))
            n += 24;
        n += out_estimate(item->child);
    }
    return n;
}

/* result printed into a buffer of about its size from the start: cJSON's own print starts at
 * 256 bytes and doubles (a copy each time, up to twice the text held), then copies the text
 * once more to fit it. An estimate short of the escapes grows as cJSON does. */
static char *out_print(const cJSON *result)
{
    size_t guess = out_estimate(result);

    guess += guess / 16 + 64;
    if (guess > INT_MAX / 2)
        return cJSON_PrintUnformatted(result);
    return cJSON_PrintBuffered(result, (int)guess, 0);
}

void out_result(struct out *o, struct out_batch *b, size_t slot, const cJSON *id, cJSON *result)
{
    char *text = result ? out_print(result) : NULL;

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
