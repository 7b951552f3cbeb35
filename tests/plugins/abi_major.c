/*
 * abi_major.c: a descriptor built for the next ABI major (MCPH_ABI_MAJOR + 1). Everything
 * else is valid, so mcph must refuse it for the version alone, naming both majors and the
 * fix (rebuild against this mcph's plugin-api.h). The header fields are written by hand
 * because MCPH_PLUGIN_HEADER always says the current version.
 */
#include "plugin-api.h"

static int abi_major_ping(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "ok");
}

static const struct mcph_tool abi_major_tools[] = {
    {.name = "ping", .description = "Returns ok.", .call = abi_major_ping},
    {0},
};

static const struct mcph_plugin abi_major_plugin = {
    .abi_major = MCPH_ABI_MAJOR + 1,
    .abi_minor = MCPH_ABI_MINOR,
    .size = sizeof(struct mcph_plugin),
    .tool_size = sizeof(struct mcph_tool),
    .resource_size = sizeof(struct mcph_resource),
    .template_size = sizeof(struct mcph_resource_template),
    .prompt_size = sizeof(struct mcph_prompt),
    .prompt_arg_size = sizeof(struct mcph_prompt_arg),
    .config_key_size = sizeof(struct mcph_config_key),
    .name = "abi_major",
    .description = "Test plugin: built for a newer ABI major",
    .tools = abi_major_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &abi_major_plugin;
}
