/*
 * Error manager for libjpeg sessions: error_exit and warnings longjmp back to the
 * session with a status code and a readable message. See plj_session.h for why.
 *
 * Related libjpeg documentation: libjpeg.txt, "Error handling".
 */
#include "plj_session.h"

#include <stdarg.h>
#include <string.h>

/* Byte offset libjpeg has reached in the input (an estimate: its buffer position). */
static size_t CPhotoLibJPEG_input_offset(const CPhotoLibJPEG_ErrorManager *manager) {
    if (manager->input_start != NULL && manager->source != NULL) {
        const uint8_t *next = manager->source->next_input_byte;
        if (next >= manager->input_start && next <= manager->input_start + manager->input_size) {
            return (size_t)(next - manager->input_start);
        }
        return manager->input_size;
    }
    if (manager->source == NULL || manager->input_size < manager->source->bytes_in_buffer) {
        return manager->input_size;
    }
    return manager->input_size - manager->source->bytes_in_buffer;
}

/* Maps a libjpeg error code to our status. */
static int CPhotoLibJPEG_status_for_error(int code) {
    switch (code) {
    case JERR_NO_SOI:
        return CPhotoLibJPEG_NOT_JPEG;
    case JERR_INPUT_EMPTY:
    case JERR_INPUT_EOF:
        return CPhotoLibJPEG_TRUNCATED;
    case JERR_IMAGE_TOO_BIG:
    case JERR_OUT_OF_MEMORY:
    case JERR_NO_BACKING_STORE:
    case JERR_WIDTH_OVERFLOW:
        return CPhotoLibJPEG_TOO_LARGE;
    case JERR_BAD_PRECISION:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_SOF_UNSUPPORTED:
    case JERR_NOT_COMPILED:
    case JERR_ARITH_NOTIMPL:
    case JERR_CCIR601_NOTIMPL:
        return CPhotoLibJPEG_UNSUPPORTED;
    case JERR_BAD_STATE:
    case JERR_BAD_ALLOC_CHUNK:
    case JERR_BAD_POOL_ID:
    case JERR_VIRTUAL_BUG:
    case JERR_BUFFER_SIZE:
        return CPhotoLibJPEG_INTERNAL;
    default:
        return CPhotoLibJPEG_CORRUPT;
    }
}

/* Writes the final message for a libjpeg-originated failure. */
static void CPhotoLibJPEG_describe(j_common_ptr common, int status) {
    CPhotoLibJPEG_ErrorManager *manager = (CPhotoLibJPEG_ErrorManager *)common->err;
    char text[JMSG_LENGTH_MAX];
    (*common->err->format_message)(common, text);
    size_t offset = CPhotoLibJPEG_input_offset(manager);
    switch (status) {
    case CPhotoLibJPEG_NOT_JPEG:
        CPhotoLibJPEG_format_message(manager->message, manager->message_capacity,
                                  "not a JPEG file (libjpeg: %s)", text);
        break;
    case CPhotoLibJPEG_TRUNCATED:
        CPhotoLibJPEG_format_message(manager->message, manager->message_capacity,
                                  "truncated JPEG data: premature end of file after %zu bytes (libjpeg: %s)",
                                  manager->input_size, text);
        break;
    case CPhotoLibJPEG_CORRUPT: {
        /* libjpeg's warnings already start with "Corrupt JPEG data: "; keep the rest. */
        const char *detail = text;
        static const char prefix[] = "Corrupt JPEG data: ";
        if (strncmp(detail, prefix, sizeof prefix - 1) == 0) {
            detail += sizeof prefix - 1;
        }
        CPhotoLibJPEG_format_message(manager->message, manager->message_capacity,
                                  "corrupt JPEG data near byte %zu of %zu: %s",
                                  offset, manager->input_size, detail);
        break;
    }
    case CPhotoLibJPEG_TOO_LARGE:
        CPhotoLibJPEG_format_message(manager->message, manager->message_capacity,
                                  "JPEG image too large for the configured limits (libjpeg: %s)", text);
        break;
    case CPhotoLibJPEG_UNSUPPORTED:
        CPhotoLibJPEG_format_message(manager->message, manager->message_capacity,
                                  "unsupported JPEG variant (libjpeg: %s)", text);
        break;
    default:
        CPhotoLibJPEG_format_message(manager->message, manager->message_capacity,
                                  "internal JPEG library error (libjpeg: %s)", text);
        break;
    }
}

/* error_exit: never returns to libjpeg; jumps back to the session. */
static void CPhotoLibJPEG_error_exit(j_common_ptr common) {
    CPhotoLibJPEG_ErrorManager *manager = (CPhotoLibJPEG_ErrorManager *)common->err;
    manager->status = CPhotoLibJPEG_status_for_error(manager->pub.msg_code);
    CPhotoLibJPEG_describe(common, manager->status);
    longjmp(manager->jump, 1);
}

/*
 * emit_message: level -1 is a warning. libjpeg warns (and carries on, filling gaps
 * with grey) when data is missing or corrupt; for a photo library that is damage,
 * so we fail. Two warnings are about metadata only and are tolerated.
 * Trace messages (level >= 0) are ignored.
 */
static void CPhotoLibJPEG_emit_message(j_common_ptr common, int level) {
    CPhotoLibJPEG_ErrorManager *manager = (CPhotoLibJPEG_ErrorManager *)common->err;
    if (level >= 0) {
        return;
    }
    manager->pub.num_warnings++;
    int code = manager->pub.msg_code;
    if (code == JWRN_JFIF_MAJOR || code == JWRN_ADOBE_XFORM) {
        return;
    }
    manager->status = (code == JWRN_JPEG_EOF) ? CPhotoLibJPEG_TRUNCATED : CPhotoLibJPEG_CORRUPT;
    CPhotoLibJPEG_describe(common, manager->status);
    longjmp(manager->jump, 1);
}

/* output_message: we never print to stderr. */
static void CPhotoLibJPEG_output_message(j_common_ptr common) {
    (void)common;
}

void CPhotoLibJPEG_error_manager_init(CPhotoLibJPEG_ErrorManager *manager,
                                      char *message, size_t message_capacity,
                                      size_t input_size) {
    jpeg_std_error(&manager->pub);
    manager->pub.error_exit = CPhotoLibJPEG_error_exit;
    manager->pub.emit_message = CPhotoLibJPEG_emit_message;
    manager->pub.output_message = CPhotoLibJPEG_output_message;
    manager->status = CPhotoLibJPEG_OK;
    manager->message = message;
    manager->message_capacity = message_capacity;
    manager->input_size = input_size;
    manager->source = NULL;
    manager->input_start = NULL;
    if (message != NULL && message_capacity > 0) {
        message[0] = '\0';
    }
}

void CPhotoLibJPEG_fail(j_common_ptr common, int status, const char *format, ...) {
    CPhotoLibJPEG_ErrorManager *manager = (CPhotoLibJPEG_ErrorManager *)common->err;
    manager->status = status;
    if (manager->message != NULL && manager->message_capacity > 0) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(manager->message, manager->message_capacity, format, arguments);
        va_end(arguments);
    }
    longjmp(manager->jump, 1);
}
