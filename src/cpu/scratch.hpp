// A kernel's temporary buffer from the device's caching allocator. A fresh std::vector of a
// few megabytes pays a page fault per 4 KiB on every call (on a virtual machine a third of a
// 1024 x 1024 QR); a buffer of the same size class that an earlier call freed comes back
// already faulted in. The bytes count in the device's memory stats and limit while held.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <type_traits>

#include "core/storage.hpp"
#include "tensora/device.hpp"

namespace tensora::cpu {

template <class T>
class Scratch {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "scratch holds plain numbers");

 public:
  // `count` elements, uninitialized.
  explicit Scratch(std::size_t count)
      : storage_(Storage::allocate(std::max<std::size_t>(count, 1) * sizeof(T), Device::cpu())),
        data_(static_cast<T*>(storage_->data())),
        size_(count) {}
  Scratch(std::size_t count, T fill) : Scratch(count) { std::fill(begin(), end(), fill); }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }

 private:
  std::shared_ptr<Storage> storage_;
  T* data_;
  std::size_t size_;
};

}  // namespace tensora::cpu
