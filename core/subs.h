/*
 * subs.h: who follows what. The legacy session's resource subscriptions
 * (resources/subscribe) and the open 2026-07-28 listen requests (subscriptions/listen), with
 * the one lock that guards both. The protocol's side (what is answered and notified) stays in
 * dispatch.c and modern.c; this module owns the tables. Any thread.
 */
#ifndef MCPH_SUBS_H
#define MCPH_SUBS_H

#include <cJSON.h>
#include <pthread.h>
#include <stddef.h>

/* An open subscriptions/listen request: which notifications it asked for. */
struct listener {
    cJSON *id;      /* owned: the listen request's id, echoed as subscriptionId */
    unsigned lists; /* enum registry_list bits it asked for */
    char **uris;    /* owned: resourceSubscriptions */
    size_t nuris;
};

struct subs {
    pthread_mutex_t lock; /* guards everything below */
    char **uris;          /* owned: URIs the legacy session subscribed to */
    size_t nuris;
    struct listener *listeners; /* owned: open listen requests */
    size_t nlisteners;
};

/* Called with the lock held, for one listener; must not call back into subs. */
typedef void (*subs_listener_fn)(void *ctx, const struct listener *l);

void subs_init(struct subs *s);
/* Free every subscription and listener (closing nothing: see subs_close_listeners). */
void subs_release(struct subs *s);

/* The legacy session subscribes to uri. Returns STATUS_OK (also when it was subscribed
 * already), STATUS_LIMIT past LIMIT_SUBSCRIPTIONS, or STATUS_NOMEM. */
int subs_subscribe(struct subs *s, const char *uri);
void subs_unsubscribe(struct subs *s, const char *uri);
/* The session's subscriptions all end (a fresh session). */
void subs_unsubscribe_all(struct subs *s);
/* Whether the legacy session follows uri. */
int subs_subscribed(struct subs *s, const char *uri);

/* Every URI anyone follows (the session's and each listener's), once each, for which
 * keep(ctx, uri) says 1: an owned array of owned strings, *n of them (NULL when none or out of
 * memory). keep runs with the lock held. */
char **subs_followed(struct subs *s, int (*keep)(void *ctx, const char *uri), void *ctx, size_t *n);

/* Add l (its members then belong to the table) and call added(ctx, stored copy) before any
 * other thread can see it. Returns STATUS_OK, STATUS_EXISTS when a listener has l's id,
 * STATUS_LIMIT past LIMIT_LISTENERS, or STATUS_NOMEM; l is then still the caller's. */
int subs_listen(struct subs *s, struct listener *l, subs_listener_fn added, void *ctx);
/* Remove the listener with this id; returns whether there was one. */
int subs_unlisten(struct subs *s, const cJSON *id);
/* Call fn for each listener. */
void subs_each_listener(struct subs *s, subs_listener_fn fn, void *ctx);
/* Call fn for each listener, then remove them all (end of input: each gets its final reply). */
void subs_close_listeners(struct subs *s, subs_listener_fn fn, void *ctx);

/* Free a listener's members (one that was never added, or was removed). */
void subs_listener_release(struct listener *l);

#endif
