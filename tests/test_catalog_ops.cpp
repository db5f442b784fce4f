// The ops added through the catalog (hypot ... digamma, softmax/log_softmax): values against
// <cmath> and published constants, dtype rules and bad input from the catalog rows, gradients
// against finite differences, and the generated surfaces of TypedTensor and EagerTensor.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "direct/direct.hpp"
#include "test_eager_check.hpp"
#include "test_support.hpp"

namespace {

namespace ta = tensora;
using ta::DType;
using ta::ErrorKind;
using ta::Tensor;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using tensora_test::expect_error;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor f64(std::vector<double> v) { return Tensor::from_vec_col_major({static_cast<std::int64_t>(v.size())}, v); }
Tensor f32(std::vector<float> v) { return Tensor::from_vec_col_major({static_cast<std::int64_t>(v.size())}, v); }

void expect_values(const Tensor& t, const std::vector<double>& want, double rtol = 1e-14) {
  ASSERT_EQ(t.dtype(), DType::F64);
  const auto got = t.to_vec<double>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": " << got[i];
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], rtol * (1 + std::abs(want[i]))) << "element " << i;
    }
  }
}

// ---- values -----------------------------------------------------------------------------------

TEST(CatalogOps, UnaryValuesMatchCmathInF64AndF32) {
  auto e = ta::CpuEngine::serial();
  const std::vector<double> xs = {-0.9, -0.3, 0.0, 0.4, 0.8};
  struct Case {
    const char* name;
    Tensor (Tensor::*op)(ta::Engine&, ta::SourceLocation) const;
    double (*ref)(double);
    double shift;  // inputs are xs + shift (domain)
  };
  const Case cases[] = {
      {"sinh", &Tensor::sinh, [](double x) { return std::sinh(x); }, 0},
      {"cosh", &Tensor::cosh, [](double x) { return std::cosh(x); }, 0},
      {"asin", &Tensor::asin, [](double x) { return std::asin(x); }, 0},
      {"acos", &Tensor::acos, [](double x) { return std::acos(x); }, 0},
      {"atan", &Tensor::atan, [](double x) { return std::atan(x); }, 0},
      {"asinh", &Tensor::asinh, [](double x) { return std::asinh(x); }, 0},
      {"acosh", &Tensor::acosh, [](double x) { return std::acosh(x); }, 2},
      {"atanh", &Tensor::atanh, [](double x) { return std::atanh(x); }, 0},
      {"exp2", &Tensor::exp2, [](double x) { return std::exp2(x); }, 0},
      {"log2", &Tensor::log2, [](double x) { return std::log2(x); }, 1},
      {"log10", &Tensor::log10, [](double x) { return std::log10(x); }, 1},
      {"trunc", &Tensor::trunc, [](double x) { return std::trunc(x * 5); }, 0},
      {"reciprocal", &Tensor::reciprocal, [](double x) { return 1 / x; }, 1},
      {"square", &Tensor::square, [](double x) { return x * x; }, 0},
      {"erfc", &Tensor::erfc, [](double x) { return std::erfc(x); }, 0},
      {"lgamma", &Tensor::lgamma, [](double x) { return std::lgamma(x); }, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<double> in, want;
    for (double x : xs) {
      const double v = std::string(c.name) == "trunc" ? (x + c.shift) * 5 : x + c.shift;
      in.push_back(v);
      want.push_back(std::string(c.name) == "trunc" ? std::trunc(v) : c.ref(v));
    }
    expect_values((f64(in).*c.op)(e, ta::SourceLocation::current()), want);
    // F32 computes in float and rounds once.
    std::vector<float> in32(in.begin(), in.end());
    const Tensor r32 = (f32(in32).*c.op)(e, ta::SourceLocation::current());
    ASSERT_EQ(r32.dtype(), DType::F32);
    const auto got = r32.to_vec<float>();
    for (std::size_t i = 0; i < in.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 2e-6 * (1 + std::abs(want[i]))) << "element " << i;
  }
}

TEST(CatalogOps, SpecialFunctionsMatchPublishedValues) {
  auto e = ta::CpuEngine::serial();
  // SciPy: psi, polygamma(1, .), erfinv, gammaln.
  expect_values(f64({1, 0.5, -0.5, 10, 0, -2}).digamma(e),
                {-0.5772156649015329, -1.9635100260214235, 0.03648997397857652, 2.251752589066721, -kInf, kNaN},
                1e-13);
  expect_values(f64({1, 0.5, -0.5, -1}).trigamma(e),
                {std::numbers::pi * std::numbers::pi / 6, std::numbers::pi * std::numbers::pi / 2,
                 std::numbers::pi * std::numbers::pi / 2 + 4, kInf},
                1e-13);
  // The recurrences psi(x + 1) = psi(x) + 1/x and psi1(x + 1) = psi1(x) - 1/x^2 across the
  // switches to the asymptotic series (digamma at 10, trigamma at 15).
  const Tensor xs = f64({0.3, 2.7, 9.5, 10, 14.5, 31.25});
  const Tensor ones = Tensor::ones({6}, {ta::Device::cpu(), DType::F64});
  const auto d0 = xs.digamma(e).to_vec<double>(), d1 = xs.add(ones, e).digamma(e).to_vec<double>();
  const auto t0 = xs.trigamma(e).to_vec<double>(), t1 = xs.add(ones, e).trigamma(e).to_vec<double>();
  const auto xv = xs.to_vec<double>();
  for (std::size_t i = 0; i < xv.size(); ++i) {
    EXPECT_NEAR(d1[i] - d0[i], 1 / xv[i], 1e-14 * (1 + std::abs(d0[i]))) << xv[i];
    EXPECT_NEAR(t0[i] - t1[i], 1 / (xv[i] * xv[i]), 1e-14 * (1 + t0[i])) << xv[i];
  }
  expect_values(f64({0.5, -0.9, 0.999, 0, 1, -1, 1.5, kNaN}).erfinv(e),
                {0.4769362762044699, -1.1630871536766743, 2.326753765513525, 0, kInf, -kInf, kNaN, kNaN}, 1e-14);
  expect_values(f64({0.5, 10, 1, -0.5}).lgamma(e),
                {0.5723649429247001, 12.801827480081469, 0, 1.2655121234846454}, 1e-14);
  // erf(erfinv(x)) == x to the last bits across the domain, tails included.
  const Tensor x = Tensor::linspace(-0.999999, 0.999999, 101, {ta::Device::cpu(), DType::F64});
  const auto back = x.erfinv(e).erf(e).to_vec<double>();
  const auto orig = x.to_vec<double>();
  for (std::size_t i = 0; i < orig.size(); ++i) EXPECT_NEAR(back[i], orig[i], 4e-16) << orig[i];
}

TEST(CatalogOps, BinaryValuesAndSpecialCases) {
  auto e = ta::CpuEngine::serial();
  expect_values(f64({3, -5, 0, kInf}).hypot(f64({4, 12, 0, kNaN}), e), {5, 13, 0, kInf});
  const double ln2 = std::numbers::ln2;
  expect_values(f64({1000, 0, -kInf, kInf, 1, kNaN}).logaddexp(f64({1000, 0, -kInf, kInf, -800, 0}), e),
                {1000 + ln2, ln2, -kInf, kInf, 1, kNaN});
  expect_values(f64({0, 0, 2, 1, 0}).xlogy(f64({0, 3, 3, 0, kNaN}), e), {0, 0, 2 * std::log(3.0), -kInf, kNaN});
  const Tensor cs = f64({3, 3, -2, kNaN}).copysign(f64({-0.0, 0.0, 1, -1}), e);
  const auto v = cs.to_vec<double>();
  EXPECT_EQ(v[0], -3);
  EXPECT_EQ(v[1], 3);
  EXPECT_EQ(v[2], 2);
  EXPECT_TRUE(std::isnan(v[3]) && std::signbit(v[3]));
  // Weak scalars as for every binary row.
  expect_values(f64({3}).hypot(4, e), {5});
}

TEST(CatalogOps, ResultDtypesAndIntegerSquareWraps) {
  auto e = ta::CpuEngine::serial();
  const Tensor sq = Tensor::from_vec_col_major({3}, std::vector<std::int8_t>{12, -12, 100}).square(e);
  EXPECT_EQ(sq.dtype(), DType::I8);
  EXPECT_EQ(sq.to_vec<std::int8_t>(), (std::vector<std::int8_t>{-112, -112, 16}));  // 144, 10000 mod 256
  const Tensor tr = Tensor::from_vec_col_major({2}, std::vector<std::int32_t>{-3, 4}).trunc(e);
  EXPECT_EQ(tr.dtype(), DType::I32);
  EXPECT_EQ(tr.to_vec<std::int32_t>(), (std::vector<std::int32_t>{-3, 4}));
  const Tensor z = Tensor::from_vec_col_major({1}, std::vector<std::complex<double>>{{1, 2}});
  EXPECT_EQ(z.reciprocal(e).item<std::complex<double>>(), std::complex<double>(0.2, -0.4));
  EXPECT_EQ(z.square(e).item<std::complex<double>>(), std::complex<double>(-3, 4));
  EXPECT_EQ(z.log10(e).dtype(), DType::C128);
}

TEST(CatalogOps, SimdFormsOfExactOpsEqualTheScalarDefinitionBitwise) {
  // square, reciprocal, trunc and copysign have vector forms (contiguous F32/F64, any length);
  // they are exactly rounded, so every lane equals <cmath>, specials and signed zeros included.
  auto e = ta::CpuEngine::parallel(2);
  std::vector<double> v = {0.0, -0.0, kInf, -kInf, kNaN, 1e300, -2.5, 2.5, 1e-310};
  for (int i = 0; v.size() < 1003; ++i) v.push_back(std::sin(i * 0.37) * std::pow(10.0, i % 9 - 4));
  const Tensor x = f64(v), y = x.neg(e);
  const auto sq = x.square(e).to_vec<double>(), rc = x.reciprocal(e).to_vec<double>();
  const auto tr = x.trunc(e).to_vec<double>(), cs = x.copysign(y, e).to_vec<double>();
  const auto same = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (std::isnan(a) && std::isnan(b)); };
  for (std::size_t i = 0; i < v.size(); ++i) {
    EXPECT_TRUE(same(sq[i], v[i] * v[i])) << i;
    EXPECT_TRUE(same(rc[i], 1 / v[i])) << i;
    EXPECT_TRUE(same(tr[i], std::trunc(v[i]))) << i;
    EXPECT_TRUE(same(cs[i], std::copysign(v[i], -v[i]))) << i;
  }
  std::vector<float> w(v.begin(), v.end());
  const auto sq32 = f32(w).square(e).to_vec<float>();
  for (std::size_t i = 0; i < w.size(); ++i)
    EXPECT_TRUE(same(sq32[i], static_cast<double>(w[i] * w[i]))) << i;
}

