/* test_plugin_strbuf.c: the plugins' header-only buffer (plugin-api/mcph-strbuf.h), compiled
 * on its own as a plugin would: growth across many sizes, formatted adds of any length, JSON
 * string escaping of every control byte, of bytes that are not UTF-8 and of NUL (checked by
 * parsing the output with cJSON and against a UTF-8 checker written another way), detach,
 * and the out-of-memory path with an allocator made to fail. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <cJSON.h>

#include "check.h"

/* Allocations fail once `test_allocs_left` reaches 0; -1 never fails. `test_allocs` counts
 * the calls. */
static long test_allocs_left = -1;
static size_t test_allocs;

static void *test_realloc(void *p, size_t size)
{
    test_allocs++;
    if (test_allocs_left == 0)
        return NULL;
    if (test_allocs_left > 0)
        test_allocs_left--;
    return realloc(p, size);
}

#define MCPH_SB_REALLOC test_realloc
#include "../../plugin-api/mcph-strbuf.h"

#include "lib/utf8.h"

/* The length of the well-formed sequence at s (len bytes, s[0] >= 0x80), or 0: a checker
 * written by byte ranges (RFC 3629's table), not by decoding as mcph_sb_utf8_len() does, so
 * the two check each other. */
static size_t test_utf8_ref(const unsigned char *s, size_t len)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xBF; /* the range of the second byte */
    size_t n;

    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        lo = c == 0xE0 ? 0xA0 : lo; /* overlong */
        hi = c == 0xED ? 0x9F : hi; /* surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        lo = c == 0xF0 ? 0x90 : lo; /* overlong */
        hi = c == 0xF4 ? 0x8F : hi; /* past U+10FFFF */
    } else {
        return 0;
    }
    if (len < n || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    }
    return n;
}

static void test_empty(void)
{
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;
    size_t len = 99;
    char *s;

    CHECK_STR_EQ(sb.buf, "");
    CHECK_INT_EQ(sb.len, 0);
    CHECK_INT_EQ(sb.alloc, 0);
    mcph_sb_release(&sb);
    mcph_sb_release(NULL);
    CHECK_STR_EQ(sb.buf, "");
    s = mcph_sb_detach(&sb, &len);
    if (CHECK(s != NULL))
        CHECK_STR_EQ(s, "");
    CHECK_INT_EQ(len, 0);
    free(s);
    mcph_sb_init(&sb);
    CHECK_INT_EQ(mcph_sb_add(&sb, NULL, 0), MCPH_OK);
    CHECK_INT_EQ(mcph_sb_addjson(&sb, NULL, 0), MCPH_OK);
    CHECK_STR_EQ(sb.buf, "\"\"");
    mcph_sb_release(&sb);
}

static void test_adds(void)
{
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;
    size_t len = 0, alloc;
    char *s;

    CHECK_INT_EQ(mcph_sb_addstr(&sb, "{\"id\":"), MCPH_OK);
    CHECK_INT_EQ(mcph_sb_addf(&sb, "%d", 42), MCPH_OK);
    CHECK_INT_EQ(mcph_sb_addch(&sb, '}'), MCPH_OK);
    CHECK_INT_EQ(mcph_sb_add(&sb, "xyz", 1), MCPH_OK);
    CHECK_STR_EQ(sb.buf, "{\"id\":42}x");
    CHECK_INT_EQ(sb.len, 10);
    mcph_sb_setlen(&sb, 4);
    CHECK_STR_EQ(sb.buf, "{\"id");
    mcph_sb_setlen(&sb, 40); /* longer than the contents: ignored */
    CHECK_INT_EQ(sb.len, 4);
    alloc = sb.alloc;
    mcph_sb_reset(&sb);
    CHECK_STR_EQ(sb.buf, "");
    CHECK_INT_EQ(sb.alloc, alloc);
    CHECK_INT_EQ(mcph_sb_add(&sb, "a\0b", 3), MCPH_OK); /* any bytes, NUL included */
    CHECK_INT_EQ(sb.len, 3);
    CHECK(memcmp(sb.buf, "a\0b", 4) == 0);
    s = mcph_sb_detach(&sb, &len);
    CHECK(s != NULL && memcmp(s, "a\0b", 4) == 0);
    CHECK_INT_EQ(len, 3);
    CHECK_STR_EQ(sb.buf, "");
    CHECK_INT_EQ(sb.alloc, 0);
    free(s);
}

