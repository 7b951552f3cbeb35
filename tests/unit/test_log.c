/* test_log.c: level names both ways, and the lines log_msg writes (format, filtering,
 * cutting), read back through a pipe. */
#include "lib/log.h"

#include "check.h"
#include "lib/limits.h"
#include "lib/status.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const log_expected_names[] = {
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency", NULL,
};

/* A pipe whose read end does not block. */
static int log_pipe(int fds[2])
{
    if (pipe(fds) != 0)
        return -1;
    return fcntl(fds[0], F_SETFL, O_NONBLOCK);
}

/* Everything waiting in the pipe, NUL-terminated, in buf. */
static size_t log_drain(int fd, char *buf, size_t size)
{
    size_t len = 0;
    ssize_t n;

    while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
        len += (size_t)n;
    buf[len] = '\0';
    return len;
}

static void test_init(void)
{
    struct log lg;

    log_init(&lg);
    CHECK_INT_EQ(lg.level, LOG_INFO);
    CHECK_INT_EQ(lg.fd, 2);
}

static void test_level_parse(void)
{
    int level;

    for (int i = 0; log_expected_names[i] != NULL; i++) {
        level = -1;
        CHECK_INT_EQ(log_level_parse(log_expected_names[i], &level), STATUS_OK);
        CHECK_INT_EQ(level, i);
    }
    level = -1;
    CHECK_INT_EQ(log_level_parse("warn", &level), STATUS_OK);
    CHECK_INT_EQ(level, LOG_WARNING);

    level = 12345;
    CHECK_INT_EQ(log_level_parse("", &level), STATUS_INVALID);
    CHECK_INT_EQ(log_level_parse("verbose", &level), STATUS_INVALID);
    CHECK_INT_EQ(log_level_parse("warnings", &level), STATUS_INVALID);
    CHECK_INT_EQ(log_level_parse("info ", &level), STATUS_INVALID);
    CHECK_INT_EQ(log_level_parse("3", &level), STATUS_INVALID);
    CHECK_INT_EQ(level, 12345);
}

static void test_level_name(void)
{
    for (int i = 0; log_expected_names[i] != NULL; i++)
        CHECK_STR_EQ(log_level_name(i), log_expected_names[i]);
    CHECK_STR_EQ(log_level_name(LOG_DEBUG), "debug");
    CHECK_STR_EQ(log_level_name(LOG_EMERGENCY), "emergency");
    CHECK_STR_EQ(log_level_name(-1), "unknown");
    CHECK_STR_EQ(log_level_name(LOG_EMERGENCY + 1), "unknown");
}

static void test_msg_format(void)
{
    struct log lg;
    char buf[512];
    int fds[2];

    if (!CHECK(log_pipe(fds) == 0))
        return;
    log_init(&lg);
    lg.fd = fds[1];
    log_msg(&lg, LOG_WARNING, NULL, "disk %d%% full", 93);
    log_drain(fds[0], buf, sizeof(buf));
    CHECK_STR_EQ(buf, "mcph: warning: disk 93% full\n");

    log_msg(&lg, LOG_ERROR, "plugin basic", "init failed: %s", "no token");
    log_drain(fds[0], buf, sizeof(buf));
    CHECK_STR_EQ(buf, "mcph: error: plugin basic: init failed: no token\n");

    /* Two messages are two lines, in order. */
    log_msg(&lg, LOG_INFO, NULL, "one");
    log_msg(&lg, LOG_EMERGENCY, "x", "two");
    log_drain(fds[0], buf, sizeof(buf));
    CHECK_STR_EQ(buf, "mcph: info: one\nmcph: emergency: x: two\n");
    close(fds[0]);
    close(fds[1]);
}

static void test_level_filter(void)
{
    struct log lg;
    char buf[512];
    int fds[2];

    if (!CHECK(log_pipe(fds) == 0))
        return;
    log_init(&lg);
    lg.fd = fds[1];
    lg.level = LOG_WARNING;
    log_msg(&lg, LOG_DEBUG, NULL, "dropped debug");
    log_msg(&lg, LOG_INFO, NULL, "dropped info");
    log_msg(&lg, LOG_NOTICE, NULL, "dropped notice");
    CHECK_INT_EQ(log_drain(fds[0], buf, sizeof(buf)), 0);
    log_msg(&lg, LOG_WARNING, NULL, "kept warning");
    log_msg(&lg, LOG_CRITICAL, NULL, "kept critical");
    log_drain(fds[0], buf, sizeof(buf));
    CHECK_STR_EQ(buf, "mcph: warning: kept warning\nmcph: critical: kept critical\n");

    lg.level = LOG_DEBUG;
    log_msg(&lg, LOG_DEBUG, NULL, "now kept");
    log_drain(fds[0], buf, sizeof(buf));
    CHECK_STR_EQ(buf, "mcph: debug: now kept\n");
    close(fds[0]);
    close(fds[1]);
}

