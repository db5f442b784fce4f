// tensora::linalg (direct forms): reconstructions and the factors' properties in every dtype,
// batched, broadcast and strided inputs, known analytic cases, truncated SVD, the gauge, every
// error path with its kind, detail and message, and the engines (serial, parallel, reference).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/linalg_gauge.hpp"
#include "tensora/tensora.hpp"
#include "test_linalg_support.hpp"
#include "test_support.hpp"

namespace {

namespace ta = tensora;
namespace la = tensora::linalg;
using ta::DType;
using ta::Shape;
using ta::Tensor;
using tensora_test::expect_error;
using cd = std::complex<double>;

using linalg_test::e;
using linalg_test::kDTypes;
using linalg_test::max_diff;
using linalg_test::opts;
using linalg_test::random;
using linalg_test::values;

ta::CpuEngine& parallel3() {
  static ta::CpuEngine engine = ta::CpuEngine::parallel(3);
  return engine;
}
// The serial and the 3-thread CPU engines, for checks that must hold on both.
std::array<ta::Engine*, 2> serial_and_parallel() { return {&e(), &parallel3()}; }

// A tolerance for products of factors of small, well-conditioned matrices.
double tol(DType d) { return linalg_test::single(d) ? 2e-4 : 1e-11; }
// The unit of the large-matrix residual checks: about the dtype's epsilon.
double eps(DType d) { return linalg_test::single(d) ? 1.2e-7 : 2.3e-16; }

Tensor adj(const Tensor& x) { return x.transpose(-2, -1).conj(e()); }
Tensor mm(const Tensor& a, const Tensor& b) { return a.matmul(b, e()); }
// u diag(s) (s real, cast to u's dtype).
Tensor scale_cols(const Tensor& u, const Tensor& s) { return u.mul(s.cast(u.dtype(), e()).unsqueeze(-2), e()); }
Tensor eye_like(std::int64_t n, DType d) { return Tensor::eye(n, opts(d)); }

// x x^H + n I: Hermitian positive definite.
Tensor spd(Shape shape, DType d, std::uint64_t seed) {
  const Tensor x = random(shape, d, seed);
  const std::int64_t n = shape.back();
  return mm(x, adj(x)).add(eye_like(n, d).mul(ta::Scalar(static_cast<double>(n)), e()), e());
}

// ---- solves -----------------------------------------------------------------------------------

TEST(Linalg, SolveEveryDTypeBatchedAndVector) {
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    const Tensor a = random({3, 5, 5}, d, 1).add(eye_like(5, d).mul(ta::Scalar(3.0), e()), e());
    const Tensor b = random({3, 5, 2}, d, 2);
    const Tensor x = la::solve(a, b, e());
    EXPECT_EQ(x.dtype(), d);
    EXPECT_EQ(x.shape(), (Shape{3, 5, 2}));
    EXPECT_LT(max_diff(mm(a, x), b), tol(d));
    // b with one axis fewer than a is a vector.
    const Tensor bv = random({3, 5}, d, 3);
    const Tensor xv = la::solve(a, bv, e());
    EXPECT_EQ(xv.shape(), (Shape{3, 5}));
    EXPECT_LT(max_diff(mm(a, xv.unsqueeze(-1)).squeeze({-1}), bv), tol(d));
  }
}

TEST(Linalg, SolveBroadcastsBatchesAndReadsStridedViews) {
  const Tensor a = random({2, 1, 4, 4}, DType::F64, 4).add(eye_like(4, DType::F64).mul(ta::Scalar(3.0), e()), e());
  const Tensor b = random({3, 4, 2}, DType::F64, 5);
  const Tensor x = la::solve(a, b, e());
  EXPECT_EQ(x.shape(), (Shape{2, 3, 4, 2}));
  EXPECT_LT(max_diff(mm(a, x), b.broadcast_to({2, 3, 4, 2})), 1e-12);
  // A transposed view is solved as the matrix it shows.
  const Tensor at = a.transpose(-2, -1);
  EXPECT_LT(max_diff(mm(at, la::solve(at, b, e())), b.broadcast_to({2, 3, 4, 2})), 1e-12);
}

TEST(Linalg, SolveTriangularEveryForm) {
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    const Tensor base = random({2, 4, 4}, d, 6).add(eye_like(4, d).mul(ta::Scalar(4.0), e()), e());
    for (bool upper : {false, true})
      for (bool left : {true, false})
        for (bool unit : {false, true}) {
          SCOPED_TRACE(std::string(upper ? "upper" : "lower") + (left ? " left" : " right") + (unit ? " unit" : ""));
          // The triangle the solve reads; the other one holds garbage that must be ignored.
          Tensor t = upper ? base.triu(0, e()) : base.tril(0, e());
          if (unit) t = t.sub(t.diagonal(0, -2, -1).embed_diag(0, e()), e()).add(eye_like(4, d), e());
          const Tensor b = random(left ? Shape{2, 4, 3} : Shape{2, 3, 4}, d, 7);
          const Tensor x = la::solve_triangular(base, b, {.upper = upper, .left = left, .unit_diagonal = unit}, e());
          EXPECT_LT(max_diff(left ? mm(t, x) : mm(x, t), b), tol(d));
        }
  }
}

// ---- factorizations ---------------------------------------------------------------------------

TEST(Linalg, CholeskyLowerAndUpper) {
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    const Tensor a = spd({3, 4, 4}, d, 8);
    const Tensor l = la::cholesky(a, e());
    EXPECT_LT(max_diff(mm(l, adj(l)), a), tol(d) * 10);
    EXPECT_LT(max_diff(l.triu(1, e()), Tensor::zeros({3, 4, 4}, opts(d))), 0.0 + 1e-300);
    const Tensor u = la::cholesky(a, {.upper = true}, e());
    EXPECT_LT(max_diff(mm(adj(u), u), a), tol(d) * 10);
    EXPECT_LT(max_diff(u, adj(l)), tol(d));
  }
}

TEST(Linalg, QrModesAndGauge) {
  for (DType d : kDTypes)
    for (Shape shape : {Shape{2, 5, 3}, Shape{2, 3, 5}}) {
      SCOPED_TRACE(std::string(ta::name(d)) + " " + ta::to_string(shape));
      const Tensor a = random(shape, d, 9);
      const std::int64_t m = shape[1], n = shape[2], k = std::min(m, n);
      auto [q, r] = la::qr(a, e());
      EXPECT_EQ(q.shape(), (Shape{2, m, k}));
      EXPECT_EQ(r.shape(), (Shape{2, k, n}));
      EXPECT_LT(max_diff(mm(q, r), a), tol(d));
      EXPECT_LT(max_diff(mm(adj(q), q), eye_like(k, d).broadcast_to({2, k, k})), tol(d));
      EXPECT_LT(max_diff(r.tril(-1, e()), Tensor::zeros(r.shape(), opts(d))), 1e-300);
      for (cd v : values(r.diagonal(0, -2, -1))) {  // the gauge: diag(r) real, non-negative
        EXPECT_GE(v.real(), 0);
        EXPECT_EQ(v.imag(), 0);
      }
      const la::QR c = la::qr(a, {.mode = la::QrMode::Complete}, e());
      EXPECT_EQ(c.q.shape(), (Shape{2, m, m}));
      EXPECT_EQ(c.r.shape(), (Shape{2, m, n}));
      EXPECT_LT(max_diff(mm(c.q, c.r), a), tol(d));
      EXPECT_LT(max_diff(mm(adj(c.q), c.q), eye_like(m, d).broadcast_to({2, m, m})), tol(d));
      const la::QR ro = la::qr(a, {.mode = la::QrMode::R}, e());
      EXPECT_FALSE(ro.q.defined());
      EXPECT_LT(max_diff(ro.r, r), tol(d));
    }
}

