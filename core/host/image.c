#include "host/image.h"

#include "host/rows.h"
#include "lib/log.h"
#include "lib/status.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Largest plugin file mcph copies into memory to load. */
#define IMAGE_MAX_FILE (256L * 1024 * 1024)

/* Owners mcph trusts with its plugins: root and the user mcph runs as. */
static int image_trusted_uid(uid_t uid)
{
    return uid == 0 || uid == geteuid();
}

/* Folder `dir` (a real path), which holds an entry owned by entry_uid, and every folder
 * above it, as sshd's StrictModes checks them: each belongs to root or mcph's user, and is
 * writable by nobody else, unless it is sticky (then others cannot swap an entry they do
 * not own) and the entry in it is trusted. dir is cut down as the walk goes up. */
static int image_check_ancestors(struct rows_load *ld, char *dir, uid_t entry_uid)
{
    struct stat st;

    for (;;) {
        char *slash = strrchr(dir, '/');

        if (stat(dir, &st) != 0) {
            rows_fail(ld, "cannot check its folder %s: %s", dir, strerror(errno));
            return STATUS_PLUGIN;
        }
        if (!image_trusted_uid(st.st_uid)) {
            rows_fail(ld,
                      "its folder %s (mode %04o, owner uid %u) belongs to another user, who "
                      "could swap the plugin; move the plugin to folders owned by root or uid %u",
                      dir, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
                      (unsigned)geteuid());
            return STATUS_PLUGIN;
        }
        if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
            !((st.st_mode & S_ISVTX) && image_trusted_uid(entry_uid))) {
            rows_fail(ld,
                      "its folder %s (mode %04o, owner uid %u) is writable by group or others%s, "
                      "so anyone could swap the plugin; run chmod go-w %s, or move the plugin",
                      dir, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid,
                      st.st_mode & S_ISVTX ? " and what is in it belongs to another user" : "",
                      dir);
            return STATUS_PLUGIN;
        }
        if (slash == NULL || strcmp(dir, "/") == 0)
            return STATUS_OK;
        entry_uid = st.st_uid;
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
    }
}

/* The folders of `file`, the one opened as st: those of its real path, and when a symbolic
 * link led there, those of the link's own folder (whoever can swap the link swaps the
 * plugin). The real path must still name the file opened. */
static int image_check_dir(struct rows_load *ld, const char *file, const struct stat *st)
{
    char real[PATH_MAX], *dir;
    struct stat now;
    int status;

    if (realpath(file, real) == NULL || stat(real, &now) != 0) {
        rows_fail(ld, "cannot resolve the path: %s; check [plugin.%s] path", strerror(errno),
                  ld->cp->id);
        return STATUS_PLUGIN;
    }
    if (now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
        rows_fail(ld, "the file changed while it was checked; load it again (SIGHUP)");
        return STATUS_PLUGIN;
    }
    dir = strrchr(real, '/');
    if (dir == real)
        dir[1] = '\0';
    else
        *dir = '\0';
    status = image_check_ancestors(ld, real, st->st_uid);
    if (status != STATUS_OK)
        return status;
    dir = config_dirname(file);
    if (dir == NULL)
        return STATUS_NOMEM;
    if (realpath(dir, real) == NULL) {
        rows_fail(ld, "cannot resolve the folder %s: %s", dir, strerror(errno));
        status = STATUS_PLUGIN;
    } else {
        status = image_check_ancestors(ld, real, st->st_uid);
    }
    free(dir);
    return status;
}

static int image_check_file(struct rows_load *ld, int fd, struct stat *st)
{
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        rows_fail(ld, "not a regular file; point path at the plugin's .so");
        return STATUS_PLUGIN;
    }
    if (st->st_mode & (S_IWGRP | S_IWOTH)) {
        rows_fail(ld, "the file is writable by group or others; run chmod go-w %s", ld->cp->path);
        return STATUS_PLUGIN;
    }
    if (!image_trusted_uid(st->st_uid)) {
        rows_fail(ld,
                  "the file belongs to uid %u, neither root nor the user mcph runs as (uid %u), "
                  "who could change it; run chown %u %s, or install it as root",
                  (unsigned)st->st_uid, (unsigned)geteuid(), (unsigned)geteuid(), ld->cp->path);
        return STATUS_PLUGIN;
    }
    if (st->st_size > IMAGE_MAX_FILE) {
        rows_fail(ld, "the file is larger than %ld bytes", IMAGE_MAX_FILE);
        return STATUS_PLUGIN;
    }
    return image_check_dir(ld, ld->cp->path, st);
}

/* Copy the file into a sealed memfd and dlopen that as /proc/self/fd/N: glibc hands back
 * the loaded handle for a path it has open already, so a rebuilt .so at the same path would
 * otherwise run the old code; and the sealed copy cannot change after the checks. The memfd
 * stays open while the library is loaded, so no other plugin's name can be that path. */
