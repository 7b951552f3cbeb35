/*
 * path.c: confinement. A client's path is first checked as text (files_path_check), then
 * opened beneath the root's directory descriptor at the moment it is used
 * (files_resolve), so a path cannot leave the root by "..", by an absolute name, or by a
 * symbolic link, however the tree changes between two calls.
 *
 * Resolution uses openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS, where the kernel
 * does the whole walk atomically. Where openat2 is missing (ENOSYS before Linux 5.6, or a
 * seccomp filter), the portable resolver walks one component at a time, opening each with
 * O_PATH | O_NOFOLLOW, reading symbolic links itself and refusing any absolute target and
 * any ".." that would climb above the root: the same rules as RESOLVE_BENEATH. It never
 * asks the kernel to follow a link, so /proc magic links cannot be followed either.
 *
 * With hidden = no, the client's path has no hidden name (files_path_check), but a link
 * could lead to one (to_git -> .git). openat2 is then asked to follow no link at all, and a
 * path with a link in it goes through the portable resolver, which sees each name a link
 * leads to and refuses a hidden one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "files.h"

/* Bytes of the text still to resolve: a path plus the targets of the links met on the way. */
#define FILES_REST_MAX (2 * FILES_PATH_MAX + 2)
/* Attempts when openat2 reports a concurrent rename (EAGAIN). */
#define FILES_OPENAT2_TRIES 8

/* --- Checking a client's path. --- */

/* Refuses bytes a path never needs: control characters, and text that is not UTF-8. */
static int files_path_text(const char *path, const char *shown, struct files_error *err)
{
    size_t len = strlen(path);

    if (len == 0)
        return files_fail(err, MCPH_ERR_INVALID,
                          "the path is empty; give a path relative to the root, or \".\" for "
                          "the root itself");
    if (len > FILES_PATH_MAX)
        return files_fail(err, MCPH_ERR_INVALID,
                          "the path \"%s\" is refused: it is %zu bytes long, over the limit of "
                          "%d bytes",
                          shown, len, FILES_PATH_MAX);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)path[i];
        if (c < 0x20 || c == 0x7f)
            return files_fail(err, MCPH_ERR_INVALID,
                              "the path \"%s\" is refused: it contains the control character "
                              "0x%02x at byte %zu; paths are plain text",
                              shown, c, i);
    }
    if (!files_utf8_text(path, len))
        return files_fail(err, MCPH_ERR_INVALID,
                          "the path \"%s\" is refused: it is not valid UTF-8", shown);
    return MCPH_OK;
}

/* Skips the root's own prefix of an absolute path; refuses any other absolute path. */
static int files_path_relative(const struct files *fs, const char **path, const char *shown,
                               struct files_error *err)
{
    size_t root_len = strlen(fs->root);
    const char *p = *path;

    if (p[0] != '/')
        return MCPH_OK;
    if (strncmp(p, fs->root, root_len) == 0 && (p[root_len] == '/' || p[root_len] == '\0')) {
        *path = p + root_len;
        return MCPH_OK;
    }
    return files_fail(err, MCPH_ERR_INVALID,
                      "the path \"%s\" is refused: it is outside the root (%s); give a path "
                      "relative to the root",
                      shown, fs->root[0] ? fs->root : "/");
}

/* Checks one name of the path; returns MCPH_OK or a refusal. */
static int files_path_name(const struct files *fs, const char *name, size_t len, const char *shown,
                           struct files_error *err)
{
    if (len == 2 && name[0] == '.' && name[1] == '.')
        return files_fail(err, MCPH_ERR_INVALID,
                          "the path \"%s\" is refused: \"..\" is not allowed; give the path "
                          "from the root down",
                          shown);
    if (len > FILES_NAME_MAX)
        return files_fail(err, MCPH_ERR_INVALID,
                          "the path \"%s\" is refused: it has a name of %zu bytes, over the "
                          "limit of %d",
                          shown, len, FILES_NAME_MAX);
    if (name[0] == '.' && !fs->hidden)
        return files_fail(err, MCPH_ERR_INVALID,
                          "the path \"%s\" is refused: \"%.*s\" is a hidden name (it starts "
                          "with '.'), and hidden files are not served (hidden = no)",
                          shown, (int)len, name);
    return MCPH_OK;
}

