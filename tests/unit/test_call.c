/* test_call.c: calls handed to call_submit as the dispatcher hands them, run by the pool on
 * their plugin's lane and answered into the client's stream or a batch slot: results, tool
 * and plugin errors, outputSchema checks, a duplicate id, cancellation while queued and while
 * running (no answer at all), the max_pending_mb refusal and its release, progress, a question
 * to the client answered through the dispatcher, a 2026-07-28 call with its own log level, and
 * questions the handler names (ABI 1.4) in both eras. The plugins are
 * build/tests/plugins/basic.so, threadsafe.so, features.so and named.so. */
#include "calls/call.h"

#include "check.h"
#include "fixture.h"
#include "wire/jsonrpc.h"
#include "served/decorate.h"
#include "served/notify.h"
#include "served/registry.h"
#include "wire/revision.h"
#include "lib/status.h"

#include <stdlib.h>
#include <string.h>

#define CALL_SERVER "[server]\nplugin_dir = ../../plugins\nname = calls\n"
#define CALL_BASIC "[plugin.b]\npath = basic.so\n"
#define CALL_FEATURES "[plugin.f]\npath = features.so\n"
#define CALL_NAMED "[plugin.n]\npath = named.so\n"

static struct fixture_server fx;

/* One tools/call as the dispatcher would submit it. */
struct call_req {
    const char *id;   /* JSON text of the request id */
    const char *tool; /* exposed name */
    const char *args; /* JSON object text; NULL: {} */
    const char *meta; /* JSON object text of params._meta, or NULL */
    const char *more; /* more members of params as JSON text ("\"a\":1"), or NULL */
    int rev;          /* 0: 2025-06-18 */
    unsigned can;     /* enum call_can */
    int modern;
    int log_level; /* modern only; 0 means LOG_OFF */
    struct out_batch *batch;
    size_t slot;
    size_t bytes; /* input the request came in */
};

static int call_open(const char *ini)
{
    return CHECK(fixture_server_serve(&fx, "call", ini));
}

/* Submit r under the state lock, as the dispatching thread does. Returns 0 when the tool
 * exists. */
static int call_go(const struct call_req *r)
{
    char text[2048];
    const struct registry_tool *t = registry_find_tool(fx.srv.reg, r->tool);
    struct call_target target = {.kind = RESULT_TOOL};
    struct call_origin o = {.srv = &fx.srv, .peer = &fx.srv.pipe_peer};

    if (!CHECK(t != NULL))
        return -1;
    snprintf(text, sizeof(text),
             "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"tools/call\",\"params\":{"
             "\"name\":\"%s\",\"arguments\":%s%s%s%s%s}}",
             r->id, r->tool, r->args ? r->args : "{}", r->meta ? ",\"_meta\":" : "",
             r->meta ? r->meta : "", r->more ? "," : "", r->more ? r->more : "");
    o.msg = cJSON_Parse(text);
    if (!CHECK(o.msg != NULL))
        return -1;
    o.id = cJSON_GetObjectItem(o.msg, "id");
    o.method = cJSON_GetStringValue(cJSON_GetObjectItem(o.msg, "method"));
    o.rev = r->modern ? REV_MODERN : r->rev ? r->rev : REV_2025_06_18;
    o.can = r->can;
    o.batch = r->batch;
    o.slot = r->slot;
    o.modern = r->modern;
    o.log_level = r->modern && r->log_level ? r->log_level : LOG_OFF;
    o.bytes = r->bytes;
    target.plugin = t->plugin;
    target.fn = t->def->call;
    target.args = cJSON_GetObjectItem(cJSON_GetObjectItem(o.msg, "params"), "arguments");
    target.name = t->name;
    target.own_name = t->def->name;
    target.own_data = t->def->data;
    target.output_schema = t->def->output_check;
    pthread_mutex_lock(&fx.srv.lock);
    call_submit(&o, &target);
    pthread_mutex_unlock(&fx.srv.lock);
    return 0;
}

/* Everything answered once the calls finished (5 s at most). */
static const char *call_settle(void)
{
    CHECK(fixture_server_settle(&fx, 5000));
    return fixture_capture_take(&fx.out);
}

/* Wait (at most timeout_ms) until the client's stream holds `part`; what it held, appended
 * to acc (of size size). */
