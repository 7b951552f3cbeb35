/*
 * files.h: the files plugin's shared declarations. The plugin serves the files under one
 * configured folder, the root: each file as a resource, any file through a template, and
 * tools to list, read, find and search them (and, when configured writable, to write files
 * and make folders). Nothing outside the root is ever opened: every path is checked, then
 * resolved beneath a directory descriptor of the root at the moment it is used.
 *
 * Modules (one concern each, all sharing this header):
 *   files.c   the descriptor, the config, init/shutdown, resources and the template
 *   path.c    path checks, confined resolution (openat2 or a portable walk) and opening
 *   walk.c    the sorted recursive walk over the tree, and glob matching
 *   tools.c   the tool handlers
 *   watch.c   the inotify thread behind resource updates and list refreshes
 *   util.c    messages, UTF-8, percent-encoding, MIME types (buffers and JSON strings:
 *             the shared mcph-strbuf.h)
 *
 * Threads: init() and shutdown() run on mcph's main thread; handlers on worker threads, in
 * parallel (the plugin is MCPH_PLUGIN_THREAD_SAFE: handlers only read struct files); the
 * watcher thread touches only its own struct files_watch.
 */
#ifndef FILES_H
#define FILES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "mcph-strbuf.h"
#include "plugin-api.h"

/* --- Limits. Each one that a user can hit is named in the error that hits it. --- */

/* Bytes of a path given by a client (NUL excluded), and of one name in it. */
#define FILES_PATH_MAX 4095
#define FILES_NAME_MAX 255
/* Folder levels below the starting folder that a walk descends. */
#define FILES_DEPTH_MAX 32
/* Entries (files, folders, others) one walk looks at before it stops. */
#define FILES_WALK_MAX 100000
/* Symbolic links followed while resolving one path (the kernel's own limit). */
#define FILES_SYMLINKS_MAX 40
/* Bytes one read_file line range or one search_files call reads in all. */
#define FILES_SCAN_BYTES_MAX (256u * 1024u * 1024u)
/* Bytes of a matching line shown by search_files. */
#define FILES_LINE_SHOWN_MAX 240
/* Bytes of a search_files query and of a find_files pattern. */
#define FILES_QUERY_MAX 1024
/* Config ranges. */
#define FILES_READ_BYTES_DEFAULT 1048576u
#define FILES_READ_BYTES_MAX (16u * 1024u * 1024u)
#define FILES_RESOURCES_DEFAULT 1000u
#define FILES_RESOURCES_MAX 4096u
#define FILES_RESULTS_DEFAULT 500u
#define FILES_RESULTS_MAX 10000u
#define FILES_WATCHES_DEFAULT 1024u
#define FILES_WATCHES_MAX 8192u
/* Bytes looked at to tell text from binary in a file of no known type. */
#define FILES_SNIFF_BYTES 1024
/* Watcher: quiet time that ends a burst of changes, and the longest a burst is held. */
#define FILES_DEBOUNCE_MS 150
#define FILES_DEBOUNCE_MAX_MS 1000
/* Watcher: distinct changed files remembered in one burst. */
#define FILES_PENDING_MAX 4096

/* A message for the client, formatted once where the failure is understood. */
#define FILES_ERROR_TEXT 768

/* How paths are resolved beneath the root. */
enum files_resolver {
    FILES_RESOLVE_OPENAT2 = 0, /* openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) */
    FILES_RESOLVE_PORTABLE,    /* one component at a time with O_NOFOLLOW */
};

struct files_watch;

/* One instance: made by init(), read-only afterwards (handlers share it), freed by
 * shutdown(). */
struct files {
    const struct mcph_host *host; /* borrowed until shutdown() returns */
    char *root;                   /* owned: the root's real absolute path, no trailing '/'
                                   * ("" when the root is "/") */
    char *uri_root;               /* owned: "file://" + the percent-encoded root */
    int root_fd;                  /* owned: O_PATH descriptor of the root folder */
    enum files_resolver resolver;
    int writable;                    /* write_file and create_directory are served */
    int hidden;                      /* dot-files are served */
    int hard_links;                  /* files of more than one hard link are read */
    int watch;                       /* the watcher runs */
    uint64_t max_read_bytes;         /* the largest file read (or written) whole */
    size_t max_resources;            /* files listed as resources */
    size_t max_results;              /* entries one tool returns */
    size_t max_watches;              /* folders the watcher watches */
    struct files_watch *watch_state; /* owned; NULL when not watching */
};

/* A refusal or failure: an enum mcph_status and a message a user can act on. */
struct files_error {
    int status;
    char text[FILES_ERROR_TEXT];
};

