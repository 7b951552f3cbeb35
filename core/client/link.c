/*
 * link.c: one external server and the conversation with it. A thread of the link's own
 * starts the process, runs the handshake, reads every line the server writes, and restarts
 * it when it ends: after MCP_BACKOFF_FIRST_MS, doubling up to MCP_BACKOFF_MAX_MS, the count
 * of crashes starting again after MCP_UPTIME_RESET_MS of uptime, down after
 * MCP_CRASHES_DOWN in a row. Calls write their requests themselves (wlock) and wait on the
 * link's condition for the answer, for the server's progress notifications and for the
 * questions it asks on their behalf. The process is started by the link's thread, so
 * PR_SET_PDEATHSIG kills it when that thread ends: when the link stops, or mcph dies.
 * This file holds the writing to the server's stdin, the requests and their answers, parking
 * and subscriptions; the thread is in link_run.c, the server's messages in link_read.c, the
 * lists asked at init (and kept for an idle server) in link_list.c.
 *
 * A link outlives the instance that opened it when a rebuild takes it over (see serve.c), so
 * the host it reports to is the newest instance attached, under hlock.
 */
#include "client/link.h"

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

void link_now(struct timespec *ts)
{
    clock_gettime(CLOCK_MONOTONIC, ts);
}

int64_t link_ms_since(const struct timespec *t)
{
    struct timespec now;

    link_now(&now);
    return (int64_t)(now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000;
}

void link_after(struct timespec *ts, int64_t ms)
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
int link_timedwait(struct mcp_link *l, const struct timespec *ts)
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

void link_wake(struct mcp_link *l)
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
int link_write_ms(const struct mcp_link *l)
{
    if (l->spec.call_timeout_ms > 0 && l->spec.call_timeout_ms < MCP_WRITE_MS)
        return l->spec.call_timeout_ms;
    return MCP_WRITE_MS;
}

void link_out_free(struct mcp_link *l)
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
void link_hung(struct mcp_link *l, const char *why)
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
int link_flush(struct mcp_link *l)
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
/* Write what the pipe takes now, when nothing waits before it: *off advances. wlock held. */
static int link_write_now(struct mcp_link *l, const char *text, size_t len, size_t *off)
{
    while (l->out == NULL && *off < len) {
        ssize_t n = write(l->to, text + *off, len - *off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0)
            return MCPH_ERR;
        *off += (size_t)n;
    }
    return MCPH_OK;
}

/* Queue the rest of *text (taken over: *text becomes NULL) for the link's thread; *wake when
 * the queue was empty. A server past MCP_OUT_MAX waiting is hung. wlock held. */
static int link_queue(struct mcp_link *l, char **text, size_t len, size_t off, int *wake)
{
    struct mcp_out *o;

    if (l->out_bytes + (len - off) > MCP_OUT_MAX) {
        char why[160];

        snprintf(why, sizeof(why),
                 "stopped reading its stdin (over %u MiB waited to be written) and was killed",
                 MCP_OUT_MAX >> 20);
        link_hung(l, why);
        return MCPH_ERR;
    }
    o = calloc(1, sizeof(*o));
    if (o == NULL)
        return MCPH_ERR_NOMEM;
    o->text = *text;
    o->len = len;
    o->off = off;
    *text = NULL;
    if (l->out == NULL) {
        link_now(&l->out_since);
        *wake = 1;
    }
    *l->out_tail = o;
    l->out_tail = &o->next;
    l->out_bytes += len - off;
    return MCPH_OK;
}

/* Write text (len bytes, a whole line; taken over). */
static int link_write_text(struct mcp_link *l, char *text, size_t len)
{
    size_t off = 0;
    int rc = MCPH_ERR, wake = 0;

    pthread_mutex_lock(&l->wlock);
    if (l->to >= 0 && !l->out_dead)
        rc = link_write_now(l, text, len, &off);
    if (rc == MCPH_OK && off < len)
        rc = link_queue(l, &text, len, off, &wake);
    pthread_mutex_unlock(&l->wlock);
    free(text);
    if (wake)
        link_wake(l); /* the link's thread now waits for room in the pipe too */
    return rc;
}

int link_write(struct mcp_link *l, const cJSON *msg)
{
    char *text = cJSON_PrintUnformatted(msg);
    size_t len;

    if (text == NULL)
        return MCPH_ERR_NOMEM;
    len = strlen(text);
    text[len++] = '\n'; /* over the NUL: written by length */
    return link_write_text(l, text, len);
}

/* How long what waits for the server's stdin has not moved (0: nothing waits). */
int64_t link_stalled_ms(struct mcp_link *l)
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
int64_t link_fire(struct mcp_link *l, const char *method, cJSON *params)
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

struct mcp_pending *link_find(struct mcp_link *l, int64_t id)
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

void link_pending_free(struct mcp_pending *p)
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
    free(p->raw);
    free(p->failure);
    free(p->park_key);
    free(p);
}

