// A device buffer shared by tensor handles; 64-byte aligned.
#pragma once

#include <cstddef>
#include <memory>

#include "tensora/device.hpp"

namespace tensora {

class Storage {
 public:
  static constexpr std::size_t kAlignment = 64;

  // A buffer of at least `nbytes` bytes (never null, also for 0 bytes).
  static std::shared_ptr<Storage> allocate(std::size_t nbytes, Device device);

  Storage(void* data, std::size_t nbytes, Device device) : data_(data), nbytes_(nbytes), device_(device) {}
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  std::size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }

 private:
  void* data_;
  std::size_t nbytes_;
  Device device_;
};

}  // namespace tensora
