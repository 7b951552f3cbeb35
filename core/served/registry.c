#include "served/registry.h"

#include "served/entry.h"

#include "lib/limits.h"
#include "lib/log.h"
#include "wire/revision.h"
#include "lib/status.h"
#include "lib/strbuf.h"
#include "lib/uritemplate.h"
#include "lib/version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t registry_hash(const char *s)
{
    uint32_t h = 2166136261u;

    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Index `n` keys, got with key(rows, i). */
static int registry_index_build(struct registry_index *ix, const void *rows, size_t n,
                                const char *(*key)(const void *rows, size_t i))
{
    size_t cap = 16;

    while (cap < n * 2)
        cap *= 2;
    ix->slots = calloc(cap, sizeof(*ix->slots));
    if (ix->slots == NULL)
        return STATUS_NOMEM;
    ix->mask = cap - 1;
    for (size_t i = 0; i < n; i++) {
        size_t s = registry_hash(key(rows, i)) & ix->mask;

        while (ix->slots[s] != 0)
            s = (s + 1) & ix->mask;
        ix->slots[s] = (uint32_t)i + 1;
    }
    return STATUS_OK;
}

/* The row whose key is `name`, or -1. */
static long registry_index_find(const struct registry_index *ix, const void *rows,
                                const char *(*key)(const void *rows, size_t i), const char *name)
{
    if (ix->slots == NULL)
        return -1;
    for (size_t s = registry_hash(name) & ix->mask; ix->slots[s] != 0; s = (s + 1) & ix->mask) {
        size_t i = ix->slots[s] - 1;

        if (strcmp(key(rows, i), name) == 0)
            return (long)i;
    }
    return -1;
}

static const char *registry_tool_key(const void *rows, size_t i)
{
    return ((const struct registry_tool *)rows)[i].name;
}

static const char *registry_prompt_key(const void *rows, size_t i)
{
    return ((const struct registry_prompt *)rows)[i].name;
}

static const char *registry_resource_key(const void *rows, size_t i)
{
    return ((const struct registry_resource *)rows)[i].def->uri;
}

/* --- Building. --- */

struct registry_build {
    struct registry *reg;
    const struct registry *incumbent; /* borrowed: the set in service on a reload, or NULL */
    const struct registry_gate *gate; /* borrowed or NULL: decides which rows are served */
    struct plugin *const *plugins;    /* borrowed: the instances being merged */
    size_t nplugins;
    const struct log *log;
    struct diag *errs;
    size_t collisions;
};

static char *registry_exposed(const struct plugin *pl, const char *name)
{
    char *out = NULL;

    if (pl->section.prefix == NULL)
        return strdup(name);
    if (asprintf(&out, "%s_%s", pl->section.prefix, name) < 0)
        return NULL;
    return out;
}

static void registry_refuse(struct registry_build *b, const char *what, const char *name,
                            const struct plugin *first, const struct plugin *later)
{
    char *key = NULL;

    if (asprintf(&key, "%s %s %s", what, name, later->id) >= 0) {
        char **grown = realloc(b->reg->collided, (b->reg->ncollided + 1) * sizeof(*grown));

        if (grown != NULL) {
            b->reg->collided = grown;
            grown[b->reg->ncollided++] = key;
            key = NULL;
        }
    }
    free(key);
    /* A prefix renames tools and prompts, never URIs; a filter leaves any row out. */
    if (strncmp(what, "resource", 8) == 0)
        diag_add(b->errs,
                 "plugin '%s' (%s): %s '%s' is already served by plugin '%s'; left out. A prefix "
                 "does not change URIs: leave it out with 'resources = !GLOB' in [plugin.%s], or "
                 "have one of them serve other URIs",
                 later->id, later->section.path, what, name, first->id, later->id);
    else
        diag_add(b->errs,
                 "plugin '%s' (%s): %s '%s' is already served by plugin '%s'; left out. %s in "
                 "[plugin.%s], or leave it out there with '%ss = !GLOB'",
                 later->id, later->section.path, what, name, first->id,
                 later->section.prefix != NULL ? "Choose another prefix" : "Set a prefix",
                 later->id, what);
    b->collisions++;
}

/* Linear scans while building: a plugin set is small, and this runs once per (re)load. */
static const struct plugin *registry_tool_owner(const struct registry *reg, const char *name)
{
    for (size_t i = 0; i < reg->ntools; i++) {
        if (strcmp(reg->tools[i].name, name) == 0)
            return reg->tools[i].plugin;
    }
    return NULL;
}

/* Whether pl serves `name` of `kind` (a kind as registry_refuse names it). */
static int registry_serves(const struct plugin *pl, const char *kind, const char *name)
{
    int found = 0;

    for (size_t i = 0; strcmp(kind, "tool") == 0 && !found && i < pl->ntools; i++) {
        char *exposed = registry_exposed(pl, pl->tools[i].name);

        found = exposed != NULL && strcmp(exposed, name) == 0;
        free(exposed);
    }
    for (size_t i = 0; strcmp(kind, "prompt") == 0 && !found && i < pl->nprompts; i++) {
        char *exposed = registry_exposed(pl, pl->prompts[i].name);

        found = exposed != NULL && strcmp(exposed, name) == 0;
        free(exposed);
    }
    for (size_t i = 0; strcmp(kind, "resource") == 0 && !found && i < pl->nresources; i++)
        found = strcmp(pl->resources[i].uri, name) == 0;
    for (size_t i = 0; strcmp(kind, "resource template") == 0 && !found && i < pl->ntemplates; i++)
        found = strcmp(pl->templates[i].uri_template, name) == 0;
    return found;
}

/* Who served `name` of `kind` in the set in service (NULL: nobody, or no such set). */
static const struct plugin *registry_old_owner(const struct registry *old, const char *kind,
                                               const char *name)
{
    for (size_t i = 0; strcmp(kind, "tool") == 0 && i < old->ntools; i++) {
        if (strcmp(old->tools[i].name, name) == 0)
            return old->tools[i].plugin;
    }
    for (size_t i = 0; strcmp(kind, "prompt") == 0 && i < old->nprompts; i++) {
        if (strcmp(old->prompts[i].name, name) == 0)
            return old->prompts[i].plugin;
    }
    for (size_t i = 0; strcmp(kind, "resource") == 0 && i < old->nresources; i++) {
        if (strcmp(old->resources[i].def->uri, name) == 0)
            return old->resources[i].plugin;
    }
    for (size_t i = 0; strcmp(kind, "resource template") == 0 && i < old->ntemplates; i++) {
        if (strcmp(old->templates[i].def->uri_template, name) == 0)
            return old->templates[i].plugin;
    }
    return NULL;
}

/*
 * On a reload, the instance of the new set that takes over a name another instance serves
 * now, when it still serves it: that one keeps it, whatever the INI order, so a plugin that
 * starts serving a name (one that defines its rows, rebuilt) cannot shadow a row in service.
 * NULL when pl may have the name.
 */
static const struct plugin *registry_incumbent(const struct registry_build *b, const char *kind,
                                               const char *name, const struct plugin *pl)
{
    const struct plugin *was;

    if (b->incumbent == NULL)
        return NULL;
    was = registry_old_owner(b->incumbent, kind, name);
    if (was == NULL || strcmp(was->id, pl->id) == 0)
        return NULL;
    for (size_t i = 0; i < b->nplugins; i++) {
        if (strcmp(b->plugins[i]->id, was->id) == 0)
            return registry_serves(b->plugins[i], kind, name) ? b->plugins[i] : NULL;
    }
    return NULL;
}

/* Whether exposed name `name` of `kind` may be served: not taken (owner NULL) and not too
 * long with its prefix. A refusal is reported; a long name gets a warning. */
static int registry_name_ok(struct registry_build *b, const char *kind, const char *name,
                            const struct plugin *owner, const struct plugin *pl)
{
    if (owner == NULL)
        owner = registry_incumbent(b, kind, name, pl);
    if (owner != NULL) {
        registry_refuse(b, kind, name, owner, pl);
        return 0;
    }
    if (strlen(name) > LIMIT_NAME) {
        diag_add(b->errs,
                 "plugin '%s': %s '%s' is longer than %d characters with its prefix; left "
                 "out. Use a shorter prefix",
                 pl->id, kind, name, LIMIT_NAME);
        return 0;
    }
    if (strlen(name) > LIMIT_NAME_ADVISED)
        log_msg(b->log, LOG_WARNING, NULL,
                "plugin '%s': %s name '%s' is longer than %d characters; some clients cut or "
                "refuse such names",
                pl->id, kind, name, LIMIT_NAME_ADVISED);
    return 1;
}

/* What the gate says of a row (1 serve, 0 leave out, or STATUS_NOMEM); entry is built only
 * when there is a gate, from the row's newest-revision form. */
static int registry_admit(const struct registry_build *b, const char *kind, const char *name,
                          const struct plugin *pl, cJSON *entry)
{
    int verdict;

    if (entry == NULL)
        return STATUS_NOMEM;
    verdict = b->gate->admit(b->gate->ctx, kind, pl->id, name, entry);
    cJSON_Delete(entry);
    return verdict;
}

static int registry_admit_tool(const struct registry_build *b, struct registry_tool row)
{
    return b->gate == NULL
               ? 1
               : registry_admit(b, "tool", row.name, row.plugin, entry_tool(&row, REV_MODERN));
}

static int registry_admit_prompt(const struct registry_build *b, struct registry_prompt row)
{
    return b->gate == NULL
               ? 1
               : registry_admit(b, "prompt", row.name, row.plugin, entry_prompt(&row, REV_MODERN));
}

static int registry_admit_resource(const struct registry_build *b, struct registry_resource row)
{
    return b->gate == NULL ? 1
                           : registry_admit(b, "resource", row.def->uri, row.plugin,
                                            entry_resource(&row, REV_MODERN));
}

static int registry_admit_template(const struct registry_build *b, struct registry_template row)
{
    return b->gate == NULL ? 1
                           : registry_admit(b, "template", row.def->uri_template, row.plugin,
                                            entry_template(&row, REV_MODERN));
}

static int registry_add_tools(struct registry_build *b, struct plugin *pl)
{
    struct registry *reg = b->reg;

    for (size_t i = 0; i < pl->ntools; i++) {
        char *name = registry_exposed(pl, pl->tools[i].name);
        struct registry_tool row = {name, pl, &pl->tools[i]};
        int admit = 0;

        if (name == NULL)
            return STATUS_NOMEM;
        if (registry_name_ok(b, "tool", name, registry_tool_owner(reg, name), pl))
            admit = registry_admit_tool(b, row);
        if (admit != 1) {
            free(name);
            if (admit < 0)
                return admit;
            continue;
        }
        reg->tools[reg->ntools++] = row;
    }
    return STATUS_OK;
}

static int registry_add_prompts(struct registry_build *b, struct plugin *pl)
{
    struct registry *reg = b->reg;

    for (size_t i = 0; i < pl->nprompts; i++) {
        char *name = registry_exposed(pl, pl->prompts[i].name);
        const struct plugin *owner = NULL;
        int admit;

        if (name == NULL)
            return STATUS_NOMEM;
        for (size_t j = 0; j < reg->nprompts && owner == NULL; j++) {
            if (strcmp(reg->prompts[j].name, name) == 0)
                owner = reg->prompts[j].plugin;
        }
        admit = registry_name_ok(b, "prompt", name, owner, pl)
                    ? registry_admit_prompt(b, (struct registry_prompt){name, pl, &pl->prompts[i]})
                    : 0;
        if (admit != 1) {
            free(name);
            if (admit < 0)
                return admit;
            continue;
        }
        reg->prompts[reg->nprompts++] = (struct registry_prompt){name, pl, &pl->prompts[i]};
    }
    return STATUS_OK;
}

/* Resources are named by URI: a prefix does not change them. */
static int registry_add_resources(struct registry_build *b, struct plugin *pl)
{
    struct registry *reg = b->reg;
    int admit;

    for (size_t i = 0; i < pl->nresources; i++) {
        const char *uri = pl->resources[i].uri;
        const struct plugin *owner = NULL;

        for (size_t j = 0; j < reg->nresources && owner == NULL; j++) {
            if (strcmp(reg->resources[j].def->uri, uri) == 0)
                owner = reg->resources[j].plugin;
        }
        if (owner == NULL)
            owner = registry_incumbent(b, "resource", uri, pl);
        if (owner != NULL) {
            registry_refuse(b, "resource", uri, owner, pl);
            continue;
        }
        admit = registry_admit_resource(b, (struct registry_resource){pl, &pl->resources[i]});
        if (admit < 0)
            return admit;
        if (admit == 1)
            reg->resources[reg->nresources++] = (struct registry_resource){pl, &pl->resources[i]};
    }
    for (size_t i = 0; i < pl->ntemplates; i++) {
        const char *tpl = pl->templates[i].uri_template;
        const struct plugin *owner = NULL;

        for (size_t j = 0; j < reg->ntemplates && owner == NULL; j++) {
            if (strcmp(reg->templates[j].def->uri_template, tpl) == 0)
                owner = reg->templates[j].plugin;
        }
        if (owner == NULL)
            owner = registry_incumbent(b, "resource template", tpl, pl);
        if (owner != NULL) {
            registry_refuse(b, "resource template", tpl, owner, pl);
            continue;
        }
        admit = registry_admit_template(b, (struct registry_template){pl, &pl->templates[i]});
        if (admit < 0)
            return admit;
        if (admit == 1)
            reg->templates[reg->ntemplates++] = (struct registry_template){pl, &pl->templates[i]};
    }
    return STATUS_OK;
}

static int registry_alloc(struct registry *reg, struct plugin *const *plugins, size_t n)
{
    size_t ntools = 0, nresources = 0, ntemplates = 0, nprompts = 0;

    for (size_t i = 0; i < n; i++) {
        ntools += plugins[i]->ntools;
        nresources += plugins[i]->nresources;
        ntemplates += plugins[i]->ntemplates;
        nprompts += plugins[i]->nprompts;
    }
    reg->plugins = calloc(n + 1, sizeof(*reg->plugins));
    reg->tools = calloc(ntools + 1, sizeof(*reg->tools));
    reg->resources = calloc(nresources + 1, sizeof(*reg->resources));
    reg->templates = calloc(ntemplates + 1, sizeof(*reg->templates));
    reg->prompts = calloc(nprompts + 1, sizeof(*reg->prompts));
    if (reg->plugins == NULL || reg->tools == NULL || reg->resources == NULL ||
        reg->templates == NULL || reg->prompts == NULL)
        return STATUS_NOMEM;
    return STATUS_OK;
}

static int registry_merge(struct registry_build *b, struct plugin *const *plugins, size_t n)
{
    struct registry *reg = b->reg;
    int status = registry_alloc(reg, plugins, n);

    for (size_t i = 0; i < n && status == STATUS_OK; i++) {
        plugin_ref(plugins[i]);
        reg->plugins[reg->nplugins++] = plugins[i];
        status = registry_add_tools(b, plugins[i]);
        if (status == STATUS_OK)
            status = registry_add_prompts(b, plugins[i]);
        if (status == STATUS_OK)
            status = registry_add_resources(b, plugins[i]);
    }
    if (status == STATUS_OK)
        status = registry_index_build(&reg->tool_index, reg->tools, reg->ntools, registry_tool_key);
    if (status == STATUS_OK)
        status = registry_index_build(&reg->prompt_index, reg->prompts, reg->nprompts,
                                      registry_prompt_key);
    if (status == STATUS_OK)
        status = registry_index_build(&reg->resource_index, reg->resources, reg->nresources,
                                      registry_resource_key);
    return status;
}

int registry_build(struct registry **out, struct plugin *const *plugins, size_t n,
                   const struct log *log, struct diag *errs, size_t *collisions)
{
    return registry_build_over(out, plugins, n, NULL, log, errs, collisions);
}

int registry_build_over(struct registry **out, struct plugin *const *plugins, size_t n,
                        const struct registry *incumbent, const struct log *log, struct diag *errs,
                        size_t *collisions)
{
    return registry_build_gated(out, plugins, n, incumbent, NULL, log, errs, collisions);
}

int registry_build_gated(struct registry **out, struct plugin *const *plugins, size_t n,
                         const struct registry *incumbent, const struct registry_gate *gate,
                         const struct log *log, struct diag *errs, size_t *collisions)
{
    struct registry_build b = {.incumbent = incumbent,
                               .gate = gate,
                               .plugins = plugins,
                               .nplugins = n,
                               .log = log,
                               .errs = errs};
    int status;

    b.reg = calloc(1, sizeof(*b.reg));
    if (b.reg == NULL)
        return STATUS_NOMEM;
    atomic_init(&b.reg->refs, 1);
    status = registry_merge(&b, plugins, n);
    if (status != STATUS_OK) {
        registry_free(b.reg);
        return status;
    }
    if (collisions != NULL)
        *collisions = b.collisions;
    *out = b.reg;
    return STATUS_OK;
}

/* [server] instructions, then each plugin's paragraph headed by its section, or NULL when
 * there is none (nomem set when out of memory). */
static char *registry_instructions(const struct registry *reg, const char *own, int *nomem)
{
    struct strbuf sb = STRBUF_INIT;

    if (own != NULL && own[0] != '\0')
        (void)strbuf_addstr(&sb, own);
    for (size_t i = 0; i < reg->nplugins; i++) {
        const struct plugin *pl = reg->plugins[i];

        if (pl->instructions == NULL)
            continue;
        (void)strbuf_addf(&sb, "%s[plugin.%s]\n%s", sb.len > 0 ? "\n\n" : "", pl->id,
                          pl->instructions);
    }
    *nomem = sb.nomem;
    if (sb.nomem || sb.len == 0) {
        strbuf_release(&sb);
        return NULL;
    }
    return strbuf_detach(&sb, NULL);
}

int registry_set_meta(struct registry *reg, const struct config *cfg)
{
    int nomem = 0;

    reg->meta.name = strdup(cfg->name);
    reg->meta.title = cfg->title ? strdup(cfg->title) : NULL;
    reg->meta.ttl_ms = cfg->cache_ttl_ms;
    reg->meta.cache_public = cfg->cache_public;
    reg->meta.instructions = registry_instructions(reg, cfg->instructions, &nomem);
    if (reg->meta.name == NULL || (cfg->title != NULL && reg->meta.title == NULL) || nomem)
        return STATUS_NOMEM;
    return STATUS_OK;
}

cJSON *registry_server_info(const struct registry *reg, int rev)
{
    cJSON *info = cJSON_CreateObject();

    if (info == NULL || cJSON_AddStringToObject(info, "name", reg->meta.name) == NULL ||
        cJSON_AddStringToObject(info, "version", MCPH_VERSION) == NULL ||
        (reg->meta.title != NULL && revision_has(rev, REVF_TITLE) &&
         cJSON_AddStringToObject(info, "title", reg->meta.title) == NULL)) {
        cJSON_Delete(info);
        return NULL;
    }
    return info;
}

const char *registry_page_get(const struct registry *reg, char tag, int rev, size_t offset,
                              int page_size, struct access_view view)
{
    for (size_t i = 0; i < reg->npages; i++) {
        const struct registry_page *p = &reg->pages[i];

        if (p->tag == tag && p->rev == rev && p->offset == offset && p->page_size == page_size &&
            access_same(p->view, view))
            return p->text;
    }
    return NULL;
}

int registry_page_put(struct registry *reg, char tag, int rev, size_t offset, int page_size,
                      struct access_view view, char *text)
{
    struct registry_page *grown;

    if (reg->npages >= LIMIT_PAGE_CACHE)
        return 0;
    grown = realloc(reg->pages, (reg->npages + 1) * sizeof(*grown));
    if (grown == NULL)
        return 0;
    reg->pages = grown;
    grown[reg->npages++] = (struct registry_page){tag, rev, offset, page_size, view, text};
    return 1;
}

void registry_ref(struct registry *reg)
{
    atomic_fetch_add_explicit(&reg->refs, 1, memory_order_relaxed);
}

int registry_unref(struct registry *reg)
{
    return atomic_fetch_sub_explicit(&reg->refs, 1, memory_order_acq_rel) == 1;
}

void registry_free(struct registry *reg)
{
    if (reg == NULL)
        return;
    for (size_t i = 0; i < reg->ntools; i++)
        free(reg->tools[i].name);
    for (size_t i = 0; i < reg->nprompts; i++)
        free(reg->prompts[i].name);
    for (size_t i = 0; i < reg->nplugins; i++) {
        if (plugin_unref(reg->plugins[i]))
            plugin_free(reg->plugins[i]);
    }
    free(reg->plugins);
    free(reg->tools);
    free(reg->resources);
    free(reg->templates);
    free(reg->prompts);
    for (size_t i = 0; i < reg->npages; i++)
        free(reg->pages[i].text);
    free(reg->pages);
    free(reg->meta.name);
    free(reg->meta.title);
    free(reg->meta.instructions);
    for (size_t i = 0; i < reg->ncollided; i++)
        free(reg->collided[i]);
    free(reg->collided);
    free(reg->tool_index.slots);
    free(reg->prompt_index.slots);
    free(reg->resource_index.slots);
    free(reg);
}

/* --- Lookups. --- */

const struct registry_tool *registry_find_tool(const struct registry *reg, const char *name)
{
    long i = registry_index_find(&reg->tool_index, reg->tools, registry_tool_key, name);

    return i < 0 ? NULL : &reg->tools[i];
}

const struct registry_prompt *registry_find_prompt(const struct registry *reg, const char *name)
{
    long i = registry_index_find(&reg->prompt_index, reg->prompts, registry_prompt_key, name);

    return i < 0 ? NULL : &reg->prompts[i];
}

const struct registry_resource *registry_find_resource(const struct registry *reg, const char *uri)
{
    long i = registry_index_find(&reg->resource_index, reg->resources, registry_resource_key, uri);

    return i < 0 ? NULL : &reg->resources[i];
}

const struct registry_template *registry_match_template(const struct registry *reg, const char *uri,
                                                        cJSON **vars)
{
    for (size_t i = 0; i < reg->ntemplates; i++) {
        if (uritemplate_match(reg->templates[i].def->uri_template, uri, vars) == STATUS_OK)
            return &reg->templates[i];
    }
    return NULL;
}

/* --- Diff. --- */

typedef cJSON *(*registry_json_fn)(const void *rows, size_t i, int rev);

static cJSON *registry_tool_row(const void *rows, size_t i, int rev)
{
    return entry_tool(&((const struct registry_tool *)rows)[i], rev);
}

static cJSON *registry_resource_row(const void *rows, size_t i, int rev)
{
    return entry_resource(&((const struct registry_resource *)rows)[i], rev);
}

static cJSON *registry_template_row(const void *rows, size_t i, int rev)
{
    return entry_template(&((const struct registry_template *)rows)[i], rev);
}

static cJSON *registry_prompt_row(const void *rows, size_t i, int rev)
{
    return entry_prompt(&((const struct registry_prompt *)rows)[i], rev);
}

/* Whether two lists differ, compared as served to the newest revision (which has every
 * field). An allocation failure counts as a difference: a spare notification is harmless,
 * a missing one is not. */
static int registry_list_differs(const void *a, size_t na, const void *b, size_t nb,
                                 registry_json_fn json)
{
    if (na != nb)
        return 1;
    for (size_t i = 0; i < na; i++) {
        cJSON *ja = json(a, i, REV_LATEST_LEGACY);
        cJSON *jb = json(b, i, REV_LATEST_LEGACY);
        int same = ja != NULL && jb != NULL && cJSON_Compare(ja, jb, 1);

        cJSON_Delete(ja);
        cJSON_Delete(jb);
        if (!same)
            return 1;
    }
    return 0;
}

const char *registry_list_method(unsigned list)
{
    switch (list) {
    case REGISTRY_TOOLS:
        return "notifications/tools/list_changed";
    case REGISTRY_RESOURCES:
        return "notifications/resources/list_changed";
    case REGISTRY_PROMPTS:
        return "notifications/prompts/list_changed";
    default:
        return NULL;
    }
}

size_t registry_new_collisions(const struct registry *old, const struct registry *next,
                               int (*excused)(const char *id, void *ctx), void *ctx)
{
    size_t fresh = 0;

    for (size_t i = 0; i < next->ncollided; i++) {
        /* "KIND NAME ID": the id (no spaces in it) of the instance whose row is left out. */
        const char *id = strrchr(next->collided[i], ' ');
        int known = excused != NULL && id != NULL && excused(id + 1, ctx);

        for (size_t j = 0; j < old->ncollided && !known; j++)
            known = strcmp(next->collided[i], old->collided[j]) == 0;
        fresh += !known;
    }
    return fresh;
}

unsigned registry_diff(const struct registry *a, const struct registry *b)
{
    unsigned lists = 0;

    if (registry_list_differs(a->tools, a->ntools, b->tools, b->ntools, registry_tool_row))
        lists |= REGISTRY_TOOLS;
    if (registry_list_differs(a->resources, a->nresources, b->resources, b->nresources,
                              registry_resource_row) ||
        registry_list_differs(a->templates, a->ntemplates, b->templates, b->ntemplates,
                              registry_template_row))
        lists |= REGISTRY_RESOURCES;
    if (registry_list_differs(a->prompts, a->nprompts, b->prompts, b->nprompts,
                              registry_prompt_row))
        lists |= REGISTRY_PROMPTS;
    return lists;
}
