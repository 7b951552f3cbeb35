/*
 * remote.h: the relay, `mcph --remote SECTION`: the process the MCP client engine starts for an
 * mcp section with `url =` in place of a command. It reads its settings as one JSON object
 * on fd 3 (plugins/mcp/spec.c writes them: url, token, token_file, headers_file, ca_file,
 * allow_networks, allow_http, connect_ms, oauth: token_url, client_id, client_secret_file,
 * scope), then turns each JSON-RPC line on stdin into a
 * Streamable HTTP POST to the url (libcurl, opened with dlopen) and writes every message the
 * upstream sends (a JSON body, or each event of an event stream) as one line on stdout. A
 * legacy session's GET stream is kept open; at the end of stdin the session is deleted. With
 * oauth, the bearer token comes from the token endpoint (client credentials, resource = the
 * url), fetched at start and once more after a 401 (waiting for it holds the loop, at most
 * 30 s).
 *
 * Exit status: 0 at the end of stdin; 78 (REMOTE_EXIT_CONFIG) for a configuration fault
 * before the handshake answered (a bad setting or file, no libcurl, an address the SSRF
 * guard refuses, a certificate that does not verify, 401/403); 1 for a transient one (the
 * upstream unreachable, 5xx to the handshake, the session lost: the engine starts the relay
 * again). Every reason is one line on stderr, never with a secret in it.
 *
 * stdout is written with blocking writes: the engine reads it promptly, and a relay whose
 * reader stops waits for it rather than holding the upstream's messages in memory.
 */
#ifndef MCPH_REMOTE_H
#define MCPH_REMOTE_H

#define REMOTE_EXIT_CONFIG 78 /* the engine's config_exit for a url section */

/* Run the relay: argv is mcph's own (argv[1] "--remote", argv[2] the section, for messages).
 * Returns the exit status. From main(), before anything else is set up. */
int remote_main(int argc, char **argv);

#endif
