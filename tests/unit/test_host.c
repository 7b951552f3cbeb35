/* test_host.c: the host vtable driven as a plugin would, on a zeroed instance with an id
 * and a log: services, argument accessors, content sinks per revision, structured results,
 * resource contents, prompt messages, protocol errors and the result of each call kind;
 * client_log through the log sink's filter, and no predecessor outside init (1.3); ask_key
 * handed to the protocol side, and a question refused for its input forgetting the name
 * (1.4). */
#include "host/host.h"

#include "check.h"
#include "fixture.h"
#include "lib/limits.h"
#include "host/plugin.h"
#include "host/result.h"
#include "wire/revision.h"
#include "lib/status.h"
#include "lib/version.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The fake instance, its vtable, and the read end of its log pipe. */
static struct plugin host_pl;
static struct log host_log;
static int host_log_read = -1;
static const struct mcph_host *vt;

/* Writable copies: the structs hold char *, and string literals are const here. */
static char host_id[] = "fake";
static char host_k_greeting[] = "greeting", host_v_hello[] = "hello", host_d_hi[] = "hi";
static char host_k_colour[] = "colour", host_d_blue[] = "blue", host_k_token[] = "token";

static struct config_kv host_config_kv[] = {
    {.key = host_k_greeting, .value = host_v_hello, .line = 3},
};

static struct plugin_key host_keys[] = {
    {.name = host_k_greeting, .default_value = host_d_hi},
    {.name = host_k_colour, .default_value = host_d_blue},
    {.name = host_k_token, .default_value = NULL, .required = 1},
};

static int host_setup_fake(void)
{
    int fds[2];

    if (pipe(fds) != 0 || fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0)
        return -1;
    log_init(&host_log);
    host_log.fd = fds[1];
    host_log_read = fds[0];
    memset(&host_pl, 0, sizeof(host_pl));
    host_pl.id = host_id;
    host_pl.log = &host_log;
    host_pl.config = host_config_kv;
    host_pl.nconfig = 1;
    host_pl.keys = host_keys;
    host_pl.nkeys = 3;
    host_setup(&host_pl.host, &host_pl);
    vt = &host_pl.host.vt;
    return 0;
}

/* The call's result, compared with want, then freed with the call. */
static int host_result_is(struct mcph_call *c, const char *want)
{
    cJSON *result = result_build(c);
    int same = fixture_json_is(result, want);

    cJSON_Delete(result);
    result_release(c);
    return same;
}

static void test_vtable_fields(void)
{
    CHECK_INT_EQ(vt->size, sizeof(struct mcph_host));
    CHECK_INT_EQ(vt->abi_major, MCPH_ABI_MAJOR);
    CHECK_INT_EQ(vt->abi_minor, MCPH_ABI_MINOR);
    CHECK_STR_EQ(vt->version, MCPH_VERSION);
    CHECK_STR_EQ(vt->instance, "fake");
    CHECK(host_pl.host.plugin == &host_pl);
    CHECK((const void *)vt == (const void *)&host_pl.host);
}

static void test_log(void)
{
    char buf[1024];

    fixture_drain(host_log_read, buf, sizeof(buf));
    vt->log(vt, MCPH_LOG_WARNING, "low on %s: %d left", "disk", 3);
    fixture_drain(host_log_read, buf, sizeof(buf));
    CHECK_STR_EQ(buf, "mcph: warning: plugin fake: low on disk: 3 left\n");
    vt->log(vt, MCPH_LOG_DEBUG, "below the level");
    fixture_drain(host_log_read, buf, sizeof(buf));
    CHECK_STR_EQ(buf, "");
    /* A level outside the enum is logged as an error, not dropped. */
    vt->log(vt, (enum mcph_log_level)99, "odd level");
    fixture_drain(host_log_read, buf, sizeof(buf));
    CHECK_STR_EQ(buf, "mcph: error: plugin fake: odd level\n");
}

static void test_config(void)
{
    CHECK_STR_EQ(vt->config(vt, "greeting"), "hello");
    CHECK_STR_EQ(vt->config(vt, "colour"), "blue");
    CHECK(vt->config(vt, "token") == NULL);
    CHECK(vt->config(vt, "unknown") == NULL);
    CHECK(vt->config(vt, NULL) == NULL);
}

static const char host_args_text[] =
    "{\"s\":\"text\",\"n\":1.5,\"i\":42,\"neg\":-7,\"big\":1e30,"
    "\"two63\":9223372036854775808,\"min\":-9223372036854775808,\"b\":true,\"f\":false,"
    "\"o\":{\"a\":[1,2]},\"nul\":null}";

