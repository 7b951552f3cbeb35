/*
 * plugin-api.h: the mcph plugin ABI.
 *
 * A plugin is a shared object that exports one function, mcph_plugin_entry(), returning a
 * pointer to a static const struct mcph_plugin. That descriptor lists the plugin's tools,
 * resources, resource templates and prompts in static tables, the config keys it accepts,
 * its flags, and optional init/shutdown functions. mcph copies what it needs from the
 * descriptor at load time, serves the merged set over MCP, and calls the plugin's handlers
 * on its pool threads. Services (logging, config, arguments, results) reach the plugin through
 * the host vtable, struct mcph_host, so a plugin never links against mcph.
 *
 * Rules every plugin follows:
 * - Include only this header (and mcph-strbuf.h, header-only, if you like; plus system
 *   headers and your own libraries); export only
 *   the entry function (build with -fvisibility=hidden; MCPH_EXPORT marks the entry).
 * - Keep all state in the struct your init() creates; no globals that outlive shutdown(),
 *   no threads, timers, atexit() or TLS destructors left running after shutdown(). mcph may
 *   call init -> shutdown -> init in one process, and dlclose() the plugin afterwards.
 * - Never free what mcph hands you, and never expect mcph to free what you allocate:
 *   every pointer passed across the boundary is borrowed for a stated time, and every
 *   result sink copies its input.
 * - Write nothing to stdout: it belongs to the protocol (mcph points fd 1 at stderr while
 *   plugins run, but a log call is the right way to say something).
 * - The MCP envelope belongs to mcph: handlers never see JSON-RPC ids, protocol versions,
 *   _meta or revision differences.
 *
 * Versioning. The descriptor starts with the ABI major and minor it was built against and
 * its own size, and records the size of each table row, so the ABI grows by appending
 * members at the end of a struct with a minor bump. mcph loads a plugin whose major equals
 * its own and whose minor is not newer than its own; a member the plugin's minor does not
 * have reads as zero. Anything other than appending is a major bump.
 *
 * Threads. Every member of the descriptor, of a table row that mcph calls, and of the host
 * vtable carries one tag in brackets, in its comment or on its line, that says on which
 * thread it runs (for the plugin's functions: where mcph calls them; for host members: where
 * the plugin may call them):
 *   [main-thread]     mcph's control thread (signals, reloads). mcph reads the descriptor and
 *                     its tables there while it loads the plugin (copying what it keeps), and
 *                     calls init() and shutdown() there, never while a handler of the same
 *                     instance runs.
 *   [during-init]     the main thread, only while this instance's init() runs; the host member
 *                     returns MCPH_ERR_STATE anywhere else.
 *   [pool-thread]     one of mcph's pool threads, most often the one that read the request;
 *                     which one is not fixed from call to call. Unless the descriptor sets
 *                     MCPH_PLUGIN_THREAD_SAFE, mcph runs one instance's handlers one at a time.
 *   [handler-thread]  the thread running the handler of that call, until the handler returns.
 *   [any-thread]      any thread, the plugin's own included, from init() until shutdown()
 *                     returns.
 *
 * Changelog (newest first):
 *   1.7  keep() and kept(): a text carried in mcph's sealed requestState across a call's
 *        retries (a relayed server's own requestState); ask_key() takes a free "ask-N".
 *   1.6  trace_context() gives the call's W3C traceparent (and tracestate) to pass on to
 *        whatever the handler calls: the client's trace, with mcph's span as the parent.
 *   1.5  call_origin() tells apart the requests that ask the same thing: one text for every
 *        round of a 2026-07-28 request and its retries, another for any other request or
 *        client (for a plugin that keeps something for a call that comes back);
 *        instructions() adds the instance's paragraph to the server's instructions. The
 *        header compiles as C++ (extern "C"), every member carries its thread tag, and
 *        mcph_plugin_header() fills a descriptor's header in code (no layout change).
 *   1.4  ask_key() names the handler's next question to the client: under 2026-07-28 it goes
 *        under that key in the input_required result (not ask-N), and its answer comes back
 *        under it.
 *   1.3  For plugins that relay another server (a proxy): result_json() passes a whole MCP
 *        result through; client_log() sends notifications/message; MCPH_PLUGIN_TAKE_OVER
 *        and predecessor() let a rebuilt instance keep what the one it replaces holds (a
 *        child process); the descriptor's subscribe() hears which resources clients follow.
 *   1.2  Definitions made at init (define_tool, define_resource, define_template,
 *        define_prompt) for lists that come from outside the plugin (files, a database,
 *        a folder of prompts, the config); refresh() to have them made again; call_name()
 *        and a `data` pointer on every row (call_data()) for handlers shared by several
 *        definitions; config_path() for path-valued keys; vlog(); MCPH_PLUGIN_REBUILD_ON_
 *        RELOAD; the MCPH_MAX_* limits.
 *   1.1  Progress, cancellation, resource-updated notifications, completions (a `complete`
 *        handler on prompts and templates), asking the client (sampling, elicitation,
 *        roots), content annotations and _meta, icons/_meta/annotations on definitions.
 *   1.0  First version: descriptor, tools, resources, templates, prompts, config keys,
 *        logging, config lookup, argument accessors, content and result sinks.
 */
#ifndef MCPH_PLUGIN_API_H
#define MCPH_PLUGIN_API_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* C++ plugins include this header too: the entry symbol and every type keep C linkage, so
 * dlsym() finds "mcph_plugin_entry" unmangled. */
