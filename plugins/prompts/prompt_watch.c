/*
 * prompt_watch.c: the folder watcher (see prompt_watch.h).
 *
 * One thread per instance polls two descriptors: the inotify descriptor of the folder and
 * an eventfd that prompt_watch_stop() writes to. The thread touches nothing but its own
 * struct and host->log/host->refresh, which mcph lets any thread call until shutdown()
 * returns; shutdown() joins the thread before that.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_sigmask, eventfd outside the mcph tree's flags too */
#endif

#include "prompt_watch.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

/* What changes the set of prompts: a file appearing, written, removed, renamed in or out,
 * or its permissions changing; and the folder itself going away. */
#define PROMPT_WATCH_EVENTS                                                                        \
    (IN_CREATE | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB |            \
     IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

struct prompt_watch {
    const struct mcph_host *host; /* borrowed until prompt_watch_stop() returns */
    char *dir;                    /* owned: the folder, for messages */
    int inotify_fd;               /* owned */
    int stop_fd;                  /* owned: an eventfd, readable once the thread must end */
    pthread_t thread;
    char last[NAME_MAX + 1]; /* the thread's: the file of the last relevant event */
};

static int64_t prompt_watch_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 1 when a name is one the loader would read: "*.md", not hidden. */
static int prompt_watch_is_prompt(const char *name)
{
    size_t n = strlen(name);

    return name[0] != '.' && n > 3 && strcmp(name + n - 3, ".md") == 0;
}

/* 1 when the event may change the prompts. */
static int prompt_watch_relevant(struct prompt_watch *w, const struct inotify_event *ev)
{
    if (ev->mask & IN_Q_OVERFLOW) {
        strcpy(w->last, "(too many events to tell)");
        return 1;
    }
    if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)) {
        w->host->log(w->host, MCPH_LOG_WARNING,
                     "the prompt folder %s was deleted or moved; the prompts loaded stay "
                     "served. Put the folder back and send SIGHUP to load it again",
                     w->dir);
        strcpy(w->last, "(the folder)");
        return 1;
    }
    if (ev->len == 0 || !prompt_watch_is_prompt(ev->name))
        return 0;
    snprintf(w->last, sizeof(w->last), "%s", ev->name);
    return 1;
}

/* Reads every pending event; 1 when one of them is relevant. */
static int prompt_watch_drain(struct prompt_watch *w)
{
    _Alignas(struct inotify_event) char buf[4096];
    int relevant = 0;

    for (;;) {
        ssize_t n = read(w->inotify_fd, buf, sizeof(buf));

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return relevant; /* EAGAIN: drained */
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)(void *)p;

            relevant |= prompt_watch_relevant(w, ev);
            p += sizeof(*ev) + ev->len;
        }
    }
}

/* Milliseconds poll() may sleep: until the debounce ends, or for ever with nothing pending. */
static int prompt_watch_timeout(int pending, int64_t first, int64_t last)
{
    int64_t due, left;

    if (!pending)
        return -1;
    due = last + PROMPT_WATCH_QUIET_MS;
    if (due > first + PROMPT_WATCH_MAX_WAIT_MS)
        due = first + PROMPT_WATCH_MAX_WAIT_MS;
    left = due - prompt_watch_now_ms();
    return left > 0 ? (int)left : 0;
}

static void *prompt_watch_run(void *arg)
{
    struct prompt_watch *w = arg;
    int64_t first = 0, last = 0;
    int pending = 0;

    for (;;) {
        struct pollfd fds[2] = {
            {.fd = w->stop_fd, .events = POLLIN},
            {.fd = w->inotify_fd, .events = POLLIN},
        };
        int n = poll(fds, 2, prompt_watch_timeout(pending, first, last));

        if (n < 0 && errno != EINTR) {
            w->host->log(w->host, MCPH_LOG_ERROR,
                         "watching %s failed (%s); changes show up on SIGHUP only", w->dir,
                         strerror(errno));
            break;
        }
        if (n > 0 && fds[0].revents != 0)
            break;
        if (n > 0 && (fds[1].revents & POLLIN) && prompt_watch_drain(w)) {
            last = prompt_watch_now_ms();
            first = pending ? first : last;
            pending = 1;
        }
        if (pending && prompt_watch_timeout(pending, first, last) == 0) {
            pending = 0;
            w->host->log(w->host, MCPH_LOG_INFO, "%s changed in %s; reloading the prompts", w->last,
                         w->dir);
            w->host->refresh(w->host);
        }
    }
    return NULL;
}

/* Why inotify refused, and what to do about it. */
static const char *prompt_watch_advice(int err)
{
    if (err == ENOSPC)
        return "raise /proc/sys/fs/inotify/max_user_watches, or set watch = no";
    if (err == EMFILE)
        return "raise /proc/sys/fs/inotify/max_user_instances, or set watch = no";
    return "set watch = no to serve the folder without watching it";
}

/* Opens the descriptors; logs and returns a status when one cannot be had. */
static int prompt_watch_open(struct prompt_watch *w, const char *dir)
{
    w->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->inotify_fd < 0 || inotify_add_watch(w->inotify_fd, dir, PROMPT_WATCH_EVENTS) < 0) {
        int err = errno;

        w->host->log(w->host, MCPH_LOG_ERROR, "cannot watch the prompt folder %s: %s; %s", dir,
                     strerror(err), prompt_watch_advice(err));
        return MCPH_ERR;
    }
    w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (w->stop_fd < 0) {
        w->host->log(w->host, MCPH_LOG_ERROR, "cannot create an eventfd: %s", strerror(errno));
        return MCPH_ERR;
    }
    return MCPH_OK;
}

/* Starts the thread with every signal blocked: signals are the main thread's business. */
static int prompt_watch_spawn(struct prompt_watch *w)
{
    sigset_t all, old;
    int err;

    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    err = pthread_create(&w->thread, NULL, prompt_watch_run, w);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err != 0) {
        w->host->log(w->host, MCPH_LOG_ERROR, "cannot start the watch thread: %s", strerror(err));
        return MCPH_ERR;
    }
    return MCPH_OK;
}

static void prompt_watch_close(struct prompt_watch *w)
{
    if (w->inotify_fd >= 0)
        close(w->inotify_fd);
    if (w->stop_fd >= 0)
        close(w->stop_fd);
    free(w->dir);
    free(w);
}

int prompt_watch_start(struct prompt_watch **out, const struct mcph_host *host, const char *dir)
{
    struct prompt_watch *w = calloc(1, sizeof(*w));
    int rc;

    if (w == NULL)
        return MCPH_ERR_NOMEM;
    w->host = host;
    w->inotify_fd = -1;
    w->stop_fd = -1;
    w->dir = strdup(dir);
    rc = w->dir ? prompt_watch_open(w, dir) : MCPH_ERR_NOMEM;
    if (rc == MCPH_OK)
        rc = prompt_watch_spawn(w);
    if (rc != MCPH_OK) {
        prompt_watch_close(w);
        return rc;
    }
    *out = w;
    return MCPH_OK;
}

void prompt_watch_stop(struct prompt_watch *w)
{
    uint64_t one = 1;

    if (w == NULL)
        return;
    /* An eventfd write of 1 fails only if the counter would overflow, which a single
     * writer cannot make happen. */
    while (write(w->stop_fd, &one, sizeof(one)) < 0 && errno == EINTR)
        ;
    pthread_join(w->thread, NULL);
    prompt_watch_close(w);
}
