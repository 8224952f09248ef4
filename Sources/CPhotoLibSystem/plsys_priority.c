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
    id_t thread = (id_t)gettid();
    errno = 0;
    int current = getpriority(PRIO_PROCESS, thread);
    if (current == -1 && errno != 0) return -1;
    /* Already that nice or nicer (a server started with `nice`): kept, never raised. */
    if (current >= niceness) return 0;
    return setpriority(PRIO_PROCESS, thread, niceness);
#else
    (void)niceness;
    return 0;
#endif
}
