/*
 * schema_not_object.c: one tool whose input_schema is valid JSON but describes a string,
 * not an object. MCP tool arguments are always an object, so mcph must refuse the plugin
 * at load, naming the plugin, the tool and the type it found.
 */
#include "plugin-api.h"

static int schema_not_object_call(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "ok");
}

static const struct mcph_tool schema_not_object_tools[] = {
    {
        .name = "stringly",
        .description = "Has an input schema of type string.",
        .input_schema = "{\"type\":\"string\"}",
        .call = schema_not_object_call,
    },
    {0},
};

static const struct mcph_plugin schema_not_object_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "schema_not_object",
    .description = "Test plugin: an input schema whose type is not object",
    .tools = schema_not_object_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &schema_not_object_plugin;
}
