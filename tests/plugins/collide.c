/*
 * collide.c: a valid plugin with a tool named "echo", the name basic.so also uses. Loaded
 * alone it works; loaded after basic without a prefix, its echo collides and mcph must
 * refuse the later one with a message naming both plugins (never shadow silently). With a
 * prefix (collide_echo) both coexist.
 */
#include "plugin-api.h"

static int collide_echo(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "echo from collide");
}

static const struct mcph_tool collide_tools[] = {
    {.name = "echo", .description = "Returns a fixed text.", .call = collide_echo},
    {0},
};

static const struct mcph_plugin collide_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "collide",
    .description = "Test plugin: a tool name that collides with basic's echo",
    .tools = collide_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &collide_plugin;
}
