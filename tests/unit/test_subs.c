/* test_subs.c: who follows what: the session's subscriptions (no duplicates, the limit),
 * listeners (added and acknowledged under the lock, one per id, the limit), the URIs anyone
 * follows once each, and closing every listener; each URI's first and last followers told to
 * heard, in order, without the lock (1.3); what an owner no longer sees marked hidden and told
 * to nobody, still followed. */
#include "served/subs.h"

#include "check.h"
#include "lib/limits.h"
#include "lib/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_subscribe(void)
{
    struct subs s;

    subs_init(&s);
    CHECK_INT_EQ(subs_subscribed(&s, NULL, "file:///a"), 0);
    CHECK_INT_EQ(subs_subscribe(&s, NULL, "file:///a"), STATUS_OK);
    CHECK_INT_EQ(subs_subscribe(&s, NULL, "file:///a"), STATUS_OK);
    CHECK_INT_EQ(subs_subscribe(&s, NULL, "file:///b"), STATUS_OK);
    CHECK_INT_EQ(s.nsubs, 2);
    CHECK_INT_EQ(subs_subscribed(&s, NULL, "file:///a"), 1);
    subs_unsubscribe(&s, NULL, "file:///a");
    subs_unsubscribe(&s, NULL, "file:///never");
    CHECK_INT_EQ(subs_subscribed(&s, NULL, "file:///a"), 0);
    CHECK_INT_EQ(subs_subscribed(&s, NULL, "file:///b"), 1);
    CHECK_INT_EQ(s.nsubs, 1);
    subs_unsubscribe_all(&s, NULL);
    CHECK_INT_EQ(subs_subscribed(&s, NULL, "file:///b"), 0);
    CHECK_INT_EQ(s.nsubs, 0);
    CHECK_INT_EQ(subs_subscribe(&s, NULL, "file:///b"), STATUS_OK);
    subs_release(&s);
}

static void test_subscribe_limit(void)
{
    struct subs s;
    char uri[64];
    int ok = 1;

    subs_init(&s);
    for (int i = 0; i < LIMIT_SUBSCRIPTIONS; i++) {
        snprintf(uri, sizeof(uri), "mem://%d", i);
        ok &= subs_subscribe(&s, NULL, uri) == STATUS_OK;
    }
    CHECK(ok);
    CHECK_INT_EQ(subs_subscribe(&s, NULL, "mem://one-more"), STATUS_LIMIT);
    /* One held already is still fine at the limit. */
    CHECK_INT_EQ(subs_subscribe(&s, NULL, "mem://7"), STATUS_OK);
    subs_unsubscribe(&s, NULL, "mem://7");
    CHECK_INT_EQ(subs_subscribe(&s, NULL, "mem://one-more"), STATUS_OK);
    subs_release(&s);
}

/* A listener for id with these URIs (owned by the caller until added). */
static struct listener test_listener(int id, const char *const *uris, size_t n)
{
    struct listener l = {.id = cJSON_CreateNumber(id), .lists = 1u};

    l.uris = calloc(n + 1, sizeof(*l.uris));
    for (size_t i = 0; l.uris != NULL && i < n; i++)
        l.uris[l.nuris++] = strdup(uris[i]);
    return l;
}

struct seen {
    int calls;
    int ids[8];
};

static void test_saw(void *ctx, const struct listener *l)
{
    struct seen *seen = ctx;

    if (seen->calls < 8)
        seen->ids[seen->calls] = (int)cJSON_GetNumberValue(l->id);
    seen->calls++;
}

static void test_listen(void)
{
    static const char *const a[] = {"file:///a", "file:///b"};
    struct subs s;
    struct seen seen = {0};
    struct listener l1 = test_listener(1, a, 2), dup = test_listener(1, NULL, 0);

    subs_init(&s);
    CHECK_INT_EQ(subs_listen(&s, &l1, test_saw, &seen), STATUS_OK);
    CHECK_INT_EQ(seen.calls, 1);
    CHECK_INT_EQ(seen.ids[0], 1);
    /* A second listener with the same id is refused and stays the caller's. */
    CHECK_INT_EQ(subs_listen(&s, &dup, test_saw, &seen), STATUS_EXISTS);
    CHECK_INT_EQ(seen.calls, 1);
    subs_listener_release(&dup);
    CHECK_INT_EQ(s.nlisteners, 1);

    seen.calls = 0;
    subs_each_listener(&s, test_saw, &seen);
    CHECK_INT_EQ(seen.calls, 1);

    dup.id = cJSON_CreateNumber(1);
    CHECK_INT_EQ(subs_unlisten(&s, NULL, dup.id), 1);
    CHECK_INT_EQ(subs_unlisten(&s, NULL, dup.id), 0);
    cJSON_Delete(dup.id);
    CHECK_INT_EQ(s.nlisteners, 0);
    subs_release(&s);
}

