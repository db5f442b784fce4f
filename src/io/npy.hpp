// NumPy .npy (format versions 1.0, 2.0 and 3.0), shared by load_npy/save_npy and npz.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "io/file_bytes.hpp"
#include "tensora/io.hpp"

namespace tensora::io_detail {

// A tensor as .npy bytes: `header` (magic through the padded dict, a multiple of 64 bytes)
// followed by `nbytes` bytes at `data`, in the tensor's own order when it has one.
struct NpyImage {
  std::string header;
  const std::byte* data = nullptr;
  std::size_t nbytes = 0;
  std::unique_ptr<std::byte[]> scratch;  // owns `data` when the tensor had to be copied
};
NpyImage npy_image(const Tensor& t);

// The tensor in the .npy held by bytes [begin, end) of `file`.
Tensor parse_npy(std::string_view op, const FileBytes& file, std::size_t begin, std::size_t end,
                 const io::LoadOptions& options);

// The length of the .npy preamble + header at `data` (at least the first 12 bytes must be
// there), used to inflate only the header of a compressed npz member first. 0 when invalid.
std::size_t npy_header_length(const std::byte* data, std::size_t size);

}  // namespace tensora::io_detail
