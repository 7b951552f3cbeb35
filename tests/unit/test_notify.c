/*
 * test_notify.c: whose level a log line is held to. On a thread that runs a handler (a caller
 * under srv->call_key) it is that call's: a 2026-07-28 request's own level, a legacy one's
 * session level, nothing once cancelled; on any other thread, no call's. What is sent is
 * tested through the dispatcher (test_dispatch.c, test_call.c).
 */
#include "served/notify.h"

#include "check.h"
#include "lib/log.h"

#include <pthread.h>
#include <string.h>

static void test_no_caller(void)
{
    struct server srv;
    struct peer *peer = NULL;
    int level = -1;

    memset(&srv, 0, sizeof(srv));
    if (!CHECK_INT_EQ(pthread_key_create(&srv.call_key, NULL), 0))
        return;
    CHECK_INT_EQ(notify_caller_level(&srv, &peer, &level), 0);
    CHECK(peer == NULL);
    CHECK_INT_EQ(level, -1);
    pthread_key_delete(srv.call_key);
}

static void test_caller(void)
{
    struct server srv;
    struct session session = {0};
    struct peer home = {.session = &session};
    atomic_int cancelled = 0;
    struct notify_caller c = {
        .peer = &home, .cancelled = &cancelled, .modern = 1, .log_level = LOG_WARNING};
    struct peer *peer = NULL;
    int level = -1;

    memset(&srv, 0, sizeof(srv));
    if (!CHECK_INT_EQ(pthread_key_create(&srv.call_key, NULL), 0))
        return;
    atomic_init(&session.log_level, LOG_DEBUG);
    pthread_setspecific(srv.call_key, &c);
    /* 2026-07-28: the request's own level, whatever the session asked for. */
    CHECK_INT_EQ(notify_caller_level(&srv, &peer, &level), 1);
    CHECK(peer == &home);
    CHECK_INT_EQ(level, LOG_WARNING);
    /* Legacy: the session's level, read now. */
    c.modern = 0;
    CHECK_INT_EQ(notify_caller_level(&srv, &peer, &level), 1);
    CHECK_INT_EQ(level, LOG_DEBUG);
    atomic_store(&session.log_level, LOG_ERROR);
    CHECK_INT_EQ(notify_caller_level(&srv, &peer, &level), 1);
    CHECK_INT_EQ(level, LOG_ERROR);
    /* Cancelled: nothing more for it, in either era. */
    atomic_store(&cancelled, 1);
    CHECK_INT_EQ(notify_caller_level(&srv, &peer, &level), 1);
    CHECK_INT_EQ(level, LOG_OFF);
    c.modern = 1;
    CHECK_INT_EQ(notify_caller_level(&srv, &peer, &level), 1);
    CHECK_INT_EQ(level, LOG_OFF);
    pthread_setspecific(srv.call_key, NULL);
    CHECK_INT_EQ(notify_caller_level(&srv, &peer, &level), 0);
    pthread_key_delete(srv.call_key);
}

static const struct check_test tests[] = {
    {"no_caller", test_no_caller},
    {"caller", test_caller},
    {0},
};

int main(void)
{
    return check_main("test_notify", tests);
}
