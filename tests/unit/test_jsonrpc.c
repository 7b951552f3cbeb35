/* test_jsonrpc.c: line framing over a pipe, the writer, message shapes, depth and ids. */
#include "jsonrpc.h"

#include "check.h"
#include "status.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A reader over a fresh pipe; fds[1] is the end the test writes. */
struct rpc_pipe {
    int fds[2];
    struct jsonrpc_reader r;
};

static int rpc_open(struct rpc_pipe *p, size_t max)
{
    if (pipe(p->fds) != 0)
        return -1;
    jsonrpc_reader_init(&p->r, p->fds[0], max);
    return 0;
}

static void rpc_close(struct rpc_pipe *p)
{
    jsonrpc_reader_release(&p->r);
    close(p->fds[0]);
    if (p->fds[1] >= 0)
        close(p->fds[1]);
}

/* Write text into the pipe, then have the reader read it. */
static int rpc_feed(struct rpc_pipe *p, const char *text)
{
    size_t len = strlen(text);

    if (write(p->fds[1], text, len) != (ssize_t)len)
        return -1;
    return jsonrpc_reader_fill(&p->r);
}

/* The next line as a status, its text copied into buf. */
static int rpc_next(struct rpc_pipe *p, char *buf, size_t size)
{
    char *line = NULL;
    size_t len = 0;
    int status = jsonrpc_reader_next(&p->r, &line, &len);

    buf[0] = '\0';
    if (status == STATUS_OK) {
        if (strlen(line) != len)
            return -999; /* the length must match the NUL-terminated text */
        snprintf(buf, size, "%s", line);
    }
    return status;
}

static void test_reader_split_lines(void)
{
    struct rpc_pipe p;
    char buf[256];

    if (!CHECK(rpc_open(&p, 1024) == 0))
        return;
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_AGAIN);
    CHECK_INT_EQ(rpc_feed(&p, "{\"a\":1}\n{\"b\""), STATUS_OK);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "{\"a\":1}");
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_AGAIN);
    CHECK_INT_EQ(rpc_feed(&p, ":2"), STATUS_OK);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_AGAIN);
    CHECK_INT_EQ(rpc_feed(&p, "}\n{\"c\":3}\n"), STATUS_OK);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "{\"b\":2}");
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "{\"c\":3}");
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_AGAIN);
    rpc_close(&p);
}

static void test_reader_crlf_and_blank(void)
{
    struct rpc_pipe p;
    char buf[256];

    if (!CHECK(rpc_open(&p, 1024) == 0))
        return;
    CHECK_INT_EQ(rpc_feed(&p, "one\r\n\n\r\ntwo\n"), STATUS_OK);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "one");
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "");
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "");
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "two");
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_AGAIN);
    /* A '\r' inside a line stays. */
    CHECK_INT_EQ(rpc_feed(&p, "a\rb\n"), STATUS_OK);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "a\rb");
    rpc_close(&p);
}

static void test_reader_last_line_at_eof(void)
{
    struct rpc_pipe p;
    char buf[256];

    if (!CHECK(rpc_open(&p, 1024) == 0))
        return;
    CHECK_INT_EQ(rpc_feed(&p, "first\nlast"), STATUS_OK);
    close(p.fds[1]);
    p.fds[1] = -1;
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "first");
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_AGAIN);
    CHECK_INT_EQ(jsonrpc_reader_fill(&p.r), STATUS_EOF);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "last");
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_AGAIN);
    CHECK_INT_EQ(jsonrpc_reader_fill(&p.r), STATUS_EOF);
    rpc_close(&p);
}

static void test_reader_eof_after_newline(void)
{
    struct rpc_pipe p;
    char buf[256];

    if (!CHECK(rpc_open(&p, 1024) == 0))
        return;
    CHECK_INT_EQ(rpc_feed(&p, "only\n"), STATUS_OK);
    close(p.fds[1]);
    p.fds[1] = -1;
    CHECK_INT_EQ(jsonrpc_reader_fill(&p.r), STATUS_EOF);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "only");
    /* No phantom empty line after the last newline. */
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_AGAIN);
    rpc_close(&p);
}

