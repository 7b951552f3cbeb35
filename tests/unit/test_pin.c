/* test_pin.c: the pinned definitions (served/pin.h) without a server: a lock file read back
 * (missing, with lock_new accept or refuse; a row twice, a bad line, a hash that is not the
 * definition's, each named FILE:LINE), the verdict on rows (the same, changed, served by
 * another section, new), the refusal said once across builds and reloads, the drift text
 * --check prints, lock_new = accept pinning and writing the file (not in --check mode); and
 * with a real plugin (build/tests/plugins/basic.so), a lock file written from a registry
 * admits every row of the same set built through the gate, and a row taken out of the file
 * is left out of the set, neither served nor counted as a collision. */
#include "served/pin.h"

#include "lib/canon.h"
#include "lib/diag.h"
#include "lib/log.h"
#include "lib/status.h"

#include "check.h"
#include "host/host.h"

#include <cJSON.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char test_dir[256];

/* dir/name in a static buffer: the next call overwrites it. */
static const char *test_path(const char *name)
{
    static char path[512];

    snprintf(path, sizeof(path), "%s/%s", test_dir, name);
    return path;
}

/* A lock file row for a tool named name of plugin, with description desc. */
static void test_row(FILE *f, const char *name, const char *plugin, const char *desc)
{
    cJSON *def = cJSON_CreateObject();
    char hash[CANON_HEX_BYTES];
    struct strbuf sb = STRBUF_INIT;

    cJSON_AddStringToObject(def, "name", name);
    cJSON_AddStringToObject(def, "description", desc);
    if (canon_hash(def, hash) == STATUS_OK && canon_append(&sb, def) == STATUS_OK)
        fprintf(f,
                "{\"kind\":\"tool\",\"name\":\"%s\",\"plugin\":\"%s\",\"sha256\":\"%s\","
                "\"definition\":%s}\n",
                name, plugin, hash, sb.buf);
    strbuf_release(&sb);
    cJSON_Delete(def);
}

static const char *test_write(const char *name, const char *text)
{
    const char *path = test_path(name);
    FILE *f = fopen(path, "w");

    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
    return path;
}

/* The usual lock file: tools a and b of plugin p. */
static const char *test_lock(const char *name)
{
    const char *path = test_path(name);
    FILE *f = fopen(path, "w");

    if (f == NULL)
        return path;
    fputs("# a comment\n\n", f);
    test_row(f, "a", "p", "Does a");
    test_row(f, "b", "p", "Does b");
    fclose(f);
    return path;
}

static cJSON *test_entry(const char *name, const char *desc)
{
    cJSON *def = cJSON_CreateObject();

    cJSON_AddStringToObject(def, "name", name);
    cJSON_AddStringToObject(def, "description", desc);
    return def;
}

static int test_admit(struct pin *pin, const char *plugin, const char *name, const char *desc)
{
    cJSON *e = test_entry(name, desc);
    int verdict = pin_admit(pin, "tool", plugin, name, e);

    cJSON_Delete(e);
    return verdict;
}

/* A log whose lines go to a file; *fd is the file, to read back with test_logged. */
static void test_log(struct log *lg, int *fd)
{
    log_init(lg);
    *fd = open(test_path("log"), O_RDWR | O_CREAT | O_TRUNC, 0644);
    lg->fd = *fd;
}

static char *test_logged(int fd)
{
    static char text[8192];
    ssize_t n = pread(fd, text, sizeof(text) - 1, 0);

    text[n > 0 ? n : 0] = '\0';
    return text;
}

static size_t test_count(const char *text, const char *part)
{
    size_t n = 0;

    for (const char *p = strstr(text, part); p != NULL; p = strstr(p + 1, part))
        n++;
    return n;
}

