/* test_dispatch.c: one input line in, the bytes a client reads out, through a server serving
 * the basic test plugin: the method table, every envelope error (-32700, -32600, -32601,
 * -32602), notifications and responses never answered, batches and the revisions that allow
 * them, the 2026-07-28 requests routed on their own beside a legacy session, list cursors
 * (made, read back, followed page by page), calls handed to the pool, subscriptions and the
 * log sink. */
#include "protocol/dispatch.h"
#include "protocol/lists.h"

#include "check.h"
#include "fixture.h"
#include "wire/jsonrpc.h"
#include "protocol/modern.h"
#include "served/decorate.h"
#include "served/notify.h"
#include "served/registry.h"
#include "lib/status.h"

#include <stdlib.h>
#include <string.h>

#define DSP_SERVER "[server]\nplugin_dir = ../../plugins\nname = dsp\n"
#define DSP_PLUGIN "[plugin.b]\npath = basic.so\n"
#define DSP_INI DSP_SERVER DSP_PLUGIN

/* The _meta of a request claiming 2026-07-28 (a params member). */
#define DSP_META "\"_meta\":{\"" MODERN_KEY_VERSION "\":\"2026-07-28\",\"" MODERN_KEY_CAPS "\":{}}"

static struct fixture_server fx;

static int dsp_open(const char *ini)
{
    return CHECK(fixture_server_serve(&fx, "dispatch", ini));
}

static const char *dsp(const char *line)
{
    return fixture_server_send(&fx, line);
}

/* A legacy session of revision `version`, initialized. Returns whether initialize succeeded. */
static int dsp_session(const char *version)
{
    char line[256];
    cJSON *reply;
    int ok;

    snprintf(line, sizeof(line),
             "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
             "\"protocolVersion\":\"%s\",\"capabilities\":{},"
             "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
             version);
    reply = fixture_line_json(dsp(line), 0);
    ok = cJSON_IsObject(cJSON_GetObjectItem(reply, "result"));
    cJSON_Delete(reply);
    dsp("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    return ok;
}

/* text is one line: an error with `code`, the id `id` (JSON text) and a message containing
 * `part` (NULL: any). */
static int dsp_error_is(const char *text, int code, const char *id, const char *part)
{
    cJSON *reply = fixture_line_json(text, 0);
    const cJSON *err = cJSON_GetObjectItem(reply, "error");
    const char *message = cJSON_GetStringValue(cJSON_GetObjectItem(err, "message"));
    int ok = CHECK_INT_EQ(fixture_count_lines(text), 1) &&
             CHECK_INT_EQ(cJSON_GetNumberValue(cJSON_GetObjectItem(err, "code")), code) &&
             CHECK(fixture_json_is(cJSON_GetObjectItem(reply, "id"), id)) &&
             (part == NULL || CHECK_STR_HAS(message, part));

    if (!ok)
        fprintf(stderr, "    reply: %s\n", text);
    cJSON_Delete(reply);
    return ok;
}

/* The result of the one-line reply text (a new object; NULL when it is not a result). */
static cJSON *dsp_result(const char *text)
{
    cJSON *reply = fixture_line_json(text, 0);
    cJSON *result = cJSON_DetachItemFromObject(reply, "result");

    if (result == NULL)
        fprintf(stderr, "    not a result: %s\n", text);
    cJSON_Delete(reply);
    return result;
}

/* The names (or `key` members) of the items of a list result, comma-separated, in buf. */
static const char *dsp_names(const cJSON *result, const char *list, const char *key, char *buf,
                             size_t size)
{
    const cJSON *item;
    size_t len = 0;

    buf[0] = '\0';
    cJSON_ArrayForEach(item, cJSON_GetObjectItem(result, list))
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(item, key));

        len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "", name ? name : "?");
        if (len >= size)
            break;
    }
    return buf;
}

static void test_ping_bytes(void)
{
    if (!dsp_open(DSP_INI))
        return;
    /* ping needs no session; the id is echoed as it came. */
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"),
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    CHECK_STR_EQ(dsp("{\"method\":\"ping\",\"id\":\"a-b\",\"jsonrpc\":\"2.0\",\"params\":{}}"),
                 "{\"jsonrpc\":\"2.0\",\"id\":\"a-b\",\"result\":{}}\n");
    /* Blank lines are not messages. */
    CHECK_STR_EQ(dsp(" \t\r"), "");
    fixture_server_close(&fx);
}

