// convert (checked, up the promotion lattice) and cast (explicit, possibly lossy): every one of
// the 15 x 15 dtype pairs against the test's own reference conversion, the documented cast
// semantics (truncation, saturation, NaN -> 0, wrapping, real parts, round to nearest even),
// the errors, and strided inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

using ::testing::HasSubstr;
using tensora::BFloat16;
using tensora::CpuEngine;
using tensora::Device;
using tensora::DType;
using tensora::Error;
using tensora::ErrorKind;
using tensora::Float16;
using tensora::Shape;
using tensora::Tensor;
using tensora_test::expect_error;

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;
using ld = long double;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

const Device kCpu = Device::cpu();

CpuEngine& eng() {
  static CpuEngine e = CpuEngine::serial();
  return e;
}

template <class T>
inline constexpr bool kCx = false;
template <class R>
inline constexpr bool kCx<std::complex<R>> = true;
template <class T>
inline constexpr bool kHalf = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;
template <class T>
inline constexpr bool kFlt = std::is_floating_point_v<T> || kHalf<T>;
template <class T>
inline constexpr bool kBoolT = std::is_same_v<T, bool>;
template <class T>
inline constexpr bool kIntT = std::is_integral_v<T> && !kBoolT<T>;

template <class F>
void with_type(DType d, F&& f) {
  switch (d) {
    case DType::Bool: f.template operator()<bool>(); return;
    case DType::I8: f.template operator()<std::int8_t>(); return;
    case DType::I16: f.template operator()<std::int16_t>(); return;
    case DType::I32: f.template operator()<std::int32_t>(); return;
    case DType::I64: f.template operator()<std::int64_t>(); return;
    case DType::U8: f.template operator()<std::uint8_t>(); return;
    case DType::U16: f.template operator()<std::uint16_t>(); return;
    case DType::U32: f.template operator()<std::uint32_t>(); return;
    case DType::U64: f.template operator()<std::uint64_t>(); return;
    case DType::F16: f.template operator()<Float16>(); return;
    case DType::BF16: f.template operator()<BFloat16>(); return;
    case DType::F32: f.template operator()<float>(); return;
    case DType::F64: f.template operator()<double>(); return;
    case DType::C64: f.template operator()<c64>(); return;
    case DType::C128: f.template operator()<c128>(); return;
  }
}

template <class T>
ld to_ld(T v) {
  if constexpr (kHalf<T>) return static_cast<ld>(static_cast<float>(v));
  else return static_cast<ld>(v);
}

template <class T>
std::string show(T v) {
  std::ostringstream os;
  os << std::setprecision(21);
  if constexpr (kBoolT<T>) os << (v ? "true" : "false");
  else if constexpr (kIntT<T>) {
    if constexpr (std::is_signed_v<T>) os << static_cast<long long>(v);
    else os << static_cast<unsigned long long>(v);
  } else if constexpr (kHalf<T>) os << static_cast<float>(v) << " [0x" << std::hex << v.bits << "]";
  else if constexpr (kCx<T>) os << "(" << v.real() << ", " << v.imag() << ")";
  else os << v;
  return os.str();
}

