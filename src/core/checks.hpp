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
void same_dtype(std::string_view op, DType expected, DType actual, SourceLocation where);
void same_device(std::string_view op, Device expected, Device actual, SourceLocation where);
// `from` converts to `to` without loss (up the lattice); UnsupportedDTypeConversion otherwise.
void lossless_conversion(DType from, DType to, SourceLocation where);
// Extents must be >= 0.
void valid_shape(std::string_view op, const Shape& shape, SourceLocation where);

}  // namespace tensora::check
