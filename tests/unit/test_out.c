/* test_out.c: the output side: whole lines, gathered replies that leave on a flush, large
 * lines written in place and in order, many writers at once, JSON-RPC batches, the watcher's
 * staleness check, a client that does not read (back-pressure) and one that is gone. */
#include "wire/out.h"

#include "check.h"
#include "lib/limits.h"
#include "lib/status.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* Everything a pipe holds until EOF, read by a thread so writers never block. */
struct out_sink {
    int fd;
    char *buf;
    size_t len, cap;
};

static void *out_sink_main(void *arg)
{
    struct out_sink *s = arg;
    ssize_t n;

    for (;;) {
        if (s->cap - s->len < 65536) {
            char *grown = realloc(s->buf, s->cap + 1048576);

            if (grown == NULL)
                break;
            s->buf = grown;
            s->cap += 1048576;
        }
        n = read(s->fd, s->buf + s->len, s->cap - s->len - 1);
        if (n <= 0)
            break;
        s->len += (size_t)n;
    }
    if (s->buf != NULL)
        s->buf[s->len] = '\0';
    return NULL;
}

/* An out writing into a pipe whose other end a sink thread reads. */
struct out_rig {
    struct out out;
    struct out_sink sink;
    pthread_t reader;
    int fds[2];
};

static int out_rig_open(struct out_rig *r)
{
    memset(r, 0, sizeof(*r));
    if (pipe(r->fds) != 0)
        return -1;
    r->sink.fd = r->fds[0];
    if (pthread_create(&r->reader, NULL, out_sink_main, &r->sink) != 0)
        return -1;
    out_init(&r->out, r->fds[1]);
    return 0;
}

/* Close the write end and collect what the sink read. */
static const char *out_rig_close(struct out_rig *r)
{
    close(r->fds[1]);
    pthread_join(r->reader, NULL);
    close(r->fds[0]);
    out_release(&r->out);
    return r->sink.buf ? r->sink.buf : "";
}

/* Bytes waiting in the pipe, without reading them. */
static int out_pipe_bytes(int fd)
{
    int n = -1;

    return ioctl(fd, FIONREAD, &n) == 0 ? n : -1;
}

static void test_lines(void)
{
    struct out_rig r;
    cJSON *msg = cJSON_CreateObject();

    if (!CHECK(out_rig_open(&r) == 0))
        return;
    CHECK_INT_EQ(out_put(&r.out, "{}", 2), STATUS_OK);
    /* Only len bytes of the text go out. */
    CHECK_INT_EQ(out_put(&r.out, "[1]trailing", 3), STATUS_OK);
    out_flush(&r.out);
    cJSON_AddStringToObject(msg, "text", "two\nlines");
    cJSON_AddNumberToObject(msg, "n", 3);
    out_send(&r.out, msg);
    CHECK_STR_EQ(out_rig_close(&r), "{}\n[1]\n{\"text\":\"two\\nlines\",\"n\":3}\n");
    free(r.sink.buf);
}

/* Replies are queued, not written, until a flush: the gathering that saves a write a reply. */
static void test_gathered(void)
{
    int fds[2], n = -1;
    struct out o;
    char buf[256];
    ssize_t got;

    if (!CHECK(pipe(fds) == 0))
        return;
    out_init(&o, fds[1]);
    out_reply(&o, NULL, 0, cJSON_Parse("{\"a\":1}"));
    out_reply_text(&o, NULL, 0, strdup("{\"b\":2}"));
    n = out_pipe_bytes(fds[0]);
    CHECK_INT_EQ(n, 0);
    out_flush(&o);
    n = out_pipe_bytes(fds[0]);
    CHECK_INT_EQ(n, 16);
    got = read(fds[0], buf, sizeof(buf) - 1);
    if (CHECK(got == 16)) {
        buf[got] = '\0';
        CHECK_STR_EQ(buf, "{\"a\":1}\n{\"b\":2}\n");
    }
    /* A notification goes out at once, with what was queued before it. */
    out_reply_text(&o, NULL, 0, strdup("{\"c\":3}"));
    out_notify(&o, "notifications/x", NULL);
    got = read(fds[0], buf, sizeof(buf) - 1);
    if (CHECK(got > 0)) {
        buf[got] = '\0';
        CHECK_STR_EQ(buf, "{\"c\":3}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\n");
    }
    out_release(&o);
    close(fds[0]);
    close(fds[1]);
}

