// Size-bucketed caching allocator, one per device: a fresh output of a large op reuses an
// already faulted-in buffer instead of paying page faults on every call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <array>
#include <vector>

#include "tensora/memory.hpp"

namespace tensora {

class CachingAllocator {
 public:
  // Null when the limit or the system refuses (the caller raises OutOfMemory).
  void* allocate(std::size_t nbytes);
  void deallocate(void* ptr, std::size_t nbytes);

  MemoryStats stats();
  void release_cached();
  void set_cache_limit(std::size_t bytes);
  void reset_peak();
  void set_limit(std::size_t bytes);  // SIZE_MAX: none
  std::size_t limit();

  // The bucket a request of `nbytes` is served from (at most 1/4 larger than asked for),
  // and the index of its free list.
  static std::size_t size_class(std::size_t nbytes);
  static std::size_t class_index(std::size_t nbytes);
  static std::size_t class_bytes(std::size_t index);
  static constexpr std::size_t kClasses = 64 + 5 * 52 + 1;
  static constexpr std::size_t kMaxBytes = std::size_t{1} << 62;

 private:
  void trim_locked(std::size_t limit);

  std::mutex mutex_;
  std::array<std::vector<void*>, kClasses> free_;  // class index -> buffers
  MemoryStats stats_;
  std::size_t cache_limit_ = std::size_t{1} << 30;
  std::size_t limit_ = SIZE_MAX;
};

CachingAllocator& allocator_for(Device device);

}  // namespace tensora
