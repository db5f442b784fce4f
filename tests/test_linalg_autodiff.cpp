// The differentiable linalg functions in the eager and traced front doors: every rule against
// central finite differences (F64, and C128 through a real parametrization) and <w, J u> both
// ways; traced results and gradients equal eager ones; promotion and build-time errors.
#include <gtest/gtest.h>

#include <complex>
#include <vector>

#include "tensora/tensora.hpp"
#include "test_eager_check.hpp"
#include "test_support.hpp"

namespace {

namespace ta = tensora;
namespace la = tensora::linalg;
using ta::DType;
using ta::EagerSession;
using ta::EagerTensor;
using ta::Shape;
using ta::Tensor;
using eager_test::check_gradients;
using eager_test::complex_of;
using eager_test::parts;
using eager_test::rnd;
using tensora_test::expect_error;
using Args = std::vector<EagerTensor>;
using cd = std::complex<double>;

EagerTensor eye(EagerSession& s, std::int64_t n, DType d) { return s.constant(Tensor::eye(n, {ta::Device::cpu(), d})); }
// x + c I.
EagerTensor shifted(EagerSession& s, const EagerTensor& x, double c) {
  return s.add(x, s.mul(eye(s, x.shape().back(), x.dtype()), c));
}
EagerTensor mT(EagerSession&, const EagerTensor& x) { return x.transpose(-2, -1); }
// x x^T + 3 I: symmetric positive definite.
EagerTensor spd(EagerSession& s, const EagerTensor& x) { return shifted(s, s.matmul(x, mT(s, x)), 3.0); }
// z z^H + 3 I for complex z.
EagerTensor hpd(EagerSession& s, const EagerTensor& z) {
  return shifted(s, s.matmul(z, s.conj(mT(s, z))), 3.0);
}

TEST(LinalgAutodiff, RealRulesAgainstFiniteDifferences) {
  check_gradients("cholesky", [](EagerSession& s, const Args& x) { return la::cholesky(spd(s, x[0])); }, {rnd({3, 3}, 1)});
  check_gradients("cholesky upper, batched",
                  [](EagerSession& s, const Args& x) { return la::cholesky(spd(s, x[0]), {.upper = true}); },
                  {rnd({2, 3, 3}, 2)});
  check_gradients("solve", [](EagerSession& s, const Args& x) { return la::solve(shifted(s, x[0], 3), x[1]); },
                  {rnd({3, 3}, 3), rnd({3, 2}, 4)});
  check_gradients("solve vector, broadcast b",
                  [](EagerSession& s, const Args& x) { return la::solve(shifted(s, x[0], 3), x[1]); },
                  {rnd({2, 3, 3}, 5), rnd({3}, 6)});
  for (bool upper : {false, true})
    for (bool left : {true, false})
      for (bool unit : {false, true})
        check_gradients("solve_triangular", [=](EagerSession& s, const Args& x) {
          return la::solve_triangular(shifted(s, x[0], 3), x[1], {.upper = upper, .left = left, .unit_diagonal = unit});
        }, {rnd({3, 3}, 7), rnd({3, 3}, 8)});
  check_gradients("det", [](EagerSession& s, const Args& x) { return la::det(shifted(s, x[0], 1)); }, {rnd({2, 3, 3}, 9)});
  check_gradients("slogdet", [](EagerSession& s, const Args& x) { return la::slogdet(shifted(s, x[0], 0.5)).logabsdet; },
                  {rnd({3, 3}, 10)});
  check_gradients("inv", [](EagerSession& s, const Args& x) { return la::inv(shifted(s, x[0], 3)); }, {rnd({3, 3}, 11)});
  check_gradients("eigvalsh", [](EagerSession& s, const Args& x) { return la::eigvalsh(s.add(x[0], mT(s, x[0]))); },
                  {rnd({2, 4, 4}, 12)});
  check_gradients("svdvals", [](EagerSession&, const Args& x) { return la::svdvals(x[0]); }, {rnd({4, 3}, 13)});
  check_gradients("svdvals wide", [](EagerSession&, const Args& x) { return la::svdvals(x[0]); }, {rnd({2, 3, 5}, 14)});
}

TEST(LinalgAutodiff, ComplexRulesAgainstFiniteDifferences) {
  check_gradients("cholesky C128", [](EagerSession& s, const Args& x) {
    return parts(s, la::cholesky(hpd(s, complex_of(s, x[0], x[1]))));
  }, {rnd({3, 3}, 15), rnd({3, 3}, 16)});
  check_gradients("solve C128", [](EagerSession& s, const Args& x) {
    return parts(s, la::solve(shifted(s, complex_of(s, x[0], x[1]), 3), complex_of(s, x[2], x[1])));
  }, {rnd({3, 3}, 17), rnd({3, 3}, 18), rnd({3, 3}, 19)});
  check_gradients("solve_triangular C128", [](EagerSession& s, const Args& x) {
    return parts(s, la::solve_triangular(shifted(s, complex_of(s, x[0], x[1]), 3), complex_of(s, x[1], x[0]),
                                         {.upper = true, .left = false}));
  }, {rnd({3, 3}, 20), rnd({3, 3}, 21)});
  check_gradients("det C128", [](EagerSession& s, const Args& x) {
    return parts(s, la::det(shifted(s, complex_of(s, x[0], x[1]), 1)));
  }, {rnd({3, 3}, 22), rnd({3, 3}, 23)});
  check_gradients("slogdet C128", [](EagerSession& s, const Args& x) {
    return la::slogdet(shifted(s, complex_of(s, x[0], x[1]), 1)).logabsdet;
  }, {rnd({3, 3}, 24), rnd({3, 3}, 25)});
  check_gradients("eigvalsh C128", [](EagerSession& s, const Args& x) {
    const EagerTensor z = complex_of(s, x[0], x[1]);
    return la::eigvalsh(s.add(z, s.conj(mT(s, z))));
  }, {rnd({4, 4}, 26), rnd({4, 4}, 27)});
  check_gradients("svdvals C128", [](EagerSession& s, const Args& x) {
    return la::svdvals(complex_of(s, x[0], x[1]));
  }, {rnd({4, 3}, 28), rnd({4, 3}, 29)});
}

TEST(LinalgAutodiff, RepeatedEigenvaluesGiveFiniteGradients) {
  // eigvalsh of the identity: every eigenvalue repeated; the gradient of their sum is I.
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    const EagerTensor a = rt.variable_from(Tensor::eye(3, {ta::Device::cpu(), DType::F64}));
    s.sum(la::eigvalsh(a)).backward();
    const auto g = a.grad().to_vec<double>();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_NEAR(g[static_cast<std::size_t>(i + 3 * j)], i == j ? 1.0 : 0.0, 1e-14);
  });
}

