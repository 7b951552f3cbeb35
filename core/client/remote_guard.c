/*
 * remote_guard.c: the SSRF guard's address classes, CIDR parsing and verdict
 * (remote_guard.h).
 */
#include "client/remote_guard.h"

#include "lib/status.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A range of addresses that are not public, in the 16-byte form. */
struct remote_range {
    unsigned char addr[16];
    int bits;
};

#define V4(a, b, c, d, n)                                                                          \
    {                                                                                              \
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d}, 96 + (n)                           \
    }

static const struct remote_range remote_private4[] = {
    V4(0, 0, 0, 0, 8),       /* "this network" */
    V4(10, 0, 0, 0, 8),      /* RFC 1918 */
    V4(100, 64, 0, 0, 10),   /* CGNAT */
    V4(127, 0, 0, 0, 8),     /* loopback */
    V4(169, 254, 0, 0, 16),  /* link-local, cloud metadata */
    V4(172, 16, 0, 0, 12),   /* RFC 1918 */
    V4(192, 0, 0, 0, 24),    /* IETF protocol assignments */
    V4(192, 0, 2, 0, 24),    /* TEST-NET-1 */
    V4(192, 88, 99, 0, 24),  /* 6to4 relay anycast */
    V4(192, 168, 0, 0, 16),  /* RFC 1918 */
    V4(198, 18, 0, 0, 15),   /* benchmarking */
    V4(198, 51, 100, 0, 24), /* TEST-NET-2 */
    V4(203, 0, 113, 0, 24),  /* TEST-NET-3 */
    V4(224, 0, 0, 0, 4),     /* multicast */
    V4(240, 0, 0, 0, 4),     /* reserved, broadcast */
    {{0}, 0},
};
#undef V4

/* IPv6: only 2000::/3 is global unicast; inside it these are not public. */
static const struct remote_range remote_private6[] = {
    {{0x20, 0x01, 0x00, 0x00}, 23}, /* IETF protocol assignments, Teredo */
    {{0x20, 0x01, 0x0d, 0xb8}, 32}, /* documentation */
    {{0x3f, 0xff}, 20},             /* documentation */
    {{0}, 0},
};

static int remote_in(const unsigned char addr[16], const unsigned char net[16], int bits)
{
    int whole = bits / 8, rest = bits % 8;

    if (memcmp(addr, net, (size_t)whole) != 0)
        return 0;
    if (rest == 0)
        return 1;
    return ((addr[whole] ^ net[whole]) & (0xff << (8 - rest)) & 0xff) == 0;
}

/* The IPv4 address an IPv6 form carries, as ::ffff:a.b.c.d in v4; 0 when none. */
static int remote_carried_v4(const unsigned char addr[16], unsigned char v4[16])
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const unsigned char nat64[12] = {0, 0x64, 0xff, 0x9b};
    static const unsigned char zero[12] = {0};
    const unsigned char *inside = NULL;

    if (memcmp(addr, mapped, 12) == 0 || memcmp(addr, nat64, 12) == 0)
        inside = addr + 12;
    else if (memcmp(addr, zero, 12) == 0 && (addr[12] | addr[13] | addr[14]) != 0)
        inside = addr + 12; /* IPv4-compatible (deprecated), not :: nor ::1 */
    else if (addr[0] == 0x20 && addr[1] == 0x02)
        inside = addr + 2; /* 6to4 */
    if (inside == NULL)
        return 0;
    memcpy(v4, mapped, 12);
    memcpy(v4 + 12, inside, 4);
    return 1;
}

int remote_guard_public(const unsigned char addr[16])
{
    static const unsigned char nat64_local[6] = {0, 0x64, 0xff, 0x9b, 0, 1};
    unsigned char v4[16];
    const struct remote_range *r;

    if (remote_carried_v4(addr, v4))
        addr = v4;
    else if (memcmp(addr, nat64_local, 6) == 0)
        return 0; /* 64:ff9b:1::/48, local-use NAT64: the IPv4 inside is not fixed */
    if (addr[10] == 0xff && addr[11] == 0xff && memcmp(addr, "\0\0\0\0\0\0\0\0\0\0", 10) == 0) {
        for (r = remote_private4; r->bits != 0; r++)
            if (remote_in(addr, r->addr, r->bits))
                return 0;
        return 1;
    }
    if ((addr[0] & 0xe0) != 0x20)
        return 0; /* ::, ::1, fc00::/7, fe80::/10, ff00::/8 and every reserved block */
    for (r = remote_private6; r->bits != 0; r++)
        if (remote_in(addr, r->addr, r->bits))
            return 0;
    return 1;
}

int remote_guard_parse(const char *text, struct remote_net *net)
{
    char host[INET6_ADDRSTRLEN + 1];
    const char *slash = strchr(text, '/');
    size_t len = slash ? (size_t)(slash - text) : strlen(text);
    int max = 128;
    long bits;
    char *end;

    memset(net, 0, sizeof(*net));
    if (len == 0 || len >= sizeof(host))
        return STATUS_INVALID;
    memcpy(host, text, len);
    host[len] = '\0';
    if (inet_pton(AF_INET, host, net->addr + 12) == 1) {
        net->addr[10] = net->addr[11] = 0xff;
        max = 32;
    } else if (inet_pton(AF_INET6, host, net->addr) != 1) {
        return STATUS_INVALID;
    }
    bits = max;
    if (slash != NULL) {
        if (slash[1] < '0' || slash[1] > '9')
            return STATUS_INVALID;
        bits = strtol(slash + 1, &end, 10);
        if (*end != '\0' || bits > max)
            return STATUS_INVALID;
    }
    net->bits = (int)bits + (128 - max);
    for (int i = net->bits; i < 128; i++)
        net->addr[i / 8] &= (unsigned char)~(0x80 >> (i % 8));
    return STATUS_OK;
}

int remote_guard_add(struct remote_guard *g, const char *text)
{
    struct remote_net net;

    if (remote_guard_parse(text, &net) != STATUS_OK)
        return STATUS_INVALID;
    if (g->count >= REMOTE_GUARD_MAX)
        return STATUS_LIMIT;
    g->nets[g->count++] = net;
    return STATUS_OK;
}

int remote_guard_inside(const struct remote_guard *g, const unsigned char addr[16])
{
    unsigned char v4[16];
    int carries = remote_carried_v4(addr, v4);

    for (size_t i = 0; i < g->count; i++) {
        if (remote_in(addr, g->nets[i].addr, g->nets[i].bits))
            return 1;
        if (carries && remote_in(v4, g->nets[i].addr, g->nets[i].bits))
            return 1;
    }
    return 0;
}

int remote_guard_check(const struct remote_guard *g, const struct sockaddr *sa, size_t len,
                       char *text, size_t size)
{
    unsigned char addr[16] = {0};

    snprintf(text, size, "(an address of family %d)", sa->sa_family);
    if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;

        addr[10] = addr[11] = 0xff;
        memcpy(addr + 12, &in->sin_addr, 4);
        inet_ntop(AF_INET, &in->sin_addr, text, (socklen_t)size);
    } else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;

        memcpy(addr, &in6->sin6_addr, 16);
        inet_ntop(AF_INET6, &in6->sin6_addr, text, (socklen_t)size);
    } else {
        return 0;
    }
    return remote_guard_public(addr) || remote_guard_inside(g, addr);
}
