/*
 * fuzz_uritemplate.c: RFC 6570 templates as plugins name resource families. The input is a
 * template and a URI split at the first NUL byte (no NUL: the template is matched against
 * itself). Properties: uritemplate_check returns STATUS_OK or STATUS_INVALID with a reason;
 * a template that passed it (as every template served did) matches giving an object of
 * string variables, at most LIMIT_ARGS, each named in the template, and matching without
 * asking for the variables agrees.
 */
#include "lib/limits.h"
#include "lib/status.h"
#include "lib/uritemplate.h"

#include <cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_fail(const char *why, const char *tpl, const char *uri)
{
    fprintf(stderr, "fuzz_uritemplate: %s\n  template: %s\n  uri: %s\n", why, tpl, uri);
    abort();
}

/* Whether "{name}" or "{+name}" is in tpl. */
static int fuzz_named(const char *tpl, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = strchr(tpl, '{'); p != NULL; p = strchr(p + 1, '{')) {
        const char *v = p[1] == '+' ? p + 2 : p + 1;

        if (strncmp(v, name, n) == 0 && v[n] == '}')
            return 1;
    }
    return 0;
}

static void fuzz_one(const char *tpl, const char *uri)
{
    const char *why = NULL;
    cJSON *vars = NULL;
    const cJSON *v;
    int checked = uritemplate_check(tpl, &why);
    int status;

    if (checked != STATUS_OK && (checked != STATUS_INVALID || why == NULL))
        fuzz_fail("uritemplate_check: neither ok nor a reason", tpl, uri);
    /* Only checked templates are matched: plugin.c refuses a plugin whose template fails the
     * check, and uritemplate_match relies on it (an unclosed brace is not looked for). */
    if (checked != STATUS_OK)
        return;
    status = uritemplate_match(tpl, uri, &vars);
    if (status != STATUS_OK) {
        if (vars != NULL)
            fuzz_fail("no match, yet variables", tpl, uri);
        return;
    }
    if (!cJSON_IsObject(vars))
        fuzz_fail("a match without an object of variables", tpl, uri);
    if (cJSON_GetArraySize(vars) > LIMIT_ARGS)
        fuzz_fail("more variables than LIMIT_ARGS", tpl, uri);
    cJSON_ArrayForEach(v, vars)
    {
        if (!cJSON_IsString(v))
            fuzz_fail("a variable that is not a string", tpl, uri);
        if (!fuzz_named(tpl, v->string))
            fuzz_fail("a variable the template does not name", tpl, uri);
    }
    cJSON_Delete(vars);
    /* The same without asking for the variables. */
    if (uritemplate_match(tpl, uri, NULL) != STATUS_OK)
        fuzz_fail("matches with vars but not without", tpl, uri);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    char *nul;

    if (copy == NULL)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    nul = memchr(copy, 0, size);
    fuzz_one(copy, nul ? nul + 1 : copy);
    free(copy);
    return 0;
}
