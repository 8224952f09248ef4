/* libFuzzer harness: CPhotoLibHEIF header (box walker, metadata, thumbnails), the Exif block
 * through CPhotoLibExif, and decodes of the primary image and the thumbnail. */
#include <stdint.h>
#include <stddef.h>

#include "CPhotoLibExif.h"
#include "CPhotoLibHEIF.h"
#include "fuzz_limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char message[CPhotoLibJPEG_MESSAGE_CAPACITY];
    CPhotoLibHEIF_Info info;
    if (CPhotoLibHEIF_read_header(data, size, &fuzz_limits, &info, message, sizeof message) == CPhotoLibJPEG_OK) {
        if (info.exif != NULL) {
            CPhotoLibExif_Info exif;
            CPhotoLibExif_read_tiff(info.exif, info.exif_size, &exif);
        }
        CPhotoLibHEIF_buffer_free(info.exif);
    }
    for (int thumbnail = 0; thumbnail <= 1; thumbnail++) {
        CPhotoLibJPEG_Image image;
        if (CPhotoLibHEIF_decode(data, size, &fuzz_limits, NULL, thumbnail ? CPhotoLibHEIF_DECODE_THUMBNAIL : 0, 1 + size % 3, &image, message, sizeof message) ==
            CPhotoLibJPEG_OK) {
            CPhotoLibJPEG_image_free(&image);
        }
    }
    return 0;
}
