/* Internal helpers shared by the CPhotoLibHEIF sources. */
#ifndef CPHOTOLIBHEIF_INTERNAL_H
#define CPHOTOLIBHEIF_INTERNAL_H

#include "include/CPhotoLibHEIF.h"

/*
 * Reads the irot/imir properties associated with the primary item (pitm) from the 'meta'
 * box's 'iprp' ('ipco' + 'ipma'), in association order, into `out` (at most `capacity`).
 * Returns how many were found; 0 for any malformed or missing box (libheif reports the
 * damage itself). Every read is bounded by `size`.
 */
int CPhotoLibHEIF_read_transforms(const uint8_t *data, size_t size, CPhotoLibHEIF_Transform *out, int capacity);

#endif /* CPHOTOLIBHEIF_INTERNAL_H */
