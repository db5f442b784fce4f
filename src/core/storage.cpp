#include "core/storage.hpp"

#include <cstdlib>
#include <new>

#include "core/allocator.hpp"
#include "core/checks.hpp"

namespace tensora {

std::shared_ptr<Storage> Storage::allocate(std::size_t nbytes, Device device, SourceLocation where) {
  CachingAllocator& allocator = allocator_for(device);
  void* data = allocator.allocate(nbytes);
  if (data == nullptr) [[unlikely]] {
    const std::size_t limit = allocator.limit();
    check::fail_out_of_memory(nbytes, device, allocator.stats().bytes_in_use, limit == SIZE_MAX ? 0 : limit, where);
  }
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
  if (owner_) return;  // wrapped memory goes back with its owner (released after this body)
  allocator_for(device_).deallocate(data_, nbytes_);
}

}  // namespace tensora
