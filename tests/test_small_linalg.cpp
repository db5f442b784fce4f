// The CPU backend's batched small-matrix kernels (src/cpu/small_linalg.cpp): every order 1..8 in
// F32 and F64 against the reference engine (the same pivots, factors and eigenpairs to rounding), partial
// groups, strided and broadcast batches, failures named at the right matrix, the same bits on
// every instruction set and thread count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <cstdint>
#include <string>
#include <vector>

#include "cpu/gemm_kernels.hpp"
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

using linalg_test::e;
using linalg_test::max_diff;
using linalg_test::opts;
using linalg_test::random;
using linalg_test::values;

double tol(DType d) { return d == DType::F32 ? 2e-4 : 1e-11; }

// x x^T + n I: symmetric positive definite.
Tensor spd(Shape shape, DType d, std::uint64_t seed) {
  const Tensor x = random(shape, d, seed);
  const std::int64_t n = shape.back();
  return x.matmul(x.transpose(-2, -1), e()).add(Tensor::eye(n, opts(d)).mul(ta::Scalar(static_cast<double>(n)), e()), e());
}

TEST(SmallLinalg, EveryOrderAgainstTheReferenceEngine) {
  ta::ReferenceEngine ref;
  for (DType d : {DType::F32, DType::F64})
    for (std::int64_t n = 1; n <= 8; ++n) {
      SCOPED_TRACE(std::string(ta::name(d)) + " n = " + std::to_string(n));
      // 37 matrices: two full groups of 16 and a partial one.
      const Tensor a = random({37, n, n}, d, static_cast<std::uint64_t>(n)), b = random({37, n, 3}, d, 100 + n);
      const la::LUFactor fc = la::lu_factor(a, e()), fr = la::lu_factor(a, ref);
      EXPECT_EQ(fc.pivots.to_vec<std::int32_t>(), fr.pivots.to_vec<std::int32_t>());
      EXPECT_LT(max_diff(fc.lu, fr.lu), tol(d) * 100);
      const Tensor x = la::solve(a, b, e());
      EXPECT_LT(max_diff(a.matmul(x, e()), b), tol(d) * 100);
      EXPECT_LT(max_diff(la::det(a, e()), la::det(a, ref)), tol(d) * 10);
      EXPECT_LT(max_diff(la::inv(a, e()).matmul(a, e()), Tensor::eye(n, opts(d)).broadcast_to({37, n, n})), tol(d) * 100);
      const Tensor p = spd({37, n, n}, d, 200 + n);
      EXPECT_LT(max_diff(la::cholesky(p, e()), la::cholesky(p, ref)), tol(d) * 10);
      EXPECT_LT(max_diff(la::cholesky(p, {.upper = true}, e()), la::cholesky(p, {.upper = true}, ref)), tol(d) * 10);
      // eigh (Jacobi across the lanes): the same ascending values and gauged vectors.
      const Tensor h = a.add(a.transpose(-2, -1), e());
      const la::Eigh hc = la::eigh(h, e()), hr = la::eigh(h, ref);
      EXPECT_LT(max_diff(hc.eigenvalues, hr.eigenvalues), tol(d) * 10);
      EXPECT_LT(max_diff(hc.eigenvectors, hr.eigenvectors), tol(d) * 1000);
      const Tensor rebuilt = hc.eigenvectors.mul(hc.eigenvalues.unsqueeze(-2), e()).matmul(hc.eigenvectors.transpose(-2, -1), e());
      EXPECT_LT(max_diff(rebuilt, h), tol(d) * 100);
      // eigvalsh (Jacobi, or from order 6 tridiagonal QL): the same values.
      EXPECT_LT(max_diff(la::eigvalsh(h, e()), hr.eigenvalues), tol(d) * 10);
      // One triangle is read: garbage in the other changes nothing.
      const Tensor upper_only = h.triu(0, e()).add(random({37, n, n}, d, 300 + n).tril(-1, e()), e());
      EXPECT_EQ(values(la::eigvalsh(upper_only, {.upper = true}, e())), values(la::eigvalsh(h, e())));
    }
}

TEST(SmallLinalg, StridedAndBroadcastBatches) {
  // The batch on a slow axis (a transposed view) and a broadcast operand.
  const Tensor a = random({3, 3, 40}, DType::F64, 1).permute({2, 0, 1});
  const Tensor ac = a.duplicate();
  EXPECT_EQ(values(la::lu_factor(a, e()).lu), values(la::lu_factor(ac, e()).lu));
  const Tensor single = random({3, 3}, DType::F64, 2).add(Tensor::eye(3, opts(DType::F64)).mul(ta::Scalar(3.0), e()), e());
  const Tensor b = random({21, 3}, DType::F64, 3);
  const Tensor x = la::solve(single, b.unsqueeze(-1), e());
  EXPECT_EQ(x.shape(), (Shape{21, 3, 1}));
  EXPECT_LT(max_diff(single.matmul(x, e()), b.unsqueeze(-1)), 1e-13);
}

