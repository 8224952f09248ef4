/*
 * HEIF/HEIC sessions with libheif: header and metadata, then (optionally) a strict decode of
 * the primary image or its thumbnail to upright 8-bit RGB. See CPhotoLibHEIF.h.
 *
 * Related libheif documentation: libheif/heif.h (heif_context_read_from_memory_without_copy,
 * heif_context_set_maximum_image_size_limit, heif_image_handle_get_ispe_width,
 * heif_image_handle_get_list_of_metadata_block_IDs, heif_decoding_options: strict_decoding,
 * convert_hdr_to_8bit; heif_decode_image).
 */
#include "phh_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libheif/heif.h>

/* libheif's own per-side default; never loosened, tightened by max_pixels. */
#define CPhotoLibHEIF_MAX_SIDE 32768

static pthread_once_t CPhotoLibHEIF_init_once = PTHREAD_ONCE_INIT;

/* heif_init is reference counted; PhotoLib takes one reference for the process's life. */
static void CPhotoLibHEIF_init(void) {
    heif_init(NULL);
}

/* libheif's text of an error on one line: control characters (its messages may end in a
 * newline) become spaces, runs of spaces one, none at either end; at most capacity - 1 bytes. */
static void CPhotoLibHEIF_one_line(const char *text, char *line, size_t capacity) {
    size_t length = 0;
    int space = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c != 0 && length + 1 < capacity; c++) {
        if (*c < 0x20 || *c == 0x7f || *c == ' ') {
            space = length > 0;
            continue;
        }
        if (space && length + 2 < capacity) line[length++] = ' ';
        space = 0;
        line[length++] = (char)*c;
    }
    line[length] = 0;
}

/* A status and message for a libheif error. */
static int CPhotoLibHEIF_status(struct heif_error error, const char *stage, size_t size, char *message,
                                size_t capacity) {
    char text[512];
    CPhotoLibHEIF_one_line(error.message != NULL ? error.message : "no detail", text, sizeof text);
    switch (error.code) {
    case heif_error_Invalid_input:
        if (error.subcode == heif_suberror_End_of_data) {
            CPhotoLibJPEG_format_message(message, capacity, "truncated HEIF data: the file ends after %zu bytes (%s: %s)",
                                      size, stage, text);
            return CPhotoLibJPEG_TRUNCATED;
        }
        CPhotoLibJPEG_format_message(message, capacity, "corrupt HEIF data (%s): %s", stage, text);
        return CPhotoLibJPEG_CORRUPT;
    case heif_error_Decoder_plugin_error:
        CPhotoLibJPEG_format_message(message, capacity, "corrupt HEIF data: the image decoder failed (%s): %s", stage, text);
        return CPhotoLibJPEG_CORRUPT;
    case heif_error_Unsupported_filetype:
        CPhotoLibJPEG_format_message(message, capacity, "not a HEIF file libheif can read (%s): %s", stage, text);
        return CPhotoLibJPEG_UNSUPPORTED;
    case heif_error_Unsupported_feature:
        CPhotoLibJPEG_format_message(message, capacity, "HEIF feature not supported (%s): %s", stage, text);
        return CPhotoLibJPEG_UNSUPPORTED;
    case heif_error_Memory_allocation_error:
        if (error.subcode == heif_suberror_Security_limit_exceeded) {
            CPhotoLibJPEG_format_message(message, capacity, "HEIF file exceeds a size limit (%s): %s", stage, text);
            return CPhotoLibJPEG_TOO_LARGE;
        }
        CPhotoLibJPEG_format_message(message, capacity, "out of memory decoding HEIF (%s): %s", stage, text);
        return CPhotoLibJPEG_INTERNAL;
    default:
        CPhotoLibJPEG_format_message(message, capacity, "HEIF %s failed: %s", stage, text);
        return CPhotoLibJPEG_INTERNAL;
    }
}

static int CPhotoLibHEIF_cancelled(CPhotoLibJPEG_Control *control, char *message, size_t capacity) {
    if (control != NULL && CPhotoLibJPEG_control_is_cancelled(control)) {
        CPhotoLibJPEG_format_message(message, capacity, "the HEIF decode was cancelled");
        return 1;
    }
    return 0;
}