/* Buffers of every size up to a few allocations, built from pieces of varying lengths. */
static void test_grows(void)
{
    static char pattern[4200];
    int ok = 1;

    for (size_t i = 0; i < sizeof(pattern); i++)
        pattern[i] = (char)('a' + i % 26);
    for (size_t n = 0; n <= sizeof(pattern); n++) {
        struct mcph_strbuf sb = MCPH_STRBUF_INIT;
        size_t piece = n % 7 + 1;

        for (size_t at = 0; at < n; at += piece)
            ok &= mcph_sb_add(&sb, pattern + at, at + piece <= n ? piece : n - at) == MCPH_OK;
        ok &= sb.len == n && strlen(sb.buf) == n && memcmp(sb.buf, pattern, n) == 0;
        ok &= n == 0 || sb.alloc > n;
        ok &= !sb.nomem;
        mcph_sb_release(&sb);
    }
    CHECK(ok);
}

/* One byte at a time to a megabyte: the allocation doubles, so there are few of them. */
static void test_grows_geometric(void)
{
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;
    int ok = 1;

    test_allocs = 0;
    for (int i = 0; i < 1000000; i++)
        ok &= mcph_sb_addch(&sb, 'g') == MCPH_OK;
    CHECK(ok);
    CHECK_INT_EQ(sb.len, 1000000);
    CHECK(test_allocs <= 16);
    mcph_sb_release(&sb);
}

/* Room asked for ahead of time: no reallocation until it is used up. */
static void test_grow_room(void)
{
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;
    char *before;

    if (!CHECK_INT_EQ(mcph_sb_grow(&sb, 1000), MCPH_OK))
        return;
    CHECK(sb.alloc >= 1001);
    CHECK_STR_EQ(sb.buf, "");
    before = sb.buf;
    for (int i = 0; i < 1000; i++)
        mcph_sb_addch(&sb, 'x');
    CHECK(sb.buf == before);
    CHECK_INT_EQ(sb.len, 1000);
    mcph_sb_release(&sb);
}

/* Formatted adds shorter and longer than the room left, at every length around a boundary. */
static void test_addf_long(void)
{
    static char big[100001];
    static const size_t lens[] = {0, 1, 62, 63, 64, 65, 127, 128, 129, 1000, 4096, 100000};
    char head[70];
    int ok = 1;

    memset(big, 'q', sizeof(big) - 1);
    memset(head, 'h', sizeof(head));
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        for (size_t prefix = 0; prefix < 70; prefix += 23) {
            struct mcph_strbuf sb = MCPH_STRBUF_INIT;

            big[lens[i]] = '\0';
            mcph_sb_add(&sb, head, prefix);
            ok &= mcph_sb_addf(&sb, "<%s>%d", big, 7) == MCPH_OK;
            ok &= sb.len == prefix + lens[i] + 3;
            ok &= strlen(sb.buf) == sb.len;
            ok &= sb.buf[prefix] == '<' && sb.buf[sb.len - 2] == '>' && sb.buf[sb.len - 1] == '7';
            big[lens[i]] = 'q';
            mcph_sb_release(&sb);
        }
    }
    CHECK(ok);
}

static void test_vaddf_invalid(void)
{
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;

    mcph_sb_addstr(&sb, "kept");
    /* The C locale has no multibyte form for U+20AC: vsnprintf fails with EILSEQ. */
    if (snprintf(NULL, 0, "%lc", (wint_t)0x20ac) >= 0)
        return;
    CHECK_INT_EQ(mcph_sb_addf(&sb, "%lc", (wint_t)0x20ac), MCPH_ERR_INVALID);
    CHECK(sb.nomem);
    CHECK_STR_EQ(sb.buf, "kept");
    mcph_sb_release(&sb);
}

/* The JSON that mcph_sb_addjson() writes for n bytes at s, checked against
 * mcph_sb_json_len(). Owned by the caller. */
static char *test_json(const char *s, size_t n)
{
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;

    mcph_sb_addstr(&sb, "pre");
    if (mcph_sb_addjson(&sb, s, n) != MCPH_OK)
        return NULL;
    CHECK_INT_EQ(sb.len - 3, mcph_sb_json_len(s, n));
    CHECK(memcmp(sb.buf, "pre", 3) == 0);
    memmove(sb.buf, sb.buf + 3, sb.len - 2);
    return mcph_sb_detach(&sb, NULL);
}

