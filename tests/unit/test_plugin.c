/* test_plugin.c: loading each test plugin of build/tests/plugins/ through a real INI file:
 * what a good plugin gives, every refusal and its message, config keys, file and folder
 * permissions, noticing a changed file, init -> shutdown -> init, and rebuilds that take over
 * their predecessor in its mapping (1.3) or load a fresh copy. Scratch files live in
 * build/tests/tmp/plugin/. */
#include "host/plugin.h"

#include "check.h"
#include "fixture.h"
#include "host/host.h"
#include "lib/limits.h"
#include "host/result.h"
#include "wire/revision.h"
#include "lib/status.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char plg_dir[256];

static int pl_dummy_handler(const struct mcph_host *host, void *state, struct mcph_call *call)
{
    (void)host;
    (void)state;
    (void)call;
    return MCPH_OK;
}

static struct log plg_log;
static struct plugin_env plg_env = {.log = &plg_log, .host_setup = host_setup};
static int plg_log_read = -1; /* read end of the pipe plg_log writes to */

/* The INI text that points plugin_dir at the test plugins. */
#define PLG_SERVER "[server]\nplugin_dir = ../../plugins\n"

/* A finished load: the status, the section's path and the INI path for messages. */
struct plg_result {
    int status;
    char path[512];
    char ini[512];
};

/* Write `text` to build/tests/tmp/plugin/plugin.ini, parse it, and load section `id`: as a
 * rebuild of `old` (plugin_rebuild) when it is not NULL. */
static struct plg_result plg_load_over(struct plugin **out, struct plugin *old, struct diag *errs,
                                       const char *text, const char *id)
{
    struct plg_result res = {.status = -1000};
    const struct config_plugin *cp;
    struct config cfg;
    struct diag cfg_errs;
    FILE *f;

    *out = NULL;
    snprintf(res.ini, sizeof(res.ini), "%s/plugin.ini", plg_dir);
    f = fopen(res.ini, "w");
    if (f == NULL)
        return res;
    fputs(text, f);
    fclose(f);
    config_init(&cfg);
    diag_init(&cfg_errs);
    if (config_load(&cfg, res.ini, &cfg_errs) == STATUS_OK) {
        cp = config_find_plugin(&cfg, id);
        if (cp != NULL) {
            snprintf(res.path, sizeof(res.path), "%s", cp->path);
            res.status = old != NULL ? plugin_rebuild(out, old, cp, cfg.file, &plg_env, errs)
                                     : plugin_load(out, cp, cfg.file, &plg_env, errs);
        }
    } else {
        for (size_t i = 0; i < cfg_errs.count; i++)
            fprintf(stderr, "    INI error: %s\n", cfg_errs.msgs[i]);
    }
    config_release(&cfg);
    diag_release(&cfg_errs);
    return res;
}

static struct plg_result plg_load(struct plugin **out, struct diag *errs, const char *text,
                                  const char *id)
{
    return plg_load_over(out, NULL, errs, text, id);
}

static int plg_copy(const char *from, const char *to, mode_t mode)
{
    char buf[65536];
    int in = open(from, O_RDONLY);
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ssize_t n;
    int rc = in >= 0 && out >= 0 ? 0 : -1;

    while (rc == 0 && (n = read(in, buf, sizeof(buf))) > 0)
        rc = write(out, buf, (size_t)n) == n ? 0 : -1;
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0)
        rc = -1;
    if (rc == 0)
        rc = chmod(to, mode);
    return rc;
}

/* Run tool `name` of pl with JSON arguments; the first content text into out. Returns the
 * handler's status. */
static int plg_call_tool(struct plugin *pl, const char *name, const char *args, char *out,
                         size_t size)
{
    cJSON *parsed = cJSON_Parse(args);
    const cJSON *first;
    struct mcph_call call;
    cJSON *result = NULL;
    int rc = -1000;

    out[0] = '\0';
    for (size_t i = 0; i < pl->ntools; i++) {
        if (strcmp(pl->tools[i].name, name) != 0)
            continue;
        if (result_init(&call, RESULT_TOOL, REV_2025_06_18, parsed, NULL) != STATUS_OK)
            break;
        rc = pl->tools[i].call(&pl->host.vt, pl->state, &call);
        result = rc == MCPH_OK ? result_build(&call) : NULL;
        result_release(&call);
    }
    first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(result, "content"), 0);
    first = cJSON_GetObjectItemCaseSensitive(first, "text");
    if (cJSON_IsString(first))
        snprintf(out, size, "%s", first->valuestring);
    cJSON_Delete(result);
    cJSON_Delete(parsed);
    return rc;
}

