/*
 * Colour operations: the nine Photos-style filters, exposure, contrast and saturation, each
 * one per-pixel transform
 *
 *     m   = clamp(M · (r, g, b) + bias)        3×3 matrix, Q12 fixed point
 *     c   = (curve_r[m.r], curve_g[m.g], curve_b[m.b])   8-bit tone curves
 *     out = in + (c − in) · amount             amount in Q12, 4096 = the full effect
 *
 * Everything is built from integers (matrices in Q12, curves as piecewise-linear control
 * points, rounded the same way every time), except the exposure gain (one exp2 per curve,
 * rounded to Q16 before use), so the same recipe gives the same bytes in the server and in
 * any client running this code. docs/FILTERS.md gives each filter's numbers and a picture.
 *
 * All operations of a recipe run in one pass over the pixels, in place, with no buffer
 * besides the image itself (a grayscale image becomes RGB first, since most filters tint).
 */
#include "plj_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Q12: 4096 is 1.0. */
#define ONE 4096
/* Rec. 601 luma weights in Q12 (sum 4096): the gray of Mono, Tonal and Noir, and the axis
 * saturation scales around. */
#define LUMA_R 1224
#define LUMA_G 2405
#define LUMA_B 467

/* a / b rounded half away from zero, b > 0. */
static int32_t div_round(int64_t a, int64_t b) {
    return (int32_t)(a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b));
}

static uint8_t clamp8(int32_t v) {
    return (uint8_t)(v < 0 ? 0 : (v > 255 ? 255 : v));
}

/* A tone curve through integer control points (x strictly increasing from 0 to 255),
 * linear between them. */
static void curve_points(uint8_t curve[256], const int32_t (*points)[2], int count) {
    int segment = 0;
    for (int32_t x = 0; x < 256; x++) {
        while (segment + 1 < count - 1 && x > points[segment + 1][0]) {
            segment++;
        }
        int32_t x0 = points[segment][0], y0 = points[segment][1];
        int32_t x1 = points[segment + 1][0], y1 = points[segment + 1][1];
        curve[x] = clamp8(y0 + div_round((int64_t)(y1 - y0) * (x - x0), x1 - x0));
    }
}

static void set_identity(CPhotoLibJPEG_ColorOp *op) {
    memset(op, 0, sizeof *op);
    op->matrix[0] = op->matrix[4] = op->matrix[8] = ONE;
    for (int channel = 0; channel < 3; channel++) {
        for (int x = 0; x < 256; x++) {
            op->curve[channel * 256 + x] = (uint8_t)x;
        }
    }
    op->amount = ONE;
}

/* The matrix that takes every channel to luma. */
static void set_gray(CPhotoLibJPEG_ColorOp *op) {
    for (int row = 0; row < 3; row++) {
        op->matrix[row * 3 + 0] = LUMA_R;
        op->matrix[row * 3 + 1] = LUMA_G;
        op->matrix[row * 3 + 2] = LUMA_B;
    }
}

/* Saturation `factor` (Q12; 0 is gray, 4096 unchanged, 8192 twice as saturated):
 * M = L + factor · (I − L), L the luma projection. */
static void set_saturation(CPhotoLibJPEG_ColorOp *op, int32_t factor) {
    const int32_t luma[3] = {LUMA_R, LUMA_G, LUMA_B};
    for (int row = 0; row < 3; row++) {
        for (int column = 0; column < 3; column++) {
            int32_t identity = row == column ? ONE : 0;
            op->matrix[row * 3 + column] =
                luma[column] + div_round((int64_t)factor * (identity - luma[column]), ONE);
        }
    }
}

/* The same curve on all three channels. */
#define SAME_CURVE(op, points) \
    do { \
        curve_points((op)->curve, points, (int)(sizeof points / sizeof points[0])); \
        memcpy((op)->curve + 256, (op)->curve, 256); \
        memcpy((op)->curve + 512, (op)->curve, 256); \
    } while (0)

#define CHANNEL_CURVE(op, channel, points) \
    curve_points((op)->curve + 256 * (channel), points, (int)(sizeof points / sizeof points[0]))

