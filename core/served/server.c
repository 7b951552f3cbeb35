#include "served/server.h"

#include "lib/debounce.h"
#include "lib/diag.h"
#include "host/host.h"
#include "host/isolate.h"
#include "lib/limits.h"
#include "host/plugin.h"
#include "served/audit.h"
#include "lib/status.h"
#include "lib/strbuf.h"
#include "served/metrics.h"
#include "served/notify.h"
#include "served/pin.h"
#include "served/ratelimit.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Lines a thread that may not wait (the main thread: a reload's notifications, a log line)
 * left queued with nobody writing them: the pool's watcher writes them. */
static void server_kick(void *ctx)
{
    struct server *srv = ctx;

    work_kick(&srv->work);
}

void server_wake(void *ctx)
{
    struct server *srv = ctx;
    unsigned char byte = 0;

    if (srv->wake_fd < 0)
        return;
    if (write(srv->wake_fd, &byte, 1) < 0) {
        /* The pipe is full: the main loop wakes anyway. */
    }
}

/* Whether id was asked for already. Under refresh_lock. */
static int server_refresh_has(const struct server *srv, const char *id)
{
    for (size_t i = 0; i < srv->nrefresh; i++) {
        if (strcmp(srv->refresh_ids[i], id) == 0)
            return 1;
    }
    return 0;
}

void server_request_refresh(void *ctx, const char *id)
{
    struct server *srv = ctx;
    char **grown;

    pthread_mutex_lock(&srv->refresh_lock);
    /* Bounded: at most one entry per id, and ids are INI section names. */
    if (!server_refresh_has(srv, id) && srv->nrefresh < 2 * LIMIT_PLUGINS) {
        grown = realloc(srv->refresh_ids, (srv->nrefresh + 1) * sizeof(*grown));
        if (grown != NULL) {
            srv->refresh_ids = grown;
            srv->refresh_ids[srv->nrefresh] = strdup(id);
            srv->nrefresh += srv->refresh_ids[srv->nrefresh] != NULL;
        }
    }
    pthread_mutex_unlock(&srv->refresh_lock);
    server_wake(srv);
}

char **server_take_refresh(struct server *srv, size_t *n)
{
    char **ids;

    pthread_mutex_lock(&srv->refresh_lock);
    ids = srv->refresh_ids;
    *n = srv->nrefresh;
    srv->refresh_ids = NULL;
    srv->nrefresh = 0;
    pthread_mutex_unlock(&srv->refresh_lock);
    return ids;
}

int server_refresh_pending(struct server *srv)
{
    int pending;

    pthread_mutex_lock(&srv->refresh_lock);
    pending = srv->nrefresh > 0;
    pthread_mutex_unlock(&srv->refresh_lock);
    return pending;
}

/* Hand what a call dropped the last reference to over to the main thread. */
static void server_retire(struct server *srv, struct registry *reg, struct plugin *pl)
{
    struct server_retired *grown;

    pthread_mutex_lock(&srv->retired_lock);
    if (srv->nretired == srv->retired_cap) {
        size_t cap = srv->retired_cap ? srv->retired_cap * 2 : 4;

        grown = realloc(srv->retired, cap * sizeof(*grown));
        if (grown == NULL) {
            /* Keeping it loaded is safe; unloading it off the main thread is not. */
            pthread_mutex_unlock(&srv->retired_lock);
            return;
        }
        srv->retired = grown;
        srv->retired_cap = cap;
    }
    srv->retired[srv->nretired++] = (struct server_retired){.reg = reg, .pl = pl};
    pthread_mutex_unlock(&srv->retired_lock);
    server_wake(srv);
}

void server_release_registry(struct server *srv, struct registry *reg)
{
    if (reg != NULL && registry_unref(reg))
        server_retire(srv, reg, NULL);
}

struct registry *server_hold_registry(struct server *srv)
{
    struct registry *reg;

    pthread_mutex_lock(&srv->lock);
    reg = srv->reg;
    registry_ref(reg);
    pthread_mutex_unlock(&srv->lock);
    return reg;
}

