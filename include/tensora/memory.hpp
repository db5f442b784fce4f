// Per-device caching allocator controls and statistics.
#pragma once

#include <cstddef>

#include "tensora/device.hpp"

namespace tensora {

struct MemoryStats {
  std::size_t bytes_in_use = 0;    // held by live tensors (rounded to size classes)
  std::size_t bytes_cached = 0;    // freed buffers kept for reuse
  std::size_t peak_bytes_in_use = 0;
};

MemoryStats memory_stats(Device device);
// Returns every cached buffer of the device to the system.
void release_cached_memory(Device device);
// The most bytes the device keeps cached (default 1 GiB); lowering it trims the cache.
void set_memory_cache_limit(Device device, std::size_t bytes);
// Caps the bytes that live tensors of the device may hold (bytes_in_use, in size classes): an
// allocation past it fails with ErrorKind::OutOfMemory, as one beyond the system's memory does.
void set_memory_limit(Device device, std::size_t bytes);
// Removes the cap (the default).
void clear_memory_limit(Device device);

// Resets peak_bytes_in_use to the current bytes_in_use.
void reset_peak_memory(Device device);

}  // namespace tensora
