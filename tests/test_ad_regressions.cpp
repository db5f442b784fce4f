// Derivative bugs found by replaying PyTorch-generated jvp / vjp / Hessian-vector cases, each
// pinned in eager and traced: pow's forward rule at negative bases, complex sign, second order
// through prod and cumprod with zeros; and real (negative, fractional) ddof in var/std.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "test_eager_check.hpp"

namespace {

namespace ta = tensora;
using ta::DType;
using ta::EagerSession;
using ta::EagerTensor;
using ta::Tensor;
using ta::TracedTensor;
using Xs = std::vector<EagerTensor>;
using C = std::complex<double>;

Tensor f64(std::vector<double> v) { return Tensor::from_vec_col_major({static_cast<std::int64_t>(v.size())}, v); }

std::vector<Tensor> run(const std::vector<TracedTensor>& outs, const std::vector<TracedTensor>& ins,
                        const std::vector<Tensor>& inputs) {
  auto engine = ta::CpuEngine::parallel(3);
  return ta::Runtime().run(ta::GraphCompiler().compile(outs, ins), engine, inputs);
}

void expect_near(const Tensor& t, const std::vector<double>& want, double tol = 1e-12) {
  const auto got = t.to_vec<double>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

ta::JvpResult eager_jvp(const ta::EagerFunction& f, const std::vector<Tensor>& primals,
                        const std::vector<Tensor>& tangents) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  return rt.with_eager_session(e, [&](EagerSession& s) { return ta::jvp(s, f, primals, tangents); });
}
ta::VjpResult eager_vjp(const ta::EagerFunction& f, const std::vector<Tensor>& primals,
                        const std::vector<Tensor>& cotangents) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  return rt.with_eager_session(e, [&](EagerSession& s) { return ta::vjp(s, f, primals, cotangents); });
}

// ---- pow(x, scalar) and pow(x, b) forward mode at negative x ---------------------------------

TEST(AdRegressions, PowForwardModeAtNegativeBaseIgnoresTheConstantExponent) {
  const Tensor x = f64({-2, 3});
  const Tensor t = f64({1, 1});
  // Eager: a weak scalar exponent, and a tensor exponent whose tangent is zero.
  auto r = eager_jvp([](EagerSession& s, const Xs& v) { return Xs{s.pow(v[0], 2.0)}; }, {x}, {t});
  expect_near(r.tangents[0], {-4, 6});
  r = eager_jvp([](EagerSession& s, const Xs& v) { return Xs{s.pow(v[0], v[1])}; }, {x, f64({2, 2})},
                {t, f64({0, 0})});
  expect_near(r.tangents[0], {-4, 6});
  // Where the exponent's tangent is nonzero its term enters (x > 0 only, so it is finite).
  r = eager_jvp([](EagerSession& s, const Xs& v) { return Xs{s.pow(v[0], v[1])}; }, {f64({2}), f64({3})},
                {f64({0}), f64({1})});
  expect_near(r.tangents[0], {8 * std::log(2.0)});
  // Traced.
  auto xt = TracedTensor::input("x", DType::F64, {2});
  auto tt = TracedTensor::input("t", DType::F64, {2});
  auto y = xt.pow(2.0);
  auto jt = ta::jvp({y}, {xt}, {tt})[0];
  expect_near(run({jt}, {xt, tt}, {x, t})[0], {-4, 6});
  // Reverse mode was right and stays so.
  const auto g = eager_vjp([](EagerSession& s, const Xs& v) { return Xs{s.pow(v[0], 2.0)}; }, {x}, {t});
  expect_near(g.cotangents[0], {-4, 6});
}

// ---- sign of a complex input is z / |z|: not piecewise constant --------------------------------

TEST(AdRegressions, ComplexSignHasADerivative) {
  const Tensor z = Tensor::from_vec_col_major({2}, std::vector<C>{{3, 4}, {0, 0}});
  const Tensor t = Tensor::from_vec_col_major({2}, std::vector<C>{{0, 1}, {1, 0}});
  const auto check = [](const Tensor& r) {
    const auto v = r.to_vec<C>();
    EXPECT_NEAR(v[0].real(), -0.096, 1e-15);
    EXPECT_NEAR(v[0].imag(), 0.072, 1e-15);
    EXPECT_EQ(v[1], C(0, 0));  // the subgradient 0 at z = 0
  };
  check(eager_jvp([](EagerSession& s, const Xs& v) { return Xs{s.sign(v[0])}; }, {z}, {t}).tangents[0]);
  // The map is its own adjoint, so the cotangent of the same vector is the same.
  check(eager_vjp([](EagerSession& s, const Xs& v) { return Xs{s.sign(v[0])}; }, {z}, {t}).cotangents[0]);
  auto zt = TracedTensor::input("z", DType::C128, {2});
  auto tt = TracedTensor::input("t", DType::C128, {2});
  auto y = zt.sign();
  check(run({ta::jvp({y}, {zt}, {tt})[0]}, {zt, tt}, {z, t})[0]);
  check(run({ta::vjp({y}, {zt}, {tt})[0]}, {zt, tt}, {z, t})[0]);
  // Real sign stays piecewise constant: no rule is recorded, the tangent is zero.
  const auto r = eager_jvp([](EagerSession& s, const Xs& v) { return Xs{s.mul(s.sign(v[0]), v[0])}; },
                           {f64({-2, 3})}, {f64({1, 1})});
  expect_near(r.tangents[0], {-1, 1});
}

// ---- prod and cumprod at zeros, first and second order -------------------------------------------

