// The differentiable linalg functions on traced tensors (tensora/linalg.hpp): the same
// promotion as eager (visible convert nodes), then one node per function whose shape and dtype
// are inferred here from the operands, which runs the direct function and carries its rule
// (ad/linalg_rules.hpp). The factors the rules need (eigenvectors, singular vectors) are nodes
// of their own, without a rule.
#include "ad/factorization_rules.hpp"
#include "ad/linalg_rules.hpp"
#include "core/checks.hpp"
#include "direct/direct.hpp"
#include "frontdoor/linalg_composites.hpp"
#include "frontdoor/linalg_factors.hpp"
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

namespace {

// The gauge check's rule: its value is its first input's.
struct PassFirstRule {
  template <class B, class V = typename B::Value>
  void vjp(B&, const ad::RuleArgs<V>&, const V& g, std::span<V> gin, const bool* needs) const {
    if (needs[0]) gin[0] = g;
  }
  template <class B, class V = typename B::Value>
  V jvp(B&, const ad::RuleArgs<V>&, std::span<const V> t) const {
    return t[0];
  }
};

}  // namespace

TracedTensor gauge_check_node(const TracedTensor& x, const TracedTensor& residual, const TracedTensor& scale,
                              std::string_view op, Loc where) {
  return node("linalg.gauge_check", std::string(op), {&x, &residual, &scale}, x.dtype(), x.shape(),
              [op = std::string(op), where](std::span<const Tensor> in, Engine& e) {
                frontdoor::check_phase_gauge(op, in[1], in[2], e, where);
                return in[0];
              },
              rule_of(PassFirstRule{}), where);
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

// A factorization as one node whose result is its factors packed (frontdoor/linalg_factors.hpp),
// and the factors as views of it.
template <class Rule, class Factor>
std::vector<TracedTensor> factor_nodes(const char* op, std::string attrs, const TracedTensor& x,
                                       const frontdoor::PackedLayout& layout, Factor factor, Rule rule, Loc where) {
  const TracedTensor packed =
      node(op, std::move(attrs), {&x}, layout.packed_dtype(x.dtype()), layout.packed_shape(),
           [layout, factor, dtype = layout.packed_dtype(x.dtype())](std::span<const Tensor> in, Engine& e) {
             return frontdoor::pack(layout, factor(in[0], e), dtype, e);
           },
           rule_of(std::move(rule)), where);
  GraphBuilder views{where, x.device()};
  return frontdoor::unpack(views, packed, layout);
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

BasicEigh<TracedTensor> eigh(const TracedTensor& a, Loc where) { return eigh(a, EighOptions{}, where); }
BasicEigh<TracedTensor> eigh(const TracedTensor& a, EighOptions o, Loc where) {
  const TracedTensor x = lapack_operand("eigh", a, where);
  linalg_detail::check_square("eigh", "a", x.shape(), x.dtype(), where);
  auto f = factor_nodes(
      "linalg.eigh", o.upper ? "upper" : "lower", x, frontdoor::eigh_layout(x.shape()),
      [o, where](const Tensor& in, Engine& e) {
        Eigh r = linalg::eigh(in, o, e, where);
        return std::vector<Tensor>{r.eigenvalues, r.eigenvectors};
      },
      ad::EighRule{o.upper, o.gap_epsilon}, where);
  return {f[0], f[1]};
}

BasicEig<TracedTensor> eig(const TracedTensor& a, Loc where) { return eig(a, EigOptions{}, where); }
BasicEig<TracedTensor> eig(const TracedTensor& a, EigOptions o, Loc where) {
  const TracedTensor x = lapack_operand("eig", a, where);
  linalg_detail::check_square("eig", "a", x.shape(), x.dtype(), where);
  auto f = factor_nodes(
      "linalg.eig", "", x, frontdoor::eig_layout(x.shape()),
      [o, where](const Tensor& in, Engine& e) {
        Eig r = linalg::eig(in, o, e, where);
        return std::vector<Tensor>{r.eigenvalues, r.eigenvectors};
      },
      ad::EigRule{o.gap_epsilon}, where);
  return {f[0], f[1]};
}

// The eigenvectors come along: the eigenvalues' rule needs them.
TracedTensor eigvals(const TracedTensor& a, Loc where) { return eig(a, where).eigenvalues; }

BasicLUFactor<TracedTensor> lu_factor(const TracedTensor& a, Loc where) {
  const TracedTensor x = lapack_operand("lu_factor", a, where);
  linalg_detail::check_matrix("lu_factor", "a", x.shape(), x.dtype(), where);
  const std::int64_t m = x.shape()[x.shape().size() - 2], k = std::min(m, x.shape().back());
  // The node packs p beside lu for the rule; the pivots are a node of their own, without a rule.
  auto f = factor_nodes(
      "linalg.lu_factor", "", x, frontdoor::lu_factor_layout(x.shape()),
      [m, where](const Tensor& in, Engine& e) {
        LUFactor r = linalg::lu_factor(in, e, where);
        return std::vector<Tensor>{direct::lu_permutation("lu_factor", r.pivots, m, in.dtype(), e, where), r.lu};
      },
      ad::LuRule{.packed = true}, where);
  // The pivots are read back from p, so the graph factors once.
  TracedTensor pivots = node("linalg.lu_pivots", "", {&f[0]}, DType::I32, joined(batch_of(x.shape()), {k}),
                             [k, where](std::span<const Tensor> in, Engine& e) {
                               return direct::lu_pivots_of_permutation(in[0], k, e, where);
                             },
                             nullptr, where);
  return {f[1], pivots};
}

TracedTensor lu_solve(const BasicLUFactor<TracedTensor>& f, const TracedTensor& b, Loc where) {
  const char* op = "lu_solve";
  check_operands(op, {&f.pivots}, where);
  auto [lu, pb] = prepare2(op, f.lu, b, where);
  linalg_detail::check_square(op, "lu", lu.shape(), lu.dtype(), where);
  const Shape want = joined(batch_of(lu.shape()), {lu.shape().back()});
  if (f.pivots.dtype() != DType::I32) check::fail_dtype_mismatch(op, DType::I32, f.pivots.dtype(), where);
  if (f.pivots.shape() != want)
    check::fail_shape(op, "pivots must have the shape of lu without its last axis", want, f.pivots.shape(), where);
  const bool vector = linalg_detail::vector_rhs(lu.shape(), pb.shape());
  const TracedTensor m = vector ? pb.unsqueeze(-1, where) : pb;
  const Shape shape = solve_shape(op, lu, m, true, where);
  const std::int64_t n = lu.shape().back();
  const TracedTensor p = node("linalg.lu_permutation", "", {&f.pivots}, lu.dtype(), lu.shape(),
                              [n, dtype = lu.dtype(), where](std::span<const Tensor> in, Engine& e) {
                                return direct::lu_permutation("lu_solve", in[0], n, dtype, e, where);
                              },
                              nullptr, where);
  TracedTensor x = node("linalg.lu_solve", "", {&lu, &f.pivots, &m, &p}, lu.dtype(), shape,
                        [where](std::span<const Tensor> in, Engine& e) {
                          return linalg::lu_solve(LUFactor{in[0], in[1]}, in[2], e, where);
                        },
                        rule_of(ad::LuSolveRule{}), where);
  return vector ? x.squeeze({-1}, where) : x;
}

BasicSVD<TracedTensor> svd(const TracedTensor& a, Loc where) { return svd(a, SvdOptions{}, where); }
BasicSVD<TracedTensor> svd(const TracedTensor& a, const SvdOptions& o, Loc where) {
  const TracedTensor x = lapack_operand("svd", a, where);
  linalg_detail::check_matrix("svd", "a", x.shape(), x.dtype(), where);
  linalg_detail::check_svd_options(o, where);
  if (o.cutoff > 0)
    check::fail_invalid("svd",
                        "a traced svd cannot take a cutoff: the rank it keeps depends on the values, and a graph's "
                        "shapes are fixed when it is built; use max_rank, or the eager svd",
                        "cutoff", where);
  const Shape& s = x.shape();
  const std::int64_t m = s[s.size() - 2], n = s.back(), k = std::min(m, n);
  const std::int64_t kept = o.max_rank ? std::min(*o.max_rank, k) : k;
  const auto layout =
      frontdoor::svd_layout(s, o.full_matrices ? m : kept, kept, o.full_matrices ? n : kept);
  auto f = factor_nodes(
      "linalg.svd", o.full_matrices ? "full_matrices" : (o.max_rank ? "max_rank=" + std::to_string(kept) : ""), x,
      layout,
      [o, where](const Tensor& in, Engine& e) {
        SVD r = linalg::svd(in, o, e, where);
        return std::vector<Tensor>{r.u, r.s, r.vh};
      },
      ad::SvdRule{o.full_matrices, o.gap_epsilon}, where);
  // The discarded weight carries no gradient.
  TracedTensor weight = node("linalg.svd_discarded_weight", f[0].node()->attrs, {&x}, linalg_detail::real_of(x.dtype()),
                             batch_of(s),
                             [o, where](std::span<const Tensor> in, Engine& e) {
                               return linalg::svd(in[0], o, e, where).discarded_weight;
                             },
                             nullptr, where);
  return {f[0], f[1], f[2], weight};
}

BasicQR<TracedTensor> qr(const TracedTensor& a, Loc where) { return qr(a, QrOptions{}, where); }
BasicQR<TracedTensor> qr(const TracedTensor& a, QrOptions o, Loc where) {
  const TracedTensor x = lapack_operand("qr", a, where);
  linalg_detail::check_matrix("qr", "a", x.shape(), x.dtype(), where);
  const Shape& s = x.shape();
  const std::int64_t m = s[s.size() - 2], n = s.back();
  // Mode R still computes q: the rule needs it.
  const bool complete = o.mode == QrMode::Complete;
  auto f = factor_nodes(
      "linalg.qr", complete ? "complete" : "reduced", x, frontdoor::qr_layout(s, complete ? m : std::min(m, n)),
      [complete, where](const Tensor& in, Engine& e) {
        QR r = linalg::qr(in, {.mode = complete ? QrMode::Complete : QrMode::Reduced}, e, where);
        return std::vector<Tensor>{r.q, r.r};
      },
      ad::QrRule{complete}, where);
  if (o.mode == QrMode::R) return {TracedTensor(), f[1]};
  return {f[0], f[1]};
}

BasicLU<TracedTensor> lu(const TracedTensor& a, Loc where) {
  const TracedTensor x = lapack_operand("lu", a, where);
  linalg_detail::check_matrix("lu", "a", x.shape(), x.dtype(), where);
  auto f = factor_nodes(
      "linalg.lu", "", x, frontdoor::lu_layout(x.shape()),
      [where](const Tensor& in, Engine& e) {
        LU r = linalg::lu(in, e, where);
        return std::vector<Tensor>{r.p, r.l, r.u};
      },
      ad::LuRule{}, where);
  return {f[0], f[1], f[2]};
}

TracedTensor vector_norm(const TracedTensor& x, Loc where) { return vector_norm(x, VectorNormOptions{}, where); }
TracedTensor vector_norm(const TracedTensor& x, const VectorNormOptions& o, Loc where) {
  return frontdoor::composite::vector_norm(lapack_operand("vector_norm", x, where), o, where);
}

TracedTensor matrix_norm(const TracedTensor& a, Loc where) { return matrix_norm(a, NormOptions{}, where); }
TracedTensor matrix_norm(const TracedTensor& a, const NormOptions& o, Loc where) {
  return frontdoor::composite::matrix_norm(lapack_operand("matrix_norm", a, where), o, where);
}

TracedTensor pinv(const TracedTensor& a, Loc where) { return pinv(a, PinvOptions{}, where); }
TracedTensor pinv(const TracedTensor& a, PinvOptions o, Loc where) {
  const TracedTensor x = lapack_operand("pinv", a, where);
  linalg_detail::check_matrix("pinv", "a", x.shape(), x.dtype(), where);
  if (o.hermitian) linalg_detail::check_square("pinv", "a", x.shape(), x.dtype(), where);
  return frontdoor::composite::pinv(x, o, where);
}

BasicLstsq<TracedTensor> lstsq(const TracedTensor& a, const TracedTensor& b, Loc where) {
  return lstsq(a, b, LstsqOptions{}, where);
}
BasicLstsq<TracedTensor> lstsq(const TracedTensor& a, const TracedTensor& b, LstsqOptions o, Loc where) {
  auto [pa, pb] = prepare2("lstsq", a, b, where);
  linalg_detail::check_matrix("lstsq", "a", pa.shape(), pa.dtype(), where);
  auto r = frontdoor::composite::lstsq(pa, pb, o, where);
  // A graph's shapes are fixed when it is built: the residuals are there whenever m > n, for
  // rank-deficient matrices too (the direct and eager forms then give an empty tensor).
  if (!r.residuals.defined())
    r.residuals = TracedTensor::constant(Tensor::zeros({0}, {pa.device(), linalg_detail::real_of(pa.dtype())}, where));
  return r;
}

TracedTensor matrix_exp(const TracedTensor& a, Loc where) {
  const TracedTensor x = lapack_operand("matrix_exp", a, where);
  linalg_detail::check_square("matrix_exp", "a", x.shape(), x.dtype(), where);
  return node("linalg.matrix_exp", "", {&x}, x.dtype(), x.shape(),
              [where](std::span<const Tensor> in, Engine& e) { return linalg::matrix_exp(in[0], e, where); },
              rule_of(ad::MatrixExpRule{}), where);
}

}  // namespace linalg
}  // namespace tensora
