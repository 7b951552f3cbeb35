/*
 * init_fail.c: a valid descriptor whose init() logs an error and fails. mcph must not serve
 * the instance, must not call its shutdown() (init made nothing to free), must show the
 * plugin's log line, and must keep serving the other plugins.
 */
#include "plugin-api.h"

static int init_fail_ping(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, "ok");
}

static int init_fail_init(const struct mcph_host *host, void **state)
{
    (void)state;
    host->log(host, MCPH_LOG_ERROR, "init failed on purpose");
    return MCPH_ERR;
}

static const struct mcph_tool init_fail_tools[] = {
    {.name = "ping", .description = "Returns ok (never served).", .call = init_fail_ping},
    {0},
};

static const struct mcph_plugin init_fail_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "init_fail",
    .description = "Test plugin: init always fails",
    .tools = init_fail_tools,
    .init = init_fail_init,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &init_fail_plugin;
}
