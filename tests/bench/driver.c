/*
 * driver.c: the `make bench` driver. Spawns stdio MCP servers (mcph, the bare cJSON loop and
 * the official TypeScript SDK server), measures each the same way through pipes, and prints
 * one table: a row per figure, a column per server, the ratios to the floor (bare) and to
 * the SDK server, then the verdict on each of mcph's targets.
 *
 * usage: driver [--quick] [--only mcph,bare,sdk] --mcph BIN --conf INI --list-conf INI
 *               --spin-conf INI --dir DIR --sdk SCRIPT [--node NODE] [--valgrind VALGRIND]
 *               [--gw-everything SCRIPT --gw-everything-conf INI --gw-mcph-conf INI]
 *               [--gw-http-hop SCRIPT] [--gw-relay RELAY]
 *               [--gw-isolate-conf INI [--gw-confine-conf INI]]
 *               [--audit-conf INI --audit-off-conf INI]
 *   --mcph       the mcph binary (build/mcph)
 *   --conf       the default deployment (conf/mcph.ini; its example plugin has echo {text})
 *   --list-conf  the INI serving the 1,000 bench tools on one page (tests/bench/bench-list.ini)
 *   --spin-conf  the INI serving bench.so, whose spin {us} is CPU-bound, with 4 workers
 *                (tests/bench/bench-spin.ini)
 *   --dir        build/tests/bench: bare, bench.so, bench-a.so, bench-b.so; the driver writes
 *                the SIGHUP workspaces, the servers' stderr (logs/) and callgrind/ there
 *   --sdk        tests/bench/sdk-echo.mjs, run with NODE (default node)
 *   --valgrind   valgrind, for the instruction counts; without it they are left out
 *   --quick      fewer repetitions, for a run under a minute (also QUICK=1 in the environment)
 *   --gw-everything       server-everything's stdio entry (dist/index.js), run with NODE
 *   --gw-everything-conf  mcph serving it through the mcp plugin, prefix ev
 *                         (tests/bench/bench-gateway-everything.ini)
 *   --gw-mcph-conf        mcph serving the default deployment's mcph through the mcp plugin,
 *                         prefix m (tests/bench/bench-gateway-mcph.ini); without the three,
 *                         the gateway rows are left out
 *   --gw-isolate-conf     mcph serving the example plugin with isolate = process
 *                         (tests/bench/bench-isolate.ini): the isolation rows, against the
 *                         default deployment, where it runs in process
 *   --gw-http-hop         tests/bench/http-hop.sh: a third chain of the mcph gateway rows, the
 *                         same mcph reached over HTTP through a url section (the hop rows)
 *   --gw-relay            build/tests/bench/relay (relay.c): one more chain, relay -- mcph INI
 *                         (--conf), the floor of the isolation and hop rows (their "bare
 *                         relay" column)
 *   --gw-confine-conf     the same section confined (tests/bench/bench-confine.ini): a third
 *                         column of the isolation rows, and the start-up of both
 *   --audit-conf          the example plugin alone with [server] audit on
 *                         (tests/bench/bench-audit.ini), and --audit-off-conf the same
 *                         without it (bench-audit-off.ini): the audit rows
 *
 * How each figure is taken (the same way for every server):
 * - Server CPU time: clock_getcpuclockid() of the server's pid, the counter behind utime +
 *   stime in /proc/PID/stat (every thread, user and system, garbage collection included) at
 *   nanosecond resolution, over a whole series of calls.
 * - Sequential calls run in rounds, interleaved (mcph, bare, sdk, mcph, ...), each round a
 *   fresh server; every figure of those rows is the median of its rounds. A noisy spell on a
 *   shared machine then hits every server alike instead of one.
 * - Context switches: voluntary + involuntary of every thread (/proc/PID/task/x/status), over
 *   the sequential series and over the 64-in-flight pipelined series.
 * - System calls: a perf_event_open() counter on the tracepoint raw_syscalls:sys_enter, opened
 *   for the server's pid between fork() and exec() (the child waits on a pipe until it is
 *   open; the counter is enabled by the exec) with inherit set, so that it counts every thread
 *   the server creates; read() gives the sum over them. Read at the start and the end of a
 *   series, divided by its calls. A counted task takes the slow system call path (about 0.2 us
 *   a call here), so the counted series run on servers of their own, after the others: a
 *   fresh server, the warm-up, one unpinned sequential series of the same length as the other
 *   rounds, then the same number of pipelined calls with 64 in flight as the 1024 series.
 *   Without tracefs or perf_event_open() (ENOENT, EACCES, EINVAL, ...) those rows print "-"
 *   and the driver says why, once.
 * - Ping under load (mcph, and bare as the floor): a fresh server; mcph first gets 8
 *   tools/call of the example plugin's count {to: 20, delay_ms: 250} (5 s each; four fill
 *   the plugin's share, [server] workers = 4, and four wait), then, 100 ms later, 1,000
 *   sequential pings are timed (p50, p99), within 4.5 s of the slow calls; then the slow
 *   calls are cancelled
 *   (notifications/cancelled) and the server is finished as elsewhere (stdin closed, a bounded
 *   wait, killed and logged past it). The bare loop has no slow tool: its pings are the floor.
 * - CPU-bound tool (mcph and bare; not the SDK server): a fresh server with the spin tool
 *   (mcph: --spin-conf, the thread-safe bench.so with 4 workers; bare: the same busy loop on
 *   its one thread). spin {us: 100} reads CLOCK_MONOTONIC in a loop for 100 us: CPU work, not
 *   a sleep. 200 untimed calls with 64 in flight, then the timed series of spin_calls with 64
 *   in flight (the first reply checked in full, every reply checked to be a result and not an
 *   error): calls per second, and the server's CPU time over the series divided by the calls,
 *   as for the echo series. mcph can run the calls on both cores at once, the bare loop
 *   cannot; the driver (the client) shares those cores.
 * - RSS: VmRSS and VmHWM of /proc/PID/status. RSS growth compares the least of the 5 samples
 *   of the last quarter of the pipelined calls with the least of the second quarter: a leak
 *   raises that floor, a transient (calls in flight, heap not yet trimmed) does not.
 * - Flood: a fresh server, then n->flood_calls echoes of 64 KiB written as fast as the pipe
 *   takes them, none waiting for a reply, the replies read all along; each call must be
 *   answered once, by its echo or (mcph's [server] max_pending_mb) by error -32000, which is
 *   counted apart. Then VmHWM: the peak RSS of the flood (the server's whole life).
 * - Instructions: two callgrind runs with different numbers of sequential calls; the
 *   difference divided by the difference in calls, so start-up and exit cancel out.
 * - Pinned ("same CPU"): the driver sets its own affinity to one CPU before fork(), so the
 *   server and all its threads inherit it.
 * - Gateway (mcph's mcp plugin in front of another server): sequential echo calls, unpinned,
 *   to server-everything direct and through mcph (its echo {message}), and to mcph (the
 *   default deployment, the example plugin's echo {text}) direct and through a second mcph;
 *   n->rounds rounds, the four interleaved, each a fresh process chain, n->warmup untimed
 *   calls then n->gw_calls timed; medians of the rounds. CPU is that of every process of
 *   the chain (the relaying mcph, the keeper it forked and the server under it: every
 *   process under the one the driver started, found in /proc/PID/task/x/children after the
 *   warm-up). The overhead column is "via mcph" minus "direct".
 * - Isolation and confinement: the same series, in the same rounds, for the example plugin in
 *   mcph's process (the default deployment), with isolate = process, and with isolate =
 *   process and confinement; CPU is the whole tree's as above. Start-up of the isolated and
 *   of the confined section: fork/exec of mcph to its initialize reply, which comes once the
 *   child has started and listed its rows (mcph loads every plugin before it reads a
 *   request), median of n->starts after one untimed start, as the start-up row.
 * - Bare relay: the same series, in the same rounds, for the default deployment's mcph
 *   behind relay.c (a process that starts it and copies bytes between its own stdio and the
 *   child's, a thread a direction, blocking read and write); CPU of the relay and of mcph
 *   (and its children). Its overhead over mcph direct is what one more process and pipe pair
 *   cost a call: the floor next to isolate = process and the stdio hop, whose targets are at
 *   most 20 us more CPU and 25 us more p50 than the chain without the hop.
 *
 * Every loop is bounded in count and in time: a server that stops answering costs a phase
 * deadline, its figures print as "-", and the run goes on.
 */
#include <cjson/cJSON.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "measure.h"

/* ---------------------------------------------------------------------------------------
 * Status codes, names, limits.
 * --------------------------------------------------------------------------------------- */

#define BENCH_STATUS_LIST(X)                                                                       \
    X(BENCH_OK, 0, "ok")                                                                           \
    X(BENCH_ERR_IO, -1, "I/O error")                                                               \
    X(BENCH_ERR_TIMEOUT, -2, "timed out")                                                          \
    X(BENCH_ERR_EOF, -3, "the server closed its stdout")                                           \
    X(BENCH_ERR_REPLY, -4, "unexpected reply")                                                     \
    X(BENCH_ERR_NOMEM, -5, "out of memory")                                                        \
    X(BENCH_ERR_SPAWN, -6, "cannot start the server")                                              \
    X(BENCH_ERR_USAGE, -7, "wrong arguments")

enum bench_status {
#define BENCH_STATUS_ENUM(name, code, text) name = code,
    BENCH_STATUS_LIST(BENCH_STATUS_ENUM)
#undef BENCH_STATUS_ENUM
};

static const char *bench_status_str(int status)
{
    switch (status) {
#define BENCH_STATUS_CASE(name, code, text)                                                        \
    case name:                                                                                     \
        return text;
        BENCH_STATUS_LIST(BENCH_STATUS_CASE)
#undef BENCH_STATUS_CASE
    }
    return "unknown status";
}

/* The echo text of every small call: no character that JSON escapes. */
#define BENCH_TEXT "The quick brown fox jumps over the lazy dog"
/* The text of the large echo. */
#define BENCH_BIG_BYTES (1024u * 1024u)
/* The text of each call of the flood. */
#define BENCH_FLOOD_BYTES (64u * 1024u)
/* The most mcph's peak RSS under the flood may exceed bare's, in MiB: what [server]
 * max_pending_mb holds by default (64: requests in flight and unread replies), plus one
 * message at the 16 MiB limit (the reader's buffer, which the cap does not count). */
#define BENCH_FLOOD_OVER_MIB (64.0 + 16.0)
/* Reads from a server's stdout, and the least room kept free for one. */
#define BENCH_READ_CHUNK 65536u
#define BENCH_MAX_ARGV 16
#define BENCH_MAX_STARTS 64
#define BENCH_MAX_RELOADS 64
#define BENCH_PATH 4096
/* Tools the tools/list servers must list. */
#define BENCH_LIST_TOOLS 1000
/* Seconds a server gets to start and answer initialize (valgrind included), and to exit. */
#define BENCH_START_S 60.0
#define BENCH_EXIT_S 30.0
/* Rounds of the sequential series, at most. */
#define BENCH_MAX_ROUNDS 9
/* RSS floor growth allowed from the 2nd to the 4th quarter of the calls: two pages. */
#define BENCH_GROWTH_KIB 8.0
/* Ping under load: slow calls sent first (twice mcph's 4 workers), the time before the pings,
 * and how long after the slow calls the pings must be done (each slow call runs 5 s). */
#define BENCH_SLOW_CALLS 8
#define BENCH_SLOW_CALL                                                                            \
    "\"method\":\"tools/call\",\"params\":{\"name\":\"count\",\"arguments\":{\"to\":20,"           \
    "\"delay_ms\":250}}"
#define BENCH_SLOW_SETTLE_S 0.1
#define BENCH_SLOW_WINDOW_S 4.5
/* Seconds mcph gets to exit once its slow calls are cancelled; then it is killed (logged). */
#define BENCH_SLOW_EXIT_S 2.0
/* The CPU-bound tool: microseconds of each spin call (JSON text), and the untimed calls
 * before its timed series. */
#define BENCH_SPIN_US "100"
#define BENCH_SPIN_WARMUP 200
/* Where the id of tracepoint raw_syscalls:sys_enter is (tracefs, or debugfs before it). */
#define BENCH_SYS_ENTER_ID "/events/raw_syscalls/sys_enter/id"

enum bench_server { SRV_MCPH, SRV_BARE, SRV_SDK, SRV_COUNT };

static const char *const bench_server_names[SRV_COUNT] = {"mcph", "bare", "sdk"};

/* How many of everything: full run and --quick. Each phase also has a time budget. */
struct bench_counts {
    int starts;      /* spawns timed for start-up and exit (plus one untimed) */
    int warmup;      /* echo calls before a timed sequential series */
    int seq_calls;   /* timed sequential echo calls, pinned and unpinned, per round */
    int rounds;      /* rounds of those (each a fresh server), interleaved */
    int rss_calls;   /* pipelined echo calls (64 in flight) before RSS is read */
    int deep_calls;  /* pipelined echo calls with 1024 in flight; also with 64, counted */
    int big_calls;   /* 1 MiB echoes */
    int flood_calls; /* 64 KiB echoes written at once, without waiting for replies */
    int spin_calls;  /* timed pipelined spin calls (64 in flight), after BENCH_SPIN_WARMUP */
    int list_calls;  /* timed tools/list calls */
    int pings;       /* timed pings while mcph's workers run slow calls */
    int reloads;     /* SIGHUP reloads timed, per workspace */
    int gw_calls;    /* timed sequential echo calls of each gateway series, per round */
    int cg_echo[2];  /* echo calls of the two callgrind runs */
    /* tools/list calls of the two callgrind runs, per server: bare's first ~25 lists carry
     * one-off heap work (malloc_consolidate after the list is built) worth 50 of its lists,
     * so both of its runs start past them; mcph's cost is linear from the first list. */
    int cg_list[SRV_COUNT][2];
    double budget_s;     /* time budget of one phase of one server */
    const char *caption; /* "full" or "QUICK" */
};

static const struct bench_counts bench_full = {
    .starts = 20,
    .warmup = 1000,
    .seq_calls = 20000,
    .rounds = 3,
    .rss_calls = 200000,
    .deep_calls = 100000,
    .big_calls = 50,
    .flood_calls = 2000,
    .spin_calls = 20000,
    .list_calls = 300,
    .pings = 1000,
    .reloads = 20,
    .gw_calls = 5000,
    .cg_echo = {1000, 3000},
    .cg_list = {[SRV_MCPH] = {5, 25}, [SRV_BARE] = {50, 250}},
    .budget_s = 60.0,
    .caption = "full",
};

/* The warm-up stays at 1000 calls: with less, the SDK server's JIT is still cold and its CPU
 * per call reads 2-3 times higher than in the full run. */
static const struct bench_counts bench_quick = {
    .starts = 5,
    .warmup = 1000,
    .seq_calls = 4000,
    .rounds = 3,
    .rss_calls = 20000,
    .deep_calls = 10000,
    .big_calls = 10,
    .flood_calls = 500,
    .spin_calls = 4000,
    .list_calls = 50,
    .pings = 1000,
    .reloads = 5,
    .gw_calls = 1000,
    .cg_echo = {200, 600},
    .cg_list = {[SRV_MCPH] = {2, 6}, [SRV_BARE] = {30, 90}},
    .budget_s = 8.0,
    .caption = "QUICK",
};

/* ---------------------------------------------------------------------------------------
 * Figures and targets.
 * --------------------------------------------------------------------------------------- */

enum bench_better { LOWER, HIGHER };

