/* test_result.c: the result module called directly (test_host.c drives the same sinks through
 * the vtable): messages and stand-ins longer than any fixed buffer come out whole, the
 * client-side URI of a link stand-in is cut at LIMIT_URI, sinks refuse the kinds they do not
 * serve, and completion values past RESULT_COMPLETION_MAX are counted, not kept. result_json
 * (1.3) per kind and per revision: the sinks' stand-ins and fields, wrong types refused whole,
 * the limit. */
#include "host/result.h"

#include "check.h"
#include "fixture.h"
#include "lib/limits.h"
#include "wire/revision.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* A string of n bytes of c (owned by the caller), or NULL. */
static char *result_fill(char c, size_t n)
{
    char *s = malloc(n + 1);

    if (s != NULL) {
        memset(s, c, n);
        s[n] = '\0';
    }
    return s;
}

/* The text of content item i of a tool call, or NULL. */
static const char *result_item_text(const struct mcph_call *c, int i)
{
    const cJSON *item = cJSON_GetArrayItem(c->items, i);

    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, "text"));
}

/* A tool error of 10 KiB (its text made by the handler's format) is one whole text item. */
static void test_long_tool_error(void)
{
    cJSON *args = cJSON_CreateObject();
    char *long_text = result_fill('e', 10240);
    struct strbuf want = STRBUF_INIT;
    struct mcph_call c;
    cJSON *result;

    if (!CHECK(args != NULL && long_text != NULL) ||
        !CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_06_18, args, NULL), STATUS_OK))
        goto out;
    CHECK_INT_EQ(result_tool_error(&c, "failed: %s (%d)", long_text, 7), MCPH_OK);
    strbuf_addf(&want, "failed: %s (7)", long_text);
    CHECK_STR_EQ(result_item_text(&c, 0), want.buf);
    CHECK_INT_EQ(c.bytes, want.len);
    result = result_build(&c);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "isError")));
    CHECK_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(result, "content")), 1);
    cJSON_Delete(result);
    result_release(&c);
out:
    strbuf_release(&want);
    free(long_text);
    cJSON_Delete(args);
}

/* A handler that hands a long argument back (echo): the text item borrows the argument's
 * string instead of copying it, and prints the same; a short one, or a text that only equals
 * an argument, is copied. */
static void test_text_borrows_argument(void)
{
    cJSON *args = cJSON_CreateObject();
    char *long_text = result_fill('b', RESULT_BORROW_MIN);
    const cJSON *arg, *item;
    struct mcph_call c;
    cJSON *result = NULL;
    char *printed = NULL;

    if (!CHECK(args != NULL && long_text != NULL) ||
        !CHECK(cJSON_AddStringToObject(args, "text", long_text) != NULL) ||
        !CHECK(cJSON_AddStringToObject(args, "short", "s") != NULL) ||
        !CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_06_18, args, NULL), STATUS_OK))
        goto out;
    arg = cJSON_GetObjectItemCaseSensitive(args, "text");
    CHECK_INT_EQ(result_text(&c, arg->valuestring), MCPH_OK);
    CHECK_INT_EQ(result_text(&c, long_text), MCPH_OK);
    CHECK_INT_EQ(result_text(&c, cJSON_GetObjectItemCaseSensitive(args, "short")->valuestring),
                 MCPH_OK);
    item = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(c.items, 0), "text");
    CHECK(item != NULL && item->valuestring == arg->valuestring);
    item = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(c.items, 1), "text");
    CHECK(item != NULL && item->valuestring != long_text);
    item = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(c.items, 2), "text");
    CHECK(item != NULL && item->valuestring != arg->valuestring);
    result = result_build(&c);
    printed = cJSON_PrintUnformatted(result);
    CHECK(printed != NULL && strstr(printed, long_text) != NULL);
    result_release(&c);
out:
    free(printed);
    cJSON_Delete(result);
    free(long_text);
    cJSON_Delete(args);
}

/* host->error keeps the whole message, returns the status it was given, and the last one
 * set wins. */
