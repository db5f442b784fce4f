// The direct reductions: axis handling and dtype policy here, kernels behind the backend.
#include <algorithm>
#include <limits>

#include "backend/backend.hpp"
#include "direct/direct.hpp"
#include "ops/reduction_catalog.hpp"
#include "ops/inference.hpp"
#include "ops/validate.hpp"

namespace tensora {

namespace {

// A reduction's catalog row (tensora/op_catalog.hpp): name, accepted kinds, hint, identity.
using ReductionSpec = ReductionInfo;
constexpr const ReductionSpec& kLogSumExp = info(Reduction::LogSumExp);

struct AxesPlan {
  std::vector<bool> reduced;  // per axis
  std::vector<std::int64_t> perm;  // kept axes first, then reduced, each in order
  std::int64_t kept = 0;
  Shape out_shape;  // without keepdims
  Shape keep_shape;  // with reduced axes as 1
  std::int64_t count = 1;  // elements per output
};

AxesPlan plan_axes(const ReductionSpec& spec, const Tensor& x, const std::vector<std::int64_t>& axes,
                   SourceLocation where) {
  AxesPlan plan;
  plan.reduced.assign(x.shape().size(), false);
  for (auto axis : axes) {
    const auto a = static_cast<std::size_t>(check::axis(spec.name, axis, x.rank(), where));
    if (plan.reduced[a])
      check::fail_invalid(spec.name, "axis " + std::to_string(axis) + " appears twice", "axes", where);
    plan.reduced[a] = true;
  }
  for (std::size_t d = 0; d < x.shape().size(); ++d) {
    if (!plan.reduced[d]) {
      plan.perm.push_back(static_cast<std::int64_t>(d));
      plan.out_shape.push_back(x.shape()[d]);
    }
    plan.keep_shape.push_back(plan.reduced[d] ? 1 : x.shape()[d]);
  }
  plan.kept = static_cast<std::int64_t>(plan.perm.size());
  for (std::size_t d = 0; d < x.shape().size(); ++d)
    if (plan.reduced[d]) {
      plan.perm.push_back(static_cast<std::int64_t>(d));
      plan.count *= x.shape()[d];
    }
  if (spec.needs_identity && plan.count == 0 && numel(plan.out_shape) > 0)
    check::fail_invalid(spec.name,
                        "cannot reduce an empty axis: " + std::string(spec.name) + " has no identity value",
                        "axes", where);
  return plan;
}

void check_reduction(const ReductionSpec& spec, const Tensor& x, Engine& engine, SourceLocation where) {
  validate::operands(spec.name, engine, {&x}, where);
  if ((spec.accepts & kind_bit(kind(x.dtype()))) == 0)
    check::fail_unsupported_dtype(spec.name, x.dtype(), std::string(spec.hint), where);
}

std::vector<std::int64_t> all_axes(const Tensor& x) {
  std::vector<std::int64_t> axes(x.shape().size());
  for (std::size_t d = 0; d < axes.size(); ++d) axes[d] = static_cast<std::int64_t>(d);
  return axes;
}

Tensor run_reduce(const ReductionSpec& spec, ReduceOp op, const Tensor& x, const std::vector<std::int64_t>& axes,
                  const ReduceOptions& options, Engine& engine, SourceLocation where) {
  check_reduction(spec, x, engine, where);
  const AxesPlan plan = plan_axes(spec, x, axes, where);
  const bool logical = op == ReduceOp::All || op == ReduceOp::Any;
  Tensor out = Tensor::empty(plan.out_shape, logical ? DType::Bool : x.dtype(), x.device(), where);
  engine.backend().reduce(op, out, x.permute(plan.perm, where), plan.kept, engine);
  return options.keepdims ? out.reshape(plan.keep_shape, where) : out;
}

// var = sum(|x - mean|^2) / (N - ddof), two passes for accuracy (std: its root); the result
// dtype is real. F16/BF16 compute in F32 and round once: their squared deviations and sums overflow (or
// lose all precision) where the variance itself is representable.
Tensor run_var(const ReductionSpec& spec, const Tensor& input, const std::vector<std::int64_t>& axes,
               const ReduceOptions& options, bool root, Engine& engine, SourceLocation where) {
  check_reduction(spec, input, engine, where);
  const AxesPlan plan = plan_axes(spec, input, axes, where);
  const bool half = size_of(input.dtype()) == 2;
  const Tensor x = half ? input.convert(DType::F32, engine, where) : input;
  const Tensor mean = x.mean(axes, ReduceOptions{true, 0}, engine, where);
  const Tensor dev = x.sub(mean, engine, where);
  Tensor sq = is_complex(x.dtype()) ? dev.abs(engine, where) : dev;
  sq = sq.mul(sq, engine, where);
  const Tensor total = sq.sum(axes, options, engine, where);
  // N - ddof <= 0 divides by zero (inf or NaN), as NumPy, which clamps the count at 0.
  const double denom = std::max(static_cast<double>(plan.count) - options.ddof, 0.0);
  const Tensor d = validate::weak_scalar(spec.name, Scalar(denom), total.dtype(), total.device(), where);
  Tensor var = total.div(d, engine, where);
  if (root) var = var.sqrt(engine, where);
  return half ? var.cast(input.dtype(), engine, where) : var;
}

}  // namespace

namespace {

// log(sum(exp(x - m))) + m with m the max over the axes (0 where m is not finite, so that
// all -inf gives -inf and +inf gives +inf).
Tensor run_logsumexp(const Tensor& x, const std::vector<std::int64_t>& axes, const ReduceOptions& options,
                     Engine& engine, SourceLocation where) {
  check_reduction(kLogSumExp, x, engine, where);
  plan_axes(kLogSumExp, x, axes, where);
  const Tensor m = x.max(axes, ReduceOptions{true, 0}, engine, where);
  const Tensor zero = validate::weak_scalar("logsumexp", Scalar(0.0), x.dtype(), x.device(), where);
  const Tensor shift = select(m.isfinite(engine, where), m, zero, engine, where);
  const Tensor s = x.sub(shift, engine, where).exp(engine, where).sum(axes, ReduceOptions{true, 0}, engine, where);
  Tensor out = s.log(engine, where).add(shift, engine, where);
  if (!options.keepdims) {
    std::vector<std::int64_t> squeeze_axes;
    for (auto a : axes) squeeze_axes.push_back(a);
    out = out.squeeze(squeeze_axes, where);
  }
  return out;
}

Tensor run_arg(const ReductionSpec& spec, bool max, const Tensor& x, std::optional<std::int64_t> axis,
               const ReduceOptions& options, Engine& engine, SourceLocation where) {
  check_reduction(spec, x, engine, where);
  if (!axis) {
    // Over the column-major flattening.
    const Tensor flat = x.reshape({x.numel()}, where);
    const AxesPlan plan = plan_axes(spec, flat, {0}, where);
    (void)plan;
    if (x.numel() == 0)
      check::fail_invalid(spec.name, "cannot take " + std::string(spec.name) + " of an empty tensor", "self", where);
    Tensor out = Tensor::empty({}, DType::I64, x.device(), where);
    engine.backend().arg_extreme(max, out, flat, engine);
    return out;
  }
  const std::int64_t a = check::axis(spec.name, *axis, x.rank(), where);
  const AxesPlan plan = plan_axes(spec, x, {a}, where);
  Tensor out = Tensor::empty(plan.out_shape, DType::I64, x.device(), where);
  if (out.numel() > 0) engine.backend().arg_extreme(max, out, x.permute(plan.perm, where), engine);
  return options.keepdims ? out.reshape(plan.keep_shape, where) : out;
}

}  // namespace

namespace {

Tensor run_scan(const ReductionSpec& spec, bool product, const Tensor& x, std::int64_t axis, Engine& engine,
                SourceLocation where) {
  check_reduction(spec, x, engine, where);
  const std::int64_t a = check::axis(spec.name, axis, x.rank(), where);
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device(), where);
  if (out.numel() > 0) engine.backend().scan(product, out, x, a, engine);
  return out;
}

}  // namespace

