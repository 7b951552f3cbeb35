/* test_crash.c: a fatal signal on a thread that runs plugin code says which plugin, row and
 * request, then goes to the action it had before (the default: the process ends with that same
 * signal; or a handler installed earlier, as a sanitizer's is), checked in a child process;
 * outside a plugin call it says so. */
#include "lib/crash.h"

#include "check.h"
#include "lib/status.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* The default action for the fatal signals, whatever a sanitizer's runtime installed. */
static void crash_defaults(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        signal(sigs[i], SIG_DFL);
}

/* Run `body` in a child with stderr on a pipe; *status gets its wait status, text its stderr. */
static int crash_run(void (*body)(void), int *status, char *text, size_t cap)
{
    int fds[2];
    size_t len = 0;
    pid_t pid;
    ssize_t n;

    if (pipe(fds) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        body();
        _exit(0);
    }
    close(fds[1]);
    while (len + 1 < cap && (n = read(fds[0], text + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    text[len] = '\0';
    close(fds[0]);
    return waitpid(pid, status, 0) == pid ? 0 : -1;
}

static void crash_in_tool(void)
{
    cJSON *id = cJSON_CreateNumber(42);

    crash_defaults();
    if (crash_install() != STATUS_OK)
        _exit(3);
    crash_enter("weather", "tool", "forecast", id);
    raise(SIGBUS);
}

static void crash_with_string_id(void)
{
    cJSON *id = cJSON_CreateString("req\n7");

    crash_defaults();
    if (crash_install() != STATUS_OK)
        _exit(3);
    crash_enter("db", "resource", "db://t", id);
    abort();
}

static void crash_outside(void)
{
    crash_defaults();
    if (crash_install() != STATUS_OK)
        _exit(3);
    crash_enter("gone", "tool", "t", NULL);
    crash_leave();
    raise(SIGFPE);
}

/* A handler installed before crash_install (a sanitizer's) gets the fault after the line. */
static void crash_previous_handler(int sig)
{
    static const char said[] = "the previous handler\n";

    (void)sig;
    if (write(2, said, sizeof(said) - 1) < 0)
        _exit(78);
    _exit(77);
}

static void crash_fault_chained(void)
{
    volatile char *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    signal(SIGSEGV, crash_previous_handler);
    if (page == MAP_FAILED || crash_install() != STATUS_OK || crash_install() != STATUS_OK)
        _exit(3);
    crash_enter("maps", "tool", "tiles", NULL);
    page[0] = 1; /* a real fault: the instruction runs again, into the previous handler */
}

static void test_chained(void)
{
    char text[2048];
    int status = 0;

    if (!CHECK_INT_EQ(crash_run(crash_fault_chained, &status, text, sizeof(text)), 0))
        return;
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 77);
    CHECK(strstr(text, "SIGSEGV in plugin 'maps' (tool 'tiles'") != NULL);
    /* mcph's line first, then the handler that was there before (installed twice: once). */
    CHECK(strstr(text, "the previous handler") > strstr(text, "SIGSEGV in plugin"));
    CHECK(strstr(strstr(text, "SIGSEGV in plugin") + 1, "SIGSEGV in plugin") == NULL);
}

static void test_in_tool(void)
{
    char text[2048];
    int status = 0;

    if (!CHECK_INT_EQ(crash_run(crash_in_tool, &status, text, sizeof(text)), 0))
        return;
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
    CHECK(strstr(text, "SIGBUS in plugin 'weather' (tool 'forecast', request id 42)") != NULL);
    CHECK(strstr(text, "isolate = process in [plugin.weather]") != NULL);
}

static void test_string_id(void)
{
    char text[2048];
    int status = 0;

    if (!CHECK_INT_EQ(crash_run(crash_with_string_id, &status, text, sizeof(text)), 0))
        return;
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    /* A newline in the id cannot start a line of its own. */
    CHECK(strstr(text, "(resource 'db://t', request id \"req 7\")") != NULL);
    CHECK(strchr(text, '\n') == text + strlen(text) - 1);
}

static void test_outside(void)
{
    char text[2048];
    int status = 0;

    if (!CHECK_INT_EQ(crash_run(crash_outside, &status, text, sizeof(text)), 0))
        return;
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGFPE);
    CHECK(strstr(text, "SIGFPE outside the plugin calls") != NULL);
    CHECK(strstr(text, "'gone'") == NULL);
}

static const struct check_test tests[] = {
    {"in_tool", test_in_tool},
    {"string_id", test_string_id},
    {"outside", test_outside},
    {"chained", test_chained},
    {0},
};

int main(void)
{
    return check_main("test_crash", tests);
}
