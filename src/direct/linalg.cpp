// The direct linear-algebra op set (tensora/linalg.hpp on Tensor): operands checked and their
// batches broadcast here, each factorization or solve one backend call (ops/linalg_spec.hpp),
// and the functions built on them (solve, inv, det, pinv, lstsq, norms, matrix_exp) composed
// from those calls and direct ops. docs/linalg.md has the conventions.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "backend/backend.hpp"
#include "direct/direct.hpp"
#include "core/checks.hpp"
#include "ops/lapack_dtypes.hpp"
#include "ops/linalg_spec.hpp"
#include "ops/validate.hpp"
#include "tensora/linalg.hpp"

namespace tensora::linalg {

namespace {

using linalg_detail::batch_of;
using linalg_detail::Call;
using linalg_detail::Kind;
using linalg_detail::Trans;
constexpr auto joined = linalg_detail::with_tail;
std::int64_t rows(const Tensor& t) { return t.shape()[t.shape().size() - 2]; }
std::int64_t cols(const Tensor& t) { return t.shape().back(); }

// Runs one primitive into fresh outputs of the given shapes and dtypes. A failure throws
// LinAlgError, except an info > 0 of a kind whose outputs stay meaningful (`tolerate`: LU of
// a singular matrix); a NaN or infinity in a factorized matrix always throws.
std::vector<Tensor> run(const char* op, const Call& call, const std::vector<std::pair<Shape, DType>>& shapes,
                        std::vector<Tensor> ins, Engine& e, Loc where, bool tolerate = false) {
  std::vector<Tensor> outs;
  outs.reserve(shapes.size());
  for (const auto& [shape, dtype] : shapes) outs.push_back(Tensor::empty(shape, dtype, e.device(), where));
  const auto status = e.backend().linalg(call, outs, ins, e);
  if (status && (status->non_finite || !tolerate))
    linalg_detail::fail(op, call.kind, *status, batch_of(ins[0].shape()), where);
  return outs;
}

void check_one(const char* op, const Tensor& a, Engine& e, Loc where, bool square) {
  validate::operands(op, e, {&a}, where);
  if (square) linalg_detail::check_square(op, "a", a.shape(), a.dtype(), where);
  else linalg_detail::check_matrix(op, "a", a.shape(), a.dtype(), where);
}

// A right-hand side: b as (..., n, k), and whether it was a vector (one axis fewer than a).
struct Rhs {
  Tensor b;
  bool vector;
};
Rhs right_hand_side(const char* op, const Tensor& a, const Tensor& b, Engine& e, Loc where) {
  validate::operands(op, e, {&a, &b}, where);
  check::same_dtype(op, a.dtype(), b.dtype(), where);
  const bool vector = linalg_detail::vector_rhs(a.shape(), b.shape());
  Tensor m = vector ? b.unsqueeze(-1, where) : b;
  if (m.rank() < 2)
    check::fail_invalid(op, "b must have at least one axis, got shape " + to_string(b.shape()), "b", where);
  linalg_detail::check_rhs(op, a.shape(), m.shape(), true, where);
  return {m, vector};
}

// a and b with their batches broadcast together (views).
std::pair<Tensor, Tensor> broadcast_batches(const char* op, const Tensor& a, const Tensor& b, Loc where) {
  const Shape batch = broadcast_shapes(batch_of(a.shape()), batch_of(b.shape()), op, where);
  return {a.broadcast_to(joined(batch, {rows(a), cols(a)}), where), b.broadcast_to(joined(batch, {rows(b), cols(b)}), where)};
}

Tensor finish_rhs(const Tensor& x, bool vector, Loc where) { return vector ? x.squeeze({-1}, where) : x; }

// The LU factorization of a batch of square matrices: lu and I32 pivots.
std::vector<Tensor> lu_factors(const char* op, const Tensor& a, Engine& e, Loc where, bool tolerate) {
  const Shape batch = batch_of(a.shape());
  const std::int64_t m = rows(a), n = cols(a);
  return run(op, {Kind::LuFactor}, {{a.shape(), a.dtype()}, {joined(batch, {std::min(m, n)}), DType::I32}}, {a}, e,
             where, tolerate);
}

Tensor lu_solve_broadcast(const char* op, const Tensor& lu, const Tensor& pivots, const Tensor& b, Trans trans,
                          Engine& e, Loc where) {
  auto [lu_b, b_b] = broadcast_batches(op, lu, b, where);
  const Shape batch = batch_of(lu_b.shape());
  const Tensor piv = pivots.broadcast_to(joined(batch, {rows(lu)}), where);
  return run(op, {Kind::LuSolve, false, false, trans}, {{b_b.shape(), b.dtype()}}, {lu_b, piv, b_b}, e, where)[0];
}

// Each row interchange's factor of the permutation's sign, in `dtype`: -1 where step k swapped
// rows (pivot != k + 1), else 1. Multiplied into the pivots before their product, they give
// det's sign with two ops (a factor of +-1 is exact, so the product's bits are unchanged).
Tensor interchange_signs(const Tensor& pivots, DType dtype, Engine& e, Loc where) {
  const std::int64_t k = pivots.shape().back();
  const Tensor order = Tensor::arange(1, k + 1, {e.device(), DType::I32}, where);
  const Tensor one = Tensor::ones({}, {e.device(), dtype}, where);
  return select(pivots.eq(order, e, where), one.broadcast_to(pivots.shape(), where),
                one.neg(e, where).broadcast_to(pivots.shape(), where), e, where);
}

double epsilon(DType dtype) {
  return linalg_detail::real_of(dtype) == DType::F32 ? std::numeric_limits<float>::epsilon()
                                                     : std::numeric_limits<double>::epsilon();
}

// x * d along the last axis (d: (..., k) real, broadcast over x's rows), in x's dtype.
Tensor scale_columns(const Tensor& x, const Tensor& d, Engine& e, Loc where) {
  return x.mul(d.cast(x.dtype(), e, where).unsqueeze(-2, where), e, where);
}

Tensor adjoint(const Tensor& x, Engine& e, Loc where) { return x.transpose(-2, -1, where).conj(e, where); }

// Singular values (or |eigenvalues|) above `rtol` times each matrix's largest: 1 / s, else 0.
Tensor inverted_above(const Tensor& s, double rtol, Engine& e, Loc where) {
  const Tensor top = s.abs(e, where).max({-1}, ReduceOptions{.keepdims = true}, e, where);
  const Tensor keep = s.abs(e, where).gt(top.mul(Scalar(rtol), e, where), e, where);
  const Tensor one = Tensor::ones({}, {e.device(), s.dtype()}, where);
  const Tensor safe = select(keep, s, one.broadcast_to(s.shape(), where), e, where);
  return select(keep, one.broadcast_to(s.shape(), where).div(safe, e, where),
                Tensor::zeros(s.shape(), {e.device(), s.dtype()}, where), e, where);
}

// LAPACK and lu_permutation read the pivots as given: one outside [1, m] would index past the
// matrix.
void check_pivots(const char* op, const std::vector<std::int32_t>& pivots, std::int64_t m, Loc where) {
  for (std::int32_t p : pivots)
    if (p < 1 || p > m)
      check::fail_invalid(op, "pivot " + std::to_string(p) + " is outside [1, " + std::to_string(m) + "]", "pivots", where);
}

}  // namespace

// ---- solves -----------------------------------------------------------------------------------

Tensor solve(const Tensor& a, const Tensor& b, Engine& e, Loc where) {
  check_one("solve", a, e, where, true);
  auto [rhs, vector] = right_hand_side("solve", a, b, e, where);
  auto [a_b, b_b] = broadcast_batches("solve", a, rhs, where);
  return finish_rhs(run("solve", {Kind::Solve}, {{b_b.shape(), b.dtype()}}, {a_b, b_b}, e, where)[0], vector, where);
}

Tensor solve_triangular(const Tensor& a, const Tensor& b, TriangularOptions o, Engine& e, Loc where) {
  const char* op = "solve_triangular";
  check_one(op, a, e, where, true);
  validate::operands(op, e, {&a, &b}, where);
  check::same_dtype(op, a.dtype(), b.dtype(), where);
  linalg_detail::check_matrix(op, "b", b.shape(), b.dtype(), where);
  linalg_detail::check_rhs(op, a.shape(), b.shape(), o.left, where);
  // x a = b is a^T x^T = b^T: the same triangle read transposed.
  const Tensor rhs = o.left ? b : b.transpose(-2, -1, where);
  auto [a_b, b_b] = broadcast_batches(op, a, rhs, where);
  const Call call{Kind::TriangularSolve, o.upper, o.unit_diagonal, o.left ? Trans::None : Trans::Transpose};
  Tensor x = run(op, call, {{b_b.shape(), b.dtype()}}, {a_b, b_b}, e, where)[0];
  return o.left ? x : x.transpose(-2, -1, where).duplicate(where);
}

// ---- factorizations ---------------------------------------------------------------------------

Tensor cholesky(const Tensor& a, Engine& e, Loc where) { return cholesky(a, CholeskyOptions{}, e, where); }
Tensor cholesky(const Tensor& a, CholeskyOptions o, Engine& e, Loc where) {
  check_one("cholesky", a, e, where, true);
  return run("cholesky", {Kind::Cholesky, o.upper}, {{a.shape(), a.dtype()}}, {a}, e, where)[0];
}

QR qr(const Tensor& a, Engine& e, Loc where) { return qr(a, QrOptions{}, e, where); }
QR qr(const Tensor& a, QrOptions o, Engine& e, Loc where) {
  check_one("qr", a, e, where, false);
  const Shape batch = batch_of(a.shape());
  const std::int64_t m = rows(a), n = cols(a), k = std::min(m, n);
  if (o.mode == QrMode::R) {
    Call call{Kind::Qr};
    call.vectors = false;
    return {Tensor(), run("qr", call, {{joined(batch, {k, n}), a.dtype()}}, {a}, e, where)[0]};
  }
  const bool complete = o.mode == QrMode::Complete;
  const std::int64_t kq = complete ? m : k;
  Call call{Kind::Qr};
  call.complete = complete;
  auto out = run("qr", call, {{joined(batch, {m, kq}), a.dtype()}, {joined(batch, {kq, n}), a.dtype()}}, {a}, e, where);
  return {out[0], out[1]};
}

namespace {

SVD full_svd(const char* op, const Tensor& a, bool vectors, bool complete, Engine& e, Loc where) {
  check_one(op, a, e, where, false);
  const Shape batch = batch_of(a.shape());
  const std::int64_t m = rows(a), n = cols(a), k = std::min(m, n);
  const DType real = linalg_detail::real_of(a.dtype());
  Call call{Kind::Svd};
  call.vectors = vectors;
  call.complete = complete;
  if (!vectors) {
    Tensor s = run(op, call, {{joined(batch, {k}), real}}, {a}, e, where)[0];
    return {Tensor(), s, Tensor(), Tensor::zeros(batch, {e.device(), real}, where)};
  }
  const std::int64_t ku = complete ? m : k, kv = complete ? n : k;
  auto out = run(op, call, {{joined(batch, {m, ku}), a.dtype()}, {joined(batch, {k}), real}, {joined(batch, {kv, n}), a.dtype()}},
                 {a}, e, where);
  return {out[0], out[1], out[2], Tensor::zeros(batch, {e.device(), real}, where)};
}

// The rank a truncation keeps: the largest, over the batch, of each matrix's count of leading
// singular values that pass max_rank and the cutoff (at least one, so the factors stay usable).
std::int64_t kept_rank(const Tensor& s, const SvdOptions& o, Engine& e, Loc where) {
  const std::int64_t k = s.shape().back();
  const std::vector<double> values = s.cast(DType::F64, e, where).to_vec<double>(where);
  std::int64_t keep = std::min<std::int64_t>(1, k);
  const std::int64_t count = k == 0 ? 0 : static_cast<std::int64_t>(values.size()) / k;
  for (std::int64_t j = 0; j < count; ++j) {
    auto at = [&](std::int64_t i) { return values[static_cast<std::size_t>(j + i * count)]; };
    const double threshold = o.relative_cutoff ? o.cutoff * at(0) : o.cutoff;
    std::int64_t r = 0;
    while (r < k && (!o.max_rank || r < *o.max_rank) && at(r) >= threshold && !(o.cutoff > 0 && at(r) == 0)) ++r;
    keep = std::max(keep, r);
  }
  return keep;
}

}  // namespace

SVD svd(const Tensor& a, Engine& e, Loc where) { return svd(a, SvdOptions{}, e, where); }
SVD svd(const Tensor& a, const SvdOptions& o, Engine& e, Loc where) {
  const bool truncate = linalg_detail::check_svd_options(o, where);
  SVD r = full_svd("svd", a, true, o.full_matrices, e, where);
  if (!truncate) return r;
  const std::int64_t k = r.s.shape().back(), keep = kept_rank(r.s, o, e, where);
  if (keep == k) return r;
  const Tensor dropped = r.s.slice(-1, keep, k, 1, where);
  r.discarded_weight = dropped.mul(dropped, e, where).sum({-1}, e, where);
  r.u = r.u.slice(-1, 0, keep, 1, where).duplicate(where);
  r.s = r.s.slice(-1, 0, keep, 1, where).duplicate(where);
  r.vh = r.vh.slice(-2, 0, keep, 1, where).duplicate(where);
  return r;
}

Tensor svdvals(const Tensor& a, Engine& e, Loc where) { return full_svd("svdvals", a, false, false, e, where).s; }

Eigh eigh(const Tensor& a, Engine& e, Loc where) { return eigh(a, EighOptions{}, e, where); }
Eigh eigh(const Tensor& a, EighOptions o, Engine& e, Loc where) {
  check_one("eigh", a, e, where, true);
  const Shape batch = batch_of(a.shape());
  auto out = run("eigh", {Kind::Eigh, o.upper},
                 {{joined(batch, {rows(a)}), linalg_detail::real_of(a.dtype())}, {a.shape(), a.dtype()}}, {a}, e, where);
  return {out[0], out[1]};
}

Tensor eigvalsh(const Tensor& a, Engine& e, Loc where) { return eigvalsh(a, EighOptions{}, e, where); }
Tensor eigvalsh(const Tensor& a, EighOptions o, Engine& e, Loc where) {
  check_one("eigvalsh", a, e, where, true);
  Call call{Kind::Eigh, o.upper};
  call.vectors = false;
  return run("eigvalsh", call, {{joined(batch_of(a.shape()), {rows(a)}), linalg_detail::real_of(a.dtype())}}, {a}, e,
             where)[0];
}

Eig eig(const Tensor& a, Engine& e, Loc where) { return eig(a, EigOptions{}, e, where); }
Eig eig(const Tensor& a, EigOptions, Engine& e, Loc where) {
  check_one("eig", a, e, where, true);
  const DType c = complex_dtype(a.dtype());
  auto out = run("eig", {Kind::Eig}, {{joined(batch_of(a.shape()), {rows(a)}), c}, {a.shape(), c}}, {a}, e, where);
  return {out[0], out[1]};
}

Tensor eigvals(const Tensor& a, Engine& e, Loc where) {
  check_one("eigvals", a, e, where, true);
  Call call{Kind::Eig};
  call.vectors = false;
  return run("eigvals", call, {{joined(batch_of(a.shape()), {rows(a)}), complex_dtype(a.dtype())}}, {a}, e, where)[0];
}

LUFactor lu_factor(const Tensor& a, Engine& e, Loc where) {
  check_one("lu_factor", a, e, where, false);
  auto f = lu_factors("lu_factor", a, e, where, true);
  return {f[0], f[1]};
}

LU lu(const Tensor& a, Engine& e, Loc where) {
  check_one("lu", a, e, where, false);
  const auto f = lu_factors("lu", a, e, where, true);
  const Shape batch = batch_of(a.shape());
  const std::int64_t m = rows(a), n = cols(a), k = std::min(m, n);
  const Tensor eye = Tensor::eye(m, k, {e.device(), a.dtype()}, where);
  Tensor l = f[0].slice(-1, 0, k, 1, where).tril(-1, e, where).add(eye, e, where);
  Tensor u = f[0].slice(-2, 0, k, 1, where).triu(0, e, where);
  return {direct::lu_permutation("lu", f[1], m, a.dtype(), e, where), l, u};
}

Tensor lu_solve(const LUFactor& f, const Tensor& b, Engine& e, Loc where) {
  const char* op = "lu_solve";
  check_one(op, f.lu, e, where, true);
  validate::operands(op, e, {&f.lu, &f.pivots, &b}, where);
  const Shape want = joined(batch_of(f.lu.shape()), {rows(f.lu)});
  if (f.pivots.dtype() != DType::I32)
    check::fail_dtype_mismatch(op, DType::I32, f.pivots.dtype(), where);
  if (f.pivots.shape() != want)
    check::fail_shape(op, "pivots must have the shape of lu without its last axis", want, f.pivots.shape(), where);
  auto [rhs, vector] = right_hand_side(op, f.lu, b, e, where);
  check_pivots(op, f.pivots.to_vec<std::int32_t>(where), rows(f.lu), where);
  // A singular factor: U has an exact zero on its diagonal.
  const std::vector<std::int32_t> zero =
      f.lu.diagonal(0, -2, -1, where)
          .eq(Tensor::zeros({}, {e.device(), f.lu.dtype()}, where), e, where)
          .cast(DType::I32, e, where)
          .to_vec<std::int32_t>(where);
  const std::int64_t count = numel(batch_of(f.lu.shape())), n = rows(f.lu);
  for (std::int64_t j = 0; j < count; ++j)  // (batch..., n) column-major: j + count * d
    for (std::int64_t d = 0; d < n; ++d)
      if (zero[static_cast<std::size_t>(j + count * d)] != 0)
        linalg_detail::fail(op, Kind::LuSolve, {j, d + 1, false}, batch_of(f.lu.shape()), where);
  return finish_rhs(lu_solve_broadcast(op, f.lu, f.pivots, rhs, Trans::None, e, where), vector, where);
}

// ---- determinants and inverses ------------------------------------------------------------

Tensor det(const Tensor& a, Engine& e, Loc where) {
  check_one("det", a, e, where, true);
  // One primitive: the factors are never stored, one value per matrix is (a singular matrix's
  // det is 0, so LU's info is tolerated).
  const Shape batch = batch_of(a.shape());
  return run("det", {Kind::Det}, {{joined(batch, {1}), a.dtype()}}, {a}, e, where, true)[0].squeeze({-1}, where);
}

Slogdet slogdet(const Tensor& a, Engine& e, Loc where) {
  check_one("slogdet", a, e, where, true);
  const auto f = lu_factors("slogdet", a, e, where, true);
  const Tensor d = f[0].diagonal(0, -2, -1, where);
  const Tensor mag = d.abs(e, where);
  const Tensor logabs = mag.log(e, where).sum({-1}, e, where);
  // The sign: each pivot's phase d / |d| (0 for a zero pivot) times the permutation's.
  const Tensor zero = Tensor::zeros(d.shape(), {e.device(), d.dtype()}, where);
  const Tensor nonzero = mag.ne(Tensor::zeros({}, {e.device(), mag.dtype()}, where), e, where);
  const Tensor safe = select(nonzero, mag, Tensor::ones(mag.shape(), {e.device(), mag.dtype()}, where), e, where);
  const Tensor phase = select(nonzero, d.div(safe.cast(d.dtype(), e, where), e, where), zero, e, where);
  const Tensor sign = phase.mul(interchange_signs(f[1], a.dtype(), e, where), e, where).prod({-1}, e, where);
  return {sign, logabs};
}

Tensor inv(const Tensor& a, Engine& e, Loc where) {
  check_one("inv", a, e, where, true);
  const Tensor eye = Tensor::eye(rows(a), {e.device(), a.dtype()}, where).broadcast_to(a.shape(), where);
  return run("inv", {Kind::Solve}, {{a.shape(), a.dtype()}}, {a, eye}, e, where)[0];
}

Tensor pinv(const Tensor& a, Engine& e, Loc where) { return pinv(a, PinvOptions{}, e, where); }
Tensor pinv(const Tensor& a, PinvOptions o, Engine& e, Loc where) {
  check_one("pinv", a, e, where, o.hermitian);
  const double rtol = o.rtol.value_or(static_cast<double>(std::max(rows(a), cols(a))) * epsilon(a.dtype()));
  if (!(rtol >= 0)) check::fail_invalid("pinv", "rtol must be non-negative", "rtol", where);
  if (o.hermitian) {  // v diag(1 / w) v^H
    const Eigh h = eigh(a, e, where);
    return scale_columns(h.eigenvectors, inverted_above(h.eigenvalues, rtol, e, where), e, where)
        .matmul(adjoint(h.eigenvectors, e, where), e, where);
  }
  const SVD s = full_svd("pinv", a, true, false, e, where);  // v diag(1 / s) u^H
  return scale_columns(adjoint(s.vh, e, where), inverted_above(s.s, rtol, e, where), e, where)
      .matmul(adjoint(s.u, e, where), e, where);
}

Lstsq lstsq(const Tensor& a, const Tensor& b, Engine& e, Loc where) { return lstsq(a, b, LstsqOptions{}, e, where); }
Lstsq lstsq(const Tensor& a, const Tensor& b, LstsqOptions o, Engine& e, Loc where) {
  const char* op = "lstsq";
  check_one(op, a, e, where, false);
  auto [rhs, vector] = right_hand_side(op, a, b, e, where);
  auto [a_b, b_b] = broadcast_batches(op, a, rhs, where);
  const std::int64_t m = rows(a), n = cols(a);
  const double rcond = o.rcond.value_or(static_cast<double>(std::max(m, n)) * epsilon(a.dtype()));
  // The minimum-norm solution v diag(1 / s) u^H b, singular values below rcond * max dropped.
  const SVD s = full_svd(op, a_b, true, false, e, where);
  const Tensor inv_s = inverted_above(s.s, rcond, e, where);
  const Tensor x = scale_columns(adjoint(s.vh, e, where), inv_s, e, where)
                       .matmul(adjoint(s.u, e, where).matmul(b_b, e, where), e, where);
  const Tensor rank = inv_s.ne(Tensor::zeros({}, {e.device(), inv_s.dtype()}, where), e, where)
                          .cast(DType::I64, e, where)
                          .sum({-1}, e, where);
  // Residuals as NumPy / PyTorch: the squared column norms of a x - b when m > n and every
  // matrix has full rank; otherwise empty.
  Tensor residuals = Tensor::zeros({0}, {e.device(), linalg_detail::real_of(a.dtype())}, where);
  const std::vector<std::int64_t> ranks = rank.to_vec<std::int64_t>(where);
  const bool full = std::all_of(ranks.begin(), ranks.end(), [&](std::int64_t r) { return r == n; });
  if (m > n && full) {
    const Tensor r = a_b.matmul(x, e, where).sub(b_b, e, where).abs(e, where);
    residuals = r.mul(r, e, where).sum({-2}, e, where);
    if (vector) residuals = residuals.squeeze({-1}, where);
  }
  return {finish_rhs(x, vector, where), residuals, rank, s.s};
}

// ---- norms ------------------------------------------------------------------------------------

namespace {

void check_norm_dtype(const char* op, DType dtype, Loc where) {
  if (!is_lapack_dtype(dtype))
    check::fail_unsupported_dtype(op, dtype, "norms run on F32, F64, C64 and C128; convert first", where);
}

}  // namespace

Tensor vector_norm(const Tensor& x, Engine& e, Loc where) { return vector_norm(x, VectorNormOptions{}, e, where); }
Tensor vector_norm(const Tensor& x, const VectorNormOptions& o, Engine& e, Loc where) {
  const char* op = "vector_norm";
  validate::operands(op, e, {&x}, where);
  check_norm_dtype(op, x.dtype(), where);
  if (!o.ord.name.empty())
    check::fail_invalid(op, "ord must be a number (p, inf, -inf or 0) for a vector norm, got \"" + o.ord.name + "\"",
                        "ord", where);
  std::vector<std::int64_t> axes = o.axes;
  if (axes.empty())
    for (std::int64_t d = 0; d < x.rank(); ++d) axes.push_back(d);
  const ReduceOptions keep{.keepdims = o.keepdims};
  const Tensor a = x.abs(e, where);
  const double p = o.ord.p;
  if (p == inf) return a.max(axes, keep, e, where);
  if (p == -inf) return a.min(axes, keep, e, where);
  if (p == 0)
    return a.ne(Tensor::zeros({}, {e.device(), a.dtype()}, where), e, where).cast(a.dtype(), e, where).sum(axes, keep, e, where);
  if (p == 1) return a.sum(axes, keep, e, where);
  if (p == 2) return a.mul(a, e, where).sum(axes, keep, e, where).sqrt(e, where);
  return a.pow(Scalar(p), e, where).sum(axes, keep, e, where).pow(Scalar(1.0 / p), e, where);
}

Tensor matrix_norm(const Tensor& a, Engine& e, Loc where) { return matrix_norm(a, NormOptions{}, e, where); }
Tensor matrix_norm(const Tensor& a, const NormOptions& o, Engine& e, Loc where) {
  const char* op = "matrix_norm";
  validate::operands(op, e, {&a}, where);
  linalg_detail::check_matrix(op, "a", a.shape(), a.dtype(), where);
  const auto axes = linalg_detail::norm_axes(op, o.axes, a.rank(), where);
  const Tensor m = a.permute(axes.order, where);
  Tensor result;
  const double p = o.ord.p;
  if (o.ord.name == "fro") {
    const Tensor x = m.abs(e, where);
    result = x.mul(x, e, where).sum({-2, -1}, e, where).sqrt(e, where);
  } else if (o.ord.name == "nuc") {
    result = svdvals(m, e, where).sum({-1}, e, where);
  } else if (!o.ord.name.empty()) {
    check::fail_invalid(op, "ord must be \"fro\", \"nuc\", 1, -1, 2, -2, inf or -inf, got \"" + o.ord.name + "\"", "ord", where);
  } else if (p == 2 || p == -2) {
    const Tensor s = svdvals(m, e, where);
    result = p == 2 ? s.max({-1}, e, where) : s.min({-1}, e, where);
  } else if (p == 1 || p == -1 || p == inf || p == -inf) {
    // 1: the largest column sum of |a|; inf: the largest row sum.
    const Tensor sums = m.abs(e, where).sum({std::abs(p) == 1 ? -2 : -1}, e, where);
    result = p > 0 ? sums.max({-1}, e, where) : sums.min({-1}, e, where);
  } else {
    check::fail_invalid(op, "ord must be \"fro\", \"nuc\", 1, -1, 2, -2, inf or -inf, got " + std::to_string(p), "ord", where);
  }
  if (!o.keepdims) return result;
  Shape kept = a.shape();
  kept[static_cast<std::size_t>(axes.rows)] = 1;
  kept[static_cast<std::size_t>(axes.cols)] = 1;
  return result.reshape(kept, where);
}

// ---- matrix exponential -------------------------------------------------------------------------

// Scaling and squaring with the [13/13] Pade approximant (Higham 2005): exp(a) = r(a / 2^s)^(2^s)
// with s chosen from the 1-norm so that |a / 2^s|_1 <= 5.37. One s serves the whole batch (the
// largest any matrix needs; a larger s only adds squarings).
Tensor matrix_exp(const Tensor& a, Engine& e, Loc where) {
  check_one("matrix_exp", a, e, where, true);
  const std::int64_t n = rows(a);
  if (a.numel() == 0) return a.duplicate(where);
  constexpr double b[] = {64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
                          129060195264000.0,   10559470521600.0,    670442572800.0,     33522128640.0,
                          1323241920.0,        40840800.0,          960960.0,           16380.0,
                          182.0,               1.0};
  constexpr double theta13 = 5.371920351148152;
  const std::vector<double> norms =
      matrix_norm(a, NormOptions{.ord = 1}, e, where).cast(DType::F64, e, where).to_vec<double>(where);
  double largest = 0;
  for (double v : norms) {
    if (!std::isfinite(v))
      check::fail_invalid("matrix_exp", "a has a NaN or infinity", "a", where);
    largest = std::max(largest, v);
  }
  const int s = largest > theta13 ? static_cast<int>(std::ceil(std::log2(largest / theta13))) : 0;
  const Tensor x = a.mul(Scalar(std::ldexp(1.0, -s)), e, where);
  const Tensor eye = Tensor::eye(n, {e.device(), a.dtype()}, where).broadcast_to(a.shape(), where);
  auto mm = [&](const Tensor& l, const Tensor& r) { return l.matmul(r, e, where); };
  auto lin = [&](std::initializer_list<std::pair<double, const Tensor*>> terms) {
    Tensor sum;
    for (const auto& [c, t] : terms) {
      Tensor term = t->mul(Scalar(c), e, where);
      sum = sum.defined() ? sum.add(term, e, where) : term;
    }
    return sum;
  };
  const Tensor x2 = mm(x, x), x4 = mm(x2, x2), x6 = mm(x4, x2);
  const Tensor u_inner = mm(x6, lin({{b[13], &x6}, {b[11], &x4}, {b[9], &x2}}));
  const Tensor u_sum = u_inner.add(lin({{b[7], &x6}, {b[5], &x4}, {b[3], &x2}, {b[1], &eye}}), e, where);
  const Tensor u = mm(x, u_sum);
  const Tensor v = mm(x6, lin({{b[12], &x6}, {b[10], &x4}, {b[8], &x2}}))
                       .add(lin({{b[6], &x6}, {b[4], &x4}, {b[2], &x2}, {b[0], &eye}}), e, where);
  Tensor r = solve(v.sub(u, e, where), v.add(u, e, where), e, where);
  for (int i = 0; i < s; ++i) r = mm(r, r);
  return r;
}

}  // namespace tensora::linalg