/* Lines of exactly max bytes pass; one byte more is refused. */
static void test_reader_max(void)
{
    struct rpc_pipe p;
    char buf[256];

    if (!CHECK(rpc_open(&p, 8) == 0))
        return;
    CHECK_INT_EQ(rpc_feed(&p, "12345678\n123456789\nok\n"), STATUS_OK);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "12345678");
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_LIMIT);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "ok");
    rpc_close(&p);
}

/* An over-long line arriving in pieces: STATUS_LIMIT once, then the next line. */
static void test_reader_overlong_in_pieces(void)
{
    struct rpc_pipe p;
    char buf[256];

    if (!CHECK(rpc_open(&p, 16) == 0))
        return;
    CHECK_INT_EQ(rpc_feed(&p, "{\"a\":\"aaaaaaaaaaaaaaaaaaaa"), STATUS_OK);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_LIMIT);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_AGAIN);
    CHECK_INT_EQ(rpc_feed(&p, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), STATUS_OK);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_AGAIN);
    CHECK_INT_EQ(rpc_feed(&p, "aaaa\"}\n{\"next\":1}\n"), STATUS_OK);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "{\"next\":1}");
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_AGAIN);
    rpc_close(&p);
}

/* An over-long line that arrives whole with its newline. */
static void test_reader_overlong_whole(void)
{
    struct rpc_pipe p;
    char buf[256];

    if (!CHECK(rpc_open(&p, 16) == 0))
        return;
    CHECK_INT_EQ(rpc_feed(&p, "0123456789012345678901234567890123456789\nafter\n"), STATUS_OK);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_LIMIT);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "after");
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_AGAIN);
    rpc_close(&p);
}

/* A line much longer than one read() (64 KiB), under the cap, comes out whole. */
static void test_reader_big_line(void)
{
    enum { BIG = 300000, PIECE = 30000 };
    struct rpc_pipe p;
    char *piece = malloc(PIECE + 1);
    char *line = NULL;
    size_t len = 0, sent = 0;
    int status = STATUS_AGAIN, good = 1;

    if (!CHECK(piece != NULL) || !CHECK(rpc_open(&p, 1u << 20) == 0)) {
        free(piece);
        return;
    }
    memset(piece, 'q', PIECE);
    piece[PIECE] = '\0';
    while (sent < BIG) {
        good &= rpc_feed(&p, piece) == STATUS_OK;
        sent += PIECE;
        status = jsonrpc_reader_next(&p.r, &line, &len);
        good &= status == STATUS_AGAIN;
    }
    CHECK(good);
    CHECK_INT_EQ(rpc_feed(&p, "\n"), STATUS_OK);
    status = jsonrpc_reader_next(&p.r, &line, &len);
    if (CHECK_INT_EQ(status, STATUS_OK)) {
        CHECK_INT_EQ(len, BIG);
        CHECK_INT_EQ(strspn(line, "q"), BIG);
        CHECK_INT_EQ(strlen(line), BIG);
    }
    rpc_close(&p);
    free(piece);
}

/* Everything a pipe holds until EOF, read by a thread so writers never block. */
struct rpc_sink {
    int fd;
    char *buf;
    size_t len, cap;
};

