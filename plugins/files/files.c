/*
 * files.c: the files plugin: serves the files under one folder, the root, to MCP clients.
 *
 *   - each regular file under the root is a resource (file:// URI of its real path, named by
 *     its path from the root, with its MIME type and size), up to max_resources of them;
 *   - the template file://<root>/{+path} reads any other file under the root;
 *   - the tools list_directory, read_file (whole, or a line range), find_files (glob) and
 *     search_files (a fixed string), and with writable = yes also write_file and
 *     create_directory;
 *   - with watch = yes, subscribed clients hear of changed files, and the resource list
 *     follows files that appear, go away or are renamed.
 *
 * This file holds the descriptor, the config, init/shutdown and the resources. The
 * confinement rules are in path.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "files.h"
#include "mcph-value.h"

/* --- URIs. --- */

char *files_uri_of(const struct files *fs, const char *rel)
{
    char *enc = files_uri_encode(rel);
    if (!enc)
        return NULL;
    size_t len = strlen(fs->uri_root) + 1 + strlen(enc) + 1;
    char *uri = malloc(len);
    if (uri) {
        memcpy(uri, fs->uri_root, strlen(fs->uri_root));
        uri[strlen(fs->uri_root)] = '/';
        memcpy(uri + strlen(fs->uri_root) + 1, enc, strlen(enc) + 1);
    }
    free(enc);
    return uri;
}

/* The relative path a URI under the root names, checked. *rel owned by the caller. */
static int files_uri_path(const struct files *fs, const char *uri, char **rel,
                          struct files_error *err)
{
    size_t n = strlen(fs->uri_root);
    char *decoded;

    if (strncmp(uri, fs->uri_root, n) != 0 || uri[n] != '/')
        return files_fail(err, MCPH_ERR_NOT_FOUND, "%s is not a file under the root", uri);
    int rc = files_uri_decode(uri + n + 1, &decoded, err);
    if (rc != MCPH_OK)
        return rc;
    rc = files_path_check(fs, decoded, rel, err);
    free(decoded);
    return rc;
}

/* --- Reading a resource: one handler for every listed file and for the template. --- */

static int files_read_resource(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct files *fs = state;
    struct files_error err;
    char *rel, *data;
    size_t len;

    const char *uri = host->uri(call);
    if (!uri)
        return host->error(call, MCPH_ERR, "no URI to read");
    int rc = files_uri_path(fs, uri, &rel, &err);
    if (rc != MCPH_OK)
        return host->error(call, rc, "%s", err.text);
    rc = files_read_all(fs, rel, &data, &len, &err);
    if (rc != MCPH_OK) {
        free(rel);
        return host->error(call, rc, "%s", err.text);
    }
    const char *mime = files_content_type(rel, data, len);
    if (files_mime_is_text(mime) && files_utf8_text(data, len))
        rc = host->contents_text(call, NULL, mime, data);
    else
        rc = host->contents_blob(call, NULL, mime, data, len);
    free(data);
    free(rel);
    return rc;
}

/* Offers each entry of list whose name starts with `typed`, as `dir` + name (+ '/' for a
 * folder, so that the next completion goes into it). */
static int files_offer(const struct mcph_host *host, struct mcph_call *call,
                       const struct files_dirlist *list, const char *dir, size_t dir_len,
                       const char *typed)
{
    int rc = MCPH_OK;

    for (size_t i = 0; i < list->len && rc == MCPH_OK; i++) {
        const struct files_dirent *e = &list->items[i];
        int is_dir = S_ISDIR(e->st.st_mode);
        if (strncmp(e->name, typed, strlen(typed)) != 0)
            continue;
        if (!S_ISREG(e->st.st_mode) && !is_dir && !S_ISLNK(e->st.st_mode))
            continue;
        char *cand = malloc(dir_len + strlen(e->name) + 2);
        if (!cand)
            return MCPH_ERR_NOMEM;
        memcpy(cand, dir, dir_len);
        strcpy(cand + dir_len, e->name);
        strcat(cand, is_dir ? "/" : "");
        rc = host->completion(call, cand);
        free(cand);
    }
    return rc == MCPH_ERR_LIMIT ? MCPH_OK : rc;
}

