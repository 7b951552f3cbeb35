/* test_mrtr.c: the 2026-07-28 questions and answers (MRTR): a question without an answer
 * is recorded and the request answers input_required with a requestState; the retry carrying
 * that state and the answers gives the handler its answer; a state bound to another request,
 * or one whose answers are not an object, is ignored (and leaks nothing). Questions named by
 * the handler (ABI 1.4 ask_key): under their name, answered on a retry or ahead, the names
 * checked, and the ask-N keys of the others unshifted. The request's origin (ABI 1.5
 * call_origin): new for each first request, kept by a retry through its (sealed) state. */
#include "calls/mrtr.h"

#include "lib/base64.h"
#include "check.h"
#include "fixture.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* A tools/call request for `tool`, with extra params members as JSON text (may be ""). */
static cJSON *req_new(const char *tool, const char *extra)
{
    char text[2048];

    snprintf(
        text, sizeof(text),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\"%s%s}}",
        tool, extra[0] ? "," : "", extra);
    return cJSON_Parse(text);
}

/* requestState made by hand: base64 of the JSON text state. */
static char *state_b64(const char *state)
{
    return base64_encode(state, strlen(state));
}

/* A retry of tools/call "ask" carrying requestState made from the JSON text state, plus the
 * params members in more ("" or starting with a comma), begun into m. Returns the request;
 * release m, then delete it. */
static cJSON *retry_new(struct mrtr *m, const char *state, const char *more)
{
    char *b64 = state_b64(state);
    char extra[512];
    cJSON *msg;

    snprintf(extra, sizeof(extra), "\"requestState\":\"%s\"%s", b64 ? b64 : "", more);
    msg = req_new("ask", extra);
    CHECK_INT_EQ(mrtr_begin(m, NULL, 0, msg, "ask"), STATUS_OK);
    free(b64);
    return msg;
}

static void test_round_trip(void)
{
    struct mrtr m;
    cJSON *msg = req_new("ask", ""), *answer = NULL, *result, *retry;
    const char *state;
    char extra[1024];

    struct registry *reg = fixture_registry("s");

    if (!CHECK(msg != NULL && reg != NULL))
        return;
    CHECK_INT_EQ(mrtr_begin(&m, NULL, 0, msg, "ask"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "elicitation/create", cJSON_Parse("{\"message\":\"ok?\"}"), &answer),
                 STATUS_AGAIN);
    CHECK(answer == NULL);
    result = mrtr_result(&m, reg, msg, "ask");
    CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(result, "resultType")), "input_required");
    CHECK(fixture_json_is(cJSON_GetObjectItem(result, "inputRequests"),
                          "{\"ask-1\":{\"method\":\"elicitation/create\","
                          "\"params\":{\"message\":\"ok?\"}}}"));
    state = cJSON_GetStringValue(cJSON_GetObjectItem(result, "requestState"));
    CHECK(state != NULL);
    mrtr_release(&m);
    /* The retry: the state and the answer. The same question now has its answer. */
    snprintf(extra, sizeof(extra),
             "\"requestState\":\"%s\",\"inputResponses\":{\"ask-1\":{\"action\":\"accept\"}}",
             state ? state : "");
    retry = req_new("ask", extra);
    CHECK_INT_EQ(mrtr_begin(&m, NULL, 0, retry, "ask"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "elicitation/create", NULL, &answer), STATUS_OK);
    CHECK(fixture_json_is(answer, "{\"action\":\"accept\"}"));
    CHECK(mrtr_result(&m, reg, retry, "ask") == NULL);
    cJSON_Delete(answer);
    mrtr_release(&m);
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
        struct mrtr m;
        cJSON *answer = NULL, *msg = retry_new(&m, states[i], "");

        CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN);
        mrtr_release(&m);
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
        struct mrtr m;
        cJSON *answer = NULL, *msg = retry_new(&m, states[i], ",\"inputResponses\":[{\"a\":1}]");

        CHECK(fixture_json_is(m.answers, "{}"));
        CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN);
        mrtr_release(&m);
        cJSON_Delete(msg);
    }
}

