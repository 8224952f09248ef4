/*
 * A bounded ISO-BMFF box walker for the primary item's transform properties, which
 * libheif 1.15 applies but does not expose.
 *
 * Related specifications: ISO/IEC 14496-12 (box header, 'meta', 'pitm'), ISO/IEC 23008-12
 * §6.5.10 'irot', §6.5.12 'imir', §9.3 'iprp'/'ipco'/'ipma'.
 */
#include "phh_internal.h"

#include <string.h>

/* A byte range inside the input. */
typedef struct CPhotoLibHEIF_Span {
    const uint8_t *bytes;
    size_t size;
} CPhotoLibHEIF_Span;

static uint32_t CPhotoLibHEIF_be16(const uint8_t *b) {
    return ((uint32_t)b[0] << 8) | b[1];
}

static uint32_t CPhotoLibHEIF_be32(const uint8_t *b) {
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

/*
 * Reads the box at *position inside `span`: its type and payload. Advances *position past
 * it. Returns 0 at the end or when the header is malformed.
 */
static int CPhotoLibHEIF_next_box(CPhotoLibHEIF_Span span, size_t *position, char type[4],
                                  CPhotoLibHEIF_Span *payload) {
    size_t at = *position;
    if (at > span.size || span.size - at < 8) {
        return 0;
    }
    uint64_t box_size = CPhotoLibHEIF_be32(span.bytes + at);
    size_t header = 8;
    memcpy(type, span.bytes + at + 4, 4);
    if (box_size == 1) {
        if (span.size - at < 16) {
            return 0;
        }
        box_size = ((uint64_t)CPhotoLibHEIF_be32(span.bytes + at + 8) << 32) | CPhotoLibHEIF_be32(span.bytes + at + 12);
        header = 16;
    } else if (box_size == 0) {
        box_size = span.size - at;
    }
    if (box_size < header || box_size > span.size - at) {
        return 0;
    }
    payload->bytes = span.bytes + at + header;
    payload->size = (size_t)box_size - header;
    *position = at + (size_t)box_size;
    return 1;
}

/* The payload of the first child box of `type` (the first `skip` bytes of `parent` are
 * not boxes: a full box's version and flags). */
static int CPhotoLibHEIF_child(CPhotoLibHEIF_Span parent, size_t skip, const char *type, CPhotoLibHEIF_Span *out) {
    size_t position = skip;
    char found[4];
    CPhotoLibHEIF_Span payload;
    while (CPhotoLibHEIF_next_box(parent, &position, found, &payload)) {
        if (memcmp(found, type, 4) == 0) {
            *out = payload;
            return 1;
        }
    }
    return 0;
}

/* Property number `index` (1-based) of 'ipco'. */
static int CPhotoLibHEIF_property(CPhotoLibHEIF_Span ipco, uint32_t index, char type[4], CPhotoLibHEIF_Span *out) {
    size_t position = 0;
    for (uint32_t i = 1; CPhotoLibHEIF_next_box(ipco, &position, type, out); i++) {
        if (i == index) {
            return 1;
        }
    }
    return 0;
}

int CPhotoLibHEIF_read_transforms(const uint8_t *data, size_t size, CPhotoLibHEIF_Transform *out, int capacity) {
    if (data == NULL || out == NULL || capacity <= 0) {
        return 0;
    }
    CPhotoLibHEIF_Span file = {data, size}, meta, pitm, iprp, ipco, ipma;
    if (!CPhotoLibHEIF_child(file, 0, "meta", &meta) || meta.size < 4 ||
        !CPhotoLibHEIF_child(meta, 4, "pitm", &pitm) || !CPhotoLibHEIF_child(meta, 4, "iprp", &iprp) ||
        !CPhotoLibHEIF_child(iprp, 0, "ipco", &ipco) || !CPhotoLibHEIF_child(iprp, 0, "ipma", &ipma)) {
        return 0;
    }
    uint32_t primary;
    if (pitm.size >= 6 && pitm.bytes[0] == 0) {
        primary = CPhotoLibHEIF_be16(pitm.bytes + 4);
    } else if (pitm.size >= 8 && pitm.bytes[0] == 1) {
        primary = CPhotoLibHEIF_be32(pitm.bytes + 4);
    } else {
        return 0;
    }
    if (ipma.size < 8) {
        return 0;
    }
    int version = ipma.bytes[0];
    int wide_index = (ipma.bytes[3] & 1) != 0;
    uint32_t entries = CPhotoLibHEIF_be32(ipma.bytes + 4);
    size_t at = 8;
    for (uint32_t e = 0; e < entries; e++) {
        size_t id_size = version < 1 ? 2 : 4;
        if (ipma.size - at < id_size + 1) {
            return 0;
        }
        uint32_t item = id_size == 2 ? CPhotoLibHEIF_be16(ipma.bytes + at) : CPhotoLibHEIF_be32(ipma.bytes + at);
        unsigned associations = ipma.bytes[at + id_size];
        at += id_size + 1;
        size_t entry_size = (size_t)associations * (wide_index ? 2 : 1);
        if (ipma.size - at < entry_size) {
            return 0;
        }
        if (item != primary) {
            at += entry_size;
            continue;
        }
        int count = 0;
        for (unsigned a = 0; a < associations; a++) {
            uint32_t index = wide_index ? (CPhotoLibHEIF_be16(ipma.bytes + at + 2 * a) & 0x7FFF)
                                        : (ipma.bytes[at + a] & 0x7F);
            char type[4];
            CPhotoLibHEIF_Span property;
            if (index == 0 || !CPhotoLibHEIF_property(ipco, index, type, &property) || property.size < 1) {
                continue;
            }
            if (count < capacity && memcmp(type, "irot", 4) == 0) {
                out[count].kind = 1;
                out[count].value = property.bytes[0] & 3;
                count++;
            } else if (count < capacity && memcmp(type, "imir", 4) == 0) {
                out[count].kind = 2;
                out[count].value = property.bytes[0] & 1;
                count++;
            }
        }
        return count;
    }
    return 0;
}
