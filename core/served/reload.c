#include "served/reload.h"

#include "lib/crash.h"
#include "lib/diag.h"
#include "lib/log.h"
#include "served/audit.h"
#include "served/metrics.h"
#include "served/notify.h"
#include "served/pin.h"
#include "served/registry.h"
#include "lib/status.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int reload_same_section(const struct plugin *pl, const struct config_plugin *cp)
{
    return config_plugin_same(&pl->section, cp);
}

static long reload_find(const struct reload_current *cur, const char *id)
{
    for (size_t i = 0; i < cur->n; i++) {
        if (strcmp(cur->plugins[i]->id, id) == 0)
            return (long)i;
    }
    return -1;
}

int reload_plan(struct reload_plan *plan, const struct config *cfg,
                const struct reload_current *cur)
{
    unsigned char *kept = calloc(cur->n + 1, 1);

    memset(plan, 0, sizeof(*plan));
    plan->steps = calloc(cfg->nplugins + 1, sizeof(*plan->steps));
    plan->dropped = calloc(cur->n + 1, sizeof(*plan->dropped));
    if (kept == NULL || plan->steps == NULL || plan->dropped == NULL) {
        free(kept);
        reload_plan_release(plan);
        return STATUS_NOMEM;
    }
    for (size_t i = 0; i < cfg->nplugins; i++) {
        const struct config_plugin *cp = &cfg->plugins[i];
        struct reload_step *step = &plan->steps[plan->nsteps];
        long at;

        if (!cp->enabled)
            continue;
        plan->nsteps++;
        step->section = cp;
        at = reload_find(cur, cp->id);
        if (at < 0) {
            step->action = RELOAD_ADD;
            continue;
        }
        kept[at] = 1;
        step->old = cur->plugins[at];
        if (cur->file_changed[at])
            step->action = RELOAD_REOPEN;
        else if (!reload_same_section(step->old, cp))
            step->action = RELOAD_REINIT;
        else if (step->old->rebuild)
            step->action = RELOAD_REBUILD;
        else
            step->action = RELOAD_KEEP;
    }
    for (size_t i = 0; i < cur->n; i++) {
        if (!kept[i])
            plan->dropped[plan->ndropped++] = cur->plugins[i];
    }
    free(kept);
    return STATUS_OK;
}

void reload_plan_release(struct reload_plan *plan)
{
    if (plan == NULL)
        return;
    free(plan->steps);
    free(plan->dropped);
    memset(plan, 0, sizeof(*plan));
}

/* --- Running a reload. --- */

struct reload_run {
    struct server *srv;
    struct config cfg;       /* the new config; moved into srv on success (reload only) */
    const struct config *in; /* the config the new set is built from: &cfg, or srv->cfg for
                              * a refresh */
    int refresh;             /* a refresh: the config in service stays */
    struct reload_plan plan;
    struct plugin **next; /* the instances of the new set, INI order; one ref each */
    size_t nnext;
    size_t loaded, failed;    /* new instances loaded / failed */
    struct plugin **replaced; /* borrowed from next: new instances of re-init/reopen */
    size_t nreplaced;
    struct pin *pin; /* owned or NULL: the lock file the new config names (a reload; a refresh
                      * checks against the set in service, srv->pin); after the swap, the one
                      * it replaced */
};

static void reload_log_diag(struct server *srv, struct diag *d)
{
    for (size_t i = 0; i < d->count; i++)
        log_msg(&srv->log, LOG_ERROR, NULL, "reload: %s", d->msgs[i]);
}

static const char *const reload_names[] = {
    [RELOAD_KEEP] = "keep",
    [RELOAD_REINIT] = "re-init (section changed)",
    [RELOAD_REOPEN] = "reopen (file changed)",
    [RELOAD_ADD] = "add",
    [RELOAD_REBUILD] = "rebuild (it defines what it serves)",
};

/* Load the new instance a step needs. A failed replacement keeps the old instance in
 * service; a failed addition is left out. */
