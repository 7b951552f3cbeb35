/*
 * modern.h: what protocol revision 2026-07-28 adds on top of the legacy ones, for the
 * dispatcher: the per-request _meta envelope and server/discover. Legacy clients never see
 * any of it. What the era adds elsewhere lives with what it is about: the decoration of
 * every result with the set served (served/decorate.h), listen requests with the other
 * notifications (served/notify.h), the questions to the client with the call
 * (calls/mrtr.h).
 */
#ifndef MCPH_MODERN_H
#define MCPH_MODERN_H

#include "served/server.h"

#include <cJSON.h>

#define MODERN_KEY_VERSION "io.modelcontextprotocol/protocolVersion"
#define MODERN_KEY_CAPS "io.modelcontextprotocol/clientCapabilities"
#define MODERN_KEY_INFO "io.modelcontextprotocol/clientInfo"
#define MODERN_KEY_LOG "io.modelcontextprotocol/logLevel"

/* What a valid modern envelope says. */
struct modern_envelope {
    const cJSON *caps; /* borrowed from the request: clientCapabilities */
    int log_level;     /* enum log_level from logLevel, or LOG_OFF when absent */
};

/* Whether params carry the modern claim: _meta with a protocolVersion key. */
int modern_claims(const cJSON *params);

/* Check the envelope of a claiming request. Returns NULL when it is valid (env filled), else
 * the JSON-RPC error to send (new object): -32602 for a malformed envelope, -32022 (with
 * supported and requested) for a version mcph does not serve per request. */
cJSON *modern_check(const cJSON *id, const cJSON *params, struct modern_envelope *env);

/* The server/discover result (new object). caps is taken. The dispatching thread. */
cJSON *modern_discover(const struct server *srv, cJSON *caps);

#endif
