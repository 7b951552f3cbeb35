/*
 * starter.c: a new mcph plugin, made by `make plugin NAME=starter`.
 *
 * One tool (starter_hello) and one config key (greeting), with the state made by init() and
 * freed by shutdown(). Build it with `make`; serve it by adding [plugin.starter] to the INI
 * (make plugin did that for the INI it was given: isolated, and confined to reading its own
 * folder, plugins/starter; grant a file it needs with read or write in the section) and
 * sending mcph a SIGHUP, or by running mcph with --watch, which reloads on every rebuild.
 * plugins/example/example.c shows every other feature (resources, templates, prompts,
 * progress, asking the client, rows defined at init); `man mcph-plugin` is the guide
 * (plugin-api/README.md in the mcph sources) and plugin-api.h the contract.
 */
#include <stdio.h>
#include <stdlib.h>

#include "plugin-api.h"

/* Per-instance state: made by init(), passed to every handler, freed by shutdown(). */
struct starter {
    /* Borrowed from host->config(): valid until shutdown() returns. */
    const char *greeting;
};

static int starter_hello(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct starter *st = state;
    const char *name = "world";
    char text[512];

    /* Arguments are borrowed until the handler returns. A wrong one is a tool error, so the
     * model reads it and can correct itself. */
    int rc = host->arg_string(call, "name", &name);
    if (rc == MCPH_ERR_TYPE)
        return host->tool_error(call, "the argument \"name\" must be a string");
    int n = snprintf(text, sizeof(text), "%s, %s! (from the starter plugin)", st->greeting, name);
    if (n < 0 || (size_t)n >= sizeof(text))
        return host->tool_error(call, "the name is too long: keep it under %zu bytes",
                                sizeof(text) - 64);
    /* Sinks copy their input: text may live on the stack. */
    return host->text(call, text);
}

/* Main thread, before any handler. */
static int starter_init(const struct mcph_host *host, void **state)
{
    struct starter *st = malloc(sizeof(*st));
    if (!st) {
        host->log(host, MCPH_LOG_ERROR, "cannot allocate the starter state: out of memory");
        return MCPH_ERR_NOMEM;
    }
    st->greeting = host->config(host, "greeting"); /* never NULL: the key has a default */
    *state = st;
    return MCPH_OK;
}

/* Main thread, after the last handler returned. */
static void starter_shutdown(void *state)
{
    free(state);
}

static const struct mcph_tool starter_tools[] = {
    {
        .name = "starter_hello",
        .title = "Say hello (starter)",
        .description = "Greets someone by name; the greeting comes from the config.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\","
                        "\"description\":\"Who to greet\"}},\"additionalProperties\":false}",
        .read_only_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = starter_hello,
    },
    {0},
};

/* Every key the plugin reads must be declared: mcph refuses unknown keys in the INI. */
static const struct mcph_config_key starter_config_keys[] = {
    {.name = "greeting", .description = "How starter_hello says hello", .default_value = "Hello"},
    {0},
};

static const struct mcph_plugin starter_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "starter",
    .version = "0.1.0",
    .description = "A new plugin made from the starter",
    .flags = MCPH_PLUGIN_THREAD_SAFE, /* handlers only read the state */
    .tools = starter_tools,
    .config_keys = starter_config_keys,
    .init = starter_init,
    .shutdown = starter_shutdown,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &starter_plugin;
}
