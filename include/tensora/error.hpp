// The one exception type of tensora, with a structured detail (docs/errors.md).
#pragma once

#include <cstdint>
#include <exception>
#include <filesystem>
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
  LinAlgError,                 // a numerical failure of a linear-algebra routine
  IoError,                     // a file that cannot be read or written, or is malformed
  OutOfMemory,                 // an allocation beyond the memory available
};

std::string_view name(ErrorKind);

// The caller's file and line, kept in every error. One type for every compiler (not
// std::source_location, which clang 14 with libstdc++ 12 lacks): a library built with g++
// links into programs built with clang, and the reverse. 16 bytes, passed in two registers.
struct SourceLocation {
  static constexpr SourceLocation current(const char* file = __builtin_FILE(),
                                          std::uint_least32_t line = __builtin_LINE()) noexcept {
    SourceLocation loc;
    loc.file_ = file;
    loc.line_ = line;
    return loc;
  }
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr std::uint_least32_t line() const noexcept { return line_; }

 private:
  const char* file_ = "";
  std::uint_least32_t line_ = 0;
};

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
// A file that could not be read or written: which file, and what is wrong with it.
struct IoError {
  std::string path;
  std::string problem;
};
// An allocation that failed: its size in bytes (UINT64_MAX when it does not even fit int64),
// the device, and the limit it would pass (0: no limit was set, the system refused).
struct OutOfMemory {
  std::uint64_t requested_bytes;
  std::string device;
  std::uint64_t limit_bytes;
};
// A linear-algebra routine that failed on one matrix of a batch: its index over the batch
// axes (empty without a batch), LAPACK's info (e.g. the order of the leading minor that is not
// positive; 0 when the matrix held a NaN or infinity and LAPACK was not called).
struct LinAlgFailure {
  std::vector<std::int64_t> batch_index;
  std::int64_t info;
  bool non_finite;
};
struct NoDetail {};

using ErrorDetail =
    std::variant<NoDetail, DTypeMismatch, ShapeMismatch, ShapeDataLengthMismatch, AxisOutOfRange,
                 DeviceMismatch, UnsupportedDTypeConversion, UnsupportedDType, AlreadyInitialized,
                 InvalidArgument, IoError, OutOfMemory, LinAlgFailure>;

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
