/*
 * short_descriptor.c: a descriptor that claims the right ABI version but a size of 8 bytes,
 * shorter than ABI 1.0's struct mcph_plugin (only the frozen abi_major, abi_minor and size
 * fit). mcph must refuse it rather than read members the plugin says it does not have:
 * a 1.0 descriptor can never be shorter than the 1.0 struct.
 */
#include "plugin-api.h"

static int short_descriptor_ping(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "ok");
}

static const struct mcph_tool short_descriptor_tools[] = {
    {.name = "ping", .description = "Returns ok.", .call = short_descriptor_ping},
    {0},
};

static const struct mcph_plugin short_descriptor_plugin = {
    .abi_major = MCPH_ABI_MAJOR,
    .abi_minor = MCPH_ABI_MINOR,
    .size = 8,
    .tool_size = sizeof(struct mcph_tool),
    .resource_size = sizeof(struct mcph_resource),
    .template_size = sizeof(struct mcph_resource_template),
    .prompt_size = sizeof(struct mcph_prompt),
    .prompt_arg_size = sizeof(struct mcph_prompt_arg),
    .config_key_size = sizeof(struct mcph_config_key),
    .name = "short_descriptor",
    .description = "Test plugin: descriptor size shorter than ABI 1.0's",
    .tools = short_descriptor_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &short_descriptor_plugin;
}
