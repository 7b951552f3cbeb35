/*
 * fault.c: a plugin that crashes on request, for tests/isolate/ (isolate = process). Served in
 * process it would take mcph down with it: its sections always run in a child.
 *
 * - ok: answers "ok TEXT pid N" (and " label L" when the section sets `label`), the pid of
 *   the process that runs it, so a test sees a restart; `delay_ms` keeps it in flight first
 *   (polling cancellation every 10 ms).
 * - crash: dies the way `how` says: null (a volatile store through a NULL pointer read from
 *   a volatile, so the compiler can neither drop it nor turn it into a trap), abort, exit3
 *   (_exit(3)), stack (unbounded recursion that is no tail call), loop (a busy loop that
 *   never ends), alloc (16 MiB blocks, each written to, until malloc fails, then a store
 *   through the NULL it returned: the crash max_memory causes; it gives up with a tool error
 *   after FAULT_ALLOC_MAX bytes, so a missing limit fails a test instead of exhausting the
 *   machine).
 * - fault://crash (a resource) and crash (a prompt): a NULL store when read or got.
 * - fault://wait (a resource) and wait (a prompt): answer after `wait_ms` (default 200), so a
 *   test can have a read and a get in flight when the process dies.
 * - crash_in_init_file: when the file it names exists (relative to the INI), init crashes.
 * - crash_in_shutdown = yes: shutdown logs that it crashes, then crashes.
 * - fork: starts `n` processes, each /bin/sh running a loop with `marker` as its $0 (so a test
 *   finds it in /proc): busy (a loop that never sleeps), idle (sleeps 1 s at a time), or
 *   setsid (idle, in a session of its own, whose parent exits at once: an orphan that left the
 *   plugin's process group and tree). Answers "forked N" at once. For max_procs and
 *   max_cpu_s, which count the plugin's whole tree, and for what must end with it.
 * Thread-safe: handlers share nothing but the read-only state, so calls run side by side.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plugin-api.h"

#define FAULT_DELAY_MAX 60000                /* ok's delay_ms */
#define FAULT_BLOCK ((size_t)16 << 20)       /* alloc's step */
#define FAULT_ALLOC_MAX ((size_t)4096 << 20) /* alloc gives up after this much */

struct fault {
    const struct mcph_host *host; /* borrowed until shutdown() returns */
    const char *label;            /* borrowed from host->config() until shutdown() */
    int crash_in_shutdown;
    long wait_ms; /* fault://wait and the wait prompt */
};

static void fault_sleep_ms(long ms)
{
    struct timespec left = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    while (nanosleep(&left, &left) != 0) {
        if (errno != EINTR)
            break;
    }
}

/* A store through NULL. The pointer is read from a volatile object, so the compiler cannot see
 * that it is NULL (a known NULL store may become a trap), and the store is to a volatile int,
 * so it cannot be dropped either (GCC drops a plain store through a pointer that only ever
 * held NULL). */
static void fault_null(void)
{
    volatile int *volatile p = NULL;

    *p = 1;
}

static void fault_abort(void)
{
    abort();
}

static void fault_exit3(void)
{
    _exit(3);
}

/* Each frame keeps a buffer that is read after the recursive call returns, so the call is
 * not in tail position and every level takes stack. The end condition is never met in
 * practice; it keeps the function from being plainly infinite. */
static unsigned long fault_recurse(unsigned long depth)
{
    volatile char pad[512];

    pad[depth % sizeof(pad)] = (char)depth;
    if (depth == ~0UL)
        return 0;
    return fault_recurse(depth + 1) + (unsigned long)pad[depth % sizeof(pad)];
}

static void fault_stack(void)
{
    (void)fault_recurse(0);
}

static void fault_loop(void)
{
    volatile unsigned long spins = 0;

    for (;;)
        spins++;
}

/* 16 MiB blocks, each chained to the previous one so that none is dead, until malloc fails;
 * then a store through the NULL it returned. Each block is written at both ends only:
 * max_memory limits address space, not resident memory, so writing every page would not bring
 * the failure sooner, only cost time (a quarter second for 256 MiB, near call_timeout_ms).
 * Returns only when FAULT_ALLOC_MAX was allocated without a failure (the blocks are freed). */
static void fault_alloc(void)
{
    void *last = NULL;

    for (size_t total = 0; total < FAULT_ALLOC_MAX; total += FAULT_BLOCK) {
        void *block = malloc(FAULT_BLOCK);
        volatile char *volatile sink = block;

        if (block == NULL) {
            *sink = 1;
            break;
        }
        memcpy(block, &last, sizeof(last));
        ((char *)block)[FAULT_BLOCK - 1] = 1;
        last = block;
    }
    while (last != NULL) {
        void *prev;

        memcpy(&prev, last, sizeof(prev));
        free(last);
        last = prev;
    }
}