// Bitwise equality of two buffers (memcmp must not see the null data() of an empty vector).
template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// gauge_qr sweeps r column by column (and gauge_columns the paired rows); the result is bit for
// bit the definition's, row i of r
// times conj(phase(r(i, i))) and column i of q times the phase, diag(r) made real, with
// positive, negative and zero pivots (a zero's phase is 1), a wide and a tall r.
template <class T>
void check_gauge_qr(std::int64_t m, std::int64_t k, std::int64_t n) {
  const std::int64_t ld_r = k + 1, ld_q = m + 2;
  std::vector<T> r(static_cast<std::size_t>(ld_r * n)), q(static_cast<std::size_t>(ld_q * k));
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) / 9007199254740992.0 * 2 - 1;
  };
  for (auto& v : r) {
    if constexpr (std::is_same_v<T, double>) v = next();
    else v = T(next(), next());
  }
  for (auto& v : q) {
    if constexpr (std::is_same_v<T, double>) v = next();
    else v = T(next(), next());
  }
  if (std::min(k, n) > 2) r[static_cast<std::size_t>(2 + 2 * ld_r)] = T(0);
  std::vector<T> want_r = r, want_q = q;
  for (std::int64_t i = 0; i < std::min(k, n); ++i) {
    const T ph = ta::linalg_detail::phase_of(want_r[static_cast<std::size_t>(i + i * ld_r)]);
    if (ph == T(1)) continue;
    for (std::int64_t c = i; c < n; ++c) want_r[static_cast<std::size_t>(i + c * ld_r)] *= ta::linalg_detail::conj_of(ph);
    if constexpr (!std::is_same_v<T, double>) {
      auto& diag = want_r[static_cast<std::size_t>(i + i * ld_r)];
      diag = T(diag.real(), 0);
    }
    for (std::int64_t row = 0; row < m; ++row) want_q[static_cast<std::size_t>(row + i * ld_q)] *= ph;
  }
  ta::linalg_detail::gauge_qr(q.data(), m, ld_q, r.data(), k, n, ld_r);
  EXPECT_TRUE(same_bits(r, want_r));
  EXPECT_TRUE(same_bits(q, want_q));
  // gauge_columns with paired rows (the SVD's u and vh): q's k columns (m rows) and r's rows,
  // every column a phase, row j of r times it.
  std::vector<T> u = q, vh = r, want_u = q, want_vh = r;
  for (std::int64_t j = 0; j < k; ++j) {
    std::int64_t best = 0;
    for (std::int64_t i = 1; i < m; ++i)
      if (std::abs(want_u[static_cast<std::size_t>(i + j * ld_q)]) > std::abs(want_u[static_cast<std::size_t>(best + j * ld_q)])) best = i;
    const T ph = ta::linalg_detail::phase_of(want_u[static_cast<std::size_t>(best + j * ld_q)]);
    if (ph == T(1)) continue;
    for (std::int64_t i = 0; i < m; ++i) want_u[static_cast<std::size_t>(i + j * ld_q)] *= ta::linalg_detail::conj_of(ph);
    if (j < std::min(k, n))
      for (std::int64_t c = 0; c < n; ++c) want_vh[static_cast<std::size_t>(j + c * ld_r)] *= ph;
  }
  ta::linalg_detail::gauge_columns(u.data(), m, k, ld_q, vh.data(), n, ld_r, std::min(k, n));
  EXPECT_TRUE(same_bits(u, want_u));
  EXPECT_TRUE(same_bits(vh, want_vh));
}

TEST(LinalgGauge, QrAndPairedColumnGaugesAreTheRowByRowDefinitions) {
  for (auto [m, k, n] : {std::array<std::int64_t, 3>{9, 5, 7}, {9, 7, 5}, {6, 6, 6}, {4, 0, 3}}) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n));
    check_gauge_qr<double>(m, k, n);
    check_gauge_qr<cd>(m, k, n);
  }
}

TEST(Linalg, SvdReducedFullAndValues) {
  for (DType d : kDTypes)
    for (Shape shape : {Shape{3, 5, 3}, Shape{3, 3, 5}, Shape{4, 4}}) {
      SCOPED_TRACE(std::string(ta::name(d)) + " " + ta::to_string(shape));
      const Tensor a = random(shape, d, 10);
      const std::int64_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
      auto [u, s, vh] = la::svd(a, e());
      EXPECT_EQ(s.dtype(), ta::is_complex(d) ? (d == DType::C64 ? DType::F32 : DType::F64) : d);
      EXPECT_EQ(u.shape().back(), k);
      EXPECT_LT(max_diff(mm(scale_cols(u, s), vh), a), tol(d));
      EXPECT_LT(max_diff(mm(adj(u), u), eye_like(k, d).broadcast_to(Shape(shape.begin(), shape.end() - 2)
                                                                         .empty() ? Shape{k, k} : Shape{3, k, k})),
                tol(d));
      const auto sv = values(s);
      // Descending along the last axis of (batch..., k), column-major: stride = batch count.
      const std::int64_t count = ta::numel(s.shape()) / k;
      for (std::int64_t j = 0; j < count; ++j)
        for (std::int64_t i = 0; i + 1 < k; ++i)
          EXPECT_GE(sv[static_cast<std::size_t>(j + i * count)].real(), sv[static_cast<std::size_t>(j + (i + 1) * count)].real());
      EXPECT_LT(max_diff(la::svdvals(a, e()), s), tol(d));
      const la::SVD f = la::svd(a, {.full_matrices = true}, e());
      EXPECT_EQ(f.u.shape()[f.u.shape().size() - 2], m);
      EXPECT_EQ(f.u.shape().back(), m);
      EXPECT_EQ(f.vh.shape().back(), n);
      EXPECT_EQ(f.vh.shape()[f.vh.shape().size() - 2], n);
      const Tensor uk = f.u.slice(-1, 0, k), vk = f.vh.slice(-2, 0, k);
      EXPECT_LT(max_diff(mm(scale_cols(uk, f.s), vk), a), tol(d));
      EXPECT_LT(max_diff(mm(f.vh, adj(f.vh)), eye_like(n, d).broadcast_to(f.vh.shape())), tol(d));
    }
}

TEST(Linalg, SvdGaugeLargestEntryOfEachUColumnIsRealPositive) {
  const Tensor a = random({6, 4}, DType::C128, 11);
  const la::SVD r = la::svd(a, e());
  const auto u = values(r.u);
  for (int j = 0; j < 4; ++j) {
    int best = 0;
    for (int i = 1; i < 6; ++i)
      if (std::abs(u[static_cast<std::size_t>(i + 6 * j)]) > std::abs(u[static_cast<std::size_t>(best + 6 * j)])) best = i;
    EXPECT_GT(u[static_cast<std::size_t>(best + 6 * j)].real(), 0);
    EXPECT_NEAR(u[static_cast<std::size_t>(best + 6 * j)].imag(), 0, 1e-15);
  }
}

TEST(Linalg, TruncatedSvdKeepsLeadingTripletsAndReportsDiscardedWeight) {
  // A rank-3 8 x 6 matrix plus a tiny perturbation.
  const Tensor a = mm(random({8, 3}, DType::F64, 12), random({3, 6}, DType::F64, 13))
                       .add(random({8, 6}, DType::F64, 14).mul(ta::Scalar(1e-9), e()), e());
  const la::SVD full = la::svd(a, e());
  const la::SVD t = la::svd(a, {.max_rank = 2}, e());
  EXPECT_EQ(t.u.shape(), (Shape{8, 2}));
  EXPECT_EQ(t.s.shape(), (Shape{2}));
  EXPECT_EQ(t.vh.shape(), (Shape{2, 6}));
  const auto s = full.s.to_vec<double>();
  double dropped = 0;
  for (std::size_t i = 2; i < s.size(); ++i) dropped += s[i] * s[i];
  EXPECT_NEAR(t.discarded_weight.item<double>(), dropped, 1e-12 * dropped);
  // A relative cutoff drops the perturbation's singular values only.
  const la::SVD c = la::svd(a, {.cutoff = 1e-6}, e());
  EXPECT_EQ(c.s.shape(), (Shape{3}));
  EXPECT_LT(c.discarded_weight.item<double>(), 1e-15);
  // An absolute cutoff above every value still keeps one triplet.
  EXPECT_EQ(la::svd(a, {.cutoff = 1e9, .relative_cutoff = false}, e()).s.shape(), (Shape{1}));
  // Untruncated: nothing discarded.
  EXPECT_EQ(full.discarded_weight.item<double>(), 0.0);
  // Batched: the kept rank is the largest any matrix needs.
  const Tensor b = ta::stack({a, mm(random({8, 1}, DType::F64, 15), random({1, 6}, DType::F64, 16))}, 0, e());
  const la::SVD bt = la::svd(b, {.cutoff = 1e-6}, e());
  EXPECT_EQ(bt.s.shape(), (Shape{2, 3}));
}

