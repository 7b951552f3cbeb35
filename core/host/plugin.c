#include "host/plugin.h"

#include "config/keys.h"
#include "host/image.h"
#include "host/isolate.h"
#include "lib/limits.h"
#include "host/rows.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What ABI 1.0 requires of the descriptor: a plugin built for an older minor may have a
 * shorter one than this header's, never shorter than this (rows.c has the rows'). */
#define PLUGIN_END(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))
#define PLUGIN_MIN_DESC PLUGIN_END(struct mcph_plugin, shutdown)

/* The first minor whose descriptor has subscribe and whose flags may ask to take over. */
#define PLUGIN_MINOR_TAKE_OVER 3

int plugin_valid_name(const char *name)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
    size_t n;

    if (name == NULL)
        return 0;
    n = strlen(name);
    return n >= 1 && n <= LIMIT_NAME && strspn(name, chars) == n;
}

/* --- The descriptor. --- */

static int plugin_check_version(struct rows_load *ld, const struct mcph_plugin *raw)
{
    if (raw->abi_major != MCPH_ABI_MAJOR) {
        rows_fail(ld,
                  "built for plugin ABI %u.%u, this mcph has ABI %d.%d; rebuild the "
                  "plugin against this mcph's plugin-api.h",
                  raw->abi_major, raw->abi_minor, MCPH_ABI_MAJOR, MCPH_ABI_MINOR);
        return STATUS_PLUGIN;
    }
    if (raw->abi_minor > MCPH_ABI_MINOR) {
        rows_fail(ld,
                  "built for plugin ABI %u.%u, newer than this mcph's ABI %d.%d; "
                  "upgrade mcph, or rebuild the plugin against this mcph's plugin-api.h",
                  raw->abi_major, raw->abi_minor, MCPH_ABI_MAJOR, MCPH_ABI_MINOR);
        return STATUS_PLUGIN;
    }
    if (raw->size < PLUGIN_MIN_DESC) {
        rows_fail(ld,
                  "descriptor is %u bytes, ABI %u.%u needs at least %zu; fill it with "
                  "MCPH_PLUGIN_HEADER and rebuild",
                  raw->size, raw->abi_major, raw->abi_minor, (size_t)PLUGIN_MIN_DESC);
        return STATUS_PLUGIN;
    }
    return STATUS_OK;
}

static int plugin_read_descriptor(struct rows_load *ld, struct mcph_plugin *d)
{
    const struct mcph_plugin *(*entry)(void);
    const struct mcph_plugin *raw;

    if (ld->pl->section.isolate.on) {
        isolate_descriptor(d);
        return rows_check_sizes(ld, d);
    }
    *(void **)&entry = dlsym(ld->pl->handle, MCPH_ENTRY_SYMBOL);
    if (entry == NULL) {
        rows_fail(ld, "no %s() in it; is it an mcph plugin? (see mcph-plugin(7))",
                  MCPH_ENTRY_SYMBOL);
        return STATUS_PLUGIN;
    }
    raw = entry();
    if (raw == NULL) {
        rows_fail(ld, "%s() returned NULL; return the address of the descriptor",
                  MCPH_ENTRY_SYMBOL);
        return STATUS_PLUGIN;
    }
    if (plugin_check_version(ld, raw) != STATUS_OK)
        return STATUS_PLUGIN;
    memset(d, 0, sizeof(*d));
    memcpy(d, raw, raw->size < sizeof(*d) ? raw->size : sizeof(*d));
    return rows_check_sizes(ld, d);
}

static int plugin_copy_keys(struct rows_load *ld, const struct mcph_plugin *d)
{
    struct plugin *pl = ld->pl;
    long n = rows_table_size(ld, "config key", d->config_keys, d->config_key_size);
    struct mcph_config_key row;

    if (n <= 0)
        return n < 0 ? STATUS_PLUGIN : STATUS_OK;
    pl->keys = calloc((size_t)n, sizeof(*pl->keys));
    if (pl->keys == NULL)
        return STATUS_NOMEM;
    for (size_t i = 0; rows_read(d->config_keys, d->config_key_size, i, &row, sizeof(row)); i++) {
        struct plugin_key *k = &pl->keys[pl->nkeys++];

        if (config_core_key(row.name) && !config_shared_key(row.name))
            rows_fail(ld, "config key '%s' is mcph's own; rename it", row.name);
        k->name = rows_dup(ld, row.name);
        k->description = rows_dup(ld, row.description);
        k->default_value = rows_dup(ld, row.default_value);
        k->required = row.required != 0;
    }
    return STATUS_OK;
}

