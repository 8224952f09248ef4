/*
 * The setjmp-guarded error manager shared by the decode and encode sessions.
 *
 * libjpeg calls error_exit() on a fatal error and, by default, exit()s the process.
 * We install an error manager whose error_exit longjmps back to the session function
 * (which then destroys the libjpeg object and returns a status code), and whose
 * emit_message turns warnings (corrupt or missing data) into failures too.
 * Swift cannot do any of this: it has no setjmp/longjmp, so these sessions are C.
 *
 * Related libjpeg documentation: libjpeg.txt, "Error handling".
 */
#ifndef CPHOTOLIBJPEG_SESSION_H
#define CPHOTOLIBJPEG_SESSION_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>

#include <jpeglib.h>
#include <jerror.h>

#include "plj_internal.h"

/* Our error manager: libjpeg's public fields first, then the jump target and outcome. */
typedef struct CPhotoLibJPEG_ErrorManager {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    /* Status reported when we longjmp; set by our own checks before jumping. */
    int status;
    /* Caller's message buffer. */
    char *message;
    size_t message_capacity;
    /* Total compressed input size, for "after N bytes" messages (0 when encoding). */
    size_t input_size;
    /* Bytes libjpeg has not consumed yet; set by the decoder's source (may be NULL). */
    const struct jpeg_source_mgr *source;
    /* When the source serves ranges of the input (plj_scans.c): the input's first byte, so
     * the offset is where libjpeg's next byte lies in it (NULL otherwise). */
    const uint8_t *input_start;
} CPhotoLibJPEG_ErrorManager;

/* Installs the error manager on `common` (call before jpeg_create_*). */
void CPhotoLibJPEG_error_manager_init(CPhotoLibJPEG_ErrorManager *manager,
                                      char *message, size_t message_capacity,
                                      size_t input_size);

/* Fails the session with our own status and message (longjmps; never returns). */
__attribute__((noreturn, format(printf, 3, 4)))
void CPhotoLibJPEG_fail(j_common_ptr common, int status, const char *format, ...);

/* MARK: Decode session steps shared by plj_decode.c and plj_scans.c */

/* Progress monitor that enforces the scan limits (hostile progressive files). */
typedef struct CPhotoLibJPEG_Progress {
    struct jpeg_progress_mgr pub;
    uint32_t max_scans;
    uint64_t max_scan_pixels;
    /* The caller's control (may be NULL): cancellation flag and progress output. */
    CPhotoLibJPEG_Control *control;
} CPhotoLibJPEG_Progress;

/* Checks done before libjpeg sees the bytes (limits given, input size, SOI). Returns OK or a
 * failure status with its message. */
int CPhotoLibJPEG_precheck(const uint8_t *data, size_t size, const CPhotoLibJPEG_Limits *limits,
                           char *message, size_t capacity);

/* Common session setup: libjpeg memory limit, memory source, scan-limit progress monitor. */
void CPhotoLibJPEG_start(j_decompress_ptr decompress, CPhotoLibJPEG_ErrorManager *manager,
                         CPhotoLibJPEG_Progress *progress, const uint8_t *data, size_t size,
                         const CPhotoLibJPEG_Limits *limits);

/* After jpeg_read_header: max_pixels and the colour spaces we handle; fills `info` (may be
 * NULL). Longjmps on failure. */
void CPhotoLibJPEG_check_header(j_decompress_ptr decompress, const CPhotoLibJPEG_Limits *limits,
                                CPhotoLibJPEG_HeaderInfo *info);

/* MARK: Skipping unneeded progressive scans (plj_scans.c) */

/* Bytes [start, end) of the input. */
typedef struct CPhotoLibJPEG_Range {
    size_t start;
    size_t end;
} CPhotoLibJPEG_Range;

/*
 * After jpeg_read_header and jpeg_calc_output_dimensions at scale 1/8: works out which scans
 * of the progressive stream `data` the decode needs, fills `plan`, and returns 1 with the byte
 * ranges to feed libjpeg from where jpeg_read_header stopped (allocated in libjpeg's image
 * pool), or 0 when the stream must be decoded whole (plan->outcome says why). Longjmps with
 * TOO_LARGE when the whole file's scans exceed limits->max_scans or max_scan_pixels.
 */
int CPhotoLibJPEG_plan_scans(j_decompress_ptr decompress, const uint8_t *data, size_t size,
                             const CPhotoLibJPEG_Limits *limits, CPhotoLibJPEG_ScanPlan *plan,
                             CPhotoLibJPEG_Range **ranges, size_t *range_count);

/* Replaces the decompressor's source by one that serves `ranges` of `data` in turn (then a
 * premature-end warning and a fake EOI, as jpeg_mem_src). */
void CPhotoLibJPEG_use_ranges(j_decompress_ptr decompress, const uint8_t *data,
                              const CPhotoLibJPEG_Range *ranges, size_t count);

#endif /* CPHOTOLIBJPEG_SESSION_H */