static void test_method_table(void)
{
    char names[256];
    cJSON *result;

    if (!dsp_open(DSP_INI))
        return;
    result = dsp_result(dsp("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                            "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}"));
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(result, "protocolVersion")),
                 "2025-06-18");
    CHECK_STR_EQ(cJSON_GetStringValue(
                     cJSON_GetObjectItem(cJSON_GetObjectItem(result, "serverInfo"), "name")),
                 "dsp");
    cJSON_Delete(result);
    /* initialize once per connection. */
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{"
                     "\"protocolVersion\":\"2025-06-18\"}}"),
                 JSONRPC_INVALID_REQUEST, "2", "already");
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"), "");
    /* Each list method answers from its own list. */
    result = dsp_result(dsp("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}"));
    CHECK_STR_EQ(dsp_names(result, "tools", "name", names, sizeof(names)),
                 "echo,sleep,overlap,greet,fail,boom");
    cJSON_Delete(result);
    result = dsp_result(dsp("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/list\"}"));
    CHECK_STR_EQ(dsp_names(result, "resources", "uri", names, sizeof(names)), "basic://hello");
    cJSON_Delete(result);
    result =
        dsp_result(dsp("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/templates/list\"}"));
    CHECK_STR_EQ(dsp_names(result, "resourceTemplates", "uriTemplate", names, sizeof(names)),
                 "basic://items/{id},basic://files/{+path}");
    cJSON_Delete(result);
    result = dsp_result(dsp("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"prompts/list\"}"));
    CHECK_STR_EQ(dsp_names(result, "prompts", "name", names, sizeof(names)), "greet");
    cJSON_Delete(result);
    fixture_server_close(&fx);
}

static void test_method_not_found(void)
{
    if (!dsp_open(DSP_INI))
        return;
    /* An unknown method outranks the missing session. */
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"no/such\"}"),
                 JSONRPC_METHOD_NOT_FOUND, "1", "Method not found: no/such");
    dsp_session("2025-06-18");
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/lists\"}"),
                 JSONRPC_METHOD_NOT_FOUND, "\"x\"", "tools/lists");
    /* A 2026-07-28 method in a legacy session. */
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"server/discover\"}"),
                 JSONRPC_METHOD_NOT_FOUND, "2", "2026-07-28");
    fixture_server_close(&fx);
}

static void test_invalid_request(void)
{
    static const struct {
        const char *line, *id, *part;
    } cases[] = {
        {"42", "null", "expected an object"},
        {"\"ping\"", "null", "expected an object"},
        {"{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}", "1", "JSON-RPC 2.0"},
        {"{\"id\":2,\"method\":\"ping\"}", "2", "JSON-RPC 2.0"},
        {"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":7}", "3", "JSON-RPC 2.0"},
        {"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", "null", "id must be"},
        {"{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", "null", "id must be"},
        {"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"notifications/initialized\"}", "4",
         "send it without an id"},
        {"{\"jsonrpc\":\"2.0\",\"id\":[],\"method\":\"a\\u0000\"}", "null", "U+0000"},
        {0},
    };

    if (!dsp_open(DSP_INI))
        return;
    dsp_session("2025-06-18");
    for (size_t i = 0; cases[i].line != NULL; i++) {
        if (!dsp_error_is(dsp(cases[i].line), JSONRPC_INVALID_REQUEST, cases[i].id, cases[i].part))
            fprintf(stderr, "    for: %s\n", cases[i].line);
    }
    fixture_server_close(&fx);
}

