// Reductions and scans against long double references, over several layouts and dtypes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <numeric>

#include "tensora/tensora.hpp"

namespace ta = tensora;
using ta::DType;
using ta::Tensor;
using ::testing::HasSubstr;

namespace {

ta::CpuEngine& engine() {
  static ta::CpuEngine e = ta::CpuEngine::serial();
  return e;
}

// Reference: reduce a column-major F64 buffer of `shape` over `axes`.
enum class Ref { Sum, Prod, Mean, Max, Min };
std::vector<long double> reference(const std::vector<double>& x, const ta::Shape& shape,
                                   const std::vector<std::int64_t>& axes, Ref op) {
  std::vector<bool> red(shape.size(), false);
  for (auto a : axes) red[static_cast<std::size_t>(a < 0 ? a + static_cast<std::int64_t>(shape.size()) : a)] = true;
  ta::Shape out_shape;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (!red[d]) out_shape.push_back(shape[d]);
  const auto n_out = static_cast<std::size_t>(ta::numel(out_shape));
  long double init = op == Ref::Prod ? 1.0L : op == Ref::Max ? -INFINITY : op == Ref::Min ? INFINITY : 0.0L;
  std::vector<long double> acc(n_out, init);
  std::vector<std::int64_t> count(n_out, 0);
  std::vector<std::int64_t> idx(shape.size(), 0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::int64_t rest = static_cast<std::int64_t>(i), o = 0, mul = 1;
    for (std::size_t d = 0; d < shape.size(); ++d) {
      const std::int64_t id = rest % shape[d];
      rest /= shape[d];
      if (!red[d]) {
        o += id * mul;
        mul *= shape[d];
      }
    }
    long double& a = acc[static_cast<std::size_t>(o)];
    const long double v = x[i];
    switch (op) {
      case Ref::Sum: case Ref::Mean: a += v; break;
      case Ref::Prod: a *= v; break;
      case Ref::Max: a = std::isnan(a) || std::isnan(v) ? NAN : std::max(a, v); break;
      case Ref::Min: a = std::isnan(a) || std::isnan(v) ? NAN : std::min(a, v); break;
    }
    ++count[static_cast<std::size_t>(o)];
  }
  if (op == Ref::Mean)
    for (std::size_t o = 0; o < n_out; ++o) acc[o] /= static_cast<long double>(count[o]);
  return acc;
}

// The layouts every reduction is checked on: contiguous, transposed, negative step, broadcast.
std::vector<std::pair<std::string, Tensor>> layouts(DType dtype) {
  auto& e = engine();
  const Tensor base = Tensor::uniform({5, 7, 3}, 42, {ta::Device::cpu(), DType::F64}, -2.0, 2.0);
  const Tensor x = base.cast(dtype, e);
  return {
      {"contiguous", x},
      {"transposed", x.permute({2, 0, 1}).contiguous().permute({1, 2, 0})},
      {"negative step", x.slice(1, {}, {}, -1)},
      {"broadcast", x.slice(2, 0, 1).broadcast_to({5, 7, 3})},
  };
}

std::vector<double> as_f64(const Tensor& t) { return t.cast(DType::F64, engine()).to_vec<double>(); }

}  // namespace

TEST(Reduction, SumMeanMaxMinProdMatchReferenceOnEveryLayout) {
  const std::vector<std::vector<std::int64_t>> axes_sets = {{0}, {1}, {2}, {0, 2}, {1, 2}, {-1, 0}, {0, 1, 2}, {}};
  for (DType dtype : {DType::F64, DType::F32}) {
    for (auto& [layout, x] : layouts(dtype)) {
      const auto values = as_f64(x);
      for (const auto& axes : axes_sets) {
        SCOPED_TRACE(std::string(ta::name(dtype)) + " " + layout + " axes " + ta::to_string(axes));
        const double tol = dtype == DType::F64 ? 1e-13 : 1e-6;
        struct Case { Ref ref; Tensor got; };
        const Case cases[] = {{Ref::Sum, x.sum(axes, engine())},   {Ref::Mean, x.mean(axes, engine())},
                              {Ref::Max, x.max(axes, engine())},   {Ref::Min, x.min(axes, engine())},
                              {Ref::Prod, x.prod(axes, engine())}};
        for (const auto& c : cases) {
          const auto want = reference(values, x.shape(), axes, c.ref);
          ASSERT_EQ(c.got.dtype(), dtype);
          ASSERT_EQ(static_cast<std::size_t>(c.got.numel()), want.size());
          const auto got = as_f64(c.got);
          for (std::size_t i = 0; i < want.size(); ++i)
            EXPECT_NEAR(got[i], static_cast<double>(want[i]), tol * (1 + std::fabs(static_cast<double>(want[i]))));
        }
      }
    }
  }
}