/* Later answers replace earlier ones of the same key; the state carries them all on. */
static void test_answers_merge(void)
{
    struct mrtr m;
    cJSON *answer = NULL;
    cJSON *msg = retry_new(&m,
                           "{\"m\":\"tools/call\",\"n\":\"ask\",\"a\":{\"ask-1\":{\"v\":1},"
                           "\"ask-2\":{\"v\":2}}}",
                           ",\"inputResponses\":{\"ask-2\":{\"v\":22}}");

    CHECK(fixture_json_is(m.answers, "{\"ask-1\":{\"v\":1},\"ask-2\":{\"v\":22}}"));
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_OK);
    CHECK(fixture_json_is(answer, "{\"v\":1}"));
    cJSON_Delete(answer);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_OK);
    CHECK(fixture_json_is(answer, "{\"v\":22}"));
    cJSON_Delete(answer);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN);
    mrtr_release(&m);
    cJSON_Delete(msg);
}

/* Only keys a question may go under count ("ask-1" to "ask-256", and names a handler may give):
 * anything else a client sends is dropped. And a run asks at most LIMIT_MRTR_ASKS questions. */
static void test_answers_foreign_keys(void)
{
    struct mrtr m;
    cJSON *answer = NULL;
    cJSON *msg = req_new(
        "ask", "\"inputResponses\":{\"ask-1\":{\"v\":1},\"zzz\":{},\"ask-0\":{},\"ask-01\":{},"
               "\"ask-257\":{},\"ask-2x\":{},\"a b\":{},\"\":{},\"ask-256\":{\"v\":256}}");

    CHECK_INT_EQ(mrtr_begin(&m, NULL, 0, msg, "ask"), STATUS_OK);
    CHECK(fixture_json_is(m.answers, "{\"ask-1\":{\"v\":1},\"zzz\":{},\"ask-2x\":{},"
                                     "\"ask-256\":{\"v\":256}}"));
    for (int i = 1; i <= 256; i++) {
        int rc = mrtr_ask(&m, "roots/list", NULL, &answer);

        if (!CHECK(rc == (i == 1 || i == 256 ? STATUS_OK : STATUS_AGAIN)))
            break;
        cJSON_Delete(answer);
        answer = NULL;
    }
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_LIMIT);
    mrtr_release(&m);
    cJSON_Delete(msg);
}

/* A retry keeps at most LIMIT_MRTR_ASKS answers, this round's first: a client that sends
 * thousands of keys costs one pass, and the state it gets back stays bounded. */
static void test_answers_bounded(void)
{
    struct strbuf sb = STRBUF_INIT;
    struct mrtr m;
    cJSON *msg;

    strbuf_addstr(&sb, "\"inputResponses\":{");
    for (int i = 0; i < 3 * LIMIT_MRTR_ASKS; i++)
        strbuf_addf(&sb, "%s\"k%d\":{\"v\":%d}", i ? "," : "", i, i);
    strbuf_addstr(&sb, "}");
    msg = req_new("ask", "");
    cJSON_AddItemToObject(cJSON_GetObjectItem(msg, "params"), "inputResponses",
                          cJSON_Parse(sb.buf + strlen("\"inputResponses\":")));
    CHECK_INT_EQ(mrtr_begin(&m, NULL, 0, msg, "ask"), STATUS_OK);
    CHECK_INT_EQ(cJSON_GetArraySize(m.answers), LIMIT_MRTR_ASKS);
    CHECK(cJSON_GetObjectItem(m.answers, "k0") != NULL);
    CHECK(cJSON_GetObjectItem(m.answers, "k256") == NULL);
    mrtr_release(&m);
    cJSON_Delete(msg);
    strbuf_release(&sb);
}

/* A named question goes under its name; the next unnamed one is ask-2 (the count includes the
 * named one); the retry answers it under that name, and the state carries that answer on to
 * a later round that needs no new one. */
