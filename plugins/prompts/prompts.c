/*
 * prompts.c: the prompts plugin. Every Markdown file in a folder is a prompt.
 *
 * Config, in the instance's [plugin.ID] section:
 *   dir              the folder (required; a relative path is relative to the INI file)
 *   watch            yes (default): reload the prompts when a .md file in dir is created,
 *                    changed, deleted or renamed, without a SIGHUP; no: on SIGHUP only
 *   max_file_bytes   a larger file is skipped (default 262144, at most 16777216)
 *   follow_symlinks  no (default): a symbolic link in dir is skipped, so the folder cannot
 *                    serve a file from elsewhere; yes: links are followed
 *
 * Files. The file NAME.md is the prompt NAME; prompts are listed in name order (bytewise).
 * NAME must follow mcph's name rule, 1-128 of A-Z a-z 0-9 _ . -; a file with another name,
 * a file that is not a regular file, too large, not UTF-8 or whose header is wrong is
 * skipped with a log line naming it and what to do, and the others are served. Hidden files
 * (.NAME.md) and files without the exact suffix ".md" are ignored. At most 4096 prompts.
 *
 * The header (optional). A file may start with a header that declares its title,
 * description and arguments:
 *
 *     ---
 *     title: Code review
 *     description: Review a change for bugs, risks and style
 *     argument: code (required) The code or diff to review
 *     argument: focus What to look at most
 *     ---
 *
 * Its grammar, line by line:
 *   - It opens with a line "---" as the file's first line, and ends at the next "---" line.
 *   - "KEY: VALUE", KEY one of title, description, argument; the value runs to the end of
 *     the line, blanks around it dropped. title and description may appear once each.
 *   - "argument: NAME [(required)|(optional)] [DESCRIPTION]" declares an argument, in the
 *     order given. NAME is 1-64 of A-Z a-z 0-9 _ . -; an argument is optional unless marked
 *     "(required)"; at most 64 arguments.
 *   - A line that starts with a blank (space or tab) continues the value of the line above,
 *     joined with one space: for long descriptions.
 *   - Blank lines and lines starting with "#" are ignored, and end a value.
 * Anything else (an unknown key, a bad or repeated argument name, no closing "---") is
 * logged as FILE:LINE with what to do, and the file is skipped.
 *
 * Without a header a prompt has no arguments. Without a title, its title is the text of the
 * file's first heading ("# Title", outside fenced code), else its name.
 *
 * The body, everything after the header, is the prompt's text: one user message. A line
 * "<!-- assistant -->" or "<!-- user -->" alone on its line (any case) starts a new message
 * of that role, so a prompt can carry an example exchange. Blank lines at the start of a
 * message and blanks at its end are dropped; an empty message is left out.
 *
 * Placeholders. "{{NAME}}", blanks allowed inside the braces ("{{ NAME }}"), is replaced on
 * prompts/get by the value of the argument NAME, as often as it appears; an optional
 * argument that was not given is replaced by nothing. Values are inserted as they are, once:
 * a value containing "{{x}}" is not filled again. A placeholder that names no declared
 * argument stays as written and is logged as a warning at load, as is a declared argument
 * that no placeholder uses. Arguments the prompt does not declare are ignored.
 *
 * Files are UTF-8 text (a byte order mark and CR LF line ends are accepted).
 *
 * Every reload (SIGHUP, or the watcher's refresh) builds a new instance, which reads the
 * folder again; mcph then tells clients whether the list of prompts changed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* openat, fstatat, fdopendir outside the mcph tree's flags too */
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcph-value.h"
#include "plugin-api.h"
#include "prompt_file.h"
#include "prompt_watch.h"

/* Prompts one instance serves: mcph's limit of definitions of one kind (LIMIT_ROWS). */
#define PROMPTS_MAX 4096
/* .md files looked at in one folder; more are not even listed. */
#define PROMPTS_MAX_FILES (16 * PROMPTS_MAX)
/* The largest max_file_bytes: a prompt larger than a whole MCP message is no use. */
#define PROMPTS_MAX_FILE_BYTES (16u * 1024u * 1024u)

