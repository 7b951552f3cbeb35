#include "served/notify.h"

#include "host/plugin.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/status.h"
#include "served/access.h"
#include "served/decorate.h"
#include "wire/jsonrpc.h"
#include "wire/out.h"

#include <stdlib.h>
#include <string.h>

/* --- Listen requests (2026-07-28). --- */

static const struct {
    const char *key;
    unsigned list;
} notify_lists[] = {
    {"toolsListChanged", REGISTRY_TOOLS},
    {"resourcesListChanged", REGISTRY_RESOURCES},
    {"promptsListChanged", REGISTRY_PROMPTS},
    {0},
};

/* Whether the principal of home (a peer) does not see uri in the set and config in service: a
 * URI of a resource or template it does not see, or, for a principal that does not see
 * everything, one nothing serves. Such a URI is followed but never told of, as for a missing
 * one: refusing it at listen time would tell which URIs exist. Under the state lock. */
static int notify_hides(void *ctx, const void *home, const char *uri)
{
    const struct server *srv = ctx;
    const struct peer *p = home;
    struct access_view v = access_view_of(&srv->cfg, p->principal);
    const struct registry_template *t;

    if (v.all)
        return 0;
    if (registry_find_resource(srv->reg, uri) != NULL)
        return !access_sees(&srv->cfg, v, FILTER_RESOURCES, uri);
    t = registry_match_template(srv->reg, uri, NULL);
    return t == NULL || !access_sees(&srv->cfg, v, FILTER_RESOURCES, t->def->uri_template);
}

void notify_access_changed(struct server *srv)
{
    subs_hide(&srv->subs, notify_hides, srv);
}

/* Read the filter into l (whose owner is set); returns 0, -1 when it is not a
 * SubscriptionFilter, -2 when it lists more than LIMIT_SUBSCRIPTIONS resources. */
static int notify_filter(struct server *srv, struct listener *l, const cJSON *filter)
{
    const cJSON *uris = cJSON_GetObjectItemCaseSensitive(filter, "resourceSubscriptions");
    const cJSON *u;

    if (!cJSON_IsObject(filter) || (uris != NULL && !cJSON_IsArray(uris)))
        return -1;
    for (size_t i = 0; notify_lists[i].key != NULL; i++) {
        const cJSON *flag = cJSON_GetObjectItemCaseSensitive(filter, notify_lists[i].key);

        if (flag != NULL && !cJSON_IsBool(flag))
            return -1;
        if (cJSON_IsTrue(flag))
            l->lists |= notify_lists[i].list;
    }
    if (cJSON_GetArraySize(uris) > LIMIT_SUBSCRIPTIONS)
        return -2;
    l->uris = calloc((size_t)cJSON_GetArraySize(uris) + 1, sizeof(*l->uris));
    l->hidden = calloc((size_t)cJSON_GetArraySize(uris) + 1, sizeof(*l->hidden));
    if (l->uris == NULL || l->hidden == NULL)
        return -1;
    cJSON_ArrayForEach(u, uris)
    {
        if (!cJSON_IsString(u))
            return -1;
        l->uris[l->nuris] = strdup(u->valuestring);
        if (l->uris[l->nuris] == NULL)
            return -1;
        l->hidden[l->nuris] = (unsigned char)notify_hides(srv, l->owner, u->valuestring);
        l->nuris++;
    }
    return 0;
}

/* {"_meta": {subscriptionId: id}} plus what the caller adds. */
static cJSON *notify_tagged(const cJSON *id)
{
    cJSON *params = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(params, "_meta");

    if (meta == NULL) {
        cJSON_Delete(params);
        return NULL;
    }
    cJSON_AddItemToObject(meta, NOTIFY_KEY_SUB, cJSON_Duplicate(id, 1));
    return params;
}

/* What mcph honours of a listener's filter: every list (all advertise listChanged) and the
 * URIs (resources advertise subscribe). */
static void notify_acknowledge(void *ctx, const struct listener *l)
{
    struct peer *peer = ctx;
    cJSON *params = notify_tagged(l->id);
    cJSON *honoured = cJSON_AddObjectToObject(params, "notifications");

    if (honoured == NULL) {
        cJSON_Delete(params);
        return;
    }
    for (size_t i = 0; notify_lists[i].key != NULL; i++) {
        if (l->lists & notify_lists[i].list)
            cJSON_AddBoolToObject(honoured, notify_lists[i].key, 1);
    }
    if (l->nuris > 0) {
        cJSON *uris = cJSON_AddArrayToObject(honoured, "resourceSubscriptions");

        for (size_t i = 0; i < l->nuris; i++)
            cJSON_AddItemToArray(uris, cJSON_CreateString(l->uris[i]));
    }
    out_notify(peer->out, "notifications/subscriptions/acknowledged", params);
}