TEST(SmallLinalg, FailuresNameTheFirstFailingMatrix) {
  // Matrix 21 (in the second group of 16) is singular, matrix 30 too: the error names 21.
  std::vector<double> v = random({40, 3, 3}, DType::F64, 4).to_vec<double>();
  for (std::int64_t i : {21, 30})
    for (std::int64_t c = 0; c < 3; ++c) v[static_cast<std::size_t>(i + 40 * (2 + 3 * c))] = 0;  // a zero row
  const Tensor a = Tensor::from_vec_col_major({40, 3, 3}, v);
  auto err = expect_error([&] { la::inv(a, e()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError);
  EXPECT_EQ(std::get<ta::LinAlgFailure>(err.detail()).batch_index, (std::vector<std::int64_t>{21}));
  EXPECT_EQ(std::get<ta::LinAlgFailure>(err.detail()).info, 3);
  // det of a singular matrix is 0, not an error, and every other matrix of the batch, before
  // and after it, is still factorized.
  ta::ReferenceEngine reference;
  const auto det = values(la::det(a, e())), ref = values(la::det(a, reference));
  EXPECT_EQ(det[21], 0.0);
  for (std::size_t i = 0; i < det.size(); ++i) EXPECT_NEAR(std::abs(det[i] - ref[i]), 0.0, 1e-12) << i;
  // Not positive definite: the leading minor LAPACK would name.
  std::vector<double> p = spd({20, 4, 4}, DType::F64, 5).to_vec<double>();
  p[static_cast<std::size_t>(17 + 20 * (2 + 4 * 2))] = -1;  // matrix 17, entry (2, 2)
  err = expect_error([&] { la::cholesky(Tensor::from_vec_col_major({20, 4, 4}, p), e()); });
  EXPECT_EQ(std::get<ta::LinAlgFailure>(err.detail()).batch_index, (std::vector<std::int64_t>{17}));
  EXPECT_EQ(std::get<ta::LinAlgFailure>(err.detail()).info, 3);
  EXPECT_EQ(std::string(err.message()), "matrix 17 of the batch is not positive definite (leading minor 3 is not positive)");
  // A NaN is refused before anything is factorized.
  v = random({20, 2, 2}, DType::F64, 6).to_vec<double>();
  v[static_cast<std::size_t>(19)] = std::nan("");
  err = expect_error([&] { la::solve(Tensor::from_vec_col_major({20, 2, 2}, v), random({20, 2}, DType::F64, 7), e()); });
  EXPECT_TRUE(std::get<ta::LinAlgFailure>(err.detail()).non_finite);
  EXPECT_EQ(std::get<ta::LinAlgFailure>(err.detail()).batch_index, (std::vector<std::int64_t>{19}));
}

TEST(SmallLinalg, EighOfHugeAndTinyEntries) {
  // Jacobi squares the entries (the norm, each rotation's hypotenuse): each matrix is scaled by a
  // power of two first, so entries whose squares overflow or underflow give the eigenpairs of the
  // matrix at unit scale, scaled (F32 entries of 1e20 once converged at once on an infinite norm).
  for (DType d : {DType::F32, DType::F64})
    for (double scale : d == DType::F32 ? std::vector<double>{1e20, 1e-30} : std::vector<double>{1e200, 1e-200})
      for (std::int64_t n : {3, 8}) {
        SCOPED_TRACE(std::string(ta::name(d)) + " n = " + std::to_string(n) + " scale " + std::to_string(scale));
        const Tensor a = random({9, n, n}, d, 400 + static_cast<std::uint64_t>(n));
        const Tensor h = a.add(a.transpose(-2, -1), e()), big = h.mul(ta::Scalar(scale), e());
        const la::Eigh unit = la::eigh(h, e()), scaled = la::eigh(big, e());
        EXPECT_LT(max_diff(scaled.eigenvalues.mul(ta::Scalar(1 / scale), e()), unit.eigenvalues), tol(d) * 10);
        EXPECT_LT(max_diff(scaled.eigenvectors, unit.eigenvectors), tol(d) * 1000);
        // eigvalsh's tridiagonal QL (order 8) squares entries too (each reflector's norm, each
        // rotation's hypotenuse).
        EXPECT_LT(max_diff(la::eigvalsh(big, e()).mul(ta::Scalar(1 / scale), e()), unit.eigenvalues), tol(d) * 10);
      }
}

TEST(SmallLinalg, EigenvaluesAtTheEdgesOfTheExponentRangeScaleExactly) {
  // Each matrix is scaled by the power of two that brings its largest entry into [1, 2) (its
  // exponent read from the bits, clamped for subnormal entries), so a matrix times 2^k gives
  // exactly 2^k times the eigenvalues: from the top of the range (a largest entry in
  // [2^max, 2^(max+1)), whose scale factor 2^-(max) is subnormal) to entries that are all subnormal
  // (small integers times 2^k, exact). eigvalsh runs Jacobi at order 3, tridiagonal QL at 8.
  for (DType d : {DType::F32, DType::F64})
    for (std::int64_t n : {3, 8}) {
      const bool f32 = d == DType::F32;
      const int top = f32 ? 127 : 1023, bottom = f32 ? -145 : -1070;
      SCOPED_TRACE(std::string(ta::name(d)) + " n = " + std::to_string(n));
      // Largest entry 1.5 on the diagonal, off-diagonal entries k / 64 (exact in F32).
      std::vector<double> v(static_cast<std::size_t>(4 * n * n));
      for (std::int64_t b = 0; b < 4; ++b)
        for (std::int64_t r = 0; r < n; ++r)
          for (std::int64_t c = 0; c < n; ++c)
            v[static_cast<std::size_t>(b + 4 * (r + n * c))] =
                r == c ? 1.5 - 0.125 * static_cast<double>((r + b) % 4) : static_cast<double>((r + c + b) % 5 - 2) / 64;
      const Tensor unit = Tensor::from_vec_col_major({4, n, n}, v).cast(d, e());
      const auto want = values(la::eigvalsh(unit, e()));
      const Tensor huge = unit.mul(ta::Scalar(std::ldexp(1.0, top)), e());
      const auto got_huge = values(la::eigvalsh(huge, e()));
      // Small integers (entries times 64, up to 96) times 2^bottom: subnormal and exact.
      const Tensor integers = unit.mul(ta::Scalar(64.0), e());
      const auto want_int = values(la::eigvalsh(integers, e()));
      const auto got_tiny = values(la::eigvalsh(integers.mul(ta::Scalar(std::ldexp(1.0, bottom)), e()), e()));
      ASSERT_EQ(got_huge.size(), want.size());
      for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got_huge[i].real(), want[i].real() * std::ldexp(1.0, top)) << i;
        const double tiny = want_int[i].real() * std::ldexp(1.0, bottom);
        EXPECT_EQ(got_tiny[i].real(), f32 ? static_cast<double>(static_cast<float>(tiny)) : tiny) << i;
      }
    }
}

