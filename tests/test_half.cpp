// Tests for tensora/half.hpp: bit-exact conversions for Float16 (binary16) and BFloat16.
//
// The reference rounding used here is deliberately independent of the implementation: it decodes
// every 16-bit pattern with ldexp, then picks the nearer neighbour (ties to the even pattern) by
// comparing exact long double distances.

#include "tensora/half.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using tensora::BFloat16;
using tensora::Float16;

float f32(std::uint32_t b) { return std::bit_cast<float>(b); }
double f64(std::uint64_t b) { return std::bit_cast<double>(b); }
std::uint32_t bits32(float f) { return std::bit_cast<std::uint32_t>(f); }

bool is_nan_f16(std::uint16_t b) { return (b & 0x7c00) == 0x7c00 && (b & 0x03ff) != 0; }
bool is_nan_bf16(std::uint16_t b) { return (b & 0x7f80) == 0x7f80 && (b & 0x007f) != 0; }

// ---------------------------------------------------------------------------------------------
// Independent reference.

struct Format {
  int ebits;
  int mbits;
  std::uint16_t inf;                // bit pattern of +inf
  std::vector<long double> values;  // values[i] = value of pattern i, for i in [0, inf]
};

// Decodes a non-negative finite pattern from its fields. For the +inf pattern this yields
// 2^(emax+1), which is exactly the "next value" an unbounded exponent would give, so rounding
// to it means overflow to infinity (IEEE 754 overflow rule).
long double decode(std::uint16_t i, int ebits, int mbits) {
  const int bias = (1 << (ebits - 1)) - 1;
  const int e = i >> mbits;
  const int m = i & ((1 << mbits) - 1);
  if (e == 0) return std::ldexp(static_cast<long double>(m), 1 - bias - mbits);
  return std::ldexp(static_cast<long double>((1 << mbits) + m), e - bias - mbits);
}

Format make_format(int ebits, int mbits) {
  Format f{ebits, mbits, static_cast<std::uint16_t>(((1 << ebits) - 1) << mbits), {}};
  for (int i = 0; i <= f.inf; ++i) f.values.push_back(decode(static_cast<std::uint16_t>(i), ebits, mbits));
  return f;
}

const Format& f16_format() {
  static const Format f = make_format(5, 10);
  return f;
}
const Format& bf16_format() {
  static const Format f = make_format(8, 7);
  return f;
}

// Correctly rounded pattern for a finite or infinite (non-NaN) x.
std::uint16_t ref_round(long double x, const Format& f) {
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const long double a = std::fabs(x);
  if (a >= f.values[f.inf]) return sign | f.inf;
  const auto hi = static_cast<std::size_t>(std::upper_bound(f.values.begin(), f.values.end(), a) - f.values.begin());
  const std::size_t lo = hi - 1;
  const long double dlo = a - f.values[lo];
  const long double dhi = f.values[hi] - a;
  std::size_t r;
  if (dlo < dhi) {
    r = lo;
  } else if (dhi < dlo) {
    r = hi;
  } else {
    r = (lo % 2 == 0) ? lo : hi;
  }
  return static_cast<std::uint16_t>(sign | r);
}

std::uint16_t ref_f16(long double x) { return ref_round(x, f16_format()); }
std::uint16_t ref_bf16(long double x) { return ref_round(x, bf16_format()); }

// Collects mismatches so a broken implementation reports a few examples, not 100k failures.
struct Mismatches {
  int count = 0;
  std::string examples;
  template <class V>
  void check(const char* what, V input, unsigned got, unsigned want) {
    if (got == want) return;
    if (++count <= 10) {
      std::ostringstream os;
      os.precision(std::numeric_limits<V>::max_digits10);
      os << "  " << what << "(" << input << ") = 0x" << std::hex << got << ", want 0x" << want << "\n";
      examples += os.str();
    }
  }
};

// ---------------------------------------------------------------------------------------------
// Compile-time: the conversions are usable in constant expressions.

static_assert(Float16(1.0f).bits == 0x3c00);
static_assert(Float16(1.0).bits == 0x3c00);
static_assert(Float16(-2.0f).bits == 0xc000);
static_assert(static_cast<float>(Float16::from_bits(0x3555)) == 0x1.554p-2f);
static_assert(static_cast<double>(Float16::from_bits(0x0001)) == 0x1p-24);
static_assert(BFloat16(1.0f).bits == 0x3f80);
static_assert(BFloat16(1.0).bits == 0x3f80);
static_assert(static_cast<float>(BFloat16::from_bits(0x4049)) == 3.140625f);
static_assert(Float16(0.5f) == Float16(0.5));
static_assert(Float16().bits == 0 && BFloat16().bits == 0);
static_assert(std::numeric_limits<Float16>::is_specialized && std::numeric_limits<BFloat16>::is_specialized);
static_assert(static_cast<float>(std::numeric_limits<Float16>::max()) == 65504.0f);

