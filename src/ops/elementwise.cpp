// The direct elementwise op set: validate through the catalog, allocate, run the kernel.
#include <algorithm>
#include <numeric>

#include "core/storage.hpp"
#include "cpu/elementwise_loop.hpp"
#include "cpu/kernels.hpp"
#include "cpu/transpose_copy.hpp"
#include "ops/elementwise_catalog.hpp"
#include "ops/direct.hpp"
#include "ops/inference.hpp"
#include "ops/validate.hpp"

namespace tensora {

namespace {

const Tensor& broadcast_view(const Tensor& t, const Shape& shape, Tensor& storage, SourceLocation where) {
  if (t.shape() == shape) return t;
  storage = t.broadcast_to(shape, where);
  return storage;
}

// Integer division by zero has no value; say so before any work is done.
void check_divisor(BinaryOp op, const Tensor& b, Engine& engine, SourceLocation where) {
  if ((op == BinaryOp::FloorDiv || op == BinaryOp::Rem) && is_integer(b.dtype()) && cpu::any_zero(b, engine))
    check::fail_invalid(info(op).name, "integer division by zero", "other", where);
}

// True when `t` covers a dense block of memory in some axis order with positive strides.
bool dense_positive(const Tensor& t) {
  std::vector<std::size_t> order(t.shape().size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return t.strides()[a] < t.strides()[b]; });
  std::int64_t expected = 1;
  for (auto d : order) {
    if (t.shape()[d] == 1) continue;
    if (t.strides()[d] != expected) return false;
    expected *= t.shape()[d];
  }
  return true;
}

// Dense strides for `shape` with the axes in the memory order of `like` (fastest first).
Strides dense_strides_like(const Shape& shape, const Tensor& like) {
  std::vector<std::size_t> order(shape.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return like.strides()[a] < like.strides()[b]; });
  Strides strides(shape.size());
  std::int64_t step = 1;
  for (auto d : order) {
    strides[d] = step;
    step *= shape[d];
  }
  return strides;
}

// Bytes per panel of the transposing path: the panel's scratch stays in L2 (2 MiB here)
// next to the inputs' panels streaming through it.
constexpr std::int64_t kPanelBytes = std::int64_t{512} << 10;

// Runs `kernel(dst, inputs, engine)` for a fresh column-major `out`. When every input shares
// one dense layout that is not column-major (e.g. all transposed), the kernel would read the
// inputs across cache lines; it then runs panel by panel (slices along the inputs' slowest
// axis) in the inputs' layout into an L2-sized scratch, and a cache-blocked transpose copies
// each panel into column-major order while it is still in cache. Panels run in parallel,
// each on one thread; elementwise results do not depend on the split.
template <class Kernel>
void run_fresh(const Tensor& out, std::initializer_list<const Tensor*> inputs, Engine& engine, Kernel kernel) {
  const Tensor& first = **inputs.begin();
  bool shared = out.numel() >= kElementGrain && first.shape() == out.shape() && !first.is_contiguous() &&
                dense_positive(first);
  for (const Tensor* t : inputs) shared = shared && t->shape() == first.shape() && t->strides() == first.strides();
  if (!shared) return kernel(out, std::vector<Tensor>{}, engine);
  std::size_t axis = 0;  // the inputs' slowest axis
  for (std::size_t d = 1; d < first.shape().size(); ++d)
    if (first.strides()[d] > first.strides()[axis]) axis = d;
  const auto ax = static_cast<std::int64_t>(axis);
  const std::int64_t extent = out.shape()[axis], per_index = out.numel() / extent;
  const std::int64_t panel_elements = kPanelBytes / static_cast<std::int64_t>(size_of(out.dtype()));
  const std::int64_t height = std::max<std::int64_t>(1, panel_elements / per_index);
  const std::int64_t panels = (extent + height - 1) / height;
  engine.parallel_for(panels, 1, [&](std::int64_t p0, std::int64_t p1) {
    CpuEngine one = CpuEngine::serial(out.device());
    Shape panel_shape = out.shape();
    panel_shape[axis] = std::min(height, extent);
    const auto scratch_storage =
        Storage::allocate(static_cast<std::size_t>(panel_shape[axis] * per_index) * size_of(out.dtype()), out.device());
    for (std::int64_t p = p0; p < p1; ++p) {
      const std::int64_t lo = p * height, hi = std::min(extent, lo + height);
      panel_shape[axis] = hi - lo;
      const Tensor scratch(scratch_storage, panel_shape, dense_strides_like(panel_shape, first), 0, out.dtype(),
                           out.device());
      std::vector<Tensor> pieces;
      for (const Tensor* t : inputs) pieces.push_back(t->slice(ax, lo, hi));
      kernel(scratch, pieces, one);
      cpu::transpose_copy(out.slice(ax, lo, hi), scratch, one);
    }
  });
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

void run_binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Engine& engine,
                SourceLocation where) {
  Tensor a_view, b_view;
  cpu::binary(op, out, broadcast_view(a, out.shape(), a_view, where), broadcast_view(b, out.shape(), b_view, where),
              engine);
}