/* Results are printed around the id's text: integer ids as integers, strings escaped. */
static void test_result_envelope(void)
{
    struct out_rig r;
    cJSON *num = cJSON_CreateNumber(42), *str = cJSON_CreateString("a\"b");

    if (!CHECK(out_rig_open(&r) == 0))
        return;
    out_result(&r.out, NULL, 0, num, cJSON_Parse("{\"x\":true}"));
    out_result_text(&r.out, NULL, 0, str, "{}");
    out_result(&r.out, NULL, 0, NULL, cJSON_CreateObject());
    out_error(&r.out, NULL, 0, num, -32602, "bad", NULL);
    out_flush(&r.out);
    CHECK_STR_EQ(
        out_rig_close(&r),
        "{\"jsonrpc\":\"2.0\",\"id\":42,\"result\":{\"x\":true}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"result\":{}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}\n"
        "{\"jsonrpc\":\"2.0\",\"id\":42,\"error\":{\"code\":-32602,\"message\":\"bad\"}}\n");
    free(r.sink.buf);
    cJSON_Delete(num);
    cJSON_Delete(str);
}

/* A line past LIMIT_OUT_DIRECT_BYTES is written where it is, after what was queued before
 * it and before what comes after. */
static void test_large_in_order(void)
{
    static const char head[] = "1\n{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":";
    size_t big = LIMIT_OUT_DIRECT_BYTES + 1000;
    char *text = malloc(big + 3), *want = malloc(big + sizeof(head) + 16);
    struct out_rig r;

    if (!CHECK(text != NULL && want != NULL) || !CHECK(out_rig_open(&r) == 0)) {
        free(text);
        free(want);
        return;
    }
    text[0] = '"';
    memset(text + 1, 'z', big);
    strcpy(text + 1 + big, "\"");
    snprintf(want, big + sizeof(head) + 16, "%s%s}\n3\n", head, text);
    out_put(&r.out, "1", 1);
    out_result_text(&r.out, NULL, 0, NULL, text);
    out_put(&r.out, "3", 1);
    out_flush(&r.out);
    CHECK(strcmp(out_rig_close(&r), want) == 0);
    free(r.sink.buf);
    free(text);
    free(want);
}

struct out_writer {
    struct out *out;
    int id;
    int ok;
};

enum { OUT_THREADS = 4, OUT_MESSAGES = 300, OUT_PAD = 3000 };

/* Messages of OUT_PAD bytes (more than PIPE_BUF), some flushed at once and some queued, so
 * lines from threads that were not whole would interleave. */
static void *out_writer_main(void *arg)
{
    struct out_writer *w = arg;
    char *text = malloc(OUT_PAD + 64);

    w->ok = text != NULL;
    for (int i = 0; i < OUT_MESSAGES && text != NULL; i++) {
        int n = snprintf(text, OUT_PAD + 64, "{\"t\":%d,\"i\":%d,\"pad\":\"", w->id, i);

        memset(text + n, 'a' + w->id, OUT_PAD);
        strcpy(text + n + OUT_PAD, "\"}");
        w->ok &= out_put(w->out, text, strlen(text)) == STATUS_OK;
        if (i % 3 == 0)
            out_flush(w->out);
    }
    free(text);
    out_flush(w->out);
    return NULL;
}