// One entry per call shape; the catalog row says which ops take it.
Tensor direct::reduce(Reduction op, const Tensor& x, const std::vector<std::int64_t>& axes, const ReduceOptions& options,
                   Engine& engine, SourceLocation where) {
  const ReductionSpec& spec = info(op);
  switch (op) {
    case Reduction::Sum: return run_reduce(spec, ReduceOp::Sum, x, axes, options, engine, where);
    case Reduction::Prod: return run_reduce(spec, ReduceOp::Prod, x, axes, options, engine, where);
    case Reduction::Mean: return run_reduce(spec, ReduceOp::Mean, x, axes, options, engine, where);
    case Reduction::Max: return run_reduce(spec, ReduceOp::Max, x, axes, options, engine, where);
    case Reduction::Min: return run_reduce(spec, ReduceOp::Min, x, axes, options, engine, where);
    case Reduction::All: return run_reduce(spec, ReduceOp::All, x, axes, options, engine, where);
    case Reduction::Any: return run_reduce(spec, ReduceOp::Any, x, axes, options, engine, where);
    case Reduction::LogSumExp: return run_logsumexp(x, axes, options, engine, where);
    case Reduction::Var: return run_var(spec, x, axes, options, false, engine, where);
    case Reduction::Std: return run_var(spec, x, axes, options, true, engine, where);
    default: break;
  }
  throw Error(ErrorKind::Internal, std::string(spec.name), "not an axes reduction", NoDetail{}, where);
}
Tensor direct::reduce_axis(Reduction op, const Tensor& x, std::optional<std::int64_t> axis, const ReduceOptions& options,
                   Engine& engine, SourceLocation where) {
  return run_arg(info(op), op == Reduction::ArgMax, x, axis, options, engine, where);
}
Tensor direct::scan(Reduction op, const Tensor& x, std::int64_t axis, Engine& engine, SourceLocation where) {
  return run_scan(info(op), op == Reduction::CumProd, x, axis, engine, where);
}

