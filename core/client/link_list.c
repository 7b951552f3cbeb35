/*
 * link_list.c: what init asks the server for its rows (mcp_link_request: its lists, page by
 * page, with a deadline that notices a server not reading its stdin), what the handshake
 * told (capabilities, one member of its answer), and, with idle_stop_s, the pages kept so
 * that an idle server is not started again to be listed.
 */
#include "client/link.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* --- Lists kept for an idle server. --- */

/* The key of a page of a list (the method and its cursor), or NULL when pages are not kept
 * (no idle_stop_s). */
static char *link_list_key(const struct mcp_link *l, const char *method, const cJSON *params)
{
    const cJSON *cursor = cJSON_GetObjectItemCaseSensitive(params, "cursor");
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;

    if (l->spec.idle_stop_s <= 0)
        return NULL;
    mcph_sb_addf(&sb, "%s\n%s", method, cJSON_IsString(cursor) ? cursor->valuestring : "");
    if (sb.nomem) {
        mcph_sb_release(&sb);
        return NULL;
    }
    return mcph_sb_detach(&sb, NULL);
}

/* A copy of the page kept under key while the server is idle, else NULL (it is asked). */
static cJSON *link_listed(struct mcp_link *l, const char *key)
{
    cJSON *copy = NULL;

    pthread_mutex_lock(&l->lock);
    for (const struct mcp_listed *k = l->listed; l->state == MCP_IDLE && k != NULL; k = k->next) {
        if (k->gen == l->gen && strcmp(k->key, key) == 0) {
            copy = cJSON_Duplicate(k->result, 1);
            break;
        }
    }
    pthread_mutex_unlock(&l->lock);
    return copy;
}

static void link_listed_drop(struct mcp_listed *k)
{
    free(k->key);
    cJSON_Delete(k->result);
    free(k);
}

/* Keep a copy of result, answered by process gen, under key (taken over): a first page drops
 * every page of its list kept before, so that the pages of one listing are kept and no more. */
static void link_keep(struct mcp_link *l, char *key, const cJSON *result, uint64_t gen)
{
    struct mcp_listed *k = calloc(1, sizeof(*k));
    size_t method = strcspn(key, "\n");
    int first = key[method + 1] == '\0';

    if (k == NULL || (k->result = cJSON_Duplicate(result, 1)) == NULL) {
        free(k);
        free(key);
        return;
    }
    k->key = key;
    k->gen = gen;
    pthread_mutex_lock(&l->lock);
    for (struct mcp_listed **pp = &l->listed; *pp != NULL;) {
        struct mcp_listed *old = *pp;

        if (strcmp(old->key, key) == 0 || (first && strncmp(old->key, key, method + 1) == 0)) {
            *pp = old->next;
            link_listed_drop(old);
        } else {
            pp = &old->next;
        }
    }
    k->next = l->listed;
    l->listed = k;
    pthread_mutex_unlock(&l->lock);
}

void link_listed_free(struct mcp_link *l)
{
    while (l->listed != NULL) {
        struct mcp_listed *k = l->listed;

        l->listed = k->next;
        link_listed_drop(k);
    }
}

/* One request of init's lists, answered by the server (process *gen). */
static cJSON *link_ask_list(struct mcp_link *l, const char *method, cJSON *params,
                            struct mcph_strbuf *why, uint64_t *gen)
{
    struct mcp_pending *p = mcp_link_send(l, method, params, 0, why);
    struct mcp_event *ev = NULL;
    struct timespec started;
    cJSON *result = NULL;

    if (p == NULL)
        return NULL;
    *gen = p->gen;
    link_now(&started);
    for (;;) {
        int64_t stalled, left = l->spec.startup_ms - link_ms_since(&started);
        enum mcp_wait w;

        /* Woken every MCP_LIST_STALL_MS to see whether the server reads its stdin at all: a
         * reload must not wait out the start-up time for a server that cannot be asked. */
        link_after(&p->deadline, left < 1                   ? 1
                                 : left < MCP_LIST_STALL_MS ? left
                                                            : MCP_LIST_STALL_MS);
        w = mcp_link_wait(l, p, NULL, NULL, &ev);
        if (w == MCP_WAIT_EVENT) {
            mcp_event_free(ev);
            continue;
        }
        stalled = w == MCP_WAIT_TIMEOUT ? link_stalled_ms(l) : 0;
        if (w == MCP_WAIT_TIMEOUT && stalled < MCP_LIST_STALL_MS &&
            link_ms_since(&started) < l->spec.startup_ms)
            continue;
        if (w == MCP_WAIT_TIMEOUT && stalled >= MCP_LIST_STALL_MS) {
            mcph_sb_addf(why,
                         "%s '%s' has taken none of its stdin for %" PRId64 " ms, so %s "
                         "could not be asked",
                         mcp_noun(&l->spec), l->spec.display, stalled, method);
        } else if (w == MCP_WAIT_TIMEOUT) {
            mcph_sb_addf(why, "%s '%s' did not answer %s within %d ms", mcp_noun(&l->spec),
                         l->spec.display, method, l->spec.startup_ms);
        } else if (w == MCP_WAIT_FAILED) {
            mcph_sb_addf(why, "%s '%s' %s", mcp_noun(&l->spec), l->spec.display, p->failure);
        } else {
            const cJSON *err = cJSON_GetObjectItemCaseSensitive(p->reply, "error");
            const cJSON *msg = cJSON_GetObjectItemCaseSensitive(err, "message");

            result = cJSON_DetachItemFromObjectCaseSensitive(p->reply, "result");
            if (result == NULL)
                mcph_sb_addf(why, "%s answered with an error: %s", method,
                             cJSON_IsString(msg) ? msg->valuestring : "(no message)");
        }
        break;
    }
    mcp_link_done(l, p, 0);
    return result;
}

cJSON *mcp_link_request(struct mcp_link *l, const char *method, cJSON *params,
                        struct mcph_strbuf *why)
{
    char *key = link_list_key(l, method, params);
    cJSON *result = key != NULL ? link_listed(l, key) : NULL;
    uint64_t gen = 0;

    if (result != NULL) {
        cJSON_Delete(params);
        free(key);
        return result;
    }
    result = link_ask_list(l, method, params, why, &gen);
    if (result != NULL && key != NULL)
        link_keep(l, key, result, gen);
    else
        free(key);
    return result;
}

cJSON *mcp_link_capabilities(struct mcp_link *l)
{
    cJSON *caps;

    pthread_mutex_lock(&l->lock);
    caps = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(l->init_result, "capabilities"), 1);
    pthread_mutex_unlock(&l->lock);
    return caps != NULL ? caps : cJSON_CreateObject();
}

cJSON *mcp_link_hello(struct mcp_link *l, const char *name)
{
    cJSON *member;

    pthread_mutex_lock(&l->lock);
    member = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(l->init_result, name), 1);
    pthread_mutex_unlock(&l->lock);
    return member;
}
