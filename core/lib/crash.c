#include "lib/crash.h"

#include "lib/nowait.h"
#include "lib/status.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the thread runs now, for the handler. Thread-local, beside the self-pipe the other
 * file-scope state STYLE.md allows: a fault is delivered to the thread that faulted, and only
 * that thread's own record says what it was doing. Written by its own thread only. */
struct crash_here {
    const char *plugin;
    const char *what;
    const char *name;
    const cJSON *id;
    void *stack; /* this thread's alternate signal stack (owned), or NULL */
};

static _Thread_local struct crash_here crash_here;
static int crash_isolated; /* set once at start-up, before any plugin code runs */

void crash_set_isolated(void)
{
    crash_isolated = 1;
}

/* The alternate stack: enough for the handler, whatever SIGSTKSZ says (glibc makes it a
 * call, and a sanitizer's own handler frames need more). */
#define CRASH_STACK_BYTES (64u * 1024u)

static const struct {
    int sig;
    const char *name;
} crash_signals[] = {
    {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGILL, "SIGILL"},
    {SIGFPE, "SIGFPE"},   {SIGABRT, "SIGABRT"}, {0, NULL},
};

/* What each signal did before crash_install (the default action, or a sanitizer's handler),
 * in crash_signals' order: the handler gives the signal back to it. Written once by
 * crash_install, before any other thread starts; read only by the handler. */
static struct sigaction crash_previous[sizeof(crash_signals) / sizeof(crash_signals[0])];

/* --- Formatting with what a signal handler may use: stores and write(2). --- */

struct crash_line {
    char buf[1024];
    size_t len;
};

static void crash_add(struct crash_line *l, const char *s)
{
    /* A name the plugin or client chose is cut, not trusted to be short. */
    for (size_t i = 0; s[i] != '\0' && i < 200 && l->len < sizeof(l->buf) - 1; i++)
        l->buf[l->len++] = s[i] == '\n' || s[i] == '\r' ? ' ' : s[i];
}

/* The line's end (crash_add turns a newline into a space: a name cannot start a line). */
static void crash_end(struct crash_line *l)
{
    l->buf[l->len++] = '\n';
}

static void crash_add_number(struct crash_line *l, double v)
{
    char digits[24];
    size_t n = 0;
    long long x;

    if (!(v > -1e15 && v < 1e15) || (double)(long long)v != v) {
        crash_add(l, "(a number)");
        return;
    }
    x = (long long)v;
    if (x < 0)
        crash_add(l, "-");
    do {
        digits[n++] = (char)('0' + (x < 0 ? -(x % 10) : x % 10));
        x /= 10;
    } while (x != 0 && n < sizeof(digits));
    while (n > 0 && l->len < sizeof(l->buf) - 1)
        l->buf[l->len++] = digits[--n];
}

static void crash_add_id(struct crash_line *l, const cJSON *id)
{
    if (id == NULL)
        return;
    crash_add(l, ", request id ");
    if (cJSON_IsString(id) && id->valuestring != NULL) {
        crash_add(l, "\"");
        crash_add(l, id->valuestring);
        crash_add(l, "\"");
    } else if (cJSON_IsNumber(id)) {
        crash_add_number(l, id->valuedouble);
    }
}

static const char *crash_name_of(int sig)
{
    for (size_t i = 0; crash_signals[i].name != NULL; i++) {
        if (crash_signals[i].sig == sig)
            return crash_signals[i].name;
    }
    return "a fatal signal";
}

static void crash_format(struct crash_line *l, int sig)
{
    const struct crash_here *h = &crash_here;

    crash_add(l, "mcph: ");
    crash_add(l, crash_name_of(sig));
    if (h->plugin == NULL) {
        crash_add(l, " outside the plugin calls and reloads mcph follows; mcph ends");
        crash_end(l);
        return;
    }
    crash_add(l, " in plugin '");
    crash_add(l, h->plugin);
    crash_add(l, "' (");
    crash_add(l, h->what);
    if (h->name != NULL) {
        crash_add(l, " '");
        crash_add(l, h->name);
        crash_add(l, "'");
    }
    crash_add_id(l, h->id);
    if (crash_isolated) {
        crash_add(l, "): the plugin's own process (isolate = process) ends; mcph starts it again");
        crash_end(l);
        return;
    }
    crash_add(l, "): the plugin crashed inside mcph and ends it; isolate = process in [plugin.");
    crash_add(l, h->plugin);
    crash_add(l, "] would contain such a crash to its own process");
    crash_end(l);
}

/* Say what crashed, then let the signal do what it would have done without this handler (the
 * default action's exit status and core dump, or a sanitizer's report): the action it had
 * before is put back, and a fault returns to run the faulting instruction again, which then
 * goes to that action with its own address; a signal sent (kill, abort) is raised again. */
static void crash_on_signal(int sig, siginfo_t *info, void *context)
{
    struct crash_line l;
    sigset_t set;
    size_t i = 0;

    (void)context;
    l.len = 0;
    crash_format(&l, sig);
    if (nowait_write(nowait_stderr(), l.buf, l.len) < 0) {
        /* Nothing more can be said. */
    }
    while (crash_signals[i].name != NULL && crash_signals[i].sig != sig)
        i++;
    sigaction(sig, &crash_previous[i], NULL);
    if (info != NULL && info->si_code > 0 && sig != SIGABRT)
        return;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    /* Here only when the action put back ignores the signal or returns from it: end as the
     * default action would. */
    _exit(128 + sig);
}

void crash_thread_enter(void)
{
    stack_t ss = {0};

    if (crash_here.stack != NULL)
        return;
    ss.ss_sp = malloc(CRASH_STACK_BYTES);
    ss.ss_size = CRASH_STACK_BYTES;
    if (ss.ss_sp == NULL)
        return;
    if (sigaltstack(&ss, NULL) != 0) {
        free(ss.ss_sp);
        return;
    }
    crash_here.stack = ss.ss_sp;
}

void crash_thread_leave(void)
{
    stack_t ss = {.ss_flags = SS_DISABLE};

    if (crash_here.stack == NULL)
        return;
    if (sigaltstack(&ss, NULL) == 0)
        free(crash_here.stack);
    crash_here.stack = NULL;
}

int crash_install(void)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = crash_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_ONSTACK | SA_SIGINFO;
    for (size_t i = 0; crash_signals[i].name != NULL; i++) {
        struct sigaction before;

        if (sigaction(crash_signals[i].sig, &sa, &before) != 0)
            return STATUS_IO;
        /* Installed twice: what came before is still what the first install saw. */
        if ((before.sa_flags & SA_SIGINFO) == 0 || before.sa_sigaction != crash_on_signal)
            crash_previous[i] = before;
    }
    crash_thread_enter();
    return STATUS_OK;
}

void crash_enter(const char *plugin, const char *what, const char *name, const cJSON *id)
{
    crash_here.plugin = plugin;
    crash_here.what = what;
    crash_here.name = name;
    crash_here.id = id;
    /* The handler runs on this thread: the record must be in memory before plugin code. */
    atomic_signal_fence(memory_order_seq_cst);
}

void crash_leave(void)
{
    atomic_signal_fence(memory_order_seq_cst);
    crash_here.plugin = NULL;
}
