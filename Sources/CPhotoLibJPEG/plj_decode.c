/*
 * Decode sessions: header inspection and full decode with DCT scaling.
 *
 * Each public function runs one whole libjpeg session (create, read, destroy) under
 * setjmp, because libjpeg's errors longjmp (see plj_session.h) and Swift cannot.
 *
 * Related libjpeg documentation: libjpeg.txt, "Decompression details",
 * "Decompression parameter selection", "Special color spaces", "Progress monitoring",
 * "Memory management".
 */
#include "plj_session.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The shim hands 8-bit interleaved samples to Swift; a 12-bit libjpeg build would break that. */
_Static_assert(BITS_IN_JSAMPLE == 8, "CPhotoLibJPEG needs an 8-bit libjpeg");
_Static_assert(sizeof(JSAMPLE) == sizeof(uint8_t), "JSAMPLE must be one byte");

CPhotoLibJPEG_Control *CPhotoLibJPEG_control_new(void) {
    return calloc(1, sizeof(CPhotoLibJPEG_Control));
}

void CPhotoLibJPEG_control_free(CPhotoLibJPEG_Control *control) {
    free(control);
}

void CPhotoLibJPEG_control_cancel(CPhotoLibJPEG_Control *control) {
    if (control != NULL) {
        __atomic_store_n(&control->cancelled, 1, __ATOMIC_RELEASE);
    }
}

int32_t CPhotoLibJPEG_control_is_cancelled(const CPhotoLibJPEG_Control *control) {
    return control != NULL ? __atomic_load_n(&control->cancelled, __ATOMIC_ACQUIRE) : 0;
}

int32_t CPhotoLibJPEG_control_progress(const CPhotoLibJPEG_Control *control) {
    return control != NULL ? __atomic_load_n(&control->progress_permille, __ATOMIC_RELAXED) : 0;
}

/* Fails the session with CANCELLED when the control says so. */
static void CPhotoLibJPEG_check_cancelled(j_common_ptr common, const CPhotoLibJPEG_Control *control) {
    if (CPhotoLibJPEG_control_is_cancelled(control)) {
        CPhotoLibJPEG_fail(common, CPhotoLibJPEG_CANCELLED, "the image work was cancelled");
    }
}

/*
 * Called by libjpeg before each unit of input consumption. input_scan_number counts
 * SOS markers seen so far; a file with thousands of scans makes libjpeg re-walk the
 * whole coefficient buffer per scan, so we stop it early.
 * Related libjpeg documentation: libjpeg.txt, "Progress monitoring".
 */
static void CPhotoLibJPEG_progress_monitor(j_common_ptr common) {
    CPhotoLibJPEG_Progress *progress = (CPhotoLibJPEG_Progress *)common->progress;
    if (!common->is_decompressor) {
        return;
    }
    j_decompress_ptr decompress = (j_decompress_ptr)common;
    if (progress->max_scans > 0 && (uint32_t)decompress->input_scan_number > progress->max_scans) {
        CPhotoLibJPEG_fail(common, CPhotoLibJPEG_TOO_LARGE,
                           "JPEG has more than %u scans (the configured maximum); refusing it",
                           progress->max_scans);
    }
    uint64_t work = (uint64_t)decompress->image_width * decompress->image_height * (uint64_t)decompress->input_scan_number;
    if (progress->max_scan_pixels > 0 && work > progress->max_scan_pixels) {
        CPhotoLibJPEG_fail(common, CPhotoLibJPEG_TOO_LARGE,
                           "decoding this %ux%u JPEG takes %d scans or more, more decode work than the configured maximum "
                           "(%llu pixel-scans); refusing it",
                           decompress->image_width, decompress->image_height, decompress->input_scan_number,
                           (unsigned long long)progress->max_scan_pixels);
    }
    CPhotoLibJPEG_Control *control = progress->control;
    if (control != NULL) {
        CPhotoLibJPEG_check_cancelled(common, control);
        long passes = progress->pub.total_passes > 0 ? progress->pub.total_passes : 1;
        double within = progress->pub.pass_limit > 0
                            ? (double)progress->pub.pass_counter / (double)progress->pub.pass_limit
                            : 0.0;
        double fraction = ((double)progress->pub.completed_passes + within) / (double)passes;
        int32_t permille = fraction <= 0 ? 0 : (fraction >= 1 ? 1000 : (int32_t)(fraction * 1000));
        __atomic_store_n(&control->progress_permille, permille, __ATOMIC_RELAXED);
    }
}

