/*
 * watch.h: watch mode for the development loop. inotify on the folders of the INI file and
 * of every enabled plugin's .so (folders, because a build replaces files rather than
 * rewriting them); a relevant event arms a debounce timer, so a `make` that rewrites several
 * files causes one reload, LIMIT_WATCH_QUIET_MS after the last write.
 */
#ifndef MCPH_WATCH_H
#define MCPH_WATCH_H

#include "config/config.h"
#include "lib/debounce.h"

#include <stddef.h>

struct watch_dir {
    int wd;       /* inotify watch descriptor */
    char *dir;    /* owned */
    char **files; /* owned: base names of interest in dir */
    size_t nfiles;
};

struct watch {
    int fd;                 /* inotify descriptor, -1 when off */
    struct watch_dir *dirs; /* owned */
    size_t ndirs;
    struct debounce quiet; /* a relevant change waits LIMIT_WATCH_QUIET_MS of quiet */
};

/* Off: fd -1, nothing watched. */
void watch_init(struct watch *w);

/* Watch the INI file of cfg and every enabled plugin's file (replacing what was watched).
 * Returns STATUS_OK, or STATUS_IO (inotify unavailable; logged by the caller). */
int watch_arm(struct watch *w, const struct config *cfg) __attribute__((warn_unused_result));

/* Read the inotify events available; arm the timer on a relevant one. */
void watch_read(struct watch *w);

/* Milliseconds to wait before the pending reload is due; -1 when nothing is pending. */
int watch_timeout_ms(const struct watch *w);

/* Whether a pending change has been quiet long enough; clears it when it returns 1. */
int watch_due(struct watch *w);

void watch_release(struct watch *w);

#endif
