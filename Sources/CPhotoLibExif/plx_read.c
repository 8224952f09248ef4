/*
 * Reads orientation, DateTimeOriginal (+ OffsetTimeOriginal) and GPS position from the
 * EXIF segment of a JPEG with libexif. See CPhotoLibExif.h for why this is C.
 *
 * Related libexif documentation: exif-data.h (exif_data_new, exif_data_load_data,
 * exif_data_unset_option), exif-content.h (exif_content_get_entry), exif-utils.h
 * (exif_get_short, exif_get_rational).
 */
#define _GNU_SOURCE /* memmem */
#include "include/CPhotoLibExif.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libexif/exif-data.h>
#include <libexif/exif-utils.h>

/* EXIF's OffsetTimeOriginal (EXIF 2.31), by number in case the header lacks the name. */
#define CPhotoLibExif_TAG_OFFSET_TIME_ORIGINAL ((ExifTag)0x9011)

/*
 * Locates the payload of the first APP1 segment that starts with "Exif\0\0", walking
 * the JPEG marker segments from SOI until SOS or EOI. Returns 1 and sets *payload,
 * *payload_size (including the "Exif\0\0" header, as libexif expects) when found.
 */
static int CPhotoLibExif_find_segment(const uint8_t *data, size_t size,
                                      const uint8_t **payload, size_t *payload_size) {
    if (data == NULL || size < 4 || data[0] != 0xFF || data[1] != 0xD8) {
        return 0;
    }
    size_t position = 2;
    while (position + 4 <= size) {
        if (data[position] != 0xFF) {
            return 0;
        }
        uint8_t marker = data[position + 1];
        if (marker == 0xFF) { /* fill byte */
            position += 1;
            continue;
        }
        if (marker == 0xD9 || marker == 0xDA) { /* EOI, SOS: no more metadata */
            return 0;
        }
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) { /* no length */
            position += 2;
            continue;
        }
        size_t length = ((size_t)data[position + 2] << 8) | data[position + 3];
        if (length < 2 || position + 2 + length > size) {
            return 0;
        }
        const uint8_t *segment = data + position + 4;
        size_t segment_size = length - 2;
        if (marker == 0xE1 && segment_size >= 6 && memcmp(segment, "Exif\0\0", 6) == 0) {
            *payload = segment;
            *payload_size = segment_size;
            return 1;
        }
        position += 2 + length;
    }
    return 0;
}

/* The entry for `tag` in one IFD only (see the header about exif_data_get_entry). */
static ExifEntry *CPhotoLibExif_entry(ExifData *exif, ExifIfd ifd, ExifTag tag) {
    if (exif->ifd[ifd] == NULL) {
        return NULL;
    }
    return exif_content_get_entry(exif->ifd[ifd], tag);
}

/* Copies an ASCII entry into `text` (capacity bytes, NUL-terminated). Returns length or -1. */
static int CPhotoLibExif_ascii(const ExifEntry *entry, char *text, size_t capacity) {
    if (entry == NULL || entry->data == NULL || entry->format != EXIF_FORMAT_ASCII || capacity == 0) {
        return -1;
    }
    size_t length = 0;
    while (length < entry->size && length + 1 < capacity && entry->data[length] != '\0') {
        text[length] = (char)entry->data[length];
        length++;
    }
    text[length] = '\0';
    return (int)length;
}

/* Reads rational number `index` of an entry (RATIONAL or SRATIONAL). Returns 1 if valid. */
static int CPhotoLibExif_rational(const ExifEntry *entry, ExifByteOrder order,
                                  unsigned long index, double *value) {
    if (entry == NULL || entry->data == NULL || entry->components <= index ||
        entry->size < (index + 1) * 8) {
        return 0;
    }
    const unsigned char *bytes = entry->data + index * 8;
    if (entry->format == EXIF_FORMAT_RATIONAL) {
        ExifRational r = exif_get_rational(bytes, order);
        if (r.denominator == 0) {
            return 0;
        }
        *value = (double)r.numerator / (double)r.denominator;
        return 1;
    }
    if (entry->format == EXIF_FORMAT_SRATIONAL) {
        ExifSRational r = exif_get_srational(bytes, order);
        if (r.denominator == 0) {
            return 0;
        }
        *value = (double)r.numerator / (double)r.denominator;
        return 1;
    }
    return 0;
}

/* Degrees + minutes + seconds from a GPS coordinate entry (three rationals). */
static int CPhotoLibExif_coordinate(const ExifEntry *entry, ExifByteOrder order, double *degrees) {
    double d, m, s;
    if (!CPhotoLibExif_rational(entry, order, 0, &d) || !CPhotoLibExif_rational(entry, order, 1, &m) ||
        !CPhotoLibExif_rational(entry, order, 2, &s)) {
        return 0;
    }
    if (d < 0 || m < 0 || m >= 60 || s < 0 || s >= 60) {
        return 0;
    }
    *degrees = d + m / 60.0 + s / 3600.0;
    return isfinite(*degrees);
}

