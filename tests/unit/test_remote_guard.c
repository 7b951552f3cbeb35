/* test_remote_guard.c: the relay's SSRF guard: which addresses are public (every private,
 * loopback, link-local, CGNAT, documentation, multicast and reserved range refused, in IPv4
 * and IPv6, and the IPv6 forms that carry an IPv4 address judged by it), CIDR parsing (good
 * and bad forms, host bits cleared), allow_networks letting a refused address through, and
 * the verdict on a struct sockaddr as the open-socket callback gives it. */
#include "client/remote_guard.h"

#include "lib/status.h"

#include "check.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

/* Whether text (an address) is public. */
static int test_public(const char *text)
{
    struct remote_net net;

    if (!CHECK_INT_EQ(remote_guard_parse(text, &net), STATUS_OK))
        return -1;
    return remote_guard_public(net.addr);
}

static void test_v4_classes(void)
{
    static const char *const refused[] = {
        "0.0.0.0",       "0.1.2.3",         "10.0.0.1",     "10.255.255.255",  "100.64.0.1",
        "100.127.255.1", "127.0.0.1",       "127.1.2.3",    "169.254.169.254", "169.254.0.1",
        "172.16.0.1",    "172.31.255.255",  "192.0.0.8",    "192.0.2.1",       "192.88.99.1",
        "192.168.1.1",   "198.18.0.1",      "198.19.255.1", "198.51.100.7",    "203.0.113.9",
        "224.0.0.1",     "239.255.255.250", "240.0.0.1",    "255.255.255.255", NULL,
    };
    static const char *const public[] = {
        "1.1.1.1",
        "8.8.8.8",
        "100.63.255.255",
        "100.128.0.1",
        "172.15.255.255",
        "172.32.0.1",
        "192.167.1.1",
        "198.17.0.1",
        "198.20.0.1",
        "223.255.255.255",
        "93.184.216.34",
        "169.253.1.1",
        NULL,
    };

    for (int i = 0; refused[i] != NULL; i++)
        if (!CHECK_INT_EQ(test_public(refused[i]), 0))
            fprintf(stderr, "  (%s taken for public)\n", refused[i]);
    for (int i = 0; public[i] != NULL; i++)
        if (!CHECK_INT_EQ(test_public(public[i]), 1))
            fprintf(stderr, "  (%s refused)\n", public[i]);
}

static void test_v6_classes(void)
{
    static const char *const refused[] = {
        "::",      "::1",     "fc00::1",          "fd12:3456::1", "fe80::1", "febf::1",
        "fec0::1", "ff02::1", "ff05::2",          "2001:db8::1",  "2001::1", "2001:0:4136:e378::1",
        "3fff::1", "100::1",  "64:ff9b:1::a00:1", "4000::1",      "::2",     NULL,
    };
    static const char *const public[] = {
        "2606:4700:4700::1111",
        "2a00:1450:4001::200e",
        "2001:4860:4860::8888",
        NULL,
    };

    for (int i = 0; refused[i] != NULL; i++)
        if (!CHECK_INT_EQ(test_public(refused[i]), 0))
            fprintf(stderr, "  (%s taken for public)\n", refused[i]);
    for (int i = 0; public[i] != NULL; i++)
        if (!CHECK_INT_EQ(test_public(public[i]), 1))
            fprintf(stderr, "  (%s refused)\n", public[i]);
}

/* The IPv6 forms that carry an IPv4 address are judged by it, both ways. */
static void test_mapped_forms(void)
{
    CHECK_INT_EQ(test_public("::ffff:127.0.0.1"), 0);
    CHECK_INT_EQ(test_public("::ffff:169.254.169.254"), 0);
    CHECK_INT_EQ(test_public("::ffff:10.1.2.3"), 0);
    CHECK_INT_EQ(test_public("::ffff:8.8.8.8"), 1);
    CHECK_INT_EQ(test_public("64:ff9b::7f00:1"), 0);    /* NAT64 of 127.0.0.1 */
    CHECK_INT_EQ(test_public("64:ff9b::a9fe:a9fe"), 0); /* NAT64 of the metadata address */
    CHECK_INT_EQ(test_public("64:ff9b::808:808"), 1);   /* NAT64 of 8.8.8.8 */
    CHECK_INT_EQ(test_public("2002:7f00:1::1"), 0);     /* 6to4 of 127.0.0.1 */
    CHECK_INT_EQ(test_public("2002:c0a8:101::1"), 0);   /* 6to4 of 192.168.1.1 */
    CHECK_INT_EQ(test_public("2002:808:808::1"), 1);    /* 6to4 of 8.8.8.8 */
    CHECK_INT_EQ(test_public("::127.0.0.1"), 0);        /* IPv4-compatible */
    CHECK_INT_EQ(test_public("::8.8.8.8"), 1);
}

