/* test_session.c: the legacy session: initialize negotiates (never echoing an unknown
 * version), keeps the client's capabilities and info, is refused twice and without a version;
 * the capabilities offered (completions only with a completer, and not to 2024-11-05);
 * notifications/initialized; logging/setLevel's levels; release. */
#include "served/session.h"

#include "check.h"
#include "fixture.h"
#include "wire/jsonrpc.h"
#include "lib/log.h"
#include "served/registry.h"
#include "wire/revision.h"
#include "lib/status.h"

#include <stdlib.h>
#include <string.h>

/* initialize with params as JSON text; the result (owned) or NULL, status and error out. */
static cJSON *session_init_text(struct session *s, const struct registry *reg, const char *params,
                                const char *instructions, int *status, struct session_error *err)
{
    cJSON *p = cJSON_Parse(params);
    cJSON *result = NULL;

    *status = session_initialize(s, p, reg, instructions, &result, err);
    cJSON_Delete(p);
    return result;
}

static void test_negotiates(void)
{
    static const struct {
        const char *asked, *got;
    } cases[] = {
        {"2024-11-05", "2024-11-05"},
        {"2025-03-26", "2025-03-26"},
        {"2025-06-18", "2025-06-18"},
        {"2025-11-25", "2025-11-25"},
        {"1999-01-01", "2025-11-25"},
        {"2026-07-28", "2025-11-25"},
        {0},
    };
    struct registry *reg = fixture_registry("s");

    if (!CHECK(reg != NULL))
        return;
    for (size_t i = 0; cases[i].asked != NULL; i++) {
        struct session s;
        struct session_error err;
        char params[128];
        int status;
        cJSON *result;

        session_init(&s);
        snprintf(params, sizeof(params), "{\"protocolVersion\":\"%s\"}", cases[i].asked);
        result = session_init_text(&s, reg, params, NULL, &status, &err);
        CHECK_INT_EQ(status, STATUS_OK);
        CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(result, "protocolVersion")),
                     cases[i].got);
        CHECK_STR_EQ(revision_get(s.rev)->name, cases[i].got);
        cJSON_Delete(result);
        session_release(&s);
    }
    registry_free(reg);
}

static void test_result_and_client(void)
{
    struct registry *reg = fixture_registry("s");
    struct session s;
    struct session_error err;
    int status;
    cJSON *result;

    if (!CHECK(reg != NULL))
        return;
    session_init(&s);
    result =
        session_init_text(&s, reg,
                          "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"roots\":{}},"
                          "\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}",
                          "Use it.", &status, &err);
    CHECK_INT_EQ(status, STATUS_OK);
    CHECK(fixture_json_is(result,
                          "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"logging\":{},"
                          "\"tools\":{\"listChanged\":true},\"resources\":{\"listChanged\":true,"
                          "\"subscribe\":true},\"prompts\":{\"listChanged\":true}},"
                          "\"serverInfo\":{\"name\":\"s\",\"version\":\"0.1.0\"},"
                          "\"instructions\":\"Use it.\"}"));
    CHECK(fixture_json_is(s.client_caps, "{\"roots\":{}}"));
    CHECK(fixture_json_is(s.client_info, "{\"name\":\"c\",\"version\":\"1\"}"));
    CHECK_INT_EQ(s.initialized, 0);
    session_initialized(&s);
    CHECK_INT_EQ(s.initialized, 1);
    cJSON_Delete(result);
    /* A second initialize is refused, naming the protocol in use; nothing changes. */
    result =
        session_init_text(&s, reg, "{\"protocolVersion\":\"2024-11-05\"}", NULL, &status, &err);
    CHECK(result == NULL);
    CHECK_INT_EQ(status, STATUS_EXISTS);
    CHECK_INT_EQ(err.code, JSONRPC_INVALID_REQUEST);
    CHECK_STR_HAS(err.message, "already done");
    CHECK_STR_HAS(err.message, "2025-06-18");
    CHECK_STR_EQ(revision_get(s.rev)->name, "2025-06-18");
    session_release(&s);
    CHECK_INT_EQ(s.rev, REV_NONE);
    CHECK(s.client_caps == NULL);
    registry_free(reg);
}

static void test_needs_version(void)
{
    static const char *const bad[] = {"{}", "{\"protocolVersion\":7}", "null", NULL};
    struct registry *reg = fixture_registry("s");

    if (!CHECK(reg != NULL))
        return;
    for (size_t i = 0; bad[i] != NULL; i++) {
        struct session s;
        struct session_error err;
        int status;
        cJSON *result;

        session_init(&s);
        result = session_init_text(&s, reg, bad[i], NULL, &status, &err);
        CHECK(result == NULL);
        CHECK_INT_EQ(status, STATUS_INVALID);
        CHECK_INT_EQ(err.code, JSONRPC_INVALID_PARAMS);
        CHECK_STR_HAS(err.message, "protocolVersion");
        CHECK_INT_EQ(s.rev, REV_NONE);
        session_release(&s);
    }
    registry_free(reg);
}

