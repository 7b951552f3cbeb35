/*
 * test_utf8.c: well-formed UTF-8 by RFC 3629, and the repair that keeps output UTF-8.
 */
#include "check.h"

#include "lib/utf8.h"

#include <stdlib.h>

static void test_valid(void)
{
    static const struct {
        const char *text;
        size_t len, valid;
    } cases[] = {
        {"", 0, 0},
        {"plain ASCII, longer than one word", 33, 33},
        {"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, 9},
        {"\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 18, 18},
        {"abcdefgh\xff", 9, 8},
        {"Hello, \xff\xfe", 9, 7},
        {"\xc0\xae", 2, 0},              /* overlong '.' */
        {"\xc1\xbf", 2, 0},              /* overlong */
        {"\xe0\x9f\xbf", 3, 0},          /* overlong */
        {"\xf0\x8f\xbf\xbf", 4, 0},      /* overlong */
        {"\xed\xa0\x80", 3, 0},          /* a surrogate */
        {"\xed\x9f\xbf", 3, 3},          /* U+D7FF, just below */
        {"\xf4\x90\x80\x80", 4, 0},      /* past U+10FFFF */
        {"\xf5\x80\x80\x80", 4, 0},      /* no such lead byte */
        {"a\xe2\x82", 3, 1},             /* cut short */
        {"\x80", 1, 0},                  /* a continuation byte alone */
        {"\xe2\x28\xa1", 3, 0},          /* a bad second byte */
        {"\xf0\x9f\x98\x28", 4, 0},      /* a bad fourth byte */
        {"12345678\xc3\xa9xyz", 13, 13}, /* after a whole word */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (!CHECK_INT_EQ(utf8_valid(cases[i].text, cases[i].len), cases[i].valid))
            fprintf(stderr, "    case %zu\n", i);
    }
}

static void test_repair(void)
{
    size_t len = 0;
    char *out = utf8_repair("Hello, \xff\xfe!", 10, &len);

    if (CHECK(out != NULL)) {
        CHECK_STR_EQ(out, "Hello, \xef\xbf\xbd\xef\xbf\xbd!");
        CHECK_INT_EQ(len, strlen(out));
        CHECK_INT_EQ(utf8_valid(out, len), len);
    }
    free(out);
    /* Good sequences stay, a cut one at the end goes. */
    out = utf8_repair("\xc3\xa9-\xe2\x82", 5, &len);
    if (CHECK(out != NULL))
        CHECK_STR_EQ(out, "\xc3\xa9-\xef\xbf\xbd\xef\xbf\xbd");
    free(out);
    out = utf8_repair("", 0, &len);
    if (CHECK(out != NULL))
        CHECK_INT_EQ(len, 0);
    free(out);
}

/* utf8_own keeps a good text as it is and replaces a bad one. */
static void test_own(void)
{
    char *good = strdup("caf\xc3\xa9"), *bad = strdup("caf\xe9");
    char *same = utf8_own(good), *fixed = utf8_own(bad);

    CHECK(same == good);
    if (CHECK(fixed != NULL))
        CHECK_STR_EQ(fixed, "caf\xef\xbf\xbd");
    CHECK(utf8_own(NULL) == NULL);
    free(same);
    free(fixed);
}

static const struct check_test tests[] = {
    {"valid", test_valid},
    {"repair", test_repair},
    {"own", test_own},
    {0},
};

int main(void)
{
    return check_main("test_utf8", tests);
}