#ifdef __cplusplus
extern "C" {
#endif

#define MCPH_ABI_MAJOR 1
#define MCPH_ABI_MINOR 7

/* The limits mcph enforces on what a plugin declares and returns (since 1.2; the values
 * held before). */
#define MCPH_MAX_ROWS 4096                          /* rows of each kind in one instance */
#define MCPH_MAX_ARGS 64                            /* arguments of a prompt, template variables */
#define MCPH_MAX_NAME 128                           /* a tool or prompt name, prefix included */
#define MCPH_MAX_URI 4096                           /* a resource URI or URI template, in bytes */
#define MCPH_MAX_RESULT_BYTES (32u * 1024u * 1024u) /* one result built by a handler */
#define MCPH_MAX_INSTRUCTIONS 65536                 /* bytes of an instance's instructions (1.5) */
#define MCPH_MAX_KEPT 65536 /* bytes of the text keep() keeps with a call (1.7) */

/* The one symbol a plugin exports; mcph looks it up with dlsym(). */
#define MCPH_ENTRY_SYMBOL "mcph_plugin_entry"

#if defined(__GNUC__)
#define MCPH_EXPORT __attribute__((visibility("default")))
#define MCPH_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define MCPH_EXPORT
#define MCPH_PRINTF(fmt, args)
#endif

/*
 * Status codes. Host calls return MCPH_OK or one of the negative codes. A handler returns
 * MCPH_OK when it produced a result (a tool that ran and failed still returns MCPH_OK, after
 * host->tool_error()), or a negative code for a protocol error: mcph then answers the
 * request with a JSON-RPC error, carrying the message set by host->error() or a generic one.
 * MCPH_ERR_INVALID maps to -32602, MCPH_ERR_NOT_FOUND to -32002 for resource reads (-32602
 * otherwise); every other negative code to -32603.
 *
 * Tool arguments that are wrong (missing, of the wrong type, out of range) are a tool
 * error, not a protocol error: the model reads tool errors and can correct itself.
 */
enum mcph_status {
    MCPH_OK = 0,
    MCPH_ERR = -1,             /* internal error (JSON-RPC -32603) */
    MCPH_ERR_INVALID = -2,     /* invalid params (-32602) */
    MCPH_ERR_NOT_FOUND = -3,   /* no such resource or item (MCP resource not found, -32002) */
    MCPH_ERR_ABSENT = -4,      /* accessor: the argument is not present */
    MCPH_ERR_TYPE = -5,        /* accessor: the argument has another JSON type */
    MCPH_ERR_NOMEM = -6,       /* out of memory (-32603) */
    MCPH_ERR_STATE = -7,       /* this host call does not apply to this kind of call */
    MCPH_ERR_LIMIT = -8,       /* a size limit was hit (the result would be too large) */
    MCPH_ERR_UNSUPPORTED = -9, /* the client cannot do this (it did not declare the
                                * capability); since 1.1 */
    MCPH_ERR_TIMEOUT = -10,    /* the client did not answer in time; since 1.1 */
    MCPH_ERR_CANCELLED = -11,  /* the call was cancelled while waiting; since 1.1 */
    MCPH_ERR_CLIENT = -12,     /* the client answered with an error; since 1.1 */
    MCPH_ERR_AGAIN = -13,      /* the answer is not here yet: return now, and mcph runs the
                                * handler again once the client has answered; since 1.1 */
};

/* Log levels, the MCP (syslog) levels in increasing severity. */
enum mcph_log_level {
    MCPH_LOG_DEBUG = 0,
    MCPH_LOG_INFO,
    MCPH_LOG_NOTICE,
    MCPH_LOG_WARNING,
    MCPH_LOG_ERROR,
    MCPH_LOG_CRITICAL,
    MCPH_LOG_ALERT,
    MCPH_LOG_EMERGENCY,
};

/* A tool annotation hint: unset (the client assumes the spec's default), true or false. */
enum mcph_hint {
    MCPH_HINT_UNSET = 0,
    MCPH_HINT_TRUE = 1,
    MCPH_HINT_FALSE = 2,
};

/* The speaker of a prompt message. */
enum mcph_role {
    MCPH_ROLE_USER = 0,
    MCPH_ROLE_ASSISTANT = 1,
};

/* Descriptor flags. */
enum mcph_plugin_flags {
    /* Handlers of one instance may run on several threads at once (up to the section's
     * max_concurrent, else [server] workers). Without it mcph serialises every call into the
     * instance. */
    MCPH_PLUGIN_THREAD_SAFE = 1u << 0,
    /* Build a new instance on every reload even when its section and file did not change,
     * because what it serves comes from outside (it defines rows at init from a folder, a
     * database, ...). Implied for an instance that defined a row at init. Since 1.2. */
    MCPH_PLUGIN_REBUILD_ON_RELOAD = 1u << 1,
    /* A rebuild of an instance from the same section and the same file (a refresh(), or a
     * reload that keeps the section of a plugin that defines rows at init) runs in the same
     * mapping of the library as the instance it replaces (one copy of its code and
     * globals), and its init() may take over what that instance holds (host->predecessor()).
     * A changed section or file loads a fresh copy, as for every plugin. Since 1.3. */
    MCPH_PLUGIN_TAKE_OVER = 1u << 2,
};

struct mcph_host;
/* One request being served (a tool call, a resource read or a prompt get). Opaque; valid
 * from the handler's start until it returns, on the thread that runs the handler. */
struct mcph_call;

/*
 * A handler: serves one tool call, resource read or prompt get.
 *   host   borrowed for the instance's lifetime (the same pointer init() received).
 *   state  what init() stored (NULL when the plugin has no init).
 *   call   borrowed until the handler returns; read arguments and add results through host.
 * Returns MCPH_OK or a negative enum mcph_status (see above). [pool-thread]
 */
typedef int (*mcph_handler_fn)(const struct mcph_host *host, void *state, struct mcph_call *call);

/*
 * A tool. Exposed as tools/list entries; tools/call runs `call`.
 * name           1-128 characters of A-Za-z0-9 _ . - (the spec's tool-name rule; keep it
 *                short: with a prefix mcph exposes "prefix_name", and clients add their own).
 * title          human-readable name, or NULL. Sent as Tool.title (2025-06-18 and newer) or
 *                as annotations.title (2025-03-26).
 * description    what the tool does, for the model, or NULL.
 * input_schema   JSON Schema text of an object (type "object"), or NULL for {"type":"object"}.
 * output_schema  JSON Schema text of an object, or NULL. With it, the tool should give a
 *                structured result through host->structured().
 * *_hint         enum mcph_hint: readOnlyHint, destructiveHint, idempotentHint, openWorldHint.
 * call           the handler. Required.
 * Every string is borrowed by mcph only during load: mcph copies it. Since 1.0.
 */
struct mcph_tool {
    const char *name;
    const char *title;
    const char *description;
    const char *input_schema;
    const char *output_schema;
    unsigned char read_only_hint;
    unsigned char destructive_hint;
    unsigned char idempotent_hint;
    unsigned char open_world_hint;
    /* [pool-thread] */
    mcph_handler_fn call;
    /* Since 1.1. Each is JSON text or NULL, checked at load, and sent only to clients whose
     * revision has the field: icons (an array of Icon objects, 2025-11-25), meta (an object,
     * sent as _meta, 2025-06-18 and newer). */
    const char *icons;
    const char *meta;
    /* Since 1.2: the plugin's own pointer for this row, handed back to its handler by
     * host->call_data() (e.g. the command a shared handler runs). mcph never reads it. */
    const void *data;
};

/*
 * A fixed resource. Listed by resources/list; resources/read of exactly `uri` runs `read`,
 * which adds contents with host->contents_text() or host->contents_blob().
 * uri        an absolute URI (scheme:...). Required.
 * name       short name. Required.
 * title, description, mime_type   optional (NULL).
 * size       size in bytes if known, for the client's information; 0 when unknown.
 * Since 1.0.
 */
struct mcph_resource {
    const char *uri;
    const char *name;
    const char *title;
    const char *description;
    const char *mime_type;
    uint64_t size;
    /* [pool-thread] */
    mcph_handler_fn read;
    /* Since 1.1: JSON text or NULL. annotations: an Annotations object (audience, priority,
     * lastModified); icons and meta as for tools. */
    const char *annotations;
    const char *icons;
    const char *meta;
    /* Since 1.2: the plugin's own pointer for this row, handed back to its handler by
     * host->call_data() (e.g. the command a shared handler runs). mcph never reads it. */
    const void *data;
};

/*
 * A resource template (RFC 6570 level 1 and 2: "{var}" matches one or more characters
 * other than '/', '?' and '#', and is percent-decoded; "{+var}" matches one or more of any,
 * '/' included, and is passed as written). resources/read of a URI that no fixed resource
 * has and that matches the template runs `read` (the first matching template in INI and
 * table order); the variables are read with host->arg_string(call, "var", ...), the whole
 * URI with host->uri(call).
 * uri_template, name required; title, description, mime_type optional. Since 1.0.
 */
struct mcph_resource_template {
    const char *uri_template;
    const char *name;
    const char *title;
    const char *description;
    const char *mime_type;
    /* [pool-thread] */
    mcph_handler_fn read;
    /* Since 1.1: as for resources. */
    const char *annotations;
    const char *icons;
    const char *meta;
    /* Since 1.1, optional: completes a variable (completion/complete). The call's arguments
     * are "argument" (the variable's name), "value" (what the user typed so far) and, when
     * the client sent them, "context" (an object of the variables already chosen, read with
     * arg_json). Add candidates with host->completion(). [pool-thread] */
    mcph_handler_fn complete;
    /* Since 1.2: the plugin's own pointer for this row, handed back to its handler by
     * host->call_data() (e.g. the command a shared handler runs). mcph never reads it. */
    const void *data;
};

/* One prompt argument. name required; title, description optional; required non-zero when
 * prompts/get must carry it (mcph refuses the request with -32602 otherwise). Since 1.0. */
struct mcph_prompt_arg {
    const char *name;
    const char *title;
    const char *description;
    int required;
};

/*
 * A prompt. prompts/get runs `get`, which reads arguments with host->arg_string() and adds
 * messages: host->prompt_message() starts a message with a role, and each content sink
 * (host->text(), host->image(), ...) called after it adds one message of that role.
 * arguments  a table ended by a row whose name is NULL, or NULL for none.
 * Since 1.0.
 */
struct mcph_prompt {
    const char *name;
    const char *title;
    const char *description;
    const struct mcph_prompt_arg *arguments;
    /* [pool-thread] */
    mcph_handler_fn get;
    /* Since 1.1: icons and meta as for tools. */
    const char *icons;
    const char *meta;
    /* Since 1.1, optional: completes an argument, as for resource templates. [pool-thread] */
    mcph_handler_fn complete;
    /* Since 1.2: the plugin's own pointer for this row, handed back to its handler by
     * host->call_data() (e.g. the command a shared handler runs). mcph never reads it. */
    const void *data;
};

/* A key the plugin accepts in its INI section. mcph refuses any other key besides its own
 * (path, enabled, prefix, cache_ttl_ms, cache_scope, max_concurrent, tools, resources,
 * prompts, isolate, call_timeout_ms, max_memory, max_cpu_s, max_files, max_procs, confine,
 * read, write, exec, network, audit_arguments; mcph.ini(5)), and a missing required key,
 * naming the file and line. A plugin may
 * not declare a key of mcph's own, nor one starting with "cache_". default_value is what
 * host->config() returns when the INI does not set the key (may be NULL). Since 1.0. */
struct mcph_config_key {
    const char *name;
    const char *description;
    const char *default_value;
    int required;
};

/*
 * The descriptor. Static const in the plugin; returned by mcph_plugin_entry().
 * The first three members are frozen forever: mcph reads them before anything else.
 * Fill the version and size members with MCPH_PLUGIN_HEADER.
 * Tables end with a row whose first member is NULL; a NULL table is empty.
 */
struct mcph_plugin {
    uint16_t abi_major;       /* MCPH_ABI_MAJOR the plugin was built with [main-thread] */
    uint16_t abi_minor;       /* MCPH_ABI_MINOR the plugin was built with [main-thread] */
    uint32_t size;            /* sizeof(struct mcph_plugin) [main-thread] */
    uint16_t tool_size;       /* sizeof(struct mcph_tool) [main-thread] */
    uint16_t resource_size;   /* sizeof(struct mcph_resource) [main-thread] */
    uint16_t template_size;   /* sizeof(struct mcph_resource_template) [main-thread] */
    uint16_t prompt_size;     /* sizeof(struct mcph_prompt) [main-thread] */
    uint16_t prompt_arg_size; /* sizeof(struct mcph_prompt_arg) [main-thread] */
    uint16_t config_key_size; /* sizeof(struct mcph_config_key) [main-thread] */
    const char *name;         /* the plugin's name, for messages ("example") [main-thread] */
    const char *version;      /* the plugin's own version ("1.0.0"), or NULL [main-thread] */
    const char *description;  /* one line about the plugin, or NULL [main-thread] */
    uint32_t flags;           /* enum mcph_plugin_flags [main-thread] */
    /* [main-thread] */
    const struct mcph_tool *tools;
    /* [main-thread] */
    const struct mcph_resource *resources;
    /* [main-thread] */
    const struct mcph_resource_template *resource_templates;
    /* [main-thread] */
    const struct mcph_prompt *prompts;
    /* [main-thread] */
    const struct mcph_config_key *config_keys;
    /*
     * init: optional. Called once per instance before any handler, with
     * a host vtable that stays valid until shutdown() returns. Store your state in *state
     * (it is handed to every handler and to shutdown). Return MCPH_OK, or a negative code
     * after a host->log() at MCPH_LOG_ERROR saying why; the instance is then not served,
     * shutdown() is not called, and init must have freed what it made.
     * [main-thread]
     */
    int (*init)(const struct mcph_host *host, void **state);
    /* shutdown: optional. Called after the last handler of the instance returned.
     * Free everything init() made; leave nothing running. [main-thread] */
    void (*shutdown)(void *state);
    /*
     * Since 1.3, optional: clients began (on = 1) or ceased (on = 0) to follow `uri`, a
     * resource this instance serves (one of its resources, or a URI its templates match):
     * the first resources/subscribe or subscriptions/listen naming it, the last
     * unsubscribe, listen closed or session ended. Also called with on = 1, once the
     * instance is in service, for each URI already followed that it serves (after a reload
     * or a refresh). For a plugin whose resources change elsewhere, to pass the subscription
     * on. Must not block: record the change and return. mcph calls it on a pool thread or
     * the main thread, never concurrently for one instance.
     * [any-thread]
     */
    void (*subscribe)(const struct mcph_host *host, void *state, const char *uri, int on);
};

#define MCPH_PLUGIN_HEADER                                                                         \
    .abi_major = MCPH_ABI_MAJOR, .abi_minor = MCPH_ABI_MINOR, .size = sizeof(struct mcph_plugin),  \
    .tool_size = sizeof(struct mcph_tool), .resource_size = sizeof(struct mcph_resource),          \
    .template_size = sizeof(struct mcph_resource_template),                                        \
    .prompt_size = sizeof(struct mcph_prompt), .prompt_arg_size = sizeof(struct mcph_prompt_arg),  \
    .config_key_size = sizeof(struct mcph_config_key)

/* The same header filled in code, for C++ before C++20 (which has no designated
 * initialisers): a C++ plugin builds its descriptor in a function, sets every member it uses,
 * calls this, and returns a function-local static made from it. */
static inline void mcph_plugin_header(struct mcph_plugin *plugin)
{
    plugin->abi_major = MCPH_ABI_MAJOR;
    plugin->abi_minor = MCPH_ABI_MINOR;
    plugin->size = sizeof(struct mcph_plugin);
    plugin->tool_size = sizeof(struct mcph_tool);
    plugin->resource_size = sizeof(struct mcph_resource);
    plugin->template_size = sizeof(struct mcph_resource_template);
    plugin->prompt_size = sizeof(struct mcph_prompt);
    plugin->prompt_arg_size = sizeof(struct mcph_prompt_arg);
    plugin->config_key_size = sizeof(struct mcph_config_key);
}

/* The entry point every plugin defines, returning its static descriptor. */
MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void);

