/*
 * CPhotoLibVideo: MOV/MP4/M4V inspection and poster frames through FFmpeg (libavformat,
 * libavcodec, libswscale, libavutil), behind a small C API that Swift can call safely.
 *
 * Why Swift does not call FFmpeg directly:
 *  - FFmpeg's structs change layout between major versions and use C unions, bit fields
 *    and macros (AVERROR, av_err2str, AVSEEK_FLAG_*) that do not import, or import badly.
 *  - A session owns half a dozen FFmpeg objects whose release order matters
 *    (codec context, format context, the custom AVIOContext and its buffer, the file).
 *    One opaque session object, created and destroyed here, keeps that in one place.
 *  - FFmpeg logs to stderr by default; this shim routes its log into a per-thread
 *    "last error" buffer, so failures come back to Swift as a status and a message.
 *  - Hostile-input rules live here, where the data is: only the mov/mp4 demuxer ever
 *    parses the bytes (the container is sniffed first, and anything else is named and
 *    refused), reads go through a custom AVIOContext with a byte budget and a
 *    cancellation check, the pixel count is checked before a decoder is opened, only a
 *    short list of decoders is allowed, and the keyframe search reads a bounded number
 *    of packets.
 *
 * No FFmpeg header is included here, so no FFmpeg type leaks into Swift.
 * Every symbol carries the CPhotoLibVideo_ prefix.
 *
 * Related FFmpeg documentation: https://ffmpeg.org/doxygen/5.1/ (avformat.h "Demuxing",
 * avio.h avio_alloc_context, avcodec.h avcodec_send_packet, swscale.h sws_scale).
 */
#ifndef CPHOTOLIBVIDEO_H
#define CPHOTOLIBVIDEO_H

#include <stddef.h>
#include <stdint.h>

/* The control (cancellation) and image types are CPhotoLibJPEG's: one RenderControl and one
 * pixel buffer type serve every decoder of PhotoLibImaging. */
#include <CPhotoLibJPEG.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MARK: Status codes (returned by every function below that can fail). */

/* Success. */
#define CPhotoLibVideo_OK 0
/* The bytes are not a MOV/MP4-family container; the message names what they are. */
#define CPhotoLibVideo_NOT_VIDEO 1
/* The file ends before its data does (no movie header, or samples past the end). */
#define CPhotoLibVideo_TRUNCATED 2
/* The container or the coded frame is damaged. */
#define CPhotoLibVideo_CORRUPT 3
/* A limit (pixels, bytes read, packets searched, memory) refuses the file. */
#define CPhotoLibVideo_TOO_LARGE 4
/* A valid file this library does not handle (no video track, a codec not allowed). */
#define CPhotoLibVideo_UNSUPPORTED 5
/* The caller passed an invalid argument. */
#define CPhotoLibVideo_INVALID_ARGUMENT 6
/* Out of memory or an unexpected library state. */
#define CPhotoLibVideo_INTERNAL 7
/* Stopped through the CPhotoLibJPEG_Control (cancelled by the caller). */
#define CPhotoLibVideo_CANCELLED 8
/* The file could not be opened or read (missing, permissions, I/O error). */
#define CPhotoLibVideo_UNREADABLE 9

/* Size of the message buffers callers pass in (longer messages are truncated). */
#define CPhotoLibVideo_MESSAGE_CAPACITY 400

/* MARK: Limits */

/* Limits applied to a session. Zero-initialise, then set every field. */
typedef struct CPhotoLibVideo_Limits {
    /* Maximum width * height of the video track (checked before a decoder is opened, and
     * again on the decoded frame). */
    uint64_t max_pixels;
    /* Maximum bytes read from the source over the whole session (the file may be larger:
     * only the boxes and packets needed are read). */
    uint64_t max_read_bytes;
    /* Maximum memory for the converted frame: the packed RGB output (width * height * 3)
     * plus the padded buffer swscale converts into before it is copied there (rows of whole
     * 64-pixel blocks: about as much again). */
    uint64_t max_memory_bytes;
    /* Maximum packets read while looking for the poster keyframe (all tracks). */
    uint32_t max_packets;
} CPhotoLibVideo_Limits;

