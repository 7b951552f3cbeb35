/* test_httpmsg.c: what the HTTP transport reads off messages and headers: Accept, the event
 * framing, answers told from other lines, the statuses of answers, the mirrored 2026-07-28
 * headers and their base64 form, Host names. */
#include "transport/httpmsg.h"

#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void test_accepts(void)
{
    CHECK(httpmsg_accepts(NULL, "application/json"));
    CHECK(httpmsg_accepts("application/json, text/event-stream", "text/event-stream"));
    CHECK(httpmsg_accepts("application/json,text/event-stream", "application/json"));
    CHECK(httpmsg_accepts("Application/JSON;q=0.9", "application/json"));
    CHECK(httpmsg_accepts("*/*", "text/event-stream"));
    CHECK(httpmsg_accepts("text/*", "text/event-stream"));
    CHECK(!httpmsg_accepts("text/*", "application/json"));
    CHECK(!httpmsg_accepts("application/json", "text/event-stream"));
    CHECK(!httpmsg_accepts("application/jsonx", "application/json"));
    CHECK(!httpmsg_accepts("", "application/json"));
    CHECK(!httpmsg_accepts("text/event", "text/event-stream"));
}

static void test_event(void)
{
    struct strbuf sb = STRBUF_INIT;

    httpmsg_event(&sb, "{\"a\":1}xyz", 7);
    CHECK_STR_EQ(sb.buf, "event: message\ndata: {\"a\":1}\n\n");
    strbuf_release(&sb);
}

/* Answers (responses, batches) against the lines mcph writes that are not answers. */
static void test_answers(void)
{
    static const char note[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}";
    static const char ask[] = "{\"jsonrpc\":\"2.0\",\"method\":\"roots/list\",\"id\":\"mcph-1\"}";
    static const char reply[] = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}";
    char lines[512];

    CHECK(httpmsg_is_answer(reply, strlen(reply)));
    CHECK(httpmsg_is_answer("[{}]", 4));
    CHECK(!httpmsg_is_answer(note, strlen(note)));
    CHECK(!httpmsg_is_answer(ask, strlen(ask)));
    CHECK(!httpmsg_is_answer(reply, 10));
    CHECK(!httpmsg_has_message(reply, strlen(reply)));
    snprintf(lines, sizeof(lines), "%s\n%s\n", reply, note);
    CHECK(httpmsg_has_message(lines, strlen(lines)));
    snprintf(lines, sizeof(lines), "%s\n", ask);
    CHECK(httpmsg_has_message(lines, strlen(lines)));
    /* A line cut short of the prefix is not taken for one. */
    CHECK(!httpmsg_has_message(note, 12));
}

static unsigned status_of(const char *line, int requests, int in_session)
{
    return httpmsg_status(line, strlen(line), requests, in_session);
}

static void test_status(void)
{
    CHECK_INT_EQ(status_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", 1, 0), 200);
    /* A handler's error stays in the body. */
    CHECK_INT_EQ(status_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32602,"
                           "\"message\":\"Unknown tool: x\"}}",
                           1, 0),
                 200);
    CHECK_INT_EQ(status_of("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,"
                           "\"message\":\"Internal error\"}}",
                           1, 1),
                 200);
    CHECK_INT_EQ(status_of("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,"
                           "\"message\":\"Parse error\"}}",
                           0, 0),
                 400);
    CHECK_INT_EQ(status_of("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32600,"
                           "\"message\":\"Invalid Request\"}}",
                           1, 1),
                 400);
    CHECK_INT_EQ(status_of("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32022,"
                           "\"message\":\"Unsupported protocol version\"}}",
                           1, 0),
                 400);
    CHECK_INT_EQ(status_of("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32021,"
                           "\"message\":\"Missing required client capability\"}}",
                           1, 0),
                 400);
    /* An envelope error is a 400 for a sessionless request; in a session it is a handler's. */
    CHECK_INT_EQ(status_of("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,"
                           "\"message\":\"Invalid _meta envelope for protocol revision x\"}}",
                           1, 0),
                 400);
    CHECK_INT_EQ(status_of("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,"
                           "\"message\":\"Invalid _meta envelope for protocol revision x\"}}",
                           1, 1),
                 200);
    /* An unknown method: 404 without a session (2026-07-28), in the body within one. */
    CHECK_INT_EQ(status_of("{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32601,"
                           "\"message\":\"Method not found\"}}",
                           1, 0),
                 404);
    CHECK_INT_EQ(status_of("{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32601,"
                           "\"message\":\"Method not found\"}}",
                           1, 1),
                 200);
}

