/* test_server.c: the server's life cycle with real INI files and plugins: init and release
 * with nothing loaded, server_load (what it serves, a wrong or missing INI, plugins that fail
 * or collide, each instance's share of threads), server_open_output (the log reaches the
 * client only when asked; a client that is gone wakes the main loop), refresh requests, the
 * retired list (what a worker drops the last reference to stays loaded until the main thread
 * frees it), and the subscribe calls of ABI 1.3 across subscriptions and a reload. Whether an
 * instance is loaded is read from /proc/self/maps, where its library shows as the memfd named
 * after its INI section. */
#include "served/server.h"

#include "check.h"
#include "fixture.h"
#include "host/plugin.h"
#include "served/registry.h"
#include "served/reload.h"
#include "lib/status.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SRV_SERVER "[server]\nplugin_dir = ../../plugins\n"

static struct fixture_server fx;

/* Serve ini; on failure, say why. Returns whether server_load returned STATUS_OK. */
static int srv_open(const char *ini)
{
    if (fixture_server_open(&fx, "server", ini) == 0)
        return 1;
    fprintf(stderr, "    server set-up failed (load status %d); log:\n%s\n", fx.load_status,
            fixture_capture_take(&fx.log));
    return 0;
}

/* A wake-up pipe for srv: the read end (non-blocking) in *rd. */
static int srv_wake_pipe(struct server *srv, int fds[2])
{
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        return -1;
    srv->wake_fd = fds[1];
    return 0;
}

/* How many wake-ups are waiting (read, so the next count starts at 0). */
static int srv_wakes(int rd)
{
    char buf[64];
    ssize_t n;
    int total = 0;

    while ((n = read(rd, buf, sizeof(buf))) > 0)
        total += (int)n;
    return total;
}

static struct plugin *srv_plugin(struct registry *reg, const char *id)
{
    for (size_t i = 0; reg != NULL && i < reg->nplugins; i++) {
        if (strcmp(reg->plugins[i]->id, id) == 0)
            return reg->plugins[i];
    }
    return NULL;
}

static void test_init_release_empty(void)
{
    struct server srv;
    size_t n = 9;

    server_init(&srv);
    CHECK(srv.reg == NULL);
    CHECK_INT_EQ(srv.wake_fd, -1);
    CHECK(srv.env.ctx == &srv);
    CHECK(server_take_refresh(&srv, &n) == NULL);
    CHECK_INT_EQ(n, 0);
    CHECK_INT_EQ(server_refresh_pending(&srv), 0);
    /* No wake-up pipe (--check): waking is a no-op; nothing retired to free. */
    server_wake(&srv);
    server_free_retired(&srv);
    server_release(&srv);
}

static void test_load_serves(void)
{
    if (!srv_open(SRV_SERVER "name = served\nlog_level = warning\n"
                             "[plugin.b]\npath = basic.so\n"
                             "[plugin.t]\npath = threadsafe.so\nprefix = ts\n"))
        goto out;
    CHECK_INT_EQ(fx.failures, 0);
    CHECK_INT_EQ(fx.collisions, 0);
    if (CHECK(fx.srv.reg != NULL)) {
        CHECK_INT_EQ(fx.srv.reg->nplugins, 2);
        CHECK_INT_EQ(fx.srv.reg->ntools, 7);
        CHECK(registry_find_tool(fx.srv.reg, "ts_overlap_mt") != NULL);
    }
    CHECK_INT_EQ(fixture_mapped("b"), 1);
    CHECK_INT_EQ(fixture_mapped("t"), 1);
    /* The INI's log level applies; the served set says the INI's name. */
    CHECK_INT_EQ(atomic_load(&fx.srv.log.level), LOG_WARNING);
    CHECK_STR_HAS(fixture_server_send(&fx, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
                                           "\"initialize\",\"params\":{\"protocolVersion\":"
                                           "\"2025-06-18\"}}"),
                  "\"serverInfo\":{\"name\":\"served\"");
    /* The log reaches the client only once it asks for a level. */
    log_msg(&fx.srv.log, LOG_ERROR, NULL, "for stderr");
    out_flush(&fx.srv.out);
    CHECK_STR_EQ(fixture_capture_take(&fx.out), "");
    CHECK_STR_HAS(fixture_capture_take(&fx.log), "for stderr");
out:
    fixture_server_close(&fx);
    CHECK_INT_EQ(fixture_mapped("b"), 0);
    CHECK_INT_EQ(fixture_mapped("t"), 0);
}

