/*
 * test_trace.c: the W3C traceparent parser (valid, each malformation, later versions), the
 * tracestate rule, and a call's trace made on first use: the client's trace id kept with
 * mcph's span as the parent, from _meta before the HTTP headers, a fresh valid id for a call
 * without one or with a malformed one, different per call.
 */
#include "wire/trace.h"

#include "check.h"
#include "lib/status.h"

#include <string.h>

#define GOOD "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
#define GOOD_ID "4bf92f3577b34da6a3ce929d0e0e4736"

/* Whether s is a version 00 traceparent mcph itself would accept. */
static int well_formed(const char *s)
{
    char id[TRACE_ID_LEN + 1], flags[3];

    return strlen(s) == TRACE_PARENT_LEN && strncmp(s, "00-", 3) == 0 &&
           trace_parse(s, id, flags) == STATUS_OK;
}

static void test_parse_valid(void)
{
    char id[TRACE_ID_LEN + 1] = "", flags[3] = "";

    CHECK_INT_EQ(trace_parse(GOOD, id, flags), STATUS_OK);
    CHECK_STR_EQ(id, GOOD_ID);
    CHECK_STR_EQ(flags, "01");
    /* A later version: its first fields are read, what follows a '-' is skipped. */
    CHECK_INT_EQ(
        trace_parse("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-extra", id, flags),
        STATUS_OK);
    CHECK_STR_EQ(flags, "00");
    CHECK_INT_EQ(trace_parse("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-09", id, flags),
                 STATUS_OK);
}

static void test_parse_invalid(void)
{
    static const char *const bad[] = {
        "",
        "00",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0",   /* short */
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-", /* 00 has no more */
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-010", /* 00 has no more */
        "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x", /* later: '-' needed */
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  /* version ff */
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  /* uppercase */
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  /* zero trace id */
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  /* zero parent id */
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",  /* flags not hex */
        "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",  /* id not hex */
        "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  /* separator */
        "00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7_01",
        "0x-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", /* version not hex */
        " 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    };
    char id[TRACE_ID_LEN + 1] = "untouched", flags[3] = "u";

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (!CHECK_INT_EQ(trace_parse(bad[i], id, flags), STATUS_INVALID))
            fprintf(stderr, "  accepted: '%s'\n", bad[i]);
    }
    CHECK_INT_EQ(trace_parse(NULL, id, flags), STATUS_INVALID);
    CHECK_STR_EQ(id, "untouched");
}

static void test_state(void)
{
    char state[TRACE_STATE_MAX + 2];

    CHECK(trace_state_ok("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"));
    CHECK(!trace_state_ok(""));
    CHECK(!trace_state_ok(NULL));
    CHECK(!trace_state_ok("a=b\nc=d"));
    CHECK(!trace_state_ok("a=\xc3\xa9"));
    memset(state, 'a', TRACE_STATE_MAX);
    state[TRACE_STATE_MAX] = '\0';
    CHECK(trace_state_ok(state));
    state[TRACE_STATE_MAX] = 'a';
    state[TRACE_STATE_MAX + 1] = '\0';
    CHECK(!trace_state_ok(state));
}

/* A request whose params._meta is meta_json (NULL: no _meta). */
static cJSON *request(const char *meta_json)
{
    cJSON *msg = cJSON_Parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                             "\"params\":{\"name\":\"t\"}}");

    if (meta_json != NULL)
        cJSON_AddItemToObject(cJSON_GetObjectItem(msg, "params"), "_meta", cJSON_Parse(meta_json));
    return msg;
}

static void test_kept_from_meta(void)
{
    cJSON *msg = request("{\"traceparent\":\"" GOOD "\",\"tracestate\":\"k=v\"}");
    struct trace t;
    const char *state = "unset", *parent;

    struct peer peer = {.traceparent = "00-11111111111111111111111111111111-2222222222222222-01",
                        .tracestate = "h=1"};

    trace_init(&t, msg, &peer);
    CHECK(t.made == NULL);
    CHECK_STR_EQ(trace_id(&t), GOOD_ID);
    CHECK_STR_EQ(trace_tag(&t), "trace=" GOOD_ID);
    parent = trace_context(&t, &state);
    CHECK(well_formed(parent));
    CHECK(strncmp(parent, "00-" GOOD_ID "-", 36) == 0);
    /* mcph's span is the parent now, and the flags are kept. */
    CHECK(strncmp(parent + 36, "00f067aa0ba902b7", 16) != 0);
    CHECK_STR_EQ(parent + 52, "-01");
    CHECK_STR_EQ(state, "k=v");
    /* The same span for the whole call. */
    CHECK(trace_context(&t, NULL) == parent);
    trace_release(&t);
    CHECK(t.made == NULL);
    cJSON_Delete(msg);
}

static void test_from_headers(void)
{
    cJSON *msg = request("{\"progressToken\":1}");
    struct trace t;
    const char *state = NULL;

    struct peer peer = {.traceparent = "00-11111111111111111111111111111111-2222222222222222-00",
                        .tracestate = "h=1"};

    trace_init(&t, msg, &peer);
    CHECK_STR_EQ(trace_id(&t), "11111111111111111111111111111111");
    CHECK_STR_EQ(trace_context(&t, &state) + 52, "-00");
    CHECK_STR_EQ(state, "h=1");
    trace_release(&t);
    cJSON_Delete(msg);
}

static void test_fresh(void)
{
    cJSON *none = request(NULL);
    cJSON *bad = request("{\"traceparent\":\"00-zz\",\"tracestate\":\"k=v\"}");
    struct trace a, b, c;
    const char *state = "unset";

    struct peer peer = {.traceparent = GOOD, .tracestate = "h=1"};

    trace_init(&a, none, NULL);
    trace_init(&b, none, NULL);
    /* A malformed one in _meta is ignored, and so is its tracestate and the header's. */
    trace_init(&c, bad, &peer);
    CHECK(well_formed(trace_context(&a, &state)));
    CHECK(state == NULL);
    CHECK_STR_EQ(trace_context(&a, NULL) + 52, "-01");
    CHECK(strcmp(trace_id(&a), trace_id(&b)) != 0);
    CHECK(well_formed(trace_context(&c, &state)));
    CHECK(state == NULL);
    CHECK(strcmp(trace_id(&c), GOOD_ID) != 0);
    CHECK(strcmp(trace_id(&c), trace_id(&a)) != 0);
    trace_release(&a);
    trace_release(&b);
    trace_release(&c);
    cJSON_Delete(none);
    cJSON_Delete(bad);
}

/* Many ids drawn: all well formed, none repeated among those compared, no zero span. */
static void test_many(void)
{
    char prev[TRACE_PARENT_LEN + 1] = "";
    cJSON *none = request(NULL);
    int repeats = 0, bad = 0;

    for (int i = 0; i < 10000; i++) {
        struct trace t;
        const char *p;

        trace_init(&t, none, NULL);
        p = trace_context(&t, NULL);
        bad += !well_formed(p);
        repeats += strcmp(p, prev) == 0 || strncmp(p + 3, prev + 3, TRACE_ID_LEN) == 0;
        memcpy(prev, p, sizeof(prev));
        trace_release(&t);
    }
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(repeats, 0);
    cJSON_Delete(none);
}

static const struct check_test tests[] = {
    {"parse_valid", test_parse_valid},
    {"parse_invalid", test_parse_invalid},
    {"state", test_state},
    {"kept_from_meta", test_kept_from_meta},
    {"from_headers", test_from_headers},
    {"fresh", test_fresh},
    {"many", test_many},
    {0},
};

int main(void)
{
    return check_main("test_trace", tests);
}