static int call_wait_output(char *acc, size_t size, const char *part, long timeout_ms)
{
    long end = fixture_now_ms() + timeout_ms;
    size_t len = strlen(acc);

    for (;;) {
        len += (size_t)snprintf(acc + len, size - len, "%s", fixture_capture_take(&fx.out));
        if (len >= size)
            len = size - 1;
        if (strstr(acc, part) != NULL)
            return 1;
        if (fixture_now_ms() >= end)
            return 0;
        fixture_sleep_ms(2);
    }
}

/* The first content text of the result of reply line n, in buf ("" when none). */
static const char *call_text(const char *out, int n, char *buf, size_t size)
{
    cJSON *reply = fixture_line_json(out, n);
    const cJSON *content = cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "result"), "content");
    const char *text =
        cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(content, 0), "text"));

    snprintf(buf, size, "%s", text ? text : "");
    cJSON_Delete(reply);
    return buf;
}

/* Reply line n has this id (JSON text). */
static int call_id_is(const char *out, int n, const char *id)
{
    cJSON *reply = fixture_line_json(out, n);
    int same = fixture_json_is(cJSON_GetObjectItem(reply, "id"), id);

    cJSON_Delete(reply);
    return same;
}

static void test_answered(void)
{
    if (!call_open(CALL_SERVER CALL_BASIC))
        return;
    call_go(&(struct call_req){.id = "1", .tool = "echo", .args = "{\"text\":\"hi\"}"});
    CHECK_STR_EQ(call_settle(), "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{"
                                "\"type\":\"text\",\"text\":\"hi\"}]}}\n");
    /* Answered, so no longer in flight: the same id may come again. */
    call_go(&(struct call_req){.id = "1", .tool = "greet"});
    CHECK_STR_EQ(call_settle(), "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{"
                                "\"type\":\"text\",\"text\":\"hi\"}]}}\n");
    /* A tool error is a result; a plugin failure is a JSON-RPC error, logged. */
    call_go(&(struct call_req){.id = "\"f\"", .tool = "fail"});
    CHECK_STR_EQ(call_settle(), "{\"jsonrpc\":\"2.0\",\"id\":\"f\",\"result\":{\"content\":[{"
                                "\"type\":\"text\",\"text\":\"fail always fails\"}],"
                                "\"isError\":true}}\n");
    call_go(&(struct call_req){.id = "2", .tool = "boom"});
    CHECK_STR_EQ(call_settle(), "{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32603,"
                                "\"message\":\"Internal error in plugin 'b': boom\"}}\n");
    CHECK_STR_HAS(fixture_capture_take(&fx.log), "plugin 'b' failed a request");
    fixture_server_close(&fx);
}

/* call_submit only queues: the handler runs on a pool thread and answers from there. */
static void test_queued_not_run_inline(void)
{
    long t0;
    char buf[64];
    const char *out;

    if (!call_open(CALL_SERVER CALL_BASIC))
        return;
    t0 = fixture_now_ms();
    call_go(&(struct call_req){.id = "1", .tool = "sleep", .args = "{\"ms\":300}"});
    CHECK(fixture_now_ms() - t0 < 200);
    CHECK_STR_EQ(fixture_capture_take(&fx.out), "");
    out = call_settle();
    CHECK(fixture_now_ms() - t0 >= 290);
    CHECK_STR_EQ(call_text(out, 0, buf, sizeof(buf)), "slept 300");
    fixture_server_close(&fx);
}

/* The largest number among the first texts of every reply line of out. */
static int call_max_text(const char *out, int *lines)
{
    char buf[32];
    int most = 0;

    *lines = fixture_count_lines(out);
    for (int i = 0; i < *lines; i++) {
        int n = atoi(call_text(out, i, buf, sizeof(buf)));

        most = n > most ? n : most;
    }
    return most;
}

/* n calls of `tool` (which sleeps ms and says the most calls it saw at once), ids 1..n:
 * the largest number answered, and how many answered. */
static int call_overlap(const char *tool, int n, int ms, int *lines)
{
    char id[16], args[32];

    snprintf(args, sizeof(args), "{\"ms\":%d}", ms);
    for (int i = 1; i <= n; i++) {
        snprintf(id, sizeof(id), "%d", i);
        call_go(&(struct call_req){.id = id, .tool = tool, .args = args});
    }
    return call_max_text(call_settle(), lines);
}

