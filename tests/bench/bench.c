/*
 * bench.c: the mcph plugin of `make bench`. Built three ways by tests/bench/run.sh:
 *
 *   bench.so                    two tools, echo {text} and spin {us}: the plugin of the
 *                               SIGHUP workspaces and of bench-spin.ini
 *   bench-a.so, bench-b.so      -DBENCH_VARIANT=1 or 2: the same two tools, echo with another
 *                               description, renamed over a served copy so that a SIGHUP
 *                               reload changes the tool list
 *   bench-list.so               -DBENCH_LIST: the 1,000 tools t0000..t0999 of tools.h and
 *                               nothing else, for tools/list with page_size = 1000
 *
 * echo and the t0000..t0999 tools echo their text argument; spin keeps its thread's CPU busy
 * (it reads CLOCK_MONOTONIC in a loop, it does not sleep) for `us` microseconds and returns
 * "spun US". No state, so the plugin is thread-safe.
 */
#include "plugin-api.h"
#include "tools.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#ifndef BENCH_VARIANT
#define BENCH_VARIANT 0
#endif

#if BENCH_VARIANT == 1
#define BENCH_ECHO_DESCRIPTION "Returns the text it is given (variant a)."
#elif BENCH_VARIANT == 2
#define BENCH_ECHO_DESCRIPTION "Returns the text it is given (variant b)."
#else
#define BENCH_ECHO_DESCRIPTION "Returns the text it is given."
#endif

/* A missing or non-string text is the model's mistake: a tool error it can read. */
static int bench_echo(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *text;

    (void)state;
    if (host->arg_string(call, "text", &text) != MCPH_OK)
        return host->tool_error(call, "text: expected a string");
    return host->text(call, text);
}

#ifndef BENCH_LIST
/* The most spin takes, as its schema says. */
#define BENCH_SPIN_MAX_US 100000

/* Nanoseconds from a to b. */
static int64_t bench_ns(const struct timespec *a, const struct timespec *b)
{
    return (int64_t)(b->tv_sec - a->tv_sec) * 1000000000 + (int64_t)(b->tv_nsec - a->tv_nsec);
}

/* The CPU kept busy for us microseconds: the clock read until they have passed. Bounded in
 * time, and in count (a clock read takes more than a nanosecond), and stops if the clock
 * fails. The bare loop of bare.c does the same. */
static void bench_busy(int64_t us)
{
    struct timespec t0, now;
    int64_t ns = us * 1000;

    if (clock_gettime(CLOCK_MONOTONIC, &t0) != 0)
        return;
    for (int64_t reads = 0; reads < ns; reads++) {
        if (clock_gettime(CLOCK_MONOTONIC, &now) != 0 || bench_ns(&t0, &now) >= ns)
            return;
    }
}

/* A missing, non-integer or out-of-range us is the model's mistake: a tool error. */
static int bench_spin(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    char text[32];
    int64_t us;

    (void)state;
    if (host->arg_integer(call, "us", &us) != MCPH_OK || us < 1 || us > BENCH_SPIN_MAX_US)
        return host->tool_error(call, "us: expected an integer from 1 to %d", BENCH_SPIN_MAX_US);
    bench_busy(us);
    snprintf(text, sizeof(text), "spun %lld", (long long)us);
    return host->text(call, text);
}
#endif

#define BENCH_TOOL_ROW(n)                                                                          \
    {                                                                                              \
        .name = BENCH_TOOL_NAME(n),                                                                \
        .title = BENCH_TOOL_TITLE(n),                                                              \
        .description = BENCH_TOOL_DESCRIPTION(n),                                                  \
        .input_schema = BENCH_TOOL_SCHEMA,                                                         \
        .call = bench_echo,                                                                        \
    },

#ifdef BENCH_LIST
static const struct mcph_tool bench_tools[] = {BENCH_TOOLS(BENCH_TOOL_ROW){0}};
#else
static const struct mcph_tool bench_tools[] = {
    {
        .name = "echo",
        .title = "Echo",
        .description = BENCH_ECHO_DESCRIPTION,
        .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","
                        "\"description\":\"The text to send back\"}},"
                        "\"required\":[\"text\"],\"additionalProperties\":false}",
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = bench_echo,
    },
    {
        .name = "spin",
        .title = "Spin",
        .description = "Keeps a CPU busy for us microseconds, then says so.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"us\":{\"type\":\"integer\","
                        "\"minimum\":1,\"maximum\":100000}},"
                        "\"required\":[\"us\"],\"additionalProperties\":false}",
        .read_only_hint = MCPH_HINT_TRUE,
        .idempotent_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = bench_spin,
    },
    {0},
};
#endif

static const struct mcph_plugin bench_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "bench",
    .version = "1.0.0",
    .description = "The tools of make bench",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = bench_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &bench_plugin;
}