/* --- util.c --- */

/* Sets err to status and the formatted message; returns status. */
int files_fail(struct files_error *err, int status, const char *fmt, ...) MCPH_PRINTF(3, 4);
/* Writes a short printable form of a client's path into out (at most 100 bytes of it,
 * control bytes shown as '?', "..." when cut), for messages. */
void files_show(const char *path, char *out, size_t size);
/* errno's text, thread-safe. */
const char *files_strerror(int errnum, char *buf, size_t size);

/* 1 when s[0..n) is valid UTF-8 without NUL bytes (text that can be sent as a string). */
int files_utf8_text(const char *s, size_t n);
/* The length of the longest prefix of s[0..n) that ends on a UTF-8 character boundary. */
size_t files_utf8_cut(const char *s, size_t n);

/* Percent-encoding of a path for a file:// URI: everything but A-Z a-z 0-9 - . _ ~ / is
 * %XX. Returns a malloc'd string owned by the caller, or NULL when out of memory. */
char *files_uri_encode(const char *path);
/* Percent-decoding: a malloc'd string in *out (owned by the caller). MCPH_ERR_INVALID on a
 * bad escape or a decoded NUL (with err set), MCPH_ERR_NOMEM. */
int files_uri_decode(const char *s, char **out, struct files_error *err);

/* The MIME type of a file by its name (static string, never NULL). */
const char *files_mime_type(const char *name);
/* The MIME type of a file by its name and its first bytes (head, len bytes; at most
 * FILES_SNIFF_BYTES are looked at): a name of no known type whose first bytes are UTF-8
 * text is text/plain. Static string, never NULL. */
const char *files_content_type(const char *name, const char *head, size_t len);
/* 1 when files of this MIME type are meant to be text. */
int files_mime_is_text(const char *mime);

/* --- path.c --- */

/* Checks a client's path and turns it into a clean relative path under the root: at most
 * FILES_PATH_MAX bytes, valid UTF-8 without control characters, no "..", relative (or
 * absolute inside the root), no hidden names unless served; "." and empty components are
 * dropped. *rel is a malloc'd string owned by the caller ("" for the root itself). Returns
 * MCPH_OK, or MCPH_ERR_INVALID / MCPH_ERR_NOMEM with err set. */
int files_path_check(const struct files *fs, const char *path, char **rel, struct files_error *err);

/* How files_resolve treats symbolic links. */
enum files_links {
    FILES_LINKS_BENEATH = 0, /* follow links whose target stays beneath the root */
    FILES_LINKS_NONE,        /* refuse any link in the path (writes) */
};

/* What files_resolve returns (negated) when, with hidden = no, a symbolic link on the way
 * leads to a hidden name: above every errno value. */
#define FILES_EHIDDEN 4096

/* Opens rel (from files_path_check) beneath the root with open(2) flags `oflags`
 * (O_CLOEXEC is added). Returns a descriptor owned by the caller, or -errno: EXDEV for an
 * escape, ELOOP for a loop, a magic link or (FILES_LINKS_NONE) any link, and
 * -FILES_EHIDDEN when hidden = no and a link leads to a name starting with '.' (the path
 * really opened never has a hidden name in it). Any thread. */
int files_resolve(const struct files *fs, const char *rel, int oflags, enum files_links links);

/* Turns a -errno from files_resolve for the client's path `shown` into err; returns the
 * status set. */
int files_resolve_error(struct files_error *err, int neg_errno, const char *shown,
                        enum files_links links);

/* Opens rel as a regular file for reading, never blocking (FIFOs, devices and sockets are
 * refused before they are opened for reading), and refuses a file of more than one hard link
 * unless hard_links = yes. *fd owned by the caller; *st its stat. */
int files_open_regular(const struct files *fs, const char *rel, int *fd, struct stat *st,
                       struct files_error *err);

/* Opens the very file that the O_PATH descriptor pfd refers to, through /proc/self/fd, with
 * oflags (O_NONBLOCK, O_NOCTTY and O_CLOEXEC added): nothing swapped in under its name since
 * pfd was checked (a FIFO, a device) is ever opened. Returns a descriptor owned by the
 * caller, or -errno; -ENOENT means /proc is missing, and the caller opens by name instead,
 * never blocking (O_NONBLOCK) nor taking a terminal (O_NOCTTY), and checks what it got with
 * fstat before any read or write. Any thread. */
int files_reopen(int pfd, int oflags);

