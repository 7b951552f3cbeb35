/*
 * remote_lib.h: libcurl as the relay (remote*.c) calls it, opened with dlopen by
 * remote_lib_open, so that mcph serving stdio or HTTP maps none of it (nor the TLS libraries
 * it brings): only a relay process does. For the files of client/remote* alone.
 */
#ifndef MCPH_REMOTE_LIB_H
#define MCPH_REMOTE_LIB_H

/* Plain function declarations: libcurl's type-checking macros would expand a call through a
 * member of the same name. */
#define CURL_DISABLE_TYPECHECK 1

#include <curl/curl.h>
#include <stddef.h>

/* The libcurl functions the relay calls, listed once: X(name). */
#define REMOTE_CURL_FUNCTIONS(X)                                                                   \
    X(curl_easy_cleanup)                                                                           \
    X(curl_easy_escape)                                                                            \
    X(curl_easy_getinfo)                                                                           \
    X(curl_easy_init)                                                                              \
    X(curl_easy_perform)                                                                           \
    X(curl_easy_setopt)                                                                            \
    X(curl_easy_strerror)                                                                          \
    X(curl_free)                                                                                   \
    X(curl_global_cleanup)                                                                         \
    X(curl_global_init)                                                                            \
    X(curl_multi_add_handle)                                                                       \
    X(curl_multi_cleanup)                                                                          \
    X(curl_multi_info_read)                                                                        \
    X(curl_multi_init)                                                                             \
    X(curl_multi_perform)                                                                          \
    X(curl_multi_poll)                                                                             \
    X(curl_multi_remove_handle)                                                                    \
    X(curl_slist_append)                                                                           \
    X(curl_slist_free_all)

/* Each member is the function of that name. */
struct remote_lib {
    void *dl; /* the dlopen handle */
#define REMOTE_LIB_MEMBER(name) __typeof__(name) *name;
    REMOTE_CURL_FUNCTIONS(REMOTE_LIB_MEMBER)
#undef REMOTE_LIB_MEMBER
};

/* Open libcurl.so.4 (or libcurl.so), find every function and run curl_global_init. Returns
 * STATUS_OK with *out set (owned: remote_lib_close), or STATUS_IO with why (size bytes)
 * naming the library and the Debian package. Once per process, from its main thread. */
int remote_lib_open(struct remote_lib **out, char *why, size_t size);

/* curl_global_cleanup, then free lib. NULL is fine. */
void remote_lib_close(struct remote_lib *lib);

#endif
