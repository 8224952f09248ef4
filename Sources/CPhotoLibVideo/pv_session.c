/*
 * Sessions: open a MOV/MP4 through the mov demuxer only, check it against the limits and
 * for truncation, and describe it (size, rotation, duration, frame rate, codec, audio,
 * metadata tags).
 *
 * Related FFmpeg documentation: avformat.h "Demuxing" (avformat_open_input without
 * avformat_find_stream_info: the mov demuxer fills codec parameters from the sample
 * description), display.h av_display_rotation_get, avformat_index_get_entry.
 */
#include "pv_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/display.h>

/* Metadata tags reported per dictionary, so a hostile file cannot make Swift build a huge map. */
#define CPhotoLibVideo_MAX_TAGS 256

int CPhotoLibVideo_fail(CPhotoLibVideo_Session *session, int averror, const char *what,
                        char *message, size_t capacity) {
    if (CPhotoLibVideo_interrupted(&session->source) || averror == AVERROR_EXIT) {
        CPhotoLibJPEG_format_message(message, capacity, "the video work was cancelled");
        return CPhotoLibVideo_CANCELLED;
    }
    if (session->source.budget_exceeded) {
        CPhotoLibJPEG_format_message(message, capacity,
                                   "%s: the video needs more than the %llu bytes a session may read",
                                   what, (unsigned long long)session->source.max_read_bytes);
        return CPhotoLibVideo_TOO_LARGE;
    }
    if (session->source.io_error != 0) {
        CPhotoLibJPEG_format_message(message, capacity, "%s: read error: %s", what, strerror(session->source.io_error));
        return CPhotoLibVideo_UNREADABLE;
    }
    char text[AV_ERROR_MAX_STRING_SIZE] = {0};
    av_strerror(averror, text, sizeof text);
    const char *log = CPhotoLibVideo_last_log();
    int status = CPhotoLibVideo_CORRUPT;
    if (averror == AVERROR(ENOMEM)) {
        status = CPhotoLibVideo_INTERNAL;
    } else if (strstr(log, "moov atom not found") != NULL || strstr(log, "partial file") != NULL ||
               averror == AVERROR_EOF) {
        status = CPhotoLibVideo_TRUNCATED;
    }
    const char *kind = status == CPhotoLibVideo_TRUNCATED ? "truncated video" : "damaged video";
    if (log[0] != '\0') {
        CPhotoLibJPEG_format_message(message, capacity, "%s: %s: %s (FFmpeg: %s)", kind, what, text, log);
    } else {
        CPhotoLibJPEG_format_message(message, capacity, "%s: %s: %s", kind, what, text);
    }
    return status;
}

/* The video track to use: the default one, else the first, never cover art. */
static int CPhotoLibVideo_pick_video(const AVFormatContext *format) {
    int first = -1;
    for (unsigned i = 0; i < format->nb_streams; i++) {
        const AVStream *stream = format->streams[i];
        if (stream->codecpar->codec_type != AVMEDIA_TYPE_VIDEO) continue;
        if (stream->disposition & AV_DISPOSITION_ATTACHED_PIC) continue;
        if (stream->codecpar->codec_id == AV_CODEC_ID_NONE) continue;
        if (stream->disposition & AV_DISPOSITION_DEFAULT) return (int)i;
        if (first < 0) first = (int)i;
    }
    return first;
}

/* The track's display matrix (9 x int32, 16.16 / 2.30 fixed point), or NULL. */
static const int32_t *CPhotoLibVideo_display_matrix(const AVStream *stream) {
#if LIBAVCODEC_VERSION_MAJOR >= 61
    const AVPacketSideData *side = av_packet_side_data_get(stream->codecpar->coded_side_data,
                                                           stream->codecpar->nb_coded_side_data,
                                                           AV_PKT_DATA_DISPLAYMATRIX);
    if (side != NULL && side->size >= 9 * sizeof(int32_t)) return (const int32_t *)side->data;
    return NULL;
#else
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    return data != NULL && size >= 9 * sizeof(int32_t) ? (const int32_t *)data : NULL;
#endif
}

/* The EXIF orientation of a quarter-turn count clockwise (0...3). */
static int32_t CPhotoLibVideo_orientation_of_quarters(long quarters) {
    static const int32_t codes[4] = {1, 6, 3, 8};
    return codes[((quarters % 4) + 4) % 4];
}

