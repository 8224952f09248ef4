/*
 * Poster frames: find the first keyframe at or after a target time, decode that one packet
 * (the decoder skips every non-key frame), and convert it to RGB at the caller's size with
 * swscale.
 *
 * The search: seek backward to the keyframe at or before the target (the sample index makes
 * this a table look-up), then read forward until a keyframe whose presentation time is at or
 * after the target. When the index knows where that next keyframe is, the reader jumps to
 * it once instead of reading the group of pictures in between. Packets read are bounded by
 * limits.max_packets; with no keyframe found, the first keyframe of the track is used.
 *
 * Related FFmpeg documentation: avformat.h av_seek_frame, av_read_frame,
 * av_index_search_timestamp; avcodec.h avcodec_send_packet / avcodec_receive_frame,
 * AVCodecContext.skip_frame, max_pixels; swscale.h sws_getContext,
 * sws_setColorspaceDetails, sws_scale.
 */
#include "pv_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <libavutil/imgutils.h>
#include <libavutil/mem.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

/* Decoders allowed to see a poster packet: what cameras and phones write. */
static const enum AVCodecID CPhotoLibVideo_allowed_codecs[] = {
    AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_MPEG4, AV_CODEC_ID_PRORES,
    AV_CODEC_ID_MJPEG, AV_CODEC_ID_AV1, AV_CODEC_ID_VP9, AV_CODEC_ID_H263, AV_CODEC_ID_MPEG2VIDEO,
};

/* Outcomes of CPhotoLibVideo_next_video_packet besides a status. */
#define CPhotoLibVideo_END_OF_FILE (-1)
#define CPhotoLibVideo_BUDGET_SPENT (-2)

/* Reads the next packet of the video track into `packet`, counting every packet read. */
static int CPhotoLibVideo_next_video_packet(CPhotoLibVideo_Session *session, AVPacket *packet,
                                            uint32_t *packets, char *message, size_t capacity) {
    for (;;) {
        if (*packets >= session->limits.max_packets) return CPhotoLibVideo_BUDGET_SPENT;
        int error = av_read_frame(session->format, packet);
        if (error == AVERROR_EOF) return CPhotoLibVideo_END_OF_FILE;
        if (error < 0) return CPhotoLibVideo_fail(session, error, "cannot read a video packet", message, capacity);
        (*packets)++;
        if (packet->stream_index == session->video_index) return CPhotoLibVideo_OK;
        av_packet_unref(packet);
    }
}

static int64_t CPhotoLibVideo_packet_time(const AVPacket *packet) {
    return packet->pts != AV_NOPTS_VALUE ? packet->pts : packet->dts;
}

/*
 * Leaves in `chosen` the first keyframe with a presentation time >= target_ts read after the
 * current position; `jump` allows one jump through the index to the keyframe after target_ts.
 * Returns OK, END_OF_FILE, BUDGET_SPENT or a failure status.
 */
static int CPhotoLibVideo_find_keyframe(CPhotoLibVideo_Session *session, int64_t target_ts, int jump,
                                        AVPacket *chosen, uint32_t *packets, char *message, size_t capacity) {
    AVStream *stream = session->format->streams[session->video_index];
    for (;;) {
        int status = CPhotoLibVideo_next_video_packet(session, chosen, packets, message, capacity);
        if (status != CPhotoLibVideo_OK) return status;
        int64_t time = CPhotoLibVideo_packet_time(chosen);
        if ((chosen->flags & AV_PKT_FLAG_KEY) && (target_ts == AV_NOPTS_VALUE || (time != AV_NOPTS_VALUE && time >= target_ts))) {
            return CPhotoLibVideo_OK;
        }
        if (jump && (chosen->flags & AV_PKT_FLAG_KEY) && chosen->dts != AV_NOPTS_VALUE) {
            jump = 0;
            int next = av_index_search_timestamp(stream, target_ts, 0);
            const AVIndexEntry *entry = next >= 0 ? avformat_index_get_entry(stream, next) : NULL;
            if (entry != NULL && entry->timestamp > chosen->dts) {
                int error = av_seek_frame(session->format, session->video_index, entry->timestamp, AVSEEK_FLAG_BACKWARD);
                if (error < 0) {
                    av_packet_unref(chosen);
                    return CPhotoLibVideo_fail(session, error, "cannot seek to the poster keyframe", message, capacity);
                }
            }
        }
        av_packet_unref(chosen);
    }
}

