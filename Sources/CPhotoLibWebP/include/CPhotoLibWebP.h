/*
 * CPhotoLibWebP: reads WebP headers and decodes still WebP images with libwebp, behind a
 * C API that Swift can call safely.
 *
 * Why this is C and not Swift calling libwebp:
 *  - WebPGetFeatures, WebPInitDecoderConfig and WebPIDecode's configuration are static
 *    inline functions over versioned ABI structs; keeping them here keeps the ABI version
 *    check in one compiled place.
 *  - The incremental decoder (WebPIDecode/WebPIAppend) lets us feed the input in slices
 *    and check cancellation between them; doing that here keeps every libwebp object freed
 *    on every path in one function.
 *  - No libwebp type appears in this header.
 *
 * Status codes and the pixel buffer are CPhotoLibJPEG's; a decoded image is a
 * CPhotoLibJPEG_Image, freed with CPhotoLibJPEG_image_free.
 * Every symbol carries the CPhotoLibWebP_ prefix.
 */
#ifndef CPHOTOLIBWEBP_H
#define CPHOTOLIBWEBP_H

#include <stddef.h>
#include <stdint.h>

#include "CPhotoLibJPEG.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a WebP file's headers say, without decoding pixels. */
typedef struct CPhotoLibWebP_Info {
    uint32_t width;
    uint32_t height;
    /* Non-zero when the image has an alpha channel. */
    int32_t has_alpha;
    /* Non-zero for animated files (refused by CPhotoLibWebP_decode). */
    int32_t is_animated;
    /* Non-zero for lossless (VP8L) images. */
    int32_t is_lossless;
    /* Byte range of the EXIF chunk's data inside the input (exif_size 0: none). */
    size_t exif_offset;
    size_t exif_size;
    /* Byte range of the "XMP " chunk's data (xmp_size 0: none). */
    size_t xmp_offset;
    size_t xmp_size;
} CPhotoLibWebP_Info;

/*
 * Reads the RIFF container and the bitstream header. Applies max_input_bytes and
 * max_pixels. Fails with CPhotoLibJPEG_NOT_JPEG when the bytes are not RIFF/WEBP, with
 * CPhotoLibJPEG_TRUNCATED when they end inside the headers.
 */
int CPhotoLibWebP_read_header(const uint8_t *data, size_t size,
                              const CPhotoLibJPEG_Limits *limits,
                              CPhotoLibWebP_Info *info,
                              char *message, size_t message_capacity);

/*
 * Decodes a still WebP to 8-bit RGB (3 components), compositing alpha over white, then
 * box-shrinks it by `shrink` (1: full size; see CPhotoLibJPEG_Shrinker).
 * Animated files fail with CPhotoLibJPEG_UNSUPPORTED. The input is fed to libwebp's
 * incremental decoder in 64 KiB slices, and `control` (may be NULL) is polled between
 * slices. Pixel count and buffer size are checked before allocating. A file that ends
 * before the image is complete, or before the size its RIFF header declares (trailing
 * metadata chunks cut off), fails with CPhotoLibJPEG_TRUNCATED, a damaged bitstream
 * with CPhotoLibJPEG_CORRUPT. If `image` is NULL the pixels are discarded (validation).
 */
int CPhotoLibWebP_decode(const uint8_t *data, size_t size,
                         const CPhotoLibJPEG_Limits *limits,
                         CPhotoLibJPEG_Control *control,
                         uint32_t shrink,
                         CPhotoLibWebP_Info *info,
                         CPhotoLibJPEG_Image *image,
                         char *message, size_t message_capacity);

#ifdef __cplusplus
}
#endif

#endif /* CPHOTOLIBWEBP_H */
