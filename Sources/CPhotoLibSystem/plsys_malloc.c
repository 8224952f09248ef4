#include "CPhotoLibSystem.h"

/* Any libc header defines __GLIBC__ (through features.h) for the test below. */
#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int CPhotoLibSystem_limit_malloc_arenas(int count) {
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
    if (count < 1) return 0;
    return mallopt(M_ARENA_MAX, count) == 1;
#else
    (void)count;
    return 0;
#endif
}