static void test_lanes(void)
{
    int lines = 0;

    if (!call_open(CALL_SERVER "workers = 8\n" CALL_BASIC
                               "[plugin.t]\npath = threadsafe.so\nmax_concurrent = 2\n"))
        return;
    /* basic is not thread-safe: its calls run one at a time. */
    CHECK_INT_EQ(call_overlap("overlap", 3, 60, &lines), 1);
    CHECK_INT_EQ(lines, 3);
    /* threadsafe may run max_concurrent = 2 at once, and no more. */
    CHECK_INT_EQ(call_overlap("overlap_mt", 4, 250, &lines), 2);
    CHECK_INT_EQ(lines, 4);
    fixture_server_close(&fx);
}

static void test_duplicate_id(void)
{
    char buf[64];
    const char *out;

    if (!call_open(CALL_SERVER CALL_BASIC))
        return;
    call_go(&(struct call_req){.id = "7", .tool = "sleep", .args = "{\"ms\":200}"});
    call_go(&(struct call_req){.id = "7", .tool = "echo", .args = "{\"text\":\"x\"}"});
    /* Refused at once, while the first one still runs. */
    out_flush(&fx.srv.out);
    CHECK_STR_EQ(fixture_capture_take(&fx.out),
                 "{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32600,\"message\":"
                 "\"Invalid Request: a request with this id is still in flight\"}}\n");
    out = call_settle();
    CHECK_INT_EQ(fixture_count_lines(out), 1);
    CHECK_STR_EQ(call_text(out, 0, buf, sizeof(buf)), "slept 200");
    fixture_server_close(&fx);
}

static void test_cancelled(void)
{
    cJSON *id = cJSON_CreateNumber(2);
    const char *out;
    long t0;

    if (!call_open(CALL_SERVER CALL_BASIC CALL_FEATURES))
        goto out;
    /* Queued behind a call on a one-at-a-time lane, then cancelled: it never runs, and
     * nothing is sent for it. */
    call_go(&(struct call_req){.id = "1", .tool = "sleep", .args = "{\"ms\":150}"});
    call_go(&(struct call_req){.id = "2", .tool = "overlap", .args = "{\"ms\":0}"});
    CHECK_INT_EQ(inflight_cancel(&fx.srv.inflight, id), STATUS_OK);
    out = call_settle();
    CHECK_INT_EQ(fixture_count_lines(out), 1);
    CHECK(call_id_is(out, 0, "1"));
    /* Running, and the handler polls cancelled(): it stops early, and sends nothing. */
    t0 = fixture_now_ms();
    call_go(&(struct call_req){.id = "2", .tool = "wait_cancel", .args = "{\"ms\":5000}"});
    fixture_sleep_ms(30);
    CHECK_INT_EQ(inflight_cancel(&fx.srv.inflight, id), STATUS_OK);
    CHECK_STR_EQ(call_settle(), "");
    CHECK(fixture_now_ms() - t0 < 2000);
    /* Once answered, an id is no longer cancellable. */
    call_go(&(struct call_req){.id = "2", .tool = "echo", .args = "{\"text\":\"x\"}"});
    CHECK_INT_EQ(fixture_count_lines(call_settle()), 1);
    CHECK_INT_EQ(inflight_cancel(&fx.srv.inflight, id), STATUS_NOT_FOUND);
out:
    cJSON_Delete(id);
    fixture_server_close(&fx);
}

static void test_over_max_pending(void)
{
    const char *out;
    char buf[64];
    cJSON *reply;

    if (!call_open(CALL_SERVER "max_pending_mb = 1\n" CALL_BASIC))
        return;
    /* One request larger than the limit. */
    call_go(&(struct call_req){.id = "1", .tool = "greet", .bytes = 2u << 20});
    reply = fixture_line_json(call_settle(), 0);
    CHECK_INT_EQ(
        cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "error"), "code")),
        JSONRPC_SERVER_ERROR);
    CHECK_STR_HAS(
        cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "error"), "message")),
        "max_pending_mb");
    CHECK(fixture_json_is(cJSON_GetObjectItem(reply, "id"), "1"));
    cJSON_Delete(reply);
    /* What a call in flight holds counts until it is answered. */
    call_go(&(struct call_req){
        .id = "2", .tool = "sleep", .args = "{\"ms\":150}", .bytes = 700u << 10});
    call_go(&(struct call_req){.id = "3", .tool = "greet", .bytes = 400u << 10});
    out = call_settle();
    CHECK_INT_EQ(fixture_count_lines(out), 2);
    reply = fixture_line_json(out, 0);
    CHECK(fixture_json_is(cJSON_GetObjectItem(reply, "id"), "3"));
    CHECK_INT_EQ(
        cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "error"), "code")),
        JSONRPC_SERVER_ERROR);
    cJSON_Delete(reply);
    CHECK_STR_EQ(call_text(out, 1, buf, sizeof(buf)), "slept 150");
    /* Answered: the bytes are released, and the same call now runs. */
    call_go(&(struct call_req){.id = "3", .tool = "greet", .bytes = 400u << 10});
    CHECK_STR_EQ(call_text(call_settle(), 0, buf, sizeof(buf)), "hi");
    fixture_server_close(&fx);
}

