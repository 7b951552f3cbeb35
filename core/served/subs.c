#include "served/subs.h"

#include "lib/limits.h"
#include "lib/status.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One URI followed and how many follow it: the session once, each listener once for each time
 * its resourceSubscriptions lists it. Also a change to tell (first or last follower) once the
 * lock is released: then count is 1 for "on" and 0 for "off". */
struct subs_uri {
    struct subs_uri *next; /* in its bucket, or in a list of changes */
    size_t count;
    unsigned mark; /* the subs_followed pass that listed it */
    char uri[];
};

/* Buckets of the follower table at first; it doubles when it holds as many URIs. */
#define SUBS_BUCKETS 64

void subs_init(struct subs *s)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->lock, NULL);
}

void subs_set_heard(struct subs *s, subs_heard_fn heard, void *ctx)
{
    s->heard = heard;
    s->heard_ctx = ctx;
}

void subs_listener_release(struct listener *l)
{
    cJSON_Delete(l->id);
    for (size_t i = 0; i < l->nuris; i++)
        free(l->uris[i]);
    free(l->uris);
    free(l->hidden);
}

static void subs_drop_listeners(struct subs *s)
{
    for (size_t i = 0; i < s->nlisteners; i++)
        subs_listener_release(&s->listeners[i]);
    free(s->listeners);
    s->listeners = NULL;
    s->nlisteners = 0;
}

static void subs_free_list(struct subs_uri *list)
{
    while (list != NULL) {
        struct subs_uri *next = list->next;

        free(list);
        list = next;
    }
}

void subs_release(struct subs *s)
{
    for (size_t i = 0; i < s->nsubs; i++)
        free(s->subs[i].uri);
    free(s->subs);
    subs_drop_listeners(s);
    for (size_t i = 0; i < s->nbuckets; i++)
        subs_free_list(s->followed[i]);
    free(s->followed);
    pthread_mutex_destroy(&s->lock);
}

/* --- Followers. Lock held. --- */

/* FNV-1a. */
static size_t subs_hash(const char *uri)
{
    uint64_t h = 14695981039346656037u;

    for (const unsigned char *p = (const unsigned char *)uri; *p != '\0'; p++)
        h = (h ^ *p) * 1099511628211u;
    return (size_t)h;
}

/* The link that points at uri's entry, or at the end of its bucket; NULL with no table. */
static struct subs_uri **subs_link(struct subs *s, const char *uri)
{
    struct subs_uri **link;

    if (s->nbuckets == 0)
        return NULL;
    link = &s->followed[subs_hash(uri) & (s->nbuckets - 1)];
    while (*link != NULL && strcmp((*link)->uri, uri) != 0)
        link = &(*link)->next;
    return link;
}

/* Double the table (or make the first one). Out of memory keeps the one there is. */
static void subs_grow(struct subs *s)
{
    size_t n = s->nbuckets ? s->nbuckets * 2 : SUBS_BUCKETS;
    struct subs_uri **table = calloc(n, sizeof(*table));

    if (table == NULL)
        return;
    for (size_t i = 0; i < s->nbuckets; i++) {
        while (s->followed[i] != NULL) {
            struct subs_uri *e = s->followed[i];
            size_t at = subs_hash(e->uri) & (n - 1);

            s->followed[i] = e->next;
            e->next = table[at];
            table[at] = e;
        }
    }
    free(s->followed);
    s->followed = table;
    s->nbuckets = n;
}

static struct subs_uri *subs_entry_new(const char *uri, size_t count)
{
    size_t len = strlen(uri);
    struct subs_uri *e = malloc(sizeof(*e) + len + 1);

    if (e != NULL) {
        e->next = NULL;
        e->count = count;
        e->mark = 0;
        memcpy(e->uri, uri, len + 1);
    }
    return e;
}

/* One more follower of uri; a first one is added to *changes as "on". Returns STATUS_OK or
 * STATUS_NOMEM (nothing changed). */