/* Escapes s (n bytes) and expects exactly `want`. */
static void test_json_is(const char *s, size_t n, const char *want)
{
    char *json = test_json(s, n);

    CHECK_STR_EQ(json, want);
    free(json);
}

/* Every control byte, DEL, the quote and the backslash: the escape written, and the value
 * read back by cJSON. */
static void test_json_controls(void)
{
    for (int c = 1; c < 0x80; c++) {
        char in = (char)c, want[16];
        char *json;
        cJSON *v;

        if (c == '\n' || c == '\r' || c == '\t' || c == '"' || c == '\\')
            snprintf(want, sizeof(want), "\"\\%c\"",
                     c == '\n'   ? 'n'
                     : c == '\r' ? 'r'
                     : c == '\t' ? 't'
                                 : c);
        else if (c < 0x20 || c == 0x7f)
            snprintf(want, sizeof(want), "\"\\u%04x\"", (unsigned)c);
        else
            snprintf(want, sizeof(want), "\"%c\"", c);
        json = test_json(&in, 1);
        CHECK_STR_EQ(json, want);
        v = cJSON_Parse(json);
        CHECK(cJSON_IsString(v) && v->valuestring[0] == in && v->valuestring[1] == '\0');
        cJSON_Delete(v);
        free(json);
    }
    test_json_is("a\"b\\c\nd", 7, "\"a\\\"b\\\\c\\nd\"");
}

/* U+0000 and bytes that are not UTF-8 become U+FFFD, one per byte; the rest stays. */
static void test_json_invalid(void)
{
#define FFFD "\xef\xbf\xbd"
    test_json_is("a\0b", 3, "\"a" FFFD "b\"");
    test_json_is("\0", 1, "\"" FFFD "\"");
    test_json_is("\x80", 1, "\"" FFFD "\"");                             /* lone continuation */
    test_json_is("x\xbfy", 3, "\"x" FFFD "y\"");                         /* lone continuation */
    test_json_is("\xc0\xaf", 2, "\"" FFFD FFFD "\"");                    /* overlong '/' */
    test_json_is("\xc1\xbf", 2, "\"" FFFD FFFD "\"");                    /* overlong */
    test_json_is("\xe0\x80\xaf", 3, "\"" FFFD FFFD FFFD "\"");           /* overlong, 3 bytes */
    test_json_is("\xf0\x8f\xbf\xbf", 4, "\"" FFFD FFFD FFFD FFFD "\"");  /* overlong, 4 bytes */
    test_json_is("\xed\xa0\x80", 3, "\"" FFFD FFFD FFFD "\"");           /* surrogate D800 */
    test_json_is("\xed\xbf\xbf", 3, "\"" FFFD FFFD FFFD "\"");           /* surrogate DFFF */
    test_json_is("\xf4\x90\x80\x80", 4, "\"" FFFD FFFD FFFD FFFD "\"");  /* past U+10FFFF */
    test_json_is("\xe2\x82", 2, "\"" FFFD FFFD "\"");                    /* truncated at end */
    test_json_is("\xe2\x82z", 3, "\"" FFFD FFFD "z\"");                  /* truncated */
    test_json_is("\xf0\x9f\x98", 3, "\"" FFFD FFFD FFFD "\"");           /* truncated */
    test_json_is("\xf5\xfe\xff", 3, "\"" FFFD FFFD FFFD "\"");           /* never in UTF-8 */
    test_json_is("\xc3\xa9\xe2\x82\xac", 5, "\"\xc3\xa9\xe2\x82\xac\""); /* é€ kept */
    test_json_is("\xdf\xbf\xe0\xa0\x80", 5, "\"\xdf\xbf\xe0\xa0\x80\""); /* U+7FF, U+800 */
    test_json_is("\xef\xbf\xbf", 3, "\"\xef\xbf\xbf\"");                 /* U+FFFF */
    test_json_is("\xf0\x90\x80\x80", 4, "\"\xf0\x90\x80\x80\"");         /* U+10000 */
    test_json_is("\xf4\x8f\xbf\xbf", 4, "\"\xf4\x8f\xbf\xbf\"");         /* U+10FFFF */
    test_json_is("\xed\x9f\xbf", 3, "\"\xed\x9f\xbf\"");                 /* U+D7FF */
#undef FFFD
}