/* "YYYY:MM:DD HH:MM:SS" with digits where digits belong. */
static int CPhotoLibExif_is_date_time(const char *text) {
    static const char pattern[] = "dddd:dd:dd dd:dd:dd";
    for (size_t i = 0; i < sizeof pattern - 1; i++) {
        char c = text[i];
        if (pattern[i] == 'd' ? (c < '0' || c > '9') : c != pattern[i]) {
            return 0;
        }
    }
    return text[sizeof pattern - 1] == '\0';
}

/* "+HH:MM" or "-HH:MM". */
static int CPhotoLibExif_is_offset(const char *text) {
    return (text[0] == '+' || text[0] == '-') && text[1] >= '0' && text[1] <= '9' && text[2] >= '0' &&
           text[2] <= '9' && text[3] == ':' && text[4] >= '0' && text[4] <= '9' && text[5] >= '0' &&
           text[5] <= '9' && text[6] == '\0';
}

static void CPhotoLibExif_read_orientation(ExifData *exif, ExifByteOrder order, CPhotoLibExif_Info *info) {
    ExifEntry *entry = CPhotoLibExif_entry(exif, EXIF_IFD_0, EXIF_TAG_ORIENTATION);
    if (entry == NULL || entry->data == NULL || entry->format != EXIF_FORMAT_SHORT ||
        entry->components < 1 || entry->size < 2) {
        return;
    }
    ExifShort value = exif_get_short(entry->data, order);
    if (value >= 1 && value <= 8) {
        info->orientation = value;
        info->has_orientation = 1;
    }
}

static void CPhotoLibExif_read_custom_rendered(ExifData *exif, ExifByteOrder order, CPhotoLibExif_Info *info) {
    ExifEntry *entry = CPhotoLibExif_entry(exif, EXIF_IFD_EXIF, EXIF_TAG_CUSTOM_RENDERED);
    if (entry == NULL || entry->data == NULL || entry->format != EXIF_FORMAT_SHORT ||
        entry->components < 1 || entry->size < 2) {
        return;
    }
    info->custom_rendered = exif_get_short(entry->data, order);
    info->has_custom_rendered = 1;
}

static void CPhotoLibExif_read_dates(ExifData *exif, CPhotoLibExif_Info *info) {
    char text[32];
    ExifEntry *entry = CPhotoLibExif_entry(exif, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL);
    if (CPhotoLibExif_ascii(entry, text, sizeof text) == 19 && CPhotoLibExif_is_date_time(text)) {
        memcpy(info->date_time_original, text, 20);
        info->has_date_time_original = 1;
    }
    entry = CPhotoLibExif_entry(exif, EXIF_IFD_EXIF, CPhotoLibExif_TAG_OFFSET_TIME_ORIGINAL);
    if (CPhotoLibExif_ascii(entry, text, sizeof text) == 6 && CPhotoLibExif_is_offset(text)) {
        memcpy(info->offset_time_original, text, 7);
        info->has_offset_time_original = 1;
    }
}

static void CPhotoLibExif_read_gps(ExifData *exif, ExifByteOrder order, CPhotoLibExif_Info *info) {
    char latitude_ref[4], longitude_ref[4];
    double latitude, longitude;
    if (CPhotoLibExif_ascii(CPhotoLibExif_entry(exif, EXIF_IFD_GPS, EXIF_TAG_GPS_LATITUDE_REF),
                            latitude_ref, sizeof latitude_ref) < 1 ||
        CPhotoLibExif_ascii(CPhotoLibExif_entry(exif, EXIF_IFD_GPS, EXIF_TAG_GPS_LONGITUDE_REF),
                            longitude_ref, sizeof longitude_ref) < 1 ||
        !CPhotoLibExif_coordinate(CPhotoLibExif_entry(exif, EXIF_IFD_GPS, EXIF_TAG_GPS_LATITUDE),
                                  order, &latitude) ||
        !CPhotoLibExif_coordinate(CPhotoLibExif_entry(exif, EXIF_IFD_GPS, EXIF_TAG_GPS_LONGITUDE),
                                  order, &longitude)) {
        return;
    }
    if (latitude_ref[0] == 'S') {
        latitude = -latitude;
    } else if (latitude_ref[0] != 'N') {
        return;
    }
    if (longitude_ref[0] == 'W') {
        longitude = -longitude;
    } else if (longitude_ref[0] != 'E') {
        return;
    }
    if (latitude < -90.0 || latitude > 90.0 || longitude < -180.0 || longitude > 180.0) {
        return;
    }
    info->latitude = latitude;
    info->longitude = longitude;
    info->has_location = 1;

    double altitude;
    if (CPhotoLibExif_rational(CPhotoLibExif_entry(exif, EXIF_IFD_GPS, EXIF_TAG_GPS_ALTITUDE),
                               order, 0, &altitude) && isfinite(altitude)) {
        ExifEntry *ref = CPhotoLibExif_entry(exif, EXIF_IFD_GPS, EXIF_TAG_GPS_ALTITUDE_REF);
        if (ref != NULL && ref->data != NULL && ref->size >= 1 && ref->format == EXIF_FORMAT_BYTE &&
            ref->data[0] == 1) {
            altitude = -altitude;
        }
        info->altitude = altitude;
        info->has_altitude = 1;
    }
}