uint32_t CPhotoLibJPEG_scaled_dimension(uint32_t dimension, uint32_t scale_num) {
    return (uint32_t)(((uint64_t)dimension * scale_num + 7) / 8);
}

/* Checks done before libjpeg sees the bytes. Returns OK or a failure status. */
int CPhotoLibJPEG_precheck(const uint8_t *data, size_t size,
                           const CPhotoLibJPEG_Limits *limits,
                           char *message, size_t capacity) {
    if (limits == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "no limits given");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    if (size == 0 || data == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "not a JPEG file: the input is empty (0 bytes)");
        return CPhotoLibJPEG_NOT_JPEG;
    }
    if (limits->max_input_bytes > 0 && (uint64_t)size > limits->max_input_bytes) {
        CPhotoLibJPEG_format_message(message, capacity,
                                  "JPEG input is %zu bytes, more than the configured maximum of %llu bytes",
                                  size, (unsigned long long)limits->max_input_bytes);
        return CPhotoLibJPEG_TOO_LARGE;
    }
    if ((unsigned long)size != size) {
        CPhotoLibJPEG_format_message(message, capacity, "JPEG input too large for libjpeg");
        return CPhotoLibJPEG_TOO_LARGE;
    }
    if (size < 2 || data[0] != 0xFF || data[1] != 0xD8) {
        if (size >= 2) {
            CPhotoLibJPEG_format_message(message, capacity,
                                      "not a JPEG file: starts with 0x%02X 0x%02X, expected the SOI marker 0xFF 0xD8",
                                      data[0], data[1]);
        } else {
            CPhotoLibJPEG_format_message(message, capacity,
                                      "not a JPEG file: only %zu byte, expected the SOI marker 0xFF 0xD8", size);
        }
        return CPhotoLibJPEG_NOT_JPEG;
    }
    return CPhotoLibJPEG_OK;
}

/*
 * After jpeg_read_header: enforce max_pixels (before any pixel allocation) and the
 * colour spaces we handle, and fill `info`. Longjmps on failure.
 */
void CPhotoLibJPEG_check_header(j_decompress_ptr decompress,
                                const CPhotoLibJPEG_Limits *limits,
                                CPhotoLibJPEG_HeaderInfo *info) {
    uint64_t pixels = (uint64_t)decompress->image_width * decompress->image_height;
    if (decompress->image_width == 0 || decompress->image_height == 0) {
        CPhotoLibJPEG_fail((j_common_ptr)decompress, CPhotoLibJPEG_CORRUPT,
                           "corrupt JPEG data: the frame header declares an empty image (%ux%u)",
                           decompress->image_width, decompress->image_height);
    }
    if (limits->max_pixels > 0 && pixels > limits->max_pixels) {
        CPhotoLibJPEG_fail((j_common_ptr)decompress, CPhotoLibJPEG_TOO_LARGE,
                           "JPEG declares %ux%u pixels (%.1f megapixels), more than the configured maximum of %llu pixels",
                           decompress->image_width, decompress->image_height,
                           (double)pixels / 1e6, (unsigned long long)limits->max_pixels);
    }
    int is_cmyk = 0;
    switch (decompress->jpeg_color_space) {
    case JCS_GRAYSCALE:
    case JCS_YCbCr:
    case JCS_RGB:
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        is_cmyk = 1;
        break;
    default:
        CPhotoLibJPEG_fail((j_common_ptr)decompress, CPhotoLibJPEG_UNSUPPORTED,
                           "unsupported colour space: %d components with libjpeg colour space %d "
                           "(supported: grayscale, YCbCr, RGB, CMYK, YCCK)",
                           decompress->num_components, (int)decompress->jpeg_color_space);
    }
    if (info != NULL) {
        info->width = decompress->image_width;
        info->height = decompress->image_height;
        info->components = decompress->num_components;
        info->is_progressive = decompress->progressive_mode ? 1 : 0;
        info->is_cmyk = is_cmyk;
    }
}