TEST(LinalgAutodiff, EagerPromotesIntegersAndJoinsOperands) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    const EagerTensor a = s.constant(Tensor::from_vec_col_major({2, 2}, std::vector<std::int32_t>{2, 0, 0, 4}));
    const EagerTensor d = la::det(a);
    EXPECT_EQ(d.dtype(), DType::F32);  // the device's default float
    EXPECT_EQ(d.value().item<float>(), 8.0f);
    const EagerTensor b = s.constant(Tensor::from_vec_col_major({2}, std::vector<double>{2, 4}));
    const EagerTensor x = la::solve(a, b);
    EXPECT_EQ(x.dtype(), DType::F64);
    EXPECT_EQ(x.value().to_vec<double>(), (std::vector<double>{1, 1}));
    const auto err = expect_error([&] { (void)la::cholesky(s.constant(Tensor::ones({2, 3}))); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
  });
}

TEST(LinalgTraced, EqualsEagerAndDifferentiates) {
  using ta::TracedTensor;
  const Tensor av = rnd({3, 3}, 30), bv = rnd({3, 2}, 31);
  auto a = TracedTensor::input("a", DType::F64, {3, 3});
  auto b = TracedTensor::input("b", DType::F64, {3, 2});
  const TracedTensor eye = TracedTensor::constant(Tensor::eye(3, {ta::Device::cpu(), DType::F64}));
  const TracedTensor m = a.matmul(a.transpose(-2, -1)).add(eye.mul(ta::Scalar(3.0)));
  const TracedTensor l = la::cholesky(m);
  const TracedTensor x = la::solve_triangular(l, b, {});
  const TracedTensor loss = x.mul(x).sum().add(la::slogdet(m).logabsdet).add(la::eigvalsh(m).sum())
                                .add(la::svdvals(a).sum()).add(la::det(m)).add(la::inv(m).sum()).add(la::solve(m, b).sum());
  const auto g = ta::grad(loss, {a, b});
  auto e = ta::CpuEngine::serial();
  const auto out = ta::Runtime().run(ta::GraphCompiler().compile({loss, g[0], g[1]}, {a, b}), e, {av, bv});
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    const EagerTensor ea = rt.variable_from(av), eb = rt.variable_from(bv);
    const EagerTensor em = shifted(s, s.matmul(ea, mT(s, ea)), 3.0);
    const EagerTensor ex = la::solve_triangular(la::cholesky(em), eb, {});
    EagerTensor el = s.add(s.sum(s.mul(ex, ex)), la::slogdet(em).logabsdet);
    el = s.add(el, s.sum(la::eigvalsh(em)));
    el = s.add(el, s.sum(la::svdvals(ea)));
    el = s.add(el, la::det(em));
    el = s.add(el, s.sum(la::inv(em)));
    el = s.add(el, s.sum(la::solve(em, eb)));
    EXPECT_NEAR(out[0].item<double>(), el.value().item<double>(), 1e-12 * std::abs(el.value().item<double>()));
    el.backward();
    const auto ga = ea.grad().to_vec<double>(), ta_ = out[1].to_vec<double>();
    for (std::size_t i = 0; i < ga.size(); ++i) EXPECT_NEAR(ta_[i], ga[i], 1e-10 * (1 + std::abs(ga[i])));
    const auto gb = eb.grad().to_vec<double>(), tb = out[2].to_vec<double>();
    for (std::size_t i = 0; i < gb.size(); ++i) EXPECT_NEAR(tb[i], gb[i], 1e-10 * (1 + std::abs(gb[i])));
  });
  // Build-time errors are the direct ones.
  auto err = expect_error([&] { (void)la::cholesky(TracedTensor::input("r", DType::F64, {2, 3})); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
  err = expect_error([&] { (void)la::solve(TracedTensor::input("p", DType::F64, {3, 3}), TracedTensor::input("q", DType::F64, {4, 1})); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
}

}  // namespace