/*
 * The EXIF orientation of the track. The display matrix maps a stored point (x, y) to
 * (a*x + c*y + tx, b*x + d*y + ty) with a = m[0], b = m[1], c = m[3], d = m[4]; when it is
 * axis-aligned the signs say exactly which of the eight transforms it is (see
 * plj_orient.c's table for the same eight as EXIF codes).
 */
static int32_t CPhotoLibVideo_orientation(const AVStream *stream) {
    const int32_t *matrix = CPhotoLibVideo_display_matrix(stream);
    if (matrix != NULL) {
        int64_t a = matrix[0], b = matrix[1], c = matrix[3], d = matrix[4];
        int64_t large = 1 << 15, small = 1 << 10;  /* 0.5 and 1/64 in 16.16 */
        int64_t abs_a = a < 0 ? -a : a, abs_b = b < 0 ? -b : b, abs_c = c < 0 ? -c : c, abs_d = d < 0 ? -d : d;
        if (abs_a > large && abs_d > large && abs_b < small && abs_c < small) {
            if (a > 0) return d > 0 ? 1 : 4;
            return d > 0 ? 2 : 3;
        }
        if (abs_b > large && abs_c > large && abs_a < small && abs_d < small) {
            if (b > 0) return c > 0 ? 5 : 6;
            return c > 0 ? 8 : 7;
        }
        double counterclockwise = av_display_rotation_get(matrix);
        if (isfinite(counterclockwise)) return CPhotoLibVideo_orientation_of_quarters(lround(-counterclockwise / 90.0));
        return 1;
    }
    const AVDictionaryEntry *tag = av_dict_get(stream->metadata, "rotate", NULL, 0);
    if (tag != NULL) {
        double degrees = strtod(tag->value, NULL);
        if (isfinite(degrees) && fabs(degrees) < 1e6) return CPhotoLibVideo_orientation_of_quarters(lround(degrees / 90.0));
    }
    return 1;
}

/* The end of the last sample any track's index points at (0 without an index). */
static uint64_t CPhotoLibVideo_index_end(AVFormatContext *format) {
    uint64_t end = 0;
    for (unsigned i = 0; i < format->nb_streams; i++) {
        AVStream *stream = format->streams[i];
        int count = avformat_index_get_entries_count(stream);
        for (int k = 0; k < count; k++) {
            const AVIndexEntry *entry = avformat_index_get_entry(stream, k);
            if (entry == NULL || entry->pos < 0) continue;
            uint64_t last = (uint64_t)entry->pos + (uint64_t)entry->size;
            if (last > end) end = last;
        }
    }
    return end;
}

/*
 * Walks the top-level boxes (at most 4096): a box that declares more bytes than the file has
 * left means the file was cut short. Stops quietly at anything that is not a box header
 * (trailing padding, a size-0 "to the end" box), which the demuxer then judges.
 */
static int CPhotoLibVideo_check_boxes(CPhotoLibVideo_Session *session, char *message, size_t capacity) {
    uint64_t offset = 0, size = session->source.size;
    for (int count = 0; count < 4096 && size - offset >= 8; count++) {
        uint8_t header[16];
        size_t got = CPhotoLibVideo_source_peek(&session->source, offset, header, sizeof header);
        if (got < 8) return CPhotoLibVideo_OK;
        for (int i = 4; i < 8; i++) {
            if (header[i] < 0x20 || header[i] >= 0x7F) return CPhotoLibVideo_OK;
        }
        uint64_t length = (uint64_t)header[0] << 24 | (uint64_t)header[1] << 16 | (uint64_t)header[2] << 8 | header[3];
        if (length == 0) return CPhotoLibVideo_OK;
        if (length == 1) {
            if (got < 16) return CPhotoLibVideo_OK;
            length = 0;
            for (int i = 8; i < 16; i++) length = length << 8 | header[i];
            if (length < 16) return CPhotoLibVideo_OK;
        } else if (length < 8) {
            return CPhotoLibVideo_OK;
        }
        if (length > size - offset) {
            CPhotoLibJPEG_format_message(message, capacity,
                                       "truncated video: the file has %llu bytes but its '%.4s' box at byte %llu ends at byte %llu",
                                       (unsigned long long)size, (const char *)(header + 4), (unsigned long long)offset,
                                       (unsigned long long)(offset + length));
            return CPhotoLibVideo_TRUNCATED;
        }
        offset += length;
    }
    return CPhotoLibVideo_OK;
}

