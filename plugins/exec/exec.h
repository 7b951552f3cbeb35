/*
 * exec.h: the parts of the exec plugin shared between its files.
 *
 *   exec.c  the descriptor, init/shutdown, one tool per command, the call handler, results
 *   spec.c  the `commands` grammar and the other config keys, read once by init()
 *   run.c   running one argv: pipes, time limit, output cap, cancellation, reap
 *   spawn.c starting it: fork, PR_SET_PDEATHSIG, exec; or under a guard (guard = yes)
 *   text.c  UTF-8 repair of a command's output (buffers and JSON strings: mcph-strbuf.h)
 *   path.c  a path placeholder's value: checked beneath the command's folder, and opened once
 *
 * Nothing here is exported from the .so (it is built with -fvisibility=hidden); the entry
 * function in exec.c is the plugin's only public symbol.
 */
#ifndef MCPH_EXEC_H
#define MCPH_EXEC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mcph-strbuf.h"
#include "plugin-api.h"

/* Limits. Every one is checked, and hitting one gives a message that names it. */
#define EXEC_NAME_MAX 64              /* tool name: 1-64 of A-Za-z0-9 _ . - */
#define EXEC_PARAM_NAME_MAX 64        /* placeholder name: 1-64 of A-Za-z0-9 _, not a digit first */
#define EXEC_WORDS_MAX 64             /* words of one command, executable included */
#define EXEC_PARAMS_MAX 32            /* distinct placeholders of one command */
#define EXEC_PATHS_MAX 16             /* path placeholder words of one command (descriptors) */
#define EXEC_FD_NAME_LEN 32           /* room for "/proc/self/fd/NN/", a descriptor's name */
#define EXEC_COMMANDS_MAX 256         /* commands of one instance */
#define EXEC_TIMEOUT_DEFAULT_MS 10000 /* timeout_ms when unset */
#define EXEC_TIMEOUT_MAX_MS 600000    /* timeout_ms ceiling: ten minutes */
#define EXEC_OUTPUT_DEFAULT 65536     /* max_output when unset, bytes per stream */
#define EXEC_OUTPUT_MAX (1024 * 1024) /* max_output ceiling, bytes per stream */
#define EXEC_ARG_DEFAULT 4096         /* max_arg when unset, bytes per argument value */
#define EXEC_ARG_MAX 65536            /* max_arg ceiling */
#define EXEC_ARGV_TOTAL_MAX (256 * 1024) /* bytes of one whole argv (strings and NULs) */
#define EXEC_KILL_GRACE_MS 500           /* SIGTERM, then SIGKILL this much later */
#define EXEC_POLL_MS 50                  /* longest wait between cancellation checks */
#define EXEC_PROGRESS_MS 250             /* interval of progress notifications */
#define EXEC_DRAIN_MS 250                /* after the process exited: longest wait for EOF */

/* What a placeholder's value must be: any text, or (written {name:file}, {name:dir},
 * {name:path}) a relative path that resolves beneath the command's folder to a regular file,
 * a folder, or either. */
enum exec_kind { EXEC_KIND_TEXT, EXEC_KIND_FILE, EXEC_KIND_DIR, EXEC_KIND_PATH };

/* One word of a command's argv template. */
struct exec_word {
    char *text;          /* owned: the literal argument, or the placeholder's name */
    int param;           /* 1: a placeholder, filled from the string argument named `text` */
    int optional;        /* placeholder written {name?}: dropped when the argument is absent */
    int dash_ok;         /* placeholder after a literal "--": its value may start with - + @ */
    enum exec_kind kind; /* placeholder: what its value must be */
    int to_stdin;        /* written <{name:file}: the file is the command's stdin, not a word */
};

/* One configured command, served as one tool. */
struct exec_cmd {
    char *name;              /* owned: the tool name */
    char *description;       /* owned: the description from the config, or NULL */
    char *display;           /* owned: the argv template as written back for people */
    struct exec_word *words; /* owned: words[0] is the executable (a literal absolute path) */
    size_t nwords;
    size_t nparams; /* distinct placeholders */
};