static void test_listen_limit(void)
{
    struct subs s;
    struct seen seen = {0};
    int ok = 1;

    subs_init(&s);
    for (int i = 0; i < LIMIT_LISTENERS; i++) {
        struct listener l = test_listener(i, NULL, 0);

        ok &= subs_listen(&s, &l, test_saw, &seen) == STATUS_OK;
    }
    CHECK(ok);
    {
        struct listener more = test_listener(-1, NULL, 0);

        CHECK_INT_EQ(subs_listen(&s, &more, test_saw, &seen), STATUS_LIMIT);
        subs_listener_release(&more);
    }
    CHECK_INT_EQ(seen.calls, LIMIT_LISTENERS);
    subs_release(&s);
}

static int test_keep_not_c(void *ctx, const char *uri)
{
    (*(int *)ctx)++;
    return strcmp(uri, "file:///c") != 0;
}

static void test_followed(void)
{
    static const char *const l1uris[] = {"file:///b", "file:///c"};
    static const char *const l2uris[] = {"file:///a", "file:///d"};
    struct subs s;
    struct seen seen = {0};
    struct listener l1 = test_listener(1, l1uris, 2), l2 = test_listener(2, l2uris, 2);
    int asked = 0;
    size_t n = 0;
    char **uris;
    char joined[128] = "";

    subs_init(&s);
    CHECK_INT_EQ(subs_subscribe(&s, NULL, "file:///a"), STATUS_OK);
    CHECK_INT_EQ(subs_subscribe(&s, NULL, "file:///b"), STATUS_OK);
    CHECK_INT_EQ(subs_listen(&s, &l1, test_saw, &seen), STATUS_OK);
    CHECK_INT_EQ(subs_listen(&s, &l2, test_saw, &seen), STATUS_OK);
    uris = subs_followed(&s, test_keep_not_c, &asked, &n);
    /* a, b from the session, c refused, d: each once, in order of first follower. */
    for (size_t i = 0; uris != NULL && i < n; i++) {
        strcat(joined, uris[i]);
        strcat(joined, " ");
        free(uris[i]);
    }
    free(uris);
    CHECK_STR_EQ(joined, "file:///a file:///b file:///d ");
    CHECK_INT_EQ(asked, 4);
    subs_release(&s);
}

static void test_close(void)
{
    struct subs s;
    struct seen seen = {0};
    struct listener l1 = test_listener(5, NULL, 0), l2 = test_listener(6, NULL, 0);

    subs_init(&s);
    CHECK_INT_EQ(subs_listen(&s, &l1, test_saw, &seen), STATUS_OK);
    CHECK_INT_EQ(subs_listen(&s, &l2, test_saw, &seen), STATUS_OK);
    seen.calls = 0;
    subs_close_listeners(&s, test_saw, &seen);
    CHECK_INT_EQ(seen.calls, 2);
    CHECK_INT_EQ(seen.ids[0] + seen.ids[1], 11);
    CHECK_INT_EQ(s.nlisteners, 0);
    seen.calls = 0;
    subs_each_listener(&s, test_saw, &seen);
    CHECK_INT_EQ(seen.calls, 0);
    subs_release(&s);
}

/* What heard was told, "+URI" and "-URI" in order, and whether the lock was free each time. */
struct heard {
    struct subs *s;
    char log[512];
    int locked; /* a call found the lock held */
};

static void test_heard_fn(void *ctx, const char *uri, int on)
{
    struct heard *h = ctx;
    size_t len = strlen(h->log);

    if (pthread_mutex_trylock(&h->s->lock) != 0)
        h->locked = 1;
    else
        pthread_mutex_unlock(&h->s->lock);
    snprintf(h->log + len, sizeof(h->log) - len, "%s%c%s", len ? " " : "", on ? '+' : '-', uri);
}