static void test_arg_accessors(void)
{
    cJSON *args = cJSON_Parse(host_args_text);
    struct mcph_call c;
    const char *s = NULL;
    double d = 0;
    int64_t i = 0;
    int b = -1;

    if (!CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_06_18, args, NULL), STATUS_OK))
        return;
    CHECK_INT_EQ(vt->arg_string(&c, "s", &s), MCPH_OK);
    CHECK_STR_EQ(s, "text");
    CHECK_INT_EQ(vt->arg_string(&c, "n", &s), MCPH_ERR_TYPE);
    CHECK_INT_EQ(vt->arg_string(&c, "nul", &s), MCPH_ERR_TYPE);
    CHECK_INT_EQ(vt->arg_string(&c, "missing", &s), MCPH_ERR_ABSENT);
    CHECK_INT_EQ(vt->arg_string(&c, "S", &s), MCPH_ERR_ABSENT);

    CHECK_INT_EQ(vt->arg_number(&c, "n", &d), MCPH_OK);
    CHECK(d == 1.5);
    CHECK_INT_EQ(vt->arg_number(&c, "i", &d), MCPH_OK);
    CHECK(d == 42);
    CHECK_INT_EQ(vt->arg_number(&c, "s", &d), MCPH_ERR_TYPE);
    CHECK_INT_EQ(vt->arg_number(&c, "missing", &d), MCPH_ERR_ABSENT);

    CHECK_INT_EQ(vt->arg_bool(&c, "b", &b), MCPH_OK);
    CHECK_INT_EQ(b, 1);
    CHECK_INT_EQ(vt->arg_bool(&c, "f", &b), MCPH_OK);
    CHECK_INT_EQ(b, 0);
    CHECK_INT_EQ(vt->arg_bool(&c, "i", &b), MCPH_ERR_TYPE);
    CHECK_INT_EQ(vt->arg_bool(&c, "missing", &b), MCPH_ERR_ABSENT);

    CHECK_INT_EQ(vt->arg_integer(&c, "i", &i), MCPH_OK);
    CHECK_INT_EQ(i, 42);
    CHECK_INT_EQ(vt->arg_integer(&c, "neg", &i), MCPH_OK);
    CHECK_INT_EQ(i, -7);
    CHECK_INT_EQ(vt->arg_integer(&c, "min", &i), MCPH_OK);
    CHECK(i == INT64_MIN);
    i = 5;
    CHECK_INT_EQ(vt->arg_integer(&c, "n", &i), MCPH_ERR_TYPE);
    CHECK_INT_EQ(vt->arg_integer(&c, "big", &i), MCPH_ERR_TYPE);
    CHECK_INT_EQ(vt->arg_integer(&c, "two63", &i), MCPH_ERR_TYPE);
    CHECK_INT_EQ(vt->arg_integer(&c, "s", &i), MCPH_ERR_TYPE);
    CHECK_INT_EQ(vt->arg_integer(&c, "b", &i), MCPH_ERR_TYPE);
    CHECK_INT_EQ(vt->arg_integer(&c, "missing", &i), MCPH_ERR_ABSENT);
    CHECK_INT_EQ(i, 5);
    result_release(&c);
    cJSON_Delete(args);
}

static void test_arg_json(void)
{
    cJSON *args = cJSON_Parse("{\"o\":{\"a\":[1,2]},\"nul\":null,\"s\":\"x\"}");
    cJSON *empty = cJSON_CreateObject();
    struct mcph_call c;
    const char *json = NULL, *again = NULL;

    if (!CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_06_18, args, NULL), STATUS_OK))
        return;
    CHECK_INT_EQ(vt->arg_json(&c, "o", &json), MCPH_OK);
    CHECK_STR_EQ(json, "{\"a\":[1,2]}");
    CHECK_INT_EQ(vt->arg_json(&c, "nul", &again), MCPH_OK);
    CHECK_STR_EQ(again, "null");
    /* Strings lent earlier stay valid until the call ends. */
    CHECK_STR_EQ(json, "{\"a\":[1,2]}");
    CHECK_INT_EQ(vt->arg_json(&c, "s", &json), MCPH_OK);
    CHECK_STR_EQ(json, "\"x\"");
    CHECK_INT_EQ(vt->arg_json(&c, "missing", &json), MCPH_ERR_ABSENT);
    CHECK_INT_EQ(vt->args_json(&c, &json), MCPH_OK);
    CHECK_STR_EQ(json, "{\"o\":{\"a\":[1,2]},\"nul\":null,\"s\":\"x\"}");
    CHECK(vt->uri(&c) == NULL);
    result_release(&c);

    if (CHECK_INT_EQ(result_init(&c, RESULT_RESOURCE, REV_2025_06_18, empty, "x://r/1"),
                     STATUS_OK)) {
        CHECK_INT_EQ(vt->args_json(&c, &json), MCPH_OK);
        CHECK_STR_EQ(json, "{}");
        CHECK_STR_EQ(vt->uri(&c), "x://r/1");
        result_release(&c);
    }
    cJSON_Delete(args);
    cJSON_Delete(empty);
}