/* The instance state: made by init(), read-only afterwards (so calls may run in parallel),
 * freed by shutdown(). */
struct exec {
    const struct mcph_host *host; /* borrowed until shutdown() returns */
    struct exec_cmd *cmds;        /* owned: the commands that are served */
    size_t ncmds;
    char **envp;     /* owned: the child's environment, NULL-terminated (mcph-env.h) */
    const char *cwd; /* borrowed from host->config_path(), until shutdown() */
    int cwd_fd;      /* owned: cwd opened O_PATH; children start there (fchdir) and path
                        placeholders resolve beneath it. -1 until exec_spec_read() opens it */
    int64_t timeout_ms;
    size_t max_output; /* bytes per stream */
    size_t max_arg;    /* bytes per argument value */
    int openat2;       /* openat2 and /proc/self/fd work (path placeholders need both) */
    int guard;         /* guard = yes: each command runs under a guard (see spawn.c) */
    /* static: "/dev/fd" when it is the link to /proc/self/fd, else "/proc/self/fd" */
    const char *fd_dir;
};

/* What running one argv gave. The buffers are owned, NUL-terminated, and hold the raw bytes
 * the process wrote (NUL bytes included: use the lengths). */
struct exec_result {
    char *out[2]; /* owned: stdout, stderr */
    size_t len[2];
    int cut[2];          /* the stream went past max_output and was cut there */
    int status_known;    /* 0 when the process could not be followed (see exec.c) */
    int exit_code;       /* when signal == 0 */
    int signal;          /* the signal that ended the process, or 0 */
    int timed_out;       /* stopped because timeout_ms passed */
    int cancelled;       /* stopped because the client cancelled the call */
    int64_t duration_ms; /* from spawn to reap */
    int spawn_errno;     /* non-zero: posix_spawn (or a pipe) failed with this errno */
};

/* --- spec.c --- */

/*
 * Reads every config key into ex (zeroed by the caller; ex->host set; it sets ex->cwd_fd to
 * -1 before anything else). Logs each problem
 * through host->log with what to change, skips commands whose executable is not an
 * executable regular file, and returns MCPH_OK, MCPH_ERR_INVALID (a key is malformed: the
 * instance must not be served) or MCPH_ERR_NOMEM. On failure ex holds what was read so far:
 * free it with exec_spec_release(). Main thread (init).
 */
int exec_spec_read(struct exec *ex);

/* Frees everything exec_spec_read() made; ex must have been through exec_spec_read(). */
void exec_spec_release(struct exec *ex);

/* --- run.c --- */

/* The descriptors of one call's path placeholders, opened and checked before the command
 * starts; the command gets fd[i] as descriptor 3 + i, and in as its stdin. */
struct exec_files {
    int fd[EXEC_PATHS_MAX]; /* owned: O_PATH, close-on-exec; -1 once closed */
    size_t n;
    int in; /* owned: the file of a <{name:file} opened for reading, or -1 (/dev/null) */
    char name[EXEC_PATHS_MAX][EXEC_FD_NAME_LEN]; /* what argv says: "/dev/fd/3", "/dev/fd/4/" */
};

/* Sets files up empty. */
void exec_files_init(struct exec_files *files);

/* Closes the descriptors still open; accepts an initialised struct, any number of times. */
void exec_files_release(struct exec_files *files);

/*
 * Runs argv (argv[0] an absolute path; NULL-terminated; borrowed for the call) with ex's
 * environment, folder and limits, and the descriptors of files (borrowed; exec_run() closes
 * them as soon as the command started, or failed to, so that the handler does not hold them
 * while it runs); polls host->cancelled(call) and reports host->progress()
 * on the way. Fills *res (zeroed by the caller; free it with exec_result_release()). Returns
 * MCPH_OK whenever *res says what happened (spawn failures included), MCPH_ERR_NOMEM
 * otherwise. The process and everything in its process group (with guard, everything it
 * started) are gone and reaped when it returns. The handler's thread.
 */
