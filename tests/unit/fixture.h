/*
 * fixture.h: helpers shared by the unit tests that look at messages, JSON and log pipes.
 * Header only; include after check.h.
 */
#ifndef MCPH_TEST_FIXTURE_H
#define MCPH_TEST_FIXTURE_H

#include "config.h"
#include "diag.h"
#include "log.h"
#include "registry.h"
#include "status.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether d holds a message containing every string of parts (NULL-ended); when not, the
 * messages it does hold are printed to stderr. */
static inline int fixture_has_msg(const struct diag *d, const char *const *parts)
{
    for (size_t i = 0; i < d->count; i++) {
        int all = 1;

        for (size_t j = 0; parts[j] != NULL; j++)
            all &= strstr(d->msgs[i], parts[j]) != NULL;
        if (all)
            return 1;
    }
    fprintf(stderr, "    no message with all of:");
    for (size_t j = 0; parts[j] != NULL; j++)
        fprintf(stderr, " \"%s\"", parts[j]);
    fprintf(stderr, "\n    messages (%zu):\n", d->count);
    for (size_t i = 0; i < d->count; i++)
        fprintf(stderr, "      %s\n", d->msgs[i]);
    return 0;
}

#define FIXTURE_HAS(d, ...) fixture_has_msg((d), (const char *const[]){__VA_ARGS__, NULL})

/* obj equals the JSON text want (members in any order); when not, both are printed. */
static inline int fixture_json_is(const cJSON *obj, const char *want)
{
    cJSON *expected = cJSON_Parse(want);
    int same = expected != NULL && obj != NULL && cJSON_Compare(obj, expected, 1);

    if (!same) {
        char *got = obj ? cJSON_PrintUnformatted(obj) : NULL;

        fprintf(stderr, "    got  %s\n    want %s\n", got ? got : "NULL", want);
        free(got);
    }
    cJSON_Delete(expected);
    return same;
}

/* What the (non-blocking) pipe fd holds now, NUL-terminated in buf. */
static inline void fixture_drain(int fd, char *buf, size_t size)
{
    size_t len = 0;
    ssize_t n;

    while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
        len += (size_t)n;
    buf[len] = '\0';
}

/* An empty served set (no plugins) whose server is named `name`: enough for what answers
 * only need serverInfo from. Free it with registry_free. NULL when out of memory. */
static inline struct registry *fixture_registry(const char *name)
{
    static struct log lg;
    struct registry *reg = NULL;
    struct config cfg;
    struct diag errs;

    log_init(&lg);
    config_init(&cfg);
    diag_init(&errs);
    free(cfg.name);
    cfg.name = strdup(name);
    if (cfg.name == NULL || registry_build(&reg, NULL, 0, &lg, &errs, NULL) != STATUS_OK ||
        registry_set_meta(reg, &cfg) != STATUS_OK) {
        registry_free(reg);
        reg = NULL;
    }
    config_release(&cfg);
    diag_release(&errs);
    return reg;
}

#endif
