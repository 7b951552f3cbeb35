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

/* The log sink (struct log's sink; ctx is the server): sends notifications/message to a
 * client that asked for logging with logging/setLevel. Any thread. */
void dispatch_log_sink(void *ctx, int level, const char *who, const char *text);

/* Tell the client which lists (enum registry_list bits) changed: one list_changed
 * notification each, and none before the session is initialized. Main thread. */
void dispatch_lists_changed(struct server *srv, unsigned lists);

/* Forget the session (main thread, at exit). */
void dispatch_session_release(struct session *s);

#endif
