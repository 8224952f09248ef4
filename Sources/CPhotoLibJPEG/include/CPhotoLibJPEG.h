/*
 * CPhotoLibJPEG: libjpeg-turbo decode/encode sessions, a resampler and the EXIF
 * orientation transforms, behind a small C API that Swift can call safely.
 *
 * Why Swift cannot call libjpeg directly:
 *  - libjpeg reports fatal errors through error_exit(), whose default calls exit().
 *    The only way to regain control is longjmp() out of the library, which Swift
 *    cannot do (and cannot survive being jumped over). So every libjpeg session
 *    (create → read/write → destroy) lives entirely inside one C function guarded by
 *    setjmp(), and returns a status code plus a message a person can read.
 *  - jpeg_create_decompress / jpeg_create_compress are macros and do not import.
 *  - jpeglib.h needs <stddef.h> and <stdio.h> before it; this header does not include
 *    jpeglib.h at all, so no libjpeg type leaks into Swift.
 *
 * Pixel work (resampling, orientation) is in C too: Swift test builds are debug builds,
 * and per-pixel loops in unoptimised Swift are far too slow for 16-megapixel photos.
 *
 * Every symbol carries the CPhotoLibJPEG_ prefix.
 */
#ifndef CPHOTOLIBJPEG_H
#define CPHOTOLIBJPEG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MARK: Status codes (returned by every function below). */

/* Success. */
#define CPhotoLibJPEG_OK 0
/* The bytes are not a JPEG stream (empty, or no SOI marker). */
#define CPhotoLibJPEG_NOT_JPEG 1
/* The stream ends before the image is complete. */
#define CPhotoLibJPEG_TRUNCATED 2
/* The stream is damaged (bad markers, bad Huffman codes, any libjpeg warning). */
#define CPhotoLibJPEG_CORRUPT 3
/* A configured limit (pixels, input bytes, memory, scans) refuses the image. */
#define CPhotoLibJPEG_TOO_LARGE 4
/* A valid JPEG this library does not handle (12-bit, unknown colour space, ...). */
#define CPhotoLibJPEG_UNSUPPORTED 5
/* The caller passed an invalid argument (size, quality, orientation, NULL). */
#define CPhotoLibJPEG_INVALID_ARGUMENT 6
/* Out of memory or an unexpected library state. */
#define CPhotoLibJPEG_INTERNAL 7

/* Size of the message buffers callers pass in (longer messages are truncated). */
#define CPhotoLibJPEG_MESSAGE_CAPACITY 320

/* MARK: Limits */

/* Limits applied to every decode, checked before the corresponding allocation. */
typedef struct CPhotoLibJPEG_Limits {
    /* Maximum width * height declared in the frame header (SOF). */
    uint64_t max_pixels;
    /* Maximum size of the compressed input. */
    uint64_t max_input_bytes;
    /* Maximum memory for libjpeg (max_memory_to_use) and for our pixel buffers. */
    uint64_t max_memory_bytes;
    /* Maximum number of scans (SOS markers); progressive files have ~10 normally. */
    uint32_t max_scans;
} CPhotoLibJPEG_Limits;

/* MARK: Headers */

/* What the frame header says about a JPEG stream. */
typedef struct CPhotoLibJPEG_HeaderInfo {
    /* Stored (unrotated) dimensions from the SOF marker. */
    uint32_t width;
    uint32_t height;
    /* Number of colour components in the stream (1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK). */
    int32_t components;
    /* Non-zero when the stream is progressive (SOF2 / SOF10). */
    int32_t is_progressive;
    /* Non-zero when the stream is CMYK or YCCK (decoded to RGB by this library). */
    int32_t is_cmyk;
} CPhotoLibJPEG_HeaderInfo;

/*
 * Reads the markers up to the first scan (no entropy decode) and fills `info`.
 * Applies max_input_bytes and max_pixels; refuses unsupported colour spaces.
 * `message` receives a readable explanation on failure (capacity `message_capacity`).
 */
int CPhotoLibJPEG_read_header(const uint8_t *data, size_t size,
                              const CPhotoLibJPEG_Limits *limits,
                              CPhotoLibJPEG_HeaderInfo *info,
                              char *message, size_t message_capacity);

/* MARK: Pixel buffers */

