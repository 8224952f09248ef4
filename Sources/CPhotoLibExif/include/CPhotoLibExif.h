/*
 * CPhotoLibExif: reads the few EXIF fields PhotoLib needs — from JPEG bytes, or from a bare
 * EXIF (TIFF) block as HEIF, PNG and WebP carry it — into a plain C struct, using libexif.
 *
 * Why Swift does not call libexif directly:
 *  - libexif's lookup helper exif_data_get_entry is a macro (does not import), and it
 *    searches every IFD in turn, which is wrong for GPS tags: GPS tags 1...6 share
 *    numbers with the Interoperability IFD's tags. We look up each tag in its own IFD.
 *  - Entries are raw byte buffers whose format, component count and byte order must be
 *    checked before reading; doing it once here keeps unchecked pointer reads out of
 *    Swift, and keeps every libexif allocation freed on every path in one function.
 *  - No libexif type appears in this header.
 *
 * Malformed EXIF never fails or crashes: unreadable fields are reported as absent.
 * Every symbol carries the CPhotoLibExif_ prefix.
 */
#ifndef CPHOTOLIBEXIF_H
#define CPHOTOLIBEXIF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The EXIF fields PhotoLib reads. Every has_ flag is 0 or 1. */
typedef struct CPhotoLibExif_Info {
    /* 1 when an APP1 "Exif" segment was found and libexif could parse it. */
    int32_t has_exif;
    /* 1 when IFD0 holds a valid Orientation (1...8). */
    int32_t has_orientation;
    /* EXIF orientation 1...8; 1 when absent or invalid. */
    int32_t orientation;
    /* 1 when DateTimeOriginal is present and shaped "YYYY:MM:DD HH:MM:SS". */
    int32_t has_date_time_original;
    /* DateTimeOriginal text, NUL-terminated ("YYYY:MM:DD HH:MM:SS"). */
    char date_time_original[20];
    /* 1 when OffsetTimeOriginal is present and shaped "+HH:MM" / "-HH:MM". */
    int32_t has_offset_time_original;
    /* OffsetTimeOriginal text, NUL-terminated ("+HH:MM"). */
    char offset_time_original[7];
    /* 1 when GPS latitude and longitude (with their N/S/E/W refs) are valid. */
    int32_t has_location;
    /* Signed decimal degrees: south and west are negative. */
    double latitude;
    double longitude;
    /* 1 when GPSAltitude is valid (only meaningful with has_location). */
    int32_t has_altitude;
    /* Metres; negative below sea level (GPSAltitudeRef 1). */
    double altitude;
    /* 1 when IFD0 has a non-empty Make or Model (a camera, not a screenshot or an editor). */
    int32_t has_camera;
    /* 1 when the EXIF UserComment holds ASCII-representable text (ASCII, undefined or
     * UNICODE character code); its text, NUL-terminated, truncated to 63 bytes. */
    int32_t has_user_comment;
    char user_comment[64];
    /* 1 when an Apple MakerNote ("Apple iOS") holds tag 0x0011, ContentIdentifier: the
     * identifier shared by the still and the video of a Live Photo. NUL-terminated. */
    int32_t has_content_identifier;
    char content_identifier[64];
    /* 1 when the EXIF IFD holds CustomRendered (0xA401, SHORT): 0 normal, 1 custom; iPhones
     * also write 2/3 HDR, 4 the original of an HDR, 6 panorama, 7 portrait HDR, 8 portrait. */
    int32_t has_custom_rendered;
    int32_t custom_rendered;
} CPhotoLibExif_Info;

/*
 * Finds the first APP1 "Exif" segment of the JPEG in data[0..<size] (scanning markers
 * from SOI up to the first SOS) and reads it into `info`. Always fills `info`
 * (zeroed, orientation 1, when there is no usable EXIF). Never fails.
 */
void CPhotoLibExif_read(const uint8_t *data, size_t size, CPhotoLibExif_Info *info);

/*
 * Reads a bare EXIF block — a TIFF header ("II*\0" / "MM\0*") and its IFDs, optionally
 * preceded by "Exif\0\0" — as found in a HEIF 'Exif' item or a PNG eXIf chunk, into
 * `info`, like CPhotoLibExif_read. Never fails.
 */
void CPhotoLibExif_read_tiff(const uint8_t *data, size_t size, CPhotoLibExif_Info *info);

/*
 * Finds the embedded thumbnail (IFD1's JPEGInterchangeFormat) of the first APP1 "Exif"
 * segment. Returns 1 and sets *offset and *length to its byte range inside data[0..<size]
 * when there is one that starts with a JPEG SOI marker; 0 otherwise. Never fails.
 */
int CPhotoLibExif_thumbnail(const uint8_t *data, size_t size, size_t *offset, size_t *length);

#ifdef __cplusplus
}
#endif

#endif /* CPHOTOLIBEXIF_H */