/* The first Exif block from its TIFF header on, malloc'd (NULL when absent or malformed). */
static uint8_t *CPhotoLibHEIF_copy_exif(const struct heif_image_handle *handle, size_t *exif_size) {
    *exif_size = 0;
    heif_item_id id;
    if (heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) < 1) {
        return NULL;
    }
    size_t size = heif_image_handle_get_metadata_size(handle, id);
    if (size < 4 + 8 || size > CPhotoLibHEIF_MAX_EXIF_BYTES) {
        return NULL;
    }
    uint8_t *block = malloc(size);
    if (block == NULL) {
        return NULL;
    }
    struct heif_error error = heif_image_handle_get_metadata(handle, id, block);
    /* The block starts with a 4-byte big-endian offset from after itself to the TIFF header. */
    uint32_t offset = error.code == heif_error_Ok
                          ? ((uint32_t)block[0] << 24) | ((uint32_t)block[1] << 16) | ((uint32_t)block[2] << 8) | block[3]
                          : UINT32_MAX;
    if (offset > size - 4 - 8) {
        free(block);
        return NULL;
    }
    size_t start = 4 + (size_t)offset;
    memmove(block, block + start, size - start);
    *exif_size = size - start;
    return block;
}

/* The largest thumbnail of `primary` (caller releases), or NULL. */
static struct heif_image_handle *CPhotoLibHEIF_largest_thumbnail(const struct heif_image_handle *primary) {
    heif_item_id ids[8];
    int count = heif_image_handle_get_list_of_thumbnail_IDs(primary, ids, 8);
    struct heif_image_handle *best = NULL;
    uint64_t best_pixels = 0;
    for (int i = 0; i < count; i++) {
        struct heif_image_handle *candidate = NULL;
        if (heif_image_handle_get_thumbnail(primary, ids[i], &candidate).code != heif_error_Ok || candidate == NULL) {
            continue;
        }
        uint64_t pixels = (uint64_t)heif_image_handle_get_width(candidate) * (uint64_t)heif_image_handle_get_height(candidate);
        if (pixels > best_pixels) {
            heif_image_handle_release(best);
            best = candidate;
            best_pixels = pixels;
        } else {
            heif_image_handle_release(candidate);
        }
    }
    return best;
}

/* Where the rows of a decoded image come from: libheif's interleaved RGB(A), its planar R, G
 * and B (what libheif 1.15 returns for an undefined target colour space), or Y, Cb and Cr
 * planes converted here. */
typedef struct CPhotoLibHEIF_Planes {
    enum { CPhotoLibHEIF_INTERLEAVED, CPhotoLibHEIF_PLANAR_RGB, CPhotoLibHEIF_PLANAR_YCBCR } kind;
    int width;
    int height;
    const uint8_t *interleaved;
    int stride;
    /* Y, Cb, Cr or R, G, B. */
    const uint8_t *plane[3];
    int plane_stride[3];
    /* YCbCr: 1 for 4:2:0 and 4:2:2 horizontally; 1 for 4:2:0 vertically. */
    int shift_x, shift_y;
    CPhotoLibHEIF_YCbCrMatrix matrix;
} CPhotoLibHEIF_Planes;

/* Fills `planes` from a decode to the native colour space; 0 when its layout is not one we
 * read (monochrome, more than 8 bits, a matrix we do not convert, ...). */