TEST(Linalg, EighAscendingReconstructsAndReadsOneTriangle) {
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    const Tensor x = random({2, 5, 5}, d, 17);
    const Tensor a = x.add(adj(x), e());
    auto [w, v] = la::eigh(a, e());
    EXPECT_EQ(w.dtype(), ta::is_complex(d) ? (d == DType::C64 ? DType::F32 : DType::F64) : d);
    EXPECT_LT(max_diff(mm(scale_cols(v, w), adj(v)), a), tol(d) * 10);
    EXPECT_LT(max_diff(mm(adj(v), v), eye_like(5, d).broadcast_to({2, 5, 5})), tol(d));
    const auto wv = values(w);
    for (std::int64_t j = 0; j < 2; ++j)
      for (std::int64_t i = 0; i + 1 < 5; ++i)
        EXPECT_LE(wv[static_cast<std::size_t>(j + i * 2)].real(), wv[static_cast<std::size_t>(j + (i + 1) * 2)].real());
    // Only the named triangle is read: garbage in the other one changes nothing.
    const Tensor lower_only = a.tril(0, e()).add(random({2, 5, 5}, d, 18).triu(1, e()), e());
    EXPECT_LT(max_diff(la::eigvalsh(lower_only, e()), w), tol(d) * 10);
    const Tensor upper_only = a.triu(0, e()).add(random({2, 5, 5}, d, 19).tril(-1, e()), e());
    EXPECT_LT(max_diff(la::eigvalsh(upper_only, {.upper = true}, e()), w), tol(d) * 10);
  }
}

TEST(Linalg, LuFactorsAndSolves) {
  for (DType d : kDTypes)
    for (Shape shape : {Shape{2, 4, 4}, Shape{2, 5, 3}, Shape{2, 3, 5}}) {
      SCOPED_TRACE(std::string(ta::name(d)) + " " + ta::to_string(shape));
      const Tensor a = random(shape, d, 20);
      auto [p, l, u] = la::lu(a, e());
      EXPECT_LT(max_diff(mm(mm(p, l), u), a), tol(d));
      EXPECT_LT(max_diff(u.tril(-1, e()), Tensor::zeros(u.shape(), opts(d))), 1e-300);
    }
  const Tensor a = random({3, 4, 4}, DType::F64, 21).add(eye_like(4, DType::F64), e());
  const la::LUFactor f = la::lu_factor(a, e());
  EXPECT_EQ(f.pivots.dtype(), DType::I32);
  EXPECT_EQ(f.pivots.shape(), (Shape{3, 4}));
  const Tensor b = random({3, 4, 2}, DType::F64, 22);
  EXPECT_LT(max_diff(la::lu_solve(f, b, e()), la::solve(a, b, e())), 1e-13);
}

// solve and inv are one primitive per matrix (factor, then substitute; the factors are never
// stored): the same bits as lu_factor then lu_solve, on the small-matrix kernels (n <= 8) and on
// LAPACK, and a singular or non-finite matrix named as lu_factor would name it.
TEST(Linalg, SolveIsLuFactorThenLuSolveInOnePass) {
  ta::ReferenceEngine ref;
  for (DType d : kDTypes)
    for (std::int64_t n : {3, 8, 13}) {
      SCOPED_TRACE(std::string(ta::name(d)) + " n = " + std::to_string(n));
      const Tensor a = random({19, n, n}, d, 40 + static_cast<std::uint64_t>(n)), b = random({19, n, 2}, d, 41);
      const Tensor x = la::solve(a, b, e());
      EXPECT_EQ(values(x), values(la::lu_solve(la::lu_factor(a, e()), b, e())));
      const Tensor eye = Tensor::eye(n, opts(d)).broadcast_to({19, n, n});
      EXPECT_EQ(values(la::inv(a, e())), values(la::lu_solve(la::lu_factor(a, e()), eye, e())));
      EXPECT_LT(max_diff(x, la::solve(a, b, ref)), tol(d) * 100);
    }
  // Matrix 5 of 12 singular (n = 10: LAPACK's path), the error as lu_factor's info names it.
  std::vector<double> v = random({12, 10, 10}, DType::F64, 42).to_vec<double>();
  for (std::int64_t c = 0; c < 10; ++c) v[static_cast<std::size_t>(5 + 12 * (3 + 10 * c))] = 0;  // row 3 zero
  const Tensor sing = Tensor::from_vec_col_major({12, 10, 10}, v);
  const Tensor rhs = random({12, 10}, DType::F64, 43);
  // lu_factor tolerates the singular matrix; its first exactly zero pivot is the info to expect.
  const auto lu = values(la::lu_factor(sing, e()).lu);
  std::int64_t info = 0;
  for (std::int64_t k = 0; k < 10 && info == 0; ++k)
    if (lu[static_cast<std::size_t>(5 + 12 * (k + 10 * k))] == cd(0)) info = k + 1;
  ASSERT_GT(info, 0);
  for (ta::Engine* engine : {static_cast<ta::Engine*>(&e()), static_cast<ta::Engine*>(&ref)})
    for (bool inverse : {false, true}) {
      auto err = expect_error([&] { inverse ? la::inv(sing, *engine) : la::solve(sing, rhs, *engine); });
      EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError);
      EXPECT_EQ(std::string(err.message()), "matrix 5 of the batch is singular (U(" + std::to_string(info) + ", " +
                                                std::to_string(info) + ") of its LU factorization is exactly zero)");
      EXPECT_EQ(std::get<ta::LinAlgFailure>(err.detail()).batch_index, (std::vector<std::int64_t>{5}));
      EXPECT_EQ(std::get<ta::LinAlgFailure>(err.detail()).info, info);
    }
  // A NaN on LAPACK's path is refused before anything is factorized.
  v[static_cast<std::size_t>(2 + 12 * 33)] = std::nan("");  // matrix 2, before the singular one
  const auto err = expect_error([&] { la::solve(Tensor::from_vec_col_major({12, 10, 10}, v), rhs, e()); });
  EXPECT_TRUE(std::get<ta::LinAlgFailure>(err.detail()).non_finite);
  EXPECT_EQ(std::get<ta::LinAlgFailure>(err.detail()).batch_index, (std::vector<std::int64_t>{2}));
}

// ---- determinants, inverses, pseudo-inverses, least squares ----------------------------------

TEST(Linalg, DetAndSlogdetKnownCases) {
  // A rotation has determinant 1; a permuted diagonal the product with the permutation's sign.
  const double c = std::cos(0.3), s = std::sin(0.3);
  const Tensor rot = Tensor::from_vec_row_major({2, 2}, std::vector<double>{c, -s, s, c});
  EXPECT_NEAR(la::det(rot, e()).item<double>(), 1.0, 1e-15);
  const Tensor perm = Tensor::from_vec_row_major({3, 3}, std::vector<double>{0, 2, 0, 3, 0, 0, 0, 0, 5});
  EXPECT_NEAR(la::det(perm, e()).item<double>(), -30.0, 1e-12);
  auto [sign, logabs] = la::slogdet(perm, e());
  EXPECT_EQ(sign.item<double>(), -1.0);
  EXPECT_NEAR(logabs.item<double>(), std::log(30.0), 1e-14);
  // Singular: det 0, slogdet (0, -inf), no error.
  const Tensor sing = Tensor::from_vec_row_major({2, 2}, std::vector<double>{1, 2, 2, 4});
  EXPECT_EQ(la::det(sing, e()).item<double>(), 0.0);
  const la::Slogdet sd = la::slogdet(sing, e());
  EXPECT_EQ(sd.sign.item<double>(), 0.0);
  EXPECT_EQ(sd.logabsdet.item<double>(), -std::numeric_limits<double>::infinity());
  // Complex: det = product of eigenvalues of a triangular matrix; sign has modulus 1.
  const Tensor tri = Tensor::from_vec_row_major({2, 2}, std::vector<cd>{{1, 1}, {5, 0}, {0, 0}, {0, 2}});
  EXPECT_LT(std::abs(la::det(tri, e()).item<cd>() - cd(1, 1) * cd(0, 2)), 1e-15);
  const la::Slogdet cs = la::slogdet(tri, e());
  EXPECT_NEAR(std::abs(cs.sign.item<cd>()), 1.0, 1e-15);
  EXPECT_EQ(cs.logabsdet.dtype(), DType::F64);
  // Batched, every dtype: det(a) det(b) = det(a b).
  for (DType d : kDTypes) {
    const Tensor x = random({3, 4, 4}, d, 23), y = random({3, 4, 4}, d, 24);
    EXPECT_LT(max_diff(la::det(x, e()).mul(la::det(y, e()), e()), la::det(mm(x, y), e())), tol(d));
  }
}

