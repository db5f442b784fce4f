// Writes a file atomically: a temporary file in the target's directory, fsync, rename over
// the target, fsync of the directory. Readers see the old file or the whole new one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace tensora::io_detail {

class AtomicFile {
 public:
  AtomicFile(std::string_view op, std::filesystem::path target);
  ~AtomicFile();  // removes the temporary file unless commit() ran
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t n);
  void write(std::string_view s) { write(s.data(), s.size()); }
  // Overwrites bytes already written (headers patched once sizes are known).
  void write_at(std::uint64_t offset, const void* data, std::size_t n);
  std::uint64_t position() const { return position_; }
  const std::filesystem::path& path() const { return target_; }
  void commit();

 private:
  std::string op_;
  std::filesystem::path target_, temp_;
  int fd_ = -1;
  std::uint64_t position_ = 0;
};

}  // namespace tensora::io_detail