TEST(SmallLinalg, EigvalshOfKnownSpectraThroughTridiagonalQl) {
  // From order 6 the eigenvalues alone come from a tridiagonal form and QL sweeps, each lane
  // deflating at its own index. Matrices q diag(w) q^T with q orthogonal (from a QR) and w
  // known: distinct, repeated (a multiple eigenvalue deflates at once, with e exactly or nearly
  // zero), of widely spread magnitude, with a zero eigenvalue repeated; and 3 I (diagonal from
  // the start), a tridiagonal matrix, a block diagonal one (the reflectors of a zero block are
  // the identity).
  ta::ReferenceEngine ref;
  const std::vector<std::vector<double>> spectra = {
      {-3, -1, 0.5, 1, 2, 4, 7, 9}, {1, 1, 1, 2, 2, 5, 5, 5}, {3, 3, 3, 3, 3, 3, 3, 3},
      {-1e-12, 1e-8, 1e-4, 1, 1e3, 1e6, 1e9, 1e12}, {0, 0, 0, 0, 0, 0, 1, -1}};
  for (DType d : {DType::F32, DType::F64})
    for (std::int64_t n : {6, 7, 8}) {
      SCOPED_TRACE(std::string(ta::name(d)) + " n = " + std::to_string(n));
      const std::int64_t batch = static_cast<std::int64_t>(spectra.size()) + 3;
      const Tensor q = la::qr(random({batch, n, n}, DType::F64, 500 + static_cast<std::uint64_t>(n)), e()).q;
      std::vector<double> w(static_cast<std::size_t>(batch * n), 0.0), want;
      for (std::int64_t b = 0; b < static_cast<std::int64_t>(spectra.size()); ++b)
        for (std::int64_t i = 0; i < n; ++i) w[static_cast<std::size_t>(b + batch * i)] = spectra[static_cast<std::size_t>(b)][static_cast<std::size_t>(i)];
      const Tensor wt = Tensor::from_vec_col_major({batch, n}, w);
      Tensor h = q.mul(wt.unsqueeze(-2), e()).matmul(q.transpose(-2, -1), e());
      // Matrix 2: 3 I; 5: tridiagonal (1, 2, ..., n on the diagonal, 1 beside it); 6: two
      // diagonal blocks.
      std::vector<double> hv = h.to_vec<double>();
      const auto at = [&](std::int64_t b, std::int64_t r, std::int64_t c) -> double& {
        return hv[static_cast<std::size_t>(b + batch * (r + n * c))];
      };
      for (std::int64_t r = 0; r < n; ++r)
        for (std::int64_t c = 0; c < n; ++c) {
          at(2, r, c) = r == c ? 3.0 : 0.0;  // exactly, not through q's rounding
          at(5, r, c) = r == c ? static_cast<double>(r + 1) : (r - c == 1 || c - r == 1) ? 1.0 : 0.0;
          if ((r < 3) != (c < 3)) at(6, r, c) = 0.0;
        }
      h = Tensor::from_vec_col_major({batch, n, n}, hv).cast(d, e());
      const Tensor got = la::eigvalsh(h, e()), reference = la::eigh(h, ref).eigenvalues;
      EXPECT_EQ(got.shape(), (Shape{batch, n}));
      EXPECT_EQ(got.dtype(), d);
      // Backward stable: each value within a few eps of the matrix's norm of the reference's.
      const auto g = got.cast(DType::F64, e()).to_vec<double>(), r = reference.cast(DType::F64, e()).to_vec<double>();
      const double eps = d == DType::F32 ? 1.2e-7 : 2.3e-16;
      for (std::int64_t b = 0; b < batch; ++b) {
        double norm = 0;
        for (std::int64_t i = 0; i < n; ++i) norm = std::max(norm, std::abs(r[static_cast<std::size_t>(b + batch * i)]));
        for (std::int64_t i = 0; i < n; ++i) {
          const auto k = static_cast<std::size_t>(b + batch * i);
          EXPECT_LE(std::abs(g[k] - r[k]), 20 * n * eps * norm) << "matrix " << b << " value " << i;
          if (i > 0) {
            EXPECT_LE(g[k - static_cast<std::size_t>(batch)], g[k]) << "ascending, matrix " << b;
          }
        }
      }
      // The multiple of the identity: exactly its value, n times.
      for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(g[static_cast<std::size_t>(2 + batch * i)], 3.0) << i;
    }
}