// det is one primitive (the factors never stored): its value is the product of lu_factor's
// signed pivots, multiplied in diagonal order as a product reduction multiplies, so it equals
// that composition exactly, on the small-matrix kernels (n <= 8, real) and on LAPACK's path,
// batched with singular matrices among them, on the serial and parallel engines; the
// reference backend agrees to rounding.
TEST(Linalg, DetIsTheProductOfTheSignedPivots) {
  for (DType d : kDTypes)
    for (std::int64_t n : {1, 2, 3, 4, 5, 8, 9, 12, 33}) {
      SCOPED_TRACE(std::string(ta::name(d)) + " n=" + std::to_string(n));
      Tensor a = random({11, n, n}, d, 90 + static_cast<std::uint64_t>(n));
      {  // matrix 4 exactly singular: its column 0 is zero, so LU meets an exactly zero pivot
        const Tensor col = a.slice(0, 4, 5).slice(2, 0, 1);
        col.sub_into(col, e(), col);
      }
      const la::LUFactor f = la::lu_factor(a, e());
      const Tensor order = Tensor::arange(1, n + 1, {ta::Device::cpu(), DType::I32});
      const Tensor one = Tensor::ones({}, opts(d));
      const Tensor signs = ta::select(f.pivots.eq(order, e()), one.broadcast_to(f.pivots.shape()),
                                      one.neg(e()).broadcast_to(f.pivots.shape()), e());
      const Tensor composed = f.lu.diagonal(0, -2, -1).mul(signs, e()).prod({-1}, e());
      for (ta::Engine* engine : serial_and_parallel()) {
        const Tensor det = la::det(a, *engine);
        ASSERT_EQ(det.shape(), (Shape{11}));
        ASSERT_EQ(det.dtype(), d);
        EXPECT_EQ(values(det), values(composed));
      }
      EXPECT_EQ(values(la::det(a, e()))[4], cd(0, 0));
      ta::ReferenceEngine reference;
      const auto want = values(la::det(a, reference)), got = values(la::det(a, e()));
      for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_LE(std::abs(got[i] - want[i]), tol(d) * static_cast<double>(n) * std::abs(want[i])) << "matrix " << i;
    }
  // A strided stack (every other matrix, transposed) and a 0 x 0 matrix (det 1).
  const Tensor big = random({6, 5, 5}, DType::F64, 97);
  const Tensor view = big.slice(0, 0, 6, 2).transpose(-2, -1);
  EXPECT_EQ(la::det(view, e()).to_vec<double>(), la::det(view.contiguous(), e()).to_vec<double>());
  EXPECT_EQ(la::det(Tensor::zeros({2, 0, 0}, opts(DType::F64)), e()).to_vec<double>(), (std::vector<double>{1, 1}));
}

TEST(Linalg, InvPinvAndHilbert) {
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    const Tensor a = random({2, 4, 4}, d, 25).add(eye_like(4, d).mul(ta::Scalar(2.0), e()), e());
    EXPECT_LT(max_diff(mm(a, la::inv(a, e())), eye_like(4, d).broadcast_to({2, 4, 4})), tol(d));
    // Rank-deficient: the Moore-Penrose conditions a p a = a, p a p = p.
    const Tensor r = mm(random({2, 5, 2}, d, 26), random({2, 2, 4}, d, 27));
    const Tensor p = la::pinv(r, e());
    EXPECT_EQ(p.shape(), (Shape{2, 4, 5}));
    EXPECT_LT(max_diff(mm(mm(r, p), r), r), tol(d) * 10);
    EXPECT_LT(max_diff(mm(mm(p, r), p), p), tol(d) * 10);
    const Tensor h = spd({4, 4}, d, 28);
    EXPECT_LT(max_diff(la::pinv(h, {.hermitian = true}, e()), la::inv(h, e())), tol(d));
  }
  // The 6 x 6 Hilbert matrix (condition ~1.5e7): its inverse has integer entries.
  std::vector<double> hv(36);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) hv[static_cast<std::size_t>(i + 6 * j)] = 1.0 / (i + j + 1);
  const Tensor hilbert = Tensor::from_vec_col_major({6, 6}, hv);
  const auto hi = la::inv(hilbert, e()).to_vec<double>();
  EXPECT_NEAR(hi[0], 36.0, 1e-6);
  EXPECT_NEAR(hi[35], 698544.0, 698544.0 * 1e-7);
  EXPECT_NEAR(hi[2 + 6 * 3], -1411200.0, 1411200.0 * 1e-7);
  const Tensor l = la::cholesky(hilbert, e());
  EXPECT_LT(max_diff(mm(l, adj(l)), hilbert), 1e-15);
}

TEST(Linalg, LstsqOverdeterminedAndRankDeficient) {
  const Tensor a = random({6, 3}, DType::F64, 29);
  const Tensor b = random({6, 2}, DType::F64, 30);
  const la::Lstsq r = la::lstsq(a, b, e());
  // The normal equations a^T a x = a^T b.
  EXPECT_LT(max_diff(mm(mm(adj(a), a), r.solution), mm(adj(a), b)), 1e-12);
  EXPECT_EQ(r.rank.item<std::int64_t>(), 3);
  const Tensor res = mm(a, r.solution).sub(b, e());
  EXPECT_LT(max_diff(r.residuals, res.mul(res, e()).sum({0}, e())), 1e-12);
  // Rank-deficient: the minimum-norm solution equals pinv(a) b, residuals are empty.
  const Tensor d = mm(random({6, 2}, DType::F64, 31), random({2, 3}, DType::F64, 32));
  const la::Lstsq rd = la::lstsq(d, b, e());
  EXPECT_EQ(rd.rank.item<std::int64_t>(), 2);
  EXPECT_EQ(rd.residuals.numel(), 0);
  EXPECT_LT(max_diff(rd.solution, mm(la::pinv(d, e()), b)), 1e-12);
}

// ---- norms and matrix_exp -----------------------------------------------------------------------

TEST(Linalg, NormsAgreeWithTheirDefinitions) {
  const Tensor a = Tensor::from_vec_row_major({2, 3}, std::vector<double>{1, -2, 3, -4, 5, -6});
  auto norm = [&](la::Ord ord) { return la::matrix_norm(a, {.ord = ord}, e()).item<double>(); };
  EXPECT_NEAR(norm("fro"), std::sqrt(91.0), 1e-14);
  EXPECT_NEAR(norm(1), 9.0, 0);
  EXPECT_NEAR(norm(-1), 5.0, 0);
  EXPECT_NEAR(norm(la::inf), 15.0, 0);
  EXPECT_NEAR(norm(-la::inf), 6.0, 0);
  const auto s = la::svdvals(a, e()).to_vec<double>();
  EXPECT_NEAR(norm(2), s[0], 1e-14);
  EXPECT_NEAR(norm(-2), s[1], 1e-14);
  EXPECT_NEAR(norm("nuc"), s[0] + s[1], 1e-14);
  EXPECT_EQ(la::matrix_norm(a, {.keepdims = true}, e()).shape(), (Shape{1, 1}));
  // Axes other than the last two, on a batch.
  const Tensor b = random({3, 4, 2}, DType::C128, 33);
  const Tensor n02 = la::matrix_norm(b, {.axes = {0, 2}}, e());
  EXPECT_EQ(n02.shape(), (Shape{4}));
  EXPECT_NEAR(n02.to_vec<double>()[1], la::matrix_norm(b.slice(1, 1, 2).squeeze({1}), e()).item<double>(), 1e-14);

  const Tensor v = Tensor::from_vec_col_major({4}, std::vector<double>{3, -4, 0, 12});
  auto vnorm = [&](la::Ord ord) { return la::vector_norm(v, {.ord = ord}, e()).item<double>(); };
  EXPECT_NEAR(vnorm(2), 13.0, 1e-14);
  EXPECT_NEAR(vnorm(1), 19.0, 0);
  EXPECT_NEAR(vnorm(la::inf), 12.0, 0);
  EXPECT_NEAR(vnorm(-la::inf), 0.0, 0);
  EXPECT_NEAR(vnorm(0), 3.0, 0);
  EXPECT_NEAR(vnorm(3), std::cbrt(27.0 + 64.0 + 1728.0), 1e-12);
  const Tensor z = Tensor::from_vec_col_major({2}, std::vector<cd>{{3, 4}, {0, 0}});
  EXPECT_NEAR(la::vector_norm(z, e()).item<double>(), 5.0, 1e-15);
  EXPECT_EQ(la::vector_norm(b, {.axes = {1}, .keepdims = true}, e()).shape(), (Shape{3, 1, 2}));
}

TEST(Linalg, MatrixExpKnownCases) {
  // exp([[0, t], [-t, 0]]) is the rotation by t; a large t exercises scaling and squaring.
  for (double t : {0.5, 20.0}) {
    const Tensor a = Tensor::from_vec_row_major({2, 2}, std::vector<double>{0, t, -t, 0});
    const Tensor r = Tensor::from_vec_row_major({2, 2}, std::vector<double>{std::cos(t), std::sin(t), -std::sin(t), std::cos(t)});
    EXPECT_LT(max_diff(la::matrix_exp(a, e()), r), 1e-13 * std::max(1.0, t));
  }
  for (DType d : kDTypes) {
    const Tensor a = random({2, 4, 4}, d, 34);
    const Tensor prod = mm(la::matrix_exp(a, e()), la::matrix_exp(a.neg(e()), e()));
    EXPECT_LT(max_diff(prod, eye_like(4, d).broadcast_to({2, 4, 4})), tol(d) * 10);
  }
  const Tensor diag = Tensor::from_vec_col_major({3}, std::vector<double>{1, -2, 0.5}).embed_diag(0, e());
  EXPECT_LT(max_diff(la::matrix_exp(diag, e()),
                     Tensor::from_vec_col_major({3}, std::vector<double>{std::exp(1.0), std::exp(-2.0), std::exp(0.5)})
                         .embed_diag(0, e())),
            1e-15);
}

