#include "served/listing.h"

#include "client/confine.h"
#include "config/filter.h"
#include "host/rows.h"
#include "lib/log.h"
#include "served/pin.h"

#include <string.h>

/* The rows reg serves, a line each under a header: plugin, kind, name, title. */
static void listing_table(const struct registry *reg, FILE *out)
{
    fprintf(out, "%-16s %-9s %-40s %s\n", "PLUGIN", "KIND", "NAME", "TITLE");
    for (size_t i = 0; i < reg->ntools; i++)
        fprintf(out, "%-16s %-9s %-40s %s\n", reg->tools[i].plugin->id, "tool", reg->tools[i].name,
                reg->tools[i].def->title ? reg->tools[i].def->title : "");
    for (size_t i = 0; i < reg->nresources; i++)
        fprintf(out, "%-16s %-9s %-40s %s\n", reg->resources[i].plugin->id, "resource",
                reg->resources[i].def->uri,
                reg->resources[i].def->title ? reg->resources[i].def->title : "");
    for (size_t i = 0; i < reg->ntemplates; i++)
        fprintf(out, "%-16s %-9s %-40s %s\n", reg->templates[i].plugin->id, "template",
                reg->templates[i].def->uri_template,
                reg->templates[i].def->title ? reg->templates[i].def->title : "");
    for (size_t i = 0; i < reg->nprompts; i++)
        fprintf(out, "%-16s %-9s %-40s %s\n", reg->prompts[i].plugin->id, "prompt",
                reg->prompts[i].name, reg->prompts[i].def->title ? reg->prompts[i].def->title : "");
}

/* One filter's rows (of every kind it sees), kept then dropped, a line each. */
static void listing_filter_rows(const struct plugin *pl, int key, FILE *out)
{
    for (int kind = PLUGIN_ROW_TOOL; kind <= PLUGIN_ROW_PROMPT; kind++) {
        const char *tag = kind == PLUGIN_ROW_TEMPLATE ? " (template)" : "";

        for (size_t i = 0; rows_kinds[kind].filter == key && i < rows_count_of(pl, kind); i++)
            fprintf(out, "  kept     %s%s\n", rows_name_of(pl, kind, i), tag);
    }
    for (int kind = PLUGIN_ROW_TOOL; kind <= PLUGIN_ROW_PROMPT; kind++) {
        const struct filter_names *dropped = &pl->dropped[kind];
        const char *tag = kind == PLUGIN_ROW_TEMPLATE ? " (template)" : "";

        for (size_t i = 0; rows_kinds[kind].filter == key && i < dropped->n; i++)
            fprintf(out, "  dropped  %s%s\n", dropped->names[i], tag);
        if (rows_kinds[kind].filter == key && dropped->total > dropped->n)
            fprintf(out, "  dropped  %zu more%s\n", dropped->total - dropped->n, tag);
    }
}

/* How many rows filter `key` kept and dropped. */
static void listing_filter_counts(const struct plugin *pl, int key, size_t *kept, size_t *dropped)
{
    *kept = *dropped = 0;
    for (int kind = PLUGIN_ROW_TOOL; kind <= PLUGIN_ROW_PROMPT; kind++) {
        if (rows_kinds[kind].filter != key)
            continue;
        *kept += rows_count_of(pl, kind);
        *dropped += pl->dropped[kind].total;
    }
}

/* What each filter of each instance kept and dropped (the plugin's own names,
 * before the prefix), and a warning for a filter that keeps nothing. */