TEST(SmallLinalg, EigvalshOfAMatrixDoesNotDependOnTheMatricesBesideIt) {
  // Tridiagonal QL sweeps until every lane of a group has deflated, each sweep from the largest
  // deflation index of the lanes: a lane takes part only below its own, so each matrix gets the
  // bits it gets alone, with a diagonal matrix (no sweep at all) and a hard one beside it.
  for (DType d : {DType::F32, DType::F64})
    for (std::int64_t n : {6, 8}) {
      SCOPED_TRACE(std::string(ta::name(d)) + " n = " + std::to_string(n));
      std::vector<double> v = random({37, n, n}, d, 14).cast(DType::F64, e()).to_vec<double>();
      for (std::int64_t c = 0; c < n; ++c)  // matrix 5 diagonal, matrix 9 with a zero last column
        for (std::int64_t r = 0; r < n; ++r) {
          if (r != c) v[static_cast<std::size_t>(5 + 37 * (r + n * c))] = 0;
          if (c == n - 1 || r == n - 1) v[static_cast<std::size_t>(9 + 37 * (r + n * c))] = 0;
        }
      const Tensor a = Tensor::from_vec_col_major({37, n, n}, v).cast(d, e());
      const Tensor h = a.add(a.transpose(-2, -1), e());
      const Tensor batch = la::eigvalsh(h, e());
      for (std::int64_t i : {0, 4, 5, 6, 9, 20, 36})
        EXPECT_EQ(values(la::eigvalsh(h.slice(0, i, i + 1), e())), values(batch.slice(0, i, i + 1))) << i;
    }
}