static int check_amount(int32_t amount_permille, char *message, size_t capacity) {
    if (amount_permille < 0 || amount_permille > 1000) {
        CPhotoLibJPEG_set_message(message, capacity, "filter intensity %d‰ is outside 0...1000‰", amount_permille);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    return CPhotoLibJPEG_OK;
}

int CPhotoLibJPEG_color_op_filter(int32_t filter, int32_t amount_permille, CPhotoLibJPEG_ColorOp *op,
                                  char *message, size_t message_capacity) {
    if (op == NULL) {
        CPhotoLibJPEG_set_message(message, message_capacity, "color_op_filter: missing op");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    int status = check_amount(amount_permille, message, message_capacity);
    if (status != CPhotoLibJPEG_OK) {
        return status;
    }
    set_identity(op);
    op->amount = div_round((int64_t)amount_permille * ONE, 1000);
    switch (filter) {
    case CPhotoLibJPEG_FILTER_NOIR: {
        /* Gray with a hard S-curve: deep blacks, bright highlights. */
        static const int32_t s[][2] = {{0, 0}, {48, 18}, {128, 128}, {208, 236}, {255, 255}};
        set_gray(op);
        SAME_CURVE(op, s);
        break;
    }
    case CPhotoLibJPEG_FILTER_MONO: {
        /* Plain luma gray, tones unchanged. */
        set_gray(op);
        break;
    }
    case CPhotoLibJPEG_FILTER_TONAL: {
        /* Gray with lifted blacks and lowered whites: soft, low contrast. */
        static const int32_t s[][2] = {{0, 20}, {128, 134}, {255, 238}};
        set_gray(op);
        SAME_CURVE(op, s);
        break;
    }
    case CPhotoLibJPEG_FILTER_SEPIA: {
        /* The classic sepia matrix (0.393 0.769 0.189 / 0.349 0.686 0.168 / 0.272 0.534 0.131). */
        static const int32_t m[9] = {1610, 3150, 774, 1430, 2810, 688, 1114, 2187, 537};
        memcpy(op->matrix, m, sizeof m);
        break;
    }
    case CPhotoLibJPEG_FILTER_CHROME: {
        /* More saturated (1.25×) with a gentle S-curve. */
        static const int32_t s[][2] = {{0, 0}, {64, 56}, {192, 204}, {255, 255}};
        set_saturation(op, 5120);
        SAME_CURVE(op, s);
        break;
    }
    case CPhotoLibJPEG_FILTER_FADE: {
        /* Less saturated (0.75×), blacks lifted to 32 and whites lowered to 230. */
        static const int32_t s[][2] = {{0, 32}, {128, 132}, {255, 230}};
        set_saturation(op, 3072);
        SAME_CURVE(op, s);
        break;
    }
    case CPhotoLibJPEG_FILTER_INSTANT: {
        /* Slightly desaturated (0.9×), faded and warm: red up, blue down. */
        static const int32_t r[][2] = {{0, 24}, {128, 140}, {255, 250}};
        static const int32_t g[][2] = {{0, 20}, {128, 132}, {255, 240}};
        static const int32_t b[][2] = {{0, 28}, {128, 120}, {255, 220}};
        set_saturation(op, 3686);
        CHANNEL_CURVE(op, 0, r);
        CHANNEL_CURVE(op, 1, g);
        CHANNEL_CURVE(op, 2, b);
        break;
    }
    case CPhotoLibJPEG_FILTER_PROCESS: {
        /* Slightly desaturated (0.9×) and cool: blue lifted in the shadows, red lowered. */
        static const int32_t r[][2] = {{0, 0}, {128, 120}, {255, 245}};
        static const int32_t g[][2] = {{0, 10}, {128, 130}, {255, 250}};
        static const int32_t b[][2] = {{0, 40}, {128, 142}, {255, 240}};
        set_saturation(op, 3686);
        CHANNEL_CURVE(op, 0, r);
        CHANNEL_CURVE(op, 1, g);
        CHANNEL_CURVE(op, 2, b);
        break;
    }
    case CPhotoLibJPEG_FILTER_TRANSFER: {
        /* Desaturated (0.85×), warm and vintage: red lifted, blue highlights held down. */
        static const int32_t r[][2] = {{0, 16}, {128, 142}, {255, 255}};
        static const int32_t g[][2] = {{0, 12}, {128, 130}, {255, 240}};
        static const int32_t b[][2] = {{0, 8}, {128, 112}, {255, 210}};
        set_saturation(op, 3482);
        CHANNEL_CURVE(op, 0, r);
        CHANNEL_CURVE(op, 1, g);
        CHANNEL_CURVE(op, 2, b);
        break;
    }
    default:
        CPhotoLibJPEG_set_message(message, message_capacity,
                                  "unknown filter %d (1 Noir ... 9 Transfer)", filter);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    return CPhotoLibJPEG_OK;
}

int CPhotoLibJPEG_color_op_exposure(int32_t ev_hundredths, CPhotoLibJPEG_ColorOp *op,
                                    char *message, size_t message_capacity) {
    if (op == NULL || ev_hundredths < -400 || ev_hundredths > 400) {
        CPhotoLibJPEG_set_message(message, message_capacity,
                                  "exposure %d/100 EV is outside -4...4 EV", ev_hundredths);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    set_identity(op);
    /* v · 2^EV on the 8-bit values; the gain is rounded to Q16 once. */
    int64_t gain = (int64_t)llround(exp2((double)ev_hundredths / 100.0) * 65536.0);
    for (int x = 0; x < 256; x++) {
        uint8_t v = clamp8((int32_t)((x * gain + 32768) >> 16));
        op->curve[x] = op->curve[256 + x] = op->curve[512 + x] = v;
    }
    return CPhotoLibJPEG_OK;
}

int CPhotoLibJPEG_color_op_contrast(int32_t amount_permille, CPhotoLibJPEG_ColorOp *op,
                                    char *message, size_t message_capacity) {
    if (op == NULL || amount_permille < -1000 || amount_permille > 1000) {
        CPhotoLibJPEG_set_message(message, message_capacity,
                                  "contrast %d‰ is outside -1000...1000‰", amount_permille);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    set_identity(op);
    /* Around mid-gray: v' = 128 + (v − 128) · (1 + amount). */
    for (int x = 0; x < 256; x++) {
        uint8_t v = clamp8(128 + div_round((int64_t)(x - 128) * (1000 + amount_permille), 1000));
        op->curve[x] = op->curve[256 + x] = op->curve[512 + x] = v;
    }
    return CPhotoLibJPEG_OK;
}

int CPhotoLibJPEG_color_op_saturation(int32_t amount_permille, CPhotoLibJPEG_ColorOp *op,
                                      char *message, size_t message_capacity) {
    if (op == NULL || amount_permille < -1000 || amount_permille > 1000) {
        CPhotoLibJPEG_set_message(message, message_capacity,
                                  "saturation %d‰ is outside -1000...1000‰", amount_permille);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    set_identity(op);
    set_saturation(op, div_round((int64_t)(1000 + amount_permille) * ONE, 1000));
    return CPhotoLibJPEG_OK;
}

/* One operation on one pixel, in place. */
static inline void apply_op(const CPhotoLibJPEG_ColorOp *op, int32_t rgb[3]) {
    const int32_t *m = op->matrix;
    int32_t r = rgb[0], g = rgb[1], b = rgb[2];
    uint8_t mr = clamp8((m[0] * r + m[1] * g + m[2] * b + ONE / 2) >> 12);
    uint8_t mg = clamp8((m[3] * r + m[4] * g + m[5] * b + ONE / 2) >> 12);
    uint8_t mb = clamp8((m[6] * r + m[7] * g + m[8] * b + ONE / 2) >> 12);
    int32_t cr = op->curve[mr], cg = op->curve[256 + mg], cb = op->curve[512 + mb];
    if (op->amount >= ONE) {
        rgb[0] = cr;
        rgb[1] = cg;
        rgb[2] = cb;
    } else {
        rgb[0] = r + div_round((int64_t)(cr - r) * op->amount, ONE);
        rgb[1] = g + div_round((int64_t)(cg - g) * op->amount, ONE);
        rgb[2] = b + div_round((int64_t)(cb - b) * op->amount, ONE);
    }
}

int CPhotoLibJPEG_apply_color_ops(CPhotoLibJPEG_Image *image, const CPhotoLibJPEG_ColorOp *ops, size_t count,
                                  CPhotoLibJPEG_Control *control, char *message, size_t message_capacity) {
    if (image == NULL || image->pixels == NULL || (count > 0 && ops == NULL)) {
        CPhotoLibJPEG_set_message(message, message_capacity, "apply_color_ops: missing image or operations");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    if (image->components != 1 && image->components != 3) {
        CPhotoLibJPEG_set_message(message, message_capacity,
                                  "apply_color_ops: %u components (gray or RGB)", image->components);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    if (count == 0) {
        return CPhotoLibJPEG_OK;
    }
    size_t pixels = (size_t)image->width * image->height;
    if (image->components == 1) {
        /* Gray to RGB in place: grow the buffer, then spread from the end backwards. */
        size_t bytes = CPhotoLibJPEG_image_bytes(image->width, image->height, 3);
        uint8_t *grown = bytes == 0 ? NULL : realloc(image->pixels, bytes);
        if (grown == NULL) {
            CPhotoLibJPEG_set_message(message, message_capacity, "apply_color_ops: out of memory (%.1f MB)",
                                      CPhotoLibJPEG_megabytes(bytes));
            return CPhotoLibJPEG_INTERNAL;
        }
        image->pixels = grown;
        for (size_t i = pixels; i-- > 0;) {
            uint8_t v = grown[i];
            grown[3 * i] = grown[3 * i + 1] = grown[3 * i + 2] = v;
        }
        image->components = 3;
    }
    uint8_t *p = image->pixels;
    for (uint32_t y = 0; y < image->height; y++) {
        if ((y & 63) == 0 && control != NULL && CPhotoLibJPEG_control_is_cancelled(control)) {
            CPhotoLibJPEG_set_message(message, message_capacity, "cancelled");
            return CPhotoLibJPEG_CANCELLED;
        }
        for (uint32_t x = 0; x < image->width; x++, p += 3) {
            int32_t rgb[3] = {p[0], p[1], p[2]};
            for (size_t i = 0; i < count; i++) {
                apply_op(&ops[i], rgb);
            }
            p[0] = clamp8(rgb[0]);
            p[1] = clamp8(rgb[1]);
            p[2] = clamp8(rgb[2]);
        }
    }
    return CPhotoLibJPEG_OK;
}
