/*
 * test_reload.c: the reload planner. It is pure (no file, no plugin is touched), so the
 * instances in service are plain structs here and "the .so changed on disk" is an input.
 */
#include "check.h"

#include "config/config.h"
#include "host/plugin.h"
#include "served/reload.h"
#include "lib/status.h"

#include <stdlib.h>
#include <string.h>

/* An instance in service as the planner sees it: id, path, prefix and own keys. */
static struct plugin *fake_plugin(const char *id, const char *path, const char *prefix,
                                  const char *key, const char *value)
{
    struct plugin *pl = calloc(1, sizeof(*pl));

    pl->id = strdup(id);
    pl->section.id = strdup(id);
    pl->section.path = strdup(path);
    pl->section.enabled = 1;
    pl->section.cache_ttl_ms = -1; /* as a section that sets no cache keys */
    pl->section.cache_public = -1;
    pl->section.prefix = prefix ? strdup(prefix) : NULL;
    if (key != NULL) {
        pl->section.keys = calloc(1, sizeof(*pl->section.keys));
        pl->section.keys[0].key = strdup(key);
        pl->section.keys[0].value = strdup(value);
        pl->section.nkeys = 1;
    }
    return pl;
}

static void fake_free(struct plugin *pl)
{
    config_plugin_release(&pl->section);
    free(pl->id);
    free(pl);
}

/* A config parsed from text, written to a scratch INI. */
static int load_ini(struct config *cfg, const char *text)
{
    char dir[256], path[300];
    struct diag errs;
    FILE *f;
    int status;

    if (check_tmp(dir, sizeof(dir), "reload") == NULL)
        return STATUS_IO;
    snprintf(path, sizeof(path), "%s/plan.ini", dir);
    f = fopen(path, "w");
    if (f == NULL)
        return STATUS_IO;
    fputs(text, f);
    fclose(f);
    config_init(cfg);
    diag_init(&errs);
    status = config_load(cfg, path, &errs);
    diag_release(&errs);
    return status;
}

static const struct reload_step *step_of(const struct reload_plan *plan, const char *id)
{
    for (size_t i = 0; i < plan->nsteps; i++) {
        if (strcmp(plan->steps[i].section->id, id) == 0)
            return &plan->steps[i];
    }
    return NULL;
}

static void test_every_action(void)
{
    struct config cfg;
    struct reload_plan plan;
    char dir[256], path[300];
    struct plugin *pl[4];
    int changed[4] = {0, 0, 1, 0};
    const struct reload_step *s;

    if (!CHECK(load_ini(&cfg, "[server]\nplugin_dir = .\n"
                              "[plugin.kept]\nlabel = a\n"
                              "[plugin.reinit]\nlabel = new\n"
                              "[plugin.reopen]\n"
                              "[plugin.added]\n"
                              "[plugin.disabled]\nenabled = no\n") == STATUS_OK))
        return;
    check_tmp(dir, sizeof(dir), "reload");
    snprintf(path, sizeof(path), "%s/kept.so", dir);
    pl[0] = fake_plugin("kept", path, NULL, "label", "a");
    snprintf(path, sizeof(path), "%s/reinit.so", dir);
    pl[1] = fake_plugin("reinit", path, NULL, "label", "old");
    snprintf(path, sizeof(path), "%s/reopen.so", dir);
    pl[2] = fake_plugin("reopen", path, NULL, NULL, NULL);
    snprintf(path, sizeof(path), "%s/disabled.so", dir);
    pl[3] = fake_plugin("disabled", path, NULL, NULL, NULL);

    struct reload_current cur = {.plugins = pl, .n = 4, .file_changed = changed};

    if (CHECK(reload_plan(&plan, &cfg, &cur) == STATUS_OK)) {
        CHECK_INT_EQ(plan.nsteps, 4);
        s = step_of(&plan, "kept");
        CHECK(s != NULL && s->action == RELOAD_KEEP && s->old == pl[0]);
        s = step_of(&plan, "reinit");
        CHECK(s != NULL && s->action == RELOAD_REINIT && s->old == pl[1]);
        s = step_of(&plan, "reopen");
        CHECK(s != NULL && s->action == RELOAD_REOPEN && s->old == pl[2]);
        s = step_of(&plan, "added");
        CHECK(s != NULL && s->action == RELOAD_ADD && s->old == NULL);
        CHECK(step_of(&plan, "disabled") == NULL);
        /* Steps keep INI order. */
        CHECK_STR_EQ(plan.steps[0].section->id, "kept");
        CHECK_STR_EQ(plan.steps[3].section->id, "added");
        CHECK_INT_EQ(plan.ndropped, 1);
        CHECK(plan.ndropped == 1 && plan.dropped[0] == pl[3]);
        reload_plan_release(&plan);
    }
    for (int i = 0; i < 4; i++)
        fake_free(pl[i]);
    config_release(&cfg);
}

/* An instance that defines its rows at init is rebuilt even when nothing of it changed;
 * a changed section or file still says so. */
