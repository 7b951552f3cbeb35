/* test_work.c: the pool. Without input: jobs run, drain waits, lanes bound how many of one
 * instance run at once while other lanes go on, stop drops what is queued. With a reader
 * over a pipe: calls from a sequential client run on the thread that read them; a slow call
 * hands reading to another thread; a question to the client hands it at once; calls that
 * pile up get threads; pipelined calls use a helper; end of input and stop_input. A stop
 * that gives up lets its threads go. */
#include "lib/work.h"

#include "check.h"
#include "lib/limits.h"
#include "lib/status.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void work_sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

static long work_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Wait (at most timeout_ms) until *flag reaches at least want. Returns whether it did. */
static int work_wait_for(atomic_int *flag, int want, long timeout_ms)
{
    long end = work_now_ms() + timeout_ms;

    while (atomic_load(flag) < want && work_now_ms() < end)
        work_sleep_ms(1);
    return atomic_load(flag) >= want;
}

static const struct work_source work_no_input = {0};

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

    if (!CHECK_INT_EQ(work_start(&w, &work_no_input, 8), STATUS_OK))
        return;
    for (int i = 0; i < 200; i++) {
        jobs[i] = (struct count_job){
            .job = {.run = count_run, .drop = count_drop}, .ran = &ran, .dropped = &dropped};
        work_submit(&w, &jobs[i].job);
    }
    CHECK_INT_EQ(work_drain(&w, -1), 1);
    CHECK_INT_EQ(atomic_load(&ran), 200);
    work_stop(&w, -1);
    CHECK_INT_EQ(atomic_load(&dropped), 0);
    CHECK_INT_EQ(w.nthreads, 0);
}

/* --- A job that holds its thread until released. --- */

struct block_job {
    struct work_job job;
    atomic_int started;
    atomic_int release;
    atomic_int finished;
};

static void block_run(struct work_job *job)
{
    struct block_job *b = (struct block_job *)job;

    atomic_store(&b->started, 1);
    for (int i = 0; i < 10000 && !atomic_load(&b->release); i++)
        work_sleep_ms(1);
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

    if (!CHECK_INT_EQ(work_start(&w, &work_no_input, 4), STATUS_OK))
        return;
    work_submit(&w, &b.job);
    CHECK(work_wait_for(&b.started, 1, 5000));
    /* Still running: a short drain times out. */
    CHECK_INT_EQ(work_drain(&w, 50), 0);
    CHECK_INT_EQ(atomic_load(&b.finished), 0);
    atomic_store(&b.release, 1);
    CHECK_INT_EQ(work_drain(&w, -1), 1);
    CHECK_INT_EQ(atomic_load(&b.finished), 1);
    CHECK_INT_EQ(work_drain(&w, 0), 1);
    work_stop(&w, -1);
}

/* --- Lanes. --- */

struct lane_stats {
    atomic_int active;     /* jobs of this lane running now */
    atomic_int max_active; /* the most seen at once */
    atomic_int ran;
};

struct lane_job {
    struct work_job job;
    struct lane_stats *mine;
    long sleep_ms;
};

static void lane_note_max(atomic_int *max, int now)
{
    int seen = atomic_load(max);

    while (now > seen && !atomic_compare_exchange_weak(max, &seen, now))
        ;
}

static void lane_run(struct work_job *job)
{
    struct lane_job *j = (struct lane_job *)job;

    lane_note_max(&j->mine->max_active, atomic_fetch_add(&j->mine->active, 1) + 1);
    work_sleep_ms(j->sleep_ms);
    atomic_fetch_sub(&j->mine->active, 1);
    atomic_fetch_add(&j->mine->ran, 1);
}

