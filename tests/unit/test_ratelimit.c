/* test_ratelimit.c: token buckets on a clock the test moves: the burst, the refill, Retry-After
 * rounded up, all-or-nothing across buckets, a changed rate applied at once, the bound on the
 * table (the oldest bucket goes, and comes back full), one log line per bucket per period,
 * threads sharing a bucket; and the [limit.NAME] sections matched against a tool's name. */
#include "served/ratelimit.h"

#include "lib/status.h"

#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long test_now_ns;

static long long test_clock(void *ctx)
{
    (void)ctx;
    return test_now_ns;
}

static void test_advance_ms(long ms)
{
    test_now_ns += (long long)ms * 1000000LL;
}

/* One token from who's bucket (rate a second, burst): STATUS_OK or STATUS_LIMIT, wait in
 * *retry_ms. */
static int test_take(struct ratelimit *rl, const char *who, double rate, int burst, long *retry_ms)
{
    struct ratelimit_ask a = {
        .kind = RATELIMIT_REQUESTS, .section = "", .who = who, .rate = rate, .burst = burst};

    return ratelimit_take(rl, &a, 1, retry_ms);
}

static struct ratelimit *test_table(size_t cap)
{
    test_now_ns = 1000000000LL;
    return ratelimit_new(cap, 5000, test_clock, NULL);
}

static void test_burst_then_refill(void)
{
    struct ratelimit *rl = test_table(16);
    long wait;

    if (!CHECK(rl != NULL))
        return;
    /* 2 a second, burst 3: three at once, then the fourth waits 500 ms. */
    for (int i = 0; i < 3; i++)
        CHECK_INT_EQ(test_take(rl, "a", 2, 3, &wait), STATUS_OK);
    CHECK_INT_EQ(test_take(rl, "a", 2, 3, &wait), STATUS_LIMIT);
    CHECK_INT_EQ(wait, 500);
    test_advance_ms(200);
    CHECK_INT_EQ(test_take(rl, "a", 2, 3, &wait), STATUS_LIMIT);
    CHECK_INT_EQ(wait, 300);
    test_advance_ms(300);
    CHECK_INT_EQ(test_take(rl, "a", 2, 3, &wait), STATUS_OK);
    CHECK_INT_EQ(wait, 0);
    /* A long pause fills the bucket to its burst, no more. */
    test_advance_ms(60000);
    for (int i = 0; i < 3; i++)
        CHECK_INT_EQ(test_take(rl, "a", 2, 3, &wait), STATUS_OK);
    CHECK_INT_EQ(test_take(rl, "a", 2, 3, &wait), STATUS_LIMIT);
    /* Another principal's bucket is its own. */
    CHECK_INT_EQ(test_take(rl, "b", 2, 3, &wait), STATUS_OK);
    ratelimit_free(rl);
}

/* A slow rate waits long: 1 an hour is 3600000 ms; Retry-After rounds up to whole seconds. */
static void test_rounding(void)
{
    struct ratelimit *rl = test_table(16);
    long wait;

    if (!CHECK(rl != NULL))
        return;
    CHECK_INT_EQ(test_take(rl, "a", 1.0 / 3600, 1, &wait), STATUS_OK);
    CHECK_INT_EQ(test_take(rl, "a", 1.0 / 3600, 1, &wait), STATUS_LIMIT);
    CHECK_INT_EQ(wait, 3600000);
    /* 3 a second: a third of a second is 334 ms rounded up. */
    CHECK_INT_EQ(test_take(rl, "c", 3, 1, &wait), STATUS_OK);
    CHECK_INT_EQ(test_take(rl, "c", 3, 1, &wait), STATUS_LIMIT);
    CHECK_INT_EQ(wait, 334);
    CHECK_INT_EQ(ratelimit_seconds(1), 1);
    CHECK_INT_EQ(ratelimit_seconds(1000), 1);
    CHECK_INT_EQ(ratelimit_seconds(1001), 2);
    CHECK_INT_EQ(ratelimit_seconds(0), 1);
    ratelimit_free(rl);
}

