/*
 * Integer-factor box shrinking, row by row. See CPhotoLibJPEG_Shrinker in CPhotoLibJPEG.h.
 */
#include "plj_internal.h"

#include <stdlib.h>
#include <string.h>

uint32_t CPhotoLibJPEG_shrunk_dimension(uint32_t dimension, uint32_t factor) {
    if (factor == 0) {
        return dimension;
    }
    return (uint32_t)(((uint64_t)dimension + factor - 1) / factor);
}

int CPhotoLibJPEG_shrinker_init(CPhotoLibJPEG_Shrinker *shrinker, uint32_t width, uint32_t height,
                                uint32_t components, uint32_t factor, uint64_t max_memory_bytes,
                                char *message, size_t message_capacity) {
    if (shrinker == NULL) {
        CPhotoLibJPEG_format_message(message, message_capacity, "shrinker_init: missing shrinker");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    memset(shrinker, 0, sizeof *shrinker);
    if (width == 0 || height == 0 || factor == 0 || (components != 1 && components != 3)) {
        CPhotoLibJPEG_format_message(message, message_capacity, "shrinker_init: %ux%u, %u components, factor %u", width,
                                  height, components, factor);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    uint32_t out_width = CPhotoLibJPEG_shrunk_dimension(width, factor);
    uint32_t out_height = CPhotoLibJPEG_shrunk_dimension(height, factor);
    size_t bytes = CPhotoLibJPEG_image_bytes(out_width, out_height, components);
    size_t sums = factor > 1 ? (size_t)out_width * components * sizeof(uint32_t) : 0;
    if (bytes == 0 || (max_memory_bytes != 0 && (uint64_t)bytes + sums > max_memory_bytes)) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "a %ux%u image needs %zu bytes, over the memory limit of %llu", out_width,
                                  out_height, bytes, (unsigned long long)max_memory_bytes);
        return CPhotoLibJPEG_TOO_LARGE;
    }
    shrinker->image.pixels = malloc(bytes);
    shrinker->sums = sums > 0 ? calloc(1, sums) : NULL;
    if (shrinker->image.pixels == NULL || (sums > 0 && shrinker->sums == NULL)) {
        CPhotoLibJPEG_shrinker_free(shrinker);
        CPhotoLibJPEG_format_message(message, message_capacity, "out of memory for a %ux%u image", out_width, out_height);
        return CPhotoLibJPEG_INTERNAL;
    }
    shrinker->image.width = out_width;
    shrinker->image.height = out_height;
    shrinker->image.components = components;
    shrinker->factor = factor;
    shrinker->source_width = width;
    shrinker->source_height = height;
    return CPhotoLibJPEG_OK;
}

void CPhotoLibJPEG_shrinker_add_row(CPhotoLibJPEG_Shrinker *shrinker, const uint8_t *row) {
    if (shrinker == NULL || shrinker->image.pixels == NULL || row == NULL ||
        shrinker->rows_fed >= shrinker->source_height) {
        return;
    }
    uint32_t y = shrinker->rows_fed++;
    uint32_t factor = shrinker->factor, components = shrinker->image.components;
    uint32_t width = shrinker->source_width, out_width = shrinker->image.width;
    size_t out_row_bytes = (size_t)out_width * components;
    uint8_t *target = shrinker->image.pixels + (size_t)(y / factor) * out_row_bytes;
    if (factor == 1) {
        memcpy(target, row, out_row_bytes);
        return;
    }
    uint32_t *sums = shrinker->sums;
    for (uint32_t ox = 0, x = 0; ox < out_width; ox++) {
        uint32_t end = x + factor < width ? x + factor : width;
        uint32_t *sum = sums + (size_t)ox * components;
        if (components == 3) {
            for (; x < end; x++) {
                sum[0] += row[3 * (size_t)x];
                sum[1] += row[3 * (size_t)x + 1];
                sum[2] += row[3 * (size_t)x + 2];
            }
        } else {
            for (; x < end; x++) {
                sum[0] += row[x];
            }
        }
    }
    uint32_t block_end = (y / factor + 1) * factor;
    if (y + 1 != block_end && y + 1 != shrinker->source_height) {
        return;
    }
    /* The block's last row: write the means and start the next block. */
    uint32_t rows = y + 1 - (y / factor) * factor;
    for (uint32_t ox = 0; ox < out_width; ox++) {
        uint32_t first = ox * factor;
        uint32_t columns = first + factor <= width ? factor : width - first;
        uint32_t count = rows * columns;
        for (uint32_t c = 0; c < components; c++) {
            uint32_t *sum = sums + (size_t)ox * components + c;
            target[(size_t)ox * components + c] = (uint8_t)((*sum + count / 2) / count);
            *sum = 0;
        }
    }
}

void CPhotoLibJPEG_shrinker_take(CPhotoLibJPEG_Shrinker *shrinker, CPhotoLibJPEG_Image *image) {
    if (shrinker == NULL || image == NULL) {
        return;
    }
    *image = shrinker->image;
    memset(&shrinker->image, 0, sizeof shrinker->image);
    CPhotoLibJPEG_shrinker_free(shrinker);
}

void CPhotoLibJPEG_shrinker_free(CPhotoLibJPEG_Shrinker *shrinker) {
    if (shrinker == NULL) {
        return;
    }
    free(shrinker->image.pixels);
    free(shrinker->sums);
    shrinker->image.pixels = NULL;
    shrinker->sums = NULL;
}