static const struct plugin_key *plugin_find_key(const struct plugin *pl, const char *name)
{
    for (size_t i = 0; i < pl->nkeys; i++) {
        if (strcmp(pl->keys[i].name, name) == 0)
            return &pl->keys[i];
    }
    return NULL;
}

/* The keys the plugin declares, "a, b", into sb. */
static void plugin_key_list(const struct plugin *pl, struct strbuf *sb)
{
    if (pl->nkeys == 0)
        (void)strbuf_addstr(sb, "no keys of its own");
    for (size_t i = 0; i < pl->nkeys; i++)
        (void)strbuf_addf(sb, "%s%s", i ? ", " : "", pl->keys[i].name);
}

/* The core keys a plugin may declare (config_shared_key) set in a section in mcph's own
 * process: the plugin must declare each, for nothing else would act on it. Returns 1 when one
 * is refused. */
static int plugin_check_shared(struct rows_load *ld)
{
    const char *key;
    struct strbuf value = STRBUF_INIT;
    int bad = 0;

    for (size_t i = 0; (key = config_shared_key_name(i)) != NULL; i++) {
        int line = config_shared_key_get(ld->cp, key, &value);

        strbuf_reset(&value);
        if (line == 0 || plugin_find_key(ld->pl, key) != NULL)
            continue;
        diag_add_at(ld->errs, ld->ini_file, line,
                    "[plugin.%s] %s applies to a plugin in a process of its own, or to one that "
                    "declares it, and plugin '%s' does not; add 'isolate = process' to the "
                    "section or remove the key",
                    ld->cp->id, key, ld->pl->name);
        bad = 1;
    }
    strbuf_release(&value);
    return bad;
}

/* The INI section's own keys against the keys the plugin declares. */
static int plugin_check_config(struct rows_load *ld)
{
    struct plugin *pl = ld->pl;
    const struct config_plugin *cp = ld->cp;
    int bad = plugin_check_shared(ld);
    struct strbuf known = STRBUF_INIT;

    plugin_key_list(pl, &known);
    (void)strbuf_addstr(&known, " (and ");
    config_core_key_names(&known);
    (void)strbuf_addstr(&known, ")");
    for (size_t i = 0; i < cp->nkeys; i++) {
        if (plugin_find_key(pl, cp->keys[i].key) != NULL)
            continue;
        diag_add_at(ld->errs, ld->ini_file, cp->keys[i].line,
                    "[plugin.%s] unknown key '%s'; plugin '%s' accepts %s", cp->id, cp->keys[i].key,
                    pl->name, known.buf);
        bad = 1;
    }
    for (size_t i = 0; i < pl->nkeys; i++) {
        const struct plugin_key *k = &pl->keys[i];
        int set = 0;

        for (size_t j = 0; j < cp->nkeys; j++)
            set |= strcmp(cp->keys[j].key, k->name) == 0;
        if (!k->required || set)
            continue;
        diag_add_at(ld->errs, ld->ini_file, cp->line,
                    "[plugin.%s] needs '%s' (%s); add '%s = ...' to the section", cp->id, k->name,
                    k->description ? k->description : "no description", k->name);
        bad = 1;
    }
    strbuf_release(&known);
    ld->failed |= bad;
    return bad ? STATUS_CONFIG : STATUS_OK;
}

/* One shared core key the section sets and the plugin declares, at pl->config[nconfig] (in
 * mcph's own process only: an isolated section's limit is its parent's to enforce). */
