#include "lib/sha256.h"

#include <stdatomic.h>
#include <string.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#endif

/* FIPS 180-4 section 4.2.2: the first 32 bits of the fractional parts of the cube roots of
 * the first 64 primes. */
static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* FIPS 180-4 section 5.3.3: the first 32 bits of the fractional parts of the square roots of
 * the first 8 primes. */
static const uint32_t sha256_h0[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/* A plain memset of memory that is not read again may be removed by the compiler; stores
 * through a volatile pointer may not. */
static void sha256_wipe(void *p, size_t len)
{
    volatile unsigned char *v = p;

    for (size_t i = 0; i < len; i++)
        v[i] = 0;
}

/* n is 1 to 31 at every call, so neither shift is by 32. */
static uint32_t sha256_rotr(uint32_t x, unsigned n)
{
    return x >> n | x << (32 - n);
}

static uint32_t sha256_load32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void sha256_store32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* FIPS 180-4 section 6.2.2 step 1: the message schedule W0..W63 of one block. */
static void sha256_schedule(uint32_t w[64], const unsigned char *block)
{
    for (int t = 0; t < 16; t++)
        w[t] = sha256_load32(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = sha256_rotr(w[t - 15], 7) ^ sha256_rotr(w[t - 15], 18) ^ w[t - 15] >> 3;
        uint32_t s1 = sha256_rotr(w[t - 2], 17) ^ sha256_rotr(w[t - 2], 19) ^ w[t - 2] >> 10;

        w[t] = s1 + w[t - 7] + s0 + w[t - 16];
    }
}

static uint32_t sha256_sum0(uint32_t a)
{
    return sha256_rotr(a, 2) ^ sha256_rotr(a, 13) ^ sha256_rotr(a, 22);
}

static uint32_t sha256_sum1(uint32_t e)
{
    return sha256_rotr(e, 6) ^ sha256_rotr(e, 11) ^ sha256_rotr(e, 25);
}

/* Steps 2 to 4: the 64 rounds over the schedule w, added into the hash value in state. */
static void sha256_rounds(uint32_t state[8], const uint32_t w[64])
{
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];

    for (int t = 0; t < 64; t++) {
        uint32_t t1 = h + sha256_sum1(e) + ((e & f) ^ (~e & g)) + sha256_k[t] + w[t];
        uint32_t t2 = sha256_sum0(a) + ((a & b) ^ (a & c) ^ (b & c));

        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SHA256_X86 1
/* The SHA extensions of x86-64 (SHA-NI): about ten times the portable rounds, which the audit
 * log's chained MAC (one per call) needs to stay cheap. The same digests: test_sha256's
 * vectors run on whichever path the CPU takes. */
__attribute__((target("sha,sse4.1,ssse3"))) static void
sha256_blocks_x86(uint32_t state[8], const unsigned char *p, size_t n)
{
    const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i s0, s1, t, w[4];

    /* The state as the instructions want it: ABEF and CDGH. */
    t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1);
    s1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B);
    s0 = _mm_alignr_epi8(t, s1, 8);
    s1 = _mm_blend_epi16(s1, t, 0xF0);
    for (; n > 0; n--, p += SHA256_BLOCK_BYTES) {
        __m128i abef = s0, cdgh = s1;

        for (int g = 0; g < 16; g++) {
            __m128i m;

            if (g < 4) {
                w[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), mask);
            } else {
                /* W[4g..4g+3] from the four groups before it (w[g & 3] is the oldest). */
                m = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
                m = _mm_add_epi32(m, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
                w[g & 3] = _mm_sha256msg2_epu32(m, w[(g + 3) & 3]);
            }
            m = _mm_add_epi32(w[g & 3], _mm_loadu_si128((const __m128i *)&sha256_k[4 * g]));
            s1 = _mm_sha256rnds2_epu32(s1, s0, m);
            s0 = _mm_sha256rnds2_epu32(s0, s1, _mm_shuffle_epi32(m, 0x0E));
        }
        s0 = _mm_add_epi32(s0, abef);
        s1 = _mm_add_epi32(s1, cdgh);
    }
    t = _mm_shuffle_epi32(s0, 0x1B);
    s1 = _mm_shuffle_epi32(s1, 0xB1);
    _mm_storeu_si128((__m128i *)&state[0], _mm_blend_epi16(t, s1, 0xF0));
    _mm_storeu_si128((__m128i *)&state[4], _mm_alignr_epi8(s1, t, 8));
    /* The schedule held the data (the key, in HMAC). */
    w[0] = w[1] = w[2] = w[3] = _mm_setzero_si128();
    __asm__ __volatile__("" : : "x"(w[0]), "x"(w[1]), "x"(w[2]), "x"(w[3]) : "memory");
}

/* Whether the CPU has the SHA extensions (and SSSE3, SSE4.1): asked once (cpuid may trap to
 * a hypervisor), a fact about the machine rather than state, so any thread may read it. */
static int sha256_x86_usable(void)
{
    static atomic_int known = -1;
    unsigned a, b, c, d;
    int has = atomic_load_explicit(&known, memory_order_relaxed);

    if (has >= 0)
        return has;
    has = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) && (c & bit_SSE4_1) &&
          __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
    atomic_store_explicit(&known, has, memory_order_relaxed);
    return has;
}
#endif