static int reload_step_load(struct reload_run *r, const struct reload_step *step)
{
    struct server *srv = r->srv;
    struct plugin *pl = NULL;
    struct diag errs;
    int status, fresh;

    log_msg(&srv->log, step->action == RELOAD_KEEP ? LOG_DEBUG : LOG_INFO, NULL, "reload: %s: %s",
            step->section->id, reload_names[step->action]);
    if (step->action == RELOAD_KEEP) {
        plugin_ref(step->old);
        r->next[r->nnext++] = step->old;
        return STATUS_OK;
    }
    diag_init(&errs);
    /* A rebuild may run in the mapping of the instance it replaces and take over its state
     * (MCPH_PLUGIN_TAKE_OVER); every other new instance is a fresh copy. An isolated
     * instance takes its child over on a refresh (the child asked, or started again), but a
     * reload starts a fresh child: the plugin in it is loaded and built again, as it would
     * be in process. */
    fresh = step->action != RELOAD_REBUILD || (step->old->section.isolate.on && !r->refresh);
    crash_enter(step->section->id, r->refresh ? "init, rebuilt on its request" : "init, on reload",
                NULL, NULL);
    if (!fresh)
        status = plugin_rebuild(&pl, step->old, step->section, r->in->file, &srv->env, &errs);
    else
        status = plugin_load(&pl, step->section, r->in->file, &srv->env, &errs);
    crash_leave();
    reload_log_diag(srv, &errs);
    diag_release(&errs);
    if (status == STATUS_NOMEM)
        return status;
    if (status == STATUS_OK) {
        r->loaded++;
        r->next[r->nnext++] = pl;
        /* A rebuilt instance runs the same code with the same config; it says itself which
         * of its resources changed. The others may serve new contents under old URIs. */
        if (step->old != NULL && fresh)
            r->replaced[r->nreplaced++] = pl;
        return STATUS_OK;
    }
    r->failed++;
    if (step->old != NULL) {
        log_msg(&srv->log, LOG_ERROR, NULL,
                "reload: %s: the new version failed; the one in "
                "service stays",
                step->section->id);
        plugin_ref(step->old);
        r->next[r->nnext++] = step->old;
    }
    return STATUS_OK;
}

static void reload_release(struct reload_run *r)
{
    for (size_t i = 0; i < r->nnext; i++) {
        if (plugin_unref(r->next[i]))
            plugin_free(r->next[i]);
    }
    free(r->next);
    free(r->replaced);
    reload_plan_release(&r->plan);
    config_release(&r->cfg);
    pin_free(r->pin);
}

/* The lock file of the new config, read again: the operator may have run mcph --lock to
 * accept a change. A bad one refuses the reload before any plugin runs. */
static int reload_prepare_pin(struct reload_run *r)
{
    struct server *srv = r->srv;
    struct diag errs;
    int status;

    if (r->cfg.lock == NULL || srv->isolated != NULL)
        return STATUS_OK;
    diag_init(&errs);
    status = pin_load(&r->pin, r->cfg.lock, r->cfg.lock_new, &errs);
    reload_log_diag(srv, &errs);
    diag_release(&errs);
    if (status == STATUS_OK)
        return pin_keep_said(r->pin, srv->pin);
    if (status != STATUS_NOMEM)
        log_msg(&srv->log, LOG_ERROR, NULL,
                "reload refused: the lock file %s is wrong (above); the running set stays",
                r->cfg.lock);
    return status;
}

/* Read the INI again and plan. Returns STATUS_OK or a negative status (logged). */
static int reload_prepare(struct reload_run *r)
{
    struct server *srv = r->srv;
    const struct registry *reg = srv->reg;
    struct reload_current cur = {.plugins = reg->plugins, .n = reg->nplugins};
    int *changed = calloc(reg->nplugins + 1, sizeof(*changed));
    struct diag errs;
    int status;

    if (changed == NULL)
        return STATUS_NOMEM;
    diag_init(&errs);
    status = server_config_load(srv, &r->cfg, srv->cfg.file, &errs);
    reload_log_diag(srv, &errs);
    diag_release(&errs);
    if (status != STATUS_OK) {
        log_msg(&srv->log, LOG_ERROR, NULL,
                "reload refused: %s has errors; the running set "
                "stays",
                srv->cfg.file);
        free(changed);
        return status;
    }
    status = reload_prepare_pin(r);
    if (status != STATUS_OK) {
        free(changed);
        return status;
    }
    for (size_t i = 0; i < reg->nplugins; i++)
        changed[i] = plugin_file_changed(reg->plugins[i]);
    cur.file_changed = changed;
    status = reload_plan(&r->plan, &r->cfg, &cur);
    free(changed);
    if (status == STATUS_OK) {
        r->next = calloc(r->plan.nsteps + 1, sizeof(*r->next));
        r->replaced = calloc(r->plan.nsteps + 1, sizeof(*r->replaced));
        status = r->next != NULL && r->replaced != NULL ? STATUS_OK : STATUS_NOMEM;
    }
    return status;
}