#define TENSORA_DEFINE_REDUCTION_Axes(method, Op)                                                      \
  Tensor Tensor::method(std::vector<std::int64_t> axes, Engine& engine, Loc where) const {             \
    return direct::reduce(Reduction::Op, *this, axes, {}, engine, where);                                 \
  }                                                                                                    \
  Tensor Tensor::method(std::vector<std::int64_t> axes, ReduceOptions options, Engine& engine,         \
                        Loc where) const {                                                             \
    return direct::reduce(Reduction::Op, *this, axes, options, engine, where);                            \
  }                                                                                                    \
  Tensor Tensor::method(Engine& engine, Loc where) const {                                             \
    return direct::reduce(Reduction::Op, *this, all_axes(*this), {}, engine, where);                      \
  }
#define TENSORA_DEFINE_REDUCTION_Axis(method, Op)                                                      \
  Tensor Tensor::method(std::int64_t axis, Engine& engine, Loc where) const {                          \
    return direct::reduce_axis(Reduction::Op, *this, axis, {}, engine, where);                                 \
  }                                                                                                    \
  Tensor Tensor::method(std::int64_t axis, ReduceOptions options, Engine& engine, Loc where) const {   \
    return direct::reduce_axis(Reduction::Op, *this, axis, options, engine, where);                            \
  }                                                                                                    \
  Tensor Tensor::method(Engine& engine, Loc where) const {                                             \
    return direct::reduce_axis(Reduction::Op, *this, std::nullopt, {}, engine, where);                         \
  }
#define TENSORA_DEFINE_REDUCTION_Scan(method, Op)                                \
  Tensor Tensor::method(std::int64_t axis, Engine& engine, Loc where) const {    \
    return direct::scan(Reduction::Op, *this, axis, engine, where);               \
  }
#define TENSORA_DEFINE_REDUCTION(method, Op, accepts, result, ad, form, ...) TENSORA_DEFINE_REDUCTION_##form(method, Op)
TENSORA_REDUCTIONS(TENSORA_DEFINE_REDUCTION)
#undef TENSORA_DEFINE_REDUCTION
#undef TENSORA_DEFINE_REDUCTION_Axes
#undef TENSORA_DEFINE_REDUCTION_Axis
#undef TENSORA_DEFINE_REDUCTION_Scan

namespace infer {

Result reduction(Reduction op, const Tensor& x, const std::vector<std::int64_t>& axes, const ReduceOptions& options,
                 SourceLocation where) {
  const ReductionSpec& spec = info(op);
  if (!accepts(spec.accepts, x.dtype())) check::fail_unsupported_dtype(spec.name, x.dtype(), std::string(spec.hint), where);
  if (spec.form == ReductionForm::Scan) {
    (void)check::axis(spec.name, axes.at(0), x.rank(), where);
    return {x.shape(), x.dtype()};
  }
  const AxesPlan plan = plan_axes(spec, x, axes, where);
  return {options.keepdims ? plan.keep_shape : plan.out_shape, result_dtype(spec.result, x.dtype())};
}

}  // namespace infer

}  // namespace tensora
