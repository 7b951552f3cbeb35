/* test_remote_sse.c: the relay's event-stream parser: events split at every byte, the three
 * line ends (a CR and its LF in different pieces included), data lines joined by a space,
 * comments and unknown fields skipped, an event with no data not dispatched, the last event
 * id kept across events, a leading byte-order mark, the bound on a line and on an event, and
 * a callback that stops the stream. */
#include "client/remote_sse.h"

#include "lib/status.h"

#include "check.h"

#include <stdlib.h>
#include <string.h>

struct test_events {
    char got[16][256];
    int count;
    int stop_at; /* return 1 at this event (1-based); 0: never */
};

static int test_on_event(void *ctx, const char *data, size_t len)
{
    struct test_events *ev = ctx;

    CHECK_INT_EQ(strlen(data), len);
    if (ev->count < 16)
        snprintf(ev->got[ev->count], sizeof(ev->got[0]), "%s", data);
    ev->count++;
    return ev->stop_at != 0 && ev->count == ev->stop_at;
}

/* Feed text in pieces of step bytes (0: whole). Returns the last feed's status. */
static int test_feed(struct remote_sse *s, const char *text, size_t step, struct test_events *ev)
{
    size_t len = strlen(text);
    int rc = 0;

    if (step == 0)
        step = len;
    for (size_t at = 0; at < len && rc == 0; at += step)
        rc = remote_sse_feed(s, text + at, len - at < step ? len - at : step, test_on_event, ev);
    return rc;
}

static void test_split_everywhere(void)
{
    static const char *const streams[] = {
        "event: message\ndata: {\"a\":1}\n\ndata: {\"b\":2}\n\n",
        "event: message\r\ndata: {\"a\":1}\r\n\r\ndata: {\"b\":2}\r\n\r\n",
        "event: message\rdata: {\"a\":1}\r\rdata: {\"b\":2}\r\r",
        ": a comment\nretry: 10\ndata:{\"a\":1}\n\nid: 7\ndata: {\"b\":2}\nunknown: x\n\n",
    };

    for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++) {
        for (size_t step = 0; step <= 5; step++) {
            struct remote_sse s;
            struct test_events ev = {0};

            remote_sse_init(&s, 1024);
            CHECK_INT_EQ(test_feed(&s, streams[i], step, &ev), 0);
            CHECK_INT_EQ(ev.count, 2);
            CHECK_STR_EQ(ev.got[0], "{\"a\":1}");
            CHECK_STR_EQ(ev.got[1], "{\"b\":2}");
            remote_sse_release(&s);
        }
    }
}

static void test_multi_line_data(void)
{
    struct remote_sse s;
    struct test_events ev = {0};

    remote_sse_init(&s, 1024);
    CHECK_INT_EQ(test_feed(&s, "data: {\"a\":\ndata:  1}\ndata\n\n", 1, &ev), 0);
    CHECK_INT_EQ(ev.count, 1);
    /* One space removed after the colon; a field with no colon is an empty value. */
    CHECK_STR_EQ(ev.got[0], "{\"a\":  1} ");
    remote_sse_release(&s);
}

static void test_no_data_no_event(void)
{
    struct remote_sse s;
    struct test_events ev = {0};

    remote_sse_init(&s, 1024);
    CHECK_INT_EQ(test_feed(&s, "id: 1\n\n: ping\n\n\n\nevent: x\n\ndata:\n\n", 0, &ev), 0);
    CHECK_INT_EQ(ev.count, 0);
    CHECK_STR_EQ(s.id.buf, "1");
    /* An event not ended by a blank line is not dispatched. */
    CHECK_INT_EQ(test_feed(&s, "data: {}\n", 0, &ev), 0);
    CHECK_INT_EQ(ev.count, 0);
    remote_sse_release(&s);
}

static void test_last_event_id(void)
{
    struct remote_sse s;
    struct test_events ev = {0};

    remote_sse_init(&s, 1024);
    CHECK_INT_EQ(test_feed(&s, "id: a-1\ndata: 1\n\ndata: 2\n\nid: b-2\ndata: 3\n\n", 2, &ev), 0);
    CHECK_INT_EQ(ev.count, 3);
    CHECK_STR_EQ(s.id.buf, "b-2");
    CHECK_INT_EQ(test_feed(&s, "id\ndata: 4\n\n", 0, &ev), 0);
    CHECK_STR_EQ(s.id.buf, "");
    remote_sse_release(&s);
}

/* A byte-order mark at the start is skipped, whole or in pieces; one cut short is data. */
static void test_bom(void)
{
    for (size_t step = 0; step <= 3; step++) {
        struct remote_sse s;
        struct test_events ev = {0};

        remote_sse_init(&s, 1024);
        CHECK_INT_EQ(test_feed(&s,
                               "\xef\xbb\xbf"
                               "data: x\n\n",
                               step, &ev),
                     0);
        CHECK_INT_EQ(ev.count, 1);
        CHECK_STR_EQ(ev.got[0], "x");
        remote_sse_release(&s);
        remote_sse_init(&s, 1024);
        ev.count = 0;
        CHECK_INT_EQ(test_feed(&s,
                               "\xef\xbb"
                               "data: y\n\ndata: z\n\n",
                               step, &ev),
                     0);
        CHECK_INT_EQ(ev.count, 1);
        CHECK_STR_EQ(ev.got[0], "z");
        remote_sse_release(&s);
    }
}

static void test_bounds(void)
{
    struct remote_sse s;
    struct test_events ev = {0};
    char line[64];

    remote_sse_init(&s, 16);
    CHECK_INT_EQ(test_feed(&s, "data: 0123456789\n\n", 0, &ev), 0);
    CHECK_INT_EQ(ev.count, 1);
    /* A line past the bound, fed whole or a byte at a time. */
    memset(line, 'x', sizeof(line) - 1);
    line[sizeof(line) - 1] = '\0';
    CHECK_INT_EQ(test_feed(&s, line, 0, &ev), STATUS_LIMIT);
    remote_sse_release(&s);
    remote_sse_init(&s, 16);
    CHECK_INT_EQ(test_feed(&s, line, 1, &ev), STATUS_LIMIT);
    remote_sse_release(&s);
    /* An event whose lines fit but whose data does not. */
    remote_sse_init(&s, 16);
    CHECK_INT_EQ(test_feed(&s, "data: 0123456789\ndata: 0123456789\n\n", 0, &ev), STATUS_LIMIT);
    CHECK_INT_EQ(ev.count, 1);
    remote_sse_release(&s);
}

static void test_stop(void)
{
    struct remote_sse s;
    struct test_events ev = {.stop_at = 2};

    remote_sse_init(&s, 1024);
    CHECK_INT_EQ(test_feed(&s, "data: 1\n\ndata: 2\n\ndata: 3\n\n", 0, &ev), 1);
    CHECK_INT_EQ(ev.count, 2);
    remote_sse_release(&s);
}

static const struct check_test tests[] = {
    {"split_everywhere", test_split_everywhere},
    {"multi_line_data", test_multi_line_data},
    {"no_data_no_event", test_no_data_no_event},
    {"last_event_id", test_last_event_id},
    {"bom", test_bom},
    {"bounds", test_bounds},
    {"stop", test_stop},
    {0},
};

int main(void)
{
    return check_main("test_remote_sse", tests);
}
