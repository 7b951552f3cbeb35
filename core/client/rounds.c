/*
 * rounds.c: a server's questions passed to the client through the host (sampling,
 * elicitation, roots), and the rounds of a 2026-07-28 server that asks in its result
 * (input_required): its questions go to the client under the server's own keys, and the
 * client's answers go back with the server's requestState exactly as it gave it. When the
 * client answers by retrying its request (a 2026-07-28 client), the round waiting for it is
 * kept with the call (host->keep, in mcph's sealed requestState) and the retry continues it
 * with one request to the server (mcp_resume), on this mcph or another sharing the state key.
 */
#include "client/rounds.h"

#include "client/link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The questions of the server's that mcph passes to its client. */
static int mcp_known(const char *method)
{
    return strcmp(method, "sampling/createMessage") == 0 ||
           strcmp(method, "elicitation/create") == 0 || strcmp(method, "roots/list") == 0;
}

int mcp_ask(const struct mcph_host *host, struct mcph_call *call, const char *method,
            const char *params_json, cJSON **answer)
{
    cJSON *params = params_json != NULL ? cJSON_Parse(params_json) : NULL;
    const char *result = NULL;
    int rc;

    *answer = NULL;
    if (strcmp(method, "sampling/createMessage") == 0) {
        rc = host->sample(call, params_json != NULL ? params_json : "{}", &result);
    } else if (strcmp(method, "elicitation/create") == 0) {
        const cJSON *message = cJSON_GetObjectItemCaseSensitive(params, "message");
        const cJSON *schema = cJSON_GetObjectItemCaseSensitive(params, "requestedSchema");
        char *schema_json = schema != NULL ? cJSON_PrintUnformatted(schema) : NULL;

        rc = host->elicit(call, cJSON_IsString(message) ? message->valuestring : "",
                          schema_json != NULL ? schema_json : "{\"type\":\"object\"}", &result);
        free(schema_json);
    } else if (strcmp(method, "roots/list") == 0) {
        rc = host->roots(call, &result);
    } else {
        rc = MCPH_ERR_UNSUPPORTED; /* mcp_known() keeps these out */
    }
    cJSON_Delete(params);
    if ((rc == MCPH_OK || rc == MCPH_ERR_CLIENT) && result != NULL) {
        *answer = cJSON_Parse(result);
        if (*answer == NULL)
            return MCPH_ERR_NOMEM;
    }
    return rc;
}

int mcp_asks_again(const cJSON *reply)
{
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(reply, "result");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(result, "resultType");

    return cJSON_IsString(type) && strcmp(type->valuestring, "input_required") == 0;
}

/* Whether the questions of an input_required can be passed to the client; else *rc is the
 * call's error. */
static int mcp_input_ok(const struct mcph_host *host, struct mcph_call *call, const cJSON *requests,
                        int *rc)
{
    const cJSON *q;

    if (!cJSON_IsObject(requests) || cJSON_GetArraySize(requests) > MCP_CALL_ASKS_MAX) {
        *rc = host->error(call, MCPH_ERR,
                          "the server answered input_required with %s; inputRequests must be "
                          "an object of 1 to %d questions, each under its own key",
                          cJSON_IsObject(requests) ? "too many inputRequests"
                          : requests == NULL       ? "no inputRequests"
                                                   : "inputRequests that is not an object",
                          MCP_CALL_ASKS_MAX);
        return 0;
    }
    cJSON_ArrayForEach(q, requests)
    {
        const cJSON *method = cJSON_GetObjectItemCaseSensitive(q, "method");

        if (!cJSON_IsString(method) || !mcp_known(method->valuestring)) {
            *rc = host->error(
                call, MCPH_ERR,
                "the server asked '%s' (inputRequests member '%s'), which mcph does not pass "
                "to its client; it passes sampling/createMessage, elicitation/create and "
                "roots/list",
                cJSON_IsString(method) ? method->valuestring : "(no method)", q->string);
            return 0;
        }
    }
    return 1;
}

/* Ask the client each question of requests; its answer goes under the same key in answers. */
static int mcp_input_ask(const struct mcph_host *host, struct mcph_call *call,
                         const cJSON *requests, cJSON *answers)
{
    const cJSON *q;

    cJSON_ArrayForEach(q, requests)
    {
        const cJSON *method = cJSON_GetObjectItemCaseSensitive(q, "method");
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(q, "params");
        char *params_json = params != NULL ? cJSON_PrintUnformatted(params) : NULL;
        cJSON *answer = NULL;
        int rc = MCPH_ERR_INVALID;

        if (cJSON_IsString(method)) {
            /* A key the host refuses leaves the question under mcph's own ask-N. */
            host->ask_key(call, q->string);
            rc = mcp_ask(host, call, method->valuestring, params_json, &answer);
        }
        free(params_json);
        if (rc == MCPH_OK) {
            cJSON_AddItemToObject(answers, q->string, answer);
            continue;
        }
        cJSON_Delete(answer);
        if (rc != MCPH_ERR_AGAIN)
            rc = host->error(call, MCPH_ERR,
                             "the server asked %s, and mcph could not ask its "
                             "client (status %d)",
                             cJSON_IsString(method) ? method->valuestring : "something", rc);
        return rc;
    }
    return MCPH_OK;
}

