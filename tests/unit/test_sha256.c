/*
 * test_sha256.c: the FIPS 180-4 examples and the RFC 4231 HMAC cases, digests at the padding
 * edges, streaming against one-shot at random split points, the RFC 2104 key rules, and the
 * constant-time compare.
 */
#include "lib/sha256.h"

#include "check.h"

#include <stdint.h>
#include <string.h>

/* The hex of n bytes into out (2 * n + 1 bytes). */
static char *hex(const unsigned char *p, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
    return out;
}

static void digest(const void *data, size_t len, unsigned char out[SHA256_BYTES])
{
    struct sha256 c;

    sha256_init(&c);
    sha256_update(&c, data, len);
    sha256_final(&c, out);
}

/* The NIST examples (FIPS 180-4 appendix, csrc.nist.gov "SHA256.pdf"), one-shot. */
static const struct {
    const char *text;
    const char *sha256;
} nist_vectors[] = {
    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    /* 448 bits: the padding needs a second block. */
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    /* 896 bits (the SHA-512 example message). */
    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
     "lmnopqrsmnopqrstnopqrstu",
     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    {0},
};

static void test_nist_vectors(void)
{
    for (size_t i = 0; nist_vectors[i].text != NULL; i++) {
        unsigned char out[SHA256_BYTES];
        char text[2 * SHA256_BYTES + 1];

        digest(nist_vectors[i].text, strlen(nist_vectors[i].text), out);
        CHECK_STR_EQ(hex(out, sizeof(out), text), nist_vectors[i].sha256);
    }
}

/* Messages of n 'a' around the padding edges: 55 bytes is the most that leaves room for the
 * 0x80 byte and the length in one block, 56 the least that needs a second. Digests from
 * Python's hashlib. */
