/*
 * watcher.c: a test plugin of ABI 1.2 with a thread of its own, as the files and prompts
 * plugins have. Its init defines a tool per "tool NAME" line of the file `list` (relative to
 * the INI), sleeps `slow_init_ms` if set, then starts a thread that, until shutdown:
 *   - calls host->refresh() when the list's modification time or size changes (the baseline
 *     is taken when the thread starts, so a change made during a slow init is seen only by
 *     the instance being replaced);
 *   - or, with `spam_ms`, calls host->refresh() every spam_ms milliseconds;
 *   - or, with `update_ms`, calls host->resource_updated("watcher://x") and host->log() every
 *     update_ms milliseconds (to race the core's shutdown).
 * The descriptor sets MCPH_PLUGIN_REBUILD_ON_RELOAD: it is rebuilt on every reload even when
 * its list defines nothing.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "plugin-api.h"

struct watcher {
    const struct mcph_host *host;
    char list[1024];
    long spam_ms, update_ms;
    pthread_t thread;
    atomic_int stop;
};

static void watcher_sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

static int watcher_name(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->text(call, host->call_name(call));
}

static int watcher_read(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    return host->contents_text(call, NULL, "text/plain", "x");
}

static int watcher_refresh(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    host->refresh(host);
    return host->text(call, "asked");
}

/* The list's identity: modification time and size. */
static void watcher_stamp(const char *path, struct timespec *mtime, off_t *size)
{
    struct stat st;

    if (stat(path, &st) != 0) {
        memset(&st, 0, sizeof(st));
    }
    *mtime = st.st_mtim;
    *size = st.st_size;
}

static void *watcher_thread(void *arg)
{
    struct watcher *w = arg;
    struct timespec base, now;
    off_t base_size, size;

    watcher_stamp(w->list, &base, &base_size);
    while (!atomic_load(&w->stop)) {
        if (w->update_ms > 0) {
            w->host->resource_updated(w->host, "watcher://x");
            w->host->log(w->host, MCPH_LOG_DEBUG, "updated watcher://x");
            watcher_sleep_ms(w->update_ms);
            continue;
        }
        if (w->spam_ms > 0) {
            w->host->refresh(w->host);
            watcher_sleep_ms(w->spam_ms);
            continue;
        }
        watcher_stamp(w->list, &now, &size);
        if (now.tv_sec != base.tv_sec || now.tv_nsec != base.tv_nsec || size != base_size) {
            base = now;
            base_size = size;
            w->host->log(w->host, MCPH_LOG_INFO, "the list changed; asking for a rebuild");
            w->host->refresh(w->host);
        }
        watcher_sleep_ms(10);
    }
    return NULL;
}

static void watcher_define(const struct mcph_host *host, const char *path)
{
    char line[256];
    FILE *f = fopen(path, "r");

    while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
        char *kind = strtok(line, " \t\r\n");
        char *name = strtok(NULL, " \t\r\n");

        if (kind != NULL && name != NULL && strcmp(kind, "tool") == 0) {
            struct mcph_tool t = {.name = name, .call = watcher_name};

            host->define_tool(host, &t);
        }
    }
    if (f != NULL)
        fclose(f);
}

static long watcher_key(const struct mcph_host *host, const char *key)
{
    const char *v = host->config(host, key);

    return v != NULL ? atol(v) : 0;
}

static int watcher_init(const struct mcph_host *host, void **state)
{
    struct watcher *w = calloc(1, sizeof(*w));

    if (w == NULL)
        return MCPH_ERR_NOMEM;
    w->host = host;
    snprintf(w->list, sizeof(w->list), "%s", host->config_path(host, "list"));
    w->spam_ms = watcher_key(host, "spam_ms");
    w->update_ms = watcher_key(host, "update_ms");
    watcher_define(host, w->list);
    if (watcher_key(host, "slow_init_ms") > 0) {
        host->log(host, MCPH_LOG_INFO, "slow init");
        watcher_sleep_ms(watcher_key(host, "slow_init_ms"));
    }
    if (pthread_create(&w->thread, NULL, watcher_thread, w) != 0) {
        host->log(host, MCPH_LOG_ERROR, "cannot start the thread");
        free(w);
        return MCPH_ERR;
    }
    *state = w;
    return MCPH_OK;
}

static void watcher_shutdown(void *state)
{
    struct watcher *w = state;

    atomic_store(&w->stop, 1);
    pthread_join(w->thread, NULL);
    free(w);
}

static const struct mcph_tool watcher_tools[] = {
    {.name = "refresh", .description = "Ask for a rebuild", .call = watcher_refresh},
    {0},
};

static const struct mcph_resource watcher_resources[] = {
    {.uri = "watcher://x", .name = "x", .read = watcher_read},
    {0},
};

static const struct mcph_config_key watcher_keys[] = {
    {.name = "list", .description = "A file of 'tool NAME' lines", .required = 1},
    {.name = "spam_ms", .description = "Ask for a rebuild this often"},
    {.name = "update_ms", .description = "Say watcher://x changed this often"},
    {.name = "slow_init_ms", .description = "Sleep this long in init"},
    {0},
};

static const struct mcph_plugin watcher_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "watcher",
    .version = "1.0.0",
    .description = "A thread that asks for rebuilds (ABI 1.2 test plugin)",
    .flags = MCPH_PLUGIN_THREAD_SAFE | MCPH_PLUGIN_REBUILD_ON_RELOAD,
    .tools = watcher_tools,
    .resources = watcher_resources,
    .config_keys = watcher_keys,
    .init = watcher_init,
    .shutdown = watcher_shutdown,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &watcher_plugin;
}
