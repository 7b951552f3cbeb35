/*
 * edge.c: the [access.NAME] and [limit.NAME] sections, and the checks across the keys of the
 * HTTP edge (edge.h).
 */
#include "config/edge.h"

#include "config/keys.h"
#include "lib/limits.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

int config_edge_section(const char *section)
{
    return strncmp(section, "access.", 7) == 0 || strncmp(section, "limit.", 6) == 0;
}

static int config_is_access(const char *section)
{
    return strncmp(section, "access.", 7) == 0;
}

/* The section called section, as the last one added of its kind (NULL: none such). */
static void *config_edge_find(const struct config *cfg, const char *section, int *line)
{
    if (config_is_access(section)) {
        for (size_t i = 0; i < cfg->naccess; i++) {
            if (strcmp(cfg->access[i].id, section + 7) == 0) {
                *line = cfg->access[i].line;
                return &cfg->access[i];
            }
        }
        return NULL;
    }
    for (size_t i = 0; i < cfg->nlimits; i++) {
        if (strcmp(cfg->limits[i].id, section + 6) == 0) {
            *line = cfg->limits[i].line;
            return &cfg->limits[i];
        }
    }
    return NULL;
}

int config_edge_new(struct config *cfg, const char *section, int line, struct diag *errs)
{
    int access = config_is_access(section), first = 0;
    const char *id = section + (access ? 7 : 6);
    size_t *n = access ? &cfg->naccess : &cfg->nlimits;
    size_t size = access ? sizeof(struct config_access) : sizeof(struct config_limit);
    void **list = access ? (void **)&cfg->access : (void **)&cfg->limits;
    char *grown, *copy;

    if (config_id_check(id, NULL) != STATUS_OK) {
        diag_add_at(errs, cfg->file, line, "[%s]: the name must be 1-%d of A-Z a-z 0-9 _ -",
                    section, LIMIT_ID);
        return STATUS_INVALID;
    }
    if (config_edge_find(cfg, section, &first) != NULL) {
        diag_add_at(errs, cfg->file, line,
                    "[%s] appears twice (first on line %d); merge the sections", section, first);
        return STATUS_INVALID;
    }
    /* An access section is a bit of a principal's view (served/access.h). */
    if (*n == (access ? LIMIT_ACCESS_SECTIONS : LIMIT_LIMIT_SECTIONS)) {
        diag_add_at(errs, cfg->file, line, "more than %d [%s.NAME] sections; merge some",
                    access ? LIMIT_ACCESS_SECTIONS : LIMIT_LIMIT_SECTIONS,
                    access ? "access" : "limit");
        return STATUS_LIMIT;
    }
    grown = realloc(*list, (*n + 1) * size);
    copy = strdup(id);
    if (grown != NULL)
        *list = grown;
    if (grown == NULL || copy == NULL) {
        free(copy);
        errs->nomem = 1;
        return STATUS_NOMEM;
    }
    if (access) {
        cfg->access[*n] = (struct config_access){.id = copy, .line = line};
    } else {
        cfg->limits[*n] = (struct config_limit){.id = copy, .line = line, .per_principal = 1};
    }
    (*n)++;
    return STATUS_OK;
}

void config_edge_key(struct config *cfg, const char *section, const char *key, const char *value,
                     int line, struct diag *errs)
{
    const struct config_key *keys =
        config_is_access(section) ? config_access_keys : config_limit_keys;
    const struct config_key *k = config_key_find(keys, key);
    struct strbuf why = STRBUF_INIT, help = STRBUF_INIT;
    int first = 0, *at, status;
    char *base = config_edge_find(cfg, section, &first);

    if (base == NULL)
        return; /* its header was refused */
    if (k == NULL) {
        config_key_names(keys, &help);
        diag_add_at(errs, cfg->file, line, "unknown key '%s' in [%s]; the keys are: %s", key,
                    section, help.buf);
        strbuf_release(&help);
        return;
    }
    at = (int *)(void *)(base + k->line);
    if (*at != 0) {
        diag_add_at(errs, cfg->file, line, "'%s' is set twice in [%s] (first on line %d); keep one",
                    key, section, *at);
        return;
    }
    status = config_key_set(k, base, cfg->dir, value, &why);
    config_key_help(k, &help);
    if (status == STATUS_INVALID)
        diag_add_at(errs, cfg->file, line, "[%s] %s = '%s' is not valid%s%s; use %s", section, key,
                    value, why.len ? ": " : "", why.len ? why.buf : "", help.buf);
    else if (status == STATUS_NOMEM)
        errs->nomem = 1;
    else
        *at = line;
    strbuf_release(&why);
    strbuf_release(&help);
}

