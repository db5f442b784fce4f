// Traced reductions and scans: inference by the direct ops' own checks (ops/inference.hpp), the
// eager promotion plan, and the eager reduction rules.
#include "ad/normalization_rules.hpp"
#include "ad/reduction_rules.hpp"
#include "core/checks.hpp"
#include "graph/graph_builder.hpp"
#include "direct/direct.hpp"
#include "ops/inference.hpp"
#include "tensora/eager.hpp"

namespace tensora {

namespace graph_detail {

namespace {

std::string options_text(const Axes& axes, const ReduceOptions& o) {
  std::string s = "axes=" + axes_text(axes);
  if (o.keepdims) s += ", keepdims";
  if (o.ddof != 0) s += ", ddof=" + Scalar(o.ddof).to_string();
  return s;
}

// The node of a one-input op whose result `infer` worked out.
Node one_input(std::string_view name, std::string attrs, const infer::Result& res, const TracedTensor& x, Loc where) {
  Node n;
  n.op = std::string(name);
  n.attrs = std::move(attrs);
  n.dtype = res.dtype;
  n.shape = res.shape;
  n.device = x.device();
  n.where = where;
  n.inputs = {x.node()};
  return n;
}

// The reduction of an already promoted x.
TracedTensor reduce_node(Reduction op, const TracedTensor& x, Axes axes, ReduceOptions options, Loc where) {
  const ReductionInfo& r = info(op);
  Node n = one_input(r.name, options_text(axes, options), infer::reduction(op, meta_of(x), axes, options, where),
                     x, where);
  n.exec = [op, axes, options, where](std::span<const Tensor> in, Engine& e) {
    return direct::reduce(op, in[0], axes, options, e, where);
  };
  if (r.ad != AdRule::None && is_inexact(n.dtype))
    n.rule = rule_of(ad::ReduceRule{op, ad::reduced_axes(axes, false, x.rank()), options.keepdims, options.ddof});
  return make_traced(std::move(n));
}

TracedTensor reduce(Reduction op, const TracedTensor& x, Axes axes, bool all_axes, ReduceOptions options, Loc where) {
  const ReductionInfo& r = info(op);
  check_operands(r.name, {&x}, where);
  const TracedTensor cx = convert_to(x, eager_input_promotion_plan(r.name, {x.dtype()}, x.device())[0], where);
  if (all_axes) {
    axes.clear();
    for (std::int64_t d = 0; d < cx.rank(); ++d) axes.push_back(d);
  }
  return reduce_node(op, cx, std::move(axes), options, where);
}

TracedTensor reduce_axis(Reduction op, const TracedTensor& x, std::int64_t axis, Loc where) {
  const ReductionInfo& r = info(op);
  check_operands(r.name, {&x}, where);
  Node n = one_input(r.name, "axis=" + std::to_string(axis),
                     infer::reduction(op, meta_of(x), {axis}, {}, where), x, where);
  n.exec = [op, axis, where](std::span<const Tensor> in, Engine& e) {
    return direct::reduce_axis(op, in[0], axis, {}, e, where);
  };
  return make_traced(std::move(n));
}

TracedTensor scan(Reduction op, const TracedTensor& x, std::int64_t axis, Loc where) {
  const ReductionInfo& r = info(op);
  check_operands(r.name, {&x}, where);
  const TracedTensor cx = convert_to(x, eager_input_promotion_plan(r.name, {x.dtype()}, x.device())[0], where);
  Node n = one_input(r.name, "axis=" + std::to_string(axis),
                     infer::reduction(op, meta_of(cx), {axis}, {}, where), cx, where);
  n.exec = [op, axis, where](std::span<const Tensor> in, Engine& e) { return direct::scan(op, in[0], axis, e, where); };
  if (is_inexact(n.dtype)) {
    if (op == Reduction::CumProd) n.rule = rule_of(ad::CumprodRule{axis});
    else n.rule = rule_of(ad::CumsumRule{axis});
  }
  return make_traced(std::move(n));
}

TracedTensor axis_op(AxisOp op, const TracedTensor& x, std::int64_t axis, Loc where) {
  const ElementwiseInfo& r = info(op);
  check_operands(r.name, {&x}, where);
  const TracedTensor cx = convert_to(x, eager_input_promotion_plan(r.name, {x.dtype()}, x.device())[0], where);
  infer::elementwise_accepts(r, cx.dtype(), where);
  (void)check::axis(r.name, axis, cx.rank(), where);
  Node n = one_input(r.name, "axis=" + std::to_string(axis), {cx.shape(), cx.dtype()}, cx, where);
  n.exec = [op, axis, where](std::span<const Tensor> in, Engine& e) { return direct::axis_op(op, in[0], axis, e, where); };
  n.rule = rule_of(ad::AxisOpRule{op, axis});
  return make_traced(std::move(n));
}

}  // namespace

TracedTensor sum_node(const TracedTensor& x, Axes axes, bool keepdims, Loc where) {
  return reduce_node(Reduction::Sum, x, std::move(axes), ReduceOptions{keepdims, 0}, where);
}

}  // namespace graph_detail

using namespace graph_detail;  // NOLINT: this file is the layer's front

#define TENSORA_TRACED_REDUCTION_Axes(name, Op)                                        \
  TracedTensor TracedTensor::name(Axes axes, ReduceOptions options, Loc where) const { \
    return reduce(Reduction::Op, *this, std::move(axes), false, options, where);      \
  }                                                                                    \
  TracedTensor TracedTensor::name(Loc where) const { return reduce(Reduction::Op, *this, {}, true, {}, where); }
#define TENSORA_TRACED_REDUCTION_Axis(name, Op)                           \
  TracedTensor TracedTensor::name(std::int64_t axis, Loc where) const {   \
    return reduce_axis(Reduction::Op, *this, axis, where);               \
  }
#define TENSORA_TRACED_REDUCTION_Scan(name, Op)                           \
  TracedTensor TracedTensor::name(std::int64_t axis, Loc where) const {   \
    return scan(Reduction::Op, *this, axis, where);                      \
  }
#define TENSORA_TRACED_REDUCTION(name, Op, accepts, result, ad, form, ...) TENSORA_TRACED_REDUCTION_##form(name, Op)
TENSORA_REDUCTIONS(TENSORA_TRACED_REDUCTION)
#undef TENSORA_TRACED_REDUCTION
#undef TENSORA_TRACED_REDUCTION_Axes
#undef TENSORA_TRACED_REDUCTION_Axis
#undef TENSORA_TRACED_REDUCTION_Scan
#define TENSORA_TRACED_AXIS_OP(name, Op, ...)                             \
  TracedTensor TracedTensor::name(std::int64_t axis, Loc where) const {   \
    return axis_op(AxisOp::Op, *this, axis, where);                      \
  }
TENSORA_AXIS_OPS(TENSORA_TRACED_AXIS_OP)
#undef TENSORA_TRACED_AXIS_OP

}  // namespace tensora