/* Common session setup: error manager, libjpeg memory limit, source, scan limit. */
void CPhotoLibJPEG_start(j_decompress_ptr decompress,
                         CPhotoLibJPEG_ErrorManager *manager,
                         CPhotoLibJPEG_Progress *progress,
                         const uint8_t *data, size_t size,
                         const CPhotoLibJPEG_Limits *limits) {
    decompress->mem->max_memory_to_use =
        limits->max_memory_bytes > (uint64_t)LONG_MAX ? LONG_MAX : (long)limits->max_memory_bytes;
    jpeg_mem_src(decompress, data, (unsigned long)size);
    manager->source = decompress->src;
    progress->pub.progress_monitor = CPhotoLibJPEG_progress_monitor;
    progress->max_scans = limits->max_scans;
    progress->max_scan_pixels = limits->max_scan_pixels;
    decompress->progress = &progress->pub;
}

int CPhotoLibJPEG_read_header(const uint8_t *data, size_t size,
                              const CPhotoLibJPEG_Limits *limits,
                              CPhotoLibJPEG_HeaderInfo *info,
                              char *message, size_t message_capacity) {
    int status = CPhotoLibJPEG_precheck(data, size, limits, message, message_capacity);
    if (status != CPhotoLibJPEG_OK) {
        return status;
    }
    struct jpeg_decompress_struct decompress;
    CPhotoLibJPEG_ErrorManager manager;
    CPhotoLibJPEG_Progress progress;
    memset(&progress, 0, sizeof progress);
    memset(&decompress, 0, sizeof decompress);
    CPhotoLibJPEG_error_manager_init(&manager, message, message_capacity, size);
    decompress.err = &manager.pub;
    if (setjmp(manager.jump)) {
        jpeg_destroy_decompress(&decompress);
        return manager.status;
    }
    jpeg_create_decompress(&decompress);
    CPhotoLibJPEG_start(&decompress, &manager, &progress, data, size, limits);
    if (jpeg_read_header(&decompress, TRUE) != JPEG_HEADER_OK) {
        CPhotoLibJPEG_fail((j_common_ptr)&decompress, CPhotoLibJPEG_CORRUPT,
                           "corrupt JPEG data: the stream holds tables but no image");
    }
    CPhotoLibJPEG_check_header(&decompress, limits, info);
    jpeg_destroy_decompress(&decompress);
    return CPhotoLibJPEG_OK;
}

/*
 * Rough memory libjpeg needs beyond small tables: the whole-image coefficient buffer
 * for multi-scan (progressive) files, plus our output. Used to refuse early, with a
 * clear message, instead of failing deep inside libjpeg.
 */
static uint64_t CPhotoLibJPEG_estimated_memory(j_decompress_ptr decompress, int keep_image) {
    uint64_t total = 0;
    if (decompress->progressive_mode || decompress->comps_in_scan < decompress->num_components) {
        for (int ci = 0; ci < decompress->num_components; ci++) {
            const jpeg_component_info *component = &decompress->comp_info[ci];
            uint64_t blocks = (uint64_t)(component->width_in_blocks + component->h_samp_factor) *
                              (uint64_t)(component->height_in_blocks + component->v_samp_factor);
            total += blocks * DCTSIZE2 * sizeof(JCOEF);
        }
    }
    uint64_t row = (uint64_t)decompress->output_width * (uint64_t)decompress->out_color_components;
    total += keep_image ? row * decompress->output_height : row;
    return total;
}

