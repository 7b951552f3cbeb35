/* test_config.c: the INI file as a struct: defaults, every [server] key, plugin sections,
 * path resolution, comments, continuation lines, and every error with its FILE:LINE. The
 * INI files are written under build/tests/tmp/config/. */
#include "config/config.h"
#include "config/keys.h"
#include "host/isolate.h"

#include "check.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/status.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char cfg_dir[256];

/* Write text to build/tests/tmp/config/NAME; its path into path. 0 on success. */
static int cfg_write(char *path, size_t size, const char *name, const char *text)
{
    FILE *f;

    if (check_tmp(cfg_dir, sizeof(cfg_dir), "config") == NULL)
        return -1;
    snprintf(path, size, "%s/%s", cfg_dir, name);
    f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* Write and parse an INI file; cfg and errs come back initialised (release them). */
static int cfg_load(struct config *cfg, struct diag *errs, char *path, size_t size,
                    const char *name, const char *text)
{
    config_init(cfg);
    diag_init(errs);
    if (cfg_write(path, size, name, text) != 0)
        return -1000;
    return config_load(cfg, path, errs);
}

static void cfg_done(struct config *cfg, struct diag *errs, const char *path)
{
    config_release(cfg);
    diag_release(errs);
    unlink(path);
}

/* Whether errs has a message starting "PATH:LINE: " that contains part. */
static int cfg_has_error(const struct diag *errs, const char *path, int line, const char *part)
{
    char where[512];

    snprintf(where, sizeof(where), "%s:%d: ", path, line);
    for (size_t i = 0; i < errs->count; i++) {
        if (strncmp(errs->msgs[i], where, strlen(where)) == 0 &&
            strstr(errs->msgs[i], part) != NULL)
            return 1;
    }
    fprintf(stderr, "    no message \"%s...%s\" among %zu:\n", where, part, errs->count);
    for (size_t i = 0; i < errs->count; i++)
        fprintf(stderr, "      %s\n", errs->msgs[i]);
    return 0;
}

static void test_defaults(void)
{
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "defaults.ini", "[server]\n"),
                 STATUS_OK);
    CHECK_INT_EQ(errs.count, 0);
    CHECK_STR_EQ(cfg.file, path);
    CHECK_STR_EQ(cfg.dir, "build/tests/tmp/config");
    CHECK_STR_EQ(cfg.plugin_dir, "build/tests/tmp/config");
    CHECK_STR_EQ(cfg.name, "mcph");
    CHECK(cfg.title == NULL);
    CHECK(cfg.instructions == NULL);
    CHECK_INT_EQ(cfg.workers, LIMIT_WORKERS_DEFAULT);
    CHECK_INT_EQ(cfg.log_level, LOG_INFO);
    CHECK_INT_EQ(cfg.strict, 0);
    CHECK_INT_EQ(cfg.page_size, LIMIT_PAGE_DEFAULT);
    CHECK_INT_EQ(cfg.nplugins, 0);
    cfg_done(&cfg, &errs, path);

    /* An empty file is a valid configuration too. */
    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "empty.ini", ""), STATUS_OK);
    CHECK_STR_EQ(cfg.name, "mcph");
    CHECK_INT_EQ(errs.count, 0);
    cfg_done(&cfg, &errs, path);
}

static void test_server_keys(void)
{
    static const char ini[] = "[server]\n"
                              "name = myserver\n"
                              "title = My Server\n"
                              "instructions = Use the tools.\n"
                              "plugin_dir = plugins\n"
                              "workers = 8\n"
                              "log_level = debug\n"
                              "strict = yes\n"
                              "page_size = 50\n";
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "server.ini", ini), STATUS_OK);
    CHECK_INT_EQ(errs.count, 0);
    CHECK_STR_EQ(cfg.name, "myserver");
    CHECK_STR_EQ(cfg.title, "My Server");
    CHECK_STR_EQ(cfg.instructions, "Use the tools.");
    CHECK_STR_EQ(cfg.plugin_dir, "build/tests/tmp/config/plugins");
    CHECK_INT_EQ(cfg.workers, 8);
    CHECK_INT_EQ(cfg.log_level, LOG_DEBUG);
    CHECK_INT_EQ(cfg.strict, 1);
    CHECK_INT_EQ(cfg.page_size, 50);
    cfg_done(&cfg, &errs, path);
}

static void test_value_ranges(void)
{
    static const char ini[] = "[server]\n"
                              "workers = 64\n"
                              "page_size = 1000\n"
                              "strict = OFF\n"
                              "log_level = warn\n";
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "ranges.ini", ini), STATUS_OK);
    CHECK_INT_EQ(cfg.workers, LIMIT_WORKERS_MAX);
    CHECK_INT_EQ(cfg.page_size, LIMIT_PAGE_MAX);
    CHECK_INT_EQ(cfg.strict, 0);
    CHECK_INT_EQ(cfg.log_level, LOG_WARNING);
    cfg_done(&cfg, &errs, path);

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "ranges.ini",
                          "[server]\nworkers = 1\npage_size = 1\nstrict = True\n"),
                 STATUS_OK);
    CHECK_INT_EQ(cfg.workers, 1);
    CHECK_INT_EQ(cfg.page_size, 1);
    CHECK_INT_EQ(cfg.strict, 1);
    cfg_done(&cfg, &errs, path);
}

/* isolate = process with its limits: parsed, compared by config_plugin_same, and the text
 * kept in a sealed copy for the children; without an isolated section there is no copy. */
static void test_isolate(void)
{
    static const char ini[] = "[plugin.a]\n"
                              "isolate = process\n"
                              "call_timeout_ms = 250\n"
                              "max_memory = 512M\n"
                              "max_cpu_s = 30\n"
                              "max_files = 128\n"
                              "max_procs = 12\n"
                              "[plugin.b]\n"
                              "isolate = no\n";
    struct config cfg, again;
    struct diag errs, errs2;
    char path[512], text[sizeof(ini)] = "";
    struct strbuf sb = STRBUF_INIT;
    struct config_plugin changed;

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "isolate.ini", ini), STATUS_OK);
    CHECK_INT_EQ(cfg.plugins[0].isolate.on, 1);
    CHECK_INT_EQ(cfg.plugins[0].isolate.call_timeout_ms, 250);
    CHECK(cfg.plugins[0].isolate.max_memory == 512LL << 20);
    CHECK_INT_EQ(cfg.plugins[0].isolate.max_cpu_s, 30);
    CHECK_INT_EQ(cfg.plugins[0].isolate.max_files, 128);
    CHECK_INT_EQ(cfg.plugins[0].isolate.max_procs, 12);
    CHECK_INT_EQ(cfg.plugins[1].isolate.on, 0);
    CHECK_INT_EQ(cfg.plugins[1].image_fd, -1);
    CHECK(cfg.text_fd >= 0);
    CHECK_INT_EQ(cfg.plugins[0].ini_fd, cfg.text_fd);
    CHECK(pread(cfg.text_fd, text, sizeof(text) - 1, 0) == (ssize_t)strlen(ini));
    CHECK_STR_EQ(text, ini);
    /* Sealed: the children read what the parent read. */
    CHECK(write(cfg.text_fd, "x", 1) < 0);
    /* The child reads the same text from the copy. */
    config_init(&again);
    diag_init(&errs2);
    CHECK_INT_EQ(config_load_fd(&again, path, cfg.text_fd, &errs2), STATUS_OK);
    CHECK_INT_EQ(again.nplugins, 2);
    CHECK(config_plugin_same(&cfg.plugins[0], &again.plugins[0]));
    changed = again.plugins[0];
    changed.isolate.max_files = 129;
    CHECK(!config_plugin_same(&cfg.plugins[0], &changed));
    changed.isolate = cfg.plugins[0].isolate;
    changed.isolate.on = 0;
    CHECK(!config_plugin_same(&cfg.plugins[0], &changed));
    config_release(&again);
    diag_release(&errs2);
    cfg_done(&cfg, &errs, path);

    /* call_timeout_ms without isolate = process: the loader's to judge, as a plugin may
     * declare it (config_shared_key); its value and line are kept for the plugin. */
    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "isolate.ini",
                          "[plugin.a]\nk = v\ncall_timeout_ms = 500\n[plugin.b]\n"),
                 STATUS_OK);
    CHECK_INT_EQ(errs.count, 0);
    CHECK_INT_EQ(cfg.plugins[0].isolate.on, 0);
    CHECK_INT_EQ(cfg.plugins[0].isolate.call_timeout_ms, 500);
    CHECK_INT_EQ(cfg.plugins[0].call_timeout_line, 3);
    CHECK_INT_EQ((int)cfg.plugins[0].nkeys, 1);
    CHECK_INT_EQ(config_shared_key_get(&cfg.plugins[0], "call_timeout_ms", &sb), 3);
    CHECK_STR_EQ(sb.buf, "500");
    strbuf_reset(&sb);
    CHECK_INT_EQ(config_shared_key_get(&cfg.plugins[1], "call_timeout_ms", &sb), 0);
    CHECK_INT_EQ(config_shared_key_get(&cfg.plugins[0], "max_cpu_s", &sb), 0);
    CHECK_INT_EQ((int)sb.len, 0);
    strbuf_release(&sb);
    CHECK_INT_EQ(cfg.text_fd, -1);
    cfg_done(&cfg, &errs, path);

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "isolate.ini",
                          "[plugin.a]\nmax_concurrent = 2\n[plugin.b]\nisolate = no\n"),
                 STATUS_OK);
    CHECK_INT_EQ(cfg.text_fd, -1);
    CHECK_INT_EQ(cfg.plugins[0].ini_fd, -1);
    cfg_done(&cfg, &errs, path);

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "isolate.ini",
                          "[plugin.a]\nisolate = process\nmax_memory = 16M\n"),
                 STATUS_OK);
    CHECK(cfg.plugins[0].isolate.max_memory == 16LL << 20);
    cfg_done(&cfg, &errs, path);
    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "isolate.ini",
                          "[plugin.a]\nisolate = process\nmax_memory = 1024G\n"),
                 STATUS_OK);
    CHECK(cfg.plugins[0].isolate.max_memory == 1024LL << 30);
    cfg_done(&cfg, &errs, path);
}