Tensor binary_op(BinaryOp op, const Tensor& a, const Tensor& b, Engine& engine, SourceLocation where) {
  BinaryPlan plan = plan_binary(op, a, b, engine, where);
  Tensor out = Tensor::empty(std::move(plan.shape), plan.result, a.device(), where);
  run_fresh(out, {&a, &b}, engine, [&](const Tensor& dst, const std::vector<Tensor>& in, Engine& e) {
    run_binary(op, dst, in.empty() ? a : in[0], in.empty() ? b : in[1], e, where);
  });
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
  run_binary(op, dest, a, b, engine, where);
}

DType plan_unary(UnaryOp op, const Tensor& x, Engine& engine, SourceLocation where) {
  const ElementwiseInfo& inf = info(op);
  validate::operands(inf.name, engine, {&x}, where);
  infer::elementwise_accepts(inf, x.dtype(), where);
  return result_dtype(inf, x.dtype());
}

Tensor unary_op(UnaryOp op, const Tensor& x, Engine& engine, SourceLocation where) {
  Tensor out = Tensor::empty(x.shape(), plan_unary(op, x, engine, where), x.device(), where);
  run_fresh(out, {&x}, engine, [&](const Tensor& dst, const std::vector<Tensor>& in, Engine& e) {
    cpu::unary(op, dst, in.empty() ? x : in[0], e);
  });
  return out;
}

void unary_into(UnaryOp op, const Tensor& x, Engine& engine, const Tensor& dest, SourceLocation where) {
  const DType result = plan_unary(op, x, engine, where);
  validate::destination(info(op).name, dest, result, x.shape(), x.device(), {&x}, where);
  cpu::unary(op, dest, x, engine);
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
  run_binary(BinaryOp::Maximum, out, *this, lo, engine, where);
  run_binary(BinaryOp::Minimum, out, out, hi, engine, where);  // in place: same view
  return out;
}

Tensor select(const Tensor& pred, const Tensor& a, const Tensor& b, Engine& engine, SourceLocation where) {
  validate::operands("select", engine, {&pred, &a, &b}, where);
  const Shape shape = infer::select(pred.dtype(), a.dtype(), b.dtype(), pred.shape(), a.shape(), b.shape(), where);
  Tensor out = Tensor::empty(shape, a.dtype(), a.device(), where);
  Tensor pv, av, bv;
  cpu::select(out, broadcast_view(pred, shape, pv, where), broadcast_view(a, shape, av, where),
              broadcast_view(b, shape, bv, where), engine);
  return out;
}

Tensor Tensor::convert(DType dtype, Engine& engine, Loc where) const {
  validate::operands("convert", engine, {this}, where);
  if (dtype == dtype_) return *this;
  check::lossless_conversion(dtype_, dtype, where);
  Tensor out = Tensor::empty(shape_, dtype, device_, where);
  cpu::cast(out, *this, engine);
  return out;
}

Tensor Tensor::cast(DType dtype, Engine& engine, Loc where) const {
  validate::operands("cast", engine, {this}, where);
  if (dtype == dtype_) return *this;
  Tensor out = Tensor::empty(shape_, dtype, device_, where);
  cpu::cast(out, *this, engine);
  return out;
}

namespace infer {

void elementwise_accepts(const ElementwiseInfo& op, DType dtype, SourceLocation where, std::string_view name) {
  if (!accepts(op, dtype))
    check::fail_unsupported_dtype(name.empty() ? op.name : name, dtype, std::string(op.hint), where);
}

Result elementwise_binary(BinaryOp op, DType lhs, DType rhs, const Shape& lhs_shape, const Shape& rhs_shape,
                          SourceLocation where) {
  const ElementwiseInfo& inf = info(op);
  check::same_dtype(inf.name, lhs, rhs, where);
  elementwise_accepts(inf, lhs, where);
  Shape shape = lhs_shape == rhs_shape ? lhs_shape : broadcast_shapes(lhs_shape, rhs_shape, inf.name, where);
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
