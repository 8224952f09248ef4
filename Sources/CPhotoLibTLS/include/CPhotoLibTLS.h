/*
 * CPhotoLibTLS: TLS sessions over memory buffers, and self-signed identities, with OpenSSL 3,
 * behind a small C API that Swift can call safely.
 *
 * Why Swift does not call OpenSSL directly:
 *  - Much of the API Swift would need is macros (BIO_set_mem_eof_return, SSL_CTX_set_mode,
 *    SSL_set_tlsext_host_name, SSL_CTX_set_min_proto_version, ...) that do not import.
 *  - OpenSSL reports errors on a per-thread queue that must be cleared before and read right
 *    after each call; a PhotoLib connection moves between threads (its serial queue runs on
 *    any worker), so every call and its error reading stay together in one C function here.
 *  - Certificate verification by pin runs in a C callback inside the handshake.
 *  - No OpenSSL type appears in this header: sessions and contexts are opaque.
 *
 * A session never touches a socket. Ciphertext from the peer goes in with
 * CPhotoLibTLS_session_feed; CPhotoLibTLS_session_advance drives the handshake and
 * CPhotoLibTLS_session_read yields plaintext; CPhotoLibTLS_session_write encrypts; and
 * ciphertext for the peer comes out of CPhotoLibTLS_session_take_output. So TLS sits between
 * socket bytes and frames whatever drives the socket.
 *
 * Only TLS 1.3 is spoken (no renegotiation exists in it); the ALPN protocol is "photolib/1".
 *
 * Every symbol carries the CPhotoLibTLS_ prefix.
 *
 * Related OpenSSL documentation: ssl(7), SSL_set_bio(3), BIO_s_mem(3), SSL_get_error(3),
 * SSL_CTX_set_cert_verify_callback(3), X509_digest(3), EVP_PKEY_Q_keygen(3), X509_sign(3).
 */
#ifndef CPHOTOLIBTLS_H
#define CPHOTOLIBTLS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MARK: Status codes (returned by every function below that can fail). */

/* Success. */
#define CPhotoLibTLS_OK 0
/* More input from the peer is needed before anything further can happen (not an error). */
#define CPhotoLibTLS_WANT_INPUT 1
/* The peer closed the TLS session in an orderly way (close_notify). */
#define CPhotoLibTLS_CLOSED 2
/* The peer's certificate does not have the pinned SHA-256 fingerprint. */
#define CPhotoLibTLS_PIN_MISMATCH 3
/* The peer's certificate did not verify against the trust store, or names another host. */
#define CPhotoLibTLS_UNTRUSTED 4
/* The peer ended the handshake with an alert (its text is in the message). */
#define CPhotoLibTLS_PEER_ALERT 5
/* The peer's bytes broke the TLS protocol (bad record, wrong version, bad MAC, ...). */
#define CPhotoLibTLS_PROTOCOL 6
/* A certificate or key could not be read, or they do not belong together. */
#define CPhotoLibTLS_BAD_IDENTITY 7
/* The caller passed an invalid argument (NULL, size, state). */
#define CPhotoLibTLS_INVALID_ARGUMENT 8
/* Out of memory or an unexpected library state. */
#define CPhotoLibTLS_INTERNAL 9

/* Size of the message buffers callers pass in (longer messages are truncated). */
#define CPhotoLibTLS_MESSAGE_CAPACITY 320
/* Size of a SHA-256 fingerprint. */
#define CPhotoLibTLS_FINGERPRINT_SIZE 32

/* MARK: Contexts (one per server identity or per client trust setting; shared by sessions) */

/* An SSL_CTX: settings and, for a server, its certificate and key. Thread-safe to share. */
typedef struct CPhotoLibTLS_Context CPhotoLibTLS_Context;

/*
 * A server context presenting `certificate_pem` (the leaf certificate first, then any
 * intermediate certificates of its chain) with the private key `key_pem`. Fails with
 * CPhotoLibTLS_BAD_IDENTITY when either does not parse or the key does not match the
 * certificate. The PEM buffers are copied; they need not be NUL-terminated.
 */
int CPhotoLibTLS_server_context_new(const uint8_t *certificate_pem, size_t certificate_size,
                                    const uint8_t *key_pem, size_t key_size,
                                    CPhotoLibTLS_Context **context,
                                    char *message, size_t message_capacity);