/* The crashes of the crash tool, by its `how`. */
struct fault_kind {
    const char *how;
    void (*fn)(void);
};

static const struct fault_kind fault_kinds[] = {
    {.how = "null", .fn = fault_null},
    {.how = "abort", .fn = fault_abort},
    {.how = "exit3", .fn = fault_exit3},
    {.how = "stack", .fn = fault_stack},
    {.how = "loop", .fn = fault_loop},
    {.how = "alloc", .fn = fault_alloc},
    {0},
};

static int fault_crash(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *how;

    (void)state;
    if (host->arg_string(call, "how", &how) != MCPH_OK)
        return host->tool_error(call, "how must be a string");
    for (size_t i = 0; fault_kinds[i].how != NULL; i++) {
        if (strcmp(fault_kinds[i].how, how) == 0) {
            fault_kinds[i].fn();
            return host->tool_error(call, "%s: malloc never failed in %zu MiB (no max_memory?)",
                                    how, FAULT_ALLOC_MAX >> 20);
        }
    }
    return host->tool_error(call, "no crash named \"%s\"", how);
}

/* Waits delay_ms (or until cancelled), then answers with the text and this process's pid. */
static int fault_ok(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct fault *f = state;
    const char *text;
    int64_t delay_ms = 0;

    if (host->arg_string(call, "text", &text) != MCPH_OK)
        return host->tool_error(call, "text must be a string");
    int rc = host->arg_integer(call, "delay_ms", &delay_ms);
    if (rc == MCPH_ERR_TYPE || (rc == MCPH_OK && (delay_ms < 0 || delay_ms > FAULT_DELAY_MAX)))
        return host->tool_error(call, "delay_ms must be an integer from 0 to %d", FAULT_DELAY_MAX);
    for (int64_t left = delay_ms; left > 0 && !host->cancelled(call); left -= 10)
        fault_sleep_ms(left < 10 ? (long)left : 10);
    char pid[64];
    snprintf(pid, sizeof(pid), " pid %ld", (long)getpid());
    size_t n = strlen("ok ") + strlen(text) + strlen(pid) + strlen(" label ") + strlen(f->label);
    char *answer = malloc(n + 1);
    if (answer == NULL)
        return MCPH_ERR_NOMEM;
    snprintf(answer, n + 1, "ok %s%s%s%s", text, pid, f->label[0] ? " label " : "", f->label);
    rc = host->text(call, answer);
    free(answer);
    return rc;
}

static int fault_read_crash(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)host;
    (void)state;
    (void)call;
    fault_null();
    return MCPH_ERR; /* not reached */
}

static int fault_read_wait(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct fault *f = state;

    fault_sleep_ms(f->wait_ms);
    return host->contents_text(call, NULL, "text/plain", "waited");
}

static int fault_get_wait(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct fault *f = state;

    fault_sleep_ms(f->wait_ms);
    int rc = host->prompt_message(call, MCPH_ROLE_USER);
    return rc == MCPH_OK ? host->text(call, "waited") : rc;
}

/* The section's keys into f. MCPH_OK, or MCPH_ERR_INVALID after a log saying why. */
static int fault_config(const struct mcph_host *host, struct fault *f)
{
    const char *in_shutdown = host->config(host, "crash_in_shutdown");
    const char *wait_ms = host->config(host, "wait_ms");
    char *end;
    long ms = strtol(wait_ms, &end, 10);

    if (strcmp(in_shutdown, "yes") != 0 && strcmp(in_shutdown, "no") != 0) {
        host->log(host, MCPH_LOG_ERROR, "crash_in_shutdown must be yes or no, not \"%s\"",
                  in_shutdown);
        return MCPH_ERR_INVALID;
    }
    if (end == wait_ms || *end != '\0' || ms < 0 || ms > FAULT_DELAY_MAX) {
        host->log(host, MCPH_LOG_ERROR, "wait_ms must be a number from 0 to %d, not \"%s\"",
                  FAULT_DELAY_MAX, wait_ms);
        return MCPH_ERR_INVALID;
    }
    f->host = host;
    f->label = host->config(host, "label");
    f->crash_in_shutdown = strcmp(in_shutdown, "yes") == 0;
    f->wait_ms = ms;
    return MCPH_OK;
}