static void test_basic_loads(void)
{
    static const char *const tools[] = {"echo", "sleep", "overlap", "greet", "fail", "boom"};
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;
    char text[256];

    diag_init(&errs);
    r = plg_load(&pl, &errs, PLG_SERVER "[plugin.b]\npath = basic.so\n", "b");
    if (!CHECK_INT_EQ(r.status, STATUS_OK) || !CHECK(pl != NULL)) {
        for (size_t i = 0; i < errs.count; i++)
            fprintf(stderr, "    %s\n", errs.msgs[i]);
        diag_release(&errs);
        return;
    }
    CHECK_INT_EQ(errs.count, 0);
    CHECK_STR_EQ(pl->id, "b");
    CHECK_STR_EQ(pl->section.path, "build/tests/tmp/plugin/../../plugins/basic.so");
    CHECK_STR_EQ(pl->name, "basic");
    CHECK_STR_EQ(pl->version, "1.0.0");
    CHECK(pl->section.prefix == NULL);
    CHECK_INT_EQ(pl->flags & MCPH_PLUGIN_THREAD_SAFE, 0);
    CHECK_INT_EQ(pl->abi_minor, MCPH_ABI_MINOR);
    CHECK_INT_EQ(atomic_load(&pl->refs), 1);
    CHECK(pl->handle != NULL);
    CHECK(pl->log == &plg_log);
    if (CHECK_INT_EQ(pl->ntools, 6)) {
        for (size_t i = 0; i < 6; i++)
            CHECK_STR_EQ(pl->tools[i].name, tools[i]);
        CHECK(cJSON_IsObject(pl->tools[0].input_schema));
        CHECK(pl->tools[0].output_schema == NULL);
        CHECK_INT_EQ(pl->tools[0].hints[0], MCPH_HINT_TRUE);
        CHECK_INT_EQ(pl->tools[0].hints[1], MCPH_HINT_UNSET);
        CHECK_STR_EQ(pl->tools[0].description, "Returns its text.");
    }
    if (CHECK_INT_EQ(pl->nresources, 1)) {
        CHECK_STR_EQ(pl->resources[0].uri, "basic://hello");
        CHECK_INT_EQ(pl->resources[0].size, 11);
        CHECK_STR_EQ(pl->resources[0].mime_type, "text/plain");
    }
    if (CHECK_INT_EQ(pl->ntemplates, 2)) {
        CHECK_STR_EQ(pl->templates[0].uri_template, "basic://items/{id}");
        CHECK_STR_EQ(pl->templates[1].uri_template, "basic://files/{+path}");
    }
    if (CHECK_INT_EQ(pl->nprompts, 1) && CHECK_INT_EQ(pl->prompts[0].nargs, 2)) {
        CHECK_STR_EQ(pl->prompts[0].name, "greet");
        CHECK_STR_EQ(pl->prompts[0].args[0].name, "name");
        CHECK_INT_EQ(pl->prompts[0].args[0].required, 1);
        CHECK_STR_EQ(pl->prompts[0].args[1].name, "mood");
        CHECK_INT_EQ(pl->prompts[0].args[1].required, 0);
    }
    if (CHECK_INT_EQ(pl->nkeys, 1)) {
        CHECK_STR_EQ(pl->keys[0].name, "greeting");
        CHECK_STR_EQ(pl->keys[0].default_value, "hi");
    }
    /* init ran: it stored its state, read through host->config (the default here). */
    CHECK_INT_EQ(pl->initialized, 1);
    CHECK(pl->state != NULL);
    CHECK(pl->shutdown != NULL);
    CHECK_STR_EQ(pl->host.vt.instance, "b");
    CHECK(pl->host.plugin == pl);
    CHECK_INT_EQ(plg_call_tool(pl, "greet", "{}", text, sizeof(text)), MCPH_OK);
    CHECK_STR_EQ(text, "hi");
    CHECK_INT_EQ(plg_call_tool(pl, "echo", "{\"text\":\"ping\"}", text, sizeof(text)), MCPH_OK);
    CHECK_STR_EQ(text, "ping");
    plugin_free(pl);
    diag_release(&errs);
}

/* The plugin's own key from the INI reaches init through host->config. */
static void test_basic_config_key(void)
{
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;
    char text[256];

    diag_init(&errs);
    r = plg_load(&pl, &errs, PLG_SERVER "[plugin.b]\npath = basic.so\ngreeting = hello there\n",
                 "b");
    if (CHECK_INT_EQ(r.status, STATUS_OK)) {
        CHECK_INT_EQ(pl->nconfig, 1);
        CHECK_STR_EQ(pl->host.vt.config(&pl->host.vt, "greeting"), "hello there");
        CHECK_INT_EQ(plg_call_tool(pl, "greet", "{}", text, sizeof(text)), MCPH_OK);
        CHECK_STR_EQ(text, "hello there");
    }
    plugin_free(pl);
    diag_release(&errs);
}

static void test_prefix_copied(void)
{
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;

    diag_init(&errs);
    r = plg_load(&pl, &errs, PLG_SERVER "[plugin.b]\npath = basic.so\nprefix = px\n", "b");
    if (CHECK_INT_EQ(r.status, STATUS_OK)) {
        CHECK_STR_EQ(pl->section.prefix, "px");
        /* The tables keep the plugin's own names. */
        CHECK_STR_EQ(pl->tools[0].name, "echo");
    }
    plugin_free(pl);
    diag_release(&errs);
}

static void test_threadsafe_flag(void)
{
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;

    diag_init(&errs);
    r = plg_load(&pl, &errs, PLG_SERVER "[plugin.t]\npath = threadsafe.so\n", "t");
    if (CHECK_INT_EQ(r.status, STATUS_OK)) {
        CHECK(pl->flags & MCPH_PLUGIN_THREAD_SAFE);
        CHECK_INT_EQ(pl->ntools, 1);
    }
    plugin_free(pl);
    diag_release(&errs);
}

/* One refused plugin: the status and a message naming the instance, its path and `part`. */
static void plg_expect_refusal(const char *so, int status, const char *part1, const char *part2)
{
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;
    char ini[512], who[600];

    snprintf(ini, sizeof(ini), PLG_SERVER "[plugin.x]\npath = %s\n", so);
    diag_init(&errs);
    r = plg_load(&pl, &errs, ini, "x");
    snprintf(who, sizeof(who), "plugin 'x' (%s)", r.path);
    if (!CHECK_INT_EQ(r.status, status) || !CHECK(FIXTURE_HAS(&errs, who, part1, part2)) ||
        !CHECK(pl == NULL))
        fprintf(stderr, "    plugin %s\n", so);
    plugin_free(pl);
    diag_release(&errs);
}

/* "ABI major.minor" as a refusal message writes it. */
static const char *plg_abi(char *buf, size_t size, int major, int minor)
{
    snprintf(buf, size, "ABI %d.%d", major, minor);
    return buf;
}

