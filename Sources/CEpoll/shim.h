// CEpoll: Linux's epoll (glibc's <sys/epoll.h>) for PhotoLibNet's event loops. Swift's Glibc
// module does not include this header, so it comes in through this module (epoll_create1,
// epoll_ctl, epoll_wait and struct epoll_event import as they are). Every helper carries the
// CEpoll_ prefix and says why it exists.
#ifndef CEPOLL_SHIM_H
#define CEPOLL_SHIM_H

#include <sys/epoll.h>
#include <sys/prctl.h>

// MARK: Thread names
//
// prctl is variadic, which Swift cannot call, and pthread_setname_np needs _GNU_SOURCE,
// which Swift's Glibc module is not built with. The loops name their threads so that
// /proc/PID/task/*/comm and debuggers show what each is.

/// Names the calling thread (at most 15 bytes are kept). Returns 0, or -1 with errno.
static inline int CEpoll_name_this_thread(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0UL, 0UL, 0UL);
}

#endif