namespace tensora::direct {

Tensor lu_permutation(const char* op, const Tensor& pivots, std::int64_t m, DType dtype, Engine& e, SourceLocation where) {
  const Shape batch(pivots.shape().begin(), pivots.shape().end() - 1);
  const std::int64_t k = pivots.shape().back();
  const std::vector<std::int32_t> piv = pivots.to_vec<std::int32_t>(where);
  linalg::check_pivots(op, piv, m, where);
  // Row i of p^T a is row perm[i] of a, so p[perm[i], i] = 1.
  const std::int64_t count = numel(batch);
  std::vector<double> p(static_cast<std::size_t>(count * m * m), 0.0);
  std::vector<std::int64_t> perm(static_cast<std::size_t>(m));
  for (std::int64_t j = 0; j < count; ++j) {
    for (std::int64_t i = 0; i < m; ++i) perm[static_cast<std::size_t>(i)] = i;
    for (std::int64_t i = 0; i < k; ++i)
      std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(piv[static_cast<std::size_t>(j + i * count)] - 1)]);
    // Column-major (batch..., m, m): element (j, r, c) at j + count * (r + m * c).
    for (std::int64_t i = 0; i < m; ++i) p[static_cast<std::size_t>(j + count * (perm[static_cast<std::size_t>(i)] + m * i))] = 1.0;
  }
  return Tensor::from_vec_col_major(linalg_detail::with_tail(batch, {m, m}), std::move(p), {e.device(), DType::F64}, where)
      .cast(dtype, e, where);
}

