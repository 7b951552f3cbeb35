/*
 * host.h: the services mcph gives plugins (struct mcph_host): logging, config, definitions
 * at init and refresh for the instance; the call's arguments, progress, cancellation and
 * questions to the client for a handler. What a handler adds to its call's result is
 * collected by result.c, whose sinks the vtable points at.
 */
#ifndef MCPH_HOST_H
#define MCPH_HOST_H

#include "plugin-api.h"

#include <cJSON.h>

struct plugin;
struct plugin_host;

/* What a plugin can ask the client for. */
enum host_ask {
    HOST_ASK_SAMPLE = 1,
    HOST_ASK_ELICIT,
    HOST_ASK_ROOTS,
};

/* The protocol side of a call: set by the dispatcher, called on the handler's thread. */
struct host_env {
    void *ctx;
    /* Send a progress notification (already known to be non-decreasing). */
    void (*progress)(void *ctx, double progress, double total, const char *message);
    /* Whether the request was cancelled. */
    int (*cancelled)(void *ctx);
    /* Ask the client; takes params (owned). Returns an MCPH_* code; on MCPH_OK and
     * MCPH_ERR_CLIENT *answer is the result or error object (owned by the caller). */
    int (*ask)(void *ctx, int what, cJSON *params, cJSON **answer);
    /* Name the next question (host->ask_key), or forget a pending name (key NULL: the next
     * question was refused before it could be asked). Returns MCPH_OK or MCPH_ERR_INVALID. */
    int (*ask_key)(void *ctx, const char *key);
    /* Who asks (host->call_origin): a text that stays the same for every run of the handler
     * serving one request (a 2026-07-28 request and its retries), lent until it returns. */
    const char *(*origin)(void *ctx);
    /* The call's traceparent to pass on, and its tracestate in *state (NULL: none), both
     * lent until the handler returns (host->trace_context; wire/trace.h). */
    const char *(*trace)(void *ctx, const char **state);
    /* Keep a text with the call across the client's retries (host->keep; copied, NULL:
     * nothing), and the one the retry brought or kept since (host->kept; lent until the
     * handler returns or keeps again, NULL: none). keep returns an MCPH_* code. */
    int (*keep)(void *ctx, const char *text);
    const char *(*kept)(void *ctx);
};

/* Fill the vtable of instance `pl` (main thread, before init): the server hands this to the
 * loader as plugin_env.host_setup. */
void host_setup(struct plugin_host *h, struct plugin *pl);

#endif
