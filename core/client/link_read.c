/*
 * link_read.c: what the server writes, line by line: its responses go to the requests that
 * wait for them, its notifications to the host or to the call they belong to, its requests
 * (sampling, elicitation, roots) to the call that may ask the client; the answers to the
 * handshake make the link up. A line too long, not JSON-RPC or unasked for is dropped and said.
 * Whoever holds reading reads: the link's thread, or, lent by it, the call that waits for a
 * reply (link_lead), so that a sequential client's reply never crosses threads.
 */
#include "client/link.h"

#include "mcph-json.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
        /* A progress not taken yet is replaced by the newer one: a server's flood of progress
         * queues nothing. A parked call keeps its latest for the retry that comes back for it
         * (whose own progress token then carries it). */
        if (p != NULL && p->reply == NULL) {
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
    } else if (l->spec.remote != NULL && strcmp(method, MCP_RELAY_ENDED) == 0) {
        const cJSON *reason = cJSON_GetObjectItemCaseSensitive(params, "reason");

        /* The relay's last line: why it is about to exit, said by the link's messages. */
        pthread_mutex_lock(&l->lock);
        if (cJSON_IsString(reason) && l->ended[0] == '\0')
            snprintf(l->ended, sizeof(l->ended), "%s", reason->valuestring);
        pthread_mutex_unlock(&l->lock);
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

/* A call's reply whose result can go to the host as the text the server wrote, unparsed
 * here (host->result_json reads it once): a line exactly {"jsonrpc":"2.0","id":N,"result":
 * {...}} as mcph writes it (any other shape is parsed, so that what the text says and what a
 * parser reads cannot differ), no text cJSON would cut (U+0000) and no resultType but
 * "complete" (a MCP_MODERN server's input_required is read as a tree, rounds.c). Returns 1
 * when its call took it; else the line is parsed. */
static int link_reply_raw(struct mcp_link *l, const char *line, size_t len, int64_t id)
{
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
    static const char mid[] = ",\"result\":{";
    const char *text, *member, *at;
    size_t n, m;
    int64_t said = 0;
    struct mcp_pending *p;
    char *raw;
    cJSON *stub;
    int taken = 0;

    while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
        len--;
    if (len < sizeof(head) + sizeof(mid) + 2 || memcmp(line, head, sizeof(head) - 1) != 0)
        return 0;
    at = line + sizeof(head) - 1;
    for (int digits = 0; at < line + len && *at >= '0' && *at <= '9'; at++, digits++) {
        if (digits == 15)
            return 0;
        said = said * 10 + (*at - '0');
    }
    if (said != id || (size_t)(line + len - at) < sizeof(mid) + 1 ||
        memcmp(at, mid, sizeof(mid) - 1) != 0 || line[len - 1] != '}' || line[len - 2] != '}')
        return 0;
    text = at + sizeof(mid) - 2; /* the result's '{' */
    n = (size_t)(line + len - 1 - text);
    if (memchr(text, '\0', n) != NULL || memmem(text, n, "\\u0000", 6) != NULL)
        return 0;
    if (mcph_json_member(text, n, "resultType", &member, &m) &&
        (m != 10 || memcmp(member, "\"complete\"", 10) != 0))
        return 0;
    raw = strndup(text, n);
    stub = cJSON_CreateObject();
    pthread_mutex_lock(&l->lock);
    p = link_find(l, id);
    if (p != NULL && p->raw_ok && p->reply == NULL && p->failure == NULL && raw != NULL &&
        stub != NULL) {
        p->reply = stub;
        p->raw = raw;
        pthread_cond_broadcast(&l->cond);
        taken = 1;
    }
    pthread_mutex_unlock(&l->lock);
    if (!taken) {
        free(raw);
        cJSON_Delete(stub);
    }
    return taken;
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
int link_on_line(struct mcp_link *l, const char *line, size_t len, int lent)
{
    size_t values, cost;
    int over = mcph_json_over(line, len, MCPH_JSON_COST_MAX, &values, &cost);
    int64_t id = 0;
    int reply = link_peek_reply(line, len, &id);
    cJSON *msg;

    /* A call handles replies only: anything else (a log line, a question, a notification, a
     * line not JSON) speaks to the host, which must not hear it in the name of the call that
     * happens to read. */
    if (lent && !reply && len > 0)
        return 0;
    if (reply && !link_awaited(l, id)) {
        link_log(l, MCPH_LOG_DEBUG,
                 "a reply to request %" PRId64 " (%zu bytes) that no request "
                 "waits for; dropped",
                 id, len);
        return 1;
    }
    if (over) {
        link_too_costly(l, line, len, reply, id, values, cost);
        return 1;
    }
    if (reply && link_reply_raw(l, line, len, id))
        return 1;
    msg = cJSON_ParseWithLength(line, len);
    if (cJSON_IsObject(msg)) {
        mcp_json_mark_cut(msg, line, len);
        link_on_message(l, msg);
    } else {
        link_not_jsonrpc(l, line, len, reply && msg == NULL, id);
    }
    cJSON_Delete(msg);
    /* What a costly message left free goes back to the system. */
    mcph_json_trim(cost);
    return 1;
}

/* --- Reading, by the link's thread or by a call it was lent to. --- */

/* Each whole line of rbuf to link_on_line, then rbuf's room cut back after a large line.
 * Returns -1 for a line too long (l->ended says), else 0. */
static int link_lines(struct mcp_link *l, int lent)
{
    struct mcph_strbuf *buf = &l->rbuf;

    for (;;) {
        char *nl = memchr(buf->buf + l->rscan, '\n', buf->len - l->rscan);
        size_t len;

        if (nl == NULL) {
            l->rscan = buf->len;
            break;
        }
        len = (size_t)(nl - buf->buf);
        if (!link_on_line(l, buf->buf, len, lent)) {
            pthread_mutex_lock(&l->lock);
            l->give_back = 1; /* the line stays for the link's thread */
            pthread_mutex_unlock(&l->lock);
            l->rscan = 0;
            return 0;
        }
        memmove(buf->buf, nl + 1, buf->len - len - 1);
        mcph_sb_setlen(buf, buf->len - len - 1);
        l->rscan = 0;
    }
    /* The room a large line took is not kept for the next ones. */
    if (buf->alloc > MCP_READ_KEEP && buf->len < MCP_READ_KEEP / 2) {
        struct mcph_strbuf rest = MCPH_STRBUF_INIT;
        size_t freed = buf->alloc;

        if (mcph_sb_add(&rest, buf->buf, buf->len) == MCPH_OK) {
            mcph_sb_release(buf);
            *buf = rest;
            /* glibc serves blocks this size from the heap once one was freed: give it
             * back too. */
            mcph_json_trim(freed);
        }
    }
    if (buf->len > MCP_LINE_MAX) {
        pthread_mutex_lock(&l->lock);
        snprintf(l->ended, sizeof(l->ended), "wrote a line longer than %u bytes", MCP_LINE_MAX);
        pthread_mutex_unlock(&l->lock);
        return -1;
    }
    return 0;
}

void link_read_left(struct mcp_link *l)
{
    if (l->rbuf.buf != NULL && l->rbuf.len > 0)
        (void)link_lines(l, 0);
}

int link_read_in(struct mcp_link *l, int lent)
{
    ssize_t n;

    if (l->rbuf.buf == NULL)
        mcph_sb_init(&l->rbuf);
    if (mcph_sb_grow(&l->rbuf, 65536) != 0)
        return -1;
    n = read(l->from, l->rbuf.buf + l->rbuf.len, 65536);
    if (n < 0 && errno == EINTR)
        return 0;
    if (n <= 0)
        return -1;
    l->rbuf.len += (size_t)n; /* read into the room grow made */
    l->rbuf.buf[l->rbuf.len] = '\0';
    return link_lines(l, lent) == 0 ? 1 : -1;
}

int link_lend(struct mcp_link *l, int *timeout)
{
    int lent;

    pthread_mutex_lock(&l->lock);
    if (l->read_end) {
        pthread_mutex_unlock(&l->lock);
        return -1;
    }
    if (l->give_back && !l->reading) {
        l->lent = 0; /* a call left a line that is not a reply: handled here (link_read_left) */
        l->give_back = 0;
        l->lend_used = 0;
    } else if (!l->lent && l->want_lend && l->state == MCP_UP) {
        l->lent = 1;
        l->lend_used = 1;                 /* the call that asked has MCP_LEND_MS to begin */
        pthread_cond_broadcast(&l->cond); /* the call that asked leads */
    } else if (l->lent && !l->reading && !l->lend_used) {
        l->lent = 0; /* nobody read for MCP_LEND_MS: the server's messages are read at once */
    } else {
        l->lend_used = 0;
    }
    l->want_lend = 0;
    lent = l->lent;
    pthread_mutex_unlock(&l->lock);
    if (lent && (*timeout < 0 || *timeout > MCP_LEND_MS))
        *timeout = MCP_LEND_MS;
    return lent;
}

void link_lend_end(struct mcp_link *l)
{
    pthread_mutex_lock(&l->lock);
    l->lent = 0;
    while (l->reading)
        pthread_cond_wait(&l->cond, &l->lock);
    l->read_end = 0;
    l->want_lend = 0;
    pthread_mutex_unlock(&l->lock);
    mcph_sb_release(&l->rbuf);
    l->rscan = 0;
}

int link_lead(struct mcp_link *l, int ms)
{
    struct pollfd fd = {.events = POLLIN};
    int got = 0;

    if (!l->lent || l->reading || l->read_end || l->give_back) {
        if (!l->lent && !l->want_lend && l->state == MCP_UP) {
            l->want_lend = 1;
            link_wake(l);
        }
        return 0;
    }
    fd.fd = l->from; /* lent: the process is up and its pipe open */
    l->reading = 1;
    l->lend_used = 1;
    pthread_mutex_unlock(&l->lock);
    if (poll(&fd, 1, ms) > 0)
        got = link_read_in(l, 1);
    pthread_mutex_lock(&l->lock);
    l->reading = 0;
    if (l->give_back)
        link_wake(l);
    if (got < 0) {
        /* The link's thread reaps the process and fails what waited for it. */
        l->read_end = 1;
        l->lent = 0;
        link_wake(l);
    }
    /* Another waiting call leads next, or the link's thread takes reading back. */
    pthread_cond_broadcast(&l->cond);
    return 1;
}
