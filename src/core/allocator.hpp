// Size-bucketed caching allocator, one per device: a fresh output of a large op reuses an
// already faulted-in buffer instead of paying page faults on every call. The bytes in use and
// the limit are atomics, so a small buffer that lives inside its Storage (core/storage.cpp)
// is accounted without taking the lock.
#pragma once

#include <atomic>
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
  // Accounting only, for buffers the caller allocates itself: false when the limit refuses.
  bool reserve(std::size_t nbytes);
  void unreserve(std::size_t nbytes) { in_use_.fetch_sub(size_class(nbytes), std::memory_order_relaxed); }

  MemoryStats stats();
  void release_cached();
  void set_cache_limit(std::size_t bytes);
  void reset_peak();
  void set_limit(std::size_t bytes);  // SIZE_MAX: none
  std::size_t limit();

  // The bucket a request of `nbytes` is served from (at most 1/4 larger than asked for),
  // and the index of its free list.
  static std::size_t size_class(std::size_t nbytes) {
    if (nbytes <= kSmallBytes) [[likely]] return nbytes == 0 ? 64 : (nbytes + 63) / 64 * 64;
    return large_size_class(nbytes);
  }
  static std::size_t class_index(std::size_t nbytes);
  static std::size_t class_bytes(std::size_t index);
  static constexpr std::size_t kClasses = 64 + 5 * 52 + 1;
  static constexpr std::size_t kMaxBytes = std::size_t{1} << 62;
  static constexpr std::size_t kSmallBytes = 4096;  // classes of 64 bytes up to here

 private:
  static std::size_t large_size_class(std::size_t nbytes);
  bool reserve_class(std::size_t cls);
  void trim_locked(std::size_t limit);

  std::atomic<std::size_t> in_use_{0};
  std::atomic<std::size_t> peak_{0};
  std::atomic<std::size_t> limit_{SIZE_MAX};
  std::mutex mutex_;  // guards the free lists, bytes_cached_ and cache_limit_
  // A cached buffer and when it was freed (a count of frees): the cache evicts the oldest.
  struct Cached {
    void* ptr;
    std::uint64_t freed_at;
  };
  // Vectors, not deques: a deque whose end sits at a node boundary allocates a node on each push
  // and frees it on each pop, a heap call on every cached allocation.
  std::array<std::vector<Cached>, kClasses> free_;  // class index -> buffers, oldest first
  std::uint64_t frees_ = 0;
  std::size_t bytes_cached_ = 0;
  std::size_t cache_limit_ = std::size_t{1} << 30;
};

CachingAllocator& allocator_for(Device device);

}  // namespace tensora
