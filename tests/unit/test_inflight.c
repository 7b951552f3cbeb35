/* test_inflight.c: the table of requests in flight: ids, cancellation, and asking the client
 * with a worker thread that waits while the test answers, times out or cancels. */
#include "served/inflight.h"

#include "check.h"
#include "lib/status.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long any handshake with a worker may take before the test gives up. */
#define INFLIGHT_TEST_PATIENCE_MS 5000

static long inflight_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void inflight_sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/* Register a new request (the memory is the test's, as a call's job is the core's); *out
 * is left alone when it is refused. */
static int inflight_add_new(struct inflight *t, const cJSON *id, struct inflight_call **out)
{
    struct inflight_call *call = malloc(sizeof(*call));
    int status = call != NULL ? inflight_add(t, id, call) : STATUS_NOMEM;

    if (status != STATUS_OK) {
        free(call);
        return status;
    }
    *out = call;
    return status;
}

/* Register the request whose id is the JSON text id_text. */
static int inflight_add_text(struct inflight *t, const char *id_text, struct inflight_call **out)
{
    cJSON *id = cJSON_Parse(id_text);
    int status = id != NULL ? inflight_add_new(t, id, out) : -999;

    cJSON_Delete(id);
    return status;
}

/* Unregister a request and free its memory; whether it was cancelled. */
static int inflight_drop(struct inflight *t, struct inflight_call *call)
{
    int cancelled = inflight_remove(t, call);

    free(call);
    return cancelled;
}

static int inflight_cancel_text(struct inflight *t, const char *id_text)
{
    cJSON *id = cJSON_Parse(id_text);
    int status = id != NULL ? inflight_cancel(t, id) : -999;

    cJSON_Delete(id);
    return status;
}

/* A response message of the client to ask_id carrying the number n. */
static cJSON *inflight_response(const char *ask_id, int n)
{
    cJSON *msg = cJSON_CreateObject();
    cJSON *result = cJSON_AddObjectToObject(msg, "result");

    cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
    cJSON_AddStringToObject(msg, "id", ask_id);
    cJSON_AddNumberToObject(result, "n", n);
    return msg;
}

/* Hand msg to whoever waits for the ask id text (a JSON string is made of it). */
static int inflight_answer_to(struct inflight *t, const char *ask_id, cJSON *msg)
{
    cJSON *id = cJSON_CreateString(ask_id);
    int status = inflight_answer(t, id, msg);

    cJSON_Delete(id);
    return status;
}

/* How many calls the table holds. */
static size_t infl_count(struct inflight *t)
{
    size_t n = 0;

    pthread_mutex_lock(&t->lock);
    for (size_t b = 0; b < INFLIGHT_BUCKETS; b++) {
        for (const struct inflight_call *c = t->buckets[b]; c != NULL; c = c->next)
            n++;
    }
    pthread_mutex_unlock(&t->lock);
    return n;
}

static void test_add_remove(void)
{
    struct inflight t;
    struct inflight_call *a = NULL, *b = NULL, *one = NULL, *dup = NULL;

    inflight_init(&t);
    if (!CHECK_INT_EQ(inflight_add_text(&t, "\"a\"", &a), STATUS_OK) || !CHECK(a != NULL))
        goto out;
    /* The key is internal; what matters is that ids are told apart (checked below). */
    CHECK(a->key != NULL && a->key[0] != '\0');
    CHECK_INT_EQ(atomic_load(&a->cancelled), 0);
    CHECK_STR_EQ(a->ask_id, "");
    CHECK(a->answer == NULL);
    /* The same id again is refused. */
    CHECK_INT_EQ(inflight_add_text(&t, "\"a\"", &dup), STATUS_EXISTS);
    /* A string id and a number id with the same digits are different requests. */
    CHECK_INT_EQ(inflight_add_text(&t, "1", &one), STATUS_OK);
    CHECK_INT_EQ(inflight_add_text(&t, "\"1\"", &b), STATUS_OK);
    CHECK(one != NULL && b != NULL && one != b);
    CHECK_INT_EQ(inflight_add_text(&t, "1", &dup), STATUS_EXISTS);
    CHECK_INT_EQ(inflight_add_text(&t, "\"1\"", &dup), STATUS_EXISTS);
    CHECK_INT_EQ(inflight_drop(&t, a), 0);
    a = NULL;
    /* Once removed, the id may be used again. */
    CHECK_INT_EQ(inflight_add_text(&t, "\"a\"", &a), STATUS_OK);
    CHECK_INT_EQ(inflight_drop(&t, b), 0);
    b = NULL;
    CHECK_INT_EQ(inflight_add_text(&t, "1", &dup), STATUS_EXISTS);
    CHECK_INT_EQ(inflight_drop(&t, one), 0);
    one = NULL;
    CHECK(infl_count(&t) == 1 && a != NULL);
out:
    if (a != NULL)
        inflight_drop(&t, a);
    if (b != NULL)
        inflight_drop(&t, b);
    if (one != NULL)
        inflight_drop(&t, one);
    CHECK_INT_EQ(infl_count(&t), 0);
    inflight_release(&t);
}