/* Completes the template's path from the folder typed so far: what follows its last '/' is
 * the start of a name in it. */
static int files_complete_path(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct files *fs = state;
    struct files_dirlist list = {0};
    struct files_error err;
    const char *value;
    char *rel = NULL;
    int fd, truncated, rc = MCPH_OK;

    if (host->arg_string(call, "value", &value) != MCPH_OK)
        return MCPH_OK;
    const char *slash = strrchr(value, '/');
    size_t dir_len = slash ? (size_t)(slash - value) + 1 : 0;
    char *dir = strndup(value, dir_len);
    if (!dir)
        return MCPH_ERR_NOMEM;
    /* A folder that cannot be listed has nothing to offer: an empty list, not an error. */
    if (files_path_check(fs, dir_len ? dir : ".", &rel, &err) == MCPH_OK &&
        files_open_dir(fs, rel, &fd, &err) == MCPH_OK &&
        files_dir_list(fs, fd, &list, &truncated) == MCPH_OK) {
        rc = files_offer(host, call, &list, value, dir_len, value + dir_len);
        files_dirlist_release(&list);
    }
    free(dir);
    free(rel);
    return rc;
}

/* --- Definitions made at init. --- */

struct files_defining {
    struct files *fs;
    size_t count;
    size_t skipped;
    int full;
};

/* The MIME type of the file open as fd, by its name and, for names of no known type, by
 * its first bytes. */
static const char *files_type_of(int fd, const char *name)
{
    char head[FILES_SNIFF_BYTES];
    const char *mime = files_mime_type(name);

    if (strcmp(mime, "application/octet-stream") != 0)
        return mime;
    ssize_t n = pread(fd, head, sizeof(head), 0);
    return n < 0 ? mime : files_content_type(name, head, (size_t)n);
}

/* Defines one regular file as a resource; skips what cannot be read. */
static int files_define_visit(void *ctx, const char *rel, const char *from, int dirfd,
                              const char *name, const struct stat *st)
{
    struct files_defining *d = ctx;
    const struct mcph_host *host = d->fs->host;

    (void)from;
    (void)st; /* the walk's stat is from before the open: the open's own is used */
    if (d->count == d->fs->max_resources) {
        d->full = 1;
        return 1;
    }
    struct stat now;
    int fd = files_open_at(d->fs, dirfd, name, &now);
    if (fd < 0) {
        d->skipped++; /* unreadable, replaced since the walk saw it, or of several links */
        return 0;
    }
    const char *mime = files_type_of(fd, name);
    close(fd);
    char *uri = files_uri_of(d->fs, rel);
    if (!uri)
        return MCPH_ERR_NOMEM;
    struct mcph_resource r = {
        .uri = uri,
        .name = rel,
        .mime_type = mime,
        .size = (uint64_t)now.st_size,
        .read = files_read_resource,
    };
    int rc = host->define_resource(host, &r);
    free(uri);
    if (rc == MCPH_OK)
        d->count++;
    else if (rc == MCPH_ERR_INVALID)
        d->skipped++; /* refused (mcph logged why: a URI too long, say) */
    else
        return rc == MCPH_ERR_LIMIT ? 1 : rc;
    return 0;
}

