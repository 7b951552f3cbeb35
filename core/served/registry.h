/*
 * registry.h: the merged capability set. Plugins in INI order, then table order; exposed
 * names carry the instance's prefix; a name (or URI) already taken is refused, naming both
 * plugins. A registry is immutable once built and shared by reference: the main thread
 * swaps in a new one on reload while calls still use the one they started with.
 */
#ifndef MCPH_REGISTRY_H
#define MCPH_REGISTRY_H

#include "config/config.h"
#include "lib/diag.h"

#include "host/plugin.h"
#include "served/access.h"

#include <cJSON.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct registry_tool {
    char *name;            /* owned: exposed name */
    struct plugin *plugin; /* borrowed: the registry holds a reference */
    const struct plugin_tool *def;
};

struct registry_resource {
    struct plugin *plugin;
    const struct plugin_resource *def;
};

struct registry_template {
    struct plugin *plugin;
    const struct plugin_template *def;
};

struct registry_prompt {
    char *name; /* owned: exposed name */
    struct plugin *plugin;
    const struct plugin_prompt *def;
};

/* An open-addressing hash of names to row numbers. */
struct registry_index {
    uint32_t *slots; /* owned: row + 1, 0 for empty */
    size_t mask;
};

/* Which lists a change touches. */
enum registry_list {
    REGISTRY_TOOLS = 1u << 0,
    REGISTRY_RESOURCES = 1u << 1,
    REGISTRY_PROMPTS = 1u << 2,
};

/* What a served set says about the server: copied from the config it was built with, so a
 * call answering from this set never reads a config a reload may be replacing. */
struct registry_meta {
    char *name;  /* owned: serverInfo.name */
    char *title; /* owned or NULL: serverInfo.title */
    /* owned or NULL: [server] instructions, then each plugin's paragraph ("[plugin.ID]\n" and
     * its host->instructions text), in INI order, "\n\n" between */
    char *instructions;
    int ttl_ms; /* cache hint of cacheable results (2026-07-28) */
    int cache_public;
};

/* A list page as printed for one revision; see registry_page_get. */
struct registry_page {
    char tag;      /* which list */
    int rev;       /* enum revision it was printed for */
    size_t offset; /* first entry */
    int page_size;
    struct access_view view; /* the rows it shows (served/access.h) */
    char *text;              /* owned: the result object's JSON text */
};

struct registry {
    atomic_int refs;
    struct registry_meta meta;
    /* Printed list pages: a set never changes, so a page printed once is the answer for
     * good. A page of a view (served/access.h) is printed under the [access.NAME] sections of
     * the config in service with this set: a reload always puts a new set in service with its
     * config, so these pages never outlive the sections they were printed under. Under the
     * server's state lock (lists are answered by the dispatching thread). */
    struct registry_page *pages;
    size_t npages;
    struct plugin **plugins; /* owned array; one reference each */
    size_t nplugins;
    struct registry_tool *tools;
    size_t ntools;
    struct registry_resource *resources;
    size_t nresources;
    struct registry_template *templates;
    size_t ntemplates;
    struct registry_prompt *prompts;
    size_t nprompts;
    struct registry_index tool_index, resource_index, prompt_index;
    char **collided; /* owned: "KIND NAME ID" of each entry left out for a collision */
    size_t ncollided;
};

/*
 * Merge `plugins` (in order; each gets a reference taken by the registry) into a new
 * registry in *out. A name or URI already taken by an earlier plugin is left out and
 * reported in errs naming both plugins; *collisions counts them (may be NULL). Returns
 * STATUS_OK or STATUS_NOMEM.
 */
int registry_build(struct registry **out, struct plugin *const *plugins, size_t n,
                   const struct log *log, struct diag *errs, size_t *collisions)
    __attribute__((warn_unused_result));

/*
 * What decides, row by row, whether a row is served (served/pin.h: the definitions pinned in
 * the lock file). Asked once per row that would be served (after the collision check), while
 * a set is built; never while one is served.
 */