static void test_load_bad_ini(void)
{
    const char *log;

    CHECK(fixture_server_open(&fx, "server",
                              SRV_SERVER "colour = blue\n[plugin.b]\npath = basic.so\n") != 0);
    CHECK_INT_EQ(fx.load_status, STATUS_INVALID);
    CHECK(fx.srv.reg == NULL);
    CHECK_INT_EQ(fixture_mapped("b"), 0);
    log = fixture_capture_take(&fx.log);
    CHECK_STR_HAS(log, "build/tests/tmp/server/mcph.ini");
    CHECK_STR_HAS(log, "colour");
    fixture_server_close(&fx);
}

static void test_load_missing_ini(void)
{
    struct fixture_capture log;
    struct server srv;
    size_t failures = 0, collisions = 0;

    if (!CHECK(fixture_capture_open(&log, "log") == 0))
        return;
    server_init(&srv);
    srv.log.fd = log.fd;
    CHECK_INT_EQ(server_load(&srv, "build/tests/tmp/server/none.ini", &failures, &collisions),
                 STATUS_INVALID);
    CHECK_STR_HAS(fixture_capture_take(&log), "build/tests/tmp/server/none.ini");
    server_release(&srv);
    fixture_capture_close(&log);
}

/* A plugin whose init fails is left out and counted; the disabled one is not looked at. */
static void test_plugin_failures(void)
{
    const char *log;

    if (!srv_open(SRV_SERVER "[plugin.ok]\npath = basic.so\n"
                             "[plugin.bad]\npath = init_fail.so\n"
                             "[plugin.off]\npath = missing.so\nenabled = no\n"))
        goto out;
    CHECK_INT_EQ(fx.failures, 1);
    if (CHECK(fx.srv.reg != NULL)) {
        CHECK_INT_EQ(fx.srv.reg->nplugins, 1);
        CHECK(srv_plugin(fx.srv.reg, "ok") != NULL);
    }
    log = fixture_capture_take(&fx.log);
    CHECK_STR_HAS(log, "bad");
    CHECK(strstr(log, "'off'") == NULL && strstr(log, "plugin.off") == NULL);
out:
    fixture_server_close(&fx);
}

/* An error in a plugin section (here a missing .so) stops the load as a [server] error does,
 * after every section was tried (each error is logged), and nothing is left loaded. */
static void test_section_errors(void)
{
    const char *log;

    CHECK(fixture_server_open(&fx, "server",
                              SRV_SERVER "[plugin.ok]\npath = basic.so\n"
                                         "[plugin.gone]\npath = missing.so\n"
                                         "[plugin.bad]\npath = init_fail.so\n") != 0);
    CHECK_INT_EQ(fx.load_status, STATUS_INVALID);
    CHECK_INT_EQ(fixture_mapped("ok"), 0);
    log = fixture_capture_take(&fx.log);
    CHECK_STR_HAS(log, "build/tests/tmp/server/mcph.ini:6: plugin 'gone'");
    CHECK_STR_HAS(log, "init failed on purpose");
    CHECK_STR_HAS(log, "1 plugin section(s) of build/tests/tmp/server/mcph.ini to fix");
    fixture_server_close(&fx);
}

/* A name two sections serve is the later section's to fix: the load stops, naming its line,
 * with advice that fits the row (a prefix renames tools, never URIs). */