static void test_call_init(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;

    if (!CHECK_INT_EQ(result_init(&c, RESULT_PROMPT, REV_2025_03_26, args, NULL), STATUS_OK))
        return;
    CHECK_INT_EQ(c.kind, RESULT_PROMPT);
    CHECK_INT_EQ(c.rev, REV_2025_03_26);
    CHECK(c.args == args);
    CHECK_INT_EQ(c.role, -1);
    CHECK(cJSON_IsArray(c.items) && cJSON_GetArraySize(c.items) == 0);
    CHECK(c.structured == NULL && c.error == NULL && c.description == NULL);
    CHECK_INT_EQ(c.is_error + c.has_text, 0);
    result_release(&c);
    result_release(NULL);
    cJSON_Delete(args);
}

/* Tool content of every kind, as the newest revision sends it. */
static void test_tool_content_current(void)
{
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', 0};
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;

    if (!CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_06_18, args, NULL), STATUS_OK))
        return;
    CHECK_INT_EQ(vt->text(&c, "hello"), MCPH_OK);
    CHECK_INT_EQ(vt->image(&c, png, sizeof(png), "image/png"), MCPH_OK);
    CHECK_INT_EQ(vt->audio(&c, "abc", 3, "audio/wav"), MCPH_OK);
    CHECK_INT_EQ(vt->resource_link(&c, "file:///a.txt", "a.txt", "text/plain", "The a"), MCPH_OK);
    CHECK_INT_EQ(vt->resource_link(&c, "file:///b", "b", NULL, NULL), MCPH_OK);
    CHECK_INT_EQ(vt->embedded_text(&c, "x://doc", "text/markdown", "# Doc"), MCPH_OK);
    CHECK_INT_EQ(vt->embedded_blob(&c, "x://bin", NULL, "\0\1\2", 3), MCPH_OK);
    CHECK(host_result_is(
        &c, "{\"content\":["
            "{\"type\":\"text\",\"text\":\"hello\"},"
            "{\"type\":\"image\",\"data\":\"iVBORwA=\",\"mimeType\":\"image/png\"},"
            "{\"type\":\"audio\",\"data\":\"YWJj\",\"mimeType\":\"audio/wav\"},"
            "{\"type\":\"resource_link\",\"uri\":\"file:///a.txt\",\"name\":\"a.txt\","
            "\"mimeType\":\"text/plain\",\"description\":\"The a\"},"
            "{\"type\":\"resource_link\",\"uri\":\"file:///b\",\"name\":\"b\"},"
            "{\"type\":\"resource\",\"resource\":{\"uri\":\"x://doc\",\"mimeType\":"
            "\"text/markdown\",\"text\":\"# Doc\"}},"
            "{\"type\":\"resource\",\"resource\":{\"uri\":\"x://bin\",\"blob\":\"AAEC\"}}]}"));
    cJSON_Delete(args);
}

/* The text of item i of the call's items, or NULL when it is not a text item. */
static const char *host_item_text(const struct mcph_call *c, int i)
{
    const cJSON *item = cJSON_GetArrayItem(c->items, i);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(item, "type");

    if (!cJSON_IsString(type) || strcmp(type->valuestring, "text") != 0)
        return NULL;
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "text"));
}

/* 2024-11-05 has no audio and no resource links: both become text items. */
static void test_tool_content_2024(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;
    const char *text;

    if (!CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2024_11_05, args, NULL), STATUS_OK))
        return;
    CHECK_INT_EQ(vt->audio(&c, "abcdef", 6, "audio/ogg"), MCPH_OK);
    CHECK_INT_EQ(vt->resource_link(&c, "file:///a.txt", "a.txt", NULL, NULL), MCPH_OK);
    CHECK_INT_EQ(vt->image(&c, "x", 1, "image/gif"), MCPH_OK);
    CHECK_INT_EQ(cJSON_GetArraySize(c.items), 3);
    text = host_item_text(&c, 0);
    CHECK_STR_HAS(text, "audio/ogg");
    CHECK_STR_HAS(text, "audio");
    CHECK_STR_HAS(text, "6 bytes");
    text = host_item_text(&c, 1);
    CHECK_STR_HAS(text, "file:///a.txt");
    CHECK_STR_HAS(text, "a.txt");
    /* Images exist in every revision. */
    CHECK(fixture_json_is(cJSON_GetArrayItem(c.items, 2),
                          "{\"type\":\"image\",\"data\":\"eA==\",\"mimeType\":\"image/gif\"}"));
    result_release(&c);
    cJSON_Delete(args);
}

