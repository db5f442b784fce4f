// Where file bytes become tensors and tensors become file bytes.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "core/storage.hpp"
#include "io/file_bytes.hpp"
#include "tensora/io.hpp"
#include "tensora/tensor.hpp"

namespace tensora::io_detail {

// The one place the io layer builds a Tensor over a Storage (the internal constructor).
Tensor view_of(std::shared_ptr<Storage> storage, Shape shape, Strides strides, std::int64_t offset,
               DType dtype, Device device);

// Alignment the CPU kernels may rely on for an element (alignof of its C++ type).
std::size_t element_alignment(DType dtype);

// The tensor held by `nbytes` bytes at `file.data + offset`, in `layout` order. A view of the
// file's bytes when they are aligned for the dtype, native-endian and on a CPU device; an
// owned copy (byte-swapped when `swap_bytes`) otherwise.
Tensor tensor_from_bytes(std::string_view op, const FileBytes& file, std::size_t offset,
                         std::size_t nbytes, DType dtype, const Shape& shape, Layout layout,
                         bool swap_bytes, const io::LoadOptions& options);

// True when the compact strides of `shape` in bytes fit int64 (zero extents count as 1).
bool strides_fit(const Shape& shape, DType dtype);

// Checked element count and byte size of `shape` for `dtype`; fails on negative extents and
// on overflow of the size or of the strides (a zero-size shape like [0, 2^40, 2^40] has no
// bytes but unrepresentable strides), so no size from a header is used unchecked.
std::size_t checked_nbytes(std::string_view op, const std::filesystem::path& path,
                           const Shape& shape, DType dtype);

// The bytes of `t` in `layout` order: `t`'s own memory when it is already in that order,
// else a compact copy held in `scratch`.
const std::byte* bytes_in_order(const Tensor& t, Layout layout, std::unique_ptr<std::byte[]>& scratch);

}  // namespace tensora::io_detail