/* heard hears a URI's first follower and its last, whoever they are (the session, each listener
 * as often as it lists the URI), in order, with the lock released. */
static void test_heard(void)
{
    static const char *const l1uris[] = {"a", "c", "c"};
    static const char *const l2uris[] = {"b", "d"};
    static const char *const l3uris[] = {"d"};
    struct subs s;
    struct heard h = {.s = &s};
    struct seen seen = {0};
    struct listener l1 = test_listener(1, l1uris, 3), l2 = test_listener(2, l2uris, 2),
                    l3 = test_listener(3, l3uris, 1);
    cJSON *id = cJSON_CreateNumber(1);

    subs_init(&s);
    subs_set_heard(&s, test_heard_fn, &h);
    CHECK_INT_EQ(subs_subscribe(&s, NULL, "a"), STATUS_OK);
    CHECK_INT_EQ(subs_subscribe(&s, NULL, "a"), STATUS_OK);
    CHECK_INT_EQ(subs_subscribe(&s, NULL, "b"), STATUS_OK);
    CHECK_INT_EQ(subs_listen(&s, &l1, test_saw, &seen), STATUS_OK);
    CHECK_STR_EQ(h.log, "+a +b +c");
    /* a is still the listener's; then the listener goes: a and c lose their last. */
    subs_unsubscribe(&s, NULL, "a");
    CHECK_INT_EQ(subs_unlisten(&s, NULL, id), 1);
    CHECK_STR_EQ(h.log, "+a +b +c -a -c");
    CHECK_INT_EQ(subs_listen(&s, &l2, test_saw, &seen), STATUS_OK);
    CHECK_INT_EQ(subs_listen(&s, &l3, test_saw, &seen), STATUS_OK);
    /* The session ends: b is still a listener's. Then every listener closes. */
    subs_unsubscribe_all(&s, NULL);
    subs_close_listeners(&s, test_saw, &seen);
    CHECK_STR_EQ(h.log, "+a +b +c -a -c +d -b -d");
    CHECK_INT_EQ(h.locked, 0);
    CHECK_INT_EQ(s.nfollowed, 0);
    cJSON_Delete(id);
    subs_release(&s);
}

/* Many URIs and listeners: the table grows, and what is followed is listed once each. */
static void test_many_followed(void)
{
    struct subs s;
    struct seen seen = {0};
    char uri[32], *uris[300];
    size_t n = 0;
    char **followed;
    int asked = 0;

    subs_init(&s);
    for (int i = 0; i < 300; i++) {
        snprintf(uri, sizeof(uri), "mem://%d", i);
        uris[i] = strdup(uri);
        CHECK_INT_EQ(subs_subscribe(&s, NULL, uri), STATUS_OK);
    }
    for (int k = 0; k < 3; k++) {
        struct listener l = test_listener(k, (const char *const *)uris, 300);

        CHECK_INT_EQ(subs_listen(&s, &l, test_saw, &seen), STATUS_OK);
    }
    CHECK_INT_EQ(s.nfollowed, 300);
    CHECK(s.nbuckets >= 300);
    followed = subs_followed(&s, test_keep_not_c, &asked, &n);
    CHECK_INT_EQ(n, 300);
    CHECK_INT_EQ(asked, 300);
    for (size_t i = 0; followed != NULL && i < n; i++)
        free(followed[i]);
    free(followed);
    for (int i = 0; i < 300; i++)
        free(uris[i]);
    subs_release(&s);
}

static void test_count_owner(void *ctx, const void *owner)
{
    int *seen = ctx;

    seen[owner == (const void *)&seen[0] ? 0 : 1]++;
}

/* Two sessions (owners) side by side: their subscriptions, their limits and their listener
 * ids are their own; a URI both follow is heard once, and told to both. */