/* 1 when IFD0 has a non-empty Make or Model. */
static int CPhotoLibExif_has_camera(ExifData *exif) {
    char text[8];
    return CPhotoLibExif_ascii(CPhotoLibExif_entry(exif, EXIF_IFD_0, EXIF_TAG_MAKE), text, sizeof text) > 0 ||
           CPhotoLibExif_ascii(CPhotoLibExif_entry(exif, EXIF_IFD_0, EXIF_TAG_MODEL), text, sizeof text) > 0;
}

/* UserComment: an 8-byte character code, then the text (EXIF 2.32 §4.6.5, table 9). */
static void CPhotoLibExif_read_user_comment(ExifData *exif, ExifByteOrder order, CPhotoLibExif_Info *info) {
    ExifEntry *entry = CPhotoLibExif_entry(exif, EXIF_IFD_EXIF, EXIF_TAG_USER_COMMENT);
    if (entry == NULL || entry->data == NULL || entry->size <= 8) {
        return;
    }
    const unsigned char *code = entry->data, *text = entry->data + 8;
    size_t text_size = entry->size - 8, length = 0;
    static const unsigned char undefined[8] = {0};
    if (memcmp(code, "ASCII\0\0\0", 8) == 0 || memcmp(code, undefined, 8) == 0) {
        for (size_t i = 0; i < text_size && length + 1 < sizeof info->user_comment && text[i] != 0; i++) {
            info->user_comment[length++] = text[i] < 0x80 ? (char)text[i] : '?';
        }
    } else if (memcmp(code, "UNICODE\0", 8) == 0) {
        for (size_t i = 0; i + 1 < text_size && length + 1 < sizeof info->user_comment; i += 2) {
            unsigned unit = order == EXIF_BYTE_ORDER_MOTOROLA ? (unsigned)(text[i] << 8 | text[i + 1])
                                                              : (unsigned)(text[i + 1] << 8 | text[i]);
            if (unit == 0) {
                break;
            }
            info->user_comment[length++] = unit < 0x80 ? (char)unit : '?';
        }
    } else {
        return;
    }
    /* Trailing blanks pad fixed-size comments. */
    while (length > 0 && (info->user_comment[length - 1] == ' ' || info->user_comment[length - 1] == '\0')) {
        length--;
    }
    info->user_comment[length] = '\0';
    info->has_user_comment = length > 0;
}

/*
 * Apple's MakerNote: "Apple iOS\0", a 2-byte version, "MM" or "II", then a TIFF IFD at
 * offset 14 whose value offsets count from the MakerNote's start. Tag 0x0011 (ASCII) is
 * the content identifier. Every read is bounded by the entry's size.
 */
static void CPhotoLibExif_read_apple_maker_note(ExifData *exif, CPhotoLibExif_Info *info) {
    ExifEntry *entry = CPhotoLibExif_entry(exif, EXIF_IFD_EXIF, EXIF_TAG_MAKER_NOTE);
    if (entry == NULL || entry->data == NULL || entry->size < 16 || memcmp(entry->data, "Apple iOS\0", 10) != 0) {
        return;
    }
    const unsigned char *note = entry->data;
    size_t size = entry->size;
    ExifByteOrder order;
    if (note[12] == 'M' && note[13] == 'M') {
        order = EXIF_BYTE_ORDER_MOTOROLA;
    } else if (note[12] == 'I' && note[13] == 'I') {
        order = EXIF_BYTE_ORDER_INTEL;
    } else {
        return;
    }
    size_t count = exif_get_short(note + 14, order);
    for (size_t i = 0; i < count; i++) {
        size_t at = 16 + 12 * i;
        if (at + 12 > size) {
            return;
        }
        ExifShort tag = exif_get_short(note + at, order), format = exif_get_short(note + at + 2, order);
        ExifLong components = exif_get_long(note + at + 4, order);
        if (tag != 0x0011 || format != EXIF_FORMAT_ASCII || components == 0 ||
            components >= sizeof info->content_identifier) {
            continue;
        }
        size_t offset = components <= 4 ? at + 8 : exif_get_long(note + at + 8, order);
        if (offset > size || components > size - offset) {
            return;
        }
        size_t length = 0;
        while (length < components && note[offset + length] >= 0x20 && note[offset + length] < 0x7F) {
            info->content_identifier[length] = (char)note[offset + length];
            length++;
        }
        info->content_identifier[length] = '\0';
        info->has_content_identifier = length > 0;
        return;
    }
}

