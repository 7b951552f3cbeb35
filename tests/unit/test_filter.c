/* test_filter.c: the per-section filters: which glob lists are accepted and why the others
 * are not, which names a list keeps, and the list of names a filter dropped. */
#include "config/filter.h"

#include "check.h"
#include "lib/limits.h"
#include "lib/status.h"

#include <stdlib.h>
#include <string.h>

static void test_check_valid(void)
{
    static const char *const good[] = {
        "*",
        "read_* list_* !*_write",
        "a?c",
        "[abc]x [!abc]y [a-z]* [a-]",
        "\\{x\\} \\[\\] \\]",
        "[\\]] [\\[] [!\\]]",
        "\\!x \\\\",
        "   spaced\t\tout   ",
        "!*",
        "file:///srv/* !file:///srv/private/*",
        "x\\*y x\\?y",
        "!!x",
        NULL,
    };

    for (size_t i = 0; good[i] != NULL; i++) {
        struct strbuf why = STRBUF_INIT;

        if (!CHECK_INT_EQ(filter_check(good[i], &why), STATUS_OK))
            fprintf(stderr, "    list \"%s\": %s\n", good[i], why.buf);
        CHECK_INT_EQ(why.len, 0);
        strbuf_release(&why);
    }
}

static void test_check_invalid(void)
{
    static const struct {
        const char *list;
        const char *why; /* a part of the reason */
    } bad[] = {
        {"", "holds no glob"},
        {" \t ", "holds no glob"},
        {"!", "a '!' alone excludes nothing"},
        {"a ! b", "a '!' alone excludes nothing"},
        {"read_{a,b}", "'{' in 'read_{a,b}' is not glob syntax"},
        {"ok x}", "'}' in 'x}' is not glob syntax"},
        {"!{x", "'{' in '!{x'"},
        {"[abc", "the set opened by '[' in '[abc' is not closed"},
        {"a[b\\]", "is not closed"},
        {"[]", "the set '[]' in '[]' holds no character"},
        {"x[!]y", "the set '[!]' in 'x[!]y' holds no character"},
        {"[]a]", "holds no character"},
        {"a\\", "'a\\' ends with '\\'"},
        {"ok !x\\", "'!x\\' ends with '\\'"},
        {"[^a]", "'[^' in '[^a]'"},
        {"[[:alpha:]]", "'[' inside a set in '[[:alpha:]]'"},
        {"[a[b]", "'[' inside a set"},
        {"a]", "']' in 'a]' closes no set"},
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct strbuf why = STRBUF_INIT;

        if (!CHECK_INT_EQ(filter_check(bad[i].list, &why), STATUS_INVALID) ||
            !CHECK(why.len > 0 && strstr(why.buf, bad[i].why) != NULL))
            fprintf(stderr, "    list \"%s\": got \"%s\", want \"...%s...\"\n", bad[i].list,
                    why.buf, bad[i].why);
        strbuf_release(&why);
    }
}

static void test_check_length(void)
{
    char list[LIMIT_INI_LINE + 2];
    struct strbuf why = STRBUF_INIT;

    memset(list, 'a', sizeof(list) - 1);
    list[sizeof(list) - 1] = '\0';
    CHECK_INT_EQ(filter_check(list, &why), STATUS_INVALID);
    CHECK(why.len > 0 && strstr(why.buf, "longer than") != NULL);
    strbuf_release(&why);
    list[LIMIT_INI_LINE] = '\0';
    CHECK_INT_EQ(filter_check(list, &why), STATUS_OK);
    CHECK_INT_EQ(filter_keeps(list, list), 1);
    CHECK_INT_EQ(filter_keeps(list, "a"), 0);
    strbuf_release(&why);
}

