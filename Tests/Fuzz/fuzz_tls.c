/*
 * libFuzzer harness: CPhotoLibTLS sessions fed hostile bytes, in pieces whose sizes the input
 * chooses. The first byte picks the victim:
 *   0  a server session receiving a "ClientHello" (whatever the bytes are);
 *   1  a client session that sent its ClientHello and receives a "server flight";
 *   2  a server session after a real handshake, receiving "records" (then the client, the same);
 *   3  like 2, with the bytes encrypted first by the real peer and then damaged in one place.
 * Every call must return a status (never crash, hang or leak); failures must stick.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "CPhotoLibTLS.h"

static CPhotoLibTLS_Context *server_context;
static CPhotoLibTLS_Context *client_context;
static uint8_t pin[CPhotoLibTLS_FINGERPRINT_SIZE];
static char message[CPhotoLibTLS_MESSAGE_CAPACITY];

static void setup(void) {
    if (server_context != NULL) {
        return;
    }
    uint8_t *certificate = NULL, *key = NULL;
    size_t certificate_size = 0, key_size = 0;
    if (CPhotoLibTLS_generate_identity("fuzz", "DNS:localhost", 30, &certificate, &certificate_size, &key, &key_size,
                                       message, sizeof message) != CPhotoLibTLS_OK ||
        CPhotoLibTLS_certificate_fingerprint(certificate, certificate_size, pin, message, sizeof message) != CPhotoLibTLS_OK ||
        CPhotoLibTLS_server_context_new(certificate, certificate_size, key, key_size, &server_context, message,
                                        sizeof message) != CPhotoLibTLS_OK ||
        CPhotoLibTLS_client_context_new(&client_context, message, sizeof message) != CPhotoLibTLS_OK) {
        abort();
    }
    CPhotoLibTLS_free(certificate);
    CPhotoLibTLS_free(key);
}

static void drain(CPhotoLibTLS_Session *session, CPhotoLibTLS_Session *peer) {
    uint8_t buffer[4096];
    size_t count;
    while ((count = CPhotoLibTLS_session_take_output(session, buffer, sizeof buffer)) > 0) {
        if (peer != NULL) {
            CPhotoLibTLS_session_feed(peer, buffer, count, message, sizeof message);
        }
    }
}

/* Feeds `data` in pieces (sizes from `shape`), driving the session after each. */
static void feed(CPhotoLibTLS_Session *session, const uint8_t *data, size_t size, uint8_t shape) {
    size_t piece = 1 + (size_t)(shape % 97);
    for (size_t offset = 0; offset < size; offset += piece) {
        size_t count = size - offset < piece ? size - offset : piece;
        int status = CPhotoLibTLS_session_feed(session, data + offset, count, message, sizeof message);
        if (status == CPhotoLibTLS_OK) {
            status = CPhotoLibTLS_session_advance(session, message, sizeof message);
        }
        if (status == CPhotoLibTLS_OK) {
            uint8_t plaintext[16384];
            size_t read = 0;
            while (CPhotoLibTLS_session_read(session, plaintext, sizeof plaintext, &read, message, sizeof message) ==
                   CPhotoLibTLS_OK) {
            }
        }
        drain(session, NULL);
    }
}

static int handshake(CPhotoLibTLS_Session **server, CPhotoLibTLS_Session **client) {
    if (CPhotoLibTLS_session_new(server_context, NULL, NULL, server, message, sizeof message) != CPhotoLibTLS_OK ||
        CPhotoLibTLS_session_new(client_context, "localhost", pin, client, message, sizeof message) != CPhotoLibTLS_OK) {
        abort();
    }
    for (int round = 0; round < 4; round++) {
        CPhotoLibTLS_session_advance(*client, message, sizeof message);
        drain(*client, *server);
        CPhotoLibTLS_session_advance(*server, message, sizeof message);
        drain(*server, *client);
    }
    if (!CPhotoLibTLS_session_is_established(*server) || !CPhotoLibTLS_session_is_established(*client)) {
        abort();
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    setup();
    if (size < 2) {
        return 0;
    }
    uint8_t mode = data[0] % 4;
    uint8_t shape = data[1];
    data += 2;
    size -= 2;
    CPhotoLibTLS_Session *server = NULL, *client = NULL;
    switch (mode) {
    case 0:
        if (CPhotoLibTLS_session_new(server_context, NULL, NULL, &server, message, sizeof message) != CPhotoLibTLS_OK) {
            abort();
        }
        feed(server, data, size, shape);
        break;
    case 1:
        if (CPhotoLibTLS_session_new(client_context, "localhost", (shape & 1) ? pin : NULL, &client, message,
                                     sizeof message) != CPhotoLibTLS_OK) {
            abort();
        }
        CPhotoLibTLS_session_advance(client, message, sizeof message);
        drain(client, NULL);
        feed(client, data, size, shape);
        break;
    case 2:
        handshake(&server, &client);
        feed(server, data, size, shape);
        feed(client, data, size, (uint8_t)(shape + 1));
        break;
    default: {
        handshake(&server, &client);
        if (size > 0 && CPhotoLibTLS_session_write(client, data, size, message, sizeof message) == CPhotoLibTLS_OK) {
            size_t waiting = CPhotoLibTLS_session_output_size(client);
            uint8_t *records = malloc(waiting + 1);
            size_t taken = CPhotoLibTLS_session_take_output(client, records, waiting);
            if (taken > 0) {
                records[(size_t)shape * 131 % taken] ^= (uint8_t)(1u << (shape % 8));
                feed(server, records, taken, shape);
            }
            free(records);
        }
        break;
    }
    }
    CPhotoLibTLS_session_free(server);
    CPhotoLibTLS_session_free(client);
    return 0;
}
