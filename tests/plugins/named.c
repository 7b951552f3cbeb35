/*
 * named.c: the test plugin for ABI 1.4, questions the handler names (host->ask_key), driven
 * through the call layer by tests/unit/test_call.c. One tool, `ask`: its argument `keys` lists,
 * comma-separated, one entry per question, each the name to give it or "-" for none; each
 * question is roots/list, asked whatever the one before returned (so under 2026-07-28 one
 * input_required carries them all). The text says, per question, the name, what ask_key
 * returned and what the question returned, with the answer when there is one:
 * "user_name 0 0 {...}; - . -13; ...". Thread-safe (no state).
 */
#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcph-strbuf.h"
#include "plugin-api.h"

#define NAMED_MAX_KEYS 16

/* Ask one question, named `name` unless it is "-", and say how it went into out. */
static void named_one(const struct mcph_host *host, struct mcph_call *call, const char *name,
                      struct mcph_strbuf *out)
{
    const char *answer = NULL;
    int named = strcmp(name, "-") != 0;
    int key_rc = named ? host->ask_key(call, name) : 0;
    int rc = host->roots(call, &answer);

    mcph_sb_addf(out, "%s%s ", out->len ? "; " : "", name);
    if (named)
        mcph_sb_addf(out, "%d %d", key_rc, rc);
    else
        mcph_sb_addf(out, ". %d", rc);
    if (rc == MCPH_OK && answer != NULL)
        mcph_sb_addf(out, " %s", answer);
}

static int named_ask(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct mcph_strbuf out = MCPH_STRBUF_INIT;
    const char *keys;
    char *copy, *name, *rest;
    int rc, n = 0;

    (void)state;
    rc = host->arg_string(call, "keys", &keys);
    if (rc != MCPH_OK)
        return host->tool_error(call, "keys: a comma-separated string is needed");
    copy = strdup(keys);
    if (copy == NULL)
        return MCPH_ERR_NOMEM;
    for (name = strtok_r(copy, ",", &rest); name != NULL && n < NAMED_MAX_KEYS;
         name = strtok_r(NULL, ",", &rest), n++)
        named_one(host, call, name, &out);
    free(copy);
    rc = out.nomem ? MCPH_ERR_NOMEM : host->text(call, out.len ? out.buf : "");
    mcph_sb_release(&out);
    return rc;
}

static const struct mcph_tool named_tools[] = {
    {
        .name = "ask",
        .description = "Asks the client for its roots once per entry of keys, naming each "
                       "question as the entry says (\"-\": no name).",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"keys\":{\"type\":\"string\"}},"
                        "\"required\":[\"keys\"]}",
        .call = named_ask,
    },
    {0},
};

static const struct mcph_plugin named_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "named",
    .description = "Test plugin: questions named with ask_key (ABI 1.4)",
    .flags = MCPH_PLUGIN_THREAD_SAFE,
    .tools = named_tools,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &named_plugin;
}
