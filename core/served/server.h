/*
 * server.h: the one struct every core module that serves requests is handed. Owned by
 * main(); its fields say which thread may touch them.
 *
 * The map of core/ (its layers in request order, the path of a request, the threads and the
 * order of their locks, reloads) is docs/internals.md.
 */
#ifndef MCPH_SERVER_H
#define MCPH_SERVER_H

#include "config/config.h"
#include "served/inflight.h"
#include "wire/jsonrpc.h"
#include "lib/log.h"
#include "wire/out.h"
#include "wire/peer.h"
#include "served/registry.h"
#include "served/session.h"
#include "served/subs.h"
#include "lib/work.h"

#include <cJSON.h>
#include <pthread.h>
#include <stdatomic.h>

/* A registry or a plugin instance (one of them) waiting for the main thread to free it. */
struct server_retired {
    struct registry *reg;
    struct plugin *pl;
};

struct ratelimit;
struct metrics;
struct pin;
struct audit;

struct server {
    /* The protocol state: cfg, reg and session are read and changed by the thread that
     * dispatches a message (the reader) and swapped by reload (the main thread), both while
     * holding it. A call takes what it needs from them while it is dispatched. */
    pthread_mutex_t lock;
    struct config cfg;        /* under lock; only the main thread replaces it */
    struct log log;           /* read-only once serving */
    struct registry *reg;     /* under lock: the set being served (one reference); only the
                               * main thread replaces it */
    struct session session;   /* under lock: the legacy session of the pipe */
    struct peer pipe_peer;    /* the stdio client: session, out and inflight of the pipe */
    unsigned char *state_key; /* owned or NULL: [server] state_key_file's key (read-only) */
    struct ratelimit *rates;  /* owned or NULL: the token buckets of rate and [limit.NAME] */
    struct metrics *metrics;  /* owned or NULL: the counters metrics_path shows */
    struct pin *pin;          /* owned or NULL: the definitions [server] lock pins (pin.h);
                               * main thread only (read and replaced while a set is built) */
    int pin_mode;             /* enum pin_mode (pin.h), set by main before server_load */
    struct audit *audit;      /* owned or NULL: [server] audit's log (any thread; made by
                               * server_open_audit, reopened by reload_run) */
    /* NULL, or the transport's own requests in flight (HTTP's peers) are cancelled by it, with
     * the pipe's, when shutting down; it returns how many it marked. Set before server_stop. */
    size_t (*cancel_more)(void *ctx);
    void *cancel_ctx;
    atomic_size_t transport_held; /* bytes a transport holds for its clients beyond its outs
                                   * (HTTP's unsent answers), counted in max_pending_mb */
    size_t state_key_len;
    struct work work;         /* the threads: the reader, the watcher, calls */
    struct jsonrpc_reader in; /* the thread holding the reader role */
    struct out out;           /* any thread */
    atomic_int input_ended;   /* the reader saw the end of input (the main loop stops) */
    int output_open;          /* server_open_output ran */
    int wake_fd;              /* write end of the self-pipe: wakes the main loop; -1 when
                               * there is none (--check) */
    const char *isolated;     /* --isolated ID: the one section served, as the child of an
                               * isolated plugin (isolate.h); else NULL */
    struct plugin_env env;    /* handed to every plugin instance; set before loading */
    struct inflight inflight; /* client requests in flight and mcph's own asks */
    atomic_size_t calls_held; /* bytes held by calls queued or running (max_pending_mb) */
    pthread_key_t call_key;   /* on a pool thread: its handler's caller (notify.h) */

    struct subs subs; /* any thread: resource subscriptions and listen requests */

    pthread_mutex_t peers_lock; /* guards peers (taken before any out's lock) */
    struct peer *peers;         /* the homes that hear what nobody asked for (peer.h) */

    pthread_mutex_t refresh_lock; /* guards refresh_ids, nrefresh */
    char **refresh_ids;           /* owned: instance ids whose plugin asked to be rebuilt */
    size_t nrefresh;

    pthread_mutex_t retired_lock;   /* guards retired */
    struct server_retired *retired; /* what a call dropped the last reference to: freed by
                                     * the main thread (plugin shutdown runs there) */
    size_t nretired;
    size_t retired_cap;
};

/* Set up an empty server: no config, no plugins, no output yet. */
void server_init(struct server *srv);

/* The writer to the client on out_fd and the log's sink into it. Before any plugin loads: a
 * plugin's init may start threads that log. Nothing reaches the client before it asks for
 * logging. */
