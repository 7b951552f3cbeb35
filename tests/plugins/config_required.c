/*
 * config_required.c: a plugin with a required config key, `token`, that has no default.
 * Without `token = ...` in its INI section mcph must refuse the instance, naming the file,
 * the section and the key; with it, the tool `token` returns the value.
 */
#include "plugin-api.h"

static int config_required_token(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    const char *token = host->config(host, "token");
    if (!token)
        return host->tool_error(call, "no token configured");
    return host->text(call, token);
}

static const struct mcph_tool config_required_tools[] = {
    {
        .name = "token",
        .description = "Returns the configured token.",
        .input_schema = "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
        .read_only_hint = MCPH_HINT_TRUE,
        .call = config_required_token,
    },
    {0},
};

static const struct mcph_config_key config_required_keys[] = {
    {.name = "token", .description = "The token the tool returns", .required = 1},
    {0},
};

static const struct mcph_plugin config_required_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "config_required",
    .description = "Test plugin: a required config key",
    .tools = config_required_tools,
    .config_keys = config_required_keys,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &config_required_plugin;
}
