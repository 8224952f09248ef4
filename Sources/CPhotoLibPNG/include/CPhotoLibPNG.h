/*
 * CPhotoLibPNG: reads PNG headers and decodes PNG images with libpng, behind a C API that
 * Swift can call safely.
 *
 * Why Swift cannot call libpng directly:
 *  - libpng reports errors through png_error(), which longjmp()s back to a setjmp() in the
 *    caller (its default handler aborts). Swift cannot set or survive a longjmp, so every
 *    libpng session (create → read → destroy) lives inside one C function guarded by
 *    setjmp(), and returns a status code plus a message a person can read.
 *  - png_jmpbuf() is a macro and does not import.
 *  - No libpng type appears in this header.
 *
 * Status codes and the pixel buffer are CPhotoLibJPEG's (the imaging pipeline's shared
 * vocabulary): a decoded image is a CPhotoLibJPEG_Image, freed with CPhotoLibJPEG_image_free.
 * Every symbol carries the CPhotoLibPNG_ prefix.
 */
#ifndef CPHOTOLIBPNG_H
#define CPHOTOLIBPNG_H

#include <stddef.h>
#include <stdint.h>

#include "CPhotoLibJPEG.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a PNG's IHDR and ancillary chunks say, without decoding pixels. */
typedef struct CPhotoLibPNG_Info {
    uint32_t width;
    uint32_t height;
    /* Bit depth per sample as stored (1, 2, 4, 8, 16). */
    int32_t bit_depth;
    /* Non-zero for gray and gray+alpha images (decoded as 1 component). */
    int32_t is_gray;
    /* Non-zero when the image has an alpha channel or a tRNS transparency chunk. */
    int32_t has_alpha;
    /* Non-zero for Adam7-interlaced images. */
    int32_t is_interlaced;
    /* Byte range of the first eXIf chunk's data inside the input (exif_size 0: none).
     * Found by walking the chunk list, so an eXIf after the image data counts too. */
    size_t exif_offset;
    size_t exif_size;
    /* Byte range of the text of the first iTXt chunk keyed "XML:com.adobe.xmp"
     * (uncompressed only; xmp_size 0: none). */
    size_t xmp_offset;
    size_t xmp_size;
} CPhotoLibPNG_Info;

/*
 * Reads the signature, IHDR and the chunks before the image data with libpng (CRCs
 * checked), and walks the chunk list for eXIf/iTXt. Applies max_input_bytes and
 * max_pixels (before any pixel memory exists). Fails with CPhotoLibJPEG_NOT_JPEG when the
 * bytes do not start with the PNG signature.
 */
int CPhotoLibPNG_read_header(const uint8_t *data, size_t size,
                             const CPhotoLibJPEG_Limits *limits,
                             CPhotoLibPNG_Info *info,
                             char *message, size_t message_capacity);

/*
 * Decodes the whole image to 8-bit gray (1 component) or RGB (3), compositing any alpha
 * (or tRNS transparency) over white; 16-bit samples are reduced to 8, palettes expanded.
 * Rows are box-shrunk by `shrink` (1: full size; see CPhotoLibJPEG_Shrinker) as they are
 * decoded, so a non-interlaced PNG never needs a full-size buffer (an interlaced one does).
 * Reads to the IEND chunk, so a file cut anywhere fails with CPhotoLibJPEG_TRUNCATED and a
 * bad CRC or zlib stream with CPhotoLibJPEG_CORRUPT. The pixel count is checked against
 * max_pixels and the buffers against max_memory_bytes before allocating. `control`
 * (may be NULL) is polled once per row of every pass.
 * If `image` is NULL the rows are decoded and discarded (validation). On failure `image`
 * is left zeroed. `info` (may be NULL) receives the header.
 */
int CPhotoLibPNG_decode(const uint8_t *data, size_t size,
                        const CPhotoLibJPEG_Limits *limits,
                        CPhotoLibJPEG_Control *control,
                        uint32_t shrink,
                        CPhotoLibPNG_Info *info,
                        CPhotoLibJPEG_Image *image,
                        char *message, size_t message_capacity);

#ifdef __cplusplus
}
#endif

#endif /* CPHOTOLIBPNG_H */