static void test_named_round_trip(void)
{
    struct registry *reg = fixture_registry("s");
    cJSON *msg = req_new("ask", ""), *answer = NULL, *result, *retry, *again;
    struct mrtr m;
    char extra[1024];
    const char *state;

    if (!CHECK(msg != NULL && reg != NULL))
        return;
    CHECK_INT_EQ(mrtr_begin(&m, NULL, 0, msg, "ask"), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, "user_name"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "elicitation/create", NULL, &answer), STATUS_AGAIN);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN);
    result = mrtr_result(&m, reg, msg, "ask");
    CHECK(fixture_json_is(cJSON_GetObjectItem(result, "inputRequests"),
                          "{\"user_name\":{\"method\":\"elicitation/create\"},"
                          "\"ask-2\":{\"method\":\"roots/list\"}}"));
    state = cJSON_GetStringValue(cJSON_GetObjectItem(result, "requestState"));
    mrtr_release(&m);
    /* The retry answers the named one only: it has its answer, ask-2 is asked again. */
    snprintf(extra, sizeof(extra),
             "\"requestState\":\"%s\",\"inputResponses\":{\"user_name\":{\"n\":\"Ada\"}}",
             state ? state : "");
    retry = req_new("ask", extra);
    CHECK_INT_EQ(mrtr_begin(&m, NULL, 0, retry, "ask"), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, "user_name"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "elicitation/create", NULL, &answer), STATUS_OK);
    CHECK(fixture_json_is(answer, "{\"n\":\"Ada\"}"));
    cJSON_Delete(answer);
    answer = NULL;
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN);
    cJSON_Delete(result);
    result = mrtr_result(&m, reg, retry, "ask");
    CHECK(fixture_json_is(cJSON_GetObjectItem(result, "inputRequests"),
                          "{\"ask-2\":{\"method\":\"roots/list\"}}"));
    state = cJSON_GetStringValue(cJSON_GetObjectItem(result, "requestState"));
    mrtr_release(&m);
    /* The last round: the state carries user_name, the client answers ask-2. */
    snprintf(extra, sizeof(extra),
             "\"requestState\":\"%s\",\"inputResponses\":{\"ask-2\":{\"roots\":[]}}",
             state ? state : "");
    again = req_new("ask", extra);
    CHECK_INT_EQ(mrtr_begin(&m, NULL, 0, again, "ask"), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, "user_name"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "elicitation/create", NULL, &answer), STATUS_OK);
    CHECK(fixture_json_is(answer, "{\"n\":\"Ada\"}"));
    cJSON_Delete(answer);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_OK);
    CHECK(fixture_json_is(answer, "{\"roots\":[]}"));
    cJSON_Delete(answer);
    CHECK(mrtr_result(&m, reg, again, "ask") == NULL);
    mrtr_release(&m);
    cJSON_Delete(again);
    cJSON_Delete(retry);
    cJSON_Delete(result);
    cJSON_Delete(msg);
    registry_free(reg);
}

/* A first call may carry the answer already (the client answers ahead), beside keys nothing
 * asks under, which are ignored; an answer that is not an object asks the question again. */
static void test_named_answered_ahead(void)
{
    struct registry *reg = fixture_registry("s");
    struct mrtr m;
    cJSON *answer = NULL, *result;
    cJSON *msg = req_new("ask", "\"inputResponses\":{\"user_name\":{\"action\":\"accept\"},"
                                "\"unknown_extra_key\":{\"action\":\"accept\"}}");
    cJSON *wrong = req_new("ask", "\"inputResponses\":{\"user_name\":12345}");

    if (!CHECK(reg != NULL))
        return;
    CHECK_INT_EQ(mrtr_begin(&m, NULL, 0, msg, "ask"), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, "user_name"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "elicitation/create", NULL, &answer), STATUS_OK);
    CHECK(fixture_json_is(answer, "{\"action\":\"accept\"}"));
    CHECK(mrtr_result(&m, reg, msg, "ask") == NULL);
    cJSON_Delete(answer);
    mrtr_release(&m);
    CHECK_INT_EQ(mrtr_begin(&m, NULL, 0, wrong, "ask"), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, "user_name"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "elicitation/create", NULL, &answer), STATUS_AGAIN);
    result = mrtr_result(&m, reg, wrong, "ask");
    CHECK(fixture_json_is(cJSON_GetObjectItem(result, "inputRequests"),
                          "{\"user_name\":{\"method\":\"elicitation/create\"}}"));
    cJSON_Delete(result);
    mrtr_release(&m);
    cJSON_Delete(wrong);
    cJSON_Delete(msg);
    registry_free(reg);
}

/* Since 1.7 a name may be an ask-N as mcph writes it (a relayed mcph's own numbering) when no
 * question of the run took it; an unnamed question whose ask-N a name took is refused. */
