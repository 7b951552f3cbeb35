#include "wire/jsonrpc.h"

#include "lib/status.h"
#include "lib/utf8.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define JSONRPC_READ_CHUNK 65536
#define JSONRPC_KEEP_BYTES (1024u * 1024u)

void jsonrpc_reader_init(struct jsonrpc_reader *r, int fd, size_t max)
{
    memset(r, 0, sizeof(*r));
    r->fd = fd;
    r->max = max;
}

/* The buffer let go (a long line once should not keep its buffer for good). */
static void jsonrpc_reader_drop(struct jsonrpc_reader *r)
{
    free(r->buf);
    r->buf = NULL;
    r->len = r->start = r->scan = r->cap = 0;
}

void jsonrpc_reader_release(struct jsonrpc_reader *r)
{
    if (r == NULL)
        return;
    jsonrpc_reader_drop(r);
}

/* Room for one more chunk, after moving unreturned bytes to the front. */
static int jsonrpc_reader_room(struct jsonrpc_reader *r)
{
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->len - r->start);
        r->len -= r->start;
        r->start = 0;
    }
    if (r->cap - r->len < JSONRPC_READ_CHUNK + 1) {
        size_t cap = r->cap ? r->cap * 2 : 2 * JSONRPC_READ_CHUNK;
        char *buf;

        while (cap - r->len < JSONRPC_READ_CHUNK + 1)
            cap *= 2;
        buf = realloc(r->buf, cap);
        if (buf == NULL)
            return STATUS_NOMEM;
        r->buf = buf;
        r->cap = cap;
    }
    return STATUS_OK;
}

int jsonrpc_reader_fill(struct jsonrpc_reader *r)
{
    ssize_t n;

    if (r->eof)
        return STATUS_EOF;
    if (r->start == r->len && r->cap > JSONRPC_KEEP_BYTES)
        jsonrpc_reader_drop(r);
    if (jsonrpc_reader_room(r) != STATUS_OK)
        return STATUS_NOMEM;
    n = read(r->fd, r->buf + r->len, JSONRPC_READ_CHUNK);
    if (n < 0 && errno == EINTR)
        return STATUS_AGAIN;
    if (n < 0)
        return errno == EAGAIN ? STATUS_OK : STATUS_IO;
    if (n == 0) {
        r->eof = 1;
        return STATUS_EOF;
    }
    r->len += (size_t)n;
    return STATUS_OK;
}

int jsonrpc_reader_next(struct jsonrpc_reader *r, char **line, size_t *len)
{
    char *start, *nl;
    size_t avail = r->len - r->start, n;

    if (r->buf == NULL)
        return STATUS_AGAIN; /* nothing read yet, or the buffer was let go */
    if (avail == 0 && r->cap > JSONRPC_KEEP_BYTES) {
        jsonrpc_reader_drop(r);
        return STATUS_AGAIN;
    }
    start = r->buf + r->start;
    /* Each read of a long line searches only the bytes it added. */
    nl = avail > r->scan ? memchr(start + r->scan, '\n', avail - r->scan) : NULL;

    if (nl == NULL) {
        r->scan = avail;
        if (r->skipping) {
            r->start = r->len;
            r->scan = 0;
            return STATUS_AGAIN;
        }
        if (avail > r->max) {
            /* Over-long: say so once, then drop bytes up to its newline. */
            r->skipping = 1;
            r->start = r->len;
            r->scan = 0;
            return STATUS_LIMIT;
        }
        if (!r->eof || avail == 0)
            return STATUS_AGAIN;
        /* A last line without newline; fill() always leaves room for the NUL. */
        nl = start + avail;
    }
    n = (size_t)(nl - start);
    r->start += n + (r->start + n < r->len);
    r->scan = 0;
    if (r->skipping) {
        r->skipping = 0;
        return jsonrpc_reader_next(r, line, len);
    }
    if (n > r->max)
        return STATUS_LIMIT;
    if (n > 0 && start[n - 1] == '\r')
        n--;
    start[n] = '\0';
    *line = start;
    *len = n;
    return STATUS_OK;
}

char *jsonrpc_int_text(const cJSON *id, char *buf)
{
    long long v = (long long)id->valuedouble;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    char digits[JSONRPC_INT_TEXT];
    size_t n = 0, at = 0;

    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u > 0);
    if (v < 0)
        buf[at++] = '-';
    while (n > 0)
        buf[at++] = digits[--n];
    buf[at] = '\0';
    return buf;
}