static int files_define_resources(struct files *fs)
{
    struct files_defining d = {.fs = fs};
    struct files_walk w = {.fs = fs, .visit = files_define_visit, .ctx = &d};
    struct files_error err;
    const char *root = fs->root[0] ? fs->root : "/";

    if (fs->max_resources == 0)
        return MCPH_OK;
    int rc = files_walk_run(&w, "", &err);
    if (rc != MCPH_OK) {
        fs->host->log(fs->host, MCPH_LOG_ERROR, "cannot list the files under %s: %s", root,
                      err.text);
        return rc;
    }
    if (d.full || w.truncated)
        fs->host->log(fs->host, MCPH_LOG_INFO,
                      "only the first %zu files under %s are listed as resources (%s); read the "
                      "others through the template %s/{+path}",
                      d.count, root, d.full ? "max_resources" : "the walk's own limits",
                      fs->uri_root);
    fs->host->log(fs->host, MCPH_LOG_DEBUG, "listed %zu files under %s as resources", d.count,
                  root);
    if (d.skipped > 0)
        fs->host->log(fs->host, MCPH_LOG_DEBUG,
                      "%zu files under %s were skipped (unreadable, or of more than one hard "
                      "link without hard_links = yes)",
                      d.skipped, root);
    return MCPH_OK;
}

static int files_define_template(struct files *fs)
{
    const char *root = fs->root[0] ? fs->root : "/";
    size_t len = strlen(fs->uri_root) + sizeof("/{+path}");
    char *tpl = malloc(len);
    char *desc = malloc(strlen(root) + 200);

    int rc = MCPH_ERR_NOMEM;
    if (tpl && desc) {
        snprintf(tpl, len, "%s/{+path}", fs->uri_root);
        snprintf(desc, strlen(root) + 200,
                 "Any file under %s, by its path from there (as in the listed resources' URIs)",
                 root);
        struct mcph_resource_template t = {
            .uri_template = tpl,
            .name = "file",
            .title = "A file under the root",
            .description = desc,
            .read = files_read_resource,
            .complete = files_complete_path,
        };
        rc = fs->host->define_template(fs->host, &t);
    }
    free(tpl);
    free(desc);
    if (rc != MCPH_OK)
        fs->host->log(fs->host, MCPH_LOG_ERROR, "cannot define the template for %s", root);
    return rc;
}

static const struct mcph_tool files_write_tools[] = {
    {
        .name = "write_file",
        .title = "Write a file",
        .description = "Creates a file under the root, or replaces the contents of one, with "
                       "the given text. Never follows symbolic links, never writes a file "
                       "that has other hard links, and never writes a file that may be run (an "
                       "execute, setuid or setgid bit: refused, not changed); the files it "
                       "creates are never executable. Parent folders are made only when "
                       "create_parents is true.",
        .input_schema = "{\"type\":\"object\",\"properties\":{"
                        "\"path\":{\"type\":\"string\",\"description\":\"The file, relative to "
                        "the root\"},"
                        "\"content\":{\"type\":\"string\",\"description\":\"The whole new "
                        "contents (UTF-8 text)\"},"
                        "\"create_parents\":{\"type\":\"boolean\",\"description\":\"Make missing "
                        "parent folders (default false)\"}},"
                        "\"required\":[\"path\",\"content\"],\"additionalProperties\":false}",
        .output_schema = "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
                         "\"bytes\":{\"type\":\"integer\"},\"created\":{\"type\":\"boolean\"}},"
                         "\"required\":[\"path\",\"bytes\",\"created\"]}",
        .read_only_hint = MCPH_HINT_FALSE,
        .destructive_hint = MCPH_HINT_TRUE,
        .idempotent_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = files_tool_write_file,
    },
    {
        .name = "create_directory",
        .title = "Create a folder",
        .description = "Creates a folder under the root, and any missing folders on its way; "
                       "succeeds when it already exists. Never follows symbolic links.",
        .input_schema = "{\"type\":\"object\",\"properties\":{"
                        "\"path\":{\"type\":\"string\",\"description\":\"The folder, relative to "
                        "the root\"}},"
                        "\"required\":[\"path\"],\"additionalProperties\":false}",
        .output_schema = "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
                         "\"created\":{\"type\":\"boolean\"}},\"required\":[\"path\",\"created\"]}",
        .read_only_hint = MCPH_HINT_FALSE,
        .destructive_hint = MCPH_HINT_FALSE,
        .idempotent_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = files_tool_create_directory,
    },
    {0},
};

