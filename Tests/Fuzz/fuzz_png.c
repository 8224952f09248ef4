/* libFuzzer harness: CPhotoLibPNG header + decode, and the eXIf block through CPhotoLibExif. */
#include <stdint.h>
#include <stddef.h>

#include "CPhotoLibExif.h"
#include "CPhotoLibPNG.h"
#include "fuzz_limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char message[CPhotoLibJPEG_MESSAGE_CAPACITY];
    CPhotoLibPNG_Info info;
    if (CPhotoLibPNG_read_header(data, size, &fuzz_limits, &info, message, sizeof message) == CPhotoLibJPEG_OK &&
        info.exif_size > 0) {
        CPhotoLibExif_Info exif;
        CPhotoLibExif_read_tiff(data + info.exif_offset, info.exif_size, &exif);
    }
    CPhotoLibJPEG_Image image;
    if (CPhotoLibPNG_decode(data, size, &fuzz_limits, NULL, 1 + size % 3, &info, &image, message, sizeof message) == CPhotoLibJPEG_OK) {
        CPhotoLibJPEG_image_free(&image);
    }
    return 0;
}