/* The child's view (mcph --isolated ID): its section alone, in process, without the prefix
 * and filters its parent applies, loaded from the passed image; strict, no watch. */
static void test_isolate_child(void)
{
    static const char ini[] = "[server]\nwatch = yes\n"
                              "[plugin.a]\nisolate = process\nprefix = pa\ntools = x*\nk = v\n"
                              "call_timeout_ms = 700\nread = /\n[plugin.b]\n";
    struct config cfg;
    struct diag errs;
    struct strbuf value = STRBUF_INIT;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "child.ini", ini), STATUS_OK);
    CHECK_INT_EQ(isolate_child_config(&cfg, "a", &errs), STATUS_OK);
    CHECK_INT_EQ(cfg.plugins[0].enabled, 1);
    CHECK_INT_EQ(cfg.plugins[0].isolate.on, 0);
    CHECK_INT_EQ(cfg.plugins[0].image_fd, ISOLATE_FD_IMAGE);
    CHECK(cfg.plugins[0].prefix == NULL);
    CHECK(cfg.plugins[0].filter[FILTER_TOOLS] == NULL);
    CHECK_INT_EQ((int)cfg.plugins[0].nkeys, 1);
    /* The call timeout is the parent's to enforce: the child's plugin is not handed it. */
    CHECK_INT_EQ(cfg.plugins[0].isolate.call_timeout_ms, 0);
    CHECK_INT_EQ(config_shared_key_get(&cfg.plugins[0], "call_timeout_ms", &value), 0);
    /* The parent confines the child: its plugin is not handed the rules. */
    CHECK_INT_EQ(cfg.plugins[0].confine.on, 0);
    CHECK_INT_EQ(config_shared_key_get(&cfg.plugins[0], "read", &value), 0);
    CHECK_INT_EQ(cfg.plugins[1].enabled, 0);
    CHECK_INT_EQ(cfg.strict, 1);
    CHECK_INT_EQ(cfg.watch, 0);
    CHECK_INT_EQ(cfg.text_fd, -1);
    cfg_done(&cfg, &errs, path);

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "child.ini", ini), STATUS_OK);
    CHECK_INT_EQ(isolate_child_config(&cfg, "c", &errs), STATUS_CONFIG);
    CHECK(errs.count == 1 && strstr(errs.msgs[0], "no [plugin.c] section") != NULL);
    cfg_done(&cfg, &errs, path);
    strbuf_release(&value);
}

static void test_plugin_sections(void)
{
    static const char ini[] = "[server]\n"                   /* 1 */
                              "name = s\n"                   /* 2 */
                              "\n"                           /* 3 */
                              "[plugin.alpha]\n"             /* 4 */
                              "\n"                           /* 5 */
                              "[plugin.beta]\n"              /* 6 */
                              "path = sub/beta-1.so\n"       /* 7 */
                              "enabled = no\n"               /* 8 */
                              "prefix = bb\n"                /* 9 */
                              "greeting = hello there\n"     /* 10 */
                              "count = 3\n"                  /* 11 */
                              "[plugin.gamma_2]\n"           /* 12 */
                              "path = /opt/mcph/gamma.so\n"; /* 13 */
    const struct config_plugin *pl;
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "plugins.ini", ini), STATUS_OK);
    CHECK_INT_EQ(errs.count, 0);
    if (!CHECK_INT_EQ(cfg.nplugins, 3))
        goto out;
    CHECK_STR_EQ(cfg.plugins[0].id, "alpha");
    CHECK_STR_EQ(cfg.plugins[1].id, "beta");
    CHECK_STR_EQ(cfg.plugins[2].id, "gamma_2");

    pl = config_find_plugin(&cfg, "alpha");
    if (CHECK(pl == &cfg.plugins[0])) {
        CHECK_INT_EQ(pl->line, 4);
        CHECK_STR_EQ(pl->path, "build/tests/tmp/config/alpha.so");
        CHECK_INT_EQ(pl->path_line, 4);
        CHECK_INT_EQ(pl->enabled, 1);
        CHECK(pl->prefix == NULL);
        CHECK_INT_EQ(pl->nkeys, 0);
    }
    pl = config_find_plugin(&cfg, "beta");
    if (CHECK(pl != NULL)) {
        CHECK_INT_EQ(pl->line, 6);
        CHECK_STR_EQ(pl->path, "build/tests/tmp/config/sub/beta-1.so");
        CHECK_INT_EQ(pl->path_line, 7);
        CHECK_INT_EQ(pl->enabled, 0);
        CHECK_STR_EQ(pl->prefix, "bb");
        if (CHECK_INT_EQ(pl->nkeys, 2)) {
            CHECK_STR_EQ(pl->keys[0].key, "greeting");
            CHECK_STR_EQ(pl->keys[0].value, "hello there");
            CHECK_INT_EQ(pl->keys[0].line, 10);
            CHECK_STR_EQ(pl->keys[1].key, "count");
            CHECK_STR_EQ(pl->keys[1].value, "3");
            CHECK_INT_EQ(pl->keys[1].line, 11);
        }
    }
    pl = config_find_plugin(&cfg, "gamma_2");
    if (CHECK(pl != NULL))
        CHECK_STR_EQ(pl->path, "/opt/mcph/gamma.so");
    CHECK(config_find_plugin(&cfg, "delta") == NULL);
    CHECK(config_find_plugin(&cfg, "alph") == NULL);
out:
    cfg_done(&cfg, &errs, path);
}