static void test_long_protocol_error(void)
{
    cJSON *args = cJSON_CreateObject();
    char *long_text = result_fill('p', 5000);
    struct mcph_call c;

    if (!CHECK(args != NULL && long_text != NULL) ||
        !CHECK_INT_EQ(result_init(&c, RESULT_PROMPT, REV_2025_06_18, args, NULL), STATUS_OK))
        goto out;
    CHECK_INT_EQ(result_error(&c, MCPH_ERR_INVALID, "first"), MCPH_ERR_INVALID);
    CHECK_INT_EQ(result_error(&c, MCPH_ERR_NOT_FOUND, "%s", long_text), MCPH_ERR_NOT_FOUND);
    CHECK_STR_EQ(c.error, long_text);
    CHECK_INT_EQ(result_error(NULL, MCPH_ERR, "no call"), MCPH_ERR);
    result_release(&c);
out:
    free(long_text);
    cJSON_Delete(args);
}

/* A 2024-11-05 client gets audio as a text stand-in naming the plugin's mimeType, whole even
 * when it is longer than the URI limit plus the stand-in's words. */
static void test_audio_stand_in_whole(void)
{
    cJSON *args = cJSON_CreateObject();
    char *mime = result_fill('m', LIMIT_URI + 1000);
    struct strbuf want = STRBUF_INIT;
    struct mcph_call c;

    if (!CHECK(args != NULL && mime != NULL) ||
        !CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2024_11_05, args, NULL), STATUS_OK))
        goto out;
    CHECK_INT_EQ(result_audio(&c, "abc", 3, mime), MCPH_OK);
    strbuf_addf(&want, "[%s audio, 3 bytes: this client's protocol revision cannot carry audio]",
                mime);
    CHECK_STR_EQ(result_item_text(&c, 0), want.buf);
    result_release(&c);
out:
    strbuf_release(&want);
    free(mime);
    cJSON_Delete(args);
}

/* A resource link's stand-in (before 2025-06-18) names the link whole and its URI up to
 * LIMIT_URI bytes. */
static void test_link_stand_in(void)
{
    cJSON *args = cJSON_CreateObject();
    char *name = result_fill('n', 6000);
    char *uri = result_fill('u', LIMIT_URI + 500);
    struct strbuf want = STRBUF_INIT;
    struct mcph_call c;

    if (!CHECK(args != NULL && name != NULL && uri != NULL) ||
        !CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_03_26, args, NULL), STATUS_OK))
        goto out;
    memcpy(uri, "x://", 4);
    CHECK_INT_EQ(result_resource_link(&c, uri, name, NULL, NULL), MCPH_OK);
    strbuf_addf(&want, "[resource link] %s: %.*s", name, LIMIT_URI, uri);
    CHECK_STR_EQ(result_item_text(&c, 0), want.buf);
    CHECK_INT_EQ(strlen(result_item_text(&c, 0)), strlen("[resource link] : ") + 6000 + LIMIT_URI);
    result_release(&c);
out:
    strbuf_release(&want);
    free(name);
    free(uri);
    cJSON_Delete(args);
}

/* Each sink serves its kinds of call only; a NULL call is refused, not followed. */
static void test_sinks_by_kind(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;

    if (!CHECK(args != NULL) ||
        !CHECK_INT_EQ(result_init(&c, RESULT_RESOURCE, REV_2025_06_18, args, "x://r"), STATUS_OK))
        goto out;
    CHECK_INT_EQ(result_text(&c, "t"), MCPH_ERR_STATE);
    CHECK_INT_EQ(result_structured(&c, "{}"), MCPH_ERR_STATE);
    CHECK_INT_EQ(result_tool_error(&c, "x"), MCPH_ERR_STATE);
    CHECK_INT_EQ(result_prompt_message(&c, MCPH_ROLE_USER), MCPH_ERR_STATE);
    CHECK_INT_EQ(result_completion(&c, "v"), MCPH_ERR_STATE);
    CHECK_INT_EQ(result_contents_text(&c, NULL, NULL, "body"), MCPH_OK);
    CHECK(fixture_json_is(c.items, "[{\"uri\":\"x://r\",\"text\":\"body\"}]"));
    result_release(&c);
    CHECK_INT_EQ(result_text(NULL, "t"), MCPH_ERR_INVALID);
    CHECK_INT_EQ(result_contents_text(NULL, NULL, NULL, "t"), MCPH_ERR_STATE);
out:
    cJSON_Delete(args);
}

