/*
 * FFmpeg's log, captured per thread: the last warning or error a session's own thread
 * produced is added to the message of a failure ("moov atom not found", "partial file").
 * Nothing is printed to stderr.
 *
 * Related FFmpeg documentation: log.h, av_log_set_callback, av_log_format_line2.
 */
#include "pv_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define CPhotoLibVideo_LOG_CAPACITY 256

static _Thread_local char CPhotoLibVideo_log_line[CPhotoLibVideo_LOG_CAPACITY];
static pthread_once_t CPhotoLibVideo_log_once = PTHREAD_ONCE_INIT;

static void CPhotoLibVideo_log_callback(void *context, int level, const char *format, va_list arguments) {
    if (level > AV_LOG_WARNING) return;
    char line[CPhotoLibVideo_LOG_CAPACITY];
    (void)context;
    vsnprintf(line, sizeof line, format, arguments);
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r' || line[length - 1] == ' ')) {
        line[--length] = '\0';
    }
    if (length == 0) return;
    memcpy(CPhotoLibVideo_log_line, line, length + 1);
}

static void CPhotoLibVideo_install_log_once(void) {
    av_log_set_callback(CPhotoLibVideo_log_callback);
}

void CPhotoLibVideo_install_log(void) {
    pthread_once(&CPhotoLibVideo_log_once, CPhotoLibVideo_install_log_once);
}

void CPhotoLibVideo_clear_log(void) {
    CPhotoLibVideo_log_line[0] = '\0';
}

const char *CPhotoLibVideo_last_log(void) {
    return CPhotoLibVideo_log_line;
}