static int CPhotoLibHEIF_native_planes(const struct heif_image *decoded, const struct heif_image_handle *handle,
                                       CPhotoLibHEIF_Planes *planes) {
    enum heif_colorspace colorspace = heif_image_get_colorspace(decoded);
    enum heif_chroma chroma = heif_image_get_chroma_format(decoded);
    static const enum heif_channel ycbcr[3] = {heif_channel_Y, heif_channel_Cb, heif_channel_Cr};
    static const enum heif_channel rgb[3] = {heif_channel_R, heif_channel_G, heif_channel_B};
    const enum heif_channel *channels;
    if (colorspace == heif_colorspace_RGB && chroma == heif_chroma_444) {
        planes->kind = CPhotoLibHEIF_PLANAR_RGB;
        channels = rgb;
    } else if (colorspace == heif_colorspace_YCbCr &&
               (chroma == heif_chroma_420 || chroma == heif_chroma_422 || chroma == heif_chroma_444) &&
               CPhotoLibHEIF_ycbcr_matrix(decoded, handle, &planes->matrix)) {
        planes->kind = CPhotoLibHEIF_PLANAR_YCBCR;
        planes->shift_x = chroma == heif_chroma_444 ? 0 : 1;
        planes->shift_y = chroma == heif_chroma_420 ? 1 : 0;
        channels = ycbcr;
    } else {
        return 0;
    }
    planes->width = heif_image_get_width(decoded, channels[0]);
    planes->height = heif_image_get_height(decoded, channels[0]);
    if (planes->width <= 0 || planes->height <= 0) {
        return 0;
    }
    for (int c = 0; c < 3; c++) {
        int shift_x = c == 0 ? 0 : planes->shift_x, shift_y = c == 0 ? 0 : planes->shift_y;
        int width = (planes->width + shift_x) >> shift_x, height = (planes->height + shift_y) >> shift_y;
        planes->plane[c] = heif_image_get_plane_readonly(decoded, channels[c], &planes->plane_stride[c]);
        if (planes->plane[c] == NULL || heif_image_get_bits_per_pixel(decoded, channels[c]) != 8 ||
            planes->plane_stride[c] < width || heif_image_get_width(decoded, channels[c]) < width ||
            heif_image_get_height(decoded, channels[c]) < height) {
            return 0;
        }
    }
    return 1;
}

/* Runs heif_decode_image with strict decoding and HDR reduced to 8 bits. */
static struct heif_error CPhotoLibHEIF_decode_image(const struct heif_image_handle *handle, enum heif_colorspace colorspace,
                                                    enum heif_chroma chroma, struct heif_image **decoded) {
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (options == NULL) {
        struct heif_error error = {heif_error_Memory_allocation_error, heif_suberror_Unspecified, "out of memory"};
        return error;
    }
    options->convert_hdr_to_8bit = 1;
    options->strict_decoding = 1;
    struct heif_error error = heif_decode_image(handle, decoded, colorspace, chroma, options);
    heif_decoding_options_free(options);
    return error;
}

/*
 * Decodes `handle` upright, flattens alpha over white and box-shrinks by `shrink` into
 * `image`. 8-bit images without alpha are decoded to the native colour space (planar RGB or
 * YCbCr) and interleaved or converted row by row here (unless `libheif_rgb`), which spares
 * libheif's whole-image interleaving or conversion pass; everything else goes through
 * libheif's interleaved RGB(A).
 */
