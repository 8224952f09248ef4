/*
 * SSL_CTX setup for servers and clients: TLS 1.3 only, ALPN "photolib/1", the server's
 * certificate chain and key, the client's verification (pin or trust store).
 *
 * Related OpenSSL documentation: SSL_CTX_new(3), SSL_CTX_set_min_proto_version(3),
 * SSL_CTX_set_options(3), SSL_CTX_set_mode(3), SSL_CTX_set_num_tickets(3),
 * SSL_CTX_set_alpn_select_cb(3), SSL_CTX_use_certificate(3), SSL_CTX_add1_chain_cert(3),
 * SSL_CTX_set_verify(3), SSL_CTX_set_default_verify_paths(3), PEM_read_bio_X509(3).
 */
#include "pltls_internal.h"

#include <limits.h>
#include <stdlib.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>


/* ALPN protocol list in wire format: one length-prefixed name. */
static const unsigned char CPhotoLibTLS_alpn[] = {10, 'p', 'h', 'o', 't', 'o', 'l', 'i', 'b', '/', '1'};

/* Server side of ALPN: "photolib/1" when the client offers it; a client offering only
 * other protocols is refused (no_application_protocol). A client sending no ALPN at all is
 * accepted (OpenSSL does not call this then). */
static int CPhotoLibTLS_select_alpn(SSL *ssl, const unsigned char **out, unsigned char *out_size,
                                    const unsigned char *offered, unsigned int offered_size, void *argument) {
    (void)ssl;
    (void)argument;
    unsigned char *selected = NULL;
    if (SSL_select_next_proto(&selected, out_size, CPhotoLibTLS_alpn, sizeof CPhotoLibTLS_alpn, offered,
                              offered_size) == OPENSSL_NPN_NEGOTIATED) {
        *out = selected;
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL;
}

/* Settings both sides share. */
static SSL_CTX *CPhotoLibTLS_new_ctx(int is_server, char *message, size_t capacity) {
    ERR_clear_error();
    SSL_CTX *ctx = SSL_CTX_new(is_server ? TLS_server_method() : TLS_client_method());
    if (ctx == NULL) {
        CPhotoLibTLS_format_openssl(message, capacity, "cannot create a TLS context", "out of memory");
        return NULL;
    }
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) != 1) {
        CPhotoLibTLS_format_openssl(message, capacity, "this OpenSSL cannot speak TLS 1.3", "unsupported");
        SSL_CTX_free(ctx);
        return NULL;
    }
    /* TLS 1.3 has no renegotiation; the option also refuses it should an older version ever
     * be allowed. Compression is off (CRIME). */
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
    /* Idle sessions give their record buffers back: a server holds thousands of them. */
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    return ctx;
}

/* Adds every certificate after the first in `bio` to the context's chain. */
static int CPhotoLibTLS_add_chain(SSL_CTX *ctx, BIO *bio, char *message, size_t capacity) {
    for (;;) {
        X509 *extra = PEM_read_bio_X509(bio, NULL, NULL, NULL);
        if (extra == NULL) {
            /* The end of the PEM text ends the loop (and leaves a "no start line" error). */
            ERR_clear_error();
            return CPhotoLibTLS_OK;
        }
        int added = SSL_CTX_add0_chain_cert(ctx, extra);
        if (added != 1) {
            X509_free(extra);
            CPhotoLibTLS_format_openssl(message, capacity, "cannot add an intermediate certificate", "refused");
            return CPhotoLibTLS_BAD_IDENTITY;
        }
    }
}

