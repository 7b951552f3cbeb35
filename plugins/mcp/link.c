/*
 * link.c: one external server and the conversation with it. A thread of the link's own
 * starts the process, runs the handshake, reads every line the server writes, and restarts
 * it when it ends: after MCP_BACKOFF_FIRST_MS, doubling up to MCP_BACKOFF_MAX_MS, the count
 * of crashes starting again after MCP_UPTIME_RESET_MS of uptime, down after
 * MCP_CRASHES_DOWN in a row. Calls write their requests themselves (wlock) and wait on the
 * link's condition for the answer, for the server's progress notifications and for the
 * questions it asks on their behalf. The process is started by the link's thread, so
 * PR_SET_PDEATHSIG kills it when that thread ends: when the link stops, or mcph dies.
 *
 * A link outlives the instance that opened it when a rebuild takes it over (see mcp.c), so
 * the host it reports to is the newest instance attached, under hlock.
 */
#include "mcp.h"

#include "mcph-json.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void link_now(struct timespec *ts)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
}

static int64_t link_ms_since(const struct timespec *t)
{
    struct timespec now;

    link_now(&now);
    return (int64_t)(now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

static void link_after(struct timespec *ts, int64_t ms)
{
    link_now(ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

/* Wait on the link's condition until ts (CLOCK_MONOTONIC). lock held. */
static int link_timedwait(struct mcp_link *l, const struct timespec *ts)
{
    return pthread_cond_timedwait(&l->cond, &l->lock, ts);
}

void mcp_event_free(struct mcp_event *ev)
{
    if (ev == NULL)
        return;
    cJSON_Delete(ev->msg);
    free(ev);
}

static void link_wake(struct mcp_link *l)
{
    char c = 1;

    while (write(l->wake[1], &c, 1) < 0 && errno == EINTR)
        ;
}

/* --- Writing. ---
 *
 * The server's stdin is non-blocking and nobody waits on it: what a write() does not take at
 * once waits in l->out, and the link's thread writes it when the pipe has room. A server that
 * takes no byte of it for link_write_ms(), or lets more than MCP_OUT_MAX bytes pile up, is hung:
 * killed, and restarted as after a crash. So a call, the reader answering the server's pings,
 * a reload and a shutdown never block on a server that stopped reading. */

/* How long a server may leave its stdin unread while something waits for it. */
static int link_write_ms(const struct mcp_link *l)
{
    if (l->spec.call_timeout_ms > 0 && l->spec.call_timeout_ms < MCP_WRITE_MS)
        return l->spec.call_timeout_ms;
    return MCP_WRITE_MS;
}

static void link_out_free(struct mcp_link *l)
{
    while (l->out != NULL) {
        struct mcp_out *o = l->out;

        l->out = o->next;
        free(o->text);
        free(o);
    }
    l->out_tail = &l->out;
    l->out_bytes = 0;
}

/* The process does not read its stdin: it is killed, its link's thread reaps it and fails its
 * requests with why. wlock held. */
static void link_hung(struct mcp_link *l, const char *why)
{
    l->out_dead = 1;
    link_out_free(l);
    pthread_mutex_lock(&l->lock);
    if (l->pid != 0 && l->ended[0] == '\0') {
        snprintf(l->ended, sizeof(l->ended), "%s", why);
        l->timed_out = 1; /* its SIGKILL is not news */
        kill(-l->pid, SIGKILL);
    }
    pthread_mutex_unlock(&l->lock);
}

/* Write what waits, as much as the pipe takes now. Returns MCPH_OK, or MCPH_ERR when the
 * server's stdin is gone (what waited is dropped). wlock held. */
static int link_flush(struct mcp_link *l)
{
    while (l->out != NULL && l->to >= 0) {
        struct mcp_out *o = l->out;
        ssize_t n = write(l->to, o->text + o->off, o->len - o->off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return MCPH_OK;
        if (n <= 0)
            break;
        o->off += (size_t)n;
        l->out_bytes -= (size_t)n;
        link_now(&l->out_since);
        if (o->off == o->len) {
            l->out = o->next;
            if (l->out == NULL)
                l->out_tail = &l->out;
            free(o->text);
            free(o);
        }
    }
    if (l->out == NULL)
        return MCPH_OK;
    link_out_free(l);
    return MCPH_ERR;
}

/* One message, one line: written at once, or queued behind what waits. Never blocks. Returns
 * MCPH_OK, or MCPH_ERR when the server's stdin is gone or the server is hung. */
static int link_write(struct mcp_link *l, const cJSON *msg)
{
    char *text = cJSON_PrintUnformatted(msg);
    struct mcp_out *o = NULL;
    size_t len, off = 0;
    int rc = MCPH_OK, wake = 0;

    if (text == NULL)
        return MCPH_ERR_NOMEM;
    len = strlen(text);
    text[len++] = '\n'; /* over the NUL: written by length */
    pthread_mutex_lock(&l->wlock);
    if (l->to < 0 || l->out_dead) {
        rc = MCPH_ERR;
        goto out;
    }
    while (l->out == NULL && off < len) {
        ssize_t n = write(l->to, text + off, len - off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            rc = MCPH_ERR;
            goto out;
        }
        off += (size_t)n;
    }
    if (off == len)
        goto out;
    if (l->out_bytes + (len - off) > MCP_OUT_MAX) {
        char why[160];

        snprintf(why, sizeof(why),
                 "stopped reading its stdin (over %u MiB waited to be written) and was killed",
                 MCP_OUT_MAX >> 20);
        link_hung(l, why);
        rc = MCPH_ERR;
        goto out;
    }
    o = calloc(1, sizeof(*o));
    if (o == NULL) {
        rc = MCPH_ERR_NOMEM;
        goto out;
    }
    o->text = text;
    o->len = len;
    o->off = off;
    text = NULL;
    if (l->out == NULL) {
        link_now(&l->out_since);
        wake = 1;
    }
    *l->out_tail = o;
    l->out_tail = &o->next;
    l->out_bytes += len - off;
out:
    pthread_mutex_unlock(&l->wlock);
    free(text);
    if (wake)
        link_wake(l); /* the link's thread now waits for room in the pipe too */
    return rc;
}

/* How long what waits for the server's stdin has not moved (0: nothing waits). */
static int64_t link_stalled_ms(struct mcp_link *l)
{
    int64_t ms = 0;

    pthread_mutex_lock(&l->wlock);
    if (l->out != NULL)
        ms = link_ms_since(&l->out_since);
    pthread_mutex_unlock(&l->wlock);
    return ms;
}

static cJSON *link_message(const char *method, cJSON *params)
{
    cJSON *msg = cJSON_CreateObject();

    if (msg == NULL) {
        cJSON_Delete(params);
        return NULL;
    }
    cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
    cJSON_AddStringToObject(msg, "method", method);
    if (params != NULL)
        cJSON_AddItemToObject(msg, "params", params);
    return msg;
}

void mcp_link_notify(struct mcp_link *l, const char *method, cJSON *params)
{
    cJSON *msg = link_message(method, params);

    if (msg != NULL)
        link_write(l, msg);
    cJSON_Delete(msg);
}

void mcp_link_respond(struct mcp_link *l, const cJSON *id, cJSON *result, int code,
                      const char *message)
{
    cJSON *msg = cJSON_CreateObject();

    if (msg == NULL) {
        cJSON_Delete(result);
        return;
    }
    cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
    cJSON_AddItemToObject(msg, "id", cJSON_Duplicate(id, 1));
    if (result != NULL) {
        cJSON_AddItemToObject(msg, "result", result);
    } else {
        cJSON *err = cJSON_AddObjectToObject(msg, "error");

        cJSON_AddNumberToObject(err, "code", code);
        cJSON_AddStringToObject(err, "message", message);
    }
    link_write(l, msg);
    cJSON_Delete(msg);
}

/* A request nobody waits for in a pending entry (an answer that finds none is dropped, unless
 * the caller kept the id). Returns the id, or 0 when it could not be written. */
static int64_t link_fire(struct mcp_link *l, const char *method, cJSON *params)
{
    cJSON *msg = link_message(method, params);
    int64_t id;

    if (msg == NULL)
        return 0;
    pthread_mutex_lock(&l->lock);
    id = ++l->next_id;
    pthread_mutex_unlock(&l->lock);
    cJSON_AddNumberToObject(msg, "id", (double)id);
    if (link_write(l, msg) != MCPH_OK)
        id = 0;
    cJSON_Delete(msg);
    return id;
}

/* --- Requests waiting for their answer. lock held for each. --- */

static struct mcp_pending *link_find(struct mcp_link *l, int64_t id)
{
    for (struct mcp_pending *p = l->pending; p != NULL; p = p->next) {
        if (p->id == id)
            return p;
    }
    return NULL;
}

static void link_unlist(struct mcp_link *l, struct mcp_pending *p)
{
    for (struct mcp_pending **pp = &l->pending; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            return;
        }
    }
}

static void link_pending_free(struct mcp_pending *p)
{
    while (p->events != NULL) {
        struct mcp_event *ev = p->events;

        p->events = ev->next;
        mcp_event_free(ev);
    }
    for (size_t i = 0; i < p->nasked; i++) {
        free(p->asked[i].method);
        free(p->asked[i].params);
    }
    free(p->asked);
    cJSON_Delete(p->open_id);
    cJSON_Delete(p->reply);
    free(p->failure);
    free(p->park_key);
    free(p);
}

static void link_push_event(struct mcp_link *l, struct mcp_pending *p, cJSON *msg)
{
    struct mcp_event *ev = calloc(1, sizeof(*ev));

    if (ev == NULL) {
        cJSON_Delete(msg);
        return;
    }
    ev->msg = msg;
    *p->tail = ev;
    p->tail = &ev->next;
    pthread_cond_broadcast(&l->cond);
}

/* Every request sent to process gen gets failure (a copy of why). */
static void link_fail_all(struct mcp_link *l, uint64_t gen, const char *why)
{
    for (struct mcp_pending *p = l->pending; p != NULL; p = p->next) {
        if (p->gen == gen && p->reply == NULL && p->failure == NULL)
            p->failure = strdup(why);
    }
    pthread_cond_broadcast(&l->cond);
}

/* --- The host, from the link's thread. --- */

static void link_log(struct mcp_link *l, enum mcph_log_level level, const char *fmt, ...)
    MCPH_PRINTF(3, 4);

static void link_log(struct mcp_link *l, enum mcph_log_level level, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    pthread_mutex_lock(&l->hlock);
    if (l->host != NULL)
        l->host->vlog(l->host, level, fmt, ap);
    pthread_mutex_unlock(&l->hlock);
    va_end(ap);
}

/* Log at error level and tell the client (notifications/message). */
static void link_alert(struct mcp_link *l, const char *text)
{
    cJSON *data = cJSON_CreateString(text);
    char *json = data != NULL ? cJSON_PrintUnformatted(data) : NULL;

    pthread_mutex_lock(&l->hlock);
    if (l->host != NULL) {
        l->host->log(l->host, MCPH_LOG_ERROR, "%s", text);
        if (json != NULL)
            l->host->client_log(l->host, MCPH_LOG_ERROR, NULL, json);
    }
    pthread_mutex_unlock(&l->hlock);
    free(json);
    cJSON_Delete(data);
}

/* --- Messages from the server. --- */

static const char *const link_levels[] = {"debug", "info",     "notice", "warning",
                                          "error", "critical", "alert",  "emergency"};

static void link_on_log(struct mcp_link *l, const cJSON *params)
{
    const cJSON *level = cJSON_GetObjectItemCaseSensitive(params, "level");
    const cJSON *logger = cJSON_GetObjectItemCaseSensitive(params, "logger");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(params, "data");
    int lv = MCPH_LOG_INFO;
    char *json;

    for (int i = 0; cJSON_IsString(level) && i < 8; i++) {
        if (strcmp(level->valuestring, link_levels[i]) == 0)
            lv = i;
    }
    json = data != NULL ? cJSON_PrintUnformatted(data) : strdup("null");
    if (json == NULL)
        return;
    pthread_mutex_lock(&l->hlock);
    if (l->host != NULL)
        l->host->client_log(l->host, (enum mcph_log_level)lv,
                            cJSON_IsString(logger) ? logger->valuestring : NULL, json);
    pthread_mutex_unlock(&l->hlock);
    free(json);
}

static void link_on_notification(struct mcp_link *l, const char *method, cJSON *msg)
{
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");

    if (strcmp(method, "notifications/progress") == 0) {
        const cJSON *token = cJSON_GetObjectItemCaseSensitive(params, "progressToken");
        struct mcp_pending *p;

        if (!cJSON_IsNumber(token))
            return;
        pthread_mutex_lock(&l->lock);
        p = link_find(l, (int64_t)token->valuedouble);
        /* A parked call has nobody to report to; the next progress carries the latest. A
         * progress not taken yet is replaced by the newer one: a server's flood of progress
         * queues nothing. */
        if (p != NULL && p->reply == NULL && !p->parked) {
            struct mcp_event *last =
                p->events == NULL ? NULL
                                  : (struct mcp_event *)(void *)((char *)p->tail -
                                                                 offsetof(struct mcp_event, next));

            if (last != NULL && cJSON_GetObjectItemCaseSensitive(last->msg, "id") == NULL) {
                cJSON_Delete(last->msg);
                last->msg = cJSON_Duplicate(msg, 1);
            } else {
                link_push_event(l, p, cJSON_Duplicate(msg, 1));
            }
        }
        pthread_mutex_unlock(&l->lock);
    } else if (strcmp(method, "notifications/message") == 0) {
        link_on_log(l, params);
    } else if (strcmp(method, "notifications/resources/updated") == 0) {
        const cJSON *uri = cJSON_GetObjectItemCaseSensitive(params, "uri");

        pthread_mutex_lock(&l->hlock);
        if (l->host != NULL && cJSON_IsString(uri))
            l->host->resource_updated(l->host, uri->valuestring);
        pthread_mutex_unlock(&l->hlock);
    } else if (strcmp(method, "notifications/tools/list_changed") == 0 ||
               strcmp(method, "notifications/resources/list_changed") == 0 ||
               strcmp(method, "notifications/prompts/list_changed") == 0) {
        /* A rebuild takes the link over and lists again; mcph tells the client about the
         * lists that really changed. */
        pthread_mutex_lock(&l->hlock);
        if (l->host != NULL)
            l->host->refresh(l->host);
        pthread_mutex_unlock(&l->hlock);
    }
}

/* The call a question of the server's belongs to: over stdio a request names no call, so the
 * call sent last that takes questions and is not parked (a server asks soon after it was
 * called, most often while an older call goes on). lock held. */
static struct mcp_pending *link_asker(struct mcp_link *l)
{
    for (struct mcp_pending *p = l->pending; p != NULL; p = p->next) {
        if (p->asks && !p->parked && p->gen == l->gen && p->reply == NULL && p->failure == NULL)
            return p; /* the list is newest first */
    }
    return NULL;
}

static void link_on_request(struct mcp_link *l, const char *method, cJSON *msg)
{
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const char *refused = NULL;
    struct mcp_pending *p;
    char text[128];

    if (strcmp(method, "ping") == 0) {
        mcp_link_respond(l, id, cJSON_CreateObject(), 0, NULL);
        return;
    }
    if (strcmp(method, "sampling/createMessage") != 0 &&
        strcmp(method, "elicitation/create") != 0 && strcmp(method, "roots/list") != 0) {
        mcp_link_respond(l, id, NULL, -32601, "method not found");
        return;
    }
    pthread_mutex_lock(&l->lock);
    p = link_asker(l);
    if (p != NULL && p->questions >= MCP_CALL_ASKS_MAX) {
        snprintf(text, sizeof(text), "mcph passes at most %d questions of one call to its client",
                 MCP_CALL_ASKS_MAX);
        refused = text;
    } else if (p != NULL) {
        int waiting = 0;

        for (const struct mcp_pending *q = l->pending; q != NULL; q = q->next)
            waiting += q->queued;
        if (waiting >= MCP_LINK_ASKS_MAX) {
            snprintf(text, sizeof(text),
                     "mcph keeps at most %d questions of the server's waiting for their calls",
                     MCP_LINK_ASKS_MAX);
            refused = text;
        } else {
            p->questions++;
            p->queued++;
            link_push_event(l, p, cJSON_Duplicate(msg, 1));
        }
    }
    pthread_mutex_unlock(&l->lock);
    if (p == NULL)
        refused = "no call is in progress through which mcph could ask its client";
    if (refused != NULL)
        mcp_link_respond(l, id, NULL, -32603, refused);
}

/* Subscriptions held at the server, made again after a restart. */
static void link_resubscribe(struct mcp_link *l)
{
    if (l->modern)
        return; /* link_on_discover opened a listen request with them */
    pthread_mutex_lock(&l->lock);
    for (size_t i = 0; i < l->nsubs; i++) {
        cJSON *params = cJSON_CreateObject();

        cJSON_AddStringToObject(params, "uri", l->subs[i]);
        pthread_mutex_unlock(&l->lock);
        link_fire(l, "resources/subscribe", params);
        pthread_mutex_lock(&l->lock);
    }
    pthread_mutex_unlock(&l->lock);
}

/* After a restart's handshake the subscriptions are made again, and a rebuild lists what the
 * new process serves. */
static void link_restarted(struct mcp_link *l)
{
    link_log(l, MCPH_LOG_INFO, "%s '%s' serves again", mcp_noun(&l->spec), l->spec.display);
    link_resubscribe(l);
    pthread_mutex_lock(&l->hlock);
    if (l->host != NULL)
        l->host->refresh(l->host);
    pthread_mutex_unlock(&l->hlock);
}

/* The answer to initialize: check it, say initialized, and serve. */
static void link_on_init(struct mcp_link *l, cJSON *msg)
{
    cJSON *result = cJSON_DetachItemFromObjectCaseSensitive(msg, "result");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(result, "protocolVersion");
    int restarted, logging;

    if (!cJSON_IsObject(result) || !cJSON_IsString(version)) {
        pthread_mutex_lock(&l->lock);
        snprintf(l->ended, sizeof(l->ended), "refused initialize");
        pthread_mutex_unlock(&l->lock);
        cJSON_Delete(result);
        kill(-l->pid, SIGKILL);
        return;
    }
    mcp_link_notify(l, "notifications/initialized", NULL);
    pthread_mutex_lock(&l->lock);
    cJSON_Delete(l->init_result);
    l->init_result = result;
    l->init_id = 0;
    l->modern = 0;
    l->state = MCP_UP;
    logging = cJSON_GetObjectItemCaseSensitive(
                  cJSON_GetObjectItemCaseSensitive(result, "capabilities"), "logging") != NULL;
    link_now(&l->up_since);
    restarted = l->gen > 1;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
    if (logging) {
        /* Every level: the client's own choice decides what reaches it (client_log). */
        cJSON *params = cJSON_CreateObject();

        cJSON_AddStringToObject(params, "level", "debug");
        link_fire(l, "logging/setLevel", params);
    }
    if (restarted)
        link_restarted(l);
}

static int link_send_initialize(struct mcp_link *l);
static void link_listen(struct mcp_link *l);

/* The answer to server/discover: a server that lists MCP_MODERN is spoken to that way, from
 * now on with no session; any other answer (an error from a server that wants initialize
 * first) and the handshake goes on with initialize. */
static void link_on_discover(struct mcp_link *l, cJSON *msg)
{
    cJSON *result = cJSON_GetObjectItemCaseSensitive(msg, "result");
    const cJSON *versions = cJSON_GetObjectItemCaseSensitive(result, "supportedVersions");
    const cJSON *v;
    int restarted, modern = 0;

    cJSON_ArrayForEach(v, versions)
    {
        if (cJSON_IsString(v) && strcmp(v->valuestring, MCP_MODERN) == 0)
            modern = 1;
    }
    if (!modern || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(result, "capabilities"))) {
        link_send_initialize(l);
        return;
    }
    pthread_mutex_lock(&l->lock);
    cJSON_Delete(l->init_result);
    l->init_result = cJSON_DetachItemFromObjectCaseSensitive(msg, "result");
    l->init_id = 0;
    l->discovering = 0;
    l->modern = 1;
    l->state = MCP_UP;
    link_now(&l->up_since);
    restarted = l->gen > 1;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
    link_listen(l);
    if (restarted)
        link_restarted(l);
}

static void link_on_response(struct mcp_link *l, const cJSON *id, cJSON *msg)
{
    struct mcp_pending *p;
    int64_t n;

    if (!cJSON_IsNumber(id))
        return;
    n = (int64_t)id->valuedouble;
    pthread_mutex_lock(&l->lock);
    if (n == l->init_id && l->init_id != 0) {
        int discovering = l->discovering;

        pthread_mutex_unlock(&l->lock);
        if (discovering)
            link_on_discover(l, msg);
        else
            link_on_init(l, msg);
        return;
    }
    p = link_find(l, n);
    if (p != NULL && p->reply == NULL) {
        p->reply = cJSON_Duplicate(msg, 1);
        pthread_cond_broadcast(&l->cond);
    }
    pthread_mutex_unlock(&l->lock);
}

/* The id of a reply (a message with an "id" and no "method"), read from its text without
 * parsing the rest: 1 and *id when the line is one with a number for id, else 0. */
static int link_peek_reply(const char *line, size_t len, int64_t *id)
{
    const char *text;
    size_t n;
    cJSON *value;
    int ok;

    if (mcph_json_member(line, len, "method", &text, &n) ||
        !mcph_json_member(line, len, "id", &text, &n) || n > 64)
        return 0;
    value = cJSON_ParseWithLength(text, n);
    ok = cJSON_IsNumber(value);
    if (ok)
        *id = (int64_t)value->valuedouble;
    cJSON_Delete(value);
    return ok;
}

/* Whether a request with id waits for its answer (the handshake's included). */
static int link_awaited(struct mcp_link *l, int64_t id)
{
    const struct mcp_pending *p;
    int awaited;

    pthread_mutex_lock(&l->lock);
    p = link_find(l, id);
    awaited =
        (id == l->init_id && id != 0) || (p != NULL && p->reply == NULL && p->failure == NULL);
    pthread_mutex_unlock(&l->lock);
    return awaited;
}

/* The request id will have no answer: its call fails with why (the server named before it). */
static void link_fail_reply(struct mcp_link *l, int64_t id, const char *why)
{
    struct mcp_pending *p;

    link_log(l, MCPH_LOG_WARNING, "the %s %s (request %" PRId64 ")", mcp_noun(&l->spec), why, id);
    pthread_mutex_lock(&l->lock);
    p = link_find(l, id);
    if (p != NULL && p->reply == NULL && p->failure == NULL) {
        p->failure = strdup(why);
        pthread_cond_broadcast(&l->cond);
    }
    pthread_mutex_unlock(&l->lock);
}

/* A line past MCPH_JSON_COST_MAX once parsed: never parsed. A reply fails its call; anything
 * else is dropped with a warning naming its method. */
static void link_too_costly(struct mcp_link *l, const char *line, size_t len, int reply, int64_t id,
                            size_t values, size_t cost)
{
    struct mcph_strbuf why = MCPH_STRBUF_INIT;
    const char *method;
    size_t n;

    mcph_sb_addf(&why, "sent a %s of %zu JSON values that would take %zu MiB once parsed, over ",
                 reply ? "reply" : "message", values, cost >> 20);
    mcph_sb_addf(&why, "mcph's limit of %u MiB per message (%u bytes per value besides its text)",
                 MCPH_JSON_COST_MAX >> 20, MCPH_JSON_VALUE_COST);
    if (reply) {
        link_fail_reply(l, id, why.buf);
    } else {
        if (mcph_json_member(line, len, "method", &method, &n)) {
            if (n >= 2 && method[0] == '"') {
                method++;
                n -= 2;
            }
            mcph_sb_addstr(&why, " (method ");
            mcph_sb_addjson(&why, method, n < 64 ? n : 64);
            mcph_sb_addstr(&why, ")");
        }
        link_log(l, MCPH_LOG_WARNING, "the %s %s; dropped", mcp_noun(&l->spec), why.buf);
    }
    mcph_sb_release(&why);
}

/* A line that is not a JSON-RPC message: a reply whose id could be read fails its call (it
 * would wait for ever); anything else (some servers print banners) is logged, escaped and cut,
 * once and then every 100th. */
static void link_not_jsonrpc(struct mcp_link *l, const char *line, size_t len, int reply,
                             int64_t id)
{
    struct mcph_strbuf text = MCPH_STRBUF_INIT;

    if (reply) {
        link_fail_reply(l, id, "sent a reply that is not valid JSON");
        return;
    }
    if (l->noise++ % 100 != 0)
        return;
    mcph_sb_addjson(&text, line, len < 80 ? len : 80);
    link_log(l, MCPH_LOG_WARNING,
             "the %s wrote a line that is not JSON-RPC (%u so far); ignored: %s%s",
             mcp_noun(&l->spec), l->noise, text.buf, len > 80 ? " (cut)" : "");
    mcph_sb_release(&text);
}

static void link_on_message(struct mcp_link *l, cJSON *msg)
{
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");

    if (cJSON_IsString(method) && id != NULL)
        link_on_request(l, method->valuestring, msg);
    else if (cJSON_IsString(method))
        link_on_notification(l, method->valuestring, msg);
    else if (id != NULL)
        link_on_response(l, id, msg);
}

/* One line from the server. A long one (long enough for its cost to be counted) is looked at
 * before it is parsed: a reply nobody waits for is dropped unparsed, and what would cost too
 * much once parsed never is. A short one is parsed as it comes, at no extra cost. */
static void link_on_line(struct mcp_link *l, const char *line, size_t len)
{
    size_t values, cost;
    int over = mcph_json_over(line, len, MCPH_JSON_COST_MAX, &values, &cost);
    int64_t id = 0;
    int reply = values != 0 && link_peek_reply(line, len, &id);
    cJSON *msg;

    if (reply && !link_awaited(l, id)) {
        link_log(l, MCPH_LOG_DEBUG,
                 "a reply to request %" PRId64 " (%zu bytes) that no request "
                 "waits for; dropped",
                 id, len);
        return;
    }
    if (over) {
        link_too_costly(l, line, len, reply, id, values, cost);
        return;
    }
    msg = cJSON_ParseWithLength(line, len);
    if (cJSON_IsObject(msg)) {
        mcp_json_mark_cut(msg, line, len);
        link_on_message(l, msg);
    } else {
        if (values == 0)
            reply = link_peek_reply(line, len, &id);
        link_not_jsonrpc(l, line, len, reply && msg == NULL, id);
    }
    cJSON_Delete(msg);
    /* What a costly message left free goes back to the system. */
    mcph_json_trim(cost);
}

/* --- The process. --- */

/* What mcph says of itself as a client, in initialize and in every MCP_MODERN request. */
static void link_client(struct mcp_link *l, cJSON *to, const char *caps_key, const char *info_key)
{
    cJSON *caps = cJSON_AddObjectToObject(to, caps_key);
    cJSON *info = cJSON_AddObjectToObject(to, info_key);

    cJSON_AddObjectToObject(caps, "sampling");
    cJSON_AddObjectToObject(caps, "elicitation");
    cJSON_AddObjectToObject(caps, "roots");
    cJSON_AddStringToObject(info, "name", "mcph");
    pthread_mutex_lock(&l->hlock);
    cJSON_AddStringToObject(info, "version", l->host != NULL ? l->host->version : "");
    pthread_mutex_unlock(&l->hlock);
}

/* A handshake request. Its answer is read by this same thread (the link's), so the id is
 * recorded after the write. */
static int link_handshake(struct mcp_link *l, const char *method, cJSON *params, int discovering)
{
    int64_t id = link_fire(l, method, params);

    pthread_mutex_lock(&l->lock);
    l->init_id = id;
    l->discovering = discovering;
    pthread_mutex_unlock(&l->lock);
    return id != 0 ? MCPH_OK : MCPH_ERR;
}

static int link_send_initialize(struct mcp_link *l)
{
    cJSON *params = cJSON_CreateObject();

    cJSON_AddStringToObject(params, "protocolVersion", MCP_PROTOCOL);
    link_client(l, params, "capabilities", "clientInfo");
    return link_handshake(l, "initialize", params, 0);
}

/* The client's side of every MCP_MODERN request: who it is and what it can do. */
static void link_add_meta(struct mcp_link *l, cJSON *params)
{
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");

    if (meta == NULL)
        meta = cJSON_AddObjectToObject(params, "_meta");
    if (!cJSON_IsObject(meta))
        return;
    cJSON_AddStringToObject(meta, "io.modelcontextprotocol/protocolVersion", MCP_MODERN);
    link_client(l, meta, "io.modelcontextprotocol/clientCapabilities",
                "io.modelcontextprotocol/clientInfo");
    /* The client's own level decides what reaches it (client_log); the server sends all. */
    cJSON_AddStringToObject(meta, "io.modelcontextprotocol/logLevel", "debug");
}

int mcp_link_modern(struct mcp_link *l)
{
    int modern;

    pthread_mutex_lock(&l->lock);
    modern = l->modern;
    pthread_mutex_unlock(&l->lock);
    return modern;
}

void mcp_link_request_meta(struct mcp_link *l, cJSON *params)
{
    if (mcp_link_modern(l))
        link_add_meta(l, params);
}

/* The handshake starts with server/discover, which a server of MCP_MODERN answers. */
static int link_send_discover(struct mcp_link *l)
{
    cJSON *params = cJSON_CreateObject();

    if (params == NULL)
        return MCPH_ERR_NOMEM;
    link_add_meta(l, params);
    return link_handshake(l, "server/discover", params, 1);
}

/* A MCP_MODERN server sends list_changed and resources/updated only on an open
 * subscriptions/listen request: one stays open, made again when the URIs followed change. */
static void link_listen(struct mcp_link *l)
{
    cJSON *params = cJSON_CreateObject();
    cJSON *filter = cJSON_AddObjectToObject(params, "notifications");
    cJSON *uris;
    int64_t old, id;

    cJSON_AddBoolToObject(filter, "toolsListChanged", 1);
    cJSON_AddBoolToObject(filter, "resourcesListChanged", 1);
    cJSON_AddBoolToObject(filter, "promptsListChanged", 1);
    uris = cJSON_AddArrayToObject(filter, "resourceSubscriptions");
    pthread_mutex_lock(&l->lock);
    for (size_t i = 0; i < l->nsubs; i++)
        cJSON_AddItemToArray(uris, cJSON_CreateString(l->subs[i]));
    pthread_mutex_unlock(&l->lock);
    link_add_meta(l, params);
    id = link_fire(l, "subscriptions/listen", params);
    pthread_mutex_lock(&l->lock);
    old = l->listen_id;
    l->listen_id = id;
    pthread_mutex_unlock(&l->lock);
    if (old != 0) {
        cJSON *cancel = cJSON_CreateObject();

        cJSON_AddNumberToObject(cancel, "requestId", (double)old);
        mcp_link_notify(l, "notifications/cancelled", cancel);
    }
}

/* Start a process; the handshake follows in the read loop. */
static int link_start(struct mcp_link *l)
{
    struct mcph_strbuf why = MCPH_STRBUF_INIT;
    pid_t pid;
    int to, from;

    if (mcp_spawn(&l->spec, &pid, &to, &from, &why) != MCPH_OK) {
        pthread_mutex_lock(&l->lock);
        snprintf(l->ended, sizeof(l->ended), "could not start: %s", why.buf);
        pthread_mutex_unlock(&l->lock);
        mcph_sb_release(&why);
        return MCPH_ERR;
    }
    mcph_sb_release(&why);
    /* Ours alone (the child has its own end): writes never block (see link_write). */
    fcntl(to, F_SETFL, fcntl(to, F_GETFL) | O_NONBLOCK);
    pthread_mutex_lock(&l->wlock);
    link_out_free(l);
    l->out_dead = 0;
    pthread_mutex_lock(&l->lock);
    l->pid = pid;
    l->to = to;
    l->from = from;
    l->gen++;
    l->noise = 0;
    l->listen_id = 0;
    l->ended[0] = '\0';
    l->timed_out = 0;
    pthread_mutex_unlock(&l->lock);
    pthread_mutex_unlock(&l->wlock);
    return link_send_discover(l);
}

/* Read lines until the server's stdout ends or the link stops; during the handshake, at most
 * the start-up deadline. */
static void link_read(struct mcp_link *l)
{
    struct mcph_strbuf buf = MCPH_STRBUF_INIT;
    struct timespec started;
    size_t scan = 0;

    link_now(&started);
    for (;;) {
        struct pollfd fds[3] = {{.fd = l->from, .events = POLLIN},
                                {.fd = l->wake[0], .events = POLLIN},
                                {.fd = -1, .events = POLLOUT}};
        int handshake, timeout = -1;
        int64_t stalled;
        ssize_t n;

        /* What waits for the server's stdin: written when the pipe has room, and a server
         * that takes none of it for link_write_ms() is hung. */
        pthread_mutex_lock(&l->wlock);
        if (link_flush(l) == MCPH_OK && l->out != NULL) {
            fds[2].fd = l->to;
            stalled = link_ms_since(&l->out_since);
            if (stalled >= link_write_ms(l)) {
                char why[160];

                snprintf(why, sizeof(why),
                         "took none of its stdin for %d ms (%s; %zu bytes waited) and was killed",
                         link_write_ms(l),
                         link_write_ms(l) < MCP_WRITE_MS ? "call_timeout_ms" : "MCP_WRITE_MS",
                         l->out_bytes);
                link_hung(l, why);
                fds[2].fd = -1;
            } else {
                timeout = (int)(link_write_ms(l) - stalled);
            }
        }
        pthread_mutex_unlock(&l->wlock);
        pthread_mutex_lock(&l->lock);
        handshake = l->state != MCP_UP;
        if (l->stop) {
            pthread_mutex_unlock(&l->lock);
            break;
        }
        pthread_mutex_unlock(&l->lock);
        if (handshake) {
            int64_t spent = link_ms_since(&started);
            int64_t left = l->spec.startup_ms - spent;
            /* A server that leaves server/discover unanswered gets initialize after a third
             * of the start-up time. */
            int64_t discover_left = l->spec.startup_ms / 3 - spent;
            int discovering;

            pthread_mutex_lock(&l->lock);
            discovering = l->discovering;
            pthread_mutex_unlock(&l->lock);
            if (discovering && discover_left <= 0) {
                link_send_initialize(l);
                continue;
            }
            if (left <= 0) {
                pthread_mutex_lock(&l->lock);
                snprintf(l->ended, sizeof(l->ended), "did not answer initialize within %d ms",
                         l->spec.startup_ms);
                pthread_mutex_unlock(&l->lock);
                break;
            }
            left = discovering && discover_left < left ? discover_left : left;
            if (timeout < 0 || left < timeout)
                timeout = (int)left;
        }
        if (poll(fds, 3, timeout) < 0 && errno != EINTR)
            break;
        if (fds[1].revents != 0) {
            char drain[64];

            while (read(l->wake[0], drain, sizeof(drain)) < 0 && errno == EINTR)
                ;
            continue;
        }
        if (fds[0].revents == 0)
            continue;
        if (mcph_sb_grow(&buf, 65536) != 0)
            break;
        n = read(l->from, buf.buf + buf.len, 65536);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        buf.len += (size_t)n; /* read into the room grow made */
        buf.buf[buf.len] = '\0';
        for (;;) {
            char *nl = memchr(buf.buf + scan, '\n', buf.len - scan);
            size_t len;

            if (nl == NULL) {
                scan = buf.len;
                break;
            }
            len = (size_t)(nl - buf.buf);
            link_on_line(l, buf.buf, len);
            memmove(buf.buf, nl + 1, buf.len - len - 1);
            mcph_sb_setlen(&buf, buf.len - len - 1);
            scan = 0;
        }
        /* The room a large line took is not kept for the next ones. */
        if (buf.alloc > MCP_READ_KEEP && buf.len < MCP_READ_KEEP / 2) {
            struct mcph_strbuf rest = MCPH_STRBUF_INIT;
            size_t freed = buf.alloc;

            if (mcph_sb_add(&rest, buf.buf, buf.len) == MCPH_OK) {
                mcph_sb_release(&buf);
                buf = rest;
                /* glibc serves blocks this size from the heap once one was freed: give it
                 * back too. */
                mcph_json_trim(freed);
            }
        }
        if (buf.len > MCP_LINE_MAX) {
            pthread_mutex_lock(&l->lock);
            snprintf(l->ended, sizeof(l->ended), "wrote a line longer than %u bytes", MCP_LINE_MAX);
            pthread_mutex_unlock(&l->lock);
            break;
        }
    }
    mcph_sb_release(&buf);
}

/* The process after its stdout ended: closed, stopped if it lingers, reaped, and described. */
static void link_reap(struct mcp_link *l)
{
    char how[96];
    int st = 0, waited = 0;
    pid_t pid = l->pid;

    pthread_mutex_lock(&l->wlock);
    if (l->to >= 0)
        close(l->to);
    l->to = -1;
    link_out_free(l);
    pthread_mutex_unlock(&l->wlock);
    close(l->from);
    l->from = -1;
    for (int i = 0; i < MCP_STOP_GRACE_MS / 10 && !waited; i++) {
        pid_t r = waitpid(pid, &st, WNOHANG);

        if (r == pid || (r < 0 && errno != EINTR))
            waited = r == pid;
        if (r == pid || (r < 0 && errno == ECHILD))
            break;
        if (i == MCP_STOP_GRACE_MS / 50)
            kill(-pid, SIGTERM);
        usleep(10000);
    }
    if (!waited) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    kill(-pid, SIGKILL); /* what it started in its group */
    mcp_describe_end(st, how, sizeof(how));
    pthread_mutex_lock(&l->lock);
    l->config_exited =
        l->spec.config_exit != 0 && WIFEXITED(st) && WEXITSTATUS(st) == l->spec.config_exit;
    /* Asked to stop: an end other than exit 0 or the signals sent is told by the unref. */
    if (l->stop && !(WIFEXITED(st) && WEXITSTATUS(st) == 0) &&
        !(WIFSIGNALED(st) && (WTERMSIG(st) == SIGTERM || WTERMSIG(st) == SIGKILL)))
        snprintf(l->stop_end, sizeof(l->stop_end), "%s", how);
    if (l->ended[0] == '\0')
        snprintf(l->ended, sizeof(l->ended), "%s", how);
    /* A kill for call_timeout_ms is said already. */
    else if (!(l->timed_out && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) &&
             strlen(l->ended) + strlen(how) + 8 < sizeof(l->ended))
        snprintf(l->ended + strlen(l->ended), sizeof(l->ended) - strlen(l->ended), " (then %s)",
                 how);
    l->pid = 0;
    pthread_mutex_unlock(&l->lock);
}

/* Wait ms or until asked to stop (lock held). Returns 1 when asked to stop. */
static int link_pause(struct mcp_link *l, int64_t ms)
{
    struct timespec until;

    link_after(&until, ms);
    while (!l->stop && !l->retry) {
        if (link_timedwait(l, &until) == ETIMEDOUT)
            break;
    }
    return l->stop;
}

static void *link_thread(void *arg)
{
    struct mcp_link *l = arg;
    int first = 1;

    for (;;) {
        char text[320];
        int started = link_start(l) == MCPH_OK;
        int64_t backoff;

        if (started)
            link_read(l);
        if (l->pid != 0)
            link_reap(l);
        pthread_mutex_lock(&l->lock);
        link_fail_all(l, l->gen, l->ended);
        if (l->stop || (first && l->state != MCP_UP)) {
            l->state = MCP_STOPPED;
            pthread_cond_broadcast(&l->cond);
            pthread_mutex_unlock(&l->lock);
            return NULL;
        }
        first = 0;
        if (l->state == MCP_UP && link_ms_since(&l->up_since) >= MCP_UPTIME_RESET_MS)
            l->crashes = 0;
        l->crashes++;
        l->state = MCP_RESTARTING;
        pthread_cond_broadcast(&l->cond);
        if (l->crashes >= MCP_CRASHES_DOWN) {
            l->state = MCP_DOWN;
            snprintf(text, sizeof(text),
                     "%s '%s' is down: it %s, %d times in a row; calls fail until a "
                     "reload (SIGHUP) starts it again",
                     mcp_noun(&l->spec), l->spec.display, l->ended, l->crashes);
            pthread_mutex_unlock(&l->lock);
            link_alert(l, text);
            pthread_mutex_lock(&l->lock);
            while (!l->stop && !l->retry)
                pthread_cond_wait(&l->cond, &l->lock);
            if (l->stop) {
                l->state = MCP_STOPPED;
                pthread_cond_broadcast(&l->cond);
                pthread_mutex_unlock(&l->lock);
                return NULL;
            }
            l->retry = 0;
            l->crashes = 0;
            l->state = MCP_RESTARTING;
            pthread_mutex_unlock(&l->lock);
            continue;
        }
        backoff = (int64_t)MCP_BACKOFF_FIRST_MS << (l->crashes - 1);
        if (backoff > MCP_BACKOFF_MAX_MS)
            backoff = MCP_BACKOFF_MAX_MS;
        pthread_mutex_unlock(&l->lock);
        link_log(l, MCPH_LOG_ERROR,
                 "%s '%s' %s; starting it again in %" PRId64 " ms (crash %d in a row; "
                 "down at %d)",
                 mcp_noun(&l->spec), l->spec.display, l->ended, backoff, l->crashes,
                 MCP_CRASHES_DOWN);
        pthread_mutex_lock(&l->lock);
        if (link_pause(l, backoff)) {
            l->state = MCP_STOPPED;
            pthread_cond_broadcast(&l->cond);
            pthread_mutex_unlock(&l->lock);
            return NULL;
        }
        l->retry = 0;
        pthread_mutex_unlock(&l->lock);
    }
}

/* --- Life. --- */

struct mcp_link *mcp_link_open(const struct mcph_host *host, struct mcp_spec *spec, int *rc)
{
    struct mcp_link *l = calloc(1, sizeof(*l));
    pthread_condattr_t ca;
    struct timespec until;
    enum mcp_state state;

    *rc = MCPH_ERR;
    if (l == NULL)
        return NULL;
    pthread_mutex_init(&l->lock, NULL);
    pthread_mutex_init(&l->wlock, NULL);
    pthread_mutex_init(&l->hlock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&l->cond, &ca);
    pthread_condattr_destroy(&ca);
    l->refs = 1;
    if (mcp_link_attach(l, host) != MCPH_OK) {
        free(l);
        return NULL;
    }
    l->spec = *spec;
    memset(spec, 0, sizeof(*spec));
    l->state = MCP_STARTING;
    l->to = l->from = -1;
    l->out_tail = &l->out;
    if (pipe2(l->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        host->log(host, MCPH_LOG_ERROR, "pipe: %s", strerror(errno));
        goto fail;
    }
    if (pthread_create(&l->thread, NULL, link_thread, l) != 0) {
        host->log(host, MCPH_LOG_ERROR, "could not start the link's thread");
        close(l->wake[0]);
        close(l->wake[1]);
        goto fail;
    }
    link_after(&until, (int64_t)l->spec.startup_ms + 2000);
    pthread_mutex_lock(&l->lock);
    while (l->state == MCP_STARTING && link_timedwait(l, &until) != ETIMEDOUT)
        ;
    state = l->state;
    if (state != MCP_UP && l->config_exited)
        *rc = MCPH_ERR_INVALID;
    pthread_mutex_unlock(&l->lock);
    if (state == MCP_UP)
        return l;
    host->log(host, MCPH_LOG_ERROR, "%s '%s' %s", mcp_noun(&l->spec), l->spec.display,
              l->ended[0] != '\0' ? l->ended : "did not start");
    mcp_link_unref(l, NULL);
    return NULL;
fail:
    mcp_spec_release(&l->spec);
    free(l->hosts);
    pthread_cond_destroy(&l->cond);
    pthread_mutex_destroy(&l->lock);
    pthread_mutex_destroy(&l->wlock);
    pthread_mutex_destroy(&l->hlock);
    free(l);
    return NULL;
}

void mcp_link_ref(struct mcp_link *l)
{
    pthread_mutex_lock(&l->lock);
    l->refs++;
    pthread_mutex_unlock(&l->lock);
}

int mcp_link_attach(struct mcp_link *l, const struct mcph_host *host)
{
    const struct mcph_host **grown;

    pthread_mutex_lock(&l->hlock);
    grown = realloc(l->hosts, (l->nhosts + 1) * sizeof(*grown));
    if (grown != NULL) {
        l->hosts = grown;
        l->hosts[l->nhosts++] = host;
        l->host = host;
    }
    pthread_mutex_unlock(&l->hlock);
    return grown != NULL ? MCPH_OK : MCPH_ERR_NOMEM;
}

void mcp_link_detach(struct mcp_link *l, const struct mcph_host *host)
{
    pthread_mutex_lock(&l->hlock);
    for (size_t i = 0; i < l->nhosts; i++) {
        if (l->hosts[i] == host) {
            memmove(&l->hosts[i], &l->hosts[i + 1], (l->nhosts - i - 1) * sizeof(*l->hosts));
            l->nhosts--;
            break;
        }
    }
    l->host = l->nhosts > 0 ? l->hosts[l->nhosts - 1] : NULL;
    pthread_mutex_unlock(&l->hlock);
}

void mcp_link_retry(struct mcp_link *l)
{
    pthread_mutex_lock(&l->lock);
    if (l->state == MCP_DOWN) {
        l->retry = 1;
        l->state = MCP_RESTARTING;
        pthread_cond_broadcast(&l->cond);
    }
    pthread_mutex_unlock(&l->lock);
}

void mcp_link_unref(struct mcp_link *l, const struct mcph_host *host)
{
    int last;

    pthread_mutex_lock(&l->lock);
    last = --l->refs == 0;
    if (last) {
        l->stop = 1;
        pthread_cond_broadcast(&l->cond);
    }
    pthread_mutex_unlock(&l->lock);
    if (!last)
        return;
    /* Closing its stdin is how a stdio server is asked to end; link_reap then gives it
     * MCP_STOP_GRACE_MS before SIGKILL. */
    pthread_mutex_lock(&l->wlock);
    if (l->to >= 0)
        close(l->to);
    l->to = -1;
    link_out_free(l);
    pthread_mutex_unlock(&l->wlock);
    link_wake(l);
    pthread_join(l->thread, NULL);
    if (host != NULL && l->stop_end[0] != '\0')
        host->log(host, MCPH_LOG_WARNING, "%s '%s' %s while it was being stopped",
                  mcp_noun(&l->spec), l->spec.display, l->stop_end);
    close(l->wake[0]);
    close(l->wake[1]);
    while (l->pending != NULL) {
        struct mcp_pending *p = l->pending;

        l->pending = p->next;
        link_pending_free(p);
    }
    for (size_t i = 0; i < l->nsubs; i++)
        free(l->subs[i]);
    free(l->subs);
    cJSON_Delete(l->init_result);
    free(l->hosts);
    mcp_spec_release(&l->spec);
    pthread_cond_destroy(&l->cond);
    pthread_mutex_destroy(&l->lock);
    pthread_mutex_destroy(&l->wlock);
    pthread_mutex_destroy(&l->hlock);
    free(l);
}

/* --- Requests. --- */

/* Wait while the server starts again, at most its start-up deadline. lock held. Returns
 * MCPH_OK when it is up, else sets why. */
static int link_wait_up(struct mcp_link *l, struct mcph_strbuf *why)
{
    struct timespec until;

    link_after(&until, (int64_t)l->spec.startup_ms + MCP_BACKOFF_MAX_MS);
    while (l->state == MCP_RESTARTING || l->state == MCP_STARTING) {
        if (link_timedwait(l, &until) == ETIMEDOUT)
            break;
    }
    if (l->state == MCP_UP)
        return MCPH_OK;
    if (l->state == MCP_DOWN)
        mcph_sb_addf(why,
                     "%s '%s' is down after %d crashes in a row (it %s); a reload (SIGHUP) "
                     "starts it again",
                     mcp_noun(&l->spec), l->spec.display, l->crashes, l->ended);
    else if (l->state == MCP_RESTARTING)
        mcph_sb_addf(why, "%s '%s' is starting again (it %s); try again", mcp_noun(&l->spec),
                     l->spec.display, l->ended);
    else
        mcph_sb_addf(why, "%s '%s' has stopped", mcp_noun(&l->spec), l->spec.display);
    return MCPH_ERR;
}

struct mcp_pending *mcp_link_send(struct mcp_link *l, const char *method, cJSON *params, int asks,
                                  struct mcph_strbuf *why)
{
    struct mcp_pending *p = calloc(1, sizeof(*p));
    cJSON *msg = link_message(method, params);
    cJSON *meta;

    if (p == NULL || msg == NULL) {
        free(p);
        cJSON_Delete(msg);
        mcph_sb_addstr(why, "out of memory");
        return NULL;
    }
    p->tail = &p->events;
    p->asks = asks;
    pthread_mutex_lock(&l->lock);
    if (link_wait_up(l, why) != MCPH_OK) {
        pthread_mutex_unlock(&l->lock);
        free(p);
        cJSON_Delete(msg);
        return NULL;
    }
    p->id = ++l->next_id;
    p->gen = l->gen;
    link_now(&p->sent);
    p->next = l->pending;
    l->pending = p;
    pthread_mutex_unlock(&l->lock);
    cJSON_AddNumberToObject(msg, "id", (double)p->id);
    /* Progress is asked for always: the client gets it only if it asked itself. */
    params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    if (params == NULL)
        params = cJSON_AddObjectToObject(msg, "params");
    mcp_link_request_meta(l, params);
    meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    if (meta == NULL)
        meta = cJSON_AddObjectToObject(params, "_meta");
    if (cJSON_IsObject(meta) && strcmp(method, "tools/call") == 0)
        cJSON_AddNumberToObject(meta, "progressToken", (double)p->id);
    if (link_write(l, msg) != MCPH_OK) {
        /* The process is ending; the link's thread fails p when it has reaped it. */
    }
    cJSON_Delete(msg);
    return p;
}

/* A request of the process now serving that has gone unanswered past spec.call_timeout_ms:
 * the process is killed, and every request it had fails with why (lock held). */
static void link_check_timeout(struct mcp_link *l, const struct mcp_pending *p)
{
    if (l->spec.call_timeout_ms <= 0 || p->parked || p->gen != l->gen || l->pid == 0 ||
        l->ended[0] != '\0' || link_ms_since(&p->sent) < l->spec.call_timeout_ms)
        return;
    snprintf(l->ended, sizeof(l->ended),
             "did not answer within %d ms (call_timeout_ms) and was killed",
             l->spec.call_timeout_ms);
    l->timed_out = 1;
    kill(-l->pid, SIGKILL);
}

enum mcp_wait mcp_link_wait(struct mcp_link *l, struct mcp_pending *p, const struct mcph_host *host,
                            struct mcph_call *call, struct mcp_event **ev)
{
    enum mcp_wait w;

    pthread_mutex_lock(&l->lock);
    for (;;) {
        struct timespec tick;

        /* Before the events: a cancelled call takes no more of them (a flood of the server's
         * questions would keep it busy). */
        if (call != NULL && host->cancelled(call)) {
            w = MCP_WAIT_CANCELLED;
            break;
        }
        if (p->events != NULL) {
            *ev = p->events;
            p->events = (*ev)->next;
            if (p->events == NULL)
                p->tail = &p->events;
            (*ev)->next = NULL;
            if (cJSON_GetObjectItemCaseSensitive((*ev)->msg, "id") != NULL)
                p->queued--;
            w = MCP_WAIT_EVENT;
            break;
        }
        if (p->reply != NULL) {
            w = MCP_WAIT_REPLY;
            break;
        }
        if (p->failure != NULL) {
            w = MCP_WAIT_FAILED;
            break;
        }
        if (p->deadline.tv_sec != 0 && link_ms_since(&p->deadline) >= 0) {
            w = MCP_WAIT_TIMEOUT;
            break;
        }
        link_check_timeout(l, p);
        link_after(&tick, MCP_TICK_MS);
        link_timedwait(l, &tick);
    }
    pthread_mutex_unlock(&l->lock);
    return w;
}

void mcp_link_done(struct mcp_link *l, struct mcp_pending *p, int cancel)
{
    if (p == NULL)
        return;
    if (cancel) {
        cJSON *params = cJSON_CreateObject();

        cJSON_AddNumberToObject(params, "requestId", (double)p->id);
        cJSON_AddStringToObject(params, "reason", "cancelled by the client");
        mcp_link_notify(l, "notifications/cancelled", params);
    }
    pthread_mutex_lock(&l->lock);
    link_unlist(l, p);
    pthread_mutex_unlock(&l->lock);
    link_pending_free(p);
}

cJSON *mcp_link_request(struct mcp_link *l, const char *method, cJSON *params,
                        struct mcph_strbuf *why)
{
    struct mcp_pending *p = mcp_link_send(l, method, params, 0, why);
    struct mcp_event *ev = NULL;
    struct timespec started;
    cJSON *result = NULL;

    if (p == NULL)
        return NULL;
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

/* --- Parking. --- */

int mcp_link_park(struct mcp_link *l, struct mcp_pending *p, char *key)
{
    pthread_mutex_lock(&l->lock);
    if (!p->parked && l->nparked >= MCP_PARKED_MAX) {
        pthread_mutex_unlock(&l->lock);
        free(key);
        return MCPH_ERR_LIMIT;
    }
    if (key != NULL) {
        free(p->park_key);
        p->park_key = key;
    }
    if (!p->parked && p->park_key != NULL) {
        p->parked = 1;
        l->nparked++;
    }
    link_after(&p->park_end, MCP_PARK_MS);
    pthread_mutex_unlock(&l->lock);
    return MCPH_OK;
}

int mcp_link_parked(struct mcp_link *l)
{
    size_t n;

    pthread_mutex_lock(&l->lock);
    n = l->nparked;
    pthread_mutex_unlock(&l->lock);
    return n > 0;
}

struct mcp_pending *mcp_link_unpark(struct mcp_link *l, const char *key)
{
    struct mcp_pending *found = NULL, *expired = NULL;
    struct timespec now;

    link_now(&now);
    pthread_mutex_lock(&l->lock);
    for (struct mcp_pending **pp = &l->pending; *pp != NULL;) {
        struct mcp_pending *p = *pp;

        if (p->parked && (now.tv_sec > p->park_end.tv_sec || p->failure != NULL)) {
            /* Its client never came back: the server's question and the call end. */
            *pp = p->next;
            p->next = expired;
            expired = p;
            l->nparked--;
            continue;
        }
        if (p->parked && strcmp(p->park_key, key) == 0)
            found = p;
        pp = &p->next;
    }
    if (found != NULL) {
        found->parked = 0;
        found->asked_now = 0; /* a new run of the handler asks them all again */
        l->nparked--;
    }
    pthread_mutex_unlock(&l->lock);
    while (expired != NULL) {
        struct mcp_pending *p = expired;

        expired = p->next;
        if (p->open_id != NULL && p->failure == NULL)
            mcp_link_respond(l, p->open_id, NULL, -32603,
                             "the client did not come back with an answer");
        if (p->failure == NULL) {
            cJSON *params = cJSON_CreateObject();

            cJSON_AddNumberToObject(params, "requestId", (double)p->id);
            cJSON_AddStringToObject(params, "reason", "the client did not come back");
            mcp_link_notify(l, "notifications/cancelled", params);
        }
        link_pending_free(p);
    }
    return found;
}

/* --- Subscriptions. --- */

void mcp_link_subscribe(struct mcp_link *l, const char *uri, int on)
{
    cJSON *params = cJSON_CreateObject();
    size_t i;
    int modern;

    pthread_mutex_lock(&l->lock);
    modern = l->modern;
    for (i = 0; i < l->nsubs && strcmp(l->subs[i], uri) != 0; i++)
        ;
    if (on && i == l->nsubs) {
        char **grown = realloc(l->subs, (l->nsubs + 1) * sizeof(*grown));

        if (grown != NULL) {
            l->subs = grown;
            l->subs[l->nsubs] = strdup(uri);
            if (l->subs[l->nsubs] != NULL)
                l->nsubs++;
        }
    } else if (!on && i < l->nsubs) {
        free(l->subs[i]);
        l->subs[i] = l->subs[--l->nsubs];
    }
    pthread_mutex_unlock(&l->lock);
    if (modern) {
        cJSON_Delete(params);
        link_listen(l);
        return;
    }
    cJSON_AddStringToObject(params, "uri", uri);
    /* Not waited for: subscribe() must not block. */
    link_fire(l, on ? "resources/subscribe" : "resources/unsubscribe", params);
}