void server_open_output(struct server *srv, int out_fd);

/* The log lines meant for clients go to them (notify_client_log) from now on. Before any
 * plugin loads. server_open_output does it for stdio. */
void server_open_logs(struct server *srv);

/* A peer that hears list_changed, log messages outside calls and the resources it follows
 * updated, until it is removed (before its out is released). Any thread. */
void server_add_peer(struct server *srv, struct peer *p);
void server_remove_peer(struct server *srv, struct peer *p);

/* Call fn for each peer added, with peers_lock held (fn must not add or remove one). */
void server_each_peer(struct server *srv, void (*fn)(void *ctx, struct peer *p), void *ctx);

/* Read the INI file at path into cfg (freshly initialised), as config_load does; in an
 * isolated child (srv->isolated), the text its parent passed, cut to its one section. */
int server_config_load(const struct server *srv, struct config *cfg, const char *path,
                       struct diag *errs) __attribute__((warn_unused_result));

/* Read the INI file at path and load every enabled plugin into the served set (srv->reg).
 * Problems are logged. *failures counts plugins left out because their init failed (not for
 * their section's keys), *collisions rows two sections serve. Returns STATUS_OK;
 * STATUS_INVALID when the INI file is wrong: a [server] problem, or any plugin section to fix
 * (its keys, its file, the plugin it names, init's MCPH_ERR_INVALID, a collision), every
 * section tried and each problem logged with FILE:LINE; srv->reg is then NULL. Or
 * STATUS_NOMEM. */
int server_load(struct server *srv, const char *path, size_t *failures, size_t *collisions);

/* Open [server] audit's log when the config names one (not in an isolated child: its parent
 * logs the calls). check: only read (or make) the key, as --check does. Returns STATUS_OK, or
 * STATUS_INVALID when the key or the file is wrong (logged, naming it). Main thread, after
 * server_load. */
int server_open_audit(struct server *srv, int check) __attribute__((warn_unused_result));

/* Start serving: the threads of srv->work take the reader role on src. Returns STATUS_OK,
 * or STATUS_IO when the threads cannot start (logged). */
int server_start(struct server *srv, const struct work_source *src);

/* Stop serving, after the end of input (by_signal 0) or a stop signal (1): calls in flight
 * are cancelled (at once, or after the grace period), nothing more is read, questions to the
 * client end, open listen requests get their final reply, and the calls are waited for;
 * stop_asked(ctx) says whether another stop signal came (cutting a wait short). Returns 1
 * when everything stopped, 0 when calls or replies are still held up (the caller must then
 * exit without unloading plugins). */
int server_stop(struct server *srv, int by_signal, int (*stop_asked)(void *), void *ctx);

/* Unload the plugins and release everything server_init and server_load set up. Main
 * thread, after the pool stopped. */
void server_release(struct server *srv);

/* Wake the main loop (ctx is the struct server): it then frees retired registries and
 * looks for instances that asked to be built again. Any thread. */
void server_wake(void *ctx);

/* Note that instance `id` asks to be built again (host->refresh) and wake the main loop.
 * ctx is the struct server. Any thread. */
void server_request_refresh(void *ctx, const char *id);

/* The ids asked for since the last call (an owned array of owned strings; *n of them, NULL
 * when none). Main thread. */
char **server_take_refresh(struct server *srv, size_t *n);

/* Whether a refresh was asked for and not taken yet. Any thread. */
int server_refresh_pending(struct server *srv);

/* Drop a reference to reg from any thread; the last one is handed to the main thread. */
void server_release_registry(struct server *srv, struct registry *reg);

/* A reference to the set being served now: release it with server_release_registry. Any
 * thread not holding the state lock. */
struct registry *server_hold_registry(struct server *srv);

/* Drop a reference to a plugin instance from any thread; the last one is handed to the main
 * thread. */
void server_release_plugin(struct server *srv, struct plugin *pl);

/* Free the registries and instances handed over by workers. Main thread. */
void server_free_retired(struct server *srv);

/* Give every instance of reg its share of threads from cfg: its section's max_concurrent,
 * else [server] workers; one at a time when it is not declared thread-safe. A change applies
 * to an instance kept across a reload too, without re-initialising it. Main thread, before
 * reg is served (at startup) or while swapping it in (the pool's lock is taken). */
void server_set_shares(struct server *srv, struct registry *reg, const struct config *cfg);

#endif
