/*
 * CPhotoLibHEIF: reads HEIF/HEIC headers, metadata and thumbnails, and decodes the primary
 * image with libheif, behind a C API that Swift can call safely.
 *
 * Why this is C and not Swift calling libheif:
 *  - Every libheif object (context, handles, images, decoding options) must be released on
 *    every path; one C function per session keeps that in one place, and returns a status
 *    code plus a message a person can read.
 *  - libheif 1.15 has no API for the primary item's transformative properties (irot,
 *    imir), which PhotoLib reports as an EXIF orientation; a small bounded box walker here
 *    reads them.
 *  - No libheif type appears in this header.
 *
 * Orientation: libheif applies irot/imir/clap when decoding, so decoded images are upright
 * and their size is the upright size. The EXIF Orientation tag inside a HEIF file is
 * ignored (HEIF's transform properties govern; iPhones write both, saying the same thing).
 *
 * Status codes and the pixel buffer are CPhotoLibJPEG's; a decoded image is a
 * CPhotoLibJPEG_Image, freed with CPhotoLibJPEG_image_free.
 * Every symbol carries the CPhotoLibHEIF_ prefix.
 */
#ifndef CPHOTOLIBHEIF_H
#define CPHOTOLIBHEIF_H

#include <stddef.h>
#include <stdint.h>

#include "CPhotoLibJPEG.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest EXIF block copied out of a file (iPhone blocks are a few KB). */
#define CPhotoLibHEIF_MAX_EXIF_BYTES ((size_t)1 << 20)
/* Most transform properties reported for the primary item. */
#define CPhotoLibHEIF_MAX_TRANSFORMS 4

/* One transform property of the primary image, in the order the file lists them. */
typedef struct CPhotoLibHEIF_Transform {
    /* 1: rotation anticlockwise by 90° × `value` (irot); 2: mirror (imir), `value` 0 about
     * a vertical axis (left and right swap), 1 about a horizontal axis (top and bottom). */
    int32_t kind;
    int32_t value;
} CPhotoLibHEIF_Transform;

/* What a HEIF file's boxes say about its primary image, without decoding pixels. */
typedef struct CPhotoLibHEIF_Info {
    /* Upright size (transforms applied), as decoded. */
    uint32_t width;
    uint32_t height;
    /* Stored size from the 'ispe' property (before transforms). */
    uint32_t stored_width;
    uint32_t stored_height;
    /* Non-zero when the primary image has an alpha plane. */
    int32_t has_alpha;
    /* Luma bit depth (8 for most photos, 10 for HDR captures). */
    int32_t luma_bits;
    /* Upright size of the largest thumbnail of the primary image (0 × 0: none). */
    uint32_t thumbnail_width;
    uint32_t thumbnail_height;
    /* The primary image's irot/imir properties, in order (transform_count of them). */
    int32_t transform_count;
    CPhotoLibHEIF_Transform transforms[CPhotoLibHEIF_MAX_TRANSFORMS];
    /* The first "Exif" metadata block, from its TIFF header on (its 4-byte offset prefix
     * skipped), malloc'd; free with CPhotoLibHEIF_buffer_free. NULL/0 when absent. */
    uint8_t *exif;
    size_t exif_size;
} CPhotoLibHEIF_Info;

/*
 * Parses the file's boxes with libheif and fills `info` (primary image only; no pixel
 * decode). Applies max_input_bytes, libheif's image size limit, and max_pixels. Fails with
 * CPhotoLibJPEG_NOT_JPEG when the bytes are not an ISO-BMFF file with a HEIF brand.
 * `info->exif` must be freed by the caller, on success only (it is NULL on failure).
 */
int CPhotoLibHEIF_read_header(const uint8_t *data, size_t size,
                              const CPhotoLibJPEG_Limits *limits,
                              CPhotoLibHEIF_Info *info,
                              char *message, size_t message_capacity);

/* CPhotoLibHEIF_decode flags. */
/* Decode the largest thumbnail item instead of the primary image. */
#define CPhotoLibHEIF_DECODE_THUMBNAIL 1u
/* Let libheif convert YCbCr to RGB for the whole image (the reference the faster row-by-row
 * conversion is tested against). */
#define CPhotoLibHEIF_DECODE_LIBHEIF_RGB 2u
/* Ask libheif for YCbCr 4:2:0 and convert it here. libheif 1.15 answers an undefined target
 * with planar RGB, later versions with the coded YCbCr planes: this flag lets tests exercise
 * the YCbCr conversion on any version. */
#define CPhotoLibHEIF_DECODE_YCBCR_420 4u

/*
 * Decodes the primary image (or, with CPhotoLibHEIF_DECODE_THUMBNAIL, its largest thumbnail)
 * upright, to 8-bit RGB (3 components), compositing alpha over white (HDR images are
 * reduced to 8 bits), box-shrunk by `shrink` row by row (1: full size; see
 * CPhotoLibJPEG_Shrinker). 8-bit images without alpha are decoded to libheif's native
 * colour space and interleaved (planar RGB) or converted (YCbCr: nearest chroma sample, the
 * nclx matrix and range, as libheif does) row by row; others are converted by libheif. Strict decoding: damage in the coded data is an error, not a
 * warning. The pixel count and a memory estimate are checked before libheif decodes;
 * `control` (may be NULL) is checked before the parse, before the decode and after it
 * (libheif 1.15 cannot be interrupted inside a decode). If `image` is NULL the pixels are
 * discarded (validation).
 */
int CPhotoLibHEIF_decode(const uint8_t *data, size_t size,
                         const CPhotoLibJPEG_Limits *limits,
                         CPhotoLibJPEG_Control *control,
                         uint32_t flags,
                         uint32_t shrink,
                         CPhotoLibJPEG_Image *image,
                         char *message, size_t message_capacity);

/* Frees a buffer returned by this library. NULL is allowed. */
void CPhotoLibHEIF_buffer_free(uint8_t *buffer);

#ifdef __cplusplus
}
#endif

#endif /* CPHOTOLIBHEIF_H */