/* Opens `name` in the folder dirfd for reading, never following a link, when it is a
 * regular file that may be read (files_links_ok), as files_reopen does. Returns a
 * descriptor owned by the caller and its stat in *st, or -errno (-EINVAL: not a file that
 * may be read; -EAGAIN: it changed while it was being opened). Any thread. */
int files_open_at(const struct files *fs, int dirfd, const char *name, struct stat *st);

/* Opens rel as a folder for reading its entries (O_RDONLY | O_DIRECTORY). */
int files_open_dir(const struct files *fs, const char *rel, int *fd, struct files_error *err);

/* Reads the whole regular file rel (at most fs->max_read_bytes, else a refusal that says
 * the size and the limit). *data is malloc'd (NUL-terminated), owned by the caller. */
int files_read_all(const struct files *fs, const char *rel, char **data, size_t *len,
                   struct files_error *err);

/* The name of a file type (st_mode) for messages and listings: "file", "directory", ... */
const char *files_type_name(mode_t mode);

/* 1 when a regular file of this stat may be read: one link, or hard_links = yes. */
int files_links_ok(const struct files *fs, const struct stat *st);

/* Reads fd to its end, or to cap bytes, into a new NUL-terminated buffer (*data, owned by
 * the caller); `hint` sizes the first allocation. MCPH_OK, MCPH_ERR (a read error) or
 * MCPH_ERR_NOMEM. */
int files_read_fd(int fd, size_t hint, size_t cap, char **data, size_t *len);

/* --- walk.c --- */

/* One folder entry, and a list of them. */
struct files_dirent {
    char *name; /* owned */
    struct stat st;
};

struct files_dirlist {
    struct files_dirent *items; /* owned */
    size_t len;
    size_t cap;
};

void files_dirlist_release(struct files_dirlist *list);

/* Lists the folder open as fd (taken over and closed): every entry a walk would show, of
 * any type, sorted by name, at most FILES_WALK_MAX (then *truncated is set). */
int files_dir_list(const struct files *fs, int fd, struct files_dirlist *list, int *truncated);

/* Called for each regular file (and, with dirs set, each folder) a walk meets, in sorted
 * order of relative path. rel is relative to the root; `from` is relative to the walk's
 * start. Returns 0 to go on, 1 to stop the walk, or a negative status to fail it. */
typedef int (*files_visit_fn)(void *ctx, const char *rel, const char *from, int dirfd,
                              const char *name, const struct stat *st);

struct files_walk {
    const struct files *fs; /* borrowed */
    struct mcph_call *call; /* borrowed, or NULL (no cancellation) */
    files_visit_fn visit;
    void *ctx;
    int dirs;      /* also visit folders */
    size_t seen;   /* entries looked at */
    int truncated; /* stopped at FILES_WALK_MAX or FILES_DEPTH_MAX */
    int cancelled;
};

/* Walks the tree under rel (a folder, from files_path_check). Symbolic links are neither
 * followed nor visited; hidden names are skipped unless served; names that are not valid
 * UTF-8 text are skipped. Returns MCPH_OK (also when the visitor stopped it) or a
 * negative status with err set. */
int files_walk_run(struct files_walk *w, const char *rel, struct files_error *err);

/* Glob matching of a relative path: '*' and '?' within one name, [set] classes, '\'
 * escapes, and "**" as a whole component for any number of folders. A pattern without
 * '/' matches the last name only. Returns 1 on a match. */
int files_glob_match(const char *pattern, const char *path);

/* --- tools.c --- */

int files_tool_list_directory(const struct mcph_host *host, void *state, struct mcph_call *call);
int files_tool_read_file(const struct mcph_host *host, void *state, struct mcph_call *call);
int files_tool_find_files(const struct mcph_host *host, void *state, struct mcph_call *call);
int files_tool_search_files(const struct mcph_host *host, void *state, struct mcph_call *call);
int files_tool_write_file(const struct mcph_host *host, void *state, struct mcph_call *call);
int files_tool_create_directory(const struct mcph_host *host, void *state, struct mcph_call *call);

/* --- watch.c --- */

/* Starts watching the folders under the root (at most fs->max_watches) on a thread of the
 * plugin's own. *out is owned by the caller and freed with files_watch_stop; it is left NULL
 * (MCPH_OK, logged) when /proc is missing, since no folder can then be watched safely. Main
 * thread. */
int files_watch_start(const struct files *fs, struct files_watch **out);
/* Stops the thread, waits for it and frees everything. Accepts NULL. Main thread. */
void files_watch_stop(struct files_watch *w);

/* The canonical URI of rel (a relative path under the root): malloc'd, owned by the
 * caller, or NULL when out of memory. (files.c) */
char *files_uri_of(const struct files *fs, const char *rel);

#endif