static void test_missing(void)
{
    struct pin *pin = NULL;
    struct diag errs;

    diag_init(&errs);
    CHECK_INT_EQ(pin_load(&pin, test_path("none.lock"), 1, &errs), STATUS_OK);
    CHECK(pin != NULL);
    pin_free(pin);
    pin = NULL;
    CHECK_INT_EQ(pin_load(&pin, test_path("none.lock"), 0, &errs), STATUS_CONFIG);
    CHECK(pin == NULL);
    if (CHECK_INT_EQ(errs.count, 1))
        CHECK_STR_HAS(errs.msgs[0], "no such file");
    diag_release(&errs);
}

static void test_bad(const char *text, const char *where)
{
    struct pin *pin = NULL;
    struct diag errs;
    const char *path = test_write("bad.lock", text);
    char want[600];

    diag_init(&errs);
    snprintf(want, sizeof(want), "%s:%s", path, where);
    CHECK_INT_EQ(pin_load(&pin, path, 0, &errs), STATUS_CONFIG);
    CHECK(pin == NULL);
    if (CHECK(errs.count >= 1))
        CHECK_STR_HAS(errs.msgs[0], want);
    diag_release(&errs);
}

static void test_bad_files(void)
{
    const char *good = test_lock("good.lock");
    char text[4096], twice[8192];
    FILE *f = fopen(good, "r");
    size_t n = f != NULL ? fread(text, 1, sizeof(text) - 1, f) : 0;
    char *third;

    if (f != NULL)
        fclose(f);
    text[n] = '\0';
    test_bad("# header\n{\"kind\":\"tool\"\n", "2: not a row");
    test_bad("{\"kind\":\"widget\",\"name\":\"a\",\"plugin\":\"p\",\"sha256\":\"00\","
             "\"definition\":{}}\n",
             "1: its kind");
    test_bad("{\"kind\":\"tool\",\"name\":\"a\",\"plugin\":\"p\",\"sha256\":\"00\","
             "\"definition\":{}}\n",
             "1: its sha256");
    /* Every row twice: the first copy of the first row is at line 3. */
    snprintf(twice, sizeof(twice), "%s%s", text, strstr(text, "{"));
    third = strstr(twice, "{");
    CHECK(third != NULL);
    test_bad(twice, "5: this row is pinned twice (first at line 3)");
}

static void test_verdicts(void)
{
    struct pin *pin = NULL;
    struct registry_gate gate;
    struct diag errs;
    struct log lg;
    int fd;

    diag_init(&errs);
    test_log(&lg, &fd);
    if (!CHECK_INT_EQ(pin_load(&pin, test_lock("v.lock"), 0, &errs), STATUS_OK))
        return;
    pin_gate(pin, &gate, &lg, PIN_SERVE);
    CHECK(gate.admit == pin_admit && gate.ctx == pin);
    CHECK_INT_EQ(test_admit(pin, "p", "a", "Does a"), 1);
    CHECK_INT_EQ(test_admit(pin, "p", "b", "Does b, and reads ~/.ssh"), 0);
    CHECK_INT_EQ(test_admit(pin, "q", "a", "Does a"), 0);
    CHECK_INT_EQ(test_admit(pin, "p", "c", "Does c"), 0);
    CHECK_INT_EQ(pin_refused(pin), 3);
    CHECK_STR_HAS(pin_drift(pin), "[plugin.p] tool 'b': differs from its pinned definition\n"
                                  "  description: \"Does b\" -> \"Does b, and reads ~/.ssh\"\n");
    CHECK_STR_HAS(pin_drift(pin), "[plugin.q] tool 'a': differs from its pinned definition\n"
                                  "  served by [plugin.q], pinned for [plugin.p]\n");
    CHECK_STR_HAS(pin_drift(pin), "[plugin.p] tool 'c': not in the lock file\n");
    CHECK_STR_HAS(test_logged(fd), "warning: [plugin.p] tool 'b' differs from its pinned "
                                   "definition");
    CHECK_STR_HAS(test_logged(fd), "description: \"Does b\" -> \"Does b, and reads ~/.ssh\"");
    CHECK_STR_HAS(test_logged(fd), "tool 'c' is not in the lock file");
    CHECK_INT_EQ(test_count(test_logged(fd), "tool 'b'"), 1);
    /* The next build refuses the same: counted and in the drift, not said again. */
    pin_gate(pin, &gate, &lg, PIN_SERVE);
    CHECK_INT_EQ(test_admit(pin, "p", "b", "Does b, and reads ~/.ssh"), 0);
    CHECK_INT_EQ(pin_refused(pin), 1);
    CHECK_STR_HAS(pin_drift(pin), "tool 'b'");
    CHECK_INT_EQ(test_count(test_logged(fd), "tool 'b'"), 1);
    /* Another change to it is said. */
    pin_gate(pin, &gate, &lg, PIN_SERVE);
    CHECK_INT_EQ(test_admit(pin, "p", "b", "Does b, and writes ~/.ssh"), 0);
    CHECK_INT_EQ(test_count(test_logged(fd), "tool 'b'"), 2);
    pin_free(pin);
    close(fd);
    diag_release(&errs);
}

