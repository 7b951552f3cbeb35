/*
 * nowait.h: writes that never wait on whoever reads a pipe or socket. mcph's own stderr is
 * one: a client may stop reading it as it may stop reading stdout, and a log line, the
 * watchdog's last words or a crash report must not hold mcph for ever. What does not fit at
 * once is dropped.
 */
#ifndef MCPH_NOWAIT_H
#define MCPH_NOWAIT_H

#include <sys/types.h>

/* A descriptor for nowait_write() to what fd is open on: a pipe is opened again through /proc
 * with O_NONBLOCK (a file description of mcph's own, close-on-exec: processes that inherited
 * fd keep their blocking one); a socket is fd itself (written with MSG_DONTWAIT); so are a
 * file and a terminal, whose writes end without a reader's help. Returns fd when no other
 * descriptor can be had. */
int nowait_open(int fd);

/* write(2) that does not wait for a reader (on a descriptor from nowait_open): -1 with
 * EAGAIN when nothing fits now. Async-signal-safe. */
ssize_t nowait_write(int fd, const void *buf, size_t len);

/* mcph's own stderr: nowait_open(2), once at start-up, before any other thread or signal
 * handler. */
void nowait_stderr_init(void);

/* That descriptor (2 before nowait_stderr_init). Async-signal-safe. */
int nowait_stderr(void);

#endif