#define BENCH_FIGURES(X)                                                                           \
    X(FIG_START, "start-up to initialize reply, median", "ms", 2, LOWER)                           \
    X(FIG_EXIT, "exit after stdin EOF, median", "ms", 2, LOWER)                                    \
    X(FIG_PIN_P50, "echo round trip, same CPU, p50", "us", 1, LOWER)                               \
    X(FIG_PIN_P99, "echo round trip, same CPU, p99", "us", 1, LOWER)                               \
    X(FIG_PIN_P999, "echo round trip, same CPU, p99.9", "us", 1, LOWER)                            \
    X(FIG_PIN_CPU, "server CPU per echo call, same CPU", "us", 2, LOWER)                           \
    X(FIG_PIN_CSW, "server context switches per call, same CPU", "count", 2, LOWER)                \
    X(FIG_FREE_P50, "echo round trip, unpinned, p50", "us", 1, LOWER)                              \
    X(FIG_FREE_P99, "echo round trip, unpinned, p99", "us", 1, LOWER)                              \
    X(FIG_FREE_P999, "echo round trip, unpinned, p99.9", "us", 1, LOWER)                           \
    X(FIG_FREE_CPU, "server CPU per echo call, unpinned", "us", 2, LOWER)                          \
    X(FIG_FREE_CSW, "server context switches per call, unpinned", "count", 2, LOWER)               \
    X(FIG_SYS_SEQ, "server system calls per call, sequential", "count", 2, LOWER)                  \
    X(FIG_TPUT64, "throughput, 64 in flight", "call/s", 0, HIGHER)                                 \
    X(FIG_CPU64, "server CPU per call, 64 in flight", "us", 2, LOWER)                              \
    X(FIG_CSW64, "server context switches per call, 64 in flight", "count", 2, LOWER)              \
    X(FIG_SYS64, "server system calls per call, 64 in flight", "count", 2, LOWER)                  \
    X(FIG_TPUT1024, "throughput, 1024 in flight", "call/s", 0, HIGHER)                             \
    X(FIG_CPU1024, "server CPU per call, 1024 in flight", "us", 2, LOWER)                          \
    X(FIG_TPUT_SPIN, "throughput of a 100 us CPU-bound tool, 64 in flight", "call/s", 0, HIGHER)   \
    X(FIG_CPU_SPIN, "server CPU per call of that tool, 64 in flight", "us", 2, LOWER)              \
    X(FIG_BIG, "1 MiB echo (MiB of text per second)", "MiB/s", 1, HIGHER)                          \
    X(FIG_RSS_INIT, "RSS after initialize", "MiB", 2, LOWER)                                       \
    X(FIG_RSS_CALLS, "RSS after the pipelined calls", "MiB", 2, LOWER)                             \
    X(FIG_RSS_GROWTH, "RSS floor growth, 2nd to 4th quarter", "KiB", 0, LOWER)                     \
    X(FIG_HWM_CALLS, "peak RSS after those calls", "MiB", 2, LOWER)                                \
    X(FIG_HWM_BIG, "peak RSS after 1 MiB echoes", "MiB", 2, LOWER)                                 \
    X(FIG_HWM_FLOOD, "peak RSS under a flood of 64 KiB echoes", "MiB", 2, LOWER)                   \
    X(FIG_FLOOD_BUSY, "calls of that flood refused (-32000 Server busy)", "count", 0, LOWER)       \
    X(FIG_LIST_P50, "tools/list of 1,000 tools, p50", "ms", 3, LOWER)                              \
    X(FIG_LIST_CPU, "server CPU per tools/list of 1,000", "ms", 3, LOWER)                          \
    X(FIG_LIST_BYTES, "tools/list reply size", "KiB", 1, LOWER)                                    \
    X(FIG_HUP1, "SIGHUP to list_changed, 1 plugin, median", "ms", 2, LOWER)                        \
    X(FIG_HUP20, "SIGHUP to list_changed, 20 plugins, median", "ms", 2, LOWER)                     \
    X(FIG_PING_P50, "ping round trip while every worker runs a slow tool, p50", "us", 1, LOWER)    \
    X(FIG_PING_P99, "ping round trip while every worker runs a slow tool, p99", "us", 1, LOWER)    \
    X(FIG_INSTR_ECHO, "instructions per echo call (callgrind)", "instr", 0, LOWER)                 \
    X(FIG_INSTR_LIST, "instructions per tools/list (callgrind)", "instr", 0, LOWER)

enum bench_fig {
#define BENCH_FIG_ENUM(id, label, unit, decimals, better) id,
    BENCH_FIGURES(BENCH_FIG_ENUM)
#undef BENCH_FIG_ENUM
        FIG_COUNT
};

struct bench_row {
    const char *label;
    const char *unit;
    int decimals;
    enum bench_better better;
};

static const struct bench_row bench_rows[FIG_COUNT] = {
#define BENCH_FIG_ROW(id, l, u, d, b) [id] = {.label = l, .unit = u, .decimals = d, .better = b},
    BENCH_FIGURES(BENCH_FIG_ROW)
#undef BENCH_FIG_ROW
};

/* A target: mcph's figure against a bound (RULE_MAX: strictly under limit; RULE_AT_MOST: at
 * most limit), against the bare loop's (RULE_BARE_MAX: mcph/bare at most limit, for rows
 * better lower; RULE_BARE_MIN: mcph/bare at least limit, for rows better higher;
 * RULE_BARE_PLUS: mcph - bare at most limit, in the row's unit) or the SDK's (RULE_SDK_MIN:
 * sdk/mcph at least limit). */
enum bench_rule {
    RULE_MAX = 1,
    RULE_AT_MOST,
    RULE_BARE_MAX,
    RULE_BARE_MIN,
    RULE_BARE_PLUS,
    RULE_SDK_MIN
};

struct bench_target {
    enum bench_fig fig;
    enum bench_rule rule;
    double limit;
    const char *text;
};

static const struct bench_target bench_targets[] = {
    {FIG_PIN_CPU, RULE_BARE_MAX, 1.5, "server CPU per echo call <= 1.5x bare (same CPU)"},
    {FIG_FREE_CPU, RULE_BARE_MAX, 1.5, "server CPU per echo call <= 1.5x bare (unpinned)"},
    {FIG_PIN_CPU, RULE_SDK_MIN, 8.0, "server CPU per echo call >= 8x below sdk (same CPU)"},
    {FIG_FREE_CPU, RULE_SDK_MIN, 8.0, "server CPU per echo call >= 8x below sdk (unpinned)"},
    {FIG_PIN_P50, RULE_BARE_MAX, 1.5, "echo round trip p50 <= 1.5x bare (same CPU)"},
    {FIG_FREE_P50, RULE_BARE_MAX, 1.5, "echo round trip p50 <= 1.5x bare (unpinned)"},
    {FIG_TPUT64, RULE_BARE_MIN, 1.0, "throughput with 64 in flight >= bare's"},
    {FIG_TPUT1024, RULE_BARE_MIN, 1.0, "throughput with 1024 in flight >= bare's"},
    {FIG_TPUT_SPIN, RULE_BARE_MIN, 1.5,
     "100 us CPU-bound tool, 64 in flight: throughput >= 1.5x bare (both cores)"},
    {FIG_SYS64, RULE_AT_MOST, 1.5, "system calls per call with 64 in flight <= 1.5"},
    {FIG_PIN_CSW, RULE_AT_MOST, 1.2, "context switches per sequential call <= 1.2 (same CPU)"},
    {FIG_FREE_CSW, RULE_AT_MOST, 1.2, "context switches per sequential call <= 1.2 (unpinned)"},
    {FIG_INSTR_ECHO, RULE_BARE_MAX, 1.3, "instructions per echo call <= 1.3x bare"},
    {FIG_START, RULE_MAX, 3.0, "start-up to initialize reply < 3 ms (default deployment)"},
    {FIG_RSS_CALLS, RULE_MAX, 4.0, "RSS after 200,000 calls < 4 MiB (default deployment)"},
    {FIG_RSS_GROWTH, RULE_MAX, BENCH_GROWTH_KIB, "no RSS growth over the calls (floor < 8 KiB)"},
    {FIG_HWM_BIG, RULE_BARE_MAX, 1.5, "peak RSS with 1 MiB messages <= 1.5x bare"},
    {FIG_BIG, RULE_BARE_MIN, 0.8, "1 MiB echo rate >= 0.8x bare"},
    {FIG_HWM_FLOOD, RULE_BARE_PLUS, BENCH_FLOOD_OVER_MIB,
     "peak RSS under a flood of 64 KiB echoes <= bare + 64 MiB (max_pending_mb) + 16 MiB"},
    {FIG_LIST_CPU, RULE_BARE_MAX, 2.0, "tools/list of 1,000: server CPU <= 2x bare"},
    {FIG_INSTR_LIST, RULE_BARE_MAX, 2.0, "tools/list of 1,000: instructions <= 2x bare"},
    {FIG_HUP20, RULE_MAX, 5.0, "SIGHUP to list_changed < 5 ms with 20 plugins"},
    {FIG_PING_P99, RULE_MAX, 1000.0,
     "ping round trip while every worker runs a slow tool, p99 < 1 ms (1000 us)"},
    {0},
};

/* The gateway rows: what each target is, and its figures (a column for the target direct, one
 * for it through mcph, then the overhead). */
enum bench_gw_target { GW_EVERYTHING, GW_MCPH, GW_ISOLATED, GW_AUDIT, GW_RELAYED, GW_TARGETS };
/* GW_RELAYED: GW_DIRECT only, the default deployment's mcph behind the bare relay (relay.c):
 * the floor of the isolation and hop rows, one more process and pipe pair and nothing else. */
/* GW_AUDIT: GW_DIRECT is the example plugin alone, GW_VIA the same with the audit log on. */
/* GW_CONFINED: a third chain of GW_ISOLATED (the isolated plugin confined) and of GW_MCPH
 * (the second mcph reached over HTTP, through mcph's relay, instead of on stdio). */
enum bench_gw_side { GW_DIRECT, GW_VIA, GW_CONFINED, GW_SIDES };

#define BENCH_GW_FIGURES(X)                                                                        \
    X(GW_P50, "echo round trip", "unpinned, p50", "us", 1)                                         \
    X(GW_P99, "echo round trip", "unpinned, p99", "us", 1)                                         \
    X(GW_CPU, "CPU per echo call", "every process of the chain", "us", 2)

enum bench_gw_fig {
#define BENCH_GW_FIG_ENUM(id, head, tail, unit, decimals) id,
    BENCH_GW_FIGURES(BENCH_GW_FIG_ENUM)
#undef BENCH_GW_FIG_ENUM
        GW_FIG_COUNT
};

/* A gateway row's label is "HEAD to TARGET, TAIL". */
struct bench_gw_row {
    const char *head;
    const char *tail;
    const char *unit;
    int decimals;
};

static const struct bench_gw_row bench_gw_rows[GW_FIG_COUNT] = {
#define BENCH_GW_ROW(id, h, t, u, d) [id] = {.head = h, .tail = t, .unit = u, .decimals = d},
    BENCH_GW_FIGURES(BENCH_GW_ROW)
#undef BENCH_GW_ROW
};

static const char *const bench_gw_names[GW_TARGETS] = {
    "server-everything", "mcph", "the example plugin", "the example plugin", "mcph"};

/* The echo tool a series calls: its name, its argument, and the text of the reply's first
 * content item. */
struct bench_echo {
    const char *tool;
    const char *arg;
    const char *reply;
};

static const struct bench_echo bench_gw_echo[GW_TARGETS][GW_SIDES] = {
    [GW_EVERYTHING] = {{"echo", "message", "Echo: " BENCH_TEXT},
                       {"ev_echo", "message", "Echo: " BENCH_TEXT}},
    [GW_MCPH] = {{"echo", "text", BENCH_TEXT},
                 {"m_echo", "text", BENCH_TEXT},
                 {"m_echo", "text", BENCH_TEXT}},
    [GW_ISOLATED] = {{"echo", "text", BENCH_TEXT},
                     {"echo", "text", BENCH_TEXT},
                     {"echo", "text", BENCH_TEXT}},
    [GW_AUDIT] = {{"echo", "text", BENCH_TEXT}, {"echo", "text", BENCH_TEXT}},
    [GW_RELAYED] = {{"echo", "text", BENCH_TEXT}},
};

/* A target of a hop (isolate = process, the gateway over stdio): the figure of the chain with
 * the hop (side) at most limit more than without it (GW_DIRECT), in the row's unit. The bare
 * relay's own overhead is printed next to it: the floor of one more process and pipe pair. */
struct bench_hop_target {
    enum bench_gw_target t;
    enum bench_gw_side side;
    enum bench_gw_fig fig;
    double limit;
    const char *text;
};

static const struct bench_hop_target bench_hop_targets[] = {
    {GW_ISOLATED, GW_VIA, GW_CPU, 20.0,
     "isolate = process: at most 20 us more CPU per echo call than in process"},
    {GW_ISOLATED, GW_VIA, GW_P50, 25.0,
     "isolate = process: echo round trip p50 at most 25 us more than in process"},
    {GW_MCPH, GW_VIA, GW_CPU, 20.0,
     "gateway hop (mcph -> mcph over stdio): at most 20 us more CPU per echo call than direct"},
    {GW_MCPH, GW_VIA, GW_P50, 25.0,
     "gateway hop (mcph -> mcph over stdio): echo round trip p50 at most 25 us more than direct"},
    {0},
};

/* Processes of one chain whose CPU a gateway series adds up, at most. */
#define BENCH_MAX_TREE 16

/* ---------------------------------------------------------------------------------------
 * The run.
 * --------------------------------------------------------------------------------------- */

struct bench {
    const struct bench_counts *n;
    const char *dir;                                 /* borrowed from argv */
    const char *mcph;                                /* borrowed from argv */
    const char *valgrind;                            /* borrowed from argv, or NULL */
    const char *echo_cmd[SRV_COUNT][BENCH_MAX_ARGV]; /* NULL-ended; strings from argv */
    const char *list_cmd[SRV_COUNT][BENCH_MAX_ARGV];
    const char *spin_cmd[SRV_COUNT][BENCH_MAX_ARGV]; /* none for the SDK server */
    int enabled[SRV_COUNT];
    int cpu;                          /* the one CPU of the pinned runs */
    cpu_set_t all;                    /* the driver's affinity at start: the unpinned runs */
    long sys_enter;                   /* id of tracepoint raw_syscalls:sys_enter, or -1 */
    double val[FIG_COUNT][SRV_COUNT]; /* NAN: not measured */
    long rss_done[SRV_COUNT];         /* pipelined calls before FIG_RSS_CALLS was read */
    /* The gateway series: NULL-ended argv per target and side (none: left out), figures. */
    const char *gw_cmd[GW_TARGETS][GW_SIDES][BENCH_MAX_ARGV];
    double gw[GW_TARGETS][GW_FIG_COUNT][GW_SIDES]; /* NAN: not measured */
    double iso_start[GW_SIDES]; /* start-up of GW_ISOLATED's chains, median ms; NAN: none */
};

/* One server process and its pipes. */
struct bench_proc {
    pid_t pid;
    int pidfd;       /* -1 when pidfd_open() is not available */
    int sysfd;       /* the server's system call counter (perf_event_open), or -1 */
    int to;          /* the server's stdin, non-blocking; -1 once closed */
    int from;        /* the server's stdout, non-blocking */
    char *in;        /* owned: bytes read from the server */
    size_t in_start; /* first byte not yet returned as a line */
    size_t in_scan;  /* bytes from in_start known to hold no newline */
    size_t in_len;
    size_t in_cap;
    char *out; /* owned: bytes still to write to the server, out[out_off..out_len) */
    size_t out_off;
    size_t out_len;
    size_t out_cap;
    int eof;                       /* the server closed its stdout */
    double spawned;                /* measure_now() just before fork() */
    unsigned long long id;         /* the next request id */
    const struct bench_echo *echo; /* CALL_GW: the echo tool called; static */
};

