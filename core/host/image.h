/*
 * image.h: a plugin's file on its way into mcph. The file is checked through the descriptor
 * it is then read from (owner, mode, the folders above it, size), copied into a sealed
 * memfd, and the library is dlopened from that copy, so what was checked is what runs and a
 * rebuilt .so cannot change under a running instance. The loader (plugin.c) calls these
 * while it builds an instance. Main thread.
 */
#ifndef MCPH_IMAGE_H
#define MCPH_IMAGE_H

#include "host/plugin.h"
#include "host/rows.h"

#include <stddef.h>

/* The sealed copy of a plugin's file its library was loaded from. Its path, /proc/self/fd/N,
 * is the library's name in the dynamic loader, so the memfd stays open while the library is
 * mapped: no other file can then take that name. Instances that run in one mapping (a take
 * over) share it. Main thread. */
struct image {
    int memfd;    /* owned */
    size_t users; /* instances holding a share */
};

/* Check and copy the file of section ld->cp into ld->pl's image, and dlopen the copy unless
 * the instance is isolated (its child loads it). In an isolated child (cp->image_fd set) the
 * copy the parent passed is used and the file is not read. Returns STATUS_OK, STATUS_PLUGIN
 * (said through rows_fail) or STATUS_NOMEM. */
int image_open(struct rows_load *ld);

/* Open the library of old (borrowed) again for ld->pl, in its mapping: the image is shared,
 * the file neither read nor checked again (it is the one old was loaded from, unchanged). */
int image_open_shared(struct rows_load *ld, const struct plugin *old);

/* dlclose pl's library and give back its share of the image (the last share closes it). */
void image_close(struct plugin *pl);

#endif
