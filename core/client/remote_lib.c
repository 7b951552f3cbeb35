/*
 * remote_lib.c: libcurl opened with dlopen for the relay (remote_lib.h), as lib/jwt_lib.c opens
 * it for JWKS fetches: only a relay process maps it.
 */
#include "client/remote_lib.h"

#include "lib/status.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct remote_sym {
    const char *name;
    size_t at;
};

static const struct remote_sym remote_syms[] = {
#define REMOTE_SYM(name) {#name, offsetof(struct remote_lib, name)},
    REMOTE_CURL_FUNCTIONS(REMOTE_SYM){0},
#undef REMOTE_SYM
};

static int remote_lib_load(struct remote_lib *lib, char *why, size_t size)
{
    static const char *const names[2] = {"libcurl.so.4", "libcurl.so"};

    /* Never unmapped: libcurl's and OpenSSL's exit handlers stay callable. */
    for (size_t i = 0; i < 2 && lib->dl == NULL; i++)
        lib->dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (lib->dl == NULL) {
        snprintf(why, size, "a url section needs %s (Debian: apt-get install libcurl4): %s",
                 names[0], dlerror());
        return STATUS_IO;
    }
    for (size_t i = 0; remote_syms[i].name != NULL; i++) {
        void *sym = dlsym(lib->dl, remote_syms[i].name);

        if (sym == NULL) {
            snprintf(why, size, "%s has no %s: it is too old (7.85 or later is needed)", names[0],
                     remote_syms[i].name);
            return STATUS_IO;
        }
        /* A data pointer to a function pointer, without the cast ISO C does not define. */
        memcpy((char *)lib + remote_syms[i].at, &sym, sizeof(sym));
    }
    return STATUS_OK;
}

int remote_lib_open(struct remote_lib **out, char *why, size_t size)
{
    struct remote_lib *lib = calloc(1, sizeof(*lib));
    int status;

    *out = NULL;
    if (lib == NULL)
        return STATUS_NOMEM;
    status = remote_lib_load(lib, why, size);
    if (status == STATUS_OK && lib->curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(why, size, "libcurl could not start (curl_global_init)");
        lib->curl_global_cleanup = NULL;
        status = STATUS_IO;
    }
    if (status != STATUS_OK) {
        remote_lib_close(lib);
        return status;
    }
    *out = lib;
    return STATUS_OK;
}

void remote_lib_close(struct remote_lib *lib)
{
    if (lib == NULL)
        return;
    if (lib->curl_global_cleanup != NULL)
        lib->curl_global_cleanup();
    if (lib->dl != NULL)
        dlclose(lib->dl);
    free(lib);
}
