/*
 * subs.h: who follows what. The legacy sessions' resource subscriptions
 * (resources/subscribe) and the open 2026-07-28 listen requests (subscriptions/listen), with
 * the one lock that guards both. What is answered stays in dispatch.c; what is notified is
 * notify.c's; this module owns the tables. Any thread.
 *
 * It also counts the followers of each URI (the session, and each listener that lists it), so
 * it knows when a URI gains its first follower or loses its last: those changes are handed to
 * the `heard` callback after the lock is released (a plugin hearing them may be calling
 * host->resource_updated, which takes the lock, from a thread of its own), in the order they
 * happened as long as the callers that change the tables are serialized (the dispatcher does
 * that under the server's state lock).
 */
#ifndef MCPH_SUBS_H
#define MCPH_SUBS_H

#include <cJSON.h>
#include <pthread.h>
#include <stddef.h>

/* An open subscriptions/listen request: which notifications it asked for. */
struct listener {
    const void *owner; /* whose it is (the peer it came from; its id is unique per owner) */
    cJSON *id;         /* owned: the listen request's id, echoed as subscriptionId */
    unsigned lists;    /* enum registry_list bits it asked for */
    char **uris;       /* owned: resourceSubscriptions */
    size_t nuris;
    /* owned, nuris flags made with uris (NULL: none hidden): 1 when the owner does not see
     * uris[k] (served/access.h), so nothing is told of it; set anew by subs_hide */
    unsigned char *hidden;
};

/* A URI that gained its first follower (on 1) or lost its last (on 0). Called without the
 * lock, on the thread that made the change; uri is borrowed for the call. */
typedef void (*subs_heard_fn)(void *ctx, const char *uri, int on);

struct subs_uri;

/* A legacy session's subscription to a resource. */
struct subs_sub {
    const void *owner; /* whose it is: the session's peer */
    char *uri;         /* owned */
    int hidden;        /* 1: the owner no longer sees uri (subs_hide); nothing is told of it */
};

struct subs {
    pthread_mutex_t lock;  /* guards everything below but heard */
    struct subs_sub *subs; /* owned: what legacy sessions subscribed to */
    size_t nsubs;
    struct listener *listeners; /* owned: open listen requests */
    size_t nlisteners;
    struct subs_uri **followed; /* owned hash table: each URI followed and its followers */
    size_t nbuckets, nfollowed;
    unsigned pass;       /* subs_followed: marks the URIs listed by the current pass */
    subs_heard_fn heard; /* or NULL; set before any thread uses the tables */
    void *heard_ctx;
};

/* Called with the lock held, for one listener; must not call back into subs. */
typedef void (*subs_listener_fn)(void *ctx, const struct listener *l);

/* Called with the lock held, for one owner of a subscription; must not call back into subs. */
typedef void (*subs_owner_fn)(void *ctx, const void *owner);

void subs_init(struct subs *s);
/* Where first and last followers are told (NULL: nowhere). Before any other call but init. */
void subs_set_heard(struct subs *s, subs_heard_fn heard, void *ctx);
/* Free every subscription and listener (closing nothing: see subs_close_listeners). */
void subs_release(struct subs *s);

/* A legacy session (owner) subscribes to uri. Returns STATUS_OK (also when it was subscribed
 * already), STATUS_LIMIT past LIMIT_SUBSCRIPTIONS of its own, or STATUS_NOMEM. heard(uri, 1)
 * when it is the first to follow it. */
int subs_subscribe(struct subs *s, const void *owner, const char *uri);
/* heard(uri, 0) when the owner was the last to follow it. */
void subs_unsubscribe(struct subs *s, const void *owner, const char *uri);
/* The owner's subscriptions all end (its session ended); heard(uri, 0) for each URI nobody
 * follows any more. */
void subs_unsubscribe_all(struct subs *s, const void *owner);
/* Whether the owner follows uri. */
int subs_subscribed(struct subs *s, const void *owner, const char *uri);
/* Call fn for each owner subscribed to uri that does not have it hidden. */
void subs_each_subscriber(struct subs *s, const char *uri, subs_owner_fn fn, void *ctx);

/* Every URI anyone follows (the session's and each listener's), once each, for which
 * keep(ctx, uri) says 1: an owned array of owned strings, *n of them (NULL when none or out of
 * memory). keep runs with the lock held. */
char **subs_followed(struct subs *s, int (*keep)(void *ctx, const char *uri), void *ctx, size_t *n);

/* Add l (its members then belong to the table) and call added(ctx, stored copy) before any
 * other thread can see it; then heard(uri, 1) for each of its URIs nobody followed before.
 * Returns STATUS_OK, STATUS_EXISTS when a listener of l's owner has l's id, STATUS_LIMIT past
 * LIMIT_LISTENERS, or STATUS_NOMEM; l is then still the caller's. */
int subs_listen(struct subs *s, struct listener *l, subs_listener_fn added, void *ctx);
/* Remove the owner's listener with this id; returns whether there was one. heard(uri, 0) for each
 * of its URIs nobody follows any more. */
int subs_unlisten(struct subs *s, const void *owner, const cJSON *id);
/* Remove every listener of owner (its stream closed); returns how many there were. heard(uri,
 * 0) for each of their URIs nobody follows any more. */
size_t subs_unlisten_owner(struct subs *s, const void *owner);
/* Whether owner has a listener open. */
int subs_listening(struct subs *s, const void *owner);
/* Call fn for each listener. */
void subs_each_listener(struct subs *s, subs_listener_fn fn, void *ctx);
/* Call fn for each listener, then remove them all (end of input: each gets its final reply);
 * heard(uri, 0) for each URI nobody follows any more. */
void subs_close_listeners(struct subs *s, subs_listener_fn fn, void *ctx);

/* Whether owner (a subscription's or a listener's) no longer sees uri; runs with the lock
 * held and must not call back into subs. */
typedef int (*subs_hides_fn)(void *ctx, const void *owner, const char *uri);

/* Mark anew each subscription, and each URI of a listener that has hidden flags, hidden or
 * not as hides says: what the owners see changed (a reload). Followers are not counted
 * again: a hidden URI is still followed, it is only not told. */
void subs_hide(struct subs *s, subs_hides_fn hides, void *ctx);

/* Free a listener's members (one that was never added, or was removed). */
void subs_listener_release(struct listener *l);

#endif