/* A lane of one never runs two jobs at once; a lane of three runs three, never four. */
static void test_lane_bounds(void)
{
    enum { PER_LANE = 12 };
    static struct lane_job jobs[2 * PER_LANE];
    struct work_lane one, three;
    struct lane_stats s1 = {0}, s3 = {0};
    struct work w;

    work_lane_init(&one, 1);
    work_lane_init(&three, 3);
    if (!CHECK_INT_EQ(work_start(&w, &work_no_input, 16), STATUS_OK))
        return;
    for (int i = 0; i < 2 * PER_LANE; i++) {
        jobs[i] = (struct lane_job){
            .job = {.run = lane_run, .drop = block_drop, .lane = i % 2 ? &three : &one},
            .mine = i % 2 ? &s3 : &s1,
            .sleep_ms = 20};
        work_submit(&w, &jobs[i].job);
    }
    CHECK_INT_EQ(work_drain(&w, -1), 1);
    CHECK_INT_EQ(atomic_load(&s1.ran), PER_LANE);
    CHECK_INT_EQ(atomic_load(&s3.ran), PER_LANE);
    CHECK_INT_EQ(atomic_load(&s1.max_active), 1);
    CHECK_INT_EQ(atomic_load(&s3.max_active), 3);
    CHECK_INT_EQ(one.running + three.running, 0);
    work_stop(&w, -1);
}

/* A lane full of slow jobs with more queued behind them does not hold up another lane's job:
 * it gets a thread of its own within a few ticks. */
static void test_lane_full_others_go_on(void)
{
    enum { SLOW = 8 };
    static struct block_job slow[SLOW];
    struct block_job other = {.job = {.run = block_run, .drop = block_drop}};
    struct work_lane busy, free_lane;
    struct work w;
    long t0;

    work_lane_init(&busy, 2);
    work_lane_init(&free_lane, 1);
    if (!CHECK_INT_EQ(work_start(&w, &work_no_input, 16), STATUS_OK))
        return;
    for (int i = 0; i < SLOW; i++) {
        slow[i] = (struct block_job){.job = {.run = block_run, .drop = block_drop, .lane = &busy}};
        work_submit(&w, &slow[i].job);
    }
    CHECK(work_wait_for(&slow[0].started, 1, 5000));
    CHECK(work_wait_for(&slow[1].started, 1, 5000));
    other.job.lane = &free_lane;
    t0 = work_now_ms();
    work_submit(&w, &other.job);
    CHECK(work_wait_for(&other.started, 1, 1000));
    CHECK(work_now_ms() - t0 < 500);
    /* The busy lane stayed at its share. */
    CHECK_INT_EQ(atomic_load(&slow[2].started), 0);
    atomic_store(&other.release, 1);
    for (int i = 0; i < SLOW; i++)
        atomic_store(&slow[i].release, 1);
    CHECK_INT_EQ(work_drain(&w, -1), 1);
    work_stop(&w, -1);
}

/* work_stop: what is still queued is dropped, never run; the running job finishes. */
static void test_stop_drops_queued(void)
{
    static struct count_job jobs[5];
    struct block_job b = {.job = {.run = block_run, .drop = block_drop}};
    atomic_int ran = 0, dropped = 0;
    struct work_lane lane;
    struct work w;

    work_lane_init(&lane, 1);
    b.job.lane = &lane;
    if (!CHECK_INT_EQ(work_start(&w, &work_no_input, 4), STATUS_OK))
        return;
    work_submit(&w, &b.job);
    CHECK(work_wait_for(&b.started, 1, 5000));
    for (int i = 0; i < 5; i++) {
        jobs[i] = (struct count_job){.job = {.run = count_run, .drop = count_drop, .lane = &lane},
                                     .ran = &ran,
                                     .dropped = &dropped};
        work_submit(&w, &jobs[i].job);
    }
    atomic_store(&b.release, 1);
    /* Dropping happens before the blocker can finish and let the others run... or after some
     * ran: either way each job is run or dropped, exactly once. */
    work_stop(&w, -1);
    CHECK_INT_EQ(atomic_load(&b.finished), 1);
    CHECK_INT_EQ(atomic_load(&dropped) + atomic_load(&ran), 5);
}

/* done() runs after the pool let go of the job's lane (it may free the lane's owner). */
struct done_job {
    struct work_job job;
    struct work_lane *lane;
    atomic_int running_at_done; /* lane->running as done() found it, -1 before */
};

static void done_run(struct work_job *job)
{
    (void)job;
}