static void test_abi_major(void)
{
    char theirs[32], ours[32];

    /* abi_major.so claims the next major with this header's minor. */
    plg_expect_refusal("abi_major.so", STATUS_CONFIG,
                       plg_abi(theirs, sizeof(theirs), MCPH_ABI_MAJOR + 1, MCPH_ABI_MINOR),
                       plg_abi(ours, sizeof(ours), MCPH_ABI_MAJOR, MCPH_ABI_MINOR));
    plg_expect_refusal("abi_major.so", STATUS_CONFIG, "rebuild", "plugin-api.h");
}

static void test_abi_minor(void)
{
    char theirs[32], ours[32];

    plg_expect_refusal("abi_minor.so", STATUS_CONFIG,
                       plg_abi(theirs, sizeof(theirs), MCPH_ABI_MAJOR, MCPH_ABI_MINOR + 1),
                       plg_abi(ours, sizeof(ours), MCPH_ABI_MAJOR, MCPH_ABI_MINOR));
    plg_expect_refusal("abi_minor.so", STATUS_CONFIG, "upgrade mcph", "rebuild");
}

static void test_short_descriptor(void)
{
    plg_expect_refusal("short_descriptor.so", STATUS_CONFIG, "descriptor is 8 bytes",
                       "MCPH_PLUGIN_HEADER");
}

static void test_bad_schema(void)
{
    plg_expect_refusal("bad_schema.so", STATUS_CONFIG, "'broken'", "not valid JSON");
}

/* The message names the tool and the type it found ("string"), not only the one wanted. */
static void test_schema_not_object(void)
{
    plg_expect_refusal("schema_not_object.so", STATUS_CONFIG, "'stringly'", "\"object\"");
    plg_expect_refusal("schema_not_object.so", STATUS_CONFIG, "'stringly'", "\"string\"");
}

static void test_dup_names(void)
{
    plg_expect_refusal("dup_names.so", STATUS_CONFIG, "two tools are named 'same'", "rename");
}

static void test_bad_name(void)
{
    plg_expect_refusal("bad_name.so", STATUS_CONFIG, "'bad name!'", "A-Z a-z 0-9 _ . -");
}

static void test_no_entry(void)
{
    plg_expect_refusal("no_entry.so", STATUS_CONFIG, "mcph_plugin_entry", "no ");
}

static void test_init_fail(void)
{
    char logged[4096];

    fixture_drain(plg_log_read, logged, sizeof(logged));
    plg_expect_refusal("init_fail.so", STATUS_PLUGIN, "init failed", "status -1");
    fixture_drain(plg_log_read, logged, sizeof(logged));
    CHECK_STR_HAS(logged, "mcph: error: plugin x: init failed on purpose\n");
}

static void test_missing_file(void)
{
    plg_expect_refusal("no-such-plugin.so", STATUS_CONFIG, "cannot open",
                       "build/tests/tmp/plugin/plugin.ini");
}

static void test_config_required(void)
{
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;
    char where[600], text[256];

    diag_init(&errs);
    r = plg_load(&pl, &errs,
                 PLG_SERVER "\n[plugin.c]\npath = config_required.so\n", /* header: line 4 */
                 "c");
    snprintf(where, sizeof(where), "%s:4: ", r.ini);
    CHECK_INT_EQ(r.status, STATUS_CONFIG);
    CHECK(pl == NULL);
    CHECK(FIXTURE_HAS(&errs, where, "[plugin.c]", "'token'"));
    diag_release(&errs);

    diag_init(&errs);
    r = plg_load(&pl, &errs, PLG_SERVER "[plugin.c]\npath = config_required.so\ntoken = s3cret\n",
                 "c");
    if (CHECK_INT_EQ(r.status, STATUS_OK)) {
        CHECK_INT_EQ(errs.count, 0);
        CHECK_INT_EQ(plg_call_tool(pl, "token", "{}", text, sizeof(text)), MCPH_OK);
        CHECK_STR_EQ(text, "s3cret");
    }
    plugin_free(pl);
    diag_release(&errs);
}

/* A key in the section that the plugin does not declare is refused, naming its line. */
static void test_undeclared_key(void)
{
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;
    char where[600];

    diag_init(&errs);
    r = plg_load(&pl, &errs,
                 PLG_SERVER "[plugin.b]\npath = basic.so\ngreeting = yo\ncolour = red\n", "b");
    snprintf(where, sizeof(where), "%s:6: ", r.ini);
    CHECK_INT_EQ(r.status, STATUS_CONFIG);
    CHECK(pl == NULL);
    CHECK(FIXTURE_HAS(&errs, where, "unknown key 'colour'", "greeting"));
    CHECK_INT_EQ(errs.count, 1);
    diag_release(&errs);
}

static void test_group_writable_file(void)
{
    char so[512], ini[1024];
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;

    snprintf(so, sizeof(so), "%s/gw.so", plg_dir);
    if (!CHECK(plg_copy("build/tests/plugins/basic.so", so, 0664) == 0))
        return;
    snprintf(ini, sizeof(ini), "[plugin.g]\npath = gw.so\n");
    diag_init(&errs);
    r = plg_load(&pl, &errs, ini, "g");
    CHECK_INT_EQ(r.status, STATUS_CONFIG);
    CHECK(pl == NULL);
    CHECK(FIXTURE_HAS(&errs, "plugin 'g'", "writable by group or others", "chmod go-w"));
    diag_release(&errs);

    /* The same file without the bit loads. */
    CHECK(chmod(so, 0644) == 0);
    diag_init(&errs);
    r = plg_load(&pl, &errs, ini, "g");
    CHECK_INT_EQ(r.status, STATUS_OK);
    plugin_free(pl);
    diag_release(&errs);
    unlink(so);
}