/*
 * The host vtable. One per plugin instance; borrowed from init() until shutdown() returns.
 * Members are appended with minor bumps. mcph refuses a plugin built for a newer minor than
 * its own, so every member your header declares is present. Strings passed in are copied
 * by mcph before the call returns. Host calls given a NULL call return a negative status.
 */
struct mcph_host {
    uint32_t size;        /* sizeof(struct mcph_host) in this mcph [any-thread] */
    uint16_t abi_major;   /* the host's MCPH_ABI_MAJOR [any-thread] */
    uint16_t abi_minor;   /* the host's MCPH_ABI_MINOR [any-thread] */
    const char *version;  /* mcph's version string, borrowed for the instance's life [any-thread] */
    const char *instance; /* this instance's INI id (the NAME of [plugin.NAME]) [any-thread] */

    /* --- Services. Since 1.0. --- */

    /* Log a message: to stderr, tagged with the instance id, if level is at or above the
     * configured log_level. [any-thread] */
    void (*log)(const struct mcph_host *host, enum mcph_log_level level, const char *fmt, ...)
        MCPH_PRINTF(3, 4);

    /* The value of a key from the instance's INI section, else the key's default_value,
     * else NULL. Borrowed until shutdown() returns. [any-thread] */
    const char *(*config)(const struct mcph_host *host, const char *key);

