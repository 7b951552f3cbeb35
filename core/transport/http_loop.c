/*
 * http_loop.c: who runs libmicrohttpd. The daemon has no thread of its own: the pool's
 * reader role runs it (work.h), as it reads stdin when mcph serves stdio. So a request is read,
 * dispatched and its call run by one thread, and its answer is written by that thread too:
 *
 *   read      wait until the daemon's epoll descriptor is ready (or its next time-out)
 *   dispatch  run the daemon: requests whole are dispatched; their calls are queued, not run
 *   (pool)    the reader runs the calls it queued, one after another
 *   flush     run the daemon again: the answers the calls wrote go out
 *
 * A call still running after the pool's tick loses the role to the watcher, which runs the
 * daemon on (ping, other connections, cancellations); the connection of the slow call is
 * suspended when the daemon next looks at it, and resumed by its answer. A POST is not
 * suspended on its first look, right after dispatch: its call usually answers before the
 * flush looks again, and a suspend and resume would cost four system calls.
 *
 * Only one thread runs the daemon at a time (run_lock): the reader, a thread that lost the
 * role and flushes its own answer, and, from http_quiesce on, the pump, which keeps the
 * daemon running while the pool stops (calls still finishing are answered) until http_stop.
 */
#include "transport/http_int.h"

#include "lib/limits.h"
#include "lib/log.h"
#include "lib/work.h"
#include "served/server.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

/* Run the daemon once: what is ready is read, dispatched and written. */
static void http_run_daemon(struct http *h)
{
    pthread_mutex_lock(&h->run_lock);
    atomic_store(&h->pushed, 0);
    h->lib.run(h->daemon);
    pthread_mutex_unlock(&h->run_lock);
}

void http_kick(const struct http *h)
{
    uint64_t one = 1;

    /* Nonblocking: a counter already past zero wakes the waiter all the same. */
    if (write(h->wake_fd, &one, sizeof(one)) < 0) {
    }
}

/* Wait for the daemon to have work: its epoll descriptor ready, a connection resumed
 * (http_kick: libmicrohttpd's epoll set has no wake-up of its own when it runs no thread), or
 * its next time-out; at most max_ms (<0: no bound). Returns 1, or -1 when interrupted by a
 * signal. */
static int http_wait(struct http *h, int max_ms)
{
    struct pollfd p[2] = {{.fd = h->epoll_fd, .events = POLLIN},
                          {.fd = h->wake_fd, .events = POLLIN}};
    MHD_UNSIGNED_LONG_LONG next;
    uint64_t n;
    int ms = max_ms;

    pthread_mutex_lock(&h->run_lock);
    if (h->lib.get_timeout(h->daemon, &next) == MHD_YES && (ms < 0 || next < (unsigned)ms))
        ms = (int)next;
    pthread_mutex_unlock(&h->run_lock);
    /* The daemon has work now: it looks at its descriptors itself. A kick left unread keeps
     * wake_fd ready, so the next wait that sleeps does not. */
    if (ms == 0)
        return 1;
    if (poll(p, 2, ms) < 0) {
        if (errno == EINTR)
            return -1;
        /* Out of memory for the wait: not a loop that spins meanwhile. */
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    if (p[1].revents & POLLIN) {
        if (read(h->wake_fd, &n, sizeof(n)) < 0) {
            /* another waiter took it: the daemon runs next all the same */
        }
    }
    return 1;
}

static int http_src_read(void *ctx)
{
    return http_wait(ctx, -1);
}

static void http_src_dispatch(void *ctx)
{
    http_run_daemon(ctx);
}

/* The answers written go out. A thread that lost the reader role while another runs the
 * daemon leaves it to that one: its answer resumed the connection, which wakes it. A thread
 * that is not the reader and ran the daemon may have taken the events the reader waits for
 * and left work for the next run (a request dispatched, a response queued and not yet
 * written): the reader is woken for it. */
static void http_src_flush(void *ctx)
{
    struct http *h = ctx;
    MHD_UNSIGNED_LONG_LONG next;
    int more;

    /* Nothing was written since the daemon last ran: it has nothing more to send. */
    if (!atomic_exchange(&h->pushed, 0))
        return;
    if (pthread_mutex_trylock(&h->run_lock) != 0) {
        atomic_store(&h->pushed, 1);
        return;
    }
    h->lib.run(h->daemon);
    more = h->lib.get_timeout(h->daemon, &next) == MHD_YES && next == 0;
    pthread_mutex_unlock(&h->run_lock);
    if (more && !work_reading(&h->srv->work))
        http_kick(h);
}

void http_source(struct http *h, struct work_source *src)
{
    *src = (struct work_source){
        .ctx = h,
        .dispatch = http_src_dispatch,
        .read = http_src_read,
        .flush = http_src_flush,
    };
}

static void *http_pump_main(void *arg)
{
    struct http *h = arg;

    while (atomic_load(&h->pumping))
        http_pump_for(h, LIMIT_HTTP_PUMP_MS);
    return NULL;
}

void http_pump_start(struct http *h)
{
    if (h->pump_started)
        return;
    atomic_store(&h->pumping, 1);
    h->pump_started = pthread_create(&h->pump, NULL, http_pump_main, h) == 0;
    if (!h->pump_started)
        log_msg(&h->srv->log, LOG_WARNING, NULL,
                "http: cannot start a thread to serve while shutting down: answers of calls "
                "still running are sent at the end");
}

void http_pump_stop(struct http *h)
{
    if (!h->pump_started)
        return;
    atomic_store(&h->pumping, 0);
    pthread_join(h->pump, NULL);
    h->pump_started = 0;
}

void http_pump_for(struct http *h, int ms)
{
    http_wait(h, ms);
    http_run_daemon(h);
}
