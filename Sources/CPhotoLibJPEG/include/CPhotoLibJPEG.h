/*
 * CPhotoLibJPEG: libjpeg-turbo decode/encode sessions, a resampler and the EXIF
 * orientation transforms, behind a small C API that Swift can call safely.
 *
 * Why Swift cannot call libjpeg directly:
 *  - libjpeg reports fatal errors through error_exit(), whose default calls exit().
 *    The only way to regain control is longjmp() out of the library, which Swift
 *    cannot do (and cannot survive being jumped over). So every libjpeg session
 *    (create → read/write → destroy) lives entirely inside one C function guarded by
 *    setjmp(), and returns a status code plus a message a person can read.
 *  - jpeg_create_decompress / jpeg_create_compress are macros and do not import.
 *  - jpeglib.h needs <stddef.h> and <stdio.h> before it; this header does not include
 *    jpeglib.h at all, so no libjpeg type leaks into Swift.
 *
 * Pixel work (resampling, orientation) is in C too: Swift test builds are debug builds,
 * and per-pixel loops in unoptimised Swift are far too slow for 16-megapixel photos.
 *
 * Every symbol carries the CPhotoLibJPEG_ prefix.
 */
#ifndef CPHOTOLIBJPEG_H
#define CPHOTOLIBJPEG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MARK: Status codes (returned by every function below). */

/* Success. */
#define CPhotoLibJPEG_OK 0
/* The bytes are not a JPEG stream (empty, or no SOI marker). */
#define CPhotoLibJPEG_NOT_JPEG 1
/* The stream ends before the image is complete. */
#define CPhotoLibJPEG_TRUNCATED 2
/* The stream is damaged (bad markers, bad Huffman codes, any libjpeg warning). */
#define CPhotoLibJPEG_CORRUPT 3
/* A configured limit (pixels, input bytes, memory, scans) refuses the image. */
#define CPhotoLibJPEG_TOO_LARGE 4
/* A valid JPEG this library does not handle (12-bit, unknown colour space, ...). */
#define CPhotoLibJPEG_UNSUPPORTED 5
/* The caller passed an invalid argument (size, quality, orientation, NULL). */
#define CPhotoLibJPEG_INVALID_ARGUMENT 6
/* Out of memory or an unexpected library state. */
#define CPhotoLibJPEG_INTERNAL 7

/* The work was stopped through its CPhotoLibJPEG_Control (cancelled by the caller). */
#define CPhotoLibJPEG_CANCELLED 8

/* Size of the message buffers callers pass in (longer messages are truncated). */
#define CPhotoLibJPEG_MESSAGE_CAPACITY 320

/* MARK: Limits */

/* Limits applied to every decode, checked before the corresponding allocation. */
typedef struct CPhotoLibJPEG_Limits {
    /* Maximum width * height declared in the frame header (SOF). */
    uint64_t max_pixels;
    /* Maximum size of the compressed input. */
    uint64_t max_input_bytes;
    /* Maximum memory for libjpeg (max_memory_to_use) and for our pixel buffers. */
    uint64_t max_memory_bytes;
    /* Maximum number of scans (SOS markers); progressive files have ~10 normally. */
    uint32_t max_scans;
    /* Maximum decode work, as width * height * scans (every scan walks the image's
     * coefficients); 0: no limit. */
    uint64_t max_scan_pixels;
} CPhotoLibJPEG_Limits;

/* MARK: Control (cancellation and progress across threads) */

/*
 * Shared between the thread running a decode/encode and the threads that watch it:
 * another thread may cancel the work, and read how far it got. The fields are plain
 * integers accessed only through the functions below, which use atomic builtins
 * (Swift does not import C11 _Atomic fields).
 */
typedef struct CPhotoLibJPEG_Control {
    int32_t cancelled;
    int32_t progress_permille;
} CPhotoLibJPEG_Control;

