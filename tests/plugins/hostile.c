/*
 * hostile.c: the tools tests/hostile/hostile.mjs needs to push mcph to its edges. Thread-safe
 * (its handlers share nothing), so several of its calls run at once.
 *
 * - block: waits until the call is cancelled, polling cancelled() every 10 ms; it has no
 *   time limit of its own (the loop ends with the call or with the process).
 * - hang: never returns and never looks at cancelled(): the call mcph must give up on at the
 *   end of input. Its loop only sleeps, so it ends when the process exits.
 * - bad_utf8: answers with bytes that are not UTF-8 (an invalid byte, an overlong sequence,
 *   an encoded surrogate, a truncated sequence) as text, as a tool error or as a protocol
 *   error, so the test can check that mcph never writes them to stdout as they are.
 * - ask: asks the client what its arguments say, as a plugin written against the newest
 *   revision would: `schema` (JSON text) as an elicitation with `message`, or `sample` (JSON
 *   text of CreateMessageRequest params) as a sampling request; answers the client's result,
 *   or "status N" when the question was not asked.
 * - block_init_file: when the file it names exists (relative to the INI), init never returns
 *   (it sleeps until the process ends): created after start-up, it blocks the next reload's
 *   init only, so a test can check that SIGTERM still ends mcph.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plugin-api.h"

/* 0xFF, an overlong '.', a UTF-8 encoded surrogate U+D800, then a truncated euro sign. */
#define HOSTILE_BAD "bad \xff / \xc0\xae / \xed\xa0\x80 / \xe2\x82"

static void hostile_sleep_ms(long ms)
{
    struct timespec left = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    while (nanosleep(&left, &left) != 0) {
        if (errno != EINTR)
            break;
    }
}

static int hostile_block(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    while (!host->cancelled(call))
        hostile_sleep_ms(10);
    return host->text(call, "cancelled");
}

static int hostile_hang(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)host;
    (void)state;
    (void)call;
    for (;;)
        hostile_sleep_ms(1000);
    return MCPH_OK; /* not reached */
}

static int hostile_bad_utf8(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *as = "text";

    (void)state;
    (void)host->arg_string(call, "as", &as);
    if (strcmp(as, "tool_error") == 0)
        return host->tool_error(call, "could not open \"%s\"", HOSTILE_BAD);
    if (strcmp(as, "error") == 0)
        return host->error(call, MCPH_ERR, "could not open \"%s\"", HOSTILE_BAD);
    return host->text(call, HOSTILE_BAD);
}

static int hostile_ask(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *schema = NULL, *sample = NULL, *message = "?", *result = NULL;
    char text[32];
    int rc;

    (void)state;
    (void)host->arg_string(call, "message", &message);
    if (host->arg_string(call, "sample", &sample) == MCPH_OK)
        rc = host->sample(call, sample, &result);
    else if (host->arg_string(call, "schema", &schema) == MCPH_OK)
        rc = host->elicit(call, message, schema, &result);
    else
        return host->tool_error(call, "give schema or sample");
    if (rc == MCPH_OK && result != NULL)
        return host->text(call, result);
    snprintf(text, sizeof(text), "status %d", rc);
    return host->text(call, text);
}

static const char hostile_no_args[] = "{\"type\":\"object\",\"properties\":{},"
                                      "\"additionalProperties\":false}";

static const struct mcph_tool hostile_tools[] = {
    {
        .name = "block",
        .description = "Waits until the call is cancelled.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"pad\":{\"type\":\"string\"}},"
                        "\"additionalProperties\":false}",
        .call = hostile_block,
    },
    {
        .name = "hang",
        .description = "Never returns, whatever happens.",
        .input_schema = hostile_no_args,
        .call = hostile_hang,
    },
    {
        .name = "bad_utf8",
        .description = "Answers with bytes that are not UTF-8: as text, tool_error or error.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"as\":{\"type\":\"string\","
                        "\"enum\":[\"text\",\"tool_error\",\"error\"]}},"
                        "\"additionalProperties\":false}",
        .call = hostile_bad_utf8,
    },
    {
        .name = "ask",
        .description = "Asks the client: an elicitation (schema, message) or sampling (sample).",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"},"
                        "\"schema\":{\"type\":\"string\"},\"sample\":{\"type\":\"string\"}},"
                        "\"additionalProperties\":false}",
        .call = hostile_ask,
    },
    {0},
};

static int hostile_init(const struct mcph_host *host, void **state)
{
    const char *file = host->config_path(host, "block_init_file");

    *state = NULL;
    if (file == NULL || access(file, F_OK) != 0)
        return MCPH_OK;
    host->log(host, MCPH_LOG_WARNING, "%s exists: init blocks for ever", file);
    for (;;)
        hostile_sleep_ms(1000);
    return MCPH_OK; /* not reached */
}

static const struct mcph_config_key hostile_keys[] = {
    {.name = "block_init_file", .description = "init never returns when this file exists"},
    {0},
};

static const struct mcph_plugin hostile_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "hostile",
    .version = "1.0.0",
    .description = "Test plugin: calls that block, hang or answer bytes that are not UTF-8",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = hostile_tools,
    .config_keys = hostile_keys,
    .init = hostile_init,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &hostile_plugin;
}