static int subs_follow(struct subs *s, const char *uri, struct subs_uri **changes)
{
    struct subs_uri **link, *e, *on;

    if (s->nfollowed >= s->nbuckets)
        subs_grow(s);
    link = subs_link(s, uri);
    if (link == NULL)
        return STATUS_NOMEM;
    if (*link != NULL) {
        (*link)->count++;
        return STATUS_OK;
    }
    e = subs_entry_new(uri, 1);
    on = subs_entry_new(uri, 1);
    if (e == NULL || on == NULL) {
        free(e);
        free(on);
        return STATUS_NOMEM;
    }
    *link = e;
    s->nfollowed++;
    on->next = *changes;
    *changes = on;
    return STATUS_OK;
}

/* One follower of uri fewer; the entry of the last one moves to *changes as "off". */
static void subs_unfollow(struct subs *s, const char *uri, struct subs_uri **changes)
{
    struct subs_uri **link = subs_link(s, uri);
    struct subs_uri *e = link ? *link : NULL;

    if (e == NULL || --e->count > 0)
        return;
    *link = e->next;
    s->nfollowed--;
    e->next = *changes;
    *changes = e;
}

/* --- Telling the changes, lock released. --- */

/* Tell the changes (kept newest first) in the order they happened, and free them. */
static void subs_tell(struct subs *s, struct subs_uri *changes)
{
    struct subs_uri *ordered = NULL;

    while (changes != NULL) {
        struct subs_uri *next = changes->next;

        changes->next = ordered;
        ordered = changes;
        changes = next;
    }
    for (struct subs_uri *e = ordered; e != NULL; e = e->next) {
        if (s->heard != NULL)
            s->heard(s->heard_ctx, e->uri, e->count > 0);
    }
    subs_free_list(ordered);
}

/* Where the owner's subscription to uri is in the list, or -1; *count: how many the owner
 * has. Lock held. */
static long subs_find(const struct subs *s, const void *owner, const char *uri, size_t *count)
{
    long at = -1;

    *count = 0;
    for (size_t i = 0; i < s->nsubs; i++) {
        if (s->subs[i].owner != owner)
            continue;
        ++*count;
        if (at < 0 && strcmp(s->subs[i].uri, uri) == 0)
            at = (long)i;
    }
    return at;
}

/* Add the owner's subscription to uri and follow it. Lock held. */
static int subs_add(struct subs *s, const void *owner, const char *uri, size_t count,
                    struct subs_uri **changes)
{
    struct subs_sub *grown;
    char *copy;

    if (count >= LIMIT_SUBSCRIPTIONS)
        return STATUS_LIMIT;
    grown = realloc(s->subs, (s->nsubs + 1) * sizeof(*grown));
    if (grown == NULL)
        return STATUS_NOMEM;
    s->subs = grown;
    copy = strdup(uri);
    if (copy == NULL || subs_follow(s, uri, changes) != STATUS_OK) {
        free(copy);
        return STATUS_NOMEM;
    }
    grown[s->nsubs++] = (struct subs_sub){.owner = owner, .uri = copy};
    return STATUS_OK;
}

int subs_subscribe(struct subs *s, const void *owner, const char *uri)
{
    struct subs_uri *changes = NULL;
    int status = STATUS_OK;
    size_t count;

    pthread_mutex_lock(&s->lock);
    if (subs_find(s, owner, uri, &count) < 0)
        status = subs_add(s, owner, uri, count, &changes);
    pthread_mutex_unlock(&s->lock);
    subs_tell(s, changes);
    return status;
}

/* Remove subscription `at`. Lock held. */
static void subs_remove(struct subs *s, size_t at, struct subs_uri **changes)
{
    subs_unfollow(s, s->subs[at].uri, changes);
    free(s->subs[at].uri);
    s->subs[at] = s->subs[--s->nsubs];
}

