#include "lib/nowait.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int nowait_stderr_fd = 2;

int nowait_open(int fd)
{
    char path[64];
    struct stat st;
    int own;

    if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode))
        return fd;
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    own = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    return own >= 0 ? own : fd;
}

ssize_t nowait_write(int fd, const void *buf, size_t len)
{
    ssize_t n = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);

    if (n < 0 && errno == ENOTSOCK)
        n = write(fd, buf, len);
    return n;
}

void nowait_stderr_init(void)
{
    nowait_stderr_fd = nowait_open(2);
}

int nowait_stderr(void)
{
    return nowait_stderr_fd;
}