static void test_cancel(void)
{
    struct inflight t;
    struct inflight_call *x = NULL, *s1 = NULL;

    inflight_init(&t);
    if (!CHECK_INT_EQ(inflight_add_text(&t, "\"x\"", &x), STATUS_OK) ||
        !CHECK_INT_EQ(inflight_add_text(&t, "\"1\"", &s1), STATUS_OK))
        goto out;
    CHECK_INT_EQ(inflight_cancel_text(&t, "\"x\""), STATUS_OK);
    CHECK_INT_EQ(atomic_load(&x->cancelled), 1);
    CHECK_INT_EQ(atomic_load(&s1->cancelled), 0);
    /* Unknown ids, and the number 1 is not the string "1". */
    CHECK_INT_EQ(inflight_cancel_text(&t, "\"y\""), STATUS_NOT_FOUND);
    CHECK_INT_EQ(inflight_cancel_text(&t, "1"), STATUS_NOT_FOUND);
    CHECK_INT_EQ(atomic_load(&s1->cancelled), 0);
    /* Cancelling twice is harmless. */
    CHECK_INT_EQ(inflight_cancel_text(&t, "\"x\""), STATUS_OK);
    /* remove says whether the call was cancelled. */
    CHECK(inflight_drop(&t, x) != 0);
    x = NULL;
    CHECK_INT_EQ(inflight_drop(&t, s1), 0);
    s1 = NULL;
    /* Finished requests are not found any more. */
    CHECK_INT_EQ(inflight_cancel_text(&t, "\"x\""), STATUS_NOT_FOUND);
    CHECK_INT_EQ(inflight_cancel_text(&t, "\"1\""), STATUS_NOT_FOUND);
out:
    if (x != NULL)
        inflight_drop(&t, x);
    if (s1 != NULL)
        inflight_drop(&t, s1);
    inflight_release(&t);
}

/* --- A worker that asks the client and waits. --- */

struct asker {
    struct inflight *t;
    struct inflight_call *call;
    int timeout_ms;
    pthread_mutex_t lock; /* guards ask_id and begun */
    pthread_cond_t began;
    char ask_id[32];
    int begun;
    /* Written by the worker, read after the join. */
    int status;
    cJSON *answer;
    long waited_ms;
};

static void asker_init(struct asker *a, struct inflight *t, struct inflight_call *call,
                       int timeout_ms)
{
    memset(a, 0, sizeof(*a));
    a->t = t;
    a->call = call;
    a->timeout_ms = timeout_ms;
    a->status = -999;
    pthread_mutex_init(&a->lock, NULL);
    pthread_cond_init(&a->began, NULL);
}

static void asker_release(struct asker *a)
{
    cJSON_Delete(a->answer);
    pthread_cond_destroy(&a->began);
    pthread_mutex_destroy(&a->lock);
}

static void *asker_main(void *arg)
{
    struct asker *a = arg;
    char ask_id[32];
    long start;

    inflight_ask_begin(a->t, a->call, ask_id);
    pthread_mutex_lock(&a->lock);
    memcpy(a->ask_id, ask_id, sizeof(ask_id));
    a->begun = 1;
    pthread_cond_signal(&a->began);
    pthread_mutex_unlock(&a->lock);
    start = inflight_now_ms();
    a->status = inflight_ask_wait(a->t, a->call, a->timeout_ms, &a->answer);
    a->waited_ms = inflight_now_ms() - start;
    return NULL;
}

/* Wait (bounded) until the worker began its ask; its id goes to ask_id. Returns whether it
 * did. */
static int asker_wait_begun(struct asker *a, char *ask_id)
{
    struct timespec deadline;
    int begun;

    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += INFLIGHT_TEST_PATIENCE_MS / 1000;
    pthread_mutex_lock(&a->lock);
    while (!a->begun) {
        if (pthread_cond_timedwait(&a->began, &a->lock, &deadline) != 0)
            break;
    }
    begun = a->begun;
    memcpy(ask_id, a->ask_id, sizeof(a->ask_id));
    pthread_mutex_unlock(&a->lock);
    return begun;
}

