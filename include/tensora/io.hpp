// Files: NumPy .npy / .npz and safetensors (docs/io.md).
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "tensora/device.hpp"
#include "tensora/tensor.hpp"

namespace tensora::io {

// How a file becomes tensors. With `mmap` the file is memory-mapped and each tensor is a
// view of the mapping (kept alive by the tensors); otherwise the data is read into memory
// tensora owns. Either way the file's element order is kept (no transpose).
struct LoadOptions {
  Device device = Device::cpu();
  bool mmap = true;
};

// `compress`: deflate every member (np.savez_compressed); otherwise members are stored.
struct NpzOptions {
  bool compress = false;
};

struct SafetensorsFile {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::string> metadata;  // the header's "__metadata__"
};

// Saves are atomic: a temporary file next to `path`, fsync, rename.
void save_npy(const std::filesystem::path& path, const Tensor& tensor);
Tensor load_npy(const std::filesystem::path& path, LoadOptions options = {});

void save_npz(const std::filesystem::path& path, const std::map<std::string, Tensor>& tensors,
              NpzOptions options = {});
std::map<std::string, Tensor> load_npz(const std::filesystem::path& path, LoadOptions options = {});

void save_safetensors(const std::filesystem::path& path, const std::map<std::string, Tensor>& tensors,
                      const std::map<std::string, std::string>& metadata = {});
SafetensorsFile load_safetensors(const std::filesystem::path& path, LoadOptions options = {});

}  // namespace tensora::io