    /* --- Arguments. Since 1.0. ---
     * Tool calls read the members of "arguments"; prompt gets the prompt arguments (all
     * strings); template reads the template variables. Each returns MCPH_OK,
     * MCPH_ERR_ABSENT or MCPH_ERR_TYPE. Strings are borrowed until the handler returns. */
    /* [handler-thread] */
    int (*arg_string)(struct mcph_call *call, const char *name, const char **value);
    /* [handler-thread] */
    int (*arg_number)(struct mcph_call *call, const char *name, double *value);
    /* MCPH_ERR_TYPE when the number is not an integer or outside int64_t. [handler-thread] */
    int (*arg_integer)(struct mcph_call *call, const char *name, int64_t *value);
    /* [handler-thread] */
    int (*arg_bool)(struct mcph_call *call, const char *name, int *value);
    /* Any member, as compact JSON text. [handler-thread] */
    int (*arg_json)(struct mcph_call *call, const char *name, const char **json);
    /* All the arguments as one JSON object text ("{}" when there are none). Always MCPH_OK
     * unless out of memory. [handler-thread] */
    int (*args_json)(struct mcph_call *call, const char **json);
    /* The URI being read (resource and template handlers), else NULL. Borrowed until the
     * handler returns. [handler-thread] */
    const char *(*uri)(struct mcph_call *call);

