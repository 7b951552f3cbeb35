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
 * The command does not get the value: it would open the path again by name, and whoever
 * can write in the folder could swap a component for a symlink leading out between the
 * check and that open (a tight loop won about 6% of the calls). The descriptor that was
 * checked is handed to the command instead (spawn.c puts it at 3, 4, ...; nothing else but
 * 0-2 reaches the command), and its argument is /dev/fd/N (/proc/self/fd/N where /dev/fd is
 * not that link): opening it opens that very file, whatever the folder holds by then. A
 * folder gets /dev/fd/N/, with a trailing '/', so that commands that do not follow a
 * symlink given on their command line (find, ls -l, stat, du) still go into it; what lies
 * inside the folder is the command's to open by name, as its own links are its business.
 * A regular file given as a <{name:file} word is opened for reading here and becomes the
 * command's stdin. The descriptors are O_PATH (no read or write access of their own: the
 * command's open asks for what it needs, with its own permissions) except stdin's.
 *
 * What this costs: the command sees /dev/fd/N, not the name (in its output and messages,
 * and for commands that look at the name: a compiler that picks the language from the
 * suffix, a tool that writes a file beside it). ls -l, stat and find show a file (but not a
 * folder) as the symlink /dev/fd/N. A hard link inside the folder is inside the folder.
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
#define PATH_FD_FIRST 3     /* the command gets files->fd[i] as PATH_FD_FIRST + i (spawn.c) */

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

int exec_path_supported(struct exec *ex)
{
    char link[32];
    ssize_t n = readlink("/dev/fd", link, sizeof(link) - 1);
    int fd = path_open_beneath(ex->cwd_fd, ".");
    int proc = access("/proc/self/fd", X_OK) == 0;

    if (n > 0)
        link[n] = '\0';
    ex->fd_dir = n > 0 && strcmp(link, "/proc/self/fd") == 0 ? "/dev/fd" : "/proc/self/fd";
    if (fd < 0)
        return 0;
    close(fd);
    return proc;
}

void exec_files_init(struct exec_files *files)
{
    memset(files, 0, sizeof(*files));
    files->in = -1;
}

void exec_files_release(struct exec_files *files)
{
    for (size_t i = 0; i < files->n; i++) {
        if (files->fd[i] >= 0)
            close(files->fd[i]);
        files->fd[i] = -1;
    }
    if (files->in >= 0)
        close(files->in);
    files->in = -1;
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

/* Checks the type of what fd names against w->kind; *dir says whether it is a folder. */
static int path_check_type(const struct exec_word *w, int fd, int *dir, char *why, size_t n)
{
    struct stat st;
    int ok;

    if (fstat(fd, &st) != 0) {
        snprintf(why, n, "the argument \"%s\" cannot be examined: %s", w->text, strerror(errno));
        return MCPH_ERR_INVALID;
    }
    *dir = S_ISDIR(st.st_mode);
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

/* Refuses a value that is empty, absolute, or has a '..' component. */
static int path_check_form(const struct exec_word *w, const char *v, char *why, size_t n)
{
    if (v[0] != '\0' && v[0] != '/' && !path_has_dotdot(v))
        return MCPH_OK;
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

/* Opens v beneath cwd (O_PATH); -1 with the reason in why. */
static int path_open_checked(const struct exec *ex, const struct exec_word *w, const char *v,
                             char *why, size_t n)
{
    int fd = path_open_beneath(ex->cwd_fd, v);
    const char *reason;

    if (fd >= 0)
        return fd;
    reason = path_open_error(errno);
    if (reason != NULL)
        snprintf(why, n, "the path in the argument \"%s\" %s", w->text, reason);
    else
        snprintf(why, n, "the path in the argument \"%s\" cannot be resolved: %s", w->text,
                 strerror(errno));
    return -1;
}

/* Reopens the regular file behind the O_PATH descriptor pfd for reading, as the command's
 * stdin: through /proc/self/fd, that very file. -1 with the reason in why. */
static int path_open_stdin(const struct exec_word *w, int pfd, char *why, size_t n)
{
    char proc[EXEC_FD_NAME_LEN];
    int fd;

    snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
    fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        snprintf(why, n, "the file in the argument \"%s\" cannot be read: %s", w->text,
                 strerror(errno));
    return fd;
}

/* Keeps the checked descriptor fd (owned; closed on failure) in files. */
static int path_keep(const struct exec *ex, const struct exec_word *w, int fd, int dir,
                     struct exec_files *files, const char **arg, char *why, size_t n)
{
    size_t i = files->n;

    *arg = NULL;
    if (w->to_stdin) {
        files->in = path_open_stdin(w, fd, why, n);
        close(fd);
        return files->in >= 0 ? MCPH_OK : MCPH_ERR_INVALID;
    }
    if (i == EXEC_PATHS_MAX) { /* spec.c refuses such a template: a programmer error */
        close(fd);
        snprintf(why, n, "more than %d path placeholders", EXEC_PATHS_MAX);
        return MCPH_ERR_INVALID;
    }
    files->fd[i] = fd;
    files->n++;
    snprintf(files->name[i], sizeof(files->name[i]), "%s/%zu%s", ex->fd_dir, PATH_FD_FIRST + i,
             dir ? "/" : "");
    *arg = files->name[i];
    return MCPH_OK;
}

int exec_path_open(const struct exec *ex, const struct exec_word *w, const char *v,
                   struct exec_files *files, const char **arg, char *why, size_t n)
{
    int fd, dir = 0;

    if (path_check_form(w, v, why, n) != MCPH_OK)
        return MCPH_ERR_INVALID;
    fd = path_open_checked(ex, w, v, why, n);
    if (fd < 0)
        return MCPH_ERR_INVALID;
    if (path_check_type(w, fd, &dir, why, n) != MCPH_OK) {
        close(fd);
        return MCPH_ERR_INVALID;
    }
    return path_keep(ex, w, fd, dir, files, arg, why, n);
}