/* Allocates a zeroed control (NULL when out of memory). Free with CPhotoLibJPEG_control_free. */
CPhotoLibJPEG_Control *CPhotoLibJPEG_control_new(void);
/* Frees a control. NULL is allowed. */
void CPhotoLibJPEG_control_free(CPhotoLibJPEG_Control *control);
/* Asks the work to stop: it fails with CPhotoLibJPEG_CANCELLED at its next check
 * (between scanline batches of the decode loop, between input rows, between encoded rows). */
void CPhotoLibJPEG_control_cancel(CPhotoLibJPEG_Control *control);
/* Non-zero once cancelled. */
int32_t CPhotoLibJPEG_control_is_cancelled(const CPhotoLibJPEG_Control *control);
/* Decode progress, 0...1000 (libjpeg's passes: input absorption, then output). */
int32_t CPhotoLibJPEG_control_progress(const CPhotoLibJPEG_Control *control);

/* MARK: Headers */

/* What the frame header says about a JPEG stream. */
typedef struct CPhotoLibJPEG_HeaderInfo {
    /* Stored (unrotated) dimensions from the SOF marker. */
    uint32_t width;
    uint32_t height;
    /* Number of colour components in the stream (1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK). */
    int32_t components;
    /* Non-zero when the stream is progressive (SOF2 / SOF10). */
    int32_t is_progressive;
    /* Non-zero when the stream is CMYK or YCCK (decoded to RGB by this library). */
    int32_t is_cmyk;
} CPhotoLibJPEG_HeaderInfo;

/*
 * Reads the markers up to the first scan (no entropy decode) and fills `info`.
 * Applies max_input_bytes and max_pixels; refuses unsupported colour spaces.
 * `message` receives a readable explanation on failure (capacity `message_capacity`).
 */
int CPhotoLibJPEG_read_header(const uint8_t *data, size_t size,
                              const CPhotoLibJPEG_Limits *limits,
                              CPhotoLibJPEG_HeaderInfo *info,
                              char *message, size_t message_capacity);

/* MARK: Pixel buffers */

/*
 * An interleaved 8-bit pixel buffer owned by this library: 1 component (gray) or
 * 3 (RGB), rows of width*components bytes, no padding. Release with
 * CPhotoLibJPEG_image_free (which tolerates an already-freed or zeroed image).
 */
typedef struct CPhotoLibJPEG_Image {
    uint8_t *pixels;
    uint32_t width;
    uint32_t height;
    uint32_t components;
} CPhotoLibJPEG_Image;

/* Frees the pixels of `image` (if any) and zeroes it. */
void CPhotoLibJPEG_image_free(CPhotoLibJPEG_Image *image);

/*
 * Allocates a zeroed image of the given size (components 1, 3 or 4).
 * Used by callers that build pixels themselves (tests, encoders of synthetic images).
 */
int CPhotoLibJPEG_image_alloc(uint32_t width, uint32_t height, uint32_t components,
                              CPhotoLibJPEG_Image *image,
                              char *message, size_t message_capacity);

/* MARK: Decoding */

/*
 * Decodes the whole stream with DCT scaling scale_num/8 (scale_num 1...8).
 *
 * Output is gray (1 component) for grayscale streams and RGB (3) for everything else;
 * CMYK and YCCK (Adobe inverted or not) are converted to RGB here.
 * Any libjpeg warning (premature end of data, corrupt data, ...) fails the decode,
 * except the two that concern metadata only (unknown JFIF revision, unknown Adobe
 * transform). The scan count is limited by limits->max_scans.
 *
 * If `image` is NULL the scanlines are decoded and discarded (validation only).
 * `info` (may be NULL) receives the header. On failure `image` is left zeroed.
 */
int CPhotoLibJPEG_decode(const uint8_t *data, size_t size,
                         const CPhotoLibJPEG_Limits *limits,
                         uint32_t scale_num,
                         CPhotoLibJPEG_HeaderInfo *info,
                         CPhotoLibJPEG_Image *image,
                         char *message, size_t message_capacity);

