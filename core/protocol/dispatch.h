/*
 * dispatch.h: one input line to its answer. Parses, checks the JSON-RPC envelope, applies
 * the session rules of the negotiated revision, and routes through the method table, all
 * under the server's state lock on the transport's thread: list and session
 * methods are answered there from the registry; calls into plugins are queued on their
 * plugin's lane and answered by the thread that runs them (most often this one, at once).
 */
#ifndef MCPH_DISPATCH_H
#define MCPH_DISPATCH_H

#include "served/server.h"

#include <stddef.h>

/* Handle one message from peer (NUL-terminated, len bytes, borrowed for the call): parsed,
 * then handled under the server's state lock. The transport's thread (stdio: the thread
 * holding the reader role); it must not be one that a call waits for. */
void dispatch_line(struct server *srv, struct peer *peer, const char *line, size_t len);

/* The first half of dispatch_line: the text checked (UTF-8, control characters, depth, U+0000)
 * and parsed. Returns the message, or NULL when it was answered with an error (a parse error
 * or an invalid request). *cost is what the message costs parsed: mcph_json_over's estimate
 * for a text long enough to be scanned, else its length; it is what dispatch_root is given as
 * the message's bytes, and what mcph_json_trim is given once the message was handled. A
 * transport that looks at a message before dispatching it (HTTP) calls this, then
 * dispatch_root. */
cJSON *dispatch_parse(struct server *srv, struct peer *peer, const char *line, size_t len,
                      size_t *cost);

/* The second half: handle root (owned; one message or a batch), `bytes` long as received. */
void dispatch_root(struct server *srv, struct peer *peer, cJSON *root, size_t bytes);

/* Answer a message that was longer than LIMIT_MESSAGE_BYTES. */
void dispatch_oversized(struct server *srv, struct peer *peer);

#endif