struct registry_gate {
    /* 1: serve the row; 0: leave it out (the gate said why); STATUS_NOMEM. kind is "tool",
     * "resource", "template" or "prompt"; plugin the instance's id; name the exposed name,
     * URI or URI template; entry the row as the newest revision lists it. All borrowed for
     * the call. Main thread. */
    int (*admit)(void *ctx, const char *kind, const char *plugin, const char *name,
                 const cJSON *entry);
    void *ctx; /* borrowed: handed to admit */
};

/*
 * registry_build for a reload: `incumbent` (borrowed, may be NULL) is the set in service. A
 * name or URI an instance of `incumbent` serves stays with the instance of the same id in the
 * new set, when that one still serves it: another instance's row of that name is left out
 * (reported as a collision naming both) even when it comes first in INI order.
 */
int registry_build_over(struct registry **out, struct plugin *const *plugins, size_t n,
                        const struct registry *incumbent, const struct log *log, struct diag *errs,
                        size_t *collisions) __attribute__((warn_unused_result));

/* registry_build_over with a gate (borrowed for the call; NULL: every row is served). A row
 * the gate leaves out is neither served nor a collision. */
int registry_build_gated(struct registry **out, struct plugin *const *plugins, size_t n,
                         const struct registry *incumbent, const struct registry_gate *gate,
                         const struct log *log, struct diag *errs, size_t *collisions)
    __attribute__((warn_unused_result));

/* Copy the server's identity and cache hints from cfg, and put its instructions together from
 * cfg's and those of the registry's plugins. Main thread, before the registry is published.
 * Returns STATUS_OK or STATUS_NOMEM. */
int registry_set_meta(struct registry *reg, const struct config *cfg)
    __attribute__((warn_unused_result));

/* serverInfo (Implementation) of revision rev; a new object owned by the caller. */
cJSON *registry_server_info(const struct registry *reg, int rev);

/* The cached text of a list page for view, or NULL. Under the server's state lock. Borrowed
 * from reg. */
const char *registry_page_get(const struct registry *reg, char tag, int rev, size_t offset,
                              int page_size, struct access_view view);

/* Keep the text of a list page for view. Returns 1 when kept (reg owns text from then on), 0
 * when the cache (LIMIT_PAGE_CACHE pages, all views together) is full or out of memory (the
 * caller still owns text). Under the state lock. */
int registry_page_put(struct registry *reg, char tag, int rev, size_t offset, int page_size,
                      struct access_view view, char *text);

/* Take / drop a reference. registry_unref returns 1 when it dropped the last; the caller
 * then calls registry_free on the main thread. Any thread. */
void registry_ref(struct registry *reg);
int registry_unref(struct registry *reg) __attribute__((warn_unused_result));

/* Free the registry and drop its plugin references, freeing plugins that reach zero. Main
 * thread. NULL is fine. */
void registry_free(struct registry *reg);

/* Lookups; results borrowed from reg. NULL when absent. */
const struct registry_tool *registry_find_tool(const struct registry *reg, const char *name);
const struct registry_prompt *registry_find_prompt(const struct registry *reg, const char *name);
const struct registry_resource *registry_find_resource(const struct registry *reg, const char *uri);
/* The first template (in registry order) matching uri; *vars gets the variables (owned). */
const struct registry_template *registry_match_template(const struct registry *reg, const char *uri,
                                                        cJSON **vars);

/* The list_changed notification method of one list (one enum registry_list bit), or NULL. */
const char *registry_list_method(unsigned list);

/* How many of next's collisions the set in service (old) did not already have. A reload
 * refuses only new ones: one left out at startup stays left out. A collision whose left-out
 * row belongs to an instance for which excused(id, ctx) is true is not counted either
 * (excused may be NULL). */
size_t registry_new_collisions(const struct registry *old, const struct registry *next,
                               int (*excused)(const char *id, void *ctx), void *ctx);

/* The lists (enum registry_list bits) whose served definitions differ between a and b. */
unsigned registry_diff(const struct registry *a, const struct registry *b);

#endif