    /* --- Content sinks: tool results and prompt messages. Since 1.0. Each appends one content item
     * (copying its input) and returns MCPH_OK, MCPH_ERR_STATE (not a tool or prompt call, or a
     * prompt before prompt_message()), MCPH_ERR_INVALID (a required argument is NULL) or
     * MCPH_ERR_LIMIT. Binary data is given raw; mcph base64-encodes it. A content type that the
     * client's protocol revision lacks (audio before 2025-03-26, resource links before 2025-06-18)
     * is sent as a text item describing it. --- */
    /* [handler-thread] */
    int (*text)(struct mcph_call *call, const char *text);
    /* [handler-thread] */
    int (*image)(struct mcph_call *call, const void *data, size_t len, const char *mime_type);
    /* [handler-thread] */
    int (*audio)(struct mcph_call *call, const void *data, size_t len, const char *mime_type);
    /* A link to a resource: uri and name required; mime_type and description may be NULL.
     * [handler-thread] */
    int (*resource_link)(struct mcph_call *call, const char *uri, const char *name,
                         const char *mime_type, const char *description);
    /* An embedded resource with text or binary contents; mime_type may be NULL. [handler-thread] */
    int (*embedded_text)(struct mcph_call *call, const char *uri, const char *mime_type,
                         const char *text);
    /* [handler-thread] */
    int (*embedded_blob)(struct mcph_call *call, const char *uri, const char *mime_type,
                         const void *data, size_t len);
    /* Tools only: the structured result, JSON text of an object. Sent as structuredContent
     * (2025-06-18 and newer) with a text mirror for older clients when the tool added no
     * text itself. MCPH_ERR_INVALID when json is not a JSON object. [handler-thread] */
    int (*structured)(struct mcph_call *call, const char *json);
    /* Tools only: the tool ran and failed. Adds the formatted text and marks the result
     * isError. Returns MCPH_OK, so a handler can `return host->tool_error(call, ...)`; on
     * a failure to store the text (MCPH_ERR_NOMEM, MCPH_ERR_LIMIT) the result is still
     * marked isError and that code is returned. MCPH_ERR_STATE outside a tool call.
     * [handler-thread] */
    int (*tool_error)(struct mcph_call *call, const char *fmt, ...) MCPH_PRINTF(2, 3);

    /* --- Resource contents: resource and template handlers. uri NULL means the URI being read;
     * mime_type may be NULL. Since 1.0. --- */
    /* [handler-thread] */
    int (*contents_text)(struct mcph_call *call, const char *uri, const char *mime_type,
                         const char *text);
    /* [handler-thread] */
    int (*contents_blob)(struct mcph_call *call, const char *uri, const char *mime_type,
                         const void *data, size_t len);

