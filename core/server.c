#include "server.h"

#include "limits.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void server_release_registry(struct server *srv, struct registry *reg)
{
    struct registry **grown;

    if (!registry_unref(reg))
        return;
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
    srv->retired[srv->nretired++] = reg;
    pthread_mutex_unlock(&srv->retired_lock);
    server_wake(srv);
}

void server_free_retired(struct server *srv)
{
    struct registry **list;
    size_t n;

    pthread_mutex_lock(&srv->retired_lock);
    list = srv->retired;
    n = srv->nretired;
    srv->retired = NULL;
    srv->nretired = srv->retired_cap = 0;
    pthread_mutex_unlock(&srv->retired_lock);
    for (size_t i = 0; i < n; i++)
        registry_free(list[i]);
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
