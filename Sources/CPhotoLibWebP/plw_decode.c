/*
 * WebP header reading and incremental decoding with libwebp. See CPhotoLibWebP.h.
 *
 * Related libwebp documentation: webp/decode.h ("Advanced decoding API": WebPGetFeatures,
 * WebPDecoderConfig, WebPIDecode, WebPIAppend, external output memory), the WebP container
 * specification (RIFF chunks EXIF and "XMP ").
 */
#include "include/CPhotoLibWebP.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>

/* Input slice fed to the incremental decoder between cancellation checks. */
#define CPhotoLibWebP_SLICE ((size_t)64 << 10)

static uint32_t CPhotoLibWebP_le32(const uint8_t *bytes) {
    return (uint32_t)bytes[0] | ((uint32_t)bytes[1] << 8) | ((uint32_t)bytes[2] << 16) | ((uint32_t)bytes[3] << 24);
}

/* Walks the RIFF chunks (bounded by the input) for EXIF and "XMP ". */
static void CPhotoLibWebP_find_metadata(const uint8_t *data, size_t size, CPhotoLibWebP_Info *info) {
    size_t position = 12;
    while (position + 8 <= size) {
        uint32_t length = CPhotoLibWebP_le32(data + position + 4);
        if ((size_t)length > size - position - 8) {
            return;
        }
        const uint8_t *type = data + position;
        if (memcmp(type, "EXIF", 4) == 0 && info->exif_size == 0) {
            info->exif_offset = position + 8;
            info->exif_size = length;
        } else if (memcmp(type, "XMP ", 4) == 0 && info->xmp_size == 0) {
            info->xmp_offset = position + 8;
            info->xmp_size = length;
        }
        position += 8 + (size_t)length + (length & 1);
    }
}

static int CPhotoLibWebP_status(VP8StatusCode code, const char *stage, size_t size, char *message, size_t capacity) {
    switch (code) {
    case VP8_STATUS_NOT_ENOUGH_DATA:
    case VP8_STATUS_SUSPENDED:
        CPhotoLibJPEG_format_message(message, capacity, "truncated WebP data: the file ends after %zu bytes (%s)", size,
                                  stage);
        return CPhotoLibJPEG_TRUNCATED;
    case VP8_STATUS_OUT_OF_MEMORY:
        CPhotoLibJPEG_format_message(message, capacity, "out of memory decoding a WebP image (%s)", stage);
        return CPhotoLibJPEG_INTERNAL;
    case VP8_STATUS_UNSUPPORTED_FEATURE:
        CPhotoLibJPEG_format_message(message, capacity, "WebP feature not supported by libwebp (%s)", stage);
        return CPhotoLibJPEG_UNSUPPORTED;
    case VP8_STATUS_INVALID_PARAM:
        CPhotoLibJPEG_format_message(message, capacity, "WebP decoder refused its parameters (%s)", stage);
        return CPhotoLibJPEG_INTERNAL;
    default:
        CPhotoLibJPEG_format_message(message, capacity, "corrupt WebP data: bitstream error %d (%s)", (int)code, stage);
        return CPhotoLibJPEG_CORRUPT;
    }
}

/* Container and bitstream header; fills `features` and `info`. */
static int CPhotoLibWebP_header(const uint8_t *data, size_t size, const CPhotoLibJPEG_Limits *limits,
                                WebPBitstreamFeatures *features, CPhotoLibWebP_Info *info, char *message,
                                size_t capacity) {
    if (limits == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "WebP: missing limits");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    if (data == NULL || size < 12 || memcmp(data, "RIFF", 4) != 0 || memcmp(data + 8, "WEBP", 4) != 0) {
        CPhotoLibJPEG_format_message(message, capacity, "not a WebP file (no RIFF/WEBP header)");
        return CPhotoLibJPEG_NOT_JPEG;
    }
    if ((uint64_t)size > limits->max_input_bytes) {
        CPhotoLibJPEG_format_message(message, capacity, "WebP input of %zu bytes exceeds the limit of %llu bytes", size,
                                  (unsigned long long)limits->max_input_bytes);
        return CPhotoLibJPEG_TOO_LARGE;
    }
    VP8StatusCode code = WebPGetFeatures(data, size, features);
    if (code != VP8_STATUS_OK) {
        return CPhotoLibWebP_status(code, "reading the header", size, message, capacity);
    }
    if (features->width <= 0 || features->height <= 0) {
        CPhotoLibJPEG_format_message(message, capacity, "corrupt WebP data: image size %dx%d", features->width,
                                  features->height);
        return CPhotoLibJPEG_CORRUPT;
    }
    uint64_t pixels = (uint64_t)features->width * (uint64_t)features->height;
    if (pixels > limits->max_pixels) {
        CPhotoLibJPEG_format_message(message, capacity, "WebP image of %dx%d (%llu pixels) exceeds the limit of %llu pixels",
                                  features->width, features->height, (unsigned long long)pixels,
                                  (unsigned long long)limits->max_pixels);
        return CPhotoLibJPEG_TOO_LARGE;
    }
    if (info != NULL) {
        memset(info, 0, sizeof *info);
        info->width = (uint32_t)features->width;
        info->height = (uint32_t)features->height;
        info->has_alpha = features->has_alpha != 0;
        info->is_animated = features->has_animation != 0;
        info->is_lossless = features->format == 2;
        CPhotoLibWebP_find_metadata(data, size, info);
    }
    return CPhotoLibJPEG_OK;
}

