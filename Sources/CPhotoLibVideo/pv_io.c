/*
 * The byte source behind a session's custom AVIOContext: a file read with pread (so a
 * 2 GB video is never loaded, and only what the demuxer asks for is read) or a caller's
 * memory buffer. Every read checks the caller's cancellation flag and the byte budget.
 *
 * Related FFmpeg documentation: avio.h, avio_alloc_context (read_packet, seek, AVSEEK_SIZE).
 */
#include "pv_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Size of the AVIOContext's buffer: the demuxer reads boxes and packets through it. */
#define CPhotoLibVideo_IO_BUFFER 65536

int CPhotoLibVideo_source_open(CPhotoLibVideo_Source *source, const char *path,
                               const uint8_t *data, size_t size,
                               char *message, size_t capacity) {
    source->fd = -1;
    if (path == NULL) {
        if (data == NULL && size > 0) {
            CPhotoLibJPEG_format_message(message, capacity, "no bytes given");
            return CPhotoLibVideo_INVALID_ARGUMENT;
        }
        source->data = data;
        source->size = size;
        return CPhotoLibVideo_OK;
    }
    int fd;
    do {
        fd = open(path, O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        CPhotoLibJPEG_format_message(message, capacity, "cannot open the video file: %s", strerror(errno));
        return CPhotoLibVideo_UNREADABLE;
    }
    struct stat status;
    if (fstat(fd, &status) != 0) {
        int error = errno;
        close(fd);
        CPhotoLibJPEG_format_message(message, capacity, "cannot read the video file's size: %s", strerror(error));
        return CPhotoLibVideo_UNREADABLE;
    }
    if (!S_ISREG(status.st_mode)) {
        close(fd);
        CPhotoLibJPEG_format_message(message, capacity, "the video path is not a regular file");
        return CPhotoLibVideo_UNREADABLE;
    }
    source->fd = fd;
    source->size = (uint64_t)status.st_size;
    return CPhotoLibVideo_OK;
}

void CPhotoLibVideo_source_close(CPhotoLibVideo_Source *source) {
    if (source->fd >= 0) {
        close(source->fd);
        source->fd = -1;
    }
}

int CPhotoLibVideo_interrupted(void *opaque) {
    const CPhotoLibVideo_Source *source = opaque;
    return CPhotoLibJPEG_control_is_cancelled(source->control) != 0;
}

/* Reads at `offset` without touching the position or the budget; -1 on an I/O error. */
static ssize_t CPhotoLibVideo_source_read_at(CPhotoLibVideo_Source *source, uint64_t offset,
                                             uint8_t *buffer, size_t count) {
    if (offset >= source->size) return 0;
    if (count > source->size - offset) count = (size_t)(source->size - offset);
    if (source->fd < 0) {
        memcpy(buffer, source->data + offset, count);
        return (ssize_t)count;
    }
    ssize_t got;
    do {
        got = pread(source->fd, buffer, count, (off_t)offset);
    } while (got < 0 && errno == EINTR);
    if (got < 0) source->io_error = errno;
    return got;
}

size_t CPhotoLibVideo_source_peek(CPhotoLibVideo_Source *source, uint64_t offset,
                                  uint8_t *buffer, size_t capacity) {
    ssize_t got = CPhotoLibVideo_source_read_at(source, offset, buffer, capacity);
    if (got <= 0) return 0;
    source->bytes_read += (uint64_t)got;
    return (size_t)got;
}

/* AVIOContext read_packet: bytes from the current position, or an AVERROR. */
static int CPhotoLibVideo_avio_read(void *opaque, uint8_t *buffer, int size) {
    CPhotoLibVideo_Source *source = opaque;
    if (CPhotoLibVideo_interrupted(source)) return AVERROR_EXIT;
    if (size <= 0) return 0;
    if (source->position >= source->size) return AVERROR_EOF;
    uint64_t want = (uint64_t)size;
    if (want > source->size - source->position) want = source->size - source->position;
    if (source->bytes_read + want > source->max_read_bytes) {
        source->budget_exceeded = 1;
        return AVERROR(EFBIG);
    }
    ssize_t got = CPhotoLibVideo_source_read_at(source, source->position, buffer, (size_t)want);
    if (got < 0) return AVERROR(EIO);
    if (got == 0) return AVERROR_EOF;
    source->position += (uint64_t)got;
    source->bytes_read += (uint64_t)got;
    return (int)got;
}

/* AVIOContext seek: absolute, relative and from-the-end positions, and the size query. */
static int64_t CPhotoLibVideo_avio_seek(void *opaque, int64_t offset, int whence) {
    CPhotoLibVideo_Source *source = opaque;
    if (whence & AVSEEK_SIZE) return (int64_t)source->size;
    int64_t base;
    switch (whence & ~AVSEEK_FORCE) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = (int64_t)source->position; break;
    case SEEK_END: base = (int64_t)source->size; break;
    default: return AVERROR(EINVAL);
    }
    if ((offset > 0 && base > INT64_MAX - offset) || base + offset < 0) return AVERROR(EINVAL);
    source->position = (uint64_t)(base + offset);
    return (int64_t)source->position;
}

AVIOContext *CPhotoLibVideo_source_avio(CPhotoLibVideo_Source *source) {
    unsigned char *buffer = av_malloc(CPhotoLibVideo_IO_BUFFER);
    if (buffer == NULL) return NULL;
    AVIOContext *io = avio_alloc_context(buffer, CPhotoLibVideo_IO_BUFFER, 0, source,
                                         CPhotoLibVideo_avio_read, NULL, CPhotoLibVideo_avio_seek);
    if (io == NULL) {
        av_free(buffer);
        return NULL;
    }
    io->seekable = AVIO_SEEKABLE_NORMAL;
    return io;
}
