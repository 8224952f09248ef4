/*
 * TLS sessions over two memory BIOs: the peer's ciphertext is written into one and read by
 * the SSL; the SSL writes its ciphertext into the other, from which the caller takes it.
 *
 * Related OpenSSL documentation: SSL_new(3), SSL_set_bio(3), BIO_s_mem(3)
 * (BIO_set_mem_eof_return), SSL_do_handshake(3), SSL_read_ex(3), SSL_write_ex(3),
 * SSL_get_error(3), SSL_shutdown(3), SSL_set1_host(3), SSL_set_tlsext_host_name(3),
 * X509_VERIFY_PARAM_set1_ip_asc(3), X509_digest(3), CRYPTO_memcmp(3),
 * SSL_get_verify_result(3), SSL_alert_desc_string_long(3), X509_STORE_CTX_get_error(3),
 * X509_get0_notAfter(3), ASN1_TIME_diff(3), GENERAL_NAME (X509_get_ext_d2i(3)).
 */
#include "pltls_internal.h"

#include <arpa/inet.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

struct CPhotoLibTLS_Session {
    SSL *ssl;
    /* Ciphertext from the peer (the SSL's read BIO; owned by the SSL). */
    BIO *input;
    /* Ciphertext for the peer (the SSL's write BIO; owned by the SSL). */
    BIO *output;
    int has_pin;
    uint8_t pin[CPhotoLibTLS_FINGERPRINT_SIZE];
    int has_peer_fingerprint;
    uint8_t peer_fingerprint[CPhotoLibTLS_FINGERPRINT_SIZE];
    /* Set by the verify callback when the certificate's fingerprint is not the pin. */
    int pin_mismatch;
    /* Set by the verify callback when the trust store or the host name check refused. */
    int has_verify_failure;
    CPhotoLibTLS_VerifyFailure verify_failure;
    /* After a fatal error the session answers every call with it. */
    int failure;
    char failure_message[CPhotoLibTLS_MESSAGE_CAPACITY];
};

static int CPhotoLibTLS_is_ip_address(const char *host) {
    unsigned char address[16];
    return inet_pton(AF_INET, host, address) == 1 || inet_pton(AF_INET6, host, address) == 1;
}

/* The kind of failure OpenSSL's verify result `code` is. */
static int CPhotoLibTLS_distrust_reason(long code) {
    switch (code) {
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
        return CPhotoLibTLS_DISTRUST_SELF_SIGNED;
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_CERT_UNTRUSTED:
        return CPhotoLibTLS_DISTRUST_UNKNOWN_ISSUER;
    case X509_V_ERR_CERT_HAS_EXPIRED:
        return CPhotoLibTLS_DISTRUST_EXPIRED;
    case X509_V_ERR_CERT_NOT_YET_VALID:
        return CPhotoLibTLS_DISTRUST_NOT_YET_VALID;
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
        return CPhotoLibTLS_DISTRUST_NAME_MISMATCH;
    default:
        return CPhotoLibTLS_DISTRUST_OTHER;
    }
}

/* Appends `name` (of `size` bytes) to `names`, after ", " unless it is the first; stops
 * quietly when the buffer is full. */
static void CPhotoLibTLS_append_name(char *names, const char *name, size_t size) {
    size_t used = strlen(names);
    size_t separator = used == 0 ? 0 : 2;
    if (size == 0 || used + separator + size + 1 > CPhotoLibTLS_NAMES_CAPACITY) {
        return;
    }
    if (separator != 0) {
        memcpy(names + used, ", ", 2);
        used += 2;
    }
    memcpy(names + used, name, size);
    names[used + size] = '\0';
}

