/*
 * fuzz_schema.c: the JSON Schema validator. The input is a schema and an instance, split at
 * the first NUL byte (no NUL: the whole input is the schema, and the schema is matched
 * against itself). The schema is checked (schema_check), compiled and matched; the instance
 * is held to what dispatch lets through (jsonrpc_scan: at most LIMIT_JSON_DEPTH deep, UTF-8,
 * no escaped NUL). Schemas with patterns that blow up glibc's regcomp are left out (see
 * fuzz_tame_pattern). Properties: a match
 * gives STATUS_OK or STATUS_INVALID with a non-empty message, the same answer as
 * schema_validate, and the same answer twice.
 */
#include "wire/jsonrpc.h"
#include "lib/limits.h"
#include "lib/schema.h"
#include "lib/status.h"
#include "lib/strbuf.h"

#include <cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* FUZZ_SCHEMA_ANY_PATTERN=1: no pattern is left out (see fuzz_tame_pattern). */
static int fuzz_any_pattern;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *any = getenv("FUZZ_SCHEMA_ANY_PATTERN");

    (void)argc;
    (void)argv;
    fuzz_any_pattern = any != NULL && strcmp(any, "1") == 0;
    return 0;
}

/* Whether glibc's regcomp and regexec stay small on pattern: at most three '+' or bounded
 * repetitions (each copies the tree it applies to, so "a++++..." or "(a{99}){99}" grows it
 * exponentially: gigabytes from a hundred bytes) with counts of at most two digits, and no
 * back-reference (regexec backtracks on those). Patterns come from plugins, not clients. */
static int fuzz_tame_pattern(const char *p)
{
    int copies = 0;

    for (; *p != '\0'; p++) {
        if (*p == '\\' && p[1] >= '0' && p[1] <= '9')
            return 0;
        if (*p == '{' && strspn(p + 1, "0123456789") > 2)
            return 0;
        if (*p == '+' || *p == '{')
            copies++;
    }
    return copies <= 3;
}

/* Whether every pattern in the schema (pattern values, patternProperties keys) is tame. */
static int fuzz_tame(const cJSON *node)
{
    const cJSON *child;

    if (cJSON_IsString(node) && node->string != NULL && strcmp(node->string, "pattern") == 0 &&
        !fuzz_tame_pattern(node->valuestring))
        return 0;
    if (cJSON_IsObject(node) && node->string != NULL &&
        strcmp(node->string, "patternProperties") == 0) {
        cJSON_ArrayForEach(child, node)
        {
            if (!fuzz_tame_pattern(child->string))
                return 0;
        }
    }
    cJSON_ArrayForEach(child, node)
    {
        if (!fuzz_tame(child))
            return 0;
    }
    return 1;
}

static void fuzz_fail(const char *why, const char *detail)
{
    fprintf(stderr, "fuzz_schema: %s: %s\n", why, detail);
    abort();
}

/* Whether dispatch would let text through as part of a message: not nested deeper than
 * LIMIT_JSON_DEPTH, no escaped NUL, UTF-8 without raw control bytes. */
static int fuzz_admitted(const char *text, size_t len)
{
    struct jsonrpc_scan scan;

    jsonrpc_scan(text, len, LIMIT_JSON_DEPTH, &scan);
    return scan.depth <= LIMIT_JSON_DEPTH && scan.problem == JSONRPC_TEXT_OK;
}

static void fuzz_match(const cJSON *root, const cJSON *value)
{
    struct schema *s = NULL;
    struct strbuf err = STRBUF_INIT, again = STRBUF_INIT, once = STRBUF_INIT;
    int status, status2, status3;

    if (schema_compile(root, &s) != STATUS_OK)
        return;
    status = schema_match(s, value, &err);
    status2 = schema_match(s, value, &again);
    schema_free(s);
    status3 = schema_validate(root, value, &once);
    if (status != STATUS_OK && status != STATUS_INVALID)
        fuzz_fail("schema_match returned", status_str(status));
    if (status == STATUS_INVALID && err.len == 0)
        fuzz_fail("STATUS_INVALID without a message", "");
    if (status != status2 || status != status3)
        fuzz_fail("the same match gave different answers", err.buf);
    if (status == STATUS_INVALID &&
        (strcmp(err.buf, again.buf) != 0 || strcmp(err.buf, once.buf) != 0))
        fuzz_fail("the same match gave different messages", err.buf);
    strbuf_release(&err);
    strbuf_release(&again);
    strbuf_release(&once);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t slen = nul ? (size_t)(nul - data) : size;
    cJSON *root = cJSON_ParseWithLength((const char *)data, slen);
    cJSON *value = NULL;
    struct strbuf check = STRBUF_INIT;

    if (root == NULL || (!fuzz_any_pattern && !fuzz_tame(root))) {
        cJSON_Delete(root);
        return 0;
    }
    if (nul != NULL) {
        const char *text = (const char *)nul + 1;
        size_t len = size - slen - 1;

        if (fuzz_admitted(text, len))
            value = cJSON_ParseWithLength(text, len);
    }
    if (schema_check(root, &check) == STATUS_INVALID && check.len == 0)
        fuzz_fail("schema_check: STATUS_INVALID without a message", "");
    strbuf_release(&check);
    if (nul == NULL && fuzz_admitted((const char *)data, slen))
        fuzz_match(root, root);
    else if (value != NULL)
        fuzz_match(root, value);
    cJSON_Delete(value);
    cJSON_Delete(root);
    return 0;
}
