/*
 * bulk.c: a thread-safe plugin whose one tool, bulk, sleeps ms milliseconds, then returns
 * `bytes` bytes of text. Many calls at once answer from many threads together: enough of
 * them fill mcph's output queue behind a client that does not read (tests/edges).
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin-api.h"

#define BULK_MAX_MS 60000
#define BULK_MAX_BYTES (1 << 20)

static int bulk_call(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    int64_t ms = 0, bytes = 0;
    struct timespec left;
    char *text;
    int rc;

    (void)state;
    if (host->arg_integer(call, "ms", &ms) != MCPH_OK || ms < 0 || ms > BULK_MAX_MS ||
        host->arg_integer(call, "bytes", &bytes) != MCPH_OK || bytes < 0 || bytes > BULK_MAX_BYTES)
        return host->tool_error(call, "ms (0 to %d) and bytes (0 to %d) must be integers",
                                BULK_MAX_MS, BULK_MAX_BYTES);
    left =
        (struct timespec){.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ;
    text = malloc((size_t)bytes + 1);
    if (text == NULL)
        return MCPH_ERR_NOMEM;
    memset(text, 'b', (size_t)bytes);
    text[bytes] = '\0';
    rc = host->text(call, text);
    free(text);
    return rc;
}

static const struct mcph_tool bulk_tools[] = {
    {
        .name = "bulk",
        .description = "Sleeps ms milliseconds, then returns bytes bytes of text.",
        .input_schema = "{\"type\":\"object\",\"properties\":{"
                        "\"ms\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":60000},"
                        "\"bytes\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1048576}},"
                        "\"required\":[\"ms\",\"bytes\"],\"additionalProperties\":false}",
        .call = bulk_call,
    },
    {0},
};

static const struct mcph_plugin bulk_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "bulk",
    .version = "1.0.0",
    .description = "Test plugin: large answers from many threads at once",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = bulk_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &bulk_plugin;
}
