/*
 * jwt_lib.h: libcrypto and libcurl as jwt_keys.c calls them, opened with dlopen by
 * jwt_lib_open (jwt.h) only when OAuth is configured, so that a server without it maps
 * neither (nor what they bring). For the files of lib/jwt* alone.
 */
#ifndef MCPH_JWT_LIB_H
#define MCPH_JWT_LIB_H

/* Plain function declarations: libcurl's type-checking macros would expand a call through a
 * member of the same name. */
#define CURL_DISABLE_TYPECHECK 1

#include <curl/curl.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

/* The libcrypto functions jwt_keys.c calls, listed once: X(name). */
#define JWT_CRYPTO_FUNCTIONS(X)                                                                    \
    X(BN_bin2bn)                                                                                   \
    X(BN_free)                                                                                     \
    X(BN_num_bits)                                                                                 \
    X(CRYPTO_free)                                                                                 \
    X(ECDSA_SIG_free)                                                                              \
    X(ECDSA_SIG_new)                                                                               \
    X(ECDSA_SIG_set0)                                                                              \
    X(EVP_DigestVerify)                                                                            \
    X(EVP_DigestVerifyInit_ex)                                                                     \
    X(EVP_MD_CTX_free)                                                                             \
    X(EVP_MD_CTX_new)                                                                              \
    X(EVP_PKEY_CTX_free)                                                                           \
    X(EVP_PKEY_CTX_new_from_name)                                                                  \
    X(EVP_PKEY_CTX_set_rsa_padding)                                                                \
    X(EVP_PKEY_CTX_set_rsa_pss_saltlen)                                                            \
    X(EVP_PKEY_free)                                                                               \
    X(EVP_PKEY_fromdata)                                                                           \
    X(EVP_PKEY_fromdata_init)                                                                      \
    X(EVP_PKEY_new_raw_public_key)                                                                 \
    X(OSSL_PARAM_BLD_free)                                                                         \
    X(OSSL_PARAM_BLD_new)                                                                          \
    X(OSSL_PARAM_BLD_push_BN)                                                                      \
    X(OSSL_PARAM_BLD_push_octet_string)                                                            \
    X(OSSL_PARAM_BLD_push_utf8_string)                                                             \
    X(OSSL_PARAM_BLD_to_param)                                                                     \
    X(OSSL_PARAM_free)                                                                             \
    X(i2d_ECDSA_SIG)

/* The libcurl functions, for a JWKS URL. */
#define JWT_CURL_FUNCTIONS(X)                                                                      \
    X(curl_easy_cleanup)                                                                           \
    X(curl_easy_getinfo)                                                                           \
    X(curl_easy_init)                                                                              \
    X(curl_easy_perform)                                                                           \
    X(curl_easy_setopt)                                                                            \
    X(curl_easy_strerror)                                                                          \
    X(curl_global_cleanup)                                                                         \
    X(curl_global_init)

/* Each member is the function of that name; the curl ones are NULL without fetch. */
struct jwt_lib {
    void *crypto; /* dlopen handles */
    void *curl;
#define JWT_LIB_MEMBER(name) __typeof__(name) *name;
    JWT_CRYPTO_FUNCTIONS(JWT_LIB_MEMBER)
    JWT_CURL_FUNCTIONS(JWT_LIB_MEMBER)
#undef JWT_LIB_MEMBER
};

#endif