/* Parses an "Exif\0\0"-prefixed block with libexif and reads every field into `info`. */
static void CPhotoLibExif_read_payload(const uint8_t *payload, size_t payload_size, CPhotoLibExif_Info *info) {
    if (payload_size > 0xFFFFFFFFu) {
        return;
    }
    ExifData *exif = exif_data_new();
    if (exif == NULL) {
        return;
    }
    /* Read what is there: no "fixing" that would invent default tags. */
    exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_load_data(exif, payload, (unsigned int)payload_size);
    /* IFD0 may be empty apart from the sub-IFD pointers, which libexif consumes. */
    unsigned int entries = 0;
    for (int ifd = 0; ifd < EXIF_IFD_COUNT; ifd++) {
        entries += exif->ifd[ifd] != NULL ? exif->ifd[ifd]->count : 0;
    }
    if (entries > 0) {
        ExifByteOrder order = exif_data_get_byte_order(exif);
        info->has_exif = 1;
        CPhotoLibExif_read_orientation(exif, order, info);
        CPhotoLibExif_read_dates(exif, info);
        CPhotoLibExif_read_gps(exif, order, info);
        info->has_camera = CPhotoLibExif_has_camera(exif);
        CPhotoLibExif_read_user_comment(exif, order, info);
        CPhotoLibExif_read_apple_maker_note(exif, info);
        CPhotoLibExif_read_custom_rendered(exif, order, info);
    }
    exif_data_unref(exif);
}

static void CPhotoLibExif_reset(CPhotoLibExif_Info *info) {
    memset(info, 0, sizeof *info);
    info->orientation = 1;
}

void CPhotoLibExif_read(const uint8_t *data, size_t size, CPhotoLibExif_Info *info) {
    if (info == NULL) {
        return;
    }
    CPhotoLibExif_reset(info);
    const uint8_t *payload = NULL;
    size_t payload_size = 0;
    if (CPhotoLibExif_find_segment(data, size, &payload, &payload_size)) {
        CPhotoLibExif_read_payload(payload, payload_size, info);
    }
}

void CPhotoLibExif_read_tiff(const uint8_t *data, size_t size, CPhotoLibExif_Info *info) {
    if (info == NULL) {
        return;
    }
    CPhotoLibExif_reset(info);
    if (data == NULL || size < 8 || size > 0xFFFFFFF0u) {
        return;
    }
    if (size >= 14 && memcmp(data, "Exif\0\0", 6) == 0) {
        CPhotoLibExif_read_payload(data, size, info);
        return;
    }
    if (memcmp(data, "II*\0", 4) != 0 && memcmp(data, "MM\0*", 4) != 0) {
        return;
    }
    /* libexif wants the "Exif\0\0" header in front of the TIFF header. */
    uint8_t *payload = malloc(size + 6);
    if (payload == NULL) {
        return;
    }
    memcpy(payload, "Exif\0\0", 6);
    memcpy(payload + 6, data, size);
    CPhotoLibExif_read_payload(payload, size + 6, info);
    free(payload);
}

int CPhotoLibExif_thumbnail(const uint8_t *data, size_t size, size_t *offset, size_t *length) {
    if (offset == NULL || length == NULL) {
        return 0;
    }
    *offset = 0;
    *length = 0;
    const uint8_t *payload = NULL;
    size_t payload_size = 0;
    if (!CPhotoLibExif_find_segment(data, size, &payload, &payload_size)) {
        return 0;
    }
    ExifData *exif = exif_data_new();
    if (exif == NULL) {
        return 0;
    }
    exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION);
    exif_data_load_data(exif, payload, (unsigned int)payload_size);
    int found = 0;
    /* libexif copied the thumbnail out of the payload; find where the copy came from. */
    if (exif->data != NULL && exif->size >= 4 && exif->data[0] == 0xFF && exif->data[1] == 0xD8) {
        const uint8_t *at = memmem(payload, payload_size, exif->data, exif->size);
        if (at != NULL) {
            *offset = (size_t)(at - data);
            *length = exif->size;
            found = 1;
        }
    }
    exif_data_unref(exif);
    return found;
}
