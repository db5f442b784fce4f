// A device buffer shared by tensor handles: 64-byte aligned when tensora allocates it, or
// memory owned by someone else (a file mapping, a DLPack producer) kept alive by an owner.
// A buffer of at most kInlineBytes lives in the same heap block as its Storage and the
// shared_ptr's counts: a tiny op's output then costs one allocation, not a cache lookup
// under a lock plus a second one.
#pragma once

#include <cstddef>
#include <memory>

#include "tensora/device.hpp"
#include "tensora/error.hpp"

namespace tensora {

class Storage {
 public:
  static constexpr std::size_t kAlignment = 64;
  static constexpr std::size_t kInlineBytes = 512;

  // A buffer of at least `nbytes` bytes (never null, also for 0 bytes); OutOfMemory when the
  // device's limit or the system refuses.
  static std::shared_ptr<Storage> allocate(std::size_t nbytes, Device device,
                                           SourceLocation where = SourceLocation::current());
  // `nbytes` bytes at `data` that tensora does not own: `owner` keeps them alive and is
  // released with the last tensor that uses them. Read-only storage rejects `_into` writes.
  static std::shared_ptr<Storage> wrap(void* data, std::size_t nbytes, Device device,
                                       std::shared_ptr<void> owner, bool read_only);

  Storage(void* data, std::size_t nbytes, Device device) : data_(data), nbytes_(nbytes), device_(device) {}
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  std::size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  bool read_only() const { return read_only_; }

 private:
  struct InlineTag {};
  struct Block {  // where the shared block was placed (filled by its allocator)
    void* start = nullptr;
    std::size_t bytes = 0;
  };
  template <class T>
  friend struct InlineAllocator;

 public:
  Storage(InlineTag, const Block& block, std::size_t nbytes, Device device);

 private:
  static std::shared_ptr<Storage> allocate_inline(std::size_t nbytes, Device device);

  void* data_;
  std::size_t nbytes_;
  Device device_;
  std::shared_ptr<void> owner_;  // set for wrapped memory: the allocator does not free it
  bool read_only_ = false;
  bool inline_ = false;  // the buffer is part of this object's block: only the accounting to undo
};

}  // namespace tensora
