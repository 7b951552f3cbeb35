/*
 * isolate.h: isolate = process. The instance of an isolated section in mcph is a proxy: the
 * MCP client engine (client/client.h, which the mcp plugin uses too), serving a child that is mcph
 * itself started as `mcph --isolated ID CONFIG.ini`. The child reads the INI text its parent read
 * (fd ISOLATE_FD_CONFIG) and loads the sealed copy of the .so its parent checked
 * (fd ISOLATE_FD_IMAGE), serving that one section, in process, on its stdin and stdout. So a
 * restart after a crash serves the same section of the same file, whatever the disk says
 * now; a reload starts a fresh child from what it reads.
 */
#ifndef MCPH_ISOLATE_H
#define MCPH_ISOLATE_H

#include "plugin-api.h"
#include "client/client.h"
#include "config/config.h"
#include "lib/diag.h"

/* The descriptors a child gets from its parent. */
#define ISOLATE_FD_CONFIG 3
#define ISOLATE_FD_IMAGE 4
/* A child's exit status for a configuration error (main.c's EXIT_CONFIG): its parent's init
 * then refuses the section too (MCPH_ERR_INVALID). */
#define ISOLATE_EXIT_CONFIG 3

/* What the child of a section is started from: the section's id and limits, the INI file's
 * path, its text and the plugin's image (descriptors, borrowed). */
struct isolate_setup {
    const char *id;
    const char *ini_file;
    int ini_fd;
    int image_fd;
    const struct config_isolate *limits;
};

/* The child of set: mcph itself (the running binary, even when the file was replaced since),
 * with mcph's environment and folder, the section's limits, and copies of the two descriptors
 * to pass as ISOLATE_FD_CONFIG and ISOLATE_FD_IMAGE. MCPH_OK, else MCPH_ERR_NOMEM (a copy
 * failed too) with spec empty. */
int isolate_spec(const struct isolate_setup *set, struct mcp_spec *spec);

/* The proxy's descriptor: the client engine's flags and handlers, with an init that starts the
 * child of the instance being loaded (its section's limits, its INI text and image). */
void isolate_descriptor(struct mcph_plugin *d);

/* In the child: check that the parent's descriptors are there (close-on-exec from now on).
 * Returns STATUS_OK, or STATUS_INVALID after printing why. */
int isolate_child_fds(void);

/* In the child: keep section id of cfg alone, enabled and in process, without its prefix
 * and filters (the parent applies them), loaded from ISOLATE_FD_IMAGE; strict, no watch.
 * Returns STATUS_OK, or STATUS_CONFIG after adding why to errs. */
int isolate_child_config(struct config *cfg, const char *id, struct diag *errs);

#endif
