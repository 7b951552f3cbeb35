/*
 * pipe.h: the stdio transport. Requests come on fd 0, one JSON-RPC message a line; the
 * thread holding the pool's reader role reads them and has them dispatched (work.h), and
 * every answer leaves through the server's out on the original stdout. Dispatch does not know
 * which transport a message came from.
 */
#ifndef MCPH_PIPE_H
#define MCPH_PIPE_H

#include "served/server.h"
#include "lib/work.h"

/* The reader role's work for srv: dispatch the buffered lines, read more, flush, and tell the
 * main loop when the input ended (srv->input_ended, then a wake-up). */
void pipe_source(struct server *srv, struct work_source *src);

#endif
