/*
 * abi12.c: a plugin as the ABI 1.2 header built it. Its descriptor says minor 2 and ends where
 * 1.2's struct mcph_plugin ended (before subscribe), so mcph must load it and read no member
 * past its size. To catch a reader that does, the struct it sits in has a subscribe that
 * writes "abi12: subscribe was called" to the log; and its flags carry the bit 1.3 gave
 * MCPH_PLUGIN_TAKE_OVER, which a 1.2 plugin cannot mean: its rebuilds (it asks for one on
 * every reload) are fresh copies, as every plugin's without the flag. It serves one resource
 * to subscribe to and a tool, `ping`.
 */
#include "plugin-api.h"

#include <stddef.h>
#include <stdlib.h>

/* 1.2's struct mcph_plugin: this header's, up to subscribe. */
#define ABI12_DESCRIPTOR_SIZE offsetof(struct mcph_plugin, subscribe)

struct abi12 {
    const struct mcph_host *host;
};

static int abi12_init(const struct mcph_host *host, void **state)
{
    struct abi12 *a = calloc(1, sizeof(*a));

    if (a == NULL)
        return MCPH_ERR_NOMEM;
    a->host = host;
    *state = a;
    return MCPH_OK;
}

static void abi12_shutdown(void *state)
{
    free(state);
}

static void abi12_subscribe(const struct mcph_host *host, void *state, const char *uri, int on)
{
    (void)state;
    host->log(host, MCPH_LOG_ERROR, "abi12: subscribe was called (%s, %d)", uri, on);
}

static int abi12_ping(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "pong");
}

static int abi12_read(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->contents_text(call, NULL, NULL, "old");
}

static const struct mcph_tool abi12_tools[] = {
    {.name = "ping", .description = "Returns pong.", .call = abi12_ping},
    {0},
};

static const struct mcph_resource abi12_resources[] = {
    {.uri = "abi12://doc", .name = "doc", .read = abi12_read},
    {0},
};

static const struct mcph_plugin abi12_plugin = {
    .abi_major = 1,
    .abi_minor = 2,
    .size = ABI12_DESCRIPTOR_SIZE,
    .tool_size = sizeof(struct mcph_tool),
    .resource_size = sizeof(struct mcph_resource),
    .template_size = sizeof(struct mcph_resource_template),
    .prompt_size = sizeof(struct mcph_prompt),
    .prompt_arg_size = sizeof(struct mcph_prompt_arg),
    .config_key_size = sizeof(struct mcph_config_key),
    .name = "abi12",
    .version = "1.2.0",
    .description = "Test plugin: built with the ABI 1.2 header",
    .flags = MCPH_PLUGIN_REBUILD_ON_RELOAD | (1u << 2),
    .tools = abi12_tools,
    .resources = abi12_resources,
    .init = abi12_init,
    .shutdown = abi12_shutdown,
    .subscribe = abi12_subscribe,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &abi12_plugin;
}
