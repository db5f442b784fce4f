// Throw helpers shared by every layer, so one kind of failure always reads the same.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "tensora/device.hpp"
#include "tensora/error.hpp"
#include "tensora/shape.hpp"

namespace tensora::check {

[[noreturn]] void fail_invalid(std::string_view op, std::string message, std::string argument,
                               SourceLocation where);
[[noreturn]] void fail_dtype_mismatch(std::string_view op, DType expected, DType actual,
                                      SourceLocation where);
[[noreturn]] void fail_device_mismatch(std::string_view op, Device expected, Device actual,
                                       SourceLocation where);
[[noreturn]] void fail_shape(std::string_view op, std::string message, const Shape& expected,
                             const Shape& actual, SourceLocation where);
[[noreturn]] void fail_unsupported_dtype(std::string_view op, DType dtype, std::string why,
                                         SourceLocation where);

// Normalizes a possibly negative axis into [0, rank); AxisOutOfRange otherwise.
std::int64_t axis(std::string_view op, std::int64_t axis, std::int64_t rank, SourceLocation where);
// Inline: every op asks, and the answer is one compare.
inline void same_dtype(std::string_view op, DType expected, DType actual, SourceLocation where) {
  if (expected != actual) [[unlikely]] fail_dtype_mismatch(op, expected, actual, where);
}
inline void same_device(std::string_view op, Device expected, Device actual, SourceLocation where) {
  if (!(expected == actual)) [[unlikely]] fail_device_mismatch(op, expected, actual, where);
}
// `from` converts to `to` without loss (up the lattice); UnsupportedDTypeConversion otherwise.
void lossless_conversion(DType from, DType to, SourceLocation where);
// Extents must be >= 0, and the product of max(extent, 1) must fit int64 (so do the element
// count and every column-major stride); InvalidArgument otherwise.
void valid_shape(std::string_view op, const Shape& shape, SourceLocation where);
// `numel` elements of `dtype` in bytes; OutOfMemory when that does not fit int64.
std::int64_t byte_size(std::string_view op, const Shape& shape, DType dtype, Device device, SourceLocation where);
// OutOfMemory for an allocation of `bytes` on `device` that the allocator refused (`limit`:
// the configured limit it would pass, 0 when the system refused).
[[noreturn]] void fail_out_of_memory(std::uint64_t bytes, Device device, std::uint64_t in_use, std::uint64_t limit,
                                     SourceLocation where);

}  // namespace tensora::check