/* plugin_dir is relative to the INI's folder, and plugin paths are relative to it. */
static void test_plugin_dir_resolution(void)
{
    static const char ini[] = "[server]\n"
                              "plugin_dir = ../../plugins\n"
                              "[plugin.basic]\n"
                              "[plugin.other]\n"
                              "path = more/other.so\n";
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "dir.ini", ini), STATUS_OK);
    CHECK_STR_EQ(cfg.plugin_dir, "build/tests/tmp/config/../../plugins");
    if (CHECK_INT_EQ(cfg.nplugins, 2)) {
        CHECK_STR_EQ(cfg.plugins[0].path, "build/tests/tmp/config/../../plugins/basic.so");
        CHECK_STR_EQ(cfg.plugins[1].path, "build/tests/tmp/config/../../plugins/more/other.so");
    }
    cfg_done(&cfg, &errs, path);

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "dir.ini",
                          "[server]\nplugin_dir = /usr/lib/mcph\n[plugin.p]\n"),
                 STATUS_OK);
    CHECK_STR_EQ(cfg.plugin_dir, "/usr/lib/mcph");
    if (CHECK_INT_EQ(cfg.nplugins, 1))
        CHECK_STR_EQ(cfg.plugins[0].path, "/usr/lib/mcph/p.so");
    cfg_done(&cfg, &errs, path);
}

/* An INI without a folder in its path: relative paths start at ".". */
static void test_ini_in_current_folder(void)
{
    struct config cfg;
    struct diag errs;
    char path[512];
    char old[4096];

    if (cfg_write(path, sizeof(path), "here.ini", "[plugin.p]\n") != 0 ||
        !CHECK(getcwd(old, sizeof(old)) != NULL) || !CHECK(chdir(cfg_dir) == 0))
        return;
    config_init(&cfg);
    diag_init(&errs);
    CHECK_INT_EQ(config_load(&cfg, "here.ini", &errs), STATUS_OK);
    CHECK_STR_EQ(cfg.dir, ".");
    if (CHECK_INT_EQ(cfg.nplugins, 1))
        CHECK_STR_EQ(cfg.plugins[0].path, "./p.so");
    CHECK(chdir(old) == 0);
    cfg_done(&cfg, &errs, path);
}

/* [server] may come last: plugin_dir still applies to every plugin path before it. */
static void test_plugin_dir_after_sections(void)
{
    static const char ini[] = "[plugin.a]\n"
                              "[plugin.b]\n"
                              "path = sub/b.so\n"
                              "[server]\n"
                              "plugin_dir = pl\n";
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "late.ini", ini), STATUS_OK);
    if (CHECK_INT_EQ(cfg.nplugins, 2)) {
        CHECK_STR_EQ(cfg.plugins[0].path, "build/tests/tmp/config/pl/a.so");
        CHECK_STR_EQ(cfg.plugins[1].path, "build/tests/tmp/config/pl/sub/b.so");
    }
    cfg_done(&cfg, &errs, path);
}

static void test_comments(void)
{
    static const char ini[] = "; a comment line\n"
                              "# another comment line\n"
                              "[server] ; the server\n"
                              "name = srv ; the name\n"
                              "title = a;b\n"
                              "  ; an indented comment\n"
                              "[plugin.p] ; a plugin\n"
                              "greeting = hi ; said by greet\n";
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "comments.ini", ini), STATUS_OK);
    CHECK_INT_EQ(errs.count, 0);
    CHECK_STR_EQ(cfg.name, "srv");
    /* A ';' needs white space before it to start a comment. */
    CHECK_STR_EQ(cfg.title, "a;b");
    if (CHECK_INT_EQ(cfg.nplugins, 1) && CHECK_INT_EQ(cfg.plugins[0].nkeys, 1))
        CHECK_STR_EQ(cfg.plugins[0].keys[0].value, "hi");
    cfg_done(&cfg, &errs, path);
}

/* A ';' in quotes is the value's: "..." (with \" inside) and '...' opened at the start of a
 * word and closed on the line; a quote left open, or one inside a word, changes nothing. */
static void test_comments_in_quotes(void)
{
    static const char ini[] = "[server]\n"
                              "name = \"a ;b\" ; the comment\n"
                              "title = don't ;stop here\n"
                              "instructions = first \"x \\\" ;y\" ; gone\n"
                              "  second 'p ; q' ; gone too\n"
                              "[plugin.p]\n"
                              "commands = date \"now ; then\": /bin/date ; said \"x\"\n"
                              "open = \"never closed ; cut\n"
                              "eq =\"a ;b\"\n";
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "quotes.ini", ini), STATUS_OK);
    CHECK_INT_EQ(errs.count, 0);
    CHECK_STR_EQ(cfg.name, "\"a ;b\"");
    CHECK_STR_EQ(cfg.title, "don't");
    CHECK_STR_EQ(cfg.instructions, "first \"x \\\" ;y\"\nsecond 'p ; q'");
    if (CHECK_INT_EQ(cfg.nplugins, 1) && CHECK_INT_EQ(cfg.plugins[0].nkeys, 3)) {
        CHECK_STR_EQ(cfg.plugins[0].keys[0].value, "date \"now ; then\": /bin/date");
        CHECK_STR_EQ(cfg.plugins[0].keys[1].value, "\"never closed");
        CHECK_STR_EQ(cfg.plugins[0].keys[2].value, "\"a ;b\"");
    }
    cfg_done(&cfg, &errs, path);
}

static void test_crlf(void)
{
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "crlf.ini",
                          "[server]\r\nname = dos\r\nworkers = 2\r\n[plugin.p]\r\nk = v\r\n"),
                 STATUS_OK);
    CHECK_INT_EQ(errs.count, 0);
    CHECK_STR_EQ(cfg.name, "dos");
    CHECK_INT_EQ(cfg.workers, 2);
    if (CHECK_INT_EQ(cfg.nplugins, 1) && CHECK_INT_EQ(cfg.plugins[0].nkeys, 1))
        CHECK_STR_EQ(cfg.plugins[0].keys[0].value, "v");
    cfg_done(&cfg, &errs, path);
}

static void test_continuation(void)
{
    static const char ini[] = "[server]\n"
                              "instructions = First line.\n"
                              "  Second line.\n"
                              "\tThird line.\n"
                              "name = after\n";
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "multi.ini", ini), STATUS_OK);
    CHECK_INT_EQ(errs.count, 0);
    CHECK_STR_EQ(cfg.instructions, "First line.\nSecond line.\nThird line.");
    CHECK_STR_EQ(cfg.name, "after");
    cfg_done(&cfg, &errs, path);
}

static void test_continuation_elsewhere(void)
{
    static const char ini[] = "[server]\n"      /* 1 */
                              "name = a\n"      /* 2 */
                              "  b\n"           /* 3 */
                              "[plugin.q]\n"    /* 4 */
                              "prefix = p\n"    /* 5 */
                              "  more\n"        /* 6 */
                              "k = 1\n"         /* 7 */
                              "  2\n"           /* 8 */
                              "    3\n"         /* 9 */
                              "j = one line\n"; /* 10 */
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "cont.ini", ini), STATUS_CONFIG);
    CHECK(cfg_has_error(&errs, path, 3, "continues 'name'"));
    CHECK(cfg_has_error(&errs, path, 6, "continues 'prefix'"));
    CHECK_INT_EQ(errs.count, 2);
    CHECK_STR_EQ(cfg.name, "a");
    /* A plugin's own key is multi-line: its lines joined with "\n". */
    CHECK_INT_EQ(cfg.nplugins, 1);
    CHECK_INT_EQ(cfg.plugins[0].nkeys, 2);
    CHECK_STR_EQ(cfg.plugins[0].keys[0].key, "k");
    CHECK_STR_EQ(cfg.plugins[0].keys[0].value, "1\n2\n3");
    CHECK_INT_EQ(cfg.plugins[0].keys[0].line, 7);
    CHECK_STR_EQ(cfg.plugins[0].keys[1].value, "one line");
    cfg_done(&cfg, &errs, path);
}

