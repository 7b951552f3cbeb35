/* base64.h: standard base64 (RFC 4648, with padding) for binary content. */
#ifndef MCPH_BASE64_H
#define MCPH_BASE64_H

#include <stddef.h>

/* Encode len bytes into a new NUL-terminated string (owned by the caller), or NULL when out
 * of memory. */
char *base64_encode(const void *data, size_t len);

/* Decode a NUL-terminated base64 string into a new buffer (owned by the caller) of *len
 * bytes. Returns NULL on bad input or no memory. */
unsigned char *base64_decode(const char *text, size_t *len);

#endif
