/*
 * tools.c: the files plugin's tools. Every path a tool is given goes through
 * files_path_check, then is opened beneath the root (path.c); every refusal is a tool
 * error that says what was refused and why, so the model can correct its call. Results are
 * capped (max_results entries, max_read_bytes bytes) and say so when cut.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"

/* Bytes read at a time when a file is streamed (line ranges). */
#define FILES_CHUNK 65536

/* --- Arguments. --- */

static int files_bad_arg(const struct mcph_host *host, struct mcph_call *call, const char *name,
                         const char *type, int rc)
{
    if (rc == MCPH_ERR_ABSENT)
        return host->tool_error(call, "missing the argument \"%s\" (%s)", name, type);
    if (rc == MCPH_ERR_TYPE)
        return host->tool_error(call, "the argument \"%s\" must be %s", name, type);
    return rc;
}

/* Reads the path argument `name` (or `fallback` when absent and fallback is not NULL) and
 * checks it. On MCPH_OK *rel is owned by the caller. Otherwise the tool error is already
 * made: return *result. */
static int files_arg_path(const struct files *fs, struct mcph_call *call, const char *name,
                          const char *fallback, char **rel, int *result)
{
    const struct mcph_host *host = fs->host;
    struct files_error err;
    const char *path = fallback;

    int rc = host->arg_string(call, name, &path);
    if (rc != MCPH_OK && !(rc == MCPH_ERR_ABSENT && fallback)) {
        *result = files_bad_arg(host, call, name, "a path relative to the root", rc);
        return MCPH_ERR_INVALID;
    }
    rc = files_path_check(fs, path, rel, &err);
    if (rc != MCPH_OK) {
        *result = rc == MCPH_ERR_NOMEM ? rc : host->tool_error(call, "%s", err.text);
        return rc;
    }
    return MCPH_OK;
}

/* An optional boolean argument: *value keeps its default when absent. */
static int files_arg_bool(const struct mcph_host *host, struct mcph_call *call, const char *name,
                          int *value, int *result)
{
    int rc = host->arg_bool(call, name, value);
    if (rc == MCPH_OK || rc == MCPH_ERR_ABSENT)
        return MCPH_OK;
    *result = files_bad_arg(host, call, name, "true or false", rc);
    return rc;
}

/* A text argument of 1 to FILES_QUERY_MAX bytes without control characters. */
static int files_arg_query(const struct mcph_host *host, struct mcph_call *call, const char *name,
                           int optional, const char **value, int *result)
{
    int rc = host->arg_string(call, name, value);
    if (rc == MCPH_ERR_ABSENT && optional) {
        *value = NULL;
        return MCPH_OK;
    }
    if (rc != MCPH_OK) {
        *result = files_bad_arg(host, call, name, "a string", rc);
        return rc;
    }
    size_t len = strlen(*value);
    if (len == 0 || len > FILES_QUERY_MAX) {
        *result = host->tool_error(call,
                                   "the argument \"%s\" must be 1 to %d bytes long (it is "
                                   "%zu)",
                                   name, FILES_QUERY_MAX, len);
        return MCPH_ERR_INVALID;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)(*value)[i];
        if (c < 0x20 || c == 0x7f) {
            *result = host->tool_error(call,
                                       "the argument \"%s\" must be one line of text "
                                       "without control characters (byte 0x%02x at %zu)",
                                       name, c, i);
            return MCPH_ERR_INVALID;
        }
    }
    return MCPH_OK;
}

/* Hands the text and the structured result over, or reports running out of memory. */
static int files_emit(const struct mcph_host *host, struct mcph_call *call,
                      struct mcph_strbuf *text, struct mcph_strbuf *json)
{
    int rc = MCPH_ERR_NOMEM;

    if (!text->nomem && !json->nomem) {
        rc = host->text(call, text->buf);
        if (rc == MCPH_OK)
            rc = host->structured(call, json->buf);
    }
    mcph_sb_release(text);
    mcph_sb_release(json);
    return rc;
}

/* --- list_directory. --- */

static void files_list_entry(struct mcph_strbuf *text, struct mcph_strbuf *json,
                             const struct files_dirent *e, int first)
{
    const char *type = files_type_name(e->st.st_mode);

    mcph_sb_addf(text, "%-10s %s%s", type, e->name, S_ISDIR(e->st.st_mode) ? "/" : "");
    if (S_ISREG(e->st.st_mode))
        mcph_sb_addf(text, "  (%" PRIu64 " bytes)", (uint64_t)e->st.st_size);
    mcph_sb_addstr(text, "\n");

    mcph_sb_addstr(json, first ? "{\"name\":" : ",{\"name\":");
    mcph_sb_addjson(json, e->name, strlen(e->name));
    mcph_sb_addf(json, ",\"type\":\"%s\"", type);
    if (S_ISREG(e->st.st_mode))
        mcph_sb_addf(json, ",\"size\":%" PRIu64, (uint64_t)e->st.st_size);
    mcph_sb_addstr(json, "}");
}