/*
 * An interleaved 8-bit pixel buffer owned by this library: 1 component (gray) or
 * 3 (RGB), rows of width*components bytes, no padding. Release with
 * CPhotoLibJPEG_image_free (which tolerates an already-freed or zeroed image).
 */
typedef struct CPhotoLibJPEG_Image {
    uint8_t *pixels;
    uint32_t width;
    uint32_t height;
    uint32_t components;
} CPhotoLibJPEG_Image;

/* Frees the pixels of `image` (if any) and zeroes it. */
void CPhotoLibJPEG_image_free(CPhotoLibJPEG_Image *image);

/*
 * Allocates a zeroed image of the given size (components 1, 3 or 4).
 * Used by callers that build pixels themselves (tests, encoders of synthetic images).
 */
int CPhotoLibJPEG_image_alloc(uint32_t width, uint32_t height, uint32_t components,
                              CPhotoLibJPEG_Image *image,
                              char *message, size_t message_capacity);

/* MARK: Decoding */

/*
 * Decodes the whole stream with DCT scaling scale_num/8 (scale_num 1...8).
 *
 * Output is gray (1 component) for grayscale streams and RGB (3) for everything else;
 * CMYK and YCCK (Adobe inverted or not) are converted to RGB here.
 * Any libjpeg warning (premature end of data, corrupt data, ...) fails the decode,
 * except the two that concern metadata only (unknown JFIF revision, unknown Adobe
 * transform). The scan count is limited by limits->max_scans.
 *
 * If `image` is NULL the scanlines are decoded and discarded (validation only).
 * `info` (may be NULL) receives the header. On failure `image` is left zeroed.
 */
int CPhotoLibJPEG_decode(const uint8_t *data, size_t size,
                         const CPhotoLibJPEG_Limits *limits,
                         uint32_t scale_num,
                         CPhotoLibJPEG_HeaderInfo *info,
                         CPhotoLibJPEG_Image *image,
                         char *message, size_t message_capacity);

/*
 * The size libjpeg produces for a dimension at DCT scale scale_num/8:
 * ceil(dimension * scale_num / 8).
 */
uint32_t CPhotoLibJPEG_scaled_dimension(uint32_t dimension, uint32_t scale_num);

/* MARK: Encoding */

/*
 * Encodes `image` (1 component gray, 3 RGB, or 4 CMYK written with an Adobe marker
 * in Adobe's inverted convention) as a baseline JPEG at `quality` (1...100, 4:2:0
 * chroma subsampling for colour). On success `*output` is a malloc'd buffer of
 * `*output_size` bytes; release it with CPhotoLibJPEG_buffer_free.
 */
int CPhotoLibJPEG_encode(const CPhotoLibJPEG_Image *image, int quality,
                         uint8_t **output, size_t *output_size,
                         char *message, size_t message_capacity);

/* Frees a buffer returned by CPhotoLibJPEG_encode. NULL is allowed. */
void CPhotoLibJPEG_buffer_free(uint8_t *buffer);

/* MARK: Resampling */

/*
 * Resizes `source` to width x height with a separable Lanczos-3 filter whose support is
 * widened by the scale factor when downscaling (so every source pixel contributes:
 * proper antialiasing). Upscaling uses the plain Lanczos-3 kernel.
 * `max_memory_bytes` bounds the intermediate + output buffers (0 = no limit).
 * `destination` must be zeroed; it receives a new image owned by the caller.
 */
int CPhotoLibJPEG_resample(const CPhotoLibJPEG_Image *source,
                           uint32_t width, uint32_t height,
                           uint64_t max_memory_bytes,
                           CPhotoLibJPEG_Image *destination,
                           char *message, size_t message_capacity);

/* MARK: Orientation */

/*
 * Applies EXIF orientation `orientation` (1...8) so the result is upright:
 * 1 identity, 2 mirror horizontally, 3 rotate 180°, 4 mirror vertically,
 * 5 transpose, 6 rotate 90° clockwise, 7 transverse, 8 rotate 90° counter-clockwise.
 * For 5...8 the destination is height x width. `destination` must be zeroed.
 */
int CPhotoLibJPEG_orient(const CPhotoLibJPEG_Image *source, int orientation,
                         CPhotoLibJPEG_Image *destination,
                         char *message, size_t message_capacity);

#ifdef __cplusplus
}
#endif

#endif /* CPHOTOLIBJPEG_H */