TEST(SmallLinalg, EighOfATinyOffDiagonalEntryBetweenEqualDiagonalEntries) {
  // A rotation squares d = a(q, q) - a(p, p) and a(p, q): with d = 0 and a(p, q) below the
  // square root of the smallest normal number both squares underflowed, the rotation became
  // 0 / 0, and a good matrix was reported as not converging. Such an entry is far below the
  // matrix's rounding (each is scaled to a largest entry in [1, 2)) and is zeroed.
  ta::ReferenceEngine ref;
  for (DType d : {DType::F32, DType::F64})
    for (std::int64_t n : {3, 5}) {
      SCOPED_TRACE(std::string(ta::name(d)) + " n = " + std::to_string(n));
      const double tiny = d == DType::F32 ? 1e-25 : 1e-170;
      std::vector<double> v(static_cast<std::size_t>(n * n), 0.5);
      for (std::int64_t i = 0; i < n; ++i)  // diagonal 1, 1, 3, 4, ...
        v[static_cast<std::size_t>(i * (n + 1))] = i > 1 ? static_cast<double>(i + 1) : 1.0;
      v[1] = v[static_cast<std::size_t>(n)] = tiny;  // a(0, 1) between a(0, 0) = a(1, 1) = 1
      const Tensor h = Tensor::from_vec_col_major({n, n}, v).cast(d, e());
      const la::Eigh got = la::eigh(h, e()), want = la::eigh(h, ref);
      EXPECT_LT(max_diff(got.eigenvalues, want.eigenvalues), tol(d) * 10);
      const Tensor rebuilt = got.eigenvectors.mul(got.eigenvalues.unsqueeze(-2), e())
                                 .matmul(got.eigenvectors.transpose(-2, -1), e());
      EXPECT_LT(max_diff(rebuilt, h), tol(d) * 100);
    }
}

TEST(SmallLinalg, EighOfAMatrixDoesNotDependOnTheMatricesBesideIt) {
  // eigh runs two lane groups side by side, sweeping until every lane of both has converged:
  // a converged lane rotates by exact identities, so each matrix gets the bits it gets alone.
  for (DType d : {DType::F32, DType::F64}) {
    SCOPED_TRACE(ta::name(d));
    std::vector<double> v = random({37, 3, 3}, d, 11).cast(DType::F64, e()).to_vec<double>();
    for (std::int64_t c = 0; c < 3; ++c)  // matrix 5 diagonal: converged before the first sweep
      for (std::int64_t r = 0; r < 3; ++r)
        if (r != c) v[static_cast<std::size_t>(5 + 37 * (r + 3 * c))] = 0;
    const Tensor a = Tensor::from_vec_col_major({37, 3, 3}, v).cast(d, e());
    const Tensor h = a.add(a.transpose(-2, -1), e());
    const la::Eigh batch = la::eigh(h, e());
    for (std::int64_t i : {0, 5, 8, 20, 33, 36}) {
      const Tensor one = h.slice(0, i, i + 1);
      const la::Eigh alone = la::eigh(one, e());
      EXPECT_EQ(values(alone.eigenvalues), values(batch.eigenvalues.slice(0, i, i + 1))) << i;
      EXPECT_EQ(values(alone.eigenvectors), values(batch.eigenvectors.slice(0, i, i + 1))) << i;
    }
  }
}

TEST(SmallLinalg, CholeskyOfPivotsWhoseReciprocalsLeaveTheRange) {
  // The kernel links columns through the pivots' reciprocals 1 / d_j: a subnormal pivot's
  // overflows and a huge pivot's is subnormal. Such a matrix (lane) is factored as potf2 does,
  // and its neighbours keep their own bits.
  ta::ReferenceEngine ref;
  for (DType d : {DType::F32, DType::F64})
    for (std::int64_t n : {2, 3, 5, 8}) {  // 5: the generic order
      SCOPED_TRACE(std::string(ta::name(d)) + " n = " + std::to_string(n));
      const bool f32 = d == DType::F32;
      // 20 matrices, the spd stack's; matrix 3 with a subnormal last pivot, matrix 11 with
      // pivots near the largest finite number.
      const double huge = f32 ? 3e38 : 1.7e308;
      std::vector<double> v = spd({20, n, n}, DType::F64, 12).to_vec<double>();
      const auto at = [&](std::int64_t b, std::int64_t r, std::int64_t c) -> double& {
        return v[static_cast<std::size_t>(b + 20 * (r + n * c))];
      };
      for (std::int64_t r = 0; r < n; ++r)
        for (std::int64_t c = 0; c < n; ++c) {
          at(3, r, c) = r == c ? (r == n - 1 ? (f32 ? 1e-39 : 1e-310) : 1.0) : 0.0;
          at(11, r, c) = r == c ? huge : r + c == 1 ? huge / 4 : 0.0;
        }
      const Tensor p = Tensor::from_vec_col_major({20, n, n}, v).cast(d, e());
      const Tensor l = la::cholesky(p, e());
      const auto got = values(l), want = values(la::cholesky(p, ref));
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_TRUE(std::isfinite(got[i].real())) << i;
        EXPECT_LE(std::abs(got[i] - want[i]), tol(d) * 10 * std::max(1.0, std::abs(want[i]))) << i;
      }
      for (std::int64_t b : {2, 3, 4, 11}) {
        const Tensor one = p.slice(0, b, b + 1);
        EXPECT_EQ(values(la::cholesky(one, e())), values(l.slice(0, b, b + 1))) << b;
      }
      // The upper factor reads the upper triangle: the lower one of the transposed view.
      EXPECT_EQ(values(la::cholesky(p, {.upper = true}, e())),
                values(la::cholesky(p.transpose(-2, -1), e()).transpose(-2, -1)));
    }
}

