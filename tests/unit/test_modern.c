/* test_modern.c: the 2026-07-28 questions and answers (MRTR): a question without an answer
 * is recorded and the request answers input_required with a requestState; the retry carrying
 * that state and the answers gives the handler its answer; a state bound to another request,
 * or one whose answers are not an object, is ignored (and leaks nothing). */
#include "modern.h"

#include "base64.h"
#include "check.h"
#include "fixture.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

/* A tools/call request for `tool`, with extra params members as JSON text (may be ""). */
static cJSON *modern_request(const char *tool, const char *extra)
{
    char text[2048];

    snprintf(
        text, sizeof(text),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\"%s%s}}",
        tool, extra[0] ? "," : "", extra);
    return cJSON_Parse(text);
}

/* requestState made by hand: base64 of the JSON text state. */
static char *modern_state(const char *state)
{
    return base64_encode(state, strlen(state));
}

/* A retry of tools/call "ask" carrying requestState made from the JSON text state, plus the
 * params members in more ("" or starting with a comma), begun into m. Returns the request;
 * release m, then delete it. */
static cJSON *modern_retry(struct modern_mrtr *m, const char *state, const char *more)
{
    char *b64 = modern_state(state);
    char extra[512];
    cJSON *msg;

    snprintf(extra, sizeof(extra), "\"requestState\":\"%s\"%s", b64 ? b64 : "", more);
    msg = modern_request("ask", extra);
    modern_mrtr_begin(m, msg, "ask");
    free(b64);
    return msg;
}

static void test_round_trip(void)
{
    struct modern_mrtr m;
    cJSON *msg = modern_request("ask", ""), *answer = NULL, *result, *retry;
    const char *state;
    char extra[1024];

    struct registry *reg = fixture_registry("s");

    if (!CHECK(msg != NULL && reg != NULL))
        return;
    modern_mrtr_begin(&m, msg, "ask");
    CHECK_INT_EQ(
        modern_mrtr_ask(&m, "elicitation/create", cJSON_Parse("{\"message\":\"ok?\"}"), &answer),
        MCPH_ERR_AGAIN);
    CHECK(answer == NULL);
    result = modern_mrtr_result(&m, reg, msg, "ask");
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(result, "resultType")), "input_required");
    CHECK(fixture_json_is(cJSON_GetObjectItem(result, "inputRequests"),
                          "{\"ask-1\":{\"method\":\"elicitation/create\","
                          "\"params\":{\"message\":\"ok?\"}}}"));
    state = cJSON_GetStringValue(cJSON_GetObjectItem(result, "requestState"));
    CHECK(state != NULL);
    modern_mrtr_release(&m);
    /* The retry: the state and the answer. The same question now has its answer. */
    snprintf(extra, sizeof(extra),
             "\"requestState\":\"%s\",\"inputResponses\":{\"ask-1\":{\"action\":\"accept\"}}",
             state ? state : "");
    retry = modern_request("ask", extra);
    modern_mrtr_begin(&m, retry, "ask");
    CHECK_INT_EQ(modern_mrtr_ask(&m, "elicitation/create", NULL, &answer), MCPH_OK);
    CHECK(fixture_json_is(answer, "{\"action\":\"accept\"}"));
    CHECK(modern_mrtr_result(&m, reg, retry, "ask") == NULL);
    cJSON_Delete(answer);
    modern_mrtr_release(&m);
    cJSON_Delete(result);
    cJSON_Delete(retry);
    cJSON_Delete(msg);
    registry_free(reg);
}

/* Answers carried in a state made for another tool, or for another method, do not count. */
static void test_state_of_another_request(void)
{
    static const char *const states[] = {
        "{\"m\":\"tools/call\",\"n\":\"other\",\"a\":{\"ask-1\":{\"x\":1}}}",
        "{\"m\":\"prompts/get\",\"n\":\"ask\",\"a\":{\"ask-1\":{\"x\":1}}}",
        "{\"n\":\"ask\",\"a\":{\"ask-1\":{\"x\":1}}}",
        NULL,
    };

    for (size_t i = 0; states[i] != NULL; i++) {
        struct modern_mrtr m;
        cJSON *answer = NULL, *msg = modern_retry(&m, states[i], "");

        CHECK_INT_EQ(modern_mrtr_ask(&m, "roots/list", NULL, &answer), MCPH_ERR_AGAIN);
        modern_mrtr_release(&m);
        cJSON_Delete(msg);
    }
}

