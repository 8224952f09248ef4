/*
 * Skipping the scans of a progressive JPEG that a reduced-scale decode never reads.
 *
 * At DCT scale 1/8 libjpeg-turbo reconstructs each component with a reduced inverse DCT whose
 * size jpeg_calc_output_dimensions picks per component (jdmaster.c, the loop that "scales up
 * the chroma components via IDCT scaling rather than upsampling"): 1×1 for most components,
 * but 2×2 (or larger) for a subsampled component whose upsampling it can fold into the IDCT,
 * as the chroma of a 4:2:0 file. The 1×1 IDCT (jpeg_idct_1x1) reads the DC coefficient only;
 * the 2×2 one (jidctred.c jpeg_idct_2x2, and its SSE2 twin) reads rows and columns 0, 1, 3, 5
 * and 7 of the block. Every other coefficient is decoded and then ignored.
 *
 * A progressive file sends its coefficients in scans, each carrying one spectral band
 * [Ss, Se] of some components. A scan that carries no coefficient any component's IDCT reads
 * can be removed from the stream before libjpeg sees it; the remaining stream decodes to the
 * same pixels, provided that
 *  - a kept refinement scan finds every coefficient of its band in the state the full stream
 *    would give it (its decoding depends on which of them are already non-zero), and libjpeg's
 *    progression check sees the same history: so once a scan is kept, every coefficient of its
 *    band counts as needed, and scans are re-examined until nothing changes;
 *  - block smoothing is off (CPhotoLibJPEG_decode_ex turns it off on this path), and the full
 *    decode would not have smoothed either: libjpeg smooths when any of a component's first ten
 *    coefficients (zig-zag 0...9) is still incomplete after the last scan. Such files, rare,
 *    keep the ordinary decode.
 *
 * For a typical camera or libjpeg progression this drops every luma AC scan (most of the file)
 * and, for 4:4:4 and 4:2:2, every chroma AC scan too.
 *
 * The pre-pass walks the whole file's marker structure (memchr over the entropy-coded data for
 * 0xFF, honouring 0xFF00 stuffing and RSTn), so the scan count and decode-work limits still
 * see every scan, and a truncated file is still refused. Anything it does not expect
 * (arithmetic coding, a DNL marker, a bogus progression, a marker where none belongs, a missing
 * EOI) leaves the file to the ordinary decode, which reports it as it always has. Damage to the
 * Huffman-coded data of a skipped scan is not seen (it is never decoded): uploads are validated
 * by a full decode.
 *
 * Related libjpeg documentation: libjpeg.txt, "Decompression parameter selection" (scale_num,
 * do_block_smoothing), "Compressed data handling (source and destination managers)";
 * ITU T.81 G.1.1 (progressive spectral selection and successive approximation).
 */
#include "plj_session.h"

#include <stdlib.h>
#include <string.h>

/* The largest number of scans a file may have for this pre-pass to bookkeep (more: the ordinary
 * decode, whose scan limit refuses such files long before). */
#define CPhotoLibJPEG_SCANS_CAPACITY 1024

/* Natural (row-major) position of zig-zag index k: walks the anti-diagonals of the 8×8 block,
 * alternating direction, as T.81 Figure A.6 draws it. */
static void CPhotoLibJPEG_zigzag_to_natural(int natural[DCTSIZE2]) {
    int k = 0;
    for (int diagonal = 0; diagonal < 2 * DCTSIZE - 1; diagonal++) {
        for (int step = 0; step <= diagonal; step++) {
            /* Even diagonals run bottom-left to top-right (row falls), odd ones the other way. */
            int row = (diagonal % 2 == 0) ? diagonal - step : step;
            int column = diagonal - row;
            if (row < DCTSIZE && column < DCTSIZE) {
                natural[k++] = row * DCTSIZE + column;
            }
        }
    }
}

/* Rows (or columns) of a block that libjpeg-turbo's reduced IDCT of `size` reads, as a bit set;
 * 0xFF (all) for any size other than 1 and 2. */
static unsigned CPhotoLibJPEG_idct_lines(int size) {
    switch (size) {
    case 1:
        return 1u << 0;                                         /* jpeg_idct_1x1: DC only */
    case 2:
        return (1u << 0) | (1u << 1) | (1u << 3) | (1u << 5) | (1u << 7); /* jpeg_idct_2x2 */
    default:
        return 0xFFu;
    }
}