static void test_invalid_params(void)
{
    if (!dsp_open(DSP_INI))
        return;
    /* Before initialize (and without _meta): no session. */
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"),
                 JSONRPC_INVALID_PARAMS, "1", "No session");
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":[1]}"),
                 JSONRPC_INVALID_PARAMS, "2", "params must be an object");
    dsp_session("2025-06-18");
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{}}"),
                 JSONRPC_INVALID_PARAMS, "3", "params.name");
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{"
                     "\"name\":\"nope\"}}"),
                 JSONRPC_INVALID_PARAMS, "4", "Unknown tool: nope");
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{"
                     "\"name\":\"echo\",\"arguments\":[]}}"),
                 JSONRPC_INVALID_PARAMS, "5", "arguments must be an object");
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"prompts/get\",\"params\":{"
                     "\"name\":\"greet\"}}"),
                 JSONRPC_INVALID_PARAMS, "6", "Missing required argument 'name'");
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"logging/setLevel\",\"params\":{"
                     "\"level\":\"warn\"}}"),
                 JSONRPC_INVALID_PARAMS, "7", "logging/setLevel");
    /* U+0000 in a request with a usable id: its params are refused. */
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{"
                     "\"name\":\"echo\",\"arguments\":{\"text\":\"a\\u0000b\"}}}"),
                 JSONRPC_INVALID_PARAMS, "8", "U+0000");
    fixture_server_close(&fx);
}

static void test_parse_error(void)
{
    char deep[200];

    if (!dsp_open(DSP_INI))
        return;
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":1,"), JSONRPC_PARSE_ERROR, "null",
                 "not valid JSON");
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}"), JSONRPC_PARSE_ERROR,
                 "null", "not UTF-8 (at byte 34)");
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\tb\"}"), JSONRPC_PARSE_ERROR,
                 "null", "control character 0x09");
    /* Nested past the limit: refused before it is parsed. */
    memset(deep, '[', 70);
    memset(deep + 70, ']', 70);
    deep[140] = '\0';
    dsp_error_is(dsp(deep), JSONRPC_INVALID_REQUEST, "null", "nested deeper");
    /* The session is untouched by any of it. */
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}"),
                 "{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}\n");
    fixture_server_close(&fx);
}

static void test_oversized(void)
{
    if (!dsp_open(DSP_INI))
        return;
    dispatch_oversized(&fx.srv, &fx.srv.pipe_peer);
    fixture_server_settle(&fx, 1000);
    dsp_error_is(fixture_capture_take(&fx.out), JSONRPC_INVALID_REQUEST, "null", "longer than");
    fixture_server_close(&fx);
}

static void test_notifications_unanswered(void)
{
    if (!dsp_open(DSP_INI))
        return;
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/nothing\"}"), "");
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}"), "");
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"method\":\"tools/list\",\"params\":7}"), "");
    /* Before initialize, notifications/initialized is ignored: the session stays
     * uninitialized, so no list_changed goes out. */
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"), "");
    dsp("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
        "\"protocolVersion\":\"2025-06-18\"}}");
    notify_lists_changed(&fx.srv, REGISTRY_TOOLS);
    CHECK_STR_EQ(fixture_capture_take(&fx.out), "");
    /* After initialize it is handled, and still not answered. */
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"), "");
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{"
                     "\"requestId\":99}}"),
                 "");
    notify_lists_changed(&fx.srv, REGISTRY_TOOLS | REGISTRY_PROMPTS);
    CHECK_STR_EQ(fixture_capture_take(&fx.out),
                 "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n"
                 "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list_changed\"}\n");
    fixture_server_close(&fx);
}

static void test_responses_ignored(void)
{
    if (!dsp_open(DSP_INI))
        return;
    dsp_session("2025-06-18");
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}"), "");
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"id\":\"mcph-1\",\"result\":{\"x\":1}}"), "");
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
                     "\"message\":\"x\"}}"),
                 "");
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":1}"), "");
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}"),
                 "{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{}}\n");
    fixture_server_close(&fx);
}