static int bench_ms_until(double deadline)
{
    double ms = ceil((deadline - measure_now()) * 1e3);

    if (ms <= 0)
        return 0;
    return ms > INT_MAX ? INT_MAX : (int)ms;
}

static void bench_sleep(double seconds)
{
    struct timespec ts = {.tv_sec = (time_t)seconds,
                          .tv_nsec = (long)((seconds - floor(seconds)) * 1e9)};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static void bench_log(const char *who, const char *what, int status)
{
    fprintf(stderr, "bench: %s: %s: %s\n", who, what, bench_status_str(status));
}

/* snprintf() for paths: BENCH_ERR_USAGE when the result does not fit in size. */
__attribute__((format(printf, 3, 4))) static int bench_path(char *buf, size_t size, const char *fmt,
                                                            ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= size ? BENCH_ERR_USAGE : BENCH_OK;
}

/* ---------------------------------------------------------------------------------------
 * Processes and pipes.
 * --------------------------------------------------------------------------------------- */

/* In the child: the pipes become stdin and stdout, stderr goes to the log, then exec. With a
 * gate (a pipe, or -1 and -1), the exec waits until the parent closes its end. */
static void bench_child(int in, int out, int log, const int gate[2], const char *const *argv)
{
    char byte;

    signal(SIGPIPE, SIG_DFL);
    if (gate[1] >= 0)
        close(gate[1]);
    while (gate[0] >= 0 && read(gate[0], &byte, 1) < 0 && errno == EINTR) {
    }
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || (log >= 0 && dup2(log, 2) < 0))
        _exit(126);
    execvp(argv[0], (char *const *)argv);
    fprintf(stderr, "bench: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

static int bench_nonblock(int fd)
{
    int flags = fcntl(fd, F_GETFL);

    return flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 ? BENCH_ERR_IO : BENCH_OK;
}

static void bench_proc_init(struct bench_proc *p)
{
    memset(p, 0, sizeof(*p));
    p->pid = -1;
    p->pidfd = p->to = p->from = p->sysfd = -1;
    p->id = 1;
}

/* Closes the pipes and frees the buffers; the process must have been reaped. */
static void bench_proc_release(struct bench_proc *p)
{
    if (p->to >= 0)
        close(p->to);
    if (p->from >= 0)
        close(p->from);
    if (p->pidfd >= 0)
        close(p->pidfd);
    if (p->sysfd >= 0)
        close(p->sysfd);
    free(p->in);
    free(p->out);
    bench_proc_init(p);
}

/* Kill and reap a server whose run went wrong. */
static void bench_kill(struct bench_proc *p)
{
    if (p->pid > 0) {
        kill(p->pid, SIGKILL);
        waitpid(p->pid, NULL, 0);
    }
    bench_proc_release(p);
}

/* A counter of the system calls of pid and of every thread and process it creates from now
 * on (inherit), enabled when pid calls exec. sys_enter: the tracepoint's id. The fd, or -1
 * with errno set. */
static int bench_sys_open(long sys_enter, pid_t pid)
{
    struct perf_event_attr attr;

    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_TRACEPOINT;
    attr.config = (uint64_t)sys_enter;
    attr.disabled = 1;
    attr.enable_on_exec = 1;
    attr.inherit = 1;
    return (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* System calls of the server so far (every thread), or NAN without a counter. */
static double bench_syscalls(const struct bench_proc *p)
{
    uint64_t count;

    if (p->sysfd < 0 || read(p->sysfd, &count, sizeof(count)) != (ssize_t)sizeof(count))
        return NAN;
    return (double)count;
}

/* The id of tracepoint raw_syscalls:sys_enter when a counter on it can be opened, else -1,
 * with the reason on stderr (once: the system call rows then print "-"). */
static long bench_sys_probe(void)
{
    static const char *const roots[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};
    char path[BENCH_PATH];
    long id = -1;
    int fd;

    for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]) && id < 0; i++) {
        FILE *f;

        snprintf(path, sizeof(path), "%s" BENCH_SYS_ENTER_ID, roots[i]);
        f = fopen(path, "r");
        if (f != NULL && fscanf(f, "%ld", &id) != 1)
            id = -1;
        if (f != NULL)
            fclose(f);
    }
    if (id < 0) {
        fprintf(stderr,
                "bench: no tracepoint raw_syscalls:sys_enter (%s%s not readable): "
                "the system call rows print \"-\"\n",
                roots[0], BENCH_SYS_ENTER_ID);
        return -1;
    }
    /* Opened on the driver itself, disabled and never enabled: only whether it can be. */
    fd = bench_sys_open(id, 0);
    if (fd < 0) {
        fprintf(stderr,
                "bench: perf_event_open of raw_syscalls:sys_enter: %s: the system call "
                "rows print \"-\"\n",
                strerror(errno));
        return -1;
    }
    close(fd);
    return id;
}

/* Start argv with pipes on its stdin and stdout and its stderr appended to log_path. The
 * child inherits the driver's CPU affinity. p is initialised here. With sys_enter >= 0 (the
 * tracepoint's id), p->sysfd counts the server's system calls from its exec on, every thread
 * included: the child waits on a pipe until the counter is open, as inherit only covers the
 * threads created after it. */
static int bench_spawn(struct bench_proc *p, const char *const *argv, const char *log_path,
                       long sys_enter)
{
    int in[2] = {-1, -1}, out[2] = {-1, -1}, gate[2] = {-1, -1};
    int log = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    int status = BENCH_ERR_SPAWN;

    bench_proc_init(p);
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 ||
        (sys_enter >= 0 && pipe2(gate, O_CLOEXEC) != 0))
        goto out;
    p->spawned = measure_now();
    p->pid = fork();
    if (p->pid == 0)
        bench_child(in[0], out[1], log, gate, argv);
    if (p->pid > 0 && sys_enter >= 0) {
        p->sysfd = bench_sys_open(sys_enter, p->pid);
        if (p->sysfd < 0)
            fprintf(stderr, "bench: %s: no system call counter: %s\n", argv[0], strerror(errno));
    }
    if (p->pid < 0)
        goto out;
    p->to = in[1];
    p->from = out[0];
    in[1] = out[0] = -1;
    p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
    status = bench_nonblock(p->to) == BENCH_OK && bench_nonblock(p->from) == BENCH_OK
                 ? BENCH_OK
                 : BENCH_ERR_IO;
out:
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0)
            close(in[i]);
        if (out[i] >= 0)
            close(out[i]);
        if (gate[i] >= 0)
            close(gate[i]); /* the child may exec */
    }
    if (log >= 0)
        close(log);
    return status;
}

/* Write what the pipe takes of the pending output. */
static int bench_write_some(struct bench_proc *p)
{
    while (p->out_off < p->out_len) {
        ssize_t n = write(p->to, p->out + p->out_off, p->out_len - p->out_off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno == EAGAIN ? BENCH_OK : BENCH_ERR_IO;
        p->out_off += (size_t)n;
    }
    p->out_off = p->out_len = 0;
    return BENCH_OK;
}

/* Queue bytes for the server and write at once what the pipe takes. */
static int bench_queue(struct bench_proc *p, const char *data, size_t len)
{
    if (p->out_cap - p->out_len < len) {
        size_t cap = p->out_cap ? p->out_cap : 4096;
        char *grown;

        while (cap - p->out_len < len)
            cap *= 2;
        grown = realloc(p->out, cap);
        if (grown == NULL)
            return BENCH_ERR_NOMEM;
        p->out = grown;
        p->out_cap = cap;
    }
    memcpy(p->out + p->out_len, data, len);
    p->out_len += len;
    return bench_write_some(p);
}

/* Room for one more read: unreturned bytes move to the front, the buffer grows. */
static int bench_room(struct bench_proc *p)
{
    if (p->in_start > 0) {
        memmove(p->in, p->in + p->in_start, p->in_len - p->in_start);
        p->in_len -= p->in_start;
        p->in_start = 0;
    }
    if (p->in_cap - p->in_len < BENCH_READ_CHUNK) {
        size_t cap = p->in_cap ? p->in_cap * 2 : 4 * BENCH_READ_CHUNK;
        char *grown = realloc(p->in, cap);

        if (grown == NULL)
            return BENCH_ERR_NOMEM;
        p->in = grown;
        p->in_cap = cap;
    }
    return BENCH_OK;
}

static int bench_read_some(struct bench_proc *p)
{
    ssize_t n;

    if (bench_room(p) != BENCH_OK)
        return BENCH_ERR_NOMEM;
    do {
        n = read(p->from, p->in + p->in_len, p->in_cap - p->in_len);
    } while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno == EAGAIN ? BENCH_OK : BENCH_ERR_IO;
    if (n == 0) {
        p->eof = 1;
        return BENCH_ERR_EOF;
    }
    p->in_len += (size_t)n;
    return BENCH_OK;
}

/* One round of I/O: wait until the server sent something or takes more of the pending
 * output, or until deadline. */
static int bench_pump(struct bench_proc *p, double deadline)
{
    struct pollfd fds[2] = {
        {.fd = p->from, .events = POLLIN},
        {.fd = p->out_off < p->out_len ? p->to : -1, .events = POLLOUT},
    };
    int n, status = BENCH_OK;

    if (p->eof)
        return BENCH_ERR_EOF;
    n = poll(fds, 2, bench_ms_until(deadline));
    if (n < 0)
        return errno == EINTR ? BENCH_OK : BENCH_ERR_IO;
    if (n == 0)
        return BENCH_ERR_TIMEOUT;
    if (fds[1].revents != 0)
        status = bench_write_some(p);
    if (status == BENCH_OK && fds[0].revents != 0)
        status = bench_read_some(p);
    return status;
}

/* The next complete line, if one is buffered: *line borrowed until the next pump, without
 * its newline. Returns 1 when there is one, else 0. */
static int bench_next_line(struct bench_proc *p, const char **line, size_t *len)
{
    char *start = p->in + p->in_start;
    size_t avail = p->in_len - p->in_start;
    char *nl = avail > p->in_scan ? memchr(start + p->in_scan, '\n', avail - p->in_scan) : NULL;

    if (nl == NULL) {
        p->in_scan = avail;
        return 0;
    }
    *line = start;
    *len = (size_t)(nl - start);
    p->in_start += *len + 1;
    p->in_scan = 0;
    return 1;
}

/* needle in the first and the last `edge` bytes of line (all of it when it is short), so
 * that a 1 MiB reply is not scanned for its envelope. */
static const char *bench_find(const char *line, size_t len, const char *needle, size_t edge)
{
    size_t n = strlen(needle), head = len < edge ? len : edge;
    const char *at = memmem(line, head, needle, n);

    if (at == NULL && len > head)
        at = memmem(line + len - head, head, needle, n);
    return at;
}

/* The id of a reply line, or -1 for a notification or a request from the server. An error
 * or a tool error (isError) is BENCH_ERR_REPLY. Every server here puts the envelope's members
 * and isError within 64 bytes of one end of the line. */
static int bench_reply_id(const char *line, size_t len, long long *id)
{
    const char *at = bench_find(line, len, "\"id\":", 64);

    *id = -1;
    if (at == NULL || bench_find(line, len, "\"method\":", 64) != NULL)
        return BENCH_OK;
    if (bench_find(line, len, "\"error\":{", 4096) != NULL ||
        bench_find(line, len, "\"isError\":true", 64) != NULL)
        return BENCH_ERR_REPLY;
    *id = strtoll(at + 5, NULL, 10);
    return BENCH_OK;
}

/* Wait for the reply to request id, skipping notifications. *line borrowed as above. */
static int bench_wait_reply(struct bench_proc *p, unsigned long long id, double deadline,
                            const char **line, size_t *len)
{
    for (;;) {
        long long got;
        int status;

        while (bench_next_line(p, line, len)) {
            status = bench_reply_id(*line, *len, &got);
            if (status != BENCH_OK)
                return status;
            if (got >= 0)
                return (unsigned long long)got == id ? BENCH_OK : BENCH_ERR_REPLY;
        }
        status = bench_pump(p, deadline);
        if (status != BENCH_OK)
            return status;
    }
}

/* Close the server's stdin, then wait for it to exit, reading (and dropping) what it still
 * writes. *seconds is the time from the close to the exit. A server that outlives deadline
 * is killed (BENCH_ERR_TIMEOUT); one that fails is BENCH_ERR_IO. Releases p. */
static int bench_finish(struct bench_proc *p, double deadline, double *seconds)
{
    double t0 = measure_now();
    int wstatus = 0, status = BENCH_OK;

    close(p->to);
    p->to = -1;
    for (;;) {
        struct pollfd fds[2] = {{.fd = p->pidfd, .events = POLLIN},
                                {.fd = p->eof ? -1 : p->from, .events = POLLIN}};
        int n = poll(fds, 2, p->pidfd >= 0 ? bench_ms_until(deadline) : 1);

        if (p->pidfd < 0 ? waitpid(p->pid, &wstatus, WNOHANG) == p->pid : fds[0].revents != 0)
            break;
        if ((n < 0 && errno != EINTR) || measure_now() >= deadline) {
            status = n < 0 && errno != EINTR ? BENCH_ERR_IO : BENCH_ERR_TIMEOUT;
            bench_kill(p);
            return status;
        }
        p->in_start = p->in_len = p->in_scan = 0;
        if (fds[1].revents != 0)
            bench_read_some(p);
    }
    *seconds = measure_now() - t0;
    if (p->pidfd >= 0)
        waitpid(p->pid, &wstatus, 0);
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
        status = BENCH_ERR_IO;
    p->pid = -1;
    bench_proc_release(p);
    return status;
}

/* A "Vm...:" line of /proc/PID/status, in KiB. */
static double bench_vm_kib(pid_t pid, const char *key)
{
    char path[64], line[256];
    double kib = NAN;
    size_t klen = strlen(key);
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    f = fopen(path, "r");
    if (f == NULL)
        return NAN;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, key, klen) == 0) {
            kib = strtod(line + klen, NULL);
            break;
        }
    }
    fclose(f);
    return kib;
}

/* ---------------------------------------------------------------------------------------
 * Requests.
 * --------------------------------------------------------------------------------------- */

static const char bench_initialize[] =
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
    "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
    "\"clientInfo\":{\"name\":\"mcph-bench\",\"version\":\"1.0.0\"}}}\n";
static const char bench_initialized[] =
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

/* CALL_SLOW: the example plugin's count, 5 s (mcph's default deployment only). CALL_SPIN:
 * spin {us: BENCH_SPIN_US} (bench-spin.ini and the bare loop). CALL_GW: the echo tool of
 * p->echo (the gateway rows). */
enum bench_kind { CALL_ECHO, CALL_LIST, CALL_PING, CALL_SLOW, CALL_SPIN, CALL_GW };