// ---- every row's dtype rule, from the catalog ---------------------------------------------------

TEST(CatalogOps, EveryElementwiseRowAcceptsExactlyItsKinds) {
  auto e = ta::CpuEngine::serial();
  const DType all[] = {DType::Bool, DType::I8, DType::U16, DType::I64, DType::F16, DType::BF16,
                       DType::F32, DType::F64, DType::C64, DType::C128};
  for (int i = 0; i < ta::kNumUnaryOps; ++i) {
    const auto op = static_cast<ta::UnaryOp>(i);
    const auto& inf = ta::info(op);
    for (DType d : all) {
      SCOPED_TRACE(std::string(inf.name) + " " + std::string(ta::name(d)));
      const Tensor x = Tensor::ones({3}, {ta::Device::cpu(), d});
      if (ta::accepts(inf, d)) {
        const Tensor r = ta::direct::unary(op, x, e, ta::SourceLocation::current());
        EXPECT_EQ(r.dtype(), ta::result_dtype(inf, d));
        EXPECT_EQ(r.shape(), ta::Shape({3}));
      } else {
        const auto err = expect_error([&] { (void)ta::direct::unary(op, x, e, ta::SourceLocation::current()); });
        EXPECT_EQ(err.kind(), ErrorKind::UnsupportedDType);
        EXPECT_EQ(err.op(), inf.name);
        EXPECT_THAT(err.what(), HasSubstr(std::string(inf.hint)));
      }
    }
  }
  for (int i = 0; i < ta::kNumBinaryOps; ++i) {
    const auto op = static_cast<ta::BinaryOp>(i);
    const auto& inf = ta::info(op);
    for (DType d : all) {
      SCOPED_TRACE(std::string(inf.name) + " " + std::string(ta::name(d)));
      const Tensor x = Tensor::ones({2}, {ta::Device::cpu(), d});
      if (ta::accepts(inf, d)) {
        EXPECT_EQ(ta::direct::binary(op, x, x, e, ta::SourceLocation::current()).dtype(), ta::result_dtype(inf, d));
      } else {
        const auto err = expect_error([&] { (void)ta::direct::binary(op, x, x, e, ta::SourceLocation::current()); });
        EXPECT_EQ(err.kind(), ErrorKind::UnsupportedDType);
        EXPECT_EQ(err.op(), inf.name);
      }
    }
  }
}

