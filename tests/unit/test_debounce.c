/* test_debounce.c: many events, one action: due after the quiet time, at the latest after
 * the cap, and once. */
#include "lib/debounce.h"

#include "check.h"

#include <time.h>

static void test_sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

static void test_idle(void)
{
    struct debounce d;

    debounce_init(&d, 50, 0);
    CHECK_INT_EQ(debounce_timeout_ms(&d), -1);
    CHECK_INT_EQ(debounce_due(&d), 0);
}

static void test_quiet(void)
{
    struct debounce d;
    int t;

    debounce_init(&d, 60, 0);
    debounce_note(&d);
    t = debounce_timeout_ms(&d);
    CHECK(t > 30 && t <= 60);
    CHECK_INT_EQ(debounce_due(&d), 0);
    test_sleep_ms(70);
    CHECK_INT_EQ(debounce_timeout_ms(&d), 0);
    CHECK_INT_EQ(debounce_due(&d), 1);
    /* Once: the action was taken. */
    CHECK_INT_EQ(debounce_due(&d), 0);
    CHECK_INT_EQ(debounce_timeout_ms(&d), -1);
}

/* Events every 20 ms keep a 60 ms quiet time from running out; the 100 ms cap does not. */
static void test_cap(void)
{
    struct debounce d;
    int due_at = -1;

    debounce_init(&d, 60, 100);
    for (int i = 0; i < 15 && due_at < 0; i++) {
        debounce_note(&d);
        test_sleep_ms(20);
        if (debounce_due(&d))
            due_at = i;
    }
    CHECK(due_at >= 3 && due_at <= 6);
}

static void test_earlier(void)
{
    CHECK_INT_EQ(debounce_earlier(-1, -1), -1);
    CHECK_INT_EQ(debounce_earlier(-1, 5), 5);
    CHECK_INT_EQ(debounce_earlier(7, -1), 7);
    CHECK_INT_EQ(debounce_earlier(7, 5), 5);
    CHECK_INT_EQ(debounce_earlier(0, 5), 0);
}

static const struct check_test tests[] = {
    {"idle", test_idle}, {"quiet", test_quiet}, {"cap", test_cap}, {"earlier", test_earlier}, {0},
};

int main(void)
{
    return check_main("test_debounce", tests);
}
