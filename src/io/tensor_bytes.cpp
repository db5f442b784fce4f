#include "io/tensor_bytes.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "io/io_error.hpp"
#include "core/tensor_internals.hpp"

namespace tensora::io_detail {

Tensor view_of(std::shared_ptr<Storage> storage, Shape shape, Strides strides, std::int64_t offset,
               DType dtype, Device device) {
  return TensorInternals::view(std::move(storage), std::move(shape), std::move(strides), offset, dtype, device);
}

bool strides_fit(const Shape& shape, DType dtype) {
  // Strides multiply the extents as if zero ones were 1 (a zero-size tensor still has them).
  std::int64_t span = static_cast<std::int64_t>(size_of(dtype));
  for (const std::int64_t e : shape)
    if (e < 0 || __builtin_mul_overflow(span, std::max<std::int64_t>(e, 1), &span)) return false;
  return true;
}

std::size_t element_alignment(DType dtype) {
  // Complex numbers are pairs of their real type.
  return is_complex(dtype) ? size_of(dtype) / 2 : size_of(dtype);
}

std::size_t checked_nbytes(std::string_view op, const std::filesystem::path& path,
                           const Shape& shape, DType dtype) {
  std::uint64_t n = 1;
  for (const std::int64_t e : shape) {
    if (e < 0) fail(op, path, "negative extent " + std::to_string(e) + " in the shape");
    if (__builtin_mul_overflow(n, static_cast<std::uint64_t>(e), &n))
      fail(op, path, "the shape " + to_string(shape) + " has more elements than fit in 64 bits");
  }
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(n, static_cast<std::uint64_t>(size_of(dtype)), &bytes) ||
      bytes > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
    fail(op, path, "the byte size of shape " + to_string(shape) + " overflows");
  if (!strides_fit(shape, dtype))
    fail(op, path, "the strides of shape " + to_string(shape) + " overflow 64 bits");
  return static_cast<std::size_t>(bytes);
}

namespace {

void swap_elements(std::byte* data, std::size_t nbytes, std::size_t word) {
  if (word <= 1) return;
  for (std::size_t i = 0; i + word <= nbytes; i += word) std::reverse(data + i, data + i + word);
}

Strides strides_for(const Shape& shape, Layout layout) {
  return layout == Layout::ColMajor ? col_major_strides(shape) : row_major_strides(shape);
}

}  // namespace

Tensor tensor_from_bytes(std::string_view op, const FileBytes& file, std::size_t offset,
                         std::size_t nbytes, DType dtype, const Shape& shape, Layout layout,
                         bool swap_bytes, const io::LoadOptions& options) {
  if (offset > file.size || nbytes > file.size - offset)
    fail(op, file.path, "truncated data: " + std::to_string(nbytes) + " bytes needed at offset " +
                            std::to_string(offset) + ", the file has " + std::to_string(file.size));
  const Device cpu = options.device.kind() == DeviceKind::Cpu ? options.device : Device::cpu();
  if (!cpu.supports(dtype)) fail(op, file.path, std::string("dtype ") + std::string(name(dtype)) + " is not supported on " + cpu.to_string());
  std::byte* src = file.data == nullptr ? nullptr : file.data + offset;
  const bool aligned =
      src != nullptr && reinterpret_cast<std::uintptr_t>(src) % element_alignment(dtype) == 0;
  std::shared_ptr<Storage> storage;
  if (aligned && !swap_bytes && file.keep) {
    storage = Storage::wrap(src, nbytes, cpu, file.keep, /*read_only=*/false);
  } else {
    storage = Storage::allocate(nbytes, cpu);
    if (nbytes > 0) std::memcpy(storage->data(), src, nbytes);
    if (swap_bytes)
      swap_elements(static_cast<std::byte*>(storage->data()), nbytes, element_alignment(dtype));
  }
  Tensor t = view_of(std::move(storage), shape, strides_for(shape, layout), 0, dtype, cpu);
  return cpu == options.device ? t : t.to_device(options.device);
}

const std::byte* bytes_in_order(const Tensor& t, Layout layout, std::unique_ptr<std::byte[]>& scratch) {
  if (t.is_contiguous(layout)) return static_cast<const std::byte*>(t.element_ptr());
  const std::size_t nbytes = static_cast<std::size_t>(t.numel()) * size_of(t.dtype());
  scratch = std::make_unique<std::byte[]>(std::max<std::size_t>(nbytes, 1));
  t.copy_to_buffer(scratch.get(), layout);
  return scratch.get();
}

}  // namespace tensora::io_detail