void link_push_event(struct mcp_link *l, struct mcp_pending *p, cJSON *msg)
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
void link_fail_all(struct mcp_link *l, uint64_t gen, const char *why)
{
    for (struct mcp_pending *p = l->pending; p != NULL; p = p->next) {
        if (p->gen == gen && p->reply == NULL && p->failure == NULL)
            p->failure = strdup(why);
    }
    pthread_cond_broadcast(&l->cond);
}

/* --- The host, from the link's thread. --- */

void link_log(struct mcp_link *l, enum mcph_log_level level, const char *fmt, ...)
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
void link_alert(struct mcp_link *l, const char *text)
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

/* --- Requests. --- */

/* An idle server is needed again: the link's thread starts it (link_run.c). lock held. */
static void link_demand(struct mcp_link *l)
{
    if (l->state == MCP_IDLE && !l->demand) {
        l->demand = 1;
        pthread_cond_broadcast(&l->cond);
    }
}

/* Wait while the server starts again (after a crash, or idle), at most its start-up deadline.
 * lock held. Returns MCPH_OK when it is up, else sets why. */
static int link_wait_up(struct mcp_link *l, struct mcph_strbuf *why)
{
    struct timespec until;

    link_after(&until, (int64_t)l->spec.startup_ms + MCP_BACKOFF_MAX_MS);
    link_demand(l);
    while (l->state == MCP_RESTARTING || l->state == MCP_STARTING || l->state == MCP_IDLE) {
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
    else if (l->state == MCP_IDLE)
        mcph_sb_addf(why, "%s '%s' is starting again after %d s idle; try again",
                     mcp_noun(&l->spec), l->spec.display, l->spec.idle_stop_s);
    else
        mcph_sb_addf(why, "%s '%s' has stopped", mcp_noun(&l->spec), l->spec.display);
    return MCPH_ERR;
}

/* The members of the _meta every request to a MCP_MODERN server carries, as JSON text
 * without its braces: made once for the link (they do not change), or NULL. */
static const char *link_meta_text(struct mcp_link *l)
{
    cJSON *o = cJSON_CreateObject();
    char *text = NULL;
    size_t len;

    pthread_mutex_lock(&l->lock);
    if (l->meta_text != NULL) {
        pthread_mutex_unlock(&l->lock);
        cJSON_Delete(o);
        return l->meta_text;
    }
    pthread_mutex_unlock(&l->lock);
    if (o != NULL) {
        mcp_link_request_meta(l, o);
        text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(o, "_meta"));
    }
    cJSON_Delete(o);
    len = text != NULL ? strlen(text) : 0;
    if (len < 2) {
        free(text);
        return NULL;
    }
    memmove(text, text + 1, len - 2);
    text[len - 2] = '\0';
    pthread_mutex_lock(&l->lock);
    if (l->meta_text == NULL)
        l->meta_text = text;
    else
        free(text);
    text = l->meta_text; /* set once, freed with the link */
    pthread_mutex_unlock(&l->lock);
    return text;
}

/* A request as text, {"jsonrpc":"2.0","id":ID,"method":M,"params":{...,"_meta":{...}}}: params
 * (an object, consumed) printed once, with the modern _meta (when the server speaks
 * MCP_MODERN) and progressToken (a tools/call's: progress is asked for always, the client
 * gets it only if it asked itself) spliced into its _meta as text, not built as a tree to be
 * printed and freed on every request. NULL when out of memory. */
