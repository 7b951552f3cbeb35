/*
 * mcph-value.h: the values of an INI key read the way mcph reads its own. Header only: every
 * function is static inline, so there is nothing to link and nothing is exported. mcph's core
 * reads its keys with these too, so a plugin's yes/no and numbers take exactly what
 * `[server]` takes.
 *
 *     int on;
 *     long long n;
 *
 *     if (mcph_value_bool(host->config(host, "follow"), &on) != MCPH_OK) ...
 *     if (mcph_value_int(host->config(host, "max_rows"), 1, 100000, &n) != MCPH_OK) ...
 *
 * Both return MCPH_OK with *out set, or MCPH_ERR_INVALID (NULL text included) with *out
 * untouched; the caller says what was wrong, naming the key, the section and the range, since
 * only it knows them. MCPH_VALUE_BOOL_HELP is the wording for "use yes or no".
 */
#ifndef MCPH_VALUE_H
#define MCPH_VALUE_H

#include "plugin-api.h"

#include <errno.h>
#include <stdlib.h>
#include <strings.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MCPH_VALUE_BOOL_HELP "yes or no (also true/false, on/off, 1/0)"

/* yes, true, on, 1 -> 1; no, false, off, 0 -> 0; in any case (Yes, TRUE). Nothing else. */
static inline int mcph_value_bool(const char *text, int *out)
{
    static const char *const yes[] = {"yes", "true", "on", "1"};
    static const char *const no[] = {"no", "false", "off", "0"};

    for (size_t i = 0; text != NULL && i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(text, yes[i]) == 0 || strcasecmp(text, no[i]) == 0) {
            *out = strcasecmp(text, yes[i]) == 0;
            return MCPH_OK;
        }
    }
    return MCPH_ERR_INVALID;
}

/* A whole number in base 10 from min to max: digits with an optional sign, nothing around
 * them (no spaces, no unit, no "0x"). */
static inline int mcph_value_int(const char *text, long long min, long long max, long long *out)
{
    char *end = NULL;
    long long n;

    if (text == NULL || text[0] == '\0' || text[0] == ' ' || text[0] == '\t')
        return MCPH_ERR_INVALID;
    errno = 0;
    n = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || n < min || n > max)
        return MCPH_ERR_INVALID;
    *out = n;
    return MCPH_OK;
}

#ifdef __cplusplus
}
#endif

#endif
