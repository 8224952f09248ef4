// CPhotoLibProto: the protoc-c output for Protos/*.proto (generated, committed, regenerated
// by Scripts/generate-protos) plus the few hand-written helpers Swift needs around it.
#ifndef CPHOTOLIBPROTO_H
#define CPHOTOLIBPROTO_H

#include <stddef.h>
#include <stdint.h>
#include <protobuf-c/protobuf-c.h>

#include "transport.pb-c.h"
#include "library.pb-c.h"
#include "editing.pb-c.h"
#include "changes.pb-c.h"
#include "images.pb-c.h"
#include "observation.pb-c.h"
#include "authorization.pb-c.h"
#include "service.pb-c.h"

// --- Text checks on the wire bytes -------------------------------------------------------
// Why in C, on the raw bytes: protobuf-c unpacks a `string` field into a NUL-terminated
// char*, so a NUL byte inside the text silently truncates it, and protobuf-c 1.4 does not
// check UTF-8. Only the encoded bytes still show both faults, and walking them needs the
// message descriptors, which are C data.

/// Walks `data` (an encoded message of type `descriptor`, already accepted by protobuf-c)
/// and checks every `string` field, in nested messages too: valid UTF-8, no NUL byte.
/// Returns 0 when all text is valid; otherwise writes a message naming the field into
/// `error` (NUL-terminated, at most `error_size` bytes) and returns -1.
int CPhotoLibProto_check_text(const ProtobufCMessageDescriptor *descriptor,
                              const uint8_t *data, size_t length,
                              char *error, size_t error_size);

/// The descriptor a message was unpacked with (the `base.descriptor` field), as an opaque
/// pointer Swift can pass back to `CPhotoLibProto_check_text`.
static inline const ProtobufCMessageDescriptor *
CPhotoLibProto_descriptor_of(const void *message) {
    return ((const ProtobufCMessage *)message)->descriptor;
}

#endif