/* 2025-03-26 has audio, but resource links only came with 2025-06-18. */
static void test_tool_content_2025_03(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;

    if (!CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_03_26, args, NULL), STATUS_OK))
        return;
    CHECK_INT_EQ(vt->audio(&c, "abc", 3, "audio/wav"), MCPH_OK);
    CHECK_INT_EQ(vt->resource_link(&c, "file:///a.txt", "a.txt", "text/plain", NULL), MCPH_OK);
    CHECK(fixture_json_is(cJSON_GetArrayItem(c.items, 0),
                          "{\"type\":\"audio\",\"data\":\"YWJj\",\"mimeType\":\"audio/wav\"}"));
    CHECK_STR_HAS(host_item_text(&c, 1), "file:///a.txt");
    result_release(&c);
    cJSON_Delete(args);
}

static void test_sink_errors(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;

    if (!CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_06_18, args, NULL), STATUS_OK))
        return;
    CHECK_INT_EQ(vt->text(&c, NULL), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->image(&c, "x", 1, NULL), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->image(&c, NULL, 3, "image/png"), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->audio(&c, "x", 1, NULL), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->resource_link(&c, NULL, "n", NULL, NULL), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->resource_link(&c, "x://u", NULL, NULL, NULL), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->embedded_text(&c, NULL, NULL, "t"), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->embedded_text(&c, "x://u", NULL, NULL), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->embedded_blob(&c, "x://u", NULL, NULL, 2), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->structured(&c, NULL), MCPH_ERR_INVALID);
    /* Resource contents and prompt calls are for other kinds of call. */
    CHECK_INT_EQ(vt->contents_text(&c, NULL, NULL, "t"), MCPH_ERR_STATE);
    CHECK_INT_EQ(vt->contents_blob(&c, NULL, NULL, "t", 1), MCPH_ERR_STATE);
    CHECK_INT_EQ(vt->prompt_message(&c, MCPH_ROLE_USER), MCPH_ERR_STATE);
    CHECK_INT_EQ(vt->prompt_description(&c, "d"), MCPH_ERR_STATE);
    CHECK_INT_EQ(cJSON_GetArraySize(c.items), 0);
    result_release(&c);

    /* A resource read takes no tool content. */
    if (CHECK_INT_EQ(result_init(&c, RESULT_RESOURCE, REV_2025_06_18, args, "x://r"), STATUS_OK)) {
        CHECK_INT_EQ(vt->text(&c, "t"), MCPH_ERR_STATE);
        CHECK_INT_EQ(vt->image(&c, "x", 1, "image/png"), MCPH_ERR_STATE);
        CHECK_INT_EQ(vt->resource_link(&c, "x://u", "n", NULL, NULL), MCPH_ERR_STATE);
        CHECK_INT_EQ(vt->embedded_text(&c, "x://u", NULL, "t"), MCPH_ERR_STATE);
        CHECK_INT_EQ(vt->structured(&c, "{}"), MCPH_ERR_STATE);
        CHECK_INT_EQ(vt->tool_error(&c, "no"), MCPH_ERR_STATE);
        CHECK_INT_EQ(vt->prompt_message(&c, MCPH_ROLE_USER), MCPH_ERR_STATE);
        CHECK_INT_EQ(cJSON_GetArraySize(c.items), 0);
        result_release(&c);
    }
    cJSON_Delete(args);
}

/* The result would pass LIMIT_RESULT_BYTES: refused, nothing added. */
static void test_result_limit(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;

    if (!CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_06_18, args, NULL), STATUS_OK))
        return;
    c.bytes = LIMIT_RESULT_BYTES - 4;
    CHECK_INT_EQ(vt->text(&c, "1234"), MCPH_OK);
    CHECK_INT_EQ(vt->text(&c, "5"), MCPH_ERR_LIMIT);
    CHECK_INT_EQ(vt->image(&c, "x", 1, "image/png"), MCPH_ERR_LIMIT);
    CHECK_INT_EQ(vt->structured(&c, "{}"), MCPH_ERR_LIMIT);
    CHECK_INT_EQ(cJSON_GetArraySize(c.items), 1);
    result_release(&c);
    cJSON_Delete(args);
}

