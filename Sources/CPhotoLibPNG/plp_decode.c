/*
 * PNG header reading and decoding with libpng, every session inside one setjmp()-guarded
 * function. See CPhotoLibPNG.h for why this is C.
 *
 * Related libpng documentation: libpng-manual.txt, "Setting up error handling" (setjmp,
 * png_jmpbuf), "Setting up custom input" (png_set_read_fn), "Input transformations"
 * (png_set_strip_16, png_set_palette_to_rgb, png_set_tRNS_to_alpha), "Reading image data"
 * (png_read_row, png_set_interlace_handling), "Memory limits" (png_set_chunk_malloc_max).
 */
#include "include/CPhotoLibPNG.h"

#include <png.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ancillary chunks (iCCP, zTXt, iTXt, eXIf, unknown) may not make libpng allocate more. */
#define CPhotoLibPNG_CHUNK_MALLOC_MAX ((png_alloc_size_t)16 << 20)
/* Unknown and sPLT chunks kept in memory at most. */
#define CPhotoLibPNG_CHUNK_CACHE_MAX 128

/* One session's state, reachable from libpng's callbacks through png_get_error_ptr / io_ptr. */
typedef struct CPhotoLibPNG_Session {
    const uint8_t *data;
    size_t size;
    size_t position;
    /* Set when the reader ran out of bytes: the failure is truncation, not damage. */
    int truncated;
    /* Set when a limit (not libpng) refused the image. */
    int status;
    char text[200];
} CPhotoLibPNG_Session;

static void CPhotoLibPNG_error(png_structp png, png_const_charp text) {
    CPhotoLibPNG_Session *session = png_get_error_ptr(png);
    if (session != NULL && session->text[0] == '\0') {
        snprintf(session->text, sizeof session->text, "%s", text != NULL ? text : "libpng error");
    }
    png_longjmp(png, 1);
}

/* Warnings concern ancillary data libpng already skipped (bad iCCP, bad ancillary CRC). */
static void CPhotoLibPNG_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

static void CPhotoLibPNG_read(png_structp png, png_bytep out, png_size_t length) {
    CPhotoLibPNG_Session *session = png_get_io_ptr(png);
    if (length > session->size - session->position) {
        session->truncated = 1;
        png_error(png, "the PNG data ends early");
    }
    memcpy(out, session->data + session->position, length);
    session->position += length;
}

static uint32_t CPhotoLibPNG_be32(const uint8_t *bytes) {
    return ((uint32_t)bytes[0] << 24) | ((uint32_t)bytes[1] << 16) | ((uint32_t)bytes[2] << 8) | bytes[3];
}

/* Walks the chunk list (lengths bounded by the input) for eXIf and XMP iTXt. */
static void CPhotoLibPNG_find_metadata(const uint8_t *data, size_t size, CPhotoLibPNG_Info *info) {
    static const char xmp_key[] = "XML:com.adobe.xmp";
    size_t position = 8;
    while (position + 12 <= size) {
        uint32_t length = CPhotoLibPNG_be32(data + position);
        const uint8_t *type = data + position + 4;
        if (length > 0x7FFFFFFFu || (size_t)length > size - position - 12) {
            return;
        }
        const uint8_t *chunk = data + position + 8;
        if (memcmp(type, "eXIf", 4) == 0 && info->exif_size == 0 && length > 0) {
            info->exif_offset = (size_t)(chunk - data);
            info->exif_size = length;
        } else if (memcmp(type, "iTXt", 4) == 0 && info->xmp_size == 0 && length >= sizeof xmp_key + 2 &&
                   memcmp(chunk, xmp_key, sizeof xmp_key) == 0 && chunk[sizeof xmp_key] == 0) {
            /* keyword\0, compression flag, method, language\0, translated keyword\0, text */
            size_t at = sizeof xmp_key + 2;
            for (int field = 0; field < 2 && at < length; field++) {
                while (at < length && chunk[at] != 0) {
                    at++;
                }
                at++;
            }
            if (at <= length) {
                info->xmp_offset = (size_t)(chunk - data) + at;
                info->xmp_size = length - at;
            }
        } else if (memcmp(type, "IEND", 4) == 0) {
            return;
        }
        position += 12 + (size_t)length;
    }
}

