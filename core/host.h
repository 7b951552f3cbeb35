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
};

/* One request being served by a handler. Lives on the worker's stack; one thread. */
struct mcph_call {
    int kind;              /* enum host_call_kind */
    int rev;               /* enum revision of the client */
    const cJSON *args;     /* borrowed: arguments object (tools, prompts) or template
                            * variables; never NULL */
    const char *uri;       /* borrowed: the URI being read, or NULL */
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
    size_t bytes; /* bytes added so far, against LIMIT_RESULT_BYTES */
};

/* Fill the vtable of instance `pl` (main thread, before init). */
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
