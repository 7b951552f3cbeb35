/*
 * watch.c: the watcher. One thread of the instance's own reads inotify events for the
 * folders under the root and, once a burst of changes has been quiet for FILES_DEBOUNCE_MS
 * (or has lasted FILES_DEBOUNCE_MAX_MS), tells mcph: resources/updated for each file that
 * changed, and a refresh when files or folders appeared, went away or were renamed (the
 * resource list is then built again by a new instance). shutdown() wakes the thread through
 * an eventfd and joins it: nothing is left running.
 *
 * Folders are watched through a descriptor opened beneath the root (/proc/self/fd/N), so a
 * watch can never land outside the root, whatever is renamed meanwhile. Without /proc there
 * is no such way (inotify takes only a path, and a path can be swapped for a link out of the
 * root at any of its names), so nothing is watched then, and the log says so. At most
 * max_watches folders are watched; changes deeper in a larger tree are not seen (logged).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "files.h"

#define FILES_WATCH_MASK                                                                           \
    (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | IN_CLOSE_WRITE |            \
     IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_EXCL_UNLINK)
/* Events that change which files exist. */
#define FILES_WATCH_TREE (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
/* Events that change a file's contents (or replace it). */
#define FILES_WATCH_FILE (FILES_WATCH_TREE | IN_MODIFY | IN_CLOSE_WRITE)
/* Bytes of events read at once, and reads before looking for a stop again. */
#define FILES_WATCH_BUF 65536
#define FILES_WATCH_READS 16

struct files_watch_dir {
    int wd;
    char *rel; /* owned: the folder's path from the root ("" for the root) */
};

struct files_watch {
    const struct files *fs; /* borrowed: read-only fields only */
    int ifd;                /* inotify */
    int wake;               /* eventfd written by files_watch_stop */
    pthread_t thread;
    int started;
    /* Set up on the main thread before the thread starts; the thread's alone afterwards. */
    struct files_watch_dir *dirs;
    size_t ndirs;
    size_t cap;
    int full_logged;
    int no_proc; /* /proc/self/fd is missing: nothing can be watched safely */
    /* The thread's: the burst being gathered. */
    char **pending; /* owned URIs */
    size_t npending;
    int tree_changed;
    int64_t first_ms, last_ms; /* 0: no burst */
};

static int64_t files_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --- Setting up the watches (main thread). --- */

static int files_watch_known(const struct files_watch *w, int wd)
{
    for (size_t i = 0; i < w->ndirs; i++) {
        if (w->dirs[i].wd == wd)
            return 1;
    }
    return 0;
}

static int files_watch_remember(struct files_watch *w, int wd, const char *rel)
{
    if (files_watch_known(w, wd))
        return MCPH_OK; /* the same folder twice (a bind mount) */
    if (w->ndirs == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 16;
        struct files_watch_dir *dirs = realloc(w->dirs, cap * sizeof(*dirs));
        if (!dirs)
            return MCPH_ERR_NOMEM;
        w->dirs = dirs;
        w->cap = cap;
    }
    char *copy = strdup(rel);
    if (!copy)
        return MCPH_ERR_NOMEM;
    w->dirs[w->ndirs].wd = wd;
    w->dirs[w->ndirs].rel = copy;
    w->ndirs++;
    return MCPH_OK;
}

/* Watches the folder open as fd (an O_PATH descriptor beneath the root), through
 * /proc/self/fd: the watch is on that very folder. Sets no_proc when /proc is missing. */
static int files_watch_fd(struct files_watch *w, int fd, const char *rel)
{
    char proc[64];

    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
    int wd = inotify_add_watch(w->ifd, proc, FILES_WATCH_MASK);
    if (wd < 0 && errno == ENOENT) {
        w->no_proc = 1; /* the descriptor is open: only /proc can be missing */
        return MCPH_OK;
    }
    if (wd < 0) {
        char buf[128];
        w->fs->host->log(w->fs->host, MCPH_LOG_WARNING,
                         "cannot watch the folder \"%s\": %s; its changes are not seen",
                         rel[0] ? rel : ".", files_strerror(errno, buf, sizeof(buf)));
        return MCPH_OK;
    }
    return files_watch_remember(w, wd, rel);
}