/* A reload reads the file again into a new set, which keeps what the old one said. */
static void test_said_across_reload(void)
{
    struct pin *old = NULL, *pin = NULL;
    struct registry_gate gate;
    struct diag errs;
    struct log lg;
    int fd;

    diag_init(&errs);
    test_log(&lg, &fd);
    if (!CHECK_INT_EQ(pin_load(&old, test_lock("r.lock"), 0, &errs), STATUS_OK) ||
        !CHECK_INT_EQ(pin_load(&pin, test_path("r.lock"), 0, &errs), STATUS_OK))
        return;
    pin_gate(old, &gate, &lg, PIN_SERVE);
    CHECK_INT_EQ(test_admit(old, "p", "a", "Changed"), 0);
    CHECK_INT_EQ(pin_keep_said(pin, old), STATUS_OK);
    pin_gate(pin, &gate, &lg, PIN_SERVE);
    CHECK_INT_EQ(test_admit(pin, "p", "a", "Changed"), 0);
    CHECK_INT_EQ(test_count(test_logged(fd), "tool 'a'"), 1);
    pin_free(old);
    pin_free(pin);
    close(fd);
    diag_release(&errs);
}

static void test_accept(void)
{
    struct pin *pin = NULL, *again = NULL;
    struct registry_gate gate;
    struct diag errs;
    struct log lg;
    int fd;
    char path[512];

    snprintf(path, sizeof(path), "%s", test_lock("a.lock"));
    diag_init(&errs);
    test_log(&lg, &fd);
    if (!CHECK_INT_EQ(pin_load(&pin, path, 1, &errs), STATUS_OK))
        return;
    /* --check: served, not pinned, nothing written. */
    pin_gate(pin, &gate, &lg, PIN_CHECK);
    CHECK_INT_EQ(test_admit(pin, "p", "c", "Does c"), 1);
    CHECK_INT_EQ(pin_would_pin(pin), 1);
    CHECK_STR_EQ(pin_news(pin), "[plugin.p] tool 'c': would pin\n");
    CHECK_INT_EQ(pin_save(pin, &lg), STATUS_OK);
    if (CHECK_INT_EQ(pin_load(&again, path, 0, &errs), STATUS_OK)) {
        pin_gate(again, &gate, &lg, PIN_SERVE);
        CHECK_INT_EQ(test_admit(again, "p", "c", "Does c"), 0);
    }
    pin_free(again);
    again = NULL;
    /* Serving: pinned and written; a change to it afterwards is refused. */
    pin_gate(pin, &gate, &lg, PIN_SERVE);
    CHECK_INT_EQ(test_admit(pin, "p", "c", "Does c"), 1);
    CHECK_INT_EQ(pin_would_pin(pin), 0);
    CHECK_INT_EQ(test_admit(pin, "p", "b", "Does b now"), 0);
    CHECK_INT_EQ(pin_save(pin, &lg), STATUS_OK);
    CHECK_STR_HAS(test_logged(fd), "tool 'c' is new: served and pinned");
    if (CHECK_INT_EQ(pin_load(&again, path, 0, &errs), STATUS_OK)) {
        pin_gate(again, &gate, &lg, PIN_SERVE);
        CHECK_INT_EQ(test_admit(again, "p", "c", "Does c"), 1);
        CHECK_INT_EQ(test_admit(again, "p", "c", "Does c differently"), 0);
        CHECK_INT_EQ(test_admit(again, "p", "a", "Does a"), 1);
    }
    snprintf(path, sizeof(path), "%s/a.lock.tmp.%ld", test_dir, (long)getpid());
    CHECK(access(path, F_OK) != 0);
    pin_free(again);
    pin_free(pin);
    close(fd);
    diag_release(&errs);
}