static void test_ask_n_names(void)
{
    struct mrtr m;
    cJSON *msg = req_new("ask", ""), *answer = NULL;

    CHECK_INT_EQ(mrtr_begin(&m, NULL, 0, msg, "ask"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN); /* ask-1 */
    CHECK_INT_EQ(mrtr_name(&m, "ask-1"), STATUS_INVALID);
    CHECK_INT_EQ(mrtr_name(&m, "ask-3"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN); /* ask-3 */
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_INVALID);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN); /* ask-4 */
    CHECK(fixture_json_is(m.requests, "{\"ask-1\":{\"method\":\"roots/list\"},"
                                      "\"ask-3\":{\"method\":\"roots/list\"},"
                                      "\"ask-4\":{\"method\":\"roots/list\"}}"));
    mrtr_release(&m);
    cJSON_Delete(msg);
}

/* host->keep: the text rides in requestState, sealed, to the retry on this mcph or another
 * sharing the key, and on to the next round unless replaced; a state of another request or an
 * altered one brings none; past LIMIT_MRTR_KEPT it is refused and what was kept stays. */
static void test_kept(void)
{
    static const unsigned char key[] = "0123456789abcdef0123456789abcdef";
    struct registry *reg = fixture_registry("s");
    cJSON *msg = req_new("ask", ""), *answer = NULL, *result, *retry, *again;
    char *big = malloc(LIMIT_MRTR_KEPT + 2);
    char extra[1024];
    struct mrtr m;

    if (!CHECK(msg != NULL && reg != NULL && big != NULL))
        return;
    CHECK_INT_EQ(mrtr_begin(&m, key, 32, msg, "ask"), STATUS_OK);
    CHECK(m.kept == NULL);
    CHECK_INT_EQ(mrtr_keep(&m, "{\"s\":\"up \\\"state\\\"\"}"), STATUS_OK);
    memset(big, 'x', LIMIT_MRTR_KEPT + 1);
    big[LIMIT_MRTR_KEPT + 1] = '\0';
    CHECK_INT_EQ(mrtr_keep(&m, big), STATUS_LIMIT);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN);
    result = mrtr_result(&m, reg, msg, "ask");
    mrtr_release(&m);
    snprintf(extra, sizeof(extra), "\"requestState\":\"%s\"",
             cJSON_GetStringValue(cJSON_GetObjectItem(result, "requestState")));
    retry = req_new("ask", extra);
    for (int i = 0; i < 2; i++) { /* this mcph, then another with the same key */
        CHECK_INT_EQ(mrtr_begin(&m, key, 32, retry, "ask"), STATUS_OK);
        CHECK_STR_EQ(m.kept ? m.kept : "(none)", "{\"s\":\"up \\\"state\\\"\"}");
        mrtr_release(&m);
    }
    /* Carried on to the next round when not replaced. */
    CHECK_INT_EQ(mrtr_begin(&m, key, 32, retry, "ask"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN);
    cJSON_Delete(result);
    result = mrtr_result(&m, reg, retry, "ask");
    mrtr_release(&m);
    snprintf(extra, sizeof(extra), "\"requestState\":\"%s\"",
             cJSON_GetStringValue(cJSON_GetObjectItem(result, "requestState")));
    again = req_new("ask", extra);
    CHECK_INT_EQ(mrtr_begin(&m, key, 32, again, "ask"), STATUS_OK);
    CHECK_STR_EQ(m.kept ? m.kept : "(none)", "{\"s\":\"up \\\"state\\\"\"}");
    CHECK_INT_EQ(mrtr_keep(&m, NULL), STATUS_OK);
    CHECK(m.kept == NULL);
    mrtr_release(&m);
    /* Another tool: not its request, nothing kept. */
    CHECK_INT_EQ(mrtr_begin(&m, key, 32, again, "other"), STATUS_OK);
    CHECK(m.kept == NULL);
    mrtr_release(&m);
    /* Unsealed (stdio), a state's k is taken as it comes. */
    cJSON_Delete(retry_new(&m, "{\"m\":\"tools/call\",\"n\":\"ask\",\"a\":{},\"k\":\"t\"}", ""));
    CHECK_STR_EQ(m.kept ? m.kept : "(none)", "t");
    mrtr_release(&m);
    cJSON_Delete(again);
    cJSON_Delete(retry);
    cJSON_Delete(result);
    cJSON_Delete(msg);
    free(big);
    registry_free(reg);
}

