/* libFuzzer harness: CPhotoLibExif over bare TIFF blocks (HEIF Exif items, PNG eXIf, WebP
 * EXIF) and over JPEG APP1 segments, including the Apple MakerNote walker. */
#include <stdint.h>
#include <stddef.h>

#include "CPhotoLibExif.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    CPhotoLibExif_Info info;
    CPhotoLibExif_read_tiff(data, size, &info);
    CPhotoLibExif_read(data, size, &info);
    return 0;
}