void subs_unsubscribe(struct subs *s, const void *owner, const char *uri)
{
    struct subs_uri *changes = NULL;
    size_t count;
    long at;

    pthread_mutex_lock(&s->lock);
    at = subs_find(s, owner, uri, &count);
    if (at >= 0)
        subs_remove(s, (size_t)at, &changes);
    pthread_mutex_unlock(&s->lock);
    subs_tell(s, changes);
}

void subs_unsubscribe_all(struct subs *s, const void *owner)
{
    struct subs_uri *changes = NULL;

    pthread_mutex_lock(&s->lock);
    for (size_t i = s->nsubs; i-- > 0;) {
        if (s->subs[i].owner == owner)
            subs_remove(s, i, &changes);
    }
    if (s->nsubs == 0) {
        free(s->subs);
        s->subs = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    subs_tell(s, changes);
}

int subs_subscribed(struct subs *s, const void *owner, const char *uri)
{
    size_t count;
    int found;

    pthread_mutex_lock(&s->lock);
    found = subs_find(s, owner, uri, &count) >= 0;
    pthread_mutex_unlock(&s->lock);
    return found;
}

void subs_each_subscriber(struct subs *s, const char *uri, subs_owner_fn fn, void *ctx)
{
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->nsubs; i++) {
        if (!s->subs[i].hidden && strcmp(s->subs[i].uri, uri) == 0)
            fn(ctx, s->subs[i].owner);
    }
    pthread_mutex_unlock(&s->lock);
}

/* Add uri to the list unless this pass listed it already or keep refuses it. Lock held. */
static void subs_collect(struct subs *s, char **uris, size_t *n, const char *uri,
                         int (*keep)(void *ctx, const char *uri), void *ctx)
{
    struct subs_uri **link = subs_link(s, uri);
    struct subs_uri *e = link ? *link : NULL;

    if (e == NULL || e->mark == s->pass)
        return;
    e->mark = s->pass;
    if (keep(ctx, uri) && (uris[*n] = strdup(uri)) != NULL)
        (*n)++;
}

/* A new pass of subs_followed: no entry carries its mark yet. Lock held. */
static void subs_new_pass(struct subs *s)
{
    if (++s->pass != 0)
        return;
    for (size_t i = 0; i < s->nbuckets; i++) {
        for (struct subs_uri *e = s->followed[i]; e != NULL; e = e->next)
            e->mark = 0;
    }
    s->pass = 1;
}

char **subs_followed(struct subs *s, int (*keep)(void *ctx, const char *uri), void *ctx, size_t *n)
{
    char **uris;

    *n = 0;
    pthread_mutex_lock(&s->lock);
    subs_new_pass(s);
    /* Each URI once, in the order followed: the session's, then each listener's. */
    uris = calloc(s->nfollowed + 1, sizeof(*uris));
    for (size_t i = 0; uris != NULL && i < s->nsubs; i++)
        subs_collect(s, uris, n, s->subs[i].uri, keep, ctx);
    for (size_t i = 0; uris != NULL && i < s->nlisteners; i++) {
        for (size_t k = 0; k < s->listeners[i].nuris; k++)
            subs_collect(s, uris, n, s->listeners[i].uris[k], keep, ctx);
    }
    pthread_mutex_unlock(&s->lock);
    return uris;
}

/* The owner's listener with this id, or -1. Lock held. */
static long subs_find_listener(const struct subs *s, const void *owner, const cJSON *id)
{
    for (size_t i = 0; i < s->nlisteners; i++) {
        if (s->listeners[i].owner == owner && cJSON_Compare(s->listeners[i].id, id, 1))
            return (long)i;
    }
    return -1;
}

/* Follow each URI of l; on failure, none of them (and nothing is told). Lock held. */
static int subs_follow_all(struct subs *s, const struct listener *l, struct subs_uri **changes)
{
    for (size_t k = 0; k < l->nuris; k++) {
        if (subs_follow(s, l->uris[k], changes) == STATUS_OK)
            continue;
        while (k-- > 0)
            subs_unfollow(s, l->uris[k], changes);
        subs_free_list(*changes);
        *changes = NULL;
        return STATUS_NOMEM;
    }
    return STATUS_OK;
}

