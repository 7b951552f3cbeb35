/* test_status.c: the status table: every code has its text, codes are distinct; the ABI's
 * codes (MCPH_*) convert to and from the core's in one place. */
#include "lib/status.h"

#include "check.h"
#include "plugin-api.h"

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

/* Each code with an ABI peer goes there and back; any other becomes the ABI's generic error
 * one way and a plugin's refusal the other. */
static void test_mcph(void)
{
    static const struct {
        int status, mcph;
    } pairs[] = {
        {STATUS_OK, MCPH_OK},
        {STATUS_NOMEM, MCPH_ERR_NOMEM},
        {STATUS_INVALID, MCPH_ERR_INVALID},
        {STATUS_LIMIT, MCPH_ERR_LIMIT},
        {STATUS_NOT_FOUND, MCPH_ERR_NOT_FOUND},
        {STATUS_AGAIN, MCPH_ERR_AGAIN},
    };

    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        CHECK_INT_EQ(status_to_mcph(pairs[i].status), pairs[i].mcph);
        CHECK_INT_EQ(status_from_mcph(pairs[i].mcph), pairs[i].status);
    }
    CHECK_INT_EQ(status_to_mcph(STATUS_IO), MCPH_ERR);
    CHECK_INT_EQ(status_to_mcph(STATUS_EOF), MCPH_ERR);
    CHECK_INT_EQ(status_to_mcph(-1000), MCPH_ERR);
    CHECK_INT_EQ(status_from_mcph(MCPH_ERR), STATUS_PLUGIN);
    CHECK_INT_EQ(status_from_mcph(MCPH_ERR_TIMEOUT), STATUS_PLUGIN);
    CHECK_INT_EQ(status_from_mcph(MCPH_ERR_UNSUPPORTED), STATUS_PLUGIN);
}

static const struct check_test tests[] = {
    {"known_codes", test_known_codes},
    {"codes_distinct_and_negative", test_codes_distinct_and_negative},
    {"unknown_codes", test_unknown_codes},
    {"mcph", test_mcph},
    {0},
};

int main(void)
{
    return check_main("test_status", tests);
}
