/*
 * result.h: the call object a handler fills (struct mcph_call) and what it collects into the
 * result: tool content, a structured result, resource contents, prompt messages, completion
 * values, a protocol error. What is added is counted against LIMIT_RESULT_BYTES and kept to
 * what the client's revision carries (a text stand-in for the rest); once the handler returns,
 * the call becomes the MCP result of its kind. The host vtable (host.c) points its sink
 * members at the result_* functions below.
 */
#ifndef MCPH_RESULT_H
#define MCPH_RESULT_H

#include "plugin-api.h"

#include <cJSON.h>
#include <stddef.h>

struct host_env;

/* What a call answers with. */
enum result_kind {
    RESULT_TOOL = 1, /* CallToolResult */
    RESULT_RESOURCE, /* ReadResourceResult */
    RESULT_PROMPT,   /* GetPromptResult */
    RESULT_COMPLETE, /* CompleteResult */
};

/* At most this many completion values go in one answer. */
#define RESULT_COMPLETION_MAX 100
/* A text that is one of the call's arguments is borrowed from them from this length on. */
#define RESULT_BORROW_MIN 4096

/* One request being served by a handler. Lives on the stack of the thread running it. */
struct mcph_call {
    int kind;              /* enum result_kind */
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
    size_t parsed;              /* what the JSON texts handed over cost parsed (mcph-json.h) */
    const struct host_env *env; /* borrowed: protocol services, or NULL (none) */
    int progress_sent;          /* a progress notification went out */
    double last_progress;       /* its value */
    size_t ncompletions;        /* completion values offered (may exceed those kept) */
    double total;               /* completion total given by result_json, or -1 */
    int more;                   /* result_json said the completion has more values */
    cJSON *extra;               /* owned or NULL: members result_json passes on (_meta too) */
};

/* Set up a call of `kind` (enum result_kind) for a client of revision `rev`. args and uri
 * are borrowed for the call's life. Returns STATUS_OK or STATUS_NOMEM. */
int result_init(struct mcph_call *c, int kind, int rev, const cJSON *args, const char *uri)
    __attribute__((warn_unused_result));

/* Free what the call owns (items, structured result, error, lent strings). NULL is fine. */
void result_release(struct mcph_call *c);

/*
 * The MCP result of a call whose handler returned MCPH_OK: CallToolResult, ReadResourceResult,
 * GetPromptResult or CompleteResult, with only the fields the revision has. Takes the items
 * out of the call. Returns a new object (owned by the caller) or NULL when out of memory.
 * It may borrow long strings of the call's args (a text item that hands an argument back,
 * RESULT_BORROW_MIN bytes or more, is not copied): print or free it before args go.
 */
cJSON *result_build(struct mcph_call *c);

/*
 * The sinks: the host vtable members of the same name, whose contract plugin-api.h states
 * (arguments borrowed for the call, MCPH_* codes returned). MCPH_ERR_STATE when the call's
 * kind takes no such thing, MCPH_ERR_LIMIT past LIMIT_RESULT_BYTES. The handler's thread,
 * during the handler.
 */
int result_text(struct mcph_call *c, const char *text);
int result_image(struct mcph_call *c, const void *data, size_t len, const char *mime_type);
int result_audio(struct mcph_call *c, const void *data, size_t len, const char *mime_type);
int result_resource_link(struct mcph_call *c, const char *uri, const char *name,
                         const char *mime_type, const char *description);
int result_embedded_text(struct mcph_call *c, const char *uri, const char *mime_type,
                         const char *text);
int result_embedded_blob(struct mcph_call *c, const char *uri, const char *mime_type,
                         const void *data, size_t len);
int result_structured(struct mcph_call *c, const char *json);
int result_tool_error(struct mcph_call *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int result_contents_text(struct mcph_call *c, const char *uri, const char *mime_type,
                         const char *text);
int result_contents_blob(struct mcph_call *c, const char *uri, const char *mime_type,
                         const void *data, size_t len);
int result_prompt_message(struct mcph_call *c, enum mcph_role role);
int result_prompt_description(struct mcph_call *c, const char *text);
/* Returns status (whatever it is), so a handler can `return host->error(...)`. */
int result_error(struct mcph_call *c, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int result_completion(struct mcph_call *c, const char *value);
int result_annotate(struct mcph_call *c, const char *annotations_json);
int result_content_meta(struct mcph_call *c, const char *meta_json);
/* Since 1.3: the whole result as JSON text, added after what the sinks added and kept to the
 * client's revision as the sinks keep theirs (plugin-api.h states the contract). Validated
 * whole before anything is added: MCPH_ERR_INVALID adds nothing, and neither do
 * MCPH_ERR_LIMIT (its JSON text's length is counted against LIMIT_RESULT_BYTES) and
 * MCPH_ERR_NOMEM. mcph's own envelope members (resultType, ttlMs, cacheScope,
 * inputRequests, requestState, _meta keys under io.modelcontextprotocol/) are dropped.
 * (result_json.c.) */
int result_json(struct mcph_call *c, const char *json);

#endif
