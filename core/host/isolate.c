#include "host/isolate.h"

#include "client/client.h"
#include "lib/limits.h"
#include "host/plugin.h"
#include "lib/status.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* --- The parent's side: the proxy. --- */

int isolate_spec(const struct isolate_setup *set, struct mcp_spec *spec)
{
    const char *const argv[] = {"/proc/self/exe", "--isolated", set->id, set->ini_file, NULL};
    const struct config_isolate *lim = set->limits;

    memset(spec, 0, sizeof(*spec));
    spec->argv = mcp_list_copy(argv);
    spec->envp = mcp_list_copy((const char *const *)environ);
    spec->cwd = getcwd(NULL, 0);
    spec->display = strdup(set->id);
    spec->noun = "plugin";
    spec->startup_ms = LIMIT_ISOLATE_STARTUP_MS;
    spec->call_timeout_ms = lim->call_timeout_ms;
    spec->max_memory = lim->max_memory;
    spec->max_cpu_s = lim->max_cpu_s;
    spec->max_files = lim->max_files;
    spec->max_procs = lim->max_procs;
    spec->pass_origin = 1; /* the child's plugin keys what it keeps by its parent's request */
    spec->config_exit = ISOLATE_EXIT_CONFIG; /* the child refused the section: FILE:LINE said */
    spec->own_instructions = 1;              /* the child serves its plugin's paragraph, headed */
    spec->pass[spec->npass] = fcntl(set->ini_fd, F_DUPFD_CLOEXEC, 3);
    spec->npass += spec->pass[spec->npass] >= 0;
    spec->pass[spec->npass] = fcntl(set->image_fd, F_DUPFD_CLOEXEC, 3);
    spec->npass += spec->pass[spec->npass] >= 0;
    if (spec->argv == NULL || spec->envp == NULL || spec->cwd == NULL || spec->display == NULL ||
        spec->npass != 2) {
        mcp_spec_release(spec);
        return MCPH_ERR_NOMEM;
    }
    return MCPH_OK;
}

#if defined(__SANITIZE_ADDRESS__)
#define ISOLATE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ISOLATE_ASAN 1
#endif
#endif

/* A confined child of a build with AddressSanitizer: its leak check at exit stops the process's
 * threads with ptrace, which the confinement refuses; the check is left to unconfined runs. */
static int isolate_no_leak_check(struct mcp_spec *spec)
{
#ifdef ISOLATE_ASAN
    static const char opt[] = "detect_leaks=0";
    size_t n = 0, at = (size_t)-1;
    char *line, **envp;

    for (; spec->envp[n] != NULL; n++) {
        if (strncmp(spec->envp[n], "ASAN_OPTIONS=", 13) == 0)
            at = n;
    }
    if (at == (size_t)-1) {
        envp = realloc(spec->envp, (n + 2) * sizeof(*envp));
        if (envp == NULL)
            return MCPH_ERR_NOMEM;
        spec->envp = envp;
        envp[n + 1] = NULL;
        envp[n] = strdup("ASAN_OPTIONS=detect_leaks=0");
        return envp[n] != NULL ? MCPH_OK : MCPH_ERR_NOMEM; /* NULL ends the list still */
    }
    line = malloc(strlen(spec->envp[at]) + sizeof(opt) + 1);
    if (line == NULL)
        return MCPH_ERR_NOMEM; /* the list stays whole */
    sprintf(line, "%s:%s", spec->envp[at], opt);
    free(spec->envp[at]);
    spec->envp[at] = line;
    return MCPH_OK;
#else
    (void)spec;
    return MCPH_OK;
#endif
}

/* A confined child's environment: mcph's variables of locale, time, home, paths and the
 * sanitizers' options, not the rest (a secret in mcph's environment is not the plugin's). */
static void isolate_confine_env(struct mcp_spec *spec)
{
    static const char *const keep[] = {"PATH=",
                                       "HOME=",
                                       "LANG=",
                                       "LANGUAGE=",
                                       "LC_",
                                       "TZ=",
                                       "TMPDIR=",
                                       "USER=",
                                       "LOGNAME=",
                                       "ASAN_OPTIONS=",
                                       "UBSAN_OPTIONS=",
                                       "TSAN_OPTIONS=",
                                       "LSAN_OPTIONS=",
                                       NULL};
    size_t n = 0;

    for (size_t i = 0; spec->envp[i] != NULL; i++) {
        int kept = 0;

        for (size_t k = 0; !kept && keep[k] != NULL; k++)
            kept = strncmp(spec->envp[i], keep[k], strlen(keep[k])) == 0;
        if (kept)
            spec->envp[n++] = spec->envp[i];
        else
            free(spec->envp[i]);
    }
    spec->envp[n] = NULL;
}