/* A multi-line value stops at LIMIT_INI_VALUE bytes, said at the line that passes it. */
static void test_continuation_limit(void)
{
    size_t lines = LIMIT_INI_VALUE / 100 + 2, len = 0;
    char *ini = malloc(lines * 104 + 64);
    struct config cfg;
    struct diag errs;
    char path[512];
    char where[32];

    if (!CHECK(ini != NULL))
        return;
    len += (size_t)sprintf(ini, "[plugin.q]\nk = first\n");
    for (size_t i = 0; i < lines; i++) {
        memcpy(ini + len, "    ", 4);
        memset(ini + len + 4, 'x', 99);
        ini[len + 103] = '\n';
        len += 104;
    }
    ini[len] = '\0';
    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "long.ini", ini), STATUS_CONFIG);
    /* "first" (5) then lines of 1 + 99 bytes: line 2 + 656 is the first past 65536. */
    snprintf(where, sizeof(where), "'k' is longer than %d bytes", LIMIT_INI_VALUE);
    CHECK(cfg_has_error(&errs, path, 2 + (int)((LIMIT_INI_VALUE - 5) / 100) + 1, where));
    CHECK(cfg.nplugins == 1 && strlen(cfg.plugins[0].keys[0].value) <= LIMIT_INI_VALUE);
    cfg_done(&cfg, &errs, path);
    free(ini);
}

/* One INI with one error: the status, and a message "FILE:LINE: ..." containing `part`. */
static const struct {
    const char *what;
    const char *ini;
    int line;
    const char *part;
} cfg_errors[] = {
    {"unknown key", "[server]\nname = a\ncolour = red\n", 3, "unknown key 'colour'"},
    {"unknown section", "[server]\nname = a\n\n[servers]\nx = 1\n", 4, "unknown section [servers]"},
    {"duplicate key", "[server]\nname = a\ntitle = t\nname = b\n", 4, "'name' is set twice"},
    {"duplicate plugin key", "[plugin.p]\nk = 1\nj = 2\nk = 3\n", 4, "first on line 2"},
    {"duplicate path", "[plugin.p]\npath = a.so\npath = b.so\n", 3, "'path' is set twice"},
    {"duplicate server section", "[server]\nname = a\n[plugin.p]\n[server]\ntitle = t\n", 4,
     "[server] appears twice"},
    {"duplicate plugin section", "[plugin.p]\n[plugin.q]\nk = 1\n[plugin.p]\n", 4,
     "appears twice (first on line 1)"},
    {"bad bool", "[server]\nstrict = maybe\n", 2, "strict = 'maybe' is not valid"},
    {"bad enabled", "[plugin.p]\n\nenabled = perhaps\n", 3, "enabled = 'perhaps'"},
    {"bad number", "[server]\nworkers = many\n", 2, "workers = 'many' is not valid"},
    {"number with junk", "[server]\n\nworkers = 4x\n", 3, "workers = '4x'"},
    {"workers zero", "[server]\nworkers = 0\n", 2, "workers = '0'"},
    {"workers too many", "[server]\nworkers = 65\n", 2, "workers = '65'"},
    {"page_size too big", "[server]\npage_size = 1001\n", 2, "page_size = '1001'"},
    {"negative page_size", "[server]\npage_size = -5\n", 2, "page_size = '-5'"},
    {"bad log level", "[server]\nlog_level = loud\n", 2, "log_level = 'loud'"},
    {"key outside section", "name = x\n[server]\n", 1, "outside any section"},
    {"invalid plugin id", "[server]\n[plugin.bad id!]\nk = v\n", 2, "[plugin.bad id!]"},
    {"empty plugin id", "[plugin.]\n", 1, "the name must be"},
    {"bad prefix", "[plugin.p]\nprefix = a b\n", 2, "prefix = 'a b' is not valid"},
    /* Filters: each glob syntax mcph does not know, said with what to write instead. */
    {"filter brace", "[plugin.p]\ntools = read_* a{b\n", 2,
     "tools = 'read_* a{b' is not valid: '{' in 'a{b' is not glob syntax mcph knows (no brace "
     "lists); write one glob per name, or \\{ to match the character; use globs of tool names"},
    {"filter closing brace", "[plugin.p]\nk = v\nprompts = x}\n", 3,
     "prompts = 'x}' is not valid: '}' in 'x}' is not glob syntax mcph knows"},
    {"filter unclosed set", "[plugin.p]\nresources = file:///[ab\n", 2,
     "resources = 'file:///[ab' is not valid: the set opened by '[' in 'file:///[ab' is not "
     "closed; close it with ']', or write \\[ to match the character; use globs of resource "
     "URIs and URI templates"},
    {"filter empty set", "[plugin.p]\ntools = a[]\n", 2,
     "the set '[]' in 'a[]' holds no character; put characters in it, or write \\[\\] to "
     "match the brackets"},
    {"filter empty negated set", "[plugin.p]\nprompts = [!]\n", 2,
     "the set '[!]' in '[!]' holds no character"},
    {"filter trailing backslash", "[plugin.p]\ntools = a\\\n", 2,
     "tools = 'a\\' is not valid: 'a\\' ends with '\\', which escapes nothing; remove it, or "
     "write \\\\ to match a backslash"},
    {"filter empty exclusion", "[plugin.p]\ntools = read_* !\n", 2,
     "tools = 'read_* !' is not valid: a '!' alone excludes nothing; write the glob right after "
     "it (!*_write)"},
    {"filter caret set", "[plugin.p]\ntools = [^a]*\n", 2,
     "'[^' in '[^a]*' is not glob syntax mcph knows; write [!...] for a set that excludes"},
    {"filter class", "[plugin.p]\ntools = [[:alpha:]]*\n", 2,
     "'[' inside a set in '[[:alpha:]]*' is not glob syntax mcph knows (no [:class:])"},
    {"filter stray bracket", "[plugin.p]\nprompts = a]\n", 2,
     "']' in 'a]' closes no set; write \\] to match the character"},
    {"filter empty", "[plugin.p]\nresources =\n", 2,
     "resources = '' is not valid: it holds no glob; write at least one, !* to serve none, or "
     "remove the line"},
    {"filter twice", "[plugin.p]\ntools = a*\nk = v\ntools = b*\n", 4,
     "'tools' is set twice in [plugin.p] (first on line 2)"},
    {"filter continued", "[plugin.p]\ntools = a*\n    b*\n", 3,
     "indented line continues 'tools', which takes one line"},
    {"not a key", "[server]\nname = a\njust words\n", 3, "cannot parse this line"},
    /* isolate = process and the limits that only an isolated plugin can have. */
    {"bad isolate", "[plugin.p]\nisolate = thread\n", 2,
     "isolate = 'thread' is not valid; use process (the plugin runs in a child process of its "
     "own) or no"},
    {"timeout twice", "[plugin.p]\ncall_timeout_ms = 500\ncall_timeout_ms = 600\n", 3,
     "'call_timeout_ms' is set twice in [plugin.p] (first on line 2)"},
    {"timeout zero in process", "[plugin.p]\ncall_timeout_ms = 0\n", 2,
     "call_timeout_ms = '0' is not valid; use milliseconds from 1 to 86400000"},
    {"memory in process", "[plugin.p]\nisolate = no\nmax_memory = 1G\n", 3,
     "[plugin.p] max_memory applies to a plugin in a process of its own"},
    {"cpu in process", "[plugin.p]\nmax_cpu_s = 5\n", 2, "max_cpu_s applies to a plugin"},
    {"files in process", "[plugin.p]\nmax_files = 64\n", 2, "max_files applies to a plugin"},
    {"procs in process", "[plugin.p]\nmax_procs = 8\n", 2, "max_procs applies to a plugin"},
    {"procs too many", "[plugin.p]\nisolate = process\nmax_procs = 4097\n", 3,
     "max_procs = '4097' is not valid; use a number of processes from 1 to 4096"},
    {"timeout zero", "[plugin.p]\nisolate = process\ncall_timeout_ms = 0\n", 3,
     "call_timeout_ms = '0' is not valid; use milliseconds from 1 to 86400000"},
    {"memory unit", "[plugin.p]\nisolate = process\nmax_memory = 64MB\n", 3,
     "max_memory = '64MB' is not valid; use bytes from 16M to 1024G, with K, M or G"},
    {"memory too small", "[plugin.p]\nisolate = process\nmax_memory = 15M\n", 3,
     "max_memory = '15M'"},
    {"memory too big", "[plugin.p]\nisolate = process\nmax_memory = 1025G\n", 3,
     "max_memory = '1025G'"},
    {"memory overflow", "[plugin.p]\nisolate = process\nmax_memory = 99999999999999999999\n", 3,
     "max_memory = '99999999999999999999'"},
    {"memory negative", "[plugin.p]\nisolate = process\nmax_memory = -1G\n", 3,
     "max_memory = '-1G'"},
    {"files too few", "[plugin.p]\nisolate = process\nmax_files = 15\n", 3,
     "max_files = '15' is not valid; use a number of open files from 16 to 1048576"},
    {"cpu too long", "[plugin.p]\nisolate = process\nmax_cpu_s = 86401\n", 3,
     "max_cpu_s = '86401'"},
    {0},
};