TEST(Reduction, ResultShapesAndKeepdims) {
  const Tensor x = Tensor::zeros({2, 3, 4}, {ta::Device::cpu(), DType::F32});
  EXPECT_EQ(x.sum({1}, engine()).shape(), (ta::Shape{2, 4}));
  EXPECT_EQ(x.sum({1}, {.keepdims = true}, engine()).shape(), (ta::Shape{2, 1, 4}));
  EXPECT_EQ(x.sum(engine()).shape(), ta::Shape{});
  EXPECT_EQ(x.sum({}, engine()).shape(), (ta::Shape{2, 3, 4}));  // no axes: nothing reduced
  EXPECT_EQ(x.max({0, 2}, {.keepdims = true}, engine()).shape(), (ta::Shape{1, 3, 1}));
  EXPECT_EQ(x.argmax(1, engine()).shape(), (ta::Shape{2, 4}));
  EXPECT_EQ(x.argmax(1, engine()).dtype(), DType::I64);
  EXPECT_EQ(x.any({0}, engine()).dtype(), DType::Bool);
}

TEST(Reduction, F32SumOfTenMillionTenthsIsAccurate) {
  const std::int64_t n = 10'000'000;
  const Tensor x = Tensor::full({n}, 0.1, {ta::Device::cpu(), DType::F32});
  const double exact = static_cast<double>(0.1f) * static_cast<double>(n);
  const float got = x.sum(engine()).item<float>();
  EXPECT_LT(std::fabs(got - exact) / exact, 1e-6);
  // Also along an outer axis (the column-sweep path) of a column-major matrix.
  const Tensor m = x.reshape({1000, 10000});
  const auto rows = m.sum({1}, engine()).to_vec<float>();
  for (float r : rows) EXPECT_LT(std::fabs(r - exact / 1000) / (exact / 1000), 1e-6);
}

TEST(Reduction, F32SumOfMixedSignsStaysWithinItsBound) {
  // Blocked F32 partials (16 values per lane) then double: the total is the exact sum rounded
  // once to F32 (a sequential float sum of 3M values would be off by hundreds of ulps).
  const Tensor x = Tensor::uniform({3'000'001}, 77, {ta::Device::cpu(), DType::F32}, -1, 1);
  long double exact = 0;
  for (float v : x.to_vec<float>()) exact += v;
  const double got = x.sum(engine()).convert(DType::F64, engine()).item<double>();
  EXPECT_LE(std::fabs(got - static_cast<double>(exact)), std::fabs(static_cast<double>(exact)) * 0x1p-23);
}

TEST(Reduction, IntegerSumsAreExactAndWrap) {
  const Tensor x = Tensor::from_ints({1, 2, 3, 4, 5, 6}, {ta::Device::cpu(), DType::I32}).reshape({2, 3});
  EXPECT_EQ(x.sum({0}, engine()).to_vec<std::int32_t>(), (std::vector<std::int32_t>{3, 7, 11}));
  EXPECT_EQ(x.sum({1}, engine()).to_vec<std::int32_t>(), (std::vector<std::int32_t>{9, 12}));
  EXPECT_EQ(x.prod(engine()).item<std::int32_t>(), 720);
  const Tensor big = Tensor::full({2}, 200, {ta::Device::cpu(), DType::U8});
  EXPECT_EQ(big.sum(engine()).item<std::uint8_t>(), static_cast<std::uint8_t>(400 % 256));
}

TEST(Reduction, MaxMinPropagateNaNAndArgTakesFirst) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = Tensor::from_floats({1, 5, 5, nan, 2, -3}, {ta::Device::cpu(), DType::F64});
  EXPECT_TRUE(std::isnan(x.max(engine()).item<double>()));
  EXPECT_TRUE(std::isnan(x.min(engine()).item<double>()));
  EXPECT_EQ(x.argmax(engine()).item<std::int64_t>(), 3);  // NaN counts as the largest
  const Tensor y = Tensor::from_floats({1, 5, 5, 2, -3, -3}, {ta::Device::cpu(), DType::F64});
  EXPECT_EQ(y.argmax(engine()).item<std::int64_t>(), 1);
  EXPECT_EQ(y.argmin(engine()).item<std::int64_t>(), 4);
  const Tensor m = y.reshape({2, 3});  // [[1, 5, -3], [5, 2, -3]]
  EXPECT_EQ(m.argmax(1, engine()).to_vec<std::int64_t>(), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(m.argmin(0, engine()).to_vec<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 0}));
  // Long contiguous runs go through the SIMD path: NaN must still win.
  Tensor big = Tensor::zeros({100003}, {ta::Device::cpu(), DType::F32});
  big.data<float>()[77777] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(big.max(engine()).item<float>()));
  big.data<float>()[77777] = 9.0f;
  EXPECT_EQ(big.max(engine()).item<float>(), 9.0f);
}