static void test_requests(void)
{
    cJSON *one = cJSON_Parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    cJSON *note = cJSON_Parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    cJSON *batch = cJSON_Parse("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"},"
                               "{\"jsonrpc\":\"2.0\",\"method\":\"b\"},"
                               "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"c\"},"
                               "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}]");

    CHECK_STR_EQ(httpmsg_request_method(one), "tools/list");
    CHECK(httpmsg_request_method(note) == NULL);
    CHECK(httpmsg_request_method(batch) == NULL);
    CHECK_INT_EQ(httpmsg_count_requests(one), 1);
    CHECK_INT_EQ(httpmsg_count_requests(note), 0);
    CHECK_INT_EQ(httpmsg_count_requests(batch), 2);
    cJSON_Delete(one);
    cJSON_Delete(note);
    cJSON_Delete(batch);
}

static void test_mirrored(void)
{
    cJSON *call = cJSON_Parse("{\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"_meta\":{"
                              "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
    cJSON *read = cJSON_Parse("{\"method\":\"resources/read\",\"params\":{\"uri\":\"file:///a\"}}");
    cJSON *list = cJSON_Parse("{\"method\":\"tools/list\",\"params\":{\"name\":\"x\"}}");
    char buf[256];
    int needed = -1;

    CHECK_STR_EQ(httpmsg_name_of(call, "tools/call", &needed), "echo");
    CHECK_INT_EQ(needed, 1);
    CHECK_STR_EQ(httpmsg_name_of(read, "resources/read", &needed), "file:///a");
    CHECK(httpmsg_name_of(list, "tools/list", &needed) == NULL);
    CHECK_INT_EQ(needed, 0);
    CHECK_STR_EQ(httpmsg_meta_version(call), "2026-07-28");
    CHECK(httpmsg_meta_version(read) == NULL);
    CHECK(httpmsg_check_header("Mcp-Name", "echo", "echo", 1, buf, sizeof(buf)) == NULL);
    CHECK(httpmsg_check_header("Mcp-Name", NULL, "echo", 0, buf, sizeof(buf)) == NULL);
    CHECK_STR_HAS(httpmsg_check_header("Mcp-Name", NULL, "echo", 1, buf, sizeof(buf)),
                  "the Mcp-Name header is missing");
    CHECK_STR_HAS(
        httpmsg_check_header("Mcp-Method", "TOOLS/CALL", "tools/call", 1, buf, sizeof(buf)),
        "'TOOLS/CALL' does not match body value 'tools/call'");
    CHECK_STR_HAS(httpmsg_check_header("Mcp-Name", "x", NULL, 1, buf, sizeof(buf)), "(none)");
    /* A name past ASCII must come in the base64 form. */
    CHECK_STR_HAS(
        httpmsg_check_header("Mcp-Name", "caf\xc3\xa9", "caf\xc3\xa9", 1, buf, sizeof(buf)),
        "outside visible ASCII");
    /* The spec's examples of the base64 form. */
    CHECK(httpmsg_check_header("Mcp-Name", "=?base64?SGVsbG8sIOS4lueVjA==?=",
                               "Hello, \xe4\xb8\x96\xe7\x95\x8c", 1, buf, sizeof(buf)) == NULL);
    CHECK(httpmsg_check_header("Mcp-Name", "=?base64?IHBhZGRlZCA=?=", " padded ", 1, buf,
                               sizeof(buf)) == NULL);
    CHECK(httpmsg_check_header("Mcp-Name", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
                               "=?base64?literal?=", 1, buf, sizeof(buf)) == NULL);
    cJSON_Delete(call);
    cJSON_Delete(read);
    cJSON_Delete(list);
}

static void test_decode_value(void)
{
    char *v;

    v = httpmsg_decode_value("plain");
    CHECK_STR_EQ(v, "plain");
    free(v);
    /* Not the whole wrapper: taken as it is. */
    v = httpmsg_decode_value("=?base64?abc");
    CHECK_STR_EQ(v, "=?base64?abc");
    free(v);
    v = httpmsg_decode_value("=?BASE64?YQ==?=");
    CHECK_STR_EQ(v, "=?BASE64?YQ==?=");
    free(v);
    /* Bad padding, a character outside the alphabet, a NUL: nothing. */
    CHECK(httpmsg_decode_value("=?base64?SGVsbG8?=") == NULL);
    CHECK(httpmsg_decode_value("=?base64?SGVs!!!bG8=?=") == NULL);
    CHECK(httpmsg_decode_value("=?base64?YQBi?=") == NULL);
}

/* Headers for test_params: "Mcp-Param-NAME: VALUE" lines, NULL-ended; a name may repeat. */
static const char *params_lookup(void *ctx, const char *name, int *count)
{
    const char *const *lines = ctx;
    const char *found = NULL;

    *count = 0;
    for (; *lines != NULL; lines += 2) {
        if (strcasecmp(lines[0], name) == 0 && (*count)++ == 0)
            found = lines[1];
    }
    return found;
}

/* x-mcp-header against the arguments: the spec's types, the base64 form, numbers as numbers,
 * nested properties, and the places an annotation does not count. */
static void test_params(void)
{
    cJSON *schema = cJSON_Parse(
        "{\"type\":\"object\",\"properties\":{"
        "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
        "\"n\":{\"type\":\"integer\",\"x-mcp-header\":\"N\"},"
        "\"on\":{\"type\":\"boolean\",\"x-mcp-header\":\"On\"},"
        "\"deep\":{\"type\":\"object\",\"properties\":{"
        "\"id\":{\"type\":\"string\",\"x-mcp-header\":\"Deep-Id\"}}},"
        "\"list\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"x-mcp-header\":\"Item\"}},"
        "\"any\":{\"anyOf\":[{\"type\":\"string\",\"x-mcp-header\":\"Any\"}]}}}");
    cJSON *args = cJSON_Parse("{\"region\":\"us-west1\",\"n\":42,\"on\":true,"
                              "\"deep\":{\"id\":\"x1\"},\"list\":[\"a\"],\"any\":\"b\"}");
    cJSON *few = cJSON_Parse("{\"region\":null}");
    cJSON *greet = cJSON_Parse("{\"region\":\"Hello, \xe4\xb8\x96\xe7\x95\x8c\"}");
    const char *good[] = {"Region", "us-west1", "n", "42.0", "On", "true", "deep-id", "x1", NULL};
    const char *missing[] = {"Region", "us-west1", "N", "42", "On", "true", NULL};
    const char *wrong_n[] = {"Region", "us-west1", "N", "43", "On", "true", "Deep-Id", "x1", NULL};
    const char *word_n[] = {"Region", "us-west1", "N", "4x", "On", "true", "Deep-Id", "x1", NULL};
    const char *hex_n[] = {"Region", "us-west1", "N", "0x2A", "On", "true", "Deep-Id", "x1", NULL};
    const char *wrong_on[] = {"Region", "us-west1", "N", "42", "On", "True", "Deep-Id", "x1", NULL};
    const char *twice[] = {"Region", "us-west1", "Region",  "us-west1", "N", "42",
                           "On",     "true",     "Deep-Id", "x1",       NULL};
    const char *b64[] = {"Region", "=?base64?SGVsbG8sIOS4lueVjA==?=", NULL};
    const char *raw[] = {"Region", "Hello, \xe4\xb8\x96\xe7\x95\x8c", NULL};
    const char *none[] = {NULL};
    const char *extra[] = {"Region", "us-west1", NULL};
    char buf[256];

    if (!CHECK(schema != NULL && args != NULL && few != NULL && greet != NULL))
        return;
    CHECK(httpmsg_check_params(schema, args, params_lookup, good, buf, sizeof(buf)) == NULL);
    CHECK_STR_HAS(httpmsg_check_params(schema, args, params_lookup, missing, buf, sizeof(buf)),
                  "the Mcp-Param-Deep-Id header is missing");
    CHECK_STR_HAS(httpmsg_check_params(schema, args, params_lookup, wrong_n, buf, sizeof(buf)),
                  "Mcp-Param-N header value '43' does not match body value '42'");
    CHECK_STR_HAS(httpmsg_check_params(schema, args, params_lookup, word_n, buf, sizeof(buf)),
                  "Mcp-Param-N header value '4x'");
    CHECK_STR_HAS(httpmsg_check_params(schema, args, params_lookup, hex_n, buf, sizeof(buf)),
                  "Mcp-Param-N header value '0x2A'");
    CHECK_STR_HAS(httpmsg_check_params(schema, args, params_lookup, wrong_on, buf, sizeof(buf)),
                  "'True' does not match body value 'true'");
    CHECK_STR_HAS(httpmsg_check_params(schema, args, params_lookup, twice, buf, sizeof(buf)),
                  "came 2 times");
    /* The spec's example of the base64 form; the same text sent raw has bytes past ASCII. */
    CHECK(httpmsg_check_params(schema, greet, params_lookup, b64, buf, sizeof(buf)) == NULL);
    CHECK_STR_HAS(httpmsg_check_params(schema, greet, params_lookup, raw, buf, sizeof(buf)),
                  "outside visible ASCII");
    /* null or absent: no header expected, and one sent does not match. */
    CHECK(httpmsg_check_params(schema, few, params_lookup, none, buf, sizeof(buf)) == NULL);
    CHECK_STR_HAS(httpmsg_check_params(schema, few, params_lookup, extra, buf, sizeof(buf)),
                  "does not match body value '(none)'");
    CHECK(httpmsg_check_params(schema, NULL, params_lookup, none, buf, sizeof(buf)) == NULL);
    /* No annotation: nothing looked at. */
    CHECK(httpmsg_check_params(few, args, params_lookup, none, buf, sizeof(buf)) == NULL);
    cJSON_Delete(schema);
    cJSON_Delete(args);
    cJSON_Delete(few);
    cJSON_Delete(greet);
}

static void test_host_part(void)
{
    char buf[64];

    httpmsg_host_part("LocalHost:8808", 14, buf, sizeof(buf));
    CHECK_STR_EQ(buf, "localhost");
    httpmsg_host_part("127.0.0.1", 9, buf, sizeof(buf));
    CHECK_STR_EQ(buf, "127.0.0.1");
    httpmsg_host_part("[::1]:80", 8, buf, sizeof(buf));
    CHECK_STR_EQ(buf, "[::1]");
    httpmsg_host_part("example.com/path", 11, buf, sizeof(buf));
    CHECK_STR_EQ(buf, "example.com");
    httpmsg_host_part("a-very-long-host-name.example", 29, buf, 8);
    CHECK_STR_EQ(buf, "a-very-");
}

static const struct check_test tests[] = {
    {"accepts", test_accepts},           {"event", test_event},
    {"answers", test_answers},           {"status", test_status},
    {"requests", test_requests},         {"mirrored", test_mirrored},
    {"decode_value", test_decode_value}, {"params", test_params},
    {"host_part", test_host_part},       {0},
};

int main(void)
{
    return check_main("test_httpmsg", tests);
}