static void test_errors(void)
{
    for (size_t i = 0; cfg_errors[i].what != NULL; i++) {
        struct config cfg;
        struct diag errs;
        char path[512];
        int status = cfg_load(&cfg, &errs, path, sizeof(path), "error.ini", cfg_errors[i].ini);
        int ok = CHECK_INT_EQ(status, STATUS_CONFIG);

        ok &= CHECK(cfg_has_error(&errs, path, cfg_errors[i].line, cfg_errors[i].part));
        if (!ok)
            fprintf(stderr, "    case: %s\n", cfg_errors[i].what);
        cfg_done(&cfg, &errs, path);
    }
}

/* A section header repeated right after its own keys is a duplicate section too. */
static void test_errors_adjacent_duplicate_sections(void)
{
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "adjacent.ini",
                          "[server]\nname = a\n[server]\ntitle = t\n"),
                 STATUS_CONFIG);
    CHECK(cfg_has_error(&errs, path, 3, "[server] appears twice"));
    cfg_done(&cfg, &errs, path);

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "adjacent.ini",
                          "[plugin.p]\nk = 1\n[plugin.p]\nj = 2\n"),
                 STATUS_CONFIG);
    CHECK(cfg_has_error(&errs, path, 3, "appears twice"));
    cfg_done(&cfg, &errs, path);
}

/* enabled and prefix are keys like the others: set twice is an error, as it is for path. */
static void test_errors_duplicate_enabled_prefix(void)
{
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "twice.ini",
                          "[plugin.p]\nenabled = yes\nenabled = no\n"),
                 STATUS_CONFIG);
    CHECK(cfg_has_error(&errs, path, 3, "twice"));
    cfg_done(&cfg, &errs, path);

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "twice.ini",
                          "[plugin.p]\nprefix = a\nk = v\nprefix = b\n"),
                 STATUS_CONFIG);
    CHECK(cfg_has_error(&errs, path, 4, "twice"));
    cfg_done(&cfg, &errs, path);
}

/* Several errors in one file: each reported with its own line. */
static void test_errors_all_reported(void)
{
    static const char ini[] = "orphan = 1\n"          /* 1 */
                              "[server]\n"            /* 2 */
                              "workers = none\n"      /* 3 */
                              "bogus = 1\n"           /* 4 */
                              "[plugin.ok]\n"         /* 5 */
                              "enabled = sometimes\n" /* 6 */
                              "[nonsense]\n";         /* 7 */
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "many.ini", ini), STATUS_CONFIG);
    CHECK(cfg_has_error(&errs, path, 1, "orphan"));
    CHECK(cfg_has_error(&errs, path, 3, "workers"));
    CHECK(cfg_has_error(&errs, path, 4, "bogus"));
    CHECK(cfg_has_error(&errs, path, 6, "enabled"));
    CHECK(cfg_has_error(&errs, path, 7, "nonsense"));
    CHECK_INT_EQ(errs.count, 5);
    /* What was understood is still there. */
    CHECK_INT_EQ(cfg.nplugins, 1);
    cfg_done(&cfg, &errs, path);
}

/* A line of LIMIT_INI_LINE bytes is fine; one byte more is an error on that line. */
static void test_line_length(void)
{
    char ini[1024];
    char title[512];
    struct config cfg;
    struct diag errs;
    char path[512];
    size_t pad = LIMIT_INI_LINE - strlen("title = ");

    memset(title, 't', pad);
    title[pad] = '\0';
    snprintf(ini, sizeof(ini), "[server]\nname = a\ntitle = %s\n", title);
    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "line.ini", ini), STATUS_OK);
    CHECK_INT_EQ(errs.count, 0);
    CHECK_INT_EQ(cfg.title ? strlen(cfg.title) : 0, pad);
    cfg_done(&cfg, &errs, path);

    /* CRLF does not count against the limit. */
    snprintf(ini, sizeof(ini), "[server]\r\nname = a\r\ntitle = %s\r\n", title);
    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "line.ini", ini), STATUS_OK);
    cfg_done(&cfg, &errs, path);

    title[pad] = 'T';
    title[pad + 1] = '\0';
    snprintf(ini, sizeof(ini), "[server]\nname = a\ntitle = %s\nworkers = 2\n", title);
    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "line.ini", ini), STATUS_CONFIG);
    CHECK(cfg_has_error(&errs, path, 3, "longer than 199 bytes"));
    /* The lines after it still count. */
    CHECK_INT_EQ(cfg.workers, 2);
    cfg_done(&cfg, &errs, path);
}

static void test_plugin_id_length(void)
{
    char ini[256];
    char id[80];
    struct config cfg;
    struct diag errs;
    char path[512];

    memset(id, 'i', LIMIT_ID);
    id[LIMIT_ID] = '\0';
    snprintf(ini, sizeof(ini), "[plugin.%s]\n", id);
    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "id.ini", ini), STATUS_OK);
    CHECK_INT_EQ(cfg.nplugins, 1);
    cfg_done(&cfg, &errs, path);

    id[LIMIT_ID] = 'i';
    id[LIMIT_ID + 1] = '\0';
    snprintf(ini, sizeof(ini), "[server]\n[plugin.%s]\n", id);
    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "id.ini", ini), STATUS_CONFIG);
    CHECK(cfg_has_error(&errs, path, 2, "the name must be"));
    CHECK_INT_EQ(cfg.nplugins, 0);
    cfg_done(&cfg, &errs, path);
}

static void test_missing_file(void)
{
    struct config cfg;
    struct diag errs;

    config_init(&cfg);
    diag_init(&errs);
    CHECK_INT_EQ(config_load(&cfg, "build/tests/tmp/config/no-such.ini", &errs), STATUS_IO);
    if (CHECK_INT_EQ(errs.count, 1))
        CHECK_STR_HAS(errs.msgs[0], "build/tests/tmp/config/no-such.ini");
    config_release(&cfg);
    diag_release(&errs);
}

