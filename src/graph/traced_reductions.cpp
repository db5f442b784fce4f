// Traced reductions and scans: inference by the direct ops' own checks (ops/inference.hpp), the
// eager promotion plan, and the eager reduction rules.
#include "ad/reduction_rules.hpp"
#include "graph/graph_builder.hpp"
#include "ops/inference.hpp"
#include "tensora/eager.hpp"

namespace tensora {

namespace graph_detail {

namespace {

using ReduceMethod = Tensor (Tensor::*)(std::vector<std::int64_t>, ReduceOptions, Engine&, SourceLocation) const;

struct ReductionEntry {
  const char* name;
  ReduceMethod method;
  std::optional<ad::ReduceKind> kind;  // none: no gradient (Bool results)
};

#define TENSORA_REDUCE_METHOD(m) static_cast<ReduceMethod>(&Tensor::m)
const ReductionEntry kSum{"sum", TENSORA_REDUCE_METHOD(sum), ad::ReduceKind::Sum};
const ReductionEntry kProd{"prod", TENSORA_REDUCE_METHOD(prod), ad::ReduceKind::Prod};
const ReductionEntry kMean{"mean", TENSORA_REDUCE_METHOD(mean), ad::ReduceKind::Mean};
const ReductionEntry kMax{"max", TENSORA_REDUCE_METHOD(max), ad::ReduceKind::Max};
const ReductionEntry kMin{"min", TENSORA_REDUCE_METHOD(min), ad::ReduceKind::Min};
const ReductionEntry kLogsumexp{"logsumexp", TENSORA_REDUCE_METHOD(logsumexp), ad::ReduceKind::Logsumexp};
const ReductionEntry kVar{"var", TENSORA_REDUCE_METHOD(var), ad::ReduceKind::Var};
const ReductionEntry kStd{"std", TENSORA_REDUCE_METHOD(std), ad::ReduceKind::Std};
const ReductionEntry kAllReduction{"all", TENSORA_REDUCE_METHOD(all), std::nullopt};
const ReductionEntry kAnyReduction{"any", TENSORA_REDUCE_METHOD(any), std::nullopt};
#undef TENSORA_REDUCE_METHOD

std::string options_text(const Axes& axes, const ReduceOptions& o) {
  std::string s = "axes=" + axes_text(axes);
  if (o.keepdims) s += ", keepdims";
  if (o.ddof != 0) s += ", ddof=" + std::to_string(o.ddof);
  return s;
}

// The node of a one-input op whose result `infer` worked out.
Node one_input(const char* name, std::string attrs, const infer::Result& res, const TracedTensor& x, Loc where) {
  Node n;
  n.op = name;
  n.attrs = std::move(attrs);
  n.dtype = res.dtype;
  n.shape = res.shape;
  n.device = x.device();
  n.where = where;
  n.inputs = {x.node()};
  return n;
}

// The reduction of an already promoted x.
TracedTensor reduce_node(const ReductionEntry& r, const TracedTensor& x, Axes axes, ReduceOptions options,
                         Loc where) {
  Node n = one_input(r.name, options_text(axes, options), infer::reduction(r.name, shape_proxy(x), axes, options, where),
                     x, where);
  n.exec = [method = r.method, axes, options, where](std::span<const Tensor> in, Engine& e) {
    return (in[0].*method)(axes, options, e, where);
  };
  if (r.kind && is_inexact(n.dtype))
    n.rule = rule_of(ad::ReduceRule{*r.kind, ad::reduced_axes(axes, false, x.rank()), options.keepdims, options.ddof});
  return make_traced(std::move(n));
}

TracedTensor reduce(const ReductionEntry& r, const TracedTensor& x, Axes axes, bool all_axes, ReduceOptions options,
                    Loc where) {
  check_operands(r.name, {&x}, where);
  const TracedTensor cx = convert_to(x, eager_input_promotion_plan(r.name, {x.dtype()}, x.device())[0], where);
  if (all_axes) {
    axes.clear();
    for (std::int64_t d = 0; d < cx.rank(); ++d) axes.push_back(d);
  }
  return reduce_node(r, cx, std::move(axes), options, where);
}

TracedTensor arg_reduce(const char* name, bool max, const TracedTensor& x, std::int64_t axis, Loc where) {
  check_operands(name, {&x}, where);
  Node n = one_input(name, "axis=" + std::to_string(axis), infer::reduction(name, shape_proxy(x), {axis}, {}, where),
                     x, where);
  n.exec = [max, axis, where](std::span<const Tensor> in, Engine& e) {
    return max ? in[0].argmax(axis, e, where) : in[0].argmin(axis, e, where);
  };
  return make_traced(std::move(n));
}

template <class R>
TracedTensor scan(const char* name, bool product, const TracedTensor& x, std::int64_t axis, Loc where) {
  check_operands(name, {&x}, where);
  const TracedTensor cx = convert_to(x, eager_input_promotion_plan(name, {x.dtype()}, x.device())[0], where);
  Node n = one_input(name, "axis=" + std::to_string(axis), infer::scan(name, shape_proxy(cx), axis, where), cx, where);
  n.exec = [product, axis, where](std::span<const Tensor> in, Engine& e) {
    return product ? in[0].cumprod(axis, e, where) : in[0].cumsum(axis, e, where);
  };
  if (is_inexact(n.dtype)) n.rule = rule_of(R{axis});
  return make_traced(std::move(n));
}

}  // namespace

TracedTensor sum_node(const TracedTensor& x, Axes axes, bool keepdims, Loc where) {
  return reduce_node(kSum, x, std::move(axes), ReduceOptions{keepdims, 0}, where);
}

}  // namespace graph_detail

using namespace graph_detail;  // NOLINT: this file is the layer's front

#define TENSORA_TRACED_REDUCE(name, entry)                                                  \
  TracedTensor TracedTensor::name(Axes axes, ReduceOptions options, Loc where) const {      \
    return reduce(entry, *this, std::move(axes), false, options, where);                    \
  }                                                                                         \
  TracedTensor TracedTensor::name(Loc where) const { return reduce(entry, *this, {}, true, {}, where); }
TENSORA_TRACED_REDUCE(sum, kSum)
TENSORA_TRACED_REDUCE(prod, kProd)
TENSORA_TRACED_REDUCE(mean, kMean)
TENSORA_TRACED_REDUCE(max, kMax)
TENSORA_TRACED_REDUCE(min, kMin)
TENSORA_TRACED_REDUCE(logsumexp, kLogsumexp)
TENSORA_TRACED_REDUCE(var, kVar)
TENSORA_TRACED_REDUCE(std, kStd)
TENSORA_TRACED_REDUCE(all, kAllReduction)
TENSORA_TRACED_REDUCE(any, kAnyReduction)
#undef TENSORA_TRACED_REDUCE

TracedTensor TracedTensor::argmax(std::int64_t axis, Loc where) const {
  return arg_reduce("argmax", true, *this, axis, where);
}
TracedTensor TracedTensor::argmin(std::int64_t axis, Loc where) const {
  return arg_reduce("argmin", false, *this, axis, where);
}
TracedTensor TracedTensor::cumsum(std::int64_t axis, Loc where) const {
  return scan<ad::CumsumRule>("cumsum", false, *this, axis, where);
}
TracedTensor TracedTensor::cumprod(std::int64_t axis, Loc where) const {
  return scan<ad::CumprodRule>("cumprod", true, *this, axis, where);
}

}  // namespace tensora
