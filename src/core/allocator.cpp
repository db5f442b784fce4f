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

void* CachingAllocator::allocate(std::size_t nbytes) {
  const std::size_t cls = size_class(nbytes);
  {
    std::lock_guard lock(mutex_);
    auto it = free_.find(cls);
    if (it != free_.end() && !it->second.empty()) {
      void* p = it->second.back();
      it->second.pop_back();
      stats_.bytes_cached -= cls;
      stats_.bytes_in_use += cls;
      if (stats_.bytes_in_use > stats_.peak_bytes_in_use) stats_.peak_bytes_in_use = stats_.bytes_in_use;
      return p;
    }
  }
  void* p = std::aligned_alloc(Storage::kAlignment, cls);
  if (p == nullptr) {
    release_cached();
    p = std::aligned_alloc(Storage::kAlignment, cls);
    if (p == nullptr) throw std::bad_alloc();
  }
  std::lock_guard lock(mutex_);
  stats_.bytes_in_use += cls;
  if (stats_.bytes_in_use > stats_.peak_bytes_in_use) stats_.peak_bytes_in_use = stats_.bytes_in_use;
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
  free_[cls].push_back(ptr);
  stats_.bytes_cached += cls;
  if (stats_.bytes_cached > cache_limit_) trim_locked(cache_limit_);
}

void CachingAllocator::trim_locked(std::size_t limit) {
  // Largest buffers go first: they free the most memory for the fewest future faults.
  while (stats_.bytes_cached > limit) {
    std::size_t largest = 0;
    for (auto& [cls, list] : free_)
      if (!list.empty() && cls > largest) largest = cls;
    if (largest == 0) break;
    auto& list = free_[largest];
    std::free(list.back());
    list.pop_back();
    stats_.bytes_cached -= largest;
  }
}

MemoryStats CachingAllocator::stats() {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CachingAllocator::release_cached() {
  std::lock_guard lock(mutex_);
  trim_locked(0);
  free_.clear();
}

void CachingAllocator::set_cache_limit(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  cache_limit_ = bytes;
  trim_locked(bytes);
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

}  // namespace tensora