void server_release_plugin(struct server *srv, struct plugin *pl)
{
    if (pl != NULL && plugin_unref(pl))
        server_retire(srv, NULL, pl);
}

void server_free_retired(struct server *srv)
{
    struct server_retired *list;
    size_t n;

    pthread_mutex_lock(&srv->retired_lock);
    list = srv->retired;
    n = srv->nretired;
    srv->retired = NULL;
    srv->nretired = srv->retired_cap = 0;
    pthread_mutex_unlock(&srv->retired_lock);
    for (size_t i = 0; i < n; i++) {
        registry_free(list[i].reg);
        if (list[i].pl != NULL)
            plugin_free(list[i].pl);
    }
    free(list);
}

void server_set_shares(struct server *srv, struct registry *reg, const struct config *cfg)
{
    for (size_t i = 0; i < reg->nplugins; i++) {
        struct plugin *pl = reg->plugins[i];
        const struct config_plugin *cp = config_find_plugin(cfg, pl->id);
        size_t share = cp != NULL && cp->max_concurrent > 0 ? (size_t)cp->max_concurrent
                                                            : (size_t)cfg->workers;

        if (!(pl->flags & MCPH_PLUGIN_THREAD_SAFE))
            share = 1;
        work_lane_resize(&srv->work, &pl->lane, share);
    }
}

void server_init(struct server *srv)
{
    memset(srv, 0, sizeof(*srv));
    pthread_mutex_init(&srv->lock, NULL);
    session_init(&srv->session);
    log_init(&srv->log);
    config_init(&srv->cfg);
    pthread_mutex_init(&srv->retired_lock, NULL);
    pthread_mutex_init(&srv->refresh_lock, NULL);
    subs_init(&srv->subs);
    subs_set_heard(&srv->subs, notify_heard, srv);
    inflight_init(&srv->inflight);
    pthread_mutex_init(&srv->peers_lock, NULL);
    srv->pipe_peer = (struct peer){.out = &srv->out,
                                   .session = &srv->session,
                                   .inflight = &srv->inflight,
                                   .home = &srv->pipe_peer};
    atomic_init(&srv->pipe_peer.refs, 1);
    pthread_key_create(&srv->call_key, NULL);
    srv->env.log = &srv->log;
    srv->env.resource_updated = notify_resource_updated;
    srv->env.refresh = server_request_refresh;
    srv->env.client_log = notify_client_log;
    srv->env.ctx = srv;
    srv->env.host_setup = host_setup;
    srv->wake_fd = -1;
}

void server_open_logs(struct server *srv)
{
    srv->log.sink = notify_log_sink;
    srv->log.sink_wants = notify_log_wants;
    srv->log.sink_ctx = srv;
    srv->log.tag = notify_log_tag;
}

void server_open_output(struct server *srv, int out_fd)
{
    out_init(&srv->out, out_fd);
    srv->out.on_fail = server_wake;
    srv->out.fail_ctx = srv;
    srv->output_open = 1;
    server_add_peer(srv, &srv->pipe_peer);
    server_open_logs(srv);
}

void server_add_peer(struct server *srv, struct peer *p)
{
    pthread_mutex_lock(&srv->peers_lock);
    p->next = srv->peers;
    srv->peers = p;
    pthread_mutex_unlock(&srv->peers_lock);
}

void server_remove_peer(struct server *srv, struct peer *p)
{
    pthread_mutex_lock(&srv->peers_lock);
    for (struct peer **at = &srv->peers; *at != NULL; at = &(*at)->next) {
        if (*at == p) {
            *at = p->next;
            break;
        }
    }
    pthread_mutex_unlock(&srv->peers_lock);
}

void server_each_peer(struct server *srv, void (*fn)(void *ctx, struct peer *p), void *ctx)
{
    pthread_mutex_lock(&srv->peers_lock);
    for (struct peer *p = srv->peers; p != NULL; p = p->next)
        fn(ctx, p);
    pthread_mutex_unlock(&srv->peers_lock);
}