static int files_list_emit(const struct files *fs, struct mcph_call *call, const char *rel,
                           const struct files_dirlist *list, int truncated)
{
    struct mcph_strbuf text, json;
    size_t shown = list->len < fs->max_results ? list->len : fs->max_results;
    const char *name = rel[0] ? rel : ".";

    mcph_sb_init(&text);
    mcph_sb_init(&json);
    mcph_sb_addf(&text, "%s: %zu entr%s\n", name, list->len, list->len == 1 ? "y" : "ies");
    mcph_sb_addstr(&json, "{\"path\":");
    mcph_sb_addjson(&json, name, strlen(name));
    mcph_sb_addstr(&json, ",\"entries\":[");
    for (size_t i = 0; i < shown; i++)
        files_list_entry(&text, &json, &list->items[i], i == 0);
    truncated = truncated || shown < list->len;
    if (truncated)
        mcph_sb_addf(&text,
                     "[only the first %zu entries are shown (max_results); list a "
                     "sub-folder, or use find_files with a pattern]\n",
                     shown);
    mcph_sb_addf(&json, "],\"truncated\":%s}", truncated ? "true" : "false");
    return files_emit(fs->host, call, &text, &json);
}

int files_tool_list_directory(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct files *fs = state;
    struct files_dirlist list = {0};
    struct files_error err;
    char *rel;
    int fd, result, truncated;

    if (files_arg_path(fs, call, "path", ".", &rel, &result) != MCPH_OK)
        return result;
    int rc = files_open_dir(fs, rel, &fd, &err);
    if (rc != MCPH_OK) {
        free(rel);
        return rc == MCPH_ERR_NOMEM ? rc : host->tool_error(call, "%s", err.text);
    }
    rc = files_dir_list(fs, fd, &list, &truncated);
    if (rc == MCPH_OK)
        rc = files_list_emit(fs, call, rel, &list, truncated);
    else if (rc == MCPH_ERR)
        rc = host->tool_error(call, "the folder \"%s\" could not be read", rel[0] ? rel : ".");
    files_dirlist_release(&list);
    free(rel);
    return rc;
}

/* --- read_file. --- */

/* The whole file: text when it is UTF-8 text, an image for image types, else the bytes as
 * an embedded resource. */
static int files_read_whole(const struct files *fs, struct mcph_call *call, const char *rel)
{
    const struct mcph_host *host = fs->host;
    struct files_error err;
    char *data;
    size_t len;

    int rc = files_read_all(fs, rel, &data, &len, &err);
    if (rc != MCPH_OK)
        return rc == MCPH_ERR_NOMEM ? rc : host->tool_error(call, "%s", err.text);
    const char *mime = files_content_type(rel, data, len);
    if (files_utf8_text(data, len)) {
        rc = host->text(call, data);
    } else if (strncmp(mime, "image/", 6) == 0) {
        rc = host->image(call, data, len, mime);
    } else {
        char *uri = files_uri_of(fs, rel);
        rc = uri ? host->embedded_blob(call, uri, mime, data, len) : MCPH_ERR_NOMEM;
        free(uri);
    }
    free(data);
    return rc;
}

/* A line range being copied out of a stream of chunks. */
struct files_lines {
    uint64_t start, end; /* the range asked for, 1-based and inclusive */
    uint64_t line;       /* the line the next byte belongs to */
    uint64_t last;       /* the last line copied whole */
    size_t cap;          /* bytes of output allowed */
    size_t line_mark;    /* out.len where the current line began */
    int partial;         /* the current line has bytes (it has no '\n' yet) */
    int full;            /* the output reached cap */
    int cut;             /* the first line alone was over cap and was cut */
    struct mcph_strbuf out;
};

/* Copies the bytes of one line segment (ending in '\n' or not) when it is in range. */
static void files_lines_segment(struct files_lines *l, const char *p, size_t n)
{
    if (l->line < l->start || l->line > l->end || l->full)
        return;
    if (l->out.len + n <= l->cap) {
        mcph_sb_add(&l->out, p, n);
        return;
    }
    l->full = 1;
    if (l->line == l->start) {
        /* Even the first line is too long: show its beginning. */
        size_t room = l->cap - l->out.len;
        mcph_sb_add(&l->out, p, files_utf8_cut(p, room));
        l->cut = 1;
    } else {
        mcph_sb_setlen(&l->out, l->line_mark); /* drop the part of a line that does not fit */
    }
}

/* Feeds one chunk; returns 1 once the range is complete. */
static int files_lines_feed(struct files_lines *l, const char *p, size_t n)
{
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t seg = nl ? (size_t)(nl - p) + 1 : n;
        files_lines_segment(l, p, seg);
        l->partial = nl == NULL;
        if (nl) {
            if (l->line >= l->start && l->line <= l->end && !l->full)
                l->last = l->line;
            l->line++;
            l->line_mark = l->out.len;
        }
        p += seg;
        n -= seg;
        if (l->line > l->end || l->full)
            return 1;
    }
    return 0;
}

/* Reads fd through the line range. Returns MCPH_OK with *failed clear when the range was
 * read, or the status of the tool error made (with *failed set), or MCPH_ERR_NOMEM. */
static int files_lines_read(const struct files *fs, struct mcph_call *call, int fd,
                            struct files_lines *l, const char *shown, int *eof, int *failed)
{
    char *chunk = malloc(FILES_CHUNK);
    uint64_t scanned = 0;
    int rc = MCPH_OK;