static void test_group_writable_folder(void)
{
    char dir[512], so[600];
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;

    snprintf(dir, sizeof(dir), "%s/gwdir", plg_dir);
    snprintf(so, sizeof(so), "%s/basic.so", dir);
    if (!CHECK(mkdir(dir, 0755) == 0 || errno == EEXIST) || !CHECK(chmod(dir, 0775) == 0) ||
        !CHECK(plg_copy("build/tests/plugins/basic.so", so, 0644) == 0))
        return;
    diag_init(&errs);
    r = plg_load(&pl, &errs, "[plugin.g]\npath = gwdir/basic.so\n", "g");
    CHECK_INT_EQ(r.status, STATUS_CONFIG);
    CHECK(pl == NULL);
    CHECK(FIXTURE_HAS(&errs, "plugin 'g'", "folder", "gwdir", "writable by group or others"));
    diag_release(&errs);

    /* World-writable is refused as well; a private folder is fine. */
    CHECK(chmod(dir, 0757) == 0);
    diag_init(&errs);
    r = plg_load(&pl, &errs, "[plugin.g]\npath = gwdir/basic.so\n", "g");
    CHECK_INT_EQ(r.status, STATUS_CONFIG);
    diag_release(&errs);
    CHECK(chmod(dir, 0755) == 0);
    diag_init(&errs);
    r = plg_load(&pl, &errs, "[plugin.g]\npath = gwdir/basic.so\n", "g");
    CHECK_INT_EQ(r.status, STATUS_OK);
    plugin_free(pl);
    diag_release(&errs);
    unlink(so);
    rmdir(dir);
}

/* Load path (relative to plg_dir) as [plugin.g]; the status, and whether errs has a
 * message with both parts. */
static int plg_trust(const char *path, const char *part1, const char *part2)
{
    char ini[512];
    struct plugin *pl = NULL;
    struct diag errs;
    struct plg_result r;
    int status;

    snprintf(ini, sizeof(ini), "[plugin.g]\npath = %s\n", path);
    diag_init(&errs);
    r = plg_load(&pl, &errs, ini, "g");
    status = r.status;
    if (part1 != NULL && !CHECK(FIXTURE_HAS(&errs, "plugin 'g'", part1, part2)))
        fprintf(stderr, "    %s: %s\n", path, errs.count > 0 ? errs.msgs[0] : "no message");
    plugin_free(pl);
    diag_release(&errs);
    return status;
}

/* Every folder above the plugin counts, as sshd's StrictModes has it: a world-writable one
 * that is not sticky is refused (anyone could rename the folder below and put another
 * plugin in its place), a sticky one only when what is in it belongs to root or mcph's
 * user. The message names the folder, its mode and owner, and the fix. */
static void test_writable_ancestor(void)
{
    char top[512], inner[600], so[700], want[800];

    snprintf(top, sizeof(top), "%s/open", plg_dir);
    snprintf(inner, sizeof(inner), "%s/inner", top);
    snprintf(so, sizeof(so), "%s/basic.so", inner);
    if (!CHECK(mkdir(top, 0755) == 0 || errno == EEXIST) ||
        !CHECK(mkdir(inner, 0755) == 0 || errno == EEXIST) ||
        !CHECK(plg_copy("build/tests/plugins/basic.so", so, 0644) == 0))
        return;
    CHECK(chmod(top, 0777) == 0);
    snprintf(want, sizeof(want), "/open (mode 0777, owner uid %u) is writable",
             (unsigned)geteuid());
    CHECK_INT_EQ(plg_trust("open/inner/basic.so", want, "chmod go-w"), STATUS_CONFIG);
    /* Group-writable alone is refused too. */
    CHECK(chmod(top, 0775) == 0);
    CHECK_INT_EQ(plg_trust("open/inner/basic.so", "(mode 0775", "chmod go-w"), STATUS_CONFIG);
    /* Sticky, like /tmp, with the folder in it mcph's own: loads. */
    CHECK(chmod(top, 01777) == 0);
    CHECK_INT_EQ(plg_trust("open/inner/basic.so", NULL, NULL), STATUS_OK);
    if (geteuid() == 0) {
        /* Sticky, but what is in it belongs to another user: refused. */
        CHECK(chown(inner, 65534, 65534) == 0);
        CHECK_INT_EQ(plg_trust("open/inner/basic.so",
                               "(mode 0755, owner uid 65534) belongs to "
                               "another user",
                               "move the plugin"),
                     STATUS_CONFIG);
        CHECK(chown(inner, 0, 0) == 0);
        CHECK(chmod(top, 0755) == 0);
        CHECK(chown(top, 65534, 65534) == 0);
        CHECK_INT_EQ(plg_trust("open/inner/basic.so", "open (mode 0755, owner uid 65534)",
                               "belongs to another user"),
                     STATUS_CONFIG);
        CHECK(chown(top, 0, 0) == 0);
    }
    CHECK(chmod(top, 0755) == 0);
    CHECK_INT_EQ(plg_trust("open/inner/basic.so", NULL, NULL), STATUS_OK);
    unlink(so);
    rmdir(inner);
    rmdir(top);
}

/* A link in a world-writable folder is as good as the plugin: its folder counts too. */
static void test_writable_link_folder(void)
{
    char top[512], link[600], so[600], real[4096];

    snprintf(top, sizeof(top), "%s/links", plg_dir);
    snprintf(link, sizeof(link), "%s/basic.so", top);
    snprintf(so, sizeof(so), "%s/linked.so", plg_dir);
    if (!CHECK(mkdir(top, 0755) == 0 || errno == EEXIST) ||
        !CHECK(plg_copy("build/tests/plugins/basic.so", so, 0644) == 0))
        return;
    unlink(link);
    CHECK(realpath(so, real) != NULL && symlink(real, link) == 0);
    CHECK_INT_EQ(plg_trust("links/basic.so", NULL, NULL), STATUS_OK);
    CHECK(chmod(top, 0777) == 0);
    CHECK_INT_EQ(plg_trust("links/basic.so", "links (mode 0777", "chmod go-w"), STATUS_CONFIG);
    CHECK(chmod(top, 0755) == 0);
    unlink(link);
    unlink(so);
    rmdir(top);
}

