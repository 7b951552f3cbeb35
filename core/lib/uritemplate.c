#include "lib/uritemplate.h"

#include "lib/limits.h"
#include "lib/status.h"

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

/* A match in progress. Whether the rest of the template from its k-th variable on matches
 * the rest of the URI from a given offset is remembered, so a template with several
 * variables costs (variables x URI length) steps, not a search through every split. */
struct uritemplate_m {
    const char *uri;   /* the whole URI */
    size_t len;        /* its length */
    signed char *memo; /* [k * (len + 1) + offset]: -1 not known yet, 0 no, 1 yes */
    size_t nvars;      /* variables in the template */
};

/* Match tpl (after k variables) against uri; variables found are added to vars (may be
 * NULL: only whether it matches). */
static int uritemplate_rmatch(struct uritemplate_m *m, const char *tpl, size_t k, const char *uri,
                              cJSON *vars)
{
    signed char *seen = NULL;

    if (vars == NULL && m->memo != NULL && k <= m->nvars) {
        seen = &m->memo[k * (m->len + 1) + (size_t)(uri - m->uri)];
        if (*seen >= 0)
            return *seen;
    }
    while (*tpl != '\0' && *tpl != '{') {
        if (*tpl++ != *uri++) {
            if (seen != NULL)
                *seen = 0;
            return 0;
        }
    }
    if (*tpl == '\0') {
        if (seen != NULL)
            *seen = *uri == '\0';
        return *uri == '\0';
    }

    int reserved = tpl[1] == '+';
    const char *name = tpl + 1 + reserved;
    const char *close = strchr(name, '}');
    size_t max = reserved ? strlen(uri) : strcspn(uri, "/?#");

    /* Longest first, so "{+path}" takes as much as the rest of the template allows. */
    for (size_t len = max; len >= 1; len--) {
        char key[URITEMPLATE_VAR_MAX + 1];
        char *value;

        if (!uritemplate_rmatch(m, close + 1, k + 1, uri + len, NULL))
            continue;
        if (vars == NULL) {
            if (seen != NULL)
                *seen = 1;
            return 1;
        }
        value = uritemplate_value(uri, len, !reserved);
        if (value == NULL)
            return 0;
        memcpy(key, name, (size_t)(close - name));
        key[close - name] = '\0';
        cJSON_AddItemToObject(vars, key, cJSON_CreateString(value));
        free(value);
        return uritemplate_rmatch(m, close + 1, k + 1, uri + len, vars);
    }
    if (seen != NULL)
        *seen = 0;
    return 0;
}

int uritemplate_match(const char *tpl, const char *uri, cJSON **vars)
{
    struct uritemplate_m m = {.uri = uri, .len = strlen(uri)};
    int status = STATUS_OK;
    cJSON *obj = NULL;

    if (m.len > LIMIT_URI)
        return STATUS_NOT_FOUND;
    for (const char *s = tpl; (s = strchr(s, '{')) != NULL; s++)
        m.nvars++;
    if (m.nvars > 1) {
        m.memo = malloc((m.nvars + 1) * (m.len + 1));
        if (m.memo == NULL)
            return STATUS_NOMEM;
        memset(m.memo, -1, (m.nvars + 1) * (m.len + 1));
    }
    if (!uritemplate_rmatch(&m, tpl, 0, uri, NULL))
        status = STATUS_NOT_FOUND;
    else if (vars != NULL && (obj = cJSON_CreateObject()) == NULL)
        status = STATUS_NOMEM;
    else if (vars != NULL && !uritemplate_rmatch(&m, tpl, 0, uri, obj))
        status = STATUS_NOT_FOUND; /* a bad percent escape in a {var}: not a match */
    if (status == STATUS_OK && vars != NULL)
        *vars = obj;
    else
        cJSON_Delete(obj);
    free(m.memo);
    return status;
}
