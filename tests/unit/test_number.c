/* test_number.c: numbers that cJSON alone prints inexactly keep every digit; numbers it
 * prints right stay numbers; the tree walk reaches every depth; number_print leaves its
 * input alone. */
#include "lib/number.h"

#include "check.h"
#include "lib/status.h"

#include <stdlib.h>
#include <string.h>

/* Parse `in`, make it exact, print it. Owned by the caller. */
static char *num_roundtrip(const char *in)
{
    cJSON *tree = cJSON_Parse(in);
    char *out = NULL;

    if (tree != NULL && number_exact(tree) == STATUS_OK)
        out = cJSON_PrintUnformatted(tree);
    cJSON_Delete(tree);
    return out;
}

static const struct {
    const char *in, *out;
} num_cases[] = {
    /* cJSON alone prints 0.3, 1.23456789012346e+15 and 9.00719925474099e+15 for these. */
    {"[0.30000000000000004]", "[0.30000000000000004]"},
    {"[1234567890123457]", "[1234567890123457]"},
    {"[9007199254740993]", "[9007199254740992]"}, /* the nearest double, exactly */
    {"[0.1,2.5,3,-7,1e300]", "[0.1,2.5,3,-7,1e+300]"},
    {"{\"a\":{\"b\":[[0.1],{\"c\":0.30000000000000004}]}}",
     "{\"a\":{\"b\":[[0.1],{\"c\":0.30000000000000004}]}}"},
    {"[123456789.12345679]", "[123456789.12345679]"},
    {"[\"0.30000000000000004\",true,null]", "[\"0.30000000000000004\",true,null]"},
    {0},
};

static void test_exact(void)
{
    for (size_t i = 0; num_cases[i].in != NULL; i++) {
        char *out = num_roundtrip(num_cases[i].in);

        CHECK_STR_EQ(out, num_cases[i].out);
        free(out);
    }
}

/* What cJSON prints right stays a number (schema checks after it still see numbers). */
static void test_exact_numbers_stay(void)
{
    cJSON *tree = cJSON_Parse("{\"n\":0.5,\"m\":0.30000000000000004}");

    if (!CHECK(tree != NULL))
        return;
    CHECK_INT_EQ(number_exact(tree), STATUS_OK);
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(tree, "n")));
    CHECK(cJSON_IsRaw(cJSON_GetObjectItem(tree, "m")));
    CHECK_INT_EQ(number_exact(NULL), STATUS_OK);
    cJSON_Delete(tree);
}

static void test_print_leaves_input(void)
{
    cJSON *tree = cJSON_Parse("{\"sum\":0.30000000000000004,\"n\":1}");
    char *text;

    if (!CHECK(tree != NULL))
        return;
    text = number_print(tree);
    CHECK_STR_EQ(text, "{\"sum\":0.30000000000000004,\"n\":1}");
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(tree, "sum")));
    free(text);
    text = number_print(cJSON_GetObjectItem(tree, "n"));
    CHECK_STR_EQ(text, "1");
    free(text);
    cJSON_Delete(tree);
}

static const struct check_test tests[] = {
    {"exact", test_exact},
    {"exact_numbers_stay", test_exact_numbers_stay},
    {"print_leaves_input", test_print_leaves_input},
    {0},
};

int main(void)
{
    return check_main("test_number", tests);
}