static void test_structured(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;

    /* 2025-06-18: structuredContent, plus the JSON as text for clients that skip it. */
    if (CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_06_18, args, NULL), STATUS_OK)) {
        CHECK_INT_EQ(vt->structured(&c, "{\"sum\": 3}"), MCPH_OK);
        CHECK(host_result_is(&c, "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"sum\\\":3}\"}],"
                                 "\"structuredContent\":{\"sum\":3}}"));
    }
    /* A tool that wrote its own text gets no mirror. */
    if (CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_11_25, args, NULL), STATUS_OK)) {
        CHECK_INT_EQ(vt->text(&c, "The sum is 3."), MCPH_OK);
        CHECK_INT_EQ(vt->structured(&c, "{\"sum\":3}"), MCPH_OK);
        CHECK(host_result_is(&c, "{\"content\":[{\"type\":\"text\",\"text\":\"The sum is 3.\"}],"
                                 "\"structuredContent\":{\"sum\":3}}"));
    }
    /* 2025-03-26 has no structuredContent: only the text mirror goes. */
    if (CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_03_26, args, NULL), STATUS_OK)) {
        CHECK_INT_EQ(vt->structured(&c, "{\"sum\":3}"), MCPH_OK);
        CHECK(
            host_result_is(&c, "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"sum\\\":3}\"}]}"));
    }
    /* Only a JSON object is a structured result; the last good one counts. */
    if (CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_06_18, args, NULL), STATUS_OK)) {
        CHECK_INT_EQ(vt->structured(&c, "[1,2]"), MCPH_ERR_INVALID);
        CHECK_INT_EQ(vt->structured(&c, "\"s\""), MCPH_ERR_INVALID);
        CHECK_INT_EQ(vt->structured(&c, "{not json"), MCPH_ERR_INVALID);
        CHECK(c.structured == NULL);
        CHECK_INT_EQ(vt->structured(&c, "{\"a\":1}"), MCPH_OK);
        CHECK_INT_EQ(vt->structured(&c, "{\"b\":2}"), MCPH_OK);
        CHECK(host_result_is(&c, "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"b\\\":2}\"}],"
                                 "\"structuredContent\":{\"b\":2}}"));
    }
    cJSON_Delete(args);
}

static void test_tool_error(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;

    if (CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2024_11_05, args, NULL), STATUS_OK)) {
        CHECK_INT_EQ(vt->tool_error(&c, "failed after %d tries", 3), MCPH_OK);
        CHECK_INT_EQ(c.is_error, 1);
        CHECK(host_result_is(&c, "{\"content\":[{\"type\":\"text\",\"text\":"
                                 "\"failed after 3 tries\"}],\"isError\":true}"));
    }
    /* Without tool_error: no isError member at all. */
    if (CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2024_11_05, args, NULL), STATUS_OK)) {
        CHECK_INT_EQ(vt->text(&c, "fine"), MCPH_OK);
        CHECK(host_result_is(&c, "{\"content\":[{\"type\":\"text\",\"text\":\"fine\"}]}"));
    }
    /* A tool with no content at all still has a content array. */
    if (CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_06_18, args, NULL), STATUS_OK))
        CHECK(host_result_is(&c, "{\"content\":[]}"));
    cJSON_Delete(args);
}

static void test_protocol_error(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;

    if (!CHECK_INT_EQ(result_init(&c, RESULT_RESOURCE, REV_2025_06_18, args, "x://r"), STATUS_OK))
        return;
    CHECK_INT_EQ(vt->error(&c, MCPH_ERR_NOT_FOUND, "no row %d", 5), MCPH_ERR_NOT_FOUND);
    CHECK_STR_EQ(c.error, "no row 5");
    CHECK_INT_EQ(vt->error(&c, MCPH_ERR_INVALID, "bad %s", "id"), MCPH_ERR_INVALID);
    CHECK_STR_EQ(c.error, "bad id");
    CHECK_INT_EQ(vt->error(NULL, MCPH_ERR, "x"), MCPH_ERR);
    result_release(&c);
    cJSON_Delete(args);
}