/* A plugin file that belongs to another user (who could change it) is refused. */
static void test_foreign_owner(void)
{
    char so[512], want[600];

    if (geteuid() != 0)
        return; /* only root can give a file away */
    snprintf(so, sizeof(so), "%s/foreign.so", plg_dir);
    if (!CHECK(plg_copy("build/tests/plugins/basic.so", so, 0644) == 0))
        return;
    CHECK(chown(so, 65534, 65534) == 0);
    snprintf(want, sizeof(want),
             "the file belongs to uid 65534, neither root nor the user mcph "
             "runs as (uid 0)");
    CHECK_INT_EQ(plg_trust("foreign.so", want, "chown 0"), STATUS_CONFIG);
    CHECK(chown(so, 0, 0) == 0);
    CHECK_INT_EQ(plg_trust("foreign.so", NULL, NULL), STATUS_OK);
    unlink(so);
}

static void test_file_changed(void)
{
    char so[512], tmp[512];
    struct plugin *pl, *again;
    struct diag errs;
    struct plg_result r;
    struct timespec times[2];
    struct stat st;

    snprintf(so, sizeof(so), "%s/changing.so", plg_dir);
    snprintf(tmp, sizeof(tmp), "%s/changing.so.new", plg_dir);
    if (!CHECK(plg_copy("build/tests/plugins/basic.so", so, 0644) == 0))
        return;
    diag_init(&errs);
    r = plg_load(&pl, &errs, "[plugin.changing]\n", "changing");
    if (!CHECK_INT_EQ(r.status, STATUS_OK)) {
        diag_release(&errs);
        return;
    }
    CHECK_INT_EQ(plugin_file_changed(pl), 0);

    /* Touched: a new modification time. */
    CHECK(stat(so, &st) == 0);
    times[0] = st.st_atim;
    times[1] = st.st_mtim;
    times[1].tv_sec += 100;
    CHECK(utimensat(AT_FDCWD, so, times, 0) == 0);
    CHECK_INT_EQ(plugin_file_changed(pl), 1);
    /* Back to the loaded time: the same file again. */
    times[1] = st.st_mtim;
    CHECK(utimensat(AT_FDCWD, so, times, 0) == 0);
    CHECK_INT_EQ(plugin_file_changed(pl), 0);

    /* A fresh load of the touched file sees it as unchanged. */
    times[1].tv_sec += 100;
    CHECK(utimensat(AT_FDCWD, so, times, 0) == 0);
    r = plg_load(&again, &errs, "[plugin.changing]\n", "changing");
    if (CHECK_INT_EQ(r.status, STATUS_OK)) {
        CHECK_INT_EQ(plugin_file_changed(again), 0);
        CHECK_INT_EQ(plugin_file_changed(pl), 1);
        plugin_free(again);
    }

    /* Replaced by another file (rename over it), then gone. */
    r = plg_load(&again, &errs, "[plugin.changing]\n", "changing");
    if (CHECK_INT_EQ(r.status, STATUS_OK)) {
        CHECK(plg_copy("build/tests/plugins/basic.so", tmp, 0644) == 0);
        CHECK(rename(tmp, so) == 0);
        CHECK_INT_EQ(plugin_file_changed(again), 1);
        CHECK(unlink(so) == 0);
        CHECK_INT_EQ(plugin_file_changed(again), 1);
        plugin_free(again);
    }
    plugin_free(pl);
    diag_release(&errs);
}

/* load -> free -> load: init, shutdown, init again in one process. */
static void test_load_free_load(void)
{
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;
    char text[256];

    diag_init(&errs);
    for (int round = 0; round < 3; round++) {
        r = plg_load(&pl, &errs, PLG_SERVER "[plugin.b]\npath = basic.so\ngreeting = again\n", "b");
        if (!CHECK_INT_EQ(r.status, STATUS_OK))
            break;
        CHECK_INT_EQ(pl->initialized, 1);
        CHECK_INT_EQ(plg_call_tool(pl, "greet", "{}", text, sizeof(text)), MCPH_OK);
        CHECK_STR_EQ(text, "again");
        plugin_free(pl);
    }
    CHECK_INT_EQ(errs.count, 0);
    diag_release(&errs);
}

/* Two instances of one file: separate copies, separate state. */
static void test_two_instances(void)
{
    struct plugin *a = NULL, *b = NULL;
    struct diag errs;
    struct plg_result r;
    char text[256];

    diag_init(&errs);
    r = plg_load(&a, &errs, PLG_SERVER "[plugin.a]\npath = basic.so\ngreeting = from a\n", "a");
    CHECK_INT_EQ(r.status, STATUS_OK);
    r = plg_load(&b, &errs, PLG_SERVER "[plugin.b]\npath = basic.so\ngreeting = from b\n", "b");
    CHECK_INT_EQ(r.status, STATUS_OK);
    if (a != NULL && b != NULL) {
        CHECK(a->state != b->state);
        CHECK_INT_EQ(plg_call_tool(a, "greet", "{}", text, sizeof(text)), MCPH_OK);
        CHECK_STR_EQ(text, "from a");
        CHECK_INT_EQ(plg_call_tool(b, "greet", "{}", text, sizeof(text)), MCPH_OK);
        CHECK_STR_EQ(text, "from b");
    }
    plugin_free(a);
    plugin_free(b);
    diag_release(&errs);
}