/* Hash n whole blocks at p into state. The schedule is the data itself (the key, in HMAC), so
 * it is wiped, once for the n blocks rather than once for each. */
static void sha256_blocks(uint32_t state[8], const unsigned char *p, size_t n)
{
    uint32_t w[64];

#ifdef SHA256_X86
    if (sha256_x86_usable()) {
        sha256_blocks_x86(state, p, n);
        return;
    }
#endif

    for (; n > 0; n--, p += SHA256_BLOCK_BYTES) {
        sha256_schedule(w, p);
        sha256_rounds(state, w);
    }
    sha256_wipe(w, sizeof(w));
}

void sha256_init(struct sha256 *c)
{
    memcpy(c->state, sha256_h0, sizeof(c->state));
    c->bytes = 0;
    memset(c->block, 0, sizeof(c->block));
    c->fill = 0;
}

void sha256_update(struct sha256 *c, const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t blocks;

    /* memcpy from NULL is undefined even for 0 bytes. */
    if (len == 0)
        return;
    c->bytes += len;
    if (c->fill > 0) {
        size_t take = SHA256_BLOCK_BYTES - c->fill < len ? SHA256_BLOCK_BYTES - c->fill : len;

        memcpy(c->block + c->fill, p, take);
        c->fill += take;
        p += take;
        len -= take;
        if (c->fill < SHA256_BLOCK_BYTES)
            return;
        sha256_blocks(c->state, c->block, 1);
        c->fill = 0;
    }
    blocks = len / SHA256_BLOCK_BYTES;
    if (blocks > 0)
        sha256_blocks(c->state, p, blocks);
    p += blocks * SHA256_BLOCK_BYTES;
    len -= blocks * SHA256_BLOCK_BYTES;
    memcpy(c->block, p, len);
    c->fill = len;
}

/* FIPS 180-4 section 5.1.1: a 1 bit, zeros up to 56 bytes into a block, then the length in
 * bits as a big-endian 64-bit number; a second block when the first has no room for it. */
void sha256_final(struct sha256 *c, unsigned char out[SHA256_BYTES])
{
    uint64_t bits = c->bytes * 8;

    c->block[c->fill++] = 0x80;
    if (c->fill > SHA256_BLOCK_BYTES - 8) {
        memset(c->block + c->fill, 0, SHA256_BLOCK_BYTES - c->fill);
        sha256_blocks(c->state, c->block, 1);
        c->fill = 0;
    }
    memset(c->block + c->fill, 0, SHA256_BLOCK_BYTES - 8 - c->fill);
    sha256_store32(c->block + SHA256_BLOCK_BYTES - 8, (uint32_t)(bits >> 32));
    sha256_store32(c->block + SHA256_BLOCK_BYTES - 4, (uint32_t)bits);
    sha256_blocks(c->state, c->block, 1);
    for (int i = 0; i < 8; i++)
        sha256_store32(out + 4 * i, c->state[i]);
    sha256_wipe(c, sizeof(*c));
}

/* One HMAC pass: H((K0 ^ pad) || data). */
static void sha256_hmac_pass(const unsigned char k0[SHA256_BLOCK_BYTES], unsigned char pad,
                             const void *data, size_t len, unsigned char out[SHA256_BYTES])
{
    unsigned char block[SHA256_BLOCK_BYTES];
    struct sha256 c;

    for (size_t i = 0; i < SHA256_BLOCK_BYTES; i++)
        block[i] = k0[i] ^ pad;
    sha256_init(&c);
    sha256_update(&c, block, sizeof(block));
    sha256_update(&c, data, len);
    sha256_final(&c, out);
    sha256_wipe(block, sizeof(block));
}

/* RFC 2104 section 2, with K0 the key hashed when longer than B, then padded with zeros to B
 * bytes. The inner hash is kept apart from out until the end so that out may overlap the key
 * or the message. */
void sha256_hmac(const void *key, size_t keylen, const void *msg, size_t msglen,
                 unsigned char out[SHA256_BYTES])
{
    unsigned char k0[SHA256_BLOCK_BYTES] = {0};
    unsigned char inner[SHA256_BYTES];

    if (keylen > SHA256_BLOCK_BYTES) {
        struct sha256 c;

        sha256_init(&c);
        sha256_update(&c, key, keylen);
        sha256_final(&c, k0);
    } else if (keylen > 0) {
        memcpy(k0, key, keylen);
    }
    sha256_hmac_pass(k0, 0x36, msg, msglen, inner);
    sha256_hmac_pass(k0, 0x5c, inner, sizeof(inner), out);
    sha256_wipe(k0, sizeof(k0));
    sha256_wipe(inner, sizeof(inner));
}

int sha256_equal(const void *a, const void *b, size_t len)
{
    const volatile unsigned char *x = a, *y = b;
    unsigned diff = 0;

    for (size_t i = 0; i < len; i++)
        diff |= x[i] ^ y[i];
    /* diff is 0 to 255: diff - 1 wraps to all ones only for 0, without a branch on diff. */
    return (int)((diff - 1) >> 8 & 1);
}

void sha256_hex(const unsigned char *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}