    /* --- Prompts. Since 1.0. --- */
    /* Start a message of this role: every content sink called next adds one message.
     * [handler-thread] */
    int (*prompt_message)(struct mcph_call *call, enum mcph_role role);
    /* The optional description of the filled prompt. [handler-thread] */
    int (*prompt_description)(struct mcph_call *call, const char *text);

    /* --- Protocol errors: any handler. Since 1.0. ---
     * Sets the message of the JSON-RPC error sent when the handler returns `status` (a
     * negative enum mcph_status; the message is kept but unused if the handler returns
     * MCPH_OK), and returns `status`:
     *     return host->error(call, MCPH_ERR_NOT_FOUND, "no row %d", n);
     * Use it for requests that are wrong; a tool that ran and failed uses tool_error. */
    /* [handler-thread] */
    int (*error)(struct mcph_call *call, int status, const char *fmt, ...) MCPH_PRINTF(3, 4);

    /* ------------------------------------------------------------------------------------
     * Since 1.1.
     * ------------------------------------------------------------------------------------ */

    /* Report progress of this call. Sent as notifications/progress when the client asked
     * for progress (it gave a progressToken), else nothing. A value below the last one sent
     * is dropped (progress never goes back); total <= 0 means unknown; message may be NULL.
     * Never sent after the result. MCPH_OK. [handler-thread] */
    int (*progress)(struct mcph_call *call, double progress, double total, const char *message);

    /* 1 when the client cancelled this call (notifications/cancelled): stop and return
     * anything; mcph sends no answer for a cancelled request. Else 0. Poll it in long loops.
     * [handler-thread] */
    int (*cancelled)(struct mcph_call *call);

    /* Tell clients subscribed to `uri` that the resource changed (resources/updated). [any-thread]
     */
    void (*resource_updated)(const struct mcph_host *host, const char *uri);

    /* Completion handlers only: add one candidate value. At most 100 are sent; more set
     * hasMore. MCPH_ERR_STATE outside a completion. [handler-thread] */
    int (*completion)(struct mcph_call *call, const char *value);

    /* Content annotations: set the Annotations of the content item added last (tool
     * content or prompt message content) from JSON text of an object (audience, priority,
     * lastModified). MCPH_ERR_STATE when there is no item, MCPH_ERR_INVALID for bad JSON.
     * [handler-thread] */
    int (*annotate)(struct mcph_call *call, const char *annotations_json);

    /* Set _meta of the content item added last (JSON text of an object); sent to clients of
     * 2025-06-18 and newer. Same returns as annotate. [handler-thread] */
    int (*content_meta)(struct mcph_call *call, const char *meta_json);

    /*
     * Ask the client, from a tool, prompt or resource handler. Each blocks the handler's
     * thread until the client answers, the call is cancelled, or [server] ask_timeout_ms
     * passes. On MCPH_OK *result_json is the client's result as JSON text, borrowed until
     * the handler returns. Else: MCPH_ERR_UNSUPPORTED (the client did not declare the
     * capability: turn it into a tool error that says so, or return it, and a 2026-07-28
     * client gets -32021 naming the capability), MCPH_ERR_TIMEOUT,
     * MCPH_ERR_CANCELLED (the call was cancelled, or the client's input ended: return
     * promptly), MCPH_ERR_CLIENT (the client answered with an
     * error; *result_json is then the JSON-RPC error object), MCPH_ERR_INVALID (bad JSON in).
     * MCPH_ERR_AGAIN: under protocol 2026-07-28 the client answers by retrying the request
     * (InputRequiredResult): return at once (what you return is discarded); mcph runs the
     * handler again with the same arguments, and this time the same question, asked in the
     * same order, returns the client's answer. So ask before doing anything that must not
     * happen twice. The same code works whatever protocol revision the client speaks. The
     * question goes under the key ask-N (the run's N-th question) in the InputRequiredResult,
     * or under the one ask_key() gave it (since 1.4).
     * MCPH_ERR_LIMIT: a 2026-07-28 run asked more than 256 questions.
     */
    /* sampling/createMessage: params_json is its params object (messages, maxTokens, ...);
     * the result has role, content, model, stopReason. [handler-thread] */
    int (*sample)(struct mcph_call *call, const char *params_json, const char **result_json);
    /* elicitation/create (form mode): a message and the requested schema (JSON text of an
     * object schema of primitive properties); the result has action ("accept", "decline",
     * "cancel") and, when accepted, content. [handler-thread] */
    int (*elicit)(struct mcph_call *call, const char *message, const char *schema_json,
                  const char **result_json);
    /* roots/list: the result has roots, an array of {uri, name}. [handler-thread] */
    int (*roots)(struct mcph_call *call, const char **result_json);

    /* ------------------------------------------------------------------------------------
     * Since 1.2.
     * ------------------------------------------------------------------------------------ */

