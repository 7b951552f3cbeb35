/* test_plugin_json.c: the header-only cost estimate and member look-up (plugin-api/mcph-json.h),
 * compiled on its own as a plugin would: the values counted against cJSON's own tree (never
 * fewer), the estimate against what cJSON really allocates (counted through its hooks, in this
 * test process only), strings whose commas, brackets, escaped quotes and runs of backslashes
 * must not count, the limit with and without a scan, and members found (or not) at the top
 * level only, in texts cut short, escaped, nested or not objects at all. */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "../../plugin-api/mcph-json.h"
#include "check.h"

/* Bytes cJSON allocated (usable size and malloc's header of each block), while counting. */
static size_t test_allocated;

static void *test_malloc(size_t size)
{
    void *p = malloc(size);

    if (p != NULL)
        test_allocated += malloc_usable_size(p) + 8;
    return p;
}

static size_t test_nodes(const cJSON *v)
{
    size_t n = 1;

    for (const cJSON *c = v->child; c != NULL; c = c->next)
        n += test_nodes(c);
    return n;
}

/* Whether blocks are sized as glibc's malloc sizes them (a sanitizer's allocator gives each
 * block exactly what was asked, which the estimate overstates more). */
static int test_glibc_sizes(void)
{
    void *p = malloc(1);
    size_t usable = p != NULL ? malloc_usable_size(p) : 0;

    free(p);
    return usable == 24;
}

/* The estimate of text: never fewer values than cJSON's tree has, and a cost between what
 * cJSON allocates and `over` times that (empty arrays and objects count twice). */
static void test_against_cjson(const char *text, size_t over)
{
    cJSON_Hooks hooks = {.malloc_fn = test_malloc, .free_fn = free};
    size_t values, cost, real;
    cJSON *tree;

    cJSON_InitHooks(&hooks);
    test_allocated = 0;
    tree = cJSON_Parse(text);
    real = test_allocated;
    cJSON_InitHooks(NULL);
    if (!CHECK(tree != NULL))
        return;
    cost = mcph_json_cost(text, strlen(text), &values);
    CHECK_INT_EQ(values >= test_nodes(tree), 1);
    if (!test_glibc_sizes())
        over = 4;
    if (!CHECK(cost >= real && cost <= over * real))
        fprintf(stderr, "  %.60s: estimate %zu, cJSON allocated %zu\n", text, cost, real);
    cJSON_Delete(tree);
}

static char *test_repeat(const char *head, const char *item, size_t n, const char *tail)
{
    size_t hl = strlen(head), il = strlen(item), tl = strlen(tail);
    char *s = malloc(hl + il * n + tl + 1);
    char *p = s;

    memcpy(p, head, hl);
    p += hl;
    for (size_t i = 0; i < n; i++, p += il)
        memcpy(p, item, il);
    memcpy(p, tail, tl + 1);
    return s;
}

static void test_cost_counts_values(void)
{
    size_t values;

    mcph_json_cost("0", 1, &values);
    CHECK_INT_EQ(values, 1);
    mcph_json_cost("[0,0,0]", 7, &values);
    CHECK_INT_EQ(values, 4);
    CHECK_INT_EQ(mcph_json_cost("[0,0,0]", 7, NULL), 7 + 4 * MCPH_JSON_VALUE_COST);
    mcph_json_cost("{\"a\":[1,{\"b\":2}],\"c\":null}", 26, &values);
    CHECK_INT_EQ(values, 6);
}

static void test_cost_skips_strings(void)
{
    static const struct {
        const char *text;
        size_t values;
    } cases[] = {
        {"[\"a,b[{c\"]", 2},
        {"[\"a\\\",\",1]", 3},           /* an escaped quote does not end the string */
        {"[\"a\\\\\",1]", 3},            /* two backslashes: the quote ends it */
        {"[\"a\\\\\\\",[\",1]", 3},      /* three: it does not */
        {"[\"\",\"\",\"\"]", 4},         /* empty strings */
        {"[\"\\\\\\\\\\\\\\\\\",0]", 3}, /* a run of eight */
        {"[\"no end,,,,", 2},            /* cut short: the rest is one string */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t values;

        mcph_json_cost(cases[i].text, strlen(cases[i].text), &values);
        if (!CHECK_INT_EQ(values, cases[i].values))
            fprintf(stderr, "  text %s\n", cases[i].text);
    }
}

static void test_cost_against_cjson(void)
{
    static const char *const texts[] = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
        "\"arguments\":{\"text\":\"hi\"}}}",
        "{\"a\":\"\",\"b\":\"\",\"c\":\"x\"}",
    };
    char *zeros = test_repeat("[", "0,", 100000, "0]");
    char *strings = test_repeat("[", "\"\",", 100000, "\"\"]");
    char *members = test_repeat("{", "\"k\":0,", 50000, "\"z\":0}");
    char *nested =
        test_repeat("", "[", 60, "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]");

    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        test_against_cjson(texts[i], 2);
    test_against_cjson("[[],[],{},{\"a\":[]}]", 3);
    test_against_cjson(nested, 2);
    test_against_cjson(zeros, 2);
    test_against_cjson(strings, 2);
    test_against_cjson(members, 2);
    free(zeros);
    free(strings);
    free(members);
    free(nested);
}

