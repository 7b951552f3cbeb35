/* test_watch.c: watch mode on real files in build/tests/tmp/watch/, driven as the main loop
 * drives it (poll on the inotify descriptor with watch_timeout_ms, watch_read, watch_due): a
 * change to the INI file or to a plugin's file is due once, LIMIT_WATCH_QUIET_MS after the
 * last of a burst; a rename into place, a removal and a change through a symlink count; other
 * files in the same folders, disabled plugins and folders that do not exist do not. */
#include "served/watch.h"

#include "check.h"
#include "fixture.h"
#include "lib/limits.h"
#include "lib/status.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define W_DIR "build/tests/tmp/watch"
#define W_INI W_DIR "/mcph.ini"
#define W_PLUGINS W_DIR "/plugins"

/* The scratch folders and cfg loaded from INI text; cfg is released by the caller. */
static int w_config(struct config *cfg, const char *ini)
{
    char dir[256];
    struct diag errs;
    int status;

    config_init(cfg);
    if (check_tmp(dir, sizeof(dir), "watch") == NULL ||
        check_tmp(dir, sizeof(dir), "watch/real") == NULL ||
        check_tmp(dir, sizeof(dir), "watch/plugins") == NULL || fixture_write_file(W_INI, ini) != 0)
        return STATUS_IO;
    diag_init(&errs);
    status = config_load(cfg, W_INI, &errs);
    for (size_t i = 0; i < errs.count; i++)
        fprintf(stderr, "    INI error: %s\n", errs.msgs[i]);
    diag_release(&errs);
    return status;
}

/* Armed on the config of ini, or 0 (with the failure checked). */
static int w_arm(struct watch *w, struct config *cfg, const char *ini)
{
    watch_init(w);
    if (!CHECK_INT_EQ(w_config(cfg, ini), STATUS_OK))
        return 0;
    return CHECK_INT_EQ(watch_arm(w, cfg), STATUS_OK) && CHECK(w->fd >= 0);
}

/* The main loop for ms milliseconds, or until 100 ms after the first reload came due (long
 * enough to see a second one): how many came due; *due_at the time of the first (left alone
 * when none). */
static int w_run(struct watch *w, long ms, long *due_at)
{
    long end = fixture_now_ms() + ms;
    int dues = 0;

    for (long left = ms; left > 0; left = end - fixture_now_ms()) {
        struct pollfd p = {.fd = w->fd, .events = POLLIN};
        int t = watch_timeout_ms(w);

        if (poll(&p, 1, t >= 0 && t < left ? t : (int)left) > 0 && (p.revents & POLLIN))
            watch_read(w);
        if (!watch_due(w))
            continue;
        if (dues++ == 0 && due_at != NULL)
            *due_at = fixture_now_ms();
        if (dues == 1 && end > fixture_now_ms() + 100)
            end = fixture_now_ms() + 100;
    }
    return dues;
}

/* Read the events waiting (they are queued by the time the writing call returns). Returns
 * whether there were any: the folder is watched at all. */
static int w_read_now(struct watch *w)
{
    struct pollfd p = {.fd = w->fd, .events = POLLIN};
    int ready = poll(&p, 1, 100) > 0 && (p.revents & POLLIN);

    if (ready)
        watch_read(w);
    return ready;
}

/* Make path exist with text, before the watch is armed. */
static void w_file(const char *path, const char *text)
{
    CHECK_INT_EQ(fixture_write_file(path, text), 0);
}

/* After a relevant change: due once, not before the quiet period has passed since `since`. */
static void w_expect_one_due(struct watch *w, long since)
{
    long due_at = 0;

    CHECK_INT_EQ(w_run(w, LIMIT_WATCH_QUIET_MS + 300, &due_at), 1);
    CHECK(due_at - since >= LIMIT_WATCH_QUIET_MS);
    /* Cleared once due. */
    CHECK_INT_EQ(watch_timeout_ms(w), -1);
    CHECK_INT_EQ(watch_due(w), 0);
}

#define W_ONE_PLUGIN "[server]\nplugin_dir = plugins\n[plugin.p]\n"

/* Armed on an INI with one plugin, p, whose file exists. */
static int w_arm_one(struct watch *w, struct config *cfg)
{
    w_file(W_PLUGINS "/p.so", "v0");
    return w_arm(w, cfg, W_ONE_PLUGIN);
}

static void test_off(void)
{
    struct watch w;

    watch_init(&w);
    CHECK_INT_EQ(w.fd, -1);
    CHECK_INT_EQ(watch_timeout_ms(&w), -1);
    CHECK_INT_EQ(watch_due(&w), 0);
    watch_release(&w);
    watch_release(&w);
    CHECK_INT_EQ(w.fd, -1);
}

static void test_ini_change(void)
{
    struct config cfg;
    struct watch w;
    long t0;
    int left;

    if (!w_arm(&w, &cfg, "[server]\nname = a\n"))
        goto out;
    CHECK_INT_EQ(watch_timeout_ms(&w), -1);
    t0 = fixture_now_ms();
    w_file(W_INI, "[server]\nname = b\n");
    CHECK(w_read_now(&w));
    /* Armed: the quiet period runs, nothing is due yet. */
    left = watch_timeout_ms(&w);
    CHECK(left > 0 && left <= LIMIT_WATCH_QUIET_MS);
    CHECK_INT_EQ(watch_due(&w), 0);
    w_expect_one_due(&w, t0);
out:
    watch_release(&w);
    config_release(&cfg);
}