static int CPhotoLibHEIF_decode_handle(const struct heif_image_handle *handle, const CPhotoLibJPEG_Limits *limits,
                                       CPhotoLibJPEG_Control *control, uint32_t shrink, uint32_t flags, size_t size,
                                       CPhotoLibJPEG_Image *image, char *message, size_t capacity) {
    int width = heif_image_handle_get_width(handle), height = heif_image_handle_get_height(handle);
    int has_alpha = heif_image_handle_has_alpha_channel(handle);
    int bits = heif_image_handle_get_luma_bits_per_pixel(handle);
    uint64_t pixels = (uint64_t)(width > 0 ? width : 0) * (uint64_t)(height > 0 ? height : 0);
    /* Coded planes (4:2:0 at up to 16 bits per sample), the RGB(A) image libheif makes, ours. */
    uint64_t estimate = pixels * (bits > 8 ? 3 : 2) + pixels * (has_alpha ? 4 : 3) + pixels * 3 / ((uint64_t)shrink * shrink);
    if (estimate > limits->max_memory_bytes) {
        CPhotoLibJPEG_format_message(message, capacity,
                                  "decoding this %dx%d HEIF needs about %llu bytes, over the memory limit of %llu", width,
                                  height, (unsigned long long)estimate, (unsigned long long)limits->max_memory_bytes);
        return CPhotoLibJPEG_TOO_LARGE;
    }
    int native = !has_alpha && bits == 8 && !(flags & CPhotoLibHEIF_DECODE_LIBHEIF_RGB);
    int ycbcr = (flags & CPhotoLibHEIF_DECODE_YCBCR_420) != 0;
    struct heif_image *decoded = NULL;
    struct heif_error error =
        native ? CPhotoLibHEIF_decode_image(handle, ycbcr ? heif_colorspace_YCbCr : heif_colorspace_undefined,
                                            ycbcr ? heif_chroma_420 : heif_chroma_undefined, &decoded)
               : CPhotoLibHEIF_decode_image(handle, heif_colorspace_RGB,
                                            has_alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &decoded);
    CPhotoLibHEIF_Planes planes = {0};
    if (error.code == heif_error_Ok && decoded != NULL && native && !CPhotoLibHEIF_native_planes(decoded, handle, &planes)) {
        /* A layout we do not convert (monochrome, YCgCo, ...): let libheif convert it. */
        heif_image_release(decoded);
        decoded = NULL;
        native = 0;
        error = CPhotoLibHEIF_decode_image(handle, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &decoded);
    }
    if (error.code != heif_error_Ok || decoded == NULL) {
        int status = CPhotoLibJPEG_INTERNAL;
        if (error.code == heif_error_Ok) {
            CPhotoLibJPEG_format_message(message, capacity, "HEIF decode produced no image");
        } else {
            /* Format error.message while everything that may own it is alive. */
            status = CPhotoLibHEIF_status(error, "decoding the image", size, message, capacity);
        }
        heif_image_release(decoded);
        return status;
    }
    if (CPhotoLibHEIF_cancelled(control, message, capacity)) {
        heif_image_release(decoded);
        return CPhotoLibJPEG_CANCELLED;
    }
    int channels = has_alpha ? 4 : 3;
    if (!native) {
        planes.kind = CPhotoLibHEIF_INTERLEAVED;
        planes.interleaved = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &planes.stride);
        planes.width = heif_image_get_width(decoded, heif_channel_interleaved);
        planes.height = heif_image_get_height(decoded, heif_channel_interleaved);
        if (planes.interleaved == NULL || planes.width <= 0 || planes.height <= 0 || planes.stride < planes.width * channels ||
            heif_image_get_bits_per_pixel(decoded, heif_channel_interleaved) != 8 * channels) {
            heif_image_release(decoded);
            CPhotoLibJPEG_format_message(message, capacity, "HEIF decode produced an unexpected pixel layout");
            return CPhotoLibJPEG_INTERNAL;
        }
    }
    if (image == NULL) {
        heif_image_release(decoded);
        return CPhotoLibJPEG_OK;
    }
    CPhotoLibJPEG_Shrinker shrinker;
    int status = CPhotoLibJPEG_shrinker_init(&shrinker, (uint32_t)planes.width, (uint32_t)planes.height, 3, shrink,
                                             limits->max_memory_bytes, message, capacity);
    uint8_t *row = status == CPhotoLibJPEG_OK ? malloc((size_t)planes.width * 3) : NULL;
    if (status == CPhotoLibJPEG_OK && row == NULL) {
        CPhotoLibJPEG_shrinker_free(&shrinker);
        CPhotoLibJPEG_format_message(message, capacity, "out of memory for a HEIF row");
        status = CPhotoLibJPEG_INTERNAL;
    }
    if (status != CPhotoLibJPEG_OK) {
        heif_image_release(decoded);
        return status;
    }
    for (int y = 0; y < planes.height; y++) {
        if (planes.kind == CPhotoLibHEIF_PLANAR_YCBCR) {
            int chroma_y = y >> planes.shift_y;
            CPhotoLibHEIF_ycbcr_row(&planes.matrix, planes.plane[0] + (size_t)y * (size_t)planes.plane_stride[0],
                                    planes.plane[1] + (size_t)chroma_y * (size_t)planes.plane_stride[1],
                                    planes.plane[2] + (size_t)chroma_y * (size_t)planes.plane_stride[2], planes.width,
                                    planes.shift_x, row);
            CPhotoLibJPEG_shrinker_add_row(&shrinker, row);
            continue;
        }
        if (planes.kind == CPhotoLibHEIF_PLANAR_RGB) {
            const uint8_t *r = planes.plane[0] + (size_t)y * (size_t)planes.plane_stride[0];
            const uint8_t *g = planes.plane[1] + (size_t)y * (size_t)planes.plane_stride[1];
            const uint8_t *b = planes.plane[2] + (size_t)y * (size_t)planes.plane_stride[2];
            for (int x = 0; x < planes.width; x++) {
                row[3 * x] = r[x];
                row[3 * x + 1] = g[x];
                row[3 * x + 2] = b[x];
            }
            CPhotoLibJPEG_shrinker_add_row(&shrinker, row);
            continue;
        }
        const uint8_t *source = planes.interleaved + (size_t)y * (size_t)planes.stride;
        if (!has_alpha) {
            CPhotoLibJPEG_shrinker_add_row(&shrinker, source);
            continue;
        }
        for (int x = 0; x < planes.width; x++) {
            unsigned alpha = source[4 * x + 3];
            for (int c = 0; c < 3; c++) {
                unsigned value = source[4 * x + c];
                row[3 * x + c] = (uint8_t)((value * alpha + 255u * (255u - alpha) + 127u) / 255u);
            }
        }
        CPhotoLibJPEG_shrinker_add_row(&shrinker, row);
    }
    free(row);
    heif_image_release(decoded);
    CPhotoLibJPEG_shrinker_take(&shrinker, image);
    return CPhotoLibJPEG_OK;
}