TEST(CatalogOps, NewOpsRejectBadInputWithStructuredErrors) {
  auto e = ta::CpuEngine::serial();
  const Tensor i32 = Tensor::from_vec_col_major({2}, std::vector<std::int32_t>{1, 2});
  auto err = expect_error([&] { (void)i32.hypot(i32, e); });
  EXPECT_EQ(err.kind(), ErrorKind::UnsupportedDType);
  EXPECT_THAT(err.what(), StartsWith("hypot: "));
  EXPECT_THAT(err.what(), HasSubstr("cast the tensor to a float dtype first"));
  EXPECT_THAT(err.what(), HasSubstr("test_catalog_ops.cpp:"));
  // dtype mismatch: direct never promotes.
  err = expect_error([&] { (void)f64({1, 2}).logaddexp(f32({1, 2}), e); });
  EXPECT_EQ(err.kind(), ErrorKind::Validation);
  EXPECT_THAT(err.what(), StartsWith("logaddexp: dtype mismatch: expected F64, actual F32"));
  // shapes that do not broadcast.
  err = expect_error([&] { (void)f64({1, 2}).xlogy(f64({1, 2, 3}), e); });
  EXPECT_EQ(err.kind(), ErrorKind::Validation);
  EXPECT_NE(std::get_if<ta::ShapeMismatch>(&err.detail()), nullptr);
  EXPECT_THAT(err.what(), StartsWith("xlogy: shape mismatch"));
  // another device than the engine's.
  const Tensor other = Tensor::zeros({2}, {ta::Device::cpu(6), DType::F32});
  err = expect_error([&] { (void)other.erfinv(e); });
  EXPECT_EQ(err.kind(), ErrorKind::DeviceMismatch);
  EXPECT_THAT(err.what(), StartsWith("erfinv: "));
  // a destination of the wrong dtype.
  err = expect_error([&] { f64({1, 2}).digamma_into(e, Tensor::zeros({2}, {ta::Device::cpu(), DType::F32})); });
  EXPECT_EQ(err.kind(), ErrorKind::Validation);
  EXPECT_THAT(err.what(), StartsWith("digamma_into: dtype mismatch: expected F64, actual F32"));
  // softmax: axis out of range and integer input.
  err = expect_error([&] { (void)f64({1, 2}).softmax(1, e); });
  EXPECT_EQ(err.kind(), ErrorKind::Validation);
  EXPECT_NE(std::get_if<ta::AxisOutOfRange>(&err.detail()), nullptr);
  EXPECT_THAT(err.what(), StartsWith("softmax: "));
  err = expect_error([&] { (void)i32.log_softmax(0, e); });
  EXPECT_EQ(err.kind(), ErrorKind::UnsupportedDType);
  EXPECT_THAT(err.what(), StartsWith("log_softmax: "));
}