/* Keeping a text starts a new round: an answer the retry carries under a key does not answer
 * the next round's question under the same key, and that key may be named again. */
static void test_kept_new_round(void)
{
    struct registry *reg = fixture_registry("s");
    cJSON *msg = req_new("ask", "\"inputResponses\":{\"confirm\":{\"action\":\"accept\"}}");
    cJSON *answer = NULL, *result;
    struct mrtr m;

    if (!CHECK(msg != NULL && reg != NULL))
        return;
    CHECK_INT_EQ(mrtr_begin(&m, NULL, 0, msg, "ask"), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, "confirm"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "elicitation/create", NULL, &answer), STATUS_OK);
    cJSON_Delete(answer);
    answer = NULL;
    CHECK_INT_EQ(mrtr_name(&m, "confirm"), STATUS_INVALID);
    CHECK_INT_EQ(mrtr_keep(&m, "round 2"), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, "confirm"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "elicitation/create", NULL, &answer), STATUS_AGAIN);
    CHECK(answer == NULL);
    result = mrtr_result(&m, reg, msg, "ask");
    CHECK(fixture_json_is(cJSON_GetObjectItem(result, "inputRequests"),
                          "{\"confirm\":{\"method\":\"elicitation/create\"}}"));
    /* keep(NULL) drops the text and forgets nothing. */
    CHECK_INT_EQ(mrtr_keep(&m, NULL), STATUS_OK);
    CHECK(m.kept == NULL);
    CHECK_INT_EQ(mrtr_name(&m, "confirm"), STATUS_INVALID);
    cJSON_Delete(result);
    mrtr_release(&m);
    cJSON_Delete(msg);
    registry_free(reg);
}

/* What a name may be: 1 to 64 of A-Z a-z 0-9 _ . -, or ask-N as mcph writes it, and not one
 * a question of this run went under already (the pending one may be given again, or replaced,
 * or forgotten). A name names one question; a refused question uses its name up without
 * taking it, a legacy one takes it. */
static void test_names(void)
{
    static const char *const bad[] = {
        "", "a b", "ask-0", "ask-01", "ask-300", "na\xc3\xafve", "a/b", NULL,
    };
    struct mrtr m;
    cJSON *msg = req_new("ask", ""), *answer = NULL;
    char longest[LIMIT_MRTR_KEY + 2];

    CHECK_INT_EQ(mrtr_begin(&m, NULL, 0, msg, "ask"), STATUS_OK);
    for (size_t i = 0; bad[i] != NULL; i++) {
        if (!CHECK_INT_EQ(mrtr_name(&m, bad[i]), STATUS_INVALID))
            fprintf(stderr, "    name '%s'\n", bad[i]);
    }
    memset(longest, 'n', sizeof(longest) - 1);
    longest[sizeof(longest) - 1] = '\0';
    CHECK_INT_EQ(mrtr_name(&m, longest), STATUS_INVALID);
    longest[LIMIT_MRTR_KEY] = '\0';
    CHECK_INT_EQ(mrtr_name(&m, longest), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, "ask-x"), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, "ask-"), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, "A.b-c_9"), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, "A.b-c_9"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN);
    /* Used now: refused for the rest of the run; the next unnamed question is ask-2. */
    CHECK_INT_EQ(mrtr_name(&m, "A.b-c_9"), STATUS_INVALID);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN);
    /* Forgotten, refused (asked 0): the name is free again, and the next one is unnamed. */
    CHECK_INT_EQ(mrtr_name(&m, "b"), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, NULL), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN);
    CHECK_INT_EQ(mrtr_name(&m, "b"), STATUS_OK);
    CHECK_INT_EQ(mrtr_pass(&m, 0), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN);
    CHECK_INT_EQ(mrtr_name(&m, "b"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "roots/list", NULL, &answer), STATUS_AGAIN);
    CHECK(fixture_json_is(m.requests, "{\"A.b-c_9\":{\"method\":\"roots/list\"},"
                                      "\"ask-2\":{\"method\":\"roots/list\"},"
                                      "\"ask-3\":{\"method\":\"roots/list\"},"
                                      "\"ask-4\":{\"method\":\"roots/list\"},"
                                      "\"b\":{\"method\":\"roots/list\"}}"));
    mrtr_release(&m);
    /* A legacy call (no begin: all zero): a question asked takes its name. */
    memset(&m, 0, sizeof(m));
    CHECK_INT_EQ(mrtr_name(&m, "c"), STATUS_OK);
    CHECK_INT_EQ(mrtr_pass(&m, 1), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, "c"), STATUS_INVALID);
    CHECK_INT_EQ(mrtr_pass(&m, 1), STATUS_OK);
    CHECK_INT_EQ(mrtr_name(&m, "d"), STATUS_OK);
    mrtr_release(&m);
    cJSON_Delete(msg);
}