/* A state whose answers are an array (or anything but an object) is not one of mcph's: it is
 * ignored whole, and none of its elements is kept (or lost: LeakSanitizer watches). */
static void test_state_answers_not_an_object(void)
{
    static const char *const states[] = {
        "{\"m\":\"tools/call\",\"n\":\"ask\",\"a\":[1,2,3]}",
        "{\"m\":\"tools/call\",\"n\":\"ask\",\"a\":\"ask-1\"}",
        "{\"m\":\"tools/call\",\"n\":\"ask\",\"a\":null}",
        "[1,2,3]",
        NULL,
    };

    for (size_t i = 0; states[i] != NULL; i++) {
        struct modern_mrtr m;
        cJSON *answer = NULL, *msg = modern_retry(&m, states[i], ",\"inputResponses\":[{\"a\":1}]");

        CHECK(fixture_json_is(m.answers, "{}"));
        CHECK_INT_EQ(modern_mrtr_ask(&m, "roots/list", NULL, &answer), MCPH_ERR_AGAIN);
        modern_mrtr_release(&m);
        cJSON_Delete(msg);
    }
}

/* Later answers replace earlier ones of the same key; the state carries them all on. */
static void test_answers_merge(void)
{
    struct modern_mrtr m;
    cJSON *answer = NULL;
    cJSON *msg = modern_retry(&m,
                              "{\"m\":\"tools/call\",\"n\":\"ask\",\"a\":{\"ask-1\":{\"v\":1},"
                              "\"ask-2\":{\"v\":2}}}",
                              ",\"inputResponses\":{\"ask-2\":{\"v\":22}}");

    CHECK(fixture_json_is(m.answers, "{\"ask-1\":{\"v\":1},\"ask-2\":{\"v\":22}}"));
    CHECK_INT_EQ(modern_mrtr_ask(&m, "roots/list", NULL, &answer), MCPH_OK);
    CHECK(fixture_json_is(answer, "{\"v\":1}"));
    cJSON_Delete(answer);
    CHECK_INT_EQ(modern_mrtr_ask(&m, "roots/list", NULL, &answer), MCPH_OK);
    CHECK(fixture_json_is(answer, "{\"v\":22}"));
    cJSON_Delete(answer);
    CHECK_INT_EQ(modern_mrtr_ask(&m, "roots/list", NULL, &answer), MCPH_ERR_AGAIN);
    modern_mrtr_release(&m);
    cJSON_Delete(msg);
}

/* Only keys mcph gives its questions count ("ask-1" to "ask-256"): anything else a client
 * sends is dropped, so a forged object of many keys costs one pass. And a run asks at most
 * LIMIT_MRTR_ASKS questions. */
static void test_answers_foreign_keys(void)
{
    struct modern_mrtr m;
    cJSON *answer = NULL;
    cJSON *msg = modern_request(
        "ask", "\"inputResponses\":{\"ask-1\":{\"v\":1},\"zzz\":{},\"ask-0\":{},\"ask-01\":{},"
               "\"ask-257\":{},\"ask-2x\":{},\"ask-256\":{\"v\":256}}");

    modern_mrtr_begin(&m, msg, "ask");
    CHECK(fixture_json_is(m.answers, "{\"ask-1\":{\"v\":1},\"ask-256\":{\"v\":256}}"));
    for (int i = 1; i <= 256; i++) {
        int rc = modern_mrtr_ask(&m, "roots/list", NULL, &answer);

        if (!CHECK(rc == (i == 1 || i == 256 ? MCPH_OK : MCPH_ERR_AGAIN)))
            break;
        cJSON_Delete(answer);
        answer = NULL;
    }
    CHECK_INT_EQ(modern_mrtr_ask(&m, "roots/list", NULL, &answer), MCPH_ERR_LIMIT);
    modern_mrtr_release(&m);
    cJSON_Delete(msg);
}

static const struct check_test tests[] = {
    {"round_trip", test_round_trip},
    {"state_of_another_request", test_state_of_another_request},
    {"state_answers_not_an_object", test_state_answers_not_an_object},
    {"answers_merge", test_answers_merge},
    {"answers_foreign_keys", test_answers_foreign_keys},
    {0},
};

int main(void)
{
    return check_main("test_modern", tests);
}
