/*
 * Pixel buffers and the eight EXIF orientation transforms.
 *
 * In C for speed (Swift test builds are unoptimised). The transform maps each
 * destination pixel (x, y) back to a source pixel, for a stored image w x h:
 *   1 (x, y)                  identity
 *   2 (w-1-x, y)              mirror horizontally
 *   3 (w-1-x, h-1-y)          rotate 180°
 *   4 (x, h-1-y)              mirror vertically
 *   5 (y, x)                  transpose            destination is h x w
 *   6 (y, h-1-x)              rotate 90° clockwise  destination is h x w
 *   7 (w-1-y, h-1-x)          transverse           destination is h x w
 *   8 (w-1-y, x)              rotate 90° counter-clockwise, destination is h x w
 * (EXIF 2.3, tag 0x0112: "the 0th row represents the visual ... side".)
 */
#include "plj_internal.h"

#include <stdlib.h>
#include <string.h>

void CPhotoLibJPEG_image_free(CPhotoLibJPEG_Image *image) {
    if (image == NULL) {
        return;
    }
    free(image->pixels);
    memset(image, 0, sizeof *image);
}

int CPhotoLibJPEG_image_alloc(uint32_t width, uint32_t height, uint32_t components,
                              CPhotoLibJPEG_Image *image,
                              char *message, size_t message_capacity) {
    if (image == NULL) {
        CPhotoLibJPEG_format_message(message, message_capacity, "image_alloc: missing image");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    memset(image, 0, sizeof *image);
    if (components != 1 && components != 3 && components != 4) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "image_alloc: %u components per pixel (1, 3 or 4)", components);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    size_t bytes = CPhotoLibJPEG_image_bytes(width, height, components);
    if (bytes == 0 || width > 65535 || height > 65535) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "image_alloc: %ux%u is out of range (1...65535 per side)", width, height);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    image->pixels = calloc(bytes, 1);
    if (image->pixels == NULL) {
        CPhotoLibJPEG_format_message(message, message_capacity, "image_alloc: out of memory (%.1f MB)",
                                  CPhotoLibJPEG_megabytes(bytes));
        return CPhotoLibJPEG_INTERNAL;
    }
    image->width = width;
    image->height = height;
    image->components = components;
    return CPhotoLibJPEG_OK;
}

int CPhotoLibJPEG_orient(const CPhotoLibJPEG_Image *source, int orientation,
                         CPhotoLibJPEG_Image *destination,
                         char *message, size_t message_capacity) {
    if (source == NULL || destination == NULL || source->pixels == NULL) {
        CPhotoLibJPEG_format_message(message, message_capacity, "orient: missing image");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    memset(destination, 0, sizeof *destination);
    if (orientation < 1 || orientation > 8) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "EXIF orientation %d is out of range (1...8)", orientation);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    const uint32_t w = source->width, h = source->height, n = source->components;
    const int swaps = orientation >= 5;
    const uint32_t out_w = swaps ? h : w, out_h = swaps ? w : h;
    int status = CPhotoLibJPEG_image_alloc(out_w, out_h, n, destination, message, message_capacity);
    if (status != CPhotoLibJPEG_OK) {
        return status;
    }
    const uint8_t *in = source->pixels;
    uint8_t *out = destination->pixels;
    const size_t in_row = (size_t)w * n;
    if (orientation == 1) {
        memcpy(out, in, in_row * h);
        return CPhotoLibJPEG_OK;
    }
    for (uint32_t y = 0; y < out_h; y++) {
        uint8_t *row = out + (size_t)y * out_w * n;
        for (uint32_t x = 0; x < out_w; x++) {
            uint32_t sx, sy;
            switch (orientation) {
            case 2: sx = w - 1 - x; sy = y; break;
            case 3: sx = w - 1 - x; sy = h - 1 - y; break;
            case 4: sx = x; sy = h - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = h - 1 - x; break;
            case 7: sx = w - 1 - y; sy = h - 1 - x; break;
            default: sx = w - 1 - y; sy = x; break; /* 8 */
            }
            const uint8_t *pixel = in + (size_t)sy * in_row + (size_t)sx * n;
            for (uint32_t k = 0; k < n; k++) {
                row[(size_t)x * n + k] = pixel[k];
            }
        }
    }
    return CPhotoLibJPEG_OK;
}

int CPhotoLibJPEG_crop(const CPhotoLibJPEG_Image *source,
                       uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                       CPhotoLibJPEG_Image *destination,
                       char *message, size_t message_capacity) {
    if (source == NULL || destination == NULL || source->pixels == NULL) {
        CPhotoLibJPEG_format_message(message, message_capacity, "crop: missing image");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    memset(destination, 0, sizeof *destination);
    if (width == 0 || height == 0 || (uint64_t)x + width > source->width ||
        (uint64_t)y + height > source->height) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "crop %ux%u at (%u, %u) does not lie inside the %ux%u image",
                                  width, height, x, y, source->width, source->height);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    const uint32_t n = source->components;
    int status = CPhotoLibJPEG_image_alloc(width, height, n, destination, message, message_capacity);
    if (status != CPhotoLibJPEG_OK) {
        return status;
    }
    for (uint32_t row = 0; row < height; row++) {
        memcpy(destination->pixels + (size_t)row * width * n,
               source->pixels + ((size_t)(y + row) * source->width + x) * n, (size_t)width * n);
    }
    return CPhotoLibJPEG_OK;
}

int CPhotoLibJPEG_paste(const CPhotoLibJPEG_Image *source, CPhotoLibJPEG_Image *destination,
                        int32_t x, int32_t y, char *message, size_t message_capacity) {
    if (source == NULL || destination == NULL || source->pixels == NULL || destination->pixels == NULL) {
        CPhotoLibJPEG_format_message(message, message_capacity, "paste: missing image");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    const uint32_t in_n = source->components, out_n = destination->components;
    if (in_n != out_n && !(in_n == 1 && out_n == 3)) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "paste: cannot paste %u components into an image with %u", in_n, out_n);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    for (uint32_t row = 0; row < source->height; row++) {
        int64_t ty = (int64_t)y + row;
        if (ty < 0 || ty >= (int64_t)destination->height) {
            continue;
        }
        for (uint32_t column = 0; column < source->width; column++) {
            int64_t tx = (int64_t)x + column;
            if (tx < 0 || tx >= (int64_t)destination->width) {
                continue;
            }
            const uint8_t *in = source->pixels + ((size_t)row * source->width + column) * in_n;
            uint8_t *out = destination->pixels + ((size_t)ty * destination->width + (size_t)tx) * out_n;
            for (uint32_t k = 0; k < out_n; k++) {
                out[k] = in[in_n == 1 ? 0 : k];
            }
        }
    }
    return CPhotoLibJPEG_OK;
}