static void test_collisions(void)
{
    const char *log;

    CHECK(fixture_server_open(&fx, "server",
                              SRV_SERVER "[plugin.one]\npath = basic.so\n"
                                         "[plugin.two]\npath = basic.so\n") != 0);
    CHECK_INT_EQ(fx.load_status, STATUS_INVALID);
    log = fixture_capture_take(&fx.log);
    CHECK_STR_HAS(log, "tool 'echo' is already served by plugin 'one'; left out. Set a prefix in "
                       "[plugin.two], or leave it out there with 'tools = !GLOB'");
    CHECK_STR_HAS(log, "build/tests/tmp/server/mcph.ini:5: [plugin.two] serves a name");
    fixture_server_close(&fx);
    CHECK(fixture_server_open(&fx, "server",
                              SRV_SERVER "[plugin.one]\npath = basic.so\nprefix = one\n"
                                         "[plugin.two]\npath = basic.so\nprefix = one\n") != 0);
    log = fixture_capture_take(&fx.log);
    CHECK_STR_HAS(log, "tool 'one_echo' is already served by plugin 'one'; left out. Choose "
                       "another prefix in [plugin.two]");
    fixture_server_close(&fx);
    CHECK(fixture_server_open(&fx, "server",
                              SRV_SERVER "[plugin.one]\npath = basic.so\n"
                                         "[plugin.two]\npath = basic.so\nprefix = two\n") != 0);
    CHECK_INT_EQ(fx.load_status, STATUS_INVALID);
    log = fixture_capture_take(&fx.log);
    CHECK_STR_HAS(log, "resource 'basic://hello' is already served by plugin 'one'; left out. A "
                       "prefix does not change URIs: leave it out with 'resources = !GLOB'");
    CHECK(strstr(log, "tool 'two_echo'") == NULL);
    fixture_server_close(&fx);
}

static void test_shares(void)
{
    struct plugin *capped, *dflt, *single;
    struct config cfg;
    struct diag errs;

    if (!srv_open(SRV_SERVER "workers = 5\n"
                             "[plugin.capped]\npath = threadsafe.so\nmax_concurrent = 3\n"
                             "[plugin.dflt]\npath = threadsafe.so\nprefix = d\n"
                             "[plugin.single]\npath = basic.so\nmax_concurrent = 4\n"))
        goto out;
    capped = srv_plugin(fx.srv.reg, "capped");
    dflt = srv_plugin(fx.srv.reg, "dflt");
    single = srv_plugin(fx.srv.reg, "single");
    if (!CHECK(capped && dflt && single))
        goto out;
    CHECK_INT_EQ(capped->lane.max, 3);
    CHECK_INT_EQ(dflt->lane.max, 5);
    /* Not declared thread-safe: one at a time, whatever its section says. */
    CHECK_INT_EQ(single->lane.max, 1);
    /* A reload's config applies to the instances kept, without loading them again. */
    config_init(&cfg);
    diag_init(&errs);
    fixture_write_file("build/tests/tmp/server/next.ini",
                       SRV_SERVER "workers = 2\n"
                                  "[plugin.capped]\npath = threadsafe.so\n"
                                  "[plugin.dflt]\npath = threadsafe.so\nmax_concurrent = 7\n");
    if (CHECK_INT_EQ(config_load(&cfg, "build/tests/tmp/server/next.ini", &errs), STATUS_OK)) {
        server_set_shares(&fx.srv, fx.srv.reg, &cfg);
        CHECK_INT_EQ(capped->lane.max, 2);
        CHECK_INT_EQ(dflt->lane.max, 7);
    }
    config_release(&cfg);
    diag_release(&errs);
out:
    fixture_server_close(&fx);
}

/* The client is gone (its end of the pipe closed): the first failed write wakes the main
 * loop, which then stops serving. */
static void test_output_gone_wakes(void)
{
    struct server srv;
    int out[2], wake[2];

    signal(SIGPIPE, SIG_IGN);
    if (!CHECK(pipe(out) == 0))
        return;
    server_init(&srv);
    if (!CHECK(srv_wake_pipe(&srv, wake) == 0))
        goto out;
    server_open_output(&srv, out[1]);
    close(out[0]);
    CHECK_INT_EQ(srv_wakes(wake[0]), 0);
    out_notify(&srv.out, "notifications/x", NULL);
    CHECK_INT_EQ(atomic_load(&srv.out.failed), 1);
    CHECK_INT_EQ(srv_wakes(wake[0]), 1);
    close(wake[0]);
    close(wake[1]);
out:
    server_release(&srv);
    close(out[1]);
}