int files_path_check(const struct files *fs, const char *path, char **rel, struct files_error *err)
{
    char shown[160];

    files_show(path, shown, sizeof(shown));
    int rc = files_path_text(path, shown, err);
    if (rc == MCPH_OK)
        rc = files_path_relative(fs, &path, shown, err);
    if (rc != MCPH_OK)
        return rc;

    char *out = malloc(strlen(path) + 1);
    size_t n = 0;
    if (!out)
        return files_fail(err, MCPH_ERR_NOMEM, "out of memory");
    for (const char *p = path; *p;) {
        size_t len = strcspn(p, "/");
        int skip = len == 0 || (len == 1 && p[0] == '.');
        if (!skip) {
            rc = files_path_name(fs, p, len, shown, err);
            if (rc != MCPH_OK) {
                free(out);
                return rc;
            }
            if (n > 0)
                out[n++] = '/';
            memcpy(out + n, p, len);
            n += len;
        }
        p += len + (p[len] == '/');
    }
    out[n] = '\0';
    *rel = out;
    return MCPH_OK;
}

/* --- Resolution with openat2. --- */

static int files_resolve_openat2(const struct files *fs, const char *rel, int oflags,
                                 enum files_links links)
{
    struct open_how how = {
        .flags = (uint64_t)(oflags | O_CLOEXEC),
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };

    if (links == FILES_LINKS_NONE || !fs->hidden)
        how.resolve |= RESOLVE_NO_SYMLINKS;
    for (int i = 0; i < FILES_OPENAT2_TRIES; i++) {
        long fd = syscall(SYS_openat2, fs->root_fd, rel[0] ? rel : ".", &how, sizeof(how));
        if (fd >= 0)
            return (int)fd;
        if (errno != EAGAIN && errno != EINTR)
            return -errno;
    }
    return -EAGAIN;
}

/* --- The portable resolver. --- */

struct files_port {
    const struct files *fs;
    enum files_links links;
    int cur;                       /* the folder reached so far (root_fd is not owned) */
    char done[FILES_PATH_MAX + 1]; /* its path from the root, for climbing back on ".." */
    size_t done_len;
    char rest[FILES_REST_MAX + 1]; /* what is left to resolve */
    size_t pos;                    /* where it starts in rest */
    int followed;                  /* links followed so far */
};

static void files_port_set_cur(struct files_port *st, int fd)
{
    if (st->cur != st->fs->root_fd)
        close(st->cur);
    st->cur = fd;
}

/* ".." from a link's target: climb one folder, never above the root. The folder is
 * reopened from the root, each name again without following links. */
static int files_port_parent(struct files_port *st)
{
    if (st->done_len == 0)
        return -EXDEV;
    char *slash = memrchr(st->done, '/', st->done_len);
    st->done_len = slash ? (size_t)(slash - st->done) : 0;
    st->done[st->done_len] = '\0';

    int fd = st->fs->root_fd;
    for (const char *p = st->done; *p && st->done_len > 0;) {
        char name[FILES_NAME_MAX + 1];
        size_t len = strcspn(p, "/");
        memcpy(name, p, len);
        name[len] = '\0';
        int next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int saved = errno;
        if (fd != st->fs->root_fd)
            close(fd);
        if (next < 0)
            return -saved;
        fd = next;
        p += len + (p[len] == '/');
    }
    files_port_set_cur(st, fd);
    return 0;
}

/* A link met at `fd`: its target replaces the name in what is left to resolve. */
static int files_port_link(struct files_port *st, int fd)
{
    char target[FILES_PATH_MAX + 2];
    char joined[FILES_REST_MAX + 1];

    if (st->links == FILES_LINKS_NONE || ++st->followed > FILES_SYMLINKS_MAX)
        return -ELOOP;
    ssize_t len = readlinkat(fd, "", target, sizeof(target) - 1);
    if (len < 0)
        return -errno;
    if ((size_t)len > FILES_PATH_MAX)
        return -ENAMETOOLONG;
    target[len] = '\0';
    if (target[0] == '/')
        return -EXDEV; /* as RESOLVE_BENEATH: an absolute target is never beneath */
    int n = snprintf(joined, sizeof(joined), "%s/%s", target, st->rest + st->pos);
    if (n < 0 || (size_t)n >= sizeof(joined))
        return -ENAMETOOLONG;
    memcpy(st->rest, joined, (size_t)n + 1);
    st->pos = 0;
    return 0;
}

/* Takes the next name out of rest into name; returns its length, 0 at the end, or
 * -ENAMETOOLONG. */
