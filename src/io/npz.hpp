// NumPy .npz: a zip archive of .npy members ("name.npy" holds the tensor "name").
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "io/file_bytes.hpp"
#include "tensora/io.hpp"

namespace tensora::io_detail {

// The tensors of the archive held in `file` (used by the fuzz target).
std::map<std::string, Tensor> parse_npz(std::string_view op, const FileBytes& file,
                                        const io::LoadOptions& options);

}  // namespace tensora::io_detail