/* Classifies a failed session. */
static int CPhotoLibPNG_failure(const CPhotoLibPNG_Session *session, char *message, size_t capacity) {
    if (session->status != CPhotoLibJPEG_OK) {
        CPhotoLibJPEG_format_message(message, capacity, "%s", session->text);
        return session->status;
    }
    if (session->truncated) {
        CPhotoLibJPEG_format_message(message, capacity, "truncated PNG data: the file ends after %zu bytes",
                                 session->size);
        return CPhotoLibJPEG_TRUNCATED;
    }
    if (strstr(session->text, "memory") != NULL && strstr(session->text, "chunk") == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "PNG decode failed: %s", session->text);
        return CPhotoLibJPEG_INTERNAL;
    }
    CPhotoLibJPEG_format_message(message, capacity, "corrupt PNG data: %s", session->text);
    return CPhotoLibJPEG_CORRUPT;
}

/* Fails inside the setjmp scope with a status of ours (a limit, cancellation). */
static void CPhotoLibPNG_refuse(png_structp png, CPhotoLibPNG_Session *session, int status, const char *format, ...) {
    session->status = status;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(session->text, sizeof session->text, format, arguments);
    va_end(arguments);
    png_longjmp(png, 1);
}

static int CPhotoLibPNG_check_input(const uint8_t *data, size_t size, const CPhotoLibJPEG_Limits *limits,
                                    char *message, size_t capacity) {
    if (limits == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "PNG: missing limits");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    if (data == NULL || size < 8 || png_sig_cmp(data, 0, 8) != 0) {
        CPhotoLibJPEG_format_message(message, capacity, "not a PNG file (no PNG signature in the first 8 bytes)");
        return CPhotoLibJPEG_NOT_JPEG;
    }
    if ((uint64_t)size > limits->max_input_bytes) {
        CPhotoLibJPEG_format_message(message, capacity, "PNG input of %zu bytes exceeds the limit of %llu bytes", size,
                                 (unsigned long long)limits->max_input_bytes);
        return CPhotoLibJPEG_TOO_LARGE;
    }
    return CPhotoLibJPEG_OK;
}

/* Composites `count` pixels of `channels` samples (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA) over
 * white into 1 or 3 components, in place (the output never overtakes the input). */
static void CPhotoLibPNG_flatten(uint8_t *pixels, size_t count, int channels) {
    if (channels == 2) {
        for (size_t i = 0; i < count; i++) {
            unsigned value = pixels[2 * i], alpha = pixels[2 * i + 1];
            pixels[i] = (uint8_t)((value * alpha + 255u * (255u - alpha) + 127u) / 255u);
        }
    } else if (channels == 4) {
        for (size_t i = 0; i < count; i++) {
            unsigned alpha = pixels[4 * i + 3];
            for (int c = 0; c < 3; c++) {
                unsigned value = pixels[4 * i + c];
                pixels[3 * i + c] = (uint8_t)((value * alpha + 255u * (255u - alpha) + 127u) / 255u);
            }
        }
    }
}