Tensor lu_pivots_of_permutation(const Tensor& p, std::int64_t k, Engine& e, SourceLocation where) {
  const Shape batch(p.shape().begin(), p.shape().end() - 2);
  const std::int64_t m = p.shape().back(), count = numel(batch);
  const auto at = [](std::int64_t i) { return static_cast<std::size_t>(i); };
  const std::vector<double> values = p.cast(DType::F64, e, where).to_vec<double>(where);
  std::vector<std::int32_t> piv(at(count * k));
  std::vector<std::int64_t> perm(at(m)), row(at(m)), place(at(m));
  for (std::int64_t j = 0; j < count; ++j) {
    // Column i of p holds its 1 in row perm[i] (element (j, r, c) at j + count * (r + m * c)).
    for (std::int64_t c = 0; c < m; ++c)
      for (std::int64_t r = 0; r < m; ++r)
        if (values[at(j + count * (r + m * c))] != 0.0) perm[at(c)] = r;
    // Replay the interchanges: the i-th brings perm[i] to position i, from wherever it is now.
    for (std::int64_t i = 0; i < m; ++i) row[at(i)] = place[at(i)] = i;
    for (std::int64_t i = 0; i < k; ++i) {
      const std::int64_t from = place[at(perm[at(i)])];
      piv[at(j + i * count)] = static_cast<std::int32_t>(from + 1);
      std::swap(row[at(i)], row[at(from)]);
      place[at(row[at(i)])] = i;
      place[at(row[at(from)])] = from;
    }
  }
  return Tensor::from_vec_col_major(linalg_detail::with_tail(batch, {k}), std::move(piv), {e.device(), DType::I32},
                                    where);
}

}  // namespace tensora::direct