/* How CPhotoLibJPEG_decode_ex decodes. Zero-initialise, then set what you need. */
typedef struct CPhotoLibJPEG_DecodeOptions {
    /* DCT scale scale_num/8, 1...8. */
    uint32_t scale_num;
    /* A crop of the scaled output, in output pixels: only these rows and columns are kept
     * (crop_width == 0: the whole image). Must lie inside the scaled output. */
    uint32_t crop_x;
    uint32_t crop_y;
    uint32_t crop_width;
    uint32_t crop_height;
    /* Progressive streams at scale 1/8 only: hand libjpeg only the scans whose coefficients
     * its reduced inverse DCTs read (see CPhotoLibJPEG_scan_plan), with block smoothing off.
     * The pixels are those of the whole stream decoded at 1/8, byte for byte; the work drops
     * to the DC scans (plus the chroma AC scans of a 4:2:0 file). Damage inside the Huffman
     * data of a skipped scan is not detected (it is never decoded); the file's structure, its
     * end and the scan limits still are. Ignored for sequential streams and other scales. */
    int32_t skip_unneeded_scans;
    /* When non-NULL: polled for cancellation between scanline batches and input rows, and
     * updated with progress. */
    CPhotoLibJPEG_Control *control;
    /* When color_op_count > 0: these colour operations (see CPhotoLibJPEG_ColorOp below) are
     * applied to each output row as it is decoded, while it is in cache, and the output is
     * RGB even for a grayscale stream. At most 64. */
    const struct CPhotoLibJPEG_ColorOp *color_ops;
    size_t color_op_count;
} CPhotoLibJPEG_DecodeOptions;

/* What CPhotoLibJPEG_scan_plan (or a decode asked to skip scans) found. */
typedef struct CPhotoLibJPEG_ScanPlan {
    /* CPhotoLibJPEG_SCANS_* below. */
    int32_t outcome;
    /* Scans (SOS markers) in the whole file, and those the decode reads. */
    uint32_t total_scans;
    uint32_t kept_scans;
    /* Bytes of the file, and those libjpeg is given (all of them unless scans are skipped). */
    uint64_t total_bytes;
    uint64_t kept_bytes;
    /* The size of each component's reduced inverse DCT at this scale (first four components;
     * 1: DC only, 2: rows and columns 0, 1, 3, 5, 7). */
    uint32_t idct_size[4];
} CPhotoLibJPEG_ScanPlan;

/* Scans are skipped. */
#define CPhotoLibJPEG_SCANS_SKIPPED 0
/* Not asked (skip_unneeded_scans was 0). */
#define CPhotoLibJPEG_SCANS_NOT_ASKED 1
/* A sequential stream, or an arithmetic-coded one. */
#define CPhotoLibJPEG_SCANS_NOT_PROGRESSIVE 2
/* A scale above 1/8. */
#define CPhotoLibJPEG_SCANS_SCALE 3
/* Every scan carries something the decode reads. */
#define CPhotoLibJPEG_SCANS_NOTHING_TO_SKIP 4
/* Some of the first ten coefficients stay incomplete after the last scan: libjpeg's full decode
 * smooths such blocks, so only the full decode gives its pixels. */
#define CPhotoLibJPEG_SCANS_SMOOTHING 5
/* The data ends before EOI (the full decode reports it). */
#define CPhotoLibJPEG_SCANS_TRUNCATED 6
/* A structure the scan planner leaves to the full decode (a bogus progression, DNL, a stray
 * marker, garbage between segments, more than 1024 scans). */
#define CPhotoLibJPEG_SCANS_UNUSUAL 7

/*
 * CPhotoLibJPEG_decode with options: DCT scale, crop, skipped progressive scans, colour
 * operations, cancellation. Output, limits and warnings-as-damage are as for
 * CPhotoLibJPEG_decode. `scan_plan` (may be NULL) receives what skip_unneeded_scans did.
 */
