// What the Python loader checks before registering the handlers: the hash of the kernel
// sources this library was built from (a stale library is rebuilt, never used).
#include "common.h"

#ifndef VMAPLAB_SOURCES_HASH
#error "VMAPLAB_SOURCES_HASH is set by CMakeLists.txt"
#endif

VMAPLAB_EXPORT const char* vmaplab_kernels_sources_hash() { return VMAPLAB_SOURCES_HASH; }
VMAPLAB_EXPORT const char* vmaplab_kernels_jaxlib_version() { return VMAPLAB_JAXLIB_VERSION; }