/* The OAuth keys: all or none of issuer, resource and one JWKS. */
static void config_edge_check_oauth(const struct config *cfg, struct diag *errs)
{
    int any = cfg->oauth_issuer || cfg->oauth_resource || cfg->oauth_jwks_file ||
              cfg->oauth_jwks_url || cfg->oauth_authorization_servers || cfg->oauth_scopes;

    if (!any)
        return;
    if (cfg->oauth_issuer == NULL || cfg->oauth_resource == NULL)
        diag_add(errs,
                 "%s: [server] OAuth needs oauth_issuer (the authorization server) and "
                 "oauth_resource (this server's canonical URI); set both",
                 cfg->file);
    if ((cfg->oauth_jwks_file != NULL) == (cfg->oauth_jwks_url != NULL))
        diag_add(errs,
                 "%s: [server] OAuth needs the keys tokens are signed with: set one of "
                 "oauth_jwks_file and oauth_jwks_url",
                 cfg->file);
}

void config_edge_check(const struct config *cfg, struct diag *errs)
{
    config_edge_check_oauth(cfg, errs);
    /* The metrics name every tool and plugin: beside the endpoint, any credential would read
     * the names its access sections hide. */
    if (cfg->naccess > 0 && cfg->metrics_path != NULL && cfg->metrics_listen == NULL)
        diag_add_at(errs, cfg->file, cfg->access[0].line,
                    "[access.%s]: the metrics at metrics_path name every tool, whoever reads "
                    "them; with access sections, serve them on a listener of their own "
                    "([server] metrics_listen = HOST:PORT) or remove metrics_path",
                    cfg->access[0].id);
    for (size_t i = 0; i < cfg->naccess; i++) {
        const struct config_access *a = &cfg->access[i];

        if (!a->scopes_line && !a->claims_line && !a->tokens_line)
            diag_add_at(errs, cfg->file, a->line,
                        "[access.%s] says what it shows but not to whom; add scopes, claims or "
                        "tokens",
                        a->id);
        if ((a->scopes_line || a->claims_line) && cfg->oauth_issuer == NULL)
            diag_add_at(errs, cfg->file, a->scopes_line ? a->scopes_line : a->claims_line,
                        "[access.%s] scopes and claims come from OAuth access tokens; set "
                        "[server] oauth_issuer and the rest, or use tokens",
                        a->id);
        if (a->tokens_line && cfg->auth_token_file == NULL)
            diag_add_at(errs, cfg->file, a->tokens_line,
                        "[access.%s] tokens names tokens of [server] auth_token_file, which is "
                        "not set",
                        a->id);
    }
    for (size_t i = 0; i < cfg->nlimits; i++) {
        if (cfg->limits[i].rate_line == 0)
            diag_add_at(errs, cfg->file, cfg->limits[i].line,
                        "[limit.%s] has no rate; add rate = N/s (or N/min, N/h)",
                        cfg->limits[i].id);
    }
}

void config_edge_release(struct config *cfg)
{
    for (size_t i = 0; i < cfg->naccess; i++) {
        struct config_access *a = &cfg->access[i];

        free(a->id);
        free(a->scopes);
        free(a->claims);
        free(a->tokens);
        for (int k = 0; k < FILTER_KEYS; k++)
            free(a->filter[k]);
    }
    free(cfg->access);
    for (size_t i = 0; i < cfg->nlimits; i++) {
        free(cfg->limits[i].id);
        free(cfg->limits[i].tools);
    }
    free(cfg->limits);
    cfg->access = NULL;
    cfg->limits = NULL;
    cfg->naccess = cfg->nlimits = 0;
}