/* A copy of a request id; an integer as raw text, so printing it costs a copy. */
static cJSON *jsonrpc_id_copy(const cJSON *id)
{
    char buf[JSONRPC_INT_TEXT];

    if (id == NULL)
        return cJSON_CreateNull();
    if (!cJSON_IsNumber(id) || !jsonrpc_valid_id(id))
        return cJSON_Duplicate(id, 1);
    return cJSON_CreateRaw(jsonrpc_int_text(id, buf));
}

static cJSON *jsonrpc_envelope(const cJSON *id)
{
    cJSON *msg = cJSON_CreateObject();
    cJSON *copy = jsonrpc_id_copy(id);

    if (msg == NULL || copy == NULL || cJSON_AddStringToObject(msg, "jsonrpc", "2.0") == NULL) {
        cJSON_Delete(msg);
        cJSON_Delete(copy);
        return NULL;
    }
    cJSON_AddItemToObject(msg, "id", copy);
    return msg;
}

cJSON *jsonrpc_result(const cJSON *id, cJSON *result)
{
    cJSON *msg = result ? jsonrpc_envelope(id) : NULL;

    if (msg == NULL) {
        cJSON_Delete(result);
        return NULL;
    }
    cJSON_AddItemToObject(msg, "result", result);
    return msg;
}

cJSON *jsonrpc_error(const cJSON *id, int code, const char *message, cJSON *data)
{
    cJSON *msg = jsonrpc_envelope(id);
    cJSON *err = cJSON_CreateObject();

    if (msg == NULL || err == NULL || cJSON_AddNumberToObject(err, "code", code) == NULL ||
        cJSON_AddStringToObject(err, "message", message) == NULL) {
        cJSON_Delete(msg);
        cJSON_Delete(err);
        cJSON_Delete(data);
        return NULL;
    }
    if (data != NULL)
        cJSON_AddItemToObject(err, "data", data);
    cJSON_AddItemToObject(msg, "error", err);
    return msg;
}

cJSON *jsonrpc_notification(const char *method, cJSON *params)
{
    cJSON *msg = cJSON_CreateObject();

    if (msg == NULL || cJSON_AddStringToObject(msg, "jsonrpc", "2.0") == NULL ||
        cJSON_AddStringToObject(msg, "method", method) == NULL) {
        cJSON_Delete(msg);
        cJSON_Delete(params);
        return NULL;
    }
    if (params != NULL)
        cJSON_AddItemToObject(msg, "params", params);
    return msg;
}

/* The bytes jsonrpc_scan stops at; every other byte is skipped in a tight loop. */
enum jsonrpc_byte {
    JSONRPC_QUOTE = 1,
    JSONRPC_ESCAPE,
    JSONRPC_OPEN,
    JSONRPC_CLOSE,
    JSONRPC_CONTROL, /* below 0x20 */
    JSONRPC_SPACE, /* tab, line feed, carriage return: control bytes JSON allows outside strings */
    JSONRPC_HIGH,  /* 0x80 and above: the start of a multi-byte sequence, or not UTF-8 */
};

#define JSONRPC_H16(b)                                                                             \
    [b] = JSONRPC_HIGH, [b + 1] = JSONRPC_HIGH, [b + 2] = JSONRPC_HIGH, [b + 3] = JSONRPC_HIGH,    \
    [b + 4] = JSONRPC_HIGH, [b + 5] = JSONRPC_HIGH, [b + 6] = JSONRPC_HIGH,                        \
    [b + 7] = JSONRPC_HIGH, [b + 8] = JSONRPC_HIGH, [b + 9] = JSONRPC_HIGH,                        \
    [b + 10] = JSONRPC_HIGH, [b + 11] = JSONRPC_HIGH, [b + 12] = JSONRPC_HIGH,                     \
    [b + 13] = JSONRPC_HIGH, [b + 14] = JSONRPC_HIGH, [b + 15] = JSONRPC_HIGH

