// linalg::eig and eigvals: the general eigenproblem. Direct: a v = v diag(w) in every dtype,
// batched and strided, analytic cases (rotation, triangular, defective, diagonal), the gauge,
// every error path, parallel = serial, and the reference engine. Eager and traced: values equal
// to the direct ones, the rule against central finite differences (real spectra, complex pairs
// of a real matrix, C128 through gauge-invariant functions), <w, J u> both ways, a repeated
// eigenvalue, and the complex gauge error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "tensora/tensora.hpp"
#include "test_eager_check.hpp"
#include "test_linalg_support.hpp"
#include "test_support.hpp"

namespace {

namespace ta = tensora;
namespace la = tensora::linalg;
using ta::DType;
using ta::EagerSession;
using ta::EagerTensor;
using ta::Shape;
using ta::Tensor;
using ta::TracedTensor;
using eager_test::check_gradients;
using eager_test::complex_of;
using eager_test::rnd;
using tensora_test::expect_error;
using Args = std::vector<EagerTensor>;
using cd = std::complex<double>;

using linalg_test::e;
using linalg_test::kDTypes;
using linalg_test::max_diff;
using linalg_test::random;
using linalg_test::single;
using linalg_test::values;

double tol(DType d) { return single(d) ? 1e-4 : 1e-11; }

// |a v - v diag(w)|, the largest entry.
double residual(const Tensor& a, const la::Eig& r) {
  const Tensor av = a.convert(r.eigenvectors.dtype(), e()).matmul(r.eigenvectors, e());
  return max_diff(av, r.eigenvectors.mul(r.eigenvalues.unsqueeze(-2), e()));
}

// The eigenvalues of one matrix, sorted by real then imaginary part.
std::vector<cd> sorted(std::vector<cd> w) {
  std::sort(w.begin(), w.end(), [](cd x, cd y) { return x.real() != y.real() ? x.real() < y.real() : x.imag() < y.imag(); });
  return w;
}

Tensor f64(Shape shape, std::vector<double> row_major) { return Tensor::from_vec_row_major(shape, row_major); }

// ---- direct ----------------------------------------------------------------------------------

TEST(LinalgEig, ReconstructsInEveryDTypeBatched) {
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    const Tensor a = random({3, 6, 6}, d, 1);
    const la::Eig r = la::eig(a, e());
    const DType c = single(d) ? DType::C64 : DType::C128;
    EXPECT_EQ(r.eigenvalues.dtype(), c);
    EXPECT_EQ(r.eigenvectors.dtype(), c);
    EXPECT_EQ(r.eigenvalues.shape(), (Shape{3, 6}));
    EXPECT_EQ(r.eigenvectors.shape(), (Shape{3, 6, 6}));
    EXPECT_LT(residual(a, r), tol(d) * 10);
    // Unit-norm columns, each with its largest-modulus entry real and positive (the gauge).
    const auto v = values(r.eigenvectors);
    for (std::int64_t b = 0; b < 3; ++b)
      for (std::int64_t j = 0; j < 6; ++j) {
        double norm2 = 0;
        cd largest = 0;
        for (std::int64_t i = 0; i < 6; ++i) {
          const cd x = v[static_cast<std::size_t>(b + 3 * (i + 6 * j))];
          norm2 += std::norm(x);
          if (std::abs(x) > std::abs(largest)) largest = x;
        }
        EXPECT_NEAR(norm2, 1.0, tol(d));
        EXPECT_GT(largest.real(), 0);
        EXPECT_NEAR(largest.imag(), 0.0, tol(d));
      }
    EXPECT_LT(max_diff(la::eigvals(a, e()), r.eigenvalues), tol(d) * 10);
  }
}