// ---------------------------------------------------------------------------------------------
// Float16 from float: hand-picked cases.

TEST(Float16, BasicValues) {
  EXPECT_EQ(Float16(0.0f).bits, 0x0000);
  EXPECT_EQ(Float16(-0.0f).bits, 0x8000);
  EXPECT_EQ(Float16(1.0f).bits, 0x3c00);
  EXPECT_EQ(Float16(-1.0f).bits, 0xbc00);
  EXPECT_EQ(Float16(2.0f).bits, 0x4000);
  EXPECT_EQ(Float16(0.5f).bits, 0x3800);
  EXPECT_EQ(Float16(1.5f).bits, 0x3e00);
  EXPECT_EQ(Float16(0.1f).bits, 0x2e66);
  EXPECT_EQ(Float16(3.14159265f).bits, 0x4248);
  EXPECT_EQ(Float16(65504.0f).bits, 0x7bff);
  EXPECT_EQ(Float16(-65504.0f).bits, 0xfbff);
}

TEST(Float16, TiesToEven) {
  EXPECT_EQ(Float16(1.0f + 0x1p-11f).bits, 0x3c00);         // tie, 0x3c00 is even
  EXPECT_EQ(Float16(1.0f + 3 * 0x1p-11f).bits, 0x3c02);     // tie between 0x3c01 and 0x3c02
  EXPECT_EQ(Float16(1.0f + 0x1p-11f + 0x1p-23f).bits, 0x3c01);  // just above the tie
  EXPECT_EQ(Float16(1.0f + 3 * 0x1p-11f - 0x1p-23f).bits, 0x3c01);  // just below the tie
  EXPECT_EQ(Float16(-(1.0f + 0x1p-11f)).bits, 0xbc00);
  EXPECT_EQ(Float16(-(1.0f + 3 * 0x1p-11f)).bits, 0xbc02);
  EXPECT_EQ(Float16(2049.0f).bits, 0x6800);  // 2048 + half ulp -> 2048
  EXPECT_EQ(Float16(2051.0f).bits, 0x6802);  // 2050 + half ulp -> 2052
}

TEST(Float16, Overflow) {
  EXPECT_EQ(Float16(65519.99f).bits, 0x7bff);
  EXPECT_EQ(Float16(std::nextafter(65520.0f, 0.0f)).bits, 0x7bff);
  EXPECT_EQ(Float16(65520.0f).bits, 0x7c00);  // tie between max (odd) and 2^16 (even) -> inf
  EXPECT_EQ(Float16(-65520.0f).bits, 0xfc00);
  EXPECT_EQ(Float16(65536.0f).bits, 0x7c00);
  EXPECT_EQ(Float16(1e10f).bits, 0x7c00);
  EXPECT_EQ(Float16(std::numeric_limits<float>::max()).bits, 0x7c00);
  EXPECT_EQ(Float16(-std::numeric_limits<float>::max()).bits, 0xfc00);
}

TEST(Float16, SubnormalsAndUnderflow) {
  EXPECT_EQ(Float16(0x1p-14f).bits, 0x0400);  // smallest normal
  EXPECT_EQ(Float16(0x1p-24f).bits, 0x0001);  // smallest subnormal
  EXPECT_EQ(Float16(-0x1p-24f).bits, 0x8001);
  EXPECT_EQ(Float16(0x1p-25f).bits, 0x0000);  // tie between 0 and 2^-24 -> 0 (even)
  EXPECT_EQ(Float16(-0x1p-25f).bits, 0x8000);  // underflow keeps the sign
  EXPECT_EQ(Float16(0x1.8p-25f).bits, 0x0001);
  EXPECT_EQ(Float16(std::nextafter(0x1p-25f, 1.0f)).bits, 0x0001);
  EXPECT_EQ(Float16(std::nextafter(0x1p-25f, 0.0f)).bits, 0x0000);
  EXPECT_EQ(Float16(0x1p-26f).bits, 0x0000);
  EXPECT_EQ(Float16(1e-30f).bits, 0x0000);
  EXPECT_EQ(Float16(-1e-30f).bits, 0x8000);
  EXPECT_EQ(Float16(std::numeric_limits<float>::denorm_min()).bits, 0x0000);
  EXPECT_EQ(Float16(-std::numeric_limits<float>::denorm_min()).bits, 0x8000);
  EXPECT_EQ(Float16(2.5f * 0x1p-24f).bits, 0x0002);  // subnormal tie -> even
  EXPECT_EQ(Float16(3.5f * 0x1p-24f).bits, 0x0004);
  EXPECT_EQ(Float16(1023.0f * 0x1p-24f).bits, 0x03ff);  // largest subnormal
  // Values just under the smallest normal that round up into it.
  EXPECT_EQ(Float16(1023.5f * 0x1p-24f).bits, 0x0400);  // tie, 0x3ff odd -> 0x400
  EXPECT_EQ(Float16(1023.75f * 0x1p-24f).bits, 0x0400);
  EXPECT_EQ(Float16(std::nextafter(0x1p-14f, 0.0f)).bits, 0x0400);
  EXPECT_EQ(Float16(-1023.5f * 0x1p-24f).bits, 0x8400);
  EXPECT_EQ(Float16(1023.25f * 0x1p-24f).bits, 0x03ff);
  // Normal just above the smallest normal, rounding within the normal range.
  EXPECT_EQ(Float16(0x1p-14f + 0x1p-25f).bits, 0x0400);
  EXPECT_EQ(Float16(0x1p-14f + 0x1.8p-25f).bits, 0x0401);
}

