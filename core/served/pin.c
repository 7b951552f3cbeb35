/*
 * pin.c: the pinned definitions: the lock file read and written, and the verdict on each row
 * of a set being built (pin.h).
 */
#include "served/pin.h"

#include "lib/canon.h"
#include "lib/limits.h"
#include "lib/status.h"
#include "lib/strbuf.h"
#include "served/entry.h"
#include "wire/revision.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Diff lines said per refused row. */
#define PIN_DIFF_LINES 4

static const char pin_header[] =
    "# mcph lock file: the definitions [server] lock pins (docs/trust.md). Written by "
    "mcph --lock CONFIG (and by lock_new = accept); review its diff like code.\n";

static const char *const pin_kinds[] = {"tool", "resource", "template", "prompt", NULL};

struct pin_row {
    char *kind;   /* owned: one of pin_kinds */
    char *name;   /* owned: the exposed name, URI or URI template */
    char *plugin; /* owned: the section's id */
    char hash[CANON_HEX_BYTES];
    cJSON *def; /* owned: the definition pinned */
    int line;   /* in the file read; 0 for a row pinned since */
    int fresh;  /* pinned by lock_new = accept and not yet written */
};

/* What the lock file was when last read or written: a change since means someone else
 * (mcph --lock, an editor) wrote it, and pin_save must not overwrite it blindly. */
struct pin_ident {
    int exists;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
};

/* Keys ("KIND\nNAME\nPLUGIN\nHASH") of refusals. */
struct pin_keys {
    char **keys; /* owned; each owned */
    size_t n;
};

struct pin {
    char *path;           /* owned */
    int accept;           /* lock_new = accept */
    struct pin_row *rows; /* owned: sorted by kind, then name */
    size_t n, cap;
    int dirty;             /* rows pinned since the file was read or written */
    struct pin_ident file; /* the file as read or last written */
    /* The build running now. */
    enum pin_mode mode;
    const struct log *log;  /* borrowed for the build */
    struct pin_keys said;   /* refusals said in the build before: not said again */
    struct pin_keys saying; /* refusals of this build */
    struct strbuf drift;    /* this build's refusals, for --check */
    size_t refused;
    struct strbuf news; /* --check with lock_new = accept: the rows it would pin */
    size_t would;
};

static void pin_keys_release(struct pin_keys *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->keys[i]);
    free(k->keys);
    k->keys = NULL;
    k->n = 0;
}

static int pin_keys_has(const struct pin_keys *k, const char *key)
{
    for (size_t i = 0; i < k->n; i++) {
        if (strcmp(k->keys[i], key) == 0)
            return 1;
    }
    return 0;
}

/* Add key (owned from then on, also on failure). */
static int pin_keys_add(struct pin_keys *k, char *key)
{
    char **grown = key != NULL ? realloc(k->keys, (k->n + 1) * sizeof(*grown)) : NULL;

    if (grown == NULL) {
        free(key);
        return STATUS_NOMEM;
    }
    k->keys = grown;
    k->keys[k->n++] = key;
    return STATUS_OK;
}

static void pin_row_release(struct pin_row *row)
{
    free(row->kind);
    free(row->name);
    free(row->plugin);
    cJSON_Delete(row->def);
}

void pin_free(struct pin *pin)
{
    if (pin == NULL)
        return;
    for (size_t i = 0; i < pin->n; i++)
        pin_row_release(&pin->rows[i]);
    free(pin->rows);
    free(pin->path);
    pin_keys_release(&pin->said);
    pin_keys_release(&pin->saying);
    strbuf_release(&pin->drift);
    strbuf_release(&pin->news);
    free(pin);
}

static int pin_row_cmp(const char *kind, const char *name, const struct pin_row *row)
{
    int c = strcmp(kind, row->kind);

    return c != 0 ? c : strcmp(name, row->name);
}