static int fault_init(const struct mcph_host *host, void **state)
{
    const char *file = host->config_path(host, "crash_in_init_file");

    if (file != NULL && access(file, F_OK) == 0) {
        host->log(host, MCPH_LOG_WARNING, "%s exists: init crashes", file);
        fault_null();
    }
    struct fault *f = calloc(1, sizeof(*f));
    if (f == NULL) {
        host->log(host, MCPH_LOG_ERROR, "cannot allocate the fault state: out of memory");
        return MCPH_ERR_NOMEM;
    }
    int rc = fault_config(host, f);
    if (rc != MCPH_OK) {
        free(f);
        return rc;
    }
    *state = f;
    return MCPH_OK;
}

static void fault_shutdown(void *state)
{
    struct fault *f = state;

    if (f->crash_in_shutdown) {
        f->host->log(f->host, MCPH_LOG_WARNING, "crash_in_shutdown is yes: shutdown crashes");
        fault_null();
    }
    free(f);
}

/* --- The tree: processes the plugin starts (max_procs, max_cpu_s, setsid). --- */

static void fault_exec_loop(const char *how, const char *marker)
{
    const char *loop =
        strcmp(how, "busy") == 0 ? "while :; do :; done" : "while :; do sleep 1; done";

    execl("/bin/sh", "sh", "-c", loop, marker, (char *)NULL);
    _exit(127);
}

/* One process of fork's: returns its pid (or, for setsid, the pid of the parent that exits
 * at once and is reaped here), or -1. */
static pid_t fault_spawn_one(const char *how, const char *marker)
{
    pid_t pid = fork();

    if (pid != 0)
        return pid;
    signal(SIGPIPE, SIG_DFL);
    if (strcmp(how, "setsid") == 0) {
        setsid();
        if (fork() == 0)
            fault_exec_loop("idle", marker);
        _exit(0);
    }
    fault_exec_loop(how, marker);
    return -1;
}

static int fault_fork(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *how = "idle", *marker = NULL;
    int64_t n = 1, started = 0;
    char text[64];

    (void)state;
    host->arg_string(call, "how", &how);
    host->arg_integer(call, "n", &n);
    if (host->arg_string(call, "marker", &marker) != MCPH_OK)
        return host->tool_error(call, "marker is required");
    for (int64_t i = 0; i < n; i++) {
        pid_t pid = fault_spawn_one(how, marker);

        if (pid < 0)
            break;
        if (strcmp(how, "setsid") == 0)
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        started++;
    }
    snprintf(text, sizeof(text), "forked %" PRId64, started);
    return host->text(call, text);
}

static const struct mcph_tool fault_tools[] = {
    {
        .name = "ok",
        .description = "Answers \"ok TEXT pid N\" after delay_ms (default 0).",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"},"
                        "\"delay_ms\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":60000}},"
                        "\"required\":[\"text\"],\"additionalProperties\":false}",
        .call = fault_ok,
    },
    {
        .name = "crash",
        .description = "Crashes the process the way `how` says.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"how\":{\"type\":\"string\","
                        "\"enum\":[\"null\",\"abort\",\"exit3\",\"stack\",\"loop\",\"alloc\"]}},"
                        "\"required\":[\"how\"],\"additionalProperties\":false}",
        .call = fault_crash,
    },
    {
        .name = "fork",
        .description = "Starts n shell loops with marker as their $0: busy, idle or setsid.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\","
                        "\"minimum\":1,\"maximum\":64},\"how\":{\"type\":\"string\",\"enum\":"
                        "[\"busy\",\"idle\",\"setsid\"]},\"marker\":{\"type\":\"string\"}},"
                        "\"required\":[\"marker\"],\"additionalProperties\":false}",
        .call = fault_fork,
    },
    {0},
};

static const struct mcph_resource fault_resources[] = {
    {.uri = "fault://crash", .name = "crash", .read = fault_read_crash},
    {.uri = "fault://wait", .name = "wait", .read = fault_read_wait},
    {0},
};

static const struct mcph_prompt fault_prompts[] = {
    {.name = "crash", .description = "Crashes when got.", .get = fault_read_crash},
    {.name = "wait", .description = "Answers after wait_ms.", .get = fault_get_wait},
    {0},
};

static const struct mcph_config_key fault_keys[] = {
    {.name = "crash_in_init_file", .description = "init crashes when this file exists"},
    {.name = "crash_in_shutdown", .description = "yes: shutdown crashes", .default_value = "no"},
    {.name = "label", .description = "Added to ok's answer", .default_value = ""},
    {.name = "wait_ms",
     .description = "How long fault://wait and wait take",
     .default_value = "200"},
    {0},
};

static const struct mcph_plugin fault_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "fault",
    .version = "1.0.0",
    .description = "Test plugin: crashes on request (run it with isolate = process)",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = fault_tools,
    .resources = fault_resources,
    .prompts = fault_prompts,
    .config_keys = fault_keys,
    .init = fault_init,
    .shutdown = fault_shutdown,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &fault_plugin;
}