/* Completion values past RESULT_COMPLETION_MAX count in total and hasMore, and are not kept. */
static void test_completion_cap(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;
    cJSON *result, *completion;

    if (!CHECK(args != NULL) ||
        !CHECK_INT_EQ(result_init(&c, RESULT_COMPLETE, REV_2025_06_18, args, NULL), STATUS_OK))
        goto out;
    for (int i = 0; i < RESULT_COMPLETION_MAX + 5; i++)
        CHECK_INT_EQ(result_completion(&c, "v"), MCPH_OK);
    result = result_build(&c);
    completion = cJSON_GetObjectItemCaseSensitive(result, "completion");
    CHECK_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(completion, "values")),
                 RESULT_COMPLETION_MAX);
    CHECK_INT_EQ(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(completion, "total")),
                 RESULT_COMPLETION_MAX + 5);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(completion, "hasMore")));
    cJSON_Delete(result);
    result_release(&c);
out:
    cJSON_Delete(args);
}

/* --- result_json (1.3). --- */

/* One CallToolResult with every kind of content, a type no revision has, the members each
 * revision may lack, mcph's own envelope and a member of the plugin's own. */
static const char result_tool_json[] =
    "{\"content\":["
    "{\"type\":\"text\",\"text\":\"hi\",\"annotations\":{\"audience\":[\"user\"],"
    "\"lastModified\":\"2025-01-01T00:00:00Z\"},\"_meta\":{\"k\":1}},"
    "{\"type\":\"audio\",\"data\":\"AAAA\",\"mimeType\":\"audio/wav\"},"
    "{\"type\":\"resource_link\",\"uri\":\"file:///x\",\"name\":\"x\","
    "\"icons\":[{\"src\":\"https://e.example/i.png\"}]},"
    "{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///y\",\"text\":\"body\","
    "\"_meta\":{\"m\":2}}},"
    "{\"type\":\"hologram\",\"data\":\"x\"}],"
    "\"structuredContent\":{\"n\":1},\"isError\":true,"
    "\"_meta\":{\"trace\":\"t\",\"io.modelcontextprotocol/serverInfo\":{\"name\":\"child\"}},"
    "\"resultType\":\"complete\",\"ttlMs\":5,\"extraMember\":[1,2]}";

/* The call of `kind` for revision rev, result_json(json) returning want, then the result built
 * compared with want_result (NULL: not built). */
static int result_json_is(int kind, int rev, const char *uri, const char *json, int want,
                          const char *want_result)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;
    int ok = 0;

    if (args != NULL && result_init(&c, kind, rev, args, uri) == STATUS_OK) {
        c.mime_type = uri != NULL ? "text/plain" : NULL;
        ok = CHECK_INT_EQ(result_json(&c, json), want);
        if (want_result != NULL) {
            cJSON *result = result_build(&c);

            ok &= fixture_json_is(result, want_result);
            cJSON_Delete(result);
        }
        result_release(&c);
    }
    cJSON_Delete(args);
    return ok;
}

/* A 2024-11-05 client gets the sinks' stand-ins for audio, links and the unknown type, no
 * lastModified, no _meta anywhere, no structuredContent (the text item is its mirror); every
 * revision loses mcph's envelope members and keeps the plugin's own. */
static void test_json_tool_2024(void)
{
    CHECK(result_json_is(
        RESULT_TOOL, REV_2024_11_05, NULL, result_tool_json, MCPH_OK,
        "{\"content\":["
        "{\"type\":\"text\",\"text\":\"hi\",\"annotations\":{\"audience\":[\"user\"]}},"
        "{\"type\":\"text\",\"text\":\"[audio/wav audio, 3 bytes: this client's protocol "
        "revision cannot carry audio]\"},"
        "{\"type\":\"text\",\"text\":\"[resource link] x: file:///x\"},"
        "{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///y\",\"text\":\"body\"}},"
        "{\"type\":\"text\",\"text\":\"[hologram content: this client's protocol revision "
        "cannot carry it]\"}],"
        "\"isError\":true,\"extraMember\":[1,2]}"));
}