static int files_port_next(struct files_port *st, char *name)
{
    const char *p = st->rest + st->pos;

    while (*p == '/')
        p++;
    size_t len = strcspn(p, "/");
    if (len > FILES_NAME_MAX)
        return -ENAMETOOLONG;
    memcpy(name, p, len);
    name[len] = '\0';
    st->pos = (size_t)(p + len - st->rest);
    return (int)len;
}

/* 1 when nothing but slashes is left to resolve. */
static int files_port_at_end(const struct files_port *st)
{
    return st->rest[st->pos + strspn(st->rest + st->pos, "/")] == '\0';
}

/* Enters the folder `name` (already opened as fd) on the way down. */
static int files_port_enter(struct files_port *st, const char *name, int fd)
{
    size_t len = strlen(name);

    if (st->done_len + 1 + len > FILES_PATH_MAX) {
        close(fd);
        return -ENAMETOOLONG;
    }
    if (st->done_len > 0)
        st->done[st->done_len++] = '/';
    memcpy(st->done + st->done_len, name, len + 1);
    st->done_len += len;
    files_port_set_cur(st, fd);
    return 0;
}

/* Opens the last name (or the folder reached, when name is empty) with the caller's
 * flags, never following a link at that point. */
static int files_port_final(struct files_port *st, const char *name, int oflags)
{
    int fd = openat(st->cur, name[0] ? name : ".", oflags | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    return fd;
}

/* One step: resolves the next name. Returns 1 when `name` is the last one (left in name, its
 * parent in st->cur), 0 to go on, or -errno. */
static int files_port_step(struct files_port *st, char *name)
{
    struct stat sb;
    int len = files_port_next(st, name);

    if (len <= 0)
        return len == 0 ? 1 : len;
    if (strcmp(name, ".") == 0) {
        name[0] = '\0';
        return files_port_at_end(st);
    }
    if (strcmp(name, "..") == 0) {
        int rc = files_port_parent(st);
        name[0] = '\0';
        return rc < 0 ? rc : files_port_at_end(st);
    }
    if (name[0] == '.' && !st->fs->hidden)
        return -FILES_EHIDDEN; /* only a link's target can bring one: the path was checked */
    int fd = openat(st->cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (fstat(fd, &sb) != 0) {
        int saved = errno;
        close(fd);
        return -saved;
    }
    if (S_ISLNK(sb.st_mode)) {
        int rc = files_port_link(st, fd);
        close(fd);
        name[0] = '\0';
        return rc < 0 ? rc : files_port_at_end(st);
    }
    if (files_port_at_end(st)) {
        close(fd);
        return 1;
    }
    if (!S_ISDIR(sb.st_mode)) {
        close(fd);
        return -ENOTDIR;
    }
    return files_port_enter(st, name, fd);
}

static int files_resolve_portable(const struct files *fs, const char *rel, int oflags,
                                  enum files_links links)
{
    struct files_port *st = malloc(sizeof(*st));
    char name[FILES_NAME_MAX + 1] = "";
    int rc;

    if (!st)
        return -ENOMEM;
    st->fs = fs;
    st->links = links;
    st->cur = fs->root_fd;
    st->done[0] = '\0';
    st->done_len = 0;
    st->pos = 0;
    st->followed = 0;
    if (strlen(rel) > FILES_REST_MAX) {
        rc = -ENAMETOOLONG;
        goto out;
    }
    strcpy(st->rest, rel);
    do {
        rc = files_port_step(st, name);
    } while (rc == 0);
    if (rc > 0)
        rc = files_port_final(st, name, oflags);
out:
    files_port_set_cur(st, fs->root_fd);
    free(st);
    return rc;
}

int files_resolve(const struct files *fs, const char *rel, int oflags, enum files_links links)
{
    if (fs->resolver == FILES_RESOLVE_OPENAT2) {
        int fd = files_resolve_openat2(fs, rel, oflags, links);
        /* hidden = no: a path with a link in it is resolved name by name, to see where the
         * link leads. */
        if (fd != -ELOOP || links == FILES_LINKS_NONE || fs->hidden)
            return fd;
    }
    return files_resolve_portable(fs, rel, oflags, links);
}

/* --- Errors. --- */

int files_resolve_error(struct files_error *err, int neg_errno, const char *shown,
                        enum files_links links)
{
    char buf[128];

    switch (-neg_errno) {
    case ENOENT:
        return files_fail(err, MCPH_ERR_NOT_FOUND, "\"%s\" does not exist under the root", shown);
    case EXDEV:
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" is refused: it leads outside the root (a symbolic link to an "
                          "absolute path or out of the root, or another file system)",
                          shown);
    case ELOOP:
        if (links == FILES_LINKS_NONE)
            return files_fail(err, MCPH_ERR_INVALID,
                              "\"%s\" is refused: its path contains a symbolic link, and writes "
                              "never follow symbolic links",
                              shown);
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" is refused: too many symbolic links (a loop), or a link that "
                          "is never followed (/proc magic links)",
                          shown);
    case FILES_EHIDDEN:
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" is refused: a symbolic link on its way leads to a hidden name "
                          "(one starting with '.'), and hidden files are not served (hidden = no)",
                          shown);
    case ENOTDIR:
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" is refused: it, or a name on its way, is not a folder", shown);
    case ENAMETOOLONG:
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" is refused: the path, with the symbolic links on its way, is "
                          "too long",
                          shown);
    case EACCES:
    case EPERM:
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" cannot be opened: permission denied for mcph", shown);
    case ENOMEM:
        return files_fail(err, MCPH_ERR_NOMEM, "out of memory");
    default:
        return files_fail(err, MCPH_ERR, "\"%s\" cannot be opened: %s", shown,
                          files_strerror(-neg_errno, buf, sizeof(buf)));
    }
}