/* One session. mode 0: header and metadata; 1: decode primary; 2: decode thumbnail. */
static int CPhotoLibHEIF_session(const uint8_t *data, size_t size, const CPhotoLibJPEG_Limits *limits,
                                 CPhotoLibJPEG_Control *control, int mode, uint32_t shrink, uint32_t flags,
                                 CPhotoLibHEIF_Info *info,
                                 CPhotoLibJPEG_Image *image, char *message, size_t capacity) {
    if (limits == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "HEIF: missing limits");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    if (data == NULL || size < 12 || memcmp(data + 4, "ftyp", 4) != 0 ||
        heif_check_filetype(data, (int)(size < 64 ? size : 64)) == heif_filetype_no) {
        CPhotoLibJPEG_format_message(message, capacity, "not a HEIF file (no ISO-BMFF 'ftyp' box with a HEIF brand)");
        return CPhotoLibJPEG_NOT_JPEG;
    }
    if ((uint64_t)size > limits->max_input_bytes) {
        CPhotoLibJPEG_format_message(message, capacity, "HEIF input of %zu bytes exceeds the limit of %llu bytes", size,
                                  (unsigned long long)limits->max_input_bytes);
        return CPhotoLibJPEG_TOO_LARGE;
    }
    if (CPhotoLibHEIF_cancelled(control, message, capacity)) {
        return CPhotoLibJPEG_CANCELLED;
    }
    pthread_once(&CPhotoLibHEIF_init_once, CPhotoLibHEIF_init);
    struct heif_context *context = heif_context_alloc();
    if (context == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "out of memory creating a HEIF context");
        return CPhotoLibJPEG_INTERNAL;
    }
    uint64_t side = limits->max_pixels < CPhotoLibHEIF_MAX_SIDE ? limits->max_pixels + 1 : CPhotoLibHEIF_MAX_SIDE;
    heif_context_set_maximum_image_size_limit(context, (int)side);
    struct heif_image_handle *primary = NULL;
    struct heif_error error = heif_context_read_from_memory_without_copy(context, data, size, NULL);
    if (error.code == heif_error_Ok) {
        error = heif_context_get_primary_image_handle(context, &primary);
    }
    if (error.code != heif_error_Ok || primary == NULL) {
        /* error.message belongs to the context: format it before freeing the context. */
        int status = CPhotoLibHEIF_status(error, "reading the file structure", size, message, capacity);
        heif_context_free(context);
        return status;
    }
    int width = heif_image_handle_get_width(primary), height = heif_image_handle_get_height(primary);
    uint64_t pixels = (uint64_t)(width > 0 ? width : 0) * (uint64_t)(height > 0 ? height : 0);
    int status = CPhotoLibJPEG_OK;
    if (width <= 0 || height <= 0) {
        CPhotoLibJPEG_format_message(message, capacity, "corrupt HEIF data: primary image size %dx%d", width, height);
        status = CPhotoLibJPEG_CORRUPT;
    } else if (pixels > limits->max_pixels) {
        CPhotoLibJPEG_format_message(message, capacity, "HEIF image of %dx%d (%llu pixels) exceeds the limit of %llu pixels",
                                  width, height, (unsigned long long)pixels, (unsigned long long)limits->max_pixels);
        status = CPhotoLibJPEG_TOO_LARGE;
    } else if (mode == 0 && info != NULL) {
        memset(info, 0, sizeof *info);
        info->width = (uint32_t)width;
        info->height = (uint32_t)height;
        int ispe_width = heif_image_handle_get_ispe_width(primary), ispe_height = heif_image_handle_get_ispe_height(primary);
        info->stored_width = ispe_width > 0 ? (uint32_t)ispe_width : (uint32_t)width;
        info->stored_height = ispe_height > 0 ? (uint32_t)ispe_height : (uint32_t)height;
        info->has_alpha = heif_image_handle_has_alpha_channel(primary) != 0;
        info->luma_bits = heif_image_handle_get_luma_bits_per_pixel(primary);
        struct heif_image_handle *thumbnail = CPhotoLibHEIF_largest_thumbnail(primary);
        if (thumbnail != NULL) {
            info->thumbnail_width = (uint32_t)heif_image_handle_get_width(thumbnail);
            info->thumbnail_height = (uint32_t)heif_image_handle_get_height(thumbnail);
            heif_image_handle_release(thumbnail);
        }
        info->transform_count = CPhotoLibHEIF_read_transforms(data, size, info->transforms, CPhotoLibHEIF_MAX_TRANSFORMS);
        info->exif = CPhotoLibHEIF_copy_exif(primary, &info->exif_size);
    } else if (mode != 0) {
        if (CPhotoLibHEIF_cancelled(control, message, capacity)) {
            status = CPhotoLibJPEG_CANCELLED;
        } else if (mode == 2) {
            struct heif_image_handle *thumbnail = CPhotoLibHEIF_largest_thumbnail(primary);
            if (thumbnail == NULL) {
                CPhotoLibJPEG_format_message(message, capacity, "this HEIF file has no thumbnail image");
                status = CPhotoLibJPEG_INVALID_ARGUMENT;
            } else {
                status = CPhotoLibHEIF_decode_handle(thumbnail, limits, control, shrink, flags, size, image, message, capacity);
                heif_image_handle_release(thumbnail);
            }
        } else {
            status = CPhotoLibHEIF_decode_handle(primary, limits, control, shrink, flags, size, image, message, capacity);
        }
    }
    heif_image_handle_release(primary);
    heif_context_free(context);
    return status;
}

