/* test_base64.c: RFC 4648 test vectors, round trips of binary data, refused input. */
#include "lib/base64.h"

#include "check.h"

#include <stdlib.h>
#include <string.h>

/* RFC 4648 section 10. */
static const struct {
    const char *plain;
    const char *encoded;
} base64_vectors[] = {
    {"", ""},
    {"f", "Zg=="},
    {"fo", "Zm8="},
    {"foo", "Zm9v"},
    {"foob", "Zm9vYg=="},
    {"fooba", "Zm9vYmE="},
    {"foobar", "Zm9vYmFy"},
    {0},
};

static void test_encode_vectors(void)
{
    for (size_t i = 0; base64_vectors[i].plain != NULL; i++) {
        char *out = base64_encode(base64_vectors[i].plain, strlen(base64_vectors[i].plain));

        CHECK_STR_EQ(out, base64_vectors[i].encoded);
        free(out);
    }
}

static void test_decode_vectors(void)
{
    for (size_t i = 0; base64_vectors[i].plain != NULL; i++) {
        size_t len = 12345;
        unsigned char *out = base64_decode(base64_vectors[i].encoded, &len);

        if (!CHECK(out != NULL))
            continue;
        CHECK_INT_EQ(len, strlen(base64_vectors[i].plain));
        CHECK(memcmp(out, base64_vectors[i].plain, len) == 0);
        free(out);
    }
}

/* The two last letters of the alphabet and the high bits. */
static void test_alphabet_ends(void)
{
    static const unsigned char plus[] = {0xfb, 0xef, 0xbe};
    static const unsigned char slash[] = {0xff, 0xff, 0xff};
    static const unsigned char zero[] = {0, 0, 0, 0};
    char *out;

    out = base64_encode(plus, sizeof(plus));
    CHECK_STR_EQ(out, "++++");
    free(out);
    out = base64_encode(slash, sizeof(slash));
    CHECK_STR_EQ(out, "////");
    free(out);
    out = base64_encode(slash, 2);
    CHECK_STR_EQ(out, "//8=");
    free(out);
    out = base64_encode(zero, sizeof(zero));
    CHECK_STR_EQ(out, "AAAAAA==");
    free(out);
}

/* Every length from 0 to 300 of data with NULs and every byte value. */
static void test_round_trip_binary(void)
{
    unsigned char data[300];

    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(i % 3 == 0 ? 0 : i * 37 + 11);
    for (size_t n = 0; n <= sizeof(data); n++) {
        char *text = base64_encode(data, n);
        unsigned char *back;
        size_t len = 0;

        if (!CHECK(text != NULL))
            return;
        CHECK_INT_EQ(strlen(text), (n + 2) / 3 * 4);
        CHECK_INT_EQ(strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                  "0123456789+/="),
                     strlen(text));
        back = base64_decode(text, &len);
        if (CHECK(back != NULL)) {
            CHECK_INT_EQ(len, n);
            CHECK(memcmp(back, data, n) == 0);
        }
        free(back);
        free(text);
    }
}

static void test_round_trip_all_bytes(void)
{
    unsigned char data[256];
    unsigned char *back;
    char *text;
    size_t len = 0;

    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)(255 - i);
    text = base64_encode(data, sizeof(data));
    back = text ? base64_decode(text, &len) : NULL;
    if (CHECK(back != NULL)) {
        CHECK_INT_EQ(len, sizeof(data));
        CHECK(memcmp(back, data, sizeof(data)) == 0);
    }
    free(back);
    free(text);
}

static void test_bad_input(void)
{
    static const char *const bad[] = {
        "Z",         /* length not a multiple of 4 */
        "Zg",        /* padding missing */
        "Zg=",       /* padding short */
        "Zm9vY",     /* one letter too many */
        "Zm9v!A==",  /* a character outside the alphabet */
        "Zm 9v",     /* white space */
        "Zm9\n",     /* a newline */
        "-_8=",      /* the URL-safe alphabet is not base64 */
        "Z===",      /* three padding characters */
        "====",      /* padding only */
        "Zg==Zg==",  /* padding in the middle */
        "AB=C",      /* padding before a letter */
        "Zm9vYmFyé", /* non-ASCII */
        NULL,
    };

    for (size_t i = 0; bad[i] != NULL; i++) {
        size_t len = 0;
        unsigned char *out = base64_decode(bad[i], &len);

        if (!CHECK(out == NULL))
            fprintf(stderr, "    input was \"%s\"\n", bad[i]);
        free(out);
    }
}

static const struct check_test tests[] = {
    {"encode_vectors", test_encode_vectors},
    {"decode_vectors", test_decode_vectors},
    {"alphabet_ends", test_alphabet_ends},
    {"round_trip_binary", test_round_trip_binary},
    {"round_trip_all_bytes", test_round_trip_all_bytes},
    {"bad_input", test_bad_input},
    {0},
};

int main(void)
{
    return check_main("test_base64", tests);
}