static int image_copy_to_memfd(struct rows_load *ld, int fd, off_t size)
{
    char buf[65536];
    int mfd = memfd_create(ld->cp->id, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    off_t done = 0;

    if (mfd < 0) {
        rows_fail(ld, "memfd_create: %s", strerror(errno));
        return -1;
    }
    while (done < size) {
        ssize_t n = read(fd, buf, sizeof(buf));

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || write(mfd, buf, (size_t)n) != n) {
            rows_fail(ld, "cannot copy the file: %s", n < 0 ? strerror(errno) : "short read");
            close(mfd);
            return -1;
        }
        done += n;
    }
    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    return mfd;
}

/* dlopen the library of pl's image by its path: the mapping of that name when one is loaded
 * already (glibc hands back its handle). */
static int image_dlopen(struct rows_load *ld)
{
    struct plugin *pl = ld->pl;
    char name[64];

    snprintf(name, sizeof(name), "/proc/self/fd/%d", pl->image->memfd);
    pl->handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (pl->handle == NULL) {
        rows_fail(ld, "dlopen failed: %s", dlerror());
        return STATUS_PLUGIN;
    }
    return STATUS_OK;
}

/* The image pl is loaded from: the sealed copy mfd (taken over) of the file st describes. */
static int image_keep(struct plugin *pl, const struct stat *st, int mfd)
{
    pl->dev = st->st_dev;
    pl->ino = st->st_ino;
    pl->mtime = st->st_mtim;
    pl->size = st->st_size;
    pl->image = calloc(1, sizeof(*pl->image));
    if (pl->image == NULL) {
        close(mfd);
        return STATUS_NOMEM;
    }
    pl->image->memfd = mfd;
    pl->image->users = 1;
    return STATUS_OK;
}

/* In an isolated child: the image is the copy its parent checked (the file is not read). */
static int image_open_passed(struct rows_load *ld)
{
    struct stat st;
    int mfd = fcntl(ld->cp->image_fd, F_DUPFD_CLOEXEC, 3);
    int status;

    if (mfd < 0 || fstat(mfd, &st) != 0) {
        rows_fail(ld, "cannot use the copy of its file that mcph passed: %s", strerror(errno));
        if (mfd >= 0)
            close(mfd);
        return STATUS_PLUGIN;
    }
    ld->pl->image_fd = ld->cp->image_fd;
    status = image_keep(ld->pl, &st, mfd);
    return status == STATUS_OK ? image_dlopen(ld) : status;
}

int image_open(struct rows_load *ld)
{
    struct stat st;
    int fd, mfd, status;

    if (ld->cp->image_fd >= 0)
        return image_open_passed(ld);
    fd = open(ld->cp->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        rows_fail(ld, "cannot open: %s; build it (make) or fix [plugin.%s] path in %s",
                  strerror(errno), ld->cp->id, ld->ini_file);
        return STATUS_PLUGIN;
    }
    if (image_check_file(ld, fd, &st) != STATUS_OK) {
        close(fd);
        return STATUS_PLUGIN;
    }
    mfd = image_copy_to_memfd(ld, fd, st.st_size);
    close(fd);
    if (mfd < 0)
        return STATUS_PLUGIN;
    status = image_keep(ld->pl, &st, mfd);
    if (status != STATUS_OK || ld->pl->section.isolate.on)
        return status;
    return image_dlopen(ld);
}

int image_open_shared(struct rows_load *ld, const struct plugin *old)
{
    struct plugin *pl = ld->pl;

    pl->dev = old->dev;
    pl->ino = old->ino;
    pl->mtime = old->mtime;
    pl->size = old->size;
    pl->image = old->image;
    pl->image->users++;
    pl->image_fd = old->image_fd;
    return pl->section.isolate.on ? STATUS_OK : image_dlopen(ld);
}

/* dlclose, then release the image: the last instance holding it closes the memfd, unless
 * the library stayed mapped (a library marked NODELETE never unloads): its name must then
 * stay unique for the process's life. While another instance holds it, that one's handle
 * keeps the library mapped under the memfd's name. */
void image_close(struct plugin *pl)
{
    char name[64];
    void *still;

    if (pl->handle != NULL)
        dlclose(pl->handle);
    if (pl->image == NULL || --pl->image->users > 0)
        return;
    snprintf(name, sizeof(name), "/proc/self/fd/%d", pl->image->memfd);
    still = pl->handle != NULL ? dlopen(name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (still != NULL) {
        dlclose(still);
        log_msg(pl->log, LOG_DEBUG, NULL, "plugin '%s' stays mapped after dlclose", pl->id);
        free(pl->image);
        return;
    }
    close(pl->image->memfd);
    free(pl->image);
}
