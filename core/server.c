#include "server.h"

#include <stdlib.h>
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
