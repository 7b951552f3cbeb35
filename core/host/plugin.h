/*
 * plugin.h: one loaded plugin instance. Loading checks the file, dlopens it, checks the
 * descriptor (ABI version, sizes), copies every table into core memory (so nothing points
 * into the plugin after dlclose), validates names, schemas and config keys, and runs init.
 */
#ifndef MCPH_PLUGIN_H
#define MCPH_PLUGIN_H

#include "plugin-api.h"
#include "config/config.h"
#include "lib/diag.h"
#include "config/filter.h"
#include "lib/log.h"
#include "lib/schema.h"
#include "lib/work.h"

#include <cJSON.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>
#include <time.h>

struct plugin;
struct image;
struct rows_load;

/* The host vtable of one instance; `vt` first, so a host member can find its instance. */
struct plugin_host {
    struct mcph_host vt;
    struct plugin *plugin; /* borrowed: the instance that owns this */
};

struct plugin_tool {
    char *name;                  /* owned: the plugin's own name (unprefixed) */
    char *title;                 /* owned or NULL */
    char *description;           /* owned or NULL */
    cJSON *input_schema;         /* owned: an object schema */
    cJSON *output_schema;        /* owned or NULL */
    struct schema *input_check;  /* owned: input_schema compiled */
    struct schema *output_check; /* owned or NULL: output_schema compiled */
    unsigned char hints[4];      /* enum mcph_hint: readOnly, destructive, idempotent, openWorld */
    mcph_handler_fn call;
    cJSON *icons;     /* owned or NULL: an array (1.1) */
    cJSON *meta;      /* owned or NULL: an object (1.1) */
    const void *data; /* the plugin's, for host->call_data (1.2) */
};

struct plugin_resource {
    char *uri, *name, *title, *description, *mime_type; /* owned; the last three may be NULL */
    uint64_t size;
    mcph_handler_fn read;
    cJSON *annotations, *icons, *meta; /* owned or NULL (1.1) */
    const void *data;                  /* the plugin's, for host->call_data (1.2) */
};

struct plugin_template {
    char *uri_template, *name, *title, *description, *mime_type; /* owned */
    mcph_handler_fn read;
    cJSON *annotations, *icons, *meta; /* owned or NULL (1.1) */
    mcph_handler_fn complete;          /* NULL when the plugin completes nothing (1.1) */
    const void *data;                  /* the plugin's, for host->call_data (1.2) */
};

struct plugin_prompt_arg {
    char *name, *title, *description; /* owned */
    int required;
};

struct plugin_prompt {
    char *name, *title, *description; /* owned */
    struct plugin_prompt_arg *args;   /* owned */
    size_t nargs;
    mcph_handler_fn get;
    cJSON *icons, *meta;      /* owned or NULL (1.1) */
    mcph_handler_fn complete; /* NULL when the plugin completes nothing (1.1) */
    const void *data;         /* the plugin's, for host->call_data (1.2) */
};

/* A config value resolved against the INI file's folder (host->config_path). */
struct plugin_path {
    char *key;  /* owned */
    char *path; /* owned */
};

struct plugin_key {
    char *name, *description, *default_value; /* owned */
    int required;
};

/* What every instance shares with the server: where logs go and where "my resource
 * changed" and "build me again" go. Borrowed by each instance for its life. */
struct plugin_env {
    const struct log *log;
    /* Called (any thread) when the instance says uri changed; may be NULL. */
    void (*resource_updated)(void *ctx, const char *uri);
    /* Called (any thread) when instance `id` asks to be built again; may be NULL. The
     * request belongs to the id, not the instance: an instance being replaced may ask for
     * its successor. */
    void (*refresh)(void *ctx, const char *id);
    /* Called (any thread) to send the client a log message whose level the log's sink admits
     * (host->client_log): logger borrowed for the call, data owned by the callee; may be
     * NULL (nothing is sent). */
    void (*client_log)(void *ctx, int level, const char *logger, cJSON *data);
    void *ctx;
    /* Fills the host vtable of instance pl (h is &pl->host) before its init runs: the
     * services every instance gets (host_setup). Required. Main thread, or at start-up
     * the thread plugin_load_set starts an isolated section on. */
    void (*host_setup)(struct plugin_host *h, struct plugin *pl);
};

/* The kinds of rows a plugin defines at init (1.2). */
enum plugin_row_kind {
    PLUGIN_ROW_TOOL = 1,
    PLUGIN_ROW_RESOURCE,
    PLUGIN_ROW_TEMPLATE,
    PLUGIN_ROW_PROMPT,
};