/* MARK: Sessions */

/* An open video: the demuxer, its I/O and (after a poster request) a decoder. */
typedef struct CPhotoLibVideo_Session CPhotoLibVideo_Session;

/* What the container says about the video, filled by CPhotoLibVideo_open. */
typedef struct CPhotoLibVideo_Info {
    /* Duration in seconds (0 when unknown). */
    double duration;
    /* Stored (coded) size of the video track, before rotation. */
    uint32_t width;
    uint32_t height;
    /* The transform that shows the stored frames upright, as an EXIF orientation 1...8:
     * from the signs of the track's display matrix when it is axis-aligned (so mirrors and
     * transposes are exact), else its rotation rounded to a quarter turn, else the track's
     * `rotate` tag. 6 is a quarter turn clockwise (a phone held upright). */
    int32_t orientation;
    /* The video track's average frame rate (frames per second, 0 when unknown). */
    double frame_rate;
    /* Non-zero when the file has an audio track. */
    int32_t has_audio;
    /* Size of the source in bytes. */
    uint64_t file_size;
    /* FFmpeg's name of the video codec ("h264", "hevc", ...), NUL-terminated. */
    char codec[32];
    /* The ftyp box's major brand ("qt  ", "isom", "mp42", "M4V "...), NUL-terminated;
     * empty when the file has no ftyp box. */
    char brand[8];
} CPhotoLibVideo_Info;

/*
 * Opens a video from the file at `path` (when non-NULL) or from `size` bytes at `data`
 * (which must stay valid until the session is closed), reads its container headers and
 * checks them: the container must be of the mov/mp4 family, have a video track whose
 * pixel count is within limits, and a sample table that does not reach past the end of
 * the source (else TRUNCATED). `control` (may be NULL) is polled by every read and by
 * FFmpeg's interrupt callback. On success `*session` is a new session and `info` is filled;
 * close it with CPhotoLibVideo_close.
 */
int CPhotoLibVideo_open(const char *path, const uint8_t *data, size_t size,
                        const CPhotoLibVideo_Limits *limits,
                        CPhotoLibJPEG_Control *control,
                        CPhotoLibVideo_Session **session,
                        CPhotoLibVideo_Info *info,
                        char *message, size_t message_capacity);

/* Closes a session and releases everything it owns. NULL is allowed. */
void CPhotoLibVideo_close(CPhotoLibVideo_Session *session);

/*
 * The container's metadata tags (index 0...count-1) followed by the video track's
 * (`*is_track` set to 1 for those). Pointers stay valid until the session is closed.
 * Returns 0 when `index` is past the end. At most 512 tags are reported.
 */
int CPhotoLibVideo_metadata(const CPhotoLibVideo_Session *session, uint32_t index,
                            const char **key, const char **value, int32_t *is_track);

/*
 * Finds the poster frame, decodes it and converts it to RGB at `width` x `height`
 * (0 x 0: the stored size; downscaling averages areas). The poster is the first keyframe
 * whose presentation time is at or after `target_seconds` (from the start of the track);
 * when there is none within the packet budget, the first keyframe of the track.
 * `image` must be zeroed; it receives a new 3-component image owned by the caller
 * (in stored orientation: rotation is the caller's). `time_seconds` (may be NULL)
 * receives the poster's presentation time. The session's control (if any) receives progress:
 * 300 per mille once the keyframe is found, 800 decoded, 1000 converted.
 */
int CPhotoLibVideo_poster(CPhotoLibVideo_Session *session, double target_seconds,
                          uint32_t width, uint32_t height,
                          CPhotoLibJPEG_Image *image, double *time_seconds,
                          char *message, size_t message_capacity);

#ifdef __cplusplus
}
#endif

#endif /* CPHOTOLIBVIDEO_H */
