// Traced elementwise ops, select, clamp, convert/cast and the operators. Promotion follows the
// eager plan (eager_input_promotion_plan / eager_scalar_promotion) with visible convert nodes.
#include "ad/elementwise_rules.hpp"
#include "core/checks.hpp"
#include "frontdoor/promotion.hpp"
#include "direct/direct.hpp"
#include "graph/graph_builder.hpp"
#include "ops/inference.hpp"
#include "ops/validate.hpp"
#include "tensora/eager.hpp"

namespace tensora {

namespace graph_detail {

namespace {

Node elementwise(OpKind kind, std::string_view op, DType dtype, Shape shape, Device device, Loc where,
                 std::vector<NodePtr> inputs) {
  Node n;
  n.kind = kind;
  n.op = std::string(op);
  n.dtype = dtype;
  n.shape = std::move(shape);
  n.device = device;
  n.where = where;
  n.inputs = std::move(inputs);
  return n;
}

}  // namespace

TracedTensor unary_node(UnaryOp op, const TracedTensor& x, Loc where) {
  const auto& inf = info(op);
  check_operands(inf.name, {&x}, where);
  infer::elementwise_accepts(inf, x.dtype(), where);
  Node n = elementwise(OpKind::Unary, inf.name, result_dtype(inf, x.dtype()), x.shape(), x.device(), where,
                       {x.node()});
  n.unary = op;
  n.exec = [op, where](std::span<const Tensor> in, Engine& e) { return direct::unary(op, in[0], e, where); };
  if (ad::differentiable(op, x.dtype())) n.rule = rule_of(ad::UnaryRule{op});
  return make_traced(std::move(n));
}

TracedTensor binary_node(BinaryOp op, const TracedTensor& a, const TracedTensor& b, Loc where) {
  const auto& inf = info(op);
  check_operands(inf.name, {&a, &b}, where);
  infer::Result r = infer::elementwise_binary(op, a.dtype(), b.dtype(), a.shape(), b.shape(), where);
  Node n = elementwise(OpKind::Binary, inf.name, r.dtype, std::move(r.shape), a.device(), where, {a.node(), b.node()});
  n.binary = op;
  n.exec = [op, where](std::span<const Tensor> in, Engine& e) {
    return direct::binary(op, in[0], in[1], e, where);
  };
  if (ad::differentiable(op, r.dtype)) n.rule = rule_of(ad::BinaryRule{op});
  return make_traced(std::move(n));
}

TracedTensor select_node(const TracedTensor& pred, const TracedTensor& a, const TracedTensor& b, Loc where) {
  check_operands("select", {&pred, &a, &b}, where);
  Shape shape = infer::select(pred.dtype(), a.dtype(), b.dtype(), pred.shape(), a.shape(), b.shape(), where);
  Node n = elementwise(OpKind::Select, "select", a.dtype(), std::move(shape), a.device(), where,
                       {pred.node(), a.node(), b.node()});
  n.exec = [where](std::span<const Tensor> in, Engine& e) { return tensora::select(in[0], in[1], in[2], e, where); };
  if (is_inexact(a.dtype())) n.rule = rule_of(ad::SelectRule{});
  return make_traced(std::move(n));
}

TracedTensor convert_node(const TracedTensor& x, DType dtype, Loc where) {
  check_operands("convert", {&x}, where);
  check::lossless_conversion(x.dtype(), dtype, where);
  Node n = elementwise(OpKind::Convert, "convert", dtype, x.shape(), x.device(), where, {x.node()});
  n.attrs = "to=" + std::string(name(dtype));
  n.exec = [dtype, where](std::span<const Tensor> in, Engine& e) { return in[0].convert(dtype, e, where); };
  if (is_inexact(dtype) && is_inexact(x.dtype())) n.rule = rule_of(ad::CastRule{});
  return make_traced(std::move(n));
}

TracedTensor cast_node(const TracedTensor& x, DType dtype, Loc where) {
  check_operands("cast", {&x}, where);
  if (!x.device().supports(dtype))
    check::fail_unsupported_dtype("cast", dtype, "not supported on " + x.device().to_string(), where);
  Node n = elementwise(OpKind::Cast, "cast", dtype, x.shape(), x.device(), where, {x.node()});
  n.attrs = "to=" + std::string(name(dtype));
  n.exec = [dtype, where](std::span<const Tensor> in, Engine& e) { return in[0].cast(dtype, e, where); };
  if (is_inexact(dtype) && is_inexact(x.dtype())) n.rule = rule_of(ad::CastRule{});
  return make_traced(std::move(n));
}

namespace {

TracedTensor promoted_binary(BinaryOp op, const TracedTensor& a, const TracedTensor& b, Loc where) {
  const auto& inf = info(op);
  check_operands(inf.name, {&a, &b}, where);
  const DType target = eager_input_promotion_plan(inf.name, {a.dtype(), b.dtype()}, a.device())[0];
  return binary_node(op, convert_to(a, target, where), convert_to(b, target, where), where);
}

TracedTensor scalar_binary(BinaryOp op, const TracedTensor& a, const Scalar& s, bool scalar_left, Loc where) {
  const auto& inf = info(op);
  check_operands(inf.name, {&a}, where);
  const DType target = eager_scalar_promotion(inf.name, a.dtype(), s.kind(), a.device());
  const TracedTensor c = scalar_constant(inf.name, s, target, a.device(), where);
  const TracedTensor ca = convert_to(a, target, where);
  return scalar_left ? binary_node(op, c, ca, where) : binary_node(op, ca, c, where);
}

TracedTensor promoted_unary(UnaryOp op, const TracedTensor& x, Loc where) {
  const auto& inf = info(op);
  check_operands(inf.name, {&x}, where);
  const DType target = eager_input_promotion_plan(inf.name, {x.dtype()}, x.device())[0];
  return unary_node(op, convert_to(x, target, where), where);
}

}  // namespace

}  // namespace graph_detail

using namespace graph_detail;  // NOLINT: this file is the layer's front

#define TENSORA_TRACED_BINARY(name, Op, ...)                                    \
  TracedTensor TracedTensor::name(const TracedTensor& other, Loc where) const { \
    return promoted_binary(BinaryOp::Op, *this, other, where);                 \
  }                                                                             \
  TracedTensor TracedTensor::name(Scalar other, Loc where) const {              \
    return scalar_binary(BinaryOp::Op, *this, other, false, where);            \
  }
#define TENSORA_TRACED_UNARY(name, Op, ...) \
  TracedTensor TracedTensor::name(Loc where) const { return promoted_unary(UnaryOp::Op, *this, where); }
TENSORA_BINARY_OPS(TENSORA_TRACED_BINARY)
TENSORA_UNARY_OPS(TENSORA_TRACED_UNARY)
#undef TENSORA_TRACED_BINARY
#undef TENSORA_TRACED_UNARY

TracedTensor TracedTensor::clamp(Scalar lo, Scalar hi, Loc where) const {
  check_operands("clamp", {this}, where);
  const auto accepts = frontdoor::policy("clamp").accepts;
  const DType t1 = frontdoor::scalar_target(accepts, dtype(), lo.kind(), device());
  const DType target = frontdoor::scalar_target(accepts, t1, hi.kind(), device());
  const TracedTensor x = convert_to(*this, target, where);
  infer::elementwise_accepts(info(BinaryOp::Maximum), target, where, "clamp");
  (void)validate::weak_scalar("clamp", lo, target, device(), where);  // the bounds must fit
  (void)validate::weak_scalar("clamp", hi, target, device(), where);
  Node n;
  n.op = "clamp";
  n.attrs = "lo=" + lo.to_string() + ", hi=" + hi.to_string();
  n.dtype = target;
  n.shape = shape();
  n.device = device();
  n.where = where;
  n.inputs = {x.node()};
  n.exec = [lo, hi, where](std::span<const Tensor> in, Engine& e) { return in[0].clamp(lo, hi, e, where); };
  if (is_inexact(target)) n.rule = rule_of(ad::ClampRule{lo, hi});
  return make_traced(std::move(n));
}

TracedTensor TracedTensor::clamp(const TracedTensor& lo, const TracedTensor& hi, Loc where) const {
  check_operands("clamp", {this, &lo, &hi}, where);
  return maximum(lo, where).minimum(hi, where);
}

TracedTensor TracedTensor::convert(DType dtype, Loc where) const {
  check_operands("convert", {this}, where);
  return convert_to(*this, dtype, where);
}

TracedTensor TracedTensor::cast(DType dtype, Loc where) const {
  check_operands("cast", {this}, where);
  return dtype == this->dtype() ? *this : cast_node(*this, dtype, where);
}

TracedTensor select(const TracedTensor& pred, const TracedTensor& a, const TracedTensor& b, SourceLocation where) {
  check_operands("select", {&pred, &a, &b}, where);
  const auto plan = eager_input_promotion_plan("select", {pred.dtype(), a.dtype(), b.dtype()}, a.device());
  return select_node(pred, convert_to(a, plan[1], where), convert_to(b, plan[2], where), where);
}

TracedTensor where(const TracedTensor& pred, const TracedTensor& a, const TracedTensor& b, SourceLocation loc) {
  return select(pred, a, b, loc);
}

TracedTensor operator+(const TracedTensor& a, const TracedTensor& b) { return a.add(b); }
TracedTensor operator-(const TracedTensor& a, const TracedTensor& b) { return a.sub(b); }
TracedTensor operator*(const TracedTensor& a, const TracedTensor& b) { return a.mul(b); }
TracedTensor operator/(const TracedTensor& a, const TracedTensor& b) { return a.div(b); }
TracedTensor operator+(const TracedTensor& a, Scalar b) { return a.add(b); }
TracedTensor operator-(const TracedTensor& a, Scalar b) { return a.sub(b); }
TracedTensor operator*(const TracedTensor& a, Scalar b) { return a.mul(b); }
TracedTensor operator/(const TracedTensor& a, Scalar b) { return a.div(b); }
TracedTensor operator+(Scalar a, const TracedTensor& b) { return scalar_binary(BinaryOp::Add, b, a, true, Loc::current()); }
TracedTensor operator-(Scalar a, const TracedTensor& b) { return scalar_binary(BinaryOp::Sub, b, a, true, Loc::current()); }
TracedTensor operator*(Scalar a, const TracedTensor& b) { return scalar_binary(BinaryOp::Mul, b, a, true, Loc::current()); }
TracedTensor operator/(Scalar a, const TracedTensor& b) { return scalar_binary(BinaryOp::Div, b, a, true, Loc::current()); }
TracedTensor operator-(const TracedTensor& x) { return x.neg(); }

}  // namespace tensora