static void server_log_diag(const struct log *lg, struct diag *d)
{
    for (size_t i = 0; i < d->count; i++)
        log_msg(lg, LOG_ERROR, NULL, "%s", d->msgs[i]);
    if (d->nomem)
        log_msg(lg, LOG_ERROR, NULL, "out of memory while collecting messages");
}

/* Load every enabled plugin of the config (plugin_load_set: isolated ones alongside);
 * failures are reported, in order, and skipped. *failures counts those whose init failed,
 * *wrong the sections to fix (STATUS_CONFIG). Returns STATUS_OK or STATUS_NOMEM. */
static int server_load_plugins(struct server *srv, struct plugin ***out, size_t *n,
                               size_t *failures, size_t *wrong)
{
    const struct config *cfg = &srv->cfg;
    struct plugin **plugins = calloc(cfg->nplugins + 1, sizeof(*plugins));
    struct plugin_job *jobs = calloc(cfg->nplugins + 1, sizeof(*jobs));
    size_t njobs = 0;
    int status = STATUS_OK;

    *out = plugins;
    *n = 0;
    if (plugins == NULL || jobs == NULL) {
        free(jobs);
        return STATUS_NOMEM;
    }
    for (size_t i = 0; i < cfg->nplugins; i++) {
        if (cfg->plugins[i].enabled)
            jobs[njobs++].cp = &cfg->plugins[i];
    }
    plugin_load_set(jobs, njobs, cfg->file, &srv->env);
    for (size_t i = 0; i < njobs; i++) {
        server_log_diag(&srv->log, &jobs[i].errs);
        diag_release(&jobs[i].errs);
        if (jobs[i].status == STATUS_OK)
            plugins[(*n)++] = jobs[i].pl;
        else if (jobs[i].status == STATUS_NOMEM)
            status = STATUS_NOMEM;
        else if (jobs[i].status == STATUS_CONFIG)
            (*wrong)++;
        else
            (*failures)++;
    }
    free(jobs);
    return status;
}

int server_config_load(const struct server *srv, struct config *cfg, const char *path,
                       struct diag *errs)
{
    int status;

    if (srv->isolated == NULL)
        return config_load(cfg, path, errs);
    status = config_load_fd(cfg, path, ISOLATE_FD_CONFIG, errs);
    /* The text holds every section (another's env, say): read once, before any plugin code
     * runs, and not left open to the plugin. */
    close(ISOLATE_FD_CONFIG);
    if (status == STATUS_OK)
        status = isolate_child_config(cfg, srv->isolated, errs);
    return status;
}

/* A row left out for a collision is the later section's to fix (a prefix, a filter): its
 * FILE:LINE, once per section (the reasons are logged above). */
static size_t server_log_collided(const struct server *srv)
{
    const struct registry *reg = srv->reg;
    size_t sections = 0;

    for (size_t i = 0; i < reg->ncollided; i++) {
        const char *id = strrchr(reg->collided[i], ' ');
        const struct config_plugin *cp = id != NULL ? config_find_plugin(&srv->cfg, id + 1) : NULL;
        int seen = 0;

        for (size_t j = 0; j < i && cp != NULL; j++)
            seen |= strcmp(strrchr(reg->collided[j], ' '), id) == 0;
        if (cp == NULL || seen)
            continue;
        log_msg(&srv->log, LOG_ERROR, NULL,
                "%s:%d: [plugin.%s] serves a name another plugin serves (see above); fix the "
                "section",
                srv->cfg.file, cp->line, cp->id);
        sections++;
    }
    return sections;
}

/* The lock file [server] lock names, read before any plugin runs: a bad one is a config
 * error. An isolated child pins nothing (its parent checks the rows it serves), nor does
 * mcph --lock (it writes the file). */
static int server_load_pin(struct server *srv, struct diag *errs)
{
    if (srv->cfg.lock == NULL || srv->isolated != NULL || srv->pin_mode == PIN_OFF)
        return STATUS_OK;
    return pin_load(&srv->pin, srv->cfg.lock, srv->cfg.lock_new, errs);
}

/* The first set, built through the pinned definitions when there are some. */
static int server_build(struct server *srv, struct plugin *const *plugins, size_t n,
                        struct diag *errs, size_t *collisions)
{
    struct registry_gate gate;
    int status;