/* Where (kind, name) is, or would go: *found tells which. */
static size_t pin_find(const struct pin *pin, const char *kind, const char *name, int *found)
{
    size_t lo = 0, hi = pin->n;

    *found = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = pin_row_cmp(kind, name, &pin->rows[mid]);

        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Insert a row at its place (its members owned by pin from then on, also on failure). */
static int pin_insert(struct pin *pin, struct pin_row row)
{
    int found;
    size_t at = pin_find(pin, row.kind, row.name, &found);

    if (pin->n == pin->cap) {
        size_t cap = pin->cap == 0 ? 16 : pin->cap * 2;
        struct pin_row *grown = realloc(pin->rows, cap * sizeof(*grown));

        if (grown == NULL) {
            pin_row_release(&row);
            return STATUS_NOMEM;
        }
        pin->rows = grown;
        pin->cap = cap;
    }
    memmove(&pin->rows[at + 1], &pin->rows[at], (pin->n - at) * sizeof(*pin->rows));
    pin->rows[at] = row;
    pin->n++;
    return STATUS_OK;
}

/* A new row pinning entry (borrowed; copied). */
static int pin_add(struct pin *pin, const char *kind, const char *plugin, const char *name,
                   const cJSON *entry, const char *hash)
{
    struct pin_row row = {.kind = strdup(kind),
                          .name = strdup(name),
                          .plugin = strdup(plugin),
                          .def = cJSON_Duplicate(entry, 1)};

    memcpy(row.hash, hash, CANON_HEX_BYTES);
    if (row.kind == NULL || row.name == NULL || row.plugin == NULL || row.def == NULL) {
        pin_row_release(&row);
        return STATUS_NOMEM;
    }
    return pin_insert(pin, row);
}

static struct pin *pin_new(const char *path, int accept)
{
    struct pin *pin = calloc(1, sizeof(*pin));

    if (pin == NULL)
        return NULL;
    strbuf_init(&pin->drift);
    strbuf_init(&pin->news);
    pin->accept = accept;
    pin->path = strdup(path);
    if (pin->path == NULL) {
        free(pin);
        return NULL;
    }
    return pin;
}

/* --- Reading. --- */

static const char *pin_member(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int pin_is_kind(const char *kind)
{
    for (size_t i = 0; kind != NULL && pin_kinds[i] != NULL; i++) {
        if (strcmp(kind, pin_kinds[i]) == 0)
            return 1;
    }
    return 0;
}

/* Why a row read from the file is not one, or NULL. */
static const char *pin_row_wrong(const struct pin *pin, const cJSON *obj,
                                 char real[CANON_HEX_BYTES], int *first)
{
    const char *kind = pin_member(obj, "kind"), *name = pin_member(obj, "name");
    const cJSON *def = cJSON_GetObjectItemCaseSensitive(obj, "definition");
    const char *hash = pin_member(obj, "sha256");
    int found;
    size_t at;

    if (!cJSON_IsObject(obj) || name == NULL || pin_member(obj, "plugin") == NULL || hash == NULL ||
        !cJSON_IsObject(def))
        return "not a row of a lock file (one JSON object a line with kind, name, plugin, "
               "sha256 and definition); write the file again with mcph --lock CONFIG";
    if (!pin_is_kind(kind))
        return "its kind is none of tool, resource, template, prompt";
    if (canon_hash(def, real) != STATUS_OK)
        return "its definition cannot be hashed";
    if (strcmp(real, hash) != 0)
        return "its sha256 is not that of the definition on the line (edited by hand?); write "
               "the file again with mcph --lock CONFIG";
    at = pin_find(pin, kind, name, &found);
    if (found) {
        *first = pin->rows[at].line;
        return "this row is pinned twice";
    }
    return NULL;
}

/* One line of the file: a row, checked. Errors name path:line. */
static int pin_parse_line(struct pin *pin, const char *text, size_t len, int line,
                          struct diag *errs)
{
    cJSON *obj = cJSON_ParseWithLength(text, len);
    char real[CANON_HEX_BYTES];
    int first = 0, found, status;
    const char *wrong = pin_row_wrong(pin, obj, real, &first);

    if (wrong != NULL) {
        if (first > 0)
            diag_add_at(errs, pin->path, line, "%s (first at line %d)", wrong, first);
        else
            diag_add_at(errs, pin->path, line, "%s", wrong);
        cJSON_Delete(obj);
        return STATUS_CONFIG;
    }
    status =
        pin_add(pin, pin_member(obj, "kind"), pin_member(obj, "plugin"), pin_member(obj, "name"),
                cJSON_GetObjectItemCaseSensitive(obj, "definition"), real);
    if (status == STATUS_OK)
        pin->rows[pin_find(pin, pin_member(obj, "kind"), pin_member(obj, "name"), &found)].line =
            line;
    cJSON_Delete(obj);
    return status;
}

static void pin_ident_of(struct pin_ident *id, const struct stat *st)
{
    *id = (struct pin_ident){.exists = 1,
                             .dev = st->st_dev,
                             .ino = st->st_ino,
                             .size = st->st_size,
                             .mtime = st->st_mtim};
}

/* Whether the file at path is no longer the one id describes. */
static int pin_ident_changed(const struct pin_ident *id, const char *path)
{
    struct stat st;
    struct pin_ident now = {0};

    if (stat(path, &st) == 0)
        pin_ident_of(&now, &st);
    else if (errno != ENOENT)
        return 1;
    if (now.exists != id->exists)
        return 1;
    return now.exists &&
           (now.dev != id->dev || now.ino != id->ino || now.size != id->size ||
            now.mtime.tv_sec != id->mtime.tv_sec || now.mtime.tv_nsec != id->mtime.tv_nsec);
}

/* The whole file into *text (owned), at most LIMIT_LOCK_FILE bytes; *id says which file. */
static int pin_read_file(const char *path, char **text, size_t *len, struct pin_ident *id,
                         struct diag *errs)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    int status = STATUS_OK;

    *text = NULL;
    *len = 0;
    *id = (struct pin_ident){0};
    if (fd < 0)
        return errno == ENOENT ? STATUS_NOT_FOUND : STATUS_IO;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > LIMIT_LOCK_FILE) {
        diag_add_at(errs, path, 0, "[server] lock: not a regular file of at most %d bytes",
                    LIMIT_LOCK_FILE);
        close(fd);
        return STATUS_CONFIG;
    }
    *text = malloc((size_t)st.st_size + 1);
    if (*text == NULL) {
        close(fd);
        return STATUS_NOMEM;
    }
    pin_ident_of(id, &st);
    while (*len < (size_t)st.st_size && status == STATUS_OK) {
        ssize_t n = read(fd, *text + *len, (size_t)st.st_size - *len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            diag_add_at(errs, path, 0, "[server] lock: cannot read: %s",
                        n < 0 ? strerror(errno) : "it shrank while read");
            status = STATUS_CONFIG;
        }
        *len += n > 0 ? (size_t)n : 0;
    }
    close(fd);
    return status;
}

