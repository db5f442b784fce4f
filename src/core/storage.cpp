#include "core/storage.hpp"

#include <cstdlib>
#include <new>

#include "core/allocator.hpp"

namespace tensora {

std::shared_ptr<Storage> Storage::allocate(std::size_t nbytes, Device device) {
  void* data = allocator_for(device).allocate(nbytes);
  return std::make_shared<Storage>(data, nbytes, device);
}

Storage::~Storage() { allocator_for(device_).deallocate(data_, nbytes_); }

}  // namespace tensora
