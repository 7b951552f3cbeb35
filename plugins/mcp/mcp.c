/*
 * mcp.c: the mcp plugin: serves an external MCP server (any language, over stdio, or a
 * remote one over Streamable HTTP) as rows of its own. Its init reads the section into a spec
 * (spec.c) and hands it to the client engine (core/client, built into this plugin as into mcph),
 * which starts the server, defines its rows and forwards every call; the engine's flags, shutdown
 * and subscribe are the descriptor's.
 */
#include "mcp.h"

#include "mcph-value.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* call_timeout_ms, mcph's key of the same name that this plugin declares too: the link kills
 * a server that leaves a request unanswered this long (and starts it again). */
static int mcp_call_timeout(const struct mcph_host *host, struct mcp_spec *spec)
{
    const char *text = host->config(host, "call_timeout_ms");
    long long ms;

    if (text == NULL)
        return MCPH_OK;
    /* The core checked it already (1 to 86400000); a second look costs nothing. */
    if (mcph_value_int(text, 1, 86400000, &ms) != MCPH_OK) {
        host->log(host, MCPH_LOG_ERROR,
                  "call_timeout_ms in [plugin.%s] is '%s'; give milliseconds from 1 to 86400000",
                  host->instance, text);
        return MCPH_ERR_INVALID;
    }
    spec->call_timeout_ms = (int)ms;
    return MCPH_OK;
}

/* confine, read, write, exec and network, mcph's keys that this plugin declares too (the core
 * checked their values and resolved the paths): the server runs confined by them. */
static int mcp_confine(const struct mcph_host *host, struct mcp_spec *spec)
{
    const char *on = host->config(host, "confine"), *net = host->config(host, "network");
    const char *read = host->config(host, "read"), *write = host->config(host, "write");
    const char *exec = host->config(host, "exec");
    int confined = read != NULL || write != NULL || exec != NULL || net != NULL, network = 0;

    if (spec->remote != NULL && (confined || on != NULL)) {
        host->log(host, MCPH_LOG_ERROR,
                  "[plugin.%s] sets url and %s; confine, read, write, exec and network are for "
                  "a server mcph starts (command)",
                  host->instance,
                  on != NULL      ? "confine"
                  : read != NULL  ? "read"
                  : write != NULL ? "write"
                  : exec != NULL  ? "exec"
                                  : "network");
        return MCPH_ERR_INVALID;
    }
    if (on != NULL && mcph_value_bool(on, &confined) != MCPH_OK)
        return MCPH_ERR_INVALID;
    if (net != NULL && mcph_value_bool(net, &network) != MCPH_OK)
        return MCPH_ERR_INVALID;
    return confined ? mcp_spec_confine(host, spec, read, write, exec, network) : MCPH_OK;
}

static int mcp_init(const struct mcph_host *host, void **state)
{
    struct mcp_spec spec;
    int rc = mcp_spec_read(host, &spec);

    if (rc != MCPH_OK)
        return rc;
    rc = mcp_call_timeout(host, &spec);
    if (rc == MCPH_OK)
        rc = mcp_confine(host, &spec);
    if (rc != MCPH_OK) {
        mcp_spec_release(&spec);
        return rc;
    }
    return mcp_serve(host, state, &spec);
}

static const struct mcph_config_key mcp_config_keys[] = {
    {.name = "command",
     .description = "The server's program and its arguments (words; '...' and \"...\" quote; "
                    "no shell). A bare program name is looked up in the server's PATH, a "
                    "relative path is taken from cwd; or url instead"},
    {.name = "url",
     .description = "A remote server's Streamable HTTP endpoint (https://host/mcp) instead of "
                    "command: mcph connects, restarts its relay with backoff while it is away "
                    "and serves its rows once it answers"},
    {.name = "token_file",
     .description = "A file (mode 600) holding the bearer token sent to the url's server, read "
                    "each time the relay starts (a 401 or 403 starts it again)"},
    {.name = "token_env",
     .description = "The variable of mcph's environment holding the bearer token for the url's "
                    "server"},
    {.name = "headers_file",
     .description = "A file (mode 600) of 'Name: value' lines sent to the url's server with "
                    "every request, read each time the relay starts"},
    {.name = "ca_file",
     .description = "The CA certificates (PEM) the url's server is verified against instead of "
                    "the system's"},
    {.name = "allow_networks",
     .description = "Addresses or networks (ADDRESS/BITS, words) that are not public which the "
                    "url may connect to (loopback, private, link-local); none by default"},
    {.name = "allow_http",
     .description = "yes: a plain http:// url is served; no (the default): https only",
     .default_value = "no"},
    {.name = "oauth_token_url",
     .description = "The authorization server's token endpoint, for OAuth client credentials "
                    "to the url's server"},
    {.name = "oauth_client_id", .description = "The OAuth client's id"},
    {.name = "oauth_client_secret_file",
     .description = "A file (mode 600) holding the OAuth client's secret"},
    {.name = "oauth_scope", .description = "The scope asked for with OAuth client credentials"},
    {.name = "env",
     .description = "The server's environment besides PATH=/usr/local/bin:/usr/bin:/bin, "
                    "LANG=C.UTF-8 and HOME: words NAME (copied from mcph's environment when set "
                    "there) or NAME=VALUE; either may replace the defaults",
     .default_value = ""},
    {.name = "cwd",
     .description = "The folder the server runs in; relative to the INI file's folder",
     .default_value = "."},
    {.name = "startup_timeout_ms",
     .description = "How long the server has to start and answer initialize, and to list what "
                    "it serves (100-600000)",
     .default_value = "10000"},
    {.name = "call_timeout_ms",
     .description = "A request the server leaves unanswered this long fails with an error "
                    "naming the section and the limit; the server is killed and started again "
                    "(1-86400000; mcph's own key, taken over: unset, no limit)"},
    {.name = "idle_stop_s",
     .description = "A server with no request in flight, no open question and no subscription "
                    "this long is stopped (its whole tree), and started again by the next "
                    "request that needs it; lists are served meanwhile (1-86400; 0: never)",
     .default_value = "0"},
    /* mcph's confinement keys, taken over (mcph.ini(5)): the server runs confined by them. */
    {.name = "confine",
     .description = "yes: the server runs confined (the default when read, write, exec or "
                    "network is set); no: not"},
    {.name = "read", .description = "Files and folders the server may read (words)"},
    {.name = "write",
     .description = "Files and folders the server may write, create and remove "
                    "in (words)"},
    {.name = "exec",
     .description = "Programs, or folders of them, the server may run besides its command's "
                    "program (words)"},
    {.name = "network",
     .description = "yes: the server may open sockets; no (the default when "
                    "confined): none but socketpair()"},
    {0},
};

static const struct mcph_plugin mcp_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "mcp",
    .version = "1.0.0",
    .description = "Serves an external MCP server (stdio, or remote over Streamable HTTP) as "
                   "tools, resources and prompts of its own",
    .flags = MCP_CLIENT_FLAGS,
    .config_keys = mcp_config_keys,
    .init = mcp_init,
    .shutdown = mcp_unserve,
    .subscribe = mcp_serve_subscribe,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &mcp_plugin;
}
