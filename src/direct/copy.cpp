// The Tensor methods that copy elements: duplicate, contiguous, to_device and copy_to_buffer
// (reshape's copying branch and printing reach them too). A copy is a kernel like any other:
// it runs on the backend of the source's device, through a serial engine of that device since
// these methods take none, so a transposed source is copied in cache-blocked tiles rather than
// an element at a time (docs/architecture.md, "Copies without an engine").
#include "backend/backend.hpp"
#include "backend/serial_engine.hpp"
#include "core/storage.hpp"
#include "core/tensor_internals.hpp"

namespace tensora {

namespace {

// out[i] = in[i] for every index (same dtype and shape, no overlap).
void copy_elements(const Tensor& out, const Tensor& in) {
  if (in.numel() == 0) return;
  const std::unique_ptr<Engine> engine = backend::serial_engine(in.device());
  engine->backend().copy(out, in, *engine);
}

}  // namespace

Tensor Tensor::duplicate(Loc where) const {
  check_defined("duplicate", where);
  if (meta_) return meta(shape_, dtype_, device_, where);
  Tensor out = empty(shape_, dtype_, device_, where);
  copy_elements(out, *this);
  return out;
}

Tensor Tensor::contiguous(Loc where) const {
  check_defined("contiguous", where);
  return is_contiguous(Layout::ColMajor) ? *this : duplicate(where);
}

Tensor Tensor::to_device(Device device, Loc where) const {
  check_defined("to_device", where);
  if (meta_) return meta(shape_, dtype_, device, where);
  Tensor out = empty(shape_, dtype_, device, where);
  copy_elements(out, *this);
  return out;
}

void Tensor::copy_to_buffer(void* dst, Layout layout) const {
  check_defined("copy_to_buffer", Loc::current());
  if (meta_) throw_no_data("copy_to_buffer");
  if (numel() == 0) return;  // nothing to copy (`dst` may be null)
  // The caller's buffer as a tensor: the storage borrows it (a no-op owner, so nothing frees it).
  const std::size_t nbytes = static_cast<std::size_t>(numel()) * size_of(dtype_);
  auto storage = Storage::wrap(dst, nbytes, device_, std::shared_ptr<void>(dst, [](void*) {}), false);
  const Tensor out = TensorInternals::view(
      std::move(storage), shape_,
      layout == Layout::ColMajor ? col_major_strides(shape_) : row_major_strides(shape_), 0, dtype_, device_);
  copy_elements(out, *this);
}

}  // namespace tensora