    *eof = 0;
    *failed = 0;
    if (!chunk)
        return MCPH_ERR_NOMEM;
    for (;;) {
        ssize_t got = read(fd, chunk, FILES_CHUNK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *failed = 1;
            rc = fs->host->tool_error(call, "\"%s\" could not be read", shown);
            break;
        }
        if (got == 0) {
            *eof = 1;
            break;
        }
        scanned += (uint64_t)got;
        if (files_lines_feed(l, chunk, (size_t)got))
            break;
        if (scanned >= FILES_SCAN_BYTES_MAX || fs->host->cancelled(call)) {
            *failed = 1;
            rc = fs->host->tool_error(call,
                                      "line %" PRIu64 " of \"%s\" was not reached within the "
                                      "first %u bytes; ask for an earlier range",
                                      l->start, shown, FILES_SCAN_BYTES_MAX);
            break;
        }
    }
    free(chunk);
    return rc;
}

/* Sends the lines copied, with a note when the output was cut. */
static int files_lines_emit(const struct files *fs, struct mcph_call *call, struct files_lines *l,
                            const char *shown, int eof)
{
    const struct mcph_host *host = fs->host;
    uint64_t last = l->last;

    if (eof && l->partial && !l->full && l->line >= l->start && l->line <= l->end)
        last = l->line; /* the last line has no '\n' */
    if (l->out.nomem)
        return MCPH_ERR_NOMEM;
    if (!l->cut && last < l->start) {
        uint64_t lines = l->line - 1 + (l->partial ? 1 : 0);
        return host->tool_error(
            call, "\"%s\" has %" PRIu64 " line%s; start_line %" PRIu64 " is past its end", shown,
            lines, lines == 1 ? "" : "s", l->start);
    }
    if (!files_utf8_text(l->out.buf, l->out.len))
        return host->tool_error(call,
                                "\"%s\" is not text (not UTF-8, or it holds NUL bytes); read it "
                                "whole, without a line range",
                                shown);
    int rc = host->text(call, l->out.buf);
    if (rc == MCPH_OK && l->cut)
        rc = host->text(call, "[line was cut: it is longer than max_read_bytes]");
    if (rc == MCPH_OK && l->full && !l->cut) {
        char note[200];
        snprintf(note, sizeof(note),
                 "[output stopped at max_read_bytes after line %" PRIu64
                 "; continue with start_line %" PRIu64 "]",
                 last, last + 1);
        rc = host->text(call, note);
    }
    return rc;
}

static int files_read_range(const struct files *fs, struct mcph_call *call, const char *rel,
                            uint64_t start, uint64_t end)
{
    struct files_lines l = {.start = start, .end = end, .line = 1, .cap = fs->max_read_bytes};
    struct files_error err;
    struct stat st;
    char shown[160];
    int fd, eof, failed;

    files_show(rel, shown, sizeof(shown));
    int rc = files_open_regular(fs, rel, &fd, &st, &err);
    if (rc != MCPH_OK)
        return rc == MCPH_ERR_NOMEM ? rc : fs->host->tool_error(call, "%s", err.text);
    mcph_sb_init(&l.out);
    rc = files_lines_read(fs, call, fd, &l, shown, &eof, &failed);
    close(fd);
    if (rc == MCPH_OK && !failed)
        rc = files_lines_emit(fs, call, &l, shown, eof);
    mcph_sb_release(&l.out);
    return rc;
}

/* Reads start_line and end_line; *ranged is set when either is given. */
static int files_arg_range(const struct mcph_host *host, struct mcph_call *call, uint64_t *start,
                           uint64_t *end, int *ranged, int *result)
{
    int64_t s = 1, e = INT64_MAX;
    int rs = host->arg_integer(call, "start_line", &s);
    int re = host->arg_integer(call, "end_line", &e);

    *ranged = rs == MCPH_OK || re == MCPH_OK;
    if (rs != MCPH_OK && rs != MCPH_ERR_ABSENT) {
        *result = files_bad_arg(host, call, "start_line", "an integer of 1 or more", rs);
        return rs;
    }
    if (re != MCPH_OK && re != MCPH_ERR_ABSENT) {
        *result = files_bad_arg(host, call, "end_line", "an integer of 1 or more", re);
        return re;
    }
    if (s < 1 || e < s) {
        *result = host->tool_error(call,
                                   "start_line (%" PRId64 ") must be 1 or more, and "
                                   "end_line (%" PRId64 ") no less than start_line",
                                   s, e);
        return MCPH_ERR_INVALID;
    }
    *start = (uint64_t)s;
    *end = (uint64_t)e;
    return MCPH_OK;
}

int files_tool_read_file(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct files *fs = state;
    uint64_t start, end;
    int ranged, result;
    char *rel;

    if (files_arg_range(host, call, &start, &end, &ranged, &result) != MCPH_OK)
        return result;
    if (files_arg_path(fs, call, "path", NULL, &rel, &result) != MCPH_OK)
        return result;
    int rc = ranged ? files_read_range(fs, call, rel, start, end) : files_read_whole(fs, call, rel);
    free(rel);
    return rc;
}

/* --- find_files. --- */

struct files_found {
    const struct files *fs;
    const char *pattern;
    struct mcph_strbuf text, json;
    size_t count;
    int capped;
};

