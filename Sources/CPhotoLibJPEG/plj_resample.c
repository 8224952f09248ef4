/*
 * Separable Lanczos-3 resampler.
 *
 * In C rather than Swift for speed: tests and debug servers run unoptimised Swift,
 * where per-pixel loops over megapixel images are tens of times slower.
 *
 * For each output pixel we precompute the source span and normalised weights once per
 * axis. When downscaling by a factor f, the kernel is stretched by f (support 3f
 * source pixels each side), so the filter integrates every source pixel: proper
 * antialiasing rather than point sampling. Source indices are clamped to the image
 * (edge pixels repeat). One pass into an 8-bit intermediate, then the other (vertical
 * first when the height shrinks, see CPhotoLibJPEG_resample).
 */
#include "plj_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Lanczos window radius (lobes). */
#define CPhotoLibJPEG_LANCZOS_RADIUS 3.0

/* pi (M_PI is not in ISO C). */
#define CPhotoLibJPEG_PI 3.14159265358979323846

/* Weights for one axis: for output i, `taps` weights starting at source index start[i]. */
typedef struct CPhotoLibJPEG_Contributions {
    int32_t *start;
    float *weights;
    uint32_t taps;
} CPhotoLibJPEG_Contributions;

static double CPhotoLibJPEG_sinc(double x) {
    if (x == 0.0) {
        return 1.0;
    }
    double px = CPhotoLibJPEG_PI * x;
    return sin(px) / px;
}

static double CPhotoLibJPEG_lanczos3(double x) {
    if (x <= -CPhotoLibJPEG_LANCZOS_RADIUS || x >= CPhotoLibJPEG_LANCZOS_RADIUS) {
        return 0.0;
    }
    return CPhotoLibJPEG_sinc(x) * CPhotoLibJPEG_sinc(x / CPhotoLibJPEG_LANCZOS_RADIUS);
}

static void CPhotoLibJPEG_contributions_free(CPhotoLibJPEG_Contributions *contributions) {
    free(contributions->start);
    free(contributions->weights);
    contributions->start = NULL;
    contributions->weights = NULL;
}

/*
 * Builds the weights mapping `in_size` source samples to `out_size` output samples.
 * Each output's span is shifted to lie inside [0, in_size) when it would cross an edge,
 * with the weights of outside taps folded onto the nearest edge sample.
 */
static int CPhotoLibJPEG_contributions_make(uint32_t in_size, uint32_t out_size,
                                            CPhotoLibJPEG_Contributions *contributions) {
    double scale = (double)out_size / (double)in_size;
    double stretch = scale < 1.0 ? 1.0 / scale : 1.0;
    double support = CPhotoLibJPEG_LANCZOS_RADIUS * stretch;
    uint32_t taps = (uint32_t)ceil(support * 2.0) + 1;
    if (taps > in_size) {
        taps = in_size;
    }
    contributions->taps = taps;
    contributions->start = calloc(out_size, sizeof(int32_t));
    contributions->weights = calloc((size_t)out_size * taps, sizeof(float));
    if (contributions->start == NULL || contributions->weights == NULL) {
        CPhotoLibJPEG_contributions_free(contributions);
        return 0;
    }
    for (uint32_t i = 0; i < out_size; i++) {
        double center = ((double)i + 0.5) / scale;
        int64_t first = (int64_t)floor(center - support + 0.5);
        int64_t start = first;
        if (start < 0) {
            start = 0;
        }
        if (start + taps > in_size) {
            start = (int64_t)in_size - taps;
        }
        contributions->start[i] = (int32_t)start;
        float *weights = contributions->weights + (size_t)i * taps;
        double total = 0.0;
        int64_t last = (int64_t)floor(center + support + 0.5);
        for (int64_t j = first; j < last; j++) {
            double weight = CPhotoLibJPEG_lanczos3(((double)j + 0.5 - center) / stretch);
            if (weight == 0.0) {
                continue;
            }
            int64_t clamped = j < 0 ? 0 : (j >= (int64_t)in_size ? (int64_t)in_size - 1 : j);
            int64_t slot = clamped - start;
            if (slot < 0) {
                slot = 0;
            }
            if (slot >= (int64_t)taps) {
                slot = taps - 1;
            }
            weights[slot] += (float)weight;
            total += weight;
        }
        if (total != 0.0) {
            for (uint32_t t = 0; t < taps; t++) {
                weights[t] = (float)(weights[t] / total);
            }
        } else {
            int64_t nearest = (int64_t)center - start;
            weights[nearest < 0 ? 0 : (nearest >= (int64_t)taps ? taps - 1 : nearest)] = 1.0f;
        }
    }
    return 1;
}

