/* sync_file_range needs _GNU_SOURCE, which Swift's Glibc module is not built with. */
#define _GNU_SOURCE
#include "CPhotoLibSystem.h"

#include <fcntl.h>

int CPhotoLibSystem_start_writeback(int descriptor, long long offset, long long count) {
#if defined(__linux__) && defined(SYNC_FILE_RANGE_WRITE)
    if (offset < 0 || count <= 0) return 0;
    return sync_file_range(descriptor, (off_t)offset, (off_t)count, SYNC_FILE_RANGE_WRITE);
#else
    (void)descriptor;
    (void)offset;
    (void)count;
    return 0;
#endif
}