cJSON *notify_listen(struct server *srv, struct peer *peer, const cJSON *id, const cJSON *params)
{
    struct listener l = {.owner = peer, .id = cJSON_Duplicate(id, 1)};
    int status;

    _Static_assert(LIMIT_SUBSCRIPTIONS == 4096, "the message below names the limit");
    status = notify_filter(srv, &l, cJSON_GetObjectItemCaseSensitive(params, "notifications"));
    if (status != 0) {
        subs_listener_release(&l);
        return jsonrpc_error(id, JSONRPC_INVALID_PARAMS,
                             status == -2 ? "Invalid params: resourceSubscriptions lists more "
                                            "than 4096 resources"
                                          : "Invalid params: 'notifications' is "
                                            "required and must be a SubscriptionFilter",
                             NULL);
    }
    /* The stored copy is acknowledged before any notification can be sent to it. */
    status = subs_listen(&srv->subs, &l, notify_acknowledge, peer);
    if (status == STATUS_OK)
        return NULL;
    subs_listener_release(&l);
    if (status == STATUS_EXISTS)
        return jsonrpc_error(id, JSONRPC_INVALID_REQUEST,
                             "Invalid Request: a listen "
                             "request with this id is still open",
                             NULL);
    return jsonrpc_error(id, JSONRPC_INTERNAL_ERROR,
                         status == STATUS_LIMIT ? "Subscription limit reached" : "Out of memory",
                         NULL);
}

int notify_unlisten(struct server *srv, const struct peer *peer, const cJSON *id)
{
    return subs_unlisten(&srv->subs, peer, id);
}

struct notify_notice {
    struct server *srv;
    unsigned lists;  /* the lists that changed */
    const char *uri; /* or the resource that changed */
};

/* Tell one listener what it follows of the change. */
static void notify_listener_one(void *ctx, const struct listener *l)
{
    const struct notify_notice *n = ctx;
    const struct peer *peer = l->owner;

    for (size_t k = 0; notify_lists[k].key != NULL; k++) {
        if (n->lists & l->lists & notify_lists[k].list)
            out_notify(peer->out, registry_list_method(notify_lists[k].list), notify_tagged(l->id));
    }
    for (size_t k = 0; n->uri != NULL && k < l->nuris; k++) {
        cJSON *params;

        if (l->hidden[k] || strcmp(l->uris[k], n->uri) != 0)
            continue;
        params = notify_tagged(l->id);
        cJSON_AddStringToObject(params, "uri", n->uri);
        out_notify(peer->out, "notifications/resources/updated", params);
        break;
    }
}

static void notify_listeners_changed(struct server *srv, unsigned lists)
{
    struct notify_notice n = {.srv = srv, .lists = lists};

    subs_each_listener(&srv->subs, notify_listener_one, &n);
}

static void notify_listeners_updated(struct server *srv, const char *uri)
{
    struct notify_notice n = {.srv = srv, .uri = uri};

    subs_each_listener(&srv->subs, notify_listener_one, &n);
}

/* The final reply of a listen request. */
static void notify_close_one(void *ctx, const struct listener *l)
{
    struct server *srv = ctx;
    const struct peer *peer = l->owner;
    cJSON *result = cJSON_CreateObject();
    cJSON *meta = cJSON_AddObjectToObject(result, "_meta");

    cJSON_AddItemToObject(meta, NOTIFY_KEY_SUB, cJSON_Duplicate(l->id, 1));
    decorate_result(result, srv->reg, NULL, 0);
    out_send(peer->out, jsonrpc_result(l->id, result));
}

void notify_listeners_close(struct server *srv)
{
    subs_close_listeners(&srv->subs, notify_close_one, srv);
}

/* --- Log lines. --- */

int notify_caller_level(struct server *srv, struct peer **peer, int *level)
{
    const struct notify_caller *c = pthread_getspecific(srv->call_key);

    if (c == NULL)
        return 0;
    *peer = c->peer;
    if (atomic_load(c->cancelled))
        *level = LOG_OFF;
    else if (c->modern)
        *level = c->log_level;
    else
        *level = atomic_load(&c->peer->session->log_level);
    return 1;
}

const char *notify_log_tag(void *ctx)
{
    struct server *srv = ctx;
    const struct notify_caller *c = pthread_getspecific(srv->call_key);

    return c != NULL && c->trace != NULL ? trace_tag(c->trace) : NULL;
}

int notify_log_wants(void *ctx, int level)
{
    struct server *srv = ctx;
    struct peer *p;
    int own;

    if (notify_caller_level(srv, &p, &own))
        return level >= own;
    return level >= atomic_load(&srv->log.sink_level);
}

/* A log message for every peer whose session asked for its level. */
struct notify_log {
    int level;
    const cJSON *params;
};

static void notify_log_one(void *ctx, struct peer *p)
{
    const struct notify_log *m = ctx;

    if (m->level >= atomic_load(&p->session->log_level))
        out_notify(p->out, "notifications/message", cJSON_Duplicate(m->params, 1));
}