static int bench_queue_request(struct bench_proc *p, enum bench_kind kind, unsigned long long id)
{
    char req[256];
    int n;

    if (kind == CALL_LIST || kind == CALL_PING)
        n = snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":%llu,\"method\":\"%s\"}\n", id,
                     kind == CALL_LIST ? "tools/list" : "ping");
    else if (kind == CALL_SLOW)
        n = snprintf(req, sizeof(req), "{\"jsonrpc\":\"2.0\",\"id\":%llu," BENCH_SLOW_CALL "}\n",
                     id);
    else if (kind == CALL_SPIN)
        n = snprintf(req, sizeof(req),
                     "{\"jsonrpc\":\"2.0\",\"id\":%llu,\"method\":\"tools/call\",\"params\":{"
                     "\"name\":\"spin\",\"arguments\":{\"us\":" BENCH_SPIN_US "}}}\n",
                     id);
    else if (kind == CALL_GW)
        n = snprintf(req, sizeof(req),
                     "{\"jsonrpc\":\"2.0\",\"id\":%llu,\"method\":\"tools/call\",\"params\":{"
                     "\"name\":\"%s\",\"arguments\":{\"%s\":\"" BENCH_TEXT "\"}}}\n",
                     id, p->echo->tool, p->echo->arg);
    else
        n = snprintf(req, sizeof(req),
                     "{\"jsonrpc\":\"2.0\",\"id\":%llu,\"method\":\"tools/call\",\"params\":{"
                     "\"name\":\"echo\",\"arguments\":{\"text\":\"" BENCH_TEXT "\"}}}\n",
                     id);
    return bench_queue(p, req, (size_t)n);
}

/* notifications/cancelled for request id. */
static int bench_cancel(struct bench_proc *p, unsigned long long id)
{
    char note[192];
    int n = snprintf(note, sizeof(note),
                     "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
                     "\"requestId\":%llu,\"reason\":\"the bench is done\"}}\n",
                     id);

    return bench_queue(p, note, (size_t)n);
}

/* initialize, its reply, then notifications/initialized. *reply_at is when the reply came. */
static int bench_handshake(struct bench_proc *p, double deadline, double *reply_at)
{
    const char *line;
    size_t len;
    int status = bench_queue(p, bench_initialize, sizeof(bench_initialize) - 1);

    if (status == BENCH_OK)
        status = bench_wait_reply(p, 0, deadline, &line, &len);
    *reply_at = measure_now();
    if (status == BENCH_OK && memmem(line, len, "\"protocolVersion\"", 17) == NULL)
        status = BENCH_ERR_REPLY;
    if (status == BENCH_OK)
        status = bench_queue(p, bench_initialized, sizeof(bench_initialized) - 1);
    return status;
}

/* The echo reply carries exactly `text`, as the first content item. */
static int bench_check_echo(const char *line, size_t len, const char *text, size_t text_len)
{
    cJSON *root = cJSON_ParseWithLength(line, len);
    cJSON *result = cJSON_GetObjectItemCaseSensitive(root, "result");
    cJSON *content = cJSON_GetObjectItemCaseSensitive(result, "content");
    cJSON *item = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(content, 0), "text");
    int ok = cJSON_IsString(item) && strlen(item->valuestring) == text_len &&
             memcmp(item->valuestring, text, text_len) == 0;

    cJSON_Delete(root);
    return ok ? BENCH_OK : BENCH_ERR_REPLY;
}

/* The first reply of a series of echo or spin calls: the echoed text, or "spun US". */
static int bench_check_call(enum bench_kind kind, const char *line, size_t len)
{
    static const char spun[] = "spun " BENCH_SPIN_US;

    if (kind == CALL_SPIN)
        return bench_check_echo(line, len, spun, sizeof(spun) - 1);
    return bench_check_echo(line, len, BENCH_TEXT, strlen(BENCH_TEXT));
}

/* The tools/list reply lists `count` tools on one page. */
static int bench_check_list(const char *line, size_t len, int count)
{
    cJSON *root = cJSON_ParseWithLength(line, len);
    cJSON *result = cJSON_GetObjectItemCaseSensitive(root, "result");
    cJSON *tools = cJSON_GetObjectItemCaseSensitive(result, "tools");
    int ok = cJSON_GetArraySize(tools) == count &&
             cJSON_GetObjectItemCaseSensitive(result, "nextCursor") == NULL;

    cJSON_Delete(root);
    return ok ? BENCH_OK : BENCH_ERR_REPLY;
}

/* One request and its reply. The first call of a series (check) is checked in full. */
static int bench_call(struct bench_proc *p, enum bench_kind kind, int check, double deadline,
                      double *rtt, size_t *reply_len)
{
    unsigned long long id = p->id++;
    double t0 = measure_now();
    const char *line;
    size_t len = 0;
    int status = bench_queue_request(p, kind, id);

    if (status == BENCH_OK)
        status = bench_wait_reply(p, id, deadline, &line, &len);
    *rtt = measure_now() - t0;
    if (status == BENCH_OK && check && kind == CALL_LIST)
        status = bench_check_list(line, len, BENCH_LIST_TOOLS);
    else if (status == BENCH_OK && check && (kind == CALL_ECHO || kind == CALL_SPIN))
        status = bench_check_call(kind, line, len);
    else if (status == BENCH_OK && check && kind == CALL_GW)
        status = bench_check_echo(line, len, p->echo->reply, strlen(p->echo->reply));
    else if (status == BENCH_OK && check && kind == CALL_PING &&
             memmem(line, len, "\"result\":{}", 11) == NULL)
        status = BENCH_ERR_REPLY;
    if (reply_len != NULL)
        *reply_len = len;
    return status;
}

/* ---------------------------------------------------------------------------------------
 * Statistics.
 * --------------------------------------------------------------------------------------- */

/* ---------------------------------------------------------------------------------------
 * Phases. Each measures one server and stores its figures; a failure is logged and leaves
 * the figures at NAN.
 * --------------------------------------------------------------------------------------- */

static void bench_log_path(const struct bench *b, int srv, char *path, size_t size)
{
    bench_path(path, size, "%s/logs/%s.log", b->dir, bench_server_names[srv]);
}

/* Spawn argv and do the handshake. counted: with a system call counter (p->sysfd), when the
 * machine has one. */
static int bench_start(const struct bench *b, int srv, const char *const *argv, int counted,
                       struct bench_proc *p)
{
    char log[BENCH_PATH];
    double at;
    int status;

    bench_log_path(b, srv, log, sizeof(log));
    status = bench_spawn(p, argv, log, counted ? b->sys_enter : -1);
    if (status == BENCH_OK)
        status = bench_handshake(p, measure_now() + BENCH_START_S, &at);
    if (status != BENCH_OK)
        bench_kill(p);
    return status;
}

/* Start-up and exit of argv: one untimed spawn to warm the page cache, then n->starts timed;
 * *init and *exit get the medians in ms (NAN when none was timed). who names it in messages. */
static void bench_start_medians(const struct bench *b, const char *const *argv, const char *log,
                                const char *who, double *init_ms, double *exit_ms)
{
    double init[BENCH_MAX_STARTS], exits[BENCH_MAX_STARTS];
    double stop = measure_now() + b->n->budget_s;
    size_t n = 0;

    for (int i = 0; i <= b->n->starts && i < BENCH_MAX_STARTS && measure_now() < stop; i++) {
        struct bench_proc p;
        double at, gone;
        int status = bench_spawn(&p, argv, log, -1);
        double spawned = p.spawned;

        if (status == BENCH_OK)
            status = bench_handshake(&p, measure_now() + BENCH_START_S, &at);
        if (status == BENCH_OK)
            status = bench_finish(&p, measure_now() + BENCH_EXIT_S, &gone);
        else
            bench_kill(&p);
        if (status != BENCH_OK) {
            bench_log(who, "start-up", status);
            break;
        }
        if (i > 0) {
            init[n] = at - spawned;
            exits[n++] = gone;
        }
    }
    *init_ms = measure_quantile(init, n, 0.5) * 1e3;
    *exit_ms = measure_quantile(exits, n, 0.5) * 1e3;
}

/* Start-up and exit of one of the servers. */
static void bench_startup(struct bench *b, int srv)
{
    char log[BENCH_PATH];

    bench_log_path(b, srv, log, sizeof(log));
    bench_start_medians(b, b->echo_cmd[srv], log, bench_server_names[srv], &b->val[FIG_START][srv],
                        &b->val[FIG_EXIT][srv]);
}

/* What a series of sequential calls cost the server, per call. */
struct bench_cost {
    double cpu;   /* seconds of CPU time */
    double ctxsw; /* context switches */
    double sys;   /* system calls (NAN without a counter) */
};

/* Sequential calls on a started server: rtt[] gets each round trip, *cost the server's cost
 * per call. Stops at `calls` or at deadline; *done is how many were timed. */
static int bench_series(struct bench_proc *p, enum bench_kind kind, int calls, double deadline,
                        double *rtt, size_t *done, struct bench_cost *cost)
{
    double cpu0 = measure_cpu(p->pid), csw0 = measure_ctxsw(p->pid), sys0 = bench_syscalls(p);
    int status = BENCH_OK;

    *done = 0;
    while (*done < (size_t)calls && status == BENCH_OK && measure_now() < deadline) {
        status = bench_call(p, kind, *done == 0, deadline, &rtt[*done], NULL);
        if (status == BENCH_OK)
            (*done)++;
    }
    cost->cpu = (measure_cpu(p->pid) - cpu0) / (double)*done;
    cost->ctxsw = (measure_ctxsw(p->pid) - csw0) / (double)*done;
    cost->sys = (bench_syscalls(p) - sys0) / (double)*done;
    return status == BENCH_ERR_TIMEOUT && *done > 0 ? BENCH_OK : status;
}

static int bench_set_cpu(const struct bench *b, int pinned)
{
    cpu_set_t one;

    CPU_ZERO(&one);
    CPU_SET(b->cpu, &one);
    return sched_setaffinity(0, sizeof(cpu_set_t), pinned ? &one : &b->all) == 0 ? BENCH_OK
                                                                                 : BENCH_ERR_IO;
}

/* The five figures of a sequential series: p50, p99, p99.9 (us), CPU (us) and context
 * switches per call, in the order of the FIG_PIN_* and FIG_FREE_* rows. */
#define BENCH_SEQ_FIGS 5

/* Sequential echo round trips on a fresh server, pinned (driver and server on b->cpu) or
 * not. fig[] receives the BENCH_SEQ_FIGS figures. */
static int bench_sequential(const struct bench *b, int srv, int pinned, double *fig)
{
    double *rtt = calloc((size_t)b->n->seq_calls + (size_t)b->n->warmup, sizeof(double));
    double stop = measure_now() + b->n->budget_s, gone;
    struct bench_cost cost = {NAN, NAN, NAN};
    struct bench_proc p;
    size_t done = 0;
    int status = rtt ? bench_set_cpu(b, pinned) : BENCH_ERR_NOMEM;

    bench_proc_init(&p);
    if (status == BENCH_OK)
        status = bench_start(b, srv, b->echo_cmd[srv], 0, &p);
    if (status == BENCH_OK)
        status = bench_series(&p, CALL_ECHO, b->n->warmup, stop, rtt, &done, &cost);
    if (status == BENCH_OK)
        status = bench_series(&p, CALL_ECHO, b->n->seq_calls, stop, rtt, &done, &cost);
    if (status == BENCH_OK) {
        fig[0] = measure_quantile(rtt, done, 0.5) * 1e6;
        fig[1] = measure_quantile(rtt, done, 0.99) * 1e6;
        fig[2] = measure_quantile(rtt, done, 0.999) * 1e6;
        fig[3] = cost.cpu * 1e6;
        fig[4] = cost.ctxsw;
        if (done < (size_t)b->n->seq_calls)
            fprintf(stderr, "bench: %s: only %zu sequential calls within the budget\n",
                    bench_server_names[srv], done);
        status = bench_finish(&p, measure_now() + BENCH_EXIT_S, &gone);
    } else if (p.pid > 0) {
        bench_kill(&p);
    }
    bench_set_cpu(b, 0);
    free(rtt);
    return status;
}

/* n->rounds rounds of bench_sequential(), the servers interleaved; each figure is the median
 * of the rounds that completed. */
static void bench_rounds(struct bench *b, int pinned)
{
    double fig[SRV_COUNT][BENCH_SEQ_FIGS][BENCH_MAX_ROUNDS];
    size_t n[SRV_COUNT] = {0};

    for (int r = 0; r < b->n->rounds && r < BENCH_MAX_ROUNDS; r++) {
        for (int s = 0; s < SRV_COUNT; s++) {
            double one[BENCH_SEQ_FIGS];
            int status = b->enabled[s] ? bench_sequential(b, s, pinned, one) : BENCH_ERR_USAGE;

            if (status == BENCH_OK) {
                for (int k = 0; k < BENCH_SEQ_FIGS; k++)
                    fig[s][k][n[s]] = one[k];
                n[s]++;
            } else if (b->enabled[s]) {
                bench_log(bench_server_names[s], pinned ? "pinned calls" : "unpinned calls",
                          status);
            }
        }
    }
    for (int s = 0; s < SRV_COUNT; s++) {
        for (int k = 0; k < BENCH_SEQ_FIGS; k++)
            b->val[(pinned ? FIG_PIN_P50 : FIG_FREE_P50) + k][s] =
                measure_quantile(fig[s][k], n[s], 0.5);
    }
}

/* RSS samples of a pipelined series: one every 1/BENCH_RSS_SAMPLES of it. */
#define BENCH_RSS_SAMPLES 20

/* What a pipelined series measured. rss[k] is VmRSS (KiB) after (k + 1) / BENCH_RSS_SAMPLES
 * of the calls. */
struct bench_flow {
    long done;
    double seconds;
    double cpu;   /* server CPU seconds */
    double ctxsw; /* server context switches */
    double sys;   /* server system calls (NAN without a counter) */
    double rss[BENCH_RSS_SAMPLES];
};

/* Replies to calls of kind that arrived: counted and checked (each is a result, the first is
 * checked in full); RSS is sampled BENCH_RSS_SAMPLES times. */
static int bench_flow_replies(struct bench_proc *p, enum bench_kind kind, unsigned long long first,
                              long total, struct bench_flow *flow)
{
    const char *line;
    size_t len;

    while (bench_next_line(p, &line, &len)) {
        long long id;
        int status = bench_reply_id(line, len, &id);

        if (status != BENCH_OK)
            return status;
        if (id < 0)
            continue;
        if ((unsigned long long)id < first || (unsigned long long)id >= first + (size_t)total)
            return BENCH_ERR_REPLY;
        if (flow->done == 0 && bench_check_call(kind, line, len) != BENCH_OK)
            return BENCH_ERR_REPLY;
        flow->done++;
        if (total >= BENCH_RSS_SAMPLES && flow->done % (total / BENCH_RSS_SAMPLES) == 0 &&
            flow->done / (total / BENCH_RSS_SAMPLES) <= BENCH_RSS_SAMPLES)
            flow->rss[flow->done / (total / BENCH_RSS_SAMPLES) - 1] =
                bench_vm_kib(p->pid, "VmRSS:");
    }
    return BENCH_OK;
}

/* `total` calls of kind (CALL_ECHO or CALL_SPIN) with up to `window` in flight, until done or
 * deadline. */
static int bench_flow(struct bench_proc *p, enum bench_kind kind, int window, long total,
                      double deadline, struct bench_flow *flow)
{
    unsigned long long first = p->id;
    double t0 = measure_now(), cpu0 = measure_cpu(p->pid);
    double csw0 = measure_ctxsw(p->pid), sys0 = bench_syscalls(p);
    long sent = 0;
    int status = BENCH_OK;

    memset(flow, 0, sizeof(*flow));
    for (int k = 0; k < BENCH_RSS_SAMPLES; k++)
        flow->rss[k] = NAN;
    while (flow->done < total && status == BENCH_OK) {
        while (sent < total && sent - flow->done < window && status == BENCH_OK) {
            status = bench_queue_request(p, kind, p->id++);
            sent++;
        }
        if (status == BENCH_OK)
            status = bench_pump(p, deadline);
        if (status == BENCH_OK)
            status = bench_flow_replies(p, kind, first, total, flow);
    }
    flow->seconds = measure_now() - t0;
    flow->cpu = measure_cpu(p->pid) - cpu0;
    flow->ctxsw = measure_ctxsw(p->pid) - csw0;
    flow->sys = bench_syscalls(p) - sys0;
    return status;
}

