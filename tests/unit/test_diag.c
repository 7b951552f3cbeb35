/* test_diag.c: the message list: formatting, order, growth, moving, release. */
#include "lib/diag.h"

#include "check.h"

#include <stdlib.h>
#include <string.h>

static void test_init(void)
{
    struct diag d;

    memset(&d, 0x5a, sizeof(d));
    diag_init(&d);
    CHECK(d.msgs == NULL);
    CHECK_INT_EQ(d.count, 0);
    CHECK_INT_EQ(d.cap, 0);
    CHECK_INT_EQ(d.nomem, 0);
    diag_release(&d);
    diag_release(NULL);
}

static void test_add_formats(void)
{
    struct diag d;

    diag_init(&d);
    diag_add(&d, "%s:%d: %s", "conf/mcph.ini", 12, "unknown key 'x'");
    diag_add(&d, "plain");
    if (CHECK_INT_EQ(d.count, 2)) {
        CHECK_STR_EQ(d.msgs[0], "conf/mcph.ini:12: unknown key 'x'");
        CHECK_STR_EQ(d.msgs[1], "plain");
    }
    CHECK_INT_EQ(d.nomem, 0);
    diag_release(&d);
    CHECK_INT_EQ(d.count, 0);
    CHECK(d.msgs == NULL);
}

/* Many messages keep their order through the array's growth. */
static void test_growth_and_order(void)
{
    struct diag d;
    int in_order = 1;

    diag_init(&d);
    for (int i = 0; i < 1000; i++)
        diag_add(&d, "message %d", i);
    CHECK_INT_EQ(d.count, 1000);
    CHECK(d.cap >= d.count);
    for (int i = 0; i < 1000 && (size_t)i < d.count; i++) {
        char want[32];

        snprintf(want, sizeof(want), "message %d", i);
        in_order &= strcmp(d.msgs[i], want) == 0;
    }
    CHECK(in_order);
    diag_release(&d);
}

static void test_long_message(void)
{
    struct diag d;
    char *big = malloc(20001);

    if (!CHECK(big != NULL))
        return;
    memset(big, 'x', 20000);
    big[20000] = '\0';
    diag_init(&d);
    diag_add(&d, "<%s>", big);
    if (CHECK_INT_EQ(d.count, 1)) {
        CHECK_INT_EQ(strlen(d.msgs[0]), 20002);
        CHECK(d.msgs[0][0] == '<' && d.msgs[0][20001] == '>');
    }
    diag_release(&d);
    free(big);
}

/* "WHERE: message", the form config and load errors share; no WHERE, the message alone. */
static void test_add_at(void)
{
    struct diag d;

    diag_init(&d);
    diag_add_at(&d, "conf/mcph.ini", 7, "unknown key '%s' in [server]", "wokers");
    diag_add_at(&d, "plugin 'ex' (ex.so)", 0, "init failed (status %d)", -3);
    diag_add_at(&d, NULL, 3, "%d%%", 50);
    CHECK_INT_EQ(d.count, 3);
    if (d.count == 3) {
        CHECK_STR_EQ(d.msgs[0], "conf/mcph.ini:7: unknown key 'wokers' in [server]");
        CHECK_STR_EQ(d.msgs[1], "plugin 'ex' (ex.so): init failed (status -3)");
        CHECK_STR_EQ(d.msgs[2], "50%");
    }
    CHECK_INT_EQ(d.nomem, 0);
    diag_release(&d);
}

static const struct check_test tests[] = {
    {"init", test_init},
    {"add_formats", test_add_formats},
    {"growth_and_order", test_growth_and_order},
    {"long_message", test_long_message},
    {"add_at", test_add_at},
    {0},
};

int main(void)
{
    return check_main("test_diag", tests);
}
