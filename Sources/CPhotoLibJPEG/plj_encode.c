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
    CPhotoLibJPEG_EncodeOptions options;
    memset(&options, 0, sizeof options);
    options.quality = quality;
    options.optimize_coding = 1;
    return CPhotoLibJPEG_encode_ex(image, &options, output, output_size, message, message_capacity);
}

int CPhotoLibJPEG_encode_ex(const CPhotoLibJPEG_Image *image,
                            const CPhotoLibJPEG_EncodeOptions *options,
                            uint8_t **output, size_t *output_size,
                            char *message, size_t message_capacity) {
    if (output == NULL || output_size == NULL || image == NULL || image->pixels == NULL || options == NULL) {
        CPhotoLibJPEG_format_message(message, message_capacity, "encode: missing image, options or output");
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    *output = NULL;
    *output_size = 0;
    int quality = options->quality;
    if (quality < 1 || quality > 100) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "JPEG quality %d is out of range (1...100)", quality);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    int h_samp = options->h_samp == 0 ? 2 : options->h_samp;
    int v_samp = options->v_samp == 0 ? 2 : options->v_samp;
    if (h_samp < 1 || h_samp > 2 || v_samp < 1 || v_samp > 2) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "luma sampling factors %dx%d are out of range (1x1, 2x1, 1x2 or 2x2)", h_samp, v_samp);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    if (options->restart_rows < 0 || options->restart_rows > 65535) {
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "restart interval %d rows is out of range (0...65535)", options->restart_rows);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    if (image->width == 0 || image->height == 0 || image->width > JPEG_MAX_DIMENSION ||
        image->height > JPEG_MAX_DIMENSION) {
        CPhotoLibJPEG_format_message(message, message_capacity,
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
        CPhotoLibJPEG_format_message(message, message_capacity,
                                  "cannot encode %u components per pixel (1, 3 or 4)", image->components);
        return CPhotoLibJPEG_INVALID_ARGUMENT;
    }
    if (CPhotoLibJPEG_control_is_cancelled(options->control)) {
        CPhotoLibJPEG_format_message(message, message_capacity, "the image work was cancelled");
        return CPhotoLibJPEG_CANCELLED;
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
    if (in_space == JCS_CMYK && options->plain_cmyk) {
        jpeg_set_colorspace(&compress, JCS_CMYK);
    }
    jpeg_set_quality(&compress, quality, TRUE);
    if (in_space == JCS_RGB || (in_space == JCS_CMYK && !options->plain_cmyk)) {
        compress.comp_info[0].h_samp_factor = h_samp;
        compress.comp_info[0].v_samp_factor = v_samp;
        if (in_space == JCS_CMYK) {
            /* YCCK: K is a luma-like channel, kept at full resolution. */
            compress.comp_info[3].h_samp_factor = h_samp;
            compress.comp_info[3].v_samp_factor = v_samp;
        }
    }
    compress.restart_in_rows = options->restart_rows;
    compress.optimize_coding = options->optimize_coding ? TRUE : FALSE;
    compress.dct_method = JDCT_ISLOW;
    if (options->progressive) {
        jpeg_simple_progression(&compress);
    }
    jpeg_start_compress(&compress, TRUE);
    size_t row_bytes = (size_t)image->width * image->components;
    while (compress.next_scanline < compress.image_height) {
        if ((compress.next_scanline & 15) == 0 && CPhotoLibJPEG_control_is_cancelled(options->control)) {
            CPhotoLibJPEG_fail((j_common_ptr)&compress, CPhotoLibJPEG_CANCELLED, "the image work was cancelled");
        }
        JSAMPROW rows[1] = { image->pixels + (size_t)compress.next_scanline * row_bytes };
        jpeg_write_scanlines(&compress, rows, 1);
    }
    jpeg_finish_compress(&compress);
    jpeg_destroy_compress(&compress);
    *output = destination.buffer;
    *output_size = destination.size;
    return CPhotoLibJPEG_OK;
}