TEST(SmallLinalg, SubnormalPivotsGiveFiniteMultipliers) {
  // getf2's multipliers from a subnormal pivot whose reciprocal overflows: the kernel divides,
  // so l(1, 0) = (d / 2) / d = 0.5 exactly; a multiply by 1 / d would give inf.
  const double d = 0x1p-1030;  // 1 / d is 2^1030, above the largest double
  const auto f = la::lu_factor(Tensor::from_vec_col_major({1, 2, 2}, std::vector<double>{d, d / 2, 0, d}), e());
  EXPECT_EQ(f.lu.to_vec<double>(), (std::vector<double>{d, 0.5, 0, d}));
  EXPECT_EQ(f.pivots.to_vec<std::int32_t>(), (std::vector<std::int32_t>{1, 2}));
  const float g = 0x1p-130f;
  const auto f32 = la::lu_factor(Tensor::from_vec_col_major({1, 2, 2}, std::vector<float>{g, -g / 4, 0, g}), e());
  EXPECT_EQ(f32.lu.to_vec<float>(), (std::vector<float>{g, -0.25f, 0, g}));
}

TEST(SmallLinalg, SubnormalPivotsOfLargeOrdersAreDividedBy) {
  // From 4 entries on, a column is scaled by the pivot's reciprocal, as getf2 does, except in
  // the lanes whose pivot is below the smallest normal number (its reciprocal overflows): those
  // divide. Order 8, matrix 1 of a group of 3 with a subnormal first pivot and, in the
  // solve, a subnormal last diagonal entry of U; its neighbours keep their own bits.
  const double d = 0x1p-1030;
  const std::int64_t n = 8, batch = 3;
  std::vector<double> v = spd({batch, n, n}, DType::F64, 13).to_vec<double>();
  const auto at = [&](std::int64_t b, std::int64_t r, std::int64_t c) -> double& {
    return v[static_cast<std::size_t>(b + batch * (r + n * c))];
  };
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t c = 0; c < n; ++c) at(1, r, c) = r == c ? (r == n - 1 ? d : 1.0) : 0.0;
  for (std::int64_t r = 1; r < n; ++r) at(1, r, 0) = d / 2;  // below a pivot of d...
  at(1, 0, 0) = d;
  const Tensor a = Tensor::from_vec_col_major({batch, n, n}, v);
  const auto f = la::lu_factor(a, e());
  const auto lu = f.lu.to_vec<double>();
  for (std::int64_t r = 1; r < n; ++r) EXPECT_EQ(lu[static_cast<std::size_t>(1 + batch * r)], 0.5) << r;  // ...0.5 exactly
  // x = a^-1 b with b's 8 columns d / 2 in the last row: the last row of x is 0.5 exactly.
  std::vector<double> bv(static_cast<std::size_t>(batch * n * n), 0.0);
  for (std::int64_t c = 0; c < n; ++c) bv[static_cast<std::size_t>(1 + batch * ((n - 1) + n * c))] = d / 2;
  const Tensor x = la::solve(a, Tensor::from_vec_col_major({batch, n, n}, bv), e());
  const auto xv = x.to_vec<double>();
  for (std::int64_t c = 0; c < n; ++c) EXPECT_EQ(xv[static_cast<std::size_t>(1 + batch * ((n - 1) + n * c))], 0.5) << c;
  for (std::int64_t b : {0, 2}) {
    const Tensor one = a.slice(0, b, b + 1);
    EXPECT_EQ(values(la::lu_factor(one, e()).lu), values(f.lu.slice(0, b, b + 1))) << b;
    EXPECT_EQ(values(la::inv(one, e())), values(la::inv(a, e()).slice(0, b, b + 1))) << b;
  }
}

