// Half-precision elementwise runs (cpu/half_runs.hpp): the vector widening and narrowing are
// bitwise Float16's and BFloat16's scalar definitions, and F16/BF16 ops through them are the
// op in F32 rounded once, as the scalar loop computes them, on every SIMD target this CPU runs.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "cpu/half_runs.hpp"
#include "ops/elementwise_functors.hpp"
#include "simd_targets.hpp"
#include "tensora/tensora.hpp"

namespace {

namespace ta = tensora;
using ta::BFloat16;
using ta::Float16;
using ta::Tensor;
using ta::simd::HalfKind;
using tensora_test::TargetMock;

std::uint16_t scalar_narrow(HalfKind kind, float x) {
  return kind == HalfKind::F16 ? Float16(x).bits : BFloat16(x).bits;
}
float scalar_widen(HalfKind kind, std::uint16_t b) {
  return kind == HalfKind::F16 ? static_cast<float>(Float16::from_bits(b)) : static_cast<float>(BFloat16::from_bits(b));
}

// F16 needs F16C: x86's AVX2 and AVX-512 targets; BF16 is converted on every target.
bool converts(HalfKind kind, std::int64_t target) {
  return kind == HalfKind::BF16 || (target & (HWY_AVX3 | HWY_AVX2)) != 0;
}

// Floats that probe rounding to either half type: every half value, the midpoints between
// neighbours (ties go to even) and one float ulp either side, overflow edges, NaNs with
// payloads, and random bit patterns.
std::vector<float> narrowing_probes(HalfKind kind) {
  std::vector<float> v;
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const float x = scalar_widen(kind, static_cast<std::uint16_t>(b));
    const float next = scalar_widen(kind, static_cast<std::uint16_t>(b + 1 < 0x10000 ? b + 1 : b));
    v.push_back(x);
    if (std::isfinite(x) && std::isfinite(next) && std::signbit(x) == std::signbit(next)) {
      const float mid = x + (next - x) / 2;  // exact: a half has far fewer bits than a float
      v.push_back(mid);
      v.push_back(std::nextafter(mid, 0.0f));
      v.push_back(std::nextafter(mid, mid * 2));
    }
  }
  for (const std::uint32_t bits : {0x7fc00001u, 0x7f800001u, 0xffbfffffu, 0x7f802000u, 0x477ff000u, 0x477fefffu})
    v.push_back(std::bit_cast<float>(bits));
  std::mt19937 rng(7);
  for (int i = 0; i < 100000; ++i) v.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
  return v;
}

TEST(HalfRuns, WideningIsExactForEveryHalfValue) {
  std::vector<std::uint16_t> all(0x10000);
  for (std::uint32_t b = 0; b < 0x10000; ++b) all[b] = static_cast<std::uint16_t>(b);
  for (const std::int64_t target : tensora_test::x86_targets()) {
    for (const HalfKind kind : {HalfKind::F16, HalfKind::BF16}) {
      SCOPED_TRACE(std::string(hwy::TargetName(target)) + (kind == HalfKind::F16 ? " F16" : " BF16"));
      const TargetMock mock(target);
      // The whole set, and a run whose end is not a whole vector (the scalar tail).
      for (const std::int64_t n : {std::int64_t{0x10000}, std::int64_t{1001}}) {
        std::vector<float> got(static_cast<std::size_t>(n));
        ASSERT_EQ(ta::simd::widen_half(kind, all.data() + 7, got.data(), n - 7), converts(kind, target));
        if (!converts(kind, target)) continue;
        for (std::int64_t i = 0; i < n - 7; ++i) {
          const float want = scalar_widen(kind, all[static_cast<std::size_t>(i + 7)]);
          const float g = got[static_cast<std::size_t>(i)];
          ASSERT_EQ(std::bit_cast<std::uint32_t>(g), std::bit_cast<std::uint32_t>(want)) << i;  // NaNs too
        }
      }
    }
  }
}

TEST(HalfRuns, NarrowingRoundsBitwiseAsTheScalarDefinition) {
  for (const HalfKind kind : {HalfKind::F16, HalfKind::BF16}) {
    const std::vector<float> probes = narrowing_probes(kind);
    for (const std::int64_t target : tensora_test::x86_targets()) {
      SCOPED_TRACE(std::string(hwy::TargetName(target)) + (kind == HalfKind::F16 ? " F16" : " BF16"));
      const TargetMock mock(target);
      const auto n = static_cast<std::int64_t>(probes.size());
      std::vector<std::uint16_t> got(probes.size());
      ASSERT_EQ(ta::simd::narrow_half(kind, probes.data(), got.data(), n), converts(kind, target));
      if (!converts(kind, target)) continue;
      for (std::size_t i = 0; i < probes.size(); ++i)
        ASSERT_EQ(got[i], scalar_narrow(kind, probes[i])) << "float bits 0x" << std::hex
                                                          << std::bit_cast<std::uint32_t>(probes[i]);
    }
  }
}

// Half values of every class: random bits (NaNs, infinities, subnormals, zeros included).
template <class T>
std::vector<T> random_halves(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = T::from_bits(static_cast<std::uint16_t>(rng()));
  return v;
}

template <class T>
void expect_bits(const std::vector<T>& got, const std::vector<T>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool nan = std::isnan(static_cast<float>(want[i]));
    if (nan) EXPECT_TRUE(std::isnan(static_cast<float>(got[i]))) << what << " i=" << i;
    else EXPECT_EQ(got[i].bits, want[i].bits) << what << " i=" << i;
  }
}