/* The zig-zag coefficients a component's IDCT reads at the current output scale. */
static uint64_t CPhotoLibJPEG_needed_coefficients(const jpeg_component_info *component) {
#if JPEG_LIB_VERSION >= 70
    int rows_size = component->DCT_v_scaled_size, columns_size = component->DCT_h_scaled_size;
#else
    int rows_size = component->DCT_scaled_size, columns_size = component->DCT_scaled_size;
#endif
    unsigned rows = CPhotoLibJPEG_idct_lines(rows_size);
    unsigned columns = CPhotoLibJPEG_idct_lines(columns_size);
    int natural[DCTSIZE2];
    CPhotoLibJPEG_zigzag_to_natural(natural);
    uint64_t needed = 0;
    for (int k = 0; k < DCTSIZE2; k++) {
        int row = natural[k] / DCTSIZE, column = natural[k] % DCTSIZE;
        if ((rows >> row & 1u) && (columns >> column & 1u)) {
            needed |= (uint64_t)1 << k;
        }
    }
    return needed;
}

/* Zig-zag indices Ss...Se as a bit set. */
static uint64_t CPhotoLibJPEG_band(int ss, int se) {
    uint64_t upper = se >= 63 ? ~(uint64_t)0 : (((uint64_t)1 << (se + 1)) - 1);
    uint64_t lower = ((uint64_t)1 << ss) - 1;
    return upper & ~lower;
}

/* One scan as the pre-pass found it. */
typedef struct CPhotoLibJPEG_Scan {
    /* The scan's bytes: its SOS marker (with any fill bytes before it) up to the next marker
     * that is not RSTn. */
    size_t start;
    size_t end;
    /* Indices into comp_info of its components, and how many. */
    int components[MAX_COMPS_IN_SCAN];
    int component_count;
    int ss, se, ah, al;
    int kept;
} CPhotoLibJPEG_Scan;

