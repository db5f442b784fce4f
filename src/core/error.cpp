#include "tensora/error.hpp"

#include <string>

namespace tensora {

std::string_view name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Validation: return "Validation";
    case ErrorKind::UnsupportedDTypeConversion: return "UnsupportedDTypeConversion";
    case ErrorKind::UnsupportedDType: return "UnsupportedDType";
    case ErrorKind::DeviceMismatch: return "DeviceMismatch";
    case ErrorKind::AlreadyInitialized: return "AlreadyInitialized";
    case ErrorKind::InvalidArgument: return "InvalidArgument";
    case ErrorKind::Unsupported: return "Unsupported";
    case ErrorKind::Internal: return "Internal";
    case ErrorKind::LinAlgError: return "LinAlgError";
    case ErrorKind::IoError: return "IoError";
    case ErrorKind::OutOfMemory: return "OutOfMemory";
  }
  return "Unknown";
}

namespace {
std::string_view base_name(std::string_view path) {
  const auto slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}
}  // namespace

Error::Error(ErrorKind kind, std::string op, std::string message, ErrorDetail detail,
             SourceLocation where)
    : kind_(kind), op_(std::move(op)), message_(std::move(message)), detail_(std::move(detail)),
      where_(where) {
  what_ = op_ + ": " + message_ + " (at " + std::string(base_name(where_.file_name())) + ":" +
          std::to_string(where_.line()) + ")";
}

}  // namespace tensora