/* With a state key, requestState is sealed: a retry under the same key (another replica)
 * gets its answers back; a state altered by one byte, sealed under another key, or not
 * sealed at all is refused, and a retry without any state is fine. */
static void test_sealed(void)
{
    static const unsigned char key[] = "0123456789abcdef0123456789abcdef";
    static const unsigned char other[] = "fedcba9876543210fedcba9876543210";
    struct mrtr m;
    struct registry *reg = fixture_registry("s");
    cJSON *msg = req_new("ask", ""), *answer = NULL, *result, *retry;
    char *state, *b64, extra[1024];

    if (!CHECK(msg != NULL && reg != NULL))
        return;
    CHECK_INT_EQ(mrtr_begin(&m, key, 32, msg, "ask"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "elicitation/create", NULL, &answer), STATUS_AGAIN);
    result = mrtr_result(&m, reg, msg, "ask");
    mrtr_release(&m);
    state = strdup(cJSON_GetStringValue(cJSON_GetObjectItem(result, "requestState")));
    CHECK(strchr(state, '.') != NULL);
    snprintf(extra, sizeof(extra),
             "\"requestState\":\"%s\",\"inputResponses\":{\"ask-1\":{\"action\":\"accept\"}}",
             state);
    retry = req_new("ask", extra);
    CHECK_INT_EQ(mrtr_begin(&m, key, 32, retry, "ask"), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "elicitation/create", NULL, &answer), STATUS_OK);
    cJSON_Delete(answer);
    mrtr_release(&m);
    CHECK_INT_EQ(mrtr_begin(&m, other, 32, retry, "ask"), STATUS_INVALID);
    mrtr_release(&m);
    cJSON_Delete(retry);
    /* One byte of the state changed (its answers forged): refused. */
    state[2] = state[2] == 'A' ? 'B' : 'A';
    snprintf(extra, sizeof(extra), "\"requestState\":\"%s\"", state);
    retry = req_new("ask", extra);
    CHECK_INT_EQ(mrtr_begin(&m, key, 32, retry, "ask"), STATUS_INVALID);
    mrtr_release(&m);
    cJSON_Delete(retry);
    /* A state with no seal (made without a key) is refused under one. */
    b64 = state_b64("{\"m\":\"tools/call\",\"n\":\"ask\",\"a\":{\"ask-1\":{\"x\":1}}}");
    snprintf(extra, sizeof(extra), "\"requestState\":\"%s\"", b64 ? b64 : "");
    retry = req_new("ask", extra);
    CHECK_INT_EQ(mrtr_begin(&m, key, 32, retry, "ask"), STATUS_INVALID);
    mrtr_release(&m);
    cJSON_Delete(retry);
    CHECK_INT_EQ(mrtr_begin(&m, key, 32, msg, "ask"), STATUS_OK);
    mrtr_release(&m);
    free(b64);
    free(state);
    cJSON_Delete(result);
    cJSON_Delete(msg);
    registry_free(reg);
}

/* Each first request has an origin of its own; a retry carrying the state of a round has that
 * round's, also on another mcph sharing the state key; a state of another request, or whose
 * origin is not one, gives a new one. */