/* One setjmp-guarded session: header, then (when decode is set) the rows and the end. */
static int CPhotoLibPNG_session(const uint8_t *data, size_t size, const CPhotoLibJPEG_Limits *limits,
                                CPhotoLibJPEG_Control *control, int decode, uint32_t shrink, CPhotoLibPNG_Info *info,
                                CPhotoLibJPEG_Image *image, char *message, size_t capacity) {
    CPhotoLibPNG_Session session;
    memset(&session, 0, sizeof session);
    session.data = data;
    session.size = size;
    session.status = CPhotoLibJPEG_OK;
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &session, CPhotoLibPNG_error,
                                             CPhotoLibPNG_warning);
    if (png == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "PNG: out of memory creating the decoder");
        return CPhotoLibJPEG_INTERNAL;
    }
    png_infop png_info = png_create_info_struct(png);
    if (png_info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        CPhotoLibJPEG_format_message(message, capacity, "PNG: out of memory creating the decoder");
        return CPhotoLibJPEG_INTERNAL;
    }
    /* Everything libpng allocates is freed by png_destroy_read_struct; ours is below. */
    uint8_t *volatile pixels = NULL;
    uint8_t *volatile row = NULL;
    CPhotoLibJPEG_Shrinker *volatile shrinker = NULL;
    if (setjmp(png_jmpbuf(png))) {
        free(pixels);
        free(row);
        if (shrinker != NULL) {
            CPhotoLibJPEG_shrinker_free(shrinker);
            free(shrinker);
        }
        png_destroy_read_struct(&png, &png_info, NULL);
        return CPhotoLibPNG_failure(&session, message, capacity);
    }
    png_set_read_fn(png, &session, CPhotoLibPNG_read);
    png_set_chunk_malloc_max(png, CPhotoLibPNG_CHUNK_MALLOC_MAX);
    png_set_chunk_cache_max(png, CPhotoLibPNG_CHUNK_CACHE_MAX);
    png_read_info(png, png_info);

    png_uint_32 width = 0, height = 0;
    int bit_depth = 0, color_type = 0, interlace = 0;
    png_get_IHDR(png, png_info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    uint64_t pixel_count = (uint64_t)width * height;
    if (width == 0 || height == 0) {
        CPhotoLibPNG_refuse(png, &session, CPhotoLibJPEG_CORRUPT, "corrupt PNG data: image size %ux%u", width, height);
    }
    if (pixel_count > limits->max_pixels) {
        CPhotoLibPNG_refuse(png, &session, CPhotoLibJPEG_TOO_LARGE,
                            "PNG image of %ux%u (%llu pixels) exceeds the limit of %llu pixels", width, height,
                            (unsigned long long)pixel_count, (unsigned long long)limits->max_pixels);
    }
    int is_gray = (color_type & PNG_COLOR_MASK_COLOR) == 0;
    int has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(png, png_info, PNG_INFO_tRNS) != 0;
    if (info != NULL) {
        memset(info, 0, sizeof *info);
        info->width = width;
        info->height = height;
        info->bit_depth = bit_depth;
        info->is_gray = is_gray;
        info->has_alpha = has_alpha;
        info->is_interlaced = interlace != PNG_INTERLACE_NONE;
        CPhotoLibPNG_find_metadata(data, size, info);
    }
    if (!decode) {
        png_destroy_read_struct(&png, &png_info, NULL);
        return CPhotoLibJPEG_OK;
    }

    if (bit_depth == 16) {
        png_set_strip_16(png);
    }
    if (color_type == PNG_COLOR_TYPE_PALETTE) {
        png_set_palette_to_rgb(png);
    }
    if (is_gray && bit_depth < 8) {
        png_set_expand_gray_1_2_4_to_8(png);
    }
    if (png_get_valid(png, png_info, PNG_INFO_tRNS)) {
        png_set_tRNS_to_alpha(png);
    }
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, png_info);
    int channels = png_get_channels(png, png_info);
    size_t row_bytes = png_get_rowbytes(png, png_info);
    if (channels < 1 || channels > 4 || png_get_bit_depth(png, png_info) != 8 || row_bytes != (size_t)width * channels) {
        CPhotoLibPNG_refuse(png, &session, CPhotoLibJPEG_UNSUPPORTED,
                            "PNG layout not handled: %d channels, %zu bytes per row", channels, row_bytes);
    }
    int components = (channels <= 2) ? 1 : 3;
    int interlaced = passes > 1;
    if (image != NULL && interlaced) {
        /* Adam7 passes fill every row several times: the whole image must be in memory. */
        uint64_t bytes = pixel_count * (uint64_t)channels;
        if (bytes > limits->max_memory_bytes) {
            CPhotoLibPNG_refuse(png, &session, CPhotoLibJPEG_TOO_LARGE,
                                "decoding this interlaced %ux%u PNG needs %llu bytes, over the memory limit of %llu",
                                width, height, (unsigned long long)bytes, (unsigned long long)limits->max_memory_bytes);
        }
        pixels = malloc((size_t)bytes);
        if (pixels == NULL) {
            CPhotoLibPNG_refuse(png, &session, CPhotoLibJPEG_INTERNAL, "out of memory for a %ux%u PNG", width, height);
        }
    }
    row = malloc(row_bytes);
    if (row == NULL) {
        CPhotoLibPNG_refuse(png, &session, CPhotoLibJPEG_INTERNAL, "out of memory for a PNG row");
    }
    if (image != NULL) {
        shrinker = calloc(1, sizeof *shrinker);
        char reason[CPhotoLibJPEG_MESSAGE_CAPACITY];
        uint64_t held = interlaced ? pixel_count * (uint64_t)channels : 0;
        uint64_t budget = limits->max_memory_bytes > held ? limits->max_memory_bytes - held : 1;
        int status = shrinker == NULL ? CPhotoLibJPEG_INTERNAL
                                      : CPhotoLibJPEG_shrinker_init(shrinker, width, height, (uint32_t)components,
                                                                    shrink, budget, reason, sizeof reason);
        if (status != CPhotoLibJPEG_OK) {
            CPhotoLibPNG_refuse(png, &session, status, "PNG output: %s", shrinker == NULL ? "out of memory" : reason);
        }
    }
    for (int pass = 0; pass < passes; pass++) {
        for (png_uint_32 y = 0; y < height; y++) {
            if (control != NULL && CPhotoLibJPEG_control_is_cancelled(control)) {
                CPhotoLibPNG_refuse(png, &session, CPhotoLibJPEG_CANCELLED, "the PNG decode was cancelled");
            }
            png_bytep target = pixels != NULL ? pixels + (size_t)y * row_bytes : row;
            png_read_row(png, target, NULL);
            if (shrinker != NULL && !interlaced) {
                CPhotoLibPNG_flatten(row, width, channels);
                CPhotoLibJPEG_shrinker_add_row(shrinker, row);
            }
        }
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &png_info, NULL);
    if (shrinker != NULL) {
        for (png_uint_32 y = 0; interlaced && y < height; y++) {
            memcpy(row, pixels + (size_t)y * row_bytes, row_bytes);
            CPhotoLibPNG_flatten(row, width, channels);
            CPhotoLibJPEG_shrinker_add_row(shrinker, row);
        }
        CPhotoLibJPEG_shrinker_take(shrinker, image);
        free(shrinker);
    }
    free(pixels);
    free(row);
    return CPhotoLibJPEG_OK;
}