/* The worker answered by the test's thread: it gets exactly the message handed over. */
static void test_ask_answered(void)
{
    struct inflight t;
    struct inflight_call *call = NULL;
    struct asker a;
    pthread_t worker;
    char ask_id[32] = "";
    cJSON *msg;

    inflight_init(&t);
    if (!CHECK_INT_EQ(inflight_add_text(&t, "7", &call), STATUS_OK))
        goto out;
    asker_init(&a, &t, call, 2000);
    if (!CHECK_INT_EQ(pthread_create(&worker, NULL, asker_main, &a), 0))
        goto out_asker;
    if (CHECK(asker_wait_begun(&a, ask_id))) {
        CHECK(strncmp(ask_id, "mcph-", 5) == 0);
        msg = inflight_response(ask_id, 42);
        if (!CHECK_INT_EQ(inflight_answer_to(&t, ask_id, msg), STATUS_OK))
            cJSON_Delete(msg);
    }
    pthread_join(worker, NULL);
    CHECK_INT_EQ(a.status, STATUS_OK);
    if (CHECK(a.answer != NULL)) {
        const cJSON *result = cJSON_GetObjectItemCaseSensitive(a.answer, "result");
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(a.answer, "id");

        CHECK_INT_EQ(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(result, "n")), 42);
        CHECK_STR_EQ(cJSON_GetStringValue(id), ask_id);
    }
    CHECK(a.waited_ms < 1000);
    /* The ask is over: the same id answered again is not ours any more. */
    CHECK_STR_EQ(call->ask_id, "");
    msg = inflight_response(ask_id, 43);
    CHECK_INT_EQ(inflight_answer_to(&t, ask_id, msg), STATUS_NOT_FOUND);
    cJSON_Delete(msg);
out_asker:
    asker_release(&a);
out:
    if (call != NULL)
        CHECK_INT_EQ(inflight_drop(&t, call), 0);
    inflight_release(&t);
}

/* Nobody answers: STATUS_AGAIN after about the time-out; a late answer is refused. */
static void test_ask_timeout(void)
{
    struct inflight t;
    struct inflight_call *call = NULL;
    struct asker a;
    pthread_t worker;
    char ask_id[32] = "";
    cJSON *msg;

    inflight_init(&t);
    if (!CHECK_INT_EQ(inflight_add_text(&t, "\"slow\"", &call), STATUS_OK))
        goto out;
    asker_init(&a, &t, call, 100);
    if (!CHECK_INT_EQ(pthread_create(&worker, NULL, asker_main, &a), 0))
        goto out_asker;
    CHECK(asker_wait_begun(&a, ask_id));
    pthread_join(worker, NULL);
    CHECK_INT_EQ(a.status, STATUS_AGAIN);
    CHECK(a.answer == NULL);
    if (!CHECK(a.waited_ms >= 90 && a.waited_ms < 1000))
        fprintf(stderr, "    waited %ld ms for a 100 ms time-out\n", a.waited_ms);
    /* The late answer is not taken: the test still owns (and frees) it. */
    msg = inflight_response(ask_id, 1);
    CHECK_INT_EQ(inflight_answer_to(&t, ask_id, msg), STATUS_NOT_FOUND);
    CHECK(call->answer == NULL);
    cJSON_Delete(msg);
out_asker:
    asker_release(&a);
out:
    if (call != NULL)
        CHECK_INT_EQ(inflight_drop(&t, call), 0);
    inflight_release(&t);
}

/* A cancellation wakes the waiting worker at once with STATUS_INVALID. */
static void test_ask_cancelled(void)
{
    struct inflight t;
    struct inflight_call *call = NULL;
    struct asker a;
    pthread_t worker;
    char ask_id[32] = "";
    long start;

    inflight_init(&t);
    if (!CHECK_INT_EQ(inflight_add_text(&t, "\"c\"", &call), STATUS_OK))
        goto out;
    asker_init(&a, &t, call, 3000);
    if (!CHECK_INT_EQ(pthread_create(&worker, NULL, asker_main, &a), 0))
        goto out_asker;
    CHECK(asker_wait_begun(&a, ask_id));
    /* Give the worker time to be inside the wait, so the wake-up is what is tested. */
    inflight_sleep_ms(50);
    start = inflight_now_ms();
    CHECK_INT_EQ(inflight_cancel_text(&t, "\"c\""), STATUS_OK);
    pthread_join(worker, NULL);
    CHECK_INT_EQ(a.status, STATUS_INVALID);
    CHECK(a.answer == NULL);
    if (!CHECK(inflight_now_ms() - start < 1000 && a.waited_ms < 1500))
        fprintf(stderr, "    the worker waited %ld ms of its 3000\n", a.waited_ms);
    CHECK_STR_EQ(call->ask_id, "");
out_asker:
    asker_release(&a);
out:
    if (call != NULL)
        CHECK(inflight_drop(&t, call) != 0);
    inflight_release(&t);
}

