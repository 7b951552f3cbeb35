/*
 * rows.c: tools defined at init from the config. Each word of the `colours` key becomes a
 * tool paint_<word>, all served by one handler that asks mcph which tool was called. mcph
 * rebuilds the instance on every reload, so editing the key changes the tools.
 */
#include <stdio.h>
#include <string.h>

#include "plugin-api.h"

static int paint(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const char *name = host->call_name(call); /* "paint_red": as defined, without a prefix */
    char text[160];

    (void)state;
    snprintf(text, sizeof(text), "painted it %s", name + strlen("paint_"));
    return host->text(call, text);
}

static int rows_init(const struct mcph_host *host, void **state)
{
    const char *colours = host->config(host, "colours");
    char name[MCPH_MAX_NAME];

    *state = NULL;
    for (const char *p = colours; *p != '\0';) {
        size_t len = strcspn(p, " ");
        if (len > 0 && len < sizeof(name) - strlen("paint_")) {
            snprintf(name, sizeof(name), "paint_%.*s", (int)len, p);
            /* The row may live on the stack: mcph copies it, and checks it as a table row. */
            struct mcph_tool tool = {.name = name, .description = "Paints it.", .call = paint};
            if (host->define_tool(host, &tool) != MCPH_OK)
                return MCPH_ERR_INVALID; /* mcph logged why, naming the row */
        }
        p += len + (p[len] == ' ');
    }
    return MCPH_OK;
}

static const struct mcph_config_key rows_keys[] = {
    {.name = "colours", .description = "one tool per word", .default_value = "red green"},
    {0},
};

static const struct mcph_plugin rows_plugin = {
    MCPH_PLUGIN_HEADER,       .name = "rows",    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .config_keys = rows_keys, .init = rows_init,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &rows_plugin;
}