/*
 * A client context. Sessions made from it verify the server either by a pinned fingerprint
 * (see CPhotoLibTLS_session_new) or, with no pin, against the system's trust store
 * (OpenSSL's default verify paths) plus a host name check.
 */
int CPhotoLibTLS_client_context_new(CPhotoLibTLS_Context **context, char *message, size_t message_capacity);

/* Releases a context (sessions made from it keep their own reference). NULL is ignored. */
void CPhotoLibTLS_context_free(CPhotoLibTLS_Context *context);

/* MARK: Sessions (one per connection; confined to one thread at a time) */

/* An SSL over two memory BIOs. */
typedef struct CPhotoLibTLS_Session CPhotoLibTLS_Session;

/*
 * A session on `context`. For a client context, `host` (may be NULL) is the server's name:
 * sent as SNI when it is a DNS name, and checked against the certificate when no pin is
 * given; `pin` (NULL, or CPhotoLibTLS_FINGERPRINT_SIZE bytes) is the SHA-256 of the server
 * certificate's DER encoding that the handshake must find, compared in constant time. With
 * a pin the trust store and the host name are not consulted (like SSH's known_hosts).
 * Servers pass NULL for both.
 */
int CPhotoLibTLS_session_new(CPhotoLibTLS_Context *context, const char *host, const uint8_t *pin,
                             CPhotoLibTLS_Session **session, char *message, size_t message_capacity);

/* Releases a session. NULL is ignored. */
void CPhotoLibTLS_session_free(CPhotoLibTLS_Session *session);

/* Appends ciphertext received from the peer to the session's input (copied). */
int CPhotoLibTLS_session_feed(CPhotoLibTLS_Session *session, const uint8_t *data, size_t size,
                              char *message, size_t message_capacity);

/*
 * Drives the handshake with the input fed so far: CPhotoLibTLS_OK once it is complete,
 * CPhotoLibTLS_WANT_INPUT while it waits for the peer, an error otherwise. Output it
 * produced (the client's first flight, answers, alerts) waits in the output buffer.
 */
int CPhotoLibTLS_session_advance(CPhotoLibTLS_Session *session, char *message, size_t message_capacity);

/* Whether the handshake has completed. */
int CPhotoLibTLS_session_is_established(const CPhotoLibTLS_Session *session);

/*
 * Decrypts input into `buffer`: CPhotoLibTLS_OK with *count > 0, CPhotoLibTLS_WANT_INPUT
 * when no whole record is waiting (*count = 0), CPhotoLibTLS_CLOSED after the peer's
 * close_notify, an error otherwise.
 */
int CPhotoLibTLS_session_read(CPhotoLibTLS_Session *session, uint8_t *buffer, size_t capacity, size_t *count,
                              char *message, size_t message_capacity);

/*
 * Encrypts all of `data` into the output buffer (as many records as it takes). Only after
 * the handshake has completed.
 */
int CPhotoLibTLS_session_write(CPhotoLibTLS_Session *session, const uint8_t *data, size_t size,
                               char *message, size_t message_capacity);

/* Queues a close_notify alert in the output buffer (an orderly end of the session). */
int CPhotoLibTLS_session_close(CPhotoLibTLS_Session *session, char *message, size_t message_capacity);

/* Bytes of ciphertext waiting to be sent to the peer. */
size_t CPhotoLibTLS_session_output_size(const CPhotoLibTLS_Session *session);

/* Moves up to `capacity` bytes of waiting ciphertext into `buffer`; returns how many. */
size_t CPhotoLibTLS_session_take_output(CPhotoLibTLS_Session *session, uint8_t *buffer, size_t capacity);

/*
 * The SHA-256 fingerprint of the certificate the peer presented, into `fingerprint`
 * (CPhotoLibTLS_FINGERPRINT_SIZE bytes). Returns 1 when there is one (a client that has
 * received the server's certificate, whether it was accepted or not), 0 otherwise.
 */
int CPhotoLibTLS_session_peer_fingerprint(const CPhotoLibTLS_Session *session, uint8_t *fingerprint);

/* MARK: Why a server's certificate was not trusted (after CPhotoLibTLS_UNTRUSTED) */

