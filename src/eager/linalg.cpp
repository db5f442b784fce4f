// The differentiable linalg functions on eager tensors (tensora/linalg.hpp): the thread's
// active session promotes the operands (recorded converts), runs the direct function and
// records it with its rule (ad/linalg_rules.hpp). A vector right-hand side is lifted to a
// one-column matrix by recorded reshapes, so the rules only see matrices.
#include "ad/factorization_rules.hpp"
#include "ad/linalg_rules.hpp"
#include "direct/direct.hpp"
#include "eager/session_support.hpp"
#include "frontdoor/linalg_composites.hpp"
#include "frontdoor/linalg_factors.hpp"
#include "ops/lapack_dtypes.hpp"
#include "ops/linalg_spec.hpp"
#include "tensora/linalg.hpp"

namespace tensora::linalg {

using namespace eager_detail;  // NOLINT: the session is this layer's front

namespace {

// Both operands in their join, promoted to a LAPACK dtype.
std::pair<EagerTensor, EagerTensor> prepare2(EagerSession& s, std::string_view op, const EagerTensor& a,
                                             const EagerTensor& b, Loc where) {
  check_inputs(op, s.engine(), {&a, &b}, where);
  const DType target = promoted_to_lapack_dtype(promote_types(a.dtype(), b.dtype(), s.engine().device()),
                                                s.engine().device().settings().float_dtype);
  return {convert_to(a, target, s.engine(), where), convert_to(b, target, s.engine(), where)};
}

template <class Rule>
EagerTensor record1(Rule rule, const EagerTensor& a, Tensor out) {
  return record(std::move(rule), std::array<const EagerTensor*, 1>{&a}, std::move(out));
}

// The views that hand out a packed factorization's parts (frontdoor/linalg_factors.hpp):
// recorded, so each part's cotangent reaches the packed node.
struct RecordedViews {
  Loc where;
  DType dtype(const EagerTensor& x) const { return x.dtype(); }
  EagerTensor slice(const EagerTensor& x, std::int64_t axis, std::int64_t start, std::int64_t stop, std::int64_t step) {
    return x.slice(axis, start, stop, step, where);
  }
  EagerTensor reshape(const EagerTensor& x, const Shape& s) { return x.reshape(s, where); }
  EagerTensor unary(UnaryOp op, const EagerTensor& x) {
    if (op != UnaryOp::Real) throw Error(ErrorKind::Internal, "linalg", "unpack asks only for real parts", NoDetail{}, where);
    return x.real(where);
  }
};

// Records a factorization as one node whose result is its factors packed, and returns the
// factors as recorded views of it.
// Nothing to record (no gradient wanted): the factors themselves, without packing them.
template <class Rule>
std::vector<EagerTensor> record_factors(Rule rule, const EagerTensor& a, const frontdoor::PackedLayout& layout,
                                        const std::vector<Tensor>& factors, Engine& e, Loc where) {
  if (!should_record(factors.back(), a.requires_grad())) {
    std::vector<EagerTensor> constants;
    for (const Tensor& f : factors) constants.push_back(constant_node(f));
    return constants;
  }
  const EagerTensor packed =
      record1(std::move(rule), a, frontdoor::pack(layout, factors, layout.packed_dtype(a.dtype()), e));
  RecordedViews views{where};
  return frontdoor::unpack(views, packed, layout);
}

}  // namespace

EagerTensor solve(const EagerTensor& a, const EagerTensor& b, Loc where) {
  EagerSession& s = active_session("solve", where);
  auto [pa, pb] = prepare2(s, "solve", a, b, where);
  const bool vector = linalg_detail::vector_rhs(pa.shape(), pb.shape());
  const EagerTensor m = vector ? pb.unsqueeze(-1, where) : pb;
  Tensor out = linalg::solve(pa.value(), m.value(), s.engine(), where);
  EagerTensor x = record(ad::SolveRule{}, std::array<const EagerTensor*, 2>{&pa, &m}, std::move(out));
  return vector ? x.squeeze({-1}, where) : x;
}

EagerTensor solve_triangular(const EagerTensor& a, const EagerTensor& b, TriangularOptions o, Loc where) {
  EagerSession& s = active_session("solve_triangular", where);
  auto [pa, pb] = prepare2(s, "solve_triangular", a, b, where);
  Tensor out = linalg::solve_triangular(pa.value(), pb.value(), o, s.engine(), where);
  return record(ad::SolveTriangularRule{o}, std::array<const EagerTensor*, 2>{&pa, &pb}, std::move(out));
}

EagerTensor cholesky(const EagerTensor& a, Loc where) { return cholesky(a, CholeskyOptions{}, where); }
EagerTensor cholesky(const EagerTensor& a, CholeskyOptions o, Loc where) {
  auto [s, x] = lapack_operand("cholesky", a, where);
  return record1(ad::CholeskyRule{o.upper}, x, linalg::cholesky(x.value(), o, s.engine(), where));
}

EagerTensor det(const EagerTensor& a, Loc where) {
  auto [s, x] = lapack_operand("det", a, where);
  return record1(ad::DetRule{}, x, linalg::det(x.value(), s.engine(), where));
}

BasicSlogdet<EagerTensor> slogdet(const EagerTensor& a, Loc where) {
  auto [s, x] = lapack_operand("slogdet", a, where);
  Slogdet r = linalg::slogdet(x.value(), s.engine(), where);
  // The sign is piecewise constant: no gradient flows through it.
  return {constant_node(std::move(r.sign)), record1(ad::LogAbsDetRule{}, x, std::move(r.logabsdet))};
}

EagerTensor inv(const EagerTensor& a, Loc where) {
  auto [s, x] = lapack_operand("inv", a, where);
  linalg_detail::check_square("inv", "a", x.shape(), x.dtype(), where);
  const std::int64_t n = x.shape().back();
  const EagerTensor eye =
      constant_node(Tensor::eye(n, {s.engine().device(), x.dtype()}, where).broadcast_to(x.shape(), where));
  return solve(x, eye, where);
}

EagerTensor eigvalsh(const EagerTensor& a, Loc where) { return eigvalsh(a, EighOptions{}, where); }
EagerTensor eigvalsh(const EagerTensor& a, EighOptions o, Loc where) {
  auto [s, x] = lapack_operand("eigvalsh", a, where);
  return record1(ad::EigvalshRule{o.upper}, x, linalg::eigvalsh(x.value(), o, s.engine(), where));
}

EagerTensor svdvals(const EagerTensor& a, Loc where) {
  auto [s, x] = lapack_operand("svdvals", a, where);
  return record1(ad::SvdvalsRule{}, x, linalg::svdvals(x.value(), s.engine(), where));
}

BasicEigh<EagerTensor> eigh(const EagerTensor& a, Loc where) { return eigh(a, EighOptions{}, where); }
BasicEigh<EagerTensor> eigh(const EagerTensor& a, EighOptions o, Loc where) {
  auto [s, x] = lapack_operand("eigh", a, where);
  Eigh r = linalg::eigh(x.value(), o, s.engine(), where);
  auto f = record_factors(ad::EighRule{o.upper, o.gap_epsilon}, x, frontdoor::eigh_layout(x.shape()),
                          {r.eigenvalues, r.eigenvectors}, s.engine(), where);
  return {f[0], f[1]};
}

BasicEig<EagerTensor> eig(const EagerTensor& a, Loc where) { return eig(a, EigOptions{}, where); }
BasicEig<EagerTensor> eig(const EagerTensor& a, EigOptions o, Loc where) {
  auto [s, x] = lapack_operand("eig", a, where);
  Eig r = linalg::eig(x.value(), o, s.engine(), where);
  auto f = record_factors(ad::EigRule{o.gap_epsilon}, x, frontdoor::eig_layout(x.shape()),
                          {r.eigenvalues, r.eigenvectors}, s.engine(), where);
  return {f[0], f[1]};
}

// The eigenvectors come along: the eigenvalues' rule needs them.
EagerTensor eigvals(const EagerTensor& a, Loc where) { return eig(a, where).eigenvalues; }

BasicSVD<EagerTensor> svd(const EagerTensor& a, Loc where) { return svd(a, SvdOptions{}, where); }
BasicSVD<EagerTensor> svd(const EagerTensor& a, const SvdOptions& o, Loc where) {
  auto [s, x] = lapack_operand("svd", a, where);
  SVD r = linalg::svd(x.value(), o, s.engine(), where);
  const std::int64_t k = r.s.shape().back();
  const auto layout = frontdoor::svd_layout(x.shape(), r.u.shape().back(), k, r.vh.shape()[r.vh.shape().size() - 2]);
  auto f = record_factors(ad::SvdRule{o.full_matrices, o.gap_epsilon}, x, layout, {r.u, r.s, r.vh}, s.engine(), where);
  return {f[0], f[1], f[2], constant_node(std::move(r.discarded_weight))};
}

BasicQR<EagerTensor> qr(const EagerTensor& a, Loc where) { return qr(a, QrOptions{}, where); }
BasicQR<EagerTensor> qr(const EagerTensor& a, QrOptions o, Loc where) {
  auto [s, x] = lapack_operand("qr", a, where);
  // Mode R still computes q: the rule needs it (r alone is differentiable too).
  const bool complete = o.mode == QrMode::Complete;
  QR r = linalg::qr(x.value(), {.mode = complete ? QrMode::Complete : QrMode::Reduced}, s.engine(), where);
  auto f = record_factors(ad::QrRule{complete}, x, frontdoor::qr_layout(x.shape(), r.q.shape().back()), {r.q, r.r},
                          s.engine(), where);
  if (o.mode == QrMode::R) return {EagerTensor(), f[1]};
  return {f[0], f[1]};
}

BasicLU<EagerTensor> lu(const EagerTensor& a, Loc where) {
  auto [s, x] = lapack_operand("lu", a, where);
  LU r = linalg::lu(x.value(), s.engine(), where);
  auto f = record_factors(ad::LuRule{}, x, frontdoor::lu_layout(x.shape()), {r.p, r.l, r.u}, s.engine(), where);
  return {f[0], f[1], f[2]};
}

BasicLUFactor<EagerTensor> lu_factor(const EagerTensor& a, Loc where) {
  auto [s, x] = lapack_operand("lu_factor", a, where);
  LUFactor f = linalg::lu_factor(x.value(), s.engine(), where);
  if (!should_record(f.lu, x.requires_grad())) return {constant_node(std::move(f.lu)), constant_node(std::move(f.pivots))};
  // The node packs p beside lu: the rule needs it, and the pivots are no tensor of a float dtype.
  const Tensor p = direct::lu_permutation("lu_factor", f.pivots, x.shape()[x.shape().size() - 2], x.dtype(),
                                          s.engine(), where);
  auto parts = record_factors(ad::LuRule{.packed = true}, x, frontdoor::lu_factor_layout(x.shape()), {p, f.lu},
                              s.engine(), where);
  return {parts[1], constant_node(std::move(f.pivots))};
}

EagerTensor lu_solve(const BasicLUFactor<EagerTensor>& f, const EagerTensor& b, Loc where) {
  EagerSession& s = active_session("lu_solve", where);
  check_inputs("lu_solve", s.engine(), {&f.pivots}, where);
  auto [lu, pb] = prepare2(s, "lu_solve", f.lu, b, where);
  const bool vector = linalg_detail::vector_rhs(lu.shape(), pb.shape());
  const EagerTensor m = vector ? pb.unsqueeze(-1, where) : pb;
  // The direct form checks and solves; the rule reads the permutation matrix of the pivots.
  Tensor out = linalg::lu_solve(LUFactor{lu.value(), f.pivots.value()}, m.value(), s.engine(), where);
  EagerTensor x;
  if (should_record(out, lu.requires_grad() || m.requires_grad())) {  // p (m x m) only for the rule
    const EagerTensor p = constant_node(direct::lu_permutation("lu_solve", f.pivots.value(), lu.shape().back(),
                                                               lu.dtype(), s.engine(), where));
    x = record(ad::LuSolveRule{}, std::array<const EagerTensor*, 4>{&lu, &f.pivots, &m, &p}, std::move(out));
  } else {
    x = constant_node(std::move(out));
  }
  return vector ? x.squeeze({-1}, where) : x;
}

EagerTensor vector_norm(const EagerTensor& x, Loc where) { return vector_norm(x, VectorNormOptions{}, where); }
EagerTensor vector_norm(const EagerTensor& x, const VectorNormOptions& o, Loc where) {
  auto [s, px] = lapack_operand("vector_norm", x, where);
  return frontdoor::composite::vector_norm(px, o, where);
}

EagerTensor matrix_norm(const EagerTensor& a, Loc where) { return matrix_norm(a, NormOptions{}, where); }
EagerTensor matrix_norm(const EagerTensor& a, const NormOptions& o, Loc where) {
  auto [s, x] = lapack_operand("matrix_norm", a, where);
  return frontdoor::composite::matrix_norm(x, o, where);
}

EagerTensor pinv(const EagerTensor& a, Loc where) { return pinv(a, PinvOptions{}, where); }
EagerTensor pinv(const EagerTensor& a, PinvOptions o, Loc where) {
  auto [s, x] = lapack_operand("pinv", a, where);
  linalg_detail::check_matrix("pinv", "a", x.shape(), x.dtype(), where);
  if (o.hermitian) linalg_detail::check_square("pinv", "a", x.shape(), x.dtype(), where);
  return frontdoor::composite::pinv(x, o, where);
}

BasicLstsq<EagerTensor> lstsq(const EagerTensor& a, const EagerTensor& b, Loc where) {
  return lstsq(a, b, LstsqOptions{}, where);
}
BasicLstsq<EagerTensor> lstsq(const EagerTensor& a, const EagerTensor& b, LstsqOptions o, Loc where) {
  EagerSession& s = active_session("lstsq", where);
  auto [pa, pb] = prepare2(s, "lstsq", a, b, where);
  linalg_detail::check_matrix("lstsq", "a", pa.shape(), pa.dtype(), where);
  auto r = frontdoor::composite::lstsq(pa, pb, o, where);
  // The residuals as the direct form gives them: only when every matrix has full rank.
  const std::int64_t n = pa.shape().back();
  const std::vector<std::int64_t> ranks = r.rank.value().to_vec<std::int64_t>(where);
  const bool full = std::all_of(ranks.begin(), ranks.end(), [&](std::int64_t k) { return k == n; });
  if (!r.residuals.defined() || !full)
    r.residuals = constant_node(Tensor::zeros({0}, {s.engine().device(), linalg_detail::real_of(pa.dtype())}, where));
  return r;
}

EagerTensor matrix_exp(const EagerTensor& a, Loc where) {
  auto [s, x] = lapack_operand("matrix_exp", a, where);
  return record1(ad::MatrixExpRule{}, x, linalg::matrix_exp(x.value(), s.engine(), where));
}

}  // namespace tensora::linalg