static void test_keeps(void)
{
    static const struct {
        const char *list, *name;
        int kept;
    } cases[] = {
        {"read_* list_*", "read_file", 1},
        {"read_* list_*", "list_directory", 1},
        {"read_* list_*", "write_file", 0},
        {"read_* !*_write", "read_all", 1},
        {"read_* !*_write", "read_write", 0},
        {"read_* !*_write", "other", 0},
        {"!*_write", "read", 1},
        {"!*_write", "a_write", 0},
        {"!a !b", "c", 1},
        {"!a !b", "b", 0},
        {"!*", "anything", 0},
        {"*", "anything", 1},
        {"a?c", "abc", 1},
        {"a?c", "ac", 0},
        {"a?c", "abbc", 0},
        {"[abc]x", "bx", 1},
        {"[abc]x", "dx", 0},
        {"[!abc]x", "dx", 1},
        {"[!abc]x", "ax", 0},
        {"[a-c]", "b", 1},
        {"[a-c]", "d", 0},
        {"\\*", "*", 1},
        {"\\*", "a", 0},
        {"x\\?", "x?", 1},
        {"x\\?", "xy", 0},
        {"[\\]]", "]", 1},
        {"[\\[]", "[", 1},
        {"[\\[]", "a", 0},
        {"\\!x", "!x", 1},
        {"\\!x", "x", 0},
        {"!!x", "!x", 0},
        {"!!x", "x", 1},
        {"echo", "echo", 1},
        {"echo", "echo2", 0},
        {"a\tb", "b", 1},
        {"  b  ", "b", 1},
        {"file:///srv/*", "file:///srv/a/b.txt", 1},
        {"file:///srv/*", "file:///etc/passwd", 0},
        {"example://greeting/*", "example://greeting/{name}", 1},
        {"example://* !example://note", "example://note", 0},
        {"example://* !example://note", "example://notes", 1},
    };

    CHECK_INT_EQ(filter_keeps(NULL, "x"), 1);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct strbuf why = STRBUF_INIT;

        CHECK_INT_EQ(filter_check(cases[i].list, &why), STATUS_OK);
        if (!CHECK_INT_EQ(filter_keeps(cases[i].list, cases[i].name), cases[i].kept))
            fprintf(stderr, "    list \"%s\", name \"%s\"\n", cases[i].list, cases[i].name);
        strbuf_release(&why);
    }
}

static void test_key_names(void)
{
    CHECK_STR_EQ(filter_key_names[FILTER_TOOLS], "tools");
    CHECK_STR_EQ(filter_key_names[FILTER_RESOURCES], "resources");
    CHECK_STR_EQ(filter_key_names[FILTER_PROMPTS], "prompts");
}

static void test_names(void)
{
    struct filter_names l;
    char name[32];

    filter_names_init(&l);
    CHECK_INT_EQ(filter_names_add(&l, "a"), STATUS_OK);
    CHECK_INT_EQ(filter_names_add(&l, "b"), STATUS_OK);
    if (CHECK_INT_EQ(l.n, 2)) {
        CHECK_STR_EQ(l.names[0], "a");
        CHECK_STR_EQ(l.names[1], "b");
    }
    CHECK_INT_EQ(l.total, 2);
    filter_names_release(&l);
    CHECK(l.names == NULL && l.n == 0 && l.total == 0);
    /* Past LIMIT_ROWS only the count grows. */
    for (int i = 0; i < LIMIT_ROWS + 3; i++) {
        snprintf(name, sizeof(name), "n%d", i);
        if (!CHECK_INT_EQ(filter_names_add(&l, name), STATUS_OK))
            break;
    }
    CHECK_INT_EQ(l.n, LIMIT_ROWS);
    CHECK_INT_EQ(l.total, LIMIT_ROWS + 3);
    if (l.n == LIMIT_ROWS)
        CHECK_STR_EQ(l.names[LIMIT_ROWS - 1], "n4095");
    filter_names_release(&l);
    filter_names_release(NULL);
}

static const struct check_test tests[] = {
    {"check_valid", test_check_valid},
    {"check_invalid", test_check_invalid},
    {"check_length", test_check_length},
    {"keeps", test_keeps},
    {"key_names", test_key_names},
    {"names", test_names},
    {0},
};

int main(void)
{
    return check_main("test_filter", tests);
}