static int files_watch_visit(void *ctx, const char *rel, const char *from, int dirfd,
                             const char *name, const struct stat *st)
{
    struct files_watch *w = ctx;
    const struct files *fs = w->fs;

    (void)from;
    if (w->no_proc)
        return 1;
    if (!S_ISDIR(st->st_mode))
        return 0;
    if (w->ndirs >= fs->max_watches) {
        fs->host->log(fs->host, MCPH_LOG_WARNING,
                      "watching only %zu folders under %s (max_watches); changes in the others "
                      "are not seen",
                      w->ndirs, fs->root[0] ? fs->root : "/");
        return 1;
    }
    int fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int rc = files_watch_fd(w, fd, rel);
    close(fd);
    return rc;
}

static int files_watch_setup(struct files_watch *w)
{
    struct files_walk walk = {.fs = w->fs, .visit = files_watch_visit, .ctx = w, .dirs = 1};
    struct files_error err;

    int rc = files_watch_fd(w, w->fs->root_fd, "");
    if (rc == MCPH_OK)
        rc = files_walk_run(&walk, "", &err);
    if (rc != MCPH_OK)
        w->fs->host->log(w->fs->host, MCPH_LOG_ERROR, "cannot set up the watcher: %s",
                         rc == MCPH_ERR_NOMEM ? "out of memory" : err.text);
    else if (w->no_proc)
        w->fs->host->log(w->fs->host, MCPH_LOG_WARNING,
                         "watch = yes, but /proc is not mounted, and a folder is watched only "
                         "through /proc/self/fd (a watch by path could land outside the root): "
                         "changes under %s are not seen; mount /proc, or set watch = no",
                         w->fs->root[0] ? w->fs->root : "/");
    else
        w->fs->host->log(w->fs->host, MCPH_LOG_DEBUG, "watching %zu folders under %s", w->ndirs,
                         w->fs->root[0] ? w->fs->root : "/");
    return rc;
}

/* --- The thread. --- */

static const char *files_watch_dir_of(const struct files_watch *w, int wd)
{
    for (size_t i = 0; i < w->ndirs; i++) {
        if (w->dirs[i].wd == wd)
            return w->dirs[i].rel;
    }
    return NULL;
}

/* Remembers that the file dir/name changed (once per burst). */
static void files_watch_pending(struct files_watch *w, const char *dir, const char *name)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *rel = malloc(len);

    if (!rel)
        return;
    snprintf(rel, len, "%s%s%s", dir, dir[0] ? "/" : "", name);
    char *uri = files_uri_of(w->fs, rel);
    free(rel);
    if (!uri)
        return;
    for (size_t i = 0; i < w->npending; i++) {
        if (strcmp(w->pending[i], uri) == 0) {
            free(uri);
            return;
        }
    }
    if (w->npending == FILES_PENDING_MAX) {
        free(uri); /* a burst this large rebuilds the list anyway */
        w->tree_changed = 1;
        return;
    }
    w->pending[w->npending++] = uri;
}

/* 1 when a name from an event is one the plugin serves. */
static int files_watch_serves(const struct files_watch *w, const char *name)
{
    size_t len = strlen(name);

    if (len == 0 || (name[0] == '.' && !w->fs->hidden))
        return 0;
    for (size_t i = 0; i < len; i++) {
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
            return 0;
    }
    return files_utf8_text(name, len);
}

static void files_watch_event(struct files_watch *w, const struct inotify_event *ev)
{
    if (ev->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF)) {
        w->tree_changed = 1;
        return;
    }
    const char *dir = files_watch_dir_of(w, ev->wd);
    if (!dir || ev->len == 0 || !files_watch_serves(w, ev->name))
        return;
    if (ev->mask & FILES_WATCH_TREE)
        w->tree_changed = 1;
    if (!(ev->mask & IN_ISDIR) && (ev->mask & FILES_WATCH_FILE))
        files_watch_pending(w, dir, ev->name);
}

/* Reads what inotify has (at most FILES_WATCH_READS buffers, so that a flood of events
 * cannot keep the thread from seeing a stop); returns 1 when something relevant arrived. */
static int files_watch_read(struct files_watch *w, char *buf)
{
    int any = 0;

    for (int i = 0; i < FILES_WATCH_READS; i++) {
        ssize_t n = read(w->ifd, buf, FILES_WATCH_BUF);
        if (n <= 0)
            break;
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)(void *)p;
            files_watch_event(w, ev);
            p += sizeof(*ev) + ev->len;
        }
        any = 1;
    }
    return any && (w->npending > 0 || w->tree_changed);
}

