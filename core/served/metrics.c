/*
 * metrics.c: the counters metrics_path shows, kept with atomics on the call path, and their
 * Prometheus text; the plugin states and readiness read at scrape time (metrics.h).
 */
#include "served/metrics.h"

#include "client/client.h"
#include "host/plugin.h"
#include "host/result.h"
#include "lib/limits.h"
#include "lib/version.h"
#include "served/registry.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The histograms' upper bounds in ns (.0005 s to 10 s), +Inf after them. */
static const uint64_t metrics_bounds_ns[] = {
    500000ull,    1000000ull,   5000000ull,    10000000ull,   50000000ull,
    100000000ull, 500000000ull, 1000000000ull, 5000000000ull, 10000000000ull,
};
static const char *const metrics_bounds_text[] = {
    "0.0005", "0.001", "0.005", "0.01", "0.05", "0.1", "0.5", "1", "5", "10", "+Inf",
};
#define METRICS_BUCKETS (sizeof(metrics_bounds_ns) / sizeof(metrics_bounds_ns[0]) + 1)

/* The methods of calls that run plugin code, by enum result_kind. */
static const char *const metrics_methods[] = {
    [RESULT_TOOL] = "tools/call",
    [RESULT_RESOURCE] = "resources/read",
    [RESULT_PROMPT] = "prompts/get",
    [RESULT_COMPLETE] = "completion/complete",
};
#define METRICS_METHODS (sizeof(metrics_methods) / sizeof(metrics_methods[0]))

static const char *const metrics_outcomes[METRICS_OUTCOMES] = {
    [METRICS_OK] = "ok",           [METRICS_TOOL_ERROR] = "tool_error",
    [METRICS_ERROR] = "error",     [METRICS_CANCELLED] = "cancelled",
    [METRICS_TIMEOUT] = "timeout", [METRICS_INPUT_REQUIRED] = "input_required",
};

/* HTTP refusals by status; any other status of 400 or more is "other". */
static const struct {
    unsigned status;
    const char *reason;
} metrics_reasons[] = {
    {400, "bad_request"},     {401, "unauthorized"},       {403, "forbidden"},
    {404, "not_found"},       {405, "method_not_allowed"}, {406, "not_acceptable"},
    {413, "too_large"},       {415, "unsupported_media"},  {429, "rate_limited"},
    {501, "not_implemented"}, {503, "unavailable"},        {0, "other"},
};
#define METRICS_REASONS (sizeof(metrics_reasons) / sizeof(metrics_reasons[0]))

static const char *const metrics_states[] = {"up", "restarting", "down", "idle"};

struct metrics_hist {
    atomic_uint_fast64_t buckets[METRICS_BUCKETS]; /* not cumulative: summed when written */
    atomic_uint_fast64_t sum_ns;
};

struct metrics_plugin {
    char *id; /* owned */
    atomic_uint_fast64_t calls[METRICS_METHODS][METRICS_OUTCOMES];
    struct metrics_hist hist;
};

struct metrics_tool {
    struct metrics_plugin *plugin; /* its plugin's series */
    char *name;                    /* owned */
    atomic_uint_fast64_t calls[METRICS_OUTCOMES];
    struct metrics_hist hist;
};

/* Open addressing, twice the bound in slots: found without a lock, added under the lock. */
#define METRICS_TOOL_SLOTS (2 * LIMIT_METRICS_SERIES)
#define METRICS_PLUGIN_SLOTS (2 * LIMIT_METRICS_PLUGINS)

struct metrics {
    pthread_mutex_t lock; /* guards the adding of series (ntools, nplugins) */
    _Atomic(struct metrics_tool *) tools[METRICS_TOOL_SLOTS];
    _Atomic(struct metrics_plugin *) plugins[METRICS_PLUGIN_SLOTS];
    size_t ntools, nplugins;
    struct metrics_plugin other_plugin; /* calls past LIMIT_METRICS_PLUGINS */
    struct metrics_tool other_tool;     /* calls past LIMIT_METRICS_SERIES */
    atomic_long in_flight;
    atomic_uint_fast64_t rejected[METRICS_REASONS];
    atomic_uint_fast64_t reloads[2]; /* failed, ok */
    char other[8];                   /* the overflow series' labels: "(other)" */
};