// ---- softmax -----------------------------------------------------------------------------------

TEST(CatalogOps, SoftmaxIsStableAndNormalized) {
  auto e = ta::CpuEngine::parallel(3);
  // Column-major [2, 3]: rows are (1000, 1001, 1002) and (-inf, 0, -inf).
  const Tensor x = Tensor::from_vec_row_major({2, 3}, std::vector<double>{1000, 1001, 1002, -kInf, 0, -kInf});
  const double z = 1 + std::exp(-1.0) + std::exp(-2.0);
  expect_values(x.softmax(1, e).transpose().reshape({6}).contiguous(),
                {std::exp(-2.0) / z, std::exp(-1.0) / z, 1 / z, 0, 1, 0});
  expect_values(x.log_softmax(-1, e).transpose().reshape({6}).contiguous(),
                {-2 - std::log(z), -1 - std::log(z), -std::log(z), -kInf, 0, -kInf});
  // A lane of -inf only, or with +inf, is NaN (as PyTorch and JAX: x - max is NaN there).
  expect_values(f64({-kInf, -kInf}).softmax(0, e), {kNaN, kNaN});
  expect_values(f64({kInf, 1}).softmax(0, e), {kNaN, kNaN});
  // Along axis 0 the columns sum to one; F16 is computed in F32 and rounded once.
  const Tensor h = Tensor::uniform({4, 5}, 7, {ta::Device::cpu(), DType::F16}, -3, 3);
  const Tensor sh = h.softmax(0, e);
  EXPECT_EQ(sh.dtype(), DType::F16);
  const Tensor ref = h.convert(DType::F32, e).softmax(0, e).cast(DType::F16, e);
  EXPECT_EQ(sh.cast(DType::F32, e).to_vec<float>(), ref.cast(DType::F32, e).to_vec<float>());
  const auto sums = h.convert(DType::F64, e).softmax(0, e).sum({0}, e).to_vec<double>();
  for (double s : sums) EXPECT_NEAR(s, 1, 1e-15);
  // Zero-size along the axis: an empty result of the same shape.
  EXPECT_EQ(Tensor::zeros({0, 3}, {ta::Device::cpu(), DType::F32}).softmax(0, e).shape(), ta::Shape({0, 3}));
}

