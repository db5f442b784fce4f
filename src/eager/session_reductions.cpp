// Reductions and contractions of the eager session.
#include "ad/contraction_rules.hpp"
#include "ad/reduction_rules.hpp"
#include "eager/session_support.hpp"

namespace tensora {

using namespace eager_detail;  // NOLINT: the session is this layer's front

namespace {

using ReduceMethod = Tensor (Tensor::*)(std::vector<std::int64_t>, ReduceOptions, Engine&,
                                        SourceLocation) const;

struct ReductionEntry {
  const char* name;
  ReduceMethod method;
  std::optional<ad::ReduceKind> kind;  // none: not differentiable (Bool results)
  OpPolicy policy;
};

EagerTensor reduce(EagerSession& s, const ReductionEntry& r, const EagerTensor& x,
                   std::vector<std::int64_t> axes, bool all_axes, ReduceOptions options,
                   SourceLocation where) {
  check_inputs(r.name, s.engine(), {&x}, where);
  const EagerTensor cx = convert_to(x, plan_target(r.policy, {&x}, s.engine()), s.engine(), where);
  const auto rank = cx.value().rank();
  if (all_axes) {
    axes.clear();
    for (std::int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  Tensor out = (cx.value().*r.method)(axes, options, s.engine(), where);
  if (!r.kind) return constant_node(std::move(out));
  return record(
      ad::ReduceRule{*r.kind, ad::reduced_axes(axes, false, rank), options.keepdims, options.ddof},
      std::array<const EagerTensor*, 1>{&cx}, std::move(out));
}

#define TENSORA_REDUCE_METHOD(m) static_cast<ReduceMethod>(&Tensor::m)
const ReductionEntry kSum{"sum", TENSORA_REDUCE_METHOD(sum), ad::ReduceKind::Sum, policy("sum")};
const ReductionEntry kProd{"prod", TENSORA_REDUCE_METHOD(prod), ad::ReduceKind::Prod,
                           policy("prod")};
const ReductionEntry kMean{"mean", TENSORA_REDUCE_METHOD(mean), ad::ReduceKind::Mean,
                           policy("mean")};
const ReductionEntry kMax{"max", TENSORA_REDUCE_METHOD(max), ad::ReduceKind::Max, policy("max")};
const ReductionEntry kMin{"min", TENSORA_REDUCE_METHOD(min), ad::ReduceKind::Min, policy("min")};
const ReductionEntry kLogsumexp{"logsumexp", TENSORA_REDUCE_METHOD(logsumexp),
                                ad::ReduceKind::Logsumexp, policy("logsumexp")};
const ReductionEntry kVar{"var", TENSORA_REDUCE_METHOD(var), ad::ReduceKind::Var, policy("var")};
const ReductionEntry kStd{"std", TENSORA_REDUCE_METHOD(std), ad::ReduceKind::Std, policy("std")};
const ReductionEntry kAllReduction{"all", TENSORA_REDUCE_METHOD(all), std::nullopt, policy("all")};
const ReductionEntry kAnyReduction{"any", TENSORA_REDUCE_METHOD(any), std::nullopt, policy("any")};
#undef TENSORA_REDUCE_METHOD

}  // namespace

#define TENSORA_EAGER_REDUCE(name, entry)                                                   \
  EagerTensor EagerSession::name(const T& x, Axes axes, ReduceOptions options, Loc where) { \
    return reduce(*this, entry, x, std::move(axes), false, options, where);                 \
  }                                                                                         \
  EagerTensor EagerSession::name(const T& x, Loc where) {                                   \
    return reduce(*this, entry, x, {}, true, {}, where);                                    \
  }
TENSORA_EAGER_REDUCE(sum, kSum)
TENSORA_EAGER_REDUCE(prod, kProd)
TENSORA_EAGER_REDUCE(mean, kMean)
TENSORA_EAGER_REDUCE(max, kMax)
TENSORA_EAGER_REDUCE(min, kMin)
TENSORA_EAGER_REDUCE(logsumexp, kLogsumexp)
TENSORA_EAGER_REDUCE(var, kVar)
TENSORA_EAGER_REDUCE(std, kStd)
TENSORA_EAGER_REDUCE(all, kAllReduction)
TENSORA_EAGER_REDUCE(any, kAnyReduction)
#undef TENSORA_EAGER_REDUCE

EagerTensor EagerSession::argmax(const T& x, std::int64_t axis, Loc where) {
  check_inputs("argmax", engine_, {&x}, where);
  return constant_node(x.value().argmax(axis, engine_, where));
}
EagerTensor EagerSession::argmin(const T& x, std::int64_t axis, Loc where) {
  check_inputs("argmin", engine_, {&x}, where);
  return constant_node(x.value().argmin(axis, engine_, where));
}

EagerTensor EagerSession::cumsum(const T& x, std::int64_t axis, Loc where) {
  check_inputs("cumsum", engine_, {&x}, where);
  const EagerTensor cx =
      convert_to(x, plan_target(policy("cumsum"), {&x}, engine_), engine_, where);
  Tensor out = cx.value().cumsum(axis, engine_, where);
  return record(ad::CumsumRule{axis}, std::array<const EagerTensor*, 1>{&cx}, std::move(out));
}

EagerTensor EagerSession::cumprod(const T& x, std::int64_t axis, Loc where) {
  check_inputs("cumprod", engine_, {&x}, where);
  const EagerTensor cx =
      convert_to(x, plan_target(policy("cumprod"), {&x}, engine_), engine_, where);
  Tensor out = cx.value().cumprod(axis, engine_, where);
  return record(ad::CumprodRule{axis}, std::array<const EagerTensor*, 1>{&cx}, std::move(out));
}

// 1-D operands are lifted to matrices (recorded reshapes) so the rule sees rank >= 2 only.
EagerTensor EagerSession::matmul(const T& a, const T& b, Loc where) {
  check_inputs("matmul", engine_, {&a, &b}, where);
  const DType target = plan_target(policy("matmul"), {&a, &b}, engine_);
  EagerTensor ca = convert_to(a, target, engine_, where);
  EagerTensor cb = convert_to(b, target, engine_, where);
  const bool a_vec = ca.value().rank() == 1;
  const bool b_vec = cb.value().rank() == 1;
  if (a_vec) ca = unsqueeze(ca, 0, where);
  if (b_vec) cb = unsqueeze(cb, 1, where);
  Tensor out = ca.value().matmul(cb.value(), engine_, where);
  EagerTensor r =
      record(ad::MatmulRule{}, std::array<const EagerTensor*, 2>{&ca, &cb}, std::move(out));
  if (!a_vec && !b_vec) return r;
  Shape shape = r.shape();
  if (b_vec) shape.pop_back();
  if (a_vec) shape.erase(shape.end() - (b_vec ? 1 : 2));
  return reshape(r, shape, where);
}

// Recorded as an einsum over integer labels, so dot_general and einsum share one rule.
EagerTensor EagerSession::dot_general(const T& a, const T& b, DotGeneralConfig config, Loc where) {
  check_inputs("dot_general", engine_, {&a, &b}, where);
  const DType target = plan_target(policy("dot_general"), {&a, &b}, engine_);
  const EagerTensor ca = convert_to(a, target, engine_, where);
  const EagerTensor cb = convert_to(b, target, engine_, where);
  Tensor out = ca.value().dot_general(cb.value(), config, engine_, where);  // validates config
  const auto ra = ca.value().rank(), rb = cb.value().rank();
  auto norm = [](std::vector<std::int64_t>& v, std::int64_t rank) {
    for (auto& d : v) d = ad::normalize_axis(d, rank);
  };
  norm(config.lhs_batch_dims, ra);
  norm(config.lhs_contracting_dims, ra);
  norm(config.rhs_batch_dims, rb);
  norm(config.rhs_contracting_dims, rb);
  ad::Labels la(static_cast<std::size_t>(ra)), lb(static_cast<std::size_t>(rb), -1);
  for (std::int64_t d = 0; d < ra; ++d) la[static_cast<std::size_t>(d)] = d;
  for (std::size_t i = 0; i < config.rhs_batch_dims.size(); ++i)
    lb[static_cast<std::size_t>(config.rhs_batch_dims[i])] = config.lhs_batch_dims[i];
  for (std::size_t i = 0; i < config.rhs_contracting_dims.size(); ++i)
    lb[static_cast<std::size_t>(config.rhs_contracting_dims[i])] = config.lhs_contracting_dims[i];
  ad::Labels outl(config.lhs_batch_dims.begin(), config.lhs_batch_dims.end());
  auto listed = [](const std::vector<std::int64_t>& v, std::int64_t d) {
    return std::find(v.begin(), v.end(), d) != v.end();
  };
  for (std::int64_t d = 0; d < ra; ++d)
    if (!listed(config.lhs_batch_dims, d) && !listed(config.lhs_contracting_dims, d))
      outl.push_back(d);
  std::int64_t next = ra;
  for (auto& l : lb)
    if (l < 0) {
      l = next++;
      outl.push_back(l);
    }
  return record(ad::EinsumRule{{la, lb}, outl}, std::array<const EagerTensor*, 2>{&ca, &cb},
                std::move(out));
}

EagerTensor EagerSession::einsum(std::string_view subscripts, std::vector<T> operands, Loc where) {
  if (operands.empty())
    check::fail_invalid("einsum", "needs at least one operand", "operands", where);
  for (const auto& x : operands) check_inputs("einsum", engine_, {&x}, where);
  LatticeType j = operands.front().dtype();
  for (const auto& x : operands) j = join(j, x.dtype());
  const DType target = apply_policy(policy("einsum").accepts, j, engine_.device());
  std::vector<EagerTensor> converted;
  std::vector<Tensor> values;
  std::vector<Shape> shapes;
  for (const auto& x : operands) {
    converted.push_back(convert_to(x, target, engine_, where));
    values.push_back(converted.back().value());
    shapes.push_back(values.back().shape());
  }
  const EinsumPath path = einsum_path(subscripts, shapes, where);
  // An operand that repeats a label (ii, iij) and needs a gradient takes its diagonal first, as
  // recorded diagonal() ops (ad::take_repeated_labels).
  std::vector<ad::Labels> inputs = path.inputs;
  bool rewritten = false;
  for (std::size_t i = 0; i < converted.size(); ++i) {
    if (!converted[i].requires_grad() || !grad_mode()) continue;
    rewritten = ad::take_repeated_labels(inputs[i], [&](std::int64_t p, std::int64_t q) {
                  converted[i] = diagonal(converted[i], 0, p, q, where);
                  values[i] = converted[i].value();
                }) || rewritten;
  }
  Tensor out = rewritten ? tensora::einsum(inputs, path.output, std::move(values), engine_, where)
                         : tensora::einsum(path, std::move(values), engine_, where);
  return record_n(ad::EinsumRule{inputs, path.output}, converted, std::move(out));
}

}  // namespace tensora
