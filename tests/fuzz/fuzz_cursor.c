/*
 * fuzz_cursor.c: the list cursor codec (base64 of "mcph:<tag>:<offset>"). The first byte picks
 * the list tag, the next eight an offset and the next eight a list length; the rest is a
 * cursor as a client might send it. Properties:
 *   - lists_cursor_offset on the client's cursor gives STATUS_OK with an offset no larger
 *     than the list, or STATUS_INVALID;
 *   - a cursor mcph made decodes to its offset again for its own list while the offset is
 *     within it, and is refused for another tag or a shorter list;
 *   - re-encoding an accepted client cursor's offset decodes to the same offset.
 */
#include "protocol/lists.h"
#include "lib/status.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The tags the lists use (tools, resources, templates, prompts). */
static const char fuzz_tags[] = "trup";

static void fuzz_fail(const char *why, char tag, size_t offset, size_t count)
{
    fprintf(stderr, "fuzz_cursor: %s (tag %c, offset %zu, count %zu)\n", why, tag, offset, count);
    abort();
}

static size_t fuzz_size(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return (size_t)v;
}

/* A cursor mcph made for offset, read back against lists of several lengths. */
static void fuzz_round_trip(char tag, size_t offset, size_t count)
{
    char other = fuzz_tags[(strchr(fuzz_tags, tag) - fuzz_tags + 1) % 4];
    char *cursor = lists_cursor(tag, offset);
    size_t got = (size_t)-1;
    int status;

    if (cursor == NULL)
        return;
    status = lists_cursor_offset(cursor, tag, count, &got);
    if (offset <= count && (status != STATUS_OK || got != offset))
        fuzz_fail("a cursor mcph made does not decode to its offset", tag, offset, count);
    if (offset > count && status != STATUS_INVALID)
        fuzz_fail("a cursor past the end of the list is accepted", tag, offset, count);
    if (lists_cursor_offset(cursor, other, SIZE_MAX, &got) != STATUS_INVALID)
        fuzz_fail("a cursor of another list is accepted", tag, offset, count);
    free(cursor);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char tag, *cursor;
    size_t offset, count, got = (size_t)-1;

    if (size < 17)
        return 0;
    tag = fuzz_tags[data[0] % 4];
    offset = fuzz_size(data + 1);
    count = fuzz_size(data + 9);
    fuzz_round_trip(tag, offset, count);
    fuzz_round_trip(tag, offset, SIZE_MAX);
    fuzz_round_trip(tag, offset % 1000, 1000);

    cursor = malloc(size - 17 + 1);
    if (cursor == NULL)
        return 0;
    memcpy(cursor, data + 17, size - 17);
    cursor[size - 17] = '\0';
    if (lists_cursor_offset(cursor, tag, count, &got) == STATUS_OK) {
        char *again;
        size_t back = (size_t)-1;

        if (got > count)
            fuzz_fail("an accepted cursor points past the list", tag, got, count);
        again = lists_cursor(tag, got);
        if (again != NULL &&
            (lists_cursor_offset(again, tag, count, &back) != STATUS_OK || back != got))
            fuzz_fail("an accepted cursor's offset does not survive re-encoding", tag, got, count);
        free(again);
    }
    free(cursor);
    return 0;
}
