/*
 * check.h: the unit-test harness, header only. A test file defines static void functions,
 * lists them in a table ended by {0}, and returns check_main() from main():
 *
 *     static void test_round_trip(void) { CHECK_INT_EQ(f(2), 4); }
 *     static const struct check_test tests[] = {{"round_trip", test_round_trip}, {0}};
 *     int main(void) { return check_main("test_x", tests); }
 *
 * A failed check prints FILE:LINE, the test and the expression (with both values for the
 * _EQ forms) to stderr and the test goes on. At the end one line goes to stdout,
 * "test_x: N passed, N failed" (counting checks), and the exit status is 1 if any failed.
 * Each check is an expression worth 1 when it passed, so a test can stop early:
 *     if (!CHECK(p != NULL)) return;
 * Tests run from the repository root; check_tmp() gives a scratch folder under build/.
 */
#ifndef MCPH_TEST_CHECK_H
#define MCPH_TEST_CHECK_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

struct check_test {
    const char *name;
    void (*fn)(void);
};

struct check_state {
    int passed;
    int failed;
    const char *test; /* the test running now */
};

static inline struct check_state *check_state(void)
{
    static struct check_state state;

    return &state;
}

static inline int check_result(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline int check_result(int ok, const char *file, int line, const char *fmt, ...)
{
    struct check_state *st = check_state();
    va_list ap;

    if (ok) {
        st->passed++;
        return 1;
    }
    st->failed++;
    fprintf(stderr, "%s:%d: %s: check failed: ", file, line, st->test ? st->test : "?");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 0;
}

static inline int check_int_eq(long long a, long long b, const char *ea, const char *eb,
                               const char *file, int line)
{
    return check_result(a == b, file, line, "%s == %s (%lld vs %lld)", ea, eb, a, b);
}

static inline int check_str_eq(const char *a, const char *b, const char *ea, const char *eb,
                               const char *file, int line)
{
    int ok = (a == NULL || b == NULL) ? a == b : strcmp(a, b) == 0;

    return check_result(ok, file, line, "%s == %s (\"%s\" vs \"%s\")", ea, eb, a ? a : "(null)",
                        b ? b : "(null)");
}

static inline int check_str_has(const char *s, const char *part, const char *es, const char *file,
                                int line)
{
    int ok = s != NULL && part != NULL && strstr(s, part) != NULL;

    return check_result(ok, file, line, "%s contains \"%s\" (it is \"%s\")", es,
                        part ? part : "(null)", s ? s : "(null)");
}

#define CHECK(cond) check_result(!!(cond), __FILE__, __LINE__, "%s", #cond)
#define CHECK_INT_EQ(a, b) check_int_eq((long long)(a), (long long)(b), #a, #b, __FILE__, __LINE__)
#define CHECK_STR_EQ(a, b) check_str_eq((a), (b), #a, #b, __FILE__, __LINE__)
/* s contains part. */
#define CHECK_STR_HAS(s, part) check_str_has((s), (part), #s, __FILE__, __LINE__)

/* Run one test function under a name (used in failure messages). */
static inline void check_run(const char *name, void (*fn)(void))
{
    check_state()->test = name;
    fn();
    check_state()->test = NULL;
}

/* Run every test of the table (ended by {0}), print the summary line, return the exit
 * status for main(). */
static inline int check_main(const char *module, const struct check_test *tests)
{
    struct check_state *st = check_state();

    for (size_t i = 0; tests[i].name != NULL; i++)
        check_run(tests[i].name, tests[i].fn);
    printf("%s: %d passed, %d failed\n", module, st->passed, st->failed);
    fflush(stdout);
    return st->failed > 0;
}

/* "build/tests/tmp/SUB" (created with mode 0755 and its parents, forced to 0755 so the
 * plugin loader's folder checks pass), in buf. Returns buf, or NULL when it cannot be made. */
static inline const char *check_tmp(char *buf, size_t size, const char *sub)
{
    static const char *const parents[] = {"build", "build/tests", "build/tests/tmp", NULL};

    for (size_t i = 0; parents[i] != NULL; i++) {
        if (mkdir(parents[i], 0755) != 0 && errno != EEXIST)
            return NULL;
    }
    if (chmod("build/tests/tmp", 0755) != 0)
        return NULL;
    if (snprintf(buf, size, "build/tests/tmp/%s", sub) >= (int)size)
        return NULL;
    if ((mkdir(buf, 0755) != 0 && errno != EEXIST) || chmod(buf, 0755) != 0)
        return NULL;
    return buf;
}

#endif