/* 2025-11-25 carries everything but the unknown type; the protocol's own _meta keys go. */
static void test_json_tool_2025_11(void)
{
    CHECK(result_json_is(
        RESULT_TOOL, REV_2025_11_25, NULL, result_tool_json, MCPH_OK,
        "{\"content\":["
        "{\"type\":\"text\",\"text\":\"hi\",\"annotations\":{\"audience\":[\"user\"],"
        "\"lastModified\":\"2025-01-01T00:00:00Z\"},\"_meta\":{\"k\":1}},"
        "{\"type\":\"audio\",\"data\":\"AAAA\",\"mimeType\":\"audio/wav\"},"
        "{\"type\":\"resource_link\",\"uri\":\"file:///x\",\"name\":\"x\","
        "\"icons\":[{\"src\":\"https://e.example/i.png\"}]},"
        "{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///y\",\"text\":\"body\","
        "\"_meta\":{\"m\":2}}},"
        "{\"type\":\"text\",\"text\":\"[hologram content: this client's protocol revision "
        "cannot carry it]\"}],"
        "\"structuredContent\":{\"n\":1},\"isError\":true,\"_meta\":{\"trace\":\"t\"},"
        "\"extraMember\":[1,2]}"));
    /* 2025-06-18 has resource links and _meta, but no icons yet. */
    CHECK(result_json_is(RESULT_TOOL, REV_2025_06_18, NULL,
                         "{\"content\":[{\"type\":\"resource_link\",\"uri\":\"file:///x\","
                         "\"name\":\"x\",\"icons\":[{\"src\":\"https://e.example/i.png\"}]}]}",
                         MCPH_OK,
                         "{\"content\":[{\"type\":\"resource_link\",\"uri\":\"file:///x\","
                         "\"name\":\"x\"}]}"));
}

/* What the sinks added comes first; a structured result without text gets the sinks' text
 * mirror where structuredContent is not carried; a later result_json adds after an earlier. */
static void test_json_after_sinks(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;
    cJSON *result;

    if (!CHECK(args != NULL) ||
        !CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_03_26, args, NULL), STATUS_OK))
        goto out;
    CHECK_INT_EQ(result_image(&c, "abc", 3, "image/png"), MCPH_OK);
    CHECK_INT_EQ(result_json(&c, "{\"structuredContent\":{\"a\":1},\"isError\":false}"), MCPH_OK);
    CHECK_INT_EQ(result_json(&c, "{\"content\":[{\"type\":\"image\",\"data\":\"eHl6\","
                                 "\"mimeType\":\"image/gif\"}]}"),
                 MCPH_OK);
    result = result_build(&c);
    CHECK(fixture_json_is(result,
                          "{\"content\":["
                          "{\"type\":\"image\",\"data\":\"YWJj\",\"mimeType\":\"image/png\"},"
                          "{\"type\":\"image\",\"data\":\"eHl6\",\"mimeType\":\"image/gif\"},"
                          "{\"type\":\"text\",\"text\":\"{\\\"a\\\":1}\"}]}"));
    cJSON_Delete(result);
    result_release(&c);
out:
    cJSON_Delete(args);
}

/* Resource contents take the URI being read and the definition's mimeType where they have
 * none, as the sinks do; _meta of contents only from 2025-06-18. */
static void test_json_resource(void)
{
    static const char json[] =
        "{\"contents\":[{\"text\":\"a\"},{\"uri\":\"x://other\",\"blob\":\"AAAA\","
        "\"mimeType\":\"application/octet-stream\",\"_meta\":{\"a\":1}}]}";

    CHECK(result_json_is(RESULT_RESOURCE, REV_2024_11_05, "x://r", json, MCPH_OK,
                         "{\"contents\":[{\"uri\":\"x://r\",\"mimeType\":\"text/plain\","
                         "\"text\":\"a\"},{\"uri\":\"x://other\",\"blob\":\"AAAA\","
                         "\"mimeType\":\"application/octet-stream\"}]}"));
    CHECK(result_json_is(RESULT_RESOURCE, REV_2025_06_18, "x://r", json, MCPH_OK,
                         "{\"contents\":[{\"uri\":\"x://r\",\"mimeType\":\"text/plain\","
                         "\"text\":\"a\"},{\"uri\":\"x://other\",\"blob\":\"AAAA\","
                         "\"mimeType\":\"application/octet-stream\",\"_meta\":{\"a\":1}}]}"));
}