int exec_run(const struct exec *ex, char *const argv[], struct exec_files *files,
             struct mcph_call *call, struct exec_result *res);

/* Frees the buffers of res. Accepts a zeroed struct. */
void exec_result_release(struct exec_result *res);

/* Milliseconds of CLOCK_MONOTONIC. */
int64_t exec_now_ms(void);

/* --- spawn.c --- */

/* What to start. Everything is borrowed for the exec_spawn() call. */
struct exec_spawn {
    char *const *argv; /* NULL-terminated; argv[0] the absolute path of the executable */
    char *const *envp; /* the environment, NULL-terminated */
    int cwd_fd;        /* the folder it starts in */
    int out, err;      /* the write ends of its stdout and stderr pipes */
    int in;            /* its stdin, or -1 for /dev/null */
    const int *fds;    /* the descriptors it gets as 3, 4, ... (nfds of them, at most
                          EXEC_PATHS_MAX); nothing else but 0-2 reaches it */
    size_t nfds;
    int guard; /* start it under a guard */
};

/* The signals that ask a guard to send SIGTERM, or SIGKILL, to the command's group. */
#define EXEC_GUARD_TERM SIGUSR1
#define EXEC_GUARD_KILL SIGUSR2

/*
 * Starts sp: a child that leads a new process group and dies with mcph (PR_SET_PDEATHSIG),
 * or a guard that starts one. Returns 0 once it runs: *pid is the process to follow and
 * signal (the command; or the guard: ask it with EXEC_GUARD_TERM / EXEC_GUARD_KILL, and
 * never signal its group), and with a guard *report is the read end of its report pipe
 * (owned by the caller; read exec_spawn_status() from it once the guard exited). Otherwise
 * the errno value of what failed (execve's included), with nothing left running. The
 * handler's thread.
 */
int exec_spawn(const struct exec_spawn *sp, pid_t *pid, int *report);

/* After the guard exited: the command's si_code (CLD_EXITED, CLD_KILLED, CLD_DUMPED) and
 * si_status. Returns 1, or 0 when the guard did not report it. */
int exec_spawn_status(int report, int *code, int *status);

/* --- path.c --- */

/* The name of a kind as written in a template ("file", "dir", "path"; "" for text). */
const char *exec_kind_name(enum exec_kind kind);

/*
 * Opens the value v of the path placeholder w (w->kind is not EXEC_KIND_TEXT) once, and
 * checks what it opened: a relative path without '..' components that resolves beneath
 * ex->cwd_fd (openat2 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS: no absolute symlink, no
 * symlink leading out, no /proc magic link) to what w->kind asks for. The descriptor goes
 * into files: as files->in for a stdin word (opened for reading), else as the next fd, and
 * *arg is then the name the command gets in place of v (files->name[i]: the descriptor
 * under ex->fd_dir, with a trailing '/' for a folder); NULL for a stdin word. Returns
 * MCPH_OK, or MCPH_ERR_INVALID with the reason in why (n bytes). The handler's thread; v
 * and w are borrowed for the call, *arg for as long as files.
 */
int exec_path_open(const struct exec *ex, const struct exec_word *w, const char *v,
                   struct exec_files *files, const char **arg, char *why, size_t n);

/* Whether path placeholders can work here: the kernel resolves paths with openat2 (Linux
 * 5.6 and later, not blocked by a seccomp filter), and /proc/self/fd is there to hand the
 * descriptors on. Sets ex->fd_dir. Main thread (init). */
int exec_path_supported(struct exec *ex);

/* --- text.c --- */

/*
 * Returns bytes s[0..len) as valid UTF-8, malloc'd and owned by the caller (NULL when out of
 * memory): each byte that does not start or continue a well-formed sequence, and each NUL,
 * becomes U+FFFD. *replaced (may be NULL) counts them. A command may print anything; MCP
 * text is UTF-8.
 */
char *exec_utf8_clean(const char *s, size_t len, size_t *replaced);

#endif /* MCPH_EXEC_H */
