#include "core/allocator.hpp"

#include <array>
#include <bit>
#include <cstdlib>
#include <new>

#include "core/storage.hpp"

namespace tensora {

static_assert(Storage::kAlignment == 64, "the small size classes are multiples of the alignment");

std::size_t CachingAllocator::large_size_class(std::size_t nbytes) {
  // Four classes per doubling bounds the waste to 25%. The step is a power of two, so rounding
  // is a mask, not a division (a 64-bit divide is tens of cycles on every allocation and free).
  const std::size_t step = std::bit_floor(nbytes) / 4;
  return (nbytes + step - 1) & ~(step - 1);
}

std::size_t CachingAllocator::class_index(std::size_t nbytes) {
  // Index the rounded size: a request that rounds up to the next power of two (m == 8 below,
  // e.g. 8000 -> 8192 bytes) must share that power's list with exact requests (8192 bytes).
  nbytes = size_class(nbytes);
  if (nbytes <= 4096) return nbytes == 0 ? 1 : (nbytes + 63) / 64;
  const auto width = static_cast<std::size_t>(std::bit_width(nbytes));  // the top bit's 1-based position
  const std::size_t m = nbytes >> (width - 3);                           // nbytes / (top / 4): 4..7
  return 64 + (width - 13) * 5 + (m - 4);
}

// The size of the buffers on free list `idx` (the inverse of class_index).
std::size_t CachingAllocator::class_bytes(std::size_t idx) {
  if (idx <= 64) return idx * 64;
  const std::size_t k = (idx - 64) / 5, m = (idx - 64) % 5 + 4;
  return (std::size_t{4096} << k) / 4 * m;
}

bool CachingAllocator::reserve_class(std::size_t cls) {
  // Reserved before the system call, so concurrent requests cannot pass the limit together.
  const std::size_t limit = limit_.load(std::memory_order_relaxed);
  std::size_t used = in_use_.load(std::memory_order_relaxed);
  do {
    if (cls > limit || used > limit - cls) return false;
  } while (!in_use_.compare_exchange_weak(used, used + cls, std::memory_order_relaxed));
  const std::size_t now = used + cls;
  std::size_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return true;
}

bool CachingAllocator::reserve(std::size_t nbytes) {
  return nbytes <= kMaxBytes && reserve_class(size_class(nbytes));
}

void* CachingAllocator::allocate(std::size_t nbytes) {
  // No buffer is this large; refusing here also keeps the size-class arithmetic from wrapping.
  if (nbytes > kMaxBytes) return nullptr;
  const std::size_t cls = size_class(nbytes);
  if (!reserve_class(cls)) return nullptr;
  {
    std::lock_guard lock(mutex_);
    auto& list = free_[class_index(nbytes)];
    if (!list.empty()) {  // the most recently freed: the likeliest still in the caches
      void* p = list.back().ptr;
      list.pop_back();
      bytes_cached_ -= cls;
      return p;
    }
  }
  void* p = std::aligned_alloc(Storage::kAlignment, cls);
  if (p == nullptr) {
    release_cached();
    p = std::aligned_alloc(Storage::kAlignment, cls);
  }
  if (p == nullptr) in_use_.fetch_sub(cls, std::memory_order_relaxed);
  return p;
}

void CachingAllocator::deallocate(void* ptr, std::size_t nbytes) {
  const std::size_t cls = size_class(nbytes);
  in_use_.fetch_sub(cls, std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  if (cls > cache_limit_) {
    std::free(ptr);
    return;
  }
  free_[class_index(nbytes)].push_back({ptr, frees_++});
  bytes_cached_ += cls;
  if (bytes_cached_ > cache_limit_) trim_locked(cache_limit_);
}

void CachingAllocator::trim_locked(std::size_t limit) {
  // The buffer freed longest ago goes first, whatever its size: a loop that frees and
  // allocates one large result per iteration keeps it cached while sizes it no longer uses
  // are returned. (Evicting the largest first evicted that very buffer once the cache held
  // older ones, and every iteration paid its page faults again: docs/ops.md, "Memory".) Each
  // list is oldest first, so the oldest buffer is the earliest of the lists' fronts.
  if (limit == 0) {
    for (auto& list : free_) {
      for (const Cached& c : list) std::free(c.ptr);
      list.clear();
    }
    bytes_cached_ = 0;
    return;
  }
  while (bytes_cached_ > limit) {
    std::size_t oldest = kClasses;
    for (std::size_t idx = 0; idx < kClasses; ++idx)
      if (!free_[idx].empty() && (oldest == kClasses || free_[idx].front().freed_at < free_[oldest].front().freed_at))
        oldest = idx;
    if (oldest == kClasses) return;
    auto& list = free_[oldest];
    std::free(list.front().ptr);
    list.erase(list.begin());  // lists are short, and only a full cache evicts
    bytes_cached_ -= class_bytes(oldest);
  }
}

MemoryStats CachingAllocator::stats() {
  MemoryStats s;
  {
    std::lock_guard lock(mutex_);
    s.bytes_cached = bytes_cached_;
  }
  s.bytes_in_use = in_use_.load(std::memory_order_relaxed);
  s.peak_bytes_in_use = peak_.load(std::memory_order_relaxed);
  return s;
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

void CachingAllocator::set_limit(std::size_t bytes) { limit_.store(bytes, std::memory_order_relaxed); }

std::size_t CachingAllocator::limit() { return limit_.load(std::memory_order_relaxed); }

void CachingAllocator::reset_peak() {
  peak_.store(in_use_.load(std::memory_order_relaxed), std::memory_order_relaxed);
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