/* The instance: what init() read. Handlers only read it, so they may run in parallel. */
struct prompts {
    const struct mcph_host *host; /* borrowed until shutdown() returns */
    const char *dir;              /* borrowed from host->config_path() */
    size_t max_file_bytes;
    int follow_symlinks;
    struct prompt_file *files; /* owned, nfiles of them, sorted by name */
    size_t nfiles;
    size_t skipped;             /* files not served, for the summary line */
    struct prompt_watch *watch; /* owned, or NULL when watch = no */
};

/* --- Config. --- */

static int prompts_config_bool(const struct mcph_host *host, const char *key, int *out)
{
    const char *value = host->config(host, key);

    if (mcph_value_bool(value, out) == MCPH_OK)
        return MCPH_OK;
    host->log(host, MCPH_LOG_ERROR, "%s = '%s' is not valid; use yes or no", key,
              value ? value : "");
    return MCPH_ERR_INVALID;
}

static int prompts_config_size(const struct mcph_host *host, const char *key, size_t max,
                               size_t *out)
{
    const char *value = host->config(host, key);
    long long n;

    if (mcph_value_int(value, 1, (long long)max, &n) != MCPH_OK) {
        host->log(host, MCPH_LOG_ERROR,
                  "%s = '%s' is not valid; use a number of bytes from 1 to %zu", key,
                  value ? value : "", max);
        return MCPH_ERR_INVALID;
    }
    *out = (size_t)n;
    return MCPH_OK;
}

static int prompts_config(struct prompts *ps, int *watch)
{
    const struct mcph_host *host = ps->host;
    int rc;

    ps->dir = host->config_path(host, "dir");
    if (ps->dir == NULL || ps->dir[0] == '\0') {
        host->log(host, MCPH_LOG_ERROR, "dir is not set; set it to the folder of the prompts");
        return MCPH_ERR_INVALID;
    }
    rc = prompts_config_bool(host, "watch", watch);
    if (rc == MCPH_OK)
        rc = prompts_config_bool(host, "follow_symlinks", &ps->follow_symlinks);
    if (rc == MCPH_OK)
        rc = prompts_config_size(host, "max_file_bytes", PROMPTS_MAX_FILE_BYTES,
                                 &ps->max_file_bytes);
    return rc;
}

/* --- The folder. --- */

/* 1 for the names the plugin reads: "*.md", not hidden. */
static int prompts_is_prompt_file(const char *name)
{
    size_t n = strlen(name);

    return name[0] != '.' && n > 3 && strcmp(name + n - 3, ".md") == 0;
}

/* Orders "*.md" file names by prompt name (the name without ".md"). */
static int prompts_compare_files(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    size_t nx = strlen(x) - 3, ny = strlen(y) - 3;
    int c = memcmp(x, y, nx < ny ? nx : ny);

    if (c != 0)
        return c;
    return (nx > ny) - (nx < ny);
}

/* The names of the candidate files of the open folder, sorted, in *names (owned: free each
 * and the array). */
static int prompts_list(struct prompts *ps, DIR *d, char ***names, size_t *n)
{
    size_t cap = 0;
    struct dirent *ent;

    *names = NULL;
    *n = 0;
    errno = 0;
    while ((ent = readdir(d)) != NULL) {
        if (!prompts_is_prompt_file(ent->d_name))
            continue;
        if (*n == PROMPTS_MAX_FILES) {
            ps->host->log(ps->host, MCPH_LOG_ERROR,
                          "%s holds more than %d .md files; only the first %d found are "
                          "looked at. Split the folder between several instances",
                          ps->dir, PROMPTS_MAX_FILES, PROMPTS_MAX_FILES);
            break;
        }
        if (*n == cap) {
            char **grown = realloc(*names, (cap ? cap * 2 : 64) * sizeof(*grown));

            if (grown == NULL)
                return MCPH_ERR_NOMEM;
            *names = grown;
            cap = cap ? cap * 2 : 64;
        }
        (*names)[*n] = strdup(ent->d_name);
        if ((*names)[*n] == NULL)
            return MCPH_ERR_NOMEM;
        (*n)++;
        errno = 0;
    }
    if (errno != 0) {
        ps->host->log(ps->host, MCPH_LOG_ERROR, "cannot read the folder %s: %s", ps->dir,
                      strerror(errno));
        return MCPH_ERR;
    }
    if (*n > 0)
        qsort(*names, *n, sizeof(**names), prompts_compare_files);
    return MCPH_OK;
}