/*
 * Whether a new collision of instance `id` leaves its row out instead of refusing the reload:
 * when the instance itself chose its rows (a rebuild: it defines them at init, from what it
 * reads or an upstream serves), as start-up does. Refusing would keep refusing every reload
 * for as long as it serves that name. A collision the INI brings (an added, re-initialised
 * or reopened instance) still refuses the reload.
 */
static int reload_excused(const char *id, void *ctx)
{
    const struct reload_run *r = ctx;

    for (size_t i = 0; i < r->plan.nsteps; i++) {
        const struct reload_step *step = &r->plan.steps[i];

        if (strcmp(step->section->id, id) != 0)
            continue;
        return r->refresh ? step->action != RELOAD_KEEP : step->action == RELOAD_REBUILD;
    }
    return 0;
}

/* The new set merged, with no collision the INI brings; *out owns one reference. */
static int reload_merge(struct reload_run *r, struct registry **out)
{
    struct server *srv = r->srv;
    struct pin *pin = r->refresh ? srv->pin : r->pin;
    struct registry_gate gate;
    size_t collisions = 0;
    struct diag errs;
    int status;

    diag_init(&errs);
    /* Every row of the new set goes through the lock file's check: a definition a rebuilt
     * plugin, a restarted isolated child or a proxied server changed is left out here. */
    if (pin != NULL)
        pin_gate(pin, &gate, &srv->log, PIN_SERVE);
    status = registry_build_gated(out, r->next, r->nnext, srv->reg, pin != NULL ? &gate : NULL,
                                  &srv->log, &errs, &collisions);
    if (status == STATUS_OK && registry_set_meta(*out, r->in) != STATUS_OK) {
        registry_free(*out);
        *out = NULL;
        status = STATUS_NOMEM;
    }
    reload_log_diag(srv, &errs);
    diag_release(&errs);
    if (status == STATUS_OK)
        collisions = registry_new_collisions(srv->reg, *out, reload_excused, r);
    if (status == STATUS_OK && collisions > 0) {
        log_msg(&srv->log, LOG_ERROR, NULL,
                "reload refused: %zu new name collision(s); the running set stays", collisions);
        registry_free(*out);
        *out = NULL;
        return STATUS_PLUGIN;
    }
    return status;
}

/* Put the new config in service (a reload, not a refresh). */
static void reload_swap_config(struct reload_run *r)
{
    struct server *srv = r->srv;
    struct config cfg = srv->cfg;

    struct pin *pin = srv->pin;

    if (r->refresh)
        return;
    srv->cfg = r->cfg;
    r->cfg = cfg; /* the old config is released with the run */
    srv->pin = r->pin;
    r->pin = pin; /* and the old lock file's set */
    r->in = &srv->cfg;
    atomic_store(&srv->log.level, srv->cfg.log_level);
}

/* Put the new set and config in service; notify the lists that changed. Between two
 * messages: the reader dispatches under the same lock, and neither waits on a client there
 * (out_thread_nowait): the notifications are queued in order with the swap, and written as
 * far as each client takes them at once; the rest goes with the next write. */