/* Two buckets asked together: a token from each or from none. */
static void test_all_or_nothing(void)
{
    struct ratelimit *rl = test_table(16);
    struct ratelimit_ask asks[2] = {
        {.kind = RATELIMIT_TOOL, .section = "wide", .who = "p", .rate = 10, .burst = 10},
        {.kind = RATELIMIT_TOOL, .section = "narrow", .who = "p", .rate = 1, .burst = 1},
    };
    long wait;

    if (!CHECK(rl != NULL))
        return;
    CHECK_INT_EQ(ratelimit_take(rl, asks, 2, &wait), STATUS_OK);
    for (int i = 0; i < 5; i++)
        CHECK_INT_EQ(ratelimit_take(rl, asks, 2, &wait), STATUS_LIMIT);
    CHECK_INT_EQ(wait, 1000);
    CHECK_INT_EQ(asks[0].retry_ms, 0);
    CHECK_INT_EQ(asks[1].retry_ms, 1000);
    /* The wide bucket gave one token only: nine are left of ten. */
    for (int i = 0; i < 9; i++)
        CHECK_INT_EQ(ratelimit_take(rl, &asks[0], 1, &wait), STATUS_OK);
    CHECK_INT_EQ(ratelimit_take(rl, &asks[0], 1, &wait), STATUS_LIMIT);
    /* Same names, other kind: other buckets. */
    asks[1].kind = RATELIMIT_REQUESTS;
    CHECK_INT_EQ(ratelimit_take(rl, &asks[1], 1, &wait), STATUS_OK);
    ratelimit_free(rl);
}

/* A reload that raises the rate, or lowers the burst, applies at the next take. */
static void test_changed_rate(void)
{
    struct ratelimit *rl = test_table(16);
    long wait;

    if (!CHECK(rl != NULL))
        return;
    CHECK_INT_EQ(test_take(rl, "a", 1, 1, &wait), STATUS_OK);
    CHECK_INT_EQ(test_take(rl, "a", 1, 1, &wait), STATUS_LIMIT);
    CHECK_INT_EQ(wait, 1000);
    test_advance_ms(100);
    CHECK_INT_EQ(test_take(rl, "a", 100, 5, &wait), STATUS_OK);
    test_advance_ms(1000);
    CHECK_INT_EQ(test_take(rl, "a", 100, 2, &wait), STATUS_OK);
    CHECK_INT_EQ(test_take(rl, "a", 100, 2, &wait), STATUS_OK);
    CHECK_INT_EQ(test_take(rl, "a", 100, 2, &wait), STATUS_LIMIT);
    CHECK_INT_EQ(wait, 10);
    ratelimit_free(rl);
}

/* The table holds cap buckets; the least recently used goes, and comes back full. */
static void test_eviction(void)
{
    struct ratelimit *rl = test_table(4);
    char who[16];
    long wait;

    if (!CHECK(rl != NULL))
        return;
    CHECK_INT_EQ(test_take(rl, "first", 1, 1, &wait), STATUS_OK);
    CHECK_INT_EQ(test_take(rl, "first", 1, 1, &wait), STATUS_LIMIT);
    for (int i = 0; i < 100; i++) {
        snprintf(who, sizeof(who), "p%d", i);
        CHECK_INT_EQ(test_take(rl, who, 1, 1, &wait), STATUS_OK);
        CHECK(ratelimit_count(rl) <= 4);
    }
    CHECK_INT_EQ(ratelimit_count(rl), 4);
    /* "first" went: lenient, its bucket is full again. */
    CHECK_INT_EQ(test_take(rl, "first", 1, 1, &wait), STATUS_OK);
    /* The most recent ones stayed: p99 is still empty. */
    CHECK_INT_EQ(test_take(rl, "p99", 1, 1, &wait), STATUS_LIMIT);
    ratelimit_free(rl);
}