TEST(SmallLinalg, InvIsSolveWithTheIdentityBitForBit) {
  // inv's broadcast identity is built from the pivots in the lanes (no gather, no interchanges
  // of its rows): the same matrix, so the same bits as solve with a dense identity (which takes
  // the general path), at every order, in partial groups and with pivots everywhere.
  for (DType d : {DType::F32, DType::F64})
    for (std::int64_t n = 1; n <= 8; ++n) {
      SCOPED_TRACE(std::string(ta::name(d)) + " n = " + std::to_string(n));
      const Tensor a = random({37, n, n}, d, 400 + static_cast<std::uint64_t>(n));
      const Tensor eye = Tensor::eye(n, opts(d)).broadcast_to({37, n, n});
      const auto x = values(la::inv(a, e()));
      EXPECT_EQ(x, values(la::solve(a, eye.duplicate(), e())));
      EXPECT_EQ(x, values(la::solve(a, eye, e())));  // the same broadcast identity
      // A broadcast right-hand side that is not the identity takes the general path.
      const Tensor twice = eye.mul(ta::Scalar(2.0), e()).slice(0, 0, 1).broadcast_to({37, n, n});
      EXPECT_EQ(values(la::solve(a, twice, e())), values(la::solve(a, twice.duplicate(), e())));
      EXPECT_LT(max_diff(la::solve(a, twice, e()), la::inv(a, e()).mul(ta::Scalar(2.0), e())), tol(d));
    }
}

// getf2 and getrs as the small kernels promise to compute them, one scalar matrix at a time:
// the first largest pivot, whole-row interchanges, the multipliers times the pivot's reciprocal
// once four or more share it (divided when fewer, or when the pivot is below the smallest
// normal number), a - l u unfused, in LAPACK's order; getrs's back substitution by the same
// rule over the right-hand sides of a block of at most eight.
template <class T>
void divide(std::vector<T>& x, std::int64_t from, std::int64_t stride, std::int64_t count, T d) {
  const T reciprocal = T(1) / d;
  const bool by_reciprocal = count >= 4 && std::abs(d) >= std::numeric_limits<T>::min();
  for (std::int64_t i = 0; i < count; ++i) {
    T& y = x[static_cast<std::size_t>(from + i * stride)];
    y = by_reciprocal ? y * reciprocal : y / d;
  }
}
template <class T>
void getf2(std::int64_t n, std::vector<T>& a, std::vector<int>& piv) {
  auto at = [&](std::int64_t r, std::int64_t c) -> T& { return a[static_cast<std::size_t>(r + c * n)]; };
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t p = k;
    for (std::int64_t r = k + 1; r < n; ++r)
      if (std::abs(at(r, k)) > std::abs(at(p, k))) p = r;
    piv[static_cast<std::size_t>(k)] = static_cast<int>(p + 1);
    for (std::int64_t c = 0; c < n; ++c) std::swap(at(k, c), at(p, c));
    const T d = at(k, k) == T(0) ? T(1) : at(k, k);
    divide(a, k + 1 + k * n, 1, n - k - 1, d);
    for (std::int64_t c = k + 1; c < n; ++c)
      for (std::int64_t r = k + 1; r < n; ++r) at(r, c) -= at(r, k) * at(k, c);
  }
}
template <class T>
void getrs(std::int64_t n, const std::vector<T>& lu, const std::vector<int>& piv, std::vector<T>& b,
           std::int64_t cols) {
  auto x = [&](std::int64_t r, std::int64_t c) -> T& { return b[static_cast<std::size_t>(r + c * n)]; };
  auto l = [&](std::int64_t r, std::int64_t c) { return lu[static_cast<std::size_t>(r + c * n)]; };
  for (std::int64_t j0 = 0; j0 < cols; j0 += 8) {
    const std::int64_t width = std::min<std::int64_t>(8, cols - j0);
    for (std::int64_t k = 0; k < n; ++k)
      for (std::int64_t j = j0; j < j0 + width; ++j) std::swap(x(k, j), x(piv[static_cast<std::size_t>(k)] - 1, j));
    for (std::int64_t c = 0; c < n; ++c)
      for (std::int64_t j = j0; j < j0 + width; ++j)
        for (std::int64_t r = c + 1; r < n; ++r) x(r, j) -= l(r, c) * x(c, j);
    for (std::int64_t c = n - 1; c >= 0; --c) {
      divide(b, c + j0 * n, n, width, l(c, c));
      for (std::int64_t j = j0; j < j0 + width; ++j)
        for (std::int64_t r = 0; r < c; ++r) x(r, j) -= l(r, c) * x(c, j);
    }
  }
}

// Matrix i of a [batch, rows, cols] stack (the batch fastest) as a column-major vector.
template <class T>
std::vector<T> matrix_of(const std::vector<T>& v, std::int64_t batch, std::int64_t i, std::int64_t rows,
                         std::int64_t cols) {
  std::vector<T> m(static_cast<std::size_t>(rows * cols));
  for (std::int64_t e = 0; e < rows * cols; ++e) m[static_cast<std::size_t>(e)] = v[static_cast<std::size_t>(i + batch * e)];
  return m;
}

