/*
 * jwt_lib.c: libcrypto and libcurl opened with dlopen (jwt_lib.h), as http_mhd.c opens
 * libmicrohttpd: only a server with OAuth configured maps them.
 */
#include "lib/jwt.h"
#include "lib/jwt_lib.h"

#include "lib/status.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jwt_sym {
    const char *name;
    size_t at;
};

static const struct jwt_sym jwt_crypto_syms[] = {
#define JWT_SYM(name) {#name, offsetof(struct jwt_lib, name)},
    JWT_CRYPTO_FUNCTIONS(JWT_SYM){0},
};

static const struct jwt_sym jwt_curl_syms[] = {
    JWT_CURL_FUNCTIONS(JWT_SYM){0},
#undef JWT_SYM
};

/* Open the first of names that exists and find syms in it. */
static int jwt_lib_load(struct jwt_lib *lib, void **dl, const char *const names[2],
                        const struct jwt_sym *syms, const char *pkg, char *why, size_t size)
{
    /* Never unmapped: OpenSSL's and libcurl's exit handlers stay callable. */
    for (size_t i = 0; i < 2 && *dl == NULL; i++)
        *dl = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (*dl == NULL) {
        snprintf(why, size, "OAuth needs %s (Debian: apt-get install %s): %s", names[0], pkg,
                 dlerror());
        return STATUS_IO;
    }
    for (size_t i = 0; syms[i].name != NULL; i++) {
        void *sym = dlsym(*dl, syms[i].name);

        if (sym == NULL) {
            snprintf(why, size, "%s has no %s: it is too old", names[0], syms[i].name);
            return STATUS_IO;
        }
        /* A data pointer to a function pointer, without the cast ISO C does not define. */
        memcpy((char *)lib + syms[i].at, &sym, sizeof(sym));
    }
    return STATUS_OK;
}

int jwt_lib_open(int fetch, struct jwt_lib **out, char *why, size_t size)
{
    static const char *const crypto[2] = {"libcrypto.so.3", "libcrypto.so"};
    static const char *const curl[2] = {"libcurl.so.4", "libcurl.so"};
    struct jwt_lib *lib = calloc(1, sizeof(*lib));
    int status;

    *out = NULL;
    if (lib == NULL)
        return STATUS_NOMEM;
    status = jwt_lib_load(lib, &lib->crypto, crypto, jwt_crypto_syms, "libssl3", why, size);
    if (status == STATUS_OK && fetch)
        status = jwt_lib_load(lib, &lib->curl, curl, jwt_curl_syms, "libcurl4", why, size);
    if (status == STATUS_OK && fetch && lib->curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(why, size, "libcurl could not start (curl_global_init)");
        lib->curl_global_cleanup = NULL;
        status = STATUS_IO;
    }
    if (status != STATUS_OK) {
        jwt_lib_close(lib);
        return status;
    }
    *out = lib;
    return STATUS_OK;
}

void jwt_lib_close(struct jwt_lib *lib)
{
    if (lib == NULL)
        return;
    if (lib->curl_global_cleanup != NULL)
        lib->curl_global_cleanup();
    if (lib->curl != NULL)
        dlclose(lib->curl);
    if (lib->crypto != NULL)
        dlclose(lib->crypto);
    free(lib);
}