static void test_rebuild(void)
{
    struct config cfg;
    struct reload_plan plan;
    char dir[256], path[300];
    struct plugin *pl[3];
    int changed[3] = {0, 0, 1};
    const struct reload_step *s;

    if (!CHECK(load_ini(&cfg, "[server]\nplugin_dir = .\n"
                              "[plugin.dyn]\nlabel = a\n"
                              "[plugin.dynconf]\nlabel = new\n"
                              "[plugin.dynfile]\n") == STATUS_OK))
        return;
    check_tmp(dir, sizeof(dir), "reload");
    snprintf(path, sizeof(path), "%s/dyn.so", dir);
    pl[0] = fake_plugin("dyn", path, NULL, "label", "a");
    snprintf(path, sizeof(path), "%s/dynconf.so", dir);
    pl[1] = fake_plugin("dynconf", path, NULL, "label", "old");
    snprintf(path, sizeof(path), "%s/dynfile.so", dir);
    pl[2] = fake_plugin("dynfile", path, NULL, NULL, NULL);
    for (int i = 0; i < 3; i++)
        pl[i]->rebuild = 1;

    struct reload_current cur = {.plugins = pl, .n = 3, .file_changed = changed};

    if (CHECK(reload_plan(&plan, &cfg, &cur) == STATUS_OK)) {
        s = step_of(&plan, "dyn");
        CHECK(s != NULL && s->action == RELOAD_REBUILD && s->old == pl[0]);
        s = step_of(&plan, "dynconf");
        CHECK(s != NULL && s->action == RELOAD_REINIT);
        s = step_of(&plan, "dynfile");
        CHECK(s != NULL && s->action == RELOAD_REOPEN);
        CHECK_INT_EQ(plan.ndropped, 0);
        reload_plan_release(&plan);
    }
    for (int i = 0; i < 3; i++)
        fake_free(pl[i]);
    config_release(&cfg);
}

static void test_same_section(void)
{
    struct config cfg;
    char dir[256], path[300];
    struct plugin *pl;

    if (!CHECK(load_ini(&cfg, "[server]\nplugin_dir = .\n[plugin.p]\nprefix = x\nlabel = a\n"
                              "[plugin.q]\npath = other.so\n") == STATUS_OK))
        return;
    check_tmp(dir, sizeof(dir), "reload");
    snprintf(path, sizeof(path), "%s/p.so", dir);
    pl = fake_plugin("p", path, "x", "label", "a");
    CHECK(reload_same_section(pl, &cfg.plugins[0]));
    /* A different prefix, value, extra key or path is a different section. */
    free(pl->section.prefix);
    pl->section.prefix = NULL;
    CHECK(!reload_same_section(pl, &cfg.plugins[0]));
    pl->section.prefix = strdup("x");
    free(pl->section.keys[0].value);
    pl->section.keys[0].value = strdup("b");
    CHECK(!reload_same_section(pl, &cfg.plugins[0]));
    CHECK(!reload_same_section(pl, &cfg.plugins[1]));
    fake_free(pl);
    config_release(&cfg);
}

/* The filters are part of the section an instance was loaded from: the same ones keep it,
 * another one (or none) does not. */
static void test_same_section_filters(void)
{
    struct config cfg;
    char dir[256], path[300];
    struct plugin *pl;

    if (!CHECK(load_ini(&cfg, "[server]\nplugin_dir = .\n[plugin.p]\ntools = a* !ab\n"
                              "prompts = !*\n") == STATUS_OK))
        return;
    check_tmp(dir, sizeof(dir), "reload");
    snprintf(path, sizeof(path), "%s/p.so", dir);
    pl = fake_plugin("p", path, NULL, NULL, NULL);
    CHECK(!reload_same_section(pl, &cfg.plugins[0]));
    pl->section.filter[FILTER_TOOLS] = strdup("a* !ab");
    pl->section.filter[FILTER_PROMPTS] = strdup("!*");
    CHECK(reload_same_section(pl, &cfg.plugins[0]));
    pl->section.filter[FILTER_RESOURCES] = strdup("*");
    CHECK(!reload_same_section(pl, &cfg.plugins[0]));
    free(pl->section.filter[FILTER_RESOURCES]);
    pl->section.filter[FILTER_RESOURCES] = NULL;
    free(pl->section.filter[FILTER_TOOLS]);
    pl->section.filter[FILTER_TOOLS] = strdup("a*");
    CHECK(!reload_same_section(pl, &cfg.plugins[0]));
    fake_free(pl);
    config_release(&cfg);
}

static void test_nothing_running(void)
{
    struct config cfg;
    struct reload_plan plan;
    struct reload_current cur = {.plugins = NULL, .n = 0, .file_changed = NULL};

    if (!CHECK(load_ini(&cfg, "[plugin.a]\n[plugin.b]\nenabled = no\n") == STATUS_OK))
        return;
    if (CHECK(reload_plan(&plan, &cfg, &cur) == STATUS_OK)) {
        CHECK_INT_EQ(plan.nsteps, 1);
        CHECK(plan.nsteps == 1 && plan.steps[0].action == RELOAD_ADD);
        CHECK_INT_EQ(plan.ndropped, 0);
        reload_plan_release(&plan);
    }
    config_release(&cfg);
}

static const struct check_test tests[] = {
    {"every_action", test_every_action},       {"rebuild", test_rebuild},
    {"same_section", test_same_section},       {"same_section_filters", test_same_section_filters},
    {"nothing_running", test_nothing_running}, {0},
};

int main(void)
{
    return check_main("test_reload", tests);
}
