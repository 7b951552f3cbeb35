/*
 * abi_minor.c: a descriptor built for a newer ABI minor (MCPH_ABI_MINOR + 1) than this mcph
 * knows. Everything else is valid, so mcph must refuse it for the version alone: the plugin
 * may rely on host members this mcph does not have. The message names both versions and the
 * fix (upgrade mcph, or rebuild the plugin against this mcph's plugin-api.h). The header
 * fields are written by hand because MCPH_PLUGIN_HEADER always says the current version.
 */
#include "plugin-api.h"

static int abi_minor_ping(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "ok");
}

static const struct mcph_tool abi_minor_tools[] = {
    {.name = "ping", .description = "Returns ok.", .call = abi_minor_ping},
    {0},
};

static const struct mcph_plugin abi_minor_plugin = {
    .abi_major = MCPH_ABI_MAJOR,
    .abi_minor = MCPH_ABI_MINOR + 1,
    .size = sizeof(struct mcph_plugin),
    .tool_size = sizeof(struct mcph_tool),
    .resource_size = sizeof(struct mcph_resource),
    .template_size = sizeof(struct mcph_resource_template),
    .prompt_size = sizeof(struct mcph_prompt),
    .prompt_arg_size = sizeof(struct mcph_prompt_arg),
    .config_key_size = sizeof(struct mcph_config_key),
    .name = "abi_minor",
    .description = "Test plugin: built for a newer ABI minor",
    .tools = abi_minor_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &abi_minor_plugin;
}
