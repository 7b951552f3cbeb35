/*
 * relay.c: the bare relay of `make bench`, the floor of the isolation and gateway hop rows.
 * Starts a server as its child on two pipes and copies its own stdin to the child's stdin and
 * the child's stdout to its own stdout, bytes as they come, nothing parsed: what one more
 * process and one more pair of pipes cost a call, and nothing else. The cheapest correct
 * relay: a thread for each direction, blocking read() then write(), so a message costs one
 * read and one write a hop and no poll.
 *
 * usage: relay -- SERVER [ARG...]
 *
 * stdin's EOF closes the child's stdin; the child's stdout's EOF ends the relay, which waits
 * for the child and exits with its status (128 + the signal when a signal ended it). stderr is
 * the child's own (inherited).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define RELAY_CHUNK 65536

/* One direction: from one descriptor to the other, until EOF or an error. */
struct relay_copy {
    int from;
    int to;
};

static int relay_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Copy c->from to c->to until EOF (or an error on either side), then close c->to so that the
 * other end sees the EOF. arg: a struct relay_copy, borrowed for the thread's life. */
static void *relay_pump(void *arg)
{
    const struct relay_copy *c = arg;
    static _Thread_local char buf[RELAY_CHUNK];

    for (;;) {
        ssize_t n = read(c->from, buf, sizeof(buf));

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || relay_write_all(c->to, buf, (size_t)n) != 0)
            break;
    }
    close(c->to);
    return NULL;
}

/* The child: the pipes on its stdin and stdout, then the server. */
static void relay_child(const int in[2], const int out[2], char **argv)
{
    if (dup2(in[0], STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0)
        _exit(127);
    execvp(argv[0], argv);
    fprintf(stderr, "relay: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

int main(int argc, char **argv)
{
    struct relay_copy up = {.from = STDIN_FILENO}, down = {.to = STDOUT_FILENO};
    int in[2], out[2], wstatus = 0;
    pthread_t reader;
    pid_t pid;

    if (argc < 3 || strcmp(argv[1], "--") != 0) {
        fprintf(stderr, "usage: relay -- SERVER [ARG...]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
        fprintf(stderr, "relay: pipe: %s\n", strerror(errno));
        return 1;
    }
    pid = fork();
    if (pid == 0)
        relay_child(in, out, argv + 2);
    if (pid < 0) {
        fprintf(stderr, "relay: fork: %s\n", strerror(errno));
        return 1;
    }
    close(in[0]);
    close(out[1]);
    up.to = in[1];
    down.from = out[0];
    if (pthread_create(&reader, NULL, relay_pump, &down) != 0) {
        fprintf(stderr, "relay: cannot start a thread\n");
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return 1;
    }
    relay_pump(&up);
    pthread_join(reader, NULL);
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(wstatus))
        return 128 + WTERMSIG(wstatus);
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 1;
}