static int files_find_visit(void *ctx, const char *rel, const char *from, int dirfd,
                            const char *name, const struct stat *st)
{
    struct files_found *f = ctx;

    (void)dirfd;
    (void)name;
    (void)st;
    if (!files_glob_match(f->pattern, from))
        return 0;
    if (f->count == f->fs->max_results) {
        f->capped = 1;
        return 1;
    }
    mcph_sb_addf(&f->text, "%s\n", rel);
    mcph_sb_addstr(&f->json, f->count ? "," : "");
    mcph_sb_addjson(&f->json, rel, strlen(rel));
    f->count++;
    return 0;
}

static int files_find_emit(struct files_found *f, struct mcph_call *call, const char *rel,
                           const struct files_walk *w)
{
    int truncated = f->capped || w->truncated;

    if (f->count == 0)
        mcph_sb_addf(&f->text, "no file under \"%s\" matches \"%s\"\n", rel[0] ? rel : ".",
                     f->pattern);
    if (f->capped)
        mcph_sb_addf(&f->text,
                     "[only the first %zu matches are shown (max_results); "
                     "narrow the pattern or the path]\n",
                     f->count);
    else if (w->truncated)
        mcph_sb_addf(&f->text,
                     "[the search stopped early: more than %d entries, or "
                     "folders deeper than %d levels; narrow the path]\n",
                     FILES_WALK_MAX, FILES_DEPTH_MAX);
    mcph_sb_addf(&f->json, "],\"truncated\":%s}", truncated ? "true" : "false");
    return files_emit(f->fs->host, call, &f->text, &f->json);
}

int files_tool_find_files(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct files *fs = state;
    struct files_found f = {.fs = fs};
    struct files_walk w = {.fs = fs, .call = call, .visit = files_find_visit, .ctx = &f};
    struct files_error err;
    int result;
    char *rel;

    if (files_arg_query(host, call, "pattern", 0, &f.pattern, &result) != MCPH_OK)
        return result;
    if (files_arg_path(fs, call, "path", ".", &rel, &result) != MCPH_OK)
        return result;
    mcph_sb_init(&f.text);
    mcph_sb_init(&f.json);
    mcph_sb_addstr(&f.json, "{\"files\":[");
    int rc = files_walk_run(&w, rel, &err);
    if (rc == MCPH_OK) {
        rc = files_find_emit(&f, call, rel, &w);
    } else {
        mcph_sb_release(&f.text);
        mcph_sb_release(&f.json);
        rc = rc == MCPH_ERR_NOMEM ? rc : host->tool_error(call, "%s", err.text);
    }
    free(rel);
    return rc;
}

/* --- search_files. --- */

/* Bytes of a file searched between two looks at whether the call was cancelled. */
#define FILES_SEARCH_SLICE (4u * 1024u * 1024u)

struct files_search {
    const struct files *fs;
    struct mcph_call *call; /* borrowed for the handler */
    const char *query;      /* borrowed: the argument */
    size_t query_len;
    char *folded; /* owned: the query with ASCII letters lowered (ignore_case), else NULL */
    const char *glob;
    int ignore_case;
    char *fold_buf; /* owned: the folded text of the file being searched (ignore_case) */
    size_t fold_cap;
    struct mcph_strbuf text, json;
    size_t count;
    size_t searched, skipped;
    uint64_t scanned;
    int capped, budget, cancelled;
};

/* Copies n bytes with the ASCII letters lowered (bytes of UTF-8 sequences are >= 0x80 and
 * stay as they are). */
static void files_fold(char *out, const char *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)in[i];
        out[i] = (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
    }
}

/* Checks that data is text, and makes what the query is looked for in (*hay): data itself,
 * or (ignore_case) a copy folded once, so that the search stays one linear memmem. Goes a
 * slice at a time, and stops early when the call was cancelled (s->cancelled set). *text is
 * 0 for a file that is not UTF-8 text. */
static int files_search_prepare(struct files_search *s, const char *data, size_t len,
                                const char **hay, int *text)
{
    if (s->ignore_case && len > s->fold_cap) {
        char *grown = realloc(s->fold_buf, len);
        if (!grown)
            return MCPH_ERR_NOMEM;
        s->fold_buf = grown;
        s->fold_cap = len;
    }
    *text = 1;
    for (size_t off = 0; off < len && *text && !s->cancelled;) {
        /* Slices end on a character, so that each is checked whole. */
        size_t n = len - off > FILES_SEARCH_SLICE ? files_utf8_cut(data + off, FILES_SEARCH_SLICE)
                                                  : len - off;
        n = n ? n : len - off;
        *text = files_utf8_text(data + off, n);
        if (s->ignore_case)
            files_fold(s->fold_buf + off, data + off, n);
        off += n;
        s->cancelled = s->fs->host->cancelled(s->call);
    }
    *hay = s->ignore_case && len > 0 ? s->fold_buf : data;
    return MCPH_OK;
}

/* Counts the '\n' in [p, end); *line moves to where the line after the last one starts. */
static uint64_t files_count_lines(const char *p, const char *end, const char **line)
{
    uint64_t n = 0;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            break;
        n++;
        p = nl + 1;
        *line = p;
    }
    return n;
}

/* The end of the slice that starts at p: FILES_SEARCH_SLICE bytes on, then to the end of
 * that line (the query holds no '\n', so no match spans two slices). */
static const char *files_slice_end(const char *p, const char *end)
{
    if ((size_t)(end - p) <= FILES_SEARCH_SLICE)
        return end;
    const char *nl = memchr(p + FILES_SEARCH_SLICE, '\n', (size_t)(end - p - FILES_SEARCH_SLICE));
    return nl ? nl + 1 : end;
}

