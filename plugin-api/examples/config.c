/*
 * config.c: config keys. `folder` is required and read as a path (relative to the INI's
 * folder), `limit` a whole number with a default, `loud` a yes/no value; mcph-value.h reads
 * the last two the way mcph reads its own keys. init refuses a bad value, naming the key, and
 * the instance is then not served.
 */
#include <stdio.h>
#include <stdlib.h>

#include "mcph-value.h" /* includes plugin-api.h */

struct settings {
    const char *folder; /* borrowed from host->config_path(): valid until shutdown() */
    long long limit;
    int loud;
};

static int settings_show(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct settings *st = state;
    char text[4200];

    snprintf(text, sizeof(text), "folder %s, limit %lld, loud %s", st->folder, st->limit,
             st->loud ? "yes" : "no");
    return host->text(call, text);
}

static int settings_init(const struct mcph_host *host, void **state)
{
    struct settings *st = calloc(1, sizeof(*st));

    if (st == NULL)
        return MCPH_ERR_NOMEM;
    st->folder = host->config_path(host, "folder");
    if (mcph_value_int(host->config(host, "limit"), 1, 1000, &st->limit) != MCPH_OK ||
        mcph_value_bool(host->config(host, "loud"), &st->loud) != MCPH_OK) {
        host->log(host, MCPH_LOG_ERROR,
                  "limit must be a whole number from 1 to 1000, and loud "
                  "%s",
                  MCPH_VALUE_BOOL_HELP);
        free(st);
        return MCPH_ERR_INVALID;
    }
    *state = st;
    return MCPH_OK;
}

static void settings_shutdown(void *state)
{
    free(state);
}

static const struct mcph_tool settings_tools[] = {
    {.name = "settings", .description = "Shows the settings read at init.", .call = settings_show},
    {0},
};

/* Every key must be declared: mcph refuses an unknown key, or a missing required one, naming
 * the INI file and line. */
static const struct mcph_config_key settings_keys[] = {
    {.name = "folder", .description = "a folder (relative: to the INI's)", .required = 1},
    {.name = "limit", .description = "a whole number, 1 to 1000", .default_value = "10"},
    {.name = "loud", .description = MCPH_VALUE_BOOL_HELP, .default_value = "no"},
    {0},
};

static const struct mcph_plugin settings_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "settings",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = settings_tools,
    .config_keys = settings_keys,
    .init = settings_init,
    .shutdown = settings_shutdown,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &settings_plugin;
}