int CPhotoLibJPEG_decode_ex(const uint8_t *data, size_t size,
                            const CPhotoLibJPEG_Limits *limits,
                            const CPhotoLibJPEG_DecodeOptions *options,
                            CPhotoLibJPEG_HeaderInfo *info,
                            CPhotoLibJPEG_Image *image,
                            CPhotoLibJPEG_ScanPlan *scan_plan,
                            char *message, size_t message_capacity);

/*
 * Which scans of `data` a decode at DCT scale scale_num/8 needs (plj_scans.c), without
 * decoding any: reads the header, asks libjpeg for each component's reduced IDCT size, and
 * walks the file's markers. Skipping applies at 1/8 only: at 1/8 libjpeg-turbo reconstructs a
 * component with a 1×1 IDCT (DC only) or, for the chroma of 4:2:0 files, a 2×2 one (rows and
 * columns 0, 1, 3, 5, 7 of each block); a scan carrying none of those coefficients is skipped.
 * Fails like CPhotoLibJPEG_decode on a bad header, and with TOO_LARGE when the file's scans
 * exceed limits->max_scans or max_scan_pixels.
 */
int CPhotoLibJPEG_scan_plan(const uint8_t *data, size_t size,
                            const CPhotoLibJPEG_Limits *limits,
                            uint32_t scale_num,
                            CPhotoLibJPEG_ScanPlan *plan,
                            char *message, size_t message_capacity);

/*
 * The size libjpeg produces for a dimension at DCT scale scale_num/8:
 * ceil(dimension * scale_num / 8).
 */
uint32_t CPhotoLibJPEG_scaled_dimension(uint32_t dimension, uint32_t scale_num);

/* MARK: Encoding */

/*
 * Encodes `image` (1 component gray, 3 RGB, or 4 CMYK written with an Adobe marker
 * in Adobe's inverted convention) as a baseline JPEG at `quality` (1...100, 4:2:0
 * chroma subsampling for colour). On success `*output` is a malloc'd buffer of
 * `*output_size` bytes; release it with CPhotoLibJPEG_buffer_free.
 */
int CPhotoLibJPEG_encode(const CPhotoLibJPEG_Image *image, int quality,
                         uint8_t **output, size_t *output_size,
                         char *message, size_t message_capacity);

/* How CPhotoLibJPEG_encode_ex encodes. Zero-initialise, then set what you need. */
typedef struct CPhotoLibJPEG_EncodeOptions {
    /* 1...100. */
    int32_t quality;
    /* Luma sampling factors for colour output: 1x1 = 4:4:4, 2x1 = 4:2:2, 2x2 = 4:2:0,
     * 1x2 = 4:4:0. 0 (either) = 2x2. */
    int32_t h_samp;
    int32_t v_samp;
    /* Non-zero: progressive (libjpeg's default scan script). */
    int32_t progressive;
    /* Restart interval in MCU rows (0: no restart markers). */
    int32_t restart_rows;
    /* For 4-component input: 0 = YCCK (the default, Adobe transform 2), 1 = plain CMYK
     * (Adobe transform 0). Ignored otherwise. */
    int32_t plain_cmyk;
    /* Non-zero: optimised Huffman tables (one more pass; smaller files). */
    int32_t optimize_coding;
    /* When non-NULL: polled for cancellation every 16 rows. */
    CPhotoLibJPEG_Control *control;
} CPhotoLibJPEG_EncodeOptions;

/* CPhotoLibJPEG_encode with options (sampling, progressive, restart markers, CMYK form). */
int CPhotoLibJPEG_encode_ex(const CPhotoLibJPEG_Image *image,
                            const CPhotoLibJPEG_EncodeOptions *options,
                            uint8_t **output, size_t *output_size,
                            char *message, size_t message_capacity);