static int pin_parse(struct pin *pin, const char *text, size_t len, struct diag *errs)
{
    int line = 0, status = STATUS_OK, bad = 0;

    for (size_t at = 0; at < len && status != STATUS_NOMEM;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl != NULL ? (size_t)(nl - text) : len;

        line++;
        if (end > at && text[at] != '#')
            status = pin_parse_line(pin, text + at, end - at, line, errs);
        bad += status == STATUS_CONFIG;
        at = end + 1;
    }
    return status == STATUS_NOMEM ? status : bad > 0 ? STATUS_CONFIG : STATUS_OK;
}

int pin_load(struct pin **out, const char *path, int accept, struct diag *errs)
{
    struct pin *pin = pin_new(path, accept);
    char *text = NULL;
    size_t len = 0;
    int status;

    *out = NULL;
    if (pin == NULL)
        return STATUS_NOMEM;
    status = pin_read_file(path, &text, &len, &pin->file, errs);
    if (status == STATUS_NOT_FOUND && accept) {
        status = STATUS_OK;
    } else if (status == STATUS_NOT_FOUND || status == STATUS_IO) {
        diag_add_at(errs, path, 0,
                    "[server] lock: %s; write it with mcph --lock CONFIG (or set lock_new = "
                    "accept to start from an empty one)",
                    status == STATUS_NOT_FOUND ? "no such file" : strerror(errno));
        status = STATUS_CONFIG;
    } else if (status == STATUS_OK) {
        status = pin_parse(pin, text, len, errs);
    }
    free(text);
    if (status != STATUS_OK) {
        pin_free(pin);
        return status;
    }
    *out = pin;
    return STATUS_OK;
}

/* --- Writing. --- */

static int pin_format(const struct pin *pin, struct strbuf *sb)
{
    (void)strbuf_addstr(sb, pin_header);
    for (size_t i = 0; i < pin->n; i++) {
        const struct pin_row *row = &pin->rows[i];
        int status;

        (void)strbuf_addstr(sb, "{\"kind\":");
        (void)canon_append_string(sb, row->kind);
        (void)strbuf_addstr(sb, ",\"name\":");
        (void)canon_append_string(sb, row->name);
        (void)strbuf_addstr(sb, ",\"plugin\":");
        (void)canon_append_string(sb, row->plugin);
        (void)strbuf_addf(sb, ",\"sha256\":\"%s\",\"definition\":", row->hash);
        status = canon_append(sb, row->def);
        if (status != STATUS_OK)
            return status;
        (void)strbuf_addstr(sb, "}\n");
    }
    return sb->nomem ? STATUS_NOMEM : STATUS_OK;
}