/* The DNS names and IP addresses `certificate` is for (subjectAltName, else its CN). */
static void CPhotoLibTLS_certificate_names(X509 *certificate, char *names) {
    names[0] = '\0';
    GENERAL_NAMES *alternatives = X509_get_ext_d2i(certificate, NID_subject_alt_name, NULL, NULL);
    if (alternatives != NULL) {
        for (int index = 0; index < sk_GENERAL_NAME_num(alternatives); index++) {
            const GENERAL_NAME *name = sk_GENERAL_NAME_value(alternatives, index);
            if (name->type == GEN_DNS) {
                const unsigned char *text = ASN1_STRING_get0_data(name->d.dNSName);
                int length = ASN1_STRING_length(name->d.dNSName);
                if (text != NULL && length > 0 && memchr(text, '\0', (size_t)length) == NULL) {
                    CPhotoLibTLS_append_name(names, (const char *)text, (size_t)length);
                }
            } else if (name->type == GEN_IPADD) {
                const unsigned char *bytes = ASN1_STRING_get0_data(name->d.iPAddress);
                int length = ASN1_STRING_length(name->d.iPAddress);
                char text[INET6_ADDRSTRLEN];
                int family = length == 4 ? AF_INET : length == 16 ? AF_INET6 : 0;
                if (family != 0 && inet_ntop(family, bytes, text, sizeof text) != NULL) {
                    CPhotoLibTLS_append_name(names, text, strlen(text));
                }
            }
        }
        GENERAL_NAMES_free(alternatives);
    }
    if (names[0] == '\0') {
        char common[128];
        int length = X509_NAME_get_text_by_NID(X509_get_subject_name(certificate), NID_commonName, common, sizeof common);
        if (length > 0) {
            CPhotoLibTLS_append_name(names, common, strlen(common));
        }
    }
}

int64_t CPhotoLibTLS_epoch_seconds(const ASN1_TIME *time) {
    if (time == NULL) {
        return 0;
    }
    ASN1_TIME *epoch = ASN1_TIME_set(NULL, 0);
    int days = 0;
    int seconds = 0;
    int read = epoch != NULL && ASN1_TIME_diff(&days, &seconds, epoch, time) == 1;
    ASN1_TIME_free(epoch);
    return read ? (int64_t)days * 86400 + seconds : 0;
}

/* Records why X509_verify_cert refused the server's chain, while the store still says. */
static void CPhotoLibTLS_record_verify_failure(CPhotoLibTLS_Session *session, X509_STORE_CTX *store, X509 *leaf) {
    CPhotoLibTLS_VerifyFailure *failure = &session->verify_failure;
    memset(failure, 0, sizeof *failure);
    failure->verify_code = X509_STORE_CTX_get_error(store);
    failure->reason = CPhotoLibTLS_distrust_reason(failure->verify_code);
    failure->depth = X509_STORE_CTX_get_error_depth(store);
    X509 *failed = X509_STORE_CTX_get_current_cert(store);
    if (failed == NULL) {
        failed = leaf;
        failure->depth = 0;
    }
    failure->not_before = CPhotoLibTLS_epoch_seconds(X509_get0_notBefore(failed));
    failure->not_after = CPhotoLibTLS_epoch_seconds(X509_get0_notAfter(failed));
    CPhotoLibTLS_certificate_names(leaf, failure->names);
    session->has_verify_failure = 1;
}

int CPhotoLibTLS_verify_server(X509_STORE_CTX *store, void *argument) {
    (void)argument;
    SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
    CPhotoLibTLS_Session *session = ssl == NULL ? NULL : SSL_get_app_data(ssl);
    X509 *leaf = X509_STORE_CTX_get0_cert(store);
    if (session == NULL || leaf == NULL) {
        X509_STORE_CTX_set_error(store, X509_V_ERR_UNSPECIFIED);
        return 0;
    }
    unsigned int size = 0;
    if (X509_digest(leaf, EVP_sha256(), session->peer_fingerprint, &size) != 1 ||
        size != CPhotoLibTLS_FINGERPRINT_SIZE) {
        X509_STORE_CTX_set_error(store, X509_V_ERR_UNSPECIFIED);
        return 0;
    }
    session->has_peer_fingerprint = 1;
    if (session->has_pin) {
        /* Pinned: this certificate and no other, whoever signed it (SSH's known_hosts). */
        if (CRYPTO_memcmp(session->peer_fingerprint, session->pin, CPhotoLibTLS_FINGERPRINT_SIZE) != 0) {
            session->pin_mismatch = 1;
            X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
            return 0;
        }
        X509_STORE_CTX_set_error(store, X509_V_OK);
        return 1;
    }
    /* Not pinned: the chain must lead to a trusted CA and name the host (set on the session). */
    if (X509_verify_cert(store) == 1) {
        return 1;
    }
    CPhotoLibTLS_record_verify_failure(session, store, leaf);
    return 0;
}

