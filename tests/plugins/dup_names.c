/*
 * dup_names.c: two tools of one plugin both named "same". A name must identify one tool,
 * so mcph must refuse the plugin at load (not keep either one silently), naming the
 * plugin and the duplicated name.
 */
#include "plugin-api.h"

static int dup_names_first(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "first");
}

static int dup_names_second(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "second");
}

static const struct mcph_tool dup_names_tools[] = {
    {.name = "same", .description = "The first tool named same.", .call = dup_names_first},
    {.name = "same", .description = "The second tool named same.", .call = dup_names_second},
    {0},
};

static const struct mcph_plugin dup_names_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "dup_names",
    .description = "Test plugin: two tools with the same name",
    .tools = dup_names_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &dup_names_plugin;
}
