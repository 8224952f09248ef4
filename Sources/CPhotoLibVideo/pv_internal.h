/*
 * Internals shared by the CPhotoLibVideo sources: the session layout, the byte source
 * behind the custom AVIOContext, and the log capture.
 */
#ifndef CPHOTOLIBVIDEO_INTERNAL_H
#define CPHOTOLIBVIDEO_INTERNAL_H

#include "include/CPhotoLibVideo.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avutil.h>

/* MARK: Byte source (pv_io.c) */

/* Where the bytes come from: a file descriptor (read with pread) or a memory buffer. */
typedef struct CPhotoLibVideo_Source {
    int fd;                     /* -1 for memory */
    const uint8_t *data;        /* memory source */
    uint64_t size;              /* total size of the source */
    uint64_t position;          /* the AVIOContext's read position */
    uint64_t bytes_read;        /* every byte handed to FFmpeg so far */
    uint64_t max_read_bytes;    /* budget for bytes_read */
    int budget_exceeded;        /* set when a read was refused for the budget */
    int io_error;               /* errno of a failed read, 0 if none */
    CPhotoLibJPEG_Control *control;
} CPhotoLibVideo_Source;

/* Opens `path` read-only into `source` (or wraps `data`); returns a status. */
int CPhotoLibVideo_source_open(CPhotoLibVideo_Source *source, const char *path,
                               const uint8_t *data, size_t size,
                               char *message, size_t capacity);
/* Closes the file descriptor, if any. */
void CPhotoLibVideo_source_close(CPhotoLibVideo_Source *source);
/* Reads up to `capacity` bytes at `offset` without moving the AVIO position; returns the
 * count read (0 at the end or on error). Counts against the byte budget. */
size_t CPhotoLibVideo_source_peek(CPhotoLibVideo_Source *source, uint64_t offset,
                                  uint8_t *buffer, size_t capacity);
/* A new AVIOContext reading `source` (NULL when out of memory). */
AVIOContext *CPhotoLibVideo_source_avio(CPhotoLibVideo_Source *source);
/* Non-zero once the caller cancelled (FFmpeg's interrupt callback too). */
int CPhotoLibVideo_interrupted(void *source);

/* MARK: Container sniffing (pv_sniff.c) */

/*
 * Looks at the first bytes: returns CPhotoLibVideo_OK for an ISO base media / QuickTime
 * box layout (copying the ftyp major brand into `brand`, 5 bytes), otherwise
 * CPhotoLibVideo_NOT_VIDEO with a message naming what the bytes look like.
 */
int CPhotoLibVideo_sniff(const uint8_t *head, size_t count, char *brand,
                         char *message, size_t capacity);

/* MARK: Log capture (pv_log.c) */

/* Routes FFmpeg's log into a per-thread buffer (idempotent, thread-safe). */
void CPhotoLibVideo_install_log(void);
/* Forgets this thread's last FFmpeg message. */
void CPhotoLibVideo_clear_log(void);
/* This thread's last FFmpeg warning or error since CPhotoLibVideo_clear_log ("" if none). */
const char *CPhotoLibVideo_last_log(void);


/* MARK: Session (pv_session.c) */

struct CPhotoLibVideo_Session {
    CPhotoLibVideo_Source source;
    CPhotoLibVideo_Limits limits;
    AVFormatContext *format;
    AVIOContext *io;
    AVCodecContext *decoder;
    int video_index;
    CPhotoLibVideo_Info info;
};

/*
 * Turns an FFmpeg error code into a status and a message: cancellation, the byte budget
 * and I/O errors first (they explain the failure better than FFmpeg's code), then
 * `what` with FFmpeg's own text and the last log line.
 */
int CPhotoLibVideo_fail(CPhotoLibVideo_Session *session, int averror, const char *what,
                        char *message, size_t capacity);

/* MARK: Decoding (pv_poster.c) */

/* Opens the decoder for the video track once per session (later calls flush it): only the
 * allowed codecs, one thread, limits.max_pixels, non-key frames skipped, errors explode. */
int CPhotoLibVideo_open_decoder(CPhotoLibVideo_Session *session, char *message, size_t capacity);

/* Decodes the track's first keyframe to learn its size (for codecs whose size the demuxer
 * leaves to the decoder). The read position is left after that keyframe. */
int CPhotoLibVideo_decoded_size(CPhotoLibVideo_Session *session, int *width, int *height,
                                char *message, size_t capacity);

#endif /* CPHOTOLIBVIDEO_INTERNAL_H */
