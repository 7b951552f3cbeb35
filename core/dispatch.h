/*
 * dispatch.h: one input line to its answer. Parses, checks the JSON-RPC envelope, applies
 * the session rules of the negotiated revision, and routes through the method table: list
 * and session methods are answered on the main thread from the registry; calls into
 * plugins go to the worker pool and are answered from there.
 */
#ifndef MCPH_DISPATCH_H
#define MCPH_DISPATCH_H

#include "server.h"

#include <stddef.h>

/* Handle one line (NUL-terminated, len bytes, borrowed for the call). Main thread. */
void dispatch_line(struct server *srv, const char *line, size_t len);

/* Answer a line that was longer than LIMIT_MESSAGE_BYTES. Main thread. */
void dispatch_oversized(struct server *srv);

/* Forget the session (main thread, at exit). */
void dispatch_session_release(struct session *s);

#endif