TEST(LinalgEig, RealMatrixGivesConjugatePairs) {
  // Rotation by theta: eigenvalues cos theta +- i sin theta, eigenvectors (1, -+i) / sqrt 2.
  const double c = std::cos(0.3), s = std::sin(0.3);
  const la::Eig r = la::eig(f64({2, 2}, {c, -s, s, c}), e());
  const auto w = sorted(values(r.eigenvalues));
  EXPECT_NEAR(std::abs(w[0] - cd(c, -s)), 0.0, 1e-15);
  EXPECT_NEAR(std::abs(w[1] - cd(c, s)), 0.0, 1e-15);
  const auto v = values(r.eigenvectors);
  for (int j = 0; j < 2; ++j) {
    EXPECT_NEAR(std::abs(v[static_cast<std::size_t>(2 * j)]), 1 / std::sqrt(2.0), 1e-15);
    EXPECT_NEAR(std::abs(v[static_cast<std::size_t>(2 * j + 1)]), 1 / std::sqrt(2.0), 1e-15);
  }
  // A random real matrix: non-real eigenvalues come with their conjugates, and so do their vectors.
  const Tensor a = random({7, 7}, DType::F64, 2);
  const la::Eig g = la::eig(a, e());
  const auto gw = values(g.eigenvalues), gv = values(g.eigenvectors);
  int pairs = 0;
  for (std::size_t j = 0; j < gw.size(); ++j) {
    if (gw[j].imag() == 0) continue;
    const auto k = static_cast<std::size_t>(std::find(gw.begin(), gw.end(), std::conj(gw[j])) - gw.begin());
    ASSERT_LT(k, gw.size()) << "no conjugate of eigenvalue " << j;
    for (std::size_t i = 0; i < 7; ++i) EXPECT_NEAR(std::abs(gv[i + 7 * k] - std::conj(gv[i + 7 * j])), 0.0, 1e-13);
    ++pairs;
  }
  EXPECT_GT(pairs, 0);  // this seed has some
  EXPECT_LT(residual(a, g), 1e-12);
}

TEST(LinalgEig, AnalyticCases) {
  // Triangular: the diagonal. Diagonal: the diagonal, with unit vectors.
  const la::Eig t = la::eig(f64({3, 3}, {1, 5, 7, 0, -2, 3, 0, 0, 4}), e());
  EXPECT_EQ(sorted(values(t.eigenvalues)), (std::vector<cd>{-2, 1, 4}));
  const la::Eig d = la::eig(f64({3, 3}, {3, 0, 0, 0, -1, 0, 0, 0, 2}), e());
  EXPECT_EQ(sorted(values(d.eigenvalues)), (std::vector<cd>{-1, 2, 3}));
  for (cd x : values(d.eigenvectors)) EXPECT_TRUE(x == cd(0) || x == cd(1));
  // A Jordan block is defective: the repeated eigenvalue, and finite (parallel) vectors.
  const la::Eig j = la::eig(f64({2, 2}, {1, 1, 0, 1}), e());
  for (cd x : values(j.eigenvalues)) EXPECT_NEAR(std::abs(x - cd(1)), 0.0, 1e-15);
  for (cd x : values(j.eigenvectors)) EXPECT_TRUE(std::isfinite(x.real()) && std::isfinite(x.imag()));
  // Empty matrices and batches.
  const la::Eig z = la::eig(Tensor::zeros({2, 0, 0}, ta::TensorOptions(ta::Device::cpu(), DType::F32)), e());
  EXPECT_EQ(z.eigenvalues.shape(), (Shape{2, 0}));
  EXPECT_EQ(z.eigenvectors.dtype(), DType::C64);
}

TEST(LinalgEig, StridedAndBroadcastInputs) {
  const Tensor a = random({2, 5, 5}, DType::C128, 3);
  const Tensor at = a.transpose(-2, -1);  // a view: strides, no copy
  const la::Eig r = la::eig(at, e()), c = la::eig(at.duplicate(), e());
  EXPECT_EQ(values(r.eigenvalues), values(c.eigenvalues));
  EXPECT_EQ(values(r.eigenvectors), values(c.eigenvectors));
  const Tensor b = random({5, 5}, DType::F64, 4).broadcast_to({3, 5, 5});
  const la::Eig rb = la::eig(b, e());
  const auto w = values(rb.eigenvalues);
  for (std::size_t j = 0; j < 5; ++j) EXPECT_EQ(w[3 * j], w[3 * j + 2]);
}