template <class T>
void expect_getf2_bits(DType d) {
  constexpr std::int64_t kBatch = 37;  // two full groups of 16 and a partial one
  for (std::int64_t n = 1; n <= 8; ++n) {
    SCOPED_TRACE(std::string(ta::name(d)) + " n = " + std::to_string(n));
    const Tensor a = random({kBatch, n, n}, d, 600 + static_cast<std::uint64_t>(n));
    const Tensor b = random({kBatch, n, 11}, d, 700 + static_cast<std::uint64_t>(n));
    const la::LUFactor f = la::lu_factor(a, e());
    const auto av = a.to_vec<T>(), bv = b.to_vec<T>(), luv = f.lu.to_vec<T>();
    const auto pv = f.pivots.to_vec<std::int32_t>();
    const auto inv = la::inv(a, e()).to_vec<T>(), x11 = la::solve(a, b, e()).to_vec<T>();
    const auto x3 = la::solve(a, b.slice(2, 0, 3), e()).to_vec<T>();
    const auto y11 = la::lu_solve(f, b, e()).to_vec<T>();
    for (std::int64_t i = 0; i < kBatch; ++i) {
      std::vector<T> lu = matrix_of(av, kBatch, i, n, n);
      std::vector<int> piv(static_cast<std::size_t>(n));
      getf2(n, lu, piv);
      ASSERT_EQ(matrix_of(luv, kBatch, i, n, n), lu) << i;
      ASSERT_EQ(matrix_of(pv, kBatch, i, n, 1), std::vector<std::int32_t>(piv.begin(), piv.end())) << i;
      std::vector<T> eye(static_cast<std::size_t>(n * n), T(0));
      for (std::int64_t k = 0; k < n; ++k) eye[static_cast<std::size_t>(k + k * n)] = T(1);
      getrs(n, lu, piv, eye, n);
      ASSERT_EQ(matrix_of(inv, kBatch, i, n, n), eye) << i;
      std::vector<T> rhs = matrix_of(bv, kBatch, i, n, 11), rhs3(rhs.begin(), rhs.begin() + 3 * n);
      getrs(n, lu, piv, rhs, 11);
      ASSERT_EQ(matrix_of(x11, kBatch, i, n, 11), rhs) << i;
      ASSERT_EQ(matrix_of(y11, kBatch, i, n, 11), rhs) << i;
      getrs(n, lu, piv, rhs3, 3);
      ASSERT_EQ(matrix_of(x3, kBatch, i, n, 3), rhs3) << i;
    }
  }
}

TEST(SmallLinalg, LuSolveAndInvAreGetf2AndGetrsBitForBit) {
  // The kernels' arithmetic is a contract, not an accident of their loop order: order 8 factors
  // a column at a time in registers and solves a right-hand side at a time, orders 5 to 7 step
  // through the trailing matrix, 2 to 4 run unrolled; every one must give the scalar getf2's
  // and getrs's bits (F32 and F64, 1 to 8, inv's built identity, 3 and 8 + 3 right-hand sides).
  expect_getf2_bits<float>(DType::F32);
  expect_getf2_bits<double>(DType::F64);
}

TEST(SmallLinalg, SameBitsOnEveryInstructionSetAndThreadCount) {
  const Tensor a = random({1000, 5, 5}, DType::F64, 8), b = random({1000, 5, 2}, DType::F64, 9);
  const Tensor p = spd({1000, 3, 3}, DType::F32, 10);
  const auto x = values(la::solve(a, b, e()));
  const auto ai = values(la::inv(a, e()));
  const auto l = values(la::cholesky(p, e()));
  const auto v = values(la::eigh(p, e()).eigenvectors);
  const Tensor g = random({1000, 8, 8}, DType::F32, 15), h = g.add(g.transpose(-2, -1), e());
  const auto w = values(la::eigvalsh(h, e()));  // tridiagonal QL
  auto p3 = ta::CpuEngine::parallel(3);
  EXPECT_EQ(values(la::solve(a, b, p3)), x);
  EXPECT_EQ(values(la::inv(a, p3)), ai);
  EXPECT_EQ(values(la::cholesky(p, p3)), l);
  EXPECT_EQ(values(la::eigh(p, p3).eigenvectors), v);
  EXPECT_EQ(values(la::eigvalsh(h, p3)), w);
  for (const char* isa : {"avx2", "baseline"}) {
    if (!ta::cpu::gemm::force_kernel_isa(isa)) continue;
    SCOPED_TRACE(isa);
    EXPECT_EQ(values(la::solve(a, b, e())), x);
    EXPECT_EQ(values(la::inv(a, e())), ai);
    EXPECT_EQ(values(la::cholesky(p, e())), l);
    EXPECT_EQ(values(la::eigh(p, e()).eigenvectors), v);
    EXPECT_EQ(values(la::eigvalsh(h, e())), w);
  }
  ta::cpu::gemm::force_kernel_isa("");
}

}  // namespace
