#include "uritemplate.h"

#include "limits.h"
#include "status.h"

#include <stdlib.h>
#include <string.h>

#define URITEMPLATE_VAR_MAX 64

static const char uritemplate_var_chars[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";

int uritemplate_check(const char *tpl, const char **why)
{
    int vars = 0;
    int prev_var = 0;

    for (const char *s = tpl; *s != '\0';) {
        const char *close;
        size_t len;

        if (*s == '}') {
            *why = "'}' without '{'";
            return STATUS_INVALID;
        }
        if (*s != '{') {
            s++;
            prev_var = 0;
            continue;
        }
        close = strchr(s, '}');
        if (close == NULL) {
            *why = "'{' without '}'";
            return STATUS_INVALID;
        }
        s += 1 + (s[1] == '+');
        len = (size_t)(close - s);
        if (len == 0 || len > URITEMPLATE_VAR_MAX || strspn(s, uritemplate_var_chars) != len) {
            *why = "a variable must be {name} or {+name} with name of A-Z a-z 0-9 _";
            return STATUS_INVALID;
        }
        if (prev_var) {
            *why = "two variables side by side cannot be told apart";
            return STATUS_INVALID;
        }
        if (++vars > LIMIT_ARGS) {
            *why = "too many variables";
            return STATUS_INVALID;
        }
        prev_var = 1;
        s = close + 1;
    }
    return STATUS_OK;
}

static int uritemplate_hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A copy of s[0..len), percent-decoded when decode is set. NULL on a bad escape, a decoded
 * NUL, or no memory. */
static char *uritemplate_value(const char *s, size_t len, int decode)
{
    char *out = malloc(len + 1);
    size_t n = 0;

    if (out == NULL)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        int hi, lo;

        if (!decode || s[i] != '%') {
            out[n++] = s[i];
            continue;
        }
        hi = i + 2 < len ? uritemplate_hex(s[i + 1]) : -1;
        lo = i + 2 < len ? uritemplate_hex(s[i + 2]) : -1;
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
            free(out);
            return NULL;
        }
        out[n++] = (char)(hi * 16 + lo);
        i += 2;
    }
    out[n] = '\0';
    return out;
}

/* Recursive match; variables found are added to vars (may be NULL). */
static int uritemplate_rmatch(const char *tpl, const char *uri, cJSON *vars)
{
    while (*tpl != '\0' && *tpl != '{') {
        if (*tpl++ != *uri++)
            return 0;
    }
    if (*tpl == '\0')
        return *uri == '\0';

    int reserved = tpl[1] == '+';
    const char *name = tpl + 1 + reserved;
    const char *close = strchr(name, '}');
    size_t max = reserved ? strlen(uri) : strcspn(uri, "/?#");

    /* Longest first, so "{+path}" takes as much as the rest of the template allows. */
    for (size_t len = max; len >= 1; len--) {
        char key[URITEMPLATE_VAR_MAX + 1];
        char *value;

        if (!uritemplate_rmatch(close + 1, uri + len, NULL))
            continue;
        if (vars == NULL)
            return 1;
        value = uritemplate_value(uri, len, !reserved);
        if (value == NULL)
            return 0;
        memcpy(key, name, (size_t)(close - name));
        key[close - name] = '\0';
        cJSON_AddItemToObject(vars, key, cJSON_CreateString(value));
        free(value);
        return uritemplate_rmatch(close + 1, uri + len, vars);
    }
    return 0;
}

int uritemplate_match(const char *tpl, const char *uri, cJSON **vars)
{
    cJSON *obj;

    if (strlen(uri) > LIMIT_URI || !uritemplate_rmatch(tpl, uri, NULL))
        return STATUS_NOT_FOUND;
    if (vars == NULL)
        return STATUS_OK;
    obj = cJSON_CreateObject();
    if (obj == NULL)
        return STATUS_NOMEM;
    if (!uritemplate_rmatch(tpl, uri, obj)) {
        /* A bad percent escape in a {var}: not a match. */
        cJSON_Delete(obj);
        return STATUS_NOT_FOUND;
    }
    *vars = obj;
    return STATUS_OK;
}