int CPhotoLibTLS_session_new(CPhotoLibTLS_Context *context, const char *host, const uint8_t *pin,
                             CPhotoLibTLS_Session **session, char *message, size_t capacity) {
    if (context == NULL || session == NULL) {
        CPhotoLibTLS_format(message, capacity, "TLS session: invalid arguments");
        return CPhotoLibTLS_INVALID_ARGUMENT;
    }
    *session = NULL;
    if (!context->is_server && pin == NULL && (host == NULL || host[0] == '\0')) {
        CPhotoLibTLS_format(message, capacity,
                            "a server's certificate can be checked only against a pinned fingerprint or a host name; "
                            "give one of them");
        return CPhotoLibTLS_INVALID_ARGUMENT;
    }
    CPhotoLibTLS_Session *made = calloc(1, sizeof *made);
    if (made == NULL) {
        CPhotoLibTLS_format(message, capacity, "TLS session: out of memory");
        return CPhotoLibTLS_INTERNAL;
    }
    ERR_clear_error();
    made->ssl = SSL_new(context->ctx);
    made->input = BIO_new(BIO_s_mem());
    made->output = BIO_new(BIO_s_mem());
    if (made->ssl == NULL || made->input == NULL || made->output == NULL) {
        CPhotoLibTLS_format_openssl(message, capacity, "cannot create a TLS session", "out of memory");
        BIO_free(made->input);
        BIO_free(made->output);
        SSL_free(made->ssl);
        free(made);
        return CPhotoLibTLS_INTERNAL;
    }
    /* An empty input BIO means "wait for more" (retry), not end of file. */
    BIO_set_mem_eof_return(made->input, -1);
    BIO_set_mem_eof_return(made->output, -1);
    /* The SSL owns both BIOs from here on. */
    SSL_set_bio(made->ssl, made->input, made->output);
    SSL_set_app_data(made->ssl, made);

    int status = CPhotoLibTLS_OK;
    if (context->is_server) {
        SSL_set_accept_state(made->ssl);
    } else {
        SSL_set_connect_state(made->ssl);
        if (pin != NULL) {
            made->has_pin = 1;
            memcpy(made->pin, pin, CPhotoLibTLS_FINGERPRINT_SIZE);
        }
        if (host != NULL && host[0] != '\0') {
            if (CPhotoLibTLS_is_ip_address(host)) {
                /* SNI carries host names only; an address is checked against IP SANs. */
                if (!made->has_pin && X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(made->ssl), host) != 1) {
                    status = CPhotoLibTLS_INVALID_ARGUMENT;
                }
            } else {
                if (SSL_set_tlsext_host_name(made->ssl, host) != 1) {
                    status = CPhotoLibTLS_INVALID_ARGUMENT;
                } else if (!made->has_pin && SSL_set1_host(made->ssl, host) != 1) {
                    status = CPhotoLibTLS_INVALID_ARGUMENT;
                }
            }
            if (status != CPhotoLibTLS_OK) {
                CPhotoLibTLS_format_openssl(message, capacity, "TLS session: unusable server name", host);
            }
        }
    }
    if (status != CPhotoLibTLS_OK) {
        CPhotoLibTLS_session_free(made);
        return status;
    }
    *session = made;
    return CPhotoLibTLS_OK;
}

void CPhotoLibTLS_session_free(CPhotoLibTLS_Session *session) {
    if (session == NULL) {
        return;
    }
    SSL_free(session->ssl);
    free(session);
}

/* Makes `status` with `message` the session's permanent answer. */
static int CPhotoLibTLS_fail(CPhotoLibTLS_Session *session, int status, const char *message) {
    session->failure = status;
    CPhotoLibTLS_format(session->failure_message, sizeof session->failure_message, "%s", message);
    return status;
}

/*
 * Turns the result `result` of an SSL_* call into a status and message, reading the error
 * queue before anything else can disturb it. Fatal errors stick to the session.
 */
