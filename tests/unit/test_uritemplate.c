/* test_uritemplate.c: template checking and matching ({var}, {+var}, literals). */
#include "lib/uritemplate.h"

#include "check.h"
#include "lib/limits.h"
#include "lib/status.h"

#include <stdlib.h>
#include <string.h>

static void test_check_valid(void)
{
    static const char *const good[] = {
        "plain://no/variables",
        "file:///{path}",
        "x://items/{id}",
        "x://items/{id}.json",
        "x://{owner}/{repo}/blob/{+path}",
        "x://{a}-{b}",
        "x://{Var_09}",
        "x://files/{+rest}",
        "",
        NULL,
    };

    for (size_t i = 0; good[i] != NULL; i++) {
        const char *why = NULL;

        if (!CHECK_INT_EQ(uritemplate_check(good[i], &why), STATUS_OK))
            fprintf(stderr, "    template \"%s\": %s\n", good[i], why ? why : "");
    }
}

static void test_check_invalid(void)
{
    static const char *const bad[] = {
        "x://{",       "x://}",     "x://{id",   "x://id}",     "x://{}",     "x://{+}",
        "x://{a b}",   "x://{a-b}", "x://{a,b}", "x://{#frag}", "x://{?q}",   "x://{/seg}",
        "x://{.ext}",  "x://{;p}",  "x://{&q}",  "x://{{a}}",   "x://{a}{b}", "x://{a}{+b}",
        "x://{+a}{b}", "x://{é}",   NULL,
    };

    for (size_t i = 0; bad[i] != NULL; i++) {
        const char *why = NULL;

        if (!CHECK_INT_EQ(uritemplate_check(bad[i], &why), STATUS_INVALID))
            fprintf(stderr, "    template \"%s\"\n", bad[i]);
        else
            CHECK(why != NULL && why[0] != '\0');
    }
}

static void test_check_adjacent_reason(void)
{
    const char *why = NULL;

    CHECK_INT_EQ(uritemplate_check("x://{a}{b}", &why), STATUS_INVALID);
    CHECK_STR_HAS(why, "side by side");
}

/* Variable names up to 64 characters; at most LIMIT_ARGS variables. */
static void test_check_limits(void)
{
    char tpl[4096];
    char name[80];
    const char *why = NULL;
    size_t len = 0;

    memset(name, 'n', 64);
    name[64] = '\0';
    snprintf(tpl, sizeof(tpl), "x://{%s}", name);
    CHECK_INT_EQ(uritemplate_check(tpl, &why), STATUS_OK);
    memset(name, 'n', 65);
    name[65] = '\0';
    snprintf(tpl, sizeof(tpl), "x://{%s}", name);
    CHECK_INT_EQ(uritemplate_check(tpl, &why), STATUS_INVALID);

    len = (size_t)snprintf(tpl, sizeof(tpl), "x:");
    for (int i = 0; i < LIMIT_ARGS; i++)
        len += (size_t)snprintf(tpl + len, sizeof(tpl) - len, "/{v%d}", i);
    CHECK_INT_EQ(uritemplate_check(tpl, &why), STATUS_OK);
    snprintf(tpl + len, sizeof(tpl) - len, "/{v%d}", LIMIT_ARGS);
    CHECK_INT_EQ(uritemplate_check(tpl, &why), STATUS_INVALID);
}