static void test_owners(void)
{
    struct subs s;
    int a = 0, b = 0, seen[2] = {0, 0};
    struct seen told = {0};
    const char *const u[] = {"file:///x"};
    struct listener la = test_listener(9, u, 1), lb = test_listener(9, NULL, 0);
    char uri[64];
    int ok = 1;

    subs_init(&s);
    la.owner = &a;
    lb.owner = &b;
    CHECK_INT_EQ(subs_subscribe(&s, &seen[0], "file:///x"), STATUS_OK);
    CHECK_INT_EQ(subs_subscribe(&s, &seen[1], "file:///x"), STATUS_OK);
    CHECK_INT_EQ(s.nfollowed, 1);
    subs_each_subscriber(&s, "file:///x", test_count_owner, seen);
    CHECK_INT_EQ(seen[0], 1);
    CHECK_INT_EQ(seen[1], 1);
    subs_unsubscribe_all(&s, &seen[0]);
    CHECK_INT_EQ(subs_subscribed(&s, &seen[0], "file:///x"), 0);
    CHECK_INT_EQ(subs_subscribed(&s, &seen[1], "file:///x"), 1);
    /* One owner at its limit does not hold the other back. */
    for (int i = 0; i < LIMIT_SUBSCRIPTIONS; i++) {
        snprintf(uri, sizeof(uri), "mem://%d", i);
        ok &= subs_subscribe(&s, &seen[0], uri) == STATUS_OK;
    }
    CHECK(ok);
    CHECK_INT_EQ(subs_subscribe(&s, &seen[0], "mem://more"), STATUS_LIMIT);
    CHECK_INT_EQ(subs_subscribe(&s, &seen[1], "mem://more"), STATUS_OK);
    /* The same listener id under two owners: two listeners, removed one by one. */
    CHECK_INT_EQ(subs_listen(&s, &la, test_saw, &told), STATUS_OK);
    CHECK_INT_EQ(subs_listen(&s, &lb, test_saw, &told), STATUS_OK);
    CHECK_INT_EQ(told.calls, 2);
    CHECK_INT_EQ(s.nlisteners, 2);
    CHECK_INT_EQ(subs_unlisten(&s, &b, la.id), 1);
    CHECK_INT_EQ(subs_unlisten(&s, &b, la.id), 0);
    CHECK_INT_EQ(s.nlisteners, 1);
    CHECK(s.listeners[0].owner == &a);
    subs_release(&s);
}

/* subs_hide's judge: owner `hider` does not see file:///a. */
static int test_hides(void *ctx, const void *owner, const char *uri)
{
    return owner == ctx && strcmp(uri, "file:///a") == 0;
}

/* Count the owners told. */
static void test_count_told(void *ctx, const void *owner)
{
    (void)owner;
    ++*(int *)ctx;
}

static void test_hide(void)
{
    static const char *const uris[] = {"file:///a", "file:///b"};
    struct subs s;
    struct seen seen = {0};
    int a = 0, b = 0, told = 0;
    struct listener l = test_listener(1, uris, 2);
    size_t n;
    char **followed;

    l.owner = &a;
    l.hidden = calloc(2, sizeof(*l.hidden));
    subs_init(&s);
    CHECK_INT_EQ(subs_subscribe(&s, &a, "file:///a"), STATUS_OK);
    CHECK_INT_EQ(subs_subscribe(&s, &b, "file:///a"), STATUS_OK);
    CHECK_INT_EQ(subs_listen(&s, &l, test_saw, &seen), STATUS_OK);
    subs_hide(&s, test_hides, &a);
    subs_each_subscriber(&s, "file:///a", test_count_told, &told);
    CHECK_INT_EQ(told, 1);
    CHECK(s.listeners[0].hidden != NULL && s.listeners[0].hidden[0] == 1);
    CHECK(s.listeners[0].hidden != NULL && s.listeners[0].hidden[1] == 0);
    /* Still followed: the instance is not told the URI lost its followers. */
    followed = subs_followed(&s, test_keep_not_c, &told, &n);
    CHECK_INT_EQ(n, 2);
    for (size_t i = 0; i < n; i++)
        free(followed[i]);
    free(followed);
    told = 0;
    /* A view that widens again tells it again. */
    subs_hide(&s, test_hides, NULL);
    subs_each_subscriber(&s, "file:///a", test_count_told, &told);
    CHECK_INT_EQ(told, 2);
    CHECK_INT_EQ(s.listeners[0].hidden[0], 0);
    subs_release(&s);
}

static const struct check_test tests[] = {
    {"owners", test_owners},
    {"subscribe", test_subscribe},
    {"subscribe_limit", test_subscribe_limit},
    {"listen", test_listen},
    {"listen_limit", test_listen_limit},
    {"followed", test_followed},
    {"close", test_close},
    {"heard", test_heard},
    {"many_followed", test_many_followed},
    {"hide", test_hide},
    {0},
};

int main(void)
{
    return check_main("test_subs", tests);
}
