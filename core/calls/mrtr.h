/*
 * mrtr.h: a 2026-07-28 call's questions to the client (MRTR), the state of a call that needs
 * input. Under 2026-07-28 there is no request from server to client. The handler's n-th
 * question is keyed "ask-n", or by the name the handler gave it (host->ask_key; n still
 * counts it, so the keys of the others do not shift); its answer comes in a retry of the
 * request (inputResponses, or an earlier round's answers carried in requestState), or already
 * in the first run's inputResponses. A question with no answer yet is recorded, and the
 * request answers with an InputRequiredResult listing them; the client asks the user and
 * retries. The request's origin (host->call_origin), and a text the handler keeps with the
 * call (host->keep: a relayed server's own requestState), are kept across the retries in
 * requestState. One request's handler, one thread.
 */
#ifndef MCPH_MRTR_H
#define MCPH_MRTR_H

#include "lib/limits.h"
#include "lib/sha256.h"
#include "served/registry.h"
#include "wire/principal.h"

#include <cJSON.h>
#include <stddef.h>

/* mcph's own: the origin (host->call_origin) of the request an isolated plugin's parent
 * serves, in the _meta of what it sends its child; only an isolated child reads it. */
#define MRTR_KEY_ORIGIN "dev.mcph/origin"

/* The longest origin text (host->call_origin), in bytes. mcph makes MRTR_ORIGIN_FRESH of
 * them: 128 random bits in hex. */
#define MRTR_ORIGIN_MAX 64
#define MRTR_ORIGIN_FRESH 32

struct mrtr {
    cJSON *answers;                /* owned: every answer so far (requestState and this round's) */
    cJSON *requests;               /* owned: questions asked with no answer yet, or NULL */
    cJSON *named;                  /* owned: the names this run's questions went under, or NULL */
    int nasks;                     /* questions asked by this run of the handler */
    char next[LIMIT_MRTR_KEY + 1]; /* the name of the next question, or "": ask-n */
    const unsigned char *key;      /* borrowed, or NULL: requestState is sealed with it */
    size_t keylen;
    char origin[MRTR_ORIGIN_MAX + 1]; /* who asks: kept in requestState for the retries */
    /* With a key, the state is bound to these (mrtr_begin_as). */
    char who[PRINCIPAL_ID_MAX];        /* the principal's id, "" for none (stdio) */
    char digest[2 * SHA256_BYTES + 1]; /* hex digest of the request (method and params) */
    long long now;                     /* seconds since the epoch when the request began */
    const char *refused;               /* static text: why requestState was refused, or NULL */
    char *kept; /* owned, or NULL: the handler's text (host->keep), carried in requestState */
};

/* Whether text may be an origin: 1 to MRTR_ORIGIN_MAX of A-Z a-z 0-9 _ . : -. */
int mrtr_origin_ok(const char *text);

/* A new origin into out (MRTR_ORIGIN_MAX + 1 bytes): random, unlike any other. Returns
 * STATUS_OK, or STATUS_IO when the system gives no randomness (out is then ""). */
int mrtr_origin_fresh(char *out) __attribute__((warn_unused_result));

/* Read the answers a retry carries: inputResponses, then those of requestState if it is ours
 * for this request (msg's method and `target`, the exposed name or URI) that inputResponses
 * does not replace; only keys a question may go under, LIMIT_MRTR_ASKS at most. m->origin is
 * that state's origin, or "" for a first request (or a state not ours): mrtr_origin makes
 * one when the handler asks. msg borrowed.
 * With a key ([server] state_key_file; borrowed, keylen bytes, NULL: none), requestState
 * carries an HMAC-SHA256 of its text under that key, so any mcph that shares the key takes a
 * retry and none takes a state it did not seal. Returns STATUS_OK, or STATUS_INVALID when a
 * key is set and requestState is not sealed under it (m is still set up, and released as
 * usual), m->refused saying why. */
int mrtr_begin(struct mrtr *m, const unsigned char *key, size_t keylen, const cJSON *msg,
               const char *target) __attribute__((warn_unused_result));

