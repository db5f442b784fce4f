#include "core/checks.hpp"

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

void same_dtype(std::string_view op, DType expected, DType actual, SourceLocation where) {
  if (expected != actual) fail_dtype_mismatch(op, expected, actual, where);
}

void same_device(std::string_view op, Device expected, Device actual, SourceLocation where) {
  if (!(expected == actual)) fail_device_mismatch(op, expected, actual, where);
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
  for (auto extent : shape)
    if (extent < 0)
      fail_invalid(op, "negative extent in shape " + to_string(shape), "shape", where);
}

}  // namespace tensora::check