const char *files_type_name(mode_t mode)
{
    if (S_ISREG(mode))
        return "file";
    if (S_ISDIR(mode))
        return "directory";
    if (S_ISLNK(mode))
        return "symlink";
    if (S_ISFIFO(mode))
        return "fifo";
    if (S_ISSOCK(mode))
        return "socket";
    if (S_ISCHR(mode))
        return "char_device";
    if (S_ISBLK(mode))
        return "block_device";
    return "other";
}

/* --- Opening files and folders. --- */

/* The name to show for a cleaned relative path. */
static const char *files_shown_rel(const char *rel)
{
    return rel[0] ? rel : ".";
}

int files_links_ok(const struct files *fs, const struct stat *st)
{
    return fs->hard_links || st->st_nlink <= 1;
}

int files_reopen(int pfd, int oflags)
{
    char proc[64];

    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
    int fd = open(proc, oflags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

/* Keeps fd (opened for what `first` described) only if it is that same regular file, and
 * closes it otherwise. Returns fd, or -EAGAIN (or fd itself when it is an -errno). */
static int files_same_file(int fd, const struct stat *first, struct stat *st)
{
    if (fd < 0)
        return fd;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode) || st->st_dev != first->st_dev ||
        st->st_ino != first->st_ino) {
        close(fd);
        return -EAGAIN;
    }
    return fd;
}

/* Opens for reading the file open as pfd (O_PATH) in dirfd/name, already checked as first:
 * through /proc, else by name again. Returns a descriptor or -errno. */
static int files_reopen_read(int pfd, int dirfd, const char *name)
{
    int fd = files_reopen(pfd, O_RDONLY);

    if (fd != -ENOENT)
        return fd;
    fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int files_open_at(const struct files *fs, int dirfd, const char *name, struct stat *st)
{
    struct stat first;
    int fd = -EINVAL;

    int pfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (pfd < 0)
        return -errno;
    if (fstat(pfd, &first) != 0)
        fd = -errno;
    else if (S_ISREG(first.st_mode) && files_links_ok(fs, &first))
        fd = files_same_file(files_reopen_read(pfd, dirfd, name), &first, st);
    close(pfd);
    return fd;
}

/* Checks that the file open as pfd (O_PATH) is one that is read: a regular file, of one
 * link unless hard_links = yes. *first is its stat. */
static int files_regular_check(const struct files *fs, int pfd, struct stat *first,
                               const char *shown, struct files_error *err)
{
    if (fstat(pfd, first) != 0)
        return files_resolve_error(err, -errno, shown, FILES_LINKS_BENEATH);
    if (S_ISDIR(first->st_mode))
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" is a folder, not a file; list it with list_directory", shown);
    if (!S_ISREG(first->st_mode))
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" is refused: it is a %s, not a regular file; only regular files "
                          "are read",
                          shown, files_type_name(first->st_mode));
    if (!files_links_ok(fs, first))
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" is refused: it has %ju hard links, and files of more than one "
                          "are not read (another name of the file may be outside the root); "
                          "hard_links = yes allows it",
                          shown, (uintmax_t)first->st_nlink);
    return MCPH_OK;
}

int files_open_regular(const struct files *fs, const char *rel, int *fd, struct stat *st,
                       struct files_error *err)
{
    char shown[160];
    struct stat first;