static const unsigned char jsonrpc_bytes[256] = {
    [0x00] = JSONRPC_CONTROL, [0x01] = JSONRPC_CONTROL, [0x02] = JSONRPC_CONTROL,
    [0x03] = JSONRPC_CONTROL, [0x04] = JSONRPC_CONTROL, [0x05] = JSONRPC_CONTROL,
    [0x06] = JSONRPC_CONTROL, [0x07] = JSONRPC_CONTROL, [0x08] = JSONRPC_CONTROL,
    [0x09] = JSONRPC_SPACE,   [0x0a] = JSONRPC_SPACE,   [0x0b] = JSONRPC_CONTROL,
    [0x0c] = JSONRPC_CONTROL, [0x0d] = JSONRPC_SPACE,   [0x0e] = JSONRPC_CONTROL,
    [0x0f] = JSONRPC_CONTROL, [0x10] = JSONRPC_CONTROL, [0x11] = JSONRPC_CONTROL,
    [0x12] = JSONRPC_CONTROL, [0x13] = JSONRPC_CONTROL, [0x14] = JSONRPC_CONTROL,
    [0x15] = JSONRPC_CONTROL, [0x16] = JSONRPC_CONTROL, [0x17] = JSONRPC_CONTROL,
    [0x18] = JSONRPC_CONTROL, [0x19] = JSONRPC_CONTROL, [0x1a] = JSONRPC_CONTROL,
    [0x1b] = JSONRPC_CONTROL, [0x1c] = JSONRPC_CONTROL, [0x1d] = JSONRPC_CONTROL,
    [0x1e] = JSONRPC_CONTROL, [0x1f] = JSONRPC_CONTROL, ['"'] = JSONRPC_QUOTE,
    ['\\'] = JSONRPC_ESCAPE,  ['['] = JSONRPC_OPEN,     ['{'] = JSONRPC_OPEN,
    [']'] = JSONRPC_CLOSE,    ['}'] = JSONRPC_CLOSE,    JSONRPC_H16(0x80),
    JSONRPC_H16(0x90),        JSONRPC_H16(0xA0),        JSONRPC_H16(0xB0),
    JSONRPC_H16(0xC0),        JSONRPC_H16(0xD0),        JSONRPC_H16(0xE0),
    JSONRPC_H16(0xF0),
};

void jsonrpc_scan(const char *text, size_t len, int limit, struct jsonrpc_scan *out)
{
    const unsigned char *s = (const unsigned char *)text;
    int depth = 0, max = 0, in_string = 0;
    size_t i = 0, n;

    out->problem = JSONRPC_TEXT_OK;
    out->at = 0;
    for (; i < len; i++) {
        unsigned char kind = jsonrpc_bytes[s[i]];

        /* Most bytes: nothing to note (kept first, it is the whole loop for plain text). */
        if (kind == 0)
            continue;
        switch (kind) {
        case JSONRPC_HIGH:
            n = utf8_sequence(s + i, len - i);
            if (n == 0) {
                out->problem = JSONRPC_TEXT_UTF8;
                goto done;
            }
            i += n - 1;
            break;
        case JSONRPC_SPACE:
        case JSONRPC_CONTROL:
            if (in_string || kind == JSONRPC_CONTROL) {
                out->problem = JSONRPC_TEXT_CONTROL;
                goto done;
            }
            break;
        case JSONRPC_QUOTE:
            in_string = !in_string;
            break;
        case JSONRPC_ESCAPE:
            if (!in_string)
                break;
            if (i + 5 < len && s[i + 1] == 'u' && memcmp(text + i + 2, "0000", 4) == 0)
                out->problem = JSONRPC_TEXT_NUL_ESCAPE;
            /* The escaped byte is not looked at (a raw control byte there is cJSON's to
             * refuse, as an invalid escape). */
            i++;
            break;
        case JSONRPC_OPEN:
            if (!in_string && ++depth > max && (max = depth) > limit)
                goto done;
            break;
        case JSONRPC_CLOSE:
            depth -= !in_string;
            break;
        }
    }
done:
    out->at = i;
    out->depth = max;
}

int jsonrpc_valid_id(const cJSON *id)
{
    if (cJSON_IsString(id))
        return 1;
    return cJSON_IsNumber(id) && id->valuedouble == floor(id->valuedouble) &&
           fabs(id->valuedouble) < 9007199254740992.0;
}

cJSON *jsonrpc_not_found(const cJSON *id, const char *uri, const char *message, int modern)
{
    cJSON *data = cJSON_CreateObject();
    /* 2026-07-28 retired -32002: a missing resource is invalid params there. */
    int code = modern ? JSONRPC_INVALID_PARAMS : JSONRPC_RESOURCE_NOT_FOUND;

    cJSON_AddStringToObject(data, "uri", uri);
    return jsonrpc_error(id, code, message, data);
}