/* Frees a buffer returned by CPhotoLibJPEG_encode. NULL is allowed. */
void CPhotoLibJPEG_buffer_free(uint8_t *buffer);

/* MARK: Resampling */

/*
 * Resizes `source` to width x height with a separable Lanczos-3 filter whose support is
 * widened by the scale factor when downscaling (so every source pixel contributes:
 * proper antialiasing). Upscaling uses the plain Lanczos-3 kernel.
 * `max_memory_bytes` bounds the intermediate + output buffers (0 = no limit).
 * `destination` must be zeroed; it receives a new image owned by the caller.
 */
int CPhotoLibJPEG_resample(const CPhotoLibJPEG_Image *source,
                           uint32_t width, uint32_t height,
                           uint64_t max_memory_bytes,
                           CPhotoLibJPEG_Image *destination,
                           char *message, size_t message_capacity);

/*
 * A box-filter shrinker fed one row at a time: each output pixel is the rounded mean of a
 * factor x factor block of source pixels (partial blocks at the right and bottom edges are
 * averaged over the pixels they have). Decoders that cannot scale while decoding (PNG, WebP,
 * HEIF) feed it their rows, so a 12-megapixel photo wanted at 256 pixels never needs a
 * full-size buffer; the Lanczos resampler then finishes from at least twice the output size.
 * Factor 1 copies the rows. Fields are private to the shrinker functions.
 */
typedef struct CPhotoLibJPEG_Shrinker {
    CPhotoLibJPEG_Image image;
    uint32_t *sums;
    uint32_t factor;
    uint32_t source_width;
    uint32_t source_height;
    uint32_t rows_fed;
} CPhotoLibJPEG_Shrinker;

/* Output size of one side `dimension` shrunk by `factor` (rounded up). */
uint32_t CPhotoLibJPEG_shrunk_dimension(uint32_t dimension, uint32_t factor);

/*
 * Prepares `shrinker` (which it zeroes first) for a source of width x height with 1 or 3
 * components, and allocates the output and one row of sums; fails with TOO_LARGE when they
 * exceed max_memory_bytes (0 = no limit), INVALID_ARGUMENT for a zero size or factor.
 */
int CPhotoLibJPEG_shrinker_init(CPhotoLibJPEG_Shrinker *shrinker, uint32_t width, uint32_t height,
                                uint32_t components, uint32_t factor, uint64_t max_memory_bytes,
                                char *message, size_t message_capacity);

/* Adds the next source row (width * components bytes). Rows beyond the height are ignored. */
void CPhotoLibJPEG_shrinker_add_row(CPhotoLibJPEG_Shrinker *shrinker, const uint8_t *row);

/* Moves the finished output (all rows fed) into `image`, which the caller then owns. */
void CPhotoLibJPEG_shrinker_take(CPhotoLibJPEG_Shrinker *shrinker, CPhotoLibJPEG_Image *image);

/* Frees whatever the shrinker still holds. Safe on a zeroed or taken shrinker. */
void CPhotoLibJPEG_shrinker_free(CPhotoLibJPEG_Shrinker *shrinker);

/*
 * Copies the rectangle (x, y, width, height) of `source` into a new image `destination`
 * (which must be zeroed). The rectangle must lie inside the source.
 */
int CPhotoLibJPEG_crop(const CPhotoLibJPEG_Image *source,
                       uint32_t x, uint32_t y, uint32_t width, uint32_t height,
                       CPhotoLibJPEG_Image *destination,
                       char *message, size_t message_capacity);

/*
 * Pastes `source` into `destination` with its top-left corner at (x, y), clipping what
 * falls outside. Gray sources are expanded into RGB destinations; components must
 * otherwise match. Used to compose contact sheets.
 */
int CPhotoLibJPEG_paste(const CPhotoLibJPEG_Image *source, CPhotoLibJPEG_Image *destination,
                        int32_t x, int32_t y, char *message, size_t message_capacity);

/* MARK: Orientation */

