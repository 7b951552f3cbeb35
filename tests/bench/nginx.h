/*
 * nginx.h: the nginx column of http-driver.c, the floor of an HTTP server on this machine.
 * Debian's nginx answers every POST of the echo call with a fixed body, the answer mcph
 * gives to it (`return 200 '...'`): no MCP, no JSON parsed, only HTTP/1.1 keep-alive. The
 * driver runs it as any other server: a fresh one each round, in the foreground (daemon off,
 * master and workers), with a prefix of its own under DIR/nginx/ (its configuration, pid
 * file, temporary paths and error log), on 127.0.0.1 at a port found free just before.
 * Header-only (static inline): http-driver.c is one program.
 */
#ifndef MCPH_BENCH_NGINX_H
#define MCPH_BENCH_NGINX_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* The id of every echo call sent to nginx: its answer is a fixed text, so the requests carry
 * the id the answer has, and every answer is checked as the others are, its id included. */
#define NGINX_ID 1

/* mcph's answer to the echo call over HTTP (2026-07-28, id NGINX_ID), byte for byte as
 * build/mcph conf/mcph.ini gives it: what nginx answers. No ', \ or $ (nginx's quoting). */
#define NGINX_ANSWER                                                                               \
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":"          \
    "\"The quick brown fox jumps over the lazy dog\"}],\"resultType\":\"complete\",\"_meta\":{"    \
    "\"io.modelcontextprotocol/serverInfo\":{\"name\":\"mcph\",\"version\":\"0.1.0\",\"title\":"   \
    "\"mcph plugin host\"}}}}"

/* A TCP port of 127.0.0.1 that nobody listens on right now (bound to port 0, then closed), or
 * 0. nginx cannot be told to listen on port 0 and say which port it got: the driver tries
 * again when another process takes the port meanwhile. */
static inline int nginx_free_port(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t len = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = 0;

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0)
        return 0;
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
        getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
        port = ntohs(sa.sin_port);
    close(fd);
    return port;
}

/* Write prefix/nginx.conf: worker_processes auto (one a CPU), keep-alive without a limit that
 * a series reaches, no access log, and POST /mcp answered by NGINX_ANSWER. 0, or -1. */
static inline int nginx_write_conf(const char *prefix, int port)
{
    char path[4096];
    FILE *f;
    int bad;

    if (snprintf(path, sizeof(path), "%s/nginx.conf", prefix) >= (int)sizeof(path))
        return -1;
    mkdir(prefix, 0755);
    f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fprintf(f,
            "# Written by tests/bench/http-driver (nginx.h) for one round of the HTTP table.\n"
            "daemon off;\nmaster_process on;\nworker_processes auto;\n"
            "pid %s/nginx.pid;\nerror_log stderr notice;\n"
            "events {\n    worker_connections 1024;\n}\n"
            "http {\n    access_log off;\n"
            "    client_body_temp_path %s/client_body;\n    proxy_temp_path %s/proxy;\n"
            "    fastcgi_temp_path %s/fastcgi;\n    uwsgi_temp_path %s/uwsgi;\n"
            "    scgi_temp_path %s/scgi;\n"
            "    keepalive_requests 100000000;\n    keepalive_timeout 300s;\n"
            "    server {\n        listen 127.0.0.1:%d;\n"
            "        location = /mcp {\n            default_type application/json;\n"
            "            return 200 '%s';\n        }\n    }\n}\n",
            prefix, prefix, prefix, prefix, prefix, prefix, port, NGINX_ANSWER);
    bad = ferror(f);
    return fclose(f) != 0 || bad ? -1 : 0;
}

/* Does 127.0.0.1:port accept a connection? 1 or 0. */
static inline int nginx_listening(int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), ok;

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0)
        return 0;
    ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
    close(fd);
    return ok;
}

#endif
