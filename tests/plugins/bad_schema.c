/*
 * bad_schema.c: one tool whose input_schema is not valid JSON (it stops after a comma).
 * mcph parses every schema once at load, so it must refuse the plugin then, naming the
 * plugin and the tool, instead of sending broken JSON in tools/list.
 */
#include "plugin-api.h"

static int bad_schema_call(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "ok");
}

static const struct mcph_tool bad_schema_tools[] = {
    {
        .name = "broken",
        .description = "Has an input schema that is not JSON.",
        .input_schema = "{\"type\": \"object\",",
        .call = bad_schema_call,
    },
    {0},
};

static const struct mcph_plugin bad_schema_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "bad_schema",
    .description = "Test plugin: an input schema that is not valid JSON",
    .tools = bad_schema_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &bad_schema_plugin;
}