static void test_output_schema(void)
{
    cJSON *reply;
    const char *out;

    if (!call_open(CALL_SERVER CALL_FEATURES))
        return;
    call_go(&(struct call_req){.id = "1", .tool = "good_output"});
    reply = fixture_line_json(call_settle(), 0);
    CHECK(fixture_json_is(
        cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "result"), "structuredContent"),
        "{\"n\":42}"));
    cJSON_Delete(reply);
    call_go(&(struct call_req){.id = "2", .tool = "bad_output"});
    call_go(&(struct call_req){.id = "3", .tool = "no_output"});
    out = call_settle();
    CHECK_INT_EQ(fixture_count_lines(out), 2);
    for (int i = 0; i < 2; i++) {
        reply = fixture_line_json(out, i);
        CHECK_INT_EQ(
            cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "error"), "code")),
            JSONRPC_INTERNAL_ERROR);
        CHECK_STR_HAS(cJSON_GetStringValue(
                          cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "error"), "message")),
                      "broke its own outputSchema");
        cJSON_Delete(reply);
    }
    fixture_server_close(&fx);
}

/* The notifications/progress lines of out: how many, and whether each has a message. */
static int call_progress_lines(const char *out, const char *token, int *with_message)
{
    int n = 0;

    *with_message = 0;
    for (int i = 0; i < fixture_count_lines(out); i++) {
        cJSON *msg = fixture_line_json(out, i);
        const cJSON *params = cJSON_GetObjectItem(msg, "params");

        if (cJSON_IsString(cJSON_GetObjectItem(msg, "method")) &&
            strcmp(cJSON_GetObjectItem(msg, "method")->valuestring, "notifications/progress") ==
                0) {
            n++;
            CHECK(fixture_json_is(cJSON_GetObjectItem(params, "progressToken"), token));
            CHECK_INT_EQ(cJSON_GetNumberValue(cJSON_GetObjectItem(params, "progress")), n);
            *with_message += cJSON_GetObjectItem(params, "message") != NULL;
        }
        cJSON_Delete(msg);
    }
    return n;
}

static void test_progress(void)
{
    const char *out;
    int with_message = 0;

    if (!call_open(CALL_SERVER CALL_FEATURES))
        return;
    /* Two steps (a value going back is dropped), then the result, last. */
    call_go(&(struct call_req){.id = "1",
                               .tool = "progress",
                               .args = "{\"steps\":2}",
                               .meta = "{\"progressToken\":\"p\"}"});
    out = call_settle();
    CHECK_INT_EQ(call_progress_lines(out, "\"p\"", &with_message), 2);
    CHECK_INT_EQ(with_message, 2);
    CHECK_INT_EQ(fixture_count_lines(out), 3);
    CHECK(call_id_is(out, 2, "1"));
    /* 2024-11-05 has no message on progress; no token, no progress. */
    call_go(&(struct call_req){.id = "2",
                               .tool = "progress",
                               .args = "{\"steps\":1}",
                               .meta = "{\"progressToken\":9}",
                               .rev = REV_2024_11_05});
    out = call_settle();
    CHECK_INT_EQ(call_progress_lines(out, "9", &with_message), 1);
    CHECK_INT_EQ(with_message, 0);
    call_go(&(struct call_req){.id = "3", .tool = "progress", .args = "{\"steps\":3}"});
    out = call_settle();
    CHECK_INT_EQ(call_progress_lines(out, "null", &with_message), 0);
    CHECK_INT_EQ(fixture_count_lines(out), 1);
    fixture_server_close(&fx);
}