static void test_contents(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;

    /* uri NULL means the URI being read; mime NULL the resource's default. */
    if (CHECK_INT_EQ(result_init(&c, RESULT_RESOURCE, REV_2025_06_18, args, "x://r/1"),
                     STATUS_OK)) {
        c.mime_type = "text/plain";
        CHECK_INT_EQ(vt->contents_text(&c, NULL, NULL, "one"), MCPH_OK);
        CHECK_INT_EQ(vt->contents_text(&c, "x://r/1#part", "text/markdown", "two"), MCPH_OK);
        CHECK_INT_EQ(vt->contents_blob(&c, NULL, "application/octet-stream", "\0\xff", 2), MCPH_OK);
        CHECK_INT_EQ(vt->contents_text(&c, NULL, NULL, NULL), MCPH_ERR_INVALID);
        CHECK(host_result_is(
            &c, "{\"contents\":["
                "{\"uri\":\"x://r/1\",\"mimeType\":\"text/plain\",\"text\":\"one\"},"
                "{\"uri\":\"x://r/1#part\",\"mimeType\":\"text/markdown\",\"text\":\"two\"},"
                "{\"uri\":\"x://r/1\",\"mimeType\":\"application/octet-stream\","
                "\"blob\":\"AP8=\"}]}"));
    }
    /* No default mime type: no mimeType member. */
    if (CHECK_INT_EQ(result_init(&c, RESULT_RESOURCE, REV_2024_11_05, args, "x://r/2"),
                     STATUS_OK)) {
        CHECK_INT_EQ(vt->contents_blob(&c, NULL, NULL, "abc", 3), MCPH_OK);
        CHECK_INT_EQ(vt->contents_text(&c, NULL, NULL, ""), MCPH_OK);
        CHECK(host_result_is(&c, "{\"contents\":[{\"uri\":\"x://r/2\",\"blob\":\"YWJj\"},"
                                 "{\"uri\":\"x://r/2\",\"text\":\"\"}]}"));
    }
    cJSON_Delete(args);
}

static void test_prompt_messages(void)
{
    cJSON *args = cJSON_Parse("{\"name\":\"Ada\"}");
    struct mcph_call c;
    const char *name = NULL;

    if (!CHECK_INT_EQ(result_init(&c, RESULT_PROMPT, REV_2025_06_18, args, NULL), STATUS_OK))
        return;
    CHECK_INT_EQ(vt->arg_string(&c, "name", &name), MCPH_OK);
    CHECK_STR_EQ(name, "Ada");
    /* Before prompt_message there is no role to speak with. */
    CHECK_INT_EQ(vt->text(&c, "too early"), MCPH_ERR_STATE);
    CHECK_INT_EQ(vt->image(&c, "x", 1, "image/png"), MCPH_ERR_STATE);
    CHECK_INT_EQ(vt->structured(&c, "{}"), MCPH_ERR_STATE);
    CHECK_INT_EQ(vt->tool_error(&c, "no"), MCPH_ERR_STATE);
    CHECK_INT_EQ(vt->contents_text(&c, NULL, NULL, "t"), MCPH_ERR_STATE);
    CHECK_INT_EQ(vt->prompt_message(&c, (enum mcph_role)7), MCPH_ERR_INVALID);
    CHECK_INT_EQ(cJSON_GetArraySize(c.items), 0);

    CHECK_INT_EQ(vt->prompt_message(&c, MCPH_ROLE_USER), MCPH_OK);
    CHECK_INT_EQ(vt->text(&c, "Greet Ada"), MCPH_OK);
    CHECK_INT_EQ(vt->text(&c, "Politely"), MCPH_OK);
    CHECK_INT_EQ(vt->prompt_message(&c, MCPH_ROLE_ASSISTANT), MCPH_OK);
    CHECK_INT_EQ(vt->image(&c, "x", 1, "image/png"), MCPH_OK);
    CHECK_INT_EQ(vt->embedded_text(&c, "x://doc", NULL, "doc"), MCPH_OK);
    CHECK_INT_EQ(vt->prompt_description(&c, "first"), MCPH_OK);
    CHECK_INT_EQ(vt->prompt_description(&c, "A greeting for Ada"), MCPH_OK);
    CHECK_INT_EQ(vt->prompt_description(&c, NULL), MCPH_ERR_INVALID);
    CHECK(host_result_is(
        &c, "{\"description\":\"A greeting for Ada\",\"messages\":["
            "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Greet Ada\"}},"
            "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Politely\"}},"
            "{\"role\":\"assistant\",\"content\":{\"type\":\"image\",\"data\":\"eA==\","
            "\"mimeType\":\"image/png\"}},"
            "{\"role\":\"assistant\",\"content\":{\"type\":\"resource\",\"resource\":"
            "{\"uri\":\"x://doc\",\"text\":\"doc\"}}}]}"));

    /* Without a description the member is absent; audio in a 2024-11-05 prompt is text. */
    if (CHECK_INT_EQ(result_init(&c, RESULT_PROMPT, REV_2024_11_05, args, NULL), STATUS_OK)) {
        const cJSON *content;

        CHECK_INT_EQ(vt->prompt_message(&c, MCPH_ROLE_USER), MCPH_OK);
        CHECK_INT_EQ(vt->audio(&c, "abc", 3, "audio/wav"), MCPH_OK);
        content = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(c.items, 0), "content");
        CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(content, "type")),
                     "text");
        CHECK(fixture_json_is(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(c.items, 0), "role"), "\"user\""));
        {
            cJSON *result = result_build(&c);

            CHECK(cJSON_GetObjectItemCaseSensitive(result, "description") == NULL);
            CHECK_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(result, "messages")),
                         1);
            cJSON_Delete(result);
        }
        result_release(&c);
    }
    cJSON_Delete(args);
}

