/*
 * ask.c: a question to the client. ask_name elicits a name and greets it. The same code
 * serves every protocol revision: a legacy session gets an elicitation/create request and
 * the handler waits for the answer; under 2026-07-28, elicit() returns MCPH_ERR_AGAIN, the
 * handler returns at once, and mcph runs it again with the answer when the client retries.
 * So ask before doing anything that must not happen twice.
 */
#include <stdio.h>

#include "plugin-api.h"

static int ask_name(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    static const char schema[] = "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
                                 "\"string\"}},\"required\":[\"name\"]}";
    const char *answer = NULL;
    char text[600];

    (void)state;
    host->ask_key(call, "name"); /* the key of the answer under 2026-07-28, not ask-1 */
    int rc = host->elicit(call, "Your name?", schema, &answer);
    if (rc == MCPH_ERR_AGAIN)
        return rc; /* mcph runs the handler again with the answer */
    if (rc == MCPH_ERR_UNSUPPORTED)
        return host->tool_error(call, "this client cannot answer questions (no elicitation)");
    if (rc != MCPH_OK)
        return host->tool_error(call, "no answer (status %d)", rc);
    /* answer is the client's result as JSON text, borrowed until the handler returns. */
    snprintf(text, sizeof(text), "the client answered %s", answer);
    return host->text(call, text);
}

static const struct mcph_tool ask_tools[] = {
    {.name = "ask_name", .description = "Asks the user's name.", .call = ask_name},
    {0},
};

static const struct mcph_plugin ask_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "ask",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = ask_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &ask_plugin;
}