/* The handler asks the client; the answer comes back through the dispatcher. */
static void test_ask_client(void)
{
    char acc[4096] = "", line[512], buf[256];
    cJSON *ask;
    const char *ask_id;

    if (!call_open(CALL_SERVER CALL_FEATURES))
        return;
    /* A client that did not declare sampling is not asked. */
    call_go(&(struct call_req){.id = "1", .tool = "sample"});
    CHECK_STR_EQ(call_text(call_settle(), 0, buf, sizeof(buf)),
                 "the client does not support sampling");
    call_go(&(struct call_req){.id = "2", .tool = "sample", .can = CALL_CAN_SAMPLE});
    if (!CHECK(call_wait_output(acc, sizeof(acc), "sampling/createMessage", 3000)))
        goto out;
    ask = fixture_line_json(acc, 0);
    ask_id = cJSON_GetStringValue(cJSON_GetObjectItem(ask, "id"));
    CHECK(cJSON_IsObject(cJSON_GetObjectItem(ask, "params")));
    snprintf(line, sizeof(line),
             "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":{\"role\":\"assistant\","
             "\"content\":{\"type\":\"text\",\"text\":\"yes\"},\"model\":\"m\"}}",
             ask_id ? ask_id : "?");
    cJSON_Delete(ask);
    dispatch_line(&fx.srv, &fx.srv.pipe_peer, line, strlen(line));
    CHECK_STR_HAS(call_text(call_settle(), 0, buf, sizeof(buf)), "\"text\":\"yes\"");
out:
    fixture_server_close(&fx);
}

/* Replies into a batch fill their slots in order; the batch leaves as one array once every
 * slot is answered, and a cancelled call's slot stays empty. */
static void test_batch_slots(void)
{
    struct out_batch *b;
    cJSON *id = cJSON_CreateNumber(3), *replies;

    if (!call_open(CALL_SERVER CALL_BASIC))
        goto out;
    b = out_batch_new(&fx.srv.out, 3);
    if (!CHECK(b != NULL))
        goto out;
    call_go(&(struct call_req){
        .id = "1", .tool = "sleep", .args = "{\"ms\":100}", .batch = b, .slot = 0});
    call_go(&(struct call_req){
        .id = "2", .tool = "echo", .args = "{\"text\":\"two\"}", .batch = b, .slot = 2});
    call_go(&(struct call_req){
        .id = "3", .tool = "echo", .args = "{\"text\":\"three\"}", .batch = b, .slot = 1});
    inflight_cancel(&fx.srv.inflight, id);
    out_batch_close(b);
    replies = fixture_line_json(call_settle(), 0);
    CHECK(fixture_json_is(replies, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{"
                                   "\"type\":\"text\",\"text\":\"slept 100\"}]}},"
                                   "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{"
                                   "\"type\":\"text\",\"text\":\"two\"}]}}]"));
    cJSON_Delete(replies);
out:
    cJSON_Delete(id);
    fixture_server_close(&fx);
}

/* A 2026-07-28 call: a modern result, and the request's own log level for what its handler
 * logs (no logging/setLevel anywhere). */
static void test_modern_call(void)
{
    const char *out;
    cJSON *msg;
    struct peer *peer = NULL;
    int level = -1;

    if (!call_open(CALL_SERVER CALL_FEATURES))
        return;
    /* Outside a handler the session's level applies. */
    CHECK_INT_EQ(notify_caller_level(&fx.srv, &peer, &level), 0);
    call_go(&(struct call_req){.id = "1",
                               .tool = "log",
                               .args = "{\"level\":\"warning\",\"text\":\"to the request\"}",
                               .modern = 1,
                               .log_level = LOG_WARNING});
    /* The notification is sent at once, the reply at the flush: in this order. */
    out = call_settle();
    if (!CHECK_INT_EQ(fixture_count_lines(out), 2))
        fprintf(stderr, "    out: %s\n", out);
    msg = fixture_line_json(out, 0);
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(msg, "method")), "notifications/message");
    CHECK_STR_EQ(
        cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(msg, "params"), "data")),
        "to the request");
    cJSON_Delete(msg);
    msg = fixture_line_json(out, 1);
    CHECK_STR_EQ(
        cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(msg, "result"), "resultType")),
        "complete");
    CHECK(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(msg, "result"), "_meta"),
                              DECORATE_KEY_SERVER) != NULL);
    cJSON_Delete(msg);
    call_go(&(struct call_req){.id = "2",
                               .tool = "log",
                               .args = "{\"level\":\"info\",\"text\":\"below its level\"}",
                               .modern = 1,
                               .log_level = LOG_WARNING});
    out = call_settle();
    CHECK_INT_EQ(fixture_count_lines(out), 1);
    CHECK(call_id_is(out, 0, "2"));
    /* A legacy call of the same tool logs nothing to a session that set no level. */
    call_go(&(struct call_req){
        .id = "3", .tool = "log", .args = "{\"level\":\"error\",\"text\":\"to stderr only\"}"});
    out = call_settle();
    CHECK_INT_EQ(fixture_count_lines(out), 1);
    CHECK_STR_HAS(fixture_capture_take(&fx.log), "to stderr only");
    fixture_server_close(&fx);
}