static inline uint8_t CPhotoLibJPEG_clamp_byte(float value) {
    if (value <= 0.0f) {
        return 0;
    }
    if (value >= 255.0f) {
        return 255;
    }
    return (uint8_t)(value + 0.5f);
}

/*
 * Horizontal pass: every row of `source` from source width to `width`. The hot loop of a
 * thumbnail render, so the common component counts (3: RGB, 1: gray) have their own loops
 * with the count known to the compiler.
 */
static void CPhotoLibJPEG_resample_rows(const uint8_t *source, uint32_t source_width, uint32_t rows,
                                        uint32_t components, const CPhotoLibJPEG_Contributions *c,
                                        uint8_t *destination, uint32_t width) {
    const uint32_t taps = c->taps;
    for (uint32_t y = 0; y < rows; y++) {
        const uint8_t *in = source + (size_t)y * source_width * components;
        uint8_t *out = destination + (size_t)y * width * components;
        if (components == 3) {
            for (uint32_t x = 0; x < width; x++) {
                const float *weights = c->weights + (size_t)x * taps;
                const uint8_t *p = in + (size_t)c->start[x] * 3;
                float r = 0, g = 0, b = 0;
                for (uint32_t t = 0; t < taps; t++, p += 3) {
                    float w = weights[t];
                    r += w * (float)p[0];
                    g += w * (float)p[1];
                    b += w * (float)p[2];
                }
                out[(size_t)x * 3] = CPhotoLibJPEG_clamp_byte(r);
                out[(size_t)x * 3 + 1] = CPhotoLibJPEG_clamp_byte(g);
                out[(size_t)x * 3 + 2] = CPhotoLibJPEG_clamp_byte(b);
            }
        } else if (components == 1) {
            for (uint32_t x = 0; x < width; x++) {
                const float *weights = c->weights + (size_t)x * taps;
                const uint8_t *p = in + c->start[x];
                float sum = 0;
                for (uint32_t t = 0; t < taps; t++) {
                    sum += weights[t] * (float)p[t];
                }
                out[x] = CPhotoLibJPEG_clamp_byte(sum);
            }
        } else {
            for (uint32_t x = 0; x < width; x++) {
                const float *weights = c->weights + (size_t)x * taps;
                const uint8_t *span = in + (size_t)c->start[x] * components;
                float sum[4] = { 0, 0, 0, 0 };
                for (uint32_t t = 0; t < taps; t++) {
                    float w = weights[t];
                    const uint8_t *p = span + (size_t)t * components;
                    for (uint32_t k = 0; k < components; k++) {
                        sum[k] += w * (float)p[k];
                    }
                }
                for (uint32_t k = 0; k < components; k++) {
                    out[(size_t)x * components + k] = CPhotoLibJPEG_clamp_byte(sum[k]);
                }
            }
        }
    }
}

/* Vertical pass: every column of `source` (width `row_samples` samples) to `height` rows. */
static void CPhotoLibJPEG_resample_columns(const uint8_t *source, size_t row_samples,
                                           const CPhotoLibJPEG_Contributions *c,
                                           uint8_t *destination, uint32_t height, float *accumulator) {
    for (uint32_t y = 0; y < height; y++) {
        const float *weights = c->weights + (size_t)y * c->taps;
        memset(accumulator, 0, row_samples * sizeof(float));
        for (uint32_t t = 0; t < c->taps; t++) {
            float w = weights[t];
            if (w == 0.0f) {
                continue;
            }
            const uint8_t *in = source + ((size_t)c->start[y] + t) * row_samples;
            for (size_t s = 0; s < row_samples; s++) {
                accumulator[s] += w * (float)in[s];
            }
        }
        uint8_t *out = destination + (size_t)y * row_samples;
        for (size_t s = 0; s < row_samples; s++) {
            out[s] = CPhotoLibJPEG_clamp_byte(accumulator[s]);
        }
    }
}