// ---- gradients -----------------------------------------------------------------------------------

using eager_test::check_gradients;
using eager_test::rnd;
using ta::EagerSession;
using ta::EagerTensor;
using Xs = std::vector<EagerTensor>;

TEST(CatalogOps, NewUnaryGradientsMatchFiniteDifferences) {
  struct Case {
    const char* name;
    EagerTensor (EagerSession::*op)(const EagerTensor&, ta::SourceLocation);
    double lo, hi;
  };
  const Case cases[] = {
      {"sinh", &EagerSession::sinh, -1, 1},     {"cosh", &EagerSession::cosh, -1, 1},
      {"asin", &EagerSession::asin, -0.8, 0.8}, {"acos", &EagerSession::acos, -0.8, 0.8},
      {"atan", &EagerSession::atan, -2, 2},     {"asinh", &EagerSession::asinh, -2, 2},
      {"acosh", &EagerSession::acosh, 1.5, 3},  {"atanh", &EagerSession::atanh, -0.8, 0.8},
      {"exp2", &EagerSession::exp2, -2, 2},     {"log2", &EagerSession::log2, 0.5, 3},
      {"log10", &EagerSession::log10, 0.5, 3},  {"reciprocal", &EagerSession::reciprocal, 0.5, 2},
      {"square", &EagerSession::square, -2, 2}, {"erfc", &EagerSession::erfc, -1.5, 1.5},
      {"erfinv", &EagerSession::erfinv, -0.9, 0.9}, {"lgamma", &EagerSession::lgamma, 0.3, 4},
      {"digamma", &EagerSession::digamma, 0.3, 4},
  };
  std::uint64_t seed = 11;
  for (const auto& c : cases) {
    auto op = c.op;
    check_gradients(
        c.name, [op](EagerSession& s, const Xs& v) { return (s.*op)(v[0], ta::SourceLocation::current()); },
        {rnd({3, 2}, seed++, c.lo, c.hi).transpose()}, 2e-6);
  }
}

