/*
 * threadsafe.c: a plugin that sets MCPH_PLUGIN_THREAD_SAFE. Its one tool, overlap_mt, behaves
 * like basic's overlap: it reports the most calls it saw running at once. With the flag and
 * several workers, mcph may run calls in parallel, so concurrent calls should see more than 1
 * (basic, without the flag, must stay at 1).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "plugin-api.h"

#define THREADSAFE_MAX_MS 60000

/* Handlers touch nothing but these atomics, which is what makes the flag true. */
struct threadsafe {
    atomic_int active;     /* overlap_mt calls running now */
    atomic_int max_active; /* the most seen running at once */
};

static void threadsafe_sleep_ms(int64_t ms)
{
    struct timespec left = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L};

    while (nanosleep(&left, &left) != 0) {
        if (errno != EINTR)
            break;
    }
}

/* Raises max_active to at least now. */
static void threadsafe_note_active(struct threadsafe *ts, int now)
{
    int seen = atomic_load(&ts->max_active);

    while (now > seen) {
        if (atomic_compare_exchange_weak(&ts->max_active, &seen, now))
            break;
    }
}

static int threadsafe_overlap(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct threadsafe *ts = state;
    int64_t ms = 0;
    char text[16];

    int rc = host->arg_integer(call, "ms", &ms);
    if (rc == MCPH_ERR_TYPE || (rc == MCPH_OK && (ms < 0 || ms > THREADSAFE_MAX_MS)))
        return host->tool_error(call, "ms must be an integer from 0 to %d", THREADSAFE_MAX_MS);
    if (rc != MCPH_OK && rc != MCPH_ERR_ABSENT)
        return rc;

    threadsafe_note_active(ts, atomic_fetch_add(&ts->active, 1) + 1);
    threadsafe_sleep_ms(ms);
    atomic_fetch_sub(&ts->active, 1);
    snprintf(text, sizeof(text), "%d", atomic_load(&ts->max_active));
    return host->text(call, text);
}

static int threadsafe_init(const struct mcph_host *host, void **state)
{
    struct threadsafe *ts = malloc(sizeof(*ts));
    if (!ts) {
        host->log(host, MCPH_LOG_ERROR, "cannot allocate the threadsafe state: out of memory");
        return MCPH_ERR_NOMEM;
    }
    atomic_init(&ts->active, 0);
    atomic_init(&ts->max_active, 0);
    *state = ts;
    return MCPH_OK;
}

static void threadsafe_shutdown(void *state)
{
    free(state);
}

static const struct mcph_tool threadsafe_tools[] = {
    {
        .name = "overlap_mt",
        .description = "Sleeps ms milliseconds; returns the most overlap_mt calls seen at once.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\","
                        "\"minimum\":0,\"maximum\":60000}},\"additionalProperties\":false}",
        .call = threadsafe_overlap,
    },
    {0},
};

static const struct mcph_plugin threadsafe_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "threadsafe",
    .version = "1.0.0",
    .description = "Test plugin: handlers may run in parallel",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = threadsafe_tools,
    .init = threadsafe_init,
    .shutdown = threadsafe_shutdown,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &threadsafe_plugin;
}
