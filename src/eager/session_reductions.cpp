// Reductions and contractions of the eager session.
#include "ad/contraction_rules.hpp"
#include "ad/normalization_rules.hpp"
#include "ad/reduction_rules.hpp"
#include "eager/session_support.hpp"
#include "direct/direct.hpp"

namespace tensora {

using namespace eager_detail;  // NOLINT: the session is this layer's front

namespace {

// One function per call shape of the reduction rows; the row gives the policy and the rule.
EagerTensor reduce(EagerSession& s, Reduction op, const EagerTensor& x, std::vector<std::int64_t> axes, bool all_axes,
                   ReduceOptions options, SourceLocation where) {
  const ReductionInfo& r = info(op);
  check_inputs(r.name, s.engine(), {&x}, where);
  const EagerTensor cx = convert_to(x, plan_target({r.accepts, 0}, {&x}, s.engine()), s.engine(), where);
  const auto rank = cx.value().rank();
  if (all_axes) {
    axes.clear();
    for (std::int64_t d = 0; d < rank; ++d) axes.push_back(d);
  }
  Tensor out = direct::reduce(op, cx.value(), axes, options, s.engine(), where);
  if (r.ad == AdRule::None) return constant_node(std::move(out));
  return record(ad::ReduceRule{op, ad::reduced_axes(axes, false, rank), options.keepdims, options.ddof},
                std::array<const EagerTensor*, 1>{&cx}, std::move(out));
}

// argmax / argmin: indices, never differentiable, no promotion (the direct op checks the dtype).
EagerTensor reduce_axis(EagerSession& s, Reduction op, const EagerTensor& x, std::int64_t axis, SourceLocation where) {
  check_inputs(info(op).name, s.engine(), {&x}, where);
  return constant_node(direct::reduce_axis(op, x.value(), axis, {}, s.engine(), where));
}

EagerTensor scan(EagerSession& s, Reduction op, const EagerTensor& x, std::int64_t axis, SourceLocation where) {
  const ReductionInfo& r = info(op);
  check_inputs(r.name, s.engine(), {&x}, where);
  const EagerTensor cx = convert_to(x, plan_target({r.accepts, 0}, {&x}, s.engine()), s.engine(), where);
  Tensor out = direct::scan(op, cx.value(), axis, s.engine(), where);
  const std::array<const EagerTensor*, 1> in{&cx};
  if (op == Reduction::CumProd) return record(ad::CumprodRule{axis}, in, std::move(out));
  return record(ad::CumsumRule{axis}, in, std::move(out));
}

EagerTensor axis_op(EagerSession& s, AxisOp op, const EagerTensor& x, std::int64_t axis, SourceLocation where) {
  const ElementwiseInfo& r = info(op);
  check_inputs(r.name, s.engine(), {&x}, where);
  const EagerTensor cx = convert_to(x, plan_target({r.accepts, 0}, {&x}, s.engine()), s.engine(), where);
  Tensor out = direct::axis_op(op, cx.value(), axis, s.engine(), where);
  return record(ad::AxisOpRule{op, axis}, std::array<const EagerTensor*, 1>{&cx}, std::move(out));
}

}  // namespace

#define TENSORA_EAGER_REDUCTION_Axes(name, Op)                                              \
  EagerTensor EagerSession::name(const T& x, Axes axes, ReduceOptions options, Loc where) { \
    return reduce(*this, Reduction::Op, x, std::move(axes), false, options, where);         \
  }                                                                                         \
  EagerTensor EagerSession::name(const T& x, Loc where) {                                   \
    return reduce(*this, Reduction::Op, x, {}, true, {}, where);                            \
  }
#define TENSORA_EAGER_REDUCTION_Axis(name, Op)                                \
  EagerTensor EagerSession::name(const T& x, std::int64_t axis, Loc where) {  \
    return reduce_axis(*this, Reduction::Op, x, axis, where);                 \
  }
#define TENSORA_EAGER_REDUCTION_Scan(name, Op)                                \
  EagerTensor EagerSession::name(const T& x, std::int64_t axis, Loc where) {  \
    return scan(*this, Reduction::Op, x, axis, where);                        \
  }
#define TENSORA_EAGER_REDUCTION(name, Op, accepts, result, ad, form, ...) TENSORA_EAGER_REDUCTION_##form(name, Op)
TENSORA_REDUCTIONS(TENSORA_EAGER_REDUCTION)
#undef TENSORA_EAGER_REDUCTION
#undef TENSORA_EAGER_REDUCTION_Axes
#undef TENSORA_EAGER_REDUCTION_Axis
#undef TENSORA_EAGER_REDUCTION_Scan
#define TENSORA_EAGER_AXIS_OP(name, Op, ...)                                  \
  EagerTensor EagerSession::name(const T& x, std::int64_t axis, Loc where) {  \
    return axis_op(*this, AxisOp::Op, x, axis, where);                        \
  }
TENSORA_AXIS_OPS(TENSORA_EAGER_AXIS_OP)
#undef TENSORA_EAGER_AXIS_OP

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