/* A call cancelled before it asks gets STATUS_INVALID without waiting. */
static void test_ask_after_cancel(void)
{
    struct inflight t;
    struct inflight_call *call = NULL;
    char ask_id[32];
    cJSON *answer = NULL;
    long start;

    inflight_init(&t);
    if (!CHECK_INT_EQ(inflight_add_text(&t, "\"c\"", &call), STATUS_OK))
        goto out;
    CHECK_INT_EQ(inflight_cancel_text(&t, "\"c\""), STATUS_OK);
    inflight_ask_begin(&t, call, ask_id);
    start = inflight_now_ms();
    CHECK_INT_EQ(inflight_ask_wait(&t, call, 2000, &answer), STATUS_INVALID);
    CHECK(inflight_now_ms() - start < 1000);
    CHECK(answer == NULL);
out:
    if (call != NULL)
        CHECK(inflight_drop(&t, call) != 0);
    inflight_release(&t);
}

/* Unknown ids, non-string ids, an empty id and a second answer are refused, and the message
 * stays the caller's; an answer that comes before the wait is kept for it. */
static void test_answer_refused(void)
{
    struct inflight t;
    struct inflight_call *call = NULL, *idle = NULL;
    char ask_id[32];
    cJSON *msg = NULL, *second = NULL, *answer = NULL, *id;

    inflight_init(&t);
    if (!CHECK_INT_EQ(inflight_add_text(&t, "1", &call), STATUS_OK) ||
        !CHECK_INT_EQ(inflight_add_text(&t, "2", &idle), STATUS_OK))
        goto out;
    inflight_ask_begin(&t, call, ask_id);
    msg = inflight_response(ask_id, 5);
    CHECK_INT_EQ(inflight_answer_to(&t, "mcph-999999", msg), STATUS_NOT_FOUND);
    /* idle does not ask: its empty ask id matches nothing. */
    CHECK_INT_EQ(inflight_answer_to(&t, "", msg), STATUS_NOT_FOUND);
    id = cJSON_CreateNumber(1);
    CHECK_INT_EQ(inflight_answer(&t, id, msg), STATUS_NOT_FOUND);
    cJSON_Delete(id);
    id = cJSON_CreateNull();
    CHECK_INT_EQ(inflight_answer(&t, id, msg), STATUS_NOT_FOUND);
    cJSON_Delete(id);
    CHECK(call->answer == NULL && idle->answer == NULL);
    /* The right id is taken even before the worker waits; a second answer is not. */
    if (CHECK_INT_EQ(inflight_answer_to(&t, ask_id, msg), STATUS_OK)) {
        msg = NULL;
    }
    second = inflight_response(ask_id, 6);
    CHECK_INT_EQ(inflight_answer_to(&t, ask_id, second), STATUS_NOT_FOUND);
    CHECK_INT_EQ(inflight_ask_wait(&t, call, 100, &answer), STATUS_OK);
    if (CHECK(answer != NULL)) {
        const cJSON *result = cJSON_GetObjectItemCaseSensitive(answer, "result");

        CHECK_INT_EQ(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(result, "n")), 5);
    }
out:
    cJSON_Delete(answer);
    cJSON_Delete(second);
    cJSON_Delete(msg);
    if (call != NULL)
        CHECK_INT_EQ(inflight_drop(&t, call), 0);
    if (idle != NULL)
        CHECK_INT_EQ(inflight_drop(&t, idle), 0);
    inflight_release(&t);
}

enum { INFLIGHT_ASKS = 50 };