TEST(Reduction, AllAnyOnEveryKind) {
  const Tensor b = Tensor::from_vec_col_major({2, 2}, std::vector<bool>{true, false, true, true});
  EXPECT_EQ(b.all({0}, engine()).to_vec<bool>(), (std::vector<bool>{false, true}));
  EXPECT_EQ(b.any({0}, engine()).to_vec<bool>(), (std::vector<bool>{true, true}));
  const Tensor c = Tensor::from_vec_col_major({2}, std::vector<std::complex<double>>{{0, 0}, {0, 1}});
  EXPECT_FALSE(c.all(engine()).item<bool>());
  EXPECT_TRUE(c.any(engine()).item<bool>());
  const Tensor empty = Tensor::zeros({0}, {ta::Device::cpu(), DType::F32});
  EXPECT_TRUE(empty.all(engine()).item<bool>());
  EXPECT_FALSE(empty.any(engine()).item<bool>());
  EXPECT_EQ(empty.sum(engine()).item<float>(), 0.0f);
}

TEST(Reduction, VarStdWithDdof) {
  const Tensor x = Tensor::from_floats({1, 2, 3, 4}, {ta::Device::cpu(), DType::F64});
  EXPECT_DOUBLE_EQ(x.var(engine()).item<double>(), 1.25);
  EXPECT_DOUBLE_EQ(x.var({0}, {.ddof = 1}, engine()).item<double>(), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(x.std({0}, {.ddof = 1}, engine()).item<double>(), std::sqrt(5.0 / 3.0));
  const Tensor c = Tensor::from_vec_col_major({2}, std::vector<std::complex<double>>{{1, 1}, {-1, -1}});
  const Tensor v = c.var(engine());
  EXPECT_EQ(v.dtype(), DType::F64);  // variance of complex is real
  EXPECT_DOUBLE_EQ(v.item<double>(), 2.0);
}

TEST(Reduction, LogSumExpIsStable) {
  const Tensor x = Tensor::from_floats({1000, 1000}, {ta::Device::cpu(), DType::F64});
  EXPECT_DOUBLE_EQ(x.logsumexp(engine()).item<double>(), 1000 + std::log(2.0));
  const Tensor ninf = Tensor::from_floats({-INFINITY, -INFINITY}, {ta::Device::cpu(), DType::F64});
  EXPECT_EQ(ninf.logsumexp(engine()).item<double>(), -INFINITY);
  const Tensor m = Tensor::from_floats({0, 1, 2, 3}, {ta::Device::cpu(), DType::F32}).reshape({2, 2});
  const auto rows = m.logsumexp({1}, engine()).to_vec<float>();
  EXPECT_NEAR(rows[0], std::log(std::exp(0.0) + std::exp(2.0)), 1e-6);
  EXPECT_EQ(m.logsumexp({1}, {.keepdims = true}, engine()).shape(), (ta::Shape{2, 1}));
}

TEST(Reduction, CumsumCumprodAlongAxes) {
  const Tensor x = Tensor::from_ints({1, 2, 3, 4, 5, 6}, {ta::Device::cpu(), DType::I64}).reshape({2, 3});
  EXPECT_EQ(x.cumsum(0, engine()).to_vec<std::int64_t>(), (std::vector<std::int64_t>{1, 3, 3, 7, 5, 11}));
  EXPECT_EQ(x.cumsum(1, engine()).to_vec<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 4, 6, 9, 12}));
  EXPECT_EQ(x.cumprod(-1, engine()).to_vec<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 3, 8, 15, 48}));
  const Tensor f = Tensor::from_floats({0.5, 0.25, 0.125}, {ta::Device::cpu(), DType::F16});
  EXPECT_EQ(f.cumsum(0, engine()).cast(DType::F64, engine()).to_vec<double>(), (std::vector<double>{0.5, 0.75, 0.875}));
}

