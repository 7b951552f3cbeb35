/*
 * rounds.h: a server's questions to the client, passed through the host, for the handlers of
 * serve.c (core/client alone). A legacy server asks in requests of its own (serve.c answers
 * each with mcp_ask); a 2026-07-28 server asks in its result (input_required), in rounds:
 * its questions reach the client under the server's own keys with their params as sent, and
 * the server gets one request per round, with the client's answers under those keys
 * (inputResponses) and its requestState exactly as it gave it. When the client answers by
 * retrying (a 2026-07-28 client), the round is kept with the call (host->keep: mcph's sealed
 * requestState carries it) and the retry's handler continues it (mcp_resume) instead of
 * sending the server its first request again. All on the handler's thread.
 */
#ifndef MCPH_CLIENT_ROUNDS_H
#define MCPH_CLIENT_ROUNDS_H

#include "plugin-api.h"

#include <cJSON.h>

/* Rounds of a 2026-07-28 server's questions in one call, its client's retries included. */
#define MCP_ROUNDS_MAX 16

/* Ask the client the server's question `method` (sampling/createMessage, elicitation/create or
 * roots/list; params_json its params as JSON text, borrowed, or NULL) on behalf of call.
 * MCPH_OK with *answer (owned) the result or, after MCPH_ERR_CLIENT, the error object; else a
 * status (MCPH_ERR_AGAIN: the client answers by retrying; MCPH_ERR_UNSUPPORTED for another
 * method). */
int mcp_ask(const struct mcph_host *host, struct mcph_call *call, const char *method,
            const char *params_json, cJSON **answer);

/* Whether reply (a JSON-RPC response, borrowed) is an InputRequiredResult. */
int mcp_asks_again(const cJSON *reply);

/* The server's reply to sent (the request's params as first sent; both borrowed), after
 * `rounds` rounds of its questions in this call: when it is an input_required, each question
 * is asked of the client (host->ask_key with the server's key: one the host refuses, or one
 * used already in this run, goes under mcph's own ask-N) and the params of the next round are
 * returned (owned: sent with inputResponses and the server's requestState). NULL with *rc
 * MCPH_OK when the reply is no such result; MCPH_ERR_AGAIN when the client answers by retrying
 * (the round, its number and the server's state are kept with the call first); another status
 * once the call's error was set (questions the host does not pass, a malformed inputRequests). */
cJSON *mcp_input_required(const struct mcph_host *host, struct mcph_call *call, const cJSON *reply,
                          const cJSON *sent, int rounds, int *rc);

/* The retry of a call whose server asked (the round kept by mcp_input_required, host->kept):
 * the params that continue it (owned), the questions now answered from the retry, and in
 * *rounds the rounds so far. NULL with *rc MCPH_OK (and *rounds 0) when nothing was kept: a
 * first run, send sent; NULL with MCPH_ERR_AGAIN when the client has still not answered every
 * question (kept again), or another status. sent borrowed. */
cJSON *mcp_resume(const struct mcph_host *host, struct mcph_call *call, const cJSON *sent,
                  int *rounds, int *rc);

#endif