static uint16_t CPhotoLibJPEG_be16(const uint8_t *p) {
    return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * Walks the marker structure of data[0..<size) and fills `scans` (at most `capacity`).
 * Returns the number of scans, or -1 when the structure is not one the pre-pass handles (the
 * file then takes the ordinary decode). Sets *truncated when the data ends before EOI.
 */
static long CPhotoLibJPEG_find_scans(j_decompress_ptr decompress, const uint8_t *data, size_t size,
                                     CPhotoLibJPEG_Scan *scans, size_t capacity, int *truncated) {
    size_t position = 2; /* after SOI, which the precheck saw */
    size_t count = 0;
    *truncated = 0;
    for (;;) {
        size_t marker_start = position;
        if (position >= size) {
            *truncated = 1;
            return -1;
        }
        if (data[position] != 0xFF) {
            return -1; /* garbage between segments: libjpeg warns; leave it to it */
        }
        while (position < size && data[position] == 0xFF) {
            position++;
        }
        if (position >= size) {
            *truncated = 1;
            return -1;
        }
        uint8_t code = data[position++];
        if (code == 0xD9) { /* EOI */
            return (long)count;
        }
        if (code == 0x01 || code == 0x00 || (code >= 0xD0 && code <= 0xD8) || code == 0xDC || code == 0xCC) {
            return -1; /* TEM, stray RSTn or SOI, DNL, DAC (arithmetic): not for the pre-pass */
        }
        if (position + 2 > size) {
            *truncated = 1;
            return -1;
        }
        size_t length = CPhotoLibJPEG_be16(data + position);
        if (length < 2) {
            return -1;
        }
        if (position + length > size) {
            *truncated = 1;
            return -1;
        }
        if (code != 0xDA) {
            position += length;
            continue;
        }
        /* SOS: Ns, Ns × (Cs, Td|Ta), Ss, Se, Ah|Al. */
        const uint8_t *header = data + position + 2;
        size_t header_length = length - 2;
        if (header_length < 1) {
            return -1;
        }
        int ns = header[0];
        if (ns < 1 || ns > MAX_COMPS_IN_SCAN || header_length != (size_t)(1 + 2 * ns + 3) || count >= capacity) {
            return -1;
        }
        CPhotoLibJPEG_Scan *scan = &scans[count];
        memset(scan, 0, sizeof *scan);
        scan->start = marker_start;
        scan->component_count = ns;
        for (int i = 0; i < ns; i++) {
            int id = header[1 + 2 * i];
            int index = -1;
            for (int ci = 0; ci < decompress->num_components; ci++) {
                if (decompress->comp_info[ci].component_id == id) {
                    index = ci;
                }
            }
            if (index < 0) {
                return -1;
            }
            scan->components[i] = index;
        }
        scan->ss = header[1 + 2 * ns];
        scan->se = header[2 + 2 * ns];
        scan->ah = header[3 + 2 * ns] >> 4;
        scan->al = header[3 + 2 * ns] & 0x0F;
        /* The entropy-coded data: up to the first 0xFF that starts a marker other than RSTn
         * (0xFF00 is a stuffed 0xFF byte; runs of 0xFF are fill before a marker). */
        position += length;
        for (;;) {
            const uint8_t *found = memchr(data + position, 0xFF, size - position);
            if (found == NULL) {
                *truncated = 1;
                return -1;
            }
            size_t ff = (size_t)(found - data);
            size_t next = ff + 1;
            while (next < size && data[next] == 0xFF) {
                next++;
            }
            if (next >= size) {
                *truncated = 1;
                return -1;
            }
            uint8_t following = data[next];
            if (following == 0x00 || (following >= 0xD0 && following <= 0xD7)) {
                position = next + 1;
                continue;
            }
            scan->end = ff;
            position = ff;
            break;
        }
        count++;
    }
}

/*
 * Checks the progression the way libjpeg's start_pass_phuff_decoder does (bad parameters are
 * its errors, inconsistent successive approximation its warnings) and records in `coef_bits`
 * (per component, zig-zag index 0...63: -1 never sent, else the last Al) what the full decode
 * ends with. Returns 0 when libjpeg would complain: the ordinary decode then reports it.
 */
static int CPhotoLibJPEG_check_progression(const CPhotoLibJPEG_Scan *scans, long count, int components,
                                           int coef_bits[MAX_COMPONENTS][DCTSIZE2]) {
    for (int ci = 0; ci < components; ci++) {
        for (int k = 0; k < DCTSIZE2; k++) {
            coef_bits[ci][k] = -1;
        }
    }
    for (long s = 0; s < count; s++) {
        const CPhotoLibJPEG_Scan *scan = &scans[s];
        if (scan->ss == 0 ? scan->se != 0 : (scan->ss > scan->se || scan->se >= DCTSIZE2 || scan->component_count != 1)) {
            return 0;
        }
        if ((scan->ah != 0 && scan->al != scan->ah - 1) || scan->al > 13) {
            return 0;
        }
        for (int i = 0; i < scan->component_count; i++) {
            int *bits = coef_bits[scan->components[i]];
            if (scan->ss > 0 && bits[0] < 0) {
                return 0;
            }
            for (int k = scan->ss; k <= scan->se; k++) {
                int expected = bits[k] < 0 ? 0 : bits[k];
                if (scan->ah != expected) {
                    return 0;
                }
                bits[k] = scan->al;
            }
        }
    }
    return 1;
}

int CPhotoLibJPEG_plan_scans(j_decompress_ptr decompress, const uint8_t *data, size_t size,
                             const CPhotoLibJPEG_Limits *limits, CPhotoLibJPEG_ScanPlan *plan,
                             CPhotoLibJPEG_Range **ranges, size_t *range_count) {
    memset(plan, 0, sizeof *plan);
    *ranges = NULL;
    *range_count = 0;
    plan->total_bytes = size;
    plan->kept_bytes = size;
    for (int ci = 0; ci < decompress->num_components && ci < 4; ci++) {
#if JPEG_LIB_VERSION >= 70
        plan->idct_size[ci] = (uint32_t)decompress->comp_info[ci].DCT_h_scaled_size;
#else
        plan->idct_size[ci] = (uint32_t)decompress->comp_info[ci].DCT_scaled_size;
#endif
    }
    if (!decompress->progressive_mode || decompress->arith_code) {
        plan->outcome = CPhotoLibJPEG_SCANS_NOT_PROGRESSIVE;
        return 0;
    }
    if (decompress->scale_num != 1 || decompress->scale_denom != 8) {
        plan->outcome = CPhotoLibJPEG_SCANS_SCALE;
        return 0;
    }
    CPhotoLibJPEG_Scan *scans = (*decompress->mem->alloc_large)(
        (j_common_ptr)decompress, JPOOL_IMAGE, CPhotoLibJPEG_SCANS_CAPACITY * sizeof(CPhotoLibJPEG_Scan));
    int truncated = 0;
    long count = CPhotoLibJPEG_find_scans(decompress, data, size, scans, CPhotoLibJPEG_SCANS_CAPACITY, &truncated);
    if (count < 0) {
        plan->outcome = truncated ? CPhotoLibJPEG_SCANS_TRUNCATED : CPhotoLibJPEG_SCANS_UNUSUAL;
        return 0;
    }
    plan->total_scans = (uint32_t)count;
    /* The limits the progress monitor applies while scans are read, applied here to every scan
     * of the file (skipped ones included), with the monitor's messages. */
    if (limits->max_scans > 0 && (uint64_t)count > limits->max_scans) {
        CPhotoLibJPEG_fail((j_common_ptr)decompress, CPhotoLibJPEG_TOO_LARGE,
                           "JPEG has more than %u scans (the configured maximum); refusing it", limits->max_scans);
    }
    uint64_t pixels = (uint64_t)decompress->image_width * decompress->image_height;
    if (limits->max_scan_pixels > 0 && pixels * (uint64_t)count > limits->max_scan_pixels) {
        uint64_t first = limits->max_scan_pixels / pixels + 1; /* the scan at which the monitor would stop */
        CPhotoLibJPEG_fail((j_common_ptr)decompress, CPhotoLibJPEG_TOO_LARGE,
                           "decoding this %ux%u JPEG takes %llu scans or more, more decode work than the configured "
                           "maximum (%llu pixel-scans); refusing it",
                           decompress->image_width, decompress->image_height, (unsigned long long)first,
                           (unsigned long long)limits->max_scan_pixels);
    }
    int coef_bits[MAX_COMPONENTS][DCTSIZE2];
    if (decompress->num_components > MAX_COMPONENTS ||
        !CPhotoLibJPEG_check_progression(scans, count, decompress->num_components, coef_bits)) {
        plan->outcome = CPhotoLibJPEG_SCANS_UNUSUAL;
        return 0;
    }
    /* Block smoothing: the full decode smooths when a component's zig-zag 1...9 end incomplete. */
    for (int ci = 0; ci < decompress->num_components; ci++) {
        for (int k = 1; k <= 9; k++) {
            if (coef_bits[ci][k] != 0) {
                plan->outcome = CPhotoLibJPEG_SCANS_SMOOTHING;
                return 0;
            }
        }
    }
    uint64_t needed[MAX_COMPONENTS];
    for (int ci = 0; ci < decompress->num_components; ci++) {
        needed[ci] = CPhotoLibJPEG_needed_coefficients(&decompress->comp_info[ci]);
    }
    /* Keep every scan that carries a needed coefficient; a kept scan's whole band becomes
     * needed (its decoding and libjpeg's progression check depend on the band's history).
     * Repeat until nothing changes (at most one pass per scan). */
    for (int changed = 1; changed;) {
        changed = 0;
        for (long s = 0; s < count; s++) {
            CPhotoLibJPEG_Scan *scan = &scans[s];
            uint64_t band = CPhotoLibJPEG_band(scan->ss, scan->se);
            if (!scan->kept) {
                for (int i = 0; i < scan->component_count; i++) {
                    if (needed[scan->components[i]] & band) {
                        scan->kept = 1;
                    }
                }
            }
            if (scan->kept) {
                for (int i = 0; i < scan->component_count; i++) {
                    if ((needed[scan->components[i]] & band) != band) {
                        needed[scan->components[i]] |= band;
                        changed = 1;
                    }
                }
            }
        }
    }
    /* The ranges of bytes to hand libjpeg, from where jpeg_read_header left it (just after the
     * first SOS header: the first scan is a DC scan, always kept). */
    size_t resume = size - decompress->src->bytes_in_buffer;
    if (count == 0 || !scans[0].kept || resume <= scans[0].start || resume > scans[0].end) {
        plan->outcome = CPhotoLibJPEG_SCANS_UNUSUAL;
        return 0;
    }
    CPhotoLibJPEG_Range *list = (*decompress->mem->alloc_large)(
        (j_common_ptr)decompress, JPOOL_IMAGE, ((size_t)count + 1) * sizeof(CPhotoLibJPEG_Range));
    size_t listed = 0;
    size_t from = resume;
    uint64_t kept_bytes = resume;
    for (long s = 0; s < count; s++) {
        if (scans[s].kept) {
            plan->kept_scans++;
            continue;
        }
        if (scans[s].start > from) {
            list[listed++] = (CPhotoLibJPEG_Range){ from, scans[s].start };
            kept_bytes += scans[s].start - from;
        }
        from = scans[s].end;
    }
    if (plan->kept_scans == plan->total_scans) {
        plan->outcome = CPhotoLibJPEG_SCANS_NOTHING_TO_SKIP;
        return 0;
    }
    list[listed++] = (CPhotoLibJPEG_Range){ from, size };
    kept_bytes += size - from;
    plan->kept_bytes = kept_bytes;
    plan->outcome = CPhotoLibJPEG_SCANS_SKIPPED;
    *ranges = list;
    *range_count = listed;
    return 1;
}

/* MARK: A source manager over byte ranges of one buffer */

typedef struct CPhotoLibJPEG_RangeSource {
    struct jpeg_source_mgr pub;
    const uint8_t *data;
    const CPhotoLibJPEG_Range *ranges;
    size_t count;
    size_t next;
} CPhotoLibJPEG_RangeSource;

static void CPhotoLibJPEG_range_init(j_decompress_ptr decompress) {
    (void)decompress;
}

/* Moves to the next range; past the last one, warns (premature end) and inserts an EOI, as
 * jpeg_mem_src does. */
static boolean CPhotoLibJPEG_range_fill(j_decompress_ptr decompress) {
    static const JOCTET eoi[2] = { 0xFF, JPEG_EOI };
    CPhotoLibJPEG_RangeSource *source = (CPhotoLibJPEG_RangeSource *)decompress->src;
    while (source->next < source->count) {
        const CPhotoLibJPEG_Range *range = &source->ranges[source->next++];
        if (range->end > range->start) {
            source->pub.next_input_byte = source->data + range->start;
            source->pub.bytes_in_buffer = range->end - range->start;
            return TRUE;
        }
    }
    WARNMS(decompress, JWRN_JPEG_EOF);
    source->pub.next_input_byte = eoi;
    source->pub.bytes_in_buffer = 2;
    return TRUE;
}

static void CPhotoLibJPEG_range_skip(j_decompress_ptr decompress, long count) {
    struct jpeg_source_mgr *source = decompress->src;
    if (count <= 0) {
        return;
    }
    while ((size_t)count > source->bytes_in_buffer) {
        count -= (long)source->bytes_in_buffer;
        (void)(*source->fill_input_buffer)(decompress);
    }
    source->next_input_byte += count;
    source->bytes_in_buffer -= (size_t)count;
}

static void CPhotoLibJPEG_range_term(j_decompress_ptr decompress) {
    (void)decompress;
}

void CPhotoLibJPEG_use_ranges(j_decompress_ptr decompress, const uint8_t *data,
                              const CPhotoLibJPEG_Range *ranges, size_t count) {
    CPhotoLibJPEG_RangeSource *source = (*decompress->mem->alloc_small)(
        (j_common_ptr)decompress, JPOOL_PERMANENT, sizeof(CPhotoLibJPEG_RangeSource));
    memset(source, 0, sizeof *source);
    source->pub.init_source = CPhotoLibJPEG_range_init;
    source->pub.fill_input_buffer = CPhotoLibJPEG_range_fill;
    source->pub.skip_input_data = CPhotoLibJPEG_range_skip;
    source->pub.resync_to_restart = jpeg_resync_to_restart;
    source->pub.term_source = CPhotoLibJPEG_range_term;
    source->data = data;
    source->ranges = ranges;
    source->count = count;
    source->next = 1;
    source->pub.next_input_byte = data + ranges[0].start;
    source->pub.bytes_in_buffer = ranges[0].end - ranges[0].start;
    decompress->src = &source->pub;
}

/* MARK: The planner on its own (tests, benchmarks) */

int CPhotoLibJPEG_scan_plan(const uint8_t *data, size_t size,
                            const CPhotoLibJPEG_Limits *limits,
                            uint32_t scale_num,
                            CPhotoLibJPEG_ScanPlan *plan,
                            char *message, size_t message_capacity) {
    if (plan == NULL || scale_num < 1 || scale_num > 8) {
        CPhotoLibJPEG_format_message(message, message_capacity, "scan plan: no plan, or scale %u/8 out of 1/8...8/8",
                                     scale_num);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    memset(plan, 0, sizeof *plan);
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
    CPhotoLibJPEG_check_header(&decompress, limits, NULL);
    decompress.scale_num = scale_num;
    decompress.scale_denom = 8;
    jpeg_calc_output_dimensions(&decompress);
    CPhotoLibJPEG_Range *ranges = NULL;
    size_t range_count = 0;
    (void)CPhotoLibJPEG_plan_scans(&decompress, data, size, limits, plan, &ranges, &range_count);
    jpeg_destroy_decompress(&decompress);
    return CPhotoLibJPEG_OK;
}