/* A text of `bytes` letters (nothing JSON escapes) for the large echoes; owned by the
 * caller, NULL when out of memory. */
static char *bench_text(size_t bytes)
{
    char *text = malloc(bytes);

    for (size_t i = 0; text != NULL && i < bytes; i++)
        text[i] = (char)('a' + (char)(i % 26));
    return text;
}

/* Queue an echo call of `bytes` of text with request id. */
static int bench_queue_echo(struct bench_proc *p, unsigned long long id, const char *text,
                            size_t bytes)
{
    static const char tail[] = "\"}}}\n";
    char head[160];
    int n = snprintf(head, sizeof(head),
                     "{\"jsonrpc\":\"2.0\",\"id\":%llu,\"method\":\"tools/call\",\"params\":{"
                     "\"name\":\"echo\",\"arguments\":{\"text\":\"",
                     id);
    int status = bench_queue(p, head, (size_t)n);

    if (status == BENCH_OK)
        status = bench_queue(p, text, bytes);
    if (status == BENCH_OK)
        status = bench_queue(p, tail, sizeof(tail) - 1);
    return status;
}

/* One 1 MiB echo; `text` is the 1 MiB text, checked in full on the first call. */
static int bench_big_call(struct bench_proc *p, const char *text, int check, double deadline)
{
    unsigned long long id = p->id++;
    const char *line;
    size_t len;
    int status = bench_queue_echo(p, id, text, BENCH_BIG_BYTES);

    if (status == BENCH_OK)
        status = bench_wait_reply(p, id, deadline, &line, &len);
    if (status == BENCH_OK && len < BENCH_BIG_BYTES)
        status = BENCH_ERR_REPLY;
    if (status == BENCH_OK && check)
        status = bench_check_echo(line, len, text, BENCH_BIG_BYTES);
    return status;
}

/* 1 MiB echoes, one at a time: *mibps is MiB of text echoed per second. */
static int bench_big(struct bench_proc *p, int calls, double deadline, double *mibps)
{
    char *text = bench_text(BENCH_BIG_BYTES);
    double t0 = measure_now();
    int done = 0, status = text ? BENCH_OK : BENCH_ERR_NOMEM;

    while (status == BENCH_OK && done < calls && measure_now() < deadline) {
        status = bench_big_call(p, text, done == 0, deadline);
        if (status == BENCH_OK)
            done++;
    }
    *mibps = done > 0 ? (double)done / (measure_now() - t0) : NAN;
    free(text);
    return status;
}

/* The least RSS sample of quarter q (0-3) of a series: its floor, which a leak raises and
 * a transient peak (calls in flight, heap not yet trimmed) does not. */
static double bench_rss_floor(const struct bench_flow *flow, int q)
{
    double floor_kib = NAN;

    for (int k = q * BENCH_RSS_SAMPLES / 4; k < (q + 1) * BENCH_RSS_SAMPLES / 4; k++) {
        if (isnan(floor_kib) || flow->rss[k] < floor_kib)
            floor_kib = flow->rss[k];
    }
    return floor_kib;
}

static void bench_store_flow(struct bench *b, int srv, enum bench_fig tput,
                             const struct bench_flow *flow)
{
    b->val[tput][srv] = (double)flow->done / flow->seconds;
    b->val[tput + 1][srv] = flow->cpu / (double)flow->done * 1e6;
}

/* One fresh server: RSS after initialize; rss_calls pipelined calls (64 in flight) with RSS
 * at each quarter; then 1024 in flight; then 1 MiB echoes and the peak RSS after them. */
static void bench_steady(struct bench *b, int srv)
{
    struct bench_proc p;
    struct bench_flow flow;
    double gone, mibps = NAN;
    int status = bench_start(b, srv, b->echo_cmd[srv], 0, &p);

    if (status != BENCH_OK)
        goto out;
    b->val[FIG_RSS_INIT][srv] = bench_vm_kib(p.pid, "VmRSS:") / 1024.0;
    status = bench_flow(&p, CALL_ECHO, 64, b->n->rss_calls, measure_now() + b->n->budget_s, &flow);
    if (status == BENCH_OK) {
        bench_store_flow(b, srv, FIG_TPUT64, &flow);
        b->val[FIG_CSW64][srv] = flow.ctxsw / (double)flow.done;
        b->rss_done[srv] = flow.done;
        b->val[FIG_RSS_CALLS][srv] = flow.rss[BENCH_RSS_SAMPLES - 1] / 1024.0;
        b->val[FIG_RSS_GROWTH][srv] = bench_rss_floor(&flow, 3) - bench_rss_floor(&flow, 1);
        b->val[FIG_HWM_CALLS][srv] = bench_vm_kib(p.pid, "VmHWM:") / 1024.0;
        status = bench_flow(&p, CALL_ECHO, 1024, b->n->deep_calls, measure_now() + b->n->budget_s,
                            &flow);
    }
    if (status == BENCH_OK) {
        bench_store_flow(b, srv, FIG_TPUT1024, &flow);
        status = bench_big(&p, b->n->big_calls, measure_now() + b->n->budget_s, &mibps);
    }
    if (status == BENCH_OK) {
        b->val[FIG_BIG][srv] = mibps;
        b->val[FIG_HWM_BIG][srv] = bench_vm_kib(p.pid, "VmHWM:") / 1024.0;
        status = bench_finish(&p, measure_now() + BENCH_EXIT_S, &gone);
    } else {
        bench_kill(&p);
    }
out:
    if (status != BENCH_OK)
        bench_log(bench_server_names[srv], "pipelined and 1 MiB calls", status);
}

/* What the flood got back: results, and calls refused with -32000 (Server busy). */
struct bench_flood {
    long answered;
    long refused;
    char *seen; /* owned: one byte per call of the flood, set when its reply came */
};

/* Replies of the flood that arrived, ids first..first + total - 1: each call answered once,
 * by an echo result at least as long as its text (the first checked in full) or by the
 * error -32000; anything else is BENCH_ERR_REPLY. */
static int bench_flood_replies(struct bench_proc *p, const char *text, unsigned long long first,
                               long total, struct bench_flood *f)
{
    const char *line;
    size_t len;

    while (bench_next_line(p, &line, &len)) {
        const char *at = bench_find(line, len, "\"id\":", 64);
        unsigned long long id;

        if (at == NULL || bench_find(line, len, "\"method\":", 64) != NULL)
            continue; /* a notification or a request from the server */
        id = strtoull(at + 5, NULL, 10);
        if (id < first || id - first >= (unsigned long long)total || f->seen[id - first])
            return BENCH_ERR_REPLY;
        f->seen[id - first] = 1;
        if (bench_find(line, len, "\"error\":{", 4096) != NULL) {
            if (bench_find(line, len, "\"code\":-32000", 4096) == NULL)
                return BENCH_ERR_REPLY;
            f->refused++;
            continue;
        }
        if (len < BENCH_FLOOD_BYTES || bench_find(line, len, "\"isError\":true", 64) != NULL ||
            (f->answered == 0 && bench_check_echo(line, len, text, BENCH_FLOOD_BYTES) != BENCH_OK))
            return BENCH_ERR_REPLY;
        f->answered++;
    }
    return BENCH_OK;
}

/* `total` echoes of BENCH_FLOOD_BYTES, written as fast as the pipe takes them without waiting
 * for any reply (the next call is queued as soon as the pipe took the last one in full), the
 * replies read all along, until every call is answered or deadline. */
static int bench_flood_run(struct bench_proc *p, long total, double deadline, struct bench_flood *f)
{
    char *text = bench_text(BENCH_FLOOD_BYTES);
    unsigned long long first = p->id;
    long sent = 0;
    int status = text != NULL && f->seen != NULL ? BENCH_OK : BENCH_ERR_NOMEM;

    while (status == BENCH_OK && f->answered + f->refused < total) {
        while (status == BENCH_OK && sent < total && p->out_len == 0) {
            status = bench_queue_echo(p, p->id++, text, BENCH_FLOOD_BYTES);
            sent++;
        }
        if (status == BENCH_OK)
            status = bench_pump(p, deadline);
        if (status == BENCH_OK)
            status = bench_flood_replies(p, text, first, total, f);
    }
    free(text);
    return status;
}

/* A fresh server, then the flood (n->flood_calls echoes of 64 KiB, all at once): the peak RSS
 * (VmHWM) once every call is answered, and how many were refused with -32000 (mcph's
 * [server] max_pending_mb). */
static void bench_flood(struct bench *b, int srv)
{
    struct bench_flood f = {0, 0, calloc((size_t)b->n->flood_calls, 1)};
    struct bench_proc p;
    double gone;
    int status = bench_start(b, srv, b->echo_cmd[srv], 0, &p);

    if (status == BENCH_OK)
        status = bench_flood_run(&p, b->n->flood_calls, measure_now() + b->n->budget_s, &f);
    if (status == BENCH_OK) {
        b->val[FIG_HWM_FLOOD][srv] = bench_vm_kib(p.pid, "VmHWM:") / 1024.0;
        b->val[FIG_FLOOD_BUSY][srv] = (double)f.refused;
        status = bench_finish(&p, measure_now() + BENCH_EXIT_S, &gone);
    } else if (p.pid > 0) {
        fprintf(stderr, "bench: %s: flood: %ld answered and %ld refused of %d; VmHWM %.1f MiB\n",
                bench_server_names[srv], f.answered, f.refused, b->n->flood_calls,
                bench_vm_kib(p.pid, "VmHWM:") / 1024.0);
        bench_kill(&p);
    }
    if (status != BENCH_OK)
        bench_log(bench_server_names[srv], "a flood of 64 KiB echoes", status);
    free(f.seen);
}

/* The CPU-bound tool, pipelined (mcph and bare; not the SDK server): a fresh server serving
 * spin, BENCH_SPIN_WARMUP untimed calls of spin {us: BENCH_SPIN_US} with 64 in flight, then
 * n->spin_calls timed with 64 in flight: throughput and server CPU per call. */
static void bench_spin(struct bench *b, int srv)
{
    double stop = measure_now() + b->n->budget_s, gone;
    struct bench_flow flow;
    struct bench_proc p;
    int status;

    if (srv == SRV_SDK)
        return;
    status = bench_start(b, srv, b->spin_cmd[srv], 0, &p);
    if (status == BENCH_OK)
        status = bench_flow(&p, CALL_SPIN, 64, BENCH_SPIN_WARMUP, stop, &flow);
    if (status == BENCH_OK)
        status = bench_flow(&p, CALL_SPIN, 64, b->n->spin_calls, stop, &flow);
    if (status == BENCH_OK) {
        bench_store_flow(b, srv, FIG_TPUT_SPIN, &flow);
        status = bench_finish(&p, measure_now() + BENCH_EXIT_S, &gone);
    } else if (p.pid > 0) {
        bench_kill(&p);
    }
    if (status != BENCH_OK)
        bench_log(bench_server_names[srv], "pipelined CPU-bound calls", status);
}

/* tools/list of the 1,000 tools, sequential: p50, server CPU per list, reply size. */
static void bench_list(struct bench *b, int srv)
{
    double *rtt = calloc((size_t)b->n->list_calls + 10, sizeof(double));
    double stop = measure_now() + b->n->budget_s, gone;
    struct bench_cost cost = {NAN, NAN, NAN};
    struct bench_proc p;
    size_t done = 0, bytes = 0;
    int status = BENCH_ERR_NOMEM;

    bench_proc_init(&p);
    if (rtt != NULL)
        status = bench_start(b, srv, b->list_cmd[srv], 0, &p);
    if (status == BENCH_OK)
        status = bench_call(&p, CALL_LIST, 1, stop, rtt, &bytes);
    if (status == BENCH_OK)
        status = bench_series(&p, CALL_LIST, 10, stop, rtt, &done, &cost);
    if (status == BENCH_OK)
        status = bench_series(&p, CALL_LIST, b->n->list_calls, stop, rtt, &done, &cost);
    if (status == BENCH_OK) {
        b->val[FIG_LIST_P50][srv] = measure_quantile(rtt, done, 0.5) * 1e3;
        b->val[FIG_LIST_CPU][srv] = cost.cpu * 1e3;
        b->val[FIG_LIST_BYTES][srv] = (double)(bytes + 1) / 1024.0;
        status = bench_finish(&p, measure_now() + BENCH_EXIT_S, &gone);
    } else if (p.pid > 0) {
        bench_kill(&p);
    }
    if (status != BENCH_OK)
        bench_log(bench_server_names[srv], "tools/list", status);
    free(rtt);
}

/* System calls per call, on a server of its own with a counter (a counted server runs
 * slower): the warm-up, one unpinned sequential series, then deep_calls pipelined calls with
 * 64 in flight. */
static void bench_counted(struct bench *b, int srv)
{
    double *rtt = calloc((size_t)b->n->seq_calls + (size_t)b->n->warmup, sizeof(double));
    double stop = measure_now() + b->n->budget_s, gone;
    struct bench_cost cost = {NAN, NAN, NAN};
    struct bench_flow flow;
    struct bench_proc p;
    size_t done = 0;
    int status = BENCH_ERR_NOMEM;

    bench_proc_init(&p);
    if (rtt != NULL)
        status = bench_start(b, srv, b->echo_cmd[srv], 1, &p);
    if (status == BENCH_OK && p.sysfd < 0)
        status = BENCH_ERR_IO; /* bench_spawn() said why */
    if (status == BENCH_OK)
        status = bench_series(&p, CALL_ECHO, b->n->warmup, stop, rtt, &done, &cost);
    if (status == BENCH_OK)
        status = bench_series(&p, CALL_ECHO, b->n->seq_calls, stop, rtt, &done, &cost);
    if (status == BENCH_OK) {
        b->val[FIG_SYS_SEQ][srv] = cost.sys;
        status =
            bench_flow(&p, CALL_ECHO, 64, b->n->deep_calls, measure_now() + b->n->budget_s, &flow);
    }
    if (status == BENCH_OK) {
        b->val[FIG_SYS64][srv] = flow.sys / (double)flow.done;
        status = bench_finish(&p, measure_now() + BENCH_EXIT_S, &gone);
    } else if (p.pid > 0) {
        bench_kill(&p);
    }
    if (status != BENCH_OK)
        bench_log(bench_server_names[srv], "counted system calls", status);
    free(rtt);
}

/* n->pings sequential pings on a fresh server. mcph first gets BENCH_SLOW_CALLS slow calls
 * (more than its workers), and the pings must be done within BENCH_SLOW_WINDOW_S of them;
 * then the slow calls are cancelled, and a server still running BENCH_SLOW_EXIT_S later is
 * killed (logged). The bare loop has no slow tool: its pings are the floor. Not the SDK server. */
