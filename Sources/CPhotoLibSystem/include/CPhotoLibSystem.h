// CPhotoLibSystem: C library calls Swift cannot reach (glibc's malloc.h and the _GNU_SOURCE
// parts of fcntl.h are not part of Swift's Glibc module). Every function carries the
// CPhotoLibSystem_ prefix.
#ifndef CPHOTOLIBSYSTEM_H
#define CPHOTOLIBSYSTEM_H

/// Caps the number of glibc malloc arenas (mallopt M_ARENA_MAX). glibc otherwise gives
/// threads up to 8 arenas per core, and freed memory stays in the arena that held it: a
/// server with a thread per connection then keeps far more memory than it uses. Returns 1 on
/// success, 0 when the C library refused (or is not glibc).
int CPhotoLibSystem_limit_malloc_arenas(int count);

/// Starts writing the file's dirty pages in [offset, offset + count) to disk without waiting
/// for them (Linux sync_file_range with SYNC_FILE_RANGE_WRITE): a writer that calls it as it
/// goes leaves little for its final fsync to wait for. It does not make anything durable (only
/// fsync does). Returns 0, or -1 with errno; elsewhere than Linux it does nothing and returns 0.
int CPhotoLibSystem_start_writeback(int descriptor, long long offset, long long count);

/// Gives the calling thread at least the nice value `niceness` (Linux setpriority on its
/// thread id; a thread already nicer, as under `nice -n 15`, keeps its own):
/// with 10, the scheduler gives it about a tenth of a core that other threads want too, so
/// background work yields to serving. A thread without privileges cannot lower its nice
/// value again: call it on threads that do only such work. Returns 0, or -1 with errno;
/// elsewhere than Linux it does nothing and returns 0.
int CPhotoLibSystem_lower_thread_priority(int niceness);

#endif