static void plugin_copy_shared(struct rows_load *ld, const char *key)
{
    struct plugin *pl = ld->pl;
    struct strbuf value = STRBUF_INIT;
    int line;

    if (pl->section.isolate.on || plugin_find_key(pl, key) == NULL)
        return;
    line = config_shared_key_get(ld->cp, key, &value);
    if (line != 0) {
        pl->config[pl->nconfig].key = rows_dup(ld, key);
        pl->config[pl->nconfig].value = rows_dup(ld, value.nomem ? "" : value.buf);
        pl->config[pl->nconfig].line = line;
        pl->nconfig++;
        ld->failed |= value.nomem;
    }
    strbuf_release(&value);
}

/* The section's own keys, then the shared core keys it sets that the plugin declares. */
static int plugin_copy_config(struct rows_load *ld)
{
    struct plugin *pl = ld->pl;
    const struct config_plugin *cp = ld->cp;
    const char *key;
    size_t shared = 0;

    while (config_shared_key_name(shared) != NULL)
        shared++;
    pl->config = calloc(cp->nkeys + shared + 1, sizeof(*pl->config));
    if (pl->config == NULL)
        return STATUS_NOMEM;
    for (size_t i = 0; i < cp->nkeys; i++) {
        pl->config[i].key = rows_dup(ld, cp->keys[i].key);
        pl->config[i].value = rows_dup(ld, cp->keys[i].value);
        pl->config[i].line = cp->keys[i].line;
        pl->nconfig++;
    }
    for (size_t i = 0; (key = config_shared_key_name(i)) != NULL; i++)
        plugin_copy_shared(ld, key);
    return STATUS_OK;
}

/* --- Config values read as paths (1.2): resolved once, against the INI file's folder. --- */

static int plugin_add_path(struct rows_load *ld, const char *key, const char *value)
{
    struct plugin *pl = ld->pl;
    struct plugin_path *p = &pl->paths[pl->npaths];

    if (value == NULL)
        return STATUS_OK;
    for (size_t i = 0; i < pl->npaths; i++) {
        if (strcmp(pl->paths[i].key, key) == 0)
            return STATUS_OK; /* the INI's value came first and wins over the default */
    }
    p->key = strdup(key);
    /* An empty value stays empty: the key names no path. */
    p->path = value[0] == '\0' ? strdup("") : config_join(pl->ini_dir, value);
    pl->npaths++;
    return p->key != NULL && p->path != NULL ? STATUS_OK : STATUS_NOMEM;
}

static int plugin_copy_paths(struct rows_load *ld)
{
    struct plugin *pl = ld->pl;
    int status = STATUS_OK;

    pl->ini_dir = config_dirname(ld->ini_file);
    pl->paths = calloc(ld->cp->nkeys + pl->nkeys + 1, sizeof(*pl->paths));
    if (pl->ini_dir == NULL || pl->paths == NULL)
        return STATUS_NOMEM;
    for (size_t i = 0; status == STATUS_OK && i < ld->cp->nkeys; i++)
        status = plugin_add_path(ld, ld->cp->keys[i].key, ld->cp->keys[i].value);
    for (size_t i = 0; status == STATUS_OK && i < pl->nkeys; i++)
        status = plugin_add_path(ld, pl->keys[i].name, pl->keys[i].default_value);
    return status;
}

const char *plugin_config_path(const struct plugin *pl, const char *key)
{
    if (key == NULL)
        return NULL;
    for (size_t i = 0; i < pl->npaths; i++) {
        if (strcmp(pl->paths[i].key, key) == 0)
            return pl->paths[i].path;
    }
    return NULL;
}

/* --- Rows defined at init (1.2). Each is checked on its own: a refused row is logged and
 * left out, and the load goes on. --- */

