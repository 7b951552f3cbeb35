/*
 * bench.c: the mcph plugin of `make bench`. Built three ways by tests/bench/run.sh:
 *
 *   bench.so                    one tool, echo {text}: the plugin of the SIGHUP workspaces
 *   bench-a.so, bench-b.so      -DBENCH_VARIANT=1 or 2: the same echo with another
 *                               description, renamed over a served copy so that a SIGHUP
 *                               reload changes the tool list
 *   bench-list.so               -DBENCH_LIST: the 1,000 tools t0000..t0999 of tools.h and
 *                               nothing else, for tools/list with page_size = 1000
 *
 * Every tool echoes its text argument. No state, so the plugin is thread-safe.
 */
#include "plugin-api.h"
#include "tools.h"

#include <stddef.h>

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
    {0},
};
#endif

static const struct mcph_plugin bench_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "bench",
    .version = "1.0.0",
    .description = "Echo tools for make bench",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = bench_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &bench_plugin;
}