/* Adds one match: "path:line: text", the text cut to FILES_LINE_SHOWN_MAX bytes. */
static void files_search_add(struct files_search *s, const char *rel, uint64_t line_no,
                             const char *line, size_t n)
{
    char shown[FILES_LINE_SHOWN_MAX + 4];
    size_t keep = n > FILES_LINE_SHOWN_MAX ? files_utf8_cut(line, FILES_LINE_SHOWN_MAX) : n;

    memcpy(shown, line, keep);
    strcpy(shown + keep, keep < n ? "..." : "");
    mcph_sb_addf(&s->text, "%s:%" PRIu64 ": %s\n", rel, line_no, shown);
    mcph_sb_addstr(&s->json, s->count ? ",{\"path\":" : "{\"path\":");
    mcph_sb_addjson(&s->json, rel, strlen(rel));
    mcph_sb_addf(&s->json, ",\"line\":%" PRIu64 ",\"text\":", line_no);
    mcph_sb_addjson(&s->json, shown, strlen(shown));
    mcph_sb_addstr(&s->json, "}");
    s->count++;
}

/* One matching line (n bytes at line, its '\n' excluded): added, or the search stops at
 * max_results (returns 1). */
static int files_search_match(struct files_search *s, const char *rel, uint64_t line_no,
                              const char *line, size_t n)
{
    if (n > 0 && line[n - 1] == '\r')
        n--;
    if (s->count == s->fs->max_results) {
        s->capped = 1;
        return 1;
    }
    files_search_add(s, rel, line_no, line, n);
    return 0;
}

/* Searches one file's text: data, and hay where the query is looked for (data itself, or
 * data folded), both len bytes. One memmem per slice or per match: linear in len, whatever
 * the query. Returns 1 once max_results matches were found or the call was cancelled. */
static int files_search_text(struct files_search *s, const char *rel, const char *data,
                             const char *hay, size_t len)
{
    const char *needle = s->folded ? s->folded : s->query;
    const char *p = hay, *end = hay + len, *line = hay;
    uint64_t line_no = 1;

    while (p < end) {
        const char *stop = files_slice_end(p, end);
        const char *at = memmem(p, (size_t)(stop - p), needle, s->query_len);
        if (!at) {
            line_no += files_count_lines(p, stop, &line);
            p = stop;
            if (s->fs->host->cancelled(s->call)) {
                s->cancelled = 1;
                return 1;
            }
            continue;
        }
        line_no += files_count_lines(p, at, &line);
        const char *eol = memchr(at, '\n', (size_t)(end - at));
        const char *line_end = eol ? eol : end;
        if (files_search_match(s, rel, line_no, data + (line - hay), (size_t)(line_end - line)))
            return 1;
        p = eol ? eol + 1 : end;
        line = p;
        line_no++;
    }
    return 0;
}

/* Reads the file `name` in dirfd for searching. The walk reached dirfd without following
 * links, and the name is opened the same way. Returns MCPH_OK, MCPH_ERR_NOMEM, or
 * MCPH_ERR when it is to be skipped (gone, unreadable, not a regular file, of several hard
 * links without hard_links = yes). */
static int files_search_read(const struct files_search *s, int dirfd, const char *name, char **data,
                             size_t *len)
{
    struct stat st;

    int fd = files_open_at(s->fs, dirfd, name, &st);
    if (fd < 0)
        return MCPH_ERR;
    int rc = files_read_fd(fd, (size_t)st.st_size, (size_t)s->fs->max_read_bytes, data, len);
    close(fd);
    return rc;
}

static int files_search_visit(void *ctx, const char *rel, const char *from, int dirfd,
                              const char *name, const struct stat *st)
{
    struct files_search *s = ctx;
    char *data;
    const char *hay;
    size_t len;

    if (s->fs->host->cancelled(s->call)) {
        s->cancelled = 1;
        return 1;
    }
    if (s->glob && !files_glob_match(s->glob, from))
        return 0;
    if ((uint64_t)st->st_size > s->fs->max_read_bytes) {
        s->skipped++;
        return 0;
    }
    if (s->scanned + (uint64_t)st->st_size > FILES_SCAN_BYTES_MAX) {
        s->budget = 1;
        return 1;
    }
    int rc = files_search_read(s, dirfd, name, &data, &len);
    if (rc == MCPH_ERR_NOMEM)
        return rc;
    if (rc != MCPH_OK) {
        s->skipped++;
        return 0;
    }
    s->scanned += len;
    int text;
    rc = files_search_prepare(s, data, len, &hay, &text);
    if (rc == MCPH_OK && s->cancelled) {
        rc = 1;
    } else if (rc == MCPH_OK && !text) {
        s->skipped++; /* binary */
    } else if (rc == MCPH_OK) {
        s->searched++;
        rc = files_search_text(s, rel, data, hay, len);
    }
    free(data);
    return rc;
}