/* A prompt's description and messages; a message's content is adapted as tool content is. */
static void test_json_prompt(void)
{
    static const char json[] =
        "{\"description\":\"d\",\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
        "\"text\":\"q\"}},{\"role\":\"assistant\",\"content\":{\"type\":\"audio\","
        "\"data\":\"AAAAAA==\",\"mimeType\":\"audio/mpeg\"}}]}";

    CHECK(result_json_is(RESULT_PROMPT, REV_2024_11_05, NULL, json, MCPH_OK,
                         "{\"description\":\"d\",\"messages\":[{\"role\":\"user\",\"content\":"
                         "{\"type\":\"text\",\"text\":\"q\"}},{\"role\":\"assistant\","
                         "\"content\":{\"type\":\"text\",\"text\":\"[audio/mpeg audio, 4 bytes: "
                         "this client's protocol revision cannot carry audio]\"}}]}"));
    CHECK(result_json_is(RESULT_PROMPT, REV_2025_03_26, NULL, json, MCPH_OK,
                         "{\"description\":\"d\",\"messages\":[{\"role\":\"user\",\"content\":"
                         "{\"type\":\"text\",\"text\":\"q\"}},{\"role\":\"assistant\","
                         "\"content\":{\"type\":\"audio\",\"data\":\"AAAAAA==\","
                         "\"mimeType\":\"audio/mpeg\"}}]}"));
}

/* Completion values go through the cap of host->completion; total and hasMore are kept. */
static void test_json_complete(void)
{
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;
    cJSON *result, *completion;

    CHECK(result_json_is(RESULT_COMPLETE, REV_2025_06_18, NULL,
                         "{\"completion\":{\"values\":[\"a\"],\"total\":7,\"hasMore\":true}}",
                         MCPH_OK,
                         "{\"completion\":{\"values\":[\"a\"],\"total\":7,\"hasMore\":true}}"));
    if (!CHECK(args != NULL) ||
        !CHECK_INT_EQ(result_init(&c, RESULT_COMPLETE, REV_2025_06_18, args, NULL), STATUS_OK))
        goto out;
    for (int i = 0; i < RESULT_COMPLETION_MAX - 1; i++)
        CHECK_INT_EQ(result_completion(&c, "v"), MCPH_OK);
    CHECK_INT_EQ(result_json(&c, "{\"completion\":{\"values\":[\"x\",\"y\",\"z\"],"
                                 "\"total\":500,\"hasMore\":false}}"),
                 MCPH_OK);
    result = result_build(&c);
    completion = cJSON_GetObjectItemCaseSensitive(result, "completion");
    CHECK_INT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(completion, "values")),
                 RESULT_COMPLETION_MAX);
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetArrayItem(
                     cJSON_GetObjectItemCaseSensitive(completion, "values"), 99)),
                 "x");
    CHECK_INT_EQ(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(completion, "total")), 500);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(completion, "hasMore")));
    cJSON_Delete(result);
    result_release(&c);
out:
    cJSON_Delete(args);
}

/* A member of the wrong type anywhere refuses the whole result: nothing is added, nothing is
 * counted. */
