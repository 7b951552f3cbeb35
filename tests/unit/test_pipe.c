/* test_pipe.c: the stdio transport through a real pipe, driven as the pool's reader drives it
 * (work.c: dispatch what is buffered, read, and at the end of input dispatch once more and
 * say it ended): whole lines and a line split across reads are answered in order, with or
 * without "\r"; a line longer than the limit is refused once and the reader goes on with the
 * next; a last line without newline is answered at the end of input, which wakes the main
 * loop; a read error ends the input with a log line. */
#include "transport/pipe.h"

#include "check.h"
#include "fixture.h"
#include "wire/jsonrpc.h"
#include "lib/limits.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PIPE_INI "[server]\nplugin_dir = ../../plugins\nname = pipe\n"
#define PIPE_PING(id) "{\"jsonrpc\":\"2.0\",\"id\":" #id ",\"method\":\"ping\"}"

static struct fixture_server fx;

/* The stdio transport of a server serving nothing, reading the pipe's read end instead of
 * fd 0: fds[1] is the client's end. Returns whether it was all set up. */
static int pipe_open(struct work_source *src, int fds[2])
{
    if (!CHECK(fixture_server_serve(&fx, "pipe", PIPE_INI)))
        return 0;
    if (!CHECK(pipe2(fds, O_CLOEXEC) == 0)) {
        fixture_server_close(&fx);
        return 0;
    }
    jsonrpc_reader_release(&fx.srv.in);
    jsonrpc_reader_init(&fx.srv.in, fds[0], LIMIT_MESSAGE_BYTES);
    pipe_source(&fx.srv, src);
    return 1;
}

static void pipe_close(int fds[2])
{
    /* server_stop releases the reader; the fixture does not stop the server that way. */
    jsonrpc_reader_release(&fx.srv.in);
    fixture_server_close(&fx);
    close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
}

/* One turn of the reader: read once (it waits for input), then dispatch what is buffered
 * and let the calls finish, as the pool does after a read and at the end of input. Returns
 * what read() returned. */
static int pipe_turn(const struct work_source *src)
{
    int rc = src->read(src->ctx);

    src->dispatch(src->ctx);
    fixture_server_settle(&fx, 5000);
    return rc;
}

/* Turns until the end of input, which the server is then told of. */
static void pipe_until_end(const struct work_source *src)
{
    while (pipe_turn(src) != 0)
        ;
    src->ended(src->ctx);
}

/* The id of line n of text (as a number), or -1. */
static int pipe_reply_id(const char *text, int n)
{
    cJSON *reply = fixture_line_json(text, n);
    const cJSON *id = cJSON_GetObjectItem(reply, "id");
    int value = cJSON_IsNumber(id) ? id->valueint : -1;

    cJSON_Delete(reply);
    return value;
}

static int pipe_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);

        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static int pipe_send(int fd, const char *text)
{
    return pipe_write_all(fd, text, strlen(text));
}

/* Two lines (one ending "\r\n") in one write, answered in order. */
static void test_lines(void)
{
    struct work_source src;
    int fds[2];
    const char *out;

    if (!pipe_open(&src, fds))
        return;
    CHECK(pipe_send(fds[1], PIPE_PING(1) "\n" PIPE_PING(2) "\r\n") == 0);
    CHECK_INT_EQ(pipe_turn(&src), 1);
    out = fixture_capture_take(&fx.out);
    CHECK_INT_EQ(fixture_count_lines(out), 2);
    CHECK_INT_EQ(pipe_reply_id(out, 0), 1);
    CHECK_INT_EQ(pipe_reply_id(out, 1), 2);
    pipe_close(fds);
}

/* A line that arrives in two reads is answered once it is whole, not before. */
static void test_split_line(void)
{
    struct work_source src;
    int fds[2];

    if (!pipe_open(&src, fds))
        return;
    CHECK(pipe_send(fds[1], "{\"jsonrpc\":\"2.0\",\"id\":3,") == 0);
    CHECK_INT_EQ(pipe_turn(&src), 1);
    CHECK_STR_EQ(fixture_capture_take(&fx.out), "");
    CHECK(pipe_send(fds[1], "\"method\":\"ping\"}\n") == 0);
    CHECK_INT_EQ(pipe_turn(&src), 1);
    CHECK_INT_EQ(pipe_reply_id(fixture_capture_take(&fx.out), 0), 3);
    pipe_close(fds);
}

struct pipe_writer {
    int fd;
    const char *buf;
    size_t len;
};