/* Each kind gives its own result object and nothing else. */
static void test_result_shapes(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;

    if (CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_06_18, args, NULL), STATUS_OK))
        CHECK(host_result_is(&c, "{\"content\":[]}"));
    if (CHECK_INT_EQ(result_init(&c, RESULT_RESOURCE, REV_2025_06_18, args, "x://r"), STATUS_OK))
        CHECK(host_result_is(&c, "{\"contents\":[]}"));
    if (CHECK_INT_EQ(result_init(&c, RESULT_PROMPT, REV_2025_06_18, args, NULL), STATUS_OK))
        CHECK(host_result_is(&c, "{\"messages\":[]}"));
    cJSON_Delete(args);
}

/* --- client_log and predecessor (1.3). --- */

/* What the fake env's client_log was handed last. */
static struct {
    int calls, level;
    char logger[64];
    char *data; /* owned: printed */
} host_heard;

static void host_fake_client_log(void *ctx, int level, const char *logger, cJSON *data)
{
    (void)ctx;
    host_heard.calls++;
    host_heard.level = level;
    snprintf(host_heard.logger, sizeof(host_heard.logger), "%s", logger ? logger : "(null)");
    free(host_heard.data);
    host_heard.data = cJSON_PrintUnformatted(data);
    cJSON_Delete(data);
}

static void host_fake_sink(void *ctx, int level, const char *who, const char *text)
{
    (void)ctx;
    (void)level;
    (void)who;
    (void)text;
}

/* Sent when the client's level admits it (as the core's own lines), with the instance id for
 * a NULL logger and any JSON value as data; never on stderr; bad JSON refused at any level. */
static void test_client_log(void)
{
    static const struct plugin_env env = {.client_log = host_fake_client_log};
    char buf[256];

    host_pl.env = &env;
    host_log.sink = host_fake_sink;
    atomic_store(&host_log.sink_level, LOG_WARNING);
    fixture_drain(host_log_read, buf, sizeof(buf));
    CHECK_INT_EQ(vt->client_log(vt, MCPH_LOG_WARNING, NULL, "{\"a\":[1,2]}"), MCPH_OK);
    CHECK_INT_EQ(host_heard.calls, 1);
    CHECK_INT_EQ(host_heard.level, LOG_WARNING);
    CHECK_STR_EQ(host_heard.logger, "fake");
    CHECK_STR_EQ(host_heard.data, "{\"a\":[1,2]}");
    CHECK_INT_EQ(vt->client_log(vt, MCPH_LOG_CRITICAL, "child", "\"plain text\""), MCPH_OK);
    CHECK_STR_EQ(host_heard.logger, "child");
    CHECK_STR_EQ(host_heard.data, "\"plain text\"");
    /* Below the client's level: not sent; bad JSON: refused either way. */
    CHECK_INT_EQ(vt->client_log(vt, MCPH_LOG_INFO, NULL, "{}"), MCPH_OK);
    CHECK_INT_EQ(vt->client_log(vt, MCPH_LOG_INFO, NULL, "{oops"), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->client_log(vt, MCPH_LOG_ERROR, NULL, "{oops"), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->client_log(vt, MCPH_LOG_ERROR, NULL, NULL), MCPH_ERR_INVALID);
    CHECK_INT_EQ(host_heard.calls, 2);
    /* A level outside the enum goes as an error, as log() does. */
    CHECK_INT_EQ(vt->client_log(vt, (enum mcph_log_level)42, NULL, "1"), MCPH_OK);
    CHECK_INT_EQ(host_heard.level, LOG_ERROR);
    /* No sink (no client, or --check): nothing. */
    host_log.sink = NULL;
    CHECK_INT_EQ(vt->client_log(vt, MCPH_LOG_EMERGENCY, NULL, "1"), MCPH_OK);
    CHECK_INT_EQ(host_heard.calls, 3);
    fixture_drain(host_log_read, buf, sizeof(buf));
    CHECK_STR_EQ(buf, "");
    atomic_store(&host_log.sink_level, LOG_OFF);
    host_pl.env = NULL;
    free(host_heard.data);
    host_heard.data = NULL;
}

