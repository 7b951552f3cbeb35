/*
 * mcp.h: the mcp plugin, which serves an external MCP server (any language, over stdio) as
 * rows of its own. The client engine (core/client) does the serving; the plugin reads its
 * section into the engine's spec:
 *   mcp.c   the descriptor and init: the spec, then mcp_serve()
 *   spec.c  the command line (words, quotes, no shell), the environment, the program's path
 *   remote.c a url section: the relay's settings (a remote server over Streamable HTTP)
 */
#ifndef MCP_MCP_H
#define MCP_MCP_H

#include "client/client.h"
#include "plugin-api.h"

/* The section's command, env, cwd, startup_timeout_ms and idle_stop_s as a spec: MCPH_OK, or
 * an error after logging why (spec is then empty). */
int mcp_spec_read(const struct mcph_host *host, struct mcp_spec *spec);
/* The section's url and the keys that go with it as a spec of mcph's relay (startup_ms and
 * idle_stop_s set already): MCPH_OK, or an error after logging why (the caller releases
 * spec). */
int mcp_remote_read(const struct mcph_host *host, struct mcp_spec *spec);

#endif