/* More asks in one take than the table holds: the extra buckets are not made (they admit),
 * and the ones this take uses are not evicted under it. */
static void test_take_wider_than_table(void)
{
    struct ratelimit *rl = test_table(2);
    struct ratelimit_ask asks[3] = {
        {.kind = RATELIMIT_TOOL, .section = "a", .who = "", .rate = 1, .burst = 1},
        {.kind = RATELIMIT_TOOL, .section = "b", .who = "", .rate = 1, .burst = 1},
        {.kind = RATELIMIT_TOOL, .section = "c", .who = "", .rate = 1, .burst = 1},
    };
    long wait;

    if (!CHECK(rl != NULL))
        return;
    CHECK_INT_EQ(ratelimit_take(rl, asks, 3, &wait), STATUS_OK);
    CHECK_INT_EQ(ratelimit_count(rl), 2);
    CHECK_INT_EQ(ratelimit_take(rl, asks, 3, &wait), STATUS_LIMIT);
    ratelimit_free(rl);
}

/* A bucket's refusals are logged once per period, with how many there were. */
static void test_log_once(void)
{
    struct ratelimit *rl = test_table(16);
    struct ratelimit_ask a = {
        .kind = RATELIMIT_REQUESTS, .section = "", .who = "a", .rate = 1, .burst = 1};
    int lines = 0;
    long wait;

    if (!CHECK(rl != NULL))
        return;
    CHECK_INT_EQ(ratelimit_take(rl, &a, 1, &wait), STATUS_OK);
    for (int i = 0; i < 50; i++) {
        CHECK_INT_EQ(ratelimit_take(rl, &a, 1, &wait), STATUS_LIMIT);
        lines += a.log;
    }
    CHECK_INT_EQ(lines, 1);
    test_advance_ms(5000);
    /* The bucket refilled: one goes through, then the next refusal is logged with the 49 that
     * were not, plus itself. */
    CHECK_INT_EQ(ratelimit_take(rl, &a, 1, &wait), STATUS_OK);
    CHECK_INT_EQ(ratelimit_take(rl, &a, 1, &wait), STATUS_LIMIT);
    CHECK_INT_EQ(a.log, 1);
    CHECK_INT_EQ((long)a.refused, 50);
    ratelimit_free(rl);
}

/* [limit.NAME] sections: those whose tools keep the name count it, each per principal or for
 * the server, and their burst defaults to the rate's N. */
static void test_tool_sections(void)
{
    struct ratelimit *rl = test_table(64);
    struct config_limit limits[2] = {
        {.id = (char *)"search", .tools = (char *)"search_*", .rate = {2, 2}, .per_principal = 1},
        {.id = (char *)"all", .tools = NULL, .rate = {3.0 / 60, 3}, .per_principal = 0},
    };
    struct config cfg;
    struct log lg;
    char msg[256];
    long wait;
    int ok = 0;

    if (!CHECK(rl != NULL))
        return;
    memset(&cfg, 0, sizeof(cfg));
    cfg.limits = limits;
    cfg.nlimits = 2;
    log_init(&lg);
    atomic_store(&lg.level, LOG_OFF);
    /* "all" is per server with a burst of 3: three calls in all, whoever makes them. */
    CHECK_INT_EQ(
        ratelimit_tool(rl, &cfg, &lg, "search_web", "token:0", "token 1", &wait, msg, sizeof(msg)),
        STATUS_OK);
    CHECK_INT_EQ(
        ratelimit_tool(rl, &cfg, &lg, "search_web", "token:1", "token 2", &wait, msg, sizeof(msg)),
        STATUS_OK);
    CHECK_INT_EQ(ratelimit_tool(rl, &cfg, &lg, "echo", NULL, NULL, &wait, msg, sizeof(msg)),
                 STATUS_OK);
    CHECK_INT_EQ(ratelimit_tool(rl, &cfg, &lg, "echo", NULL, NULL, &wait, msg, sizeof(msg)),
                 STATUS_LIMIT);
    CHECK_INT_EQ(wait, 20000);
    CHECK(strncmp(msg, "Rate limit exceeded: [limit.all]", 32) == 0);
    /* Without "all", search_* is 2 per principal: two more for token:0, then refused. */
    cfg.nlimits = 1;
    for (int i = 0; i < 4; i++)
        ok += ratelimit_tool(rl, &cfg, &lg, "search_web", "token:0", "token 1", &wait, msg,
                             sizeof(msg)) == STATUS_OK;
    CHECK_INT_EQ(ok, 1);
    CHECK(strstr(msg, "[limit.search]") != NULL && strstr(msg, "per principal") != NULL);
    CHECK_INT_EQ(ratelimit_tool(rl, &cfg, &lg, "echo", "token:0", NULL, &wait, msg, sizeof(msg)),
                 STATUS_OK);
    ratelimit_free(rl);
}

