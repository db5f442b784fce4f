// safetensors (https://github.com/huggingface/safetensors): 8-byte little-endian header
// length, a JSON header, then the tensors' row-major bytes.
#pragma once

#include <string_view>

#include "io/file_bytes.hpp"
#include "tensora/io.hpp"

namespace tensora::io_detail {

// The tensors and metadata of a safetensors file held in `file` (used by the fuzz target).
io::SafetensorsFile parse_safetensors(std::string_view op, const FileBytes& file,
                                      const io::LoadOptions& options);

}  // namespace tensora::io_detail