static void listing_filters(const struct server *srv, FILE *out)
{
    const struct registry *reg = srv->reg;
    int first = 1;

    for (size_t p = 0; p < reg->nplugins; p++) {
        const struct plugin *pl = reg->plugins[p];
        const struct config_plugin *cp = config_find_plugin(&srv->cfg, pl->id);

        for (int key = 0; key < FILTER_KEYS; key++) {
            int line = cp != NULL ? cp->filter_line[key] : 0;
            size_t kept, dropped;

            if (pl->section.filter[key] == NULL)
                continue;
            if (first)
                fprintf(out, "\nFILTERS (the plugins' own names, before the prefix)\n");
            first = 0;
            listing_filter_counts(pl, key, &kept, &dropped);
            fprintf(out, "[plugin.%s] %s = %s (%s:%d): %zu kept, %zu dropped\n", pl->id,
                    filter_key_names[key], pl->section.filter[key], srv->cfg.file, line, kept,
                    dropped);
            listing_filter_rows(pl, key, out);
            if (kept == 0)
                log_msg(&srv->log, LOG_WARNING, NULL,
                        "%s:%d: [plugin.%s] %s = '%s' keeps nothing (%zu dropped): the "
                        "plugin serves no %s; check the globs unless that is meant",
                        srv->cfg.file, line, pl->id, filter_key_names[key], pl->section.filter[key],
                        dropped, filter_key_names[key]);
        }
    }
}

/* Whether instance id is served by the mcp plugin (which confines the server it runs). */
static int listing_proxied(const struct registry *reg, const char *id)
{
    for (size_t p = 0; p < reg->nplugins; p++) {
        const struct plugin *pl = reg->plugins[p];

        if (strcmp(pl->id, id) == 0)
            return pl->name != NULL && strcmp(pl->name, "mcp") == 0;
    }
    return 0;
}

/* What the process of each confined section may do (client/confine.h), and what this kernel
 * does not enforce. The program of an isolated section is mcph itself; an mcp section's is
 * its command's, which its plugin resolves. */
static void listing_confined(const struct server *srv, FILE *out)
{
    int first = 1;

    for (size_t i = 0; i < srv->cfg.nplugins; i++) {
        const struct config_plugin *cp = &srv->cfg.plugins[i];
        const struct config_confine *c = &cp->confine;
        struct mcph_strbuf sb = MCPH_STRBUF_INIT;
        struct confine *rules;
        int rc;

        if (!c->on || !cp->enabled || (!cp->isolate.on && !listing_proxied(srv->reg, cp->id)))
            continue; /* a plugin in process that takes these keys as its own confines nothing */
        if (first)
            fprintf(out, "\nCONFINED (what the process of each section may do)\n");
        first = 0;
        rc = confine_new(&rules, c->read, c->write, c->exec, c->network,
                         cp->isolate.on ? "/proc/self/exe" : NULL, NULL, &sb);
        fprintf(out, "[plugin.%s] (%s:%d)\n", cp->id, srv->cfg.file, cp->line);
        if (rc == MCPH_OK) {
            confine_describe(rules, "  ", &sb);
            confine_free(rules);
        } else {
            mcph_sb_addch(&sb, '\n');
        }
        fputs(sb.nomem ? "  (out of memory)\n" : sb.buf, out);
        mcph_sb_release(&sb);
    }
}

/* The rows the lock file refuses ([server] lock): each with what changed. */
static void listing_drift(const struct server *srv, FILE *out)
{
    if (pin_refused(srv->pin) == 0)
        return;
    fprintf(out,
            "\nDRIFT (%zu definition(s) not served: they differ from the lock file %s, or it "
            "lacks them)\n%s",
            pin_refused(srv->pin), pin_path(srv->pin), pin_drift(srv->pin));
}

/* --check with lock_new = accept: the rows the lock file lacks, which serving would pin. */
static void listing_news(const struct server *srv, FILE *out)
{
    if (pin_would_pin(srv->pin) == 0)
        return;
    fprintf(out,
            "\nNEW (%zu definition(s) the lock file %s lacks; served, and pinned by serving "
            "with lock_new = accept)\n%s",
            pin_would_pin(srv->pin), pin_path(srv->pin), pin_news(srv->pin));
}

void listing_print(const struct server *srv, FILE *out)
{
    if (srv->reg == NULL)
        return;
    listing_table(srv->reg, out);
    listing_filters(srv, out);
    listing_confined(srv, out);
    listing_drift(srv, out);
    listing_news(srv, out);
}
