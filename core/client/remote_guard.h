/*
 * remote_guard.h: the relay's SSRF guard. Which addresses are public, the allow_networks CIDRs
 * of a url section, and the verdict on the address a socket is about to connect to (the relay
 * asks it from libcurl's open-socket callback, so redirects and DNS answers are judged where
 * the connection is made). Pure functions; any thread.
 *
 * Addresses are held in IPv6 form (16 bytes): an IPv4 address as ::ffff:a.b.c.d, an IPv4 CIDR
 * as that form with 96 more bits.
 */
#ifndef MCPH_REMOTE_GUARD_H
#define MCPH_REMOTE_GUARD_H

#include <stddef.h>
#include <sys/socket.h>

#define REMOTE_GUARD_MAX 64 /* allow_networks entries */

struct remote_net {
    unsigned char addr[16]; /* masked to bits */
    int bits;               /* 0..128 */
};

struct remote_guard {
    struct remote_net nets[REMOTE_GUARD_MAX];
    size_t count;
};

/* Parse text ("10.0.0.0/8", "::1/128", "192.168.1.5": a host) into *net. Returns STATUS_OK, or
 * STATUS_INVALID for anything else (a prefix longer than the address, junk after it, no
 * address). Host bits set past the prefix are cleared. */
int remote_guard_parse(const char *text, struct remote_net *net);

/* Add text (remote_guard_parse) to g. STATUS_INVALID: it does not parse; STATUS_LIMIT: g has
 * REMOTE_GUARD_MAX already. */
int remote_guard_add(struct remote_guard *g, const char *text);

/* Whether addr (16 bytes, IPv6 form) is a public address: not loopback, private (RFC 1918,
 * ULA), CGNAT, link-local (metadata 169.254.169.254 included), multicast, reserved, a
 * documentation range, 0/8 or unspecified. An IPv6 form that carries an IPv4 address
 * (mapped, IPv4-compatible, NAT64 64:ff9b::/96, 6to4 2002::/16) is judged by the IPv4 one. */
int remote_guard_public(const unsigned char addr[16]);

/* Whether addr (16 bytes) is inside one of g's networks (the IPv4 address it carries, if any,
 * counts too). */
int remote_guard_inside(const struct remote_guard *g, const unsigned char addr[16]);

/* The verdict on sa (len bytes; AF_INET or AF_INET6): 1 to connect (public, or allowed by
 * g), 0 refused, with the address in text written into text (size bytes, at least 64). Any
 * other family is refused. */
int remote_guard_check(const struct remote_guard *g, const struct sockaddr *sa, size_t len,
                       char *text, size_t size);

#endif