void notify_client_log(void *ctx, int level, const char *logger, cJSON *data)
{
    struct server *srv = ctx;
    cJSON *params = cJSON_CreateObject();
    struct notify_log m = {.level = level, .params = params};
    struct peer *p;
    int own;

    if (params == NULL || data == NULL ||
        cJSON_AddStringToObject(params, "level", log_level_name(level)) == NULL ||
        (logger != NULL && cJSON_AddStringToObject(params, "logger", logger) == NULL)) {
        cJSON_Delete(params);
        cJSON_Delete(data);
        return;
    }
    cJSON_AddItemToObject(params, "data", data);
    /* Said during a call: to the peer that made it. Else to every peer that asked. */
    if (notify_caller_level(srv, &p, &own)) {
        if (level >= own)
            out_notify(p->out, "notifications/message", params);
        else
            cJSON_Delete(params);
        return;
    }
    server_each_peer(srv, notify_log_one, &m);
    cJSON_Delete(params);
}

void notify_log_sink(void *ctx, int level, const char *who, const char *text)
{
    notify_client_log(ctx, level, who, cJSON_CreateString(text));
}

/* --- What changed in the set served. --- */

static void notify_lists_changed_one(void *ctx, struct peer *p)
{
    const unsigned *lists = ctx;

    if (!p->session->initialized)
        return;
    for (unsigned list = REGISTRY_TOOLS; list <= REGISTRY_PROMPTS; list <<= 1) {
        if (*lists & list)
            out_notify(p->out, registry_list_method(list), NULL);
    }
}

void notify_lists_changed(struct server *srv, unsigned lists)
{
    /* Listeners get what they asked for, tagged; each legacy session gets the unsolicited
     * notifications of its era once it is initialized. */
    notify_listeners_changed(srv, lists);
    server_each_peer(srv, notify_lists_changed_one, &lists);
}

static void notify_updated_one(void *ctx, const void *owner)
{
    const struct peer *p = owner;
    cJSON *params = cJSON_CreateObject();

    cJSON_AddStringToObject(params, "uri", ctx);
    out_notify(p->out, "notifications/resources/updated", params);
}

void notify_resource_updated(void *ctx, const char *uri)
{
    struct server *srv = ctx;

    notify_listeners_updated(srv, uri);
    subs_each_subscriber(&srv->subs, uri, notify_updated_one, (void *)uri);
}

/* The instance of reg that serves uri: the one with that resource, else the one whose
 * template matches first (as resources/read finds it); NULL for none. */
static struct plugin *notify_server_of(const struct registry *reg, const char *uri)
{
    const struct registry_resource *r = reg ? registry_find_resource(reg, uri) : NULL;
    const struct registry_template *t;

    if (r != NULL)
        return r->plugin;
    t = reg ? registry_match_template(reg, uri, NULL) : NULL;
    return t != NULL ? t->plugin : NULL;
}

/* The instance whose resources were reloaded, in the set being served. */
struct notify_served {
    const struct registry *reg;
    const struct plugin *pl;
};

/* Whether uri is served by the instance (a resource of its, or one of its templates). */
static int notify_serves(void *ctx, const char *uri)
{
    const struct notify_served *by = ctx;

    return notify_server_of(by->reg, uri) == by->pl;
}

static int notify_any_uri(void *ctx, const char *uri)
{
    (void)ctx;
    (void)uri;
    return 1;
}

void notify_heard(void *ctx, const char *uri, int on)
{
    struct server *srv = ctx;
    /* The thread that changed who follows what reads srv->reg: the dispatcher under the state
     * lock, or the main thread (which alone replaces it) when the session ends at shutdown. */
    struct plugin *pl = notify_server_of(srv->reg, uri);

    if (pl != NULL)
        plugin_subscribe(pl, uri, on);
}

static int notify_in_set(const struct registry *reg, const struct plugin *pl)
{
    for (size_t i = 0; i < reg->nplugins; i++) {
        if (reg->plugins[i] == pl)
            return 1;
    }
    return 0;
}

void notify_subscriptions_moved(struct server *srv, const struct registry *old)
{
    size_t n;
    char **uris = subs_followed(&srv->subs, notify_any_uri, NULL, &n);

    for (size_t i = 0; i < n; i++) {
        struct plugin *was = notify_server_of(old, uris[i]);
        struct plugin *now = notify_server_of(srv->reg, uris[i]);

        /* A new instance (a pointer the old set never had) always hears; an instance kept in
         * service hears when the URI left it; one leaving service hears nothing. */
        if (was != now && was != NULL && notify_in_set(srv->reg, was))
            plugin_subscribe(was, uris[i], 0);
        if (was != now && now != NULL)
            plugin_subscribe(now, uris[i], 1);
        free(uris[i]);
    }
    free(uris);
}

void notify_resources_reloaded(struct server *srv, const struct plugin *pl)
{
    struct notify_served by = {.reg = srv->reg, .pl = pl};
    size_t n;
    /* Every URI anyone follows, once each (notify_resource_updated then tells every
     * follower of it). */
    char **uris = subs_followed(&srv->subs, notify_serves, &by, &n);

    for (size_t i = 0; i < n; i++) {
        notify_resource_updated(srv, uris[i]);
        free(uris[i]);
    }
    free(uris);
}
