// The one exception type of tensora, with a structured detail (docs/errors.md).
#pragma once

#include <cstdint>
#include <exception>
#include <source_location>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tensora/dtype.hpp"

namespace tensora {

// Coarse category of a failure; `Error::detail()` says exactly what went wrong.
enum class ErrorKind {
  Validation,                  // operands do not fit the op: dtype, shape, axis, length
  UnsupportedDTypeConversion,  // convert() down the lattice
  UnsupportedDType,            // op or device does not handle this dtype
  DeviceMismatch,              // operands or engine on different devices
  AlreadyInitialized,          // Device::configure after configure or first use
  InvalidArgument,             // a bad argument value (step 0, unknown device name, ...)
  Unsupported,                 // a feature that is not available in this build
  Internal,                    // a bug in tensora
};

std::string_view name(ErrorKind);

using SourceLocation = std::source_location;

// Detail records. Devices are stored as their printed names so the records stay plain values.
struct DTypeMismatch {
  DType expected, actual;
};
struct ShapeMismatch {
  std::vector<std::int64_t> expected, actual;
};
struct ShapeDataLengthMismatch {
  std::int64_t expected, actual;  // expected = product of the shape
};
struct AxisOutOfRange {
  std::int64_t axis, rank;
};
struct DeviceMismatch {
  std::string expected, actual;
};
struct UnsupportedDTypeConversion {
  DType from, to;
};
struct UnsupportedDType {
  DType dtype;
};
struct AlreadyInitialized {
  std::string device;
};
struct InvalidArgument {
  std::string argument;  // which argument was bad
};
struct NoDetail {};

using ErrorDetail =
    std::variant<NoDetail, DTypeMismatch, ShapeMismatch, ShapeDataLengthMismatch, AxisOutOfRange,
                 DeviceMismatch, UnsupportedDTypeConversion, UnsupportedDType, AlreadyInitialized,
                 InvalidArgument>;

class Error : public std::exception {
 public:
  // `message` is the text after "op: "; the location is appended as " (at file:line)".
  Error(ErrorKind kind, std::string op, std::string message, ErrorDetail detail = NoDetail{},
        SourceLocation where = SourceLocation::current());

  ErrorKind kind() const { return kind_; }
  std::string_view op() const { return op_; }
  std::string_view message() const { return message_; }  // without op and location
  const ErrorDetail& detail() const { return detail_; }
  const SourceLocation& where() const { return where_; }
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  ErrorKind kind_;
  std::string op_;
  std::string message_;
  ErrorDetail detail_;
  SourceLocation where_;
  std::string what_;
};

}  // namespace tensora