    /*
     * Definitions made at init. The static tables suit a fixed set; a plugin whose tools,
     * resources or prompts come from outside (the files under a folder, the tables of a
     * database, the commands of its config) defines them from init() instead. Each call
     * takes one row of the same struct as the tables (its strings may live on init's stack:
     * mcph copies everything), checks it exactly as a table row is checked, and adds it
     * after the table rows. Returns MCPH_OK, MCPH_ERR_INVALID (the row is refused and mcph
     * logs why, naming the plugin: a bad name or URI, a name already used by this instance,
     * a schema that is not an object schema, a missing handler), MCPH_ERR_LIMIT (more than
     * 4096 rows of that kind), MCPH_ERR_NOMEM, or MCPH_ERR_STATE outside init(). A refused
     * row does not fail the load: return an error from init() if it should.
     *
     * An instance that defines anything this way is built again (a new instance: init
     * runs again and defines again) on every reload, SIGHUP or watch mode, so the lists it
     * serves follow what they come from; clients are sent list_changed only for the lists
     * that really changed. A plugin that may define nothing at one init (an empty folder)
     * and something at the next sets MCPH_PLUGIN_REBUILD_ON_RELOAD to be rebuilt anyway.
     * [during-init]
     */
    int (*define_tool)(const struct mcph_host *host, const struct mcph_tool *tool);
    /* [during-init] */
    int (*define_resource)(const struct mcph_host *host, const struct mcph_resource *resource);
    /* [during-init] */
    int (*define_template)(const struct mcph_host *host,
                           const struct mcph_resource_template *resource_template);
    /* The prompt's arguments table (ended by a row whose name is NULL) is copied too.
     * [during-init] */
    int (*define_prompt)(const struct mcph_host *host, const struct mcph_prompt *prompt);

    /* Ask mcph to build this instance again, as a reload would: a new instance from the
     * section this one was loaded with (an INI edit not yet reloaded is not applied), whose
     * init defines again, swapped in once it loaded, with list_changed for the lists that
     * changed; if the .so changed on disk meanwhile, the new code is loaded (a reopen). For a
     * plugin that notices its source changed (inotify on a folder, say). Requests belong to
     * the instance id, so one made by an instance that is being replaced applies to its
     * successor. The rebuild starts 100 ms after the last request, and at the latest 1 s
     * after the first. A rebuild that fails keeps the instance in service (logged). It only
     * records the request and wakes the main thread. [any-thread] */
    void (*refresh)(const struct mcph_host *host);

    /* The name of what is being served, as the plugin defined it (without the INI prefix):
     * the tool of a tool call, the prompt of a prompt get, or of the prompt whose argument
     * is being completed; the resource's URI for a resource read; the template's URI
     * template for a template read or completion. Lets one handler serve many definitions.
     * Borrowed until the handler returns. [handler-thread] */
    const char *(*call_name)(struct mcph_call *call);

    /* A config value read as a path: as host->config(), but a relative value is resolved
     * against the folder of the INI file (as mcph resolves its own paths), so deployments
     * can say "root = ../docs". NULL when the key is unset and has no default. Borrowed until
     * shutdown() returns. [any-thread] */
    const char *(*config_path)(const struct mcph_host *host, const char *key);

    /* The `data` pointer of the row being served (NULL when it has none): the tool, the
     * prompt, the resource or the template, as for call_name.
     * [handler-thread] */
    const void *(*call_data)(struct mcph_call *call);

    /* log() with a va_list, for a plugin's own printf-style wrappers. As log(). [any-thread] */
    void (*vlog)(const struct mcph_host *host, enum mcph_log_level level, const char *fmt,
                 va_list ap) MCPH_PRINTF(3, 0);

    /* ------------------------------------------------------------------------------------
     * Since 1.3.
     * ------------------------------------------------------------------------------------ */

    /*
     * The whole result of this call, as JSON text of the MCP result object of its kind, for
     * a plugin that relays results made elsewhere: CallToolResult (content,
     * structuredContent, isError, _meta) for a tool; ReadResourceResult (contents) for a
     * resource or template read; GetPromptResult (description, messages) for a prompt;
     * CompleteResult (completion: values, total, hasMore) for a completion. Its content
     * items, contents and messages are added after what the sinks added, and everything is
     * kept to what the client's revision carries as for the sinks: a content type the
     * revision lacks becomes a text stand-in, a member it lacks (structuredContent, _meta,
     * a content item's _meta or annotations) is left out, and the result is counted against
     * MCPH_MAX_RESULT_BYTES (as the length of json). Other members are passed as they are,
     * but for those mcph sets itself (resultType, ttlMs, cacheScope, inputRequests,
     * requestState, and the io.modelcontextprotocol/ keys of _meta). Returns MCPH_OK,
     * MCPH_ERR_INVALID (not an object, or a member of the wrong type: nothing is added),
     * MCPH_ERR_LIMIT or MCPH_ERR_NOMEM.
     * [handler-thread]
     */
    int (*result_json)(struct mcph_call *call, const char *json);

    /* Send the client a log message (notifications/message) at `level`, if the level it
     * chose admits it: logger may be NULL (the instance id is used), data_json is any JSON
     * value as text (an object, or a string). For relaying another server's messages; the
     * plugin's own go through log(), which also writes them to stderr. MCPH_OK, or
     * MCPH_ERR_INVALID for bad JSON. [any-thread] */
    int (*client_log)(const struct mcph_host *host, enum mcph_log_level level, const char *logger,
                      const char *data_json);

    /* The state of the instance this one replaces, when the descriptor sets
     * MCPH_PLUGIN_TAKE_OVER and this instance is a rebuild of it from the same section and
     * file; else NULL. That instance may still be serving calls (on pool threads) while this
     * init runs, and its shutdown() runs after its last call returns: what init takes over
     * must be shared safely until then, and that shutdown must leave it alone. This instance
     * may also be shut down without being served (the reload is refused after its init, say
     * for a name collision) while that one stays: share what you take over (count its
     * users), do not move it. [during-init] */
    void *(*predecessor)(const struct mcph_host *host);

