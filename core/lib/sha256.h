/*
 * sha256.h: SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), on libc alone.
 *
 *     struct sha256 c;
 *     unsigned char digest[SHA256_BYTES];
 *     sha256_init(&c);
 *     sha256_update(&c, head, head_len);
 *     sha256_update(&c, body, body_len);
 *     sha256_final(&c, digest);
 *
 * Nothing here allocates, fails or keeps global state: any thread may call any function, as
 * long as one struct sha256 is used by one thread at a time. Compare digests and MACs with
 * sha256_equal, never memcmp, so that the time taken does not tell where they differ.
 */
#ifndef MCPH_SHA256_H
#define MCPH_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* The size of a digest and of an HMAC-SHA-256 tag. */
#define SHA256_BYTES 32
/* The size of the block the compression function takes (the HMAC block size B). */
#define SHA256_BLOCK_BYTES 64

/* A hash being computed: set up by sha256_init, fed by sha256_update, read and wiped by
 * sha256_final. The members are private to sha256.c. */
struct sha256 {
    uint32_t state[8];                       /* the intermediate hash value H0..H7 */
    uint64_t bytes;                          /* message bytes fed so far (mod 2^64) */
    unsigned char block[SHA256_BLOCK_BYTES]; /* bytes waiting for a full block */
    size_t fill;                             /* how many of block are waiting, below 64 */
};

/* Start a new hash in c (borrowed for the call), whatever c held before. */
void sha256_init(struct sha256 *c);

/* Feed len bytes of data (borrowed for the call; may be NULL when len is 0) into c, in
 * pieces of any size: the digest is the same however the message is split. */
void sha256_update(struct sha256 *c, const void *data, size_t len);

/* Write the digest of everything fed since sha256_init into out (SHA256_BYTES bytes, borrowed
 * for the call), then wipe c; it must go through sha256_init again before any reuse. */
void sha256_final(struct sha256 *c, unsigned char out[SHA256_BYTES]);

/* HMAC-SHA-256 of msg (msglen bytes) under key (keylen bytes) into out (SHA256_BYTES bytes).
 * A key longer than SHA256_BLOCK_BYTES is hashed first, per RFC 2104. All three are borrowed
 * for the call; key and msg may be NULL when their length is 0, and out may overlap either.
 * Before it returns it wipes the stack buffers that held the key or values derived from it
 * (the padded key, the hash states, the message schedules); what the compiler keeps in
 * registers is beyond the reach of C. A shorter tag is the first bytes of out (RFC 2104
 * section 5). */
void sha256_hmac(const void *key, size_t keylen, const void *msg, size_t msglen,
                 unsigned char out[SHA256_BYTES]);

/* 1 when the len bytes at a and b (borrowed for the call; may be NULL when len is 0) are
 * equal, else 0. Every byte is read whatever the contents, so the time depends on len alone,
 * not on where a and b differ: use it to check a MAC or a digest. len 0 is equal. */
int sha256_equal(const void *a, const void *b, size_t len);

/* n bytes (a digest, a MAC, a key id) as 2n lowercase hex digits and a NUL into out. */
void sha256_hex(const unsigned char *bytes, size_t n, char *out);

#endif
