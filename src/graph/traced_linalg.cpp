// The differentiable linalg functions on traced tensors (tensora/linalg.hpp): the same
// promotion as eager (visible convert nodes), then one node per function whose shape and dtype
// are inferred here from the operands, which runs the direct function and carries its rule
// (ad/linalg_rules.hpp). The factors the rules need (eigenvectors, singular vectors) are nodes
// of their own, without a rule.
#include "ad/linalg_rules.hpp"
#include "graph/graph_builder.hpp"
#include "ops/lapack_dtypes.hpp"
#include "ops/linalg_spec.hpp"
#include "tensora/linalg.hpp"
#include "tensora/traced.hpp"

namespace tensora {

namespace graph_detail {

namespace {

using linalg_detail::batch_of;
constexpr auto joined = linalg_detail::with_tail;

TracedTensor node(std::string op, std::string attrs, std::vector<const TracedTensor*> ins, DType dtype, Shape shape,
                  Exec exec, std::shared_ptr<const Rule> rule, Loc where) {
  Node n;
  n.op = std::move(op);
  n.attrs = std::move(attrs);
  n.dtype = dtype;
  n.shape = std::move(shape);
  n.device = ins[0]->device();
  n.where = where;
  for (const TracedTensor* t : ins) n.inputs.push_back(t->node());
  n.exec = std::move(exec);
  n.rule = std::move(rule);
  return make_traced(std::move(n));
}

}  // namespace

TracedTensor linalg_factor_node(const TracedTensor& a, LinalgFactor factor, bool upper, Loc where) {
  const Shape& s = a.shape();
  const std::int64_t m = s[s.size() - 2], n = s.back(), k = std::min(m, n);
  static constexpr const char* kNames[] = {"linalg.eigh_vectors", "linalg.svd_u", "linalg.svd_vh"};
  const Shape shape = factor == LinalgFactor::EighVectors ? s
                      : factor == LinalgFactor::SvdU      ? joined(batch_of(s), {m, k})
                                                          : joined(batch_of(s), {k, n});
  return node(kNames[static_cast<int>(factor)], upper ? "upper" : "", {&a}, a.dtype(), shape,
              [factor, upper, where](std::span<const Tensor> in, Engine& e) {
                switch (factor) {
                  case LinalgFactor::EighVectors: return linalg::eigh(in[0], {.upper = upper}, e, where).eigenvectors;
                  case LinalgFactor::SvdU: return linalg::svd(in[0], e, where).u;
                  case LinalgFactor::SvdVh: return linalg::svd(in[0], e, where).vh;
                }
                return Tensor();
              },
              nullptr, where);
}

}  // namespace graph_detail

namespace linalg {

using namespace graph_detail;  // NOLINT: this layer's node factories

namespace {

std::pair<TracedTensor, TracedTensor> prepare2(std::string_view op, const TracedTensor& a, const TracedTensor& b,
                                               Loc where) {
  check_operands(op, {&a, &b}, where);
  const DType target =
      promoted_to_lapack_dtype(promote_types(a.dtype(), b.dtype(), a.device()), a.device().settings().float_dtype);
  return {convert_to(a, target, where), convert_to(b, target, where)};
}

// The batch both operands broadcast to, with b's matrix extents; b checked against a (its rows,
// or its columns for a solve from the right), as the direct functions check it.
Shape solve_shape(const char* op, const TracedTensor& a, const TracedTensor& b, bool rows, Loc where) {
  linalg_detail::check_square(op, "a", a.shape(), a.dtype(), where);
  linalg_detail::check_matrix(op, "b", b.shape(), b.dtype(), where);
  linalg_detail::check_rhs(op, a.shape(), b.shape(), rows, where);
  return joined(broadcast_shapes(batch_of(a.shape()), batch_of(b.shape()), op, where),
                {b.shape()[b.shape().size() - 2], b.shape().back()});
}

}  // namespace

TracedTensor solve(const TracedTensor& a, const TracedTensor& b, Loc where) {
  auto [pa, pb] = prepare2("solve", a, b, where);
  const bool vector = linalg_detail::vector_rhs(pa.shape(), pb.shape());
  const TracedTensor m = vector ? pb.unsqueeze(-1, where) : pb;
  const Shape shape = solve_shape("solve", pa, m, true, where);
  TracedTensor x = node("linalg.solve", "", {&pa, &m}, pa.dtype(), shape,
                        [where](std::span<const Tensor> in, Engine& e) { return linalg::solve(in[0], in[1], e, where); },
                        rule_of(ad::SolveRule{}), where);
  return vector ? x.squeeze({-1}, where) : x;
}

TracedTensor solve_triangular(const TracedTensor& a, const TracedTensor& b, TriangularOptions o, Loc where) {
  auto [pa, pb] = prepare2("solve_triangular", a, b, where);
  Shape shape = solve_shape("solve_triangular", pa, pb, o.left, where);
  const std::string attrs = std::string(o.upper ? "upper" : "lower") + (o.left ? " left" : " right") +
                            (o.unit_diagonal ? " unit_diagonal" : "");
  return node("linalg.solve_triangular", attrs, {&pa, &pb}, pa.dtype(), shape,
              [o, where](std::span<const Tensor> in, Engine& e) { return linalg::solve_triangular(in[0], in[1], o, e, where); },
              rule_of(ad::SolveTriangularRule{o}), where);
}

TracedTensor cholesky(const TracedTensor& a, Loc where) { return cholesky(a, CholeskyOptions{}, where); }
TracedTensor cholesky(const TracedTensor& a, CholeskyOptions o, Loc where) {
  const TracedTensor x = lapack_operand("cholesky", a, where);
  linalg_detail::check_square("cholesky", "a", x.shape(), x.dtype(), where);
  return node("linalg.cholesky", o.upper ? "upper" : "lower", {&x}, x.dtype(), x.shape(),
              [o, where](std::span<const Tensor> in, Engine& e) { return linalg::cholesky(in[0], o, e, where); },
              rule_of(ad::CholeskyRule{o.upper}), where);
}

TracedTensor det(const TracedTensor& a, Loc where) {
  const TracedTensor x = lapack_operand("det", a, where);
  linalg_detail::check_square("det", "a", x.shape(), x.dtype(), where);
  return node("linalg.det", "", {&x}, x.dtype(), batch_of(x.shape()),
              [where](std::span<const Tensor> in, Engine& e) { return linalg::det(in[0], e, where); },
              rule_of(ad::DetRule{}), where);
}

BasicSlogdet<TracedTensor> slogdet(const TracedTensor& a, Loc where) {
  const TracedTensor x = lapack_operand("slogdet", a, where);
  linalg_detail::check_square("slogdet", "a", x.shape(), x.dtype(), where);
  TracedTensor sign = node("linalg.slogdet_sign", "", {&x}, x.dtype(), batch_of(x.shape()),
                           [where](std::span<const Tensor> in, Engine& e) { return linalg::slogdet(in[0], e, where).sign; },
                           nullptr, where);
  TracedTensor logabs = node(
      "linalg.slogdet_logabsdet", "", {&x}, linalg_detail::real_of(x.dtype()), batch_of(x.shape()),
      [where](std::span<const Tensor> in, Engine& e) { return linalg::slogdet(in[0], e, where).logabsdet; },
      rule_of(ad::LogAbsDetRule{}), where);
  return {sign, logabs};
}

TracedTensor inv(const TracedTensor& a, Loc where) {
  const TracedTensor x = lapack_operand("inv", a, where);
  linalg_detail::check_square("inv", "a", x.shape(), x.dtype(), where);
  const TracedTensor eye = TracedTensor::constant(
      Tensor::eye(x.shape().back(), {x.device(), x.dtype()}, where).broadcast_to(x.shape(), where).duplicate(where));
  return solve(x, eye, where);
}

TracedTensor eigvalsh(const TracedTensor& a, Loc where) { return eigvalsh(a, EighOptions{}, where); }
TracedTensor eigvalsh(const TracedTensor& a, EighOptions o, Loc where) {
  const TracedTensor x = lapack_operand("eigvalsh", a, where);
  linalg_detail::check_square("eigvalsh", "a", x.shape(), x.dtype(), where);
  return node("linalg.eigvalsh", o.upper ? "upper" : "lower", {&x}, linalg_detail::real_of(x.dtype()),
              joined(batch_of(x.shape()), {x.shape().back()}),
              [o, where](std::span<const Tensor> in, Engine& e) { return linalg::eigvalsh(in[0], o, e, where); },
              rule_of(ad::EigvalshRule{o.upper}), where);
}

TracedTensor svdvals(const TracedTensor& a, Loc where) {
  const TracedTensor x = lapack_operand("svdvals", a, where);
  linalg_detail::check_matrix("svdvals", "a", x.shape(), x.dtype(), where);
  const std::int64_t k = std::min(x.shape()[x.shape().size() - 2], x.shape().back());
  return node("linalg.svdvals", "", {&x}, linalg_detail::real_of(x.dtype()), joined(batch_of(x.shape()), {k}),
              [where](std::span<const Tensor> in, Engine& e) { return linalg::svdvals(in[0], e, where); },
              rule_of(ad::SvdvalsRule{}), where);
}

}  // namespace linalg
}  // namespace tensora