static void test_refresh(void)
{
    struct server srv;
    int wake[2];
    char **ids;
    size_t n = 0;

    server_init(&srv);
    if (!CHECK(srv_wake_pipe(&srv, wake) == 0))
        goto out;
    server_request_refresh(&srv, "a");
    server_request_refresh(&srv, "b");
    server_request_refresh(&srv, "a");
    /* Every request wakes the main loop; an id is kept once. */
    CHECK_INT_EQ(srv_wakes(wake[0]), 3);
    CHECK_INT_EQ(server_refresh_pending(&srv), 1);
    ids = server_take_refresh(&srv, &n);
    if (CHECK_INT_EQ(n, 2) && CHECK(ids != NULL)) {
        CHECK_STR_EQ(ids[0], "a");
        CHECK_STR_EQ(ids[1], "b");
    }
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    CHECK_INT_EQ(server_refresh_pending(&srv), 0);
    CHECK(server_take_refresh(&srv, &n) == NULL);
    CHECK_INT_EQ(n, 0);
    /* Left pending at release: freed with the server. */
    server_request_refresh(&srv, "c");
    close(wake[0]);
    close(wake[1]);
out:
    server_release(&srv);
}

/* A worker thread dropping references. */
struct srv_drop {
    struct server *srv;
    struct registry *reg;
    struct plugin *pl;
};

static void *srv_drop_main(void *arg)
{
    struct srv_drop *d = arg;

    server_release_registry(d->srv, d->reg);
    server_release_plugin(d->srv, d->pl);
    return NULL;
}

static void srv_drop_on_worker(struct server *srv, struct registry *reg, struct plugin *pl)
{
    struct srv_drop d = {.srv = srv, .reg = reg, .pl = pl};
    pthread_t t;

    if (pthread_create(&t, NULL, srv_drop_main, &d) == 0)
        pthread_join(t, NULL);
}

/* Swap in an empty set, as a reload that dropped every plugin does; the old one's reference
 * is dropped by the main thread. */
static struct registry *srv_swap_out(void)
{
    struct registry *old;

    pthread_mutex_lock(&fx.srv.lock);
    old = fx.srv.reg;
    fx.srv.reg = fixture_registry("empty");
    pthread_mutex_unlock(&fx.srv.lock);
    return old;
}

static void test_retired_registry(void)
{
    struct registry *held, *old;
    int wake[2] = {-1, -1};

    if (!srv_open(SRV_SERVER "[plugin.retiree]\npath = basic.so\n") ||
        !CHECK(srv_wake_pipe(&fx.srv, wake) == 0))
        goto out;
    /* A call holds the set served; then a reload replaces it. */
    held = server_hold_registry(&fx.srv);
    CHECK(held == fx.srv.reg);
    CHECK_INT_EQ(atomic_load(&held->refs), 2);
    old = srv_swap_out();
    server_release_registry(&fx.srv, old);
    CHECK_INT_EQ(srv_wakes(wake[0]), 0);
    CHECK_INT_EQ(fixture_mapped("retiree"), 1);
    /* The call ends on a worker: the last reference goes to the main thread, which is woken,
     * and nothing is unloaded on the worker. */
    srv_drop_on_worker(&fx.srv, held, NULL);
    CHECK_INT_EQ(srv_wakes(wake[0]), 1);
    CHECK_INT_EQ(fixture_mapped("retiree"), 1);
    server_free_retired(&fx.srv);
    CHECK_INT_EQ(fixture_mapped("retiree"), 0);
    /* Nothing more to free. */
    server_free_retired(&fx.srv);
    CHECK_INT_EQ(srv_wakes(wake[0]), 0);
out:
    fixture_server_close(&fx);
    if (wake[0] >= 0) {
        close(wake[0]);
        close(wake[1]);
    }
}

/* A queued call holds its instance, not the whole set: when the set goes, the instance stays
 * until the call drops it, then the main thread unloads it. Whatever is still retired at
 * server_release is unloaded there. */