/* Whether line is one whole message of out_writer_main; counts it in seen. */
static int out_check_line(const char *line, int seen[OUT_THREADS][OUT_MESSAGES])
{
    cJSON *msg = cJSON_Parse(line);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(msg, "t");
    const cJSON *i = cJSON_GetObjectItemCaseSensitive(msg, "i");
    const cJSON *pad = cJSON_GetObjectItemCaseSensitive(msg, "pad");
    int ok = cJSON_IsNumber(t) && cJSON_IsNumber(i) && cJSON_IsString(pad) && t->valueint >= 0 &&
             t->valueint < OUT_THREADS && i->valueint >= 0 && i->valueint < OUT_MESSAGES &&
             strlen(pad->valuestring) == OUT_PAD &&
             strspn(pad->valuestring, (char[]){(char)('a' + t->valueint), 0}) == OUT_PAD;

    if (ok)
        seen[t->valueint][i->valueint]++;
    cJSON_Delete(msg);
    return ok;
}

static void test_concurrent(void)
{
    static int seen[OUT_THREADS][OUT_MESSAGES];
    struct out_writer writers[OUT_THREADS];
    pthread_t threads[OUT_THREADS];
    struct out_rig r;
    int lines = 0, good = 1, all_ok = 1;
    char *all;

    if (!CHECK(out_rig_open(&r) == 0))
        return;
    for (int i = 0; i < OUT_THREADS; i++) {
        writers[i] = (struct out_writer){.out = &r.out, .id = i};
        pthread_create(&threads[i], NULL, out_writer_main, &writers[i]);
    }
    for (int i = 0; i < OUT_THREADS; i++) {
        pthread_join(threads[i], NULL);
        all_ok &= writers[i].ok;
    }
    all = (char *)out_rig_close(&r);
    CHECK(all_ok);
    for (char *line = all, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
        *nl = '\0';
        good &= out_check_line(line, seen);
        lines++;
    }
    CHECK(good);
    CHECK_INT_EQ(lines, OUT_THREADS * OUT_MESSAGES);
    for (int t = 0; t < OUT_THREADS; t++) {
        for (int i = 0; i < OUT_MESSAGES; i++)
            good &= seen[t][i] == 1;
    }
    CHECK(good);
    free(r.sink.buf);
}

/* A batch goes out as one array once every slot is answered and the batch closed; empty
 * slots (notifications) are left out, and a batch of notifications sends nothing. */
static void test_batch(void)
{
    struct out_rig r;
    struct out_batch *b, *quiet;
    cJSON *one = cJSON_CreateNumber(1);

    if (!CHECK(out_rig_open(&r) == 0))
        return;
    b = out_batch_new(&r.out, 3);
    quiet = out_batch_new(&r.out, 2);
    if (!CHECK(b != NULL && quiet != NULL)) {
        out_rig_close(&r);
        return;
    }
    out_result(&r.out, b, 2, one, cJSON_CreateObject());
    out_reply(&r.out, b, 1, NULL);
    out_batch_close(b);
    out_flush(&r.out);
    CHECK_INT_EQ(out_pipe_bytes(r.fds[0]) <= 0, 1);
    out_error(&r.out, b, 0, NULL, -32600, "no", NULL);
    out_reply(&r.out, quiet, 0, NULL);
    out_reply(&r.out, quiet, 1, NULL);
    out_batch_close(quiet);
    out_flush(&r.out);
    CHECK_STR_EQ(
        out_rig_close(&r),
        "[{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,\"message\":\"no\"}},"
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]\n");
    free(r.sink.buf);
    cJSON_Delete(one);
}

/* What the watcher relies on: lines queued before its last look and still not written. */
static void test_stale(void)
{
    int fds[2];
    unsigned long since = 0;
    struct out o;

    if (!CHECK(pipe(fds) == 0))
        return;
    out_init(&o, fds[1]);
    CHECK_INT_EQ(out_stale(&o, &since), 0);
    out_put(&o, "{}", 2);
    /* Queued after the last look: not stale yet. */
    CHECK_INT_EQ(out_stale(&o, &since), 0);
    CHECK_INT_EQ(out_stale(&o, &since), 1);
    out_flush(&o);
    CHECK_INT_EQ(out_stale(&o, &since), 0);
    out_release(&o);
    close(fds[0]);
    close(fds[1]);
}

