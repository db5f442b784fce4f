// The direct elementwise op set: validate through the catalog, allocate, run the kernel.
#include <algorithm>
#include <optional>

#include "backend/backend.hpp"
#include "ops/elementwise_catalog.hpp"
#include "direct/direct.hpp"
#include "ops/inference.hpp"
#include "ops/validate.hpp"

namespace tensora {

namespace {

// Shape equality as an inline loop: ranks are small, and a tiny op would feel memcmp's call.
bool same_extents(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t d = 0; d < a.size(); ++d)
    if (a[d] != b[d]) return false;
  return true;
}

// `t` under `shape`: itself when it has the shape (no handle made), else a broadcast view kept
// in `storage`. The test is inline; only a real broadcast pays a call.
[[gnu::noinline]] const Tensor& make_broadcast(const Tensor& t, const Shape& shape, std::optional<Tensor>& storage,
                                               SourceLocation where) {
  return storage.emplace(t.broadcast_to(shape, where));
}
inline const Tensor& broadcast_view(const Tensor& t, const Shape& shape, std::optional<Tensor>& storage,
                                    SourceLocation where) {
  if (same_extents(t.shape(), shape)) [[likely]] return t;
  return make_broadcast(t, shape, storage, where);
}

// Integer division by zero has no value; say so before any work is done.
void check_divisor(BinaryOp op, const Tensor& b, Engine& engine, SourceLocation where) {
  if ((op == BinaryOp::FloorDiv || op == BinaryOp::Rem) && is_integer(b.dtype()) &&
      engine.backend().any_zero(b, engine))
    check::fail_invalid(info(op).name, "integer division by zero", "other", where);
}

struct BinaryPlan {
  Shape shape;
  DType result;
};

BinaryPlan plan_binary(BinaryOp op, const Tensor& a, const Tensor& b, Engine& engine,
                       SourceLocation where) {
  const ElementwiseInfo& inf = info(op);
  validate::operands(inf.name, engine, {&a, &b}, where);
  infer::Result r = infer::elementwise_binary(op, a.dtype(), b.dtype(), a.shape(), b.shape(), where);
  check_divisor(op, b, engine, where);
  return {std::move(r.shape), r.dtype};
}

// Operands that need a broadcast view, out of line: the views' slots are std::optional<Tensor>,
// which GCC zero-fills on construction (two 120-byte rep stos were a fifth of a 4-element add).
[[gnu::noinline]] void run_broadcast_binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b,
                                            backend::Output kind, Engine& engine, SourceLocation where) {
  std::optional<Tensor> a_view, b_view;
  engine.backend().binary(op, out, broadcast_view(a, out.shape(), a_view, where),
                          broadcast_view(b, out.shape(), b_view, where), kind, engine);
}

void run_binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, backend::Output kind,
                Engine& engine, SourceLocation where) {
  if (same_extents(a.shape(), out.shape()) && same_extents(b.shape(), out.shape())) [[likely]]
    engine.backend().binary(op, out, a, b, kind, engine);
  else
    run_broadcast_binary(op, out, a, b, kind, engine, where);
}

Tensor binary_op(BinaryOp op, const Tensor& a, const Tensor& b, Engine& engine, SourceLocation where) {
  BinaryPlan plan = plan_binary(op, a, b, engine, where);
  Tensor out = Tensor::empty(std::move(plan.shape), plan.result, a.device(), where);
  run_binary(op, out, a, b, backend::Output::Fresh, engine, where);
  return out;
}

Tensor binary_scalar(BinaryOp op, const Tensor& a, const Scalar& s, Engine& engine, SourceLocation where) {
  const ElementwiseInfo& inf = info(op);
  validate::operands(inf.name, engine, {&a}, where);
  const Tensor b = validate::weak_scalar(inf.name, s, a.dtype(), a.device(), where);
  return binary_op(op, a, b, engine, where);
}

