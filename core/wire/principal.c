/*
 * principal.c: who a request speaks for (principal.h).
 */
#include "wire/principal.h"

#include "lib/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct principal *principal_new(int kind, const char *id, const char *label)
{
    struct principal *p = calloc(1, sizeof(*p));

    if (p == NULL)
        return NULL;
    atomic_init(&p->refs, 1);
    p->kind = kind;
    p->token = -1;
    snprintf(p->id, sizeof(p->id), "%s", id);
    snprintf(p->label, sizeof(p->label), "%s", label);
    return p;
}

int principal_add_scope(struct principal *p, const char *scope)
{
    char **grown = realloc(p->scopes, (p->nscopes + 1) * sizeof(*grown));
    char *copy = strdup(scope);

    if (grown != NULL)
        p->scopes = grown;
    if (grown == NULL || copy == NULL) {
        free(copy);
        return STATUS_NOMEM;
    }
    p->scopes[p->nscopes++] = copy;
    return STATUS_OK;
}

int principal_has_scope(const struct principal *p, const char *scope)
{
    for (size_t i = 0; p != NULL && i < p->nscopes; i++) {
        if (strcmp(p->scopes[i], scope) == 0)
            return 1;
    }
    return 0;
}

int principal_same(const struct principal *a, const struct principal *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a->id, b->id) == 0;
}

void principal_drop(struct principal *p)
{
    if (p == NULL || atomic_fetch_sub(&p->refs, 1) != 1)
        return;
    for (size_t i = 0; i < p->nscopes; i++)
        free(p->scopes[i]);
    free(p->scopes);
    cJSON_Delete(p->claims);
    free(p);
}