/* lock_new = accept, and the file rewritten (mcph --lock, an edit) between two saves: the
 * second save keeps the file's rows (a changed, b and c dropped) and adds only the row
 * accepted since, d. */
static void test_accept_merge(void)
{
    struct pin *pin = NULL, *again = NULL;
    struct registry_gate gate;
    struct diag errs;
    struct log lg;
    int fd;
    char path[512], text[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s", test_lock("m.lock"));
    diag_init(&errs);
    test_log(&lg, &fd);
    if (!CHECK_INT_EQ(pin_load(&pin, path, 1, &errs), STATUS_OK))
        return;
    pin_gate(pin, &gate, &lg, PIN_SERVE);
    CHECK_INT_EQ(test_admit(pin, "p", "c", "Does c"), 1);
    CHECK_INT_EQ(pin_save(pin, &lg), STATUS_OK);
    /* mcph's own write is not a change by someone else. */
    pin_gate(pin, &gate, &lg, PIN_SERVE);
    CHECK_INT_EQ(test_admit(pin, "p", "c2", "Does c2"), 1);
    CHECK_INT_EQ(pin_save(pin, &lg), STATUS_OK);
    CHECK(strstr(test_logged(fd), "changed since") == NULL);
    /* The operator's file: a pinned anew, b, c and c2 gone. */
    f = fopen(path, "w");
    if (!CHECK(f != NULL))
        return;
    test_row(f, "a", "p", "Does a, version two");
    fclose(f);
    pin_gate(pin, &gate, &lg, PIN_SERVE);
    CHECK_INT_EQ(test_admit(pin, "p", "d", "Does d"), 1);
    CHECK_INT_EQ(pin_save(pin, &lg), STATUS_OK);
    CHECK_STR_HAS(test_logged(fd), "changed since mcph read it: its rows kept, 1 newly pinned");
    if (CHECK_INT_EQ(pin_load(&again, path, 0, &errs), STATUS_OK)) {
        pin_gate(again, &gate, &lg, PIN_SERVE);
        CHECK_INT_EQ(test_admit(again, "p", "a", "Does a, version two"), 1);
        CHECK_INT_EQ(test_admit(again, "p", "a", "Does a"), 0);
        CHECK_INT_EQ(test_admit(again, "p", "b", "Does b"), 0);
        CHECK_INT_EQ(test_admit(again, "p", "c", "Does c"), 0);
        CHECK_INT_EQ(test_admit(again, "p", "c2", "Does c2"), 0);
        CHECK_INT_EQ(test_admit(again, "p", "d", "Does d"), 1);
    }
    pin_free(again);
    again = NULL;
    /* The running set follows the file now: its pin of a is the one judged. */
    pin_gate(pin, &gate, &lg, PIN_SERVE);
    CHECK_INT_EQ(test_admit(pin, "p", "a", "Does a"), 0);
    /* A file that cannot be read now: nothing written, a warning that says to fix it. */
    test_write("m.lock", "not a lock file\n");
    CHECK_INT_EQ(test_admit(pin, "p", "e", "Does e"), 1);
    CHECK(pin_save(pin, &lg) != STATUS_OK);
    f = fopen(path, "r");
    text[0] = '\0';
    if (CHECK(f != NULL)) {
        text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
        fclose(f);
    }
    CHECK_STR_EQ(text, "not a lock file\n");
    CHECK_STR_HAS(test_logged(fd), "cannot be read now");
    /* A file gone for a moment (an editor's save, a move before mcph --lock) is not an empty
     * lock file: nothing written, and the pins kept in memory still judge. */
    CHECK(unlink(path) == 0);
    CHECK_INT_EQ(test_admit(pin, "p", "f", "Does f"), 1);
    CHECK(pin_save(pin, &lg) != STATUS_OK);
    CHECK(access(path, F_OK) != 0);
    pin_gate(pin, &gate, &lg, PIN_SERVE);
    CHECK_INT_EQ(test_admit(pin, "p", "d", "Does d, changed"), 0);
    pin_free(pin);
    close(fd);
    diag_release(&errs);
}

/* The temporary file is a new one: a file (here a hard link to another) at the name an
 * older mcph used, path.tmp.PID, is neither truncated nor chmod-ed. */
static void test_tmp_name(void)
{
    struct pin *pin = NULL;
    struct registry_gate gate;
    struct diag errs;
    struct log lg;
    struct stat st;
    int fd, victim;
    char path[512], tmp[600], other[512], text[64] = "";

    snprintf(path, sizeof(path), "%s", test_path("t.lock"));
    snprintf(other, sizeof(other), "%s", test_path("victim"));
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
    (void)unlink(path); /* left by an earlier run, maybe one link of victim */
    (void)unlink(other);
    (void)test_lock("t.lock");
    victim = open(other, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (!CHECK(victim >= 0) || !CHECK(write(victim, "keep", 4) == 4))
        return;
    close(victim);
    (void)unlink(tmp);
    if (!CHECK(link(other, tmp) == 0))
        return;
    diag_init(&errs);
    test_log(&lg, &fd);
    if (CHECK_INT_EQ(pin_load(&pin, path, 1, &errs), STATUS_OK)) {
        pin_gate(pin, &gate, &lg, PIN_SERVE);
        CHECK_INT_EQ(test_admit(pin, "p", "c", "Does c"), 1);
        CHECK_INT_EQ(pin_save(pin, &lg), STATUS_OK);
    }
    victim = open(other, O_RDONLY);
    if (CHECK(victim >= 0)) {
        CHECK(read(victim, text, sizeof(text) - 1) == 4);
        CHECK_STR_EQ(text, "keep");
        CHECK(fstat(victim, &st) == 0 && (st.st_mode & 0777) == 0600);
        close(victim);
    }
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
    unlink(tmp);
    pin_free(pin);
    close(fd);
    diag_release(&errs);
}

/* Instance b of basic.so, prefix px, loaded as mcph would. */
static struct plugin *test_plugin(struct plugin_env *env)
{
    const char *ini = test_write("pin.ini", "[server]\nplugin_dir = ../../plugins\n"
                                            "[plugin.b]\npath = basic.so\nprefix = px\n");
    struct plugin *pl = NULL;
    struct config cfg;
    struct diag errs;
    const struct config_plugin *cp;

    config_init(&cfg);
    diag_init(&errs);
    cp = config_load(&cfg, ini, &errs) == STATUS_OK ? config_find_plugin(&cfg, "b") : NULL;
    if (cp != NULL && plugin_load(&pl, cp, ini, env, &errs) != STATUS_OK)
        pl = NULL;
    for (size_t i = 0; i < errs.count; i++)
        fprintf(stderr, "    load: %s\n", errs.msgs[i]);
    config_release(&cfg);
    diag_release(&errs);
    return pl;
}

/* The lock file at path without its line naming px_echo. */
static void test_drop_echo(const char *path)
{
    char text[65536], *line, *end;
    FILE *f = fopen(path, "r");
    size_t n = f != NULL ? fread(text, 1, sizeof(text) - 1, f) : 0;

    if (f != NULL)
        fclose(f);
    text[n] = '\0';
    line = strstr(text, "{\"kind\":\"tool\",\"name\":\"px_echo\"");
    end = line != NULL ? strchr(line, '\n') : NULL;
    if (!CHECK(end != NULL))
        return;
    memmove(line, end + 1, strlen(end + 1) + 1);
    test_write("reg.lock", text);
}

static void test_registry_gate(void)
{
    struct log lg;
    struct plugin_env env = {.log = &lg, .host_setup = host_setup};
    struct plugin *pl;
    struct registry *all = NULL, *gated = NULL;
    struct registry_gate gate;
    struct pin *pin = NULL;
    struct diag errs;
    size_t rows = 0, collisions = 99;
    char path[512];
    int fd;

    test_log(&lg, &fd);
    pl = test_plugin(&env);
    diag_init(&errs);
    snprintf(path, sizeof(path), "%s", test_path("reg.lock"));
    if (!CHECK(pl != NULL) ||
        !CHECK_INT_EQ(registry_build(&all, &pl, 1, &lg, &errs, NULL), STATUS_OK) ||
        !CHECK_INT_EQ(pin_write_registry(path, all, &rows, &errs), STATUS_OK))
        goto out;
    CHECK_INT_EQ(rows, all->ntools + all->nresources + all->ntemplates + all->nprompts);
    /* Everything pinned: the gated set is the same set. */
    if (CHECK_INT_EQ(pin_load(&pin, path, 0, &errs), STATUS_OK)) {
        pin_gate(pin, &gate, &lg, PIN_SERVE);
        CHECK_INT_EQ(registry_build_gated(&gated, &pl, 1, NULL, &gate, &lg, &errs, &collisions),
                     STATUS_OK);
        CHECK_INT_EQ(pin_refused(pin), 0);
        CHECK(gated != NULL && registry_diff(all, gated) == 0);
    }
    registry_free(gated);
    gated = NULL;
    pin_free(pin);
    pin = NULL;
    /* px_echo taken out of the file: left out, the rest served, no collision. */
    test_drop_echo(path);
    if (CHECK_INT_EQ(pin_load(&pin, path, 0, &errs), STATUS_OK)) {
        pin_gate(pin, &gate, &lg, PIN_SERVE);
        CHECK_INT_EQ(registry_build_gated(&gated, &pl, 1, NULL, &gate, &lg, &errs, &collisions),
                     STATUS_OK);
        CHECK_INT_EQ(collisions, 0);
        CHECK_INT_EQ(pin_refused(pin), 1);
        CHECK_STR_HAS(pin_drift(pin), "[plugin.b] tool 'px_echo': not in the lock file");
        if (CHECK(gated != NULL)) {
            CHECK(registry_find_tool(gated, "px_echo") == NULL);
            CHECK(registry_find_tool(gated, "px_sleep") != NULL);
            CHECK_INT_EQ(gated->ntools, all->ntools - 1);
            CHECK_INT_EQ(gated->nprompts, all->nprompts);
            CHECK_INT_EQ(gated->ncollided, 0);
            CHECK_INT_EQ(registry_diff(all, gated), REGISTRY_TOOLS);
        }
    }
out:
    for (size_t i = 0; i < errs.count; i++)
        fprintf(stderr, "    %s\n", errs.msgs[i]);
    registry_free(gated);
    registry_free(all);
    pin_free(pin);
    if (pl != NULL && plugin_unref(pl))
        plugin_free(pl);
    diag_release(&errs);
    close(fd);
}

static const struct check_test tests[] = {
    {"missing", test_missing},
    {"bad_files", test_bad_files},
    {"verdicts", test_verdicts},
    {"said_across_reload", test_said_across_reload},
    {"accept", test_accept},
    {"accept_merge", test_accept_merge},
    {"tmp_name", test_tmp_name},
    {"registry_gate", test_registry_gate},
    {0},
};

int main(void)
{
    if (check_tmp(test_dir, sizeof(test_dir), "pin") == NULL)
        return 1;
    return check_main("test_pin", tests);
}