void binary_into(BinaryOp op, const Tensor& a, const Tensor& b, Engine& engine, const Tensor& dest,
                 SourceLocation where) {
  BinaryPlan plan = plan_binary(op, a, b, engine, where);
  validate::destination(info(op).name, dest, plan.result, plan.shape, a.device(), {&a, &b}, where);
  run_binary(op, dest, a, b, backend::Output::Given, engine, where);
}

DType plan_unary(UnaryOp op, const Tensor& x, Engine& engine, SourceLocation where) {
  const ElementwiseInfo& inf = info(op);
  validate::operands(inf.name, engine, {&x}, where);
  infer::elementwise_accepts(inf, x.dtype(), where);
  return result_dtype(inf, x.dtype());
}

Tensor unary_op(UnaryOp op, const Tensor& x, Engine& engine, SourceLocation where) {
  Tensor out = Tensor::empty(x.shape(), plan_unary(op, x, engine, where), x.device(), where);
  engine.backend().unary(op, out, x, backend::Output::Fresh, engine);
  return out;
}

void unary_into(UnaryOp op, const Tensor& x, Engine& engine, const Tensor& dest, SourceLocation where) {
  const DType result = plan_unary(op, x, engine, where);
  validate::destination(info(op).name, dest, result, x.shape(), x.device(), {&x}, where);
  engine.backend().unary(op, dest, x, backend::Output::Given, engine);
}

}  // namespace

Tensor direct::binary(BinaryOp op, const Tensor& a, const Tensor& b, Engine& engine, SourceLocation where) {
  return binary_op(op, a, b, engine, where);
}
Tensor direct::unary(UnaryOp op, const Tensor& x, Engine& engine, SourceLocation where) {
  return unary_op(op, x, engine, where);
}

Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view op, SourceLocation where) {
  const std::size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (std::size_t i = 0; i < r; ++i) {
    const std::int64_t x = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const std::int64_t y = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (x != y && x != 1 && y != 1)
      check::fail_shape(op, "shape mismatch: " + to_string(a) + " and " + to_string(b) + " do not broadcast",
                        a, b, where);
    out[i] = x == 1 ? y : x;
  }
  return out;
}

// The methods of every catalog row (tensora/op_catalog.hpp).
#define TENSORA_DEFINE_BINARY(method, Op, ...)                                                   \
  Tensor Tensor::method(const Tensor& other, Engine& engine, Loc where) const {                   \
    return binary_op(BinaryOp::Op, *this, other, engine, where);                                  \
  }                                                                                               \
  Tensor Tensor::method(Scalar other, Engine& engine, Loc where) const {                          \
    return binary_scalar(BinaryOp::Op, *this, other, engine, where);                              \
  }                                                                                               \
  void Tensor::method##_into(const Tensor& other, Engine& engine, const Tensor& dest, Loc where) \
      const {                                                                                     \
    binary_into(BinaryOp::Op, *this, other, engine, dest, where);                                 \
  }
#define TENSORA_DEFINE_UNARY(method, Op, ...)                                            \
  Tensor Tensor::method(Engine& engine, Loc where) const {                               \
    return unary_op(UnaryOp::Op, *this, engine, where);                                  \
  }                                                                                      \
  void Tensor::method##_into(Engine& engine, const Tensor& dest, Loc where) const {      \
    unary_into(UnaryOp::Op, *this, engine, dest, where);                                 \
  }
TENSORA_BINARY_OPS(TENSORA_DEFINE_BINARY)
TENSORA_UNARY_OPS(TENSORA_DEFINE_UNARY)
#undef TENSORA_DEFINE_BINARY
#undef TENSORA_DEFINE_UNARY

Tensor Tensor::clamp(Scalar lo, Scalar hi, Engine& engine, Loc where) const {
  validate::operands("clamp", engine, {this}, where);
  infer::elementwise_accepts(info(BinaryOp::Maximum), dtype_, where, "clamp");
  const Tensor lo_t = validate::weak_scalar("clamp", lo, dtype_, device_, where);
  const Tensor hi_t = validate::weak_scalar("clamp", hi, dtype_, device_, where);
  return clamp(lo_t, hi_t, engine, where);
}

