// The one way the io layer fails: ErrorKind::IoError naming the file and what is wrong.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "tensora/error.hpp"

namespace tensora::io_detail {

// Throws Error{IoError, op, "<path>: <problem>", IoError{path, problem}}.
[[noreturn]] void fail(std::string_view op, const std::filesystem::path& path, std::string problem);
// As fail(), with the system's text for `errno_value` appended.
[[noreturn]] void fail_errno(std::string_view op, const std::filesystem::path& path,
                             std::string problem, int errno_value);

}  // namespace tensora::io_detail
