#include "core/checks.hpp"

#include <limits>

namespace tensora::check {

void fail_invalid(std::string_view op, std::string message, std::string argument,
                  SourceLocation where) {
  throw Error(ErrorKind::InvalidArgument, std::string(op), std::move(message),
              InvalidArgument{std::move(argument)}, where);
}

void fail_dtype_mismatch(std::string_view op, DType expected, DType actual, SourceLocation where) {
  throw Error(ErrorKind::Validation, std::string(op),
              "dtype mismatch: expected " + std::string(name(expected)) + ", actual " +
                  std::string(name(actual)),
              DTypeMismatch{expected, actual}, where);
}

void fail_device_mismatch(std::string_view op, Device expected, Device actual,
                          SourceLocation where) {
  throw Error(ErrorKind::DeviceMismatch, std::string(op),
              "device mismatch: expected " + expected.to_string() + ", actual " +
                  actual.to_string() + "; move one operand with to_device()",
              DeviceMismatch{expected.to_string(), actual.to_string()}, where);
}

void fail_shape(std::string_view op, std::string message, const Shape& expected,
                const Shape& actual, SourceLocation where) {
  throw Error(ErrorKind::Validation, std::string(op), std::move(message),
              ShapeMismatch{expected, actual}, where);
}

void fail_unsupported_dtype(std::string_view op, DType dtype, std::string why,
                            SourceLocation where) {
  throw Error(ErrorKind::UnsupportedDType, std::string(op),
              "unsupported dtype " + std::string(name(dtype)) + (why.empty() ? "" : ": " + why),
              UnsupportedDType{dtype}, where);
}

std::int64_t axis(std::string_view op, std::int64_t axis, std::int64_t rank, SourceLocation where) {
  const std::int64_t normalized = axis < 0 ? axis + rank : axis;
  if (normalized < 0 || normalized >= rank) {
    std::string valid = rank == 0 ? "none for a rank-0 tensor"
                                  : std::to_string(-rank) + ".." + std::to_string(rank - 1);
    throw Error(ErrorKind::Validation, std::string(op),
                "axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank) +
                    " (valid: " + valid + ")",
                AxisOutOfRange{axis, rank}, where);
  }
  return normalized;
}

void lossless_conversion(DType from, DType to, SourceLocation where) {
  if (can_convert(from, to)) return;
  throw Error(ErrorKind::UnsupportedDTypeConversion, "convert",
              "cannot convert " + std::string(name(from)) + " to " + std::string(name(to)) +
                  " without loss (not up the promotion lattice); use cast(" + std::string(name(to)) +
                  ") for a lossy conversion",
              UnsupportedDTypeConversion{from, to}, where);
}

void valid_shape(std::string_view op, const Shape& shape, SourceLocation where) {
  std::int64_t span = 1;
  bool overflow = false;
  for (auto extent : shape) {
    if (extent < 0) fail_invalid(op, "negative extent in shape " + to_string(shape), "shape", where);
    overflow |= __builtin_mul_overflow(span, extent > 0 ? extent : 1, &span);
  }
  if (overflow)
    fail_invalid(op, "shape " + to_string(shape) + " has more elements than int64 can count (2^63 - 1)", "shape",
                 where);
}

std::int64_t byte_size(std::string_view op, const Shape& shape, DType dtype, Device device, SourceLocation where) {
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(numel(shape), static_cast<std::int64_t>(size_of(dtype)), &bytes))
    throw Error(ErrorKind::OutOfMemory, std::string(op),
                "out of memory: a " + std::string(name(dtype)) + " tensor of shape " + to_string(shape) +
                    " needs more than 2^63 - 1 bytes",
                OutOfMemory{std::numeric_limits<std::uint64_t>::max(), device.to_string(), 0}, where);
  return bytes;
}

void fail_out_of_memory(std::uint64_t bytes, Device device, std::uint64_t in_use, std::uint64_t limit,
                        SourceLocation where) {
  std::string message = "out of memory: cannot allocate " + std::to_string(bytes) + " bytes on " + device.to_string();
  message += limit > 0 ? " (" + std::to_string(in_use) + " bytes in use, the limit set by set_memory_limit is " +
                             std::to_string(limit) + " bytes)"
                       : " (the system refused, after the cached buffers were released)";
  throw Error(ErrorKind::OutOfMemory, "allocate", std::move(message), OutOfMemory{bytes, device.to_string(), limit},
              where);
}

}  // namespace tensora::check