    /* ------------------------------------------------------------------------------------
     * Since 1.4.
     * ------------------------------------------------------------------------------------ */

    /*
     * The key the handler's next question (sample, elicit, roots) goes under in an
     * input_required result of a 2026-07-28 request, instead of ask-N: 1 to 64 of A-Z a-z 0-9
     * _ . -, unique in this run (else MCPH_ERR_INVALID; so was any ask-<digits> before 1.7;
     * since, an "ask-N" no question of the run took is taken, and an unnamed question whose
     * ask-N was named gets MCPH_ERR_INVALID). It names the next sample, elicit or roots call
     * whatever that returns. N counts every question of the run, so naming one shifts no
     * other key: after ask_key(call, "user_name"), elicit, elicit, the second is ask-2. The
     * answer the retry carries under that key (inputResponses) answers that question, also on
     * the first run (a client may answer ahead): name a question the same way in every run.
     * No effect on a legacy session. MCPH_OK or MCPH_ERR_INVALID. [handler-thread]
     *
     *     host->ask_key(call, "user_name");
     *     rc = host->elicit(call, "Your name?", schema, &answer);
     */
    int (*ask_key)(struct mcph_call *call, const char *key);

    /* ------------------------------------------------------------------------------------
     * Since 1.5.
     * ------------------------------------------------------------------------------------ */

    /*
     * Who is asking, as an opaque text (at most 64 bytes of A-Z a-z 0-9 _ . : -): the same
     * for every run of the handler that serves one request, so for every round of a
     * 2026-07-28 request (the first one and each retry that carries its requestState, on
     * any mcph that shares the state key), and different for any other request, whether
     * from the same client or another; a legacy session's call has one of its own, as it
     * runs once. Two clients making the same call, with the same arguments, at the same
     * time get different texts. For a plugin that keeps something for a call that comes back
     * (a relayed server's request waiting for the client's answer): key it by the origin as
     * well as by the call, and a retry finds only what its own earlier round left. Never
     * NULL for a call (NULL: call is NULL); the text is lent until the handler returns.
     * [handler-thread]
     *
     *     snprintf(key, sizeof(key), "%s/%s", host->call_origin(call), host->call_name(call));
     */
    const char *(*call_origin)(struct mcph_call *call);

    /*
     * The instance's paragraph of the server's instructions (the `instructions` clients get
     * from initialize and server/discover, read once as they connect): how to use what it
     * serves, for the model. mcph sends [server] instructions, then the text of each
     * instance that gave one, in INI order, each as a paragraph headed by its section:
     * "[plugin.ID]" on a line of its own, then the text. Copied (text that is not well-formed
     * UTF-8 is repaired); a second call replaces the first; NULL or "" gives none. The text
     * belongs to this instance: a rebuild (reload, refresh) serves what the new instance's
     * init gave, and an instance dropped takes its paragraph with it. Returns MCPH_OK,
     * MCPH_ERR_LIMIT (more than MCPH_MAX_INSTRUCTIONS bytes: the text kept is unchanged),
     * MCPH_ERR_NOMEM, or MCPH_ERR_STATE outside init(). [during-init]
     *
     *     host->instructions(host, "Call search before read: read takes an id it gives.");
     */
    int (*instructions)(const struct mcph_host *host, const char *text);

    /* ------------------------------------------------------------------------------------
     * Since 1.6.
     * ------------------------------------------------------------------------------------ */

    /*
     * The call's W3C trace context, for a plugin that calls something else (a service over
     * HTTP, another server) and wants that work in the client's trace: the traceparent to
     * send, "00-TRACEID-SPANID-FLAGS" (55 characters), whose trace id is the one the request
     * came with (its _meta.traceparent, or the HTTP traceparent header), or a new one when it
     * came with none or a malformed one, and whose parent id is mcph's own span for this
     * call. The same text for every call of it during one run of the handler. When
     * tracestate is not NULL, *tracestate is the tracestate to send with it (the client's,
     * as it came), or NULL when there is none. mcph's log lines about the call carry the
     * same trace id (trace=TRACEID). Never NULL for a call (NULL: call is NULL); "" for a
     * call made outside a request. Lent until the handler returns. [handler-thread]
     *
     *     const char *state, *tp = host->trace_context(call, &state);
     *     snprintf(header, sizeof(header), "traceparent: %s", tp);
     */
    const char *(*trace_context)(struct mcph_call *call, const char **tracestate);

    /* ------------------------------------------------------------------------------------
     * Since 1.7.
     * ------------------------------------------------------------------------------------ */

    /* Keep a text (copied, at most MCPH_MAX_KEPT) with a 2026-07-28 call across the client's
     * retries, in mcph's sealed requestState (any mcph sharing the state key finds it); a text
     * starts a new round (the answers and question keys held are forgotten: keep before
     * asking); NULL drops it. For relaying a server's own requestState. MCPH_OK,
     * MCPH_ERR_LIMIT, MCPH_ERR_NOMEM, MCPH_ERR_INVALID (call NULL). [handler-thread] */
    int (*keep)(struct mcph_call *call, const char *text);
    /* The text kept (from the round this retry continues, or since), NULL for none; lent until
     * the handler returns or calls keep(). [handler-thread] */
    const char *(*kept)(struct mcph_call *call);
};

#ifdef __cplusplus
}
#endif

#endif /* MCPH_PLUGIN_API_H */