int CPhotoLibVideo_open_decoder(CPhotoLibVideo_Session *session, char *message, size_t capacity) {
    if (session->decoder != NULL) {
        avcodec_flush_buffers(session->decoder);
        return CPhotoLibVideo_OK;
    }
    const AVCodecParameters *parameters = session->format->streams[session->video_index]->codecpar;
    int allowed = 0;
    for (size_t i = 0; i < sizeof CPhotoLibVideo_allowed_codecs / sizeof CPhotoLibVideo_allowed_codecs[0]; i++) {
        if (CPhotoLibVideo_allowed_codecs[i] == parameters->codec_id) allowed = 1;
    }
    const AVCodec *codec = allowed ? avcodec_find_decoder(parameters->codec_id) : NULL;
    if (codec == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "the video codec %s is not supported",
                                   avcodec_get_name(parameters->codec_id));
        return CPhotoLibVideo_UNSUPPORTED;
    }
    AVCodecContext *decoder = avcodec_alloc_context3(codec);
    if (decoder == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "out of memory opening the %s decoder", codec->name);
        return CPhotoLibVideo_INTERNAL;
    }
    int error = avcodec_parameters_to_context(decoder, parameters);
    if (error >= 0) {
        decoder->pkt_timebase = session->format->streams[session->video_index]->time_base;
        decoder->thread_count = 1;
        decoder->max_pixels = (int64_t)(session->limits.max_pixels > INT64_MAX ? INT64_MAX : session->limits.max_pixels);
        decoder->skip_frame = AVDISCARD_NONKEY;
        decoder->err_recognition = AV_EF_EXPLODE;
        error = avcodec_open2(decoder, codec, NULL);
    }
    if (error < 0) {
        avcodec_free_context(&decoder);
        return CPhotoLibVideo_fail(session, error, "cannot open the video decoder", message, capacity);
    }
    session->decoder = decoder;
    return CPhotoLibVideo_OK;
}

/* Decodes the keyframe in `packet` alone (send, then drain) into `frame`. */
static int CPhotoLibVideo_decode(CPhotoLibVideo_Session *session, AVPacket *packet, AVFrame *frame,
                                 char *message, size_t capacity) {
    int status = CPhotoLibVideo_open_decoder(session, message, capacity);
    if (status != CPhotoLibVideo_OK) return status;
    int error = avcodec_send_packet(session->decoder, packet);
    if (error >= 0) error = avcodec_send_packet(session->decoder, NULL);
    if (error >= 0) error = avcodec_receive_frame(session->decoder, frame);
    if (error == AVERROR_EOF || error == AVERROR(EAGAIN)) {
        const char *log = CPhotoLibVideo_last_log();
        if (log[0] != '\0') {
            CPhotoLibJPEG_format_message(message, capacity, "damaged video: the poster keyframe decodes to no picture (FFmpeg: %s)", log);
        } else {
            CPhotoLibJPEG_format_message(message, capacity, "damaged video: the poster keyframe decodes to no picture");
        }
        return CPhotoLibVideo_CORRUPT;
    }
    if (error < 0) {
        /* The decoder refuses a frame over max_pixels while setting its size, and says so. */
        unsigned width = 0, height = 0;
        const char *size = strstr(CPhotoLibVideo_last_log(), "Picture size ");
        if (size != NULL && sscanf(size, "Picture size %ux%u", &width, &height) == 2 &&
            (uint64_t)width * height > session->limits.max_pixels) {
            CPhotoLibJPEG_format_message(message, capacity, "the video's frames are %ux%u, more than the limit of %llu pixels",
                                       width, height, (unsigned long long)session->limits.max_pixels);
            return CPhotoLibVideo_TOO_LARGE;
        }
        return CPhotoLibVideo_fail(session, error, "cannot decode the poster keyframe", message, capacity);
    }
    if ((frame->flags & AV_FRAME_FLAG_CORRUPT) || frame->decode_error_flags != 0) {
        CPhotoLibJPEG_format_message(message, capacity, "damaged video: the poster keyframe is corrupt");
        return CPhotoLibVideo_CORRUPT;
    }
    if (frame->width <= 0 || frame->height <= 0 ||
        (uint64_t)frame->width * (uint64_t)frame->height > session->limits.max_pixels) {
        CPhotoLibJPEG_format_message(message, capacity, "the decoded frame is %dx%d, outside the limit of %llu pixels",
                                   frame->width, frame->height, (unsigned long long)session->limits.max_pixels);
        return CPhotoLibVideo_TOO_LARGE;
    }
    return CPhotoLibVideo_OK;
}

