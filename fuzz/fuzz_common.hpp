// Shared by the loader fuzz targets: the input as an exact-size heap buffer (so
// AddressSanitizer sees any read past it), and the rule that a loader either returns
// tensors whose every byte is readable or throws ErrorKind::IoError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "io/file_bytes.hpp"
#include "tensora/error.hpp"
#include "tensora/tensor.hpp"

namespace tensora_fuzz {

inline tensora::io_detail::FileBytes input_bytes(const std::uint8_t* data, std::size_t size) {
  std::shared_ptr<std::byte[]> buf(new std::byte[size == 0 ? 1 : size]);
  if (size) std::memcpy(buf.get(), data, size);
  std::byte* p = size == 0 ? nullptr : buf.get();
  return tensora::io_detail::bytes_in_memory(p, size, std::shared_ptr<void>(buf, buf.get()), "fuzz-input");
}

// Reads every element of a loaded tensor, so a view past the input is caught by ASan.
inline void touch(const tensora::Tensor& t) {
  std::vector<unsigned char> out(static_cast<std::size_t>(t.numel()) * tensora::size_of(t.dtype()));
  t.copy_to_buffer(out.data(), tensora::Layout::ColMajor);
}

// A loader may only fail with IoError; anything else is a bug worth a crash report.
template <class F>
void run(F&& load) {
  try {
    load();
  } catch (const tensora::Error& e) {
    if (e.kind() != tensora::ErrorKind::IoError) std::abort();
  }
}

}  // namespace tensora_fuzz