static void test_over(void)
{
    char *zeros = test_repeat("[", "0,", 1000000, "0]");
    size_t len = strlen(zeros), values = 99, cost = 0;

    /* Short: not scanned, and under whatever it holds. */
    CHECK_INT_EQ(mcph_json_over("[0,0]", 5, MCPH_JSON_COST_MAX, &values, &cost), 0);
    CHECK_INT_EQ(values, 0);
    CHECK_INT_EQ(cost, 5 + 6 * MCPH_JSON_VALUE_COST);
    /* A million values: over the default limit, counted. */
    CHECK_INT_EQ(mcph_json_over(zeros, len, MCPH_JSON_COST_MAX, &values, &cost), 1);
    CHECK_INT_EQ(values, 1000002);
    CHECK_INT_EQ(cost, len + 1000002 * (size_t)MCPH_JSON_VALUE_COST);
    /* The same text as one string: a few values, under. */
    zeros[0] = '"';
    zeros[len - 1] = '"';
    CHECK_INT_EQ(mcph_json_over(zeros, len, MCPH_JSON_COST_MAX, &values, NULL), 0);
    CHECK_INT_EQ(values, 1);
    /* A small limit: scanned as soon as it could be over it. */
    CHECK_INT_EQ(mcph_json_over("[0,0,0,0,0,0,0,0,0,0]", 21, 1000, &values, NULL), 1);
    CHECK_INT_EQ(values, 11);
    CHECK_INT_EQ(mcph_json_over("[0,0,0,0,0,0,0,0,0,0]", 21, 2000, NULL, NULL), 0);
    free(zeros);
}

/* member key of text: its value's text, or NULL when not found. */
static int test_member_is(const char *text, const char *key, const char *want)
{
    const char *value = NULL;
    size_t n = 0;
    int found = mcph_json_member(text, strlen(text), key, &value, &n);

    if (want == NULL)
        return CHECK_INT_EQ(found, 0);
    if (!CHECK_INT_EQ(found, 1))
        return 0;
    if (!CHECK(n == strlen(want) && memcmp(value, want, n) == 0))
        fprintf(stderr, "  %s in %s: got %.*s, wanted %s\n", key, text, (int)n, value, want);
    return 1;
}

static void test_member(void)
{
    const char *reply = "{\"jsonrpc\":\"2.0\",\"id\":42,\"result\":{\"id\":7,\"v\":[1,\"]}\",{}]}}";

    test_member_is(reply, "id", "42");
    test_member_is(reply, "jsonrpc", "\"2.0\"");
    test_member_is(reply, "result", "{\"id\":7,\"v\":[1,\"]}\",{}]}");
    test_member_is(reply, "method", NULL);
    test_member_is(reply, "v", NULL); /* nested members are not the object's */
    test_member_is(" { \"a\" : 1 , \"id\" :\t\"x\\\"y\" }\r\n", "id", "\"x\\\"y\"");
    test_member_is("{\"id\":1,\"id\":2}", "id", "1"); /* the first, as cJSON finds it */
    test_member_is("{\"i\\u0064\":1}", "id", NULL);   /* spelled with an escape: not found */
    test_member_is("{\"idx\":1,\"i\":2}", "id", NULL);
    test_member_is("{\"\":1,\"id\":null}", "id", "null");
    test_member_is("{\"a\":\"\\\\\",\"id\":true}", "id", "true");
    test_member_is("{\"a\":[[[[\"]]]]\"]]]],\"id\":-1.5e3}", "id", "-1.5e3");
    /* Not an object, empty, cut short, or broken before the member. */
    test_member_is("[{\"id\":1}]", "id", NULL);
    test_member_is("{}", "id", NULL);
    test_member_is("", "id", NULL);
    test_member_is("{\"id\":3", "id", "3");
    test_member_is("{\"a\":1 \"id\":3}", "id", NULL);
    test_member_is("{\"a\":[1,2,\"id\":3}", "id", NULL);
    test_member_is("{\"id\":", "id", NULL);
    test_member_is("{\"id", "id", NULL);
    test_member_is("{id:1}", "id", NULL);
}

static void test_trim(void)
{
    /* Nothing to see but that it runs: below the threshold it does nothing, above it trims. */
    mcph_json_trim(0);
    mcph_json_trim(MCPH_JSON_TRIM_COST);
    CHECK(1);
}

static const struct check_test tests[] = {
    {"cost_counts_values", test_cost_counts_values},
    {"cost_skips_strings", test_cost_skips_strings},
    {"cost_against_cjson", test_cost_against_cjson},
    {"over", test_over},
    {"member", test_member},
    {"trim", test_trim},
    {0},
};

int main(void)
{
    return check_main("test_plugin_json", tests);
}
