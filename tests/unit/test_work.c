/* test_work.c: the worker pool: jobs run, drain waits, jobs of one non-thread-safe
 * instance never overlap while others run beside them, stop drops what is queued. */
#include "work.h"

#include "check.h"
#include "plugin.h"
#include "status.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

static void work_sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

/* Wait (at most timeout_ms) until *flag is set. Returns whether it was. */
static int work_wait_flag(atomic_int *flag, long timeout_ms)
{
    for (long waited = 0; waited < timeout_ms; waited++) {
        if (atomic_load(flag))
            return 1;
        work_sleep_ms(1);
    }
    return atomic_load(flag) != 0;
}

/* --- Jobs that count. --- */

struct count_job {
    struct work_job job; /* first, so the pool's pointer is ours */
    atomic_int *ran;
    atomic_int *dropped;
};

static void count_run(struct work_job *job)
{
    atomic_fetch_add(((struct count_job *)job)->ran, 1);
}

static void count_drop(struct work_job *job)
{
    atomic_fetch_add(((struct count_job *)job)->dropped, 1);
}

static void test_jobs_run(void)
{
    static struct count_job jobs[200];
    atomic_int ran = 0, dropped = 0;
    struct work w;

    if (!CHECK_INT_EQ(work_start(&w, 4), STATUS_OK))
        return;
    CHECK_INT_EQ(w.nthreads, 4);
    for (int i = 0; i < 200; i++) {
        jobs[i] = (struct count_job){
            .job = {.run = count_run, .drop = count_drop}, .ran = &ran, .dropped = &dropped};
        work_submit(&w, &jobs[i].job);
    }
    CHECK_INT_EQ(work_drain(&w, -1), 1);
    CHECK_INT_EQ(atomic_load(&ran), 200);
    CHECK_INT_EQ(work_pending(&w), 0);
    work_stop(&w);
    CHECK_INT_EQ(atomic_load(&dropped), 0);
    CHECK_INT_EQ(atomic_load(&ran), 200);
}

/* --- A job that holds its worker until released. --- */

struct block_job {
    struct work_job job;
    atomic_int started;
    atomic_int release;
    atomic_int finished;
    struct work *pool; /* when set: also released once the pool is stopping */
};

static int block_pool_stopping(struct work *w)
{
    int stopping;

    pthread_mutex_lock(&w->lock);
    stopping = w->stopping;
    pthread_mutex_unlock(&w->lock);
    return stopping;
}

static void block_run(struct work_job *job)
{
    struct block_job *b = (struct block_job *)job;

    atomic_store(&b->started, 1);
    for (int i = 0; i < 10000 && !atomic_load(&b->release); i++) {
        if (b->pool != NULL && block_pool_stopping(b->pool))
            break;
        work_sleep_ms(1);
    }
    atomic_store(&b->finished, 1);
}

static void block_drop(struct work_job *job)
{
    (void)job;
}

static void test_drain_waits(void)
{
    struct block_job b = {.job = {.run = block_run, .drop = block_drop}};
    struct work w;

    if (!CHECK_INT_EQ(work_start(&w, 2), STATUS_OK))
        return;
    work_submit(&w, &b.job);
    CHECK(work_wait_flag(&b.started, 5000));
    /* Still running: a short drain times out, and the job counts as pending. */
    CHECK_INT_EQ(work_drain(&w, 50), 0);
    CHECK_INT_EQ(work_pending(&w), 1);
    CHECK_INT_EQ(atomic_load(&b.finished), 0);
    atomic_store(&b.release, 1);
    CHECK_INT_EQ(work_drain(&w, -1), 1);
    CHECK_INT_EQ(atomic_load(&b.finished), 1);
    CHECK_INT_EQ(work_pending(&w), 0);
    CHECK_INT_EQ(work_drain(&w, 0), 1);
    work_stop(&w);
}

/* --- Exclusion per instance. --- */

struct excl_stats {
    atomic_int active;     /* jobs of this instance running now */
    atomic_int max_active; /* the most seen at once */
    atomic_int ran;
};

struct excl_job {
    struct work_job job;
    struct excl_stats *mine; /* this job's instance */
    atomic_int *all_active;  /* jobs of any kind running now */
    atomic_int *all_max;     /* the most of any kind at once */
};