/* Flush the folder holding path, so that a rename in it lasts. Best effort: some file
 * systems cannot. */
static void pin_sync_folder(const char *path)
{
    char *copy = strdup(path);
    int fd = copy != NULL ? open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(copy);
}

/* text to path through a new temporary file in the same folder (mkstemp: never a name that
 * exists), renamed over it; *id (may be NULL) gets the file written. */
static int pin_write_file(const char *path, const struct strbuf *text, struct pin_ident *id,
                          struct diag *errs)
{
    char *tmp = NULL;
    struct stat st;
    int fd, ok;

    if (asprintf(&tmp, "%s.XXXXXX", path) < 0)
        return STATUS_NOMEM;
    fd = mkostemp(tmp, O_CLOEXEC);
    ok = fd >= 0 && fchmod(fd, 0644) == 0;
    for (size_t done = 0; ok && done < text->len;) {
        ssize_t n = write(fd, text->buf + done, text->len - done);

        ok = n > 0 || (n < 0 && errno == EINTR);
        done += n > 0 ? (size_t)n : 0;
    }
    ok = ok && fsync(fd) == 0 && fstat(fd, &st) == 0;
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        diag_add_at(errs, path, 0, "cannot write the lock file: %s", strerror(errno));
        if (fd >= 0)
            unlink(tmp);
    } else {
        pin_sync_folder(path);
        if (id != NULL)
            pin_ident_of(id, &st);
    }
    free(tmp);
    return ok ? STATUS_OK : STATUS_IO;
}

static int pin_store(struct pin *pin, struct diag *errs)
{
    struct strbuf sb = STRBUF_INIT;
    int status = pin_format(pin, &sb);

    if (status == STATUS_OK)
        status = pin_write_file(pin->path, &sb, &pin->file, errs);
    strbuf_release(&sb);
    return status;
}

/* The lock file changed since it was read or written (mcph --lock, an edit): take its rows,
 * which win, and add to them the rows accepted since that it lacks. A row it pins
 * differently from what is served is judged by its pin at the next build. */
static int pin_merge(struct pin *pin, const struct log *log, struct diag *errs)
{
    struct pin *disk = NULL;
    struct pin_row *rows;
    size_t added = 0, n, cap;
    /* Read as under refuse: a file gone for a moment (an editor's save, a move before
     * mcph --lock) is not an empty set that would drop every pin kept in memory. */
    int status = pin_load(&disk, pin->path, 0, errs), found;

    if (status != STATUS_OK) {
        log_msg(log, LOG_WARNING, NULL,
                "the lock file %s changed since mcph read it and cannot be read now: the rows "
                "newly pinned are not written. Fix it, then send SIGHUP",
                pin->path);
        return status;
    }
    for (size_t i = 0; i < pin->n && status == STATUS_OK; i++) {
        const struct pin_row *row = &pin->rows[i];

        if (!row->fresh || (pin_find(disk, row->kind, row->name, &found), found))
            continue;
        status = pin_add(disk, row->kind, row->plugin, row->name, row->def, row->hash);
        if (status == STATUS_OK)
            disk->rows[pin_find(disk, row->kind, row->name, &found)].fresh = 1;
        added++;
    }
    if (status == STATUS_OK) {
        rows = pin->rows, n = pin->n, cap = pin->cap;
        pin->rows = disk->rows, pin->n = disk->n, pin->cap = disk->cap;
        disk->rows = rows, disk->n = n, disk->cap = cap;
        pin->file = disk->file;
        log_msg(log, LOG_NOTICE, NULL,
                "the lock file %s changed since mcph read it: its rows kept, %zu newly pinned "
                "added; a row it pins differently from what is served is judged at the next "
                "reload or refresh (send SIGHUP to judge now)",
                pin->path, added);
    }
    pin_free(disk);
    return status;
}

int pin_save(struct pin *pin, const struct log *log)
{
    struct diag errs;
    int status = STATUS_OK;

    if (pin == NULL || !pin->dirty || pin->mode != PIN_SERVE)
        return STATUS_OK;
    diag_init(&errs);
    if (pin_ident_changed(&pin->file, pin->path))
        status = pin_merge(pin, log, &errs);
    if (status == STATUS_OK)
        status = pin_store(pin, &errs);
    for (size_t i = 0; i < errs.count; i++)
        log_msg(log, LOG_ERROR, NULL, "%s", errs.msgs[i]);
    diag_release(&errs);
    if (status == STATUS_OK) {
        pin->dirty = 0;
        for (size_t i = 0; i < pin->n; i++)
            pin->rows[i].fresh = 0;
    }
    return status == STATUS_NOMEM ? STATUS_IO : status;
}

