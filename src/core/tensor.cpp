#include "tensora/tensor.hpp"

#include <sstream>

#include "core/checks.hpp"
#include "core/device_registry.hpp"
#include "core/storage.hpp"

namespace tensora {

namespace {

// Dense in `order` (dims fastest first), size-1 dims ignored; an empty tensor is dense.
template <class Order>
bool dense_in(const Shape& shape, const Strides& strides, Order order) {
  std::int64_t expected = 1;
  const std::size_t r = shape.size();
  for (std::size_t i = 0; i < r; ++i) {
    const std::size_t d = order(i, r);
    if (shape[d] == 1) continue;
    if (shape[d] == 0) return true;
    if (strides[d] != expected) return false;
    expected *= shape[d];
  }
  return true;
}

}  // namespace

Tensor::Tensor(std::shared_ptr<Storage> storage, Shape shape, Strides strides, std::int64_t offset,
               DType dtype, Device device)
    : storage_(std::move(storage)), shape_(std::move(shape)), strides_(std::move(strides)),
      offset_(offset), dtype_(dtype), device_(device), numel_(tensora::numel(shape_)),
      col_major_(dense_in(shape_, strides_, [](std::size_t i, std::size_t) { return i; })),
      first_element_(storage_ ? static_cast<const char*>(storage_->data()) +
                                    offset_ * static_cast<std::int64_t>(size_of(dtype_))
                              : nullptr) {}

// The storage and the strides are built in their members, not returned and moved in: moving a
// just-returned handle reloads it as one 16-byte load, which stalls on the callee's 8-byte
// stores (docs/ops.md, "Per-call cost").
Tensor::Tensor(FreshTag, std::size_t bytes, Shape shape, std::int64_t numel, DType dtype, Device device,
               const SourceLocation& where)
    : storage_(Storage::allocate(bytes, device, where)), shape_(std::move(shape)),
      strides_(col_major_strides(shape_)), dtype_(dtype), device_(device), numel_(numel),
      first_element_(storage_->data()) {}

Tensor Tensor::meta(Shape shape, DType dtype, Device device, Loc where) {
  check::valid_shape("meta", shape, where);
  if (!device.supports(dtype))
    check::fail_unsupported_dtype("meta", dtype, "not supported on " + device.to_string(), where);
  Strides strides = col_major_strides(shape);
  Tensor t(nullptr, std::move(shape), std::move(strides), 0, dtype, device);
  t.meta_ = true;
  return t;
}

Tensor Tensor::empty(Shape shape, DType dtype, Device device, Loc where) {
  check::valid_shape("empty", shape, where);
  if (!device.supports(dtype)) [[unlikely]]
    check::fail_unsupported_dtype("empty", dtype, "not supported on " + device.to_string(), where);
  const std::int64_t count = tensora::numel(shape);
  std::int64_t bytes = 0;  // the count is exact (valid_shape); its byte size may still overflow
  if (__builtin_mul_overflow(count, static_cast<std::int64_t>(size_of(dtype)), &bytes)) [[unlikely]]
    (void)check::byte_size("allocate", shape, dtype, device, where);  // throws OutOfMemory
  settings_for_new_tensor(device);  // a tensor on the device freezes its defaults
  return Tensor(FreshTag{}, static_cast<std::size_t>(bytes), std::move(shape), count, dtype, device, where);
}

Tensor Tensor::with_view(Shape shape, Strides strides, std::int64_t offset) const {
  Tensor t(storage_, std::move(shape), std::move(strides), offset, dtype_, device_);
  t.meta_ = meta_;
  return t;
}

std::int64_t Tensor::dim(std::int64_t axis, Loc where) const {
  check_defined("dim", where);
  return shape_[static_cast<std::size_t>(check::axis("dim", axis, rank(), where))];
}

bool Tensor::is_row_major() const {
  return dense_in(shape_, strides_, [](std::size_t i, std::size_t r) { return r - 1 - i; });
}

void Tensor::check_defined(const char* op, Loc where) const {
  if (!defined()) check::fail_invalid(op, "the tensor is empty (default-constructed)", "self", where);
}

void Tensor::check_element(DType requested, const char* op, Loc where) const {
  check_defined(op, where);
  if (requested != dtype_)
    throw Error(ErrorKind::Validation, op,
                "dtype mismatch: expected " + std::string(name(dtype_)) + ", actual " +
                    std::string(name(requested)) + " (the element type asked for does not match "
                    "the tensor; convert or cast the tensor first)",
                DTypeMismatch{dtype_, requested}, where);
}

void Tensor::check_single_element(Loc where) const {
  if (numel() != 1)
    throw Error(ErrorKind::Validation, "item",
                "item() needs exactly one element, the tensor has " + std::to_string(numel()) +
                    " (shape " + tensora::to_string(shape_) + ")",
                ShapeMismatch{Shape{}, shape_}, where);
}

void Tensor::check_contiguous_data(Loc where) const {
  if (!is_contiguous(Layout::ColMajor))
    check::fail_invalid("data",
                        "data() needs a column-major contiguous tensor; call contiguous() first",
                        "self", where);
}

void Tensor::throw_no_data(const char* op) const {
  check::fail_invalid(op,
                      meta_ ? "the tensor is a meta tensor (dtype, shape and device only, no data)"
                            : "the tensor is empty (default-constructed)",
                      "self", Loc::current());
}

std::string Tensor::to_string() const {
  std::ostringstream os;
  os << *this;
  return os.str();
}

}  // namespace tensora