static void done_done(struct work_job *job)
{
    struct done_job *d = (struct done_job *)job;

    atomic_store(&d->running_at_done, (int)d->lane->running);
}

static void test_done_after_lane(void)
{
    struct work_lane lane;
    struct done_job d = {.running_at_done = -1};
    struct work w;

    work_lane_init(&lane, 1);
    d.job =
        (struct work_job){.run = done_run, .done = done_done, .drop = block_drop, .lane = &lane};
    d.lane = &lane;
    if (!CHECK_INT_EQ(work_start(&w, &work_no_input, 4), STATUS_OK))
        return;
    work_submit(&w, &d.job);
    CHECK_INT_EQ(work_drain(&w, -1), 1);
    CHECK(work_wait_for(&d.running_at_done, 0, 5000));
    CHECK_INT_EQ(atomic_load(&d.running_at_done), 0);
    work_stop(&w, -1);
}

/* --- A reader over a pipe. Each line is a command:
 *     fast          a job that records the thread it ran on
 *     busy US       a job that keeps its CPU busy US microseconds, recording its thread too
 *     slow MS       a job that sleeps MS milliseconds
 *     ask           a job that calls work_blocking, then waits until an "answer" line is read
 *     answer        sets the flag "ask" waits for (read by whichever thread reads)
 *     mark          notes the time it was dispatched
 * --- */

struct feed {
    struct work *w;
    int fd;
    char buf[4096];
    size_t len;
    struct work_lane lane; /* thread-safe: up to 8 at once */
    pthread_t dispatcher;  /* the thread of the last dispatch */
    atomic_int fast_done;
    atomic_int fast_same_thread; /* fast jobs that ran on the thread that dispatched them */
    atomic_int slow_started;
    atomic_int slow_active, slow_max;
    atomic_int answered;
    atomic_int asked_done;
    atomic_long mark_ms;
    atomic_int ended;
    atomic_int flushes;
    atomic_int threads_seen;   /* 2 once fast or busy jobs ran on two threads */
    atomic_ulong first_runner; /* the thread of the first one (glibc's pthread_t), 0 before */
};

struct feed_job {
    struct work_job job;
    struct feed *f;
    char cmd[16];
    long arg;
    pthread_t dispatched_by;
};