/* The peer closed the pipe: later lines are dropped with STATUS_IO, and on_fail ran once. */
static void out_count_fail(void *ctx)
{
    (*(int *)ctx)++;
}

static void test_peer_gone(void)
{
    int fds[2], fails = 0;
    struct out o;

    if (!CHECK(pipe(fds) == 0))
        return;
    close(fds[0]);
    out_init(&o, fds[1]);
    o.on_fail = out_count_fail;
    o.fail_ctx = &fails;
    CHECK_INT_EQ(out_put(&o, "{}", 2), STATUS_OK);
    out_flush(&o);
    CHECK_INT_EQ(atomic_load(&o.failed), 1);
    CHECK_INT_EQ(out_put(&o, "{}", 2), STATUS_IO);
    out_notify(&o, "notifications/x", NULL);
    CHECK_INT_EQ(fails, 1);
    out_release(&o);
    close(fds[1]);
}

/* A client that stops reading: writers queue up to the cap, then wait, instead of growing the
 * queue without bound; once it reads again, everything arrives. */
struct out_flood {
    struct out *out;
    atomic_int done;
    atomic_long sent;
};

static void *out_flood_main(void *arg)
{
    struct out_flood *f = arg;
    static char line[1024];

    memset(line, 'x', sizeof(line));
    for (long i = 0; i < 20000; i++) {
        out_put(f->out, line, sizeof(line));
        atomic_fetch_add(&f->sent, 1);
    }
    out_flush(f->out);
    atomic_store(&f->done, 1);
    return NULL;
}

static void test_back_pressure(void)
{
    struct out_rig r;
    struct out_flood f = {0};
    struct timespec pause = {.tv_nsec = 20000000L};
    pthread_t t;
    int fds[2];
    size_t queued;

    if (!CHECK(pipe(fds) == 0))
        return;
    memset(&r, 0, sizeof(r));
    out_init(&r.out, fds[1]);
    f.out = &r.out;
    pthread_create(&t, NULL, out_flood_main, &f);
    /* Nobody reads: 20 MB do not fit under the 8 MiB cap plus a pipe. */
    for (int i = 0; i < 50; i++)
        nanosleep(&pause, NULL);
    CHECK_INT_EQ(atomic_load(&f.done), 0);
    pthread_mutex_lock(&r.out.lock);
    queued = r.out.pending.len;
    pthread_mutex_unlock(&r.out.lock);
    CHECK(queued <= LIMIT_OUT_PENDING_BYTES + 2048);
    /* Reading again lets it finish, with every line. */
    r.fds[0] = fds[0];
    r.fds[1] = fds[1];
    r.sink.fd = fds[0];
    pthread_create(&r.reader, NULL, out_sink_main, &r.sink);
    pthread_join(t, NULL);
    CHECK_INT_EQ(atomic_load(&f.done), 1);
    out_rig_close(&r);
    CHECK_INT_EQ(r.sink.len, 20000 * 1025);
    free(r.sink.buf);
}

static long out_ms_since(const struct timespec *t0)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* A client that takes no byte for the stall limit is gone: the writer and every thread
 * waiting for room wake at that deadline (not later), the out fails once, and what is put
 * after gets STATUS_IO. A client reading slowly is not gone: each byte starts the wait
 * again. */