TEST(LinalgEig, BadInputIsAStructuredError) {
  auto err = expect_error([&] { la::eig(Tensor::ones({3, 3}, ta::TensorOptions(ta::Device::cpu(), DType::I32)), e()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::UnsupportedDType);
  EXPECT_EQ(err.op(), "eig");
  EXPECT_NE(std::string(err.what()).find("convert"), std::string::npos);
  err = expect_error([&] { la::eig(Tensor::ones({2, 3}, ta::TensorOptions(ta::Device::cpu(), DType::F64)), e()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
  EXPECT_EQ(std::get<ta::ShapeMismatch>(err.detail()).expected, (std::vector<std::int64_t>{2, 2}));
  EXPECT_NE(std::string(err.what()).find("eig: a must be square (the last two axes equal), got 2 x 3"), std::string::npos);
  err = expect_error([&] { la::eigvals(Tensor::ones({3}, ta::TensorOptions(ta::Device::cpu(), DType::F64)), e()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
  EXPECT_EQ(err.op(), "eigvals");
  EXPECT_NE(std::string(err.what()).find("at least two axes"), std::string::npos);
  // A NaN is never handed to LAPACK; the failure names the matrix of the batch.
  std::vector<double> v(2 * 2 * 2, 1.0);
  v[5] = std::nan("");  // matrix 1 of the batch
  err = expect_error([&] { la::eig(Tensor::from_vec_col_major({2, 2, 2}, v), e()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError);
  EXPECT_EQ(std::string(err.message()), "matrix 1 of the batch has a NaN or infinity (it is not factorized; check the input)");
  EXPECT_EQ(std::get<ta::LinAlgFailure>(err.detail()).batch_index, (std::vector<std::int64_t>{1}));
  ta::ReferenceEngine other(ta::Device::cpu(1));
  EXPECT_EQ(expect_error([&] { la::eig(Tensor::eye(3, ta::TensorOptions(ta::Device::cpu(), DType::F64)), other); }).kind(),
            ta::ErrorKind::DeviceMismatch);
  // Eager and traced refuse a non-square operand the same way.
  ta::EagerRuntime rt;
  rt.with_eager_session(e(), [&](EagerSession&) {
    const auto eager = expect_error([&] { la::eig(rt.variable_from(rnd({2, 3}, 5))); });
    EXPECT_EQ(eager.kind(), ta::ErrorKind::Validation);
  });
  EXPECT_EQ(expect_error([&] { (void)la::eig(TracedTensor::input("a", DType::F64, {4, 3})); }).kind(),
            ta::ErrorKind::Validation);
}

TEST(LinalgEig, ParallelEqualsSerialAndTheReferenceEngineAgrees) {
  // 40 x 40: large enough that the parallel engine splits the batch of 9 into several tasks.
  const Tensor a = random({9, 40, 40}, DType::F64, 6);
  auto p3 = ta::CpuEngine::parallel(3);
  const la::Eig s = la::eig(a, e()), p = la::eig(a, p3);
  EXPECT_EQ(values(s.eigenvalues), values(p.eigenvalues));
  EXPECT_EQ(values(s.eigenvectors), values(p.eigenvectors));
  // The reference engine (Hessenberg + shifted QR in long double) orders eigenvalues its own way:
  // match each of its eigenpairs to the CPU engine's nearest eigenvalue; the gauge makes the
  // vectors of these simple eigenvalues equal.
  ta::ReferenceEngine ref;
  for (DType d : kDTypes) {
    SCOPED_TRACE(ta::name(d));
    const Tensor m = random({2, 5, 5}, d, 7);
    const la::Eig r = la::eig(m, ref), c = la::eig(m, e());
    EXPECT_LT(residual(m, r), tol(d) * 10);
    const auto rw = values(r.eigenvalues), cw = values(c.eigenvalues);
    const auto rv = values(r.eigenvectors), cv = values(c.eigenvectors);
    for (std::size_t b = 0; b < 2; ++b)
      for (std::size_t j = 0; j < 5; ++j) {
        std::size_t best = 0;
        for (std::size_t k = 1; k < 5; ++k)
          if (std::abs(cw[b + 2 * k] - rw[b + 2 * j]) < std::abs(cw[b + 2 * best] - rw[b + 2 * j])) best = k;
        EXPECT_LT(std::abs(cw[b + 2 * best] - rw[b + 2 * j]), tol(d) * 10);
        for (std::size_t i = 0; i < 5; ++i)
          EXPECT_LT(std::abs(cv[b + 2 * (i + 5 * best)] - rv[b + 2 * (i + 5 * j)]), tol(d) * 100);
      }
    EXPECT_LT(max_diff(la::eigvals(m, ref), r.eigenvalues), tol(d) * 10);
  }
}

// ---- eager and traced: the rule ----------------------------------------------------------------

// |z|^2 elementwise: invariant under every phase.
EagerTensor abs2(EagerSession& s, const EagerTensor& z) { return s.real(s.mul(z, s.conj(z))); }
EagerTensor weighted(EagerSession& s, const EagerTensor& x, std::uint64_t seed) {
  return s.sum(s.mul(x, s.constant(rnd(x.shape(), seed))));
}
// A well-separated real spectrum near diag(1, 2, 3, 4) plus x.
Tensor spread(std::int64_t n) {
  std::vector<double> d(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) d[static_cast<std::size_t>(i * (n + 1))] = static_cast<double>(i + 1);
  return Tensor::from_vec_col_major({n, n}, d);
}

TEST(LinalgEigAutodiff, EagerEqualsDirect) {
  const Tensor a = rnd({2, 4, 4}, 10);
  const la::Eig d = la::eig(a, e());
  ta::EagerRuntime rt;
  rt.with_eager_session(e(), [&](EagerSession& s) {
    const auto r = la::eig(rt.variable_from(a));
    EXPECT_EQ(r.eigenvalues.dtype(), DType::C128);
    EXPECT_EQ(values(r.eigenvalues.value()), values(d.eigenvalues));
    EXPECT_EQ(values(r.eigenvectors.value()), values(d.eigenvectors));
    EXPECT_EQ(values(la::eigvals(rt.variable_from(a)).value()), values(d.eigenvalues));
    // An integer matrix is promoted to the default float first (F32 on cpu:0: C64 results).
    const EagerTensor i = s.constant(Tensor::eye(3, ta::TensorOptions(ta::Device::cpu(), DType::I32)));
    EXPECT_EQ(la::eig(i).eigenvalues.dtype(), DType::C64);
  });
}

TEST(LinalgEigAutodiff, RealSpectrumAgainstFiniteDifferences) {
  const Tensor base = spread(4);
  check_gradients("eig, real spectrum: values and vectors", [base](EagerSession& s, const Args& x) {
    const auto r = la::eig(s.add(s.constant(base), x[0]));
    return s.add(weighted(s, s.real(r.eigenvalues), 1), weighted(s, s.real(r.eigenvectors), 2));
  }, {rnd({4, 4}, 11, -0.2, 0.2)});
}

TEST(LinalgEigAutodiff, ComplexPairsOfARealMatrixAgainstFiniteDifferences) {
  check_gradients("eig, complex pairs: gauge-invariant functions", [](EagerSession& s, const Args& x) {
    const auto r = la::eig(x[0]);
    EagerTensor loss = s.add(weighted(s, s.real(r.eigenvalues), 3), weighted(s, s.imag(r.eigenvalues), 4));
    return s.add(loss, weighted(s, abs2(s, r.eigenvectors), 5));
  }, {rnd({2, 4, 4}, 12)});
  check_gradients("eigvals", [](EagerSession& s, const Args& x) {
    return weighted(s, s.imag(la::eigvals(x[0])), 6);
  }, {rnd({5, 5}, 13)});
}

TEST(LinalgEigAutodiff, ComplexMatrixAgainstFiniteDifferences) {
  check_gradients("eig C128", [](EagerSession& s, const Args& x) {
    const auto r = la::eig(complex_of(s, x[0], x[1]));
    // v diag(w) v^{-1} is a itself: every entry of it, real and imaginary, is phase-invariant.
    const EagerTensor rec = la::solve(s.conj(r.eigenvectors.transpose(-2, -1)),
                                      s.conj(s.mul(r.eigenvectors, r.eigenvalues.unsqueeze(-2)).transpose(-2, -1)));
    EagerTensor loss = s.add(weighted(s, s.imag(r.eigenvalues), 7), weighted(s, abs2(s, r.eigenvectors), 8));
    return s.add(loss, s.add(weighted(s, s.real(rec), 9), weighted(s, s.imag(rec), 14)));
  }, {rnd({3, 3}, 15), rnd({3, 3}, 16)});
}

TEST(LinalgEigAutodiff, RepeatedEigenvalueIsFinite) {
  // At a = diag(2, 2, 5) the eigenvector rule would divide by 0; the safeguard takes it as 0.
  // The eigenvalues' sum is the trace: its gradient is the identity, exactly.
  ta::EagerRuntime rt;
  rt.with_eager_session(e(), [&](EagerSession& s) {
    const EagerTensor a = rt.variable_from(f64({3, 3}, {2, 0, 0, 0, 2, 0, 0, 0, 5}));
    const auto r = la::eig(a);
    s.add(s.real(s.sum(r.eigenvalues)), s.sum(abs2(s, r.eigenvectors))).backward();
    const auto g = a.grad().to_vec<double>();
    for (std::size_t i = 0; i < 9; ++i) EXPECT_NEAR(g[i], i % 4 == 0 ? 1.0 : 0.0, 1e-14) << i;
  });
}

TEST(LinalgEigAutodiff, PhaseDependentLossIsAnError) {
  ta::EagerRuntime rt;
  rt.with_eager_session(e(), [&](EagerSession& s) {
    // A real matrix whose eigenvectors are complex (a rotation-like block): real(v) depends on
    // the phase each column is given.
    const EagerTensor a = rt.variable_from(rnd({2, 4, 4}, 12));
    const auto err = expect_error([&] { s.sum(s.real(la::eig(a).eigenvectors)).backward(); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::LinAlgError);
    EXPECT_EQ(err.op(), "eig");
    EXPECT_NE(std::string(err.what()).find("depends on the phase of the complex vectors of matrix"), std::string::npos)
        << err.what();
  });
}

TEST(LinalgEigTraced, EqualsEagerInBothModes) {
  const Tensor av = rnd({2, 4, 4}, 20);
  const Tensor c1 = rnd({2, 4, 4}, 21), c2 = rnd({2, 4}, 22), t = rnd({2, 4, 4}, 23);
  auto a = TracedTensor::input("a", DType::F64, {2, 4, 4});
  const auto r = la::eig(a);
  EXPECT_EQ(r.eigenvalues.dtype(), DType::C128);
  const TracedTensor v2 = r.eigenvectors.mul(r.eigenvectors.conj()).real();
  const TracedTensor loss = v2.mul(TracedTensor::constant(c1)).sum().add(r.eigenvalues.imag().mul(TracedTensor::constant(c2)).sum());
  const auto g = ta::grad(loss, {a});
  const auto jt = ta::jvp({loss}, {a}, {TracedTensor::constant(t)});
  const auto out = ta::Runtime().run(ta::GraphCompiler().compile({loss, g[0], jt[0], r.eigenvalues}, {a}), e(), {av});
  ta::EagerRuntime rt;
  rt.with_eager_session(e(), [&](EagerSession& s) {
    const auto f = [&](EagerSession& s2, const std::vector<EagerTensor>& x) {
      const auto er = la::eig(x[0]);
      return std::vector<EagerTensor>{s2.add(s2.sum(s2.mul(abs2(s2, er.eigenvectors), s2.constant(c1))),
                                             s2.sum(s2.mul(s2.imag(er.eigenvalues), s2.constant(c2))))};
    };
    const EagerTensor ea = rt.variable_from(av);
    const EagerTensor el = f(s, {ea})[0];
    EXPECT_EQ(values(out[3]), values(la::eig(av, e()).eigenvalues));
    EXPECT_NEAR(out[0].item<double>(), el.value().item<double>(), 1e-12 * (1 + std::abs(el.value().item<double>())));
    el.backward();
    const auto ge = ea.grad().to_vec<double>(), gt = out[1].to_vec<double>();
    for (std::size_t i = 0; i < ge.size(); ++i) EXPECT_NEAR(gt[i], ge[i], 1e-10 * (1 + std::abs(ge[i])));
    const auto jr = ta::jvp(s, f, {av}, {t});
    EXPECT_NEAR(out[2].item<double>(), jr.tangents[0].item<double>(), 1e-10 * (1 + std::abs(jr.tangents[0].item<double>())));
  });
}

}  // namespace
