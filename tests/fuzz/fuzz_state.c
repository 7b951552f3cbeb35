/*
 * fuzz_state.c: the 2026-07-28 retry of a request that asked the client something (MRTR):
 * the requestState decoder and the answers it carries. The input is split at NUL bytes into
 *   byte 0      flags: bit 0 sends the state part as it is (not base64-encoded), bits 1-2
 *               pick the method, bits 3-5 how many questions the handler asks;
 *   target      the tool name or URI the request is for;
 *   state       JSON text (base64-encoded into params.requestState), or raw text;
 *   responses   JSON text for params.inputResponses.
 * Every question is asked (mrtr_ask), the InputRequiredResult is made, and when there
 * is one its requestState is sent back in a retry: every answer of the first round must come
 * back, and the result must be a JSON-RPC result an oracle can print.
 */
#include "lib/base64.h"
#include "config/config.h"
#include "lib/diag.h"
#include "lib/log.h"
#include "calls/mrtr.h"
#include "served/registry.h"
#include "lib/status.h"

#include <cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct registry *fuzz_reg;
/* The [server] state_key_file key of the runs that seal (flag 0x40). */
static const unsigned char fuzz_key[] = "fuzz-state-key-0123456789abcdefg";
static struct log fuzz_log;

static const char *const fuzz_methods[] = {"tools/call", "prompts/get", "resources/read",
                                           "completion/complete"};
static const char *const fuzz_asks[] = {"sampling/createMessage", "elicitation/create",
                                        "roots/list"};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    struct config cfg;
    struct diag errs;

    (void)argc;
    (void)argv;
    log_init(&fuzz_log);
    config_init(&cfg);
    diag_init(&errs);
    /* config_load sets the server's name; an empty registry needs one too. */
    cfg.name = strdup("mcph-fuzz");
    if (cfg.name == NULL ||
        registry_build(&fuzz_reg, NULL, 0, &fuzz_log, &errs, NULL) != STATUS_OK ||
        registry_set_meta(fuzz_reg, &cfg) != STATUS_OK) {
        fprintf(stderr, "fuzz_state: cannot build an empty registry\n");
        abort();
    }
    config_release(&cfg);
    diag_release(&errs);
    return 0;
}

static void fuzz_fail(const char *why, const cJSON *what)
{
    char *text = what ? cJSON_PrintUnformatted(what) : NULL;

    fprintf(stderr, "fuzz_state: %s: %s\n", why, text ? text : "(none)");
    free(text);
    abort();
}

/* The next NUL-separated part of data (a copy, NUL-terminated, owned). */
static char *fuzz_part(const uint8_t **data, size_t *size)
{
    const uint8_t *nul = memchr(*data, 0, *size);
    size_t n = nul ? (size_t)(nul - *data) : *size;
    char *part = malloc(n + 1);

    if (part == NULL)
        abort();
    memcpy(part, *data, n);
    part[n] = '\0';
    *data += nul ? n + 1 : n;
    *size -= nul ? n + 1 : n;
    return part;
}

/* {"jsonrpc":"2.0","id":1,"method":M,"params":{"name":T,"uri":T,"requestState":S,
 * "inputResponses":R}}; S and R are left out when NULL. */
static cJSON *fuzz_message(const char *method, const char *target, const char *state,
                           cJSON *responses)
{
    cJSON *msg = cJSON_CreateObject();
    cJSON *params;

    cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
    cJSON_AddNumberToObject(msg, "id", 1);
    cJSON_AddStringToObject(msg, "method", method);
    params = cJSON_AddObjectToObject(msg, "params");
    cJSON_AddStringToObject(params, "name", target);
    cJSON_AddStringToObject(params, "uri", target);
    if (state != NULL)
        cJSON_AddStringToObject(params, "requestState", state);
    if (responses != NULL)
        cJSON_AddItemToObject(params, "inputResponses", responses);
    return msg;
}

/* Ask nasks questions; the answers given are freed. Returns the answers as they stood,
 * printed (as they travel in requestState; owned). */
static char *fuzz_ask(struct mrtr *m, int nasks)
{
    for (int i = 0; i < nasks; i++) {
        cJSON *answer = NULL;
        cJSON *params = cJSON_CreateObject();
        int rc;

        cJSON_AddNumberToObject(params, "n", i);
        rc = mrtr_ask(m, fuzz_asks[i % 3], params, &answer);
        if (rc == STATUS_OK && !cJSON_IsObject(answer))
            fuzz_fail("an answer that is not an object", answer);
        if (rc != STATUS_OK && answer != NULL)
            fuzz_fail("no answer, yet one was handed back", answer);
        cJSON_Delete(answer);
    }
    return cJSON_PrintUnformatted(m->answers);
}

/* The retry with the state the result gave: the same answers come back. They are compared
 * as printed: cJSON_Compare finds an object with a duplicate key unequal to itself. */
static void fuzz_retry(const cJSON *result, const unsigned char *key, const char *method,
                       const char *target, const char *answers)
{
    const char *state =
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(result, "requestState"));
    struct mrtr m;
    cJSON *msg;
    char *again;

    if (state == NULL)
        fuzz_fail("an InputRequiredResult without requestState", result);
    msg = fuzz_message(method, target, state, NULL);
    if (mrtr_begin(&m, key, key ? 32 : 0, msg, target) != STATUS_OK)
        fuzz_fail("a state sealed here refused by the same key", result);
    again = cJSON_PrintUnformatted(m.answers);
    if (answers != NULL && again != NULL && strcmp(answers, again) != 0) {
        fprintf(stderr, "fuzz_state: the retry lost answers; before: %s\n", answers);
        fuzz_fail("after", m.answers);
    }
    free(again);
    mrtr_release(&m);
    cJSON_Delete(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mrtr m;
    unsigned flags;
    const unsigned char *key;
    char *target, *state_text, *responses_text, *state, *answers;
    const char *method;
    cJSON *msg, *result;

    if (size < 1)
        return 0;
    flags = data[0];
    data++, size--;
    method = fuzz_methods[(flags >> 1) & 3];
    target = fuzz_part(&data, &size);
    state_text = fuzz_part(&data, &size);
    responses_text = fuzz_part(&data, &size);
    state = (flags & 1) ? strdup(state_text) : base64_encode(state_text, strlen(state_text));
    msg = fuzz_message(method, target, state, cJSON_Parse(responses_text));
    key = (flags & 0x40) ? fuzz_key : NULL;
    /* A state not sealed under the key is refused: the answers then start empty. */
    if (mrtr_begin(&m, key, key ? 32 : 0, msg, target) != STATUS_OK && m.answers == NULL)
        fuzz_fail("a refused state left no answers object", msg);
    answers = fuzz_ask(&m, (int)((flags >> 3) & 7));
    result = mrtr_result(&m, fuzz_reg, msg, target);
    if (result != NULL) {
        char *printed = cJSON_PrintUnformatted(result);

        if (printed == NULL || !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(result, "_meta")))
            fuzz_fail("an InputRequiredResult that does not print", result);
        free(printed);
        fuzz_retry(result, key, method, target, answers);
    }
    cJSON_Delete(result);
    free(answers);
    mrtr_release(&m);
    cJSON_Delete(msg);
    free(state);
    free(responses_text);
    free(state_text);
    free(target);
    return 0;
}