/* The file's path for messages, with every byte that is not printable ASCII shown as '?',
 * so a hostile file name cannot forge log lines. */
static void prompts_path(const struct prompts *ps, const char *file, char *path, size_t size)
{
    size_t start;

    snprintf(path, size, "%s/", ps->dir);
    start = strlen(path);
    snprintf(path + start, size - start, "%s", file);
    for (size_t i = start; path[i] != '\0'; i++) {
        unsigned char c = (unsigned char)path[i];

        if (c < 0x20 || c >= 0x7f)
            path[i] = '?';
    }
}

/* Checks what the name in the folder is, before opening it: a device or a FIFO is never
 * opened, and a symbolic link only with follow_symlinks = yes. */
static int prompts_check_entry(const struct prompts *ps, int dirfd, const char *file,
                               const char *path)
{
    const struct mcph_host *host = ps->host;
    struct stat st;

    if (fstatat(dirfd, file, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        host->log(host, MCPH_LOG_ERROR, "%s: %s (file skipped)", path, strerror(errno));
        return MCPH_ERR_INVALID;
    }
    if (S_ISLNK(st.st_mode) && !ps->follow_symlinks) {
        host->log(host, MCPH_LOG_ERROR,
                  "%s is a symbolic link; set follow_symlinks = yes to serve the file it "
                  "points to (file skipped)",
                  path);
        return MCPH_ERR_INVALID;
    }
    if (S_ISLNK(st.st_mode) && fstatat(dirfd, file, &st, 0) != 0) {
        host->log(host, MCPH_LOG_ERROR, "%s: the link's target: %s (file skipped)", path,
                  strerror(errno));
        return MCPH_ERR_INVALID;
    }
    if (!S_ISREG(st.st_mode)) {
        host->log(host, MCPH_LOG_ERROR, "%s is not a regular file (file skipped)", path);
        return MCPH_ERR_INVALID;
    }
    return MCPH_OK;
}

static int prompts_too_large(const struct prompts *ps, const char *path)
{
    ps->host->log(ps->host, MCPH_LOG_ERROR,
                  "%s is larger than max_file_bytes = %zu; shorten it or raise max_file_bytes "
                  "(file skipped)",
                  path, ps->max_file_bytes);
    return MCPH_ERR_INVALID;
}

/* Reads the open file whole into *data (malloc'd, one byte more than *len for the parser),
 * never more than max_file_bytes + 1 bytes even if it grows meanwhile. */
static int prompts_read_fd(const struct prompts *ps, int fd, size_t size, const char *path,
                           char **data, size_t *len)
{
    size_t cap = size < ps->max_file_bytes ? size + 1 : ps->max_file_bytes + 1;
    char *buf = malloc(cap + 1);

    *len = 0;
    while (buf != NULL) {
        ssize_t n = read(fd, buf + *len, cap - *len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ps->host->log(ps->host, MCPH_LOG_ERROR, "cannot read %s: %s (file skipped)", path,
                          strerror(errno));
            free(buf);
            return MCPH_ERR_INVALID;
        }
        if (n == 0) {
            *data = buf;
            return MCPH_OK;
        }
        *len += (size_t)n;
        if (*len == cap && cap > ps->max_file_bytes) {
            free(buf);
            return prompts_too_large(ps, path);
        }
        if (*len == cap) {
            size_t grown = cap * 2 < ps->max_file_bytes + 1 ? cap * 2 : ps->max_file_bytes + 1;
            char *more = realloc(buf, grown + 1);

            if (more == NULL)
                free(buf);
            buf = more;
            cap = grown;
        }
    }
    return MCPH_ERR_NOMEM;
}

static int prompts_read(const struct prompts *ps, int dirfd, const char *file, const char *path,
                        char **data, size_t *len)
{
    int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
    struct stat st;
    int fd, rc;

    rc = prompts_check_entry(ps, dirfd, file, path);
    if (rc != MCPH_OK)
        return rc;
    fd = openat(dirfd, file, ps->follow_symlinks ? flags : flags | O_NOFOLLOW);
    if (fd < 0) {
        ps->host->log(ps->host, MCPH_LOG_ERROR, "cannot open %s: %s (file skipped)", path,
                      strerror(errno));
        return MCPH_ERR_INVALID;
    }
    /* Checked again on what was opened: the name may have been replaced since. */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ps->host->log(ps->host, MCPH_LOG_ERROR, "%s is not a regular file (file skipped)", path);
        rc = MCPH_ERR_INVALID;
    } else if ((unsigned long long)st.st_size > ps->max_file_bytes) {
        rc = prompts_too_large(ps, path);
    } else {
        rc = prompts_read_fd(ps, fd, (size_t)st.st_size, path, data, len);
    }
    close(fd);
    return rc;
}

