#include "core/allocator.hpp"

#include <array>
#include <bit>
#include <cstdlib>
#include <new>

#include "core/storage.hpp"

namespace tensora {

std::size_t CachingAllocator::size_class(std::size_t nbytes) {
  constexpr std::size_t kSmall = 4096;
  if (nbytes <= kSmall) return nbytes == 0 ? Storage::kAlignment : (nbytes + 63) / 64 * 64;
  // Four classes per doubling bounds the waste to 25%.
  const std::size_t top = std::bit_floor(nbytes);
  const std::size_t step = top / 4;
  return (nbytes + step - 1) / step * step;
}

std::size_t CachingAllocator::class_index(std::size_t nbytes) {
  // Index the rounded size: a request that rounds up to the next power of two (m == 8 below,
  // e.g. 8000 -> 8192 bytes) must share that power's list with exact requests (8192 bytes).
  nbytes = size_class(nbytes);
  if (nbytes <= 4096) return nbytes == 0 ? 1 : (nbytes + 63) / 64;
  const std::size_t top = std::bit_floor(nbytes);
  const std::size_t step = top / 4;
  const std::size_t m = (nbytes + step - 1) / step;  // 4..8
  return 64 + (static_cast<std::size_t>(std::bit_width(top)) - 13) * 5 + (m - 4);
}

// The size of the buffers on free list `idx` (the inverse of class_index).
std::size_t CachingAllocator::class_bytes(std::size_t idx) {
  if (idx <= 64) return idx * 64;
  const std::size_t k = (idx - 64) / 5, m = (idx - 64) % 5 + 4;
  return (std::size_t{4096} << k) / 4 * m;
}

void* CachingAllocator::allocate(std::size_t nbytes) {
  // No buffer is this large; refusing here also keeps the size-class arithmetic from wrapping.
  if (nbytes > kMaxBytes) return nullptr;
  const std::size_t cls = size_class(nbytes);
  const std::size_t idx = class_index(nbytes);
  {
    std::lock_guard lock(mutex_);
    if (cls > limit_ || stats_.bytes_in_use > limit_ - cls) return nullptr;
    // Reserved before the system call, so concurrent requests cannot pass the limit together.
    stats_.bytes_in_use += cls;
    if (stats_.bytes_in_use > stats_.peak_bytes_in_use) stats_.peak_bytes_in_use = stats_.bytes_in_use;
    auto& list = free_[idx];
    if (!list.empty()) {
      void* p = list.back();
      list.pop_back();
      stats_.bytes_cached -= cls;
      return p;
    }
  }
  void* p = std::aligned_alloc(Storage::kAlignment, cls);
  if (p == nullptr) {
    release_cached();
    p = std::aligned_alloc(Storage::kAlignment, cls);
  }
  if (p == nullptr) {
    std::lock_guard lock(mutex_);
    stats_.bytes_in_use -= cls;
  }
  return p;
}

void CachingAllocator::deallocate(void* ptr, std::size_t nbytes) {
  const std::size_t cls = size_class(nbytes);
  std::lock_guard lock(mutex_);
  stats_.bytes_in_use -= cls;
  if (cls > cache_limit_) {
    std::free(ptr);
    return;
  }
  free_[class_index(nbytes)].push_back(ptr);
  stats_.bytes_cached += cls;
  if (stats_.bytes_cached > cache_limit_) trim_locked(cache_limit_);
}

void CachingAllocator::trim_locked(std::size_t limit) {
  // Largest buffers go first: they free the most memory for the fewest future faults.
  for (std::size_t idx = kClasses; idx-- > 0 && stats_.bytes_cached > limit;) {
    auto& list = free_[idx];
    while (!list.empty() && stats_.bytes_cached > limit) {
      std::free(list.back());
      list.pop_back();
      stats_.bytes_cached -= class_bytes(idx);
    }
  }
}

MemoryStats CachingAllocator::stats() {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CachingAllocator::release_cached() {
  std::lock_guard lock(mutex_);
  trim_locked(0);
}

void CachingAllocator::set_cache_limit(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  cache_limit_ = bytes;
  trim_locked(bytes);
}

void CachingAllocator::set_limit(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  limit_ = bytes;
}

std::size_t CachingAllocator::limit() {
  std::lock_guard lock(mutex_);
  return limit_;
}

void CachingAllocator::reset_peak() {
  std::lock_guard lock(mutex_);
  stats_.peak_bytes_in_use = stats_.bytes_in_use;
}

CachingAllocator& allocator_for(Device device) {
  // Leaked on purpose: tensors in static objects may be freed after main returns.
  static auto* allocators = new std::array<CachingAllocator, Device::kMaxCpuDevices>();
  return (*allocators)[static_cast<std::size_t>(device.index())];
}

MemoryStats memory_stats(Device device) { return allocator_for(device).stats(); }
void release_cached_memory(Device device) { allocator_for(device).release_cached(); }
void set_memory_cache_limit(Device device, std::size_t bytes) {
  allocator_for(device).set_cache_limit(bytes);
}
void reset_peak_memory(Device device) { allocator_for(device).reset_peak(); }
void set_memory_limit(Device device, std::size_t bytes) { allocator_for(device).set_limit(bytes); }
void clear_memory_limit(Device device) { allocator_for(device).set_limit(SIZE_MAX); }

}  // namespace tensora