static void test_refs(void)
{
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;

    diag_init(&errs);
    r = plg_load(&pl, &errs, PLG_SERVER "[plugin.c]\npath = collide.so\n", "c");
    if (CHECK_INT_EQ(r.status, STATUS_OK)) {
        plugin_ref(pl);
        plugin_ref(pl);
        CHECK_INT_EQ(plugin_unref(pl), 0);
        CHECK_INT_EQ(plugin_unref(pl), 0);
        CHECK_INT_EQ(plugin_unref(pl), 1);
        plugin_free(pl);
    }
    plugin_free(NULL);
    diag_release(&errs);
}

/* Write the defines plugin's list file beside plugin.ini: `n` tools, then `tail`. */
static int plg_write_list(int n, const char *tail)
{
    char path[600];
    FILE *f;

    snprintf(path, sizeof(path), "%s/items.txt", plg_dir);
    f = fopen(path, "w");
    if (f == NULL)
        return -1;
    for (int i = 0; i < n; i++)
        fprintf(f, "tool t%d\n", i);
    fputs(tail, f);
    return fclose(f);
}

/* ABI 1.2: rows defined at init land after the table rows; a refused one is logged and left
 * out; the instance is marked for rebuilding; config_path resolves against the INI's folder;
 * define outside init is MCPH_ERR_STATE. */
static void test_defines(void)
{
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;
    char text[1024], logged[4096], want[600];
    struct mcph_tool late = {.name = "late", .call = pl_dummy_handler};

    diag_init(&errs);
    if (!CHECK_INT_EQ(plg_write_list(2, "tool bad/name\nprompt p\nresource x://y\n"), 0))
        return;
    fixture_drain(plg_log_read, logged, sizeof(logged));
    r = plg_load(&pl, &errs, PLG_SERVER "[plugin.d]\npath = defines.so\nlist = items.txt\n", "d");
    if (CHECK_INT_EQ(r.status, STATUS_OK)) {
        CHECK_INT_EQ(pl->ntools, 6);
        CHECK_STR_EQ(pl->tools[4].name, "t0");
        CHECK_STR_EQ(pl->tools[5].name, "t1");
        CHECK_INT_EQ(pl->nprompts, 1);
        CHECK_INT_EQ(pl->nresources, 1);
        CHECK_INT_EQ(pl->rebuild, 1);
        snprintf(want, sizeof(want), "%s/items.txt", plg_dir);
        CHECK_STR_EQ(plugin_config_path(pl, "list"), want);
        CHECK(plugin_config_path(pl, "unset") == NULL);
        CHECK_INT_EQ(plugin_define(pl, PLUGIN_ROW_TOOL, &late), MCPH_ERR_STATE);
        CHECK_INT_EQ(plg_call_tool(pl, "statuses", "{}", text, sizeof(text)), MCPH_OK);
        CHECK_STR_EQ(text, "tool t0: 0\ntool t1: 0\ntool bad/name: -2\nprompt p: 0\n"
                           "resource x://y: 0\n");
        fixture_drain(plg_log_read, logged, sizeof(logged));
        CHECK(strstr(logged, "tool name 'bad/name' is not valid") != NULL);
        CHECK(strstr(logged, "(a tool defined by init; left out)") != NULL);
    }
    plugin_free(pl);
    CHECK_INT_EQ(errs.count, 0);
    diag_release(&errs);
}

/* More rows than LIMIT_ROWS: the rest are refused with MCPH_ERR_LIMIT, the load goes on. */
static void test_defines_limit(void)
{
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;
    char logged[8192];

    diag_init(&errs);
    if (!CHECK_INT_EQ(plg_write_list(LIMIT_ROWS + 2, ""), 0))
        return;
    fixture_drain(plg_log_read, logged, sizeof(logged));
    r = plg_load(&pl, &errs, PLG_SERVER "[plugin.d]\npath = defines.so\nlist = items.txt\n", "d");
    if (CHECK_INT_EQ(r.status, STATUS_OK)) {
        CHECK_INT_EQ(pl->ntools, LIMIT_ROWS);
        CHECK_STR_EQ(pl->tools[LIMIT_ROWS - 1].name, "t4091");
        fixture_drain(plg_log_read, logged, sizeof(logged));
        CHECK(strstr(logged, "more than 4096 tool rows; left out") != NULL);
    }
    plugin_free(pl);
    diag_release(&errs);
}

/* Whether `l` holds exactly the names `want` ("a b c"), in that order. */
static int plg_names_are(const struct filter_names *l, const char *want)
{
    char got[512] = "";
    size_t len = 0;

    for (size_t i = 0; i < l->n && len < sizeof(got); i++)
        len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%s", i ? " " : "", l->names[i]);
    if (strcmp(got, want) == 0 && l->total == l->n)
        return 1;
    fprintf(stderr, "    dropped \"%s\" (%zu), want \"%s\"\n", got, l->total, want);
    return 0;
}

/* The section's filters: the table rows they drop are not copied (only their names noted),
 * the kept ones are served as before, and the instance keeps the filters as written. */