int plugin_define(struct plugin *pl, int kind, const void *row)
{
    struct rows_load ld;
    struct diag errs;
    int rc;

    if (pl->loading == NULL || !pthread_equal(pl->loader, pthread_self()))
        return MCPH_ERR_STATE;
    /* Defining at all makes the instance one that follows its source on reloads, even when
     * every row it tried was refused (the source may be fixed by the next reload). */
    pl->rebuild = 1;
    if (row == NULL || kind < PLUGIN_ROW_TOOL || kind > PLUGIN_ROW_PROMPT)
        return MCPH_ERR_INVALID;
    if (rows_count_of(pl, kind) >= LIMIT_ROWS) {
        log_msg(pl->log, LOG_ERROR, NULL, "plugin '%s' (%s): more than %d %s rows; left out",
                pl->id, pl->section.path, LIMIT_ROWS, rows_kinds[kind].what);
        return MCPH_ERR_LIMIT;
    }
    diag_init(&errs);
    ld = *pl->loading;
    ld.errs = &errs;
    ld.failed = 0;
    rc = rows_define(&ld, kind, row);
    for (size_t i = 0; i < errs.count; i++)
        log_msg(pl->log, LOG_ERROR, NULL, "%s (a %s defined by init; left out)", errs.msgs[i],
                rows_kinds[kind].what);
    diag_release(&errs);
    return rc;
}

int plugin_initializing(const struct plugin *pl)
{
    /* loader is set before init runs and never after: reading it is safe on any thread that
     * init or later code started; loading is the loader's own. */
    return pthread_equal(pl->loader, pthread_self()) && pl->loading != NULL;
}

/* Where word (a key name) is in text as a whole word, or NULL. */
static const char *plugin_find_word(const char *text, const char *word)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
    size_t n = strlen(word);

    for (const char *at = strstr(text, word); n > 0 && at != NULL; at = strstr(at + 1, word)) {
        if ((at == text || strchr(chars, at[-1]) == NULL) &&
            (at[n] == '\0' || strchr(chars, at[n]) == NULL))
            return at;
    }
    return NULL;
}

int plugin_init_line(const struct plugin *pl, const char *text, const char **file)
{
    const struct config_plugin *cp;
    const char *first = NULL;
    int line;

    if (!plugin_initializing(pl))
        return 0;
    cp = pl->loading->cp;
    line = 0;
    for (size_t i = 0; i < cp->nkeys; i++) {
        const char *at = plugin_find_word(text, cp->keys[i].key);

        if (at != NULL && (first == NULL || at < first)) {
            first = at;
            line = cp->keys[i].line;
        }
    }
    *file = pl->loading->ini_file;
    return line;
}

static int plugin_copy_tables(struct rows_load *ld, const struct mcph_plugin *d)
{
    struct plugin *pl = ld->pl;
    int status = STATUS_OK;

    pl->name = rows_dup(ld, d->name ? d->name : ld->cp->id);
    pl->version = rows_dup(ld, d->version);
    pl->flags = d->flags;
    pl->rebuild = (d->flags & MCPH_PLUGIN_REBUILD_ON_RELOAD) != 0;
    pl->abi_minor = d->abi_minor;
    pl->shutdown = d->shutdown;
    /* A member the plugin's minor does not have reads as zero, whatever its size says. */
    pl->subscribe = d->abi_minor >= PLUGIN_MINOR_TAKE_OVER ? d->subscribe : NULL;
    pl->tool_size = d->tool_size;
    pl->resource_size = d->resource_size;
    pl->template_size = d->template_size;
    pl->prompt_size = d->prompt_size;
    pl->prompt_arg_size = d->prompt_arg_size;
    for (int kind = PLUGIN_ROW_TOOL; status == STATUS_OK && kind <= PLUGIN_ROW_PROMPT; kind++)
        status = rows_copy_table(ld, d, kind);
    if (status == STATUS_OK)
        status = plugin_copy_keys(ld, d);
    if (status == STATUS_OK)
        status = plugin_copy_config(ld);
    if (status == STATUS_OK)
        status = plugin_copy_paths(ld);
    if (ld->errs->nomem)
        status = STATUS_NOMEM;
    return status;
}

