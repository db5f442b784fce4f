#include "core/storage.hpp"

#include <cstdint>
#include <cstdlib>
#include <functional>
#include <new>

#include "core/allocator.hpp"
#include "core/checks.hpp"

namespace tensora {

// Allocates the block of std::allocate_shared with room for the buffer at its end and records
// where it put it, so the Storage constructed in it can find its buffer.
template <class T>
struct InlineAllocator {
  using value_type = T;
  InlineAllocator(Storage::Block* block, std::size_t extra) : block(block), extra(extra) {}
  template <class U>
  InlineAllocator(const InlineAllocator<U>& other) : block(other.block), extra(other.extra) {}
  T* allocate(std::size_t n) {
    block->bytes = n * sizeof(T) + extra;
    block->start = ::operator new(block->bytes);
    return static_cast<T*>(block->start);
  }
  void deallocate(T* p, std::size_t) { ::operator delete(p); }
  template <class U>
  bool operator==(const InlineAllocator<U>& other) const { return extra == other.extra; }

  Storage::Block* block;  // only read while allocate_shared runs
  std::size_t extra;
};

Storage::Storage(InlineTag, const Block& block, std::size_t nbytes, Device device)
    : nbytes_(nbytes), device_(device), inline_(true) {
  // The last nbytes of the block, rounded down to the alignment: the slack of kAlignment - 1
  // bytes in `extra` keeps the buffer clear of the control block and the Storage.
  const auto end = reinterpret_cast<std::uintptr_t>(block.start) + block.bytes;
  data_ = reinterpret_cast<void*>((end - nbytes) & ~std::uintptr_t{kAlignment - 1});
}

std::shared_ptr<Storage> Storage::allocate_inline(std::size_t nbytes, Device device) {
  Block block;
  return std::allocate_shared<Storage>(InlineAllocator<Storage>(&block, nbytes + kAlignment - 1), InlineTag{},
                                       std::cref(block), nbytes, device);
}

namespace {

// OutOfMemory for a request the allocator (its limit or the system) refused.
[[noreturn]] void refuse(CachingAllocator& allocator, std::size_t nbytes, Device device, SourceLocation where) {
  const std::size_t limit = allocator.limit();
  check::fail_out_of_memory(nbytes, device, allocator.stats().bytes_in_use, limit == SIZE_MAX ? 0 : limit, where);
}

}  // namespace

std::shared_ptr<Storage> Storage::allocate(std::size_t nbytes, Device device, SourceLocation where) {
  CachingAllocator& allocator = allocator_for(device);
  if (nbytes <= kInlineBytes) [[likely]] {
    if (allocator.reserve(nbytes)) [[likely]] {
      // As for cached buffers: when the system refuses, the cache goes back and the request
      // is tried once more before OutOfMemory.
      for (int attempt = 0; attempt < 2; ++attempt) {
        try {
          return allocate_inline(nbytes, device);
        } catch (const std::bad_alloc&) {
          if (attempt == 0) allocator.release_cached();
        }
      }
      allocator.unreserve(nbytes);
    }
    refuse(allocator, nbytes, device, where);
  }
  void* data = allocator.allocate(nbytes);
  if (data == nullptr) [[unlikely]] refuse(allocator, nbytes, device, where);
  return std::make_shared<Storage>(data, nbytes, device);
}

std::shared_ptr<Storage> Storage::wrap(void* data, std::size_t nbytes, Device device,
                                       std::shared_ptr<void> owner, bool read_only) {
  auto storage = std::make_shared<Storage>(data, nbytes, device);
  storage->owner_ = std::move(owner);
  storage->read_only_ = read_only;
  return storage;
}

Storage::~Storage() {
  if (inline_) {
    allocator_for(device_).unreserve(nbytes_);
    return;
  }
  // Wrapped memory goes back with its owner (released after this body). An owner is set even
  // when the pointer it holds is null (a borrowed empty buffer), so ask for the count, not the
  // pointer: `if (owner_)` would free a null buffer that was never allocated.
  if (owner_.use_count() > 0) return;
  allocator_for(device_).deallocate(data_, nbytes_);
}

}  // namespace tensora