    files_show(files_shown_rel(rel), shown, sizeof(shown));
    /* Look before opening for reading: opening a device may have effects, and a FIFO
     * without a writer would block without O_NONBLOCK. What was looked at is then
     * reopened itself (files_reopen). */
    int pfd = files_resolve(fs, rel, O_PATH, FILES_LINKS_BENEATH);
    if (pfd < 0)
        return files_resolve_error(err, pfd, shown, FILES_LINKS_BENEATH);
    int rc = files_regular_check(fs, pfd, &first, shown, err);
    int rfd = rc == MCPH_OK ? files_reopen(pfd, O_RDONLY) : -EINVAL;
    close(pfd);
    if (rc != MCPH_OK)
        return rc;
    if (rfd == -ENOENT) /* no /proc: by name again, then compared */
        rfd = files_resolve(fs, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY, FILES_LINKS_BENEATH);
    if (rfd < 0)
        return files_resolve_error(err, rfd, shown, FILES_LINKS_BENEATH);
    rfd = files_same_file(rfd, &first, st);
    if (rfd < 0)
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" changed while it was being opened; try again", shown);
    *fd = rfd;
    return MCPH_OK;
}

int files_open_dir(const struct files *fs, const char *rel, int *fd, struct files_error *err)
{
    char shown[160];

    files_show(files_shown_rel(rel), shown, sizeof(shown));
    int dfd = files_resolve(fs, rel, O_RDONLY | O_DIRECTORY | O_NONBLOCK, FILES_LINKS_BENEATH);
    if (dfd == -ENOTDIR)
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" is not a folder (or a name on its way is not one)", shown);
    if (dfd < 0)
        return files_resolve_error(err, dfd, shown, FILES_LINKS_BENEATH);
    *fd = dfd;
    return MCPH_OK;
}

static int files_too_large(const struct files *fs, const char *shown, uint64_t size,
                           struct files_error *err)
{
    return files_fail(err, MCPH_ERR_INVALID,
                      "\"%s\" is %llu bytes, over the read limit of %llu bytes (max_read_bytes); "
                      "read a part of it with the read_file tool's start_line and end_line",
                      shown, (unsigned long long)size, (unsigned long long)fs->max_read_bytes);
}

/* Reads fd to its end, or to cap bytes, into a new NUL-terminated buffer. `hint` (the size
 * fstat saw) sizes the first allocation; a file that grew meanwhile is read on. */
int files_read_fd(int fd, size_t hint, size_t cap, char **data, size_t *len)
{
    size_t size = (hint < cap ? hint : cap) + 1;
    char *buf = malloc(size + 1);
    size_t n = 0;

    while (buf && n < cap) {
        if (n == size) {
            size_t grown = size > cap / 2 ? cap : size * 2;
            char *more = realloc(buf, grown + 1);
            if (!more)
                break;
            buf = more;
            size = grown;
        }
        ssize_t got = read(fd, buf + n, size - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            if (got == 0) {
                buf[n] = '\0';
                *data = buf;
                *len = n;
                return MCPH_OK;
            }
            free(buf);
            return MCPH_ERR;
        }
        n += (size_t)got;
    }
    if (!buf || n < cap) {
        free(buf);
        return MCPH_ERR_NOMEM;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return MCPH_OK;
}

int files_read_all(const struct files *fs, const char *rel, char **data, size_t *len,
                   struct files_error *err)
{
    char shown[160];
    struct stat st;
    int fd;

    files_show(files_shown_rel(rel), shown, sizeof(shown));
    int rc = files_open_regular(fs, rel, &fd, &st, err);
    if (rc != MCPH_OK)
        return rc;
    if ((uint64_t)st.st_size > fs->max_read_bytes) {
        close(fd);
        return files_too_large(fs, shown, (uint64_t)st.st_size, err);
    }
    /* One byte more than the limit tells a file that grew since fstat. */
    rc = files_read_fd(fd, (size_t)st.st_size, (size_t)fs->max_read_bytes + 1, data, len);
    close(fd);
    if (rc == MCPH_ERR_NOMEM)
        return files_fail(err, rc, "out of memory reading \"%s\"", shown);
    if (rc != MCPH_OK)
        return files_fail(err, rc, "\"%s\" could not be read", shown);
    if (*len > fs->max_read_bytes) {
        free(*data);
        *data = NULL;
        return files_too_large(fs, shown, (uint64_t)*len, err);
    }
    return MCPH_OK;
}
