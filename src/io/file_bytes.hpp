// A whole file as bytes: memory-mapped (copy-on-write, so tensors over it stay writable and
// the file is never modified) or read into one owned buffer. `keep` holds the bytes alive.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string_view>

namespace tensora::io_detail {

struct FileBytes {
  std::byte* data = nullptr;  // null only when size == 0
  std::size_t size = 0;
  std::shared_ptr<void> keep;
  std::filesystem::path path;  // for error messages
};

FileBytes map_file(std::string_view op, const std::filesystem::path& path);
FileBytes read_file(std::string_view op, const std::filesystem::path& path);
inline FileBytes open_file(std::string_view op, const std::filesystem::path& path, bool mmap) {
  return mmap ? map_file(op, path) : read_file(op, path);
}
// Bytes already in memory (fuzz targets, inflated npz members), kept alive by `keep`.
inline FileBytes bytes_in_memory(std::byte* data, std::size_t size, std::shared_ptr<void> keep,
                                 std::filesystem::path path) {
  return FileBytes{data, size, std::move(keep), std::move(path)};
}

}  // namespace tensora::io_detail