/* The filters are kept as written, with their lines; a section without them has none. */
static void test_filters(void)
{
    static const char ini[] = "[plugin.a]\n"                        /* 1 */
                              "tools = read_* list_* !*_write\n"    /* 2 */
                              "own = 1\n"                           /* 3 */
                              "resources = file:///srv/* \\{x\\}\n" /* 4 */
                              "prompts = !*\n"                      /* 5 */
                              "[plugin.b]\n";                       /* 6 */
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "filters.ini", ini), STATUS_OK);
    CHECK_INT_EQ(errs.count, 0);
    if (CHECK_INT_EQ(cfg.nplugins, 2)) {
        const struct config_plugin *a = &cfg.plugins[0], *b = &cfg.plugins[1];

        CHECK_STR_EQ(a->filter[FILTER_TOOLS], "read_* list_* !*_write");
        CHECK_INT_EQ(a->filter_line[FILTER_TOOLS], 2);
        CHECK_STR_EQ(a->filter[FILTER_RESOURCES], "file:///srv/* \\{x\\}");
        CHECK_INT_EQ(a->filter_line[FILTER_RESOURCES], 4);
        CHECK_STR_EQ(a->filter[FILTER_PROMPTS], "!*");
        CHECK_INT_EQ(a->filter_line[FILTER_PROMPTS], 5);
        /* Not the plugin's own keys. */
        if (CHECK_INT_EQ(a->nkeys, 1))
            CHECK_STR_EQ(a->keys[0].key, "own");
        for (int i = 0; i < FILTER_KEYS; i++)
            CHECK(b->filter[i] == NULL && b->filter_line[i] == 0);
    }
    cfg_done(&cfg, &errs, path);
}

/* config_plugin_same over two files: same settings in another order, then one change. */
static void test_plugin_same(void)
{
    static const char base[] = "[plugin.p]\npath = x.so\nprefix = pp\na = 1\nb = 2\n";
    static const char *const others[] = {
        "[plugin.p]\nb = 2\nprefix = pp\na = 1\npath = x.so\n", /* the same, reordered */
        "[plugin.p]\npath = x.so\nprefix = pp\na = 1\nb = 3\n", /* a value differs */
        "[plugin.p]\npath = x.so\nprefix = pp\na = 1\n",        /* a key fewer */
        "[plugin.p]\npath = x.so\nprefix = pp\na = 1\nc = 2\n", /* another key */
        "[plugin.p]\npath = y.so\nprefix = pp\na = 1\nb = 2\n", /* another path */
        "[plugin.p]\npath = x.so\na = 1\nb = 2\n",              /* no prefix */
        "[plugin.p]\npath = x.so\nprefix = qq\na = 1\nb = 2\n", /* another prefix */
        "[plugin.p]\npath = x.so\nprefix = pp\na = 1\nb = 2\nenabled = no\n",
        "[plugin.p]\npath = x.so\nprefix = pp\na = 1\nb = 2\ntools = *\n", /* a filter */
        "[plugin.p]\npath = x.so\nprefix = pp\na = 1\nb = 2\nresources = *\n",
        "[plugin.p]\npath = x.so\nprefix = pp\na = 1\nb = 2\nprompts = *\n",
        NULL,
    };
    struct config ca, cb;
    struct diag ea, eb;
    char pa[512], pb[512];

    CHECK_INT_EQ(cfg_load(&ca, &ea, pa, sizeof(pa), "same-a.ini", base), STATUS_OK);
    for (size_t i = 0; others[i] != NULL; i++) {
        CHECK_INT_EQ(cfg_load(&cb, &eb, pb, sizeof(pb), "same-b.ini", others[i]), STATUS_OK);
        if (CHECK_INT_EQ(ca.nplugins, 1) && CHECK_INT_EQ(cb.nplugins, 1)) {
            int want = i == 0;

            if (!CHECK_INT_EQ(config_plugin_same(&ca.plugins[0], &cb.plugins[0]), want) ||
                !CHECK_INT_EQ(config_plugin_same(&cb.plugins[0], &ca.plugins[0]), want))
                fprintf(stderr, "    other INI: %s\n", others[i]);
        }
        cfg_done(&cb, &eb, pb);
    }
    if (ca.nplugins == 1)
        CHECK_INT_EQ(config_plugin_same(&ca.plugins[0], &ca.plugins[0]), 1);
    cfg_done(&ca, &ea, pa);
}

/* Filters take part in config_plugin_same: the same ones in another order are the same
 * section; another glob, or the same globs under another key, are not. */
static void test_plugin_same_filters(void)
{
    static const char base[] = "[plugin.p]\ntools = a* !ab\nprompts = x\nk = v\n";
    static const struct {
        const char *ini;
        int same;
    } others[] = {
        {"[plugin.p]\nk = v\nprompts = x\ntools = a* !ab\n", 1},
        {"[plugin.p]\ntools = a* !ac\nprompts = x\nk = v\n", 0},
        {"[plugin.p]\ntools = a*\nprompts = x\nk = v\n", 0},
        {"[plugin.p]\ntools = a* !ab\nresources = x\nk = v\n", 0},
        {"[plugin.p]\ntools = a* !ab\nk = v\n", 0},
        {"[plugin.p]\ntools = a* !ab\nprompts = x\nresources = *\nk = v\n", 0},
    };
    struct config ca, cb;
    struct diag ea, eb;
    char pa[512], pb[512];

    CHECK_INT_EQ(cfg_load(&ca, &ea, pa, sizeof(pa), "samef-a.ini", base), STATUS_OK);
    for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
        CHECK_INT_EQ(cfg_load(&cb, &eb, pb, sizeof(pb), "samef-b.ini", others[i].ini), STATUS_OK);
        if (CHECK_INT_EQ(ca.nplugins, 1) && CHECK_INT_EQ(cb.nplugins, 1) &&
            (!CHECK_INT_EQ(config_plugin_same(&ca.plugins[0], &cb.plugins[0]), others[i].same) ||
             !CHECK_INT_EQ(config_plugin_same(&cb.plugins[0], &ca.plugins[0]), others[i].same)))
            fprintf(stderr, "    other INI: %s\n", others[i].ini);
        cfg_done(&cb, &eb, pb);
    }
    cfg_done(&ca, &ea, pa);
}

static void test_release_reinit(void)
{
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "rel.ini",
                          "[server]\nworkers = 9\n[plugin.p]\nk = v\n"),
                 STATUS_OK);
    config_release(&cfg);
    CHECK(cfg.file == NULL && cfg.plugins == NULL && cfg.name == NULL);
    CHECK_INT_EQ(cfg.nplugins, 0);
    CHECK_INT_EQ(cfg.workers, LIMIT_WORKERS_DEFAULT);
    config_release(NULL);
    cfg_done(&cfg, &errs, path);
}

/* The keys mcph owns: each name is one (and the reserved cache_ prefix), a plugin's key is
 * not, the list for messages names every one of them, and plugin-api.h, where plugin authors
 * read them, names the same list. */
static void test_core_keys(void)
{
    static const char *const own[] = {"path",
                                      "enabled",
                                      "prefix",
                                      "cache_ttl_ms",
                                      "cache_scope",
                                      "max_concurrent",
                                      "tools",
                                      "resources",
                                      "prompts",
                                      "isolate",
                                      "call_timeout_ms",
                                      "max_memory",
                                      "max_cpu_s",
                                      "max_files",
                                      "max_procs",
                                      "confine",
                                      "read",
                                      "write",
                                      "exec",
                                      "network",
                                      NULL};
    struct strbuf list = STRBUF_INIT;
    const char *names;
    char *header = NULL;
    size_t len = 0;
    FILE *f = fopen("plugin-api/plugin-api.h", "r");
    char wanted[256];

    config_core_key_names(&list);
    names = list.buf;
    for (size_t i = 0; own[i] != NULL; i++) {
        CHECK(config_core_key(own[i]));
        CHECK(strstr(names, own[i]) != NULL);
    }
    /* The core keys a plugin may declare too: the call timeout and the confinement's. */
    for (size_t i = 0; own[i] != NULL; i++)
        CHECK_INT_EQ(config_shared_key(own[i]),
                     strstr(" call_timeout_ms confine read write exec network ", own[i]) != NULL);
    CHECK(!config_shared_key("root"));
    CHECK(config_core_key("cache_later"));
    CHECK(!config_core_key("root"));
    CHECK(!config_core_key("paths"));
    CHECK(!config_core_key(""));
    if (!CHECK(f != NULL)) {
        strbuf_release(&list);
        return;
    }
    CHECK(getdelim(&header, &len, '\0', f) > 0);
    fclose(f);
    snprintf(wanted, sizeof(wanted), "(%s; mcph.ini(5))", names);
    /* The comment may wrap: compare with the header's whitespace folded to one space. */
    if (header != NULL) {
        char *w = header;

        for (const char *r = header; *r != '\0'; r++) {
            if (*r == '\n' || *r == '*' || (*r == ' ' && w > header && w[-1] == ' '))
                continue;
            *w++ = *r;
        }
        *w = '\0';
    }
    CHECK(header != NULL && strstr(header, wanted) != NULL);
    free(header);
    strbuf_release(&list);
}

