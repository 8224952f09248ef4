/* Limits shared by the still-image fuzz harnesses: small enough that one input decodes in
 * milliseconds, so the fuzzer explores parsing rather than waiting on big pixel buffers. */
#ifndef FUZZ_LIMITS_H
#define FUZZ_LIMITS_H

#include "CPhotoLibJPEG.h"

static const CPhotoLibJPEG_Limits fuzz_limits = {
    .max_pixels = 4u << 20,
    .max_input_bytes = 16u << 20,
    .max_memory_bytes = 96u << 20,
    .max_scans = 100,
    .max_scan_pixels = 400u << 20,
};

#endif
