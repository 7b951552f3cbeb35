/*
 * fuzz_config.c: the INI reader and the plugin sections. The input is the whole INI file
 * (read through a memfd, so no file is written per input), valid or not: config_load must
 * return, every message it collects must name the file and a line, and config_release must
 * free everything. The sections it understood go through config_find_plugin and
 * config_plugin_same, and the paths through config_dirname and config_join.
 */
#include "config/config.h"
#include "lib/diag.h"
#include "lib/status.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_fd = -1;
static char fuzz_path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_fd = memfd_create("fuzz.ini", MFD_CLOEXEC);
    if (fuzz_fd < 0) {
        perror("fuzz_config: memfd_create");
        abort();
    }
    snprintf(fuzz_path, sizeof(fuzz_path), "/proc/self/fd/%d", fuzz_fd);
    return 0;
}

static void fuzz_fail(const char *why, const char *detail)
{
    fprintf(stderr, "fuzz_config: %s: %s\n", why, detail ? detail : "(null)");
    abort();
}

/* What was understood must hang together. */
static void fuzz_check_config(const struct config *cfg)
{
    for (size_t i = 0; i < cfg->nplugins; i++) {
        const struct config_plugin *pl = &cfg->plugins[i];
        const struct config_plugin *found;
        char *dir;

        if (pl->id == NULL || pl->path == NULL)
            fuzz_fail("a plugin section without id or path", pl->id);
        found = config_find_plugin(cfg, pl->id);
        if (found == NULL || strcmp(found->id, pl->id) != 0)
            fuzz_fail("config_find_plugin misses a section", pl->id);
        if (!config_plugin_same(pl, pl))
            fuzz_fail("a section differs from itself", pl->id);
        for (size_t k = 0; k < pl->nkeys; k++) {
            if (pl->keys[k].key == NULL || pl->keys[k].value == NULL)
                fuzz_fail("a plugin key without key or value", pl->id);
        }
        if (i > 0)
            (void)config_plugin_same(pl, &cfg->plugins[i - 1]);
        dir = config_dirname(pl->path);
        free(config_join(dir ? dir : ".", pl->id));
        free(dir);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct config cfg;
    struct diag errs;
    int status;

    if (ftruncate(fuzz_fd, 0) != 0 || pwrite(fuzz_fd, data, size, 0) != (ssize_t)size)
        fuzz_fail("writing the memfd", fuzz_path);
    config_init(&cfg);
    diag_init(&errs);
    status = config_load(&cfg, fuzz_path, &errs);
    /* STATUS_IO: a NUL byte makes the file unreadable as text. */
    if (status != STATUS_OK && status != STATUS_CONFIG && status != STATUS_IO &&
        status != STATUS_NOMEM)
        fuzz_fail("config_load returned an unexpected status", status_str(status));
    if ((status == STATUS_CONFIG || status == STATUS_IO) && errs.count == 0)
        fuzz_fail("STATUS_CONFIG without a message", fuzz_path);
    for (size_t i = 0; i < errs.count; i++) {
        if (strncmp(errs.msgs[i], fuzz_path, strlen(fuzz_path)) != 0)
            fuzz_fail("a config message that does not name the file", errs.msgs[i]);
    }
    fuzz_check_config(&cfg);
    diag_release(&errs);
    config_release(&cfg);
    return 0;
}
