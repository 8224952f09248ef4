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
} CPhotoLibJPEG_ErrorManager;

/* Installs the error manager on `common` (call before jpeg_create_*). */
void CPhotoLibJPEG_error_manager_init(CPhotoLibJPEG_ErrorManager *manager,
                                      char *message, size_t message_capacity,
                                      size_t input_size);

/* Fails the session with our own status and message (longjmps; never returns). */
__attribute__((noreturn, format(printf, 3, 4)))
void CPhotoLibJPEG_fail(j_common_ptr common, int status, const char *format, ...);

#endif /* CPHOTOLIBJPEG_SESSION_H */