/* Pin every row of one list of reg. */
static int pin_put_rows(struct pin *pin, const char *kind, size_t n,
                        cJSON *(*entry)(const struct registry *reg, size_t i, const char **plugin,
                                        const char **name),
                        const struct registry *reg)
{
    int status = STATUS_OK;

    for (size_t i = 0; i < n && status == STATUS_OK; i++) {
        const char *plugin, *name;
        cJSON *e = entry(reg, i, &plugin, &name);
        char hash[CANON_HEX_BYTES];

        status = e == NULL ? STATUS_NOMEM : canon_hash(e, hash);
        if (status == STATUS_OK)
            status = pin_add(pin, kind, plugin, name, e, hash);
        cJSON_Delete(e);
    }
    return status;
}

static cJSON *pin_tool(const struct registry *reg, size_t i, const char **plugin, const char **name)
{
    *plugin = reg->tools[i].plugin->id;
    *name = reg->tools[i].name;
    return entry_tool(&reg->tools[i], REV_MODERN);
}

static cJSON *pin_resource(const struct registry *reg, size_t i, const char **plugin,
                           const char **name)
{
    *plugin = reg->resources[i].plugin->id;
    *name = reg->resources[i].def->uri;
    return entry_resource(&reg->resources[i], REV_MODERN);
}

static cJSON *pin_template(const struct registry *reg, size_t i, const char **plugin,
                           const char **name)
{
    *plugin = reg->templates[i].plugin->id;
    *name = reg->templates[i].def->uri_template;
    return entry_template(&reg->templates[i], REV_MODERN);
}

static cJSON *pin_prompt(const struct registry *reg, size_t i, const char **plugin,
                         const char **name)
{
    *plugin = reg->prompts[i].plugin->id;
    *name = reg->prompts[i].name;
    return entry_prompt(&reg->prompts[i], REV_MODERN);
}

int pin_write_registry(const char *path, const struct registry *reg, size_t *rows,
                       struct diag *errs)
{
    struct pin *pin = pin_new(path, 0);
    int status = pin != NULL ? STATUS_OK : STATUS_NOMEM;

    if (status == STATUS_OK)
        status = pin_put_rows(pin, "tool", reg->ntools, pin_tool, reg);
    if (status == STATUS_OK)
        status = pin_put_rows(pin, "resource", reg->nresources, pin_resource, reg);
    if (status == STATUS_OK)
        status = pin_put_rows(pin, "template", reg->ntemplates, pin_template, reg);
    if (status == STATUS_OK)
        status = pin_put_rows(pin, "prompt", reg->nprompts, pin_prompt, reg);
    if (status == STATUS_OK)
        status = pin_store(pin, errs);
    if (status == STATUS_OK)
        *rows = pin->n;
    pin_free(pin);
    return status;
}

/* --- The verdict on a row. --- */

int pin_keep_said(struct pin *pin, const struct pin *old)
{
    for (size_t i = 0; old != NULL && i < old->saying.n; i++) {
        if (pin_keys_add(&pin->saying, strdup(old->saying.keys[i])) != STATUS_OK)
            return STATUS_NOMEM;
    }
    return STATUS_OK;
}

void pin_gate(struct pin *pin, struct registry_gate *gate, const struct log *log,
              enum pin_mode mode)
{
    pin_keys_release(&pin->said);
    pin->said = pin->saying;
    pin->saying = (struct pin_keys){0};
    strbuf_reset(&pin->drift);
    strbuf_reset(&pin->news);
    pin->refused = 0;
    pin->would = 0;
    pin->mode = mode;
    pin->log = log;
    *gate = (struct registry_gate){.admit = pin_admit, .ctx = pin};
}

size_t pin_refused(const struct pin *pin)
{
    return pin != NULL ? pin->refused : 0;
}

const char *pin_drift(const struct pin *pin)
{
    return pin != NULL ? pin->drift.buf : "";
}

size_t pin_would_pin(const struct pin *pin)
{
    return pin != NULL ? pin->would : 0;
}

const char *pin_news(const struct pin *pin)
{
    return pin != NULL ? pin->news.buf : "";
}

const char *pin_path(const struct pin *pin)
{
    return pin->path;
}