static void *rpc_sink_main(void *arg)
{
    struct rpc_sink *s = arg;
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

static void test_writer_one_line(void)
{
    struct jsonrpc_writer w;
    cJSON *msg = cJSON_CreateObject();
    struct rpc_sink sink = {0};
    pthread_t t;
    int fds[2];

    if (!CHECK(pipe(fds) == 0))
        return;
    sink.fd = fds[0];
    pthread_create(&t, NULL, rpc_sink_main, &sink);
    jsonrpc_writer_init(&w, fds[1]);
    CHECK_INT_EQ(jsonrpc_write(&w, "{}", 2), STATUS_OK);
    cJSON_AddStringToObject(msg, "text", "two\nlines");
    cJSON_AddNumberToObject(msg, "n", 3);
    CHECK_INT_EQ(jsonrpc_send(&w, msg), STATUS_OK);
    /* Only len bytes of the text are sent. */
    CHECK_INT_EQ(jsonrpc_write(&w, "[1]trailing", 3), STATUS_OK);
    close(fds[1]);
    pthread_join(t, NULL);
    CHECK_STR_EQ(sink.buf, "{}\n{\"text\":\"two\\nlines\",\"n\":3}\n[1]\n");
    jsonrpc_writer_release(&w);
    cJSON_Delete(msg);
    close(fds[0]);
    free(sink.buf);
}

struct rpc_writer_job {
    struct jsonrpc_writer *w;
    int id;
    int ok;
};

enum { RPC_THREADS = 4, RPC_MESSAGES = 300, RPC_PAD = 3000 };

/* Messages of RPC_PAD bytes (more than PIPE_BUF), so an unlocked writer would interleave. */
static void *rpc_writer_main(void *arg)
{
    struct rpc_writer_job *job = arg;
    char *text = malloc(RPC_PAD + 64);

    job->ok = text != NULL;
    for (int i = 0; i < RPC_MESSAGES && text != NULL; i++) {
        int n = snprintf(text, RPC_PAD + 64, "{\"t\":%d,\"i\":%d,\"pad\":\"", job->id, i);

        memset(text + n, 'a' + job->id, RPC_PAD);
        strcpy(text + n + RPC_PAD, "\"}");
        job->ok &= jsonrpc_write(job->w, text, strlen(text)) == STATUS_OK;
    }
    free(text);
    return NULL;
}

/* Whether line is one whole message of rpc_writer_main; counts it in seen. */
static int rpc_check_line(const char *line, int seen[RPC_THREADS][RPC_MESSAGES])
{
    cJSON *msg = cJSON_Parse(line);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(msg, "t");
    const cJSON *i = cJSON_GetObjectItemCaseSensitive(msg, "i");
    const cJSON *pad = cJSON_GetObjectItemCaseSensitive(msg, "pad");
    int ok = cJSON_IsNumber(t) && cJSON_IsNumber(i) && cJSON_IsString(pad) && t->valueint >= 0 &&
             t->valueint < RPC_THREADS && i->valueint >= 0 && i->valueint < RPC_MESSAGES &&
             strlen(pad->valuestring) == RPC_PAD &&
             strspn(pad->valuestring, (char[]){(char)('a' + t->valueint), 0}) == RPC_PAD;

    if (ok)
        seen[t->valueint][i->valueint]++;
    cJSON_Delete(msg);
    return ok;
}

static void test_writer_concurrent(void)
{
    static int seen[RPC_THREADS][RPC_MESSAGES];
    struct rpc_writer_job jobs[RPC_THREADS];
    struct jsonrpc_writer w;
    struct rpc_sink sink = {0};
    pthread_t reader, writers[RPC_THREADS];
    int fds[2], lines = 0, good = 1, all_ok = 1;

    if (!CHECK(pipe(fds) == 0))
        return;
    sink.fd = fds[0];
    pthread_create(&reader, NULL, rpc_sink_main, &sink);
    jsonrpc_writer_init(&w, fds[1]);
    for (int i = 0; i < RPC_THREADS; i++) {
        jobs[i] = (struct rpc_writer_job){.w = &w, .id = i};
        pthread_create(&writers[i], NULL, rpc_writer_main, &jobs[i]);
    }
    for (int i = 0; i < RPC_THREADS; i++) {
        pthread_join(writers[i], NULL);
        all_ok &= jobs[i].ok;
    }
    close(fds[1]);
    pthread_join(reader, NULL);
    CHECK(all_ok);
    if (!CHECK(sink.buf != NULL))
        return;
    for (char *line = sink.buf, *nl; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
        *nl = '\0';
        good &= rpc_check_line(line, seen);
        lines++;
    }
    CHECK(good);
    CHECK_INT_EQ(lines, RPC_THREADS * RPC_MESSAGES);
    for (int t = 0; t < RPC_THREADS; t++) {
        for (int i = 0; i < RPC_MESSAGES; i++)
            good &= seen[t][i] == 1;
    }
    CHECK(good);
    jsonrpc_writer_release(&w);
    close(fds[0]);
    free(sink.buf);
}

/* The peer closed the pipe: STATUS_IO, and later writes are dropped. */
static void test_writer_peer_gone(void)
{
    struct jsonrpc_writer w;
    int fds[2];

    if (!CHECK(pipe(fds) == 0))
        return;
    close(fds[0]);
    jsonrpc_writer_init(&w, fds[1]);
    CHECK_INT_EQ(jsonrpc_write(&w, "{}", 2), STATUS_IO);
    CHECK_INT_EQ(w.failed, 1);
    CHECK_INT_EQ(jsonrpc_write(&w, "{}", 2), STATUS_IO);
    jsonrpc_writer_release(&w);
    close(fds[1]);
}

/* msg equals the JSON text want (members in any order). */
/* msg, as it goes on the wire, equals the JSON text want (an integer id is kept as raw text
 * in the tree, so the comparison is of the printed message read back). */
static int rpc_json_is(const cJSON *msg, const char *want)
{
    cJSON *expected = cJSON_Parse(want);
    char *printed = msg ? cJSON_PrintUnformatted(msg) : NULL;
    cJSON *wire = printed ? cJSON_Parse(printed) : NULL;
    int same = expected != NULL && wire != NULL && cJSON_Compare(wire, expected, 1);

    free(printed);
    cJSON_Delete(wire);

    if (!same) {
        char *got = msg ? cJSON_PrintUnformatted(msg) : NULL;

        fprintf(stderr, "    got %s\n    want %s\n", got ? got : "NULL", want);
        free(got);
    }
    cJSON_Delete(expected);
    return same;
}

static void test_result_shape(void)
{
    cJSON *id = cJSON_CreateString("req-1");
    cJSON *num = cJSON_CreateNumber(7);
    cJSON *msg;

    msg = jsonrpc_result(id, cJSON_Parse("{\"x\":[1,2]}"));
    /* The id was copied: changing the original changes nothing. */
    cJSON_SetValuestring(id, "changed");
    CHECK(rpc_json_is(msg, "{\"jsonrpc\":\"2.0\",\"id\":\"req-1\",\"result\":{\"x\":[1,2]}}"));
    cJSON_Delete(msg);

    msg = jsonrpc_result(num, cJSON_CreateObject());
    CHECK(rpc_json_is(msg, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}"));
    cJSON_Delete(msg);

    msg = jsonrpc_result(NULL, cJSON_CreateObject());
    CHECK(rpc_json_is(msg, "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}"));
    cJSON_Delete(msg);

    CHECK(jsonrpc_result(id, NULL) == NULL);
    cJSON_Delete(id);
    cJSON_Delete(num);
}

static void test_error_shape(void)
{
    cJSON *id = cJSON_CreateNumber(3);
    cJSON *msg;

    msg = jsonrpc_error(id, JSONRPC_METHOD_NOT_FOUND, "Method not found: x", NULL);
    CHECK(rpc_json_is(msg, "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32601,"
                           "\"message\":\"Method not found: x\"}}"));
    cJSON_Delete(msg);

    msg = jsonrpc_error(NULL, JSONRPC_PARSE_ERROR, "Parse error", cJSON_Parse("{\"at\":5}"));
    CHECK(rpc_json_is(msg, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
                           "\"message\":\"Parse error\",\"data\":{\"at\":5}}}"));
    cJSON_Delete(msg);

    msg = jsonrpc_error(id, JSONRPC_RESOURCE_NOT_FOUND, "Resource not found", NULL);
    CHECK(rpc_json_is(msg, "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32002,"
                           "\"message\":\"Resource not found\"}}"));
    cJSON_Delete(msg);
    cJSON_Delete(id);
}

static void test_notification_shape(void)
{
    cJSON *msg;

    msg = jsonrpc_notification("notifications/tools/list_changed", NULL);
    CHECK(rpc_json_is(msg, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/"
                           "list_changed\"}"));
    CHECK(cJSON_GetObjectItemCaseSensitive(msg, "id") == NULL);
    cJSON_Delete(msg);

    msg = jsonrpc_notification("notifications/message",
                               cJSON_Parse("{\"level\":\"info\",\"data\":\"x\"}"));
    CHECK(rpc_json_is(msg, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
                           "\"params\":{\"level\":\"info\",\"data\":\"x\"}}"));
    cJSON_Delete(msg);
}

static int rpc_depth(const char *text, int limit)
{
    return jsonrpc_depth(text, strlen(text), limit);
}

static void test_depth(void)
{
    CHECK_INT_EQ(rpc_depth("", 64), 0);
    CHECK_INT_EQ(rpc_depth("42", 64), 0);
    CHECK_INT_EQ(rpc_depth("{}", 64), 1);
    CHECK_INT_EQ(rpc_depth("[][][]", 64), 1);
    CHECK_INT_EQ(rpc_depth("[[{}]]", 64), 3);
    CHECK_INT_EQ(rpc_depth("{\"a\":[1,{\"b\":[]}],\"c\":{}}", 64), 4);
    /* Brackets inside strings do not count, escaped quotes do not end a string. */
    CHECK_INT_EQ(rpc_depth("\"[[[{{{\"", 64), 0);
    CHECK_INT_EQ(rpc_depth("{\"a\":\"\\\"[[[\"}", 64), 1);
    CHECK_INT_EQ(rpc_depth("{\"a\":\"\\\\\",\"b\":[]}", 64), 2);
    /* Only len bytes are looked at. */
    CHECK_INT_EQ(jsonrpc_depth("[[[[", 2, 64), 2);
    /* Past the limit it stops early, with a depth above the limit. */
    CHECK(rpc_depth("[[[[[[[[[[[[[[[[[[[[", 3) > 3);
    CHECK(rpc_depth("[[[[[[[[[[[[[[[[[[[[", 3) <= 20);
    CHECK_INT_EQ(rpc_depth("[[[]]]", 3), 3);
}

static void test_valid_id(void)
{
    static const char *const valid[] = {
        "\"abc\"", "\"\"", "0", "1", "-5", "9007199254740991", NULL,
    };
    static const char *const invalid[] = {
        "1.5", "1e300", "9007199254740992", "null", "true", "{}", "[1]", NULL,
    };

    for (size_t i = 0; valid[i] != NULL; i++) {
        cJSON *id = cJSON_Parse(valid[i]);

        if (!CHECK_INT_EQ(jsonrpc_valid_id(id), 1))
            fprintf(stderr, "    id %s\n", valid[i]);
        cJSON_Delete(id);
    }
    for (size_t i = 0; invalid[i] != NULL; i++) {
        cJSON *id = cJSON_Parse(invalid[i]);

        if (!CHECK_INT_EQ(jsonrpc_valid_id(id), 0))
            fprintf(stderr, "    id %s\n", invalid[i]);
        cJSON_Delete(id);
    }
    CHECK_INT_EQ(jsonrpc_valid_id(NULL), 0);
}

static const struct check_test tests[] = {
    {"reader_split_lines", test_reader_split_lines},
    {"reader_crlf_and_blank", test_reader_crlf_and_blank},
    {"reader_last_line_at_eof", test_reader_last_line_at_eof},
    {"reader_eof_after_newline", test_reader_eof_after_newline},
    {"reader_max", test_reader_max},
    {"reader_overlong_in_pieces", test_reader_overlong_in_pieces},
    {"reader_overlong_whole", test_reader_overlong_whole},
    {"reader_big_line", test_reader_big_line},
    {"writer_one_line", test_writer_one_line},
    {"writer_concurrent", test_writer_concurrent},
    {"writer_peer_gone", test_writer_peer_gone},
    {"result_shape", test_result_shape},
    {"error_shape", test_error_shape},
    {"notification_shape", test_notification_shape},
    {"depth", test_depth},
    {"valid_id", test_valid_id},
    {0},
};

int main(void)
{
    /* A closed pipe must give an error, not kill the test. */
    signal(SIGPIPE, SIG_IGN);
    return check_main("test_jsonrpc", tests);
}