static int plugin_run_init(struct rows_load *ld, const struct mcph_plugin *d)
{
    struct plugin *pl = ld->pl;
    int rc;

    pl->env->host_setup(&pl->host, pl);
    if (d->init == NULL) {
        pl->initialized = 1;
        return STATUS_OK;
    }
    pl->loading = ld;
    pl->loader = pthread_self();
    rc = d->init(&pl->host.vt, &pl->state);
    pl->loading = NULL;
    /* MCPH_ERR_INVALID: init refused what its section says, a configuration error; any
     * other code is a failure of the moment (a database down, no memory). */
    if (rc == MCPH_ERR_INVALID) {
        rows_fail(ld, "init refused the section's keys (MCPH_ERR_INVALID); fix what its "
                      "messages above name");
        return STATUS_CONFIG;
    }
    if (rc != MCPH_OK) {
        rows_fail(ld, "init failed (status %d); see its messages above", rc);
        return STATUS_PLUGIN;
    }
    pl->initialized = 1;
    return STATUS_OK;
}

/* Open (in old's mapping when given), read the descriptor, copy, check, init (handing init
 * old's state when given). */
static int plugin_load_steps(struct rows_load *ld, const struct plugin *old)
{
    struct mcph_plugin d;
    int status;

    status = old != NULL ? image_open_shared(ld, old) : image_open(ld);
    if (status == STATUS_OK)
        status = plugin_read_descriptor(ld, &d);
    if (status == STATUS_OK)
        status = plugin_copy_tables(ld, &d);
    /* An isolated section's keys are the child's to check, against the plugin's own. */
    if (status == STATUS_OK && !ld->failed && !ld->pl->section.isolate.on)
        status = plugin_check_config(ld);
    /* Everything before init is the section's to fix: its path, its keys, or the plugin
     * its path names. */
    if ((status != STATUS_OK && status != STATUS_NOMEM) || (status == STATUS_OK && ld->failed))
        status = STATUS_CONFIG;
    if (status == STATUS_OK) {
        /* Only during init: a rebuild's predecessor is not the instance's to keep. */
        ld->pl->predecessor = old != NULL ? old->state : NULL;
        status = plugin_run_init(ld, &d);
        ld->pl->predecessor = NULL;
    }
    return status;
}

/* Load section cp; in old's mapping, taking over its state, when old is not NULL. */
static int plugin_load_over(struct plugin **out, const struct plugin *old,
                            const struct config_plugin *cp, const char *ini_file,
                            const struct plugin_env *env, struct diag *errs)
{
    struct rows_load ld = {.cp = cp, .ini_file = ini_file, .errs = errs};
    struct plugin *pl = calloc(1, sizeof(*pl));
    int status;

    if (pl == NULL)
        return STATUS_NOMEM;
    ld.pl = pl;
    pthread_mutex_init(&pl->subscribe_lock, NULL);
    pl->env = env;
    pl->log = env->log;
    atomic_init(&pl->refs, 1);
    pl->id = strdup(cp->id);
    pl->image_fd = -1;
    pl->ini_fd = cp->isolate.on && cp->ini_fd >= 0 ? fcntl(cp->ini_fd, F_DUPFD_CLOEXEC, 3) : -1;
    if (cp->isolate.on) {
        pl->ini_file = realpath(ini_file, NULL);
        if (pl->ini_file == NULL)
            pl->ini_file = strdup(ini_file);
    }
    /* One call at a time until it is put in service with its share (server_set_shares). */
    work_lane_init(&pl->lane, 1);
    if (config_plugin_copy(&pl->section, cp) != STATUS_OK || pl->id == NULL ||
        (cp->isolate.on && (pl->ini_fd < 0 || pl->ini_file == NULL))) {
        plugin_free(pl);
        return STATUS_NOMEM;
    }
    status = plugin_load_steps(&ld, old);
    if (status != STATUS_OK) {
        plugin_free(pl);
        return status;
    }
    /* The section a refresh builds it from again names the descriptors it holds. */
    pl->section.ini_fd = pl->ini_fd;
    pl->section.image_fd = pl->image_fd;
    *out = pl;
    return STATUS_OK;
}

int plugin_load(struct plugin **out, const struct config_plugin *cp, const char *ini_file,
                const struct plugin_env *env, struct diag *errs)
{
    return plugin_load_over(out, NULL, cp, ini_file, env, errs);
}

