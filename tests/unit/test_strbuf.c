/* test_strbuf.c: the growable buffer: always NUL-terminated, grows across many adds,
 * formatted adds of any length, reset keeps the room, detach hands the bytes over, and
 * out of memory is sticky until a reset. */
#include "lib/strbuf.h"

#include "check.h"
#include "lib/status.h"

#include <stdlib.h>
#include <string.h>

static void test_empty(void)
{
    struct strbuf sb = STRBUF_INIT;
    char *s;

    CHECK_STR_EQ(sb.buf, "");
    CHECK_INT_EQ(sb.len, 0);
    strbuf_release(&sb);
    CHECK_STR_EQ(sb.buf, "");
    s = strbuf_detach(&sb, NULL);
    if (CHECK(s != NULL))
        CHECK_STR_EQ(s, "");
    free(s);
    strbuf_release(NULL);
}

static void test_adds(void)
{
    struct strbuf sb = STRBUF_INIT;
    size_t len = 0;
    char *s;

    CHECK_INT_EQ(strbuf_addstr(&sb, "{\"id\":"), STATUS_OK);
    CHECK_INT_EQ(strbuf_addf(&sb, "%d", 42), STATUS_OK);
    CHECK_INT_EQ(strbuf_addch(&sb, '}'), STATUS_OK);
    CHECK_INT_EQ(strbuf_add(&sb, "xyz", 1), STATUS_OK);
    CHECK_STR_EQ(sb.buf, "{\"id\":42}x");
    CHECK_INT_EQ(sb.len, 10);
    strbuf_reset(&sb);
    CHECK_STR_EQ(sb.buf, "");
    CHECK(sb.alloc > 0);
    strbuf_addstr(&sb, "again");
    s = strbuf_detach(&sb, &len);
    CHECK_STR_EQ(s, "again");
    CHECK_INT_EQ(len, 5);
    CHECK_STR_EQ(sb.buf, "");
    free(s);
}

/* Thousands of adds and a formatted add longer than any first allocation. */
static void test_grows(void)
{
    struct strbuf sb = STRBUF_INIT;
    char big[5000];
    int ok = 1;

    for (int i = 0; i < 10000; i++)
        ok &= strbuf_addch(&sb, (char)('a' + i % 26)) == STATUS_OK;
    CHECK(ok);
    CHECK_INT_EQ(sb.len, 10000);
    CHECK_INT_EQ(strlen(sb.buf), 10000);
    CHECK(sb.buf[9999] == 'a' + 9999 % 26);
    memset(big, 'q', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    strbuf_reset(&sb);
    CHECK_INT_EQ(strbuf_addf(&sb, "<%s>", big), STATUS_OK);
    CHECK_INT_EQ(sb.len, sizeof(big) + 1);
    CHECK(sb.buf[0] == '<' && sb.buf[sb.len - 1] == '>' && sb.buf[sb.len] == '\0');
    CHECK_INT_EQ(sb.nomem, 0);
    strbuf_release(&sb);
}

/* Out of memory (a size no allocator gives): the buffer stays as it was, nomem stays set and
 * later adds fail at once until a reset, and detach hands over nothing incomplete. */
static void test_nomem(void)
{
    struct strbuf sb = STRBUF_INIT;
    size_t len = 99;

    CHECK_INT_EQ(strbuf_addstr(&sb, "kept"), STATUS_OK);
    CHECK_INT_EQ(strbuf_grow(&sb, (size_t)-1), STATUS_NOMEM);
    CHECK_INT_EQ(sb.nomem, 1);
    CHECK_STR_EQ(sb.buf, "kept");
    CHECK_INT_EQ(strbuf_addch(&sb, 'x'), STATUS_NOMEM);
    CHECK_INT_EQ(sb.len, 4);
    CHECK(strbuf_detach(&sb, &len) == NULL);
    CHECK_INT_EQ(len, 0);
    CHECK_STR_EQ(sb.buf, "");
    CHECK_INT_EQ(strbuf_grow(&sb, (size_t)-1), STATUS_NOMEM);
    strbuf_reset(&sb);
    CHECK_INT_EQ(sb.nomem, 0);
    CHECK_INT_EQ(strbuf_addch(&sb, 'y'), STATUS_OK);
    CHECK(sb.len == 1 && sb.buf[0] == 'y' && sb.buf[1] == '\0');
    strbuf_release(&sb);
}

static const struct check_test tests[] = {
    {"empty", test_empty}, {"adds", test_adds}, {"grows", test_grows}, {"nomem", test_nomem}, {0},
};

int main(void)
{
    return check_main("test_strbuf", tests);
}