static int files_define_tools(struct files *fs)
{
    if (!fs->writable)
        return MCPH_OK;
    for (const struct mcph_tool *t = files_write_tools; t->name; t++) {
        int rc = fs->host->define_tool(fs->host, t);
        if (rc != MCPH_OK) {
            fs->host->log(fs->host, MCPH_LOG_ERROR, "cannot define the tool %s", t->name);
            return rc;
        }
    }
    return MCPH_OK;
}

/* --- Config. --- */

static int files_config_bool(struct files *fs, const char *key, int *out)
{
    const char *value = fs->host->config(fs->host, key);

    if (mcph_value_bool(value, out) == MCPH_OK)
        return MCPH_OK;
    fs->host->log(fs->host, MCPH_LOG_ERROR, "%s = '%s' is not valid; use yes or no", key,
                  value ? value : "");
    return MCPH_ERR_INVALID;
}

static int files_config_number(struct files *fs, const char *key, uint64_t min, uint64_t max,
                               uint64_t *out)
{
    const char *value = fs->host->config(fs->host, key);
    long long n;

    if (mcph_value_int(value, (long long)min, (long long)max, &n) == MCPH_OK) {
        *out = (uint64_t)n;
        return MCPH_OK;
    }
    fs->host->log(fs->host, MCPH_LOG_ERROR,
                  "%s = '%s' is not valid; use a whole number from %llu to %llu", key,
                  value ? value : "", (unsigned long long)min, (unsigned long long)max);
    return MCPH_ERR_INVALID;
}

static int files_config_sizes(struct files *fs)
{
    uint64_t resources, results, watches;

    int rc =
        files_config_number(fs, "max_read_bytes", 1, FILES_READ_BYTES_MAX, &fs->max_read_bytes);
    if (rc == MCPH_OK)
        rc = files_config_number(fs, "max_resources", 0, FILES_RESOURCES_MAX, &resources);
    if (rc == MCPH_OK)
        rc = files_config_number(fs, "max_results", 1, FILES_RESULTS_MAX, &results);
    if (rc == MCPH_OK)
        rc = files_config_number(fs, "max_watches", 1, FILES_WATCHES_MAX, &watches);
    if (rc != MCPH_OK)
        return rc;
    fs->max_resources = (size_t)resources;
    fs->max_results = (size_t)results;
    fs->max_watches = (size_t)watches;
    return MCPH_OK;
}