/* Converts one CMYK row (Adobe inverted when `inverted`) to RGB. */
static void CPhotoLibJPEG_cmyk_row_to_rgb(const JSAMPLE *cmyk, uint8_t *rgb, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++) {
        unsigned c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
        if (!inverted) {
            c = 255 - c;
            m = 255 - m;
            y = 255 - y;
            k = 255 - k;
        }
        /* Inverted values: 255 means no ink. R = (1 - C)(1 - K) = c' * k'. */
        rgb[3 * x] = (uint8_t)((c * k + 127) / 255);
        rgb[3 * x + 1] = (uint8_t)((m * k + 127) / 255);
        rgb[3 * x + 2] = (uint8_t)((y * k + 127) / 255);
    }
}

int CPhotoLibJPEG_decode(const uint8_t *data, size_t size,
                         const CPhotoLibJPEG_Limits *limits,
                         uint32_t scale_num,
                         CPhotoLibJPEG_HeaderInfo *info,
                         CPhotoLibJPEG_Image *image,
                         char *message, size_t message_capacity) {
    CPhotoLibJPEG_DecodeOptions options;
    memset(&options, 0, sizeof options);
    options.scale_num = scale_num;
    return CPhotoLibJPEG_decode_ex(data, size, limits, &options, info, image, NULL, message, message_capacity);
}

/* Copies one decoded row (already RGB or gray) into the output, keeping only the crop columns. */
static void CPhotoLibJPEG_store_row(const uint8_t *row, uint8_t *pixels, uint32_t out_row,
                                    uint32_t crop_x, uint32_t out_width, uint32_t components) {
    memcpy(pixels + (size_t)out_row * out_width * components, row + (size_t)crop_x * components,
           (size_t)out_width * components);
}