static const struct {
    size_t n;
    const char *sha256;
} edge_vectors[] = {
    {55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"},
    {56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"},
    {57, "f13b2d724659eb3bf47f2dd6af1accc87b81f09f59f2b75e5c0bed6589dfe8c6"},
    {63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"},
    {64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"},
    {65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"},
    {119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"},
    {120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"},
    {128, "6836cf13bac400e9105071cd6af47084dfacad4e5e302c94bfed24e013afb73e"},
    {0},
};

static void test_padding_edges(void)
{
    unsigned char a[128], out[SHA256_BYTES];
    char text[2 * SHA256_BYTES + 1];

    memset(a, 'a', sizeof(a));
    for (size_t i = 0; edge_vectors[i].sha256 != NULL; i++) {
        digest(a, edge_vectors[i].n, out);
        if (!CHECK_STR_EQ(hex(out, sizeof(out), text), edge_vectors[i].sha256))
            fprintf(stderr, "    %zu bytes\n", edge_vectors[i].n);
    }
}

/* One million 'a', fed in pieces of uneven sizes that straddle block edges. */
static void test_million_a(void)
{
    static const size_t pieces[] = {1, 63, 64, 65, 0, 127, 1000, 3, 128, 129, 55, 56, 57, 999};
    unsigned char a[1000], out[SHA256_BYTES];
    char text[2 * SHA256_BYTES + 1];
    size_t done = 0, i = 0;
    struct sha256 c;

    memset(a, 'a', sizeof(a));
    sha256_init(&c);
    while (done < 1000000) {
        size_t n = pieces[i++ % (sizeof(pieces) / sizeof(pieces[0]))];

        if (n > 1000000 - done)
            n = 1000000 - done;
        sha256_update(&c, a, n);
        done += n;
    }
    sha256_final(&c, out);
    CHECK_STR_EQ(hex(out, sizeof(out), text),
                 "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* RFC 4231 section 4. A NULL key or data is key_len (data_len) copies of the fill byte.
 * Case 5 checks only the first 128 bits of the tag. */
static const struct {
    const char *key;
    size_t key_len;
    unsigned char key_fill;
    const char *data;
    size_t data_len;
    unsigned char data_fill;
    const char *mac;
} rfc4231_cases[] = {
    {.key_len = 20,
     .key_fill = 0x0b,
     .data = "Hi There",
     .data_len = 8,
     .mac = "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
    {.key = "Jefe",
     .key_len = 4,
     .data = "what do ya want for nothing?",
     .data_len = 28,
     .mac = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
    {.key_len = 20,
     .key_fill = 0xaa,
     .data_len = 50,
     .data_fill = 0xdd,
     .mac = "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
    {.key = "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14"
            "\x15\x16\x17\x18\x19",
     .key_len = 25,
     .data_len = 50,
     .data_fill = 0xcd,
     .mac = "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
    {.key_len = 20,
     .key_fill = 0x0c,
     .data = "Test With Truncation",
     .data_len = 20,
     .mac = "a3b6167473100ee06e0c796c2955552b"},
    {.key_len = 131,
     .key_fill = 0xaa,
     .data = "Test Using Larger Than Block-Size Key - Hash Key First",
     .data_len = 54,
     .mac = "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
    {.key_len = 131,
     .key_fill = 0xaa,
     .data = "This is a test using a larger than block-size key and a larger than block-size "
             "data. The key needs to be hashed before being used by the HMAC algorithm.",
     .data_len = 152,
     .mac = "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
    {0},
};

static void test_rfc4231(void)
{
    for (size_t i = 0; rfc4231_cases[i].mac != NULL; i++) {
        unsigned char key[200], data[200], out[SHA256_BYTES];
        char text[2 * SHA256_BYTES + 1];
        size_t mac_len = strlen(rfc4231_cases[i].mac) / 2;

        if (rfc4231_cases[i].key != NULL)
            memcpy(key, rfc4231_cases[i].key, rfc4231_cases[i].key_len);
        else
            memset(key, rfc4231_cases[i].key_fill, rfc4231_cases[i].key_len);
        if (rfc4231_cases[i].data != NULL)
            memcpy(data, rfc4231_cases[i].data, rfc4231_cases[i].data_len);
        else
            memset(data, rfc4231_cases[i].data_fill, rfc4231_cases[i].data_len);
        sha256_hmac(key, rfc4231_cases[i].key_len, data, rfc4231_cases[i].data_len, out);
        if (!CHECK_STR_EQ(hex(out, mac_len, text), rfc4231_cases[i].mac))
            fprintf(stderr, "    RFC 4231 test case %zu\n", i + 1);
    }
}

/* RFC 2104 section 2: a key longer than the block is replaced by its hash; a shorter one is
 * padded with zeros, so trailing zeros up to the block size do not change the tag. */
static void test_hmac_key_lengths(void)
{
    static const char msg[] = "key length";
    unsigned char key[SHA256_BLOCK_BYTES + 1] = {0}, hashed[SHA256_BYTES];
    unsigned char a[SHA256_BYTES], b[SHA256_BYTES];

    for (size_t i = 0; i < sizeof(key); i++)
        key[i] = (unsigned char)(i * 7 + 1);
    digest(key, sizeof(key), hashed);
    sha256_hmac(key, sizeof(key), msg, sizeof(msg) - 1, a);
    sha256_hmac(hashed, sizeof(hashed), msg, sizeof(msg) - 1, b);
    CHECK(memcmp(a, b, SHA256_BYTES) == 0);

    memset(key + 40, 0, sizeof(key) - 40);
    sha256_hmac(key, 40, msg, sizeof(msg) - 1, a);
    sha256_hmac(key, SHA256_BLOCK_BYTES, msg, sizeof(msg) - 1, b);
    CHECK(memcmp(a, b, SHA256_BYTES) == 0);
    sha256_hmac(key, SHA256_BLOCK_BYTES + 1, msg, sizeof(msg) - 1, b);
    CHECK(memcmp(a, b, SHA256_BYTES) != 0);
}

/* The tag may be written over the key or the message. */
static void test_hmac_in_place(void)
{
    unsigned char buf[SHA256_BYTES], want[SHA256_BYTES];

    memset(buf, 0x42, sizeof(buf));
    sha256_hmac(buf, sizeof(buf), "msg", 3, want);
    sha256_hmac(buf, sizeof(buf), "msg", 3, buf);
    CHECK(memcmp(buf, want, SHA256_BYTES) == 0);

    memset(buf, 0x42, sizeof(buf));
    sha256_hmac("key", 3, buf, sizeof(buf), want);
    sha256_hmac("key", 3, buf, sizeof(buf), buf);
    CHECK(memcmp(buf, want, SHA256_BYTES) == 0);
}

/* xorshift32: the same "random" numbers on every run. */
static uint32_t next_random(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Every length up to a few blocks, each split at random points (empty pieces included),
 * gives the one-shot digest. */
static void test_streaming(void)
{
    unsigned char data[300], want[SHA256_BYTES], got[SHA256_BYTES];
    uint32_t seed = 2463534242u;

    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (unsigned char)next_random(&seed);
    for (size_t n = 0; n <= sizeof(data); n++) {
        int same = 1;

        digest(data, n, want);
        for (int trial = 0; trial < 8; trial++) {
            struct sha256 c;
            size_t at = 0;

            sha256_init(&c);
            while (at < n) {
                size_t piece = next_random(&seed) % (n - at + 1);

                sha256_update(&c, data + at, piece);
                at += piece;
            }
            sha256_update(&c, NULL, 0);
            sha256_final(&c, got);
            same &= memcmp(got, want, SHA256_BYTES) == 0;
        }
        if (!CHECK(same))
            fprintf(stderr, "    length %zu\n", n);
    }
}

static void test_equal(void)
{
    unsigned char a[SHA256_BYTES], b[SHA256_BYTES];
    int flips_found = 1;

    for (size_t i = 0; i < sizeof(a); i++)
        a[i] = (unsigned char)(i * 31 + 5);
    memcpy(b, a, sizeof(a));
    CHECK_INT_EQ(sha256_equal(a, b, sizeof(a)), 1);
    CHECK_INT_EQ(sha256_equal(a, a, sizeof(a)), 1);
    b[0] ^= 1;
    CHECK_INT_EQ(sha256_equal(a, b, sizeof(a)), 0);
    CHECK_INT_EQ(sha256_equal(a, b + 1, 0), 1);
    b[0] = a[0];
    b[sizeof(b) - 1] ^= 0x80;
    CHECK_INT_EQ(sha256_equal(a, b, sizeof(a)), 0);
    CHECK_INT_EQ(sha256_equal(a, b, sizeof(a) - 1), 1);
    CHECK_INT_EQ(sha256_equal(NULL, NULL, 0), 1);
    b[sizeof(b) - 1] = a[sizeof(a) - 1];
    /* Every single-bit difference, at every position. */
    for (size_t i = 0; i < sizeof(a); i++) {
        for (int bit = 0; bit < 8; bit++) {
            b[i] ^= (unsigned char)(1u << bit);
            flips_found &= sha256_equal(a, b, sizeof(a)) == 0;
            b[i] ^= (unsigned char)(1u << bit);
        }
    }
    CHECK(flips_found);
    CHECK_INT_EQ(sha256_equal(a, b, sizeof(a)), 1);
}

static const struct check_test tests[] = {
    {"nist_vectors", test_nist_vectors},
    {"padding_edges", test_padding_edges},
    {"million_a", test_million_a},
    {"rfc4231", test_rfc4231},
    {"hmac_key_lengths", test_hmac_key_lengths},
    {"hmac_in_place", test_hmac_in_place},
    {"streaming", test_streaming},
    {"equal", test_equal},
    {0},
};

int main(void)
{
    return check_main("test_sha256", tests);
}