TEST(CatalogOps, NewBinaryGradientsMatchFiniteDifferences) {
  struct Case {
    const char* name;
    EagerTensor (EagerSession::*op)(const EagerTensor&, const EagerTensor&, ta::SourceLocation);
    double lo, hi;
  };
  const Case cases[] = {
      {"hypot", &EagerSession::hypot, 0.2, 2},
      {"logaddexp", &EagerSession::logaddexp, -3, 3},
      {"xlogy", &EagerSession::xlogy, 0.2, 2},
      {"copysign", &EagerSession::copysign, 0.2, 2},
  };
  std::uint64_t seed = 40;
  for (const auto& c : cases) {
    auto op = c.op;
    check_gradients(
        c.name, [op](EagerSession& s, const Xs& v) { return (s.*op)(v[0], v[1], ta::SourceLocation::current()); },
        {rnd({2, 3}, seed, c.lo, c.hi), rnd({3}, seed + 1, c.lo, c.hi)});
    seed += 2;
  }
  // copysign towards a negative sign, and xlogy's zero x (its x-derivative is 0 there).
  check_gradients("copysign_negative", [](EagerSession& s, const Xs& v) { return s.copysign(v[0], v[1]); },
                  {rnd({4}, 50, 0.2, 2), rnd({4}, 51, -2, -0.2)});
  check_gradients("xlogy_fixed_zero_x",
                  [](EagerSession& s, const Xs& v) { return s.xlogy(s.mul(v[0], 0.0), v[0]); },
                  {rnd({3}, 52, 0.5, 2)});
}

TEST(CatalogOps, SoftmaxGradientsMatchFiniteDifferences) {
  for (std::int64_t axis : {0, 1, -1}) {
    check_gradients("softmax", [axis](EagerSession& s, const Xs& v) { return s.softmax(v[0], axis); },
                    {rnd({3, 4}, 60 + static_cast<std::uint64_t>(axis), -3, 3)});
    check_gradients("log_softmax", [axis](EagerSession& s, const Xs& v) { return s.log_softmax(v[0], axis); },
                    {rnd({3, 4}, 70 + static_cast<std::uint64_t>(axis), -3, 3).transpose()});
  }
}

TEST(CatalogOps, DigammaSecondOrderNeedsPolygammaAndSaysSo) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    const auto f = [](EagerSession& ss, const Xs& v) { return Xs{ss.sum(ss.digamma(v[0]))}; };
    const auto g = ta::grad(f);  // d digamma = trigamma: fine
    const auto gr = g(s, {f64({1.0, 0.5})});
    expect_values(gr[0], {std::numbers::pi * std::numbers::pi / 6, std::numbers::pi * std::numbers::pi / 2}, 1e-13);
    const auto err = expect_error([&] {
      (void)ta::grad([&](EagerSession& ss, const Xs& v) { return Xs{ss.sum(ss.trigamma(v[0]))}; })(s, {f64({1.0})});
    });
    EXPECT_EQ(err.kind(), ErrorKind::Unsupported);
    EXPECT_THAT(err.what(), StartsWith("trigamma: "));
  });
}