int CPhotoLibJPEG_decode_ex(const uint8_t *data, size_t size,
                            const CPhotoLibJPEG_Limits *limits,
                            const CPhotoLibJPEG_DecodeOptions *options,
                            CPhotoLibJPEG_HeaderInfo *info,
                            CPhotoLibJPEG_Image *image,
                            CPhotoLibJPEG_ScanPlan *scan_plan,
                            char *message, size_t message_capacity) {
    if (image != NULL) {
        memset(image, 0, sizeof *image);
    }
    if (scan_plan != NULL) {
        memset(scan_plan, 0, sizeof *scan_plan);
        scan_plan->outcome = CPhotoLibJPEG_SCANS_NOT_ASKED;
    }
    if (options == NULL) {
        CPhotoLibJPEG_format_message(message, message_capacity, "decode: no options given");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    uint32_t scale_num = options->scale_num;
    if (scale_num < 1 || scale_num > 8) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "DCT scale %u/8 is out of range (1/8...8/8)", scale_num);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    if (CPhotoLibJPEG_control_is_cancelled(options->control)) {
        CPhotoLibJPEG_format_message(message, message_capacity, "the image work was cancelled");
        return CPhotoLibJPEG_CANCELLED;
    }
    int status = CPhotoLibJPEG_precheck(data, size, limits, message, message_capacity);
    if (status != CPhotoLibJPEG_OK) {
        return status;
    }
    struct jpeg_decompress_struct decompress;
    CPhotoLibJPEG_ErrorManager manager;
    CPhotoLibJPEG_Progress progress;
    memset(&progress, 0, sizeof progress);
    memset(&decompress, 0, sizeof decompress);
    /* Written between setjmp and a possible longjmp: must be volatile. */
    uint8_t *volatile pixels = NULL;
    CPhotoLibJPEG_error_manager_init(&manager, message, message_capacity, size);
    decompress.err = &manager.pub;
    if (setjmp(manager.jump)) {
        jpeg_destroy_decompress(&decompress);
        free(pixels);
        return manager.status;
    }
    jpeg_create_decompress(&decompress);
    CPhotoLibJPEG_start(&decompress, &manager, &progress, data, size, limits);
    progress.control = options->control;
    if (jpeg_read_header(&decompress, TRUE) != JPEG_HEADER_OK) {
        CPhotoLibJPEG_fail((j_common_ptr)&decompress, CPhotoLibJPEG_CORRUPT,
                           "corrupt JPEG data: the stream holds tables but no image");
    }
    CPhotoLibJPEG_HeaderInfo header;
    CPhotoLibJPEG_check_header(&decompress, limits, &header);
    if (info != NULL) {
        *info = header;
    }

    /* Colour operations to apply row by row, if any. */
    CPhotoLibJPEG_ColorPlan plan;
    int colored = 0;
    if (options->color_op_count > 0) {
        if (options->color_ops == NULL || !CPhotoLibJPEG_color_plan(options->color_ops, options->color_op_count, &plan)) {
            CPhotoLibJPEG_fail((j_common_ptr)&decompress, CPhotoLibJPEG_INVALID_ARGUMENT,
                               "decode: %zu colour operations (1...64 with a list)", options->color_op_count);
        }
        colored = 1;
    }

    /* Output colour space: gray stays gray (RGB when colour operations apply), CMYK/YCCK
     * come out as CMYK and we convert. */
    int cmyk_inverted = 0;
    switch (decompress.jpeg_color_space) {
    case JCS_GRAYSCALE:
        decompress.out_color_space = colored ? JCS_RGB : JCS_GRAYSCALE;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        decompress.out_color_space = JCS_CMYK;
        cmyk_inverted = decompress.saw_Adobe_marker ? 1 : 0;
        break;
    default:
        decompress.out_color_space = JCS_RGB;
        break;
    }
    decompress.scale_num = scale_num;
    decompress.scale_denom = 8;
    decompress.dct_method = JDCT_ISLOW;
    decompress.do_fancy_upsampling = TRUE;
    jpeg_calc_output_dimensions(&decompress);
    if (options->skip_unneeded_scans) {
        /* Progressive at 1/8: feed libjpeg only the scans its reduced IDCTs read (plj_scans.c).
         * Block smoothing off: the full decode would not smooth either (checked there). */
        CPhotoLibJPEG_ScanPlan scans;
        CPhotoLibJPEG_Range *ranges = NULL;
        size_t range_count = 0;
        if (CPhotoLibJPEG_plan_scans(&decompress, data, size, limits, &scans, &ranges, &range_count)) {
            CPhotoLibJPEG_use_ranges(&decompress, data, ranges, range_count);
            manager.source = decompress.src;
            manager.input_start = data;
            decompress.do_block_smoothing = FALSE;
        }
        if (scan_plan != NULL) {
            *scan_plan = scans;
        }
    }

    uint32_t full_width = decompress.output_width;
    uint32_t full_height = decompress.output_height;
    uint32_t crop_x = 0, crop_y = 0, width = full_width, height = full_height;
    if (options->crop_width > 0 || options->crop_height > 0) {
        if (options->crop_width == 0 || options->crop_height == 0 ||
            (uint64_t)options->crop_x + options->crop_width > full_width ||
            (uint64_t)options->crop_y + options->crop_height > full_height) {
            CPhotoLibJPEG_fail((j_common_ptr)&decompress, CPhotoLibJPEG_INVALID_ARGUMENT,
                               "crop %ux%u at (%u, %u) does not lie inside the %ux%u decoded image",
                               options->crop_width, options->crop_height, options->crop_x, options->crop_y,
                               full_width, full_height);
        }
        crop_x = options->crop_x;
        crop_y = options->crop_y;
        width = options->crop_width;
        height = options->crop_height;
    }

    uint64_t needed = CPhotoLibJPEG_estimated_memory(&decompress, 0) +
                      (image != NULL ? (uint64_t)width * height * decompress.out_color_components : 0);
    if (limits->max_memory_bytes > 0 && needed > limits->max_memory_bytes) {
        CPhotoLibJPEG_fail((j_common_ptr)&decompress, CPhotoLibJPEG_TOO_LARGE,
                           "decoding this %ux%u JPEG at scale %u/8 needs about %.1f MB, more than the configured maximum of %.1f MB",
                           decompress.image_width, decompress.image_height, scale_num,
                           CPhotoLibJPEG_megabytes(needed), CPhotoLibJPEG_megabytes(limits->max_memory_bytes));
    }

    uint32_t out_components = (decompress.out_color_space == JCS_GRAYSCALE) ? 1 : 3;
    if (image != NULL) {
        size_t total = CPhotoLibJPEG_image_bytes(width, height, out_components);
        if (total == 0) {
            CPhotoLibJPEG_fail((j_common_ptr)&decompress, CPhotoLibJPEG_TOO_LARGE,
                               "decoded image size %ux%u overflows memory", width, height);
        }
        pixels = malloc(total);
        if (pixels == NULL) {
            CPhotoLibJPEG_fail((j_common_ptr)&decompress, CPhotoLibJPEG_INTERNAL,
                               "out of memory allocating %.1f MB for the decoded image",
                               CPhotoLibJPEG_megabytes(total));
        }
    }

    jpeg_start_decompress(&decompress);
    if (decompress.output_width != full_width || decompress.output_height != full_height) {
        CPhotoLibJPEG_fail((j_common_ptr)&decompress, CPhotoLibJPEG_INTERNAL,
                           "libjpeg changed the output size after start (%ux%u, expected %ux%u)",
                           decompress.output_width, decompress.output_height, full_width, full_height);
    }
    /* Scratch row from libjpeg's image pool: freed by jpeg_destroy_decompress on every path. */
    JSAMPARRAY scratch = (*decompress.mem->alloc_sarray)((j_common_ptr)&decompress, JPOOL_IMAGE,
                                                         full_width * (JDIMENSION)decompress.output_components, 1);
    JSAMPARRAY converted = (*decompress.mem->alloc_sarray)((j_common_ptr)&decompress, JPOOL_IMAGE,
                                                           full_width * (JDIMENSION)out_components, 1);
    while (decompress.output_scanline < decompress.output_height) {
        uint32_t y = decompress.output_scanline;
        JSAMPROW rows[1] = { scratch[0] };
        if (jpeg_read_scanlines(&decompress, rows, 1) != 1) {
            CPhotoLibJPEG_fail((j_common_ptr)&decompress, CPhotoLibJPEG_TRUNCATED,
                               "truncated JPEG data: libjpeg returned no scanline at row %u of %u (%zu bytes of input)",
                               y, full_height, size);
        }
        if (pixels == NULL || y < crop_y || y >= crop_y + height) {
            continue;
        }
        const uint8_t *row = scratch[0];
        if (out_components != (uint32_t)decompress.output_components) {
            CPhotoLibJPEG_cmyk_row_to_rgb(scratch[0], converted[0], full_width, cmyk_inverted);
            row = converted[0];
        }
        CPhotoLibJPEG_store_row(row, pixels, y - crop_y, crop_x, width, out_components);
        if (colored) {
            CPhotoLibJPEG_color_plan_row(&plan, pixels + (size_t)(y - crop_y) * width * 3, width);
        }
    }
    /* Reads up to EOI: a missing or damaged tail still fails (as a warning). */
    jpeg_finish_decompress(&decompress);
    jpeg_destroy_decompress(&decompress);
    if (options->control != NULL) {
        __atomic_store_n(&options->control->progress_permille, 1000, __ATOMIC_RELAXED);
    }

    if (image != NULL) {
        image->pixels = pixels;
        image->width = width;
        image->height = height;
        image->components = out_components;
    }
    return CPhotoLibJPEG_OK;
}
