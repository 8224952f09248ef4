/*
 * Encode session: pixels in, a baseline JPEG in a malloc'd buffer out.
 *
 * One whole libjpeg compression session under setjmp (libjpeg's errors longjmp, see
 * plj_session.h; Swift cannot). jpeg_create_compress is a macro, another reason.
 *
 * Related libjpeg documentation: libjpeg.txt, "Compression details",
 * "Compression parameter selection", "Special color spaces".
 */
#include "plj_session.h"

#include <stdlib.h>
#include <string.h>

void CPhotoLibJPEG_buffer_free(uint8_t *buffer) {
    free(buffer);
}

/* Memory destination state: libjpeg writes the buffer pointer and size here. */
typedef struct CPhotoLibJPEG_Destination {
    unsigned char *buffer;
    unsigned long size;
} CPhotoLibJPEG_Destination;

int CPhotoLibJPEG_encode(const CPhotoLibJPEG_Image *image, int quality,
                         uint8_t **output, size_t *output_size,
                         char *message, size_t message_capacity) {
    if (output == NULL || output_size == NULL || image == NULL || image->pixels == NULL) {
        CPhotoLibJPEG_set_message(message, message_capacity, "encode: missing image or output");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    *output = NULL;
    *output_size = 0;
    if (quality < 1 || quality > 100) {
        CPhotoLibJPEG_set_message(message, message_capacity,
                                  "JPEG quality %d is out of range (1...100)", quality);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    if (image->width == 0 || image->height == 0 || image->width > JPEG_MAX_DIMENSION ||
        image->height > JPEG_MAX_DIMENSION) {
        CPhotoLibJPEG_set_message(message, message_capacity,
                                  "cannot encode a %ux%u image (1...%ld pixels per side)",
                                  image->width, image->height, (long)JPEG_MAX_DIMENSION);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    J_COLOR_SPACE in_space;
    switch (image->components) {
    case 1: in_space = JCS_GRAYSCALE; break;
    case 3: in_space = JCS_RGB; break;
    case 4: in_space = JCS_CMYK; break;
    default:
        CPhotoLibJPEG_set_message(message, message_capacity,
                                  "cannot encode %u components per pixel (1, 3 or 4)", image->components);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }

    struct jpeg_compress_struct compress;
    CPhotoLibJPEG_ErrorManager manager;
    /* libjpeg updates these through a pointer; they live in memory, not registers. */
    CPhotoLibJPEG_Destination destination = { NULL, 0 };
    memset(&compress, 0, sizeof compress);
    CPhotoLibJPEG_error_manager_init(&manager, message, message_capacity, 0);
    compress.err = &manager.pub;
    if (setjmp(manager.jump)) {
        jpeg_destroy_compress(&compress);
        free(destination.buffer);
        return manager.status == CPhotoLibJPEG_CORRUPT ? CPhotoLibJPEG_INTERNAL : manager.status;
    }
    jpeg_create_compress(&compress);
    jpeg_mem_dest(&compress, &destination.buffer, &destination.size);
    compress.image_width = image->width;
    compress.image_height = image->height;
    compress.input_components = (int)image->components;
    compress.in_color_space = in_space;
    /* For CMYK input, jpeg_set_defaults picks YCCK and writes an Adobe marker. */
    jpeg_set_defaults(&compress);
    jpeg_set_quality(&compress, quality, TRUE);
    compress.optimize_coding = TRUE;
    compress.dct_method = JDCT_ISLOW;
    jpeg_start_compress(&compress, TRUE);
    size_t row_bytes = (size_t)image->width * image->components;
    while (compress.next_scanline < compress.image_height) {
        JSAMPROW rows[1] = { image->pixels + (size_t)compress.next_scanline * row_bytes };
        jpeg_write_scanlines(&compress, rows, 1);
    }
    jpeg_finish_compress(&compress);
    jpeg_destroy_compress(&compress);
    *output = destination.buffer;
    *output_size = destination.size;
    return CPhotoLibJPEG_OK;
}