static void test_stall(void)
{
    struct out_flood f[2] = {0};
    struct timespec t0, pause = {.tv_nsec = 50000000L};
    pthread_t t[2];
    struct out o;
    int fds[2], fails = 0;
    long ms;
    char buf[4096];

    if (!CHECK(pipe(fds) == 0))
        return;
    out_init(&o, fds[1]);
    CHECK_INT_EQ(o.nonblock, 1);
    o.stall_ms = 400;
    o.on_fail = out_count_fail;
    o.fail_ctx = &fails;
    /* Slow: a few bytes read every 50 ms for twice the limit. */
    f[0].out = &o;
    pthread_create(&t[0], NULL, out_flood_main, &f[0]);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (out_ms_since(&t0) < 800) {
        nanosleep(&pause, NULL);
        CHECK(read(fds[0], buf, sizeof(buf)) > 0);
    }
    CHECK_INT_EQ(atomic_load(&o.failed), 0);
    /* Stalled: nothing read any more. */
    f[1].out = &o;
    pthread_create(&t[1], NULL, out_flood_main, &f[1]);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_join(t[0], NULL);
    pthread_join(t[1], NULL);
    ms = out_ms_since(&t0);
    CHECK(ms < 400 + 300);
    CHECK_INT_EQ(atomic_load(&o.failed), 1);
    CHECK_INT_EQ(atomic_load(&o.stalled), 1);
    CHECK_INT_EQ(fails, 1);
    CHECK_INT_EQ(out_put(&o, "{}", 2), STATUS_IO);
    out_release(&o);
    close(fds[0]);
    close(fds[1]);
}

/* A thread that may not wait on the client (out_thread_nowait) returns at once from a full
 * pipe, past the queue's cap, and leaves what the fd did not take queued, whole and in order,
 * calling on_left; the next flush of a thread that may wait writes it. */
static void test_nowait(void)
{
    static const char note[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\n";
    static char line[100000];
    struct timespec t0;
    struct out_rig r;
    int fds[2], was, left = 0;
    size_t queued;

    if (!CHECK(pipe(fds) == 0))
        return;
    memset(&r, 0, sizeof(r));
    out_init(&r.out, fds[1]);
    out_set_on_left(&r.out, out_count_fail, &left);
    memset(line, 'y', sizeof(line));
    was = out_thread_nowait(1);
    CHECK_INT_EQ(was, 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < 120; i++)
        CHECK_INT_EQ(out_put(&r.out, line, sizeof(line)), STATUS_OK);
    out_notify(&r.out, "notifications/x", NULL);
    CHECK(out_ms_since(&t0) < 2000);
    pthread_mutex_lock(&r.out.lock);
    queued = r.out.pending.len;
    pthread_mutex_unlock(&r.out.lock);
    /* Past the cap, less what the pipe took. */
    CHECK(queued > LIMIT_OUT_PENDING_BYTES);
    CHECK(queued < 120 * (sizeof(line) + 1));
    /* Somebody who may wait is called to write the rest. */
    CHECK(left >= 1);
    CHECK_INT_EQ(out_thread_nowait(was), 1);
    r.fds[0] = fds[0];
    r.fds[1] = fds[1];
    r.sink.fd = fds[0];
    pthread_create(&r.reader, NULL, out_sink_main, &r.sink);
    left = 0;
    out_flush(&r.out);
    CHECK_INT_EQ(left, 0);
    out_rig_close(&r);
    /* Every line, then the notification last. */
    CHECK_INT_EQ(r.sink.len, 120 * (sizeof(line) + 1) + strlen(note));
    CHECK(strstr(r.sink.buf, note) == r.sink.buf + 120 * (sizeof(line) + 1));
    free(r.sink.buf);
}

static const struct check_test tests[] = {
    {"lines", test_lines},
    {"gathered", test_gathered},
    {"result_envelope", test_result_envelope},
    {"large_in_order", test_large_in_order},
    {"concurrent", test_concurrent},
    {"batch", test_batch},
    {"stale", test_stale},
    {"peer_gone", test_peer_gone},
    {"back_pressure", test_back_pressure},
    {"stall", test_stall},
    {"nowait", test_nowait},
    {0},
};

int main(void)
{
    /* A closed pipe must give an error, not kill the test. */
    signal(SIGPIPE, SIG_IGN);
    return check_main("test_out", tests);
}