struct plugin {
    char *id; /* owned: the INI instance id */
    /* Owned: the [plugin.NAME] section it was loaded from, its one copy (config_plugin_copy):
     * path, prefix, cache keys (-1: the [server] ones), filters as written, isolation and its
     * limits, own keys. Its ini_fd and image_fd are the instance's own (below). A reload
     * compares it with the new file's section, and a refresh builds the instance again from
     * it. */
    struct config_plugin section;
    char *name;     /* owned: the descriptor's name */
    char *version;  /* owned or NULL */
    uint32_t flags; /* enum mcph_plugin_flags */
    uint16_t abi_minor;
    struct config_kv *config; /* owned: what host->config answers: the section's own keys,
                               * then the shared core keys the plugin declares */
    size_t nconfig;

    /* The definitions: the static tables' rows, then those defined at init (1.2). Fixed once
     * the instance is loaded; registries point into them. */
    struct plugin_tool *tools;
    size_t ntools, cap_tools;
    struct plugin_resource *resources;
    size_t nresources, cap_resources;
    struct plugin_template *templates;
    size_t ntemplates, cap_templates;
    struct plugin_prompt *prompts;
    size_t nprompts, cap_prompts;
    struct plugin_key *keys;
    size_t nkeys;
    /* The names its filters left out, by enum plugin_row_kind (for --check). */
    struct filter_names dropped[PLUGIN_ROW_PROMPT + 1];
    /* The descriptor's row sizes, for rows defined at init. */
    uint16_t tool_size, resource_size, template_size, prompt_size, prompt_arg_size;
    struct rows_load *loading; /* main thread: the load whose init runs now, else NULL */
    int rebuild;               /* rebuilt on every reload: it defined rows at init, or its
                                * descriptor asks for it (MCPH_PLUGIN_REBUILD_ON_RELOAD) */
    char *ini_dir;             /* owned: the folder of the INI file it was loaded from */
    char *ini_file;            /* owned, isolated: the INI file's absolute path, for the child */
    int ini_fd;   /* owned, isolated: the INI text the child reads (config's text_fd), or -1 */
    int image_fd; /* borrowed, in a child: the image its parent passed (the section's), or -1 */
    struct plugin_path *paths; /* owned: config values read as paths (host->config_path) */
    size_t npaths;
    char *instructions; /* owned or NULL: its paragraph of the instructions (1.5) */
    pthread_t loader;   /* the thread running init while loading is set */

    void *handle;                  /* dlopen handle, owned */
    struct image *image;           /* a share of the sealed copy handle was loaded from */
    void (*shutdown)(void *state); /* from the descriptor, or NULL */
    /* From a 1.3 descriptor, or NULL: hears which URIs clients follow. Called through
     * plugin_subscribe only. */
    void (*subscribe)(const struct mcph_host *host, void *state, const char *uri, int on);
    pthread_mutex_t subscribe_lock; /* held around each subscribe call: one at a time */
    void *state;                    /* what init stored */
    void *predecessor;              /* main thread, during init only: the state of the instance
                                     * this one takes over (host->predecessor), else NULL */
    int initialized;                /* init ran and succeeded */
    struct plugin_host host;        /* handed to init and handlers */
    const struct log *log;          /* borrowed for the instance's life (env->log) */
    const struct plugin_env *env;   /* borrowed for the instance's life */

    /* Identity of the file loaded, to notice a rebuilt .so. */
    dev_t dev;
    ino_t ino;
    struct timespec mtime;
    off_t size;

    struct work_lane lane; /* its queued calls and its share of threads */
    atomic_int refs;       /* registries and calls holding the instance */
};

/*
 * Load the plugin of section `cp` from the INI `ini_file`: check, dlopen, copy, validate,
 * init. On success *out is a new instance (one reference, owned by the caller). On failure
 * every reason is added to errs ("FILE:LINE: plugin 'ID' (PATH): what; the fix") and a
 * negative status is returned: STATUS_CONFIG when the section is to fix (its path, its keys,
 * the file's trust, the plugin it names: descriptor, rows, schemas; or init returned
 * MCPH_ERR_INVALID), STATUS_PLUGIN when init failed otherwise, STATUS_NOMEM. Main thread, or
 * at start-up the thread plugin_load_set starts an isolated section on.
 */
int plugin_load(struct plugin **out, const struct config_plugin *cp, const char *ini_file,
                const struct plugin_env *env, struct diag *errs)
    __attribute__((warn_unused_result));