// ---- errors -------------------------------------------------------------------------------------

TEST(LinalgErrors, DTypesAndShapes) {
  const Tensor i = Tensor::ones({3, 3}, opts(DType::I32));
  auto err = expect_error([&] { la::inv(i, e()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::UnsupportedDType);
  EXPECT_NE(std::string(err.what()).find("convert"), std::string::npos);
  EXPECT_EQ(expect_error([&] { la::svd(Tensor::ones({2, 2}, opts(DType::F16)), e()); }).kind(),
            ta::ErrorKind::UnsupportedDType);
  err = expect_error([&] { la::cholesky(Tensor::ones({2, 3}, opts(DType::F64)), e()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
  EXPECT_EQ(std::get<ta::ShapeMismatch>(err.detail()).expected, (std::vector<std::int64_t>{2, 2}));
  EXPECT_NE(std::string(err.what()).find("cholesky: a must be square (the last two axes equal), got 2 x 3"),
            std::string::npos);
  err = expect_error([&] { la::det(Tensor::ones({3}, opts(DType::F64)), e()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
  EXPECT_NE(std::string(err.what()).find("at least two axes"), std::string::npos);
  err = expect_error([&] { la::solve(Tensor::eye(3, opts(DType::F64)), Tensor::ones({3, 1}, opts(DType::F32)), e()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
  EXPECT_TRUE(std::holds_alternative<ta::DTypeMismatch>(err.detail()));
  err = expect_error([&] { la::solve(Tensor::eye(3, opts(DType::F64)), Tensor::ones({4, 1}, opts(DType::F64)), e()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
  EXPECT_NE(std::string(err.what()).find("b must have 3 rows"), std::string::npos);
  err = expect_error([&] { la::solve(Tensor::eye(3, opts(DType::F64)).broadcast_to({2, 3, 3}), Tensor::ones({3, 3, 1}, opts(DType::F64)), e()); });
  EXPECT_TRUE(std::holds_alternative<ta::ShapeMismatch>(err.detail()));
  err = expect_error([&] { la::svd(Tensor::eye(3, opts(DType::F64)), {.full_matrices = true, .max_rank = 2}, e()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
  EXPECT_EQ(std::get<ta::InvalidArgument>(err.detail()).argument, "full_matrices");
  err = expect_error([&] { la::svd(Tensor::eye(3, opts(DType::F64)), {.max_rank = 0}, e()); });
  EXPECT_EQ(std::get<ta::InvalidArgument>(err.detail()).argument, "max_rank");
  err = expect_error([&] { la::matrix_norm(Tensor::eye(3, opts(DType::F64)), {.ord = 3}, e()); });
  EXPECT_EQ(std::get<ta::InvalidArgument>(err.detail()).argument, "ord");
  err = expect_error([&] { la::matrix_norm(Tensor::eye(3, opts(DType::F64)), {.axes = {0, 2}}, e()); });
  EXPECT_TRUE(std::holds_alternative<ta::AxisOutOfRange>(err.detail()));
  err = expect_error([&] { la::vector_norm(Tensor::eye(3, opts(DType::F64)), {.ord = "fro"}, e()); });
  EXPECT_EQ(std::get<ta::InvalidArgument>(err.detail()).argument, "ord");
  // An engine on another device.
  ta::ReferenceEngine other(ta::Device::cpu(1));
  err = expect_error([&] { la::qr(Tensor::eye(3, opts(DType::F64)), other); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::DeviceMismatch);
}

TEST(LinalgErrors, NumericalFailuresNameTheMatrixAndInfo) {
  // Matrix 1 of the batch has a negative second leading minor.
  const Tensor good = Tensor::eye(3, opts(DType::F64));
  const Tensor bad = Tensor::from_vec_row_major({3, 3}, std::vector<double>{1, 2, 0, 2, 1, 0, 0, 0, 1});
  auto err = expect_error([&] { la::cholesky(ta::stack({good, bad}, 0, e()), e()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError);
  EXPECT_EQ(std::string(err.message()), "matrix 1 of the batch is not positive definite (leading minor 2 is not positive)");
  auto detail = std::get<ta::LinAlgFailure>(err.detail());
  EXPECT_EQ(detail.batch_index, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(detail.info, 2);
  EXPECT_FALSE(detail.non_finite);
  // A two-axis batch names the index tuple.
  err = expect_error([&] { la::cholesky(ta::stack({good, good, good, bad}, 0, e()).reshape({2, 2, 3, 3}), e()); });
  EXPECT_NE(std::string(err.message()).find("matrix (1, 1) of the batch"), std::string::npos);
  // Singular solve / inv; lu_solve of a singular factor.
  const Tensor sing = Tensor::from_vec_row_major({2, 2}, std::vector<double>{1, 2, 2, 4});
  err = expect_error([&] { la::solve(sing, Tensor::ones({2}, opts(DType::F64)), e()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError);
  EXPECT_EQ(std::string(err.message()), "the matrix is singular (U(2, 2) of its LU factorization is exactly zero)");
  EXPECT_EQ(std::get<ta::LinAlgFailure>(err.detail()).info, 2);
  EXPECT_EQ(expect_error([&] { la::inv(sing, e()); }).kind(), ta::ErrorKind::LinAlgError);
  EXPECT_EQ(expect_error([&] { la::lu_solve(la::lu_factor(sing, e()), Tensor::ones({2}, opts(DType::F64)), e()); }).kind(),
            ta::ErrorKind::LinAlgError);
  err = expect_error([&] { la::solve_triangular(Tensor::zeros({2, 2}, opts(DType::F64)), Tensor::ones({2, 1}, opts(DType::F64)), {}, e()); });
  EXPECT_EQ(std::string(err.message()), "the matrix is singular (diagonal entry 1 is zero)");
  // NaN or infinity: never handed to LAPACK.
  const Tensor nan = Tensor::from_vec_row_major({2, 2}, std::vector<double>{1, std::nan(""), 0, 1});
  for (auto* f : {+[](const Tensor& t) { la::svd(t, e()); }, +[](const Tensor& t) { la::eigh(t, e()); },
                  +[](const Tensor& t) { la::qr(t, e()); }, +[](const Tensor& t) { la::det(t, e()); }}) {
    err = expect_error([&] { f(nan); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError);
    EXPECT_EQ(std::string(err.message()), "the matrix has a NaN or infinity (it is not factorized; check the input)");
    EXPECT_TRUE(std::get<ta::LinAlgFailure>(err.detail()).non_finite);
  }
  // Pivots out of range are refused before LAPACK reads them.
  la::LUFactor f = la::lu_factor(Tensor::eye(2, opts(DType::F64)), e());
  f.pivots = Tensor::from_vec_col_major({2}, std::vector<std::int32_t>{3, 2});
  err = expect_error([&] { la::lu_solve(f, Tensor::ones({2}, opts(DType::F64)), e()); });
  EXPECT_EQ(std::get<ta::InvalidArgument>(err.detail()).argument, "pivots");
}

// The driver's finiteness scan before LAPACK (SIMD: its main loop, its one-vector loop and its
// scalar tail): every non-finite value in any position, real or imaginary part, is refused; the
// finite extremes (largest, smallest subnormal, negative zero) are not. 13 x 11 matrices take LAPACK's path, not the small kernels.
template <class R>
Tensor from_reals(std::int64_t m, std::int64_t n, bool complex, const std::vector<R>& v) {
  if (!complex) return Tensor::from_vec_col_major({m, n}, v);
  std::vector<std::complex<R>> c(v.size() / 2);
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = {v[2 * i], v[2 * i + 1]};
  return Tensor::from_vec_col_major({m, n}, c);
}

template <class R>
void check_finiteness_scan(DType dtype, bool complex) {
  const std::int64_t m = 13, n = 11, reals = m * n * (complex ? 2 : 1);
  for (R bad : {std::numeric_limits<R>::infinity(), -std::numeric_limits<R>::infinity(),
                std::numeric_limits<R>::quiet_NaN()})
    for (std::int64_t at : {std::int64_t{0}, std::int64_t{1}, std::int64_t{37}, reals - 10, reals - 2, reals - 1}) {
      std::vector<R> v(static_cast<std::size_t>(reals), R(0.5));
      v[static_cast<std::size_t>(at)] = bad;
      const Tensor x = from_reals(m, n, complex, v);
      ASSERT_EQ(x.dtype(), dtype);
      const ta::Error err = expect_error([&] { la::qr(x, e()); });
      EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError) << ta::name(dtype) << " " << bad << " at " << at;
      EXPECT_TRUE(std::get<ta::LinAlgFailure>(err.detail()).non_finite) << ta::name(dtype) << " at " << at;
    }
  std::vector<R> v(static_cast<std::size_t>(reals), R(0.5));
  v[0] = std::numeric_limits<R>::max();
  v[1] = -std::numeric_limits<R>::max();
  v[2] = std::numeric_limits<R>::denorm_min();
  v[static_cast<std::size_t>(reals - 1)] = -R(0);
  const Tensor x = from_reals(m, n, complex, v);
  EXPECT_NO_THROW(la::qr(x, e())) << ta::name(dtype);
}

TEST(LinalgErrors, EveryNonFiniteValueIsRefusedBeforeLapack) {
  check_finiteness_scan<float>(DType::F32, false);
  check_finiteness_scan<double>(DType::F64, false);
  check_finiteness_scan<float>(DType::C64, true);
  check_finiteness_scan<double>(DType::C128, true);
}

// ---- engines ------------------------------------------------------------------------------------

TEST(LinalgEngines, ParallelEqualsSerialBitwise) {
  const Tensor a = random({7, 6, 6}, DType::C128, 35);
  const Tensor h = a.add(adj(a), e());
  const la::SVD s1 = la::svd(a, e()), s3 = la::svd(a, parallel3());
  EXPECT_EQ(values(s1.u), values(s3.u));
  EXPECT_EQ(values(s1.s), values(s3.s));
  EXPECT_EQ(values(la::eigh(h, e()).eigenvectors), values(la::eigh(h, parallel3()).eigenvectors));
  EXPECT_EQ(values(la::qr(a, e()).r), values(la::qr(a, parallel3()).r));
  EXPECT_EQ(values(la::solve(a, h, e())), values(la::solve(a, h, parallel3())));
}

// The largest entry of |x|, for residuals relative to the operands' size.
double max_abs(const Tensor& x) {
  double m = 0;
  for (const cd v : values(x)) m = std::max(m, std::abs(v));
  return m;
}

// One matrix larger than a panel (256 columns): LU in panels, the trailing updates and a
// solve's right-hand sides in slabs of 128 columns, on the engine's threads
// (cpu/blocked_factor.hpp). The serial and parallel engines make the same calls, so the bits
// agree; the blocked factors reconstruct the matrix and the solves satisfy their systems.
TEST(LinalgEngines, LargeLuRunsOnTheEnginesThreadsWithTheSerialBits) {
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    const std::int64_t n = 520;  // panels of 256, 256 and 8 columns
    const Tensor a = random({n, n}, d, 50), b = random({n, 300}, d, 51);
    const la::LUFactor f1 = la::lu_factor(a, e()), f3 = la::lu_factor(a, parallel3());
    EXPECT_EQ(values(f1.lu), values(f3.lu));
    EXPECT_EQ(f1.pivots.to_vec<std::int32_t>(), f3.pivots.to_vec<std::int32_t>());
    const Tensor x = la::solve(a, b, e());
    EXPECT_EQ(values(x), values(la::solve(a, b, parallel3())));
    EXPECT_EQ(values(x), values(la::lu_solve(f3, b, parallel3())));
    // Scaled so that the product of 520 pivots stays in F32's range: |det| about e^-5 (complex
    // entries are sqrt(2) larger).
    const Tensor scaled = a.mul(ta::Scalar(ta::is_complex(d) ? 0.125 / std::sqrt(2.0) : 0.125), e());
    const std::vector<cd> det = values(la::det(scaled, e()));
    EXPECT_TRUE(std::isfinite(std::abs(det[0])) && det[0] != cd(0));
    EXPECT_EQ(det, values(la::det(scaled, parallel3())));
    // Backward stable: |a x - b| within a small multiple of n eps |a| |x|.
    EXPECT_LT(max_diff(mm(a, x), b) / (max_abs(a) * max_abs(x) * static_cast<double>(n) * eps(d)), 4.0);
    // Tall and wide: more rows than the panel's, or columns right of the last panel.
    for (const Shape& shape : {Shape{600, 300}, Shape{300, 600}}) {
      const Tensor r = random(shape, d, 52);
      const la::LU p1 = la::lu(r, e()), p3 = la::lu(r, parallel3());
      EXPECT_EQ(values(p1.l), values(p3.l));
      EXPECT_EQ(values(p1.u), values(p3.u));
      EXPECT_EQ(values(p1.p), values(p3.p));
      EXPECT_LT(max_diff(mm(p1.p, mm(p1.l, p1.u)), r) / (max_abs(r) * 300 * eps(d)), 4.0);
    }
  }
}

// A zero pivot in a later panel: the first one (1-based) is LAPACK's info, the same on both
// engines, and the matrix's det is exactly zero although the product of the 400 pivots before
// it overflows (inf * 0 would be NaN).
TEST(LinalgEngines, LargeLuNamesTheFirstZeroPivotOfALaterPanel) {
  const std::int64_t n = 600;
  std::vector<double> v = random({n, n}, DType::F64, 53).to_vec<double>();
  for (std::int64_t r = 0; r < n; ++r) v[static_cast<std::size_t>(r + n * 400)] = 0;  // column 400 zero
  const Tensor a = Tensor::from_vec_col_major({n, n}, v), b = random({n}, DType::F64, 54);
  const std::vector<double> lu = la::lu_factor(a, e()).lu.to_vec<double>();
  double leading = 1;
  for (std::int64_t k = 0; k < 400; ++k) leading *= lu[static_cast<std::size_t>(k + n * k)];
  ASSERT_TRUE(std::isinf(leading)) << "the case needs an overflowing product before the zero pivot";
  for (ta::Engine* engine : serial_and_parallel()) {
    const auto err = expect_error([&] { la::solve(a, b, *engine); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError);
    EXPECT_EQ(std::string(err.message()), "the matrix is singular (U(401, 401) of its LU factorization is exactly zero)");
    EXPECT_EQ(std::get<ta::LinAlgFailure>(err.detail()).info, 401);
    EXPECT_EQ(la::det(a, *engine).item<double>(), 0.0);
  }
}

// QR of a matrix with at least 512 rows and columns: geqrf in panels of 64 columns with the
// trailing columns updated in slabs, Q formed backward in 64-column blocks; the serial bits,
// q r = a and q^H q = I, tall in the reduced (q formed in place) and complete (q wider than a)
// modes, and wide.
TEST(LinalgEngines, LargeQrRunsOnTheEnginesThreadsWithTheSerialBits) {
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    const Tensor a = random({700, 530}, d, 61);
    for (la::QrMode mode : {la::QrMode::Reduced, la::QrMode::Complete}) {
      const la::QR f = la::qr(a, {.mode = mode}, e()), f3 = la::qr(a, {.mode = mode}, parallel3());
      EXPECT_EQ(values(f.q), values(f3.q));
      EXPECT_EQ(values(f.r), values(f3.r));
      const std::int64_t kq = mode == la::QrMode::Reduced ? 530 : 700;
      EXPECT_LT(max_diff(mm(f.q, f.r), a) / (max_abs(a) * 700 * eps(d)), 4.0);
      EXPECT_LT(max_diff(mm(adj(f.q), f.q), eye_like(kq, d)) / (700 * eps(d)), 4.0);
      EXPECT_EQ(max_abs(f.r.tril(-1, e())), 0.0);
    }
    // Wide: the columns right of the last panel are updated by every panel's reflectors.
    const Tensor w = random({530, 700}, d, 62);
    const la::QR g = la::qr(w, e()), g3 = la::qr(w, parallel3());
    EXPECT_EQ(values(g.q), values(g3.q));
    EXPECT_EQ(values(g.r), values(g3.r));
    EXPECT_LT(max_diff(mm(g.q, g.r), w) / (max_abs(w) * 700 * eps(d)), 4.0);
    EXPECT_LT(max_diff(mm(adj(g.q), g.q), eye_like(530, d)) / (700 * eps(d)), 4.0);
  }
}

// A triangular solve with many right-hand sides takes them in slabs of 128 on the engine's
// threads: the serial bits, a x = b, and a zero diagonal entry named as trtrs names it.
TEST(LinalgEngines, TriangularSolvesTakeRightHandSidesInSlabs) {
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    const Tensor a = random({300, 300}, d, 57).add(eye_like(300, d).mul(ta::Scalar(30.0), e()), e());
    const Tensor b = random({300, 290}, d, 58);
    for (bool upper : {false, true}) {
      const Tensor x = la::solve_triangular(a, b, {.upper = upper}, e());
      EXPECT_EQ(values(x), values(la::solve_triangular(a, b, {.upper = upper}, parallel3())));
      const Tensor t = upper ? a.triu(0, e()) : a.tril(0, e());
      EXPECT_LT(max_diff(mm(t, x), b) / (max_abs(t) * max_abs(x) * 300 * eps(d)), 4.0);
    }
  }
  std::vector<double> v = random({300, 300}, DType::F64, 59).to_vec<double>();
  v[static_cast<std::size_t>(200 + 300 * 200)] = 0;
  const Tensor a = Tensor::from_vec_col_major({300, 300}, v), b = random({300, 290}, DType::F64, 60);
  for (ta::Engine* engine : serial_and_parallel()) {
    const auto err = expect_error([&] { la::solve_triangular(a, b, {.upper = true}, *engine); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError);
    EXPECT_EQ(std::get<ta::LinAlgFailure>(err.detail()).info, 201);
  }
}

// Cholesky of one matrix larger than a panel, both triangles: panels of 256 columns, the
// trailing updates in slabs of 128 on the engine's threads; the serial bits, and l l^H = a.
TEST(LinalgEngines, LargeCholeskyRunsOnTheEnginesThreadsWithTheSerialBits) {
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    const std::int64_t n = 520;
    const Tensor a = spd({n, n}, d, 55);
    for (bool upper : {false, true}) {
      SCOPED_TRACE(upper ? "upper" : "lower");
      const Tensor f = la::cholesky(a, {.upper = upper}, e());
      EXPECT_EQ(values(f), values(la::cholesky(a, {.upper = upper}, parallel3())));
      // The other triangle is zero (the blocked updates write into it before it is cleared).
      const Tensor other = upper ? f.tril(-1, e()) : f.triu(1, e());
      EXPECT_EQ(max_abs(other), 0.0);
      const Tensor product = upper ? mm(adj(f), f) : mm(f, adj(f));
      EXPECT_LT(max_diff(product, a) / (max_abs(a) * static_cast<double>(n) * eps(d)), 4.0);
    }
  }
  // A leading minor that fails in a later panel: its order is LAPACK's info, on both engines.
  std::vector<double> v = spd({600, 600}, DType::F64, 56).to_vec<double>();
  v[static_cast<std::size_t>(400 + 600 * 400)] = -1e6;
  const Tensor bad = Tensor::from_vec_col_major({600, 600}, v);
  for (ta::Engine* engine : serial_and_parallel())
    for (bool upper : {false, true}) {
      const auto err = expect_error([&] { la::cholesky(bad, {.upper = upper}, *engine); });
      EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError);
      EXPECT_EQ(std::string(err.message()), "the matrix is not positive definite (leading minor 401 is not positive)");
      EXPECT_EQ(std::get<ta::LinAlgFailure>(err.detail()).info, 401);
    }
}

// One Hermitian matrix of order 256 or more: the tridiagonal reduction in panels of 32
// columns, each column's product with the trailing matrix cut into column blocks and the
// trailing updates into slabs, then Q applied to the eigenvectors in slabs
// (cpu/blocked_tridiagonal.cpp). Both engines make the same calls, so the bits agree; a known
// spectrum comes back, the vectors are orthonormal and reconstruct a, and the triangle not named
// is never read (a complex diagonal entry's imaginary part neither).
TEST(LinalgEngines, LargeEighRunsOnTheEnginesThreadsWithTheSerialBits) {
  const std::int64_t n = 520;  // 12 panels, then a tail of 136 columns for one LAPACK sytrd
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    const Tensor q = la::qr(random({n, n}, d, 57), e()).q;
    const Tensor lambda = Tensor::linspace(-1.0, 2.0, n, opts(ta::real_dtype(d)));
    Tensor a = mm(scale_cols(q, lambda), adj(q));
    a = a.add(adj(a), e()).mul(ta::Scalar(0.5), e());  // exactly Hermitian
    for (bool upper : {false, true}) {
      SCOPED_TRACE(upper ? "upper" : "lower");
      // The other triangle holds unrelated values, which must not change anything.
      const Tensor junk = random({n, n}, d, 58).mul(ta::Scalar(1e3), e());
      Tensor given = upper ? a.triu(0, e()).add(junk.tril(-1, e()), e()) : a.tril(0, e()).add(junk.triu(1, e()), e());
      if (ta::is_complex(d)) given = given.add(eye_like(n, d).mul(ta::Scalar(cd(0, 5)), e()), e());
      const la::Eigh f = la::eigh(given, {.upper = upper}, e()), f3 = la::eigh(given, {.upper = upper}, parallel3());
      EXPECT_EQ(values(f.eigenvalues), values(f3.eigenvalues));
      EXPECT_EQ(values(f.eigenvectors), values(f3.eigenvectors));
      const Tensor w = la::eigvalsh(given, {.upper = upper}, e());
      EXPECT_EQ(values(w), values(la::eigvalsh(given, {.upper = upper}, parallel3())));
      const double unit = static_cast<double>(n) * eps(d);
      EXPECT_LT(max_diff(w, lambda) / unit, 2.0);
      EXPECT_LT(max_diff(f.eigenvalues, lambda) / unit, 2.0);
      const Tensor& v = f.eigenvectors;
      EXPECT_LT(max_diff(mm(adj(v), v), eye_like(n, d)) / unit, 2.0);
      EXPECT_LT(max_diff(mm(scale_cols(v, f.eigenvalues), adj(v)), a) / (max_abs(a) * unit), 2.0);
    }
  }
}

// A stack of such matrices: the engine's threads split the stack, each matrix's blocked pieces
// then run on its task's thread, and every matrix gets the bits it gets alone.
TEST(LinalgEngines, StackOfLargeEighMatricesGivesEachItsOwnBits) {
  const std::int64_t n = 260;  // the smallest blocked orders: 4 panels, then the tail
  const Tensor x = random({2, n, n}, DType::C128, 60);
  const Tensor a = x.add(adj(x), e());
  for (ta::Engine* engine : serial_and_parallel()) {
    const la::Eigh f = la::eigh(a, *engine);
    for (std::int64_t k = 0; k < 2; ++k) {
      const auto at = [k](const Tensor& t) { return t.slice(0, k, k + 1).squeeze({0}); };
      const la::Eigh one = la::eigh(at(a), e());
      EXPECT_EQ(values(at(f.eigenvalues)), values(one.eigenvalues));
      EXPECT_EQ(values(at(f.eigenvectors)), values(one.eigenvectors));
    }
  }
}

// The SVD of one real matrix with 160 or more rows and columns: the bidiagonal reduction in
// panels of 32, each column's two products with the trailing matrix in fixed blocks, the
// trailing updates in slabs, Q and P applied to the bidiagonal matrix's vectors in slabs
// (cpu/blocked_bidiagonal.cpp). Both engines give the same bits; a known spectrum comes back,
// tall and wide, the vectors are orthonormal and reconstruct a, reduced and complete. Complex
// matrices, and shapes past gesdd's 11/6 ratio, are one gesdd call; the same checks hold.
TEST(LinalgEngines, LargeSvdRunsOnTheEnginesThreadsWithTheSerialBits) {
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    for (const auto& [m, n] :
         {std::pair<std::int64_t, std::int64_t>{520, 400}, {400, 520}, {200, 180}, {300, 600}}) {
      SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
      const std::int64_t k = std::min(m, n);
      const Tensor u = la::qr(random({m, k}, d, 61), e()).q, v = la::qr(random({n, k}, d, 62), e()).q;
      const Tensor sigma = Tensor::linspace(3.0, 0.5, k, opts(ta::real_dtype(d)));  // descending
      const Tensor a = mm(scale_cols(u, sigma), adj(v));
      const Tensor s = la::svdvals(a, e());
      EXPECT_EQ(values(s), values(la::svdvals(a, parallel3())));
      const double unit = static_cast<double>(std::max(m, n)) * eps(d) * 3.0;
      EXPECT_LT(max_diff(s, sigma) / unit, 2.0);
      for (bool full : {false, true}) {
        SCOPED_TRACE(full ? "complete" : "reduced");
        const la::SVD f = la::svd(a, {.full_matrices = full}, e()), f3 = la::svd(a, {.full_matrices = full}, parallel3());
        EXPECT_EQ(values(f.u), values(f3.u));
        EXPECT_EQ(values(f.s), values(f3.s));
        EXPECT_EQ(values(f.vh), values(f3.vh));
        EXPECT_LT(max_diff(f.s, sigma) / unit, 2.0);
        const std::int64_t ku = full ? m : k, kv = full ? n : k;
        EXPECT_LT(max_diff(mm(adj(f.u), f.u), eye_like(ku, d)) / unit, 2.0);
        EXPECT_LT(max_diff(mm(f.vh, adj(f.vh)), eye_like(kv, d)) / unit, 2.0);
        EXPECT_LT(max_diff(mm(scale_cols(f.u.slice(-1, 0, k), f.s), f.vh.slice(-2, 0, k)), a) / unit, 2.0);
      }
    }
  }
  // gesdd's scaling: entries far outside [sqrt(min) / eps, its reciprocal] are scaled into it.
  const Tensor q = la::qr(random({300, 300}, DType::F64, 63), e()).q;
  const Tensor sigma = Tensor::linspace(2.0, 1.0, 300, opts(DType::F64));
  const Tensor a = mm(scale_cols(q, sigma), adj(q));
  for (double scale : {1e300, 1e-300})
    for (ta::Engine* engine : serial_and_parallel()) {
      const Tensor s = la::svdvals(a.mul(ta::Scalar(scale), e()), *engine).mul(ta::Scalar(1 / scale), e());
      EXPECT_LT(max_diff(s, sigma), 1e-12) << scale;
    }
}

// syevd's scaling, kept by the blocked path: entries far outside [sqrt(min / eps), sqrt(max * eps)]
// are scaled into it before the reduction (whose sums of squares would overflow or underflow)
// and the eigenvalues scaled back.
TEST(LinalgEngines, LargeEighOfHugeAndTinyEntries) {
  const std::int64_t n = 400;
  const Tensor q = la::qr(random({n, n}, DType::F64, 59), e()).q;
  const Tensor lambda = Tensor::linspace(1.0, 2.0, n, opts(DType::F64));
  const Tensor a = mm(scale_cols(q, lambda), adj(q));
  for (double scale : {1e306, 1e-305}) {
    SCOPED_TRACE(scale);
    const Tensor s = a.mul(ta::Scalar(scale), e());
    for (ta::Engine* engine : serial_and_parallel()) {
      const Tensor w = la::eigvalsh(s, *engine).mul(ta::Scalar(1 / scale), e());
      EXPECT_LT(max_diff(w, lambda), 1e-12);
      const la::Eigh f = la::eigh(s, *engine);
      EXPECT_LT(max_diff(f.eigenvalues.mul(ta::Scalar(1 / scale), e()), lambda), 1e-12);
      EXPECT_LT(max_diff(mm(adj(f.eigenvectors), f.eigenvectors), eye_like(n, DType::F64)), 1e-12);
    }
  }
}

// det's rule for an exactly zero pivot, on the small-matrix kernels (F64: lane arithmetic; C128:
// DetProduct per lane) and the reference engine: zero, not inf * 0.
TEST(LinalgEngines, DetOfASingularMatrixIsZeroWhenThePivotProductOverflows) {
  ta::ReferenceEngine ref;
  for (DType d : {DType::F64, DType::C128}) {
    const Tensor a = Tensor::from_vec_col_major({3, 3}, std::vector<double>{1e300, 0, 0, 0, 1e300, 0, 0, 0, 0})
                         .cast(d, e());
    for (ta::Engine* engine : {static_cast<ta::Engine*>(&e()), static_cast<ta::Engine*>(&parallel3()),
                               static_cast<ta::Engine*>(&ref)}) {
      EXPECT_EQ(values(la::det(a, *engine)), std::vector<cd>{cd(0)}) << ta::name(d);
      EXPECT_EQ(values(la::det(a.unsqueeze(0).broadcast_to({9, 3, 3}), *engine)), std::vector<cd>(9, cd(0)));
    }
  }
}

TEST(LinalgEngines, ReferenceEngineAgrees) {
  // The reference backend's textbook algorithms in long double against LAPACK: the gauge makes
  // every factor unique for these generic matrices, so factors compare directly.
  ta::ReferenceEngine ref;
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    const double t = tol(d) * 10;
    const Tensor a = random({2, 5, 3}, d, 40), sq = random({2, 4, 4}, d, 41).add(eye_like(4, d), e());
    const Tensor h = sq.add(adj(sq), e()), p = spd({2, 4, 4}, d, 42), b = random({2, 4, 2}, d, 43);
    EXPECT_LT(max_diff(la::cholesky(p, ref), la::cholesky(p, e())), t);
    EXPECT_LT(max_diff(la::solve(sq, b, ref), la::solve(sq, b, e())), t);
    EXPECT_LT(max_diff(la::solve_triangular(sq, b, {.upper = true}, ref), la::solve_triangular(sq, b, {.upper = true}, e())), t);
    const la::LUFactor fr = la::lu_factor(sq, ref), fc = la::lu_factor(sq, e());
    EXPECT_EQ(fr.pivots.to_vec<std::int32_t>(), fc.pivots.to_vec<std::int32_t>());
    EXPECT_LT(max_diff(fr.lu, fc.lu), t);
    for (la::QrMode mode : {la::QrMode::Reduced, la::QrMode::Complete}) {
      const la::QR qr = la::qr(a, {.mode = mode}, ref), qc = la::qr(a, {.mode = mode}, e());
      EXPECT_LT(max_diff(qr.r, qc.r), t);
      if (mode == la::QrMode::Reduced) {
        EXPECT_LT(max_diff(qr.q, qc.q), t);
      }
      EXPECT_LT(max_diff(mm(qr.q, qr.r), a), t);
    }
    const la::SVD sr = la::svd(a, ref), sc = la::svd(a, e());
    EXPECT_LT(max_diff(sr.s, sc.s), t);
    EXPECT_LT(max_diff(sr.u, sc.u), t);
    EXPECT_LT(max_diff(sr.vh, sc.vh), t);
    const la::SVD fr2 = la::svd(a, {.full_matrices = true}, ref);
    EXPECT_LT(max_diff(mm(adj(fr2.u), fr2.u), eye_like(5, d).broadcast_to({2, 5, 5})), t);
    const la::Eigh er = la::eigh(h, ref), ec = la::eigh(h, e());
    EXPECT_LT(max_diff(er.eigenvalues, ec.eigenvalues), t);
    EXPECT_LT(max_diff(er.eigenvectors, ec.eigenvectors), t);
    EXPECT_LT(max_diff(la::det(sq, ref), la::det(sq, e())), t);
  }
  // The same error, whichever backend.
  const Tensor bad = Tensor::from_vec_row_major({2, 2}, std::vector<double>{1, 2, 2, 1});
  EXPECT_EQ(std::string(expect_error([&] { la::cholesky(bad, ref); }).message()),
            std::string(expect_error([&] { la::cholesky(bad, e()); }).message()));
}

TEST(LinalgEngines, StructuredBindingsAndBackendName) {
  const Tensor a = random({4, 3}, DType::F64, 36);
  auto [u, s, vh] = la::svd(a, e());
  auto [q, r] = la::qr(a, e());
  auto [w, v] = la::eigh(mm(adj(a), a), e());
  EXPECT_EQ(u.shape(), (Shape{4, 3}));
  EXPECT_EQ(q.shape(), (Shape{4, 3}));
  EXPECT_EQ(w.shape(), (Shape{3}));
  EXPECT_NE(ta::lapack_backend(), "none");
}

TEST(LinalgEngines, OneLapackThreadWhateverAnotherLibrarySetSince) {
  // OpenBLAS's thread count is process-wide, and LibTorch or NumPy in the same process may
  // raise it after tensora loaded OpenBLAS. tensora's calls set it back to one (docs/linalg.md,
  // "Threads"), so a large factorization keeps the bits of the one-threaded call.
  if (ta::lapack_backend().rfind("OpenBLAS", 0) != 0) GTEST_SKIP() << ta::lapack_backend();
  void* openblas = ::dlopen("libopenblas.so.0", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(openblas, nullptr) << "tensora's LAPACK is OpenBLAS, so it is loaded";
  const auto get_threads = reinterpret_cast<int (*)()>(::dlsym(openblas, "openblas_get_num_threads"));
  const auto set_threads = reinterpret_cast<void (*)(int)>(::dlsym(openblas, "openblas_set_num_threads"));
  ASSERT_TRUE(get_threads != nullptr && set_threads != nullptr);
  const Tensor a = random({400, 400}, DType::F64, 42), b = random({400, 3}, DType::F64, 43);
  const std::vector<cd> alone = values(la::solve(a, b, e()));
  set_threads(2);  // what the other library does
  const std::vector<cd> after = values(la::solve(a, b, e()));
  EXPECT_EQ(get_threads(), 1);
  EXPECT_EQ(after, alone);
  set_threads(1);
  ::dlclose(openblas);
}

}  // namespace
