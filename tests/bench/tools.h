/*
 * tools.h: the 1,000 tool definitions of the tools/list benchmark, shared by the bench plugin
 * (bench.c built with -DBENCH_LIST) and the bare cJSON loop (bare.c), and mirrored by
 * sdk-echo.mjs --list. Tool NNNN (0000 to 0999) is named tNNNN, titled "Tool NNNN", and takes
 * {text: string}, which it echoes.
 *
 * BENCH_TOOLS(X) expands X(NNNN) once per tool, in order. NNNN is a preprocessing number used
 * only through # (0999 is never read as an integer).
 */
#ifndef BENCH_TOOLS_H
#define BENCH_TOOLS_H

/* The same schema the SDK server derives from {text: z.string().describe(...)}, without the
 * "$schema" member it adds. */
#define BENCH_TOOL_SCHEMA                                                                          \
    "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\","                          \
    "\"description\":\"The text to send back\"}},\"required\":[\"text\"]}"
#define BENCH_TOOL_NAME(n) "t" #n
#define BENCH_TOOL_TITLE(n) "Tool " #n
#define BENCH_TOOL_DESCRIPTION(n) "Bench tool " #n ": returns the text it is given."

/* Number of tools BENCH_TOOLS() expands to. */
#define BENCH_TOOL_COUNT 1000

/* One row of ten per line reads better than any reflow. */
/* clang-format off */
#define BENCH_TOOLS_1(X, p)                                                                        \
    X(p##0) X(p##1) X(p##2) X(p##3) X(p##4) X(p##5) X(p##6) X(p##7) X(p##8) X(p##9)
#define BENCH_TOOLS_10(X, p)                                                                       \
    BENCH_TOOLS_1(X, p##0) BENCH_TOOLS_1(X, p##1) BENCH_TOOLS_1(X, p##2)                           \
    BENCH_TOOLS_1(X, p##3) BENCH_TOOLS_1(X, p##4) BENCH_TOOLS_1(X, p##5)                           \
    BENCH_TOOLS_1(X, p##6) BENCH_TOOLS_1(X, p##7) BENCH_TOOLS_1(X, p##8)                           \
    BENCH_TOOLS_1(X, p##9)
#define BENCH_TOOLS_100(X, p)                                                                      \
    BENCH_TOOLS_10(X, p##0) BENCH_TOOLS_10(X, p##1) BENCH_TOOLS_10(X, p##2)                        \
    BENCH_TOOLS_10(X, p##3) BENCH_TOOLS_10(X, p##4) BENCH_TOOLS_10(X, p##5)                        \
    BENCH_TOOLS_10(X, p##6) BENCH_TOOLS_10(X, p##7) BENCH_TOOLS_10(X, p##8)                        \
    BENCH_TOOLS_10(X, p##9)
#define BENCH_TOOLS(X) BENCH_TOOLS_100(X, 0)
/* clang-format on */

#endif
