/*
 * reloadable.c: the plugin the reload tests rebuild. Compile-time macros make variants of
 * it at one path, so a test can check that a rebuilt .so is really loaded anew:
 *   RELOADABLE_VERSION   text of the `version` tool and part of its description
 *   RELOADABLE_PROMPT    defined: also offer the prompt `reloadable_prompt`
 * It has a config key `label` (returned by the `label` tool) and a `slow` tool for calls in
 * flight across a reload. Thread-safe: its state is read-only after init.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include "plugin-api.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef RELOADABLE_VERSION
#define RELOADABLE_VERSION "one"
#endif

struct reloadable {
    const char *label; /* borrowed from host->config until shutdown */
};

static int reloadable_init(const struct mcph_host *host, void **state)
{
    struct reloadable *r = calloc(1, sizeof(*r));

    if (r == NULL)
        return MCPH_ERR_NOMEM;
    r->label = host->config(host, "label");
    *state = r;
    return MCPH_OK;
}

static void reloadable_shutdown(void *state)
{
    free(state);
}

static int reloadable_version(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, RELOADABLE_VERSION);
}

static int reloadable_label(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct reloadable *r = state;

    return host->text(call, r->label);
}

static int reloadable_slow(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    int64_t ms = 0;
    struct timespec ts;

    (void)state;
    if (host->arg_integer(call, "ms", &ms) != MCPH_OK || ms < 0 || ms > 60000)
        return host->tool_error(call, "ms must be an integer from 0 to 60000");
    ts.tv_sec = (time_t)(ms / 1000);
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0) {
    }
    return host->text(call, "slow done " RELOADABLE_VERSION);
}

static int reloadable_info(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->contents_text(call, NULL, NULL, "version " RELOADABLE_VERSION);
}

#ifdef RELOADABLE_PROMPT
static int reloadable_prompt(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    host->prompt_message(call, MCPH_ROLE_USER);
    return host->text(call, "prompt " RELOADABLE_VERSION);
}
#endif

static const struct mcph_tool reloadable_tools[] = {
    {.name = "version",
     .description = "Says which build of the plugin runs: " RELOADABLE_VERSION,
     .call = reloadable_version},
    {.name = "label", .description = "Returns the label config value.", .call = reloadable_label},
    {.name = "slow",
     .description = "Sleeps ms milliseconds.",
     .input_schema = "{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\"}},"
                     "\"required\":[\"ms\"]}",
     .call = reloadable_slow},
    {0},
};

static const struct mcph_resource reloadable_resources[] = {
    {.uri = "reloadable://info", .name = "info", .read = reloadable_info},
    {0},
};

#ifdef RELOADABLE_PROMPT
static const struct mcph_prompt reloadable_prompts[] = {
    {.name = "reloadable_prompt", .get = reloadable_prompt},
    {0},
};
#define RELOADABLE_PROMPTS reloadable_prompts
#else
#define RELOADABLE_PROMPTS NULL
#endif

static const struct mcph_config_key reloadable_keys[] = {
    {.name = "label", .description = "a label the label tool returns", .default_value = "none"},
    {0},
};

static const struct mcph_plugin reloadable_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "reloadable",
    .version = RELOADABLE_VERSION,
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = reloadable_tools,
    .resources = reloadable_resources,
    .prompts = RELOADABLE_PROMPTS,
    .config_keys = reloadable_keys,
    .init = reloadable_init,
    .shutdown = reloadable_shutdown,
};

const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &reloadable_plugin;
}