/* mrtr_begin for a request of principal `who` (its id, borrowed; NULL for none, the stdio
 * pipe) at `now` (seconds since the epoch; mrtr_begin gives the clock's). With a key, the
 * requestState mrtr_result makes also carries who, a digest of msg (its method and params
 * without inputResponses, requestState and _meta, members in name order) and an expiry
 * (now + LIMIT_MRTR_STATE_S); a retry whose state names another principal, another request
 * or a time past is refused: STATUS_INVALID, like an altered seal, with the reason in
 * m->refused (the end of an "Invalid requestState: " message). Without a key (stdio) the state
 * is bound to method and target only, and one for another request is ignored. */
int mrtr_begin_as(struct mrtr *m, const unsigned char *key, size_t keylen, const cJSON *msg,
                  const char *target, const char *who, long long now)
    __attribute__((warn_unused_result));

/* Keep text (copied; NULL or "" keeps nothing) with the call: the requestState of an
 * InputRequiredResult carries it, sealed with the rest, and the retry's mrtr_begin gives it
 * back in m->kept (only from a state that is ours for this request: on any mcph that shares
 * the key). Until replaced, what the retry brought is carried on to the next round. A text
 * (not NULL) starts a new round: the answers so far (the retry's and those carried) and the
 * names this run's questions went under are forgotten, so a question asked after it, in this
 * run or a retry, is answered only by what the client sends from then on. Returns STATUS_OK,
 * STATUS_LIMIT past LIMIT_MRTR_KEPT bytes, or STATUS_NOMEM (on failure nothing changed). m
 * may be all zero (a legacy call: kept, never carried). */
int mrtr_keep(struct mrtr *m, const char *text) __attribute__((warn_unused_result));

/* The origin of m's request (host->call_origin): the one its state carried, else a fresh one
 * made now (mrtr_origin_fresh; without randomness from the system, one unique in this
 * process) and kept for the rest of the request. Borrowed for m's life. The handler's thread. */
const char *mrtr_origin(struct mrtr *m);

/* The handler asks `method` (sampling/createMessage, ...) with params (owned), under the name
 * set by mrtr_name (which it uses up), else "ask-n". Returns STATUS_OK with *answer (owned
 * by the caller) when the request carries it, STATUS_AGAIN when recorded for an
 * InputRequiredResult, STATUS_LIMIT past LIMIT_MRTR_ASKS questions, STATUS_INVALID for an
 * unnamed question whose ask-N an earlier one of this run was named, or STATUS_NOMEM. */
int mrtr_ask(struct mrtr *m, const char *method, cJSON *params, cJSON **answer);

/* Name the handler's next question (host->ask_key): 1 to LIMIT_MRTR_KEY of A-Z a-z 0-9 _ . -,
 * or "ask-N" as mcph writes them (N from 1 to LIMIT_MRTR_ASKS, no leading zero: a relayed
 * server's own numbering), and not a name a question of this run went under already, nor the
 * ask-N an unnamed one took (an unnamed question whose ask-N a name took is refused by
 * mrtr_ask: STATUS_INVALID). name NULL forgets a pending name. Returns STATUS_OK or STATUS_INVALID
 * (the pending name is then unchanged). m may be all zero (a legacy call, with no begin). */
int mrtr_name(struct mrtr *m, const char *name);

/* The handler's next question does not go through mrtr_ask: it was refused before
 * being asked (asked 0), or it is a legacy session's request to the client (asked 1: its name,
 * if any, counts as used, so the same mistakes are refused in both eras). Either way the
 * pending name is used up. Returns STATUS_OK or STATUS_NOMEM. */
int mrtr_pass(struct mrtr *m, int asked);

/* The InputRequiredResult (a new object, with requestState and the modern decoration) when a
 * question went unanswered, else NULL. */
cJSON *mrtr_result(struct mrtr *m, const struct registry *reg, const cJSON *msg,
                   const char *target);

/* Free what m holds; m may be NULL, and is all zero after. */
void mrtr_release(struct mrtr *m);

#endif