/* 1 when openat2 with the flags path.c uses works here. */
static int files_openat2_works(int root_fd)
{
    struct open_how how = {
        .flags = O_PATH | O_CLOEXEC,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    long fd = syscall(SYS_openat2, root_fd, ".", &how, sizeof(how));

    if (fd < 0)
        return 0;
    close((int)fd);
    return 1;
}

static int files_config_resolver(struct files *fs)
{
    const char *value = fs->host->config(fs->host, "resolver");
    int have = files_openat2_works(fs->root_fd);

    if (value && strcmp(value, "portable") == 0) {
        fs->resolver = FILES_RESOLVE_PORTABLE;
    } else if (value && (strcmp(value, "auto") == 0 || strcmp(value, "openat2") == 0)) {
        if (!have && strcmp(value, "openat2") == 0) {
            fs->host->log(fs->host, MCPH_LOG_ERROR,
                          "resolver = openat2, but this kernel refuses openat2 (Linux 5.6 or "
                          "newer is needed); use resolver = auto");
            return MCPH_ERR_INVALID;
        }
        fs->resolver = have ? FILES_RESOLVE_OPENAT2 : FILES_RESOLVE_PORTABLE;
    } else {
        fs->host->log(fs->host, MCPH_LOG_ERROR,
                      "resolver = '%s' is not valid; use auto, openat2 or portable",
                      value ? value : "");
        return MCPH_ERR_INVALID;
    }
    return MCPH_OK;
}

/* Opens the root; keeps its real path (for URIs) and an O_PATH descriptor (for every
 * resolution). */
static int files_config_root(struct files *fs)
{
    const char *root = fs->host->config_path(fs->host, "root");
    char buf[128];

    if (!root || !root[0]) {
        fs->host->log(fs->host, MCPH_LOG_ERROR, "root is empty; set it to the folder to serve");
        return MCPH_ERR_INVALID;
    }
    fs->root = realpath(root, NULL);
    if (fs->root)
        fs->root_fd = open(fs->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (!fs->root || fs->root_fd < 0) {
        fs->host->log(fs->host, MCPH_LOG_ERROR,
                      "root = '%s' cannot be served: %s; set root to an existing folder", root,
                      files_strerror(errno, buf, sizeof(buf)));
        return MCPH_ERR_INVALID;
    }
    if (strcmp(fs->root, "/") == 0)
        fs->root[0] = '\0'; /* paths are joined as root + "/" + rel */
    char *enc = files_uri_encode(fs->root);
    fs->uri_root = enc ? malloc(strlen(enc) + sizeof("file://")) : NULL;
    if (fs->uri_root)
        strcat(strcpy(fs->uri_root, "file://"), enc);
    free(enc);
    return fs->uri_root ? MCPH_OK : MCPH_ERR_NOMEM;
}

static int files_config_read(struct files *fs)
{
    int rc = files_config_root(fs);

    if (rc == MCPH_OK)
        rc = files_config_bool(fs, "writable", &fs->writable);
    if (rc == MCPH_OK)
        rc = files_config_bool(fs, "hidden", &fs->hidden);
    if (rc == MCPH_OK)
        rc = files_config_bool(fs, "hard_links", &fs->hard_links);
    if (rc == MCPH_OK)
        rc = files_config_bool(fs, "watch", &fs->watch);
    if (rc == MCPH_OK)
        rc = files_config_sizes(fs);
    if (rc == MCPH_OK)
        rc = files_config_resolver(fs);
    return rc;
}

/* --- Lifecycle. --- */

static void files_free(struct files *fs)
{
    if (!fs)
        return;
    files_watch_stop(fs->watch_state);
    if (fs->root_fd >= 0)
        close(fs->root_fd);
    free(fs->root);
    free(fs->uri_root);
    free(fs);
}

static int files_init(const struct mcph_host *host, void **state)
{
    struct files *fs = calloc(1, sizeof(*fs));

    if (!fs) {
        host->log(host, MCPH_LOG_ERROR, "cannot allocate the plugin's state: out of memory");
        return MCPH_ERR_NOMEM;
    }
    fs->host = host;
    fs->root_fd = -1;
    int rc = files_config_read(fs);
    if (rc == MCPH_OK)
        rc = files_define_tools(fs);
    if (rc == MCPH_OK)
        rc = files_define_template(fs);
    /* Watch first, then walk: a change made while the walk runs is seen (and asks for a
     * rebuild), where one made between a walk and a later watch would be lost. */
    if (rc == MCPH_OK && fs->watch)
        rc = files_watch_start(fs, &fs->watch_state);
    if (rc == MCPH_OK)
        rc = files_define_resources(fs);
    if (rc != MCPH_OK) {
        if (rc == MCPH_ERR_NOMEM)
            host->log(host, MCPH_LOG_ERROR, "out of memory while starting");
        files_free(fs);
        return rc;
    }
    host->log(host, MCPH_LOG_DEBUG, "serving %s (%s, %s resolver%s)", fs->root[0] ? fs->root : "/",
              fs->writable ? "writable" : "read-only",
              fs->resolver == FILES_RESOLVE_OPENAT2 ? "openat2" : "portable",
              fs->watch ? ", watching" : "");
    *state = fs;
    return MCPH_OK;
}

static void files_shutdown(void *state)
{
    files_free(state);
}

/* --- The descriptor. --- */

static const struct mcph_tool files_tools[] = {
    {
        .name = "list_directory",
        .title = "List a folder",
        .description = "Lists a folder under the root: each entry's name, type (file, "
                       "directory, symlink, ...) and, for files, size in bytes. Sorted by name; "
                       "at most max_results entries.",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
                        "\"description\":\"The folder, relative to the root (default: the "
                        "root)\"}},\"additionalProperties\":false}",
        .output_schema =
            "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
            "\"entries\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
            "\"name\":{\"type\":\"string\"},\"type\":{\"type\":\"string\",\"enum\":[\"file\","
            "\"directory\",\"symlink\",\"fifo\",\"socket\",\"char_device\",\"block_device\","
            "\"other\"]},\"size\":{\"type\":\"integer\"}},\"required\":[\"name\",\"type\"]}},"
            "\"truncated\":{\"type\":\"boolean\"}},\"required\":[\"path\",\"entries\","
            "\"truncated\"]}",
        .read_only_hint = MCPH_HINT_TRUE,
        .idempotent_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = files_tool_list_directory,
    },
    {
        .name = "read_file",
        .title = "Read a file",
        .description = "Reads a file under the root: text as text, images as images, other "
                       "bytes as an embedded resource. start_line and end_line (1-based, "
                       "inclusive) read a part of a text file, also one larger than "
                       "max_read_bytes; the output stops at max_read_bytes and says where to "
                       "continue. A file of more than one hard link is refused unless the "
                       "server allows those.",
        .input_schema = "{\"type\":\"object\",\"properties\":{"
                        "\"path\":{\"type\":\"string\",\"description\":\"The file, relative to "
                        "the root\"},"
                        "\"start_line\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
                        "\"The first line to read (default 1)\"},"
                        "\"end_line\":{\"type\":\"integer\",\"minimum\":1,\"description\":"
                        "\"The last line to read (default: the end)\"}},"
                        "\"required\":[\"path\"],\"additionalProperties\":false}",
        .read_only_hint = MCPH_HINT_TRUE,
        .idempotent_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = files_tool_read_file,
    },
    {
        .name = "find_files",
        .title = "Find files",
        .description = "Finds the files whose path (from `path`, default the root) matches a "
                       "glob: * and ? within a name, [abc] sets, ** for any number of folders "
                       "(e.g. **/*.md); a pattern without / matches file names at any depth. "
                       "Sorted; at most max_results paths, relative to the root.",
        .input_schema = "{\"type\":\"object\",\"properties\":{"
                        "\"pattern\":{\"type\":\"string\",\"description\":\"The glob, e.g. "
                        "**/*.md or *.c\"},"
                        "\"path\":{\"type\":\"string\",\"description\":\"The folder to look in, "
                        "relative to the root (default: the root)\"}},"
                        "\"required\":[\"pattern\"],\"additionalProperties\":false}",
        .output_schema = "{\"type\":\"object\",\"properties\":{\"files\":{\"type\":\"array\","
                         "\"items\":{\"type\":\"string\"}},\"truncated\":{\"type\":\"boolean\"}},"
                         "\"required\":[\"files\",\"truncated\"]}",
        .read_only_hint = MCPH_HINT_TRUE,
        .idempotent_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = files_tool_find_files,
    },
    {
        .name = "search_files",
        .title = "Search in files",
        .description = "Searches the text files under `path` (default the root) for a fixed "
                       "string, optionally only those matching a glob, and returns each "
                       "matching line as path:line: text. Binary files, files over "
                       "max_read_bytes and files of more than one hard link (unless the server "
                       "allows those) are skipped; at most max_results matches.",
        .input_schema = "{\"type\":\"object\",\"properties\":{"
                        "\"query\":{\"type\":\"string\",\"description\":\"The text to look for "
                        "(a fixed string, one line)\"},"
                        "\"path\":{\"type\":\"string\",\"description\":\"The folder to search, "
                        "relative to the root (default: the root)\"},"
                        "\"glob\":{\"type\":\"string\",\"description\":\"Only files matching "
                        "this glob, as in find_files\"},"
                        "\"ignore_case\":{\"type\":\"boolean\",\"description\":\"Ignore the case "
                        "of ASCII letters (default false)\"}},"
                        "\"required\":[\"query\"],\"additionalProperties\":false}",
        .output_schema =
            "{\"type\":\"object\",\"properties\":{\"matches\":{\"type\":\"array\",\"items\":{"
            "\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"line\":{"
            "\"type\":\"integer\"},\"text\":{\"type\":\"string\"}},\"required\":[\"path\","
            "\"line\",\"text\"]}},\"truncated\":{\"type\":\"boolean\"},\"files_searched\":{"
            "\"type\":\"integer\"},\"files_skipped\":{\"type\":\"integer\"}},\"required\":["
            "\"matches\",\"truncated\",\"files_searched\",\"files_skipped\"]}",
        .read_only_hint = MCPH_HINT_TRUE,
        .idempotent_hint = MCPH_HINT_TRUE,
        .open_world_hint = MCPH_HINT_FALSE,
        .call = files_tool_search_files,
    },
    {0},
};

static const struct mcph_config_key files_config_keys[] = {
    {
        .name = "root",
        .description = "The folder to serve (relative paths are relative to the INI file). "
                       "Nothing outside it is ever read or written.",
        .required = 1,
    },
    {
        .name = "writable",
        .description = "yes: also serve write_file and create_directory (default no)",
        .default_value = "no",
    },
    {
        .name = "max_read_bytes",
        .description = "The largest file read whole (resource or read_file), and written, in "
                       "bytes, 1 to 16777216 (default 1048576); larger files can be read by "
                       "line range",
        .default_value = "1048576",
    },
    {
        .name = "max_resources",
        .description = "How many files (sorted by path) are listed as resources, 0 to 4096 "
                       "(default 1000); the template reads the others",
        .default_value = "1000",
    },
    {
        .name = "max_results",
        .description = "The most entries list_directory, find_files or search_files return, "
                       "1 to 10000 (default 500)",
        .default_value = "500",
    },
    {
        .name = "watch",
        .description = "yes: notify subscribers of changed files and refresh the resource "
                       "list when files appear or go away (default yes)",
        .default_value = "yes",
    },
    {
        .name = "max_watches",
        .description = "The most folders watched for changes, 1 to 8192 (default 1024)",
        .default_value = "1024",
    },
    {
        .name = "hidden",
        .description = "yes: serve dot-files and dot-folders too (default no: they are not "
                       "listed, and are refused by name and through symbolic links)",
        .default_value = "no",
    },
    {
        .name = "hard_links",
        .description = "yes: also read files that have more than one hard link (default no: "
                       "such a file is not listed as a resource, is skipped by search_files and "
                       "refused by read_file, since its other name may be outside the root, "
                       "where it was not meant to be shared). write_file never writes one",
        .default_value = "no",
    },
    {
        .name = "resolver",
        .description = "How paths are confined: auto (openat2 where the kernel has it, else "
                       "a portable walk), openat2, or portable (default auto). With hidden = "
                       "no, a path with a symbolic link in it always takes the portable walk, "
                       "which sees where the link leads",
        .default_value = "auto",
    },
    {0},
};

/* Handlers only read the struct init() made; the watcher thread keeps to its own. What is
 * served comes from the folder, so every reload builds the instance again. */
static const struct mcph_plugin files_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "files",
    .version = "1.0.0",
    .description = "The files under one folder, read-only unless configured writable",
    .flags = MCPH_PLUGIN_THREAD_SAFE | MCPH_PLUGIN_REBUILD_ON_RELOAD,
    .tools = files_tools,
    .config_keys = files_config_keys,
    .init = files_init,
    .shutdown = files_shutdown,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &files_plugin;
}