/* Another verification failure (a bad signature, a revoked or unusable certificate, ...). */
#define CPhotoLibTLS_DISTRUST_OTHER 0
/* The server's own certificate is self-signed (X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT). */
#define CPhotoLibTLS_DISTRUST_SELF_SIGNED 1
/* The authority that signed it is not in the trust store (X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT*,
 * X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE,
 * X509_V_ERR_CERT_UNTRUSTED). */
#define CPhotoLibTLS_DISTRUST_UNKNOWN_ISSUER 2
/* A certificate of the chain has expired (X509_V_ERR_CERT_HAS_EXPIRED). */
#define CPhotoLibTLS_DISTRUST_EXPIRED 3
/* A certificate of the chain is not valid yet (X509_V_ERR_CERT_NOT_YET_VALID). */
#define CPhotoLibTLS_DISTRUST_NOT_YET_VALID 4
/* The certificate names neither the host name nor the address asked for
 * (X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH). */
#define CPhotoLibTLS_DISTRUST_NAME_MISMATCH 5

/* Size of CPhotoLibTLS_VerifyFailure.names (longer lists are cut at a name's end). */
#define CPhotoLibTLS_NAMES_CAPACITY 256

/* What OpenSSL's verification of a server's certificate found wrong. */
typedef struct CPhotoLibTLS_VerifyFailure {
    /* CPhotoLibTLS_DISTRUST_*: the kind of failure. */
    int reason;
    /* OpenSSL's verify result (X509_V_ERR_*). */
    long verify_code;
    /* Which certificate failed: 0 the server's own, 1 the authority that signed it, ... */
    int depth;
    /* That certificate's validity, in seconds since 1970-01-01 UTC. */
    int64_t not_before;
    int64_t not_after;
    /* The server's own certificate's DNS names and IP addresses (subjectAltName; its CN when
     * it has none), separated by ", "; NUL-terminated. */
    char names[CPhotoLibTLS_NAMES_CAPACITY];
} CPhotoLibTLS_VerifyFailure;

/*
 * After a handshake failed with CPhotoLibTLS_UNTRUSTED: why, into `failure`. Returns 1 when
 * the verification recorded a failure, 0 otherwise (`failure` is then zeroed).
 */
int CPhotoLibTLS_session_verify_failure(const CPhotoLibTLS_Session *session, CPhotoLibTLS_VerifyFailure *failure);

/* The negotiated protocol version, e.g. "TLSv1.3" (static storage; "" before the handshake). */
const char *CPhotoLibTLS_session_version(const CPhotoLibTLS_Session *session);

/* MARK: Identities (a key and a self-signed certificate) */

/*
 * Generates an EC P-256 key and a self-signed X.509 v3 certificate for it: subject and issuer
 * CN = `common_name`, valid from one hour ago for `days` days, a random 128-bit serial,
 * subjectAltName = `subject_alt_names` in OpenSSL's config syntax (e.g.
 * "DNS:photolibd,DNS:localhost,IP:127.0.0.1"; NULL or "" for none), basicConstraints CA:FALSE,
 * keyUsage digitalSignature, extendedKeyUsage serverAuth, signed with SHA-256.
 * The PEM texts are returned in buffers allocated here (free with CPhotoLibTLS_free); writing
 * them to files (mode 0600) is the caller's job.
 */
int CPhotoLibTLS_generate_identity(const char *common_name, const char *subject_alt_names, uint32_t days,
                                   uint8_t **certificate_pem, size_t *certificate_size,
                                   uint8_t **key_pem, size_t *key_size,
                                   char *message, size_t message_capacity);

/*
 * The SHA-256 fingerprint (of the DER encoding) of the first certificate in `certificate_pem`
 * into `fingerprint` (CPhotoLibTLS_FINGERPRINT_SIZE bytes).
 */
int CPhotoLibTLS_certificate_fingerprint(const uint8_t *certificate_pem, size_t certificate_size,
                                         uint8_t *fingerprint, char *message, size_t message_capacity);

/*
 * The validity of the first certificate in `certificate_pem`: notBefore and notAfter in
 * seconds since 1970-01-01 UTC.
 */
int CPhotoLibTLS_certificate_validity(const uint8_t *certificate_pem, size_t certificate_size,
                                      int64_t *not_before, int64_t *not_after,
                                      char *message, size_t message_capacity);

/* Frees a buffer returned by this library. NULL is ignored. */
void CPhotoLibTLS_free(void *buffer);

#ifdef __cplusplus
}
#endif

#endif /* CPHOTOLIBTLS_H */
