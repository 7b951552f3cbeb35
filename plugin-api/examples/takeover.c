/*
 * takeover.c: reload and take-over. A counter that survives rebuilds: counter_rebuild asks
 * mcph to build the instance again (host->refresh), and with MCPH_PLUGIN_TAKE_OVER the new
 * instance's init shares what the one it replaces holds (host->predecessor). The old one may
 * still serve calls while the new init runs, so the counter is shared (counted), not moved.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "mcph-strbuf.h"

struct counter {
    atomic_long value;
    atomic_int users; /* instances sharing it; the last shutdown frees it */
};

struct takeover {
    const struct mcph_host *host;
    struct counter *counter;
};

static int counter_next(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    struct takeover *st = state;
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;

    mcph_sb_addf(&sb, "%ld", atomic_fetch_add(&st->counter->value, 1) + 1);
    int rc = sb.nomem ? MCPH_ERR_NOMEM : host->text(call, sb.buf);
    mcph_sb_release(&sb);
    return rc;
}

static int counter_rebuild(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)state;
    host->refresh(host); /* recorded; the main thread rebuilds about 100 ms later */
    return host->text(call, "a rebuild is on its way");
}

static int takeover_init(const struct mcph_host *host, void **state)
{
    struct takeover *st = malloc(sizeof(*st));
    const struct takeover *old = host->predecessor(host);

    if (st == NULL)
        return MCPH_ERR_NOMEM;
    st->host = host;
    st->counter = old != NULL ? old->counter : calloc(1, sizeof(*st->counter));
    if (st->counter == NULL) {
        free(st);
        return MCPH_ERR_NOMEM;
    }
    atomic_fetch_add(&st->counter->users, 1);
    if (old != NULL)
        host->log(host, MCPH_LOG_INFO, "took over the counter at %ld",
                  atomic_load(&st->counter->value));
    *state = st;
    return MCPH_OK;
}

static void takeover_shutdown(void *state)
{
    struct takeover *st = state;

    if (atomic_fetch_sub(&st->counter->users, 1) == 1)
        free(st->counter);
    free(st);
}

static const struct mcph_tool takeover_tools[] = {
    {.name = "counter_next", .description = "The next number.", .call = counter_next},
    {.name = "counter_rebuild", .description = "Rebuilds the instance.", .call = counter_rebuild},
    {0},
};

static const struct mcph_plugin takeover_plugin = {
    MCPH_PLUGIN_HEADER,
    .name = "takeover",
    .flags = MCPH_PLUGIN_THREAD_SAFE | MCPH_PLUGIN_TAKE_OVER,
    .tools = takeover_tools,
    .init = takeover_init,
    .shutdown = takeover_shutdown,
};

MCPH_EXPORT const struct mcph_plugin *mcph_plugin_entry(void)
{
    return &takeover_plugin;
}
