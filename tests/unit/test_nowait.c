/* test_nowait.c: writes that never wait on a reader. A pipe gets a description of its own,
 * non-blocking and close-on-exec, while the inherited one stays blocking; a socket, a file
 * are written through as they are; a full pipe or socket gives EAGAIN at once; a socket
 * whose reader left gives EPIPE and no SIGPIPE; stderr is opened once, at start-up. */
#include "lib/nowait.h"

#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

/* Whether fd's file description is non-blocking (-1 when fd is not open). */
static int nowait_flag(int fd)
{
    int fl = fcntl(fd, F_GETFL);

    return fl < 0 ? -1 : (fl & O_NONBLOCK) != 0;
}

static int nowait_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFD);

    return fl < 0 ? -1 : (fl & FD_CLOEXEC) != 0;
}

/* Write to fd until nothing more fits; returns the bytes written, and errno of the last
 * write in *err. Gives up (returning -1) past 64 MiB: then the writes do not stop. */
static long nowait_fill(int fd, int *err)
{
    static char chunk[4096];
    long total = 0;
    ssize_t n;

    memset(chunk, 'x', sizeof(chunk));
    while ((n = nowait_write(fd, chunk, sizeof(chunk))) > 0) {
        total += n;
        if (total > 64L * 1024 * 1024)
            return -1;
    }
    *err = errno;
    return total;
}

/* A pipe's own descriptor does not wait when the pipe is full; the inherited one keeps
 * blocking, and what the own one wrote reaches the reader. */
static void test_pipe(void)
{
    int fds[2], own, err = 0;
    char byte = 0;

    if (!CHECK(pipe2(fds, O_CLOEXEC) == 0))
        return;
    /* The read end is a description of its own: reading it never hangs the test. */
    (void)fcntl(fds[0], F_SETFL, O_NONBLOCK);
    own = nowait_open(fds[1]);
    CHECK(own != fds[1]);
    CHECK_INT_EQ(nowait_cloexec(own), 1);
    CHECK_INT_EQ(nowait_flag(fds[1]), 0);
    /* Filling a pipe that waits would hang the test rather than fail it. */
    if (CHECK_INT_EQ(nowait_flag(own), 1)) {
        CHECK(nowait_fill(own, &err) > 0);
        CHECK_INT_EQ(err, EAGAIN);
        CHECK_INT_EQ(nowait_write(own, "y", 1), -1);
        CHECK_INT_EQ(read(fds[0], &byte, 1), 1);
        CHECK_INT_EQ(byte, 'x');
    }
    if (own != fds[1])
        close(own);
    close(fds[0]);
    close(fds[1]);
}

/* A socket is written with MSG_DONTWAIT through its own descriptor: full, it gives EAGAIN;
 * once the reader left, EPIPE (the process is not signalled: it is still here). */
static void test_socket(void)
{
    int sv[2], err = 0;

    if (!CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0))
        return;
    CHECK_INT_EQ(nowait_open(sv[0]), sv[0]);
    CHECK_INT_EQ(nowait_flag(sv[0]), 0);
    CHECK_INT_EQ(nowait_write(sv[0], "hi", 2), 2);
    CHECK(nowait_fill(sv[0], &err) > 0);
    CHECK_INT_EQ(err, EAGAIN);
    close(sv[1]);
    errno = 0;
    CHECK_INT_EQ(nowait_write(sv[0], "z", 1), -1);
    CHECK_INT_EQ(errno, EPIPE);
    close(sv[0]);
}

/* A file is its own descriptor, written with write(2) (send() refuses it). */
static void test_file(void)
{
    int fd = memfd_create("nowait", MFD_CLOEXEC);
    char buf[8] = {0};

    if (!CHECK(fd >= 0))
        return;
    CHECK_INT_EQ(nowait_open(fd), fd);
    CHECK_INT_EQ(nowait_write(fd, "abc", 3), 3);
    CHECK_INT_EQ(pread(fd, buf, sizeof(buf) - 1, 0), 3);
    CHECK_STR_EQ(buf, "abc");
    close(fd);
}

/* Before nowait_stderr_init, fd 2 itself; after it, with a pipe as stderr, a descriptor of
 * its own that does not wait. fd 2 is put back afterwards. */
static void test_stderr(void)
{
    int fds[2], saved = dup(2);

    CHECK_INT_EQ(nowait_stderr(), 2);
    if (!CHECK(saved >= 0) || !CHECK(pipe2(fds, O_CLOEXEC) == 0))
        return;
    fflush(stderr);
    CHECK(dup2(fds[1], 2) == 2);
    nowait_stderr_init();
    dup2(saved, 2);
    CHECK(nowait_stderr() != 2);
    CHECK_INT_EQ(nowait_flag(nowait_stderr()), 1);
    close(saved);
    close(fds[0]);
    close(fds[1]);
}

static const struct check_test tests[] = {
    {"pipe", test_pipe}, {"socket", test_socket}, {"file", test_file}, {"stderr", test_stderr}, {0},
};

int main(void)
{
    return check_main("test_nowait", tests);
}