int CPhotoLibTLS_server_context_new(const uint8_t *certificate_pem, size_t certificate_size,
                                    const uint8_t *key_pem, size_t key_size,
                                    CPhotoLibTLS_Context **context,
                                    char *message, size_t capacity) {
    if (context == NULL || certificate_pem == NULL || key_pem == NULL || certificate_size > INT_MAX ||
        key_size > INT_MAX) {
        CPhotoLibTLS_format(message, capacity, "TLS server context: invalid arguments");
        return CPhotoLibTLS_INVALID_ARGUMENT;
    }
    *context = NULL;
    SSL_CTX *ctx = CPhotoLibTLS_new_ctx(1, message, capacity);
    if (ctx == NULL) {
        return CPhotoLibTLS_INTERNAL;
    }
    int status = CPhotoLibTLS_OK;
    X509 *leaf = NULL;
    EVP_PKEY *key = NULL;
    BIO *certificates = BIO_new_mem_buf(certificate_pem, (int)certificate_size);
    BIO *keys = BIO_new_mem_buf(key_pem, (int)key_size);
    if (certificates == NULL || keys == NULL) {
        CPhotoLibTLS_format_openssl(message, capacity, "TLS server context", "out of memory");
        status = CPhotoLibTLS_INTERNAL;
        goto done;
    }
    leaf = PEM_read_bio_X509(certificates, NULL, NULL, NULL);
    if (leaf == NULL) {
        CPhotoLibTLS_format_openssl(message, capacity, "the certificate is not a PEM X.509 certificate", "unreadable");
        status = CPhotoLibTLS_BAD_IDENTITY;
        goto done;
    }
    key = PEM_read_bio_PrivateKey(keys, NULL, NULL, NULL);
    if (key == NULL) {
        CPhotoLibTLS_format_openssl(message, capacity, "the key is not an unencrypted PEM private key", "unreadable");
        status = CPhotoLibTLS_BAD_IDENTITY;
        goto done;
    }
    if (SSL_CTX_use_certificate(ctx, leaf) != 1) {
        CPhotoLibTLS_format_openssl(message, capacity, "the certificate cannot be used", "refused");
        status = CPhotoLibTLS_BAD_IDENTITY;
        goto done;
    }
    status = CPhotoLibTLS_add_chain(ctx, certificates, message, capacity);
    if (status != CPhotoLibTLS_OK) {
        goto done;
    }
    if (SSL_CTX_use_PrivateKey(ctx, key) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
        CPhotoLibTLS_format_openssl(message, capacity, "the key does not belong to the certificate", "mismatch");
        status = CPhotoLibTLS_BAD_IDENTITY;
        goto done;
    }
    /* No session tickets or cache: every connection does a full handshake, and the server
     * keeps no per-client state beyond the connection. */
    SSL_CTX_set_num_tickets(ctx, 0);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_alpn_select_cb(ctx, CPhotoLibTLS_select_alpn, NULL);

done:
    X509_free(leaf);
    EVP_PKEY_free(key);
    BIO_free(certificates);
    BIO_free(keys);
    if (status != CPhotoLibTLS_OK) {
        SSL_CTX_free(ctx);
        return status;
    }
    CPhotoLibTLS_Context *made = calloc(1, sizeof *made);
    if (made == NULL) {
        SSL_CTX_free(ctx);
        CPhotoLibTLS_format(message, capacity, "TLS server context: out of memory");
        return CPhotoLibTLS_INTERNAL;
    }
    made->ctx = ctx;
    made->is_server = 1;
    *context = made;
    return CPhotoLibTLS_OK;
}

int CPhotoLibTLS_client_context_new(CPhotoLibTLS_Context **context, char *message, size_t capacity) {
    if (context == NULL) {
        CPhotoLibTLS_format(message, capacity, "TLS client context: invalid arguments");
        return CPhotoLibTLS_INVALID_ARGUMENT;
    }
    *context = NULL;
    SSL_CTX *ctx = CPhotoLibTLS_new_ctx(0, message, capacity);
    if (ctx == NULL) {
        return CPhotoLibTLS_INTERNAL;
    }
    /* The server is always verified: by pin or by the trust store (see
     * CPhotoLibTLS_verify_server in pltls_session.c). */
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_cert_verify_callback(ctx, CPhotoLibTLS_verify_server, NULL);
    /* The system's CA certificates, for servers with a CA-signed certificate. A system
     * without them fails such verifications later, with a message; pins still work. */
    if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
        ERR_clear_error();
    }
    /* SSL_CTX_set_alpn_protos returns 0 on success. */
    if (SSL_CTX_set_alpn_protos(ctx, CPhotoLibTLS_alpn, sizeof CPhotoLibTLS_alpn) != 0) {
        CPhotoLibTLS_format_openssl(message, capacity, "TLS client context: cannot set ALPN", "refused");
        SSL_CTX_free(ctx);
        return CPhotoLibTLS_INTERNAL;
    }
    CPhotoLibTLS_Context *made = calloc(1, sizeof *made);
    if (made == NULL) {
        SSL_CTX_free(ctx);
        CPhotoLibTLS_format(message, capacity, "TLS client context: out of memory");
        return CPhotoLibTLS_INTERNAL;
    }
    made->ctx = ctx;
    made->is_server = 0;
    *context = made;
    return CPhotoLibTLS_OK;
}

void CPhotoLibTLS_context_free(CPhotoLibTLS_Context *context) {
    if (context == NULL) {
        return;
    }
    SSL_CTX_free(context->ctx);
    free(context);
}
