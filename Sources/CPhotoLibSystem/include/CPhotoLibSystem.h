// CPhotoLibSystem: process-wide C library settings Swift cannot reach (glibc's malloc.h is
// not part of Swift's Glibc module). Every function carries the CPhotoLibSystem_ prefix.
#ifndef CPHOTOLIBSYSTEM_H
#define CPHOTOLIBSYSTEM_H

/// Caps the number of glibc malloc arenas (mallopt M_ARENA_MAX). glibc otherwise gives
/// threads up to 8 arenas per core, and freed memory stays in the arena that held it: a
/// server with a thread per connection then keeps far more memory than it uses. Returns 1 on
/// success, 0 when the C library refused (or is not glibc).
int CPhotoLibSystem_limit_malloc_arenas(int count);

#endif
