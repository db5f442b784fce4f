// The direct reductions: axis handling and dtype policy here, kernels behind the backend.
#include <algorithm>
#include <limits>

#include "backend/backend.hpp"
#include "ops/inference.hpp"
#include "ops/validate.hpp"

namespace tensora {

namespace {

struct ReductionSpec {
  std::string_view name;
  std::uint8_t accepts;  // KindMask
  std::string_view hint;
  bool needs_identity;  // max/min/argmax have no value for an empty axis
};

constexpr ReductionSpec kSum{"sum", kNumeric, "cast Bool to an integer dtype to count", false};
constexpr ReductionSpec kProd{"prod", kNumeric, "cast Bool to an integer dtype first", false};
constexpr ReductionSpec kMean{"mean", kInexact, "cast the tensor to a float dtype first", false};
constexpr ReductionSpec kMax{"max", kBool | kReal, "complex numbers are not ordered", true};
constexpr ReductionSpec kMin{"min", kBool | kReal, "complex numbers are not ordered", true};
constexpr ReductionSpec kAll{"all", kAny, "", false};
constexpr ReductionSpec kAnyR{"any", kAny, "", false};
constexpr ReductionSpec kLogSumExp{"logsumexp", kFloat, "cast the tensor to a float dtype first", false};
constexpr ReductionSpec kVar{"var", kInexact, "cast the tensor to a float dtype first", false};
constexpr ReductionSpec kStd{"std", kInexact, "cast the tensor to a float dtype first", false};
constexpr ReductionSpec kArgMax{"argmax", kBool | kReal, "complex numbers are not ordered", true};
constexpr ReductionSpec kArgMin{"argmin", kBool | kReal, "complex numbers are not ordered", true};

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

// var = sum(|x - mean|^2) / (N - ddof), two passes for accuracy; the result dtype is real.
Tensor run_var(const ReductionSpec& spec, const Tensor& x, const std::vector<std::int64_t>& axes,
               const ReduceOptions& options, Engine& engine, SourceLocation where) {
  check_reduction(spec, x, engine, where);
  const AxesPlan plan = plan_axes(spec, x, axes, where);
  if (options.ddof < 0)
    check::fail_invalid(spec.name, "ddof must be >= 0, got " + std::to_string(options.ddof), "ddof", where);
  const Tensor mean = x.mean(axes, ReduceOptions{true, 0}, engine, where);
  const Tensor dev = x.sub(mean, engine, where);
  Tensor sq = is_complex(x.dtype()) ? dev.abs(engine, where) : dev;
  sq = sq.mul(sq, engine, where);
  const Tensor total = sq.sum(axes, options, engine, where);
  const double denom = static_cast<double>(plan.count - options.ddof);
  // N - ddof <= 0 gives inf/NaN as in NumPy.
  const Tensor d = validate::weak_scalar(spec.name, Scalar(denom), total.dtype(), total.device(), where);
  return total.div(d, engine, where);
}

}  // namespace

#define TENSORA_REDUCTION(method, spec, op)                                                           \
  Tensor Tensor::method(std::vector<std::int64_t> axes, Engine& engine, Loc where) const {            \
    return run_reduce(spec, op, *this, axes, {}, engine, where);                                      \
  }                                                                                                   \
  Tensor Tensor::method(std::vector<std::int64_t> axes, ReduceOptions options, Engine& engine,        \
                        Loc where) const {                                                            \
    return run_reduce(spec, op, *this, axes, options, engine, where);                                 \
  }                                                                                                   \
  Tensor Tensor::method(Engine& engine, Loc where) const {                                            \
    return run_reduce(spec, op, *this, all_axes(*this), {}, engine, where);                           \
  }
TENSORA_REDUCTION(sum, kSum, ReduceOp::Sum)
TENSORA_REDUCTION(prod, kProd, ReduceOp::Prod)
TENSORA_REDUCTION(mean, kMean, ReduceOp::Mean)
TENSORA_REDUCTION(max, kMax, ReduceOp::Max)
TENSORA_REDUCTION(min, kMin, ReduceOp::Min)
TENSORA_REDUCTION(all, kAll, ReduceOp::All)
TENSORA_REDUCTION(any, kAnyR, ReduceOp::Any)
#undef TENSORA_REDUCTION

Tensor Tensor::var(std::vector<std::int64_t> axes, Engine& engine, Loc where) const {
  return run_var(kVar, *this, axes, {}, engine, where);
}
Tensor Tensor::var(std::vector<std::int64_t> axes, ReduceOptions options, Engine& engine, Loc where) const {
  return run_var(kVar, *this, axes, options, engine, where);
}
Tensor Tensor::var(Engine& engine, Loc where) const { return run_var(kVar, *this, all_axes(*this), {}, engine, where); }

Tensor Tensor::std(std::vector<std::int64_t> axes, Engine& engine, Loc where) const {
  return run_var(kStd, *this, axes, {}, engine, where).sqrt(engine, where);
}
Tensor Tensor::std(std::vector<std::int64_t> axes, ReduceOptions options, Engine& engine, Loc where) const {
  return run_var(kStd, *this, axes, options, engine, where).sqrt(engine, where);
}
Tensor Tensor::std(Engine& engine, Loc where) const {
  return run_var(kStd, *this, all_axes(*this), {}, engine, where).sqrt(engine, where);
}

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

Tensor Tensor::logsumexp(std::vector<std::int64_t> axes, Engine& engine, Loc where) const {
  return run_logsumexp(*this, axes, {}, engine, where);
}
Tensor Tensor::logsumexp(std::vector<std::int64_t> axes, ReduceOptions options, Engine& engine, Loc where) const {
  return run_logsumexp(*this, axes, options, engine, where);
}
Tensor Tensor::logsumexp(Engine& engine, Loc where) const {
  return run_logsumexp(*this, all_axes(*this), {}, engine, where);
}

Tensor Tensor::argmax(std::int64_t axis, Engine& engine, Loc where) const {
  return run_arg(kArgMax, true, *this, axis, {}, engine, where);
}
Tensor Tensor::argmax(std::int64_t axis, ReduceOptions options, Engine& engine, Loc where) const {
  return run_arg(kArgMax, true, *this, axis, options, engine, where);
}
Tensor Tensor::argmax(Engine& engine, Loc where) const { return run_arg(kArgMax, true, *this, {}, {}, engine, where); }
Tensor Tensor::argmin(std::int64_t axis, Engine& engine, Loc where) const {
  return run_arg(kArgMin, false, *this, axis, {}, engine, where);
}
Tensor Tensor::argmin(std::int64_t axis, ReduceOptions options, Engine& engine, Loc where) const {
  return run_arg(kArgMin, false, *this, axis, options, engine, where);
}
Tensor Tensor::argmin(Engine& engine, Loc where) const { return run_arg(kArgMin, false, *this, {}, {}, engine, where); }

namespace {

Tensor run_scan(std::string_view name, bool product, const Tensor& x, std::int64_t axis, Engine& engine,
                SourceLocation where) {
  validate::operands(name, engine, {&x}, where);
  if ((kNumeric & kind_bit(kind(x.dtype()))) == 0)
    check::fail_unsupported_dtype(name, x.dtype(), "cast Bool to an integer dtype first", where);
  const std::int64_t a = check::axis(name, axis, x.rank(), where);
  Tensor out = Tensor::empty(x.shape(), x.dtype(), x.device(), where);
  if (out.numel() > 0) engine.backend().scan(product, out, x, a, engine);
  return out;
}

}  // namespace

Tensor Tensor::cumsum(std::int64_t axis, Engine& engine, Loc where) const {
  return run_scan("cumsum", false, *this, axis, engine, where);
}
Tensor Tensor::cumprod(std::int64_t axis, Engine& engine, Loc where) const {
  return run_scan("cumprod", true, *this, axis, engine, where);
}

namespace infer {

namespace {
const ReductionSpec* spec_named(std::string_view op) {
  static constexpr const ReductionSpec* kSpecs[] = {&kSum, &kProd, &kMean, &kMax, &kMin, &kAll, &kAnyR,
                                                    &kLogSumExp, &kVar, &kStd, &kArgMax, &kArgMin};
  for (const auto* s : kSpecs)
    if (s->name == op) return s;
  return nullptr;
}
}  // namespace

Result reduction(std::string_view op, const Tensor& x, const std::vector<std::int64_t>& axes,
                 const ReduceOptions& options, SourceLocation where) {
  const ReductionSpec* spec = spec_named(op);
  if (spec == nullptr) check::fail_invalid(op, "not a reduction", "op", where);
  if ((spec->accepts & kind_bit(kind(x.dtype()))) == 0)
    check::fail_unsupported_dtype(spec->name, x.dtype(), std::string(spec->hint), where);
  const bool arg = spec == &kArgMax || spec == &kArgMin;
  const AxesPlan plan = plan_axes(*spec, x, axes, where);
  if (spec == &kVar || spec == &kStd) {
    if (options.ddof < 0)
      check::fail_invalid(spec->name, "ddof must be >= 0, got " + std::to_string(options.ddof), "ddof", where);
  }
  DType dtype = x.dtype();
  if (spec == &kAll || spec == &kAnyR) dtype = DType::Bool;
  if (arg) dtype = DType::I64;
  if ((spec == &kVar || spec == &kStd) && is_complex(dtype)) dtype = real_dtype(dtype);
  return {options.keepdims ? plan.keep_shape : plan.out_shape, dtype};
}

Result scan(std::string_view op, const Tensor& x, std::int64_t axis, SourceLocation where) {
  if ((kNumeric & kind_bit(kind(x.dtype()))) == 0)
    check::fail_unsupported_dtype(op, x.dtype(), "cast Bool to an integer dtype first", where);
  (void)check::axis(op, axis, x.rank(), where);
  return {x.shape(), x.dtype()};
}

}  // namespace infer

}  // namespace tensora