template <class T>
void check_ops_on_target(std::int64_t target) {
  using ta::BinaryOp;
  using ta::UnaryOp;
  auto e = ta::CpuEngine::serial();
  // Around the 256-element block and the 32-element minimum of the binary path.
  for (const std::int64_t n : {1, 31, 32, 255, 256, 257, 1000}) {
    const std::string where = std::string(hwy::TargetName(target)) + " " + std::string(ta::name(ta::dtype_of<T>())) +
                              " n=" + std::to_string(n) + " ";
    const auto xs = random_halves<T>(static_cast<std::size_t>(n), 11), ys = random_halves<T>(static_cast<std::size_t>(n), 12);
    const Tensor x = Tensor::from_vec_col_major<T>({n}, xs), y = Tensor::from_vec_col_major<T>({n}, ys);
    const Tensor s = Tensor::from_vec_col_major<T>({}, {ys[0]});  // one value for all (stride 0)
    auto unary_want = [&](auto f) {
      std::vector<T> w;
      for (const T a : xs) w.push_back(T(f(static_cast<float>(a))));
      return w;
    };
    auto binary_want = [&](auto f, bool scalar) {
      std::vector<T> w;
      for (std::size_t i = 0; i < xs.size(); ++i)
        w.push_back(T(f(static_cast<float>(xs[i]), static_cast<float>(scalar ? ys[0] : ys[i]))));
      return w;
    };
    const TargetMock mock(target);
    expect_bits(x.neg(e).to_vec<T>(), unary_want([](float a) { return ta::fn::unary<UnaryOp::Neg>(a); }), where + "neg");
    expect_bits(x.abs(e).to_vec<T>(), unary_want([](float a) { return ta::fn::unary<UnaryOp::Abs>(a); }), where + "abs");
    expect_bits(x.sqrt(e).to_vec<T>(), unary_want([](float a) { return ta::fn::unary<UnaryOp::Sqrt>(a); }),
                where + "sqrt");
    const auto add = [](float a, float b) { return ta::fn::binary<BinaryOp::Add>(a, b); };
    const auto div = [](float a, float b) { return ta::fn::binary<BinaryOp::Div>(a, b); };
    const auto maximum = [](float a, float b) { return ta::fn::binary<BinaryOp::Maximum>(a, b); };
    const auto copysign = [](float a, float b) { return ta::fn::binary<BinaryOp::CopySign>(a, b); };
    expect_bits(x.add(y, e).to_vec<T>(), binary_want(add, false), where + "add");
    expect_bits(x.div(y, e).to_vec<T>(), binary_want(div, false), where + "div");
    expect_bits(x.maximum(y, e).to_vec<T>(), binary_want(maximum, false), where + "maximum");
    expect_bits(x.copysign(y, e).to_vec<T>(), binary_want(copysign, false), where + "copysign");
    // Ops without a vector form run the scalar loop.
    expect_bits(x.sinh(e).to_vec<T>(), unary_want([](float a) { return ta::fn::unary<UnaryOp::Sinh>(a); }),
                where + "sinh");
    expect_bits(x.hypot(y, e).to_vec<T>(),
                binary_want([](float a, float b) { return ta::fn::binary<BinaryOp::Hypot>(a, b); }, false),
                where + "hypot");
    expect_bits(x.add(s, e).to_vec<T>(), binary_want(add, true), where + "add of one value");
    expect_bits(x.div(s, e).to_vec<T>(), binary_want(div, true), where + "div by one value");
  }
}

// The 65536 values of a half type, in bit order.
template <class T>
Tensor every_value() {
  std::vector<T> v;
  for (std::uint32_t b = 0; b < 0x10000; ++b) v.push_back(T::from_bits(static_cast<std::uint16_t>(b)));
  return Tensor::from_vec_col_major<T>({0x10000}, v);
}

TEST(HalfRuns, CastsBetweenHalfAndF32AreTheScalarConversions) {
  auto e = ta::CpuEngine::serial();
  std::vector<std::uint16_t> all(0x10000);
  for (std::uint32_t b = 0; b < 0x10000; ++b) all[b] = static_cast<std::uint16_t>(b);
  for (const std::int64_t target : tensora_test::x86_targets()) {
    const TargetMock mock(target);
    for (const HalfKind kind : {HalfKind::F16, HalfKind::BF16}) {
      const std::string where = std::string(hwy::TargetName(target)) + (kind == HalfKind::F16 ? " F16" : " BF16");
      const ta::DType dt = kind == HalfKind::F16 ? ta::DType::F16 : ta::DType::BF16;
      // Every half value to F32, bit for bit (NaN payloads included).
      const Tensor halves = kind == HalfKind::F16 ? every_value<Float16>() : every_value<BFloat16>();
      const auto widened = halves.cast(ta::DType::F32, e).to_vec<float>();
      for (std::size_t i = 0; i < all.size(); ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(widened[i]), std::bit_cast<std::uint32_t>(scalar_widen(kind, all[i])))
            << where << " half bits " << i;
      // The rounding probes back to the half type.
      const std::vector<float> probes = narrowing_probes(kind);
      const auto narrowed =
          Tensor::from_vec_col_major<float>({static_cast<std::int64_t>(probes.size())}, probes).cast(dt, e);
      std::vector<std::uint16_t> got(probes.size());
      narrowed.copy_to_buffer(got.data(), ta::Layout::ColMajor);
      for (std::size_t i = 0; i < probes.size(); ++i)
        ASSERT_EQ(got[i], scalar_narrow(kind, probes[i])) << where << " float bits 0x" << std::hex
                                                          << std::bit_cast<std::uint32_t>(probes[i]);
    }
  }
}

TEST(HalfRuns, OpsOnHalfTensorsAreTheF32OpRoundedOnce) {
  for (const std::int64_t target : tensora_test::x86_targets()) {
    check_ops_on_target<Float16>(target);
    check_ops_on_target<BFloat16>(target);
  }
}

}  // namespace