    if (srv->pin != NULL)
        pin_gate(srv->pin, &gate, &srv->log, (enum pin_mode)srv->pin_mode);
    status = registry_build_gated(&srv->reg, plugins, n, NULL, srv->pin != NULL ? &gate : NULL,
                                  &srv->log, errs, collisions);
    if (status == STATUS_OK)
        (void)pin_save(srv->pin, &srv->log);
    return status;
}

int server_load(struct server *srv, const char *path, size_t *failures, size_t *collisions)
{
    struct plugin **plugins = NULL;
    size_t n = 0, wrong = 0;
    struct diag errs;
    int status;

    diag_init(&errs);
    status = server_config_load(srv, &srv->cfg, path, &errs);
    server_log_diag(&srv->log, &errs);
    diag_release(&errs);
    if (status != STATUS_OK)
        return status == STATUS_NOMEM ? STATUS_NOMEM : STATUS_INVALID;
    atomic_store(&srv->log.level, srv->cfg.log_level);
    /* Counted only when shown: a server without metrics_path pays a NULL check. */
    if (srv->cfg.metrics_path != NULL && srv->isolated == NULL &&
        (srv->metrics = metrics_new()) == NULL)
        return STATUS_NOMEM;
    status = server_load_pin(srv, &errs);
    server_log_diag(&srv->log, &errs);
    diag_release(&errs);
    if (status != STATUS_OK)
        return status == STATUS_NOMEM ? STATUS_NOMEM : STATUS_INVALID;
    status = server_load_plugins(srv, &plugins, &n, failures, &wrong);
    if (status == STATUS_OK)
        status = server_build(srv, plugins, n, &errs, collisions);
    if (status == STATUS_OK)
        status = registry_set_meta(srv->reg, &srv->cfg);
    if (status == STATUS_OK)
        server_set_shares(srv, srv->reg, &srv->cfg);
    server_log_diag(&srv->log, &errs);
    diag_release(&errs);
    /* The registry holds its own references now. */
    for (size_t i = 0; i < n; i++) {
        if (plugin_unref(plugins[i]))
            plugin_free(plugins[i]);
    }
    free(plugins);
    if (status == STATUS_INVALID)
        return STATUS_NOMEM;
    if (status == STATUS_OK && *collisions > 0)
        wrong += server_log_collided(srv);
    if (status == STATUS_OK && wrong > 0) {
        log_msg(&srv->log, LOG_CRITICAL, NULL,
                "%zu plugin section(s) of %s to fix (above); not serving", wrong, srv->cfg.file);
        /* As after a [server] error: nothing stays loaded. */
        registry_free(srv->reg);
        srv->reg = NULL;
        return STATUS_INVALID;
    }
    return status;
}

int server_open_audit(struct server *srv, int check)
{
    const struct config *cfg = &srv->cfg;
    struct strbuf why = STRBUF_INIT, key_path = STRBUF_INIT;
    unsigned char key[AUDIT_KEY_MAX];
    size_t keylen;
    int status;

    if (cfg->audit == NULL || srv->isolated != NULL)
        return STATUS_OK;
    if (check) {
        if (cfg->audit_key_file == NULL)
            strbuf_addf(&key_path, "%s.key", cfg->audit);
        status = audit_key_load(cfg->audit_key_file ? cfg->audit_key_file : key_path.buf, 1, key,
                                &keylen, &why);
        memset(key, 0, sizeof(key));
    } else {
        status = audit_open(&srv->audit, cfg->audit, cfg->audit_key_file, cfg->audit_buffer,
                            &srv->log, &why);
    }
    if (status != STATUS_OK)
        log_msg(&srv->log, LOG_CRITICAL, NULL, "%s: [server] audit: %s; not serving", cfg->file,
                why.nomem ? "out of memory" : why.buf);
    strbuf_release(&why);
    strbuf_release(&key_path);
    return status == STATUS_NOMEM ? STATUS_NOMEM : status == STATUS_OK ? STATUS_OK : STATUS_INVALID;
}