Tensor Tensor::clamp(const Tensor& lo, const Tensor& hi, Engine& engine, Loc where) const {
  validate::operands("clamp", engine, {this, &lo, &hi}, where);
  validate::same_dtypes("clamp", {this, &lo, &hi}, where);
  infer::elementwise_accepts(info(BinaryOp::Maximum), dtype_, where, "clamp");
  const Shape shape = broadcast_shapes(broadcast_shapes(shape_, lo.shape(), "clamp", where), hi.shape(), "clamp", where);
  Tensor out = Tensor::empty(shape, dtype_, device_, where);
  run_binary(BinaryOp::Maximum, out, *this, lo, backend::Output::Given, engine, where);
  run_binary(BinaryOp::Minimum, out, out, hi, backend::Output::Given, engine, where);  // in place: same view
  return out;
}

Tensor select(const Tensor& pred, const Tensor& a, const Tensor& b, Engine& engine, SourceLocation where) {
  validate::operands("select", engine, {&pred, &a, &b}, where);
  const Shape shape = infer::select(pred.dtype(), a.dtype(), b.dtype(), pred.shape(), a.shape(), b.shape(), where);
  Tensor out = Tensor::empty(shape, a.dtype(), a.device(), where);
  if (same_extents(pred.shape(), shape) && same_extents(a.shape(), shape) && same_extents(b.shape(), shape)) {
    engine.backend().select(out, pred, a, b, engine);  // no view slots (see run_broadcast_binary)
    return out;
  }
  std::optional<Tensor> pv, av, bv;
  engine.backend().select(out, broadcast_view(pred, shape, pv, where), broadcast_view(a, shape, av, where),
              broadcast_view(b, shape, bv, where), engine);
  return out;
}

Tensor Tensor::convert(DType dtype, Engine& engine, Loc where) const {
  validate::operands("convert", engine, {this}, where);
  if (dtype == dtype_) return *this;
  check::lossless_conversion(dtype_, dtype, where);
  Tensor out = Tensor::empty(shape_, dtype, device_, where);
  engine.backend().cast(out, *this, engine);
  return out;
}

Tensor Tensor::cast(DType dtype, Engine& engine, Loc where) const {
  validate::operands("cast", engine, {this}, where);
  if (dtype == dtype_) return *this;
  Tensor out = Tensor::empty(shape_, dtype, device_, where);
  engine.backend().cast(out, *this, engine);
  return out;
}

namespace infer {

void fail_elementwise_dtype(const ElementwiseInfo& op, DType dtype, SourceLocation where, std::string_view name) {
  check::fail_unsupported_dtype(name.empty() ? op.name : name, dtype, std::string(op.hint), where);
}

Result elementwise_binary(BinaryOp op, DType lhs, DType rhs, const Shape& lhs_shape, const Shape& rhs_shape,
                          SourceLocation where) {
  const ElementwiseInfo& inf = info(op);
  check::same_dtype(inf.name, lhs, rhs, where);
  elementwise_accepts(inf, lhs, where);
  Shape shape = same_extents(lhs_shape, rhs_shape) ? lhs_shape : broadcast_shapes(lhs_shape, rhs_shape, inf.name, where);
  return {std::move(shape), result_dtype(inf, lhs)};
}

Shape select(DType pred, DType a, DType b, const Shape& pred_shape, const Shape& a_shape, const Shape& b_shape,
             SourceLocation where) {
  check::same_dtype("select", DType::Bool, pred, where);
  check::same_dtype("select", a, b, where);
  return broadcast_shapes(broadcast_shapes(pred_shape, a_shape, "select", where), b_shape, "select", where);
}

}  // namespace infer

}  // namespace tensora
