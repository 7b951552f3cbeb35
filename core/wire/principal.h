/*
 * principal.h: who a request speaks for, as its transport authenticated it. Over HTTP each
 * request gets one from its credential (a line of [server] auth_token_file, or a verified
 * OAuth access token); the stdio pipe has none (NULL: the local user, who sees everything).
 * A peer holds its principal (peer.h); access sections, rate limits, requestState and the
 * metrics read it. Immutable once made, counted: any thread may hold and drop it.
 */
#ifndef MCPH_PRINCIPAL_H
#define MCPH_PRINCIPAL_H

#include "lib/sha256.h"

#include <cJSON.h>
#include <stdatomic.h>
#include <stddef.h>

enum principal_kind {
    PRINCIPAL_ANONYMOUS = 1, /* HTTP without credentials (none are configured) */
    PRINCIPAL_TOKEN,         /* a line of [server] auth_token_file */
    PRINCIPAL_JWT,           /* an OAuth access token (a JWT) verified against the JWKS */
};

#define PRINCIPAL_ID_MAX 160

struct principal {
    atomic_int refs;
    int kind;                     /* enum principal_kind */
    char id[PRINCIPAL_ID_MAX];    /* stable: "token:N", "jwt:ISS#SUB", "anonymous" */
    char label[PRINCIPAL_ID_MAX]; /* for logs and the audit: "token 2", the token's sub */
    int token;                    /* PRINCIPAL_TOKEN: its line among the tokens (from 0) */
    char **scopes;                /* owned, each owned: the token's scopes ("scope" claim) */
    size_t nscopes;
    cJSON *claims;                      /* owned or NULL: the JWT's payload */
    long long expires;                  /* PRINCIPAL_JWT: exp (seconds since the epoch); else 0 */
    unsigned char digest[SHA256_BYTES]; /* of the credential as sent (zero when anonymous) */
};

/* A new principal of kind with id and label (copied, cut to PRINCIPAL_ID_MAX - 1), one
 * reference; scopes, claims and the rest are filled in by its maker before it is shared.
 * NULL when out of memory. */
struct principal *principal_new(int kind, const char *id, const char *label);

/* Add a scope (copied). STATUS_OK or STATUS_NOMEM. Before the principal is shared. */
int principal_add_scope(struct principal *p, const char *scope);

/* Whether p holds scope (exactly). NULL p holds none. */
int principal_has_scope(const struct principal *p, const char *scope);

/* Whether two principals are the same (same id); NULL equals only NULL. */
int principal_same(const struct principal *a, const struct principal *b);

static inline struct principal *principal_hold(struct principal *p)
{
    if (p != NULL)
        atomic_fetch_add(&p->refs, 1);
    return p;
}

/* Drop a reference; the last frees it. NULL is fine. */
void principal_drop(struct principal *p);

#endif