static int CPhotoLibTLS_result(CPhotoLibTLS_Session *session, int result, const char *context, char *message,
                               size_t capacity) {
    int error = SSL_get_error(session->ssl, result);
    switch (error) {
    case SSL_ERROR_WANT_READ:
        ERR_clear_error();
        return CPhotoLibTLS_WANT_INPUT;
    case SSL_ERROR_ZERO_RETURN:
        ERR_clear_error();
        CPhotoLibTLS_format(message, capacity, "the peer closed the TLS session");
        return CPhotoLibTLS_CLOSED;
    default:
        break;
    }
    char text[CPhotoLibTLS_MESSAGE_CAPACITY];
    int status;
    unsigned long code = ERR_peek_error();
    int library = ERR_GET_LIB(code);
    int reason = ERR_GET_REASON(code);
    if (session->pin_mismatch) {
        ERR_clear_error();
        CPhotoLibTLS_format(text, sizeof text, "the server's certificate does not have the pinned fingerprint");
        status = CPhotoLibTLS_PIN_MISMATCH;
    } else if (library == ERR_LIB_SSL && reason == SSL_R_CERTIFICATE_VERIFY_FAILED) {
        ERR_clear_error();
        long verify = SSL_get_verify_result(session->ssl);
        CPhotoLibTLS_format(text, sizeof text, "the server's certificate is not trusted: %s",
                            X509_verify_cert_error_string(verify));
        status = CPhotoLibTLS_UNTRUSTED;
    } else if (library == ERR_LIB_SSL && reason >= SSL_AD_REASON_OFFSET && reason < SSL_AD_REASON_OFFSET + 256) {
        ERR_clear_error();
        CPhotoLibTLS_format(text, sizeof text, "the peer ended the TLS handshake with the alert \"%s\"",
                            SSL_alert_desc_string_long(reason - SSL_AD_REASON_OFFSET));
        status = CPhotoLibTLS_PEER_ALERT;
    } else if (error == SSL_ERROR_SSL) {
        CPhotoLibTLS_format_openssl(text, sizeof text, context, "protocol error");
        status = CPhotoLibTLS_PROTOCOL;
    } else if (error == SSL_ERROR_SYSCALL) {
        /* Memory BIOs make no system calls: this is an unexpected end of the input. */
        CPhotoLibTLS_format_openssl(text, sizeof text, context, "unexpected end of the TLS stream");
        status = CPhotoLibTLS_PROTOCOL;
    } else {
        ERR_clear_error();
        CPhotoLibTLS_format(text, sizeof text, "%s: unexpected OpenSSL state %d", context, error);
        status = CPhotoLibTLS_INTERNAL;
    }
    CPhotoLibTLS_format(message, capacity, "%s", text);
    return CPhotoLibTLS_fail(session, status, text);
}

/* A session that failed answers with its failure. */
static int CPhotoLibTLS_failed(const CPhotoLibTLS_Session *session, char *message, size_t capacity) {
    CPhotoLibTLS_format(message, capacity, "%s", session->failure_message);
    return session->failure;
}

int CPhotoLibTLS_session_feed(CPhotoLibTLS_Session *session, const uint8_t *data, size_t size, char *message,
                              size_t capacity) {
    if (session == NULL || (data == NULL && size > 0)) {
        CPhotoLibTLS_format(message, capacity, "TLS feed: invalid arguments");
        return CPhotoLibTLS_INVALID_ARGUMENT;
    }
    if (session->failure != CPhotoLibTLS_OK) {
        return CPhotoLibTLS_failed(session, message, capacity);
    }
    while (size > 0) {
        int chunk = size > (size_t)INT_MAX ? INT_MAX : (int)size;
        ERR_clear_error();
        int written = BIO_write(session->input, data, chunk);
        if (written <= 0) {
            char text[CPhotoLibTLS_MESSAGE_CAPACITY];
            CPhotoLibTLS_format_openssl(text, sizeof text, "cannot buffer TLS input", "out of memory");
            CPhotoLibTLS_format(message, capacity, "%s", text);
            return CPhotoLibTLS_fail(session, CPhotoLibTLS_INTERNAL, text);
        }
        data += written;
        size -= (size_t)written;
    }
    return CPhotoLibTLS_OK;
}

int CPhotoLibTLS_session_advance(CPhotoLibTLS_Session *session, char *message, size_t capacity) {
    if (session == NULL) {
        CPhotoLibTLS_format(message, capacity, "TLS handshake: invalid arguments");
        return CPhotoLibTLS_INVALID_ARGUMENT;
    }
    if (session->failure != CPhotoLibTLS_OK) {
        return CPhotoLibTLS_failed(session, message, capacity);
    }
    if (SSL_is_init_finished(session->ssl)) {
        return CPhotoLibTLS_OK;
    }
    ERR_clear_error();
    int result = SSL_do_handshake(session->ssl);
    if (result == 1) {
        return CPhotoLibTLS_OK;
    }
    return CPhotoLibTLS_result(session, result, "TLS handshake", message, capacity);
}

int CPhotoLibTLS_session_is_established(const CPhotoLibTLS_Session *session) {
    return session != NULL && session->failure == CPhotoLibTLS_OK && SSL_is_init_finished(session->ssl);
}

