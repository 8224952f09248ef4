/*
 * Container sniffing: decides from the first bytes whether the mov/mp4 demuxer may see the
 * file at all. Only an ISO base media / QuickTime box layout passes; anything else is named
 * ("a JPEG image", "a Matroska or WebM video") so the caller can say what was refused. HEIF
 * and AVIF images and Canon CR3 raws share the box layout: their ftyp brand refuses them.
 *
 * Related documentation: ISO/IEC 14496-12 §4.2 (box header) and §4.3 (FileTypeBox);
 * Apple's QuickTime File Format, "Atoms".
 */
#include "pv_internal.h"

#include <string.h>

static int CPhotoLibVideo_has(const uint8_t *head, size_t count, size_t offset, const char *text) {
    size_t length = strlen(text);
    return count >= offset + length && memcmp(head + offset, text, length) == 0;
}

/* A name for bytes that are not a box layout, or NULL when nothing is recognised. */
static const char *CPhotoLibVideo_name_other(const uint8_t *head, size_t count) {
    if (count >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF) return "a JPEG image";
    if (CPhotoLibVideo_has(head, count, 0, "\x89PNG\r\n\x1a\n")) return "a PNG image";
    if (CPhotoLibVideo_has(head, count, 0, "GIF87a") || CPhotoLibVideo_has(head, count, 0, "GIF89a")) return "a GIF image";
    if (CPhotoLibVideo_has(head, count, 0, "RIFF")) {
        if (CPhotoLibVideo_has(head, count, 8, "WEBP")) return "a WebP image";
        if (CPhotoLibVideo_has(head, count, 8, "AVI ")) return "an AVI video";
        if (CPhotoLibVideo_has(head, count, 8, "WAVE")) return "a WAV audio file";
        return "a RIFF file";
    }
    if (count >= 4 && head[0] == 0x1A && head[1] == 0x45 && head[2] == 0xDF && head[3] == 0xA3) {
        for (size_t i = 4; i + 4 <= count && i < 64; i++) {
            if (memcmp(head + i, "webm", 4) == 0) return "a WebM video";
        }
        return "a Matroska video";
    }
    if (CPhotoLibVideo_has(head, count, 0, "II*\0") || CPhotoLibVideo_has(head, count, 0, "MM\0*")) {
        return "a TIFF image (or a camera raw)";
    }
    if (CPhotoLibVideo_has(head, count, 0, "%PDF")) return "a PDF document";
    if (CPhotoLibVideo_has(head, count, 0, "PK\x03\x04")) return "a ZIP archive";
    if (CPhotoLibVideo_has(head, count, 0, "ID3") || (count >= 2 && head[0] == 0xFF && (head[1] & 0xE0) == 0xE0)) {
        return "an MP3 audio file";
    }
    if (CPhotoLibVideo_has(head, count, 0, "fLaC")) return "a FLAC audio file";
    if (CPhotoLibVideo_has(head, count, 0, "OggS")) return "an Ogg file";
    if (CPhotoLibVideo_has(head, count, 0, "FLV")) return "a Flash video";
    if (CPhotoLibVideo_has(head, count, 0, "BM")) return "a BMP image";
    if (count >= 4 && head[0] == 0 && head[1] == 0 && head[2] == 1 && (head[3] == 0xBA || head[3] == 0xB3)) {
        return "an MPEG program stream";
    }
    if (count >= 189 && head[0] == 0x47 && head[188] == 0x47) return "an MPEG transport stream";
    return NULL;
}

/* Whether `type` is a top-level box that can start a QuickTime or ISO base media file. */
static int CPhotoLibVideo_is_leading_box(const uint8_t *type) {
    static const char *const types[] = {"ftyp", "moov", "mdat", "free", "skip", "wide", "pnot", "uuid", "styp"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (memcmp(type, types[i], 4) == 0) return 1;
    }
    return 0;
}

/* The kind of image or audio a non-video ftyp brand stands for, or NULL for video brands. */
static const char *CPhotoLibVideo_name_brand(const uint8_t *brand) {
    static const char *const heif[] = {"heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1"};
    for (size_t i = 0; i < sizeof heif / sizeof heif[0]; i++) {
        if (memcmp(brand, heif[i], 4) == 0) return "a HEIF/HEIC image";
    }
    if (memcmp(brand, "avif", 4) == 0 || memcmp(brand, "avis", 4) == 0) return "an AVIF image";
    if (memcmp(brand, "crx ", 4) == 0) return "a Canon CR3 raw photo";
    if (memcmp(brand, "jp2 ", 4) == 0 || memcmp(brand, "jpx ", 4) == 0) return "a JPEG 2000 image";
    if (memcmp(brand, "M4A ", 4) == 0 || memcmp(brand, "M4B ", 4) == 0 || memcmp(brand, "M4P ", 4) == 0) {
        return "an M4A audio file";
    }
    return NULL;
}

int CPhotoLibVideo_sniff(const uint8_t *head, size_t count, char *brand,
                         char *message, size_t capacity) {
    brand[0] = '\0';
    if (count == 0) {
        CPhotoLibJPEG_format_message(message, capacity, "the file is empty, not a MOV/MP4 video");
        return CPhotoLibVideo_NOT_VIDEO;
    }
    if (count >= 8 && CPhotoLibVideo_is_leading_box(head + 4)) {
        uint32_t size = (uint32_t)head[0] << 24 | (uint32_t)head[1] << 16 | (uint32_t)head[2] << 8 | head[3];
        if (size == 0 || size == 1 || size >= 8) {
            if (memcmp(head + 4, "ftyp", 4) == 0 && count >= 12) {
                const char *other = CPhotoLibVideo_name_brand(head + 8);
                if (other != NULL) {
                    CPhotoLibJPEG_format_message(message, capacity, "the file is %s (ftyp brand '%.4s'), not a MOV/MP4 video",
                                               other, (const char *)(head + 8));
                    return CPhotoLibVideo_NOT_VIDEO;
                }
                for (int i = 0; i < 4; i++) {
                    uint8_t c = head[8 + i];
                    brand[i] = (c >= 0x20 && c < 0x7F) ? (char)c : '?';
                }
                brand[4] = '\0';
            }
            return CPhotoLibVideo_OK;
        }
    }
    const char *other = CPhotoLibVideo_name_other(head, count);
    if (other != NULL) {
        CPhotoLibJPEG_format_message(message, capacity, "the file is %s, not a MOV/MP4 video", other);
        return CPhotoLibVideo_NOT_VIDEO;
    }
    int text = 1;
    for (size_t i = 0; i < count && i < 64; i++) {
        uint8_t c = head[i];
        if (!(c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c < 0x7F) || c >= 0x80)) text = 0;
    }
    if (text) {
        CPhotoLibJPEG_format_message(message, capacity, "the file is text, not a MOV/MP4 video");
    } else {
        CPhotoLibJPEG_format_message(message, capacity,
                                   "the file is not a MOV/MP4 video: it does not start with a QuickTime/ISO box "
                                   "(first bytes 0x%02x 0x%02x 0x%02x 0x%02x)",
                                   head[0], count > 1 ? head[1] : 0, count > 2 ? head[2] : 0, count > 3 ? head[3] : 0);
    }
    return CPhotoLibVideo_NOT_VIDEO;
}
