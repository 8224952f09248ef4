/* Declarations shared by the CPhotoLibTLS source files; not part of the public header. */
#ifndef PLTLS_INTERNAL_H
#define PLTLS_INTERNAL_H

#include "include/CPhotoLibTLS.h"

#include <openssl/ssl.h>

struct CPhotoLibTLS_Context {
    SSL_CTX *ctx;
    int is_server;
};

/* Formats a message into a caller's buffer (vsnprintf; NULL or 0 capacity: nothing). */
void CPhotoLibTLS_format(char *message, size_t capacity, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Formats "`context`: <OpenSSL's text of the oldest queued error>" and clears the thread's
 * error queue; "`context`: `fallback`" when the queue is empty.
 */
void CPhotoLibTLS_format_openssl(char *message, size_t capacity, const char *context, const char *fallback);

/*
 * The client's certificate verification (SSL_CTX_set_cert_verify_callback): records the
 * server certificate's SHA-256, then accepts it by pin or by the trust store and host name.
 */
int CPhotoLibTLS_verify_server(X509_STORE_CTX *store, void *argument);

/* Seconds since 1970-01-01 UTC of `time` (0 when it cannot be read). */
int64_t CPhotoLibTLS_epoch_seconds(const ASN1_TIME *time);

#endif /* PLTLS_INTERNAL_H */
