#include "served/watch.h"

#include "lib/limits.h"
#include "lib/status.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#define WATCH_EVENTS                                                                               \
    (IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_FROM)

void watch_init(struct watch *w)
{
    memset(w, 0, sizeof(*w));
    w->fd = -1;
    debounce_init(&w->quiet, LIMIT_WATCH_QUIET_MS, 0);
}

void watch_release(struct watch *w)
{
    if (w == NULL)
        return;
    for (size_t i = 0; i < w->ndirs; i++) {
        for (size_t j = 0; j < w->dirs[i].nfiles; j++)
            free(w->dirs[i].files[j]);
        free(w->dirs[i].files);
        free(w->dirs[i].dir);
    }
    free(w->dirs);
    if (w->fd >= 0)
        close(w->fd);
    watch_init(w);
}

static struct watch_dir *watch_dir_for(struct watch *w, const char *dir)
{
    struct watch_dir *dirs;
    int wd;

    for (size_t i = 0; i < w->ndirs; i++) {
        if (strcmp(w->dirs[i].dir, dir) == 0)
            return &w->dirs[i];
    }
    wd = inotify_add_watch(w->fd, dir, WATCH_EVENTS);
    if (wd < 0)
        return NULL;
    /* Two paths to one folder give one wd: keep one entry per wd. */
    for (size_t i = 0; i < w->ndirs; i++) {
        if (w->dirs[i].wd == wd)
            return &w->dirs[i];
    }
    dirs = realloc(w->dirs, (w->ndirs + 1) * sizeof(*dirs));
    if (dirs == NULL)
        return NULL;
    w->dirs = dirs;
    dirs[w->ndirs] = (struct watch_dir){.wd = wd, .dir = strdup(dir)};
    return &dirs[w->ndirs++];
}

/* Watch `path` through its folder. Missing folders are skipped: nothing to see there. */
static void watch_path(struct watch *w, const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    struct watch_dir *d;
    char **files;

    if (slash == NULL)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", (int)(slash == path ? 1 : slash - path), path);
    d = watch_dir_for(w, dir);
    if (d == NULL)
        return;
    files = realloc(d->files, (d->nfiles + 1) * sizeof(*files));
    if (files == NULL)
        return;
    d->files = files;
    files[d->nfiles] = strdup(slash ? slash + 1 : path);
    if (files[d->nfiles] != NULL)
        d->nfiles++;
}

/* A path and, when it is a link, the file it points at: rebuilding the target must count. */
static void watch_file(struct watch *w, const char *path)
{
    char real[PATH_MAX];

    watch_path(w, path);
    if (realpath(path, real) != NULL && strcmp(real, path) != 0)
        watch_path(w, real);
}

int watch_arm(struct watch *w, const struct config *cfg)
{
    watch_release(w);
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->fd < 0)
        return STATUS_IO;
    watch_file(w, cfg->file);
    for (size_t i = 0; i < cfg->nplugins; i++) {
        if (cfg->plugins[i].enabled)
            watch_file(w, cfg->plugins[i].path);
    }
    return STATUS_OK;
}

static int watch_relevant(const struct watch *w, const struct inotify_event *ev)
{
    if (ev->len == 0)
        return 0;
    for (size_t i = 0; i < w->ndirs; i++) {
        if (w->dirs[i].wd != ev->wd)
            continue;
        for (size_t j = 0; j < w->dirs[i].nfiles; j++) {
            if (strcmp(w->dirs[i].files[j], ev->name) == 0)
                return 1;
        }
    }
    return 0;
}

void watch_read(struct watch *w)
{
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t n;

    while ((n = read(w->fd, buf, sizeof(buf))) > 0) {
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)(void *)p;

            if (watch_relevant(w, ev))
                debounce_note(&w->quiet);
            p += sizeof(*ev) + ev->len;
        }
    }
}

int watch_timeout_ms(const struct watch *w)
{
    return debounce_timeout_ms(&w->quiet);
}

int watch_due(struct watch *w)
{
    return debounce_due(&w->quiet);
}
