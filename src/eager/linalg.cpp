// The differentiable linalg functions on eager tensors (tensora/linalg.hpp): the thread's
// active session promotes the operands (recorded converts), runs the direct function and
// records it with its rule (ad/linalg_rules.hpp). A vector right-hand side is lifted to a
// one-column matrix by recorded reshapes, so the rules only see matrices.
#include "ad/linalg_rules.hpp"
#include "eager/session_support.hpp"
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

}  // namespace tensora::linalg