static void test_json_wrong_types(void)
{
    static const struct {
        int kind;
        const char *json;
    } bad[] = {
        {RESULT_TOOL, "[]"},
        {RESULT_TOOL, "not json"},
        {RESULT_TOOL, "{\"content\":{}}"},
        {RESULT_TOOL, "{\"content\":[1]}"},
        {RESULT_TOOL, "{\"content\":[{\"text\":\"no type\"}]}"},
        {RESULT_TOOL, "{\"content\":[{\"type\":\"text\",\"text\":1}]}"},
        {RESULT_TOOL, "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"},"
                      "{\"type\":\"image\",\"data\":\"eHl6\"}]}"},
        {RESULT_TOOL, "{\"content\":[{\"type\":\"text\",\"text\":\"a\",\"annotations\":[]}]}"},
        {RESULT_TOOL, "{\"content\":[{\"type\":\"text\",\"text\":\"a\",\"_meta\":\"m\"}]}"},
        {RESULT_TOOL, "{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"x:a\"}}]}"},
        {RESULT_TOOL, "{\"content\":[{\"type\":\"resource_link\",\"uri\":\"x:a\"}]}"},
        {RESULT_TOOL, "{\"content\":[],\"isError\":\"yes\"}"},
        {RESULT_TOOL, "{\"structuredContent\":[1]}"},
        {RESULT_TOOL, "{\"content\":[{\"type\":\"text\",\"text\":\"a\"}],\"_meta\":3}"},
        {RESULT_PROMPT, "{\"messages\":[{\"role\":\"system\",\"content\":{\"type\":\"text\","
                        "\"text\":\"a\"}}]}"},
        {RESULT_PROMPT, "{\"messages\":[{\"role\":\"user\"}]}"},
        {RESULT_PROMPT, "{\"description\":5,\"messages\":[]}"},
        {RESULT_RESOURCE, "{\"contents\":[{\"uri\":\"x:a\",\"text\":\"t\",\"blob\":\"AAAA\"}]}"},
        {RESULT_RESOURCE, "{\"contents\":[{\"uri\":7,\"text\":\"t\"}]}"},
        {RESULT_RESOURCE, "{\"contents\":[{\"text\":\"t\",\"mimeType\":false}]}"},
        {RESULT_COMPLETE, "{\"completion\":{\"values\":[\"a\",2]}}"},
        {RESULT_COMPLETE, "{\"completion\":{\"values\":[],\"total\":-1}}"},
        {RESULT_COMPLETE, "{\"completion\":{\"values\":[],\"total\":1.5}}"},
        {RESULT_COMPLETE, "{\"completion\":{\"values\":[],\"hasMore\":1}}"},
        {RESULT_COMPLETE, "{\"completion\":[]}"},
    };
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;

    for (size_t i = 0; args != NULL && i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (!CHECK_INT_EQ(result_init(&c, bad[i].kind, REV_2025_11_25, args, "x://r"), STATUS_OK))
            break;
        if (!CHECK_INT_EQ(result_json(&c, bad[i].json), MCPH_ERR_INVALID))
            fprintf(stderr, "    for %s\n", bad[i].json);
        CHECK_INT_EQ(cJSON_GetArraySize(c.items), 0);
        CHECK_INT_EQ(c.bytes, 0);
        CHECK(c.structured == NULL && c.description == NULL && !c.is_error && !c.more);
        CHECK(c.extra == NULL || c.extra->child == NULL);
        result_release(&c);
    }
    CHECK_INT_EQ(result_json(NULL, "{}"), MCPH_ERR_INVALID);
    if (CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_11_25, args, NULL), STATUS_OK)) {
        CHECK_INT_EQ(result_json(&c, NULL), MCPH_ERR_INVALID);
        result_release(&c);
    }
    cJSON_Delete(args);
}

/* The JSON text counts against the result limit; past it, nothing is added. */
static void test_json_limit(void)
{
    static const char json[] = "{\"content\":[{\"type\":\"text\",\"text\":\"abc\"}]}";
    cJSON *args = cJSON_CreateObject();
    struct mcph_call c;

    if (!CHECK(args != NULL) ||
        !CHECK_INT_EQ(result_init(&c, RESULT_TOOL, REV_2025_11_25, args, NULL), STATUS_OK))
        goto out;
    c.bytes = LIMIT_RESULT_BYTES - (sizeof(json) - 1) + 1;
    CHECK_INT_EQ(result_json(&c, json), MCPH_ERR_LIMIT);
    CHECK_INT_EQ(cJSON_GetArraySize(c.items), 0);
    c.bytes = LIMIT_RESULT_BYTES - (sizeof(json) - 1);
    CHECK_INT_EQ(result_json(&c, json), MCPH_OK);
    CHECK_INT_EQ(cJSON_GetArraySize(c.items), 1);
    CHECK_INT_EQ(c.bytes, LIMIT_RESULT_BYTES);
    result_release(&c);
out:
    cJSON_Delete(args);
}

static const struct check_test tests[] = {
    {"long_tool_error", test_long_tool_error},
    {"text_borrows_argument", test_text_borrows_argument},
    {"long_protocol_error", test_long_protocol_error},
    {"audio_stand_in_whole", test_audio_stand_in_whole},
    {"link_stand_in", test_link_stand_in},
    {"sinks_by_kind", test_sinks_by_kind},
    {"completion_cap", test_completion_cap},
    {"json_tool_2024", test_json_tool_2024},
    {"json_tool_2025_11", test_json_tool_2025_11},
    {"json_after_sinks", test_json_after_sinks},
    {"json_resource", test_json_resource},
    {"json_prompt", test_json_prompt},
    {"json_complete", test_json_complete},
    {"json_wrong_types", test_json_wrong_types},
    {"json_limit", test_json_limit},
    {0},
};

int main(void)
{
    return check_main("test_result", tests);
}
