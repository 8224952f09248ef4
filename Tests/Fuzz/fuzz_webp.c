/* libFuzzer harness: CPhotoLibWebP header + incremental decode, and the EXIF chunk. */
#include <stdint.h>
#include <stddef.h>

#include "CPhotoLibExif.h"
#include "CPhotoLibWebP.h"
#include "fuzz_limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char message[CPhotoLibJPEG_MESSAGE_CAPACITY];
    CPhotoLibWebP_Info info;
    if (CPhotoLibWebP_read_header(data, size, &fuzz_limits, &info, message, sizeof message) == CPhotoLibJPEG_OK &&
        info.exif_size > 0) {
        CPhotoLibExif_Info exif;
        CPhotoLibExif_read_tiff(data + info.exif_offset, info.exif_size, &exif);
    }
    CPhotoLibJPEG_Image image;
    if (CPhotoLibWebP_decode(data, size, &fuzz_limits, NULL, 1 + size % 3, NULL, &image, message, sizeof message) == CPhotoLibJPEG_OK) {
        CPhotoLibJPEG_image_free(&image);
    }
    return 0;
}
