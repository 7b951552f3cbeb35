/*
 * reload.h: SIGHUP (and watch mode) reloads, build then swap. The INI is read again with no
 * side effects; each enabled section is planned against the instances in service; what is
 * new is loaded into a staging set and merged; only when all of that succeeded does the
 * registry pointer change. Instances left out are shut down when their last call returns.
 */
#ifndef MCPH_RELOAD_H
#define MCPH_RELOAD_H

#include "config/config.h"
#include "host/plugin.h"
#include "served/server.h"

#include <stddef.h>

enum reload_action {
    RELOAD_KEEP = 1, /* same file, same section: the instance stays */
    RELOAD_REINIT,   /* the section changed: a new instance with the new config */
    RELOAD_REOPEN,   /* the .so changed on disk: a new instance of the new code */
    RELOAD_ADD,      /* a section with no instance in service */
    RELOAD_REBUILD,  /* same file, same section, but what it serves comes from outside: a
                      * new instance defines its rows again (plugin->rebuild) */
};

/* What to do with one enabled section of the new config. */
struct reload_step {
    int action;                          /* enum reload_action */
    const struct config_plugin *section; /* borrowed from the new config, or in a refresh
                                          * from the instance (old->section) */
    struct plugin *old;                  /* borrowed: the instance in service, NULL for ADD */
};

struct reload_plan {
    struct reload_step *steps; /* owned: one per enabled section, in INI order */
    size_t nsteps;
    struct plugin **dropped; /* owned array of borrowed instances no section keeps */
    size_t ndropped;
};

/* The instances in service, as the planner sees them. */
struct reload_current {
    struct plugin *const *plugins; /* borrowed */
    size_t n;
    const int *file_changed; /* per plugin: its .so changed on disk */
};

/* Plan `cfg` against the instances in service. Pure: touches no file and no plugin.
 * Returns STATUS_OK or STATUS_NOMEM. */
int reload_plan(struct reload_plan *plan, const struct config *cfg,
                const struct reload_current *cur) __attribute__((warn_unused_result));
void reload_plan_release(struct reload_plan *plan);

/* Whether instance pl was loaded from exactly this section (config_plugin_same). */
int reload_same_section(const struct plugin *pl, const struct config_plugin *cp);

/* Reload from srv->cfg.file: plan, load, merge, swap, notify. Failures keep what is in
 * service and are logged (and so reach a client that enabled logging). Main thread.
 * Returns STATUS_OK when a new set is in service (changed or not), else a negative status. */
int reload_run(struct server *srv);

/* Build again the instances in service whose ids asked for it (host->refresh, taken from
 * srv), each from the section it was loaded with: the INI file is not read, so an edit not yet
 * reloaded is not applied by a refresh. An instance whose file changed meanwhile is reopened
 * (and its subscribers told), as a reload would. Load, merge, swap, notify as reload_run; one
 * that fails to build keeps serving. Main thread. Returns STATUS_OK when a new set is in
 * service (or nothing asked), else a negative status. */
int reload_refresh(struct server *srv);

#endif
