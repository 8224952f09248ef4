/* Internal helpers shared by the CPhotoLibHEIF sources. */
#ifndef CPHOTOLIBHEIF_INTERNAL_H
#define CPHOTOLIBHEIF_INTERNAL_H

#include "include/CPhotoLibHEIF.h"

/*
 * Reads the irot/imir properties associated with the primary item (pitm) from the 'meta'
 * box's 'iprp' ('ipco' + 'ipma'), in association order, into `out` (at most `capacity`).
 * Returns how many were found; 0 for any malformed or missing box (libheif reports the
 * damage itself). Every read is bounded by `size`.
 */
int CPhotoLibHEIF_read_transforms(const uint8_t *data, size_t size, CPhotoLibHEIF_Transform *out, int capacity);

struct heif_image;
struct heif_image_handle;

/* YCbCr → RGB coefficients in 16.16 fixed point (see phh_ycbcr.c). */
typedef struct CPhotoLibHEIF_YCbCrMatrix {
    int32_t luma_offset;
    int32_t luma;
    int32_t cr_r;
    int32_t cb_g;
    int32_t cr_g;
    int32_t cb_b;
} CPhotoLibHEIF_YCbCrMatrix;

/* The matrix of `image`'s nclx profile, else `handle`'s, else libheif's default (BT.601, full
 * range). Returns 0 when the matrix is not one this path converts (GBR, YCgCo, ...). */
int CPhotoLibHEIF_ycbcr_matrix(const struct heif_image *image, const struct heif_image_handle *handle,
                               CPhotoLibHEIF_YCbCrMatrix *matrix);

/* Converts one row: chroma sample x >> chroma_shift (1 for 4:2:0 and 4:2:2, 0 for 4:4:4). */
void CPhotoLibHEIF_ycbcr_row(const CPhotoLibHEIF_YCbCrMatrix *matrix, const uint8_t *y, const uint8_t *cb,
                             const uint8_t *cr, int width, int chroma_shift, uint8_t *rgb);

#endif /* CPHOTOLIBHEIF_INTERNAL_H */