TEST(Float16, InfinityAndNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(Float16(inf).bits, 0x7c00);
  EXPECT_EQ(Float16(-inf).bits, 0xfc00);

  const float nans[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::signaling_NaN(),
                        f32(0x7f800001u),  // payload only in bits that get dropped
                        f32(0x7f801fffu), f32(0x7fffffffu), f32(0x7fc00000u), f32(0x7fa00000u)};
  for (float n : nans) {
    for (float v : {n, -n}) {
      const std::uint16_t b = Float16(v).bits;
      EXPECT_TRUE(is_nan_f16(b)) << std::hex << bits32(v) << " -> " << b;
      EXPECT_TRUE(b & 0x0200) << "quiet bit: " << std::hex << bits32(v) << " -> " << b;
      EXPECT_EQ(b & 0x8000, (bits32(v) >> 16) & 0x8000) << "sign: " << std::hex << bits32(v);
      EXPECT_TRUE(std::isnan(static_cast<float>(Float16(v))));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Float16 from double: correct rounding directly from the double value.

TEST(Float16, FromDoubleBasics) {
  EXPECT_EQ(Float16(1.0).bits, 0x3c00);
  EXPECT_EQ(Float16(-0.0).bits, 0x8000);
  EXPECT_EQ(Float16(0.1).bits, 0x2e66);
  EXPECT_EQ(Float16(65504.0).bits, 0x7bff);
  EXPECT_EQ(Float16(65520.0).bits, 0x7c00);
  EXPECT_EQ(Float16(1e300).bits, 0x7c00);
  EXPECT_EQ(Float16(-1e300).bits, 0xfc00);
  EXPECT_EQ(Float16(1e-300).bits, 0x0000);
  EXPECT_EQ(Float16(-1e-300).bits, 0x8000);
  EXPECT_EQ(Float16(std::numeric_limits<double>::denorm_min()).bits, 0x0000);
  EXPECT_EQ(Float16(0x1p-24).bits, 0x0001);
  EXPECT_EQ(Float16(0x1p-25).bits, 0x0000);
  EXPECT_EQ(Float16(0x1.8p-25).bits, 0x0001);
  EXPECT_EQ(Float16(1023.5 * 0x1p-24).bits, 0x0400);
  EXPECT_EQ(Float16(1.0 + 0x1p-11).bits, 0x3c00);
  EXPECT_EQ(Float16(1.0 + 3 * 0x1p-11).bits, 0x3c02);
  EXPECT_EQ(Float16(std::numeric_limits<double>::infinity()).bits, 0x7c00);
  EXPECT_EQ(Float16(-std::numeric_limits<double>::infinity()).bits, 0xfc00);
  for (double n : {std::numeric_limits<double>::quiet_NaN(), f64(0x7ff0000000000001ull), f64(0xfff0000000000001ull),
                   f64(0x7ff00000ffffffffull), std::numeric_limits<double>::signaling_NaN()}) {
    const std::uint16_t b = Float16(n).bits;
    EXPECT_TRUE(is_nan_f16(b)) << std::hex << std::bit_cast<std::uint64_t>(n) << " -> " << b;
    EXPECT_TRUE(b & 0x0200);
    EXPECT_EQ(b & 0x8000, std::signbit(n) ? 0x8000 : 0);
  }
}

TEST(Float16, FromDoubleAvoidsDoubleRounding) {
  // Each double is just off a Float16 tie but rounds to exactly the tie in float, so going
  // through float would round the wrong way.
  struct Case {
    double v;
    std::uint16_t want;
  };
  const Case cases[] = {
      {1.0 + 0x1p-11 + 0x1p-40, 0x3c01},         // above a tie whose even side is below
      {-(1.0 + 0x1p-11 + 0x1p-40), 0xbc01},
      {1.0 + 3 * 0x1p-11 - 0x1p-40, 0x3c01},     // below a tie whose even side is above
      {65520.0 - 0x1p-30, 0x7bff},               // just under the overflow threshold: finite
      {-(65520.0 - 0x1p-30), 0xfbff},
      {0x1p-25 + 0x1p-60, 0x0001},               // just above the 0 / 2^-24 tie
      {-(0x1p-25 + 0x1p-60), 0x8001},
      {1023.5 * 0x1p-24 - 0x1p-60, 0x03ff},      // just under the subnormal -> normal tie
      {2.5 * 0x1p-24 + 0x1p-60, 0x0003},         // subnormal tie, nudged up
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Float16(c.v).bits, c.want) << std::hexfloat << c.v;
    EXPECT_EQ(ref_f16(c.v), c.want) << std::hexfloat << c.v;
    // The case is meaningful only if the float path really gets it wrong.
    EXPECT_NE(Float16(static_cast<float>(c.v)).bits, c.want) << std::hexfloat << c.v;
  }
}

// ---------------------------------------------------------------------------------------------
// Float16 -> float / double: exact.

TEST(Float16, WideningIsExactForAllPatterns) {
  for (std::uint32_t i = 0; i < 0x10000; ++i) {
    const Float16 h = Float16::from_bits(static_cast<std::uint16_t>(i));
    const float f = static_cast<float>(h);
    const double d = static_cast<double>(h);
    const bool neg = (i & 0x8000) != 0;
    const std::uint16_t mag = i & 0x7fff;
    if (mag > 0x7c00) {
      ASSERT_TRUE(std::isnan(f)) << i;
      ASSERT_TRUE(std::isnan(d)) << i;
      ASSERT_EQ(std::signbit(f), neg) << i;
      continue;
    }
    const long double want = mag == 0x7c00 ? std::numeric_limits<long double>::infinity() : decode(mag, 5, 10);
    ASSERT_EQ(static_cast<long double>(f), neg ? -want : want) << i;
    ASSERT_EQ(static_cast<long double>(d), neg ? -want : want) << i;
    ASSERT_EQ(std::signbit(f), neg) << i;  // covers -0
    ASSERT_EQ(std::signbit(d), neg) << i;
  }
}

TEST(Float16, RoundTripAllPatterns) {
  for (std::uint32_t i = 0; i < 0x10000; ++i) {
    const Float16 h = Float16::from_bits(static_cast<std::uint16_t>(i));
    const std::uint16_t via_float = Float16(static_cast<float>(h)).bits;
    const std::uint16_t via_double = Float16(static_cast<double>(h)).bits;
    if (is_nan_f16(h.bits)) {
      ASSERT_TRUE(is_nan_f16(via_float)) << i;
      ASSERT_TRUE(is_nan_f16(via_double)) << i;
      ASSERT_EQ(via_float & 0x8000, i & 0x8000) << i;
      ASSERT_EQ(via_double & 0x8000, i & 0x8000) << i;
    } else {
      ASSERT_EQ(via_float, i);
      ASSERT_EQ(via_double, i);
    }
  }
}

// Every tie point between adjacent Float16 values, its float/double neighbours, and doubles
// that round to the tie in float: the places where rounding bugs live.
TEST(Float16, MatchesReferenceAroundEveryTie) {
  const Format& fmt = f16_format();
  Mismatches mf, md;
  for (std::size_t i = 0; i < fmt.inf; ++i) {
    const double lo = static_cast<double>(fmt.values[i]);
    const double mid = static_cast<double>((fmt.values[i] + fmt.values[i + 1]) / 2);
    for (double base : {lo, mid}) {
      const float fb = static_cast<float>(base);
      ASSERT_EQ(static_cast<double>(fb), base);  // ties of binary16 are exact floats
      for (float s : {1.0f, -1.0f}) {
        for (float f : {fb, std::nextafter(fb, 0.0f), std::nextafter(fb, 1e30f)}) {
          mf.check("Float16", s * f, Float16(s * f).bits, ref_f16(s * f));
        }
      }
      for (double s : {1.0, -1.0}) {
        for (double d : {base, std::nextafter(base, 0.0), std::nextafter(base, 1e300), base * (1 + 0x1p-30),
                         base * (1 - 0x1p-30)}) {
          md.check("Float16", s * d, Float16(s * d).bits, ref_f16(s * d));
        }
      }
    }
  }
  EXPECT_EQ(mf.count, 0) << mf.examples;
  EXPECT_EQ(md.count, 0) << md.examples;
}

TEST(Float16, MatchesReferenceOnRandomInputs) {
  std::mt19937_64 rng(12345);
  Mismatches mf, md;
  for (int n = 0; n < 400000; ++n) {
    const std::uint64_t r = rng();
    // Alternate arbitrary bit patterns with values concentrated around the binary16 range.
    float f;
    double d;
    if (n % 2 == 0) {
      f = f32(static_cast<std::uint32_t>(r));
      d = f64(rng());
    } else {
      const int e = static_cast<int>(r % 48) - 30;  // 2^-30 .. 2^17
      const float sign = (r >> 8) & 1 ? -1.0f : 1.0f;
      f = sign * std::ldexp(1.0f + static_cast<float>((r >> 9) & 0x7fffff) * 0x1p-23f, e);
      d = sign * std::ldexp(1.0 + static_cast<double>((r >> 12) & 0xfffffffffffffull) * 0x1p-52, e);
    }
    if (!std::isnan(f)) mf.check("Float16", f, Float16(f).bits, ref_f16(f));
    if (!std::isnan(d)) md.check("Float16", d, Float16(d).bits, ref_f16(d));
  }
  EXPECT_EQ(mf.count, 0) << mf.examples;
  EXPECT_EQ(md.count, 0) << md.examples;
}

#if defined(__FLT16_MAX__)
// Cross-check against the compiler's own binary16 conversions (libgcc soft-float on x86-64).
TEST(Float16, MatchesCompilerFloat16) {
  std::mt19937_64 rng(777);
  Mismatches mf, md;
  for (int n = 0; n < 200000; ++n) {
    const std::uint64_t r = rng();
    const float f = n % 2 ? f32(static_cast<std::uint32_t>(r)) : std::ldexp(f32(0x3f800000u | (r & 0x7fffff)), int(r >> 40) % 48 - 30);
    const double d = static_cast<double>(f) * (1 + static_cast<double>(r >> 50) * 0x1p-40);
    const volatile float vf = f;  // keep the conversion at run time
    const volatile double vd = d;
    if (!std::isnan(f)) {
      mf.check("Float16", f, Float16(f).bits, std::bit_cast<std::uint16_t>(static_cast<_Float16>(vf)));
    }
    if (!std::isnan(d)) {
      md.check("Float16", d, Float16(d).bits, std::bit_cast<std::uint16_t>(static_cast<_Float16>(vd)));
    }
  }
  EXPECT_EQ(mf.count, 0) << mf.examples;
  EXPECT_EQ(md.count, 0) << md.examples;
}
#endif

// ---------------------------------------------------------------------------------------------
// BFloat16.

TEST(BFloat16, BasicValues) {
  EXPECT_EQ(BFloat16(0.0f).bits, 0x0000);
  EXPECT_EQ(BFloat16(-0.0f).bits, 0x8000);
  EXPECT_EQ(BFloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(BFloat16(-1.0f).bits, 0xbf80);
  EXPECT_EQ(BFloat16(3.14159265f).bits, 0x4049);
  EXPECT_EQ(BFloat16(0.1f).bits, 0x3dcd);
  EXPECT_EQ(BFloat16(65504.0f).bits, 0x4780);  // bfloat16 has the float exponent range
  EXPECT_EQ(BFloat16(1e30f).bits, 0x714a);
}

TEST(BFloat16, TiesToEven) {
  EXPECT_EQ(BFloat16(1.0f + 0x1p-8f).bits, 0x3f80);             // tie -> even (down)
  EXPECT_EQ(BFloat16(1.0f + 3 * 0x1p-8f).bits, 0x3f82);         // tie -> even (up)
  EXPECT_EQ(BFloat16(1.0f + 0x1p-8f + 0x1p-23f).bits, 0x3f81);  // just above the tie
  EXPECT_EQ(BFloat16(1.0f + 3 * 0x1p-8f - 0x1p-23f).bits, 0x3f81);
  EXPECT_EQ(BFloat16(-(1.0f + 3 * 0x1p-8f)).bits, 0xbf82);
  EXPECT_EQ(BFloat16(f32(0x3fffffffu)).bits, 0x4000);  // carry into the exponent
}

TEST(BFloat16, OverflowAndSpecials) {
  EXPECT_EQ(BFloat16(f32(0x7f7f0000u)).bits, 0x7f7f);  // max finite
  EXPECT_EQ(BFloat16(f32(0x7f7f7fffu)).bits, 0x7f7f);
  EXPECT_EQ(BFloat16(f32(0x7f7f8000u)).bits, 0x7f80);  // tie, 0x7f7f odd -> rounds past max -> inf
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::max()).bits, 0x7f80);
  EXPECT_EQ(BFloat16(-std::numeric_limits<float>::max()).bits, 0xff80);
  EXPECT_EQ(BFloat16(std::numeric_limits<float>::infinity()).bits, 0x7f80);
  EXPECT_EQ(BFloat16(-std::numeric_limits<float>::infinity()).bits, 0xff80);

  const float nans[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::signaling_NaN(),
                        f32(0x7f800001u),  // payload only in the low 16 bits: must not become inf
                        f32(0x7f80ffffu), f32(0x7fffffffu), f32(0x7f810000u)};
  for (float n : nans) {
    for (float v : {n, -n}) {
      const std::uint16_t b = BFloat16(v).bits;
      EXPECT_TRUE(is_nan_bf16(b)) << std::hex << bits32(v) << " -> " << b;
      EXPECT_TRUE(b & 0x0040) << "quiet bit: " << std::hex << bits32(v) << " -> " << b;
      EXPECT_EQ(b & 0x8000, bits32(v) >> 16 & 0x8000);
    }
  }
}

TEST(BFloat16, SubnormalFloatInputs) {
  EXPECT_EQ(BFloat16(f32(0x00010000u)).bits, 0x0001);  // smallest bf16 subnormal, exact
  EXPECT_EQ(BFloat16(f32(0x00000001u)).bits, 0x0000);
  EXPECT_EQ(BFloat16(f32(0x80000001u)).bits, 0x8000);
  EXPECT_EQ(BFloat16(f32(0x00008000u)).bits, 0x0000);  // tie between 0 and 0x0001 -> 0
  EXPECT_EQ(BFloat16(f32(0x00008001u)).bits, 0x0001);
  EXPECT_EQ(BFloat16(f32(0x00018000u)).bits, 0x0002);  // subnormal tie -> even
  EXPECT_EQ(BFloat16(f32(0x00028000u)).bits, 0x0002);
  EXPECT_EQ(BFloat16(f32(0x007f8000u)).bits, 0x0080);  // rounds up into the smallest normal
  EXPECT_EQ(BFloat16(f32(0x007fffffu)).bits, 0x0080);
  EXPECT_EQ(BFloat16(f32(0x007f7fffu)).bits, 0x007f);
  EXPECT_EQ(BFloat16(f32(0x00800000u)).bits, 0x0080);
}

TEST(BFloat16, FromDouble) {
  EXPECT_EQ(BFloat16(1.0).bits, 0x3f80);
  EXPECT_EQ(BFloat16(-0.0).bits, 0x8000);
  EXPECT_EQ(BFloat16(3.14159265358979).bits, 0x4049);
  EXPECT_EQ(BFloat16(1e300).bits, 0x7f80);  // beyond float range
  EXPECT_EQ(BFloat16(-1e300).bits, 0xff80);
  EXPECT_EQ(BFloat16(1e39).bits, 0x7f80);
  EXPECT_EQ(BFloat16(1e-300).bits, 0x0000);
  EXPECT_EQ(BFloat16(-1e-300).bits, 0x8000);
  EXPECT_EQ(BFloat16(0x1p-133).bits, 0x0001);  // smallest bf16 subnormal
  EXPECT_EQ(BFloat16(0x1p-134).bits, 0x0000);  // tie -> 0
  EXPECT_EQ(BFloat16(0x1.8p-133).bits, 0x0002);
  EXPECT_EQ(BFloat16(0x1.fep-127).bits, 0x0080);  // rounds up into the smallest normal
  EXPECT_EQ(BFloat16(0x1.ffp+127).bits, 0x7f80);  // tie past max -> inf
  EXPECT_EQ(BFloat16(std::numeric_limits<double>::infinity()).bits, 0x7f80);
  EXPECT_EQ(BFloat16(-std::numeric_limits<double>::infinity()).bits, 0xff80);
  for (double n : {std::numeric_limits<double>::quiet_NaN(), f64(0x7ff0000000000001ull), f64(0xfff0000000000001ull),
                   f64(0x7ff0000100000000ull), std::numeric_limits<double>::signaling_NaN()}) {
    const std::uint16_t b = BFloat16(n).bits;
    EXPECT_TRUE(is_nan_bf16(b)) << std::hex << std::bit_cast<std::uint64_t>(n) << " -> " << b;
    EXPECT_TRUE(b & 0x0040);
    EXPECT_EQ(b & 0x8000, std::signbit(n) ? 0x8000 : 0);
  }
}

TEST(BFloat16, FromDoubleAvoidsDoubleRounding) {
  struct Case {
    double v;
    std::uint16_t want;
  };
  const Case cases[] = {
      {1.0 + 0x1p-8 + 0x1p-40, 0x3f81},
      {-(1.0 + 0x1p-8 + 0x1p-40), 0xbf81},
      {1.0 + 3 * 0x1p-8 - 0x1p-40, 0x3f81},
      {0x1.ffp+127 - 0x1p+90, 0x7f7f},    // just under the overflow tie: stays finite
      {-(0x1.ffp+127 - 0x1p+90), 0xff7f},
      {0x1p-134 + 0x1p-170, 0x0001},      // below float's subnormal precision
      {0x1.fep-127 - 0x1p-170, 0x007f},   // just under the subnormal -> normal tie
  };
  for (const Case& c : cases) {
    EXPECT_EQ(BFloat16(c.v).bits, c.want) << std::hexfloat << c.v;
    EXPECT_EQ(ref_bf16(c.v), c.want) << std::hexfloat << c.v;
    EXPECT_NE(BFloat16(static_cast<float>(c.v)).bits, c.want) << std::hexfloat << c.v;
  }
}

TEST(BFloat16, WideningAndRoundTripAllPatterns) {
  for (std::uint32_t i = 0; i < 0x10000; ++i) {
    const BFloat16 h = BFloat16::from_bits(static_cast<std::uint16_t>(i));
    const float f = static_cast<float>(h);
    ASSERT_EQ(bits32(f), i << 16);  // widening is exact, NaN payload included
    const double d = static_cast<double>(h);
    const std::uint16_t via_float = BFloat16(f).bits;
    const std::uint16_t via_double = BFloat16(d).bits;
    if (is_nan_bf16(h.bits)) {
      ASSERT_TRUE(std::isnan(d)) << i;
      ASSERT_TRUE(is_nan_bf16(via_float)) << i;
      ASSERT_TRUE(is_nan_bf16(via_double)) << i;
      ASSERT_EQ(via_float & 0x8000, i & 0x8000) << i;
      ASSERT_EQ(via_double & 0x8000, i & 0x8000) << i;
    } else {
      ASSERT_EQ(d, static_cast<double>(f)) << i;
      ASSERT_EQ(std::signbit(d), (i & 0x8000) != 0) << i;
      ASSERT_EQ(via_float, i);
      ASSERT_EQ(via_double, i);
    }
  }
}

TEST(BFloat16, MatchesReferenceAroundEveryTie) {
  const Format& fmt = bf16_format();
  Mismatches mf, md;
  for (std::size_t i = 0; i < fmt.inf; ++i) {
    const double lo = static_cast<double>(fmt.values[i]);
    const double mid = static_cast<double>((fmt.values[i] + fmt.values[i + 1]) / 2);
    for (double base : {lo, mid}) {
      const float fb = static_cast<float>(base);
      ASSERT_EQ(static_cast<double>(fb), base);
      for (float s : {1.0f, -1.0f}) {
        for (float f : {fb, std::nextafter(fb, 0.0f), std::nextafter(fb, 1e30f)}) {
          mf.check("BFloat16", s * f, BFloat16(s * f).bits, ref_bf16(s * f));
        }
      }
      for (double s : {1.0, -1.0}) {
        for (double d : {base, std::nextafter(base, 0.0), std::nextafter(base, 1e300), base * (1 + 0x1p-30),
                         base * (1 - 0x1p-30)}) {
          md.check("BFloat16", s * d, BFloat16(s * d).bits, ref_bf16(s * d));
        }
      }
    }
  }
  EXPECT_EQ(mf.count, 0) << mf.examples;
  EXPECT_EQ(md.count, 0) << md.examples;
}

TEST(BFloat16, MatchesReferenceOnRandomInputs) {
  std::mt19937_64 rng(54321);
  Mismatches mf, md;
  for (int n = 0; n < 400000; ++n) {
    const std::uint64_t r = rng();
    const float f = f32(static_cast<std::uint32_t>(r));
    // Doubles: half arbitrary patterns, half within (and just beyond) the float exponent range.
    const double d = n % 2 ? f64(rng())
                           : std::ldexp(1.0 + static_cast<double>(r >> 12) * 0x1p-52, static_cast<int>(r % 280) - 140);
    if (!std::isnan(f)) mf.check("BFloat16", f, BFloat16(f).bits, ref_bf16(f));
    if (!std::isnan(d)) md.check("BFloat16", d, BFloat16(d).bits, ref_bf16(d));
  }
  EXPECT_EQ(mf.count, 0) << mf.examples;
  EXPECT_EQ(md.count, 0) << md.examples;
}

// ---------------------------------------------------------------------------------------------
// Comparisons, printing, numeric_limits.

template <class T>
void check_comparisons() {
  const T one(1.0f), two(2.0f), pz(0.0f), nz(-0.0f), nan(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(one == one);
  EXPECT_FALSE(one != one);
  EXPECT_TRUE(one != two);
  EXPECT_TRUE(one < two && one <= two && two > one && two >= one);
  EXPECT_FALSE(two < one || two <= one || one > two || one >= two);
  EXPECT_TRUE(T(-1.0f) < one);
  EXPECT_TRUE(pz == nz);  // +0 == -0 although the bits differ
  EXPECT_NE(pz.bits, nz.bits);
  EXPECT_FALSE(nan == nan);
  EXPECT_TRUE(nan != nan);
  EXPECT_FALSE(nan < one || nan <= one || nan > one || nan >= one);
  EXPECT_FALSE(one < nan || one <= nan || one > nan || one >= nan);
  EXPECT_TRUE(std::numeric_limits<T>::lowest() < std::numeric_limits<T>::max());
  EXPECT_TRUE(std::numeric_limits<T>::max() < std::numeric_limits<T>::infinity());
}

TEST(Float16, Comparisons) { check_comparisons<Float16>(); }
TEST(BFloat16, Comparisons) { check_comparisons<BFloat16>(); }

TEST(Float16, Printing) {
  std::ostringstream os;
  os << Float16(1.5f) << ' ' << Float16(-0.25f) << ' ' << Float16(65504.0f);
  EXPECT_EQ(os.str(), "1.5 -0.25 65504");
}

TEST(BFloat16, Printing) {
  std::ostringstream os;
  os << BFloat16(1.5f) << ' ' << BFloat16(-3.0f);
  EXPECT_EQ(os.str(), "1.5 -3");
}

TEST(Float16, NumericLimits) {
  using L = std::numeric_limits<Float16>;
  EXPECT_TRUE(L::is_specialized);
  EXPECT_TRUE(L::is_signed);
  EXPECT_TRUE(L::has_infinity);
  EXPECT_TRUE(L::has_quiet_NaN);
  EXPECT_TRUE(L::is_iec559);
  EXPECT_EQ(L::digits, 11);
  EXPECT_EQ(static_cast<float>(L::max()), 65504.0f);
  EXPECT_EQ(static_cast<float>(L::lowest()), -65504.0f);
  EXPECT_EQ(static_cast<float>(L::min()), 0x1p-14f);
  EXPECT_EQ(static_cast<float>(L::epsilon()), 0x1p-10f);
  EXPECT_EQ(static_cast<float>(L::denorm_min()), 0x1p-24f);
  EXPECT_EQ(static_cast<float>(L::round_error()), 0.5f);
  EXPECT_TRUE(std::isinf(static_cast<float>(L::infinity())));
  EXPECT_GT(static_cast<float>(L::infinity()), 0.0f);
  EXPECT_TRUE(std::isnan(static_cast<float>(L::quiet_NaN())));
  EXPECT_TRUE(std::isnan(static_cast<float>(L::signaling_NaN())));
  // epsilon is the gap after 1.
  EXPECT_EQ(Float16::from_bits(0x3c01), Float16(1.0f + static_cast<float>(L::epsilon())));
  // max is the largest value that does not overflow.
  EXPECT_EQ(Float16::from_bits(static_cast<std::uint16_t>(L::max().bits + 1)).bits, L::infinity().bits);
#if defined(__FLT16_MAX__)
  EXPECT_EQ(L::digits, __FLT16_MANT_DIG__);
  EXPECT_EQ(L::digits10, __FLT16_DIG__);
  EXPECT_EQ(L::max_digits10, __FLT16_DECIMAL_DIG__);
  EXPECT_EQ(L::min_exponent, __FLT16_MIN_EXP__);
  EXPECT_EQ(L::max_exponent, __FLT16_MAX_EXP__);
  EXPECT_EQ(L::min_exponent10, __FLT16_MIN_10_EXP__);
  EXPECT_EQ(L::max_exponent10, __FLT16_MAX_10_EXP__);
#endif
}

TEST(BFloat16, NumericLimits) {
  using L = std::numeric_limits<BFloat16>;
  using FL = std::numeric_limits<float>;
  EXPECT_TRUE(L::is_specialized);
  EXPECT_TRUE(L::is_signed);
  EXPECT_TRUE(L::has_infinity);
  EXPECT_TRUE(L::has_quiet_NaN);
  EXPECT_EQ(L::digits, 8);
  EXPECT_EQ(static_cast<float>(L::max()), f32(0x7f7f0000u));
  EXPECT_EQ(static_cast<float>(L::lowest()), -f32(0x7f7f0000u));
  EXPECT_EQ(static_cast<float>(L::min()), FL::min());  // same exponent range as float
  EXPECT_EQ(static_cast<float>(L::epsilon()), 0x1p-7f);
  EXPECT_EQ(static_cast<float>(L::denorm_min()), 0x1p-133f);
  EXPECT_EQ(static_cast<float>(L::round_error()), 0.5f);
  EXPECT_EQ(L::min_exponent, FL::min_exponent);
  EXPECT_EQ(L::max_exponent, FL::max_exponent);
  EXPECT_EQ(L::min_exponent10, FL::min_exponent10);
  EXPECT_EQ(L::max_exponent10, FL::max_exponent10);
  EXPECT_EQ(static_cast<float>(L::infinity()), FL::infinity());
  EXPECT_TRUE(std::isnan(static_cast<float>(L::quiet_NaN())));
  EXPECT_TRUE(std::isnan(static_cast<float>(L::signaling_NaN())));
  EXPECT_EQ(BFloat16::from_bits(0x3f81), BFloat16(1.0f + static_cast<float>(L::epsilon())));
  EXPECT_EQ(BFloat16::from_bits(static_cast<std::uint16_t>(L::max().bits + 1)).bits, L::infinity().bits);
}

}  // namespace