/* Keep the CPU busy for us microseconds. */
static void work_spin_us(long us)
{
    struct timespec t0, t;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static void feed_job_run(struct work_job *job)
{
    struct feed_job *j = (struct feed_job *)job;
    struct feed *f = j->f;

    if (strcmp(j->cmd, "busy") == 0)
        work_spin_us(j->arg);
    if (strcmp(j->cmd, "fast") == 0 || strcmp(j->cmd, "busy") == 0) {
        unsigned long expected = 0, self = (unsigned long)pthread_self();

        if (pthread_equal(pthread_self(), j->dispatched_by))
            atomic_fetch_add(&f->fast_same_thread, 1);
        if (!atomic_compare_exchange_strong(&f->first_runner, &expected, self) && expected != self)
            atomic_store(&f->threads_seen, 2);
        atomic_fetch_add(&f->fast_done, 1);
    } else if (strcmp(j->cmd, "slow") == 0) {
        atomic_fetch_add(&f->slow_started, 1);
        lane_note_max(&f->slow_max, atomic_fetch_add(&f->slow_active, 1) + 1);
        work_sleep_ms(j->arg);
        atomic_fetch_sub(&f->slow_active, 1);
    } else if (strcmp(j->cmd, "ask") == 0) {
        work_blocking(f->w);
        work_wait_for(&f->answered, 1, 5000);
        atomic_store(&f->asked_done, 1);
    }
}

static void feed_job_free(struct work_job *job)
{
    free(job);
}

static void feed_line(struct feed *f, const char *line)
{
    struct feed_job *j;

    if (strcmp(line, "answer") == 0) {
        atomic_store(&f->answered, 1);
        return;
    }
    if (strcmp(line, "mark") == 0) {
        atomic_store(&f->mark_ms, work_now_ms());
        return;
    }
    j = calloc(1, sizeof(*j));
    if (j == NULL)
        return;
    j->job = (struct work_job){
        .run = feed_job_run, .done = feed_job_free, .drop = feed_job_free, .lane = &f->lane};
    j->f = f;
    j->dispatched_by = pthread_self();
    sscanf(line, "%15s %ld", j->cmd, &j->arg);
    work_submit(f->w, &j->job);
}

static void feed_dispatch(void *ctx)
{
    struct feed *f = ctx;
    char *nl;

    while ((nl = memchr(f->buf, '\n', f->len)) != NULL) {
        size_t n = (size_t)(nl - f->buf);

        *nl = '\0';
        feed_line(f, f->buf);
        memmove(f->buf, nl + 1, f->len - n - 1);
        f->len -= n + 1;
    }
}

static int feed_read(void *ctx)
{
    struct feed *f = ctx;
    ssize_t n = read(f->fd, f->buf + f->len, sizeof(f->buf) - f->len);

    if (n < 0 && errno == EINTR)
        return -1;
    if (n <= 0)
        return 0;
    f->len += (size_t)n;
    return 1;
}

static void feed_flush(void *ctx)
{
    atomic_fetch_add(&((struct feed *)ctx)->flushes, 1);
}

static void feed_ended(void *ctx)
{
    atomic_fetch_add(&((struct feed *)ctx)->ended, 1);
}

/* A pool reading the pipe's read end; *wfd is the end the test writes. */
static int feed_start(struct feed *f, struct work *w, int *wfd)
{
    struct work_source src = {.ctx = f,
                              .dispatch = feed_dispatch,
                              .read = feed_read,
                              .flush = feed_flush,
                              .ended = feed_ended};
    int fds[2];

    memset(f, 0, sizeof(*f));
    if (pipe(fds) != 0)
        return -1;
    f->fd = fds[0];
    f->w = w;
    *wfd = fds[1];
    work_lane_init(&f->lane, 8);
    return work_start(w, &src, 16) == STATUS_OK ? 0 : -1;
}

static void feed_send(int fd, const char *text)
{
    ssize_t n = write(fd, text, strlen(text));

    (void)n;
}

/* End of input: the reader sees it (ended), then the calls finish and the pool stops. */
static void feed_stop(struct feed *f, struct work *w, int wfd)
{
    close(wfd);
    CHECK(work_wait_for(&f->ended, 1, 5000));
    work_drain(w, -1);
    work_stop(w, -1);
    close(f->fd);
}

/* A sequential client: each call runs on the thread that read it, nobody else wakes. */
static void test_reader_runs_its_calls(void)
{
    struct feed f;
    struct work w;
    int wfd;

    if (!CHECK(feed_start(&f, &w, &wfd) == 0))
        return;
    for (int i = 1; i <= 50; i++) {
        feed_send(wfd, "fast\n");
        if (!CHECK(work_wait_for(&f.fast_done, i, 5000)))
            break;
    }
    CHECK_INT_EQ(atomic_load(&f.fast_same_thread), 50);
    CHECK(atomic_load(&f.flushes) >= 50);
    feed_stop(&f, &w, wfd);
}

/* A slow call on the reader: within a few ticks another thread reads the next line. */
static void test_slow_call_hands_reading_on(void)
{
    struct feed f;
    struct work w;
    long sent;
    int wfd;

    if (!CHECK(feed_start(&f, &w, &wfd) == 0))
        return;
    feed_send(wfd, "slow 1500\n");
    CHECK(work_wait_for(&f.slow_started, 1, 5000));
    work_sleep_ms(20);
    sent = work_now_ms();
    feed_send(wfd, "mark\nfast\n");
    CHECK(work_wait_for(&f.fast_done, 1, 1000));
    CHECK(atomic_load(&f.mark_ms) > 0 && atomic_load(&f.mark_ms) - sent < 200);
    CHECK_INT_EQ(atomic_load(&f.slow_active), 1);
    feed_stop(&f, &w, wfd);
}

/* A call that waits for the client gives reading away at once: its answer is read. */
static void test_blocking_call_gets_its_answer(void)
{
    struct feed f;
    struct work w;
    int wfd;

    if (!CHECK(feed_start(&f, &w, &wfd) == 0))
        return;
    feed_send(wfd, "ask\n");
    work_sleep_ms(10);
    feed_send(wfd, "answer\n");
    CHECK(work_wait_for(&f.asked_done, 1, 2000));
    feed_stop(&f, &w, wfd);
}

/* Slow calls pipelined in one read all start, each on a thread of its own, up to the lane. */
static void test_piled_up_calls_get_threads(void)
{
    struct feed f;
    struct work w;
    int wfd;

    if (!CHECK(feed_start(&f, &w, &wfd) == 0))
        return;
    feed_send(wfd, "slow 600\nslow 600\nslow 600\nslow 600\n");
    CHECK(work_wait_for(&f.slow_started, 4, 400));
    CHECK_INT_EQ(atomic_load(&f.slow_max), 4);
    feed_stop(&f, &w, wfd);
}

/* Calls that take a while each, many in one read: the reader wakes a helper and both run
 * calls (once the pool has seen how long they take). Calls that take next to nothing are
 * all run by the reader: a helper would cost more than it gives. */
static void test_pipelined_calls_use_a_helper(void)
{
    struct feed f;
    struct work w;
    char batch[4096] = "";
    int wfd, rounds = 0, done;

    if (!CHECK(feed_start(&f, &w, &wfd) == 0))
        return;
    for (int i = 0; i < 400; i++)
        strcat(batch, "fast\n");
    /* 2,000 fast calls stay on the reading thread. A round may see one preempted across the
     * watcher's tick on a loaded machine (the watcher then rightly hands reading over): up
     * to three rounds, one of them clean. */
    for (int attempt = 0, clean = 0; !clean && attempt < 3; attempt++) {
        int base = atomic_load(&f.fast_done);

        atomic_store(&f.threads_seen, 0);
        atomic_store(&f.first_runner, 0);
        atomic_store(&f.fast_same_thread, 0);
        for (int i = 1; i <= 5; i++) {
            feed_send(wfd, batch);
            CHECK(work_wait_for(&f.fast_done, base + 400 * i, 5000));
        }
#ifdef __SANITIZE_THREAD__
        /* (Under ThreadSanitizer every call is slow enough for the watcher to see some of
         * them running across a tick, and to take reading over.) */
        clean = 1;
#else
        clean = atomic_load(&f.threads_seen) == 0 && atomic_load(&f.fast_same_thread) == 2000;
        if (attempt == 2) {
            CHECK_INT_EQ(atomic_load(&f.threads_seen), 0);
            CHECK_INT_EQ(atomic_load(&f.fast_same_thread), 2000);
        }
#endif
    }
    atomic_store(&f.threads_seen, 0);
    atomic_store(&f.first_runner, 0);
    done = atomic_load(&f.fast_done);
    batch[0] = '\0';
    for (int i = 0; i < 40; i++)
        strcat(batch, "busy 200\n");
    while (atomic_load(&f.threads_seen) < 2 && rounds++ < 20) {
        feed_send(wfd, batch);
        work_wait_for(&f.fast_done, done + 40 * rounds, 5000);
    }
    CHECK_INT_EQ(atomic_load(&f.threads_seen), 2);
    CHECK(rounds <= 3);
    feed_stop(&f, &w, wfd);
}

/* work_stop gives up on a thread held up past its deadline: the pool's threads are let go
 * (detached), so those that ended, or end later, are nobody's to join when the caller exits
 * without the pool (TSan reports a thread never joined nor detached). */
static void test_stop_gives_up(void)
{
    static struct block_job b = {.job = {.run = block_run, .drop = block_drop}};
    static struct count_job jobs[20];
    static struct work w;
    atomic_int ran = 0, dropped = 0;
    size_t left = 1;

    if (!CHECK_INT_EQ(work_start(&w, &work_no_input, 8), STATUS_OK))
        return;
    work_submit(&w, &b.job);
    CHECK(work_wait_for(&b.started, 1, 5000));
    for (int i = 0; i < 20; i++) {
        jobs[i] = (struct count_job){
            .job = {.run = count_run, .drop = count_drop}, .ran = &ran, .dropped = &dropped};
        work_submit(&w, &jobs[i].job);
    }
    CHECK(work_wait_for(&ran, 20, 5000));
    CHECK_INT_EQ(work_stop(&w, 100), 0);
    CHECK_INT_EQ(w.let_go, 1);
    atomic_store(&b.release, 1);
    CHECK(work_wait_for(&b.finished, 1, 5000));
    for (long end = work_now_ms() + 5000; left > 0 && work_now_ms() < end;) {
        work_sleep_ms(1);
        pthread_mutex_lock(&w.lock);
        left = w.nthreads;
        pthread_mutex_unlock(&w.lock);
    }
    CHECK_INT_EQ(left, 0);
}

/* Threads that idle out let themselves go: none is left in the pool's list ended and
 * unjoined (an exit without work_stop would leave it a leak for TSan). */
static void test_idle_threads_let_go(void)
{
    static struct block_job b[4];
    static struct work w;
    size_t listed = 0, alive = 0;

    if (!CHECK_INT_EQ(work_start(&w, &work_no_input, 8), STATUS_OK))
        return;
    pthread_mutex_lock(&w.lock);
    w.idle_ms = 50;
    pthread_mutex_unlock(&w.lock);
    for (int i = 0; i < 4; i++) {
        b[i] = (struct block_job){.job = {.run = block_run, .drop = block_drop}};
        work_submit(&w, &b[i].job);
    }
    for (int i = 0; i < 4; i++)
        CHECK(work_wait_for(&b[i].started, 1, 5000));
    for (int i = 0; i < 4; i++)
        atomic_store(&b[i].release, 1);
    CHECK_INT_EQ(work_drain(&w, 5000), 1);
    /* Past two threads, the idle ones end. */
    for (long end = work_now_ms() + 5000; work_now_ms() < end; work_sleep_ms(10)) {
        pthread_mutex_lock(&w.lock);
        alive = w.nthreads;
        pthread_mutex_unlock(&w.lock);
        if (alive <= 2)
            break;
    }
    CHECK(alive <= 2);
    pthread_mutex_lock(&w.lock);
    listed = work_listed(&w);
    alive = w.nthreads;
    pthread_mutex_unlock(&w.lock);
    CHECK_INT_EQ(listed, alive);
    work_stop(&w, -1);
    CHECK_INT_EQ(w.nthreads, 0);
}

/* stop_input interrupts a reader waiting for input that never comes. */
static void test_stop_input_interrupts(void)
{
    struct feed f;
    struct work w;
    long t0;
    int wfd;

    if (!CHECK(feed_start(&f, &w, &wfd) == 0))
        return;
    work_sleep_ms(20);
    t0 = work_now_ms();
    work_stop_input(&w, 1000);
    CHECK(work_now_ms() - t0 < 1000);
    CHECK(w.reader == NULL);
    /* Not the end of input: ended is for EOF. */
    CHECK_INT_EQ(atomic_load(&f.ended), 0);
    work_stop(&w, -1);
    close(wfd);
    close(f.fd);
}

static const struct check_test tests[] = {
    {"jobs_run", test_jobs_run},
    {"drain_waits", test_drain_waits},
    {"lane_bounds", test_lane_bounds},
    {"lane_full_others_go_on", test_lane_full_others_go_on},
    {"stop_drops_queued", test_stop_drops_queued},
    {"done_after_lane", test_done_after_lane},
    {"reader_runs_its_calls", test_reader_runs_its_calls},
    {"slow_call_hands_reading_on", test_slow_call_hands_reading_on},
    {"blocking_call_gets_its_answer", test_blocking_call_gets_its_answer},
    {"piled_up_calls_get_threads", test_piled_up_calls_get_threads},
    {"pipelined_calls_use_a_helper", test_pipelined_calls_use_a_helper},
    {"stop_input_interrupts", test_stop_input_interrupts},
    {"stop_gives_up", test_stop_gives_up},
    {"idle_threads_let_go", test_idle_threads_let_go},
    {0},
};

int main(void)
{
    return check_main("test_work", tests);
}