static void test_filters(void)
{
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;
    char text[256];

    diag_init(&errs);
    r = plg_load(&pl, &errs,
                 PLG_SERVER "[plugin.b]\npath = basic.so\nprefix = px\ntools = e* [bf]* !boom\n"
                            "resources = basic://hello basic://items/*\nprompts = !*\n",
                 "b");
    if (CHECK_INT_EQ(r.status, STATUS_OK)) {
        CHECK_INT_EQ(errs.count, 0);
        if (CHECK_INT_EQ(pl->ntools, 2)) {
            CHECK_STR_EQ(pl->tools[0].name, "echo");
            CHECK_STR_EQ(pl->tools[1].name, "fail");
        }
        CHECK(plg_names_are(&pl->dropped[PLUGIN_ROW_TOOL], "sleep overlap greet boom"));
        if (CHECK_INT_EQ(pl->nresources, 1))
            CHECK_STR_EQ(pl->resources[0].uri, "basic://hello");
        if (CHECK_INT_EQ(pl->ntemplates, 1))
            CHECK_STR_EQ(pl->templates[0].uri_template, "basic://items/{id}");
        CHECK(plg_names_are(&pl->dropped[PLUGIN_ROW_RESOURCE], ""));
        CHECK(plg_names_are(&pl->dropped[PLUGIN_ROW_TEMPLATE], "basic://files/{+path}"));
        CHECK_INT_EQ(pl->nprompts, 0);
        CHECK(plg_names_are(&pl->dropped[PLUGIN_ROW_PROMPT], "greet"));
        CHECK_STR_EQ(pl->section.filter[FILTER_TOOLS], "e* [bf]* !boom");
        CHECK_STR_EQ(pl->section.filter[FILTER_RESOURCES], "basic://hello basic://items/*");
        CHECK_STR_EQ(pl->section.filter[FILTER_PROMPTS], "!*");
        CHECK_INT_EQ(plg_call_tool(pl, "echo", "{\"text\":\"kept\"}", text, sizeof(text)), MCPH_OK);
        CHECK_STR_EQ(text, "kept");
    }
    plugin_free(pl);
    diag_release(&errs);
}

/* Rows defined at init go through the same filters: a dropped one is not an error to the
 * plugin (MCPH_OK) and is not checked (bad/name would be refused), only noted. */
static void test_filters_defines(void)
{
    struct plugin *pl;
    struct diag errs;
    struct plg_result r;
    char text[1024];

    diag_init(&errs);
    if (!CHECK_INT_EQ(plg_write_list(3, "tool bad/name\nprompt p\nresource x://y\n"), 0))
        return;
    r = plg_load(&pl, &errs,
                 PLG_SERVER "[plugin.d]\npath = defines.so\nlist = items.txt\n"
                            "tools = statuses t? !t1\nresources = !x://*\n",
                 "d");
    if (CHECK_INT_EQ(r.status, STATUS_OK)) {
        if (CHECK_INT_EQ(pl->ntools, 3)) {
            CHECK_STR_EQ(pl->tools[0].name, "statuses");
            CHECK_STR_EQ(pl->tools[1].name, "t0");
            CHECK_STR_EQ(pl->tools[2].name, "t2");
        }
        CHECK(
            plg_names_are(&pl->dropped[PLUGIN_ROW_TOOL], "refresh late_define where t1 bad/name"));
        CHECK_INT_EQ(pl->nresources, 0);
        CHECK(plg_names_are(&pl->dropped[PLUGIN_ROW_RESOURCE], "x://y"));
        CHECK_INT_EQ(pl->nprompts, 1);
        CHECK_INT_EQ(plg_call_tool(pl, "statuses", "{}", text, sizeof(text)), MCPH_OK);
        CHECK_STR_EQ(text, "tool t0: 0\ntool t1: 0\ntool t2: 0\ntool bad/name: 0\nprompt p: 0\n"
                           "resource x://y: 0\n");
    }
    plugin_free(pl);
    CHECK_INT_EQ(errs.count, 0);
    diag_release(&errs);
}

/* How many of this process's descriptors are the memfd copy of instance `id`'s file. */
static int plg_memfds(const char *id)
{
    char want[128], path[64], link[256];
    int n = 0;

    snprintf(want, sizeof(want), "/memfd:%s ", id);
    for (int fd = 0; fd < 1024; fd++) {
        ssize_t len;

        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        len = readlink(path, link, sizeof(link) - 1);
        if (len <= 0)
            continue;
        link[len] = '\0';
        n += strncmp(link, want, strlen(want)) == 0;
    }
    return n;
}

/* Free *pl (NULL after) and check its shutdown logged `want`. */
static void plg_free_logs(struct plugin **pl, const char *want)
{
    char logged[4096];

    plugin_free(*pl);
    *pl = NULL;
    fixture_drain(plg_log_read, logged, sizeof(logged));
    CHECK_STR_HAS(logged, want);
}

#define PLG_RELAY PLG_SERVER "[plugin.r]\npath = relay.so\n"

/* ABI 1.3, MCPH_PLUGIN_TAKE_OVER: a rebuild runs in the same mapping (the same handle, one
 * memfd) and its init gets the predecessor's state, which it has nowhere else; the library
 * stays while either instance holds it, whichever goes first, and its memfd goes with the
 * last. Each shutdown still runs. */