static void test_origin(void)
{
    static const unsigned char key[] = "0123456789abcdef0123456789abcdef";
    struct mrtr a, b;
    struct registry *reg = fixture_registry("s");
    cJSON *msg = req_new("ask", ""), *answer = NULL, *result, *retry;
    char origin[MRTR_ORIGIN_MAX + 1], extra[1024];

    if (!CHECK(msg != NULL && reg != NULL))
        return;
    CHECK_INT_EQ(mrtr_begin(&a, key, 32, msg, "ask"), STATUS_OK);
    CHECK_INT_EQ(mrtr_begin(&b, key, 32, msg, "ask"), STATUS_OK);
    /* Made only when asked for: a call that never asks pays nothing. */
    CHECK_STR_EQ(a.origin, "");
    CHECK(mrtr_origin(&a) == a.origin && mrtr_origin(&b) == b.origin);
    CHECK(mrtr_origin_ok(a.origin) && mrtr_origin_ok(b.origin));
    CHECK_INT_EQ((long)strlen(a.origin), MRTR_ORIGIN_FRESH);
    CHECK(strcmp(a.origin, b.origin) != 0);
    memcpy(origin, a.origin, sizeof(origin));
    CHECK_INT_EQ(mrtr_ask(&a, "elicitation/create", NULL, &answer), STATUS_AGAIN);
    result = mrtr_result(&a, reg, msg, "ask");
    mrtr_release(&a);
    mrtr_release(&b);
    snprintf(extra, sizeof(extra), "\"requestState\":\"%s\"",
             cJSON_GetStringValue(cJSON_GetObjectItem(result, "requestState")));
    retry = req_new("ask", extra);
    for (int i = 0; i < 2; i++) { /* this mcph, then another with the same key */
        CHECK_INT_EQ(mrtr_begin(&a, key, 32, retry, "ask"), STATUS_OK);
        CHECK_STR_EQ(a.origin, origin);
        mrtr_release(&a);
    }
    /* The same state given to another tool is not that request's: a new origin. */
    CHECK_INT_EQ(mrtr_begin(&a, key, 32, retry, "other"), STATUS_OK);
    CHECK(mrtr_origin_ok(mrtr_origin(&a)) && strcmp(a.origin, origin) != 0);
    mrtr_release(&a);
    cJSON_Delete(retry);
    cJSON_Delete(result);
    /* Unsealed: the state's origin when it is one, else a new one. */
    cJSON_Delete(retry_new(&a, "{\"m\":\"tools/call\",\"n\":\"ask\",\"a\":{},\"o\":\"o-1\"}", ""));
    CHECK_STR_EQ(a.origin, "o-1");
    mrtr_release(&a);
    cJSON_Delete(retry_new(&a, "{\"m\":\"tools/call\",\"n\":\"ask\",\"a\":{},\"o\":\"o 1\"}", ""));
    CHECK(mrtr_origin_ok(mrtr_origin(&a)) && strcmp(a.origin, "o 1") != 0);
    mrtr_release(&a);
    cJSON_Delete(retry_new(&a, "{\"m\":\"tools/call\",\"n\":\"ask\",\"a\":{},\"o\":7}", ""));
    CHECK(mrtr_origin_ok(mrtr_origin(&a)));
    mrtr_release(&a);
    CHECK(!mrtr_origin_ok("") && !mrtr_origin_ok(NULL) && !mrtr_origin_ok("a/b"));
    memset(extra, 'x', MRTR_ORIGIN_MAX + 1);
    extra[MRTR_ORIGIN_MAX + 1] = '\0';
    CHECK(!mrtr_origin_ok(extra));
    extra[MRTR_ORIGIN_MAX] = '\0';
    CHECK(mrtr_origin_ok(extra));
    cJSON_Delete(msg);
    registry_free(reg);
}

/* Begin a retry of tools/call `tool` carrying state and the params members in more, for who
 * at now, under key; the status of mrtr_begin_as, with m released and why refused in why. */
static int bound_retry(const unsigned char *key, const char *tool, const char *state,
                       const char *more, const char *who, long long now, const char **why)
{
    char extra[1024];
    struct mrtr m;
    cJSON *msg, *answer = NULL;
    int status;

    snprintf(extra, sizeof(extra),
             "\"requestState\":\"%s\",\"inputResponses\":{\"ask-1\":{\"action\":\"accept\"}}%s",
             state, more);
    msg = req_new(tool, extra);
    status = mrtr_begin_as(&m, key, 32, msg, tool, who, now);
    *why = m.refused;
    /* A state taken gives the handler its answer. */
    if (status == STATUS_OK && mrtr_ask(&m, "elicitation/create", NULL, &answer) != STATUS_OK)
        status = STATUS_AGAIN;
    cJSON_Delete(answer);
    mrtr_release(&m);
    cJSON_Delete(msg);
    return status;
}

