/* test_status.c: the status table: every code has its text, codes are distinct. */
#include "lib/status.h"

#include "check.h"

#include <string.h>

static const struct {
    int code;
    const char *text;
} status_expected[] = {
#define STATUS_EXPECTED(name, value, msg) {.code = name, .text = msg},
    STATUS_LIST(STATUS_EXPECTED)
#undef STATUS_EXPECTED
        {0},
};

static void test_known_codes(void)
{
    CHECK_STR_EQ(status_str(STATUS_OK), "success");
    CHECK_STR_EQ(status_str(STATUS_NOMEM), "out of memory");
    CHECK_STR_EQ(status_str(STATUS_EOF), "end of input");
    CHECK_STR_EQ(status_str(STATUS_AGAIN), "nothing yet");
    for (size_t i = 0; status_expected[i].text != NULL; i++)
        CHECK_STR_EQ(status_str(status_expected[i].code), status_expected[i].text);
}

static void test_codes_distinct_and_negative(void)
{
    CHECK_INT_EQ(STATUS_OK, 0);
    for (size_t i = 0; status_expected[i].text != NULL; i++) {
        if (status_expected[i].code != STATUS_OK)
            CHECK(status_expected[i].code < 0);
        for (size_t j = i + 1; status_expected[j].text != NULL; j++) {
            CHECK(status_expected[i].code != status_expected[j].code);
            CHECK(strcmp(status_expected[i].text, status_expected[j].text) != 0);
        }
    }
}

static void test_unknown_codes(void)
{
    CHECK_STR_EQ(status_str(1), "unknown status");
    CHECK_STR_EQ(status_str(-1000), "unknown status");
    CHECK_STR_EQ(status_str(STATUS_AGAIN - 1), "unknown status");
}

static const struct check_test tests[] = {
    {"known_codes", test_known_codes},
    {"codes_distinct_and_negative", test_codes_distinct_and_negative},
    {"unknown_codes", test_unknown_codes},
    {0},
};

int main(void)
{
    return check_main("test_status", tests);
}
