/*
 * question.h: a plugin's question to the client (sampling/createMessage, elicitation/create)
 * as the client's revision defines it.
 *
 * The ABI is the same in every era: a plugin may ask with what the newest revision defines
 * (multi-select and titled elicitation fields, defaults, sampling with tools). A legacy client
 * is sent only what its revision defines: what has an equivalent there is rewritten to it (a
 * titled single-select becomes enum + enumNames), what only annotates is dropped (a default,
 * _meta), and a question that cannot be asked without changing its meaning (a multi-select
 * field, a sampling request with tools) is not asked: the plugin gets MCPH_ERR_UNSUPPORTED,
 * as when the client lacks the capability.
 */
#ifndef MCPH_QUESTION_H
#define MCPH_QUESTION_H

#include "lib/strbuf.h"

#include <cJSON.h>

/*
 * Fit `params` (borrowed; changed in place) of question `what` (enum host_ask) to revision
 * `rev`. Returns STATUS_OK, or STATUS_INVALID with `why` (appended to) saying what rev cannot
 * carry. Any thread.
 */
int question_fit(int what, cJSON *params, int rev, struct strbuf *why)
    __attribute__((warn_unused_result));

#endif
