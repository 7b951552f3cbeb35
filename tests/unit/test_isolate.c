/* test_isolate.c: the spec isolation starts a section's child from (host/isolate.c): mcph
 * itself with --isolated, mcph's environment and folder, the section's limits, and copies of
 * the INI text and the image to pass on. */
#include "host/isolate.h"

#include "check.h"
#include "lib/limits.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* Whether fd is a close-on-exec copy of other (the same open file). */
static int same_file_copy(int fd, int other)
{
    struct stat a, b;

    return fd >= 3 && fd != other && (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0 && fstat(fd, &a) == 0 &&
           fstat(other, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static void test_spec(void)
{
    const struct config_isolate lim = {.on = 1,
                                       .call_timeout_ms = 1500,
                                       .max_memory = 1LL << 30,
                                       .max_cpu_s = 7,
                                       .max_files = 64,
                                       .max_procs = 5};
    int ini = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int image = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    const struct isolate_setup set = {.id = "calc",
                                      .ini_file = "/etc/mcph.ini",
                                      .ini_fd = ini,
                                      .image_fd = image,
                                      .limits = &lim};
    char *cwd = getcwd(NULL, 0);
    struct mcp_spec spec;
    size_t n = 0;
    int kept;

    CHECK(ini >= 0 && image >= 0);
    CHECK_INT_EQ(isolate_spec(&set, &spec), MCPH_OK);
    CHECK_STR_EQ(spec.argv[0], "/proc/self/exe");
    CHECK_STR_EQ(spec.argv[1], "--isolated");
    CHECK_STR_EQ(spec.argv[2], "calc");
    CHECK_STR_EQ(spec.argv[3], "/etc/mcph.ini");
    CHECK(spec.argv[4] == NULL);
    while (environ[n] != NULL && spec.envp[n] != NULL && strcmp(environ[n], spec.envp[n]) == 0)
        n++;
    CHECK(environ[n] == NULL && spec.envp[n] == NULL); /* mcph's environment, whole */
    CHECK(spec.envp != environ);
    CHECK_STR_EQ(spec.cwd, cwd);
    CHECK_STR_EQ(spec.display, "calc");
    CHECK_STR_EQ(spec.noun, "plugin");
    CHECK(spec.tag == NULL); /* the child tags its own lines */
    CHECK_INT_EQ(spec.startup_ms, LIMIT_ISOLATE_STARTUP_MS);
    CHECK_INT_EQ(spec.call_timeout_ms, 1500);
    CHECK(spec.max_memory == 1LL << 30);
    CHECK_INT_EQ(spec.max_cpu_s, 7);
    CHECK_INT_EQ(spec.max_files, 64);
    CHECK_INT_EQ(spec.max_procs, 5);
    CHECK_INT_EQ(spec.pass_origin, 1);
    CHECK_INT_EQ(spec.config_exit, ISOLATE_EXIT_CONFIG);
    CHECK_INT_EQ(spec.own_instructions, 1);
    CHECK_INT_EQ(spec.npass, 2);
    CHECK(same_file_copy(spec.pass[0], ini));   /* becomes ISOLATE_FD_CONFIG */
    CHECK(same_file_copy(spec.pass[1], image)); /* becomes ISOLATE_FD_IMAGE */
    kept = spec.pass[0];
    mcp_spec_release(&spec);
    CHECK(fcntl(kept, F_GETFD) < 0); /* the copies are the spec's: released with it */
    CHECK(fcntl(ini, F_GETFD) >= 0 && fcntl(image, F_GETFD) >= 0); /* the originals are not */
    close(ini);
    close(image);
    free(cwd);
}

/* A descriptor that cannot be copied: no spec, nothing left open. */
static void test_no_image(void)
{
    const struct config_isolate lim = {.on = 1};
    int ini = open("/dev/null", O_RDONLY | O_CLOEXEC);
    const struct isolate_setup set = {
        .id = "calc", .ini_file = "/etc/mcph.ini", .ini_fd = ini, .image_fd = -1, .limits = &lim};
    struct mcp_spec spec;
    int free_fd = dup(ini), next;

    close(free_fd); /* the lowest free descriptor */
    CHECK_INT_EQ(isolate_spec(&set, &spec), MCPH_ERR_NOMEM);
    CHECK(spec.argv == NULL && spec.envp == NULL && spec.npass == 0);
    next = dup(ini); /* still the lowest: the copy of ini was closed again */
    CHECK_INT_EQ(next, free_fd);
    close(next);
    close(ini);
}

static const struct check_test tests[] = {
    {"spec", test_spec},
    {"no_image", test_no_image},
    {0},
};

int main(void)
{
    return check_main("test_isolate", tests);
}