static void test_cidr_parsing(void)
{
    static const char *const bad[] = {
        "",          "/8",      "10.0.0.0/33",  "10.0.0.0/",    "10.0.0.0/-1", "10.0.0.0/8x",
        "10.0.0/8",  "::1/129", "fe80::1%eth0", "host.example", "10.0.0.0/ 8", "10.0.0.0 /8",
        "1.2.3.4.5", "::1/+1",  NULL,
    };
    struct remote_net net;
    char text[64];

    for (int i = 0; bad[i] != NULL; i++)
        if (!CHECK_INT_EQ(remote_guard_parse(bad[i], &net), STATUS_INVALID))
            fprintf(stderr, "  (%s taken)\n", bad[i]);
    CHECK_INT_EQ(remote_guard_parse("10.1.2.3/8", &net), STATUS_OK);
    CHECK_INT_EQ(net.bits, 104);
    inet_ntop(AF_INET, net.addr + 12, text, sizeof(text));
    CHECK_STR_EQ(text, "10.0.0.0");
    CHECK_INT_EQ(remote_guard_parse("192.168.1.5", &net), STATUS_OK);
    CHECK_INT_EQ(net.bits, 128);
    CHECK_INT_EQ(remote_guard_parse("fd00::1:2/16", &net), STATUS_OK);
    CHECK_INT_EQ(net.bits, 16);
    inet_ntop(AF_INET6, net.addr, text, sizeof(text));
    CHECK_STR_EQ(text, "fd00::");
    CHECK_INT_EQ(remote_guard_parse("0.0.0.0/0", &net), STATUS_OK);
    CHECK_INT_EQ(net.bits, 96);
    CHECK_INT_EQ(remote_guard_parse("::/0", &net), STATUS_OK);
    CHECK_INT_EQ(net.bits, 0);
}

static void test_allow_networks(void)
{
    struct remote_guard g = {0};
    struct remote_net a;

    CHECK_INT_EQ(remote_guard_add(&g, "127.0.0.0/8"), STATUS_OK);
    CHECK_INT_EQ(remote_guard_add(&g, "fd00:1::/32"), STATUS_OK);
    CHECK_INT_EQ(remote_guard_add(&g, "10.0.0.0/33"), STATUS_INVALID);
    CHECK_INT_EQ(g.count, 2);
    remote_guard_parse("127.9.9.9", &a);
    CHECK(remote_guard_inside(&g, a.addr));
    remote_guard_parse("::ffff:127.0.0.1", &a); /* the IPv4 inside counts */
    CHECK(remote_guard_inside(&g, a.addr));
    remote_guard_parse("128.0.0.1", &a);
    CHECK(!remote_guard_inside(&g, a.addr));
    remote_guard_parse("fd00:1:ffff::1", &a);
    CHECK(remote_guard_inside(&g, a.addr));
    remote_guard_parse("fd00:2::1", &a);
    CHECK(!remote_guard_inside(&g, a.addr));
    remote_guard_parse("::1", &a); /* 127.0.0.0/8 does not allow IPv6 loopback */
    CHECK(!remote_guard_inside(&g, a.addr));
    for (int i = 2; i < REMOTE_GUARD_MAX; i++)
        remote_guard_add(&g, "10.0.0.0/8");
    CHECK_INT_EQ(remote_guard_add(&g, "10.0.0.0/8"), STATUS_LIMIT);
}

/* The verdict on a socket address, as the open-socket callback has it. */
static void test_check_sockaddr(void)
{
    struct remote_guard none = {0}, lo = {0};
    struct sockaddr_in in = {.sin_family = AF_INET};
    struct sockaddr_in6 in6 = {.sin6_family = AF_INET6};
    struct sockaddr other = {.sa_family = AF_UNIX};
    char text[64];

    remote_guard_add(&lo, "127.0.0.0/8");
    inet_pton(AF_INET, "127.0.0.1", &in.sin_addr);
    CHECK_INT_EQ(remote_guard_check(&none, (struct sockaddr *)&in, sizeof(in), text, sizeof(text)),
                 0);
    CHECK_STR_EQ(text, "127.0.0.1");
    CHECK_INT_EQ(remote_guard_check(&lo, (struct sockaddr *)&in, sizeof(in), text, sizeof(text)),
                 1);
    CHECK_INT_EQ(remote_guard_check(&lo, (struct sockaddr *)&in, 4, text, sizeof(text)), 0);
    inet_pton(AF_INET, "1.1.1.1", &in.sin_addr);
    CHECK_INT_EQ(remote_guard_check(&none, (struct sockaddr *)&in, sizeof(in), text, sizeof(text)),
                 1);
    inet_pton(AF_INET6, "::ffff:169.254.169.254", &in6.sin6_addr);
    CHECK_INT_EQ(remote_guard_check(&lo, (struct sockaddr *)&in6, sizeof(in6), text, sizeof(text)),
                 0);
    CHECK_STR_EQ(text, "::ffff:169.254.169.254");
    inet_pton(AF_INET6, "::ffff:127.0.0.2", &in6.sin6_addr);
    CHECK_INT_EQ(remote_guard_check(&lo, (struct sockaddr *)&in6, sizeof(in6), text, sizeof(text)),
                 1);
    CHECK_INT_EQ(remote_guard_check(&lo, &other, sizeof(other), text, sizeof(text)), 0);
}

static const struct check_test tests[] = {
    {"v4_classes", test_v4_classes},
    {"v6_classes", test_v6_classes},
    {"mapped_forms", test_mapped_forms},
    {"cidr_parsing", test_cidr_parsing},
    {"allow_networks", test_allow_networks},
    {"check_sockaddr", test_check_sockaddr},
    {0},
};

int main(void)
{
    return check_main("test_remote_guard", tests);
}
