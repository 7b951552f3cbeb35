/* test_plugin_value.c: plugin-api/mcph-value.h, the yes/no and whole-number values that the
 * core and the plugins read alike. */
#include "mcph-value.h"

#include "check.h"

#include <limits.h>

static void test_bool(void)
{
    static const char *const yes[] = {"yes", "YES", "true", "True", "on", "1"};
    static const char *const no[] = {"no", "No", "false", "FALSE", "off", "0"};
    static const char *const bad[] = {"", "y", "n", "2", "yes ", " no", "enabled", "-1"};
    int v;

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        v = -1;
        CHECK_INT_EQ(mcph_value_bool(yes[i], &v), MCPH_OK);
        CHECK_INT_EQ(v, 1);
        v = -1;
        CHECK_INT_EQ(mcph_value_bool(no[i], &v), MCPH_OK);
        CHECK_INT_EQ(v, 0);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = 7;
        CHECK_INT_EQ(mcph_value_bool(bad[i], &v), MCPH_ERR_INVALID);
        CHECK_INT_EQ(v, 7);
    }
    CHECK_INT_EQ(mcph_value_bool(NULL, &v), MCPH_ERR_INVALID);
}

static void test_int(void)
{
    static const char *const bad[] = {"", " 5", "5 ", "5s", "0x10", "1e3", "abc", "-", "+"};
    long long n = 0;

    CHECK_INT_EQ(mcph_value_int("42", 0, 100, &n), MCPH_OK);
    CHECK_INT_EQ(n, 42);
    CHECK_INT_EQ(mcph_value_int("-3", -5, 5, &n), MCPH_OK);
    CHECK_INT_EQ(n, -3);
    CHECK_INT_EQ(mcph_value_int("+7", 0, 10, &n), MCPH_OK);
    CHECK_INT_EQ(n, 7);
    CHECK_INT_EQ(mcph_value_int("0", 0, 0, &n), MCPH_OK);
    CHECK_INT_EQ(mcph_value_int("101", 0, 100, &n), MCPH_ERR_INVALID);
    CHECK_INT_EQ(mcph_value_int("-1", 0, 100, &n), MCPH_ERR_INVALID);
    CHECK_INT_EQ(mcph_value_int("99999999999999999999", 0, LLONG_MAX, &n), MCPH_ERR_INVALID);
    CHECK_INT_EQ(mcph_value_int("9223372036854775807", 0, LLONG_MAX, &n), MCPH_OK);
    CHECK(n == LLONG_MAX);
    n = 11;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_INT_EQ(mcph_value_int(bad[i], LLONG_MIN, LLONG_MAX, &n), MCPH_ERR_INVALID);
    CHECK_INT_EQ(n, 11);
    CHECK_INT_EQ(mcph_value_int(NULL, 0, 1, &n), MCPH_ERR_INVALID);
}

static const struct check_test tests[] = {
    {"bool", test_bool},
    {"int", test_int},
    {0},
};

int main(void)
{
    return check_main("test_plugin_value", tests);
}