int CPhotoLibPNG_read_header(const uint8_t *data, size_t size, const CPhotoLibJPEG_Limits *limits,
                             CPhotoLibPNG_Info *info, char *message, size_t message_capacity) {
    int status = CPhotoLibPNG_check_input(data, size, limits, message, message_capacity);
    if (status != CPhotoLibJPEG_OK) {
        return status;
    }
    return CPhotoLibPNG_session(data, size, limits, NULL, 0, 1, info, NULL, message, message_capacity);
}

int CPhotoLibPNG_decode(const uint8_t *data, size_t size, const CPhotoLibJPEG_Limits *limits,
                        CPhotoLibJPEG_Control *control, uint32_t shrink, CPhotoLibPNG_Info *info,
                        CPhotoLibJPEG_Image *image, char *message, size_t message_capacity) {
    if (image != NULL) {
        memset(image, 0, sizeof *image);
    }
    if (shrink == 0) {
        CPhotoLibJPEG_format_message(message, message_capacity, "PNG: shrink factor 0");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    int status = CPhotoLibPNG_check_input(data, size, limits, message, message_capacity);
    if (status != CPhotoLibJPEG_OK) {
        return status;
    }
    return CPhotoLibPNG_session(data, size, limits, control, 1, shrink, info, image, message, message_capacity);
}