static void reload_swap(struct reload_run *r, struct registry *next)
{
    struct server *srv = r->srv;
    struct registry *old = srv->reg;
    unsigned lists = registry_diff(old, next);
    int was = out_thread_nowait(1);

    pthread_mutex_lock(&srv->lock);
    reload_swap_config(r);
    srv->reg = next;
    server_set_shares(srv, next, &srv->cfg);
    notify_access_changed(srv);
    notify_lists_changed(srv, lists);
    for (size_t i = 0; i < r->nreplaced; i++)
        notify_resources_reloaded(srv, r->replaced[i]);
    /* The new instances hear the URIs still followed that they serve. */
    notify_subscriptions_moved(srv, old);
    pthread_mutex_unlock(&srv->lock);
    out_thread_nowait(was);
    /* Instances only the old set held are shut down when their last call returns. */
    server_release_registry(srv, old);
    server_free_retired(srv);
    (void)pin_save(srv->pin, &srv->log);
    log_msg(&srv->log, LOG_INFO, NULL,
            "reload: serving %zu tools, %zu resources, %zu "
            "templates, %zu prompts from %zu plugins; %zu dropped, %zu loaded, %zu failed",
            next->ntools, next->nresources, next->ntemplates, next->nprompts, next->nplugins,
            r->plan.ndropped, r->loaded, r->failed);
}

/* Load what the plan needs, merge, swap. Returns STATUS_OK or a negative status. */
static int reload_execute(struct reload_run *r, int status)
{
    struct server *srv = r->srv;
    struct registry *next = NULL;

    for (size_t i = 0; status == STATUS_OK && i < r->plan.nsteps; i++)
        status = reload_step_load(r, &r->plan.steps[i]);
    for (size_t i = 0; status == STATUS_OK && i < r->plan.ndropped; i++)
        log_msg(&srv->log, LOG_INFO, NULL, "reload: %s: drop", r->plan.dropped[i]->id);
    if (status == STATUS_OK)
        status = reload_merge(r, &next);
    if (status == STATUS_OK)
        reload_swap(r, next);
    else if (status == STATUS_NOMEM)
        log_msg(&srv->log, LOG_ERROR, NULL, "reload refused: out of memory");
    return status;
}

int reload_run(struct server *srv)
{
    struct reload_run r = {.srv = srv};
    int status;

    config_init(&r.cfg);
    r.in = &r.cfg;
    status = reload_execute(&r, reload_prepare(&r));
    metrics_reload(srv->metrics, status == STATUS_OK);
    /* logrotate moves the file, then sends SIGHUP: a new file (and key) from here on. */
    (void)audit_reopen(srv->audit);
    reload_release(&r);
    return status;
}

static int reload_wanted(char *const *ids, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(ids[i], id) == 0)
            return 1;
    }
    return 0;
}

/* The plan of a refresh: a rebuild of every instance whose id asked (a reopen if its file
 * changed meanwhile), a keep of the others. *wanted counts the rebuilds. */
static int reload_prepare_refresh(struct reload_run *r, char *const *ids, size_t nids,
                                  size_t *wanted)
{
    const struct registry *reg = r->srv->reg;
    struct reload_plan *plan = &r->plan;

    plan->steps = calloc(reg->nplugins + 1, sizeof(*plan->steps));
    plan->dropped = calloc(1, sizeof(*plan->dropped));
    r->next = calloc(reg->nplugins + 1, sizeof(*r->next));
    r->replaced = calloc(reg->nplugins + 1, sizeof(*r->replaced));
    if (plan->steps == NULL || plan->dropped == NULL || r->next == NULL || r->replaced == NULL)
        return STATUS_NOMEM;
    for (size_t i = 0; i < reg->nplugins; i++) {
        struct plugin *pl = reg->plugins[i];
        struct reload_step *step = &plan->steps[plan->nsteps++];

        /* The section it was loaded with: the INI file on disk may say otherwise now. */
        step->section = &pl->section;
        step->old = pl;
        step->action = RELOAD_KEEP;
        if (reload_wanted(ids, nids, pl->id)) {
            step->action = plugin_file_changed(pl) ? RELOAD_REOPEN : RELOAD_REBUILD;
            (*wanted)++;
        }
    }
    return STATUS_OK;
}

int reload_refresh(struct server *srv)
{
    struct reload_run r = {.srv = srv, .in = &srv->cfg, .refresh = 1};
    size_t nids = 0, wanted = 0;
    char **ids = server_take_refresh(srv, &nids);
    int status;

    config_init(&r.cfg);
    status = reload_prepare_refresh(&r, ids, nids, &wanted);
    if (status == STATUS_OK && wanted > 0)
        status = reload_execute(&r, status);
    reload_release(&r);
    for (size_t i = 0; i < nids; i++)
        free(ids[i]);
    free(ids);
    return status;
}
