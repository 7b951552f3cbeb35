/*
 * walk.c: the walk over the tree that resources, find_files, search_files and the watcher
 * share, and the glob matcher of find_files and search_files.
 *
 * The walk is deterministic: the entries of each folder are sorted so that whole relative
 * paths come out in byte order (a folder sorts as its name plus '/'). It never follows a
 * symbolic link: each folder is opened from its parent's descriptor with O_NOFOLLOW, so the
 * walk cannot leave the root, nor loop. Every dimension is bounded (FILES_WALK_MAX entries,
 * FILES_DEPTH_MAX levels, FILES_PATH_MAX bytes of path).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "files.h"

/* How often (in entries) a walk asks whether its call was cancelled. */
#define FILES_CANCEL_EVERY 256

void files_dirlist_release(struct files_dirlist *l)
{
    for (size_t i = 0; i < l->len; i++)
        free(l->items[i].name);
    free(l->items);
    l->items = NULL;
    l->len = l->cap = 0;
}

static int files_dirlist_push(struct files_dirlist *l, const char *name, const struct stat *st)
{
    if (l->len == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 32;
        struct files_dirent *items = realloc(l->items, cap * sizeof(*items));
        if (!items)
            return MCPH_ERR_NOMEM;
        l->items = items;
        l->cap = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return MCPH_ERR_NOMEM;
    l->items[l->len].name = copy;
    l->items[l->len].st = *st;
    l->len++;
    return MCPH_OK;
}

/* Orders entries as their whole paths would sort: a folder as its name followed by '/'. */
static int files_dirent_cmp(const void *a, const void *b)
{
    const struct files_dirent *x = a, *y = b;
    const unsigned char *p = (const unsigned char *)x->name;
    const unsigned char *q = (const unsigned char *)y->name;

    while (*p && *p == *q) {
        p++;
        q++;
    }
    unsigned int cp = *p ? *p : S_ISDIR(x->st.st_mode) ? '/' : 0;
    unsigned int cq = *q ? *q : S_ISDIR(y->st.st_mode) ? '/' : 0;
    return cp < cq ? -1 : cp > cq;
}

/* 1 when the walk shows this name: not "." or "..", not hidden unless served, and text
 * (valid UTF-8 without control characters), so that it can be sent and asked for again. */
static int files_walk_shows(const struct files *fs, const char *name)
{
    size_t len = strlen(name);

    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return 0;
    if (name[0] == '.' && !fs->hidden)
        return 0;
    for (size_t i = 0; i < len; i++) {
        if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
            return 0;
    }
    return files_utf8_text(name, len);
}

/* Reads a folder's entries, sorted: every type with all_types, else regular files and
 * folders only. Counts them in *seen, stopping (and setting *truncated) past
 * FILES_WALK_MAX. */
static int files_dir_read(const struct files *fs, DIR *dir, int all_types,
                          struct files_dirlist *list, size_t *seen, int *truncated)
{
    struct dirent *de;
    struct stat st;

    while ((de = readdir(dir)) != NULL) {
        if (!files_walk_shows(fs, de->d_name))
            continue;
        if (++*seen > FILES_WALK_MAX) {
            *truncated = 1;
            break;
        }
        if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue; /* gone meanwhile */
        if (!all_types && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
            continue;
        if (files_dirlist_push(list, de->d_name, &st) != MCPH_OK)
            return MCPH_ERR_NOMEM;
    }
    if (list->len > 1)
        qsort(list->items, list->len, sizeof(*list->items), files_dirent_cmp);
    return MCPH_OK;
}

int files_dir_list(const struct files *fs, int fd, struct files_dirlist *list, int *truncated)
{
    size_t seen = 0;
    DIR *dir = fdopendir(fd);

    *truncated = 0;
    if (!dir) {
        close(fd);
        return MCPH_ERR;
    }
    int rc = files_dir_read(fs, dir, 1, list, &seen, truncated);
    closedir(dir);
    if (rc != MCPH_OK)
        files_dirlist_release(list);
    return rc;
}

static int files_walk_dir(struct files_walk *w, int fd, char *path, size_t len, size_t from,
                          int depth);

/* Visits one entry of a folder (and, for a folder, walks it). path holds the folder's path
 * (len bytes), extended here with the entry's name. */
static int files_walk_entry(struct files_walk *w, int dfd, const struct files_dirent *e, char *path,
                            size_t len, size_t from, int depth)
{
    size_t name_len = strlen(e->name);
    size_t sub_len = len + (len > 0) + name_len;
    int rc = 0;

    if (sub_len > FILES_PATH_MAX)
        return 0;
    if (len > 0)
        path[len] = '/';
    memcpy(path + len + (len > 0), e->name, name_len + 1);
    const char *rel_from = path + (from < sub_len ? from : sub_len);
    if (S_ISREG(e->st.st_mode) || w->dirs)
        rc = w->visit(w->ctx, path, rel_from, dfd, e->name, &e->st);
    if (rc == 0 && S_ISDIR(e->st.st_mode)) {
        if (depth >= FILES_DEPTH_MAX) {
            w->truncated = 1;
        } else {
            int sub =
                openat(dfd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
            if (sub >= 0)
                rc = files_walk_dir(w, sub, path, sub_len, from, depth + 1);
        }
    }
    path[len] = '\0';
    return rc;
}

/* Walks the folder open as fd (taken over and closed here). */
static int files_walk_dir(struct files_walk *w, int fd, char *path, size_t len, size_t from,
                          int depth)
{
    struct files_dirlist list = {0};
    DIR *dir = fdopendir(fd);
    int rc;

    if (!dir) {
        close(fd);
        return 0; /* unreadable: skipped */
    }
    rc = files_dir_read(w->fs, dir, 0, &list, &w->seen, &w->truncated);
    for (size_t i = 0; rc == 0 && i < list.len; i++) {
        if (w->call && i % FILES_CANCEL_EVERY == 0 && w->fs->host->cancelled(w->call)) {
            w->cancelled = 1;
            rc = 1;
            break;
        }
        rc = files_walk_entry(w, dirfd(dir), &list.items[i], path, len, from, depth);
    }
    files_dirlist_release(&list);
    closedir(dir);
    return rc;
}

int files_walk_run(struct files_walk *w, const char *rel, struct files_error *err)
{
    char *path = malloc(FILES_PATH_MAX + 2);
    size_t len = strlen(rel);
    int fd;

    if (!path)
        return files_fail(err, MCPH_ERR_NOMEM, "out of memory");
    int rc = files_open_dir(w->fs, rel, &fd, err);
    if (rc != MCPH_OK) {
        free(path);
        return rc;
    }
    memcpy(path, rel, len + 1);
    rc = files_walk_dir(w, fd, path, len, len + (len > 0), 0);
    free(path);
    if (rc < 0)
        return files_fail(err, rc, "the walk over \"%s\" failed: %s", rel[0] ? rel : ".",
                          rc == MCPH_ERR_NOMEM ? "out of memory" : "an internal error");
    return MCPH_OK;
}

/* --- Glob matching. --- */

/* The code point of the UTF-8 character at s[*i] (at most n bytes), moving *i past it. A
 * byte that starts no valid character counts as itself. */
static unsigned int files_glob_char(const char *s, size_t n, size_t *i)
{
    const unsigned char *p = (const unsigned char *)s + *i;
    unsigned int c = p[0];
    size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;

    if (len == 1 || *i + len > n) {
        (*i)++;
        return c;
    }
    c &= 0xff >> (len + 1);
    for (size_t k = 1; k < len; k++)
        c = (c << 6) | (p[k] & 0x3f);
    *i += len;
    return c;
}

/* Matches the class at pat[*pi] ('[' ... ']') against c, moving *pi past it. Returns 1 on a
 * match, 0 on none, -1 when pat has no closing ']' (the '[' is then a plain character). */
static int files_glob_class(const char *pat, size_t plen, size_t *pi, unsigned int c)
{
    size_t i = *pi + 1;
    int negate = 0, hit = 0;

    if (i < plen && (pat[i] == '!' || pat[i] == '^')) {
        negate = 1;
        i++;
    }
    for (int first = 1; i < plen && (pat[i] != ']' || first); first = 0) {
        if (pat[i] == '\\' && i + 1 < plen)
            i++;
        unsigned int lo = files_glob_char(pat, plen, &i), hi = lo;
        if (i + 1 < plen && pat[i] == '-' && pat[i + 1] != ']') {
            i++;
            if (pat[i] == '\\' && i + 1 < plen)
                i++;
            hi = files_glob_char(pat, plen, &i);
        }
        if (c >= lo && c <= hi)
            hit = 1;
    }
    if (i >= plen)
        return -1;
    *pi = i + 1;
    return hit != negate;
}

/* Matches one pattern character (not '*') at pat[*pi] against the character at s[*si]. */
static int files_glob_one(const char *pat, size_t plen, size_t *pi, const char *s, size_t slen,
                          size_t *si)
{
    size_t pj = *pi, sj = *si;
    unsigned int c = files_glob_char(s, slen, &sj);
    int ok;

    if (pat[pj] == '?') {
        pj++;
        ok = 1;
    } else if (pat[pj] == '[' && (ok = files_glob_class(pat, plen, &pj, c)) >= 0) {
        /* ok set by the class */
    } else {
        if (pat[pj] == '\\' && pj + 1 < plen)
            pj++;
        ok = files_glob_char(pat, plen, &pj) == c;
    }
    if (ok) {
        *pi = pj;
        *si = sj;
    }
    return ok;
}

/* One name against one pattern name, neither containing '/'. Backtracking to the last
 * '*' only: linear in practice, never exponential. */
static int files_glob_name(const char *pat, size_t plen, const char *s, size_t slen)
{
    size_t pi = 0, si = 0, star = (size_t)-1, mark = 0;

    while (si < slen) {
        if (pi < plen && pat[pi] == '*') {
            star = pi++;
            mark = si;
        } else if (pi < plen && files_glob_one(pat, plen, &pi, s, slen, &si)) {
            continue;
        } else if (star != (size_t)-1) {
            pi = star + 1;
            (void)files_glob_char(s, slen, &mark);
            si = mark;
        } else {
            return 0;
        }
    }
    while (pi < plen && pat[pi] == '*')
        pi++;
    return pi == plen;
}

static size_t files_seg_len(const char *s)
{
    return strcspn(s, "/");
}

static const char *files_seg_next(const char *s)
{
    size_t len = files_seg_len(s);
    return s + len + (s[len] == '/');
}

static int files_seg_is_globstar(const char *s)
{
    return files_seg_len(s) == 2 && s[0] == '*' && s[1] == '*';
}

int files_glob_match(const char *pattern, const char *path)
{
    const char *p = pattern, *s = path;
    const char *star_p = NULL, *star_s = NULL;

    while (p[0] == '.' && p[1] == '/')
        p += 2;
    if (!strchr(p, '/')) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        return files_glob_name(p, strlen(p), base, strlen(base));
    }
    /* Names are to '**' what characters are to '*': the same backtracking, one level up. */
    while (*s) {
        if (*p && files_seg_is_globstar(p)) {
            star_p = p;
            star_s = s;
            p = files_seg_next(p);
        } else if (*p && files_glob_name(p, files_seg_len(p), s, files_seg_len(s))) {
            p = files_seg_next(p);
            s = files_seg_next(s);
        } else if (star_p) {
            p = files_seg_next(star_p);
            star_s = files_seg_next(star_s);
            s = star_s;
        } else {
            return 0;
        }
    }
    while (*p && files_seg_is_globstar(p))
        p = files_seg_next(p);
    return *p == '\0';
}
