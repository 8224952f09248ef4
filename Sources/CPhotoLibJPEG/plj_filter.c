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
 * All operations of a recipe run on each row as the decoder produces it (CPhotoLibJPEG_decode_ex
 * with DecodeOptions.color_ops), while the row is in cache: one pass, no buffer besides the
 * image itself (a grayscale stream is decoded as RGB, since most filters tint).
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

static inline uint8_t clamp8(int32_t v) {
    v = v < 0 ? 0 : v;
    return (uint8_t)(v > 255 ? 255 : v);
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

/* Derives the wide curves (clamping built in) once the matrix and curves are final. */
static void finish_op(CPhotoLibJPEG_ColorOp *op) {
    int fits = 1;
    for (int row = 0; row < 3; row++) {
        int32_t low = 0, high = 0;
        for (int column = 0; column < 3; column++) {
            int32_t m = op->matrix[row * 3 + column];
            if (m < 0) low += m * 255; else high += m * 255;
        }
        if (((low + ONE / 2) >> 12) < -384 || ((high + ONE / 2) >> 12) > 639) fits = 0;
    }
    op->wide_fits = fits;
    for (int channel = 0; channel < 3; channel++) {
        for (int i = 0; i < 1024; i++) {
            op->wide_curve[channel * 1024 + i] = op->curve[channel * 256 + clamp8(i - 384)];
        }
    }
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
        CPhotoLibJPEG_format_message(message, capacity, "filter intensity %d‰ is outside 0...1000‰", amount_permille);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    return CPhotoLibJPEG_OK;
}

int CPhotoLibJPEG_color_op_filter(int32_t filter, int32_t amount_permille, CPhotoLibJPEG_ColorOp *op,
                                  char *message, size_t message_capacity) {
    if (op == NULL) {
        CPhotoLibJPEG_format_message(message, message_capacity, "color_op_filter: missing op");
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
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "unknown filter %d (1 Noir ... 9 Transfer)", filter);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    finish_op(op);
    return CPhotoLibJPEG_OK;
}

int CPhotoLibJPEG_color_op_exposure(int32_t ev_hundredths, CPhotoLibJPEG_ColorOp *op,
                                    char *message, size_t message_capacity) {
    if (op == NULL || ev_hundredths < -400 || ev_hundredths > 400) {
        CPhotoLibJPEG_format_message(message, message_capacity,
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
    finish_op(op);
    return CPhotoLibJPEG_OK;
}

int CPhotoLibJPEG_color_op_contrast(int32_t amount_permille, CPhotoLibJPEG_ColorOp *op,
                                    char *message, size_t message_capacity) {
    if (op == NULL || amount_permille < -1000 || amount_permille > 1000) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "contrast %d‰ is outside -1000...1000‰", amount_permille);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    set_identity(op);
    /* Around mid-gray: v' = 128 + (v − 128) · (1 + amount). */
    for (int x = 0; x < 256; x++) {
        uint8_t v = clamp8(128 + div_round((int64_t)(x - 128) * (1000 + amount_permille), 1000));
        op->curve[x] = op->curve[256 + x] = op->curve[512 + x] = v;
    }
    finish_op(op);
    return CPhotoLibJPEG_OK;
}

int CPhotoLibJPEG_color_op_saturation(int32_t amount_permille, CPhotoLibJPEG_ColorOp *op,
                                      char *message, size_t message_capacity) {
    if (op == NULL || amount_permille < -1000 || amount_permille > 1000) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "saturation %d‰ is outside -1000...1000‰", amount_permille);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    set_identity(op);
    set_saturation(op, div_round((int64_t)(1000 + amount_permille) * ONE, 1000));
    finish_op(op);
    return CPhotoLibJPEG_OK;
}

/* How an operation's matrix is applied: the identity is skipped, a gray matrix (every row
 * the same, non-negative, summing to at most 1) needs one dot product and no clamp. */
enum { MATRIX_IDENTITY, MATRIX_GRAY, MATRIX_SHARED, MATRIX_GENERAL };

static int matrix_kind(const int32_t m[9]) {
    if (m[0] == ONE && m[4] == ONE && m[8] == ONE && !m[1] && !m[2] && !m[3] && !m[5] && !m[6] && !m[7]) {
        return MATRIX_IDENTITY;
    }
    int same = m[0] == m[3] && m[0] == m[6] && m[1] == m[4] && m[1] == m[7] && m[2] == m[5] && m[2] == m[8];
    if (same && m[0] >= 0 && m[1] >= 0 && m[2] >= 0 && m[0] + m[1] + m[2] <= ONE) {
        return MATRIX_GRAY;
    }
    /* Each column the same off the diagonal (every saturation matrix): row i is A + D_i e_i,
     * so M·x = (A·x) + D_i x_i exactly, six multiplications instead of nine. */
    if (m[3] == m[6] && m[1] == m[7] && m[2] == m[5]) {
        return MATRIX_SHARED;
    }
    return MATRIX_GENERAL;
}

/* The matrix step of each kind, into or_, og, ob (curve lookups included). */
#define STEP_IDENTITY \
    or_ = cr[r]; og = cg[g]; ob = cb[b];
#define STEP_GRAY \
    { int32_t y_ = (m0 * r + m1 * g + m2 * b + ONE / 2) >> 12; or_ = cr[y_]; og = cg[y_]; ob = cb[y_]; }
/* One loop over a row per (kind, blend) pair, so the inner loop has no branch but the clamps. */
#define ROW_LOOP(STEP, BLEND) \
    for (uint32_t x = 0; x < width; x++, p += 3) { \
        int32_t r = p[0], g = p[1], b = p[2], or_, og, ob; \
        STEP \
        if (BLEND) { \
            or_ = r + (((or_ - r) * amount + ONE / 2) >> 12); \
            og = g + (((og - g) * amount + ONE / 2) >> 12); \
            ob = b + (((ob - b) * amount + ONE / 2) >> 12); \
        } \
        p[0] = (uint8_t)or_; p[1] = (uint8_t)og; p[2] = (uint8_t)ob; \
    }

/* The general matrix on a row, in blocks of 64 pixels: first the three dot products for the
 * block into small arrays (a loop with no table lookup, which the compiler vectorizes), then
 * the curves, the blend and the store. */
static void general_row(const CPhotoLibJPEG_ColorOp *op, uint8_t *p, uint32_t width, int blend) {
    const int32_t m0 = op->matrix[0], m1 = op->matrix[1], m2 = op->matrix[2], m3 = op->matrix[3], m4 = op->matrix[4],
                  m5 = op->matrix[5], m6 = op->matrix[6], m7 = op->matrix[7], m8 = op->matrix[8];
    const uint8_t *cr = op->curve, *cg = op->curve + 256, *cb = op->curve + 512;
    const int32_t amount = op->amount;
    enum { BLOCK = 64 };
    int32_t rr[BLOCK], gg[BLOCK], bb[BLOCK], rr_out[BLOCK], gg_out[BLOCK], bb_out[BLOCK];
    /* MATRIX_SHARED: A = the off-diagonal columns, D = the diagonal's excess (exact). */
    const int shared = matrix_kind(op->matrix) == MATRIX_SHARED;
    const int32_t a0 = m3, a1 = m1, a2 = m2, d0 = m0 - m3, d1 = m4 - m1, d2 = m8 - m2;
    uint8_t a[BLOCK], c[BLOCK], d[BLOCK];
    for (uint32_t start = 0; start < width; start += BLOCK) {
        uint32_t n = width - start < BLOCK ? width - start : BLOCK;
        uint8_t *q = p + (size_t)start * 3;
        for (uint32_t i = 0; i < n; i++) {
            rr[i] = q[3 * i];
            gg[i] = q[3 * i + 1];
            bb[i] = q[3 * i + 2];
        }
        if (op->wide_fits) {
            /* Unclamped results index the wide curves: no clamping in the loop. */
            int32_t *x = rr_out, *y = gg_out, *z = bb_out;
            if (shared) {
                for (uint32_t i = 0; i < n; i++) {
                    int32_t base = a0 * rr[i] + a1 * gg[i] + a2 * bb[i] + ONE / 2 + (384 << 12);
                    x[i] = (base + d0 * rr[i]) >> 12;
                    y[i] = (base + d1 * gg[i]) >> 12;
                    z[i] = (base + d2 * bb[i]) >> 12;
                }
            } else {
                for (uint32_t i = 0; i < n; i++) {
                    x[i] = (m0 * rr[i] + m1 * gg[i] + m2 * bb[i] + ONE / 2 + (384 << 12)) >> 12;
                    y[i] = (m3 * rr[i] + m4 * gg[i] + m5 * bb[i] + ONE / 2 + (384 << 12)) >> 12;
                    z[i] = (m6 * rr[i] + m7 * gg[i] + m8 * bb[i] + ONE / 2 + (384 << 12)) >> 12;
                }
            }
            const uint8_t *wr = op->wide_curve, *wg = op->wide_curve + 1024, *wb = op->wide_curve + 2048;
            if (!blend) {
                for (uint32_t i = 0; i < n; i++) {
                    q[3 * i] = wr[x[i]];
                    q[3 * i + 1] = wg[y[i]];
                    q[3 * i + 2] = wb[z[i]];
                }
            } else {
                for (uint32_t i = 0; i < n; i++) {
                    q[3 * i] = (uint8_t)(rr[i] + (((wr[x[i]] - rr[i]) * amount + ONE / 2) >> 12));
                    q[3 * i + 1] = (uint8_t)(gg[i] + (((wg[y[i]] - gg[i]) * amount + ONE / 2) >> 12));
                    q[3 * i + 2] = (uint8_t)(bb[i] + (((wb[z[i]] - bb[i]) * amount + ONE / 2) >> 12));
                }
            }
            continue;
        }
        if (shared) {
            for (uint32_t i = 0; i < n; i++) {
                int32_t base = a0 * rr[i] + a1 * gg[i] + a2 * bb[i] + ONE / 2;
                int32_t x = (base + d0 * rr[i]) >> 12;
                int32_t y = (base + d1 * gg[i]) >> 12;
                int32_t z = (base + d2 * bb[i]) >> 12;
                x = x < 0 ? 0 : x; x = x > 255 ? 255 : x;
                y = y < 0 ? 0 : y; y = y > 255 ? 255 : y;
                z = z < 0 ? 0 : z; z = z > 255 ? 255 : z;
                a[i] = (uint8_t)x;
                c[i] = (uint8_t)y;
                d[i] = (uint8_t)z;
            }
        } else for (uint32_t i = 0; i < n; i++) {
            int32_t x = (m0 * rr[i] + m1 * gg[i] + m2 * bb[i] + ONE / 2) >> 12;
            int32_t y = (m3 * rr[i] + m4 * gg[i] + m5 * bb[i] + ONE / 2) >> 12;
            int32_t z = (m6 * rr[i] + m7 * gg[i] + m8 * bb[i] + ONE / 2) >> 12;
            x = x < 0 ? 0 : x; x = x > 255 ? 255 : x;
            y = y < 0 ? 0 : y; y = y > 255 ? 255 : y;
            z = z < 0 ? 0 : z; z = z > 255 ? 255 : z;
            a[i] = (uint8_t)x;
            c[i] = (uint8_t)y;
            d[i] = (uint8_t)z;
        }
        if (!blend) {
            for (uint32_t i = 0; i < n; i++) {
                q[3 * i] = cr[a[i]];
                q[3 * i + 1] = cg[c[i]];
                q[3 * i + 2] = cb[d[i]];
            }
        } else {
            for (uint32_t i = 0; i < n; i++) {
                q[3 * i] = (uint8_t)(rr[i] + (((cr[a[i]] - rr[i]) * amount + ONE / 2) >> 12));
                q[3 * i + 1] = (uint8_t)(gg[i] + (((cg[c[i]] - gg[i]) * amount + ONE / 2) >> 12));
                q[3 * i + 2] = (uint8_t)(bb[i] + (((cb[d[i]] - bb[i]) * amount + ONE / 2) >> 12));
            }
        }
    }
}

/* One operation on one row of `width` RGB pixels, in place. The blend rounds with an
 * arithmetic shift (half up), the same on every platform this shim builds for. */
static void apply_op_row(const CPhotoLibJPEG_ColorOp *op, int kind, uint8_t *p, uint32_t width) {
    const int32_t m0 = op->matrix[0], m1 = op->matrix[1], m2 = op->matrix[2], m3 = op->matrix[3], m4 = op->matrix[4],
                  m5 = op->matrix[5], m6 = op->matrix[6], m7 = op->matrix[7], m8 = op->matrix[8];
    const uint8_t *cr = op->curve, *cg = op->curve + 256, *cb = op->curve + 512;
    const int32_t amount = op->amount;
    (void)m3; (void)m4; (void)m5; (void)m6; (void)m7; (void)m8;
    if (amount >= ONE) {
        switch (kind) {
        case MATRIX_IDENTITY: ROW_LOOP(STEP_IDENTITY, 0) break;
        case MATRIX_GRAY: ROW_LOOP(STEP_GRAY, 0) break;
        default: general_row(op, p, width, 0); break;
        }
    } else {
        switch (kind) {
        case MATRIX_IDENTITY: ROW_LOOP(STEP_IDENTITY, 1) break;
        case MATRIX_GRAY: ROW_LOOP(STEP_GRAY, 1) break;
        default: general_row(op, p, width, 1); break;
        }
    }
}

int CPhotoLibJPEG_color_plan(const CPhotoLibJPEG_ColorOp *ops, size_t count, CPhotoLibJPEG_ColorPlan *plan) {
    if (count > 64) {
        return 0;
    }
    plan->ops = ops;
    plan->count = count;
    for (size_t i = 0; i < count; i++) {
        plan->kinds[i] = matrix_kind(ops[i].matrix);
    }
    return 1;
}

void CPhotoLibJPEG_color_plan_row(const CPhotoLibJPEG_ColorPlan *plan, uint8_t *row, uint32_t width) {
    for (size_t i = 0; i < plan->count; i++) {
        apply_op_row(&plan->ops[i], plan->kinds[i], row, width);
    }
}
