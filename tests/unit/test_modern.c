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
    CHECK_INT_EQ(modern_mrtr_begin(m, NULL, 0, msg, "ask"), STATUS_OK);
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
    CHECK_INT_EQ(modern_mrtr_begin(&m, NULL, 0, msg, "ask"), STATUS_OK);
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
    CHECK_INT_EQ(modern_mrtr_begin(&m, NULL, 0, retry, "ask"), STATUS_OK);
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

    CHECK_INT_EQ(modern_mrtr_begin(&m, NULL, 0, msg, "ask"), STATUS_OK);
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

/* With a state key, requestState is sealed: a retry under the same key (another replica)
 * gets its answers back; a state altered by one byte, sealed under another key, or not
 * sealed at all is refused, and a retry without any state is fine. */
static void test_sealed(void)
{
    static const unsigned char key[] = "0123456789abcdef0123456789abcdef";
    static const unsigned char other[] = "fedcba9876543210fedcba9876543210";
    struct modern_mrtr m;
    struct registry *reg = fixture_registry("s");
    cJSON *msg = modern_request("ask", ""), *answer = NULL, *result, *retry;
    char *state, *b64, extra[1024];

    if (!CHECK(msg != NULL && reg != NULL))
        return;
    CHECK_INT_EQ(modern_mrtr_begin(&m, key, 32, msg, "ask"), STATUS_OK);
    CHECK_INT_EQ(modern_mrtr_ask(&m, "elicitation/create", NULL, &answer), MCPH_ERR_AGAIN);
    result = modern_mrtr_result(&m, reg, msg, "ask");
    modern_mrtr_release(&m);
    state = strdup(cJSON_GetStringValue(cJSON_GetObjectItem(result, "requestState")));
    CHECK(strchr(state, '.') != NULL);
    snprintf(extra, sizeof(extra),
             "\"requestState\":\"%s\",\"inputResponses\":{\"ask-1\":{\"action\":\"accept\"}}",
             state);
    retry = modern_request("ask", extra);
    CHECK_INT_EQ(modern_mrtr_begin(&m, key, 32, retry, "ask"), STATUS_OK);
    CHECK_INT_EQ(modern_mrtr_ask(&m, "elicitation/create", NULL, &answer), MCPH_OK);
    cJSON_Delete(answer);
    modern_mrtr_release(&m);
    CHECK_INT_EQ(modern_mrtr_begin(&m, other, 32, retry, "ask"), STATUS_INVALID);
    modern_mrtr_release(&m);
    cJSON_Delete(retry);
    /* One byte of the state changed (its answers forged): refused. */
    state[2] = state[2] == 'A' ? 'B' : 'A';
    snprintf(extra, sizeof(extra), "\"requestState\":\"%s\"", state);
    retry = modern_request("ask", extra);
    CHECK_INT_EQ(modern_mrtr_begin(&m, key, 32, retry, "ask"), STATUS_INVALID);
    modern_mrtr_release(&m);
    cJSON_Delete(retry);
    /* A state with no seal (made without a key) is refused under one. */
    b64 = modern_state("{\"m\":\"tools/call\",\"n\":\"ask\",\"a\":{\"ask-1\":{\"x\":1}}}");
    snprintf(extra, sizeof(extra), "\"requestState\":\"%s\"", b64 ? b64 : "");
    retry = modern_request("ask", extra);
    CHECK_INT_EQ(modern_mrtr_begin(&m, key, 32, retry, "ask"), STATUS_INVALID);
    modern_mrtr_release(&m);
    cJSON_Delete(retry);
    CHECK_INT_EQ(modern_mrtr_begin(&m, key, 32, msg, "ask"), STATUS_OK);
    modern_mrtr_release(&m);
    free(b64);
    free(state);
    cJSON_Delete(result);
    cJSON_Delete(msg);
    registry_free(reg);
}

static const struct check_test tests[] = {
    {"round_trip", test_round_trip},
    {"sealed", test_sealed},
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