/* Every ask gets a new id, whichever call asks. */
static void test_ask_ids_unique(void)
{
    static char ids[2 * INFLIGHT_ASKS][32];
    struct inflight t;
    struct inflight_call *c1 = NULL, *c2 = NULL;
    int dup = 0;

    inflight_init(&t);
    if (!CHECK_INT_EQ(inflight_add_text(&t, "\"c1\"", &c1), STATUS_OK) ||
        !CHECK_INT_EQ(inflight_add_text(&t, "\"c2\"", &c2), STATUS_OK))
        goto out;
    for (int i = 0; i < INFLIGHT_ASKS; i++) {
        cJSON *answer = NULL;

        inflight_ask_begin(&t, c1, ids[2 * i]);
        inflight_ask_begin(&t, c2, ids[2 * i + 1]);
        /* End both asks (time-out 0 returns at once). */
        CHECK_INT_EQ(inflight_ask_wait(&t, c1, 0, &answer), STATUS_AGAIN);
        CHECK_INT_EQ(inflight_ask_wait(&t, c2, 0, &answer), STATUS_AGAIN);
    }
    for (int i = 0; i < 2 * INFLIGHT_ASKS; i++) {
        dup |= ids[i][0] == '\0';
        for (int j = i + 1; j < 2 * INFLIGHT_ASKS; j++)
            dup |= strcmp(ids[i], ids[j]) == 0;
    }
    CHECK(!dup);
out:
    if (c1 != NULL)
        inflight_drop(&t, c1);
    if (c2 != NULL)
        inflight_drop(&t, c2);
    inflight_release(&t);
}

enum { INFLIGHT_WORKERS = 8 };

/* Several workers ask at once; each answer reaches the worker whose id it carries. */
static void test_ask_many_workers(void)
{
    static struct asker askers[INFLIGHT_WORKERS];
    struct inflight_call *calls[INFLIGHT_WORKERS] = {0};
    pthread_t workers[INFLIGHT_WORKERS];
    int started[INFLIGHT_WORKERS] = {0};
    struct inflight t;

    inflight_init(&t);
    for (int i = 0; i < INFLIGHT_WORKERS; i++) {
        cJSON *id = cJSON_CreateNumber(100 + i);

        CHECK_INT_EQ(inflight_add_new(&t, id, &calls[i]), STATUS_OK);
        cJSON_Delete(id);
        asker_init(&askers[i], &t, calls[i], 3000);
        if (calls[i] != NULL)
            started[i] = pthread_create(&workers[i], NULL, asker_main, &askers[i]) == 0;
        CHECK(started[i]);
    }
    /* Answer in reverse order of the workers. */
    for (int i = INFLIGHT_WORKERS - 1; i >= 0; i--) {
        char ask_id[32];
        cJSON *msg;

        if (!started[i] || !CHECK(asker_wait_begun(&askers[i], ask_id)))
            continue;
        msg = inflight_response(ask_id, i);
        if (!CHECK_INT_EQ(inflight_answer_to(&t, ask_id, msg), STATUS_OK))
            cJSON_Delete(msg);
    }
    for (int i = 0; i < INFLIGHT_WORKERS; i++) {
        const cJSON *result;

        if (started[i])
            pthread_join(workers[i], NULL);
        CHECK_INT_EQ(askers[i].status, STATUS_OK);
        result = cJSON_GetObjectItemCaseSensitive(askers[i].answer, "result");
        CHECK_INT_EQ(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(result, "n")), i);
        asker_release(&askers[i]);
        if (calls[i] != NULL)
            inflight_drop(&t, calls[i]);
    }
    CHECK_INT_EQ(infl_count(&t), 0);
    inflight_release(&t);
}

/* Thousands in flight: every id is its own entry, found again, and removed. */
static void test_many(void)
{
    enum { N = 5000 };
    static struct inflight_call *calls[N];
    struct inflight t;
    char id[32];
    int ok = 1;

    inflight_init(&t);
    for (int i = 0; i < N; i++) {
        snprintf(id, sizeof(id), i % 2 ? "%d" : "\"%d\"", i);
        ok &= inflight_add_text(&t, id, &calls[i]) == STATUS_OK;
    }
    CHECK(ok);
    CHECK_INT_EQ(infl_count(&t), N);
    CHECK_INT_EQ(inflight_add_text(&t, "4999", &calls[0]), STATUS_EXISTS);
    ok = 1;
    for (int i = 0; i < N; i += 2)
        ok &= inflight_drop(&t, calls[i]) == 0;
    CHECK(ok);
    CHECK_INT_EQ(infl_count(&t), N / 2);
    for (int i = 1; i < N; i += 2)
        inflight_drop(&t, calls[i]);
    CHECK_INT_EQ(infl_count(&t), 0);
    inflight_release(&t);
}

static const struct check_test tests[] = {
    {"add_remove", test_add_remove},
    {"cancel", test_cancel},
    {"ask_answered", test_ask_answered},
    {"ask_timeout", test_ask_timeout},
    {"ask_cancelled", test_ask_cancelled},
    {"ask_after_cancel", test_ask_after_cancel},
    {"answer_refused", test_answer_refused},
    {"ask_ids_unique", test_ask_ids_unique},
    {"ask_many_workers", test_ask_many_workers},
    {"many", test_many},
    {0},
};

int main(void)
{
    return check_main("test_inflight", tests);
}