// Bit-exact equality, any NaN equal to any NaN.
template <class T>
bool same(T a, T b) {
  if constexpr (kCx<T>) {
    return same(a.real(), b.real()) && same(a.imag(), b.imag());
  } else if constexpr (kFlt<T>) {
    if (std::isnan(to_ld(a)) || std::isnan(to_ld(b))) return std::isnan(to_ld(a)) && std::isnan(to_ld(b));
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

// ---- the reference conversion (cast semantics, written independently of the library) -----------

// |v| rounded to `p` significant bits, ties to even; exact in long double.
ld round_to_bits(u128 mag, int p) {
  int width = 0;
  for (u128 m = mag; m != 0; m >>= 1) ++width;
  if (width <= p) return static_cast<ld>(static_cast<std::uint64_t>(mag));
  const int shift = width - p;
  u128 q = mag >> shift;
  const u128 rem = mag & ((u128{1} << shift) - 1), half = u128{1} << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) ++q;
  return std::ldexp(static_cast<ld>(static_cast<std::uint64_t>(q)), shift);
}

template <class To, class From>
To ref_cast(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (kBoolT<To>) {
    if constexpr (kCx<From>) return v.real() != 0 || v.imag() != 0;
    else return to_ld(v) != 0;  // NaN is true
  } else if constexpr (kCx<To>) {
    using R = typename To::value_type;
    if constexpr (kCx<From>) return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    else return To(ref_cast<R>(v), R{0});
  } else if constexpr (kCx<From>) {
    return ref_cast<To>(v.real());
  } else if constexpr (kIntT<To>) {
    if constexpr (kFlt<From>) {
      const ld x = to_ld(v);
      if (std::isnan(x)) return To{0};
      const ld t = std::trunc(x);
      if (t <= static_cast<ld>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
      if (t >= static_cast<ld>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
      return static_cast<To>(t);
    } else {
      using UT = std::make_unsigned_t<To>;  // two's complement wrap
      return static_cast<To>(static_cast<UT>(static_cast<u128>(static_cast<i128>(v))));
    }
  } else if constexpr (kHalf<To>) {
    if constexpr (kIntT<From> || kBoolT<From>) {
      const i128 x = v;
      const ld r = round_to_bits(static_cast<u128>(x < 0 ? -x : x), std::is_same_v<To, Float16> ? 11 : 8);
      return To(static_cast<double>(x < 0 ? -r : r));  // exact in double; F16 may overflow to inf
    } else if constexpr (std::is_same_v<From, float>) {
      return To(v);
    } else {
      return To(static_cast<double>(to_ld(v)));  // double and the other 16-bit float are exact doubles
    }
  } else {  // float / double: one rounding from the exact long double value
    return static_cast<To>(to_ld(v));
  }
}

// ---- inputs ---------------------------------------------------------------------------------------

const std::vector<long long>& int_values() {
  static const std::vector<long long> v = {
      0, 1, -1, 2, 127, 128, -128, -129, 255, 256, 300, 2049, 2051, 4097, 32767, 32768, -32769, 65504,
      65519, 65520, 65535, 65536, 2147483647LL, 2147483648LL, -2147483649LL, 4294967301LL,
      (1LL << 53) + 1, (1LL << 60) + (1LL << 52) + 1, (1LL << 62) + (1LL << 54) + 1, -((1LL << 60) + (1LL << 52) + 1),
      std::numeric_limits<long long>::max(), std::numeric_limits<long long>::min()};
  return v;
}

const std::vector<double>& float_values() {
  static const std::vector<double> v = {
      0.0, -0.0, 0.4, -0.4, 0.5, -0.5, 1.5, -1.5, 2.5, 2.9, -2.9, 127.9, 128.0, -128.5, -129.0, 255.9,
      256.0, 65504.0, 65519.99, 65520.0, 1e5, 2147483647.0, 2147483647.9, 2147483648.0, -2147483648.9,
      -2147483649.0, 4294967295.5, 4294967296.0, 9223372036854775808.0, 9223372036854774784.0,
      18446744073709551616.0, 18446744073709549568.0, -9223372036854775808.0, -9.3e18, 1e30, -1e30,
      std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
      std::numeric_limits<double>::quiet_NaN(), 1e-8, 1.0 + 0x1p-11, 1.0 + 3 * 0x1p-11, 1.0 + 0x1p-11 + 0x1p-40,
      1.0 + 0x1p-8, 1.0 + 0x1p-8 + 0x1p-40, 0x1p-24, 0x1p-25, -0x1p-25, 3 * 0x1p-26, 6.1e-5, 0.1, 3.3e38,
      3.5e38, 1e-40, 1e-310};
  return v;
}

template <class T>
std::vector<T> values_of() {
  std::vector<T> out;
  if constexpr (kBoolT<T>) {
    out = {false, true, true, false};
  } else if constexpr (kIntT<T>) {
    for (long long v : int_values()) out.push_back(static_cast<T>(v));  // wraps into range
  } else if constexpr (kHalf<T>) {
    for (double v : float_values()) out.push_back(T(v));
  } else if constexpr (kFlt<T>) {
    for (double v : float_values()) out.push_back(static_cast<T>(v));
  } else {
    using R = typename T::value_type;
    const auto& f = float_values();
    for (std::size_t i = 0; i < f.size(); ++i)
      out.push_back(T(static_cast<R>(f[i]), static_cast<R>(f[(i * 7 + 3) % f.size()])));
  }
  return out;
}

std::string pair_name(DType from, DType to) {
  return std::string(tensora::name(from)) + "->" + std::string(tensora::name(to));
}

// A negative-step view of a buffer twice as long: element k of the view is values[k].
template <class T>
Tensor strided(const std::vector<T>& values) {
  std::vector<T> base(values.size() * 2, values.empty() ? T{} : values[0]);
  const std::size_t n = values.size();
  for (std::size_t k = 0; k < n; ++k) base[2 * n - 1 - 2 * k] = values[k];
  const auto b = static_cast<std::int64_t>(base.size());
  return Tensor::from_vec_col_major(Shape{b}, base).slice(0, std::nullopt, std::nullopt, -2);
}

template <class To, class From>
void expect_matches_reference(const Tensor& result, const std::vector<From>& in, const std::string& what) {
  ASSERT_EQ(result.dtype(), tensora::dtype_of<To>()) << what;
  ASSERT_EQ(result.shape(), Shape{static_cast<std::int64_t>(in.size())}) << what;
  const auto got = result.to_vec<To>();
  int bad = 0;
  for (std::size_t k = 0; k < in.size(); ++k) {
    const To want = ref_cast<To>(in[k]);
    if (!same(got[k], want) && ++bad <= 5)
      ADD_FAILURE() << what << ": " << show(in[k]) << " -> " << show(got[k]) << ", expected " << show(want);
  }
}

// ---- every pair ---------------------------------------------------------------------------------------

TEST(ConvertCast, CastOfEveryPairMatchesTheReference) {
  for (DType from : tensora::kAllDTypes)
    for (DType to : tensora::kAllDTypes)
      with_type(from, [&]<class From>() {
        with_type(to, [&]<class To>() {
          const auto in = values_of<From>();
          const auto n = static_cast<std::int64_t>(in.size());
          expect_matches_reference<To>(Tensor::from_vec_col_major(Shape{n}, in).cast(to, eng()), in,
                                       "cast " + pair_name(from, to));
          expect_matches_reference<To>(strided(in).cast(to, eng()), in, "strided cast " + pair_name(from, to));
        });
      });
}

TEST(ConvertCast, ConvertIsAllowedExactlyWhenCanConvert) {
  int allowed = 0;
  for (DType from : tensora::kAllDTypes)
    for (DType to : tensora::kAllDTypes)
      with_type(from, [&]<class From>() {
        with_type(to, [&]<class To>() {
          const auto in = values_of<From>();
          const Tensor x = Tensor::from_vec_col_major(Shape{static_cast<std::int64_t>(in.size())}, in);
          if (tensora::can_convert(from, to)) {
            ++allowed;
            // Values are exactly what the conversion gives (lossless along the lattice for
            // same-kind widening; int -> float rounds as the lattice allows).
            expect_matches_reference<To>(x.convert(to, eng()), in, "convert " + pair_name(from, to));
            expect_matches_reference<To>(strided(in).convert(to, eng()), in, "strided convert " + pair_name(from, to));
          } else {
            const Error e = expect_error([&] { (void)x.convert(to, eng()); });
            EXPECT_EQ(e.kind(), ErrorKind::UnsupportedDTypeConversion) << pair_name(from, to);
            EXPECT_EQ(e.op(), "convert");
            const auto* det = std::get_if<tensora::UnsupportedDTypeConversion>(&e.detail());
            ASSERT_NE(det, nullptr) << pair_name(from, to);
            EXPECT_EQ(det->from, from);
            EXPECT_EQ(det->to, to);
            EXPECT_THAT(std::string(e.message()), HasSubstr("cast(" + std::string(tensora::name(to)) + ")"));
            EXPECT_EQ(std::string(e.message()),
                      "cannot convert " + std::string(tensora::name(from)) + " to " + std::string(tensora::name(to)) +
                          " without loss (not up the promotion lattice); use cast(" + std::string(tensora::name(to)) +
                          ") for a lossy conversion");
          }
        });
      });
  EXPECT_GT(allowed, 15);  // more than the diagonal
}

TEST(ConvertCast, ConvertAlongTheLatticeRoundTripsExactly) {
  // Same-kind widening, Bool to anything, float to a complex of at least its precision.
  auto lossless = [](DType from, DType to) {
    if (from == DType::Bool) return true;
    if (tensora::kind(from) == tensora::kind(to)) return true;
    if (tensora::is_integer(from) && tensora::is_integer(to)) return true;
    if (tensora::is_floating(from) && tensora::is_complex(to)) return true;
    return false;
  };
  for (DType from : tensora::kAllDTypes)
    for (DType to : tensora::kAllDTypes) {
      if (!tensora::can_convert(from, to) || !lossless(from, to)) continue;
      with_type(from, [&]<class From>() {
        const auto in = values_of<From>();
        const Tensor x = Tensor::from_vec_col_major(Shape{static_cast<std::int64_t>(in.size())}, in);
        const auto back = x.convert(to, eng()).cast(from, eng()).to_vec<From>();
        for (std::size_t k = 0; k < in.size(); ++k)
          EXPECT_TRUE(same(back[k], in[k])) << pair_name(from, to) << ": " << show(in[k]) << " came back as " << show(back[k]);
      });
    }
}

TEST(ConvertCast, SameDTypeGivesEqualValues) {
  for (DType d : tensora::kAllDTypes)
    with_type(d, [&]<class T>() {
      const auto in = values_of<T>();
      const Tensor x = Tensor::from_vec_col_major(Shape{static_cast<std::int64_t>(in.size())}, in);
      for (const Tensor& y : {x.convert(d, eng()), x.cast(d, eng()), strided(in).cast(d, eng()), strided(in).convert(d, eng())}) {
        EXPECT_EQ(y.dtype(), d);
        const auto got = y.to_vec<T>();
        ASSERT_EQ(got.size(), in.size());
        for (std::size_t k = 0; k < in.size(); ++k) EXPECT_TRUE(same(got[k], in[k])) << tensora::name(d) << " " << k;
      }
    });
}

// ---- cast semantics, spelled out ------------------------------------------------------------------------

template <class To, class From>
std::vector<To> cast_values(const std::vector<From>& in) {
  return Tensor::from_vec_col_major(Shape{static_cast<std::int64_t>(in.size())}, in)
      .cast(tensora::dtype_of<To>(), eng())
      .template to_vec<To>();
}

template <class From>
std::vector<From> floats(std::initializer_list<double> v) {
  std::vector<From> out;
  for (double x : v) {
    if constexpr (kHalf<From>) out.push_back(From(x));
    else out.push_back(static_cast<From>(x));
  }
  return out;
}

TEST(ConvertCast, FloatToIntTruncatesSaturatesAndMapsNaNToZero) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  auto run = [&]<class From>() {
    const auto in = floats<From>({2.9, -2.9, 0.5, -0.5, -0.0, nan, inf, -inf, 1e30, -1e30, 100.5, -100.5});
    auto per_int = [&]<class To>() {
      constexpr To lo = std::numeric_limits<To>::min(), hi = std::numeric_limits<To>::max();
      const bool s = std::is_signed_v<To>;
      const std::vector<To> want = {2, static_cast<To>(s ? -2 : 0), 0, 0, 0, 0, hi, lo, hi, lo, 100,
                                    static_cast<To>(s ? -100 : 0)};
      EXPECT_EQ((cast_values<To>(in)), want) << tensora::name(tensora::dtype_of<From>()) << " -> "
                                             << tensora::name(tensora::dtype_of<To>());
    };
    per_int.template operator()<std::int8_t>();
    per_int.template operator()<std::int16_t>();
    per_int.template operator()<std::int32_t>();
    per_int.template operator()<std::int64_t>();
    per_int.template operator()<std::uint8_t>();
    per_int.template operator()<std::uint16_t>();
    per_int.template operator()<std::uint32_t>();
    per_int.template operator()<std::uint64_t>();
  };
  run.template operator()<Float16>();
  run.template operator()<BFloat16>();
  run.template operator()<float>();
  run.template operator()<double>();
  // Exactly at and around the ends of the ranges.
  EXPECT_EQ((cast_values<std::int32_t>(std::vector<double>{2147483647.9, 2147483648.0, -2147483648.9, -2147483649.0})),
            (std::vector<std::int32_t>{2147483647, 2147483647, -2147483647 - 1, -2147483647 - 1}));
  EXPECT_EQ((cast_values<std::int64_t>(std::vector<double>{9223372036854775808.0, 9223372036854774784.0, -9223372036854775808.0, -1e19})),
            (std::vector<std::int64_t>{INT64_MAX, 9223372036854774784LL, INT64_MIN, INT64_MIN}));
  EXPECT_EQ((cast_values<std::uint64_t>(std::vector<double>{18446744073709551616.0, 18446744073709549568.0, -1.0})),
            (std::vector<std::uint64_t>{UINT64_MAX, 18446744073709549568ULL, 0}));
  EXPECT_EQ((cast_values<std::int32_t>(std::vector<float>{2147483520.0f, 2147483648.0f, -2147483648.0f})),
            (std::vector<std::int32_t>{2147483520, INT32_MAX, INT32_MIN}));
  EXPECT_EQ((cast_values<std::uint32_t>(std::vector<float>{4294967040.0f, 4294967296.0f})),
            (std::vector<std::uint32_t>{4294967040u, UINT32_MAX}));
  EXPECT_EQ((cast_values<std::int16_t>(floats<Float16>({65504.0, -65504.0, 32767.0}))),
            (std::vector<std::int16_t>{32767, -32768, 32767}));
  EXPECT_EQ((cast_values<std::uint16_t>(floats<Float16>({65504.0}))), (std::vector<std::uint16_t>{65504}));
}

TEST(ConvertCast, IntToIntWraps) {
  EXPECT_EQ((cast_values<std::uint8_t>(std::vector<std::int32_t>{300, -1, 256, 255})), (std::vector<std::uint8_t>{44, 255, 0, 255}));
  EXPECT_EQ((cast_values<std::int32_t>(std::vector<std::int64_t>{(1LL << 40) + 5, -(1LL << 33) - 7, 2147483648LL})),
            (std::vector<std::int32_t>{5, -7, INT32_MIN}));
  EXPECT_EQ((cast_values<std::int8_t>(std::vector<std::uint64_t>{UINT64_MAX, 200, 128})), (std::vector<std::int8_t>{-1, -56, -128}));
  EXPECT_EQ((cast_values<std::int8_t>(std::vector<std::uint8_t>{200, 127})), (std::vector<std::int8_t>{-56, 127}));
  EXPECT_EQ((cast_values<std::uint64_t>(std::vector<std::int8_t>{-1, -128})), (std::vector<std::uint64_t>{UINT64_MAX, UINT64_MAX - 127}));
  EXPECT_EQ((cast_values<std::uint16_t>(std::vector<std::int16_t>{-32768, -1})), (std::vector<std::uint16_t>{32768, 65535}));
  EXPECT_EQ((cast_values<std::int64_t>(std::vector<std::uint64_t>{UINT64_MAX, 1ULL << 63})), (std::vector<std::int64_t>{-1, INT64_MIN}));
}

TEST(ConvertCast, ComplexToRealKeepsTheRealPart) {
  const std::vector<c128> z = {{1.5, -2.0}, {-2.9, 7.0}, {std::nan(""), 1.0}, {0.0, 1.0}, {1e300, 0.0}};
  const auto d = cast_values<double>(z);
  EXPECT_EQ(d[0], 1.5);
  EXPECT_EQ(d[1], -2.9);
  EXPECT_TRUE(std::isnan(d[2]));
  EXPECT_EQ(d[3], 0.0);
  EXPECT_EQ(d[4], 1e300);
  EXPECT_EQ((cast_values<std::int32_t>(z)), (std::vector<std::int32_t>{1, -2, 0, 0, INT32_MAX}));
  EXPECT_EQ((cast_values<bool>(z)), (std::vector<bool>{true, true, true, true, true}));  // imag counts for Bool
  const auto f = cast_values<float>(z);
  EXPECT_EQ(f[0], 1.5f);
  EXPECT_EQ(f[4], std::numeric_limits<float>::infinity());
  EXPECT_EQ(cast_values<Float16>(z)[0], Float16(1.5));
  const auto c = cast_values<c64>(std::vector<c128>{{0.1, -1e300}});
  EXPECT_EQ(c[0], c64(0.1f, -std::numeric_limits<float>::infinity()));
  EXPECT_EQ((cast_values<std::int8_t>(std::vector<c64>{{-2.9f, 7.0f}})), (std::vector<std::int8_t>{-2}));
  // Real to complex puts the value in the real part.
  EXPECT_EQ((cast_values<c128>(std::vector<std::int32_t>{-3})), (std::vector<c128>{{-3.0, 0.0}}));
}

TEST(ConvertCast, F64ToF16RoundsToNearestEvenInOneStep) {
  std::vector<double> in = {1.0 + 0x1p-11, 1.0 + 3 * 0x1p-11, 1.0 + 0x1p-11 + 0x1p-40, 65519.99, 65520.0, 0x1p-25,
                            3 * 0x1p-26, -0x1p-25, 0.1, -2.5, 1e-8, 6.1e-5, 1.0 - 0x1p-12, 2049.0, 2051.0};
  for (int i = 0; i < 200; ++i) in.push_back(std::ldexp(1.0 + i / 211.0, i % 40 - 25) * (i % 3 ? 1 : -1));
  const auto got = cast_values<Float16>(in);
  for (std::size_t k = 0; k < in.size(); ++k) EXPECT_EQ(got[k].bits, Float16(in[k]).bits) << in[k];
  // Spelled out: ties go to even, a bit below the tie decides (no rounding through F32),
  // overflow goes to inf, underflow below half the smallest subnormal to a signed zero.
  EXPECT_EQ(got[0].bits, 0x3c00);
  EXPECT_EQ(got[1].bits, 0x3c02);
  EXPECT_EQ(got[2].bits, 0x3c01);
  EXPECT_EQ(got[3].bits, 0x7bff);
  EXPECT_EQ(got[4].bits, 0x7c00);
  EXPECT_EQ(got[5].bits, 0x0000);
  EXPECT_EQ(got[6].bits, 0x0001);
  EXPECT_EQ(got[7].bits, 0x8000);
  const auto bf = cast_values<BFloat16>(std::vector<double>{1.0 + 0x1p-8, 1.0 + 0x1p-8 + 0x1p-40, 1.0 + 3 * 0x1p-8});
  EXPECT_EQ(bf[0].bits, 0x3f80);
  EXPECT_EQ(bf[1].bits, 0x3f81);
  EXPECT_EQ(bf[2].bits, 0x3f82);
  // F32 -> F16 and F16 <-> BF16 also round once.
  const auto h = cast_values<Float16>(std::vector<float>{1.0f + 0x1p-11f, 65520.0f, 1e-8f});
  EXPECT_EQ(h[0].bits, 0x3c00);
  EXPECT_EQ(h[1].bits, 0x7c00);
  EXPECT_EQ(h[2].bits, 0x0000);
  EXPECT_EQ(cast_values<BFloat16>(std::vector<Float16>{Float16(1.0 + 0x1p-8 + 0x1p-10)})[0].bits, 0x3f81);
}

TEST(ConvertCast, IntToHalfRoundsOnce) {
  // 2^60 + 2^52 + 1 is just above a BF16 midpoint; rounding to double first would land on it.
  const std::vector<std::int64_t> in = {(1LL << 60) + (1LL << 52) + 1, -((1LL << 60) + (1LL << 52) + 1), (1LL << 60) + (1LL << 52),
                                        (1LL << 62) + (1LL << 54) + 1};
  const auto bf = cast_values<BFloat16>(in);
  EXPECT_EQ(static_cast<float>(bf[0]), 0x1p60f + 0x1p53f);
  EXPECT_EQ(static_cast<float>(bf[1]), -(0x1p60f + 0x1p53f));
  EXPECT_EQ(static_cast<float>(bf[2]), 0x1p60f);  // exact tie -> even
  EXPECT_EQ(static_cast<float>(bf[3]), 0x1p62f + 0x1p55f);
  const auto ubf = cast_values<BFloat16>(std::vector<std::uint64_t>{(1ULL << 63) + (1ULL << 55) + 1, UINT64_MAX});
  EXPECT_EQ(static_cast<float>(ubf[0]), 0x1p63f + 0x1p56f);
  EXPECT_EQ(static_cast<float>(ubf[1]), 0x1p64f);
  const auto h = cast_values<Float16>(std::vector<std::int32_t>{2049, 2051, 65519, 65520, -65520, 1 << 30});
  EXPECT_EQ(static_cast<float>(h[0]), 2048.0f);
  EXPECT_EQ(static_cast<float>(h[1]), 2052.0f);
  EXPECT_EQ(static_cast<float>(h[2]), 65504.0f);
  EXPECT_EQ(h[3].bits, 0x7c00);
  EXPECT_EQ(h[4].bits, 0xfc00);
  EXPECT_EQ(h[5].bits, 0x7c00);
  // The same through convert, which the lattice allows for every integer.
  EXPECT_EQ(static_cast<float>(Tensor::from_vec_col_major({1}, std::vector<std::int64_t>{(1LL << 60) + (1LL << 52) + 1})
                                   .convert(DType::BF16, eng())
                                   .item<BFloat16>()),
            0x1p60f + 0x1p53f);
  EXPECT_EQ((cast_values<float>(std::vector<std::uint64_t>{(1ULL << 63) + (1ULL << 39) + 1})), (std::vector<float>{0x1p63f + 0x1p40f}));
}

TEST(ConvertCast, BoolCasts) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ((cast_values<bool>(std::vector<float>{0.0f, -0.0f, static_cast<float>(nan), 0.1f, -3.0f, 1e-45f})),
            (std::vector<bool>{false, false, true, true, true, true}));
  EXPECT_EQ((cast_values<bool>(floats<Float16>({0.0, -0.0, 2.0, 1e-7}))), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ((cast_values<bool>(std::vector<std::int32_t>{0, 5, -1, 256})), (std::vector<bool>{false, true, true, true}));
  EXPECT_EQ((cast_values<bool>(std::vector<std::uint8_t>{0, 255})), (std::vector<bool>{false, true}));
  const std::vector<bool> b = {false, true};
  EXPECT_EQ((cast_values<float>(b)), (std::vector<float>{0.0f, 1.0f}));
  EXPECT_EQ((cast_values<std::uint8_t>(b)), (std::vector<std::uint8_t>{0, 1}));
  EXPECT_EQ((cast_values<std::int64_t>(b)), (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ((cast_values<c64>(b)), (std::vector<c64>{{0, 0}, {1, 0}}));
  EXPECT_EQ(cast_values<BFloat16>(b)[1], BFloat16(1.0));
  EXPECT_EQ((cast_values<bool>(b)), b);
}

TEST(ConvertCast, StridedBroadcastRankZeroAndEmptyInputs) {
  // Transposed.
  const Tensor x = Tensor::from_floats({1.5, -2.5, 3.9, -4.1, 5.5, 300.7}, {kCpu, DType::F64}).reshape({2, 3});
  const Tensor t = x.transpose().cast(DType::I16, eng());
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.to_vec<std::int16_t>(), (std::vector<std::int16_t>{1, 3, 5, -2, -4, 300}));
  EXPECT_EQ(x.transpose().convert(DType::C128, eng()).to_vec<c128>()[1], c128(3.9, 0));
  // Broadcast (zero strides).
  const Tensor b = Tensor::from_floats({2.5, -7.25}, {kCpu, DType::F32}).reshape({2, 1}).broadcast_to({2, 3});
  EXPECT_EQ(b.cast(DType::I8, eng()).to_vec<std::int8_t>(), (std::vector<std::int8_t>{2, -7, 2, -7, 2, -7}));
  EXPECT_EQ(b.convert(DType::F64, eng()).to_vec<double>(), (std::vector<double>{2.5, -7.25, 2.5, -7.25, 2.5, -7.25}));
  // Long strided input across the kernel's chunking.
  const Tensor r = Tensor::arange(0, 200003, {kCpu, DType::I64}).slice(0, std::nullopt, std::nullopt, -3);
  const auto v = r.cast(DType::F32, eng()).to_vec<float>();
  ASSERT_EQ(v.size(), 66668u);
  for (std::size_t k = 0; k < v.size(); k += 997) EXPECT_EQ(v[k], static_cast<float>(200002 - 3 * static_cast<std::int64_t>(k)));
  // Rank 0 and empty.
  const Tensor s = Tensor::from_floats({-1.75}, {kCpu, DType::F64}).reshape({});
  EXPECT_EQ(s.cast(DType::I32, eng()).shape(), Shape{});
  EXPECT_EQ(s.cast(DType::I32, eng()).item<std::int32_t>(), -1);
  const Tensor e = Tensor::zeros({0, 4}, {kCpu, DType::F32});
  EXPECT_EQ(e.cast(DType::U8, eng()).shape(), (Shape{0, 4}));
  EXPECT_EQ(e.convert(DType::F64, eng()).numel(), 0);
  EXPECT_EQ(e.cast(DType::U8, eng()).dtype(), DType::U8);
}

TEST(ConvertCast, BadInputs) {
  const Tensor x = Tensor::ones({2}, {kCpu, DType::F32});
  CpuEngine other = CpuEngine::serial(Device::cpu(1));
  for (int form = 0; form < 2; ++form) {
    const Error e = expect_error([&] {
      if (form == 0) (void)x.convert(DType::F64, other);
      else (void)x.cast(DType::I32, other);
    });
    EXPECT_EQ(e.kind(), ErrorKind::DeviceMismatch);
    EXPECT_EQ(e.op(), form == 0 ? "convert" : "cast");
    const auto* det = std::get_if<tensora::DeviceMismatch>(&e.detail());
    ASSERT_NE(det, nullptr);
    EXPECT_EQ(det->expected, "cpu:1");
    EXPECT_EQ(det->actual, "cpu:0");
  }
  // Even to its own dtype the engine must match.
  EXPECT_EQ(expect_error([&] { (void)x.cast(DType::F32, other); }).kind(), ErrorKind::DeviceMismatch);
  const Tensor none;
  EXPECT_EQ(expect_error([&] { (void)none.cast(DType::F32, eng()); }).kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(expect_error([&] { (void)none.convert(DType::F32, eng()); }).kind(), ErrorKind::InvalidArgument);
  const Error down = expect_error([&] { (void)x.convert(DType::F16, eng()); });
  EXPECT_THAT(down.what(), HasSubstr("convert: cannot convert F32 to F16"));
  EXPECT_THAT(down.what(), HasSubstr("use cast(F16)"));
  // A tensor on another device converts with that device's engine and stays there.
  const Tensor y = Tensor::ones({2}, {Device::cpu(1), DType::F32});
  const Tensor z = y.convert(DType::F64, other);
  EXPECT_EQ(z.device(), Device::cpu(1));
  EXPECT_EQ(z.to_vec<double>(), (std::vector<double>{1, 1}));
}

}  // namespace