static void *plugin_job_run(void *arg)
{
    struct plugin_job *job = arg;

    job->status = plugin_load(&job->pl, job->cp, job->ini_file, job->env, &job->errs);
    return NULL;
}

void plugin_load_set(struct plugin_job *jobs, size_t n, const char *ini_file,
                     const struct plugin_env *env)
{
    for (size_t i = 0; i < n; i++) {
        struct plugin_job *job = &jobs[i];

        job->pl = NULL;
        job->ini_file = ini_file;
        job->env = env;
        job->threaded = 0;
        diag_init(&job->errs);
        /* A process to start: its fork, exec and handshake take longer than an in-process
         * load, and a fork is cheaper before the plugins below have grown this process. */
        if (job->cp->isolate.on)
            job->threaded = pthread_create(&job->thread, NULL, plugin_job_run, job) == 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (!jobs[i].threaded)
            plugin_job_run(&jobs[i]);
    }
    for (size_t i = 0; i < n; i++) {
        if (jobs[i].threaded)
            pthread_join(jobs[i].thread, NULL);
    }
}

int plugin_takes_over(const struct plugin *pl)
{
    return pl->abi_minor >= PLUGIN_MINOR_TAKE_OVER && (pl->flags & MCPH_PLUGIN_TAKE_OVER) != 0;
}

int plugin_rebuild(struct plugin **out, struct plugin *old, const struct config_plugin *cp,
                   const char *ini_file, const struct plugin_env *env, struct diag *errs)
{
    return plugin_load_over(out, plugin_takes_over(old) ? old : NULL, cp, ini_file, env, errs);
}

void plugin_subscribe(struct plugin *pl, const char *uri, int on)
{
    if (pl->subscribe == NULL)
        return;
    pthread_mutex_lock(&pl->subscribe_lock);
    pl->subscribe(&pl->host.vt, pl->state, uri, on);
    pthread_mutex_unlock(&pl->subscribe_lock);
}

void plugin_ref(struct plugin *pl)
{
    atomic_fetch_add_explicit(&pl->refs, 1, memory_order_relaxed);
}

int plugin_unref(struct plugin *pl)
{
    return atomic_fetch_sub_explicit(&pl->refs, 1, memory_order_acq_rel) == 1;
}

static void plugin_free_keys(struct plugin *pl)
{
    for (size_t i = 0; i < pl->nkeys; i++) {
        free(pl->keys[i].name);
        free(pl->keys[i].description);
        free(pl->keys[i].default_value);
    }
    free(pl->keys);
    for (size_t i = 0; i < pl->nconfig; i++) {
        free(pl->config[i].key);
        free(pl->config[i].value);
    }
    free(pl->config);
    for (size_t i = 0; i < pl->npaths; i++) {
        free(pl->paths[i].key);
        free(pl->paths[i].path);
    }
    free(pl->paths);
}

void plugin_free(struct plugin *pl)
{
    if (pl == NULL)
        return;
    if (pl->initialized && pl->shutdown != NULL)
        pl->shutdown(pl->state);
    image_close(pl);
    pthread_mutex_destroy(&pl->subscribe_lock);
    rows_free(pl);
    plugin_free_keys(pl);
    free(pl->ini_dir);
    free(pl->instructions);
    free(pl->ini_file);
    if (pl->ini_fd >= 0)
        close(pl->ini_fd);
    free(pl->id);
    config_plugin_release(&pl->section);
    free(pl->name);
    free(pl->version);
    free(pl);
}

int plugin_image_fd(const struct plugin *pl)
{
    return pl->image != NULL ? pl->image->memfd : -1;
}

int plugin_file_changed(const struct plugin *pl)
{
    struct stat st;

    if (pl->image_fd >= 0)
        return 0; /* a child serves the copy its parent passed, whatever the disk says */
    if (stat(pl->section.path, &st) != 0)
        return 1;
    return st.st_dev != pl->dev || st.st_ino != pl->ino || st.st_size != pl->size ||
           st.st_mtim.tv_sec != pl->mtime.tv_sec || st.st_mtim.tv_nsec != pl->mtime.tv_nsec;
}