/* One section of a set loaded together (plugin_load_set). */
struct plugin_job {
    const struct config_plugin *cp; /* borrowed until plugin_load_set returns: the section */
    struct plugin *pl;              /* out: a new instance (one reference, the caller's), or NULL */
    int status;                     /* out: plugin_load's return */
    struct diag errs;               /* out: its reasons; initialised by plugin_load_set, the
                                     * caller's to release */

    /* Private to plugin_load_set. */
    const char *ini_file;
    const struct plugin_env *env;
    pthread_t thread;
    int threaded;
};

/*
 * plugin_load for each of jobs[0..n), as if in order: the isolated sections (isolate =
 * process) each on a thread of their own, started first, so that their processes start,
 * confine themselves, load their plugin and answer the handshake while the in-process
 * plugins load on the calling thread; then every thread is joined. Nothing is served before
 * it returns, so the set is the one loading them one after another gives. A job whose thread
 * cannot start is loaded on the calling thread. Main thread.
 */
void plugin_load_set(struct plugin_job *jobs, size_t n, const char *ini_file,
                     const struct plugin_env *env);

/*
 * Load a rebuild of `old` (in service) from the section it was loaded with and the same,
 * unchanged file: a refresh, or a reload's RELOAD_REBUILD. When old's descriptor (1.3 or
 * newer) sets MCPH_PLUGIN_TAKE_OVER, the new instance runs in old's mapping of the library
 * (the same dlopen handle: one copy of its code and globals; the file is not read again) and
 * host->predecessor() gives old's state during the new init. Otherwise exactly plugin_load,
 * a fresh copy. old keeps serving and is borrowed for the call. Returns as plugin_load. Main
 * thread.
 */
int plugin_rebuild(struct plugin **out, struct plugin *old, const struct config_plugin *cp,
                   const char *ini_file, const struct plugin_env *env, struct diag *errs)
    __attribute__((warn_unused_result));

/* Whether instance pl takes over its predecessor on a rebuild (MCPH_PLUGIN_TAKE_OVER in a 1.3
 * or newer descriptor). */
int plugin_takes_over(const struct plugin *pl);

/* Tell instance pl that clients began (on 1) or ceased (on 0) to follow uri, if its
 * descriptor has subscribe(); calls into one instance are serialized by its subscribe_lock.
 * The caller must hold no lock a plugin thread calling the host can wait for (the subs lock
 * above all: host->resource_updated takes it). Any thread, while pl is in service. */
void plugin_subscribe(struct plugin *pl, const char *uri, int on);

/*
 * Add one row of `kind` that init defines (host->define_*): `row` is the plugin's struct
 * (mcph_tool, ...) of the size its descriptor records, borrowed for the call. Checked and
 * copied as a table row is. Returns an MCPH_* code: MCPH_OK; MCPH_ERR_INVALID (refused,
 * logged naming the plugin); MCPH_ERR_LIMIT; MCPH_ERR_NOMEM; MCPH_ERR_STATE when init is not
 * running. Main thread, during init.
 */
int plugin_define(struct plugin *pl, int kind, const void *row);

/* Whether the calling thread runs instance pl's init now. Any thread. */
int plugin_initializing(const struct plugin *pl);

/* For a message (text, borrowed) that instance pl logs while its init runs on this thread:
 * the line of the first of its section's own keys the message names as a word, with the INI
 * file in *file (borrowed until init returns). 0 when it names none, or when init is not
 * running on this thread. */
int plugin_init_line(const struct plugin *pl, const char *text, const char **file);

/* The value of config key `key` read as a path (host->config_path), or NULL. Borrowed from
 * pl. Any thread. */
const char *plugin_config_path(const struct plugin *pl, const char *key);

/* Take a reference. Any thread. */
void plugin_ref(struct plugin *pl);

/* Drop a reference; returns 1 when it was the last (the caller must then plugin_free on the
 * main thread), else 0. Any thread. */
int plugin_unref(struct plugin *pl) __attribute__((warn_unused_result));

/* Shut down (if initialised), dlclose and free. Main thread; NULL is fine. */
void plugin_free(struct plugin *pl);

/* The sealed copy of the file pl was loaded from (a memfd), for an isolated instance's child.
 * Borrowed. */
int plugin_image_fd(const struct plugin *pl);

/* Whether the file at the instance's path is not the one loaded (rebuilt, replaced, gone). */
int plugin_file_changed(const struct plugin *pl);

/* The name rule of the spec for tools (1-128 of A-Z a-z 0-9 _ . -), used for every name. */
int plugin_valid_name(const char *name);

#endif