TEST(AdRegressions, ProdHessianVectorProductIsExactWithZeros) {
  // H_ij = prod_{k != i, j} x_k: at x = [2, 3, 0, 0] only H_23 = H_32 = 6 are nonzero.
  auto x = TracedTensor::input("x", DType::F64, {4});
  auto v = TracedTensor::input("v", DType::F64, {4});
  auto g = ta::grad(x.prod(), {x})[0];
  auto hvp = ta::jvp({g}, {x}, {v})[0];
  const auto out = run({g, hvp}, {x, v}, {f64({2, 3, 0, 0}), f64({0, 0, 1, 1})});
  expect_near(out[0], {0, 0, 0, 0});
  expect_near(out[1], {0, 0, 6, 6});
  // One zero: H row of the zero is the product of the others.
  const auto one = run({g, hvp}, {x, v}, {f64({2, 3, 0, 5}), f64({1, 0, 0, 0})});
  expect_near(one[0], {0, 0, 30, 0});
  expect_near(one[1], {0, 0, 15, 0});
  // Unfused and without passes: the same.
  auto engine = ta::CpuEngine::serial();
  ta::CompileOptions none;
  none.fuse_elementwise = false;
  const auto raw = ta::Runtime().run(ta::GraphCompiler(none).compile({hvp}, {x, v}), engine,
                                     {f64({2, 3, 0, 0}), f64({0, 0, 1, 1})});
  expect_near(raw[0], {0, 0, 6, 6});
}

TEST(AdRegressions, CumprodGradientsAreExactWithZeros) {
  using eager_test::check_gradients;
  // Finite differences at inputs that hold exact zeros (the old rule divided by x: NaN).
  const auto f = [](EagerSession& s, const Xs& v) { return s.cumprod(v[0], 0); };
  check_gradients("one_zero", f, {f64({2, 0, 3, -1.5})});
  check_gradients("two_zeros", f, {f64({0.5, 0, 3, 0, 2})});
  check_gradients("leading_zero_axis1", [](EagerSession& s, const Xs& v) { return s.cumprod(v[0], 1); },
                  {Tensor::from_vec_row_major({2, 3}, std::vector<double>{0, 2, 3, 1.5, 0, -2})});
  check_gradients("prod_with_zero", [](EagerSession& s, const Xs& v) { return s.prod(v[0], {0}); },
                  {Tensor::from_vec_row_major({3, 2}, std::vector<double>{0, 2, 3, 0, 1.5, 0})});
  // Traced HVP through cumprod: d^2/dx^2 of sum(cumprod(x)) at x = [2, 0, 3].
  // sum = x0 + x0 x1 + x0 x1 x2; H = [[0, 1 + x2, x1], [1 + x2, 0, x0], [x1, x0, 0]].
  auto x = TracedTensor::input("x", DType::F64, {3});
  auto v = TracedTensor::input("v", DType::F64, {3});
  auto g = ta::grad(x.cumprod(0).sum(), {x})[0];
  auto hvp = ta::jvp({g}, {x}, {v})[0];
  const auto out = run({g, hvp}, {x, v}, {f64({2, 0, 3}), f64({1, 1, 1})});
  expect_near(out[0], {1, 2 + 6, 0});
  expect_near(out[1], {4 + 0, 4 + 2, 0 + 2});
  // Complex inputs keep the conjugate convention.
  check_gradients("complex_real_part",
                  [](EagerSession& s, const Xs& v) {
                    const auto z = s.mul(s.convert(v[0], DType::C128), std::complex<double>(1, 1));
                    return s.real(s.cumprod(z, 0));
                  },
                  {f64({1.5, 0, -2})});
}

// ---- ddof is a real number, as in NumPy and PyTorch ---------------------------------------------

TEST(AdRegressions, VarAndStdTakeNegativeAndFractionalDdof) {
  auto e = ta::CpuEngine::serial();
  const Tensor x = f64({1, 2, 3, 4});  // sum of squared deviations: 5
  EXPECT_DOUBLE_EQ(x.var({0}, {.ddof = 0.5}, e).item<double>(), 5 / 3.5);
  EXPECT_DOUBLE_EQ(x.var({0}, {.ddof = -1}, e).item<double>(), 1.0);
  EXPECT_DOUBLE_EQ(x.std({0}, {.ddof = 1.5}, e).item<double>(), std::sqrt(5 / 2.5));
  EXPECT_EQ(x.var({0}, {.ddof = 4}, e).item<double>(), std::numeric_limits<double>::infinity());
  // N - ddof <= 0 divides by zero, as NumPy (which clamps the count at 0): 0 / 0 is NaN.
  EXPECT_TRUE(std::isnan(f64({1}).var({0}, {.ddof = 1}, e).item<double>()));
  EXPECT_TRUE(std::isnan(f64({2}).var({0}, {.ddof = 2}, e).item<double>()));
  EXPECT_EQ(x.var({0}, {.ddof = 7.5}, e).item<double>(), std::numeric_limits<double>::infinity());
  // Gradients use the same N - ddof.
  eager_test::check_gradients("var_fractional_ddof",
                              [](EagerSession& s, const Xs& v) { return s.var(v[0], {0}, {.ddof = 0.5}); },
                              {f64({0.3, -1, 2, 0.7})});
  // Traced prints the real ddof and computes the same.
  auto xt = TracedTensor::input("x", DType::F64, {4});
  auto y = xt.std({0}, {.ddof = 1.5});
  EXPECT_THAT(ta::GraphCompiler().compile({y}).to_string(), ::testing::HasSubstr("ddof=1.5"));
  EXPECT_DOUBLE_EQ(run({y}, {xt}, {x})[0].item<double>(), std::sqrt(5 / 2.5));
}

}  // namespace