/* Fills the session's info from the opened container. */
static void CPhotoLibVideo_describe(CPhotoLibVideo_Session *session) {
    AVFormatContext *format = session->format;
    AVStream *stream = format->streams[session->video_index];
    CPhotoLibVideo_Info *info = &session->info;
    info->width = (uint32_t)stream->codecpar->width;
    info->height = (uint32_t)stream->codecpar->height;
    info->orientation = CPhotoLibVideo_orientation(stream);
    if (format->duration > 0 && format->duration != AV_NOPTS_VALUE) {
        info->duration = (double)format->duration / AV_TIME_BASE;
    } else if (stream->duration > 0 && stream->duration != AV_NOPTS_VALUE) {
        info->duration = (double)stream->duration * av_q2d(stream->time_base);
    }
    AVRational rate = stream->avg_frame_rate;
    if (rate.num <= 0 || rate.den <= 0) rate = stream->r_frame_rate;
    info->frame_rate = (rate.num > 0 && rate.den > 0) ? av_q2d(rate) : 0;
    for (unsigned i = 0; i < format->nb_streams; i++) {
        if (format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_AUDIO) info->has_audio = 1;
    }
    snprintf(info->codec, sizeof info->codec, "%s", avcodec_get_name(stream->codecpar->codec_id));
    info->file_size = session->source.size;
}

int CPhotoLibVideo_open(const char *path, const uint8_t *data, size_t size,
                        const CPhotoLibVideo_Limits *limits,
                        CPhotoLibJPEG_Control *control,
                        CPhotoLibVideo_Session **result,
                        CPhotoLibVideo_Info *info,
                        char *message, size_t capacity) {
    if (limits == NULL || result == NULL || info == NULL || limits->max_pixels == 0 ||
        limits->max_read_bytes == 0 || limits->max_packets == 0) {
        CPhotoLibJPEG_format_message(message, capacity, "invalid arguments to open a video");
        return CPhotoLibVideo_INVALID_ARGUMENT;
    }
    *result = NULL;
    CPhotoLibVideo_install_log();
    CPhotoLibVideo_clear_log();
    if (CPhotoLibJPEG_control_is_cancelled(control)) {
        CPhotoLibJPEG_format_message(message, capacity, "the video work was cancelled");
        return CPhotoLibVideo_CANCELLED;
    }
    CPhotoLibVideo_Session *session = calloc(1, sizeof *session);
    if (session == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "out of memory opening a video");
        return CPhotoLibVideo_INTERNAL;
    }
    session->limits = *limits;
    session->video_index = -1;
    session->source.control = control;
    session->source.max_read_bytes = limits->max_read_bytes;
    int status = CPhotoLibVideo_source_open(&session->source, path, data, size, message, capacity);
    if (status != CPhotoLibVideo_OK) {
        free(session);
        return status;
    }

    /* Only the mov demuxer may parse the bytes: sniff them first and name anything else. */
    uint8_t head[256];
    size_t count = CPhotoLibVideo_source_peek(&session->source, 0, head, sizeof head);
    if (count == 0 && session->source.io_error != 0) {
        status = CPhotoLibVideo_fail(session, AVERROR(EIO), "reading the first bytes", message, capacity);
        CPhotoLibVideo_close(session);
        return status;
    }
    status = CPhotoLibVideo_sniff(head, count, session->info.brand, message, capacity);
    if (status != CPhotoLibVideo_OK) {
        CPhotoLibVideo_close(session);
        return status;
    }

    status = CPhotoLibVideo_check_boxes(session, message, capacity);
    if (status != CPhotoLibVideo_OK) {
        CPhotoLibVideo_close(session);
        return status;
    }

    session->io = CPhotoLibVideo_source_avio(&session->source);
    session->format = avformat_alloc_context();
    if (session->io == NULL || session->format == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "out of memory opening a video");
        CPhotoLibVideo_close(session);
        return CPhotoLibVideo_INTERNAL;
    }
    AVFormatContext *format = session->format;
    format->pb = session->io;
    format->flags |= AVFMT_FLAG_CUSTOM_IO;
    format->interrupt_callback.callback = CPhotoLibVideo_interrupted;
    format->interrupt_callback.opaque = &session->source;
    format->probesize = 1 << 20;
    format->max_analyze_duration = 5 * AV_TIME_BASE;
    format->max_streams = 64;
    format->error_recognition = AV_EF_EXPLODE;
    const AVInputFormat *mov = av_find_input_format("mov");
    if (mov == NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "this FFmpeg has no mov/mp4 demuxer");
        CPhotoLibVideo_close(session);
        return CPhotoLibVideo_UNSUPPORTED;
    }
    AVDictionary *options = NULL;
    /* Data references may name other files: never follow them. */
    av_dict_set(&options, "enable_drefs", "0", 0);
    av_dict_set(&options, "use_absolute_path", "0", 0);
    int error = avformat_open_input(&session->format, NULL, mov, &options);
    av_dict_free(&options);
    if (error < 0) {
        /* avformat_open_input frees the context on failure (not our custom AVIOContext). */
        session->format = NULL;
        status = CPhotoLibVideo_fail(session, error, "cannot read the movie header", message, capacity);
        CPhotoLibVideo_close(session);
        return status;
    }
    format = session->format;

    session->video_index = CPhotoLibVideo_pick_video(format);
    if (format->nb_streams == 0) {
        CPhotoLibJPEG_format_message(message, capacity, "damaged video: the movie header describes no tracks");
        CPhotoLibVideo_close(session);
        return CPhotoLibVideo_CORRUPT;
    }
    if (session->video_index < 0) {
        CPhotoLibJPEG_format_message(message, capacity, "the file has no video track (an audio-only or empty movie)");
        CPhotoLibVideo_close(session);
        return CPhotoLibVideo_UNSUPPORTED;
    }
    AVStream *stream = format->streams[session->video_index];
    int width = stream->codecpar->width, height = stream->codecpar->height;
    if ((width <= 0 || height <= 0) &&
        (stream->codecpar->codec_id == AV_CODEC_ID_MPEG4 || stream->codecpar->codec_id == AV_CODEC_ID_H263)) {
        /* The mov demuxer leaves MPEG-4 Part 2 and H.263 sizes to the decoder: decode the
         * first keyframe (within the decoder's pixel limit) to learn it. */
        status = CPhotoLibVideo_decoded_size(session, &width, &height, message, capacity);
        if (status != CPhotoLibVideo_OK) {
            CPhotoLibVideo_close(session);
            return status;
        }
        stream->codecpar->width = width;
        stream->codecpar->height = height;
    }
    if (width <= 0 || height <= 0) {
        CPhotoLibJPEG_format_message(message, capacity, "damaged video: the video track declares a size of %dx%d", width, height);
        CPhotoLibVideo_close(session);
        return CPhotoLibVideo_CORRUPT;
    }
    if ((uint64_t)width * (uint64_t)height > limits->max_pixels) {
        CPhotoLibJPEG_format_message(message, capacity, "the video is %dx%d, more than the limit of %llu pixels",
                                   width, height, (unsigned long long)limits->max_pixels);
        CPhotoLibVideo_close(session);
        return CPhotoLibVideo_TOO_LARGE;
    }
    uint64_t end = CPhotoLibVideo_index_end(format);
    if (end > session->source.size) {
        CPhotoLibJPEG_format_message(message, capacity,
                                   "truncated video: the file has %llu bytes but its sample table reaches byte %llu",
                                   (unsigned long long)session->source.size, (unsigned long long)end);
        CPhotoLibVideo_close(session);
        return CPhotoLibVideo_TRUNCATED;
    }
    CPhotoLibVideo_describe(session);
    *info = session->info;
    *result = session;
    return CPhotoLibVideo_OK;
}