/* A build writes several times: one reload, after the last write. */
static void test_burst_is_one(void)
{
    struct config cfg;
    struct watch w;
    long last = 0;
    int dues = 0;

    if (!w_arm_one(&w, &cfg))
        goto out;
    /* The plugin, the INI, the plugin again, a third of the quiet period apart. */
    for (int i = 0; i < 3; i++) {
        last = fixture_now_ms();
        if (i == 1)
            w_file(W_INI, W_ONE_PLUGIN);
        else
            w_file(W_PLUGINS "/p.so", "v1");
        dues += w_run(&w, LIMIT_WATCH_QUIET_MS / 3, NULL);
    }
    CHECK_INT_EQ(dues, 0);
    w_expect_one_due(&w, last);
out:
    watch_release(&w);
    config_release(&cfg);
}

/* A linker writes a temporary file and renames it over the plugin: the temporary file does
 * not count, the rename does. */
static void test_rename_into_place(void)
{
    struct config cfg;
    struct watch w;
    long t0;

    if (!w_arm_one(&w, &cfg))
        goto out;
    w_file(W_PLUGINS "/p.so.tmp", "v1");
    CHECK(w_read_now(&w));
    CHECK_INT_EQ(watch_timeout_ms(&w), -1);
    t0 = fixture_now_ms();
    CHECK_INT_EQ(rename(W_PLUGINS "/p.so.tmp", W_PLUGINS "/p.so"), 0);
    CHECK(w_read_now(&w));
    CHECK(watch_timeout_ms(&w) >= 0);
    w_expect_one_due(&w, t0);
out:
    watch_release(&w);
    config_release(&cfg);
}

static void test_removal_counts(void)
{
    struct config cfg;
    struct watch w;
    long t0;

    if (!w_arm_one(&w, &cfg))
        goto out;
    t0 = fixture_now_ms();
    CHECK_INT_EQ(unlink(W_PLUGINS "/p.so"), 0);
    w_expect_one_due(&w, t0);
out:
    watch_release(&w);
    config_release(&cfg);
}

/* Files beside the watched ones, and a disabled plugin's file, change nothing. */
static void test_unwatched_files(void)
{
    struct config cfg;
    struct watch w;

    w_file(W_PLUGINS "/p.so", "v0");
    w_file(W_PLUGINS "/off.so", "v0");
    if (!w_arm(&w, &cfg,
               "[server]\nplugin_dir = plugins\n[plugin.p]\n"
               "[plugin.off]\nenabled = no\n"))
        goto out;
    w_file(W_DIR "/notes.txt", "x");
    w_file(W_DIR "/mcph.ini.bak", "x");
    w_file(W_PLUGINS "/other.so", "x");
    w_file(W_PLUGINS "/off.so", "v1");
    /* The events came (the folders are watched) and were judged irrelevant. */
    CHECK(w_read_now(&w));
    CHECK_INT_EQ(watch_timeout_ms(&w), -1);
    CHECK_INT_EQ(w_run(&w, 50, NULL), 0);
out:
    watch_release(&w);
    config_release(&cfg);
}

/* A plugin path that is a symlink: rebuilding the file it points at counts. */
static void test_symlink_target(void)
{
    struct config cfg;
    struct watch w;
    long t0;

    w_file(W_DIR "/real/target.so", "v0");
    unlink(W_PLUGINS "/link.so");
    if (!CHECK_INT_EQ(symlink("../real/target.so", W_PLUGINS "/link.so"), 0) ||
        !w_arm(&w, &cfg, "[server]\nplugin_dir = plugins\n[plugin.l]\npath = link.so\n"))
        goto out;
    t0 = fixture_now_ms();
    w_file(W_DIR "/real/target.so", "v1");
    w_expect_one_due(&w, t0);
out:
    watch_release(&w);
    config_release(&cfg);
}

/* Arming again replaces what was watched; a folder that does not exist is skipped. */
static void test_rearm(void)
{
    struct config cfg, next;
    struct watch w;
    long t0;

    if (!w_arm_one(&w, &cfg))
        goto out;
    if (!CHECK_INT_EQ(w_config(&next, "[server]\nplugin_dir = plugins\n[plugin.p]\nenabled = no\n"
                                      "[plugin.q]\npath = /nonexistent-folder/q.so\n"),
                      STATUS_OK))
        goto out_next;
    w_read_now(&w);
    watch_due(&w);
    if (!CHECK_INT_EQ(watch_arm(&w, &next), STATUS_OK))
        goto out_next;
    /* The re-arm itself changed nothing since. */
    CHECK_INT_EQ(watch_timeout_ms(&w), -1);
    w_file(W_PLUGINS "/p.so", "v1");
    w_read_now(&w);
    CHECK_INT_EQ(watch_timeout_ms(&w), -1);
    t0 = fixture_now_ms();
    w_file(W_INI, "[server]\nplugin_dir = plugins\n");
    w_expect_one_due(&w, t0);
out_next:
    config_release(&next);
out:
    watch_release(&w);
    config_release(&cfg);
}

static const struct check_test tests[] = {
    {"off", test_off},
    {"ini_change", test_ini_change},
    {"burst_is_one", test_burst_is_one},
    {"rename_into_place", test_rename_into_place},
    {"removal_counts", test_removal_counts},
    {"unwatched_files", test_unwatched_files},
    {"symlink_target", test_symlink_target},
    {"rearm", test_rearm},
    {0},
};

int main(void)
{
    return check_main("test_watch", tests);
}