/* swscale's colour-space constant for a frame (BT.709 for HD without a tag, else BT.601). */
static int CPhotoLibVideo_colorspace(const AVFrame *frame) {
    switch (frame->colorspace) {
    case AVCOL_SPC_BT709: return SWS_CS_ITU709;
    case AVCOL_SPC_BT470BG: case AVCOL_SPC_SMPTE170M: return SWS_CS_ITU601;
    case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M;
    case AVCOL_SPC_BT2020_NCL: case AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020;
    case AVCOL_SPC_FCC: return SWS_CS_FCC;
    default: return frame->height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601;
    }
}

/* The non-"J" twin of a full-range JPEG pixel format, and whether the range is full. */
static enum AVPixelFormat CPhotoLibVideo_plain_format(const AVFrame *frame, int *full_range) {
    enum AVPixelFormat format = frame->format;
    *full_range = frame->color_range == AVCOL_RANGE_JPEG;
    switch (format) {
    case AV_PIX_FMT_YUVJ420P: *full_range = 1; return AV_PIX_FMT_YUV420P;
    case AV_PIX_FMT_YUVJ422P: *full_range = 1; return AV_PIX_FMT_YUV422P;
    case AV_PIX_FMT_YUVJ444P: *full_range = 1; return AV_PIX_FMT_YUV444P;
    case AV_PIX_FMT_YUVJ440P: *full_range = 1; return AV_PIX_FMT_YUV440P;
    default: return format;
    }
}

/*
 * Where swscale writes RGB: rows of CPhotoLibVideo_ROW_ALIGN-pixel blocks, and
 * CPhotoLibVideo_TAIL_PADDING bytes after the last row.
 *
 * swscale's SIMD converters write whole blocks of pixels and trust the destination's stride
 * to hold them. x86's unscaled YUV 4:2:0 / 4:2:2 -> RGB24 converter (the stored-size poster)
 * converts a row's width rounded up to 8 pixels, less 8 when the stride cannot hold that, in
 * steps of 16 pixels (48 bytes). Into a packed width * 3 stride it so wrote up to 24 bytes
 * past the end of the last row when that count is not a multiple of 16 (widths 120, 200, 202:
 * heap corruption, "malloc(): corrupted top size"), and left the last 2-6 columns
 * unconverted, black, when it falls short of the width (130, 180, 854). Rows of whole
 * 64-pixel blocks (a multiple of 64 bytes, so every row is aligned as av_malloc aligns the
 * first) hold any SIMD block; the padding after the last row is FFmpeg's own for buffers its
 * assembly reads and writes (AV_INPUT_BUFFER_PADDING_SIZE).
 */
#define CPhotoLibVideo_ROW_ALIGN 64u
#define CPhotoLibVideo_TAIL_PADDING 64u

/* Bytes of one padded RGB row of `width` pixels (at most 65535 + 63 pixels: fits an int). */
static size_t CPhotoLibVideo_padded_stride(uint32_t width) {
    return (((size_t)width + CPhotoLibVideo_ROW_ALIGN - 1) / CPhotoLibVideo_ROW_ALIGN) * CPhotoLibVideo_ROW_ALIGN * 3;
}

/*
 * Converts `frame` to a new RGB image of width x height: swscale writes into a padded buffer
 * (see CPhotoLibVideo_ROW_ALIGN), whose rows are then copied into the packed image the JPEG
 * pipeline takes (stride width * 3). Both count against limits.max_memory_bytes.
 */