/* Revisions before 2025-03-26 have no completions capability; a set without completers
 * offers none in any revision. */
static void test_capabilities(void)
{
    struct registry *reg = fixture_registry("s");
    cJSON *caps;

    if (!CHECK(reg != NULL))
        return;
    for (int rev = REV_2024_11_05; rev <= REV_2026_07_28; rev++) {
        caps = session_capabilities(reg, rev);
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(caps, "tools"), "listChanged")));
        CHECK(cJSON_GetObjectItem(caps, "completions") == NULL);
        cJSON_Delete(caps);
    }
    registry_free(reg);
}

/* A set with completers (the features test plugin's template and prompt) offers completions
 * from 2025-03-26 on, never to 2024-11-05. */
static void test_completions(void)
{
    struct fixture_server fx;

    if (!CHECK(fixture_server_serve(&fx, "session",
                                    "[server]\nplugin_dir = ../../plugins\n"
                                    "[plugin.f]\npath = features.so\n")))
        return;
    for (int rev = REV_2024_11_05; rev <= REV_2026_07_28; rev++) {
        cJSON *caps = session_capabilities(fx.srv.reg, rev);

        if (!CHECK_INT_EQ(cJSON_IsObject(cJSON_GetObjectItem(caps, "completions")),
                          rev != REV_2024_11_05))
            fprintf(stderr, "    revision %s\n", revision_get(rev)->name);
        cJSON_Delete(caps);
    }
    fixture_server_close(&fx);
}

/* No instructions, no member; a fresh or released session has no revision and logs nothing;
 * releasing NULL is harmless. */
static void test_bare(void)
{
    struct registry *reg = fixture_registry("s");
    struct session s;
    struct session_error err;
    int status;
    cJSON *result;

    if (!CHECK(reg != NULL))
        return;
    session_init(&s);
    CHECK_INT_EQ(s.rev, REV_NONE);
    CHECK_INT_EQ(atomic_load(&s.log_level), LOG_OFF);
    result =
        session_init_text(&s, reg, "{\"protocolVersion\":\"2024-11-05\"}", NULL, &status, &err);
    CHECK_INT_EQ(status, STATUS_OK);
    CHECK(cJSON_GetObjectItem(result, "instructions") == NULL);
    CHECK(s.client_caps == NULL);
    CHECK(s.client_info == NULL);
    cJSON_Delete(result);
    atomic_store(&s.log_level, LOG_DEBUG);
    session_release(&s);
    CHECK_INT_EQ(atomic_load(&s.log_level), LOG_OFF);
    CHECK_INT_EQ(s.initialized, 0);
    session_release(NULL);
    registry_free(reg);
}

static void test_level(void)
{
    static const struct {
        const char *params;
        int status, level;
    } cases[] = {
        {"{\"level\":\"debug\"}", STATUS_OK, LOG_DEBUG},
        {"{\"level\":\"warning\"}", STATUS_OK, LOG_WARNING},
        {"{\"level\":\"emergency\"}", STATUS_OK, LOG_EMERGENCY},
        {"{\"level\":\"warn\"}", STATUS_INVALID, 0},
        {"{\"level\":\"loud\"}", STATUS_INVALID, 0},
        {"{\"level\":3}", STATUS_INVALID, 0},
        {"{}", STATUS_INVALID, 0},
        {0},
    };

    for (size_t i = 0; cases[i].params != NULL; i++) {
        cJSON *p = cJSON_Parse(cases[i].params);
        struct session_error err = {0};
        int level = -1;

        CHECK_INT_EQ(session_level(p, &level, &err), cases[i].status);
        if (cases[i].status == STATUS_OK) {
            CHECK_INT_EQ(level, cases[i].level);
        } else {
            CHECK_INT_EQ(err.code, JSONRPC_INVALID_PARAMS);
            CHECK_STR_HAS(err.message, "debug, info, notice, warning, error");
        }
        cJSON_Delete(p);
    }
}

static const struct check_test tests[] = {
    {"negotiates", test_negotiates},
    {"result_and_client", test_result_and_client},
    {"needs_version", test_needs_version},
    {"capabilities", test_capabilities},
    {"completions", test_completions},
    {"bare", test_bare},
    {"level", test_level},
    {0},
};

int main(void)
{
    return check_main("test_session", tests);
}
