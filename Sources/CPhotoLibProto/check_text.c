// Hand-written: text validation on encoded protobuf bytes (see CPhotoLibProto.h).
// Related protobuf-c documentation: protobuf-c.h, ProtobufCMessageDescriptor and
// protobuf_c_message_descriptor_get_field().
#include "CPhotoLibProto.h"

#include <stdio.h>
#include <string.h>

enum { MAX_DEPTH = 32 };

static int read_varint(const uint8_t *p, size_t len, size_t *pos, uint64_t *out) {
    uint64_t value = 0;
    for (int shift = 0; shift < 64 && *pos < len; shift += 7) {
        uint8_t byte = p[(*pos)++];
        value |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80)) { *out = value; return 0; }
    }
    return -1;
}

// Returns the offset of the first invalid byte, or -1 when `s` is valid UTF-8 without NUL.
static long first_bad_utf8(const uint8_t *s, size_t n, int *is_nul) {
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c == 0) { *is_nul = 1; return (long)i; }
        if (c < 0x80) { i++; continue; }
        size_t need; uint32_t cp;
        if (c >= 0xc2 && c <= 0xdf) { need = 1; cp = c & 0x1f; }
        else if (c >= 0xe0 && c <= 0xef) { need = 2; cp = c & 0x0f; }
        else if (c >= 0xf0 && c <= 0xf4) { need = 3; cp = c & 0x07; }
        else return (long)i;
        for (size_t k = 1; k <= need; k++) {
            if (i + k >= n || (s[i + k] & 0xc0) != 0x80) return (long)i;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        // Overlong forms, surrogates and code points past U+10FFFF.
        if ((need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000) || cp > 0x10ffff ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return (long)i;
        i += need + 1;
    }
    return -1;
}

static int walk(const ProtobufCMessageDescriptor *desc, const uint8_t *p, size_t len,
                int depth, char *error, size_t error_size) {
    if (depth > MAX_DEPTH) {
        snprintf(error, error_size, "message nesting deeper than %d", MAX_DEPTH);
        return -1;
    }
    size_t pos = 0;
    while (pos < len) {
        uint64_t key;
        if (read_varint(p, len, &pos, &key)) goto malformed;
        uint32_t wire_type = (uint32_t)(key & 7);
        uint64_t number = key >> 3;
        uint64_t skip = 0;
        switch (wire_type) {
        case 0: { uint64_t ignored; if (read_varint(p, len, &pos, &ignored)) goto malformed; continue; }
        case 1: skip = 8; break;
        case 5: skip = 4; break;
        case 2: {
            uint64_t n;
            if (read_varint(p, len, &pos, &n) || n > len - pos) goto malformed;
            const ProtobufCFieldDescriptor *field =
                number <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(desc, (unsigned)number) : NULL;
            if (field && field->type == PROTOBUF_C_TYPE_STRING) {
                int is_nul = 0;
                long bad = first_bad_utf8(p + pos, (size_t)n, &is_nul);
                if (bad >= 0) {
                    snprintf(error, error_size, "text field %s.%s %s at byte %ld",
                             desc->name, field->name,
                             is_nul ? "contains a NUL byte" : "is not valid UTF-8", bad);
                    return -1;
                }
            } else if (field && field->type == PROTOBUF_C_TYPE_MESSAGE) {
                if (walk((const ProtobufCMessageDescriptor *)field->descriptor, p + pos, (size_t)n,
                         depth + 1, error, error_size))
                    return -1;
            }
            pos += (size_t)n;
            continue;
        }
        default: goto malformed;
        }
        if (skip > len - pos) goto malformed;
        pos += (size_t)skip;
    }
    return 0;
malformed:
    snprintf(error, error_size, "malformed encoding in %s", desc->name);
    return -1;
}

int CPhotoLibProto_check_text(const ProtobufCMessageDescriptor *descriptor,
                              const uint8_t *data, size_t length,
                              char *error, size_t error_size) {
    if (error_size > 0) error[0] = 0;
    if (!descriptor) {
        snprintf(error, error_size, "no descriptor");
        return -1;
    }
    return walk(descriptor, data, length, 0, error, error_size);
}
