// The protobuf-c runtime (Debian: libprotobuf-c-dev), as a Swift system-library module.
#ifndef CPROTOBUFC_SHIM_H
#define CPROTOBUFC_SHIM_H
#include <protobuf-c/protobuf-c.h>
#endif
