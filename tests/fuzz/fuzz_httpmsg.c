/*
 * fuzz_httpmsg.c: what the HTTP transport reads off headers and messages a client controls.
 * The input is split at its first NUL: a header value, then a message. Properties:
 *   - httpmsg_decode_value gives NULL or a string with no NUL, and a value that is not the
 *     whole =?base64?...?= wrapper comes back as itself;
 *   - a decoded value compared against itself as the body value agrees (check_header gives
 *     NULL) when the header holds only visible ASCII, space and tab, and is refused otherwise;
 *     against a different body value it never agrees;
 *   - httpmsg_host_part fits its buffer, has no ':' outside brackets and no upper case;
 *   - httpmsg_accepts, httpmsg_status and httpmsg_has_message never read past their input
 *     (ASan), and httpmsg_status is one of 200, 400, 404;
 *   - a parsed message's request count is between 0 and the batch's size.
 */
#include "transport/httpmsg.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_fail(const char *why, const char *value)
{
    fprintf(stderr, "fuzz_httpmsg: %s (value \"%.80s\")\n", why, value);
    abort();
}

static void fuzz_value(const char *value)
{
    char *decoded = httpmsg_decode_value(value);
    size_t len = strlen(value);
    int wrapped =
        len >= 12 && strncmp(value, "=?base64?", 9) == 0 && strcmp(value + len - 2, "?=") == 0;
    char buf[256];

    if (!wrapped && (decoded == NULL || strcmp(decoded, value) != 0))
        fuzz_fail("a plain value did not come back as itself", value);
    if (decoded != NULL) {
        int plain = 1;

        for (const unsigned char *p = (const unsigned char *)value; *p != '\0'; p++)
            plain &= (*p >= 0x20 && *p <= 0x7e) || *p == '\t';
        if ((httpmsg_check_header("Mcp-Name", value, decoded, 1, buf, sizeof(buf)) == NULL) !=
            plain)
            fuzz_fail(plain ? "a value disagrees with what it decodes to"
                            : "a value with a byte past visible ASCII is taken",
                      value);
        if (strcmp(decoded, "\x01") != 0 &&
            httpmsg_check_header("Mcp-Name", value, "\x01", 1, buf, sizeof(buf)) == NULL)
            fuzz_fail("a value agrees with another body value", value);
    }
    free(decoded);
    (void)httpmsg_accepts(value, "text/event-stream");
    (void)httpmsg_accepts(value, "application/json");
}

static void fuzz_host(const char *value)
{
    char host[32];
    int bracket = 0;

    httpmsg_host_part(value, strlen(value), host, sizeof(host));
    if (strlen(host) >= sizeof(host))
        fuzz_fail("a host past its buffer", value);
    for (const char *p = host; *p != '\0'; p++) {
        if (*p == '[')
            bracket = 1;
        if ((*p == ':' && !bracket) || (*p >= 'A' && *p <= 'Z'))
            fuzz_fail("a host with a port or upper case", value);
    }
}

static void fuzz_message(const char *text, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    unsigned status = httpmsg_status(text, len, 1, 0);
    int n;

    if (status != 200 && status != 400 && status != 404)
        fuzz_fail("a status that is not 200, 400 or 404", text);
    (void)httpmsg_status(text, len, 0, 1);
    (void)httpmsg_has_message(text, len);
    (void)httpmsg_is_answer(text, len);
    n = httpmsg_count_requests(root);
    if (n < 0 || n > (cJSON_IsArray(root) ? cJSON_GetArraySize(root) : 1))
        fuzz_fail("a request count out of range", text);
    if (httpmsg_request_method(root) != NULL) {
        int needed;

        (void)httpmsg_name_of(root, httpmsg_request_method(root), &needed);
        (void)httpmsg_meta_version(root);
    }
    cJSON_Delete(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    size_t first;

    if (copy == NULL)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    first = strlen(copy);
    fuzz_value(copy);
    fuzz_host(copy);
    if (first < size)
        fuzz_message(copy + first + 1, size - first - 1);
    free(copy);
    return 0;
}