struct metrics *metrics_new(void)
{
    struct metrics *m = calloc(1, sizeof(*m));

    if (m == NULL)
        return NULL;
    pthread_mutex_init(&m->lock, NULL);
    memcpy(m->other, "(other)", sizeof(m->other));
    m->other_plugin.id = m->other;
    m->other_tool.name = m->other;
    m->other_tool.plugin = &m->other_plugin;
    return m;
}

void metrics_free(struct metrics *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < METRICS_TOOL_SLOTS; i++) {
        struct metrics_tool *t = atomic_load(&m->tools[i]);

        if (t != NULL)
            free(t->name);
        free(t);
    }
    for (size_t i = 0; i < METRICS_PLUGIN_SLOTS; i++) {
        struct metrics_plugin *p = atomic_load(&m->plugins[i]);

        if (p != NULL)
            free(p->id);
        free(p);
    }
    pthread_mutex_destroy(&m->lock);
    free(m);
}

/* FNV-1a over a, a zero byte, then b. */
static size_t metrics_hash(const char *a, const char *b)
{
    uint64_t h = 14695981039346656037ull;

    for (const char *p = a; *p != '\0'; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    h *= 1099511628211ull;
    for (const char *p = b; p != NULL && *p != '\0'; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return (size_t)(h ^ (h >> 29));
}

/* The slot of plugin id: its series, or the empty slot where it would go. */
static size_t metrics_plugin_slot(struct metrics *m, const char *id, struct metrics_plugin **found)
{
    size_t i = metrics_hash(id, NULL) & (METRICS_PLUGIN_SLOTS - 1);

    for (;;) {
        struct metrics_plugin *p = atomic_load_explicit(&m->plugins[i], memory_order_acquire);

        if (p == NULL || strcmp(p->id, id) == 0) {
            *found = p;
            return i;
        }
        i = (i + 1) & (METRICS_PLUGIN_SLOTS - 1);
    }
}

static struct metrics_plugin *metrics_plugin_find(struct metrics *m, const char *id)
{
    struct metrics_plugin *p;
    size_t i = metrics_plugin_slot(m, id, &p);

    if (p != NULL)
        return p;
    pthread_mutex_lock(&m->lock);
    i = metrics_plugin_slot(m, id, &p);
    if (p == NULL && m->nplugins < LIMIT_METRICS_PLUGINS) {
        p = calloc(1, sizeof(*p));
        if (p != NULL && (p->id = strdup(id)) == NULL) {
            free(p);
            p = NULL;
        }
        if (p != NULL) {
            m->nplugins++;
            atomic_store_explicit(&m->plugins[i], p, memory_order_release);
        }
    }
    pthread_mutex_unlock(&m->lock);
    return p != NULL ? p : &m->other_plugin;
}

/* The slot of tool (plugin, name): its series, or the empty slot where it would go. */
static size_t metrics_tool_slot(struct metrics *m, const char *plugin, const char *name,
                                struct metrics_tool **found)
{
    size_t i = metrics_hash(plugin, name) & (METRICS_TOOL_SLOTS - 1);

    for (;;) {
        struct metrics_tool *t = atomic_load_explicit(&m->tools[i], memory_order_acquire);

        if (t == NULL || (strcmp(t->name, name) == 0 && strcmp(t->plugin->id, plugin) == 0)) {
            *found = t;
            return i;
        }
        i = (i + 1) & (METRICS_TOOL_SLOTS - 1);
    }
}

static struct metrics_tool *metrics_tool_find(struct metrics *m, struct metrics_plugin *pl,
                                              const char *name)
{
    struct metrics_tool *t;
    size_t i = metrics_tool_slot(m, pl->id, name, &t);

    if (t != NULL)
        return t;
    if (pl == &m->other_plugin)
        return &m->other_tool;
    pthread_mutex_lock(&m->lock);
    i = metrics_tool_slot(m, pl->id, name, &t);
    if (t == NULL && m->ntools < LIMIT_METRICS_SERIES) {
        t = calloc(1, sizeof(*t));
        if (t != NULL && (t->name = strdup(name)) == NULL) {
            free(t);
            t = NULL;
        }
        if (t != NULL) {
            t->plugin = pl;
            m->ntools++;
            atomic_store_explicit(&m->tools[i], t, memory_order_release);
        }
    }
    pthread_mutex_unlock(&m->lock);
    return t != NULL ? t : &m->other_tool;
}

static uint64_t metrics_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void metrics_call_begin(struct metrics *m, struct metrics_call *mc, const char *plugin, int kind,
                        const char *name)
{
    if (m == NULL || kind <= 0 || (size_t)kind >= METRICS_METHODS)
        return;
    mc->plugin = metrics_plugin_find(m, plugin);
    mc->tool = kind == RESULT_TOOL && name != NULL ? metrics_tool_find(m, mc->plugin, name) : NULL;
    mc->method = kind;
    mc->outcome = METRICS_CANCELLED;
    atomic_fetch_add_explicit(&m->in_flight, 1, memory_order_relaxed);
    mc->began = metrics_now_ns();
}

static void metrics_observe(struct metrics_hist *h, uint64_t ns)
{
    size_t b = 0;

    while (b < METRICS_BUCKETS - 1 && ns > metrics_bounds_ns[b])
        b++;
    atomic_fetch_add_explicit(&h->buckets[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->sum_ns, ns, memory_order_relaxed);
}

void metrics_call_end(struct metrics *m, struct metrics_call *mc)
{
    uint64_t ns;

    if (m == NULL || mc->plugin == NULL)
        return;
    ns = metrics_now_ns() - mc->began;
    atomic_fetch_add_explicit(&mc->plugin->calls[mc->method][mc->outcome], 1, memory_order_relaxed);
    metrics_observe(&mc->plugin->hist, ns);
    if (mc->tool != NULL) {
        atomic_fetch_add_explicit(&mc->tool->calls[mc->outcome], 1, memory_order_relaxed);
        metrics_observe(&mc->tool->hist, ns);
    }
    atomic_fetch_sub_explicit(&m->in_flight, 1, memory_order_relaxed);
    mc->plugin = NULL;
}

int metrics_outcome_of(int rc)
{
    if (rc == MCPH_ERR_TIMEOUT)
        return METRICS_TIMEOUT;
    return rc == MCPH_ERR_CANCELLED ? METRICS_CANCELLED : METRICS_ERROR;
}

void metrics_reject(struct metrics *m, unsigned status)
{
    size_t i = 0;

    if (m == NULL || status < 400)
        return;
    while (metrics_reasons[i].status != 0 && metrics_reasons[i].status != status)
        i++;
    atomic_fetch_add_explicit(&m->rejected[i], 1, memory_order_relaxed);
}

void metrics_reload(struct metrics *m, int ok)
{
    if (m != NULL)
        atomic_fetch_add_explicit(&m->reloads[ok ? 1 : 0], 1, memory_order_relaxed);
}

/* --- The text. --- */

void metrics_label(struct strbuf *sb, const char *value)
{
    for (const char *p = value; *p != '\0'; p++) {
        if (*p == '\\' || *p == '"')
            strbuf_addch(sb, '\\');
        if (*p == '\n')
            strbuf_addstr(sb, "\\n");
        else
            strbuf_addch(sb, *p);
    }
}

static void metrics_head(struct strbuf *sb, const char *name, const char *type, const char *help)
{
    strbuf_addf(sb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* How many calls a histogram counted. */
static uint64_t metrics_hist_total(const struct metrics_hist *h)
{
    uint64_t total = 0;

    for (size_t b = 0; b < METRICS_BUCKETS; b++)
        total += atomic_load_explicit(&h->buckets[b], memory_order_relaxed);
    return total;
}

/* A histogram's lines for one series: labels is its label text ("plugin=\"x\"" escaped). */
static void metrics_hist_write(struct strbuf *sb, const char *name, const char *labels,
                               const struct metrics_hist *h)
{
    uint64_t total = 0, sum = atomic_load_explicit(&h->sum_ns, memory_order_relaxed);

    for (size_t b = 0; b < METRICS_BUCKETS; b++) {
        total += atomic_load_explicit(&h->buckets[b], memory_order_relaxed);
        strbuf_addf(sb, "%s_bucket{%s,le=\"%s\"} %llu\n", name, labels, metrics_bounds_text[b],
                    (unsigned long long)total);
    }
    strbuf_addf(sb, "%s_sum{%s} %llu.%09llu\n", name, labels,
                (unsigned long long)(sum / 1000000000ull),
                (unsigned long long)(sum % 1000000000ull));
    strbuf_addf(sb, "%s_count{%s} %llu\n", name, labels, (unsigned long long)total);
}

/* The label text of a tool's series into sb (reset first). */
static void metrics_tool_labels(struct strbuf *sb, const struct metrics_tool *t)
{
    strbuf_reset(sb);
    strbuf_addstr(sb, "plugin=\"");
    metrics_label(sb, t->plugin->id);
    strbuf_addstr(sb, "\",tool=\"");
    metrics_label(sb, t->name);
    strbuf_addch(sb, '"');
}

static void metrics_plugin_labels(struct strbuf *sb, const struct metrics_plugin *p)
{
    strbuf_reset(sb);
    strbuf_addstr(sb, "plugin=\"");
    metrics_label(sb, p->id);
    strbuf_addch(sb, '"');
}

/* Each tool series, then the overflow one when it counted anything. */
static void metrics_each_tool(struct metrics *m,
                              void (*fn)(struct strbuf *, const char *,
                                         const struct metrics_tool *),
                              struct strbuf *sb)
{
    struct strbuf labels = STRBUF_INIT;

    for (size_t i = 0; i <= METRICS_TOOL_SLOTS; i++) {
        const struct metrics_tool *t =
            i < METRICS_TOOL_SLOTS ? atomic_load_explicit(&m->tools[i], memory_order_acquire)
                                   : &m->other_tool;

        if (t == NULL || (t == &m->other_tool && metrics_hist_total(&t->hist) == 0))
            continue;
        metrics_tool_labels(&labels, t);
        fn(sb, labels.buf, t);
    }
    strbuf_release(&labels);
}

static void metrics_tool_calls(struct strbuf *sb, const char *labels, const struct metrics_tool *t)
{
    for (size_t o = 0; o < METRICS_OUTCOMES; o++)
        strbuf_addf(sb, "mcph_calls_total{%s,outcome=\"%s\"} %llu\n", labels, metrics_outcomes[o],
                    (unsigned long long)atomic_load_explicit(&t->calls[o], memory_order_relaxed));
}

static void metrics_tool_hist(struct strbuf *sb, const char *labels, const struct metrics_tool *t)
{
    metrics_hist_write(sb, "mcph_call_duration_seconds", labels, &t->hist);
}

/* A plugin's calls of one method, when it had any. */
static void metrics_plugin_calls(struct strbuf *sb, const char *labels,
                                 const struct metrics_plugin *p, size_t method)
{
    uint64_t n[METRICS_OUTCOMES], any = 0;

    for (size_t o = 0; o < METRICS_OUTCOMES; o++) {
        n[o] = atomic_load_explicit(&p->calls[method][o], memory_order_relaxed);
        any += n[o];
    }
    for (size_t o = 0; any > 0 && o < METRICS_OUTCOMES; o++)
        strbuf_addf(sb, "mcph_plugin_calls_total{%s,method=\"%s\",outcome=\"%s\"} %llu\n", labels,
                    metrics_methods[method], metrics_outcomes[o], (unsigned long long)n[o]);
}

static void metrics_plugins_write(struct metrics *m, struct strbuf *sb, int hist)
{
    struct strbuf labels = STRBUF_INIT;

    for (size_t i = 0; i <= METRICS_PLUGIN_SLOTS; i++) {
        const struct metrics_plugin *p =
            i < METRICS_PLUGIN_SLOTS ? atomic_load_explicit(&m->plugins[i], memory_order_acquire)
                                     : &m->other_plugin;

        if (p == NULL || (p == &m->other_plugin && metrics_hist_total(&p->hist) == 0))
            continue;
        metrics_plugin_labels(&labels, p);
        if (hist)
            metrics_hist_write(sb, "mcph_plugin_call_duration_seconds", labels.buf, &p->hist);
        for (size_t k = RESULT_TOOL; !hist && k < METRICS_METHODS; k++)
            metrics_plugin_calls(sb, labels.buf, p, k);
    }
    strbuf_release(&labels);
}

static void metrics_calls_write(struct metrics *m, struct strbuf *sb)
{
    metrics_head(sb, "mcph_calls_total", "counter",
                 "tools/call requests answered, by plugin, tool and outcome.");
    metrics_each_tool(m, metrics_tool_calls, sb);
    metrics_head(sb, "mcph_call_duration_seconds", "histogram",
                 "Time from a tools/call request's dispatch to its answer.");
    metrics_each_tool(m, metrics_tool_hist, sb);
    metrics_head(sb, "mcph_plugin_calls_total", "counter",
                 "Requests that ran plugin code, by plugin, method and outcome.");
    metrics_plugins_write(m, sb, 0);
    metrics_head(sb, "mcph_plugin_call_duration_seconds", "histogram",
                 "Time from a request's dispatch to its answer, for every call of a plugin.");
    metrics_plugins_write(m, sb, 1);
}

static void metrics_counts_write(struct metrics *m, struct strbuf *sb)
{
    metrics_head(sb, "mcph_requests_in_flight", "gauge",
                 "Requests that run plugin code, queued or running.");
    strbuf_addf(sb, "mcph_requests_in_flight %ld\n",
                atomic_load_explicit(&m->in_flight, memory_order_relaxed));
    metrics_head(sb, "mcph_http_rejected_total", "counter",
                 "HTTP requests refused, by reason (the status answered).");
    for (size_t i = 0; i < METRICS_REASONS; i++)
        strbuf_addf(
            sb, "mcph_http_rejected_total{reason=\"%s\"} %llu\n", metrics_reasons[i].reason,
            (unsigned long long)atomic_load_explicit(&m->rejected[i], memory_order_relaxed));
    metrics_head(sb, "mcph_reloads_total", "counter", "Reloads (SIGHUP, watch mode), by result.");
    strbuf_addf(sb, "mcph_reloads_total{result=\"ok\"} %llu\n",
                (unsigned long long)atomic_load_explicit(&m->reloads[1], memory_order_relaxed));
    strbuf_addf(sb, "mcph_reloads_total{result=\"failed\"} %llu\n",
                (unsigned long long)atomic_load_explicit(&m->reloads[0], memory_order_relaxed));
}

/* --- Plugin states, read at scrape time. --- */

/* What an instance's state is: one of metrics_states. An isolated plugin's is its child's (the
 * client engine's link); an instance in process serves while it is in the set. */
static const char *metrics_state_of(const struct server *srv, const struct plugin *pl)
{
    if (srv->isolated == NULL && pl->section.isolate.on && pl->state != NULL)
        return mcp_serve_health(pl->state);
    return "up";
}

static void metrics_state_lines(struct strbuf *sb, const char *id, const char *state)
{
    for (size_t s = 0; s < sizeof(metrics_states) / sizeof(metrics_states[0]); s++) {
        strbuf_addstr(sb, "mcph_plugin_state{plugin=\"");
        metrics_label(sb, id);
        strbuf_addf(sb, "\",state=\"%s\"} %d\n", metrics_states[s],
                    strcmp(state, metrics_states[s]) == 0);
    }
}

/* The set served (held: server_release_registry), and the enabled sections it lacks (their
 * init failed: down) written into sb, under the state lock. */
static struct registry *metrics_hold(struct server *srv, struct strbuf *sb)
{
    struct registry *reg;

    pthread_mutex_lock(&srv->lock);
    reg = srv->reg;
    if (reg != NULL)
        registry_ref(reg);
    for (size_t i = 0; sb != NULL && i < srv->cfg.nplugins; i++) {
        const struct config_plugin *cp = &srv->cfg.plugins[i];
        int served = 0;

        for (size_t j = 0; reg != NULL && j < reg->nplugins; j++)
            served |= strcmp(reg->plugins[j]->id, cp->id) == 0;
        if (cp->enabled && !served)
            metrics_state_lines(sb, cp->id, "down");
    }
    pthread_mutex_unlock(&srv->lock);
    return reg;
}

static void metrics_states_write(struct server *srv, struct strbuf *sb)
{
    struct registry *reg;

    metrics_head(sb, "mcph_plugin_state", "gauge",
                 "A plugin instance's state: 1 for the current one (up, restarting, down, idle).");
    reg = metrics_hold(srv, sb);
    for (size_t i = 0; reg != NULL && i < reg->nplugins; i++)
        metrics_state_lines(sb, reg->plugins[i]->id, metrics_state_of(srv, reg->plugins[i]));
    server_release_registry(srv, reg);
}

void metrics_write(struct metrics *m, struct server *srv, struct strbuf *sb)
{
    metrics_head(sb, "mcph_up", "gauge", "1 while mcph serves.");
    strbuf_addstr(sb, "mcph_up 1\n");
    metrics_head(sb, "mcph_build_info", "gauge", "mcph's version, as a label.");
    strbuf_addf(sb, "mcph_build_info{version=\"%s\"} 1\n", MCPH_VERSION);
    if (m != NULL) {
        metrics_calls_write(m, sb);
        metrics_counts_write(m, sb);
    }
    metrics_states_write(srv, sb);
}

/* Whether plugin pl serves: up, or idle (started again when a request needs it). last and
 * last_ok remember the previous answer (rows of one plugin come together). */
static int metrics_serves(const struct server *srv, const struct plugin *pl,
                          const struct plugin **last, int *last_ok)
{
    const char *state;

    if (pl == *last)
        return *last_ok;
    state = metrics_state_of(srv, pl);
    *last = pl;
    *last_ok = strcmp(state, "up") == 0 || strcmp(state, "idle") == 0;
    return *last_ok;
}

int metrics_ready(struct server *srv, const char **why)
{
    struct registry *reg = metrics_hold(srv, NULL);
    const struct plugin *last = NULL;
    int ok = 0, rows = 0, last_ok = 0;

    for (size_t i = 0; reg != NULL && !ok && i < reg->ntools; i++)
        ok = metrics_serves(srv, reg->tools[i].plugin, &last, &last_ok);
    for (size_t i = 0; reg != NULL && !ok && i < reg->nresources; i++)
        ok = metrics_serves(srv, reg->resources[i].plugin, &last, &last_ok);
    for (size_t i = 0; reg != NULL && !ok && i < reg->ntemplates; i++)
        ok = metrics_serves(srv, reg->templates[i].plugin, &last, &last_ok);
    for (size_t i = 0; reg != NULL && !ok && i < reg->nprompts; i++)
        ok = metrics_serves(srv, reg->prompts[i].plugin, &last, &last_ok);
    if (reg != NULL)
        rows = reg->ntools + reg->nresources + reg->ntemplates + reg->nprompts > 0;
    server_release_registry(srv, reg);
    *why = ok     ? NULL
           : rows ? "no plugin that serves rows is up (restarting or down)"
                  : "no plugin serves a tool, resource or prompt";
    return ok;
}