/*
 * Applies EXIF orientation `orientation` (1...8) so the result is upright:
 * 1 identity, 2 mirror horizontally, 3 rotate 180°, 4 mirror vertically,
 * 5 transpose, 6 rotate 90° clockwise, 7 transverse, 8 rotate 90° counter-clockwise.
 * For 5...8 the destination is height x width. `destination` must be zeroed.
 */
int CPhotoLibJPEG_orient(const CPhotoLibJPEG_Image *source, int orientation,
                         CPhotoLibJPEG_Image *destination,
                         char *message, size_t message_capacity);

/* MARK: Colour operations (plj_filter.c; the maths is in docs/FILTERS.md) */

/* The nine filters; the numbers are FilterName's in Protos/editing.proto. */
#define CPhotoLibJPEG_FILTER_NOIR 1
#define CPhotoLibJPEG_FILTER_MONO 2
#define CPhotoLibJPEG_FILTER_TONAL 3
#define CPhotoLibJPEG_FILTER_SEPIA 4
#define CPhotoLibJPEG_FILTER_CHROME 5
#define CPhotoLibJPEG_FILTER_FADE 6
#define CPhotoLibJPEG_FILTER_INSTANT 7
#define CPhotoLibJPEG_FILTER_PROCESS 8
#define CPhotoLibJPEG_FILTER_TRANSFER 9

/*
 * One per-pixel colour transform: m = clamp((matrix · rgb + 2048) >> 12), then each channel
 * through its tone curve, then blended with the input by amount / 4096. Built by the
 * functions below and applied by CPhotoLibJPEG_decode_ex (DecodeOptions.color_ops) to each
 * row as it is decoded; plain data, so an array of them can be built once and used for many
 * images.
 */
typedef struct CPhotoLibJPEG_ColorOp {
    /* Row-major 3×3 matrix in Q12 (4096 = 1.0). */
    int32_t matrix[9];
    /* Tone curves: red at 0, green at 256, blue at 512. */
    uint8_t curve[768];
    /* 0...4096: how much of the transformed colour replaces the input. */
    int32_t amount;
    /* Derived by the constructors: each curve indexed by the unclamped matrix result + 384
     * (clamping built in), and whether every matrix result of 8-bit input lies in −384...639. */
    uint8_t wide_curve[3 * 1024];
    int32_t wide_fits;
} CPhotoLibJPEG_ColorOp;

/* A filter (CPhotoLibJPEG_FILTER_*) at an intensity of 0...1000 per mille. */
int CPhotoLibJPEG_color_op_filter(int32_t filter, int32_t amount_permille, CPhotoLibJPEG_ColorOp *op,
                                  char *message, size_t message_capacity);
/* Exposure: every channel times 2^(ev_hundredths / 100), -400...400. */
int CPhotoLibJPEG_color_op_exposure(int32_t ev_hundredths, CPhotoLibJPEG_ColorOp *op,
                                    char *message, size_t message_capacity);
/* Contrast around mid-gray: (v - 128) · (1 + amount / 1000) + 128, amount -1000...1000. */
int CPhotoLibJPEG_color_op_contrast(int32_t amount_permille, CPhotoLibJPEG_ColorOp *op,
                                    char *message, size_t message_capacity);
/* Saturation around luma: factor 1 + amount / 1000 (0 gray ... 2), amount -1000...1000. */
int CPhotoLibJPEG_color_op_saturation(int32_t amount_permille, CPhotoLibJPEG_ColorOp *op,
                                      char *message, size_t message_capacity);

#ifdef __cplusplus
}
#endif

/* Writes a printf-style message into `message` (at most `capacity` bytes, always
 * terminated; nothing when `message` is NULL or `capacity` 0): how every PhotoLib decoder
 * shim reports an error to its Swift caller. */
void CPhotoLibJPEG_format_message(char *message, size_t capacity, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* CPHOTOLIBJPEG_H */