/* Reads and parses one file; a good one is added to ps->files. MCPH_ERR_INVALID when the
 * file is skipped (logged). */
static int prompts_load(struct prompts *ps, int dirfd, const char *file)
{
    size_t namelen = strlen(file) - 3;
    char path[PATH_MAX + NAME_MAX + 2];
    char name[PROMPT_FILE_MAX_NAME + 1];
    char *data = NULL;
    size_t len = 0;
    int rc;

    prompts_path(ps, file, path, sizeof(path));
    if (!prompt_file_valid_name(file, namelen, PROMPT_FILE_MAX_NAME)) {
        ps->host->log(ps->host, MCPH_LOG_ERROR,
                      "%s: the prompt name (the file name without .md) is not valid; rename the "
                      "file to 1-%d of A-Z a-z 0-9 _ . - followed by .md (file skipped)",
                      path, PROMPT_FILE_MAX_NAME);
        return MCPH_ERR_INVALID;
    }
    memcpy(name, file, namelen);
    name[namelen] = '\0';
    rc = prompts_read(ps, dirfd, file, path, &data, &len);
    if (rc != MCPH_OK)
        return rc;
    rc = prompt_file_parse(&ps->files[ps->nfiles], ps->host, path, name, data, len);
    if (rc == MCPH_OK)
        ps->nfiles++;
    return rc;
}

/* Loads every listed file, up to PROMPTS_MAX good ones. */
static int prompts_load_all(struct prompts *ps, int dirfd, char **names, size_t n)
{
    ps->files = calloc(n < PROMPTS_MAX ? n : PROMPTS_MAX, sizeof(*ps->files));
    if (ps->files == NULL && n > 0)
        return MCPH_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        int rc;

        if (ps->nfiles == PROMPTS_MAX) {
            ps->host->log(ps->host, MCPH_LOG_ERROR,
                          "%s holds more than %d prompts; %s and the %zu files after it are "
                          "not served. Split the folder between several instances",
                          ps->dir, PROMPTS_MAX, names[i], n - i - 1);
            ps->skipped += n - i;
            break;
        }
        rc = prompts_load(ps, dirfd, names[i]);
        if (rc == MCPH_ERR_NOMEM)
            return rc;
        if (rc != MCPH_OK)
            ps->skipped++;
    }
    return MCPH_OK;
}