static void excl_note_max(atomic_int *max, int now)
{
    int seen = atomic_load(max);

    while (now > seen && !atomic_compare_exchange_weak(max, &seen, now))
        ;
}

static void excl_run(struct work_job *job)
{
    struct excl_job *j = (struct excl_job *)job;

    excl_note_max(&j->mine->max_active, atomic_fetch_add(&j->mine->active, 1) + 1);
    excl_note_max(j->all_max, atomic_fetch_add(j->all_active, 1) + 1);
    work_sleep_ms(2);
    atomic_fetch_sub(j->all_active, 1);
    atomic_fetch_sub(&j->mine->active, 1);
    atomic_fetch_add(&j->mine->ran, 1);
}

static void test_excl_never_overlaps(void)
{
    enum { PER_KIND = 30 };
    static struct excl_job jobs[3 * PER_KIND];
    struct plugin pa, pb;
    struct excl_stats sa = {0}, sb = {0}, sn = {0};
    atomic_int all_active = 0, all_max = 0;
    struct work w;

    memset(&pa, 0, sizeof(pa));
    memset(&pb, 0, sizeof(pb));
    if (!CHECK_INT_EQ(work_start(&w, 4), STATUS_OK))
        return;
    for (int i = 0; i < 3 * PER_KIND; i++) {
        struct plugin *excl = i % 3 == 0 ? &pa : i % 3 == 1 ? &pb : NULL;
        struct excl_stats *mine = i % 3 == 0 ? &sa : i % 3 == 1 ? &sb : &sn;

        jobs[i] = (struct excl_job){.job = {.run = excl_run, .drop = block_drop, .excl = excl},
                                    .mine = mine,
                                    .all_active = &all_active,
                                    .all_max = &all_max};
        work_submit(&w, &jobs[i].job);
    }
    CHECK_INT_EQ(work_drain(&w, -1), 1);
    CHECK_INT_EQ(atomic_load(&sa.ran), PER_KIND);
    CHECK_INT_EQ(atomic_load(&sb.ran), PER_KIND);
    CHECK_INT_EQ(atomic_load(&sn.ran), PER_KIND);
    CHECK_INT_EQ(atomic_load(&sa.max_active), 1);
    CHECK_INT_EQ(atomic_load(&sb.max_active), 1);
    /* The pool as a whole did run jobs side by side. */
    CHECK(atomic_load(&all_max) > 1);
    CHECK_INT_EQ(pa.busy, 0);
    CHECK_INT_EQ(pb.busy, 0);
    work_stop(&w);
}

/* A job of instance A that waits for others: a second job of A must wait behind it, while
 * a worker skips over that one to run a job of B and one with no instance. */
struct order_state {
    atomic_int a_running;
    atomic_int a2_saw_a_running;
    atomic_int a2_ran;
    atomic_int b_started;
    atomic_int none_started;
    atomic_int a_saw_others;
};

struct order_job {
    struct work_job job;
    struct order_state *st;
};

static void order_a(struct work_job *job)
{
    struct order_state *st = ((struct order_job *)job)->st;

    atomic_store(&st->a_running, 1);
    atomic_store(&st->a_saw_others,
                 work_wait_flag(&st->b_started, 5000) && work_wait_flag(&st->none_started, 5000));
    atomic_store(&st->a_running, 0);
}

static void order_a2(struct work_job *job)
{
    struct order_state *st = ((struct order_job *)job)->st;

    atomic_store(&st->a2_saw_a_running, atomic_load(&st->a_running));
    atomic_store(&st->a2_ran, 1);
}

static void order_b(struct work_job *job)
{
    atomic_store(&((struct order_job *)job)->st->b_started, 1);
}

static void order_none(struct work_job *job)
{
    atomic_store(&((struct order_job *)job)->st->none_started, 1);
}

