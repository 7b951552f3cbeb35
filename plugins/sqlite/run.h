/*
 * run.h: the query and execute tools, and the checks every client statement passes.
 */
#ifndef SQLITE_PLUGIN_RUN_H
#define SQLITE_PLUGIN_RUN_H

#include "state.h"

/* The query tool: one statement that only reads, with bound params and a row limit. */
int sqrun_query(const struct mcph_host *host, void *state, struct mcph_call *call);
/* The execute tool (writable = yes only): one statement that writes, with bound params. */
int sqrun_execute(const struct mcph_host *host, void *state, struct mcph_call *call);

/*
 * Adds to msg why the last statement on sq->db failed: the authorizer's refusal, the time
 * limit, the client's cancellation, or SQLite's message with the position in sql when SQLite
 * knows it (sql may be NULL for the plugin's own statements).
 */
void sqrun_failure(const struct sq *sq, const char *sql, struct mcph_strbuf *msg);

#endif
