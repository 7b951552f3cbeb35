/*
 * session.h: a legacy session (protocol 2024-11-05 to 2025-11-25): the
 * initialize handshake and what it negotiates, notifications/initialized, and the level
 * logging/setLevel asks for. A 2026-07-28 request has no session: it carries all of this in
 * its own _meta (protocol/modern.h).
 *
 * Owned by the server; changed by the thread dispatching a message, read by reload (for
 * list_changed), both under the server's state lock.
 */
#ifndef MCPH_SESSION_H
#define MCPH_SESSION_H

#include <cJSON.h>
#include <stdatomic.h>

struct registry;

struct session {
    int rev;              /* enum revision negotiated by initialize; REV_NONE before */
    int initialized;      /* notifications/initialized arrived */
    cJSON *client_caps;   /* owned: the client's capabilities, or NULL */
    cJSON *client_info;   /* owned: clientInfo, or NULL */
    atomic_int log_level; /* what logging/setLevel asked for; LOG_OFF before. Any thread */
};

/* Why a request of the session was refused: a JSON-RPC code and its message. */
struct session_error {
    int code;
    char message[256];
};

void session_init(struct session *s);
void session_release(struct session *s);

/*
 * initialize: negotiate the revision (the one asked for if mcph speaks it, else the newest
 * legacy one; never the client's unknown version echoed), keep the client's capabilities and
 * clientInfo, and make the InitializeResult: the capabilities of `reg` for that revision, its
 * serverInfo and `instructions` (borrowed, may be NULL). Returns STATUS_OK with *result (a new
 * object), STATUS_INVALID or STATUS_EXISTS (initialize done already) with *err filled, or
 * STATUS_NOMEM.
 */
int session_initialize(struct session *s, const cJSON *params, const struct registry *reg,
                       const char *instructions, cJSON **result, struct session_error *err)
    __attribute__((warn_unused_result));

/* notifications/initialized: list_changed may be sent from now on. */
void session_initialized(struct session *s);

/* The level logging/setLevel asks for (the spec's names only). Returns STATUS_OK with *level,
 * or STATUS_INVALID with *err filled. */
int session_level(const cJSON *params, int *level, struct session_error *err);

/* The capabilities object mcph advertises to a client of revision rev serving reg: tools,
 * resources (with subscribe) and prompts always, each with listChanged (a reload may bring any
 * of them), logging, and completions when something can complete. New object, or NULL. */
cJSON *session_capabilities(const struct registry *reg, int rev);

#endif