static int CPhotoLibVideo_convert(const CPhotoLibVideo_Session *session, const AVFrame *frame,
                                  uint32_t width, uint32_t height, CPhotoLibJPEG_Image *image,
                                  char *message, size_t capacity) {
    if (width == 0 || height == 0) {
        width = (uint32_t)frame->width;
        height = (uint32_t)frame->height;
    }
    if (width > 65535 || height > 65535) {
        CPhotoLibJPEG_format_message(message, capacity, "a %ux%u RGB frame is out of range (1...65535 per side)", width, height);
        return CPhotoLibVideo_TOO_LARGE;
    }
    const size_t stride = CPhotoLibVideo_padded_stride(width);
    const uint64_t padded_bytes = (uint64_t)stride * height + CPhotoLibVideo_TAIL_PADDING;
    const uint64_t packed_bytes = (uint64_t)width * height * 3;
    if (packed_bytes + padded_bytes > session->limits.max_memory_bytes) {
        CPhotoLibJPEG_format_message(message, capacity,
                                   "a %ux%u RGB frame needs %llu bytes to convert, more than the limit of %llu bytes",
                                   width, height, (unsigned long long)(packed_bytes + padded_bytes),
                                   (unsigned long long)session->limits.max_memory_bytes);
        return CPhotoLibVideo_TOO_LARGE;
    }
    int full_range = 0;
    enum AVPixelFormat source_format = CPhotoLibVideo_plain_format(frame, &full_range);
    if (!sws_isSupportedInput(source_format)) {
        CPhotoLibJPEG_format_message(message, capacity, "the pixel format %s cannot be converted",
                                   av_get_pix_fmt_name(source_format) ? av_get_pix_fmt_name(source_format) : "(unknown)");
        return CPhotoLibVideo_UNSUPPORTED;
    }
    int same = (int)width == frame->width && (int)height == frame->height;
    struct SwsContext *scaler = sws_getContext(frame->width, frame->height, source_format, (int)width, (int)height,
                                               AV_PIX_FMT_RGB24, same ? SWS_BILINEAR : SWS_AREA, NULL, NULL, NULL);
    if (scaler == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "cannot convert a %dx%d %s frame to %ux%u RGB",
                                   frame->width, frame->height, av_get_pix_fmt_name(source_format), width, height);
        return CPhotoLibVideo_UNSUPPORTED;
    }
    const int *coefficients = sws_getCoefficients(CPhotoLibVideo_colorspace(frame));
    sws_setColorspaceDetails(scaler, coefficients, full_range, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
    uint8_t *padded = av_malloc((size_t)padded_bytes);
    if (padded == NULL) {
        sws_freeContext(scaler);
        CPhotoLibJPEG_format_message(message, capacity, "out of memory converting a %ux%u frame to RGB", width, height);
        return CPhotoLibVideo_INTERNAL;
    }
    uint8_t *planes[4] = {padded, NULL, NULL, NULL};
    int strides[4] = {(int)stride, 0, 0, 0};
    int rows = sws_scale(scaler, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    sws_freeContext(scaler);
    if (rows != (int)height) {
        av_free(padded);
        CPhotoLibJPEG_format_message(message, capacity, "converting the poster frame to RGB failed");
        return CPhotoLibVideo_INTERNAL;
    }
    int status = CPhotoLibJPEG_image_alloc(width, height, 3, image, message, capacity);
    if (status != CPhotoLibJPEG_OK) {
        av_free(padded);
        return status == CPhotoLibJPEG_TOO_LARGE ? CPhotoLibVideo_TOO_LARGE : CPhotoLibVideo_INTERNAL;
    }
    av_image_copy_plane(image->pixels, (int)(width * 3), padded, (int)stride, (int)(width * 3), (int)height);
    av_free(padded);
    return CPhotoLibVideo_OK;
}

/* Reports poster progress through the caller's control (per mille, as the JPEG decoder does). */
static void CPhotoLibVideo_progress(const CPhotoLibVideo_Session *session, int32_t permille) {
    if (session->source.control != NULL) {
        __atomic_store_n(&session->source.control->progress_permille, permille, __ATOMIC_RELAXED);
    }
}

int CPhotoLibVideo_decoded_size(CPhotoLibVideo_Session *session, int *width, int *height,
                                char *message, size_t capacity) {
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    int status = CPhotoLibVideo_INTERNAL;
    uint32_t packets = 0;
    if (packet == NULL || frame == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "out of memory reading a video's size");
    } else {
        status = CPhotoLibVideo_find_keyframe(session, AV_NOPTS_VALUE, 0, packet, &packets, message, capacity);
        if (status == CPhotoLibVideo_END_OF_FILE || status == CPhotoLibVideo_BUDGET_SPENT) {
            CPhotoLibJPEG_format_message(message, capacity, "damaged video: no keyframe tells the size of the video track");
            status = CPhotoLibVideo_CORRUPT;
        }
        if (status == CPhotoLibVideo_OK) status = CPhotoLibVideo_decode(session, packet, frame, message, capacity);
        if (status == CPhotoLibVideo_OK) {
            *width = frame->width;
            *height = frame->height;
        }
    }
    av_packet_free(&packet);
    av_frame_free(&frame);
    return status;
}