static int isolate_init(const struct mcph_host *host, void **state)
{
    const struct plugin_host *h = (const struct plugin_host *)(const void *)host;
    const struct plugin *pl = h->plugin;
    const struct isolate_setup set = {.id = pl->id,
                                      .ini_file = pl->ini_file,
                                      .ini_fd = pl->ini_fd,
                                      .image_fd = plugin_image_fd(pl),
                                      .limits = &pl->section.isolate};
    const struct config_confine *c = &pl->section.confine;
    struct mcp_spec spec;
    int rc;

    if (isolate_spec(&set, &spec) != MCPH_OK) {
        host->log(host, MCPH_LOG_ERROR, "cannot prepare the plugin's process: %s", strerror(errno));
        return MCPH_ERR_NOMEM;
    }
    if (c->on)
        isolate_confine_env(&spec);
    rc = c->on ? mcp_spec_confine(host, &spec, c->read, c->write, c->exec, c->network) : MCPH_OK;
    if (rc == MCPH_OK && c->on)
        rc = isolate_no_leak_check(&spec);
    if (rc != MCPH_OK) {
        mcp_spec_release(&spec);
        return rc;
    }
    return mcp_serve(host, state, &spec);
}

void isolate_descriptor(struct mcph_plugin *d)
{
    const struct mcph_plugin header = {MCPH_PLUGIN_HEADER};

    /* Unnamed: the instance is named by its section. No config keys: the child checks the
     * section's keys against the plugin's. */
    *d = header;
    d->flags = MCP_CLIENT_FLAGS;
    d->init = isolate_init;
    d->shutdown = mcp_unserve;
    d->subscribe = mcp_serve_subscribe;
}

/* --- The child's side. --- */

int isolate_child_fds(void)
{
    const int fds[] = {ISOLATE_FD_CONFIG, ISOLATE_FD_IMAGE};

    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
        if (fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0) {
            fprintf(stderr,
                    "mcph: --isolated is how mcph runs a plugin with isolate = process; it "
                    "needs the descriptors its parent passes (%d: %s)\n",
                    fds[i], strerror(errno));
            return STATUS_INVALID;
        }
    }
    return STATUS_OK;
}

int isolate_child_config(struct config *cfg, const char *id, struct diag *errs)
{
    struct config_plugin *mine = NULL;

    for (size_t i = 0; i < cfg->nplugins; i++) {
        struct config_plugin *cp = &cfg->plugins[i];

        cp->ini_fd = -1;
        if (strcmp(cp->id, id) != 0) {
            cp->enabled = 0;
            continue;
        }
        mine = cp;
        cp->enabled = 1;
        memset(&cp->isolate, 0, sizeof(cp->isolate));
        cp->call_timeout_line = 0; /* the parent's limit: not the plugin's key in the child */
        /* The parent confined the child before it ran: not the plugin's keys either. */
        cp->confine_line = cp->read_line = cp->write_line = cp->exec_line = cp->network_line = 0;
        cp->confine.on = 0;
        cp->image_fd = ISOLATE_FD_IMAGE;
        free(cp->prefix);
        cp->prefix = NULL;
        for (int k = 0; k < FILTER_KEYS; k++) {
            free(cp->filter[k]);
            cp->filter[k] = NULL;
        }
    }
    if (cfg->text_fd >= 0)
        close(cfg->text_fd);
    cfg->text_fd = -1;
    cfg->strict = 1;
    cfg->watch = 0;
    /* The parent serves [server] instructions; the child, its plugin's paragraph alone. */
    free(cfg->instructions);
    cfg->instructions = NULL;
    if (mine == NULL) {
        diag_add(errs, "%s: no [plugin.%s] section in the text its parent passed", cfg->file, id);
        return STATUS_CONFIG;
    }
    return STATUS_OK;
}