/* mcph_sb_utf8_len against the checker by ranges for every 1- and 2-byte input and every
 * 3-byte one, and 4-byte ones on each lead byte. */
static void test_utf8_len(void)
{
    unsigned char s[4];
    int ok = 1;

    CHECK_INT_EQ(mcph_sb_utf8_len((const unsigned char *)"", 0), 0);
    CHECK_INT_EQ(mcph_sb_utf8_len((const unsigned char *)"", 1), 1);
    for (unsigned a = 0; a < 256; a++) {
        s[0] = (unsigned char)a;
        ok &= mcph_sb_utf8_len(s, 1) == (a < 0x80 ? 1 : 0);
        for (unsigned b = 0; b < 256; b++) {
            s[1] = (unsigned char)b;
            ok &= mcph_sb_utf8_len(s, 2) == (a < 0x80 ? 1 : test_utf8_ref(s, 2));
            for (unsigned c = 0; c < 256 && a >= 0xe0; c++) {
                s[2] = (unsigned char)c;
                ok &= mcph_sb_utf8_len(s, 3) == test_utf8_ref(s, 3);
                s[3] = (unsigned char)((a * 7 + b * 13 + c) & 0xff);
                ok &= mcph_sb_utf8_len(s, 4) == test_utf8_ref(s, 4);
                s[3] = (unsigned char)(0x80 | (c & 0x3f));
                ok &= mcph_sb_utf8_len(s, 4) == test_utf8_ref(s, 4);
            }
        }
    }
    CHECK(ok);
}

/* The good prefix by the checker by ranges, one sequence at a time (NUL is ASCII). */
static size_t test_valid_ref(const unsigned char *s, size_t n)
{
    size_t i = 0;

    while (i < n) {
        size_t len = s[i] < 0x80 ? 1 : test_utf8_ref(s + i, n - i);

        if (len == 0)
            return i;
        i += len;
    }
    return n;
}

/* mcph_sb_utf8_valid against the checker by ranges: text of long ASCII runs (the eight-byte
 * steps), NUL among them, and a few sequences good, cut or bad at every position. */
static void test_utf8_valid(void)
{
    static const char *const pieces[] = {"\xc3\xa9",     "\xe2\x82\xac",    "\xf0\x9f\x98\x80",
                                         "\xed\xa0\x80", "\xc0\xae",        "\xe2\x82",
                                         "\x80",         "\xf4\x90\x80\x80"};
    uint32_t seed = 777;
    int ok = 1;

    for (int round = 0; round < 5000; round++) {
        unsigned char in[80];
        size_t n = 0;

        while (n < sizeof(in) - 4) {
            seed = seed * 1103515245u + 12345u;
            if ((seed >> 16) % 10 == 0) {
                const char *p = pieces[(seed >> 20) % 8];

                memcpy(in + n, p, strlen(p));
                n += strlen(p);
            } else {
                in[n++] = (seed >> 24) % 16 == 0 ? 0 : (unsigned char)('a' + (seed >> 16) % 26);
            }
            if ((seed >> 8) % 23 == 0)
                break;
        }
        ok &= mcph_sb_utf8_valid((const char *)in, n) == test_valid_ref(in, n);
    }
    CHECK(ok);
    CHECK_INT_EQ(mcph_sb_utf8_valid("abcdefgh\0abcdefgh", 17), 17);
    CHECK_INT_EQ(mcph_sb_utf8_valid("abcdefg\xe9"
                                    "abcdefgh",
                                    16),
                 7);
    CHECK_INT_EQ(mcph_sb_utf8_valid(NULL, 0), 0);
}

/* Random bytes: the output always parses as one JSON string and is well-formed UTF-8. */
static void test_json_random(void)
{
    uint32_t seed = 12345;
    int ok = 1;

    for (int round = 0; round < 3000; round++) {
        unsigned char in[64];
        size_t n = (size_t)round % sizeof(in);
        char *json;
        cJSON *v;

        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            in[i] = (unsigned char)(seed >> 16);
        }
        json = test_json((const char *)in, n);
        if (json == NULL) {
            ok = 0;
            continue;
        }
        ok &= utf8_valid(json, strlen(json)) == strlen(json);
        v = cJSON_Parse(json);
        ok &= cJSON_IsString(v);
        cJSON_Delete(v);
        free(json);
    }
    CHECK(ok);
}

