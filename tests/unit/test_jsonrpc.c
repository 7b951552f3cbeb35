/* test_jsonrpc.c: line framing over a pipe, an interrupted read, message shapes, depth and
 * ids. */
#include "wire/jsonrpc.h"

#include "check.h"
#include "lib/status.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* A line over 1 MiB read in pieces, its newline inside the last read with the next line: both
 * come whole (each read searched from where the last one stopped), and once both are
 * returned the grown buffer is let go. */
static void test_reader_long_line_let_go(void)
{
    enum { PIECE = 60000, PIECES = 20 };
    struct rpc_pipe p;
    char *piece = malloc(PIECE + 1), buf[64];
    char *line = NULL;
    size_t len = 0;
    int good = 1;

    if (!CHECK(piece != NULL) || !CHECK(rpc_open(&p, 4u << 20) == 0)) {
        free(piece);
        return;
    }
    memset(piece, 'z', PIECE);
    piece[PIECE] = '\0';
    for (int i = 0; i < PIECES; i++) {
        good &= rpc_feed(&p, piece) == STATUS_OK;
        good &= jsonrpc_reader_next(&p.r, &line, &len) == STATUS_AGAIN;
    }
    CHECK(good);
    CHECK_INT_EQ(rpc_feed(&p, "zz\n{\"b\":2}\n"), STATUS_OK);
    if (CHECK_INT_EQ(jsonrpc_reader_next(&p.r, &line, &len), STATUS_OK)) {
        CHECK_INT_EQ(len, PIECE * PIECES + 2);
        CHECK_INT_EQ(strspn(line, "z"), PIECE * PIECES + 2);
    }
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "{\"b\":2}");
    CHECK(p.r.buf != NULL);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_AGAIN);
    CHECK(p.r.buf == NULL);
    CHECK_INT_EQ(rpc_feed(&p, "{\"c\":3}\n"), STATUS_OK);
    CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
    CHECK_STR_EQ(buf, "{\"c\":3}");
    rpc_close(&p);
    free(piece);
}

/* A wait for input that a signal interrupts returns STATUS_AGAIN (the pool then decides
 * whether to stop reading), not an error and not a silent retry. */
static void rpc_on_signal(int sig)
{
    (void)sig;
}

struct rpc_blocked {
    struct jsonrpc_reader *r;
    atomic_int status;
};

static void *rpc_fill_main(void *arg)
{
    struct rpc_blocked *b = arg;

    atomic_store(&b->status, jsonrpc_reader_fill(b->r));
    return NULL;
}