int CPhotoLibJPEG_resample(const CPhotoLibJPEG_Image *source,
                           uint32_t width, uint32_t height,
                           uint64_t max_memory_bytes,
                           CPhotoLibJPEG_Image *destination,
                           char *message, size_t message_capacity) {
    if (source == NULL || destination == NULL || source->pixels == NULL) {
        CPhotoLibJPEG_format_message(message, message_capacity, "resample: missing image");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    memset(destination, 0, sizeof *destination);
    uint32_t components = source->components;
    if (components < 1 || components > 4 || source->width == 0 || source->height == 0) {
        CPhotoLibJPEG_format_message(message, message_capacity, "resample: invalid %ux%u image with %u components",
                                  source->width, source->height, components);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    if (width == 0 || height == 0 || width > 65535 || height > 65535) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "resample: target size %ux%u is out of range (1...65535)", width, height);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    /*
     * Pass order: the vertical pass runs over whole rows (it vectorises), the horizontal one
     * pixel by pixel, so when the image shrinks vertically the vertical pass goes first and
     * the horizontal one only sees the output's rows.
     */
    int vertical_first = height < source->height;
    size_t intermediate_bytes = vertical_first ? CPhotoLibJPEG_image_bytes(source->width, height, components)
                                               : CPhotoLibJPEG_image_bytes(width, source->height, components);
    size_t output_bytes = CPhotoLibJPEG_image_bytes(width, height, components);
    size_t accumulator_bytes = (size_t)(vertical_first ? source->width : width) * components * sizeof(float);
    uint64_t needed = (uint64_t)intermediate_bytes + output_bytes + accumulator_bytes;
    if (intermediate_bytes == 0 || output_bytes == 0 ||
        (max_memory_bytes > 0 && needed > max_memory_bytes)) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "resampling %ux%u to %ux%u needs about %.1f MB, more than the configured maximum of %.1f MB",
                                  source->width, source->height, width, height,
                                  CPhotoLibJPEG_megabytes(needed), CPhotoLibJPEG_megabytes(max_memory_bytes));
        return CPhotoLibJPEG_TOO_LARGE;
    }
    uint8_t *output = malloc(output_bytes);
    if (output == NULL) {
        CPhotoLibJPEG_format_message(message, message_capacity, "resample: out of memory (%.1f MB)",
                                  CPhotoLibJPEG_megabytes(output_bytes));
        return CPhotoLibJPEG_INTERNAL;
    }
    if (width == source->width && height == source->height) {
        memcpy(output, source->pixels, output_bytes);
    } else {
        CPhotoLibJPEG_Contributions horizontal = { 0 }, vertical = { 0 };
        uint8_t *intermediate = malloc(intermediate_bytes);
        float *accumulator = malloc(accumulator_bytes);
        int ok = intermediate != NULL && accumulator != NULL &&
                 CPhotoLibJPEG_contributions_make(source->width, width, &horizontal) &&
                 CPhotoLibJPEG_contributions_make(source->height, height, &vertical);
        if (ok && vertical_first) {
            CPhotoLibJPEG_resample_columns(source->pixels, (size_t)source->width * components, &vertical,
                                           intermediate, height, accumulator);
            CPhotoLibJPEG_resample_rows(intermediate, source->width, height, components,
                                        &horizontal, output, width);
        } else if (ok) {
            CPhotoLibJPEG_resample_rows(source->pixels, source->width, source->height, components,
                                        &horizontal, intermediate, width);
            CPhotoLibJPEG_resample_columns(intermediate, (size_t)width * components, &vertical,
                                           output, height, accumulator);
        }
        CPhotoLibJPEG_contributions_free(&horizontal);
        CPhotoLibJPEG_contributions_free(&vertical);
        free(intermediate);
        free(accumulator);
        if (!ok) {
            free(output);
            CPhotoLibJPEG_format_message(message, message_capacity, "resample: out of memory");
            return CPhotoLibJPEG_INTERNAL;
        }
    }
    destination->pixels = output;
    destination->width = width;
    destination->height = height;
    destination->components = components;
    return CPhotoLibJPEG_OK;
}