static char *link_request_text(struct mcp_link *l, const char *method, cJSON *params,
                               const char *id, size_t *len)
{
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;
    cJSON *meta = cJSON_DetachItemFromObjectCaseSensitive(params, "_meta");
    char *ptext = cJSON_PrintBuffered(params, 512, 0);
    char *mtext = cJSON_IsObject(meta) ? cJSON_PrintBuffered(meta, 256, 0) : NULL;
    const char *modern = mcp_link_modern(l) ? link_meta_text(l) : NULL;
    size_t plen = ptext != NULL ? strlen(ptext) : 0, mlen = mtext != NULL ? strlen(mtext) : 0;
    int more = 0;

    if (plen >= 2) {
        mcph_sb_addf(&sb, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":", id);
        mcph_sb_addjson(&sb, method, strlen(method));
        mcph_sb_addstr(&sb, ",\"params\":");
        mcph_sb_add(&sb, ptext, plen - 1);
        mcph_sb_addstr(&sb, plen > 2 ? ",\"_meta\":{" : "\"_meta\":{");
        if (mlen > 2) {
            mcph_sb_add(&sb, mtext + 1, mlen - 2);
            more = 1;
        }
        if (modern != NULL && modern[0] != '\0') {
            mcph_sb_addf(&sb, "%s%s", more ? "," : "", modern);
            more = 1;
        }
        if (strcmp(method, "tools/call") == 0)
            mcph_sb_addf(&sb, "%s\"progressToken\":%s", more ? "," : "", id);
        mcph_sb_addstr(&sb, "}}}\n");
    }
    free(ptext);
    free(mtext);
    cJSON_Delete(meta);
    cJSON_Delete(params);
    *len = sb.len;
    if (plen < 2 || sb.nomem) {
        mcph_sb_release(&sb);
        return NULL;
    }
    return mcph_sb_detach(&sb, NULL);
}

struct mcp_pending *mcp_link_send(struct mcp_link *l, const char *method, cJSON *params, int asks,
                                  struct mcph_strbuf *why)
{
    struct mcp_pending *p = calloc(1, sizeof(*p));
    char id[24], *text;
    size_t len;

    if (params == NULL)
        params = cJSON_CreateObject();
    if (p == NULL || !cJSON_IsObject(params)) {
        free(p);
        cJSON_Delete(params);
        mcph_sb_addstr(why, "out of memory");
        return NULL;
    }
    p->tail = &p->events;
    p->asks = asks;
    /* A call's result is passed to the host as the server wrote it (mcp_reply); init's
     * lists are read as trees. */
    p->raw_ok = strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0 ||
                strcmp(method, "resources/read") == 0 || strcmp(method, "completion/complete") == 0;
    pthread_mutex_lock(&l->lock);
    if (link_wait_up(l, why) != MCPH_OK) {
        pthread_mutex_unlock(&l->lock);
        free(p);
        cJSON_Delete(params);
        return NULL;
    }
    p->id = ++l->next_id;
    p->gen = l->gen;
    link_now(&p->sent);
    l->last_use = p->sent;
    p->next = l->pending;
    l->pending = p;
    pthread_mutex_unlock(&l->lock);
    /* Printed as the integer it is: cJSON prints a number with sprintf and reads it back
     * with sscanf. */
    snprintf(id, sizeof(id), "%" PRId64, p->id);
    text = link_request_text(l, method, params, id, &len);
    /* Not written (out of memory), or the process is ending: the link's thread fails p when
     * it has reaped it; a request never written is failed here. */
    if (text == NULL || link_write_text(l, text, len) != MCPH_OK) {
        pthread_mutex_lock(&l->lock);
        if (text == NULL && p->failure == NULL)
            p->failure = strdup("could not be sent (out of memory)");
        pthread_cond_broadcast(&l->cond);
        pthread_mutex_unlock(&l->lock);
    }
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
        /* The call reads the server's stdout itself when it may (link_lead): its reply then
         * reaches it with no hand-off; else the link's thread wakes it. */
        if (link_lead(l, MCP_TICK_MS))
            continue;
        link_after(&tick, MCP_TICK_MS);
        link_timedwait(l, &tick);
    }
    pthread_mutex_unlock(&l->lock);
    return w;
}

void mcp_link_done(struct mcp_link *l, struct mcp_pending *p, int cancel)
{
    int idle;

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
    link_now(&l->last_use);
    idle = l->spec.idle_stop_s > 0 && l->pending == NULL;
    pthread_mutex_unlock(&l->lock);
    link_pending_free(p);
    /* The link's thread counts idle_stop_s from now, not from when it last looked. */
    if (idle)
        link_wake(l);
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
            l->last_use = now;
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
    link_now(&l->last_use);
    if (on)
        link_demand(l); /* a subscription keeps the server running: it is made at its start */
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