static void test_burst_default(void)
{
    struct config_rate per_min = {1, 60}, per_s = {5, 5};

    CHECK_INT_EQ(ratelimit_burst(&per_min, 0), 60);
    CHECK_INT_EQ(ratelimit_burst(&per_s, 0), 5);
    CHECK_INT_EQ(ratelimit_burst(&per_s, 2), 2);
}

/* Threads sharing buckets (the HTTP thread and pool threads): on a stopped clock, a bucket of
 * 100 gives exactly 100 tokens however many threads ask, and the table stays within its cap. */
struct test_hammer {
    struct ratelimit *rl;
    int index;
    atomic_int granted;
};

static void *test_hammer_run(void *arg)
{
    struct test_hammer *hm = arg;
    char who[16];
    long wait;

    for (int i = 0; i < 2000; i++) {
        if (test_take(hm->rl, "shared", 1, 100, &wait) == STATUS_OK)
            atomic_fetch_add(&hm->granted, 1);
        snprintf(who, sizeof(who), "t%d-%d", hm->index, i % 50);
        (void)test_take(hm->rl, who, 1, 1, &wait);
    }
    return NULL;
}

static void test_threads(void)
{
    struct test_hammer hm[4];
    pthread_t th[4];
    struct ratelimit *rl = test_table(64);
    int granted = 0;

    if (!CHECK(rl != NULL))
        return;
    for (int i = 0; i < 4; i++) {
        hm[i] = (struct test_hammer){.rl = rl, .index = i};
        atomic_init(&hm[i].granted, 0);
        CHECK_INT_EQ(pthread_create(&th[i], NULL, test_hammer_run, &hm[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        granted += atomic_load(&hm[i].granted);
    }
    CHECK_INT_EQ(granted, 100);
    CHECK(ratelimit_count(rl) <= 64);
    ratelimit_free(rl);
}

/* No table: everything passes (a server that could not make one still serves). */
static void test_no_table(void)
{
    long wait = 7;

    CHECK_INT_EQ(test_take(NULL, "a", 1, 1, &wait), STATUS_OK);
    CHECK_INT_EQ(wait, 0);
    ratelimit_free(NULL);
}

static const struct check_test tests[] = {
    {"burst_then_refill", test_burst_then_refill},
    {"rounding", test_rounding},
    {"all_or_nothing", test_all_or_nothing},
    {"changed_rate", test_changed_rate},
    {"eviction", test_eviction},
    {"take_wider_than_table", test_take_wider_than_table},
    {"log_once", test_log_once},
    {"tool_sections", test_tool_sections},
    {"burst_default", test_burst_default},
    {"threads", test_threads},
    {"no_table", test_no_table},
    {0},
};

int main(void)
{
    return check_main("test_ratelimit", tests);
}