static int files_search_emit(struct files_search *s, struct mcph_call *call, const char *rel,
                             const struct files_walk *w)
{
    int truncated = s->capped || s->budget || w->truncated;

    if (s->count == 0)
        mcph_sb_addf(&s->text, "\"%s\" was not found in %zu file%s under \"%s\"\n", s->query,
                     s->searched, s->searched == 1 ? "" : "s", rel[0] ? rel : ".");
    if (s->capped)
        mcph_sb_addf(&s->text,
                     "[only the first %zu matches are shown (max_results); "
                     "narrow the query, the path or the glob]\n",
                     s->count);
    else if (s->budget || w->truncated)
        mcph_sb_addf(&s->text,
                     "[the search stopped early (over %u bytes or %d entries); "
                     "narrow the path or the glob]\n",
                     FILES_SCAN_BYTES_MAX, FILES_WALK_MAX);
    if (s->skipped > 0)
        mcph_sb_addf(&s->text,
                     "[%zu file%s skipped: binary, unreadable, over max_read_bytes, or "
                     "of more than one hard link]\n",
                     s->skipped, s->skipped == 1 ? "" : "s");
    mcph_sb_addf(&s->json, "],\"truncated\":%s,\"files_searched\":%zu,\"files_skipped\":%zu}",
                 truncated ? "true" : "false", s->searched, s->skipped);
    return files_emit(s->fs->host, call, &s->text, &s->json);
}

/* Walks rel and answers: the matches, or the tool error that stopped the search. */
static int files_search_run(struct files_search *s, struct files_walk *w, const char *rel)
{
    const struct mcph_host *host = s->fs->host;
    struct files_error err;
    int rc;

    if (s->ignore_case) {
        s->folded = malloc(s->query_len + 1);
        if (!s->folded)
            return MCPH_ERR_NOMEM;
        files_fold(s->folded, s->query, s->query_len + 1);
    }
    mcph_sb_init(&s->text);
    mcph_sb_init(&s->json);
    mcph_sb_addstr(&s->json, "{\"matches\":[");
    rc = files_walk_run(w, rel, &err);
    if (rc == MCPH_OK && (s->cancelled || w->cancelled)) {
        mcph_sb_release(&s->text);
        mcph_sb_release(&s->json);
        return host->tool_error(s->call, "the search was cancelled");
    }
    if (rc == MCPH_OK)
        return files_search_emit(s, s->call, rel, w);
    mcph_sb_release(&s->text);
    mcph_sb_release(&s->json);
    return rc == MCPH_ERR_NOMEM ? rc : host->tool_error(s->call, "%s", err.text);
}

int files_tool_search_files(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct files *fs = state;
    struct files_search s = {.fs = fs};
    struct files_walk w = {.fs = fs, .call = call, .visit = files_search_visit, .ctx = &s};
    int result;
    char *rel;

    if (files_arg_query(host, call, "query", 0, &s.query, &result) != MCPH_OK ||
        files_arg_query(host, call, "glob", 1, &s.glob, &result) != MCPH_OK ||
        files_arg_bool(host, call, "ignore_case", &s.ignore_case, &result) != MCPH_OK)
        return result;
    s.query_len = strlen(s.query);
    s.call = call;
    if (files_arg_path(fs, call, "path", ".", &rel, &result) != MCPH_OK)
        return result;
    int rc = files_search_run(&s, &w, rel);
    free(s.folded);
    free(s.fold_buf);
    free(rel);
    return rc;
}

/* --- write_file and create_directory. --- */

/* Explains why mkdirat/openat of `name` in dfd failed to give a folder. */
static int files_not_dir(struct files_error *err, int dfd, const char *name, const char *shown)
{
    struct stat st;

    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" is refused: \"%s\" on its way is a symbolic link, and writes "
                          "never follow symbolic links",
                          shown, name);
    return files_fail(err, MCPH_ERR_INVALID,
                      "\"%s\" is refused: \"%s\" on its way exists and is not a folder", shown,
                      name);
}

/* Makes each missing folder of rel, never following a link. *created is set when the last
 * one was made now. */
static int files_mkdirs(const struct files *fs, const char *rel, int *created,
                        struct files_error *err)
{
    char shown[160], name[FILES_NAME_MAX + 1], buf[128];
    int cur = fs->root_fd, rc = MCPH_OK;

    files_show(rel, shown, sizeof(shown));
    for (const char *p = rel; *p && rc == MCPH_OK;) {
        size_t len = strcspn(p, "/");
        memcpy(name, p, len);
        name[len] = '\0';
        p += len + (p[len] == '/');
        *created = mkdirat(cur, name, 0777) == 0;
        if (!*created && errno != EEXIST) {
            rc = files_fail(err, MCPH_ERR, "the folder \"%s\" cannot be made: %s", shown,
                            files_strerror(errno, buf, sizeof(buf)));
            break;
        }
        int next = openat(cur, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0)
            rc = files_not_dir(err, cur, name, shown);
        if (cur != fs->root_fd)
            close(cur);
        cur = next;
    }
    if (cur >= 0 && cur != fs->root_fd)
        close(cur);
    return rc;
}

/* The bits that make a file something that may be run, or run with another's rights. */
#define FILES_RUN_BITS (S_IXUSR | S_IXGRP | S_IXOTH | S_ISUID | S_ISGID)

/* Refuses a file that may be run: writing it would change what someone else runs, and mcph
 * may keep setuid and setgid bits through a write (it does when it runs with CAP_FSETID).
 * Refusing is safer than dropping the bits, which would still leave a script that others
 * run by name changed. */
