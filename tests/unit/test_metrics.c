/*
 * test_metrics.c: the counters of served/metrics.c and their Prometheus text: outcomes and
 * methods counted where they belong, histogram buckets cumulative with _count equal to +Inf,
 * refusals by status, reloads, label values escaped, the series bound (calls past it in the
 * "(other)" series), and readiness with nothing served.
 */
#include "served/metrics.h"

#include "check.h"
#include "host/result.h"
#include "lib/limits.h"

#include <stdio.h>
#include <stdlib.h>

/* A scrape of m by a server with nothing loaded. Owned text. */
static char *test_scrape(struct metrics *m)
{
    struct server srv;
    struct strbuf sb = STRBUF_INIT;

    server_init(&srv);
    metrics_write(m, &srv, &sb);
    server_release(&srv);
    return strbuf_detach(&sb, NULL);
}

static void test_call(struct metrics *m, const char *plugin, int kind, const char *name,
                      int outcome)
{
    struct metrics_call mc = {0};

    metrics_call_begin(m, &mc, plugin, kind, name);
    mc.outcome = outcome;
    metrics_call_end(m, &mc);
}

static void test_outcomes(void)
{
    struct metrics *m = metrics_new();
    char *text;

    if (!CHECK(m != NULL))
        return;
    test_call(m, "ex", RESULT_TOOL, "echo", METRICS_OK);
    test_call(m, "ex", RESULT_TOOL, "echo", METRICS_OK);
    test_call(m, "ex", RESULT_TOOL, "fail", METRICS_TOOL_ERROR);
    test_call(m, "ex", RESULT_RESOURCE, "ex://a", METRICS_ERROR);
    test_call(m, "ex", RESULT_PROMPT, "p", metrics_outcome_of(MCPH_ERR_TIMEOUT));
    test_call(m, "ex", RESULT_COMPLETE, NULL, metrics_outcome_of(MCPH_ERR_CANCELLED));
    text = test_scrape(m);
    CHECK_STR_HAS(text, "mcph_calls_total{plugin=\"ex\",tool=\"echo\",outcome=\"ok\"} 2\n");
    CHECK_STR_HAS(text, "mcph_calls_total{plugin=\"ex\",tool=\"fail\",outcome=\"tool_error\"} 1\n");
    CHECK_STR_HAS(
        text, "mcph_plugin_calls_total{plugin=\"ex\",method=\"tools/call\",outcome=\"ok\"} 2\n");
    CHECK_STR_HAS(
        text,
        "mcph_plugin_calls_total{plugin=\"ex\",method=\"resources/read\",outcome=\"error\"} 1\n");
    CHECK_STR_HAS(
        text,
        "mcph_plugin_calls_total{plugin=\"ex\",method=\"prompts/get\",outcome=\"timeout\"} 1\n");
    CHECK_STR_HAS(text, "mcph_plugin_calls_total{plugin=\"ex\",method=\"completion/complete\","
                        "outcome=\"cancelled\"} 1\n");
    /* Only tools/call has tool series: a read's URI is not a tool. */
    CHECK(strstr(text, "tool=\"ex://a\"") == NULL);
    CHECK_STR_HAS(text,
                  "mcph_call_duration_seconds_bucket{plugin=\"ex\",tool=\"echo\",le=\"+Inf\"} "
                  "2\n");
    CHECK_STR_HAS(text, "mcph_call_duration_seconds_count{plugin=\"ex\",tool=\"echo\"} 2\n");
    CHECK_STR_HAS(text, "mcph_plugin_call_duration_seconds_count{plugin=\"ex\"} 6\n");
    CHECK_STR_HAS(text, "mcph_requests_in_flight 0\n");
    CHECK_STR_HAS(text, "# TYPE mcph_call_duration_seconds histogram\n");
    free(text);
    metrics_free(m);
}