static void bench_busy_ping(struct bench *b, int srv)
{
    double *rtt = calloc((size_t)b->n->pings, sizeof(double));
    double stop = measure_now() + b->n->budget_s, gone;
    struct bench_cost cost = {NAN, NAN, NAN};
    struct bench_proc p;
    unsigned long long slow = 0;
    int slow_sent = 0, status = BENCH_ERR_NOMEM;
    size_t done = 0;

    if (srv == SRV_SDK) {
        free(rtt);
        return;
    }
    bench_proc_init(&p);
    if (rtt != NULL)
        status = bench_start(b, srv, b->echo_cmd[srv], 0, &p);
    slow = p.id;
    while (srv == SRV_MCPH && slow_sent < BENCH_SLOW_CALLS && status == BENCH_OK) {
        status = bench_queue_request(&p, CALL_SLOW, p.id++);
        slow_sent++;
    }
    if (status == BENCH_OK && slow_sent > 0) {
        stop = fmin(stop, measure_now() + BENCH_SLOW_WINDOW_S);
        bench_sleep(BENCH_SLOW_SETTLE_S);
    }
    if (status == BENCH_OK)
        status = bench_series(&p, CALL_PING, b->n->pings, stop, rtt, &done, &cost);
    if (status == BENCH_OK) {
        b->val[FIG_PING_P50][srv] = measure_quantile(rtt, done, 0.5) * 1e6;
        b->val[FIG_PING_P99][srv] = measure_quantile(rtt, done, 0.99) * 1e6;
        if (done < (size_t)b->n->pings)
            fprintf(stderr, "bench: %s: only %zu pings within the time\n", bench_server_names[srv],
                    done);
    }
    for (int i = 0; i < slow_sent && status == BENCH_OK; i++)
        status = bench_cancel(&p, slow + (unsigned long long)i);
    if (status == BENCH_OK) {
        status = bench_finish(&p, measure_now() + BENCH_SLOW_EXIT_S, &gone);
        if (status == BENCH_ERR_TIMEOUT)
            fprintf(stderr,
                    "bench: %s: still running %.1f s after its stdin was closed: "
                    "killed\n",
                    bench_server_names[srv], BENCH_SLOW_EXIT_S);
    } else if (p.pid > 0) {
        bench_kill(&p);
    }
    if (status != BENCH_OK)
        bench_log(bench_server_names[srv], "pings while the workers run slow calls", status);
    free(rtt);
}

/* ---------------------------------------------------------------------------------------
 * SIGHUP reloads (mcph only).
 * --------------------------------------------------------------------------------------- */

/* Copy src to dst (created 0755, replaced in place when it exists). */
static int bench_copy(const char *src, const char *dst)
{
    char buf[65536];
    int in = open(src, O_RDONLY | O_CLOEXEC);
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    int status = in >= 0 && out >= 0 ? BENCH_OK : BENCH_ERR_IO;
    ssize_t n = 0;

    while (status == BENCH_OK && (n = read(in, buf, sizeof(buf))) > 0) {
        if (write(out, buf, (size_t)n) != n)
            status = BENCH_ERR_IO;
    }
    if (n < 0 || (out >= 0 && fchmod(out, 0755) != 0))
        status = BENCH_ERR_IO;
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0)
        status = BENCH_ERR_IO;
    return status;
}

/* A fresh workspace DIR/hup-N (0755): pNN.so copies of bench.so and an INI serving them, each
 * with prefix pNN. ini receives the INI's path. */
static int bench_hup_workspace(const struct bench *b, int plugins, char *ini, size_t size)
{
    char ws[BENCH_PATH], so[BENCH_PATH], src[BENCH_PATH];
    FILE *f;
    int status = bench_path(ws, sizeof(ws), "%s/hup-%d", b->dir, plugins);

    if (status == BENCH_OK)
        status = bench_path(src, sizeof(src), "%s/bench.so", b->dir);
    if (status == BENCH_OK)
        status = bench_path(ini, size, "%s/mcph.ini", ws);
    if (status != BENCH_OK)
        return status;
    if ((mkdir(ws, 0755) != 0 && errno != EEXIST) || chmod(ws, 0755) != 0)
        return BENCH_ERR_IO;
    f = fopen(ini, "w");
    if (f == NULL)
        return BENCH_ERR_IO;
    fprintf(f, "; written by tests/bench/driver.c\n[server]\nname = mcph\n");
    for (int i = 1; i <= plugins && status == BENCH_OK; i++) {
        status = bench_path(so, sizeof(so), "%s/p%02d.so", ws, i);
        if (status == BENCH_OK)
            status = bench_copy(src, so);
        fprintf(f, "\n[plugin.p%02d]\npath = p%02d.so\nprefix = p%02d\n", i, i, i);
    }
    if (fclose(f) != 0)
        status = BENCH_ERR_IO;
    return status;
}

/* Rename a fresh copy of variant over DIR/hup-N/p01.so: a new file at the same path. */
static int bench_hup_swap(const struct bench *b, int plugins, const char *variant)
{
    char src[BENCH_PATH], tmp[BENCH_PATH], dst[BENCH_PATH];

    if (bench_path(src, sizeof(src), "%s/%s", b->dir, variant) != BENCH_OK ||
        bench_path(tmp, sizeof(tmp), "%s/hup-%d/.next.so", b->dir, plugins) != BENCH_OK ||
        bench_path(dst, sizeof(dst), "%s/hup-%d/p01.so", b->dir, plugins) != BENCH_OK)
        return BENCH_ERR_USAGE;
    if (bench_copy(src, tmp) != BENCH_OK || rename(tmp, dst) != 0)
        return BENCH_ERR_IO;
    return BENCH_OK;
}

/* SIGHUP, then the time until notifications/tools/list_changed arrives. */
static int bench_hup_once(struct bench_proc *p, double *seconds)
{
    double t0 = measure_now(), deadline = t0 + 10.0;
    const char *line;
    size_t len;

    if (kill(p->pid, SIGHUP) != 0)
        return BENCH_ERR_IO;
    for (;;) {
        int status;

        while (bench_next_line(p, &line, &len)) {
            if (memmem(line, len, "notifications/tools/list_changed", 32) != NULL) {
                *seconds = measure_now() - t0;
                return BENCH_OK;
            }
        }
        status = bench_pump(p, deadline);
        if (status != BENCH_OK)
            return status;
    }
}

/* mcph with `plugins` bench plugins: n->reloads times, a changed p01.so and SIGHUP. */
static void bench_hup(struct bench *b, int plugins, enum bench_fig fig)
{
    const char *argv[] = {b->mcph, NULL, NULL};
    double times[BENCH_MAX_RELOADS], rtt, gone;
    char ini[BENCH_PATH];
    struct bench_proc p;
    size_t done = 0;
    int status = bench_hup_workspace(b, plugins, ini, sizeof(ini));

    argv[1] = ini;
    if (status == BENCH_OK)
        status = bench_start(b, SRV_MCPH, argv, 0, &p);
    if (status != BENCH_OK)
        goto out;
    while (done < (size_t)b->n->reloads && done < BENCH_MAX_RELOADS && status == BENCH_OK) {
        status = bench_hup_swap(b, plugins, done % 2 ? "bench-b.so" : "bench-a.so");
        if (status == BENCH_OK)
            status = bench_hup_once(&p, &times[done]);
        /* Let the reload settle (the old instance is unloaded after it), and check that
         * mcph still answers. */
        bench_sleep(0.02);
        if (status == BENCH_OK)
            status = bench_call(&p, CALL_PING, 0, measure_now() + 10.0, &rtt, NULL);
        if (status == BENCH_OK)
            done++;
    }
    b->val[fig][SRV_MCPH] = measure_quantile(times, done, 0.5) * 1e3;
    if (status == BENCH_OK)
        status = bench_finish(&p, measure_now() + BENCH_EXIT_S, &gone);
    else
        bench_kill(&p);
out:
    if (status != BENCH_OK)
        bench_log("mcph", plugins == 1 ? "SIGHUP, 1 plugin" : "SIGHUP, 20 plugins", status);
}

/* ---------------------------------------------------------------------------------------
 * Gateway: echo through mcph's mcp plugin, against the same server direct.
 * --------------------------------------------------------------------------------------- */

/* One fresh chain of target t on side: the warm-up, then n->gw_calls timed sequential echo
 * calls, unpinned. fig[] receives the GW_FIG_COUNT figures. */
static int bench_gw_series(const struct bench *b, int t, int side, double *fig)
{
    double *rtt = calloc((size_t)b->n->gw_calls + (size_t)b->n->warmup, sizeof(double));
    double stop = measure_now() + b->n->budget_s, gone, cpu0;
    struct bench_cost cost;
    struct bench_proc p;
    pid_t tree[BENCH_MAX_TREE];
    size_t ntree = 0, done = 0;
    int status = rtt ? BENCH_OK : BENCH_ERR_NOMEM;

    bench_proc_init(&p);
    if (status == BENCH_OK)
        status = bench_start(b, SRV_MCPH, b->gw_cmd[t][side], 0, &p);
    p.echo = &bench_gw_echo[t][side];
    if (status == BENCH_OK)
        status = bench_series(&p, CALL_GW, b->n->warmup, stop, rtt, &done, &cost);
    if (status == BENCH_OK) {
        ntree = measure_tree(p.pid, tree, BENCH_MAX_TREE);
        cpu0 = measure_tree_cpu(tree, ntree);
        status = bench_series(&p, CALL_GW, b->n->gw_calls, stop, rtt, &done, &cost);
    }
    if (status == BENCH_OK && (side != GW_DIRECT || t == GW_RELAYED) && t != GW_AUDIT && ntree < 2)
        status = BENCH_ERR_SPAWN; /* no server behind the relaying mcph */
    if (status == BENCH_OK) {
        fig[GW_CPU] = (measure_tree_cpu(tree, ntree) - cpu0) / (double)done * 1e6;
        fig[GW_P50] = measure_quantile(rtt, done, 0.5) * 1e6;
        fig[GW_P99] = measure_quantile(rtt, done, 0.99) * 1e6;
        status = bench_finish(&p, measure_now() + BENCH_EXIT_S, &gone);
    } else if (p.pid > 0) {
        bench_kill(&p);
    }
    free(rtt);
    return status;
}

/* The name of a chain in messages. */
static const char *bench_gw_side_name(int t, int side)
{
    if (t == GW_AUDIT)
        return side == GW_DIRECT ? "audit off" : "audit on";
    if (t == GW_RELAYED)
        return "behind the bare relay";
    if (side == GW_DIRECT)
        return t == GW_ISOLATED ? "in process" : "direct";
    if (side == GW_CONFINED)
        return t == GW_MCPH ? "through mcph over HTTP" : "confined";
    return t == GW_ISOLATED ? "isolated" : "through mcph";
}

/* n->rounds rounds of the series (each target direct and through mcph, the plugin in process,
 * isolated and confined), interleaved; each figure is the median of the rounds that
 * completed. */
static void bench_gateway(struct bench *b)
{
    double fig[GW_TARGETS][GW_SIDES][GW_FIG_COUNT][BENCH_MAX_ROUNDS];
    size_t n[GW_TARGETS][GW_SIDES] = {{0}};

    for (int r = 0; r < b->n->rounds && r < BENCH_MAX_ROUNDS; r++) {
        for (int t = 0; t < GW_TARGETS; t++) {
            for (int side = 0; side < GW_SIDES && b->gw_cmd[t][side][0] != NULL; side++) {
                double one[GW_FIG_COUNT];
                int status = bench_gw_series(b, t, side, one);

                if (status != BENCH_OK) {
                    fprintf(stderr, "bench: gateway: %s %s: %s\n", bench_gw_names[t],
                            bench_gw_side_name(t, side), bench_status_str(status));
                    continue;
                }
                for (int k = 0; k < GW_FIG_COUNT; k++)
                    fig[t][side][k][n[t][side]] = one[k];
                n[t][side]++;
            }
        }
    }
    for (int t = 0; t < GW_TARGETS; t++) {
        for (int side = 0; side < GW_SIDES; side++) {
            for (int k = 0; k < GW_FIG_COUNT; k++)
                b->gw[t][k][side] = measure_quantile(fig[t][side][k], n[t][side], 0.5);
        }
    }
}

/* Start-up of mcph with the example plugin isolated, and isolated and confined (the chains
 * the isolation rows call): b->iso_start[side]. */
static void bench_iso_startup(struct bench *b)
{
    char log[BENCH_PATH];
    double exit_ms;

    bench_log_path(b, SRV_MCPH, log, sizeof(log));
    for (int side = GW_VIA; side < GW_SIDES; side++) {
        if (b->gw_cmd[GW_ISOLATED][side][0] != NULL)
            bench_start_medians(b, b->gw_cmd[GW_ISOLATED][side], log,
                                side == GW_CONFINED ? "mcph, confined" : "mcph, isolated",
                                &b->iso_start[side], &exit_ms);
    }
}

/* ---------------------------------------------------------------------------------------
 * Instruction counts (callgrind).
 * --------------------------------------------------------------------------------------- */

/* The total of a callgrind output file ("summary:" or "totals:" line). */
static double bench_callgrind_total(const char *path)
{
    char line[512];
    double total = NAN;
    FILE *f = fopen(path, "r");

    if (f == NULL)
        return NAN;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (strncmp(line, "summary:", 8) == 0)
            total = strtod(line + 8, NULL);
        else if (strncmp(line, "totals:", 7) == 0 && isnan(total))
            total = strtod(line + 7, NULL);
    }
    fclose(f);
    return total;
}

/* The server under callgrind: handshake, `calls` requests, EOF. *instr is its total. */
static int bench_callgrind_run(const struct bench *b, int srv, enum bench_kind kind, int calls,
                               double *instr)
{
    const char *const *cmd = kind == CALL_LIST ? b->list_cmd[srv] : b->echo_cmd[srv];
    const char *argv[BENCH_MAX_ARGV + 4] = {b->valgrind, "--tool=callgrind"};
    char out[BENCH_PATH], opt[BENCH_PATH];
    struct bench_proc p;
    double rtt, gone, deadline;
    int argc = 2, status;

    if (bench_path(out, sizeof(out), "%s/callgrind/%s-%s-%d.out", b->dir, bench_server_names[srv],
                   kind == CALL_LIST ? "list" : "echo", calls) != BENCH_OK ||
        bench_path(opt, sizeof(opt), "--callgrind-out-file=%s", out) != BENCH_OK)
        return BENCH_ERR_USAGE;
    argv[argc++] = opt;
    for (int i = 0; cmd[i] != NULL && argc < BENCH_MAX_ARGV + 3; i++)
        argv[argc++] = cmd[i];
    status = bench_start(b, srv, argv, 0, &p);
    deadline = measure_now() + 10 * b->n->budget_s;
    for (int i = 0; i < calls && status == BENCH_OK; i++)
        status = bench_call(&p, kind, i == 0, deadline, &rtt, NULL);
    if (status == BENCH_OK)
        status = bench_finish(&p, measure_now() + 2 * BENCH_START_S, &gone);
    else if (p.pid > 0)
        bench_kill(&p);
    *instr = status == BENCH_OK ? bench_callgrind_total(out) : NAN;
    return status;
}

/* Instructions per call: the difference of two runs, so start-up and exit cancel out. */
static void bench_callgrind(struct bench *b, int srv, enum bench_kind kind, enum bench_fig fig)
{
    const int *calls = kind == CALL_LIST ? b->n->cg_list[srv] : b->n->cg_echo;
    double instr[2] = {NAN, NAN};
    int status = BENCH_OK;

    for (int i = 0; i < 2 && status == BENCH_OK; i++)
        status = bench_callgrind_run(b, srv, kind, calls[i], &instr[i]);
    if (status != BENCH_OK) {
        bench_log(bench_server_names[srv], "callgrind", status);
        return;
    }
    b->val[fig][srv] = (instr[1] - instr[0]) / (double)(calls[1] - calls[0]);
}

/* ---------------------------------------------------------------------------------------
 * Output.
 * --------------------------------------------------------------------------------------- */