/* Writes the whole buffer, then closes the client's end: more than the pipe holds. */
static void *pipe_writer_main(void *arg)
{
    struct pipe_writer *wr = arg;

    (void)pipe_write_all(wr->fd, wr->buf, wr->len);
    close(wr->fd);
    return NULL;
}

/* A line of LIMIT_MESSAGE_BYTES + 1 bytes, then a ping: the long line gets one -32600 (no id)
 * and the ping after it is answered; the end of input follows. */
static void test_oversized(void)
{
    const size_t over = LIMIT_MESSAGE_BYTES + 1;
    static const char tail[] = "\n" PIPE_PING(4) "\n";
    struct pipe_writer wr;
    struct work_source src;
    pthread_t thread;
    int fds[2];
    char *buf;
    const char *out;
    cJSON *reply;
    const cJSON *error;

    if (!pipe_open(&src, fds))
        return;
    buf = malloc(over + sizeof(tail));
    if (!CHECK(buf != NULL)) {
        pipe_close(fds);
        return;
    }
    memset(buf, ' ', over);
    memcpy(buf + over, tail, sizeof(tail));
    wr = (struct pipe_writer){.fd = fds[1], .buf = buf, .len = over + sizeof(tail) - 1};
    fds[1] = -1; /* the writer closes it */
    if (CHECK(pthread_create(&thread, NULL, pipe_writer_main, &wr) == 0)) {
        pipe_until_end(&src);
        pthread_join(thread, NULL);
    }
    out = fixture_capture_take(&fx.out);
    CHECK_INT_EQ(fixture_count_lines(out), 2);
    reply = fixture_line_json(out, 0);
    error = cJSON_GetObjectItem(reply, "error");
    CHECK_INT_EQ(cJSON_GetNumberValue(cJSON_GetObjectItem(error, "code")), JSONRPC_INVALID_REQUEST);
    CHECK_STR_HAS(cJSON_GetStringValue(cJSON_GetObjectItem(error, "message")), "longer than");
    CHECK(cJSON_IsNull(cJSON_GetObjectItem(reply, "id")));
    cJSON_Delete(reply);
    CHECK_INT_EQ(pipe_reply_id(out, 1), 4);
    CHECK_INT_EQ(atomic_load(&fx.srv.input_ended), 1);
    free(buf);
    pipe_close(fds);
}

/* At the end of input the last line, without newline, is still answered; the server is told
 * the input ended and its main loop woken. */
static void test_end_of_input(void)
{
    struct work_source src;
    int fds[2], wake[2];
    char byte;

    if (!pipe_open(&src, fds))
        return;
    if (!CHECK(pipe2(wake, O_CLOEXEC | O_NONBLOCK) == 0)) {
        pipe_close(fds);
        return;
    }
    fx.srv.wake_fd = wake[1];
    CHECK(pipe_send(fds[1], PIPE_PING(5)) == 0);
    close(fds[1]);
    fds[1] = -1;
    CHECK_INT_EQ(atomic_load(&fx.srv.input_ended), 0);
    pipe_until_end(&src);
    CHECK_INT_EQ(pipe_reply_id(fixture_capture_take(&fx.out), 0), 5);
    CHECK_INT_EQ(atomic_load(&fx.srv.input_ended), 1);
    CHECK_INT_EQ(read(wake[0], &byte, 1), 1);
    CHECK_INT_EQ(src.read(src.ctx), 0); /* and it stays ended */
    fx.srv.wake_fd = -1;
    close(wake[0]);
    close(wake[1]);
    pipe_close(fds);
}

/* A read that fails (here: the pipe's write end, which cannot be read) ends the input like
 * EOF, and says why on stderr (the log); the end of input alone says nothing. */
static void test_read_error(void)
{
    struct work_source src;
    int fds[2];

    if (!pipe_open(&src, fds))
        return;
    fixture_capture_take(&fx.log);
    fx.srv.in.fd = fds[1];
    CHECK_INT_EQ(src.read(src.ctx), 0);
    CHECK_STR_HAS(fixture_capture_take(&fx.log), "reading stdin");
    fx.srv.in.fd = fds[0];
    close(fds[1]);
    fds[1] = -1;
    CHECK_INT_EQ(src.read(src.ctx), 0);
    CHECK_STR_EQ(fixture_capture_take(&fx.log), "");
    pipe_close(fds);
}

static const struct check_test tests[] = {
    {"lines", test_lines},           {"split_line", test_split_line},
    {"oversized", test_oversized},   {"end_of_input", test_end_of_input},
    {"read_error", test_read_error}, {0},
};

int main(void)
{
    return check_main("test_pipe", tests);
}