static void test_batch(void)
{
    cJSON *replies;
    const char *text;

    if (!dsp_open(DSP_INI))
        return;
    if (!CHECK(dsp_session("2025-03-26")))
        goto out;
    /* One line, one array, in the order of the requests; the notification takes no slot, and
     * the call answers its slot from the pool. */
    text = dsp("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
               "\"name\":\"echo\",\"arguments\":{\"text\":\"in a batch\"}}},"
               "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},"
               "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"},"
               "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"nope\"},"
               "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"initialize\",\"params\":{"
               "\"protocolVersion\":\"2025-03-26\"}}]");
    CHECK_INT_EQ(fixture_count_lines(text), 1);
    replies = fixture_line_json(text, 0);
    CHECK(fixture_json_is(
        replies, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
                 "\"text\":\"in a batch\"}]}},"
                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}},"
                 "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32601,"
                 "\"message\":\"Method not found: nope\"}},"
                 "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32600,"
                 "\"message\":\"initialize must not be part of a batch\"}}]"));
    cJSON_Delete(replies);
    /* A batch of notifications only: nothing at all. */
    CHECK_STR_EQ(dsp("[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}]"), "");
    dsp_error_is(dsp("[]"), JSONRPC_INVALID_REQUEST, "null", "a batch holds 1 to 256");
out:
    fixture_server_close(&fx);
}

static void test_batch_refused_by_revision(void)
{
    if (!dsp_open(DSP_INI))
        return;
    dsp_error_is(dsp("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"),
                 JSONRPC_INVALID_REQUEST, "null", "negotiation");
    dsp_session("2025-06-18");
    dsp_error_is(dsp("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"),
                 JSONRPC_INVALID_REQUEST, "null", "not part of protocol 2025-06-18");
    fixture_server_close(&fx);
}

static void test_era_routing(void)
{
    cJSON *result, *batch;
    const cJSON *meta;

    if (!dsp_open(DSP_INI))
        return;
    /* No initialize: the _meta makes a 2026-07-28 request, served on its own. */
    result = dsp_result(
        dsp("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" DSP_META "}}"));
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(result, "resultType")), "complete");
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(result, "ttlMs")));
    meta = cJSON_GetObjectItem(cJSON_GetObjectItem(result, "_meta"), DECORATE_KEY_SERVER);
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(meta, "name")), "dsp");
    cJSON_Delete(result);
    /* The session is still not open for legacy requests. */
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}"),
                 JSONRPC_INVALID_PARAMS, "2", "No session");
    /* Methods removed in 2026-07-28, and a version not served per request. */
    dsp_error_is(
        dsp("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{" DSP_META "}}"),
        JSONRPC_METHOD_NOT_FOUND, "3", "not part of protocol 2026-07-28");
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{"
                     "\"_meta\":{\"" MODERN_KEY_VERSION "\":\"2099-01-01\",\"" MODERN_KEY_CAPS
                     "\":{}}}}"),
                 JSONRPC_UNSUPPORTED_VERSION, "4", NULL);
    /* Beside a legacy session: legacy requests get legacy results, modern ones modern. */
    dsp_session("2025-03-26");
    result = dsp_result(dsp("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}"));
    CHECK(cJSON_GetObjectItem(result, "resultType") == NULL);
    cJSON_Delete(result);
    result = dsp_result(dsp("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"server/discover\","
                            "\"params\":{" DSP_META "}}"));
    CHECK(cJSON_IsArray(cJSON_GetObjectItem(result, "supportedVersions")));
    CHECK(
        cJSON_IsObject(cJSON_GetObjectItem(cJSON_GetObjectItem(result, "capabilities"), "tools")));
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(result, "resultType")), "complete");
    cJSON_Delete(result);
    /* 2026-07-28 has no batches, even inside a session that has. */
    batch = fixture_line_json(dsp("[{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\","
                                  "\"params\":{" DSP_META "}}]"),
                              0);
    CHECK(fixture_json_is(batch, "[{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32600,"
                                 "\"message\":\"Invalid Request: protocol 2026-07-28 has no "
                                 "batches\"}}]"));
    cJSON_Delete(batch);
    fixture_server_close(&fx);
}