/* The value of variable `name` in vars, or NULL. */
static const char *tpl_var(const cJSON *vars, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(vars, name);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void test_match_segment(void)
{
    cJSON *vars = NULL;

    if (CHECK_INT_EQ(uritemplate_match("x://items/{id}", "x://items/42", &vars), STATUS_OK)) {
        CHECK_STR_EQ(tpl_var(vars, "id"), "42");
        CHECK_INT_EQ(cJSON_GetArraySize(vars), 1);
    }
    cJSON_Delete(vars);
    vars = NULL;

    /* Percent-decoded. */
    if (CHECK_INT_EQ(uritemplate_match("x://items/{id}", "x://items/a%20b%2Ac", &vars), STATUS_OK))
        CHECK_STR_EQ(tpl_var(vars, "id"), "a b*c");
    cJSON_Delete(vars);
    vars = NULL;

    /* One segment: no '/', '?' or '#'. */
    CHECK_INT_EQ(uritemplate_match("x://items/{id}", "x://items/a/b", &vars), STATUS_NOT_FOUND);
    CHECK_INT_EQ(uritemplate_match("x://items/{id}", "x://items/a?b", &vars), STATUS_NOT_FOUND);
    CHECK_INT_EQ(uritemplate_match("x://items/{id}", "x://items/a#b", &vars), STATUS_NOT_FOUND);
    CHECK(vars == NULL);

    /* A literal after the variable. */
    if (CHECK_INT_EQ(uritemplate_match("x://items/{id}.json", "x://items/7.json", &vars),
                     STATUS_OK))
        CHECK_STR_EQ(tpl_var(vars, "id"), "7");
    cJSON_Delete(vars);
    vars = NULL;
    CHECK_INT_EQ(uritemplate_match("x://items/{id}.json", "x://items/7.txt", NULL),
                 STATUS_NOT_FOUND);
}

static void test_match_reserved(void)
{
    cJSON *vars = NULL;

    if (CHECK_INT_EQ(uritemplate_match("x://files/{+path}", "x://files/a/b/c.txt", &vars),
                     STATUS_OK))
        CHECK_STR_EQ(tpl_var(vars, "path"), "a/b/c.txt");
    cJSON_Delete(vars);
    vars = NULL;

    /* Kept as written: no decoding. */
    if (CHECK_INT_EQ(uritemplate_match("x://files/{+path}", "x://files/a%20b/c", &vars), STATUS_OK))
        CHECK_STR_EQ(tpl_var(vars, "path"), "a%20b/c");
    cJSON_Delete(vars);
    vars = NULL;

    /* Followed by a literal: takes what the literal leaves. */
    if (CHECK_INT_EQ(uritemplate_match("x://f/{+path}/meta", "x://f/a/b/meta", &vars), STATUS_OK))
        CHECK_STR_EQ(tpl_var(vars, "path"), "a/b");
    cJSON_Delete(vars);
    vars = NULL;
    CHECK_INT_EQ(uritemplate_match("x://f/{+path}/meta", "x://f/a/b/data", NULL), STATUS_NOT_FOUND);
}

static void test_match_several_vars(void)
{
    cJSON *vars = NULL;

    if (CHECK_INT_EQ(uritemplate_match("x://{owner}/{repo}/blob/{+path}",
                                       "x://me/mcph/blob/core/x.c", &vars),
                     STATUS_OK)) {
        CHECK_STR_EQ(tpl_var(vars, "owner"), "me");
        CHECK_STR_EQ(tpl_var(vars, "repo"), "mcph");
        CHECK_STR_EQ(tpl_var(vars, "path"), "core/x.c");
        CHECK_INT_EQ(cJSON_GetArraySize(vars), 3);
    }
    cJSON_Delete(vars);
    vars = NULL;

    if (CHECK_INT_EQ(uritemplate_match("x://{a}-{b}", "x://1-2", &vars), STATUS_OK)) {
        CHECK_STR_EQ(tpl_var(vars, "a"), "1");
        CHECK_STR_EQ(tpl_var(vars, "b"), "2");
    }
    cJSON_Delete(vars);
}

static void test_match_literal(void)
{
    cJSON *vars = NULL;

    CHECK_INT_EQ(uritemplate_match("plain://a/b", "plain://a/b", &vars), STATUS_OK);
    if (CHECK(vars != NULL))
        CHECK_INT_EQ(cJSON_GetArraySize(vars), 0);
    cJSON_Delete(vars);
    vars = NULL;
    CHECK_INT_EQ(uritemplate_match("plain://a/b", "plain://a/c", &vars), STATUS_NOT_FOUND);
    CHECK_INT_EQ(uritemplate_match("plain://a/b", "plain://a/b/", &vars), STATUS_NOT_FOUND);
    CHECK_INT_EQ(uritemplate_match("plain://a/b", "plain://a", &vars), STATUS_NOT_FOUND);
    CHECK_INT_EQ(uritemplate_match("x://items/{id}", "y://items/42", &vars), STATUS_NOT_FOUND);
    CHECK_INT_EQ(uritemplate_match("x://items/{id}", "x://item/42", &vars), STATUS_NOT_FOUND);
    CHECK_INT_EQ(uritemplate_match("x://items/{id}", "x://items", &vars), STATUS_NOT_FOUND);
    CHECK(vars == NULL);
    /* Without vars it only answers whether it matches. */
    CHECK_INT_EQ(uritemplate_match("x://items/{id}", "x://items/1", NULL), STATUS_OK);
}

static void test_match_bad_escape(void)
{
    static const char *const bad[] = {
        "x://items/%zz", "x://items/%2", "x://items/%", "x://items/a%g0", "x://items/%00", NULL,
    };
    cJSON *vars = NULL;

    for (size_t i = 0; bad[i] != NULL; i++) {
        if (!CHECK_INT_EQ(uritemplate_match("x://items/{id}", bad[i], &vars), STATUS_NOT_FOUND))
            fprintf(stderr, "    uri \"%s\"\n", bad[i]);
        CHECK(vars == NULL);
    }
    /* A bad escape in the second variable after a good first one. */
    CHECK_INT_EQ(uritemplate_match("x://{a}/{b}", "x://ok/%zz", &vars), STATUS_NOT_FOUND);
    CHECK(vars == NULL);
}

static void test_match_too_long(void)
{
    char *uri = malloc(LIMIT_URI + 16);

    if (!CHECK(uri != NULL))
        return;
    strcpy(uri, "x://files/");
    memset(uri + 10, 'a', LIMIT_URI);
    uri[LIMIT_URI + 10] = '\0';
    CHECK_INT_EQ(uritemplate_match("x://files/{+path}", uri, NULL), STATUS_NOT_FOUND);
    uri[LIMIT_URI] = '\0';
    CHECK_INT_EQ(uritemplate_match("x://files/{+path}", uri, NULL), STATUS_OK);
    free(uri);
}

/* Several {+var}s that the URI almost matches: every way of splitting it fails, and there
 * are too many to try one by one (six variables over 120 dashes: about 10^9). */
static void test_match_many_splits(void)
{
    char uri[160];
    cJSON *vars = NULL;

    strcpy(uri, "x://");
    memset(uri + 4, '-', 120);
    strcpy(uri + 124, "?");
    CHECK_INT_EQ(uritemplate_match("x://{+a}-{+b}-{+c}-{+d}-{+e}-{+f}!", uri, NULL),
                 STATUS_NOT_FOUND);
    /* The same template where the URI does match: the first variables take the most. */
    uri[124] = '!';
    if (CHECK_INT_EQ(uritemplate_match("x://{+a}-{+b}-{+c}-{+d}-{+e}-{+f}!", uri, &vars),
                     STATUS_OK)) {
        CHECK_INT_EQ(strlen(cJSON_GetStringValue(cJSON_GetObjectItem(vars, "a"))), 110);
        CHECK_STR_EQ(cJSON_GetStringValue(cJSON_GetObjectItem(vars, "f")), "-");
    }
    cJSON_Delete(vars);
}

static const struct check_test tests[] = {
    {"check_valid", test_check_valid},
    {"check_invalid", test_check_invalid},
    {"check_adjacent_reason", test_check_adjacent_reason},
    {"check_limits", test_check_limits},
    {"match_segment", test_match_segment},
    {"match_reserved", test_match_reserved},
    {"match_several_vars", test_match_several_vars},
    {"match_literal", test_match_literal},
    {"match_bad_escape", test_match_bad_escape},
    {"match_too_long", test_match_too_long},
    {"match_many_splits", test_match_many_splits},
    {0},
};

int main(void)
{
    return check_main("test_uritemplate", tests);
}