int CPhotoLibWebP_read_header(const uint8_t *data, size_t size, const CPhotoLibJPEG_Limits *limits,
                              CPhotoLibWebP_Info *info, char *message, size_t message_capacity) {
    WebPBitstreamFeatures features;
    return CPhotoLibWebP_header(data, size, limits, &features, info, message, message_capacity);
}

int CPhotoLibWebP_decode(const uint8_t *data, size_t size, const CPhotoLibJPEG_Limits *limits,
                         CPhotoLibJPEG_Control *control, uint32_t shrink, CPhotoLibWebP_Info *info,
                         CPhotoLibJPEG_Image *image, char *message, size_t message_capacity) {
    if (image != NULL) {
        memset(image, 0, sizeof *image);
    }
    if (shrink == 0) {
        CPhotoLibJPEG_format_message(message, message_capacity, "WebP: shrink factor 0");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        CPhotoLibJPEG_format_message(message, message_capacity, "libwebp version mismatch");
        return CPhotoLibJPEG_INTERNAL;
    }
    int status = CPhotoLibWebP_header(data, size, limits, &config.input, info, message, message_capacity);
    if (status != CPhotoLibJPEG_OK) {
        return status;
    }
    uint32_t riff_size = CPhotoLibWebP_le32(data + 4);
    if ((uint64_t)riff_size + 8 > (uint64_t)size) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "truncated WebP data: the RIFF header declares %llu bytes, the file has %zu",
                                  (unsigned long long)riff_size + 8, size);
        return CPhotoLibJPEG_TRUNCATED;
    }
    if (config.input.has_animation) {
        CPhotoLibJPEG_format_message(message, message_capacity, "animated WebP files are not supported as photos");
        return CPhotoLibJPEG_UNSUPPORTED;
    }
    size_t width = (size_t)config.input.width, height = (size_t)config.input.height;
    int channels = config.input.has_alpha ? 4 : 3;
    uint64_t bytes = (uint64_t)width * height * (uint64_t)channels;
    if (bytes > limits->max_memory_bytes) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "decoding this %zux%zu WebP needs %llu bytes, over the memory limit of %llu", width,
                                  height, (unsigned long long)bytes, (unsigned long long)limits->max_memory_bytes);
        return CPhotoLibJPEG_TOO_LARGE;
    }
    uint8_t *pixels = malloc((size_t)bytes);
    if (pixels == NULL) {
        CPhotoLibJPEG_format_message(message, message_capacity, "out of memory for a %zux%zu WebP", width, height);
        return CPhotoLibJPEG_INTERNAL;
    }
    config.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = (int)(width * channels);
    config.output.u.RGBA.size = (size_t)bytes;
    config.options.use_threads = 0;

    WebPIDecoder *decoder = WebPIDecode(NULL, 0, &config);
    if (decoder == NULL) {
        free(pixels);
        CPhotoLibJPEG_format_message(message, message_capacity, "out of memory creating the WebP decoder");
        return CPhotoLibJPEG_INTERNAL;
    }
    VP8StatusCode code = VP8_STATUS_SUSPENDED;
    size_t position = 0;
    while (position < size && code == VP8_STATUS_SUSPENDED) {
        if (control != NULL && CPhotoLibJPEG_control_is_cancelled(control)) {
            WebPIDelete(decoder);
            free(pixels);
            CPhotoLibJPEG_format_message(message, message_capacity, "the WebP decode was cancelled");
            return CPhotoLibJPEG_CANCELLED;
        }
        size_t slice = size - position < CPhotoLibWebP_SLICE ? size - position : CPhotoLibWebP_SLICE;
        code = WebPIAppend(decoder, data + position, slice);
        position += slice;
    }
    WebPIDelete(decoder);
    WebPFreeDecBuffer(&config.output);
    if (code != VP8_STATUS_OK) {
        free(pixels);
        return CPhotoLibWebP_status(code, "decoding the image", size, message, message_capacity);
    }
    if (image == NULL) {
        free(pixels);
        return CPhotoLibJPEG_OK;
    }
    CPhotoLibJPEG_Shrinker shrinker;
    status = CPhotoLibJPEG_shrinker_init(&shrinker, (uint32_t)width, (uint32_t)height, 3, shrink,
                                         limits->max_memory_bytes > bytes ? limits->max_memory_bytes - bytes : 1, message,
                                         message_capacity);
    if (status != CPhotoLibJPEG_OK) {
        free(pixels);
        return status;
    }
    for (size_t y = 0; y < height; y++) {
        uint8_t *row = pixels + y * width * channels;
        if (channels == 4) {
            /* Alpha over white, in place: RGBA → RGB. */
            for (size_t x = 0; x < width; x++) {
                unsigned alpha = row[4 * x + 3];
                for (int c = 0; c < 3; c++) {
                    unsigned value = row[4 * x + c];
                    row[3 * x + c] = (uint8_t)((value * alpha + 255u * (255u - alpha) + 127u) / 255u);
                }
            }
        }
        CPhotoLibJPEG_shrinker_add_row(&shrinker, row);
    }
    free(pixels);
    CPhotoLibJPEG_shrinker_take(&shrinker, image);
    return CPhotoLibJPEG_OK;
}
