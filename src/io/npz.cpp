#include "io/npz.hpp"

#include <algorithm>

#include "core/storage.hpp"
#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/npy.hpp"
#include "io/tensor_bytes.hpp"
#include "io/zip.hpp"

namespace tensora::io_detail {
namespace {

constexpr std::string_view kSuffix = ".npy";

// A deflate member inflated into memory tensora owns; the .npy inside is then parsed from it.
// The declared size is bounded by deflate's maximum ratio (read_zip_directory) and the
// preamble is inflated and checked first, so a lying header cannot demand unbounded memory.
Tensor load_compressed(std::string_view op, const FileBytes& file, const ZipMember& m,
                       const io::LoadOptions& options) {
  std::byte head[12];
  const std::size_t head_len = std::min<std::uint64_t>(sizeof head, m.uncompressed_size);
  inflate_member(op, file, m, head, head_len);
  const std::size_t header = npy_header_length(head, head_len);
  if (header == 0 || header > m.uncompressed_size)
    fail(op, file.path, "member \"" + m.name + "\" is not a valid .npy (bad magic, version or header length)");
  auto storage = Storage::allocate(static_cast<std::size_t>(m.uncompressed_size), Device::cpu());
  auto* bytes = static_cast<std::byte*>(storage->data());
  inflate_member(op, file, m, bytes, static_cast<std::size_t>(m.uncompressed_size));
  const auto inner = bytes_in_memory(bytes, static_cast<std::size_t>(m.uncompressed_size), storage,
                                     file.path);
  return parse_npy(op, inner, 0, inner.size, options);
}

}  // namespace

std::map<std::string, Tensor> parse_npz(std::string_view op, const FileBytes& file,
                                        const io::LoadOptions& options) {
  std::map<std::string, Tensor> out;
  for (const auto& m : read_zip_directory(op, file)) {
    if (m.name.size() <= kSuffix.size() || m.name.compare(m.name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
      fail(op, file.path, "member \"" + m.name + "\" is not a .npy file");
    std::string key = m.name.substr(0, m.name.size() - kSuffix.size());
    Tensor t = m.method == 0 ? parse_npy(op, file, static_cast<std::size_t>(m.data_offset),
                                         static_cast<std::size_t>(m.data_offset + m.compressed_size), options)
                             : load_compressed(op, file, m, options);
    if (!out.emplace(std::move(key), std::move(t)).second)
      fail(op, file.path, "duplicate member name \"" + m.name + "\"");
  }
  return out;
}

}  // namespace tensora::io_detail

namespace tensora::io {

void save_npz(const std::filesystem::path& path, const std::map<std::string, Tensor>& tensors,
              NpzOptions options) {
  constexpr std::string_view op = "save_npz";
  io_detail::AtomicFile f(op, path);
  io_detail::ZipWriter zip(op, f);
  for (const auto& [name, t] : tensors) {
    if (!t.defined()) io_detail::fail(op, path, "tensor \"" + name + "\" is empty (default-constructed)");
    if (t.is_meta()) io_detail::fail(op, path, "tensor \"" + name + "\" is a meta tensor (no data to save)");
    if (name.empty()) io_detail::fail(op, path, "a tensor name is empty");
    const Tensor cpu = t.device().kind() == DeviceKind::Cpu ? t : t.to_device(Device::cpu());
    const auto img = io_detail::npy_image(cpu);
    zip.add(name + ".npy", {{img.header.data(), img.header.size()}, {img.data, img.nbytes}},
            options.compress, img.header.size());
  }
  zip.finish();
  f.commit();
}

std::map<std::string, Tensor> load_npz(const std::filesystem::path& path, LoadOptions options) {
  const auto file = io_detail::open_file("load_npz", path, options.mmap);
  return io_detail::parse_npz("load_npz", file, options);
}

}  // namespace tensora::io