/* A message longer than a log line is cut, marked, and still ends with its newline. */
static void test_long_message_cut(void)
{
    struct log lg;
    char *big = malloc(3 * LIMIT_LOG_LINE);
    char *buf = malloc(4 * LIMIT_LOG_LINE);
    size_t len;
    int fds[2];

    if (!CHECK(big != NULL && buf != NULL) || !CHECK(log_pipe(fds) == 0)) {
        free(big);
        free(buf);
        return;
    }
    memset(big, 'y', 2 * LIMIT_LOG_LINE);
    big[2 * LIMIT_LOG_LINE] = '\0';
    log_init(&lg);
    lg.fd = fds[1];
    log_msg(&lg, LOG_INFO, NULL, "%s", big);
    len = log_drain(fds[0], buf, 4 * LIMIT_LOG_LINE);
    CHECK(len <= LIMIT_LOG_LINE);
    CHECK(len > LIMIT_LOG_LINE - 16);
    CHECK(strncmp(buf, "mcph: info: yyy", 15) == 0);
    CHECK(len > 4 && strcmp(buf + len - 4, "...\n") == 0);
    CHECK(memchr(buf, '\n', len) == buf + len - 1);
    close(fds[0]);
    close(fds[1]);
    free(big);
    free(buf);
}

/* A line of exactly LIMIT_LOG_LINE bytes, newline included, is within the limit: it must
 * come out whole, not cut. */
static void test_line_at_limit_whole(void)
{
    static const char prefix[] = "mcph: info: ";
    size_t text_len = LIMIT_LOG_LINE - 1 - (sizeof(prefix) - 1);
    char *text = malloc(text_len + 1);
    char *buf = malloc(2 * LIMIT_LOG_LINE);
    struct log lg;
    size_t len;
    int fds[2];

    if (!CHECK(text != NULL && buf != NULL) || !CHECK(log_pipe(fds) == 0)) {
        free(text);
        free(buf);
        return;
    }
    memset(text, 'z', text_len);
    text[text_len] = '\0';
    log_init(&lg);
    lg.fd = fds[1];
    log_msg(&lg, LOG_INFO, NULL, "%s", text);
    len = log_drain(fds[0], buf, 2 * LIMIT_LOG_LINE);
    CHECK_INT_EQ(len, LIMIT_LOG_LINE);
    CHECK(len > 4 && strcmp(buf + len - 4, "zzz\n") == 0);
    close(fds[0]);
    close(fds[1]);
    free(text);
    free(buf);
}

/* Control characters in a message (an upstream's tool name, a child's line) are escaped:
 * one message is one line, and it cannot forge another line nor drive the terminal. */
static void test_controls_escaped(void)
{
    struct log lg;
    char buf[512];
    int fds[2];

    if (!CHECK(log_pipe(fds) == 0))
        return;
    log_init(&lg);
    lg.fd = fds[1];
    log_msg(&lg, LOG_INFO, "up", "tool '%s' left out",
            "a\nmcph: error: forged\r\x1b[31m\x7f\t\xc2\x85é");
    log_drain(fds[0], buf, sizeof(buf));
    CHECK_STR_EQ(buf, "mcph: info: up: tool 'a\\nmcph: error: forged\\r\\x1b[31m\\x7f\\t\\u0085é' "
                      "left out\n");
    close(fds[0]);
    close(fds[1]);
}

static const char *log_test_tag(void *ctx)
{
    return ctx;
}

static char log_sunk[LIMIT_LOG_LINE];

static void log_test_sink(void *ctx, int level, const char *who, const char *text)
{
    (void)ctx;
    (void)level;
    (void)who;
    snprintf(log_sunk, sizeof(log_sunk), "%s", text);
}

/* The thread's tag ends its stderr lines, after a space, kept whole when the message is cut;
 * the sink gets the message alone; no tag (NULL) leaves the line as it was. */
static void test_tag(void)
{
    char tag[] = "trace=0123abcd";
    char *big = malloc(2 * LIMIT_LOG_LINE);
    char *buf = malloc(4 * LIMIT_LOG_LINE);
    struct log lg;
    size_t len;
    int fds[2];

    if (!CHECK(big != NULL && buf != NULL) || !CHECK(log_pipe(fds) == 0)) {
        free(big);
        free(buf);
        return;
    }
    log_init(&lg);
    lg.fd = fds[1];
    lg.tag = log_test_tag;
    lg.sink = log_test_sink;
    atomic_store(&lg.sink_level, LOG_DEBUG);
    lg.sink_ctx = tag;
    log_msg(&lg, LOG_INFO, "plugin p", "hello");
    log_drain(fds[0], buf, 4 * LIMIT_LOG_LINE);
    CHECK_STR_EQ(buf, "mcph: info: plugin p: hello trace=0123abcd\n");
    CHECK_STR_EQ(log_sunk, "hello");
    memset(big, 'y', LIMIT_LOG_LINE + 10);
    big[LIMIT_LOG_LINE + 10] = '\0';
    log_msg(&lg, LOG_INFO, NULL, "%s", big);
    len = log_drain(fds[0], buf, 4 * LIMIT_LOG_LINE);
    CHECK(len <= LIMIT_LOG_LINE);
    CHECK(len > 16 && strcmp(buf + len - 16, " trace=0123abcd\n") == 0);
    lg.sink_ctx = NULL;
    log_msg(&lg, LOG_INFO, NULL, "untagged");
    log_drain(fds[0], buf, 4 * LIMIT_LOG_LINE);
    CHECK_STR_EQ(buf, "mcph: info: untagged\n");
    close(fds[0]);
    close(fds[1]);
    free(big);
    free(buf);
}

static const struct check_test tests[] = {
    {"init", test_init},
    {"level_parse", test_level_parse},
    {"level_name", test_level_name},
    {"msg_format", test_msg_format},
    {"level_filter", test_level_filter},
    {"long_message_cut", test_long_message_cut},
    {"line_at_limit_whole", test_line_at_limit_whole},
    {"controls_escaped", test_controls_escaped},
    {"tag", test_tag},
    {0},
};

int main(void)
{
    return check_main("test_log", tests);
}
