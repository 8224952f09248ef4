/*
 * Self-signed identities (EC P-256 key + X.509 v3 certificate) and certificate fingerprints.
 *
 * Related OpenSSL documentation: EVP_PKEY_Q_keygen(3) (EVP_EC_gen), X509_new(3),
 * X509_set_version(3), BN_to_ASN1_INTEGER(3), X509_gmtime_adj(3), X509_NAME_add_entry_by_txt(3),
 * X509V3_set_ctx(3), X509V3_EXT_nconf_nid (x509v3_config(5) for the value syntax),
 * X509_sign(3), PEM_write_bio_X509(3), PEM_write_bio_PrivateKey(3), X509_digest(3),
 * X509_get0_notBefore(3), ASN1_TIME_diff(3).
 */
#include "pltls_internal.h"

#include <limits.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* Adds the extension `nid` with `value` (x509v3_config syntax) to `certificate`. */
static int CPhotoLibTLS_add_extension(X509 *certificate, X509V3_CTX *v3, int nid, const char *value) {
    X509_EXTENSION *extension = X509V3_EXT_nconf_nid(NULL, v3, nid, value);
    if (extension == NULL) {
        return 0;
    }
    int added = X509_add_ext(certificate, extension, -1);
    X509_EXTENSION_free(extension);
    return added == 1;
}

/* Copies a memory BIO's contents into a buffer of OPENSSL_malloc. */
static int CPhotoLibTLS_take_bio(BIO *bio, uint8_t **bytes, size_t *size) {
    char *data = NULL;
    long length = BIO_get_mem_data(bio, &data);
    if (length <= 0 || data == NULL) {
        return 0;
    }
    uint8_t *copy = OPENSSL_malloc((size_t)length);
    if (copy == NULL) {
        return 0;
    }
    memcpy(copy, data, (size_t)length);
    *bytes = copy;
    *size = (size_t)length;
    return 1;
}

int CPhotoLibTLS_generate_identity(const char *common_name, const char *subject_alt_names, uint32_t days,
                                   uint8_t **certificate_pem, size_t *certificate_size,
                                   uint8_t **key_pem, size_t *key_size,
                                   char *message, size_t capacity) {
    if (common_name == NULL || common_name[0] == '\0' || strlen(common_name) > 64 || days == 0 ||
        days > 36500 || certificate_pem == NULL || certificate_size == NULL || key_pem == NULL ||
        key_size == NULL) {
        CPhotoLibTLS_format(message, capacity,
                            "TLS identity: invalid arguments (a common name of 1 to 64 bytes, 1 to 36500 days)");
        return CPhotoLibTLS_INVALID_ARGUMENT;
    }
    *certificate_pem = NULL;
    *key_pem = NULL;
    *certificate_size = 0;
    *key_size = 0;
    ERR_clear_error();
    int status = CPhotoLibTLS_INTERNAL;
    const char *step = "generating the key";
    EVP_PKEY *key = NULL;
    X509 *certificate = NULL;
    BIGNUM *serial = NULL;
    BIO *certificate_bio = NULL;
    BIO *key_bio = NULL;

    key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    if (key == NULL) {
        goto done;
    }
    step = "building the certificate";
    certificate = X509_new();
    if (certificate == NULL || X509_set_version(certificate, X509_VERSION_3) != 1) {
        goto done;
    }
    /* A random positive 127-bit serial (RFC 5280: unique per issuer, at most 20 bytes). */
    unsigned char serial_bytes[16];
    if (RAND_bytes(serial_bytes, sizeof serial_bytes) != 1) {
        goto done;
    }
    serial_bytes[0] &= 0x7f;
    serial_bytes[0] |= 0x01;
    serial = BN_bin2bn(serial_bytes, sizeof serial_bytes, NULL);
    if (serial == NULL || BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(certificate)) == NULL) {
        goto done;
    }
    /* Valid from an hour ago (clocks disagree a little), for `days` days. */
    if (X509_gmtime_adj(X509_getm_notBefore(certificate), -3600) == NULL ||
        X509_time_adj_ex(X509_getm_notAfter(certificate), (int)days, 0, NULL) == NULL) {
        goto done;
    }
    if (X509_set_pubkey(certificate, key) != 1) {
        goto done;
    }
    X509_NAME *name = X509_get_subject_name(certificate);
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) != 1 ||
        X509_set_issuer_name(certificate, name) != 1) {
        goto done;
    }
    step = "adding the certificate's extensions";
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, certificate, certificate, NULL, NULL, 0);
    if (!CPhotoLibTLS_add_extension(certificate, &v3, NID_basic_constraints, "critical,CA:FALSE") ||
        !CPhotoLibTLS_add_extension(certificate, &v3, NID_key_usage, "critical,digitalSignature") ||
        !CPhotoLibTLS_add_extension(certificate, &v3, NID_ext_key_usage, "serverAuth") ||
        !CPhotoLibTLS_add_extension(certificate, &v3, NID_subject_key_identifier, "hash")) {
        goto done;
    }
    if (subject_alt_names != NULL && subject_alt_names[0] != '\0' &&
        !CPhotoLibTLS_add_extension(certificate, &v3, NID_subject_alt_name, subject_alt_names)) {
        step = "adding the subject alternative names (expected e.g. DNS:host,IP:127.0.0.1)";
        status = CPhotoLibTLS_INVALID_ARGUMENT;
        goto done;
    }
    step = "signing the certificate";
    if (X509_sign(certificate, key, EVP_sha256()) <= 0) {
        goto done;
    }
    step = "writing PEM";
    certificate_bio = BIO_new(BIO_s_mem());
    key_bio = BIO_new(BIO_s_mem());
    if (certificate_bio == NULL || key_bio == NULL || PEM_write_bio_X509(certificate_bio, certificate) != 1 ||
        PEM_write_bio_PrivateKey(key_bio, key, NULL, NULL, 0, NULL, NULL) != 1) {
        goto done;
    }
    if (!CPhotoLibTLS_take_bio(certificate_bio, certificate_pem, certificate_size) ||
        !CPhotoLibTLS_take_bio(key_bio, key_pem, key_size)) {
        goto done;
    }
    status = CPhotoLibTLS_OK;

