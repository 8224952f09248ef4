/*
 * heic_encode: writes a HEIC from raw interleaved RGB, with an EXIF orientation turned into
 * irot/imir properties, an optional thumbnail item and an optional EXIF block — what
 * heif-enc 1.15 cannot do (it neither writes irot nor takes an EXIF file). Built and run only
 * by Scripts/make-media-fixtures; the tests never need it.
 *
 * usage: heic_encode WIDTH HEIGHT IN.rgb ORIENTATION QUALITY THUMBNAIL_MAX EXIF.bin|- OUT.heic [nclx]
 *
 * With "nclx", the file gets a colr/nclx box (BT.709 primaries, sRGB transfer, BT.601 matrix,
 * full range) as iPhones write beside their ICC profile; without it there is no colour box.
 */
#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(struct heif_error error, const char *what) {
    if (error.code != heif_error_Ok) {
        fprintf(stderr, "heic_encode: %s: %s\n", what, error.message);
        exit(1);
    }
}

static unsigned char *slurp(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        perror(path);
        exit(1);
    }
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *bytes = malloc((size_t)length);
    if (bytes == NULL || fread(bytes, 1, (size_t)length, file) != (size_t)length) {
        fprintf(stderr, "heic_encode: cannot read %s\n", path);
        exit(1);
    }
    fclose(file);
    *size = (size_t)length;
    return bytes;
}

int main(int argc, char **argv) {
    if (argc != 9 && !(argc == 10 && strcmp(argv[9], "nclx") == 0)) {
        fprintf(stderr, "usage: heic_encode WIDTH HEIGHT IN.rgb ORIENTATION QUALITY THUMBNAIL_MAX EXIF.bin|- OUT.heic [nclx]\n");
        return 2;
    }
    int width = atoi(argv[1]), height = atoi(argv[2]), orientation = atoi(argv[4]);
    int quality = atoi(argv[5]), thumbnail_max = atoi(argv[6]);
    size_t size = 0;
    unsigned char *rgb = slurp(argv[3], &size);
    if (size != (size_t)width * height * 3) {
        fprintf(stderr, "heic_encode: %s has %zu bytes, not %dx%dx3\n", argv[3], size, width, height);
        return 1;
    }
    struct heif_image *image = NULL;
    check(heif_image_create(width, height, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image), "create image");
    check(heif_image_add_plane(image, heif_channel_interleaved, width, height, 8), "add plane");
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    for (int y = 0; y < height; y++) {
        memcpy(plane + (size_t)y * stride, rgb + (size_t)y * width * 3, (size_t)width * 3);
    }
    if (argc == 10) {
        struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
        nclx->color_primaries = heif_color_primaries_ITU_R_BT_709_5;
        nclx->transfer_characteristics = heif_transfer_characteristic_IEC_61966_2_1;
        nclx->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6;
        nclx->full_range_flag = 1;
        check(heif_image_set_nclx_color_profile(image, nclx), "set nclx");
        heif_nclx_color_profile_free(nclx);
    }
    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), "get encoder");
    check(heif_encoder_set_lossy_quality(encoder, quality), "set quality");
    struct heif_encoding_options *options = heif_encoding_options_alloc();
    options->image_orientation = (enum heif_orientation)orientation;
    /* libheif 1.15 leaves the nclx box out by default (an old macOS decoder bug). */
    options->macOS_compatibility_workaround_no_nclx_profile = argc == 10 ? 0 : 1;
    struct heif_image_handle *handle = NULL;
    check(heif_context_encode_image(context, image, encoder, options, &handle), "encode");
    if (thumbnail_max > 0) {
        check(heif_context_encode_thumbnail(context, image, handle, encoder, options, thumbnail_max, NULL), "thumbnail");
    }
    if (strcmp(argv[7], "-") != 0) {
        size_t exif_size = 0;
        unsigned char *exif = slurp(argv[7], &exif_size);
        check(heif_context_add_exif_metadata(context, handle, exif, (int)exif_size), "add exif");
        free(exif);
    }
    check(heif_context_write_to_file(context, argv[8]), "write");
    heif_encoding_options_free(options);
    heif_image_handle_release(handle);
    heif_encoder_release(encoder);
    heif_image_release(image);
    heif_context_free(context);
    free(rgb);
    return 0;
}
