/* gettid needs _GNU_SOURCE, which Swift's Glibc module is not built with. */
#define _GNU_SOURCE
#include "CPhotoLibSystem.h"

#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

int CPhotoLibSystem_lower_thread_priority(int niceness) {
#if defined(__linux__)
    /* On Linux a nice value belongs to a thread: PRIO_PROCESS with a thread id sets that
       thread's alone. */
    return setpriority(PRIO_PROCESS, (id_t)gettid(), niceness);
#else
    (void)niceness;
    return 0;
#endif
}