int CPhotoLibHEIF_read_header(const uint8_t *data, size_t size, const CPhotoLibJPEG_Limits *limits,
                              CPhotoLibHEIF_Info *info, char *message, size_t message_capacity) {
    if (info == NULL) {
        CPhotoLibJPEG_format_message(message, message_capacity, "HEIF: missing info");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    memset(info, 0, sizeof *info);
    return CPhotoLibHEIF_session(data, size, limits, NULL, 0, 1, 0, info, NULL, message, message_capacity);
}

int CPhotoLibHEIF_decode(const uint8_t *data, size_t size, const CPhotoLibJPEG_Limits *limits,
                         CPhotoLibJPEG_Control *control, uint32_t flags, uint32_t shrink,
                         CPhotoLibJPEG_Image *image, char *message, size_t message_capacity) {
    if (image != NULL) {
        memset(image, 0, sizeof *image);
    }
    if (shrink == 0) {
        CPhotoLibJPEG_format_message(message, message_capacity, "HEIF: shrink factor 0");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    return CPhotoLibHEIF_session(data, size, limits, control, (flags & CPhotoLibHEIF_DECODE_THUMBNAIL) ? 2 : 1, shrink,
                                 flags, NULL, image, message, message_capacity);
}

void CPhotoLibHEIF_buffer_free(uint8_t *buffer) {
    free(buffer);
}