// ---- generated surfaces ------------------------------------------------------------------------

TEST(CatalogOps, TypedTensorCarriesTheWholeOpSet) {
  auto e = ta::CpuEngine::serial();
  using TD = ta::TypedTensor<double>;
  const TD a = TD::from_vec_col_major({2, 2}, {1, 2, 3, 4});
  const TD b = TD::full({2, 2}, 2.0);
  // Elementwise rows with their result types: Bool for comparisons, real for abs of complex.
  ta::TypedTensor<bool> lt = a.lt(b, e);
  EXPECT_EQ(lt.to_vec(), (std::vector<bool>{true, false, false, false}));
  TD h = a.hypot(b, e).atan(e).logaddexp(1.0, e);
  EXPECT_EQ(h.shape(), ta::Shape({2, 2}));
  const auto z = ta::TypedTensor<std::complex<float>>::full({2}, {3, 4});
  ta::TypedTensor<float> m = z.abs(e);
  EXPECT_EQ(m.to_vec(), (std::vector<float>{5, 5}));
  // Reductions, arg-reductions, scans, softmax, contractions, structural ops.
  EXPECT_EQ(a.sum({0}, e).to_vec(), (std::vector<double>{3, 7}));
  ta::TypedTensor<std::int64_t> am = a.argmax(0, e);
  EXPECT_EQ(am.to_vec(), (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(a.var({0}, {.ddof = 1}, e).to_vec(), (std::vector<double>{0.5, 0.5}));
  EXPECT_EQ(a.cumsum(0, e).to_vec(), (std::vector<double>{1, 3, 3, 7}));
  EXPECT_NEAR(a.softmax(0, e).sum(e).item(), 2.0, 1e-15);
  EXPECT_EQ(a.matmul(b, e).to_vec(), (std::vector<double>{8, 12, 8, 12}));
  EXPECT_EQ(a.dot_general(b, {{}, {}, {1}, {0}}, e).to_vec(), (std::vector<double>{8, 12, 8, 12}));
  EXPECT_EQ(a.tril(0, e).to_vec(), (std::vector<double>{1, 2, 0, 4}));
  EXPECT_EQ(a.pad({{1, 0}, {0, 0}}, e).shape(), ta::Shape({3, 2}));
  EXPECT_EQ(a.reverse({0}).to_vec(), (std::vector<double>{2, 1, 4, 3}));
  EXPECT_EQ(a.diagonal().to_vec(), (std::vector<double>{1, 4}));
  EXPECT_EQ(a.split({1, 1}, 1).size(), 2u);
  TD out = TD::zeros({2, 2});
  a.square_into(e, out);
  EXPECT_EQ(out.to_vec(), (std::vector<double>{1, 4, 9, 16}));
}

TEST(CatalogOps, EagerTensorMethodsMirrorTheSessionOps) {
  auto e = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  const Tensor av = f64({0.5, 1.5, 2.5});
  EagerTensor w = rt.variable_from(av);
  rt.with_eager_session(e, [&](EagerSession& s) {
    const EagerTensor y = w.square().mul(2.0).sum();  // 2 sum(w^2)
    EXPECT_EQ(y.value().item<double>(), s.sum(s.mul(s.square(w), 2.0)).value().item<double>());
    y.backward();
    const EagerTensor sm = w.reshape({3, 1}).softmax(0).transpose();
    EXPECT_EQ(sm.shape(), ta::Shape({1, 3}));
    EXPECT_EQ(w.matmul(w).value().item<double>(), 0.25 + 2.25 + 6.25);
  });
  expect_values(w.grad(), {2, 6, 10});
  const auto err = expect_error([&] { (void)w.exp(); });
  EXPECT_EQ(err.kind(), ErrorKind::InvalidArgument);
  EXPECT_THAT(err.what(), StartsWith("exp: eager tensor methods need an active session"));
}

}  // namespace