/* Sizes no allocator can give fail at once, cleanly, and the flag sticks until reset. */
static void test_nomem_huge(void)
{
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;
    char *s;

    mcph_sb_addstr(&sb, "kept");
    CHECK_INT_EQ(mcph_sb_grow(&sb, SIZE_MAX / 2), MCPH_ERR_NOMEM);
    CHECK(sb.nomem);
    CHECK_STR_EQ(sb.buf, "kept");
    CHECK_INT_EQ(sb.len, 4);
    CHECK_INT_EQ(mcph_sb_addch(&sb, 'x'), MCPH_ERR_NOMEM); /* sticky */
    CHECK_INT_EQ(mcph_sb_addf(&sb, "%d", 1), MCPH_ERR_NOMEM);
    CHECK_INT_EQ(mcph_sb_addjson(&sb, "y", 1), MCPH_ERR_NOMEM);
    CHECK_STR_EQ(sb.buf, "kept");
    mcph_sb_reset(&sb);
    CHECK(!sb.nomem);
    CHECK_INT_EQ(mcph_sb_grow(&sb, SIZE_MAX), MCPH_ERR_NOMEM);
    mcph_sb_reset(&sb);
    mcph_sb_addstr(&sb, "ab");
    CHECK_INT_EQ(mcph_sb_grow(&sb, SIZE_MAX - 2), MCPH_ERR_NOMEM); /* len + extra + 1 wraps */
    CHECK_STR_EQ(sb.buf, "ab");
    s = mcph_sb_detach(&sb, NULL); /* an add failed: no contents to hand over */
    CHECK(s == NULL);
    CHECK_STR_EQ(sb.buf, "");
    CHECK(!sb.nomem);
    mcph_sb_release(&sb);
}

/* A failing allocator: each add leaves the buffer as it was, NUL-terminated. */
static void test_nomem_alloc(void)
{
    struct mcph_strbuf sb = MCPH_STRBUF_INIT;
    char big[300];
    size_t len = 7;

    memset(big, 'z', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    test_allocs_left = 0;
    CHECK_INT_EQ(mcph_sb_addch(&sb, 'x'), MCPH_ERR_NOMEM);
    CHECK_STR_EQ(sb.buf, "");
    CHECK(mcph_sb_detach(&sb, &len) == NULL);
    CHECK_INT_EQ(len, 0);

    test_allocs_left = 1;
    CHECK_INT_EQ(mcph_sb_addstr(&sb, "head"), MCPH_OK);
    CHECK_INT_EQ(mcph_sb_addf(&sb, "<%s>", big), MCPH_ERR_NOMEM);
    CHECK_STR_EQ(sb.buf, "head");
    CHECK_INT_EQ(sb.len, 4);
    mcph_sb_reset(&sb);

    /* A JSON string that needs more room than there is: nothing of it stays. */
    mcph_sb_addstr(&sb, "head");
    CHECK_INT_EQ(mcph_sb_addjson(&sb, big, sizeof(big) - 1), MCPH_ERR_NOMEM);
    CHECK_STR_EQ(sb.buf, "head");
    CHECK(sb.nomem);
    test_allocs_left = -1;
    mcph_sb_reset(&sb);
    CHECK_INT_EQ(mcph_sb_addjson(&sb, big, sizeof(big) - 1), MCPH_OK);
    CHECK_INT_EQ(sb.len, sizeof(big) + 1);
    mcph_sb_release(&sb);
}

static const struct check_test tests[] = {
    {"empty", test_empty},
    {"adds", test_adds},
    {"grows", test_grows},
    {"grows_geometric", test_grows_geometric},
    {"grow_room", test_grow_room},
    {"addf_long", test_addf_long},
    {"vaddf_invalid", test_vaddf_invalid},
    {"json_controls", test_json_controls},
    {"json_invalid", test_json_invalid},
    {"utf8_len", test_utf8_len},
    {"utf8_valid", test_utf8_valid},
    {"json_random", test_json_random},
    {"nomem_huge", test_nomem_huge},
    {"nomem_alloc", test_nomem_alloc},
    {0},
};

int main(void)
{
    return check_main("test_plugin_strbuf", tests);
}