/* The HTTP keys: values kept (paths resolved against the INI's folder), defaults, and each
 * bad value an error naming its line; listen's forms split as the transport needs. */
static void test_http_keys(void)
{
    struct config cfg;
    struct diag errs;
    char path[512], host[64];
    int port = -1;

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "http.ini",
                          "[server]\nlisten = 127.0.0.1:8808\nhttp_path = /x/mcp\n"
                          "allowed_hosts = a.example b.example\nauth_token_file = tokens\n"
                          "state_key_file = /etc/key\nsession_route = r1\nmax_sessions = 3\n"
                          "session_idle_s = 2\nmax_connections = 9\nhttp_timeout_s = 4\n"),
                 STATUS_OK);
    CHECK_INT_EQ(errs.count, 0);
    CHECK_STR_EQ(cfg.listen, "127.0.0.1:8808");
    CHECK_STR_EQ(cfg.http_path, "/x/mcp");
    CHECK_STR_EQ(cfg.allowed_hosts, "a.example b.example");
    CHECK_STR_EQ(cfg.auth_token_file, "build/tests/tmp/config/tokens");
    CHECK_STR_EQ(cfg.state_key_file, "/etc/key");
    CHECK_STR_EQ(cfg.session_route, "r1");
    CHECK_INT_EQ(cfg.max_sessions, 3);
    CHECK_INT_EQ(cfg.session_idle_s, 2);
    CHECK_INT_EQ(cfg.max_connections, 9);
    CHECK_INT_EQ(cfg.http_timeout_s, 4);
    cfg_done(&cfg, &errs, path);
    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "http.ini", "[server]\n"), STATUS_OK);
    CHECK(cfg.listen == NULL);
    CHECK_INT_EQ(cfg.max_sessions, LIMIT_HTTP_SESSIONS_DEFAULT);
    CHECK_INT_EQ(cfg.http_timeout_s, LIMIT_HTTP_TIMEOUT_S);
    cfg_done(&cfg, &errs, path);
    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "http.ini",
                          "[server]\nlisten = 8808\nhttp_path = mcp\nsession_route = r-1\n"
                          "max_sessions = 0\nhttp_timeout_s = 99999\n"),
                 STATUS_CONFIG);
    CHECK(cfg_has_error(&errs, path, 2, "[server] listen = '8808' is not valid; use HOST:PORT"));
    CHECK(cfg_has_error(&errs, path, 3, "http_path"));
    CHECK(cfg_has_error(&errs, path, 4, "session_route"));
    CHECK(cfg_has_error(&errs, path, 5, "max_sessions"));
    CHECK(cfg_has_error(&errs, path, 6, "http_timeout_s"));
    cfg_done(&cfg, &errs, path);
    CHECK_INT_EQ(config_listen_split("[::1]:0", host, sizeof(host), &port), STATUS_OK);
    CHECK_STR_EQ(host, "::1");
    CHECK_INT_EQ(port, 0);
    CHECK_INT_EQ(config_listen_split("localhost:65535", host, sizeof(host), &port), STATUS_OK);
    CHECK_STR_EQ(host, "localhost");
    CHECK_INT_EQ(port, 65535);
    CHECK_INT_EQ(config_listen_split("::1:80", NULL, 0, NULL), STATUS_INVALID);
    CHECK_INT_EQ(config_listen_split("127.0.0.1:65536", NULL, 0, NULL), STATUS_INVALID);
    CHECK_INT_EQ(config_listen_split("127.0.0.1:-1", NULL, 0, NULL), STATUS_INVALID);
    CHECK_INT_EQ(config_listen_split(":80", NULL, 0, NULL), STATUS_INVALID);
    CHECK_INT_EQ(config_listen_split("[::1:80", NULL, 0, NULL), STATUS_INVALID);
}

/* A section's copy is its own (an instance keeps one for its life) and configures the plugin
 * exactly as the section does; the config can go while the copy stays. */
static void test_plugin_copy(void)
{
    struct config cfg;
    struct diag errs;
    struct config_plugin copy;
    char path[512];

    if (!CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "copy.ini",
                               "[plugin.a]\npath = a.so\nprefix = pa\ntools = x* !xy\n"
                               "cache_ttl_ms = 5\nroot = /srv\nmode = fast\n"),
                      STATUS_OK))
        return;
    CHECK_INT_EQ(config_plugin_copy(&copy, &cfg.plugins[0]), STATUS_OK);
    CHECK(config_plugin_same(&copy, &cfg.plugins[0]));
    CHECK(copy.path != cfg.plugins[0].path && copy.keys != cfg.plugins[0].keys);
    CHECK(copy.filter[FILTER_TOOLS] != cfg.plugins[0].filter[FILTER_TOOLS]);
    CHECK_INT_EQ(copy.prefix_line, cfg.plugins[0].prefix_line);
    cfg_done(&cfg, &errs, path);
    CHECK_STR_EQ(copy.id, "a");
    CHECK_STR_EQ(copy.prefix, "pa");
    CHECK_STR_EQ(copy.filter[FILTER_TOOLS], "x* !xy");
    CHECK_INT_EQ(copy.cache_ttl_ms, 5);
    CHECK_INT_EQ(copy.nkeys, 2);
    CHECK_STR_EQ(copy.keys[1].key, "mode");
    CHECK_STR_EQ(copy.keys[1].value, "fast");
    config_plugin_release(&copy);
    config_plugin_release(NULL);
}

/* The confinement keys: paths resolved against the INI's folder and kept quoted, confine on
 * when a rule is set, shared with a plugin that declares them, compared by a reload. */
static void test_confine(void)
{
    struct config cfg;
    struct config_plugin other;
    struct diag errs;
    struct strbuf sb = STRBUF_INIT;
    char path[512], want[700];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "confine.ini",
                          "[plugin.a]\nisolate = process\nread = /usr 'my data' sub/x\n"
                          "write = \"/tmp/a \\\"b\"\n[plugin.b]\nnetwork = yes\n[plugin.c]\n"
                          "confine = yes\n[plugin.d]\n"),
                 STATUS_OK);
    CHECK_INT_EQ(errs.count, 0);
    snprintf(want, sizeof(want), "\"/usr\" \"%s/my data\" \"%s/sub/x\"", cfg_dir, cfg_dir);
    CHECK_STR_EQ(cfg.plugins[0].confine.read, want);
    CHECK_STR_EQ(cfg.plugins[0].confine.write, "\"/tmp/a \\\"b\"");
    CHECK(cfg.plugins[0].confine.exec == NULL);
    CHECK_INT_EQ(cfg.plugins[0].confine.on, 1);
    CHECK_INT_EQ(cfg.plugins[0].confine.network, 0);
    CHECK_INT_EQ(cfg.plugins[1].confine.on, 1);
    CHECK_INT_EQ(cfg.plugins[1].confine.network, 1);
    CHECK_INT_EQ(cfg.plugins[2].confine.on, 1);
    CHECK_INT_EQ(cfg.plugins[3].confine.on, 0);
    CHECK_INT_EQ(config_shared_key_get(&cfg.plugins[0], "read", &sb), 3);
    CHECK_STR_EQ(sb.buf, want);
    strbuf_reset(&sb);
    CHECK_INT_EQ(config_shared_key_get(&cfg.plugins[1], "network", &sb), 6);
    CHECK_STR_EQ(sb.buf, "yes");
    strbuf_reset(&sb);
    CHECK_INT_EQ(config_shared_key_get(&cfg.plugins[2], "confine", &sb), 8);
    CHECK_STR_EQ(sb.buf, "yes");
    strbuf_release(&sb);
    CHECK_INT_EQ(config_plugin_copy(&other, &cfg.plugins[0]), STATUS_OK);
    CHECK_INT_EQ(config_plugin_same(&other, &cfg.plugins[0]), 1);
    free(other.confine.write);
    other.confine.write = strdup("\"/tmp\"");
    CHECK_INT_EQ(config_plugin_same(&other, &cfg.plugins[0]), 0);
    config_plugin_release(&other);
    CHECK_INT_EQ(config_plugin_same(&cfg.plugins[1], &cfg.plugins[2]), 0);
    cfg_done(&cfg, &errs, path);
}