/* Outside an init that takes over, there is no predecessor. */
static void test_predecessor_outside_init(void)
{
    int state = 7;

    host_pl.predecessor = &state;
    CHECK(vt->predecessor(vt) == NULL);
    host_pl.predecessor = NULL;
}

/* --- ask_key (1.4). --- */

/* What the fake protocol side heard. */
static struct {
    int named, forgotten, asked;
    char last[LIMIT_MRTR_KEY + 1];
} host_asks;

static int host_fake_ask_key(void *ctx, const char *key)
{
    (void)ctx;
    if (key == NULL) {
        host_asks.forgotten++;
        return MCPH_OK;
    }
    host_asks.named++;
    snprintf(host_asks.last, sizeof(host_asks.last), "%s", key);
    return strcmp(key, "taken") == 0 ? MCPH_ERR_INVALID : MCPH_OK;
}

static int host_fake_ask(void *ctx, int what, cJSON *params, cJSON **answer)
{
    (void)ctx;
    (void)what;
    (void)answer;
    cJSON_Delete(params);
    host_asks.asked++;
    return MCPH_ERR_AGAIN;
}

/* The name goes to the protocol side, which judges it; a question refused before it gets
 * there (bad JSON, no message) forgets the name, one that gets there does not. Without a
 * protocol side nothing is asked and nothing named. */
static void test_ask_key(void)
{
    const struct host_env env = {.ask = host_fake_ask, .ask_key = host_fake_ask_key};
    struct mcph_call c;
    const char *answer = NULL;

    if (!CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_MODERN, NULL, NULL), STATUS_OK))
        return;
    CHECK_INT_EQ(vt->ask_key(NULL, "a"), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->ask_key(&c, NULL), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->ask_key(&c, "a"), MCPH_OK);
    c.env = &env;
    CHECK_INT_EQ(vt->ask_key(&c, "user_name"), MCPH_OK);
    CHECK_STR_EQ(host_asks.last, "user_name");
    CHECK_INT_EQ(vt->ask_key(&c, "taken"), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->sample(&c, "[1]", &answer), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->elicit(&c, NULL, "{\"type\":\"object\"}", &answer), MCPH_ERR_INVALID);
    CHECK_INT_EQ(vt->elicit(&c, "ok?", "{oops", &answer), MCPH_ERR_INVALID);
    CHECK_INT_EQ(host_asks.forgotten, 3);
    CHECK_INT_EQ(vt->roots(&c, &answer), MCPH_ERR_AGAIN);
    CHECK_INT_EQ(host_asks.forgotten, 3);
    CHECK_INT_EQ(host_asks.named, 2);
    CHECK_INT_EQ(host_asks.asked, 1);
    result_release(&c);
}

/* --- call_origin (1.5). --- */

static const char *host_fake_origin(void *ctx)
{
    return ctx;
}

/* The protocol side's text, as it is; "" without one (a call made outside a request). */
static void test_call_origin(void)
{
    char origin[] = "0123abcd";
    const struct host_env env = {.ctx = origin, .origin = host_fake_origin};
    struct mcph_call c;

    if (!CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_MODERN, NULL, NULL), STATUS_OK))
        return;
    CHECK(vt->call_origin != NULL);
    CHECK(vt->call_origin(NULL) == NULL);
    CHECK_STR_EQ(vt->call_origin(&c), "");
    c.env = &env;
    CHECK_STR_EQ(vt->call_origin(&c), "0123abcd");
    result_release(&c);
}

static const struct check_test tests[] = {
    {"vtable_fields", test_vtable_fields},
    {"log", test_log},
    {"config", test_config},
    {"arg_accessors", test_arg_accessors},
    {"arg_json", test_arg_json},
    {"call_init", test_call_init},
    {"tool_content_current", test_tool_content_current},
    {"tool_content_2024", test_tool_content_2024},
    {"tool_content_2025_03", test_tool_content_2025_03},
    {"sink_errors", test_sink_errors},
    {"result_limit", test_result_limit},
    {"structured", test_structured},
    {"tool_error", test_tool_error},
    {"protocol_error", test_protocol_error},
    {"contents", test_contents},
    {"prompt_messages", test_prompt_messages},
    {"result_shapes", test_result_shapes},
    {"client_log", test_client_log},
    {"predecessor_outside_init", test_predecessor_outside_init},
    {"ask_key", test_ask_key},
    {"call_origin", test_call_origin},
    {0},
};

int main(void)
{
    int status;

    if (host_setup_fake() != 0) {
        fprintf(stderr, "test_host: cannot make a pipe\n");
        return 1;
    }
    status = check_main("test_host", tests);
    close(host_log_read);
    close(host_log.fd);
    return status;
}
