/*
 * host.h: the services mcph gives plugins (struct mcph_host) and the call object handlers
 * fill (struct mcph_call). A call collects what the handler adds; the core turns it into
 * the result of the negotiated revision afterwards.
 */
#ifndef MCPH_HOST_H
#define MCPH_HOST_H

#include "../plugin-api/plugin-api.h"

#include <cJSON.h>
#include <stddef.h>

struct plugin;
struct plugin_host;

enum host_call_kind {
    HOST_CALL_TOOL = 1,
    HOST_CALL_RESOURCE,
    HOST_CALL_PROMPT,
    HOST_CALL_COMPLETE,
};

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
};

/* At most this many completion values go in one answer. */
#define HOST_COMPLETION_MAX 100

/* One request being served by a handler. Lives on the stack of the thread running it. */
struct mcph_call {
    int kind;              /* enum host_call_kind */
    int rev;               /* enum revision of the client */
    const cJSON *args;     /* borrowed: arguments object (tools, prompts) or template
                            * variables; never NULL */
    const char *uri;       /* borrowed: the URI being read, or NULL */
    const char *name;      /* borrowed: the definition's own name (tool, prompt, resource URI
                            * or URI template), for host->call_name; or NULL */
    const void *data;      /* the definition's data pointer, for host->call_data; or NULL */
    const char *mime_type; /* borrowed: default mimeType of resource contents, or NULL */
    cJSON *items;          /* owned: content (tool), messages (prompt), contents (resource) */
    cJSON *structured;     /* owned or NULL: the tool's structured result */
    int is_error;          /* the tool reported an execution error */
    int has_text;          /* a text item was added (no text mirror needed) */
    int role;              /* prompt: enum mcph_role of the current message, -1 before one */
    char *description;     /* owned or NULL: prompt description */
    char *error;           /* owned or NULL: protocol error message set by host->error */
    char **scratch;        /* owned: strings lent to the handler (arg_json, args_json) */
    size_t nscratch;
    size_t bytes;               /* bytes added so far, against LIMIT_RESULT_BYTES */
    const struct host_env *env; /* borrowed: protocol services, or NULL (none) */
    int progress_sent;          /* a progress notification went out */
    double last_progress;       /* its value */
    size_t ncompletions;        /* completion values offered (may exceed those kept) */
};

/* Fill the vtable of instance `pl` (main thread, before init): the server hands this to the
 * loader as plugin_env.host_setup. */
void host_setup(struct plugin_host *h, struct plugin *pl);

/* Set up a call of `kind` for a client of revision `rev`. args and uri are borrowed for the
 * call's life. Returns STATUS_OK or STATUS_NOMEM. */
int host_call_init(struct mcph_call *c, int kind, int rev, const cJSON *args, const char *uri)
    __attribute__((warn_unused_result));
void host_call_release(struct mcph_call *c);

/*
 * The MCP result of a call whose handler returned MCPH_OK: CallToolResult, ReadResourceResult
 * or GetPromptResult, with only the fields the revision has. Takes the items out of the call.
 * Returns a new object (owned by the caller) or NULL when out of memory.
 */
cJSON *host_call_result(struct mcph_call *c);

#endif