static void test_confine_errors(void)
{
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "confine-bad.ini",
                          "[plugin.a]\nconfine = no\nread = /usr\nnetwork = maybe\n"
                          "exec = 'open\nwrite =\n"),
                 STATUS_CONFIG);
    CHECK(cfg_has_error(&errs, path, 3, "'confine = no' (line 2) says not to"));
    CHECK(cfg_has_error(&errs, path, 4, "no (the process may open no socket"));
    CHECK(cfg_has_error(&errs, path, 5, "quote is not closed"));
    CHECK(cfg_has_error(&errs, path, 6, "relative to the INI file's folder"));
    cfg_done(&cfg, &errs, path);

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "confine-mcp.ini",
                          "[plugin.gw]\npath = ../x/mcp.so\nisolate = process\nnetwork = no\n"
                          "[plugin.mcp]\nisolate = process\nconfine = yes\n"
                          "[plugin.ok]\npath = mcp.so\nnetwork = no\n"
                          "[plugin.iso]\npath = exec.so\nisolate = process\nnetwork = no\n"),
                 STATUS_CONFIG);
    CHECK_INT_EQ((int)errs.count, 2);
    CHECK(cfg_has_error(&errs, path, 3, "remove 'isolate = process'"));
    CHECK(cfg_has_error(&errs, path, 6, "an mcp section's server runs in a process of its own"));
    cfg_done(&cfg, &errs, path);
}

/* The edge's sections and keys: what is read, and every mistake named at its line. */
static void test_edge(void)
{
    struct config cfg;
    struct diag errs;
    char path[512];

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "edge.ini",
                          "[server]\nauth_token_file = tokens\n"
                          "oauth_issuer = https://id.example.com\n"
                          "oauth_resource = https://mcp.example.com/mcp\n"
                          "oauth_jwks_url = https://id.example.com/jwks\n"
                          "oauth_scopes = mcp:tools\nrate = 120/min\n"
                          "metrics_path = /metrics\nmetrics_listen = 127.0.0.1:9100\n"
                          "[access.readers]\nscopes = mcp:read\nclaims = groups=ops team=a\n"
                          "tools = get_* !get_secret\n"
                          "[access.admins]\ntokens = 1 2\ntools = *\nresources = *\n"
                          "[limit.slow]\ntools = slow_*\nrate = 2/s\nburst = 4\nper = server\n"),
                 STATUS_OK);
    CHECK_INT_EQ((int)cfg.naccess, 2);
    CHECK_STR_EQ(cfg.access[0].id, "readers");
    CHECK_STR_EQ(cfg.access[0].scopes, "mcp:read");
    CHECK_STR_EQ(cfg.access[0].claims, "groups=ops team=a");
    CHECK_STR_EQ(cfg.access[0].filter[FILTER_TOOLS], "get_* !get_secret");
    CHECK(cfg.access[0].filter[FILTER_RESOURCES] == NULL);
    CHECK_STR_EQ(cfg.access[1].tokens, "1 2");
    CHECK_INT_EQ((int)cfg.nlimits, 1);
    CHECK_INT_EQ(cfg.limits[0].per_principal, 0);
    CHECK_INT_EQ(cfg.limits[0].burst, 4);
    CHECK_INT_EQ(cfg.oauth_leeway_s, 60);
    cfg_done(&cfg, &errs, path);

    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "edge-bad.ini",
                          "[server]\noauth_issuer = http://id.example.com\n"
                          "metrics_path = /metrics\nrate = 5/week\n"
                          "[access.a]\ntools = *\n"
                          "[access.b]\nscopes = x\nclaims = nope\ncolour = red\n"
                          "[access.b]\n"
                          "[limit.l]\ntools = a{b\n"
                          "[access.c]\ntokens = 1\n"),
                 STATUS_CONFIG);
    CHECK(cfg_has_error(&errs, path, 2, "https:// (http:// only on loopback)"));
    CHECK(cfg_has_error(&errs, path, 4, "N/s, N/min or N/h"));
    CHECK(cfg_has_error(&errs, path, 5, "says what it shows but not to whom"));
    CHECK(cfg_has_error(&errs, path, 5, "serve them on a listener of their own"));
    CHECK(cfg_has_error(&errs, path, 8, "come from OAuth access tokens"));
    CHECK(cfg_has_error(&errs, path, 9, "'nope' is not NAME=VALUE"));
    CHECK(cfg_has_error(&errs, path, 10, "unknown key 'colour' in [access.b]"));
    CHECK(cfg_has_error(&errs, path, 11, "[access.b] appears twice (first on line 7)"));
    CHECK(cfg_has_error(&errs, path, 12, "[limit.l] has no rate"));
    CHECK(cfg_has_error(&errs, path, 13, "is not glob syntax"));
    CHECK(cfg_has_error(&errs, path, 15,
                        "[access.c] tokens names tokens of [server] auth_token_file"));
    cfg_done(&cfg, &errs, path);

    /* OAuth keys that need each other. */
    CHECK_INT_EQ(cfg_load(&cfg, &errs, path, sizeof(path), "edge-oauth.ini",
                          "[server]\noauth_resource = https://mcp.example.com/mcp\n"),
                 STATUS_CONFIG);
    CHECK_INT_EQ((int)errs.count, 2);
    CHECK(errs.count == 2 && strstr(errs.msgs[0], "set both") != NULL &&
          strstr(errs.msgs[1], "set one of oauth_jwks_file and oauth_jwks_url") != NULL);
    cfg_done(&cfg, &errs, path);
}

static const struct check_test tests[] = {
    {"edge", test_edge},
    {"http_keys", test_http_keys},
    {"core_keys", test_core_keys},
    {"defaults", test_defaults},
    {"server_keys", test_server_keys},
    {"value_ranges", test_value_ranges},
    {"plugin_sections", test_plugin_sections},
    {"isolate", test_isolate},
    {"isolate_child", test_isolate_child},
    {"plugin_dir_resolution", test_plugin_dir_resolution},
    {"ini_in_current_folder", test_ini_in_current_folder},
    {"plugin_dir_after_sections", test_plugin_dir_after_sections},
    {"comments", test_comments},
    {"comments_in_quotes", test_comments_in_quotes},
    {"crlf", test_crlf},
    {"continuation", test_continuation},
    {"continuation_elsewhere", test_continuation_elsewhere},
    {"continuation_limit", test_continuation_limit},
    {"errors", test_errors},
    {"errors_adjacent_duplicate_sections", test_errors_adjacent_duplicate_sections},
    {"errors_duplicate_enabled_prefix", test_errors_duplicate_enabled_prefix},
    {"errors_all_reported", test_errors_all_reported},
    {"line_length", test_line_length},
    {"plugin_id_length", test_plugin_id_length},
    {"missing_file", test_missing_file},
    {"plugin_same", test_plugin_same},
    {"plugin_same_filters", test_plugin_same_filters},
    {"plugin_copy", test_plugin_copy},
    {"filters", test_filters},
    {"release_reinit", test_release_reinit},
    {"confine", test_confine},
    {"confine_errors", test_confine_errors},
    {0},
};

int main(void)
{
    return check_main("test_config", tests);
}
