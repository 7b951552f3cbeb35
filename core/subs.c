#include "subs.h"

#include "limits.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

void subs_init(struct subs *s)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->lock, NULL);
}

void subs_listener_release(struct listener *l)
{
    cJSON_Delete(l->id);
    for (size_t i = 0; i < l->nuris; i++)
        free(l->uris[i]);
    free(l->uris);
}

static void subs_drop_listeners(struct subs *s)
{
    for (size_t i = 0; i < s->nlisteners; i++)
        subs_listener_release(&s->listeners[i]);
    free(s->listeners);
    s->listeners = NULL;
    s->nlisteners = 0;
}

void subs_release(struct subs *s)
{
    for (size_t i = 0; i < s->nuris; i++)
        free(s->uris[i]);
    free(s->uris);
    subs_drop_listeners(s);
    pthread_mutex_destroy(&s->lock);
}

/* Where uri is in the session's list, or -1. Lock held. */
static long subs_find(const struct subs *s, const char *uri)
{
    for (size_t i = 0; i < s->nuris; i++) {
        if (strcmp(s->uris[i], uri) == 0)
            return (long)i;
    }
    return -1;
}

int subs_subscribe(struct subs *s, const char *uri)
{
    int status = STATUS_OK;
    char **grown;

    pthread_mutex_lock(&s->lock);
    if (subs_find(s, uri) >= 0) {
        /* Held already. */
    } else if (s->nuris >= LIMIT_SUBSCRIPTIONS) {
        status = STATUS_LIMIT;
    } else if ((grown = realloc(s->uris, (s->nuris + 1) * sizeof(*grown))) == NULL) {
        status = STATUS_NOMEM;
    } else {
        s->uris = grown;
        grown[s->nuris] = strdup(uri);
        if (grown[s->nuris] == NULL)
            status = STATUS_NOMEM;
        else
            s->nuris++;
    }
    pthread_mutex_unlock(&s->lock);
    return status;
}

void subs_unsubscribe(struct subs *s, const char *uri)
{
    long at;

    pthread_mutex_lock(&s->lock);
    at = subs_find(s, uri);
    if (at >= 0) {
        free(s->uris[at]);
        s->uris[at] = s->uris[--s->nuris];
    }
    pthread_mutex_unlock(&s->lock);
}

void subs_unsubscribe_all(struct subs *s)
{
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->nuris; i++)
        free(s->uris[i]);
    free(s->uris);
    s->uris = NULL;
    s->nuris = 0;
    pthread_mutex_unlock(&s->lock);
}

int subs_subscribed(struct subs *s, const char *uri)
{
    int found;

    pthread_mutex_lock(&s->lock);
    found = subs_find(s, uri) >= 0;
    pthread_mutex_unlock(&s->lock);
    return found;
}

/* Add uri to the list unless it is there already or keep refuses it. Lock held. */
static void subs_collect(char **uris, size_t *n, const char *uri,
                         int (*keep)(void *ctx, const char *uri), void *ctx)
{
    for (size_t i = 0; i < *n; i++) {
        if (strcmp(uris[i], uri) == 0)
            return;
    }
    if (keep(ctx, uri) && (uris[*n] = strdup(uri)) != NULL)
        (*n)++;
}

char **subs_followed(struct subs *s, int (*keep)(void *ctx, const char *uri), void *ctx, size_t *n)
{
    char **uris;
    size_t cap;

    *n = 0;
    pthread_mutex_lock(&s->lock);
    cap = s->nuris;
    for (size_t i = 0; i < s->nlisteners; i++)
        cap += s->listeners[i].nuris;
    uris = calloc(cap + 1, sizeof(*uris));
    for (size_t i = 0; uris != NULL && i < s->nuris; i++)
        subs_collect(uris, n, s->uris[i], keep, ctx);
    for (size_t i = 0; uris != NULL && i < s->nlisteners; i++) {
        for (size_t k = 0; k < s->listeners[i].nuris; k++)
            subs_collect(uris, n, s->listeners[i].uris[k], keep, ctx);
    }
    pthread_mutex_unlock(&s->lock);
    return uris;
}

/* The listener with this id, or -1. Lock held. */
static long subs_find_listener(const struct subs *s, const cJSON *id)
{
    for (size_t i = 0; i < s->nlisteners; i++) {
        if (cJSON_Compare(s->listeners[i].id, id, 1))
            return (long)i;
    }
    return -1;
}

int subs_listen(struct subs *s, struct listener *l, subs_listener_fn added, void *ctx)
{
    struct listener *grown;
    int status = STATUS_OK;

    pthread_mutex_lock(&s->lock);
    if (subs_find_listener(s, l->id) >= 0) {
        status = STATUS_EXISTS;
    } else if (s->nlisteners >= LIMIT_LISTENERS) {
        status = STATUS_LIMIT;
    } else if ((grown = realloc(s->listeners, (s->nlisteners + 1) * sizeof(*grown))) == NULL) {
        status = STATUS_NOMEM;
    } else {
        s->listeners = grown;
        grown[s->nlisteners] = *l;
        added(ctx, &grown[s->nlisteners++]);
    }
    pthread_mutex_unlock(&s->lock);
    return status;
}

int subs_unlisten(struct subs *s, const cJSON *id)
{
    long at;

    pthread_mutex_lock(&s->lock);
    at = subs_find_listener(s, id);
    if (at >= 0) {
        subs_listener_release(&s->listeners[at]);
        s->listeners[at] = s->listeners[--s->nlisteners];
    }
    pthread_mutex_unlock(&s->lock);
    return at >= 0;
}

void subs_each_listener(struct subs *s, subs_listener_fn fn, void *ctx)
{
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->nlisteners; i++)
        fn(ctx, &s->listeners[i]);
    pthread_mutex_unlock(&s->lock);
}

void subs_close_listeners(struct subs *s, subs_listener_fn fn, void *ctx)
{
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->nlisteners; i++)
        fn(ctx, &s->listeners[i]);
    subs_drop_listeners(s);
    pthread_mutex_unlock(&s->lock);
}
