/* test_question.c: a plugin's question fitted to the client's revision: 2025-11-25 and later
 * get it as written; 2025-06-18 gets a titled choice as enum + enumNames, no defaults but a
 * boolean's, no $schema or _meta, and no question at all with a multi-select field, a field of
 * an unknown type, sampling with tools, or content the revision lacks (audio before
 * 2025-03-26). */
#include "calls/question.h"

#include "check.h"
#include "host/host.h"
#include "wire/revision.h"
#include "lib/status.h"

#include <stdlib.h>
#include <string.h>

/* Fit the JSON text `in` for rev; *out gets the fitted text (owned) or NULL when refused. */
static int q_fit(int what, const char *in, int rev, char **out, struct strbuf *why)
{
    cJSON *params = cJSON_Parse(in);
    int status;

    *out = NULL;
    if (params == NULL)
        return STATUS_NOMEM;
    status = question_fit(what, params, rev, why);
    if (status == STATUS_OK)
        *out = cJSON_PrintUnformatted(params);
    cJSON_Delete(params);
    return status;
}

static const char q_titled[] =
    "{\"message\":\"m\",\"_meta\":{\"a\":1},\"requestedSchema\":{\"$schema\":\"s\",\"type\":"
    "\"object\",\"properties\":{\"c\":{\"type\":\"string\",\"oneOf\":[{\"const\":\"r\","
    "\"title\":\"Red\"},{\"const\":\"g\"}],\"default\":\"r\"},\"n\":{\"type\":\"integer\","
    "\"minimum\":1,\"default\":2},\"b\":{\"type\":\"boolean\",\"default\":true}},\"required\":"
    "[\"c\"]}}";

static void test_elicit_2025_06_18(void)
{
    struct strbuf why = STRBUF_INIT;
    char *out = NULL;

    if (CHECK_INT_EQ(q_fit(HOST_ASK_ELICIT, q_titled, REV_2025_06_18, &out, &why), STATUS_OK))
        CHECK_STR_EQ(out, "{\"message\":\"m\",\"requestedSchema\":{\"type\":\"object\","
                          "\"properties\":{\"c\":{\"type\":\"string\",\"enum\":[\"r\",\"g\"],"
                          "\"enumNames\":[\"Red\",\"g\"]},\"n\":{\"type\":\"integer\","
                          "\"minimum\":1},\"b\":{\"type\":\"boolean\",\"default\":true}},"
                          "\"required\":[\"c\"]}}");
    free(out);
    strbuf_release(&why);
}

static void test_elicit_newer_untouched(void)
{
    struct strbuf why = STRBUF_INIT;
    cJSON *want = cJSON_Parse(q_titled);
    char *out = NULL, *same = cJSON_PrintUnformatted(want);

    for (int rev = REV_2025_11_25; rev <= REV_2026_07_28; rev++) {
        if (CHECK_INT_EQ(q_fit(HOST_ASK_ELICIT, q_titled, rev, &out, &why), STATUS_OK))
            CHECK_STR_EQ(out, same);
        free(out);
    }
    free(same);
    cJSON_Delete(want);
    strbuf_release(&why);
}

static void test_elicit_refused(void)
{
    static const char *const fields[] = {
        "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"x\"]}}",
        "{\"type\":\"object\"}",
        "{\"type\":\"string\",\"oneOf\":[{\"title\":\"no const\"}]}",
        NULL,
    };

    for (size_t i = 0; fields[i] != NULL; i++) {
        struct strbuf why = STRBUF_INIT, in = STRBUF_INIT;
        char *out = NULL;

        strbuf_addf(&in,
                    "{\"message\":\"m\",\"requestedSchema\":{\"type\":\"object\","
                    "\"properties\":{\"f\":%s}}}",
                    fields[i]);
        CHECK_INT_EQ(q_fit(HOST_ASK_ELICIT, in.buf, REV_2025_06_18, &out, &why), STATUS_INVALID);
        CHECK(out == NULL);
        CHECK(strstr(why.buf, "field 'f'") != NULL);
        strbuf_release(&in);
        strbuf_release(&why);
    }
}

static void test_sample(void)
{
    struct strbuf why = STRBUF_INIT;
    char *out = NULL;
    const char *tools = "{\"messages\":[],\"maxTokens\":1,\"tools\":[]}";
    const char *meta = "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
                       "\"text\":\"hi\"}}],\"maxTokens\":1,\"_meta\":{},\"task\":{}}";
    const char *audio = "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"audio\","
                        "\"data\":\"\",\"mimeType\":\"audio/wav\"}}],\"maxTokens\":1}";

    CHECK_INT_EQ(q_fit(HOST_ASK_SAMPLE, tools, REV_2025_06_18, &out, &why), STATUS_INVALID);
    CHECK(strstr(why.buf, "sampling with tools") != NULL);
    if (CHECK_INT_EQ(q_fit(HOST_ASK_SAMPLE, meta, REV_2024_11_05, &out, &why), STATUS_OK))
        CHECK_STR_EQ(out, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
                          "\"text\":\"hi\"}}],\"maxTokens\":1}");
    free(out);
    CHECK_INT_EQ(q_fit(HOST_ASK_SAMPLE, audio, REV_2024_11_05, &out, &why), STATUS_INVALID);
    if (CHECK_INT_EQ(q_fit(HOST_ASK_SAMPLE, audio, REV_2025_03_26, &out, &why), STATUS_OK))
        CHECK(strstr(out, "\"audio\"") != NULL);
    free(out);
    if (CHECK_INT_EQ(q_fit(HOST_ASK_SAMPLE, tools, REV_2025_11_25, &out, &why), STATUS_OK))
        CHECK(strstr(out, "\"tools\"") != NULL);
    free(out);
    strbuf_release(&why);
}

static const struct check_test tests[] = {
    {"elicit_2025_06_18", test_elicit_2025_06_18},
    {"elicit_newer_untouched", test_elicit_newer_untouched},
    {"elicit_refused", test_elicit_refused},
    {"sample", test_sample},
    {0},
};

int main(void)
{
    return check_main("test_question", tests);
}