int CPhotoLibVideo_poster(CPhotoLibVideo_Session *session, double target_seconds,
                          uint32_t width, uint32_t height,
                          CPhotoLibJPEG_Image *image, double *time_seconds,
                          char *message, size_t capacity) {
    if (session == NULL || session->format == NULL || image == NULL || !isfinite(target_seconds) ||
        target_seconds < 0 || (width == 0) != (height == 0)) {
        CPhotoLibJPEG_format_message(message, capacity, "invalid arguments for a poster frame");
        return CPhotoLibVideo_INVALID_ARGUMENT;
    }
    CPhotoLibVideo_clear_log();
    AVStream *stream = session->format->streams[session->video_index];
    int64_t start = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    /* A hostile start time must not make the arithmetic below overflow. */
    if (start > INT64_MAX / 4 || start < INT64_MIN / 4) start = 0;
    if (target_seconds > 1e7) target_seconds = 1e7;
    int64_t offset = av_rescale_q(llround(target_seconds * 1e6), (AVRational){1, 1000000}, stream->time_base);
    if (offset < 0 || offset > INT64_MAX / 4) offset = INT64_MAX / 4;  /* av_rescale_q's overflow answer is INT64_MIN */
    int64_t target_ts = start + offset;
    AVPacket *packet = av_packet_alloc();
    AVFrame *frame = av_frame_alloc();
    if (packet == NULL || frame == NULL) {
        av_packet_free(&packet);
        av_frame_free(&frame);
        CPhotoLibJPEG_format_message(message, capacity, "out of memory decoding a poster frame");
        return CPhotoLibVideo_INTERNAL;
    }
    uint32_t packets = 0;
    int status = CPhotoLibVideo_END_OF_FILE;
    if (av_seek_frame(session->format, session->video_index, target_ts, AVSEEK_FLAG_BACKWARD) >= 0) {
        status = CPhotoLibVideo_find_keyframe(session, target_ts, 1, packet, &packets, message, capacity);
    }
    if (status == CPhotoLibVideo_END_OF_FILE || status == CPhotoLibVideo_BUDGET_SPENT) {
        /* No keyframe at or after the target: the track's first keyframe. */
        packets = 0;
        int error = av_seek_frame(session->format, session->video_index, start, AVSEEK_FLAG_BACKWARD);
        if (error < 0) error = avformat_seek_file(session->format, session->video_index, INT64_MIN, start, start, 0);
        if (error < 0 && !CPhotoLibVideo_interrupted(&session->source) && session->source.io_error == 0 &&
            !session->source.budget_exceeded) {
            /* The mov demuxer answers -1 when its sample table has nothing to seek to. */
            CPhotoLibJPEG_format_message(message, capacity, "damaged video: the video track's sample table has no keyframe to seek to");
            status = CPhotoLibVideo_CORRUPT;
        } else if (error < 0) {
            status = CPhotoLibVideo_fail(session, error, "cannot seek to the first keyframe", message, capacity);
        } else {
            status = CPhotoLibVideo_find_keyframe(session, AV_NOPTS_VALUE, 0, packet, &packets, message, capacity);
            if (status == CPhotoLibVideo_END_OF_FILE) {
                CPhotoLibJPEG_format_message(message, capacity, "damaged video: the video track has no keyframe");
                status = CPhotoLibVideo_CORRUPT;
            } else if (status == CPhotoLibVideo_BUDGET_SPENT) {
                CPhotoLibJPEG_format_message(message, capacity, "no keyframe in the first %u packets of the video",
                                           session->limits.max_packets);
                status = CPhotoLibVideo_TOO_LARGE;
            }
        }
    }
    if (status == CPhotoLibVideo_OK) {
        CPhotoLibVideo_progress(session, 300);
        status = CPhotoLibVideo_decode(session, packet, frame, message, capacity);
    }
    if (status == CPhotoLibVideo_OK) CPhotoLibVideo_progress(session, 800);
    if (status == CPhotoLibVideo_OK && CPhotoLibVideo_interrupted(&session->source)) {
        status = CPhotoLibVideo_fail(session, AVERROR_EXIT, "", message, capacity);
    }
    if (status == CPhotoLibVideo_OK) status = CPhotoLibVideo_convert(session, frame, width, height, image, message, capacity);
    if (status == CPhotoLibVideo_OK) CPhotoLibVideo_progress(session, 1000);
    if (status == CPhotoLibVideo_OK && time_seconds != NULL) {
        int64_t time = frame->best_effort_timestamp != AV_NOPTS_VALUE ? frame->best_effort_timestamp : frame->pts;
        if (time == AV_NOPTS_VALUE) time = CPhotoLibVideo_packet_time(packet);
        *time_seconds = time == AV_NOPTS_VALUE ? 0 : ((double)time - (double)start) * av_q2d(stream->time_base);
    }
    av_packet_free(&packet);
    av_frame_free(&frame);
    return status;
}