/* What changed from the pinned row to entry: diff lines, "\n" after each. */
static int pin_changes(struct strbuf *sb, const struct pin_row *row, const char *plugin,
                       const cJSON *entry)
{
    int lines = PIN_DIFF_LINES;

    if (strcmp(row->plugin, plugin) != 0) {
        (void)strbuf_addf(sb, "served by [plugin.%s], pinned for [plugin.%s]\n", plugin,
                          row->plugin);
        lines--;
    }
    return canon_diff(sb, row->def, entry, lines) < 0 ? STATUS_NOMEM : STATUS_OK;
}

/* Say a refusal: in the drift text always, in the log once (key owned, also on failure). */
static int pin_refuse(struct pin *pin, const char *kind, const char *plugin, const char *name,
                      const char *changes, char *key)
{
    struct strbuf line = STRBUF_INIT;
    int status;

    pin->refused++;
    (void)strbuf_addf(&pin->drift, "[plugin.%s] %s '%s': %s\n", plugin, kind, name,
                      changes != NULL ? "differs from its pinned definition"
                                      : "not in the lock file");
    for (const char *c = changes; c != NULL && *c != '\0';) {
        const char *nl = strchr(c, '\n');
        size_t len = nl != NULL ? (size_t)(nl - c) : strlen(c);

        (void)strbuf_addf(&pin->drift, "  %.*s\n", (int)len, c);
        (void)strbuf_addf(&line, "%s%.*s", line.len > 0 ? "; " : "", (int)len, c);
        c += nl != NULL ? len + 1 : len;
    }
    if (!pin_keys_has(&pin->said, key) && !line.nomem)
        log_msg(pin->log, LOG_WARNING, NULL,
                changes != NULL ? "[plugin.%s] %s '%s' differs from its pinned definition in "
                                  "%s; not served. %s. Review it, then run mcph --lock CONFIG to "
                                  "accept it"
                                : "[plugin.%s] %s '%s' is not in the lock file %s; not served "
                                  "(lock_new = refuse)%s. Review it, then run mcph --lock CONFIG "
                                  "to pin it",
                plugin, kind, name, pin->path, line.buf);
    status = pin_keys_add(&pin->saying, key);
    strbuf_release(&line);
    return status != STATUS_OK || pin->drift.nomem ? STATUS_NOMEM : 0;
}

/* A row the lock file lacks, with lock_new = accept: served, and pinned when serving. */
static int pin_accept(struct pin *pin, const char *kind, const char *plugin, const char *name,
                      const cJSON *entry, const char *hash)
{
    int found;

    if (pin->mode == PIN_CHECK) {
        pin->would++;
        (void)strbuf_addf(&pin->news, "[plugin.%s] %s '%s': would pin\n", plugin, kind, name);
        return pin->news.nomem ? STATUS_NOMEM : 1;
    }
    if (pin->mode != PIN_SERVE)
        return 1;
    if (pin_add(pin, kind, plugin, name, entry, hash) != STATUS_OK)
        return STATUS_NOMEM;
    pin->rows[pin_find(pin, kind, name, &found)].fresh = 1;
    pin->dirty = 1;
    log_msg(pin->log, LOG_NOTICE, NULL,
            "[plugin.%s] %s '%s' is new: served and pinned in %s (lock_new = accept)", plugin, kind,
            name, pin->path);
    return 1;
}

int pin_admit(void *ctx, const char *kind, const char *plugin, const char *name, const cJSON *entry)
{
    struct pin *pin = ctx;
    struct strbuf changes = STRBUF_INIT;
    char hash[CANON_HEX_BYTES], *key = NULL;
    int found, verdict;
    size_t at;

    if (canon_hash(entry, hash) != STATUS_OK)
        return STATUS_NOMEM;
    at = pin_find(pin, kind, name, &found);
    if (found && strcmp(pin->rows[at].hash, hash) == 0 && strcmp(pin->rows[at].plugin, plugin) == 0)
        return 1;
    if (!found && pin->accept)
        return pin_accept(pin, kind, plugin, name, entry, hash);
    if (found && pin_changes(&changes, &pin->rows[at], plugin, entry) != STATUS_OK) {
        strbuf_release(&changes);
        return STATUS_NOMEM;
    }
    if (asprintf(&key, "%s\n%s\n%s\n%s", kind, name, plugin, hash) < 0)
        key = NULL;
    verdict = key == NULL ? STATUS_NOMEM
                          : pin_refuse(pin, kind, plugin, name, found ? changes.buf : NULL, key);
    strbuf_release(&changes);
    return verdict;
}