/* Sealed, a state is bound to the principal, the request (method, name, arguments; not their
 * order, not _meta) and a time (LIMIT_MRTR_STATE_S): any other is refused with the reason. */
static void test_bound(void)
{
    static const unsigned char key[] = "0123456789abcdef0123456789abcdef";
    struct registry *reg = fixture_registry("s");
    cJSON *msg = req_new("ask", "\"arguments\":{\"a\":1,\"b\":[1,{\"y\":2,\"x\":3}]}");
    cJSON *answer = NULL, *result;
    const char *why = NULL;
    char *state;
    struct mrtr m;

    if (!CHECK(msg != NULL && reg != NULL))
        return;
    CHECK_INT_EQ(mrtr_begin_as(&m, key, 32, msg, "ask", "token:0", 1000), STATUS_OK);
    CHECK_INT_EQ(mrtr_ask(&m, "elicitation/create", NULL, &answer), STATUS_AGAIN);
    result = mrtr_result(&m, reg, msg, "ask");
    mrtr_release(&m);
    state = strdup(cJSON_GetStringValue(cJSON_GetObjectItem(result, "requestState")));
    cJSON_Delete(result);
    /* The same call (members in another order, another _meta), by the same principal, in
     * time: taken. */
    CHECK_INT_EQ(bound_retry(key, "ask", state,
                             ",\"arguments\":{\"b\":[1,{\"x\":3,\"y\":2}],\"a\":1},"
                             "\"_meta\":{\"progressToken\":7}",
                             "token:0", 1000 + LIMIT_MRTR_STATE_S, &why),
                 STATUS_OK);
    CHECK_INT_EQ(bound_retry(key, "ask", state,
                             ",\"arguments\":{\"a\":1,\"b\":[1,{\"y\":2,\"x\":3}]}", "token:1",
                             1001, &why),
                 STATUS_INVALID);
    CHECK_STR_HAS(why, "another principal");
    CHECK_INT_EQ(bound_retry(key, "ask", state,
                             ",\"arguments\":{\"a\":1,\"b\":[1,{\"y\":2,\"x\":3}]}", NULL, 1001,
                             &why),
                 STATUS_INVALID);
    CHECK_STR_HAS(why, "another principal");
    CHECK_INT_EQ(bound_retry(key, "ask", state,
                             ",\"arguments\":{\"a\":2,\"b\":[1,{\"y\":2,\"x\":3}]}", "token:0",
                             1001, &why),
                 STATUS_INVALID);
    CHECK_STR_HAS(why, "another request");
    CHECK_INT_EQ(bound_retry(key, "other", state,
                             ",\"arguments\":{\"a\":1,\"b\":[1,{\"y\":2,\"x\":3}]}", "token:0",
                             1001, &why),
                 STATUS_INVALID);
    CHECK_STR_HAS(why, "another request");
    CHECK_INT_EQ(bound_retry(key, "ask", state,
                             ",\"arguments\":{\"a\":1,\"b\":[1,{\"y\":2,\"x\":3}]}", "token:0",
                             1001 + LIMIT_MRTR_STATE_S, &why),
                 STATUS_INVALID);
    CHECK_STR_HAS(why, "expired");
    free(state);
    cJSON_Delete(msg);
    registry_free(reg);
}

static const struct check_test tests[] = {
    {"round_trip", test_round_trip},
    {"sealed", test_sealed},
    {"bound", test_bound},
    {"state_of_another_request", test_state_of_another_request},
    {"state_answers_not_an_object", test_state_answers_not_an_object},
    {"answers_merge", test_answers_merge},
    {"answers_foreign_keys", test_answers_foreign_keys},
    {"answers_bounded", test_answers_bounded},
    {"named_round_trip", test_named_round_trip},
    {"named_answered_ahead", test_named_answered_ahead},
    {"names", test_names},
    {"ask_n_names", test_ask_n_names},
    {"kept", test_kept},
    {"kept_new_round", test_kept_new_round},
    {"origin", test_origin},
    {0},
};

int main(void)
{
    return check_main("test_mrtr", tests);
}