int CPhotoLibTLS_session_read(CPhotoLibTLS_Session *session, uint8_t *buffer, size_t capacity, size_t *count,
                              char *message, size_t message_capacity) {
    if (count != NULL) {
        *count = 0;
    }
    if (session == NULL || buffer == NULL || capacity == 0 || count == NULL) {
        CPhotoLibTLS_format(message, message_capacity, "TLS read: invalid arguments");
        return CPhotoLibTLS_INVALID_ARGUMENT;
    }
    if (session->failure != CPhotoLibTLS_OK) {
        return CPhotoLibTLS_failed(session, message, message_capacity);
    }
    ERR_clear_error();
    size_t read = 0;
    if (SSL_read_ex(session->ssl, buffer, capacity, &read) == 1) {
        *count = read;
        return CPhotoLibTLS_OK;
    }
    return CPhotoLibTLS_result(session, 0, "TLS read", message, message_capacity);
}

int CPhotoLibTLS_session_write(CPhotoLibTLS_Session *session, const uint8_t *data, size_t size, char *message,
                               size_t capacity) {
    if (session == NULL || (data == NULL && size > 0)) {
        CPhotoLibTLS_format(message, capacity, "TLS write: invalid arguments");
        return CPhotoLibTLS_INVALID_ARGUMENT;
    }
    if (session->failure != CPhotoLibTLS_OK) {
        return CPhotoLibTLS_failed(session, message, capacity);
    }
    if (!SSL_is_init_finished(session->ssl)) {
        CPhotoLibTLS_format(message, capacity, "TLS write before the handshake completed");
        return CPhotoLibTLS_INVALID_ARGUMENT;
    }
    while (size > 0) {
        ERR_clear_error();
        size_t written = 0;
        /* The output is a memory BIO that grows: the whole buffer is taken in one call,
         * split into records of at most 16 KiB. */
        if (SSL_write_ex(session->ssl, data, size, &written) != 1) {
            return CPhotoLibTLS_result(session, 0, "TLS write", message, capacity);
        }
        data += written;
        size -= written;
    }
    return CPhotoLibTLS_OK;
}

int CPhotoLibTLS_session_close(CPhotoLibTLS_Session *session, char *message, size_t capacity) {
    if (session == NULL) {
        CPhotoLibTLS_format(message, capacity, "TLS close: invalid arguments");
        return CPhotoLibTLS_INVALID_ARGUMENT;
    }
    if (session->failure != CPhotoLibTLS_OK || !SSL_is_init_finished(session->ssl)) {
        /* Nothing to close in an orderly way. */
        return CPhotoLibTLS_OK;
    }
    ERR_clear_error();
    /* 0: close_notify sent, the peer's not yet seen; 1: both done. Either is fine. */
    int result = SSL_shutdown(session->ssl);
    if (result >= 0) {
        return CPhotoLibTLS_OK;
    }
    return CPhotoLibTLS_result(session, result, "TLS close", message, capacity);
}

size_t CPhotoLibTLS_session_output_size(const CPhotoLibTLS_Session *session) {
    if (session == NULL) {
        return 0;
    }
    return BIO_ctrl_pending(session->output);
}

size_t CPhotoLibTLS_session_take_output(CPhotoLibTLS_Session *session, uint8_t *buffer, size_t capacity) {
    if (session == NULL || buffer == NULL || capacity == 0) {
        return 0;
    }
    int chunk = capacity > (size_t)INT_MAX ? INT_MAX : (int)capacity;
    int read = BIO_read(session->output, buffer, chunk);
    return read > 0 ? (size_t)read : 0;
}

int CPhotoLibTLS_session_peer_fingerprint(const CPhotoLibTLS_Session *session, uint8_t *fingerprint) {
    if (session == NULL || fingerprint == NULL || !session->has_peer_fingerprint) {
        return 0;
    }
    memcpy(fingerprint, session->peer_fingerprint, CPhotoLibTLS_FINGERPRINT_SIZE);
    return 1;
}

const char *CPhotoLibTLS_session_version(const CPhotoLibTLS_Session *session) {
    if (session == NULL || !SSL_is_init_finished(session->ssl)) {
        return "";
    }
    return SSL_get_version(session->ssl);
}

int CPhotoLibTLS_session_verify_failure(const CPhotoLibTLS_Session *session, CPhotoLibTLS_VerifyFailure *failure) {
    if (failure == NULL) {
        return 0;
    }
    if (session == NULL || !session->has_verify_failure) {
        memset(failure, 0, sizeof *failure);
        return 0;
    }
    *failure = session->verify_failure;
    return 1;
}
