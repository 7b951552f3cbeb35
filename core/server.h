/*
 * server.h: the one struct every core module that serves requests is handed. Owned by
 * main(); its fields say which thread may touch them.
 */
#ifndef MCPH_SERVER_H
#define MCPH_SERVER_H

#include "config.h"
#include "inflight.h"

#include "jsonrpc.h"
#include "log.h"
#include "registry.h"
#include "work.h"

#include <cJSON.h>
#include <pthread.h>

/* An open subscriptions/listen request (2026-07-28): which notifications it asked for. */
struct listener {
    cJSON *id;      /* owned: the listen request's id, echoed as subscriptionId */
    unsigned lists; /* enum registry_list bits it asked for */
    char **uris;    /* owned: resourceSubscriptions */
    size_t nuris;
};

/* The legacy (initialize handshake) session of the pipe. Main thread only. */
struct session {
    int rev;            /* enum revision negotiated by initialize; REV_NONE before */
    int initialized;    /* notifications/initialized arrived */
    cJSON *client_caps; /* owned: the client's capabilities, or NULL */
    cJSON *client_info; /* owned: clientInfo, or NULL */
};

struct server {
    struct config cfg;         /* main thread; read-only while workers run */
    struct log log;            /* read-only once serving */
    struct registry *reg;      /* main thread: the set being served (one reference) */
    struct work work;          /* the worker pool */
    struct jsonrpc_reader in;  /* main thread */
    struct jsonrpc_writer out; /* any thread, through its lock */
    struct session session;    /* main thread */
    int wake_fd;               /* write end of the self-pipe: wakes the main loop; -1 when
                                * there is none (--check) */
    struct plugin_env env;     /* handed to every plugin instance; set before loading */
    struct inflight inflight;  /* client requests in flight and mcph's own asks */
    pthread_key_t call_key;    /* on a worker: the call whose handler runs (call.c) */

    pthread_mutex_t subs_lock; /* guards subs and listeners */
    char **subs;               /* owned: URIs the legacy session subscribed to */
    size_t nsubs;
    struct listener *listeners; /* owned: open subscriptions/listen requests */
    size_t nlisteners;

    pthread_mutex_t refresh_lock; /* guards refresh_ids, nrefresh */
    char **refresh_ids;           /* owned: instance ids whose plugin asked to be rebuilt */
    size_t nrefresh;

    pthread_mutex_t retired_lock; /* guards retired */
    struct registry **retired;    /* registries whose last reference a worker dropped:
                                   * freed by the main thread (plugin shutdown runs there) */
    size_t nretired;
    size_t retired_cap;
};

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

/* Free the registries handed over by workers. Main thread. */
void server_free_retired(struct server *srv);

#endif