done:
    if (status != CPhotoLibTLS_OK) {
        char context[128];
        CPhotoLibTLS_format(context, sizeof context, "cannot make a TLS identity (%s)", step);
        CPhotoLibTLS_format_openssl(message, capacity, context, "failed");
        OPENSSL_free(*certificate_pem);
        /* The key text is secret: wipe it before giving the memory back. */
        if (*key_pem != NULL) {
            OPENSSL_clear_free(*key_pem, *key_size);
        }
        *certificate_pem = NULL;
        *key_pem = NULL;
        *certificate_size = 0;
        *key_size = 0;
    }
    BIO_free(certificate_bio);
    BIO_free(key_bio);
    BN_free(serial);
    X509_free(certificate);
    EVP_PKEY_free(key);
    return status;
}

/*
 * The first certificate of `certificate_pem` into `*certificate` (the caller frees it), or a
 * status with `message` filled ("`what`: …").
 */
static int read_certificate(const uint8_t *certificate_pem, size_t certificate_size, const char *what,
                            X509 **certificate, char *message, size_t capacity) {
    ERR_clear_error();
    BIO *bio = BIO_new_mem_buf(certificate_pem, (int)certificate_size);
    if (bio == NULL) {
        CPhotoLibTLS_format_openssl(message, capacity, what, "out of memory");
        return CPhotoLibTLS_INTERNAL;
    }
    *certificate = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (*certificate == NULL) {
        CPhotoLibTLS_format_openssl(message, capacity, "not a PEM X.509 certificate", "unreadable");
        return CPhotoLibTLS_BAD_IDENTITY;
    }
    return CPhotoLibTLS_OK;
}

int CPhotoLibTLS_certificate_fingerprint(const uint8_t *certificate_pem, size_t certificate_size,
                                         uint8_t *fingerprint, char *message, size_t capacity) {
    if (certificate_pem == NULL || fingerprint == NULL || certificate_size > INT_MAX) {
        CPhotoLibTLS_format(message, capacity, "certificate fingerprint: invalid arguments");
        return CPhotoLibTLS_INVALID_ARGUMENT;
    }
    X509 *certificate = NULL;
    int status = read_certificate(certificate_pem, certificate_size, "certificate fingerprint", &certificate, message, capacity);
    if (status != CPhotoLibTLS_OK) return status;
    unsigned int size = 0;
    int digested = X509_digest(certificate, EVP_sha256(), fingerprint, &size);
    X509_free(certificate);
    if (digested != 1 || size != CPhotoLibTLS_FINGERPRINT_SIZE) {
        CPhotoLibTLS_format_openssl(message, capacity, "certificate fingerprint", "SHA-256 failed");
        return CPhotoLibTLS_INTERNAL;
    }
    return CPhotoLibTLS_OK;
}

int CPhotoLibTLS_certificate_validity(const uint8_t *certificate_pem, size_t certificate_size,
                                      int64_t *not_before, int64_t *not_after, char *message, size_t capacity) {
    if (certificate_pem == NULL || not_before == NULL || not_after == NULL || certificate_size > INT_MAX) {
        CPhotoLibTLS_format(message, capacity, "certificate validity: invalid arguments");
        return CPhotoLibTLS_INVALID_ARGUMENT;
    }
    X509 *certificate = NULL;
    int status = read_certificate(certificate_pem, certificate_size, "certificate validity", &certificate, message, capacity);
    if (status != CPhotoLibTLS_OK) return status;
    *not_before = CPhotoLibTLS_epoch_seconds(X509_get0_notBefore(certificate));
    *not_after = CPhotoLibTLS_epoch_seconds(X509_get0_notAfter(certificate));
    X509_free(certificate);
    return CPhotoLibTLS_OK;
}