static void test_cursor_functions(void)
{
    static const size_t offsets[] = {0, 1, 99, 100};
    size_t off = 12345;
    char *c;

    for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
        c = lists_cursor('t', offsets[i]);
        if (!CHECK(c != NULL))
            continue;
        /* Opaque: not the plain text it stands for. */
        CHECK(strstr(c, "mcph") == NULL);
        CHECK_INT_EQ(lists_cursor_offset(c, 't', 100, &off), STATUS_OK);
        CHECK_INT_EQ(off, offsets[i]);
        /* Another list's cursor, or past the end of this one, is refused. */
        CHECK_INT_EQ(lists_cursor_offset(c, 'p', 100, &off), STATUS_INVALID);
        CHECK_INT_EQ(lists_cursor_offset(c, 't', offsets[i] ? offsets[i] - 1 : 0, &off),
                     offsets[i] ? STATUS_INVALID : STATUS_OK);
        free(c);
    }
    off = 7;
    CHECK_INT_EQ(lists_cursor_offset("", 't', 100, &off), STATUS_INVALID);
    CHECK_INT_EQ(lists_cursor_offset("not base64!", 't', 100, &off), STATUS_INVALID);
    /* base64 of "mcph:t:" (no number) and of "mcph:t:5x". */
    CHECK_INT_EQ(lists_cursor_offset("bWNwaDp0Og==", 't', 100, &off), STATUS_INVALID);
    CHECK_INT_EQ(lists_cursor_offset("bWNwaDp0OjV4", 't', 100, &off), STATUS_INVALID);
    CHECK_INT_EQ(off, 7);
}

/* tools/list with cursor (NULL: none); the names into names, the next cursor (owned) into
 * *next. */
static void dsp_tools_page(const char *cursor, char *names, size_t size, char **next)
{
    char line[256];
    cJSON *result;

    if (cursor != NULL)
        snprintf(line, sizeof(line),
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{"
                 "\"cursor\":\"%s\"}}",
                 cursor);
    else
        snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    result = dsp_result(dsp(line));
    dsp_names(result, "tools", "name", names, size);
    *next = cJSON_GetStringValue(cJSON_GetObjectItem(result, "nextCursor"))
                ? strdup(cJSON_GetStringValue(cJSON_GetObjectItem(result, "nextCursor")))
                : NULL;
    cJSON_Delete(result);
}

static void test_cursor_pages(void)
{
    char names[256], *next = NULL, *next2 = NULL, *last = NULL, line[256];

    if (!dsp_open(DSP_SERVER "page_size = 4\n" DSP_PLUGIN))
        return;
    dsp_session("2025-06-18");
    dsp_tools_page(NULL, names, sizeof(names), &next);
    CHECK_STR_EQ(names, "echo,sleep,overlap,greet");
    if (!CHECK(next != NULL))
        goto out;
    dsp_tools_page(next, names, sizeof(names), &next2);
    CHECK_STR_EQ(names, "fail,boom");
    CHECK(next2 == NULL);
    /* The same cursor again: the same page (printed once, served from the cache). */
    dsp_tools_page(next, names, sizeof(names), &last);
    CHECK_STR_EQ(names, "fail,boom");
    /* A tools cursor is no prompts cursor; a made-up one is refused. */
    snprintf(line, sizeof(line),
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"prompts/list\",\"params\":{"
             "\"cursor\":\"%s\"}}",
             next);
    dsp_error_is(dsp(line), JSONRPC_INVALID_PARAMS, "2", "Invalid cursor");
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{"
                     "\"cursor\":5}}"),
                 JSONRPC_INVALID_PARAMS, "3", "Invalid cursor");
out:
    free(next);
    free(next2);
    free(last);
    fixture_server_close(&fx);
}