static void test_retired_plugin(void)
{
    struct plugin *pl;
    struct registry *old;
    int wake[2] = {-1, -1};

    if (!srv_open(SRV_SERVER "[plugin.kept]\npath = basic.so\n"
                             "[plugin.late]\npath = threadsafe.so\n") ||
        !CHECK(srv_wake_pipe(&fx.srv, wake) == 0))
        goto out;
    pl = srv_plugin(fx.srv.reg, "kept");
    if (!CHECK(pl != NULL))
        goto out;
    plugin_ref(pl);
    old = srv_swap_out();
    server_release_registry(&fx.srv, old);
    CHECK_INT_EQ(srv_wakes(wake[0]), 1);
    CHECK_INT_EQ(fixture_mapped("late"), 1);
    server_free_retired(&fx.srv);
    /* The set was the main thread's last reference to it: freed then and there. */
    CHECK_INT_EQ(fixture_mapped("late"), 0);
    CHECK_INT_EQ(fixture_mapped("kept"), 1);
    CHECK_INT_EQ(atomic_load(&pl->refs), 1);
    srv_drop_on_worker(&fx.srv, NULL, pl);
    CHECK_INT_EQ(srv_wakes(wake[0]), 1);
    CHECK_INT_EQ(fixture_mapped("kept"), 1);
out:
    /* Still retired: server_release unloads it. */
    fixture_server_close(&fx);
    CHECK_INT_EQ(fixture_mapped("kept"), 0);
    if (wake[0] >= 0) {
        close(wake[0]);
        close(wake[1]);
    }
}

/* The text of the first content item of tool `name`'s result, in buf ("" when none). */
static const char *srv_tool_text(const char *name, char *buf, size_t size)
{
    char line[256];
    cJSON *reply, *text;

    snprintf(
        line, sizeof(line),
        "{\"jsonrpc\":\"2.0\",\"id\":90,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\"}}",
        name);
    reply = fixture_line_json(fixture_server_send(&fx, line), 0);
    text = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(
                               cJSON_GetObjectItemCaseSensitive(reply, "result"), "content"),
                           0),
        "text");
    snprintf(buf, size, "%s", cJSON_IsString(text) ? text->valuestring : "");
    cJSON_Delete(reply);
    return buf;
}

/* ABI 1.3 subscribe: the instance serving a URI (a resource, or a template match) hears its
 * first subscriber and its last; a URI nobody serves is heard by no one; after a reload that
 * rebuilds it (taking over), the new instance hears what is still followed; the session's end
 * tells the last followers. */
static void test_subscribe_heard(void)
{
    static const char *const lines[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
        "\"protocolVersion\":\"2025-11-25\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\",\"params\":{"
        "\"uri\":\"relay://item/5\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/subscribe\",\"params\":{"
        "\"uri\":\"basic://nothing\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/subscribe\",\"params\":{"
        "\"uri\":\"relay://fixed\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/unsubscribe\",\"params\":{"
        "\"uri\":\"relay://fixed\"}}",
    };
    char text[512];

    if (!fixture_server_serve(&fx, "server",
                              SRV_SERVER "[plugin.relay]\npath = relay.so\n"
                                         "[plugin.b]\npath = basic.so\n"))
        return;
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        fixture_server_send(&fx, lines[i]);
    CHECK_STR_EQ(srv_tool_text("heard", text, sizeof(text)),
                 "[+relay://item/5 +relay://fixed -relay://fixed]");
    /* The reload rebuilds the relay (it asks to be rebuilt on every reload). */
    CHECK_INT_EQ(reload_run(&fx.srv), STATUS_OK);
    CHECK_STR_HAS(srv_tool_text("status", text, sizeof(text)), "generation 2, took over yes");
    CHECK_STR_EQ(srv_tool_text("heard", text, sizeof(text)), "[+relay://item/5]");
    /* The session ends (as at the end of input): the last follower of item/5 is gone. */
    subs_unsubscribe_all(&fx.srv.subs, &fx.srv.pipe_peer);
    CHECK_STR_EQ(srv_tool_text("heard", text, sizeof(text)), "[+relay://item/5 -relay://item/5]");
    fixture_server_close(&fx);
}

static const struct check_test tests[] = {
    {"init_release_empty", test_init_release_empty},
    {"load_serves", test_load_serves},
    {"load_bad_ini", test_load_bad_ini},
    {"load_missing_ini", test_load_missing_ini},
    {"plugin_failures", test_plugin_failures},
    {"section_errors", test_section_errors},
    {"collisions", test_collisions},
    {"shares", test_shares},
    {"output_gone_wakes", test_output_gone_wakes},
    {"refresh", test_refresh},
    {"retired_registry", test_retired_registry},
    {"retired_plugin", test_retired_plugin},
    {"subscribe_heard", test_subscribe_heard},
    {0},
};

int main(void)
{
    return check_main("test_server", tests);
}