void server_release(struct server *srv)
{
    size_t n;
    char **ids;

    /* Plugins first: their own threads may call the host (log, resource_updated, refresh)
     * until their shutdown returns, and those calls use everything released after. */
    server_free_retired(srv);
    registry_free(srv->reg);
    srv->reg = NULL;
    pin_free(srv->pin);
    srv->pin = NULL;
    free(srv->retired);
    pthread_mutex_destroy(&srv->retired_lock);
    ids = server_take_refresh(srv, &n);
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    pthread_mutex_destroy(&srv->refresh_lock);
    subs_release(&srv->subs);
    inflight_release(&srv->inflight);
    /* Every call has ended: what is buffered is written (the writer logs through a copy of
     * the log of its own, so one left to a disk that does not answer touches nothing of srv). */
    audit_free(srv->audit, LIMIT_SHUTDOWN_FLUSH_MS);
    srv->audit = NULL;
    /* Lines logged from here on neither read the deleted key nor reach a client. */
    srv->log.tag = NULL;
    atomic_store(&srv->log.sink_level, LOG_OFF);
    srv->log.sink_wants = NULL;
    pthread_key_delete(srv->call_key);
    if (srv->output_open) {
        server_remove_peer(srv, &srv->pipe_peer);
        out_release(&srv->out);
    }
    pthread_mutex_destroy(&srv->peers_lock);
    session_release(&srv->session);
    free(srv->state_key);
    ratelimit_free(srv->rates);
    srv->rates = NULL;
    metrics_free(srv->metrics);
    srv->metrics = NULL;
    config_release(&srv->cfg);
    pthread_mutex_destroy(&srv->lock);
}

/* The enabled sections not in service (their init failed), "a, b" into sb; returns how
 * many. */
static size_t server_left_out(const struct server *srv, struct strbuf *sb)
{
    size_t n = 0;

    for (size_t i = 0; i < srv->cfg.nplugins; i++) {
        const struct config_plugin *cp = &srv->cfg.plugins[i];
        int served = 0;

        for (size_t j = 0; j < srv->reg->nplugins; j++)
            served |= strcmp(srv->reg->plugins[j]->id, cp->id) == 0;
        if (!cp->enabled || served)
            continue;
        (void)strbuf_addf(sb, "%s%s", n == 0 ? "" : ", ", cp->id);
        n++;
    }
    return n;
}

int server_start(struct server *srv, const struct work_source *src)
{
    struct strbuf out = STRBUF_INIT, names = STRBUF_INIT;
    size_t left;

    jsonrpc_reader_init(&srv->in, 0, LIMIT_MESSAGE_BYTES);
    srv->rates = ratelimit_new(LIMIT_RATE_BUCKETS, LIMIT_RATE_LOG_MS, NULL, NULL);
    if (srv->rates == NULL) {
        log_msg(&srv->log, LOG_ERROR, NULL, "out of memory for the rate limits' buckets");
        jsonrpc_reader_release(&srv->in);
        return STATUS_NOMEM;
    }
    left = server_left_out(srv, &names);
    if (left > 0)
        (void)strbuf_addf(&out, "; %zu left out, their init failed: %s", left, names.buf);
    /* Before the first message is read: this line is for stderr only. */
    log_msg(&srv->log, left > 0 ? LOG_WARNING : LOG_INFO, NULL,
            "serving %zu tools, %zu resources, %zu templates, "
            "%zu prompts from %zu plugins (%s)%s",
            srv->reg->ntools, srv->reg->nresources, srv->reg->ntemplates, srv->reg->nprompts,
            srv->reg->nplugins, srv->cfg.file, out.buf);
    strbuf_release(&out);
    strbuf_release(&names);
    if (work_start(&srv->work, src, LIMIT_THREADS) != STATUS_OK) {
        log_msg(&srv->log, LOG_ERROR, NULL, "cannot start threads");
        jsonrpc_reader_release(&srv->in);
        return STATUS_IO;
    }
    if (srv->output_open)
        out_set_on_left(&srv->out, server_kick, srv);
    return STATUS_OK;
}