static void test_calls_routed(void)
{
    cJSON *result;

    if (!dsp_open(DSP_INI))
        return;
    dsp_session("2025-06-18");
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
                     "\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}"),
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
                 "\"text\":\"hi\"}]}}\n");
    /* Arguments against the inputSchema: a tool error, and the plugin is not called. */
    result = dsp_result(dsp("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
                            "\"name\":\"echo\",\"arguments\":{\"text\":3}}}"));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(result, "isError")));
    CHECK_STR_HAS(cJSON_GetStringValue(cJSON_GetObjectItem(
                      cJSON_GetArrayItem(cJSON_GetObjectItem(result, "content"), 0), "text")),
                  "Invalid arguments for tool 'echo'");
    cJSON_Delete(result);
    /* A template read gets its variables; an unknown URI is -32002 in a legacy session. */
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{"
                     "\"uri\":\"basic://items/7\"}}"),
                 "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"contents\":[{\"uri\":"
                 "\"basic://items/7\",\"mimeType\":\"text/plain\",\"text\":\"item 7\"}]}}\n");
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{"
                     "\"uri\":\"basic://nowhere\"}}"),
                 JSONRPC_RESOURCE_NOT_FOUND, "4", "Resource not found");
    result = dsp_result(dsp("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"prompts/get\",\"params\":{"
                            "\"name\":\"greet\",\"arguments\":{\"name\":\"Ann\"}}}"));
    CHECK(fixture_json_is(cJSON_GetObjectItem(result, "messages"),
                          "[{\"role\":\"user\",\"content\":{\"type\":\"text\","
                          "\"text\":\"Greet Ann\"}}]"));
    cJSON_Delete(result);
    /* No completion handler: an empty completion, answered without the pool. */
    result = dsp_result(dsp("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"completion/complete\","
                            "\"params\":{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                            "\"argument\":{\"name\":\"name\",\"value\":\"A\"}}}"));
    CHECK(
        fixture_json_is(result, "{\"completion\":{\"values\":[],\"total\":0,\"hasMore\":false}}"));
    cJSON_Delete(result);
    fixture_server_close(&fx);
}

static void test_subscriptions(void)
{
    if (!dsp_open(DSP_INI))
        return;
    dsp_session("2025-06-18");
    /* Not subscribed: an update goes nowhere. */
    notify_resource_updated(&fx.srv, "basic://hello");
    CHECK_STR_EQ(fixture_capture_take(&fx.out), "");
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/subscribe\","
                     "\"params\":{\"uri\":\"basic://hello\"}}"),
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    notify_resource_updated(&fx.srv, "basic://hello");
    notify_resource_updated(&fx.srv, "basic://items/1");
    CHECK_STR_EQ(fixture_capture_take(&fx.out),
                 "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\","
                 "\"params\":{\"uri\":\"basic://hello\"}}\n");
    dsp_error_is(dsp("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\","
                     "\"params\":{\"uri\":\"basic://nowhere\"}}"),
                 JSONRPC_RESOURCE_NOT_FOUND, "2", NULL);
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/unsubscribe\","
                     "\"params\":{\"uri\":\"basic://hello\"}}"),
                 "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n");
    notify_resource_updated(&fx.srv, "basic://hello");
    CHECK_STR_EQ(fixture_capture_take(&fx.out), "");
    fixture_server_close(&fx);
}

static void test_log_sink(void)
{
    if (!dsp_open(DSP_INI))
        return;
    dsp_session("2025-06-18");
    /* Nothing reaches the client before it asks for a level. */
    log_msg(&fx.srv.log, LOG_ERROR, NULL, "before setLevel");
    CHECK_STR_EQ(fixture_capture_take(&fx.out), "");
    CHECK_STR_EQ(dsp("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\","
                     "\"params\":{\"level\":\"warning\"}}"),
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    log_msg(&fx.srv.log, LOG_INFO, NULL, "below the level");
    log_msg(&fx.srv.log, LOG_WARNING, "b", "disk at %d%%", 91);
    CHECK_STR_EQ(fixture_capture_take(&fx.out),
                 "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{"
                 "\"level\":\"warning\",\"logger\":\"b\",\"data\":\"disk at 91%\"}}\n");
    fixture_server_close(&fx);
}

static const struct check_test tests[] = {
    {"ping_bytes", test_ping_bytes},
    {"method_table", test_method_table},
    {"method_not_found", test_method_not_found},
    {"invalid_request", test_invalid_request},
    {"invalid_params", test_invalid_params},
    {"parse_error", test_parse_error},
    {"oversized", test_oversized},
    {"notifications_unanswered", test_notifications_unanswered},
    {"responses_ignored", test_responses_ignored},
    {"batch", test_batch},
    {"batch_refused_by_revision", test_batch_refused_by_revision},
    {"era_routing", test_era_routing},
    {"cursor_functions", test_cursor_functions},
    {"cursor_pages", test_cursor_pages},
    {"calls_routed", test_calls_routed},
    {"subscriptions", test_subscriptions},
    {"log_sink", test_log_sink},
    {0},
};

int main(void)
{
    return check_main("test_dispatch", tests);
}
