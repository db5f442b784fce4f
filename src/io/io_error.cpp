#include "io/io_error.hpp"

#include <cstring>

namespace tensora::io_detail {

void fail(std::string_view op, const std::filesystem::path& path, std::string problem) {
  std::string message = path.string() + ": " + problem;
  throw Error(ErrorKind::IoError, std::string(op), std::move(message),
              tensora::IoError{path.string(), std::move(problem)});
}

void fail_errno(std::string_view op, const std::filesystem::path& path, std::string problem,
                int errno_value) {
  fail(op, path, problem + " (" + std::strerror(errno_value) + ")");
}

}  // namespace tensora::io_detail