static void test_in_flight(void)
{
    struct metrics *m = metrics_new();
    struct metrics_call mc = {0};
    char *text;

    if (!CHECK(m != NULL))
        return;
    metrics_call_begin(m, &mc, "ex", RESULT_TOOL, "slow");
    text = test_scrape(m);
    CHECK_STR_HAS(text, "mcph_requests_in_flight 1\n");
    free(text);
    /* Never ended: a job dropped unrun counts as cancelled. */
    metrics_call_end(m, &mc);
    metrics_call_end(m, &mc); /* a second end counts nothing */
    text = test_scrape(m);
    CHECK_STR_HAS(text, "mcph_requests_in_flight 0\n");
    CHECK_STR_HAS(text, "tool=\"slow\",outcome=\"cancelled\"} 1\n");
    free(text);
    metrics_free(m);
}

static void test_refusals_reloads(void)
{
    struct metrics *m = metrics_new();
    char *text;

    if (!CHECK(m != NULL))
        return;
    metrics_reject(m, 401);
    metrics_reject(m, 401);
    metrics_reject(m, 429);
    metrics_reject(m, 418);
    metrics_reject(m, 200); /* not a refusal */
    metrics_reload(m, 1);
    metrics_reload(m, 0);
    metrics_reload(m, 0);
    text = test_scrape(m);
    CHECK_STR_HAS(text, "mcph_http_rejected_total{reason=\"unauthorized\"} 2\n");
    CHECK_STR_HAS(text, "mcph_http_rejected_total{reason=\"rate_limited\"} 1\n");
    CHECK_STR_HAS(text, "mcph_http_rejected_total{reason=\"other\"} 1\n");
    CHECK_STR_HAS(text, "mcph_reloads_total{result=\"ok\"} 1\n");
    CHECK_STR_HAS(text, "mcph_reloads_total{result=\"failed\"} 2\n");
    free(text);
    metrics_free(m);
    /* Metrics off: every hook takes NULL. */
    metrics_reject(NULL, 500);
    metrics_reload(NULL, 1);
    metrics_call_end(NULL, &(struct metrics_call){0});
}

static void test_label_escape(void)
{
    struct strbuf sb = STRBUF_INIT;

    metrics_label(&sb, "a\"b\\c\nd");
    CHECK_STR_EQ(sb.buf, "a\\\"b\\\\c\\nd");
    strbuf_release(&sb);
}

/* Past LIMIT_METRICS_SERIES tools, calls go to the "(other)" series. */
static void test_bound(void)
{
    struct metrics *m = metrics_new();
    char name[32], *text;

    if (!CHECK(m != NULL))
        return;
    for (int i = 0; i < LIMIT_METRICS_SERIES + 3; i++) {
        snprintf(name, sizeof(name), "t%d", i);
        test_call(m, "ex", RESULT_TOOL, name, METRICS_OK);
    }
    text = test_scrape(m);
    CHECK_STR_HAS(text, "mcph_calls_total{plugin=\"ex\",tool=\"t0\",outcome=\"ok\"} 1\n");
    CHECK_STR_HAS(text, "mcph_calls_total{plugin=\"(other)\",tool=\"(other)\",outcome=\"ok\"} 3\n");
    snprintf(name, sizeof(name), "tool=\"t%d\"", LIMIT_METRICS_SERIES);
    CHECK(strstr(text, name) == NULL);
    free(text);
    metrics_free(m);
}

static void test_ready_empty(void)
{
    struct server srv;
    const char *why = NULL;

    server_init(&srv);
    CHECK_INT_EQ(metrics_ready(&srv, &why), 0);
    CHECK(why != NULL && strstr(why, "no plugin serves") != NULL);
    server_release(&srv);
}

static const struct check_test tests[] = {
    {"outcomes", test_outcomes},
    {"in_flight", test_in_flight},
    {"refusals_reloads", test_refusals_reloads},
    {"label_escape", test_label_escape},
    {"bound", test_bound},
    {"ready_empty", test_ready_empty},
    {0},
};

int main(void)
{
    return check_main("test_metrics", tests);
}
