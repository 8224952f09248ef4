/*
 * Helpers shared by the CPhotoLibJPEG .c files. Not part of the public header:
 * nothing here is visible to Swift.
 */
#ifndef CPHOTOLIBJPEG_INTERNAL_H
#define CPHOTOLIBJPEG_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "include/CPhotoLibJPEG.h"

/* Bytes needed for an image, or 0 when width * height * components overflows size_t. */
static inline size_t CPhotoLibJPEG_image_bytes(uint64_t width, uint64_t height, uint64_t components) {
    if (width == 0 || height == 0 || components == 0) {
        return 0;
    }
    if (width > SIZE_MAX / height || width * height > SIZE_MAX / components) {
        return 0;
    }
    return (size_t)(width * height * components);
}

/* Megabytes for messages. */
static inline double CPhotoLibJPEG_megabytes(uint64_t bytes) {
    return (double)bytes / (1024.0 * 1024.0);
}

/* Colour operations prepared for a row loop (plj_filter.c): their matrix kinds, so each row
 * runs the cheapest loop. */
typedef struct CPhotoLibJPEG_ColorPlan {
    const CPhotoLibJPEG_ColorOp *ops;
    size_t count;
    int kinds[64];
} CPhotoLibJPEG_ColorPlan;

/* Prepares `count` operations (at most 64; returns 0 otherwise). */
int CPhotoLibJPEG_color_plan(const CPhotoLibJPEG_ColorOp *ops, size_t count, CPhotoLibJPEG_ColorPlan *plan);
/* Applies a plan to one row of `width` RGB pixels, in place. */
void CPhotoLibJPEG_color_plan_row(const CPhotoLibJPEG_ColorPlan *plan, uint8_t *row, uint32_t width);

#endif /* CPHOTOLIBJPEG_INTERNAL_H */