/* Log the requests still in flight after `what`, and how many: at most 20 named. */
static size_t server_log_inflight(struct server *srv, const char *what)
{
    struct strbuf sb = STRBUF_INIT;
    size_t n = inflight_describe(&srv->inflight, &sb, 20);

    if (n > 0)
        log_msg(&srv->log, LOG_WARNING, NULL, "%s %zu request(s): %s", what, n, sb.buf);
    strbuf_release(&sb);
    return n;
}

/* Every call in flight is cancelled now (a handler that polls cancelled() stops; no answer
 * is sent for any of them), logged after `what`. Returns how many there were. */
static size_t server_cancel_all(struct server *srv, const char *what)
{
    size_t n = server_log_inflight(srv, what);

    inflight_cancel_all(&srv->inflight);
    if (srv->cancel_more != NULL)
        n += srv->cancel_more(srv->cancel_ctx);
    return n;
}

/* The calls in flight end. After the end of input nobody can read their answers: they were
 * cancelled at once (server_stop) and get LIMIT_SHUTDOWN_GRACE_MS. After a stop signal they
 * get LIMIT_SHUTDOWN_GRACE_MS, then are cancelled and get LIMIT_SHUTDOWN_CANCEL_MS more. A
 * further stop signal skips the rest of the current wait. Returns 1 when nothing is left
 * running, 0 when the time is up (the calls still running are logged as abandoned). */
static int server_finish_calls(struct server *srv, int by_signal, int (*stop_asked)(void *),
                               void *ctx)
{
    int phase = 0, nphases = by_signal ? 2 : 1;
    struct timespec start;

    clock_gettime(CLOCK_MONOTONIC, &start);
    while (!work_drain(&srv->work, LIMIT_SHUTDOWN_SLICE_MS)) {
        long limit = phase == 0 ? LIMIT_SHUTDOWN_GRACE_MS : LIMIT_SHUTDOWN_CANCEL_MS;
        long waited = debounce_ms_since(&start);

        if (!stop_asked(ctx) && waited < limit)
            continue;
        if (++phase == nphases) {
            if (server_log_inflight(srv, "shutting down; abandoned") == 0)
                log_msg(&srv->log, LOG_WARNING, NULL,
                        "shutting down; replies held up by a client that does not read");
            return 0;
        }
        if (server_cancel_all(srv, "shutting down; after the grace period, cancelled") == 0)
            log_msg(&srv->log, LOG_WARNING, NULL,
                    "shutting down; replies held up by a client that does not read, %ld ms",
                    waited);
        clock_gettime(CLOCK_MONOTONIC, &start);
    }
    return 1;
}

int server_stop(struct server *srv, int by_signal, int (*stop_asked)(void *), void *ctx)
{
    /* The pool stops: lines left queued are for the last flush. */
    if (srv->output_open)
        out_set_on_left(&srv->out, NULL, NULL);
    /* At the end of input the calls are cancelled first: a question waiting for the client
     * then ends as cancelled, not as failed, and its call sends nothing. */
    if (!by_signal)
        server_cancel_all(srv, "end of input; cancelled");
    /* Nothing more is read (a reader a client holds up in a write is not waited for); no
     * answer to a plugin's question can come any more; open listen requests end. */
    work_stop_input(&srv->work, LIMIT_SHUTDOWN_READER_MS);
    inflight_close(&srv->inflight);
    notify_listeners_close(srv);
    if (!server_finish_calls(srv, by_signal, stop_asked, ctx) ||
        !work_stop(&srv->work, LIMIT_SHUTDOWN_CANCEL_MS))
        return 0;
    /* The legacy session ends: plugins hear that nobody follows its URIs any more (while
     * they are still in service). */
    subs_unsubscribe_all(&srv->subs, &srv->pipe_peer);
    if (srv->output_open)
        out_flush_for(&srv->out, LIMIT_SHUTDOWN_FLUSH_MS);
    /* Plugins shut down after this: their last words go to stderr only. Their own threads
     * may still log until then, so the writer stays until they are gone (server_release). */
    atomic_store(&srv->log.sink_level, LOG_OFF);
    jsonrpc_reader_release(&srv->in);
    return 1;
}
