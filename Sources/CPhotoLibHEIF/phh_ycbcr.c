/*
 * YCbCr → RGB for 8-bit HEIF images, one row at a time, so that the conversion can feed the
 * box shrinker directly instead of libheif first converting the whole image (a quarter of a
 * 12-megapixel decode's time in libheif 1.15). Chroma is taken from the nearest sample, as
 * libheif's own 8-bit conversion does, with the matrix and range of the image's nclx profile
 * (libheif's sRGB default, BT.601 full range, when there is none).
 *
 * Related specifications: ITU-T H.273 (matrix_coefficients, video_full_range_flag), ITU-R
 * BT.601, BT.709, BT.2020 (Kr, Kb).
 */
#include "phh_internal.h"

#include <stdlib.h>

#include <libheif/heif.h>

/* Kr and Kb of an H.273 matrix; 0 for matrices this path does not handle (GBR, YCgCo, ...). */
static int CPhotoLibHEIF_kr_kb(int matrix, double *kr, double *kb) {
    switch (matrix) {
    case 1: /* BT.709 */
        *kr = 0.2126, *kb = 0.0722;
        return 1;
    case 2: /* unspecified: libheif uses BT.601 */
    case 4: /* FCC (BT.601's within rounding; libheif treats it as 601) */
    case 5: /* BT.470 B/G */
    case 6: /* BT.601 */
        *kr = 0.299, *kb = 0.114;
        return 1;
    case 7: /* SMPTE 240M */
        *kr = 0.212, *kb = 0.087;
        return 1;
    case 9: /* BT.2020 non-constant luminance */
        *kr = 0.2627, *kb = 0.0593;
        return 1;
    default:
        return 0;
    }
}

int CPhotoLibHEIF_ycbcr_matrix(const struct heif_image *image, const struct heif_image_handle *handle,
                               CPhotoLibHEIF_YCbCrMatrix *matrix) {
    struct heif_color_profile_nclx *nclx = NULL;
    int coefficients = 6, full_range = 1;
    if (heif_image_get_nclx_color_profile(image, &nclx).code == heif_error_Ok && nclx != NULL) {
        coefficients = nclx->matrix_coefficients;
        full_range = nclx->full_range_flag != 0;
    } else if (heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok && nclx != NULL) {
        coefficients = nclx->matrix_coefficients;
        full_range = nclx->full_range_flag != 0;
    }
    heif_nclx_color_profile_free(nclx);
    double kr, kb;
    if (!CPhotoLibHEIF_kr_kb(coefficients, &kr, &kb)) {
        return 0;
    }
    double kg = 1.0 - kr - kb;
    double luma_scale = full_range ? 1.0 : 255.0 / 219.0;
    double chroma_scale = full_range ? 1.0 : 255.0 / 224.0;
    matrix->luma_offset = full_range ? 0 : 16;
    matrix->luma = (int32_t)(luma_scale * 65536.0 + 0.5);
    matrix->cr_r = (int32_t)(2.0 * (1.0 - kr) * chroma_scale * 65536.0 + 0.5);
    matrix->cb_g = (int32_t)(2.0 * kb * (1.0 - kb) / kg * chroma_scale * 65536.0 + 0.5);
    matrix->cr_g = (int32_t)(2.0 * kr * (1.0 - kr) / kg * chroma_scale * 65536.0 + 0.5);
    matrix->cb_b = (int32_t)(2.0 * (1.0 - kb) * chroma_scale * 65536.0 + 0.5);
    return 1;
}

static inline uint8_t CPhotoLibHEIF_clamp(int32_t value) {
    value = (value + 32768) >> 16;
    return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
}

void CPhotoLibHEIF_ycbcr_row(const CPhotoLibHEIF_YCbCrMatrix *matrix, const uint8_t *y, const uint8_t *cb,
                             const uint8_t *cr, int width, int chroma_shift, uint8_t *rgb) {
    for (int x = 0; x < width; x++) {
        int32_t luma = ((int32_t)y[x] - matrix->luma_offset) * matrix->luma;
        int32_t u = (int32_t)cb[x >> chroma_shift] - 128, v = (int32_t)cr[x >> chroma_shift] - 128;
        rgb[3 * x] = CPhotoLibHEIF_clamp(luma + matrix->cr_r * v);
        rgb[3 * x + 1] = CPhotoLibHEIF_clamp(luma - matrix->cb_g * u - matrix->cr_g * v);
        rgb[3 * x + 2] = CPhotoLibHEIF_clamp(luma + matrix->cb_b * u);
    }
}