TEST(Reduction, ParallelEnginesAreBitwiseIdenticalToSerial) {
  const std::int64_t n = 3 * 65536 + 17;
  const Tensor x = Tensor::normal({n}, 7, {ta::Device::cpu(), DType::F32});
  const Tensor m = x.slice(0, 0, 300 * 655).reshape({300, 655});
  for (int threads : {1, 2, 3, 8}) {
    ta::CpuEngine par = ta::CpuEngine::parallel(threads);
    SCOPED_TRACE(threads);
    EXPECT_EQ(x.sum(par).item<float>(), x.sum(engine()).item<float>());
    EXPECT_EQ(x.max(par).item<float>(), x.max(engine()).item<float>());
    EXPECT_EQ(x.mean(par).item<float>(), x.mean(engine()).item<float>());
    EXPECT_EQ(m.sum({0}, par).to_vec<float>(), m.sum({0}, engine()).to_vec<float>());
    EXPECT_EQ(m.sum({1}, par).to_vec<float>(), m.sum({1}, engine()).to_vec<float>());
    EXPECT_EQ(m.transpose().sum({1}, par).to_vec<float>(), m.transpose().sum({1}, engine()).to_vec<float>());
    EXPECT_EQ(m.var({1}, par).to_vec<float>(), m.var({1}, engine()).to_vec<float>());
    EXPECT_EQ(m.argmax(0, par).to_vec<std::int64_t>(), m.argmax(0, engine()).to_vec<std::int64_t>());
    EXPECT_EQ(m.cumsum(1, par).to_vec<float>(), m.cumsum(1, engine()).to_vec<float>());
  }
}

TEST(Reduction, BadInputsThrowStructuredErrors) {
  auto& e = engine();
  const Tensor x = Tensor::zeros({2, 3}, {ta::Device::cpu(), DType::F32});
  try {
    x.sum({2}, e);
    FAIL() << "no throw";
  } catch (const ta::Error& err) {
    EXPECT_EQ(err.kind(), ta::ErrorKind::Validation);
    const auto* d = std::get_if<ta::AxisOutOfRange>(&err.detail());
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->axis, 2);
    EXPECT_EQ(d->rank, 2);
    EXPECT_EQ(err.message(), "axis 2 out of range for rank 2 (valid: -2..1)");
    EXPECT_EQ(err.op(), "sum");
  }
  try {
    x.sum({0, -2}, e);
    FAIL() << "no throw";
  } catch (const ta::Error& err) {
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_THAT(err.what(), HasSubstr("sum: axis -2 appears twice"));
  }
  const Tensor b = Tensor::zeros({2}, {ta::Device::cpu(), DType::Bool});
  try {
    b.sum(e);
    FAIL() << "no throw";
  } catch (const ta::Error& err) {
    EXPECT_EQ(err.kind(), ta::ErrorKind::UnsupportedDType);
    EXPECT_THAT(err.what(), HasSubstr("sum: unsupported dtype Bool: cast Bool to an integer dtype to count"));
  }
  const Tensor i = Tensor::zeros({2}, {ta::Device::cpu(), DType::I32});
  EXPECT_THROW(i.mean(e), ta::Error);
  const Tensor c = Tensor::zeros({2}, {ta::Device::cpu(), DType::C64});
  EXPECT_THROW(c.max(e), ta::Error);
  EXPECT_THROW(c.argmax(e), ta::Error);
  const Tensor empty = Tensor::zeros({0, 3}, {ta::Device::cpu(), DType::F32});
  try {
    empty.max({0}, e);
    FAIL() << "no throw";
  } catch (const ta::Error& err) {
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_THAT(err.what(), HasSubstr("max: cannot reduce an empty axis"));
  }
  ta::CpuEngine other = ta::CpuEngine::serial(ta::Device::cpu(7));
  try {
    x.sum(other);
    FAIL() << "no throw";
  } catch (const ta::Error& err) {
    EXPECT_EQ(err.kind(), ta::ErrorKind::DeviceMismatch);
    EXPECT_THAT(err.what(), HasSubstr("cpu:7"));
    EXPECT_THAT(err.what(), HasSubstr("cpu:0"));
  }
  EXPECT_THROW(x.cumsum(2, e), ta::Error);
  // ddof is a real number (NumPy): a negative one is allowed (issue 11), not an error.
  EXPECT_NO_THROW(x.var({0}, {.ddof = -1}, e));
}
