/* test_result.c: the result module called directly (test_host.c drives the same sinks through
 * the vtable): messages and stand-ins longer than any fixed buffer come out whole, the
 * client-side URI of a link stand-in is cut at LIMIT_URI, sinks refuse the kinds they do not
 * serve, and completion values past RESULT_COMPLETION_MAX are counted, not kept. */
#include "result.h"

#include "check.h"
#include "fixture.h"
#include "limits.h"
#include "revision.h"
#include "status.h"
#include "strbuf.h"

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

static const struct check_test tests[] = {
    {"long_tool_error", test_long_tool_error},
    {"long_protocol_error", test_long_protocol_error},
    {"audio_stand_in_whole", test_audio_stand_in_whole},
    {"link_stand_in", test_link_stand_in},
    {"sinks_by_kind", test_sinks_by_kind},
    {"completion_cap", test_completion_cap},
    {0},
};

int main(void)
{
    return check_main("test_result", tests);
}