/* Opens the folder; logs why when it cannot. */
static DIR *prompts_open_dir(const struct prompts *ps)
{
    int fd = open(ps->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

    if (d == NULL) {
        ps->host->log(ps->host, MCPH_LOG_ERROR,
                      "cannot open the prompt folder %s: %s; create it, or set dir to the "
                      "folder of the prompts",
                      ps->dir, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    return d;
}

/* Lists, reads and parses the files of the open folder. */
static int prompts_scan(struct prompts *ps, DIR *d)
{
    char **names = NULL;
    size_t n = 0;
    int rc = prompts_list(ps, d, &names, &n);

    if (rc == MCPH_OK)
        rc = prompts_load_all(ps, dirfd(d), names, n);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* --- Serving. --- */

static int prompts_get(const struct mcph_host *host, void *state, struct mcph_call *call);

/* Defines every loaded prompt. A row mcph refuses is logged by mcph and left out. */
static int prompts_define(struct prompts *ps)
{
    struct mcph_prompt_arg args[PROMPT_FILE_MAX_ARGS + 1];

    for (size_t i = 0; i < ps->nfiles; i++) {
        const struct prompt_file *pf = &ps->files[i];
        struct mcph_prompt row = {
            .name = pf->name,
            .title = pf->title,
            .description = pf->description,
            .arguments = pf->nargs > 0 ? args : NULL,
            .get = prompts_get,
        };
        int rc;

        for (size_t a = 0; a < pf->nargs; a++) {
            args[a] = (struct mcph_prompt_arg){.name = pf->args[a].name,
                                               .description = pf->args[a].description,
                                               .required = pf->args[a].required};
        }
        args[pf->nargs] = (struct mcph_prompt_arg){0};
        rc = ps->host->define_prompt(ps->host, &row);
        if (rc == MCPH_ERR_NOMEM || rc == MCPH_ERR_STATE || rc == MCPH_ERR_LIMIT)
            return rc;
        if (rc != MCPH_OK)
            ps->skipped++;
    }
    return MCPH_OK;
}

static int prompts_compare_name(const void *key, const void *elem)
{
    return strcmp(key, ((const struct prompt_file *)elem)->name);
}

/* The values of pf's arguments, "" for an optional one not given. */
static int prompts_values(const struct mcph_host *host, struct mcph_call *call,
                          const struct prompt_file *pf, const char **values, size_t *lens)
{
    for (size_t i = 0; i < pf->nargs; i++) {
        const struct prompt_file_arg *arg = &pf->args[i];
        int rc = host->arg_string(call, arg->name, &values[i]);

        if (rc == MCPH_ERR_ABSENT && !arg->required) {
            values[i] = "";
        } else if (rc == MCPH_ERR_ABSENT) {
            return host->error(call, MCPH_ERR_INVALID, "the prompt '%s' needs the argument '%s'",
                               pf->name, arg->name);
        } else if (rc == MCPH_ERR_TYPE) {
            return host->error(call, MCPH_ERR_INVALID,
                               "the argument '%s' of the prompt '%s' must be a string", arg->name,
                               pf->name);
        } else if (rc != MCPH_OK) {
            return rc;
        }
        lens[i] = strlen(values[i]);
    }
    return MCPH_OK;
}

static int prompts_messages(const struct mcph_host *host, struct mcph_call *call,
                            const struct prompt_file *pf, const char **values, const size_t *lens)
{
    int rc = MCPH_OK;

    if (pf->description != NULL)
        rc = host->prompt_description(call, pf->description);
    for (size_t m = 0; rc == MCPH_OK && m < pf->nmessages; m++) {
        char *text = NULL;

        rc = prompt_file_fill(pf, m, values, lens, &text);
        if (rc == MCPH_OK)
            rc = host->prompt_message(call, pf->messages[m].role);
        if (rc == MCPH_OK)
            rc = host->text(call, text);
        free(text);
    }
    return rc;
}

/* One handler serves every prompt: call_name() says which. */
static int prompts_get(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct prompts *ps = state;
    const char *name = host->call_name(call);
    const char *values[PROMPT_FILE_MAX_ARGS];
    size_t lens[PROMPT_FILE_MAX_ARGS];
    const struct prompt_file *pf = NULL;
    size_t size;
    int rc;

    if (name != NULL)
        pf = bsearch(name, ps->files, ps->nfiles, sizeof(*ps->files), prompts_compare_name);
    if (pf == NULL)
        return host->error(call, MCPH_ERR_INVALID, "no prompt named '%s' in %s", name ? name : "",
                           ps->dir);
    rc = prompts_values(host, call, pf, values, lens);
    if (rc != MCPH_OK)
        return rc;
    if (prompt_file_filled_size(pf, lens, &size) != MCPH_OK)
        return host->error(call, MCPH_ERR_INVALID,
                           "the prompt '%s' filled with these values would be larger than %u "
                           "bytes; pass shorter values",
                           pf->name, PROMPT_FILE_MAX_FILLED);
    return prompts_messages(host, call, pf, values, lens);
}

/* --- Lifecycle. --- */

static void prompts_free(struct prompts *ps)
{
    if (ps == NULL)
        return;
    /* The watcher first: once it is joined nothing else runs in the instance. */
    prompt_watch_stop(ps->watch);
    for (size_t i = 0; i < ps->nfiles; i++)
        prompt_file_release(&ps->files[i]);
    free(ps->files);
    free(ps);
}

/* The 1.2 members this plugin needs; an mcph without them cannot serve it. */
static int prompts_host_ok(const struct mcph_host *host)
{
    if (host->abi_minor >= 2 && host->define_prompt != NULL && host->call_name != NULL &&
        host->refresh != NULL && host->config_path != NULL)
        return 1;
    host->log(host, MCPH_LOG_ERROR,
              "this mcph (ABI %u.%u) lacks define_prompt, call_name, refresh or config_path; "
              "the prompts plugin needs ABI 1.2: update mcph",
              (unsigned)host->abi_major, (unsigned)host->abi_minor);
    return 0;
}

static int prompts_start(struct prompts *ps)
{
    int watch = 1;
    int rc = prompts_config(ps, &watch);
    DIR *d = NULL;

    if (rc == MCPH_OK) {
        d = prompts_open_dir(ps);
        rc = d ? MCPH_OK : MCPH_ERR;
    }
    /* The watcher starts before the folder is read, so a change made while it is read
     * is not missed: it makes one more rebuild. */
    if (rc == MCPH_OK && watch)
        rc = prompt_watch_start(&ps->watch, ps->host, ps->dir);
    if (rc == MCPH_OK)
        rc = prompts_scan(ps, d);
    if (d != NULL)
        closedir(d);
    if (rc == MCPH_OK)
        rc = prompts_define(ps);
    if (rc == MCPH_ERR_NOMEM)
        ps->host->log(ps->host, MCPH_LOG_ERROR, "out of memory while loading %s", ps->dir);
    return rc;
}

static int prompts_init(const struct mcph_host *host, void **state)
{
    struct prompts *ps;
    int rc;

    if (!prompts_host_ok(host))
        return MCPH_ERR;
    ps = calloc(1, sizeof(*ps));
    if (ps == NULL) {
        host->log(host, MCPH_LOG_ERROR, "cannot allocate the prompts state: out of memory");
        return MCPH_ERR_NOMEM;
    }
    ps->host = host;
    rc = prompts_start(ps);
    if (rc != MCPH_OK) {
        prompts_free(ps);
        return rc;
    }
    host->log(host, MCPH_LOG_INFO, "%zu prompts from %s%s (%zu files skipped)", ps->nfiles, ps->dir,
              ps->watch ? ", watched" : "", ps->skipped);
    *state = ps;
    return MCPH_OK;
}

static void prompts_shutdown(void *state)
{
    prompts_free(state);
}

/* --- The descriptor. --- */

static const struct mcph_config_key prompts_config_keys[] = {
    {
        .name = "dir",
        .description = "The folder of the prompts: every NAME.md in it is the prompt NAME "
                       "(relative to the INI file's folder)",
        .required = 1,
    },
    {
        .name = "watch",
        .description = "yes: reload when a .md file in dir is created, changed, deleted or "
                       "renamed; no: on SIGHUP only",
        .default_value = "yes",
    },
    {
        .name = "max_file_bytes",
        .description = "A larger prompt file is skipped (at most 16777216)",
        .default_value = "262144",
    },
    {
        .name = "follow_symlinks",
        .description = "yes: serve symbolic links in dir; no: skip them",
        .default_value = "no",
    },
    {0},
};

static const struct mcph_plugin prompts_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "prompts",
    .version = "1.0.0",
    .description = "Serves every Markdown file of a folder as a prompt",
    /* Handlers only read; rebuilt on every reload even when the folder was empty, so a
     * first file added to it shows up. */
    .flags = MCPH_PLUGIN_THREAD_SAFE | MCPH_PLUGIN_REBUILD_ON_RELOAD,
    .config_keys = prompts_config_keys,
    .init = prompts_init,
    .shutdown = prompts_shutdown,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &prompts_plugin;
}