int subs_listen(struct subs *s, struct listener *l, subs_listener_fn added, void *ctx)
{
    struct subs_uri *changes = NULL;
    struct listener *grown;
    int status = STATUS_OK;

    pthread_mutex_lock(&s->lock);
    if (subs_find_listener(s, l->owner, l->id) >= 0) {
        status = STATUS_EXISTS;
    } else if (s->nlisteners >= LIMIT_LISTENERS) {
        status = STATUS_LIMIT;
    } else if ((grown = realloc(s->listeners, (s->nlisteners + 1) * sizeof(*grown))) == NULL) {
        status = STATUS_NOMEM;
    } else {
        s->listeners = grown;
        status = subs_follow_all(s, l, &changes);
    }
    if (status == STATUS_OK) {
        s->listeners[s->nlisteners] = *l;
        added(ctx, &s->listeners[s->nlisteners++]);
    }
    pthread_mutex_unlock(&s->lock);
    subs_tell(s, changes);
    return status;
}

/* Unfollow the URIs of listener `at` and remove it. Lock held. */
static void subs_remove_listener(struct subs *s, size_t at, struct subs_uri **changes)
{
    for (size_t k = 0; k < s->listeners[at].nuris; k++)
        subs_unfollow(s, s->listeners[at].uris[k], changes);
    subs_listener_release(&s->listeners[at]);
    s->listeners[at] = s->listeners[--s->nlisteners];
}

int subs_unlisten(struct subs *s, const void *owner, const cJSON *id)
{
    struct subs_uri *changes = NULL;
    long at;

    pthread_mutex_lock(&s->lock);
    at = subs_find_listener(s, owner, id);
    if (at >= 0)
        subs_remove_listener(s, (size_t)at, &changes);
    pthread_mutex_unlock(&s->lock);
    subs_tell(s, changes);
    return at >= 0;
}

size_t subs_unlisten_owner(struct subs *s, const void *owner)
{
    struct subs_uri *changes = NULL;
    size_t n = 0;

    pthread_mutex_lock(&s->lock);
    for (size_t i = s->nlisteners; i-- > 0;) {
        if (s->listeners[i].owner != owner)
            continue;
        subs_remove_listener(s, i, &changes);
        n++;
    }
    pthread_mutex_unlock(&s->lock);
    subs_tell(s, changes);
    return n;
}

int subs_listening(struct subs *s, const void *owner)
{
    int found = 0;

    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->nlisteners && !found; i++)
        found = s->listeners[i].owner == owner;
    pthread_mutex_unlock(&s->lock);
    return found;
}

void subs_each_listener(struct subs *s, subs_listener_fn fn, void *ctx)
{
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->nlisteners; i++)
        fn(ctx, &s->listeners[i]);
    pthread_mutex_unlock(&s->lock);
}

void subs_hide(struct subs *s, subs_hides_fn hides, void *ctx)
{
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->nsubs; i++)
        s->subs[i].hidden = hides(ctx, s->subs[i].owner, s->subs[i].uri) != 0;
    for (size_t i = 0; i < s->nlisteners; i++) {
        struct listener *l = &s->listeners[i];

        for (size_t k = 0; l->hidden != NULL && k < l->nuris; k++)
            l->hidden[k] = hides(ctx, l->owner, l->uris[k]) != 0;
    }
    pthread_mutex_unlock(&s->lock);
}

void subs_close_listeners(struct subs *s, subs_listener_fn fn, void *ctx)
{
    struct subs_uri *changes = NULL;

    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->nlisteners; i++)
        fn(ctx, &s->listeners[i]);
    while (s->nlisteners > 0)
        subs_remove_listener(s, s->nlisteners - 1, &changes);
    free(s->listeners);
    s->listeners = NULL;
    pthread_mutex_unlock(&s->lock);
    subs_tell(s, changes);
}
