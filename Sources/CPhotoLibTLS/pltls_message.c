/*
 * Messages for CPhotoLibTLS's callers.
 *
 * Related OpenSSL documentation: ERR_get_error(3), ERR_error_string(3) (ERR_error_string_n).
 */
#include "pltls_internal.h"

#include <stdarg.h>
#include <stdio.h>

#include <openssl/err.h>

void CPhotoLibTLS_format(char *message, size_t capacity, const char *format, ...) {
    if (message == NULL || capacity == 0) {
        return;
    }
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(message, capacity, format, arguments);
    va_end(arguments);
}

void CPhotoLibTLS_format_openssl(char *message, size_t capacity, const char *context, const char *fallback) {
    /* The oldest error is the cause; later ones say what failed because of it. */
    unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) {
        CPhotoLibTLS_format(message, capacity, "%s: %s", context, fallback);
        return;
    }
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    CPhotoLibTLS_format(message, capacity, "%s: %s", context, text);
}

void CPhotoLibTLS_free(void *buffer) {
    OPENSSL_free(buffer);
}
