/*
 * libFuzzer harness for CPhotoLibVideo: every input is opened from memory, its metadata
 * walked, and its poster frame decoded and converted, as VideoInspector and
 * VideoPosterRenderer do. Built and run by Scripts/fuzz-video (clang -fsanitize=fuzzer,address).
 *
 * FFmpeg itself is the system library (not instrumented): coverage guides mutations through
 * the shim, and AddressSanitizer checks every access the shim makes, including the buffers it
 * hands FFmpeg (the AVIOContext reads, the RGB output).
 */
#include <CPhotoLibVideo.h>

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    CPhotoLibVideo_Limits limits = {
        .max_pixels = 4000000, .max_read_bytes = 64u << 20, .max_memory_bytes = 64u << 20, .max_packets = 512};
    CPhotoLibVideo_Session *session = NULL;
    CPhotoLibVideo_Info info;
    char message[CPhotoLibVideo_MESSAGE_CAPACITY];
    memset(&info, 0, sizeof info);
    if (CPhotoLibVideo_open(NULL, data, size, &limits, NULL, &session, &info, message, sizeof message) != CPhotoLibVideo_OK) {
        return 0;
    }
    const char *key, *value;
    int32_t is_track;
    size_t total = 0;
    for (uint32_t i = 0; CPhotoLibVideo_metadata(session, i, &key, &value, &is_track); i++) {
        total += strlen(key) + strlen(value);
    }
    (void)total;
    double target = info.duration > 0 && info.duration < 1e6 ? info.duration * 0.1 : 0;
    if (target > 1) target = 1;
    /* Alternate between a small thumbnail conversion and the stored size. */
    uint32_t width = (size & 1) ? 0 : 48, height = (size & 1) ? 0 : 36;
    CPhotoLibJPEG_Image image;
    memset(&image, 0, sizeof image);
    double time = 0;
    if (CPhotoLibVideo_poster(session, target, width, height, &image, &time, message, sizeof message) == CPhotoLibVideo_OK) {
        /* Touch every output byte so ASan sees the whole buffer. */
        volatile uint8_t sum = 0;
        for (size_t i = 0; i < (size_t)image.width * image.height * 3; i++) sum ^= image.pixels[i];
        (void)sum;
    }
    CPhotoLibJPEG_image_free(&image);
    /* A second poster from the same session (the decoder is flushed and reused, the demuxer
     * seeks again) at a target taken from the input, possibly past the end. */
    double second = size > 0 ? (double)data[size - 1] / 16.0 : 0;
    if (CPhotoLibVideo_poster(session, second, 16, 16, &image, &time, message, sizeof message) == CPhotoLibVideo_OK) {
        volatile uint8_t sum = 0;
        for (size_t i = 0; i < (size_t)image.width * image.height * 3; i++) sum ^= image.pixels[i];
        (void)sum;
    }
    CPhotoLibJPEG_image_free(&image);
    CPhotoLibVideo_close(session);
    return 0;
}