/* Tells mcph what the burst changed. */
static void files_watch_flush(struct files_watch *w)
{
    const struct mcph_host *host = w->fs->host;

    for (size_t i = 0; i < w->npending; i++) {
        host->resource_updated(host, w->pending[i]);
        free(w->pending[i]);
    }
    w->npending = 0;
    if (w->tree_changed)
        host->refresh(host);
    w->tree_changed = 0;
    w->first_ms = w->last_ms = 0;
}

/* Milliseconds poll() may wait: forever without a burst, else until the burst ends. */
static int files_watch_timeout(const struct files_watch *w, int64_t now)
{
    if (w->first_ms == 0)
        return -1;
    int64_t quiet = w->last_ms + FILES_DEBOUNCE_MS, longest = w->first_ms + FILES_DEBOUNCE_MAX_MS;
    int64_t end = quiet < longest ? quiet : longest;
    return end <= now ? 0 : (int)(end - now);
}

static void *files_watch_main(void *arg)
{
    struct files_watch *w = arg;
    char *buf = malloc(FILES_WATCH_BUF);
    struct pollfd fds[2] = {{.fd = w->ifd, .events = POLLIN}, {.fd = w->wake, .events = POLLIN}};

    if (!buf) {
        w->fs->host->log(w->fs->host, MCPH_LOG_ERROR, "the watcher stopped: out of memory");
        return NULL;
    }
    for (;;) {
        int64_t now = files_now_ms();
        int n = poll(fds, 2, files_watch_timeout(w, now));
        if (n < 0 && errno != EINTR)
            break;
        if (fds[1].revents) {
            /* Stopped (a reload replaces this instance, or mcph ends): what was seen goes out
             * now, or a change made just before a SIGHUP would never be told, since the new
             * instance's watches start after it. */
            files_watch_read(w, buf);
            if (w->npending > 0 || w->tree_changed)
                files_watch_flush(w);
            break;
        }
        now = files_now_ms();
        if (n > 0 && (fds[0].revents & POLLIN) && files_watch_read(w, buf)) {
            if (w->first_ms == 0)
                w->first_ms = now;
            w->last_ms = now;
        }
        if (w->first_ms != 0 && files_watch_timeout(w, now) == 0)
            files_watch_flush(w);
    }
    free(buf);
    return NULL;
}

/* --- Start and stop (main thread). --- */

static void files_watch_free(struct files_watch *w)
{
    if (w->ifd >= 0)
        close(w->ifd);
    if (w->wake >= 0)
        close(w->wake);
    for (size_t i = 0; i < w->ndirs; i++)
        free(w->dirs[i].rel);
    free(w->dirs);
    for (size_t i = 0; i < w->npending; i++)
        free(w->pending[i]);
    free(w->pending);
    free(w);
}

int files_watch_start(const struct files *fs, struct files_watch **out)
{
    struct files_watch *w = calloc(1, sizeof(*w));
    int rc;

    if (!w)
        return MCPH_ERR_NOMEM;
    w->fs = fs;
    w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    w->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    w->pending = calloc(FILES_PENDING_MAX, sizeof(*w->pending));
    if (w->ifd < 0 || w->wake < 0 || !w->pending) {
        char buf[128];
        fs->host->log(fs->host, MCPH_LOG_ERROR,
                      "cannot start the watcher: %s; set watch = no to serve without it",
                      files_strerror(errno, buf, sizeof(buf)));
        files_watch_free(w);
        return MCPH_ERR;
    }
    rc = files_watch_setup(w);
    if (rc == MCPH_OK && w->no_proc) {
        files_watch_free(w); /* served without a watcher (logged) */
        return MCPH_OK;
    }
    if (rc == MCPH_OK && pthread_create(&w->thread, NULL, files_watch_main, w) != 0) {
        fs->host->log(fs->host, MCPH_LOG_ERROR, "cannot start the watcher thread");
        rc = MCPH_ERR;
    }
    if (rc != MCPH_OK) {
        files_watch_free(w);
        return rc;
    }
    w->started = 1;
    *out = w;
    return MCPH_OK;
}

void files_watch_stop(struct files_watch *w)
{
    uint64_t one = 1;

    if (!w)
        return;
    if (w->started) {
        while (write(w->wake, &one, sizeof(one)) < 0 && errno == EINTR)
            continue;
        pthread_join(w->thread, NULL);
    }
    files_watch_free(w);
}