static void bench_machine(void)
{
    char line[512], model[256] = "unknown CPU";
    double mem_kib = NAN;
    struct utsname u;
    FILE *f = fopen("/proc/cpuinfo", "r");

    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        char *colon = strchr(line, ':');

        if (strncmp(line, "model name", 10) == 0 && colon != NULL) {
            snprintf(model, sizeof(model), "%s", colon + 2);
            model[strcspn(model, "\n")] = '\0';
            break;
        }
    }
    if (f != NULL)
        fclose(f);
    f = fopen("/proc/meminfo", "r");
    if (f != NULL && fgets(line, sizeof(line), f) != NULL && strncmp(line, "MemTotal:", 9) == 0)
        mem_kib = strtod(line + 9, NULL);
    if (f != NULL)
        fclose(f);
    if (uname(&u) != 0)
        snprintf(u.release, sizeof(u.release), "unknown");
    fprintf(stdout, "machine: %s, %ld CPUs online, %.1f GiB, Linux %s\n", model,
            sysconf(_SC_NPROCESSORS_ONLN), mem_kib / 1048576.0, u.release);
}

static void bench_table(const struct bench *b)
{
    int width = 0;

    for (int f = 0; f < FIG_COUNT; f++) {
        int len = (int)strlen(bench_rows[f].label);

        width = len > width ? len : width;
    }
    fprintf(stdout, "\n%-*s %-6s %10s %10s %10s %10s %10s\n", width, "figure", "unit", "mcph",
            "bare", "sdk", "mcph/bare", "sdk/mcph");
    for (int f = 0; f < FIG_COUNT; f++) {
        const struct bench_row *r = &bench_rows[f];

        fprintf(stdout, "%-*s %-6s", width, r->label, r->unit);
        for (int s = 0; s < SRV_COUNT; s++)
            measure_put(b->val[f][s], r->decimals, 10);
        measure_put_ratio(b->val[f][SRV_MCPH] / b->val[f][SRV_BARE], 10);
        measure_put_ratio(b->val[f][SRV_SDK] / b->val[f][SRV_MCPH], 10);
        fprintf(stdout, "\n");
    }
    fprintf(stdout, "(x/y is a ratio of the figures; rows in call/s and MiB/s are better higher, "
                    "all others lower)\n");
}

/* The rows of targets [from, to): each direct and through the second process, and the
 * difference. */
static void bench_gw_table(const struct bench *b, int from, int to, const char *title,
                           const char *direct, const char *via, const char *note)
{
    char label[160];
    int width = (int)strlen(title);

    for (int t = from; t < to; t++) {
        for (int f = 0; f < GW_FIG_COUNT; f++) {
            int len = snprintf(label, sizeof(label), "%s to %s, %s", bench_gw_rows[f].head,
                               bench_gw_names[t], bench_gw_rows[f].tail);

            width = len > width ? len : width;
        }
    }
    fprintf(stdout, "\n%-*s %-6s %10s %10s %10s\n", width, title, "unit", direct, via, "overhead");
    for (int t = from; t < to; t++) {
        for (int f = 0; f < GW_FIG_COUNT; f++) {
            const struct bench_gw_row *r = &bench_gw_rows[f];
            const double *v = b->gw[t][f];

            snprintf(label, sizeof(label), "%s to %s, %s", r->head, bench_gw_names[t], r->tail);
            fprintf(stdout, "%-*s %-6s", width, label, r->unit);
            measure_put(v[GW_DIRECT], r->decimals, 10);
            measure_put(v[GW_VIA], r->decimals, 10);
            measure_put(v[GW_VIA] - v[GW_DIRECT], r->decimals, 10);
            fprintf(stdout, "\n");
        }
    }
    fprintf(stdout, "%s\n", note);
}

/* The hop rows: mcph direct, through mcph on stdio, and through mcph over HTTP (its relay to
 * a second mcph listening on loopback), and what each hop adds; then the floor of a hop, mcph
 * behind the bare relay, and what it adds. */
static void bench_hop_report(const struct bench *b)
{
    char label[160];
    int width = 0;

    for (int f = 0; f < GW_FIG_COUNT; f++) {
        int len = snprintf(label, sizeof(label), "%s to mcph, %s", bench_gw_rows[f].head,
                           bench_gw_rows[f].tail);

        width = len > width ? len : width;
    }
    fprintf(stdout, "\n%-*s %-6s %10s %10s %10s %10s %10s %10s %10s\n", width,
            "gateway hop: stdio and HTTP", "unit", "direct", "stdio hop", "HTTP hop", "+stdio",
            "+HTTP", "bare relay", "+relay");
    for (int f = 0; f < GW_FIG_COUNT; f++) {
        const struct bench_gw_row *r = &bench_gw_rows[f];
        const double *v = b->gw[GW_MCPH][f];

        snprintf(label, sizeof(label), "%s to mcph, %s", r->head, r->tail);
        fprintf(stdout, "%-*s %-6s", width, label, r->unit);
        measure_put(v[GW_DIRECT], r->decimals, 10);
        measure_put(v[GW_VIA], r->decimals, 10);
        measure_put(v[GW_CONFINED], r->decimals, 10);
        measure_put(v[GW_VIA] - v[GW_DIRECT], r->decimals, 10);
        measure_put(v[GW_CONFINED] - v[GW_DIRECT], r->decimals, 10);
        measure_put(b->gw[GW_RELAYED][f][GW_DIRECT], r->decimals, 10);
        measure_put(b->gw[GW_RELAYED][f][GW_DIRECT] - v[GW_DIRECT], r->decimals, 10);
        fprintf(stdout, "\n");
    }
    fprintf(stdout, "(stdio hop: mcph's mcp plugin starting the second mcph; HTTP hop: a url "
                    "section, mcph's relay to the second mcph on 127.0.0.1 over plain HTTP, "
                    "keep-alive; CPU counts every process of the chain, the relay and the "
                    "second mcph included; bare relay: the first mcph behind tests/bench/relay.c, "
                    "a process that copies bytes between two pipe pairs: the floor of a hop)\n");
}

/* One row of the isolation table: in process, isolated, confined, and what each step adds;
 * then the in-process chain behind the bare relay (relay), and what that adds. */
static void bench_iso_row(int width, const char *label, const char *unit, const double *v,
                          double relay, int decimals)
{
    fprintf(stdout, "%-*s %-6s", width, label, unit);
    for (int side = 0; side < GW_SIDES; side++)
        measure_put(v[side], decimals, 10);
    measure_put(v[GW_VIA] - v[GW_DIRECT], decimals, 10);
    measure_put(v[GW_CONFINED] - v[GW_VIA], decimals, 10);
    measure_put(relay, decimals, 10);
    measure_put(relay - v[GW_DIRECT], decimals, 10);
    fprintf(stdout, "\n");
}

/* The isolation rows: the example plugin in process, isolated, and isolated and confined. */
static void bench_iso_report(const struct bench *b)
{
    const char *const *iso = b->gw_cmd[GW_ISOLATED][GW_VIA];
    const char *const *conf = b->gw_cmd[GW_ISOLATED][GW_CONFINED];
    const char *start = "start-up to initialize reply (mcph and its child), median";
    int width = (int)strlen(start);
    char label[160];

    for (int f = 0; f < GW_FIG_COUNT; f++) {
        int len = snprintf(label, sizeof(label), "%s to %s, %s", bench_gw_rows[f].head,
                           bench_gw_names[GW_ISOLATED], bench_gw_rows[f].tail);

        width = len > width ? len : width;
    }

    fprintf(stdout,
            "\nisolation: %d rounds of %d sequential calls (after %d) per chain, %d starts; in "
            "process: %s %s | isolated: %s %s | confined: %s %s\n",
            b->n->rounds, b->n->gw_calls, b->n->warmup, b->n->starts,
            b->gw_cmd[GW_ISOLATED][GW_DIRECT][0], b->gw_cmd[GW_ISOLATED][GW_DIRECT][1], iso[0],
            iso[1], conf[0] ? conf[0] : "-", conf[0] ? conf[1] : "");
    fprintf(stdout, "%-*s %-6s %10s %10s %10s %10s %10s %10s %10s\n", width,
            "isolate = process: echo of one plugin", "unit", "in proc", "isolated", "confined",
            "+isolate", "+confine", "bare relay", "+relay");
    for (int f = 0; f < GW_FIG_COUNT; f++) {
        const struct bench_gw_row *r = &bench_gw_rows[f];

        snprintf(label, sizeof(label), "%s to %s, %s", r->head, bench_gw_names[GW_ISOLATED],
                 r->tail);
        bench_iso_row(width, label, r->unit, b->gw[GW_ISOLATED][f], b->gw[GW_RELAYED][f][GW_DIRECT],
                      r->decimals);
    }
    bench_iso_row(width, start, "ms", b->iso_start, NAN, 2);
    fprintf(stdout, "(in proc: the example plugin in mcph's process (the default deployment); "
                    "isolated: the same plugin with isolate = process, its calls relayed to a "
                    "child mcph; confined: that child confined; +isolate = isolated - in proc, "
                    "+confine = confined - isolated; start-up: the isolated INIs only; bare "
                    "relay: the in-process chain behind tests/bench/relay.c, one more process "
                    "and pipe pair, +relay = bare relay - in proc)\n");
}

/* The audit rows: the example plugin's echo with [server] audit off and on, in the same
 * rounds; the target is at most 1.5 us more server CPU per call. */
static void bench_audit_report(const struct bench *b)
{
    const char *head = "audit log: echo of one plugin";
    int width = (int)strlen(head);
    char label[160];
    double more;

    for (int f = 0; f < GW_FIG_COUNT; f++) {
        int len =
            snprintf(label, sizeof(label), "%s, %s", bench_gw_rows[f].head, bench_gw_rows[f].tail);

        width = len > width ? len : width;
    }
    fprintf(stdout,
            "\naudit: %d rounds of %d sequential calls (after %d) per side; off: %s %s | "
            "on: %s %s\n",
            b->n->rounds, b->n->gw_calls, b->n->warmup, b->gw_cmd[GW_AUDIT][GW_DIRECT][0],
            b->gw_cmd[GW_AUDIT][GW_DIRECT][1], b->gw_cmd[GW_AUDIT][GW_VIA][0],
            b->gw_cmd[GW_AUDIT][GW_VIA][1]);
    fprintf(stdout, "%-*s %-6s %10s %10s %10s %10s\n", width, head, "unit", "off", "on", "+audit",
            "on/off");
    for (int f = 0; f < GW_FIG_COUNT; f++) {
        const double *v = b->gw[GW_AUDIT][f];

        snprintf(label, sizeof(label), "%s, %s", bench_gw_rows[f].head, bench_gw_rows[f].tail);
        fprintf(stdout, "%-*s %-6s", width, label, bench_gw_rows[f].unit);
        measure_put(v[GW_DIRECT], bench_gw_rows[f].decimals, 10);
        measure_put(v[GW_VIA], bench_gw_rows[f].decimals, 10);
        measure_put(v[GW_VIA] - v[GW_DIRECT], bench_gw_rows[f].decimals, 10);
        measure_put(v[GW_VIA] / v[GW_DIRECT], 2, 10);
        fprintf(stdout, "\n");
    }
    more = b->gw[GW_AUDIT][GW_CPU][GW_VIA] - b->gw[GW_AUDIT][GW_CPU][GW_DIRECT];
    fprintf(stdout, "(off: the example plugin alone; on: the same with [server] audit, its "
                    "writer thread counted; +audit = on - off, per call)\n");
    if (isnan(more))
        fprintf(stdout, "  n/a   audit log: at most 1.5 us more server CPU per echo call: not "
                        "measured\n");
    else
        fprintf(stdout,
                "  %-5s audit log: at most 1.5 us more server CPU per echo call: %+.2f us\n",
                more <= 1.5 ? "PASS" : "MISS", more);
}

/* One verdict line: PASS, MISS or n/a, mcph's standing, and by how much a miss misses. */
static void bench_verdict(const struct bench *b, const struct bench_target *t)
{
    const double *v = b->val[t->fig];
    int absolute = t->rule == RULE_MAX || t->rule == RULE_AT_MOST;
    int at_least = t->rule == RULE_BARE_MIN || t->rule == RULE_SDK_MIN;
    int plus = t->rule == RULE_BARE_PLUS;
    double x = absolute                  ? v[SRV_MCPH]
               : plus                    ? v[SRV_MCPH] - v[SRV_BARE]
               : t->rule == RULE_SDK_MIN ? v[SRV_SDK] / v[SRV_MCPH]
                                         : v[SRV_MCPH] / v[SRV_BARE];
    int pass = t->rule == RULE_MAX ? x < t->limit : at_least ? x >= t->limit : x <= t->limit;

    if (isnan(x) || isinf(x)) {
        fprintf(stdout, "  n/a   %s: not measured\n", t->text);
        return;
    }
    fprintf(stdout, "  %-5s %s: ", pass ? "PASS" : "MISS", t->text);
    if (absolute)
        fprintf(stdout, "%.2f %s", x, bench_rows[t->fig].unit);
    else if (plus)
        fprintf(stdout, "mcph - bare %.2f %s", x, bench_rows[t->fig].unit);
    else
        fprintf(stdout, "%s %.2fx", t->rule == RULE_SDK_MIN ? "sdk/mcph" : "mcph/bare", x);
    if (!pass && at_least)
        fprintf(stdout, " (%.2fx short of the target)", t->limit / x);
    else if (!pass && plus)
        fprintf(stdout, " (%.2f %s over the target)", x - t->limit, bench_rows[t->fig].unit);
    else if (!pass)
        fprintf(stdout, " (%.2fx the target)", x / t->limit);
    fprintf(stdout, "\n");
}

/* One verdict line of a hop target: PASS, MISS or n/a, what the hop adds, and what the bare
 * relay adds. */
static void bench_hop_verdict(const struct bench *b, const struct bench_hop_target *h)
{
    const double *v = b->gw[h->t][h->fig];
    double more = v[h->side] - v[GW_DIRECT];
    double relay = b->gw[GW_RELAYED][h->fig][GW_DIRECT] - v[GW_DIRECT];

    if (isnan(more)) {
        fprintf(stdout, "  n/a   %s: not measured\n", h->text);
        return;
    }
    fprintf(stdout, "  %-5s %s: %+.2f us", more <= h->limit ? "PASS" : "MISS", h->text, more);
    if (more > h->limit)
        fprintf(stdout, " (%.2f us over the target)", more - h->limit);
    if (!isnan(relay))
        fprintf(stdout, "; bare relay %+.2f us", relay);
    fprintf(stdout, "\n");
}