static void test_reader_interrupted(void)
{
    struct rpc_pipe p;
    struct rpc_blocked b = {.status = -999};
    struct sigaction sa = {.sa_handler = rpc_on_signal};
    struct timespec pause = {.tv_nsec = 50000000L};
    pthread_t t;

    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    if (!CHECK(rpc_open(&p, 1024) == 0))
        return;
    b.r = &p.r;
    if (!CHECK(pthread_create(&t, NULL, rpc_fill_main, &b) == 0)) {
        rpc_close(&p);
        return;
    }
    /* It waits: nothing was written. Signal it until it returns (once may come too early). */
    for (int i = 0; i < 100 && atomic_load(&b.status) == -999; i++) {
        nanosleep(&pause, NULL);
        pthread_kill(t, SIGUSR1);
    }
    pthread_join(t, NULL);
    CHECK_INT_EQ(atomic_load(&b.status), STATUS_AGAIN);
    /* The reader is intact: a line written now is read. */
    CHECK_INT_EQ(rpc_feed(&p, "{\"a\":1}\n"), STATUS_OK);
    {
        char buf[64];

        CHECK_INT_EQ(rpc_next(&p, buf, sizeof(buf)), STATUS_OK);
        CHECK_STR_EQ(buf, "{\"a\":1}");
    }
    rpc_close(&p);
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

static int rpc_depth_n(const char *text, size_t len, int limit)
{
    struct jsonrpc_scan scan;

    jsonrpc_scan(text, len, limit, &scan);
    return scan.depth;
}

static int rpc_depth(const char *text, int limit)
{
    return rpc_depth_n(text, strlen(text), limit);
}

/* The first problem jsonrpc_scan finds in text (len bytes), and where. */
static enum jsonrpc_text rpc_problem(const char *text, size_t len, size_t *at)
{
    struct jsonrpc_scan scan;

    jsonrpc_scan(text, len, 64, &scan);
    *at = scan.at;
    return scan.problem;
}

static void test_scan_problems(void)
{
    static const struct {
        const char *text;
        size_t len;
        enum jsonrpc_text problem;
        size_t at;
    } cases[] = {
        {"{\"a\":\"x\"}", 9, JSONRPC_TEXT_OK, 0},
        /* Whitespace JSON allows between tokens, and every UTF-8 form. */
        {"{\t\"a\"\r:\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}", 19, JSONRPC_TEXT_OK, 0},
        {"{\"a\":\"\\u0000\"}", 14, JSONRPC_TEXT_NUL_ESCAPE, 0},
        /* A raw NUL or control byte inside a string, a raw tab inside one, one outside. */
        {"{\"a\":\"x\0/../y\"}", 15, JSONRPC_TEXT_CONTROL, 7},
        {"{\"a\":\"\x01\"}", 9, JSONRPC_TEXT_CONTROL, 6},
        {"{\"a\":\"\t\"}", 9, JSONRPC_TEXT_CONTROL, 6},
        {"{\x01\"a\":1}", 8, JSONRPC_TEXT_CONTROL, 1},
        /* Not UTF-8: a stray byte, an overlong form, a surrogate, a cut sequence, past
         * U+10FFFF. */
        {"{\"a\":\"\xff\"}", 9, JSONRPC_TEXT_UTF8, 6},
        {"{\"a\":\"\xc0\xae\"}", 10, JSONRPC_TEXT_UTF8, 6},
        {"{\"a\":\"\xed\xa0\x80\"}", 11, JSONRPC_TEXT_UTF8, 6},
        {"{\"a\":\"\xe2\x82\"}", 10, JSONRPC_TEXT_UTF8, 6},
        {"{\"a\":\"\xf4\x90\x80\x80\"}", 12, JSONRPC_TEXT_UTF8, 6},
        /* A bad byte after \u0000 is still found: it makes the text no JSON at all. */
        {"{\"a\":\"\\u0000\xff\"}", 15, JSONRPC_TEXT_UTF8, 12},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t at = 0;
        enum jsonrpc_text got = rpc_problem(cases[i].text, cases[i].len, &at);

        if (!CHECK_INT_EQ(got, cases[i].problem) ||
            (got >= JSONRPC_TEXT_CONTROL && !CHECK_INT_EQ(at, cases[i].at)))
            fprintf(stderr, "    case %zu\n", i);
    }
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
    CHECK_INT_EQ(rpc_depth_n("[[[[", 2, 64), 2);
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

/* Integer ids print as JSON prints them, from 0 to +-(2^53 - 1). */
static void test_int_text(void)
{
    static const char *const ids[] = {
        "0", "7", "-1", "10", "-90", "1234567890", "9007199254740991", "-9007199254740991", NULL,
    };

    for (size_t i = 0; ids[i] != NULL; i++) {
        cJSON *id = cJSON_Parse(ids[i]);
        char buf[JSONRPC_INT_TEXT];

        if (CHECK(id != NULL))
            CHECK_STR_EQ(jsonrpc_int_text(id, buf), ids[i]);
        cJSON_Delete(id);
    }
}

/* The codes are what clients and SDKs match on: each has the number the specifications give
 * it, and no two share one. */
static void test_codes(void)
{
    static const int codes[] = {
        JSONRPC_PARSE_ERROR,        JSONRPC_INVALID_REQUEST,     JSONRPC_METHOD_NOT_FOUND,
        JSONRPC_INVALID_PARAMS,     JSONRPC_INTERNAL_ERROR,      JSONRPC_SERVER_ERROR,
        JSONRPC_SESSION_NOT_FOUND,  JSONRPC_RESOURCE_NOT_FOUND,  JSONRPC_HEADER_MISMATCH,
        JSONRPC_MISSING_CAPABILITY, JSONRPC_UNSUPPORTED_VERSION,
    };
    static const int wire[] = {-32700, -32600, -32601, -32602, -32603, -32000,
                               -32001, -32002, -32020, -32021, -32022};

    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        CHECK_INT_EQ(codes[i], wire[i]);
        for (size_t j = i + 1; j < sizeof(codes) / sizeof(codes[0]); j++)
            CHECK(codes[i] != codes[j]);
    }
}

/* A missing resource: -32002 in the legacy revisions, invalid params in 2026-07-28; both name
 * the URI in data. */
static void test_not_found(void)
{
    cJSON *id = cJSON_CreateNumber(7);
    char *text;

    for (int modern = 0; modern <= 1; modern++) {
        cJSON *msg = jsonrpc_not_found(id, "x://gone", "Resource not found", modern);
        const cJSON *err = cJSON_GetObjectItem(msg, "error");

        CHECK_INT_EQ(cJSON_GetObjectItem(err, "code")->valueint,
                     modern ? JSONRPC_INVALID_PARAMS : JSONRPC_RESOURCE_NOT_FOUND);
        CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(err, "message")),
                     "Resource not found");
        CHECK_STR_EQ(
            cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(err, "data"), "uri")),
            "x://gone");
        text = cJSON_PrintUnformatted(msg);
        /* An integer id is copied as its text (jsonrpc_error): it prints the same. */
        CHECK(text != NULL && strstr(text, "\"id\":7") != NULL);
        free(text);
        cJSON_Delete(msg);
    }
    cJSON_Delete(id);
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
    {"reader_long_line_let_go", test_reader_long_line_let_go},
    {"reader_interrupted", test_reader_interrupted},
    {"result_shape", test_result_shape},
    {"error_shape", test_error_shape},
    {"notification_shape", test_notification_shape},
    {"depth", test_depth},
    {"scan_problems", test_scan_problems},
    {"valid_id", test_valid_id},
    {"int_text", test_int_text},
    {"codes", test_codes},
    {"not_found", test_not_found},
    {0},
};

int main(void)
{
    return check_main("test_jsonrpc", tests);
}