static void test_excl_skips_to_other_jobs(void)
{
    struct order_state st = {0};
    struct plugin pa, pb;
    struct order_job a, a2, b, none;
    struct work w;

    memset(&pa, 0, sizeof(pa));
    memset(&pb, 0, sizeof(pb));
    a = (struct order_job){.job = {.run = order_a, .drop = block_drop, .excl = &pa}, .st = &st};
    a2 = (struct order_job){.job = {.run = order_a2, .drop = block_drop, .excl = &pa}, .st = &st};
    b = (struct order_job){.job = {.run = order_b, .drop = block_drop, .excl = &pb}, .st = &st};
    none = (struct order_job){.job = {.run = order_none, .drop = block_drop}, .st = &st};
    if (!CHECK_INT_EQ(work_start(&w, 3), STATUS_OK))
        return;
    work_submit(&w, &a.job);
    CHECK(work_wait_flag(&st.a_running, 5000));
    work_submit(&w, &a2.job);
    work_submit(&w, &b.job);
    work_submit(&w, &none.job);
    CHECK_INT_EQ(work_drain(&w, -1), 1);
    CHECK_INT_EQ(atomic_load(&st.a_saw_others), 1);
    CHECK_INT_EQ(atomic_load(&st.a2_ran), 1);
    CHECK_INT_EQ(atomic_load(&st.a2_saw_a_running), 0);
    work_stop(&w);
}

/* work_stop: what is still queued is dropped, never run; the running job finishes. */
static void test_stop_drops_queued(void)
{
    static struct count_job jobs[5];
    struct block_job b = {.job = {.run = block_run, .drop = block_drop}};
    atomic_int ran = 0, dropped = 0;
    struct work w;

    if (!CHECK_INT_EQ(work_start(&w, 1), STATUS_OK))
        return;
    b.pool = &w;
    work_submit(&w, &b.job);
    CHECK(work_wait_flag(&b.started, 5000));
    for (int i = 0; i < 5; i++) {
        jobs[i] = (struct count_job){
            .job = {.run = count_run, .drop = count_drop}, .ran = &ran, .dropped = &dropped};
        work_submit(&w, &jobs[i].job);
    }
    CHECK_INT_EQ(work_pending(&w), 6);
    /* The blocker lets go once the pool is stopping, after the queue was taken. */
    work_stop(&w);
    CHECK_INT_EQ(atomic_load(&b.finished), 1);
    CHECK_INT_EQ(atomic_load(&dropped), 5);
    CHECK_INT_EQ(atomic_load(&ran), 0);
}

static void test_stop_idle_pool(void)
{
    struct work w;

    if (!CHECK_INT_EQ(work_start(&w, 3), STATUS_OK))
        return;
    CHECK_INT_EQ(work_pending(&w), 0);
    CHECK_INT_EQ(work_drain(&w, 10), 1);
    work_stop(&w);
    CHECK(w.threads == NULL);
    CHECK_INT_EQ(w.nthreads, 0);
}

/* done() runs after the pool let go of the job's plugin (it may free the plugin). */
struct done_job {
    struct work_job job;
    struct work *w;
    struct plugin *pl;
    atomic_int busy_at_done; /* the plugin's busy flag as done() found it, -1 before */
};

static void done_run(struct work_job *job)
{
    (void)job;
}

static void done_done(struct work_job *job)
{
    struct done_job *d = (struct done_job *)job;

    pthread_mutex_lock(&d->w->lock);
    atomic_store(&d->busy_at_done, d->pl->busy);
    pthread_mutex_unlock(&d->w->lock);
}

static void test_done_after_release(void)
{
    struct work w;
    struct plugin pl;
    struct done_job d = {.job = {.run = done_run, .done = done_done, .drop = block_drop}};

    memset(&pl, 0, sizeof(pl));
    d.w = &w;
    d.pl = &pl;
    d.job.excl = &pl;
    atomic_init(&d.busy_at_done, -1);
    if (!CHECK_INT_EQ(work_start(&w, 2), STATUS_OK))
        return;
    work_submit(&w, &d.job);
    CHECK(work_drain(&w, 5000));
    CHECK_INT_EQ(atomic_load(&d.busy_at_done), 0);
    work_stop(&w);
}

static const struct check_test tests[] = {
    {"jobs_run", test_jobs_run},
    {"drain_waits", test_drain_waits},
    {"excl_never_overlaps", test_excl_never_overlaps},
    {"excl_skips_to_other_jobs", test_excl_skips_to_other_jobs},
    {"stop_drops_queued", test_stop_drops_queued},
    {"stop_idle_pool", test_stop_idle_pool},
    {"done_after_release", test_done_after_release},
    {0},
};

int main(void)
{
    return check_main("test_work", tests);
}
