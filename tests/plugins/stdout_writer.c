/*
 * stdout_writer.c: a plugin that breaks the "no stdout" rule, in init() and in its tool.
 * mcph points fd 1 at stderr while plugins run, so the garbage must land on stderr and the
 * protocol stream on the real stdout must stay clean. This is the one file in the tree
 * allowed to call printf: writing to stdout is the defect under test.
 */
#include <stdio.h>

#include "plugin-api.h"

static int stdout_writer_shout(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    printf("garbage from shout\n");
    fflush(stdout);
    return host->text(call, "shouted");
}

static int stdout_writer_init(const struct mcph_host *host, void **state)
{
    (void)host;
    *state = NULL;
    printf("garbage from init\n");
    fflush(stdout);
    return MCPH_OK;
}

static const struct mcph_tool stdout_writer_tools[] = {
    {
        .name = "shout",
        .description = "Writes to stdout, then returns shouted.",
        .input_schema = "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}",
        .call = stdout_writer_shout,
    },
    {0},
};

static const struct mcph_plugin stdout_writer_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "stdout_writer",
    .description = "Test plugin: writes to stdout",
    .tools = stdout_writer_tools,
    .init = stdout_writer_init,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &stdout_writer_plugin;
}
