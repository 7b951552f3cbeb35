/*
 * bad_name.c: a tool named "bad name!", with a space and a '!' that the MCP tool-name rule
 * (1-128 of A-Za-z0-9 _ . -) forbids. mcph must refuse the plugin at load, naming the
 * plugin, the name and the rule.
 */
#include "plugin-api.h"

static int bad_name_call(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "ok");
}

static const struct mcph_tool bad_name_tools[] = {
    {.name = "bad name!",
     .description = "Has a name with invalid characters.",
     .call = bad_name_call},
    {0},
};

static const struct mcph_plugin bad_name_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "bad_name",
    .description = "Test plugin: a tool name with invalid characters",
    .tools = bad_name_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &bad_name_plugin;
}
