/*
 * path.c: the value of a path placeholder ({name:file}, {name:dir}, {name:path}) must name
 * something beneath the command's folder (the cwd key).
 *
 * The value is refused when it is empty, absolute, or has a '..' component; then it is
 * resolved with openat2() from a descriptor of the folder, with RESOLVE_BENEATH (no
 * absolute symlink, no symlink or mount trick that leads out: the kernel checks every step)
 * and RESOLVE_NO_MAGICLINKS (no /proc/PID/fd/N-style link), and what it names must be a
 * regular file, a folder, or either, as the template says. A FIFO, a socket or a device is
 * refused, and the O_PATH open never blocks on a FIFO nor opens a device.
 *
 * The command receives the value as written, and runs in the same folder (fchdir to the
 * same descriptor), so it finds what was checked. It opens the path again by name, though:
 * whoever can change the folder's contents between the check and that open (replace a
 * component with a symlink that leads out) wins the race. So the folder must not be
 * writable by anyone you do not trust, and a command served from it must not be able to
 * create symlinks in it. Passing /proc/self/fd/N instead would close that window, but
 * commands show that name in their output and treat it as a symlink (find and ls -l do not
 * follow it), so the plugin does not. A hard link inside the folder is inside the folder.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec.h"

#define PATH_EAGAIN_TRIES 8 /* openat2 may say EAGAIN while a rename races with '..' checks */

static const char *const path_kind_names[] = {
    [EXEC_KIND_TEXT] = "",
    [EXEC_KIND_FILE] = "file",
    [EXEC_KIND_DIR] = "dir",
    [EXEC_KIND_PATH] = "path",
};

const char *exec_kind_name(enum exec_kind kind)
{
    return path_kind_names[kind];
}

/* openat2(dirfd, path, O_PATH, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS); -1 and errno on
 * failure. glibc has no wrapper before 2.40. */
static int path_open_beneath(int dirfd, const char *path)
{
    struct open_how how = {
        .flags = O_PATH | O_CLOEXEC,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    long fd = -1;

    for (int i = 0; i < PATH_EAGAIN_TRIES; i++) {
        fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
        if (fd >= 0 || errno != EAGAIN)
            break;
    }
    return (int)fd;
}

int exec_path_supported(const struct exec *ex)
{
    int fd = path_open_beneath(ex->cwd_fd, ".");

    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* Whether some '/'-separated component of v is "..". */
static int path_has_dotdot(const char *v)
{
    for (const char *p = v; *p != '\0';) {
        size_t n = strcspn(p, "/");

        if (n == 2 && p[0] == '.' && p[1] == '.')
            return 1;
        p += n;
        p += *p == '/';
    }
    return 0;
}

/* What the file type is called in a message. */
static const char *path_type_name(mode_t mode)
{
    if (S_ISREG(mode))
        return "a regular file";
    if (S_ISDIR(mode))
        return "a folder";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    return "a special file";
}

/* Why openat2 failed, for the client. */
static const char *path_open_error(int err)
{
    switch (err) {
    case EXDEV:
        return "leads out of the command's folder (an absolute symlink, or one that climbs "
               "out)";
    case ELOOP:
        return "goes through too many symlinks, or a /proc-style magic link";
    case ENOENT:
        return "does not exist in the command's folder";
    case ENOTDIR:
        return "has a component that is not a folder";
    case EACCES:
        return "cannot be reached: permission denied";
    case ENAMETOOLONG:
        return "is too long";
    default:
        return NULL;
    }
}

/* Checks the type of what fd names against w->kind. */
static int path_check_type(const struct exec_word *w, int fd, char *why, size_t n)
{
    struct stat st;
    int ok;

    if (fstat(fd, &st) != 0) {
        snprintf(why, n, "the argument \"%s\" cannot be examined: %s", w->text, strerror(errno));
        return MCPH_ERR_INVALID;
    }
    ok = (w->kind != EXEC_KIND_DIR && S_ISREG(st.st_mode)) ||
         (w->kind != EXEC_KIND_FILE && S_ISDIR(st.st_mode));
    if (ok)
        return MCPH_OK;
    snprintf(why, n, "the argument \"%s\" names %s; {%s} takes %s", w->text,
             path_type_name(st.st_mode), w->text,
             w->kind == EXEC_KIND_FILE  ? "a regular file"
             : w->kind == EXEC_KIND_DIR ? "a folder"
                                        : "a regular file or a folder");
    return MCPH_ERR_INVALID;
}

int exec_path_check(const struct exec *ex, const struct exec_word *w, const char *v, char *why,
                    size_t n)
{
    const char *reason;
    int fd, rc;

    if (v[0] == '\0' || v[0] == '/' || path_has_dotdot(v)) {
        snprintf(why, n,
                 "the argument \"%s\" %s; {%s} takes a path relative to the command's folder, "
                 "without '..' (e.g. notes/todo.txt)",
                 w->text,
                 v[0] == '\0'  ? "is empty"
                 : v[0] == '/' ? "is an absolute path"
                               : "has a '..' component",
                 w->text);
        return MCPH_ERR_INVALID;
    }
    fd = path_open_beneath(ex->cwd_fd, v);
    if (fd < 0) {
        reason = path_open_error(errno);
        if (reason != NULL)
            snprintf(why, n, "the path in the argument \"%s\" %s", w->text, reason);
        else
            snprintf(why, n, "the path in the argument \"%s\" cannot be resolved: %s", w->text,
                     strerror(errno));
        return MCPH_ERR_INVALID;
    }
    rc = path_check_type(w, fd, why, n);
    close(fd);
    return rc;
}