void CPhotoLibVideo_close(CPhotoLibVideo_Session *session) {
    if (session == NULL) return;
    avcodec_free_context(&session->decoder);
    avformat_close_input(&session->format);
    if (session->io != NULL) {
        av_freep(&session->io->buffer);
        avio_context_free(&session->io);
    }
    CPhotoLibVideo_source_close(&session->source);
    free(session);
}

int CPhotoLibVideo_metadata(const CPhotoLibVideo_Session *session, uint32_t index,
                            const char **key, const char **value, int32_t *is_track) {
    if (session == NULL || session->format == NULL || key == NULL || value == NULL || is_track == NULL) return 0;
    const AVDictionary *dictionaries[2] = {session->format->metadata,
                                           session->video_index >= 0 ? session->format->streams[session->video_index]->metadata : NULL};
    for (int d = 0; d < 2; d++) {
        const AVDictionaryEntry *entry = NULL;
        uint32_t seen = 0;
        while (seen < CPhotoLibVideo_MAX_TAGS && (entry = av_dict_get(dictionaries[d], "", entry, AV_DICT_IGNORE_SUFFIX)) != NULL) {
            if (index == 0) {
                *key = entry->key;
                *value = entry->value;
                *is_track = d;
                return 1;
            }
            index--;
            seen++;
        }
    }
    return 0;
}