static void bench_report(const struct bench *b)
{
    fprintf(stdout, "\nmcph bench (%s run)\n", b->n->caption);
    bench_machine();
    fprintf(stdout, "mcph: %s %s | bare: %s | sdk: %s %s\n", b->echo_cmd[SRV_MCPH][0],
            b->echo_cmd[SRV_MCPH][1], b->echo_cmd[SRV_BARE][0], b->echo_cmd[SRV_SDK][0],
            b->echo_cmd[SRV_SDK][1]);
    fprintf(stdout,
            "counts: %d starts, %d rounds of %d sequential calls (after %d), %d pipelined "
            "calls (64 in "
            "flight; mcph reached %ld), %d (1024 in flight), %d spin {us: " BENCH_SPIN_US "} "
            "(64 in flight, after %d), %d x 1 MiB, a flood of %d x 64 KiB, %d tools/list, "
            "%d reloads, callgrind %d vs %d echo calls and %d vs %d lists (bare %d vs %d), "
            "%d pings (mcph: behind %d slow calls); system calls: %s\n",
            b->n->starts, b->n->rounds, b->n->seq_calls, b->n->warmup, b->n->rss_calls,
            b->rss_done[SRV_MCPH], b->n->deep_calls, b->n->spin_calls, BENCH_SPIN_WARMUP,
            b->n->big_calls, b->n->flood_calls, b->n->list_calls, b->n->reloads, b->n->cg_echo[0],
            b->n->cg_echo[1], b->n->cg_list[SRV_MCPH][0], b->n->cg_list[SRV_MCPH][1],
            b->n->cg_list[SRV_BARE][0], b->n->cg_list[SRV_BARE][1], b->n->pings, BENCH_SLOW_CALLS,
            b->sys_enter >= 0 ? "perf_event_open, raw_syscalls:sys_enter, counted servers of "
                                "their own (1 sequential series, then 64 in flight)"
                              : "not counted (see stderr)");
    bench_table(b);
    if (b->gw_cmd[GW_EVERYTHING][GW_DIRECT][0] != NULL) {
        fprintf(stdout,
                "\ngateway: %d rounds of %d sequential calls (after %d) per side; "
                "server-everything: %s | through mcph: %s %s; mcph: %s %s | through "
                "mcph: %s %s\n",
                b->n->rounds, b->n->gw_calls, b->n->warmup, b->gw_cmd[GW_EVERYTHING][GW_DIRECT][1],
                b->gw_cmd[GW_EVERYTHING][GW_VIA][0], b->gw_cmd[GW_EVERYTHING][GW_VIA][1],
                b->gw_cmd[GW_MCPH][GW_DIRECT][0], b->gw_cmd[GW_MCPH][GW_DIRECT][1],
                b->gw_cmd[GW_MCPH][GW_VIA][0], b->gw_cmd[GW_MCPH][GW_VIA][1]);
        bench_gw_table(b, GW_EVERYTHING, GW_ISOLATED, "gateway: echo through mcph's mcp plugin",
                       "direct", "via mcph",
                       "(direct: the server alone; via mcph: mcph's mcp plugin in front of it; "
                       "overhead = via mcph - direct, per call)");
    }
    if (b->gw_cmd[GW_MCPH][GW_CONFINED][0] != NULL)
        bench_hop_report(b);
    if (b->gw_cmd[GW_ISOLATED][GW_VIA][0] != NULL)
        bench_iso_report(b);
    if (b->gw_cmd[GW_AUDIT][GW_VIA][0] != NULL)
        bench_audit_report(b);
    fprintf(stdout, "\ntargets (mcph):\n");
    for (const struct bench_target *t = bench_targets; t->text != NULL; t++)
        bench_verdict(b, t);
    for (const struct bench_hop_target *h = bench_hop_targets; h->text != NULL; h++)
        bench_hop_verdict(b, h);
    if (b->rss_done[SRV_MCPH] < 200000)
        fprintf(stdout, "  note: RSS was read after %ld calls, not 200,000 (QUICK or budget)\n",
                b->rss_done[SRV_MCPH]);
}

/* ---------------------------------------------------------------------------------------
 * main.
 * --------------------------------------------------------------------------------------- */

struct bench_args {
    const char *mcph, *conf, *list_conf, *spin_conf, *dir, *sdk, *node, *valgrind, *only, *bare;
    const char *gw_everything, *gw_everything_conf, *gw_mcph_conf, *gw_isolate_conf;
    const char *gw_confine_conf, *gw_http_hop, *audit_conf, *audit_off_conf, *gw_relay;
    char bare_path[BENCH_PATH];
    int quick;
};

static int bench_parse(int argc, char **argv, struct bench_args *a)
{
    const char *quick = getenv("QUICK");

    a->node = "node";
    a->quick = quick != NULL && *quick != '\0' && strcmp(quick, "0") != 0;
    for (int i = 1; i < argc; i++) {
        const char **slot = NULL;

        if (strcmp(argv[i], "--quick") == 0)
            a->quick = 1;
        else if (strcmp(argv[i], "--mcph") == 0)
            slot = &a->mcph;
        else if (strcmp(argv[i], "--conf") == 0)
            slot = &a->conf;
        else if (strcmp(argv[i], "--list-conf") == 0)
            slot = &a->list_conf;
        else if (strcmp(argv[i], "--spin-conf") == 0)
            slot = &a->spin_conf;
        else if (strcmp(argv[i], "--dir") == 0)
            slot = &a->dir;
        else if (strcmp(argv[i], "--sdk") == 0)
            slot = &a->sdk;
        else if (strcmp(argv[i], "--node") == 0)
            slot = &a->node;
        else if (strcmp(argv[i], "--valgrind") == 0)
            slot = &a->valgrind;
        else if (strcmp(argv[i], "--only") == 0)
            slot = &a->only;
        else if (strcmp(argv[i], "--gw-everything") == 0)
            slot = &a->gw_everything;
        else if (strcmp(argv[i], "--gw-everything-conf") == 0)
            slot = &a->gw_everything_conf;
        else if (strcmp(argv[i], "--gw-mcph-conf") == 0)
            slot = &a->gw_mcph_conf;
        else if (strcmp(argv[i], "--gw-isolate-conf") == 0)
            slot = &a->gw_isolate_conf;
        else if (strcmp(argv[i], "--gw-confine-conf") == 0)
            slot = &a->gw_confine_conf;
        else if (strcmp(argv[i], "--gw-http-hop") == 0)
            slot = &a->gw_http_hop;
        else if (strcmp(argv[i], "--gw-relay") == 0)
            slot = &a->gw_relay;
        else if (strcmp(argv[i], "--audit-conf") == 0)
            slot = &a->audit_conf;
        else if (strcmp(argv[i], "--audit-off-conf") == 0)
            slot = &a->audit_off_conf;
        else
            return BENCH_ERR_USAGE;
        if (slot != NULL && ++i >= argc)
            return BENCH_ERR_USAGE;
        if (slot != NULL)
            *slot = argv[i];
    }
    if (!a->mcph || !a->conf || !a->list_conf || !a->spin_conf || !a->dir || !a->sdk)
        return BENCH_ERR_USAGE;
    if ((a->gw_everything != NULL) != (a->gw_everything_conf != NULL) ||
        (a->gw_everything != NULL) != (a->gw_mcph_conf != NULL))
        return BENCH_ERR_USAGE; /* the gateway rows need all three */
    if (a->gw_confine_conf != NULL && a->gw_isolate_conf == NULL)
        return BENCH_ERR_USAGE; /* the confined chain is a column of the isolation rows */
    if (a->gw_http_hop != NULL && a->gw_mcph_conf == NULL)
        return BENCH_ERR_USAGE; /* the HTTP hop is a column of the mcph gateway rows */
    a->bare = a->bare_path;
    return bench_path(a->bare_path, sizeof(a->bare_path), "%s/bare", a->dir);
}

/* The gateway chains, when the three --gw- arguments are given; every figure NAN. */
static void bench_setup_gateway(struct bench *b, const struct bench_args *a)
{
    const char *ev[] = {a->node, a->gw_everything, "stdio", NULL};
    const char *ev_via[] = {a->mcph, a->gw_everything_conf, NULL};
    const char *mcph[] = {a->mcph, a->conf, NULL}, *mcph_via[] = {a->mcph, a->gw_mcph_conf, NULL};
    const char *isolated[] = {a->mcph, a->gw_isolate_conf, NULL};
    const char *confined[] = {a->mcph, a->gw_confine_conf, NULL};
    const char *http_hop[] = {a->gw_http_hop, a->mcph, a->conf, NULL};
    const char *audited[] = {a->mcph, a->audit_conf, NULL};
    const char *unaudited[] = {a->mcph, a->audit_off_conf, NULL};
    const char *relayed[] = {a->gw_relay, "--", a->mcph, a->conf, NULL};

    for (int t = 0; t < GW_TARGETS; t++) {
        for (int f = 0; f < GW_FIG_COUNT; f++) {
            for (int side = 0; side < GW_SIDES; side++)
                b->gw[t][f][side] = NAN;
        }
    }
    for (int side = 0; side < GW_SIDES; side++)
        b->iso_start[side] = NAN;
    if (a->gw_isolate_conf != NULL) {
        memcpy(b->gw_cmd[GW_ISOLATED][GW_DIRECT], mcph, sizeof(mcph));
        memcpy(b->gw_cmd[GW_ISOLATED][GW_VIA], isolated, sizeof(isolated));
    }
    if (a->gw_confine_conf != NULL)
        memcpy(b->gw_cmd[GW_ISOLATED][GW_CONFINED], confined, sizeof(confined));
    if (a->gw_relay != NULL)
        memcpy(b->gw_cmd[GW_RELAYED][GW_DIRECT], relayed, sizeof(relayed));
    if (a->audit_conf != NULL && a->audit_off_conf != NULL) {
        memcpy(b->gw_cmd[GW_AUDIT][GW_DIRECT], unaudited, sizeof(unaudited));
        memcpy(b->gw_cmd[GW_AUDIT][GW_VIA], audited, sizeof(audited));
    }
    if (a->gw_everything == NULL)
        return;
    memcpy(b->gw_cmd[GW_EVERYTHING][GW_DIRECT], ev, sizeof(ev));
    memcpy(b->gw_cmd[GW_EVERYTHING][GW_VIA], ev_via, sizeof(ev_via));
    memcpy(b->gw_cmd[GW_MCPH][GW_DIRECT], mcph, sizeof(mcph));
    memcpy(b->gw_cmd[GW_MCPH][GW_VIA], mcph_via, sizeof(mcph_via));
    if (a->gw_http_hop != NULL)
        memcpy(b->gw_cmd[GW_MCPH][GW_CONFINED], http_hop, sizeof(http_hop));
}

static void bench_setup(struct bench *b, const struct bench_args *a)
{
    const char *mcph[] = {a->mcph, a->conf, NULL}, *mcph_list[] = {a->mcph, a->list_conf, NULL};
    const char *mcph_spin[] = {a->mcph, a->spin_conf, NULL};
    const char *bare[] = {a->bare, NULL};
    const char *sdk[] = {a->node, a->sdk, NULL}, *sdk_list[] = {a->node, a->sdk, "--list", NULL};

    memset(b, 0, sizeof(*b));
    b->n = a->quick ? &bench_quick : &bench_full;
    b->dir = a->dir;
    b->mcph = a->mcph;
    b->valgrind = a->valgrind;
    memcpy(b->echo_cmd[SRV_MCPH], mcph, sizeof(mcph));
    memcpy(b->list_cmd[SRV_MCPH], mcph_list, sizeof(mcph_list));
    memcpy(b->echo_cmd[SRV_BARE], bare, sizeof(bare));
    memcpy(b->list_cmd[SRV_BARE], bare, sizeof(bare));
    memcpy(b->spin_cmd[SRV_MCPH], mcph_spin, sizeof(mcph_spin));
    memcpy(b->spin_cmd[SRV_BARE], bare, sizeof(bare));
    memcpy(b->echo_cmd[SRV_SDK], sdk, sizeof(sdk));
    memcpy(b->list_cmd[SRV_SDK], sdk_list, sizeof(sdk_list));
    for (int s = 0; s < SRV_COUNT; s++)
        b->enabled[s] = a->only == NULL || strstr(a->only, bench_server_names[s]) != NULL;
    for (int f = 0; f < FIG_COUNT; f++) {
        for (int s = 0; s < SRV_COUNT; s++)
            b->val[f][s] = NAN;
    }
    bench_setup_gateway(b, a);
    b->sys_enter = bench_sys_probe();
    sched_getaffinity(0, sizeof(b->all), &b->all);
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, &b->all))
            b->cpu = c;
    }
}

static void bench_dirs(const struct bench *b)
{
    char path[BENCH_PATH];

    if (bench_path(path, sizeof(path), "%s/logs", b->dir) == BENCH_OK)
        mkdir(path, 0755);
    if (bench_path(path, sizeof(path), "%s/callgrind", b->dir) == BENCH_OK)
        mkdir(path, 0755);
}

/* Both instruction counts of one server; the SDK server is left out (a JIT under valgrind
 * measures valgrind). */
static void bench_instructions(struct bench *b, int srv)
{
    if (b->valgrind == NULL || srv == SRV_SDK)
        return;
    bench_callgrind(b, srv, CALL_ECHO, FIG_INSTR_ECHO);
    bench_callgrind(b, srv, CALL_LIST, FIG_INSTR_LIST);
}

/* One phase for every enabled server in turn. */
static void bench_phase(struct bench *b, const char *what, void (*run)(struct bench *, int))
{
    for (int s = 0; s < SRV_COUNT; s++) {
        if (!b->enabled[s])
            continue;
        fprintf(stderr, "bench: %s: %s\n", bench_server_names[s], what);
        run(b, s);
    }
}

/* Phase by phase, so that a noisy spell on the machine is shared by the servers. */
static void bench_run(struct bench *b)
{
    bench_phase(b, "start-up", bench_startup);
    fprintf(stderr, "bench: sequential calls, same CPU, %d rounds\n", b->n->rounds);
    bench_rounds(b, 1);
    fprintf(stderr, "bench: sequential calls, unpinned, %d rounds\n", b->n->rounds);
    bench_rounds(b, 0);
    bench_phase(b, "pipelined calls, RSS, 1 MiB echoes", bench_steady);
    bench_phase(b, "a flood of 64 KiB echoes, peak RSS", bench_flood);
    bench_phase(b, "pipelined CPU-bound calls (mcph and bare)", bench_spin);
    bench_phase(b, "tools/list of 1,000 tools", bench_list);
    if (b->sys_enter >= 0)
        bench_phase(b, "system calls (a counted server)", bench_counted);
    bench_phase(b, "pings while the workers run slow calls (mcph and bare)", bench_busy_ping);
    if (b->valgrind != NULL)
        bench_phase(b, "callgrind", bench_instructions);
    if (b->enabled[SRV_MCPH]) {
        fprintf(stderr, "bench: mcph: SIGHUP with 1 and 20 plugins\n");
        bench_hup(b, 1, FIG_HUP1);
        bench_hup(b, 20, FIG_HUP20);
    }
    if (b->enabled[SRV_MCPH] && (b->gw_cmd[GW_EVERYTHING][GW_DIRECT][0] != NULL ||
                                 b->gw_cmd[GW_ISOLATED][GW_DIRECT][0] != NULL ||
                                 b->gw_cmd[GW_AUDIT][GW_DIRECT][0] != NULL ||
                                 b->gw_cmd[GW_RELAYED][GW_DIRECT][0] != NULL)) {
        fprintf(stderr,
                "bench: gateway: echo direct and through the mcp plugin, and of a plugin in "
                "process, isolated and confined, %d rounds\n",
                b->n->rounds);
        bench_gateway(b);
    }
    if (b->enabled[SRV_MCPH] && b->gw_cmd[GW_ISOLATED][GW_VIA][0] != NULL) {
        fprintf(stderr, "bench: mcph: start-up with the plugin isolated, and confined\n");
        bench_iso_startup(b);
    }
}

int main(int argc, char **argv)
{
    struct bench_args args;
    struct bench *b = malloc(sizeof(*b));
    struct sigaction sa;

    memset(&args, 0, sizeof(args));
    if (b == NULL || bench_parse(argc, argv, &args) != BENCH_OK) {
        fprintf(
            stderr,
            "usage: driver [--quick] [--only mcph,bare,sdk] --mcph BIN --conf INI "
            "--list-conf INI --spin-conf INI --dir DIR --sdk SCRIPT [--node NODE] "
            "[--valgrind VALGRIND] [--gw-everything SCRIPT --gw-everything-conf INI "
            "--gw-mcph-conf INI] [--gw-http-hop SCRIPT] [--gw-relay RELAY] [--gw-isolate-conf INI "
            "[--gw-confine-conf INI]]\n"
            "              [--audit-conf INI --audit-off-conf INI]\n");
        free(b);
        return 2;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    bench_setup(b, &args);
    bench_dirs(b);
    bench_run(b);
    bench_report(b);
    free(b);
    return 0;
}