/* Keep with the call, for the client's retry, the round of a MCP_MODERN server's questions:
 * {"s": its requestState as it gave it, "q": its inputRequests}. One past MCPH_MAX_KEPT is
 * dropped: the retry then starts the request over (the server runs its rounds again). */
static void mcp_keep_round(const struct mcph_host *host, struct mcph_call *call,
                           const cJSON *requests, const cJSON *state, int rounds)
{
    cJSON *round;
    char *text;

    if (host->abi_minor < 7 || host->keep == NULL)
        return;
    round = cJSON_CreateObject();
    if (state != NULL)
        cJSON_AddItemToObject(round, "s", cJSON_Duplicate(state, 1));
    cJSON_AddItemToObject(round, "q", cJSON_Duplicate(requests, 1));
    cJSON_AddNumberToObject(round, "r", rounds);
    text = cJSON_PrintUnformatted(round);
    if (text == NULL || host->keep(call, text) != MCPH_OK) {
        host->keep(call, ""); /* a new round all the same: no answer of the last one kept */
        host->log(host, MCPH_LOG_WARNING,
                  "the server's requestState and questions (%zu bytes) are more than mcph "
                  "keeps with a call (%d): the client's retry starts the request over",
                  text != NULL ? strlen(text) : 0, MCPH_MAX_KEPT);
    }
    free(text);
    cJSON_Delete(round);
}

/* The next round of a MCP_MODERN server's request: sent (the request as first sent, params)
 * with the client's answers to requests under the server's keys (inputResponses) and the
 * server's requestState exactly as it gave it. NULL with *rc MCPH_ERR_AGAIN when the client
 * answers by retrying (the round is kept with the call for that retry), or another status. */
static cJSON *mcp_next_round(const struct mcph_host *host, struct mcph_call *call,
                             const cJSON *sent, const cJSON *requests, const cJSON *state, int *rc)
{
    cJSON *next = cJSON_Duplicate(sent, 1);

    *rc = mcp_input_ask(host, call, requests, cJSON_AddObjectToObject(next, "inputResponses"));
    if (*rc != MCPH_OK) {
        cJSON_Delete(next);
        return NULL;
    }
    if (state != NULL)
        cJSON_AddItemToObject(next, "requestState", cJSON_Duplicate(state, 1));
    return next;
}

/*
 * A MCP_MODERN server asks its questions in its result (InputRequiredResult: inputRequests,
 * requestState): each is asked of the client under the server's own key where the host
 * takes it (host->ask_key: not one already used in this run), with its params as the server
 * sent them, and the request is sent again with the answers and the server's requestState.
 * When the client answers by retrying (2026-07-28 client), the round is kept with the call
 * (host->keep, in mcph's sealed requestState), and the retry sends the server that one
 * request (mcp_resume): the server never runs its earlier rounds again. Returns the params of
 * that next round (owned), or NULL with *rc MCPH_OK when the reply is not such a result, or
 * MCPH_ERR_AGAIN when the client answers by retrying this call, or another status after a
 * tool error or protocol error was set.
 */
cJSON *mcp_input_required(const struct mcph_host *host, struct mcph_call *call, const cJSON *reply,
                          const cJSON *sent, int rounds, int *rc)
{
    const cJSON *result = cJSON_GetObjectItemCaseSensitive(reply, "result");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(result, "resultType");
    const cJSON *requests = cJSON_GetObjectItemCaseSensitive(result, "inputRequests");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(result, "requestState");

    *rc = MCPH_OK;
    if (!cJSON_IsString(type) || strcmp(type->valuestring, "input_required") != 0)
        return NULL;
    if (!mcp_input_ok(host, call, requests, rc))
        return NULL;
    /* Kept before it is asked: keeping starts a new round, so an answer to an earlier round
     * (a key the server uses again) never answers this one. */
    mcp_keep_round(host, call, requests, cJSON_IsString(state) ? state : NULL, rounds + 1);
    return mcp_next_round(host, call, sent, requests, cJSON_IsString(state) ? state : NULL, rc);
}

/* The round kept is {"s": requestState, "q": inputRequests, "r": rounds so far}. */
cJSON *mcp_resume(const struct mcph_host *host, struct mcph_call *call, const cJSON *sent,
                  int *rounds, int *rc)
{
    const char *text = host->abi_minor >= 7 && host->kept != NULL ? host->kept(call) : NULL;
    cJSON *round = text != NULL ? cJSON_Parse(text) : NULL;
    const cJSON *requests = cJSON_GetObjectItemCaseSensitive(round, "q");
    const cJSON *state = cJSON_GetObjectItemCaseSensitive(round, "s");
    const cJSON *count = cJSON_GetObjectItemCaseSensitive(round, "r");
    cJSON *next = NULL;

    *rc = MCPH_OK;
    *rounds = cJSON_IsNumber(count) && count->valueint > 0 ? count->valueint : 0;
    if (cJSON_IsObject(requests) && requests->child != NULL)
        next = mcp_next_round(host, call, sent, requests, cJSON_IsString(state) ? state : NULL, rc);
    cJSON_Delete(round);
    return next;
}