static int files_write_mode(const struct stat *st, const char *shown, struct files_error *err)
{
    const char *what = (st->st_mode & S_ISUID)   ? "setuid"
                       : (st->st_mode & S_ISGID) ? "setgid"
                                                 : "executable";

    if (!(st->st_mode & FILES_RUN_BITS))
        return MCPH_OK;
    return files_fail(err, MCPH_ERR_INVALID,
                      "\"%s\" is refused: it is %s (mode 0%o), and a file with an execute, setuid "
                      "or setgid bit is never written, so that nothing that may be run is "
                      "changed; write another file, or have its mode changed outside mcph",
                      shown, what, (unsigned)(st->st_mode & 07777));
}

/* Refuses to write over what is not a plain file of one link: a symbolic link (writes never
 * follow one), a FIFO or device, a file with other hard links (one of them could be outside
 * the root), or a file that may be run. */
static int files_write_target(const struct stat *st, const char *shown, struct files_error *err)
{
    if (S_ISLNK(st->st_mode))
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" is refused: it is a symbolic link, and writes never follow "
                          "symbolic links",
                          shown);
    if (!S_ISREG(st->st_mode))
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" is refused: it is a %s, and only regular files are written",
                          shown, files_type_name(st->st_mode));
    if (st->st_nlink > 1)
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" is refused: it has %ju hard links, and a file with more than "
                          "one is never written (another link could be outside the root)",
                          shown, (uintmax_t)st->st_nlink);
    return files_write_mode(st, shown, err);
}

