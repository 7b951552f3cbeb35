/* test_crash.c: a fatal signal on a thread that runs plugin code says which plugin, row and
 * request, then ends the process with that same signal (checked in a child process); outside
 * a plugin call it says so. */
#include "crash.h"

#include "check.h"
#include "status.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

    if (crash_install() != STATUS_OK)
        _exit(3);
    crash_enter("weather", "tool", "forecast", id);
    raise(SIGBUS);
}

static void crash_with_string_id(void)
{
    cJSON *id = cJSON_CreateString("req\n7");

    if (crash_install() != STATUS_OK)
        _exit(3);
    crash_enter("db", "resource", "db://t", id);
    abort();
}

static void crash_outside(void)
{
    if (crash_install() != STATUS_OK)
        _exit(3);
    crash_enter("gone", "tool", "t", NULL);
    crash_leave();
    raise(SIGFPE);
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
    {0},
};

int main(void)
{
    return check_main("test_crash", tests);
}
