#include "ops/validate.hpp"

#include <algorithm>

#include "core/dispatch.hpp"
#include "core/storage.hpp"
#include "core/tensor_internals.hpp"
#include "core/value_cast.hpp"

namespace tensora::validate {

void fail_operands(std::string_view op, Engine& engine, std::initializer_list<const Tensor*> tensors,
                   SourceLocation where) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    if (!t->defined())
      check::fail_invalid(op, "an operand is an empty (default-constructed) tensor", "operand", where);
    if (t->is_meta()) [[unlikely]]
      check::fail_invalid(op, "an operand is a meta tensor (dtype, shape and device only, no data)", "operand",
                          where);
    if (first == nullptr) first = t;
    else check::same_device(op, first->device(), t->device(), where);
  }
  if (first != nullptr && !(engine.device() == first->device()))
    throw Error(ErrorKind::DeviceMismatch, std::string(op),
                "device mismatch: expected " + engine.device().to_string() + ", actual " +
                    first->device().to_string() + " (the engine runs on " +
                    engine.device().to_string() + " but the operands are on " +
                    first->device().to_string() + "; use an engine for " +
                    first->device().to_string() + " or move the operands with to_device())",
                DeviceMismatch{engine.device().to_string(), first->device().to_string()}, where);
  throw Error(ErrorKind::Internal, std::string(op), "operands: no failure found", NoDetail{}, where);  // unreachable
}

void same_dtypes(std::string_view op, std::initializer_list<const Tensor*> tensors,
                 SourceLocation where) {
  const Tensor* first = *tensors.begin();
  for (const Tensor* t : tensors) check::same_dtype(op, first->dtype(), t->dtype(), where);
}

namespace {

// [lowest, highest] byte addresses a view touches (empty views touch nothing).
std::pair<const char*, const char*> byte_span(const Tensor& t) {
  const char* base = static_cast<const char*>(t.element_ptr());
  std::int64_t lo = 0, hi = 0;
  for (std::size_t d = 0; d < t.shape().size(); ++d) {
    const std::int64_t reach = (t.shape()[d] - 1) * t.strides()[d];
    (reach < 0 ? lo : hi) += reach;
  }
  const auto esize = static_cast<std::int64_t>(size_of(t.dtype()));
  return {base + lo * esize, base + hi * esize + esize};
}

bool same_view(const Tensor& a, const Tensor& b) {
  return a.element_ptr() == b.element_ptr() && a.shape() == b.shape() && a.strides() == b.strides() &&
         a.dtype() == b.dtype();
}

}  // namespace

void destination(std::string_view op, const Tensor& dest, DType dtype, const Shape& shape,
                 Device device, std::initializer_list<const Tensor*> inputs, SourceLocation where) {
  // Built only on failure: this check runs on every _into call.
  struct Into {
    std::string_view op;
    operator std::string() const { return std::string(op) + "_into"; }  // NOLINT
  } const into{op};
  if (!dest.defined())
    check::fail_invalid(std::string(into), "the destination is an empty (default-constructed) tensor", "dest", where);
  if (dest.is_meta())
    check::fail_invalid(std::string(into), "the destination is a meta tensor (no data to write)", "dest", where);
  if (TensorInternals::storage(dest)->read_only())
    check::fail_invalid(std::string(into),
                        "the destination is read-only (memory imported with the DLPack read-only flag)",
                        "dest", where);
  if (!(device == dest.device())) check::fail_device_mismatch(std::string(into), device, dest.device(), where);
  if (dtype != dest.dtype()) check::fail_dtype_mismatch(std::string(into), dtype, dest.dtype(), where);
  if (dest.shape() != shape)
    check::fail_shape(std::string(into),
                      "destination shape " + to_string(dest.shape()) + " does not match the result shape " +
                          to_string(shape),
                      shape, dest.shape(), where);
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (dest.strides()[d] == 0 && shape[d] > 1)
      check::fail_invalid(std::string(into),
                          "the destination has a zero stride on axis " + std::to_string(d) +
                              ", so several results would land on one element",
                          "dest", where);
  if (dest.numel() == 0) return;
  for (const Tensor* in : inputs) {
    if (!in->shares_storage_with(dest) || in->numel() == 0 || same_view(*in, dest)) continue;
    const auto [dlo, dhi] = byte_span(dest);  // only for an input in the same storage
    const auto [lo, hi] = byte_span(*in);
    if (lo < dhi && dlo < hi)
      check::fail_invalid(std::string(into),
                          "the destination overlaps an input with a different layout, which would "
                          "overwrite elements before they are read; write to a fresh tensor or "
                          "duplicate() the input",
                          "dest", where);
  }
}

Tensor weak_scalar(std::string_view op, const Scalar& value, DType dtype, Device device,
                   SourceLocation where) {
  auto fail = [&] {
    check::fail_invalid(op,
                        "scalar " + value.to_string() + " (" + std::string(name(value.kind())) +
                            ") does not fit tensor dtype " + std::string(name(dtype)) +
                            "; cast the tensor first",
                        "scalar", where);
  };
  if (static_cast<int>(value.kind()) > static_cast<int>(scalar_kind(dtype))) fail();
  Tensor out = Tensor::empty({}, dtype, device, where);
  const bool ok = visit_dtype(dtype, [&]<class T>() {
    T v{};
    bool fits;
    switch (value.kind()) {
      case Scalar::Kind::Complex: fits = exact_value<T>(value.as_complex(), v); break;
      case Scalar::Kind::Float: fits = exact_value<T>(value.as_double(), v); break;
      default:
        fits = value.is_u64_above_i64() ? exact_value<T>(value.as_u64(), v) : exact_value<T>(value.as_int(), v);
    }
    // An integer scalar must survive in a float tensor exactly (F16 + 2049 would add 2048);
    // float scalars round to the tensor's precision as weak scalars do everywhere.
    if (fits && (value.kind() == Scalar::Kind::Int || value.kind() == Scalar::Kind::Bool) && (is_float_v<T> || is_complex_v<T>)) {
      const auto stored = static_cast<long double>(detail::real_part(v));
      fits = value.is_u64_above_i64() ? stored == static_cast<long double>(value.as_u64())
                                      : stored == static_cast<long double>(value.as_int());
    }
    if (fits) *out.data<T>() = v;
    return fits;
  });
  if (!ok) fail();
  return out;
}

}  // namespace tensora::validate