/* Writes all of data to fd from its start, after emptying it. */
static int files_write_all(int fd, const char *data, size_t len)
{
    if (ftruncate(fd, 0) != 0)
        return -errno;
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -errno;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Looks at a name that keeps changing (made, or removed, between two looks) this many times
 * before giving up. */
#define FILES_WRITE_TRIES 4

/* Makes base in pfd, new: O_EXCL makes it a regular file of ours, never one put there
 * meanwhile, and 0666 (less the umask) gives it no execute, setuid or setgid bit. */
static int files_write_create(int pfd, const char *base, const char *shown, int *fd,
                              struct files_error *err)
{
    char buf[128];

    *fd =
        openat(pfd, base,
               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
    if (*fd >= 0)
        return MCPH_OK;
    if (errno == EEXIST)
        return MCPH_ERR_AGAIN; /* made meanwhile: look again */
    return files_fail(err, MCPH_ERR, "\"%s\" cannot be created: %s", shown,
                      files_strerror(errno, buf, sizeof(buf)));
}

/* Opens for writing the existing file open as tfd (O_PATH, the name base in pfd, no link
 * followed), once checked: through /proc the very file checked; else by name, never
 * blocking nor taking a terminal, and checked again by the caller before it writes. */
static int files_write_existing(int pfd, int tfd, const char *base, const char *shown, int *fd,
                                struct files_error *err)
{
    struct stat st;
    char buf[128];

    if (fstat(tfd, &st) != 0)
        return files_fail(err, MCPH_ERR, "\"%s\" cannot be checked: %s", shown,
                          files_strerror(errno, buf, sizeof(buf)));
    if (files_write_target(&st, shown, err) != MCPH_OK)
        return err->status;
    *fd = files_reopen(tfd, O_WRONLY);
    if (*fd == -ENOENT) { /* no /proc */
        *fd = openat(pfd, base, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (*fd < 0 && errno == ENOENT)
            return MCPH_ERR_AGAIN; /* removed meanwhile */
        if (*fd < 0 && errno == ELOOP)
            return files_fail(err, MCPH_ERR_INVALID,
                              "\"%s\" is refused: it is a symbolic link, and writes never "
                              "follow symbolic links",
                              shown);
        *fd = *fd < 0 ? -errno : *fd;
    }
    if (*fd < 0)
        return files_fail(err, MCPH_ERR, "\"%s\" cannot be opened for writing: %s", shown,
                          files_strerror(-*fd, buf, sizeof(buf)));
    return MCPH_OK;
}

/* One look at base in pfd: made new, or the file there opened once checked. Returns MCPH_OK
 * with *fd set, MCPH_ERR_AGAIN when the name changed meanwhile, or a refusal (err set). */
static int files_write_try(int pfd, const char *base, const char *shown, int *fd, int *created,
                           struct files_error *err)
{
    char buf[128];

    int tfd = openat(pfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    *created = tfd < 0 && errno == ENOENT;
    if (*created)
        return files_write_create(pfd, base, shown, fd, err);
    if (tfd < 0)
        return files_fail(err, MCPH_ERR, "\"%s\" cannot be opened for writing: %s", shown,
                          files_strerror(errno, buf, sizeof(buf)));
    int rc = files_write_existing(pfd, tfd, base, shown, fd, err);
    close(tfd);
    return rc;
}

/* Opens base in the folder pfd for writing, creating it if needed. What is written is what
 * was checked: a FIFO or device swapped in under the name is never opened (with /proc), or
 * never written (without), and the file opened is checked once more. */
static int files_write_open(int pfd, const char *base, const char *shown, int *fd, int *created,
                            struct files_error *err)
{
    struct stat st;
    char buf[128];
    int wfd = -1, rc = MCPH_ERR_AGAIN;

    for (int i = 0; i < FILES_WRITE_TRIES && rc == MCPH_ERR_AGAIN; i++)
        rc = files_write_try(pfd, base, shown, &wfd, created, err);
    if (rc == MCPH_ERR_AGAIN)
        return files_fail(err, MCPH_ERR_INVALID,
                          "\"%s\" kept changing while it was being opened; try again", shown);
    if (rc != MCPH_OK)
        return rc;
    if (fstat(wfd, &st) != 0) {
        int saved = errno;
        close(wfd);
        return files_fail(err, MCPH_ERR, "\"%s\" cannot be checked: %s", shown,
                          files_strerror(saved, buf, sizeof(buf)));
    }
    if (files_write_target(&st, shown, err) != MCPH_OK) {
        close(wfd);
        return err->status;
    }
    *fd = wfd;
    return MCPH_OK;
}

/* Splits rel into its folder (rel itself, cut) and its last name. */
static const char *files_split(char *rel)
{
    char *slash = strrchr(rel, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    return slash + 1;
}

static int files_write(const struct files *fs, char *rel, const char *content, int parents,
                       int *created, struct files_error *err)
{
    char shown[160];
    int fd = -1, made;

    files_show(rel, shown, sizeof(shown));
    const char *base = files_split(rel);
    const char *dir = base ? rel : "";
    if (!base)
        base = rel;
    if (parents && dir[0] && files_mkdirs(fs, dir, &made, err) != MCPH_OK)
        return err->status;
    int pfd = files_resolve(fs, dir, O_PATH | O_DIRECTORY, FILES_LINKS_NONE);
    if (pfd == -ENOENT)
        return files_fail(err, MCPH_ERR_INVALID,
                          "the folder of \"%s\" does not exist; pass create_parents: true to "
                          "make it",
                          shown);
    if (pfd < 0)
        return files_resolve_error(err, pfd, shown, FILES_LINKS_NONE);
    int rc = files_write_open(pfd, base, shown, &fd, created, err);
    close(pfd);
    if (rc != MCPH_OK)
        return rc;
    rc = files_write_all(fd, content, strlen(content));
    if (close(fd) != 0 && rc == 0)
        rc = -errno;
    if (rc != 0) {
        char buf[128];
        return files_fail(err, MCPH_ERR, "writing \"%s\" failed: %s", shown,
                          files_strerror(-rc, buf, sizeof(buf)));
    }
    return MCPH_OK;
}

/* The result of a write or a mkdir: a sentence and {path, ...}. */
static int files_done(const struct mcph_host *host, struct mcph_call *call, const char *rel,
                      const char *sentence, const char *extra_json)
{
    struct mcph_strbuf text, json;

    mcph_sb_init(&text);
    mcph_sb_init(&json);
    mcph_sb_addstr(&text, sentence);
    mcph_sb_addstr(&json, "{\"path\":");
    mcph_sb_addjson(&json, rel, strlen(rel));
    mcph_sb_addf(&json, ",%s}", extra_json);
    return files_emit(host, call, &text, &json);
}

int files_tool_write_file(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct files *fs = state;
    struct files_error err;
    const char *content;
    int parents = 0, created = 0, result;
    char *rel, sentence[320], extra[96], shown[160];

    int rc = host->arg_string(call, "content", &content);
    if (rc != MCPH_OK)
        return files_bad_arg(host, call, "content", "a string", rc);
    if (files_arg_bool(host, call, "create_parents", &parents, &result) != MCPH_OK)
        return result;
    size_t len = strlen(content);
    if (len > fs->max_read_bytes)
        return host->tool_error(call,
                                "the content is %zu bytes, over the limit of %llu bytes "
                                "(max_read_bytes)",
                                len, (unsigned long long)fs->max_read_bytes);
    if (files_arg_path(fs, call, "path", NULL, &rel, &result) != MCPH_OK)
        return result;
    files_show(rel, shown, sizeof(shown));
    if (rel[0] == '\0')
        rc = host->tool_error(call, "the root itself is a folder; give the path of a file");
    else if (files_write(fs, rel, content, parents, &created, &err) != MCPH_OK)
        rc = err.status == MCPH_ERR_NOMEM ? err.status : host->tool_error(call, "%s", err.text);
    else {
        snprintf(sentence, sizeof(sentence), "wrote %zu bytes to \"%s\" (%s)", len, shown,
                 created ? "created" : "replaced");
        snprintf(extra, sizeof(extra), "\"bytes\":%zu,\"created\":%s", len,
                 created ? "true" : "false");
        rc = files_done(host, call, shown, sentence, extra);
    }
    free(rel);
    return rc;
}

int files_tool_create_directory(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    const struct files *fs = state;
    struct files_error err;
    int created = 0, result, rc;
    char *rel, sentence[320], shown[160];

    if (files_arg_path(fs, call, "path", NULL, &rel, &result) != MCPH_OK)
        return result;
    files_show(rel[0] ? rel : ".", shown, sizeof(shown));
    if (rel[0] != '\0' && files_mkdirs(fs, rel, &created, &err) != MCPH_OK) {
        rc = err.status == MCPH_ERR_NOMEM ? err.status : host->tool_error(call, "%s", err.text);
    } else {
        snprintf(sentence, sizeof(sentence),
                 created ? "created the folder \"%s\"" : "the folder \"%s\" already exists", shown);
        rc = files_done(host, call, shown, sentence,
                        created ? "\"created\":true" : "\"created\":false");
    }
    free(rel);
    return rc;
}