/* ABI 1.4: under 2026-07-28 a named question goes under its name, the others under ask-N
 * with N counting every question (a name refused, used already, the ask-N an unnamed
 * question took, leaves its question unnamed; since 1.7 an ask-N name no question took is
 * taken); answers under those keys on a first call are taken. In a legacy
 * session the same names are checked the same way and the question is a plain request. */
static void test_named_questions(void)
{
    char acc[4096] = "", line[512], buf[512];
    cJSON *reply, *ask;
    const char *out, *ask_id;

    if (!call_open(CALL_SERVER CALL_NAMED))
        return;
    call_go(&(struct call_req){.id = "1",
                               .tool = "ask",
                               .args = "{\"keys\":\"user_name,-,user_name,ask-9,-,ask-2\"}",
                               .can = CALL_CAN_ROOTS,
                               .modern = 1});
    reply = fixture_line_json(call_settle(), 0);
    CHECK(
        fixture_json_is(cJSON_GetObjectItem(cJSON_GetObjectItem(reply, "result"), "inputRequests"),
                        "{\"user_name\":{\"method\":\"roots/list\"},"
                        "\"ask-2\":{\"method\":\"roots/list\"},"
                        "\"ask-3\":{\"method\":\"roots/list\"},"
                        "\"ask-9\":{\"method\":\"roots/list\"},"
                        "\"ask-5\":{\"method\":\"roots/list\"},"
                        "\"ask-6\":{\"method\":\"roots/list\"}}"));
    cJSON_Delete(reply);
    /* Every answer on the first call (no requestState): the handler completes at once. */
    call_go(&(struct call_req){
        .id = "2",
        .tool = "ask",
        .args = "{\"keys\":\"-,user_name\"}",
        .more = "\"inputResponses\":{\"user_name\":{\"roots\":[]},\"ask-1\":{\"roots\":[1]},"
                "\"extra\":{}}",
        .can = CALL_CAN_ROOTS,
        .modern = 1});
    CHECK_STR_EQ(call_text(call_settle(), 0, buf, sizeof(buf)),
                 "- . 0 {\"roots\":[1]}; user_name 0 0 {\"roots\":[]}");
    /* Legacy: a refused question (no capability) does not take its name; an asked one does,
     * and it is a plain roots/list request. */
    call_go(&(struct call_req){.id = "3", .tool = "ask", .args = "{\"keys\":\"a,a,bad key\"}"});
    CHECK_STR_EQ(call_text(call_settle(), 0, buf, sizeof(buf)), "a 0 -9; a 0 -9; bad key -2 -9");
    call_go(&(struct call_req){
        .id = "4", .tool = "ask", .args = "{\"keys\":\"a,a\"}", .can = CALL_CAN_ROOTS});
    for (int i = 0; i < 2; i++) {
        acc[0] = '\0';
        if (!CHECK(call_wait_output(acc, sizeof(acc), "roots/list", 3000)))
            goto out;
        ask = fixture_line_json(acc, 0);
        CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(ask, "method")), "roots/list");
        CHECK(cJSON_GetObjectItem(ask, "params") == NULL);
        ask_id = cJSON_GetStringValue(cJSON_GetObjectItem(ask, "id"));
        snprintf(line, sizeof(line),
                 "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"result\":{\"roots\":[]}}",
                 ask_id ? ask_id : "?");
        cJSON_Delete(ask);
        dispatch_line(&fx.srv, &fx.srv.pipe_peer, line, strlen(line));
    }
    out = call_settle();
    CHECK_STR_EQ(call_text(out, 0, buf, sizeof(buf)),
                 "a 0 0 {\"roots\":[]}; a -2 0 {\"roots\":[]}");
out:
    fixture_server_close(&fx);
}

static const struct check_test tests[] = {
    {"answered", test_answered},
    {"queued_not_run_inline", test_queued_not_run_inline},
    {"lanes", test_lanes},
    {"duplicate_id", test_duplicate_id},
    {"cancelled", test_cancelled},
    {"over_max_pending", test_over_max_pending},
    {"output_schema", test_output_schema},
    {"progress", test_progress},
    {"ask_client", test_ask_client},
    {"batch_slots", test_batch_slots},
    {"modern_call", test_modern_call},
    {"named_questions", test_named_questions},
    {0},
};

int main(void)
{
    return check_main("test_call", tests);
}