static void test_take_over(void)
{
    struct plugin *first = NULL, *second = NULL, *third = NULL;
    struct diag errs;
    char text[256], logged[4096];

    diag_init(&errs);
    fixture_drain(plg_log_read, logged, sizeof(logged));
    if (!CHECK_INT_EQ(plg_load(&first, &errs, PLG_RELAY, "r").status, STATUS_OK) ||
        !CHECK_INT_EQ(plg_load_over(&second, first, &errs, PLG_RELAY, "r").status, STATUS_OK))
        goto out;
    CHECK(plugin_takes_over(first));
    CHECK(second->handle == first->handle);
    CHECK_INT_EQ(plg_memfds("r"), 1);
    CHECK_INT_EQ(plg_call_tool(first, "status", "{}", text, sizeof(text)), MCPH_OK);
    CHECK_STR_EQ(text,
                 "generation 1, took over no, same mapping no, predecessor outside init NULL");
    CHECK_INT_EQ(plg_call_tool(second, "status", "{}", text, sizeof(text)), MCPH_OK);
    CHECK_STR_EQ(text,
                 "generation 2, took over yes, same mapping yes, predecessor outside init NULL");
    /* The predecessor goes first: its shutdown runs, the successor's code stays mapped. */
    plg_free_logs(&first, "generation 1 shut down; the child has 1 user(s)");
    CHECK_INT_EQ(fixture_mapped("r"), 1);
    CHECK_INT_EQ(plg_memfds("r"), 1);
    CHECK_INT_EQ(plg_call_tool(second, "status", "{}", text, sizeof(text)), MCPH_OK);
    /* A third takes over from the second; this time the successor goes first. */
    if (!CHECK_INT_EQ(plg_load_over(&third, second, &errs, PLG_RELAY, "r").status, STATUS_OK))
        goto out;
    CHECK(third->handle == second->handle);
    plg_free_logs(&third, "generation 3 shut down; the child has 1 user(s)");
    CHECK_INT_EQ(plg_call_tool(second, "status", "{}", text, sizeof(text)), MCPH_OK);
    CHECK_STR_HAS(text, "generation 2");
    plg_free_logs(&second, "generation 2 shut down; the child has 0 user(s)");
    CHECK_INT_EQ(fixture_mapped("r"), 0);
    CHECK_INT_EQ(plg_memfds("r"), 0);
out:
    plugin_free(third);
    plugin_free(second);
    plugin_free(first);
    diag_release(&errs);
}

/* Without the flag (and for a 1.2 plugin that sets its bit, which 1.2 did not define), a
 * rebuild is a fresh copy: another memfd, another handle. A 1.2 descriptor loads, and its
 * subscribe (past its size) is not read. */
static void test_no_take_over(void)
{
    static const char *const ini[] = {PLG_SERVER "[plugin.n]\npath = reloadable.so\n",
                                      PLG_SERVER "[plugin.n]\npath = abi12.so\n"};
    struct diag errs;

    diag_init(&errs);
    for (size_t i = 0; i < 2; i++) {
        struct plugin *old = NULL, *pl = NULL;

        if (CHECK_INT_EQ(plg_load(&old, &errs, ini[i], "n").status, STATUS_OK) &&
            CHECK_INT_EQ(plg_load_over(&pl, old, &errs, ini[i], "n").status, STATUS_OK)) {
            CHECK(!plugin_takes_over(old));
            CHECK(pl->handle != old->handle);
            CHECK_INT_EQ(plg_memfds("n"), 2);
            CHECK(pl->subscribe == NULL);
        }
        plugin_free(pl);
        plugin_free(old);
        CHECK_INT_EQ(plg_memfds("n"), 0);
    }
    CHECK_INT_EQ(errs.count, 0);
    diag_release(&errs);
}

static void test_valid_name(void)
{
    char name[LIMIT_NAME + 2];

    CHECK(plugin_valid_name("a"));
    CHECK(plugin_valid_name("get_weather.v2-beta"));
    CHECK(plugin_valid_name("ABC_xyz_019"));
    memset(name, 'n', LIMIT_NAME);
    name[LIMIT_NAME] = '\0';
    CHECK(plugin_valid_name(name));
    name[LIMIT_NAME] = 'n';
    name[LIMIT_NAME + 1] = '\0';
    CHECK(!plugin_valid_name(name));
    CHECK(!plugin_valid_name(""));
    CHECK(!plugin_valid_name(NULL));
    CHECK(!plugin_valid_name("a b"));
    CHECK(!plugin_valid_name("a/b"));
    CHECK(!plugin_valid_name("a:b"));
    CHECK(!plugin_valid_name("na\xc3\xafve"));
}

static const struct check_test tests[] = {
    {"basic_loads", test_basic_loads},
    {"basic_config_key", test_basic_config_key},
    {"prefix_copied", test_prefix_copied},
    {"threadsafe_flag", test_threadsafe_flag},
    {"abi_major", test_abi_major},
    {"abi_minor", test_abi_minor},
    {"short_descriptor", test_short_descriptor},
    {"bad_schema", test_bad_schema},
    {"schema_not_object", test_schema_not_object},
    {"dup_names", test_dup_names},
    {"bad_name", test_bad_name},
    {"no_entry", test_no_entry},
    {"init_fail", test_init_fail},
    {"missing_file", test_missing_file},
    {"config_required", test_config_required},
    {"undeclared_key", test_undeclared_key},
    {"group_writable_file", test_group_writable_file},
    {"group_writable_folder", test_group_writable_folder},
    {"writable_ancestor", test_writable_ancestor},
    {"writable_link_folder", test_writable_link_folder},
    {"foreign_owner", test_foreign_owner},
    {"file_changed", test_file_changed},
    {"load_free_load", test_load_free_load},
    {"two_instances", test_two_instances},
    {"refs", test_refs},
    {"valid_name", test_valid_name},
    {"defines", test_defines},
    {"defines_limit", test_defines_limit},
    {"filters", test_filters},
    {"filters_defines", test_filters_defines},
    {"take_over", test_take_over},
    {"no_take_over", test_no_take_over},
    {0},
};

int main(void)
{
    int fds[2];
    char ini[600];
    int status;

    if (check_tmp(plg_dir, sizeof(plg_dir), "plugin") == NULL || pipe(fds) != 0 ||
        fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) {
        fprintf(stderr, "test_plugin: cannot set up build/tests/tmp/plugin or a pipe\n");
        return 1;
    }
    log_init(&plg_log);
    plg_log.fd = fds[1];
    plg_log_read = fds[0];
    status = check_main("test_plugin", tests);
    snprintf(ini, sizeof(ini), "%s/plugin.ini", plg_dir);
    unlink(ini);
    close(fds[0]);
    close(fds[1]);
    return status;
}
