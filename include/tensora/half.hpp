// 16-bit floating-point storage types: IEEE 754 binary16 (Float16) and bfloat16 (BFloat16).
//
// These are storage types only: arithmetic happens in float (or double) after an exact widening.
// Narrowing rounds to nearest, ties to even, directly from the source type, so that
// double -> 16-bit is correctly rounded (going through float would round twice).
// Everything is integer bit manipulation via std::bit_cast so it is constexpr and does not
// depend on the FPU rounding mode or on compiler support for _Float16/__bf16.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

namespace tensora {

namespace detail {

// Rounds an IEEE binary value (bits `x` of a format with SE exponent / SM mantissa bits, stored
// in unsigned U) to the 16-bit format with DE exponent / DM mantissa bits (DE + DM == 15).
// One routine serves binary32/binary64 -> binary16/bfloat16 so the subtle cases are written once.
template <class U, int SE, int SM, int DE, int DM>
constexpr std::uint16_t narrow_bits(U x) noexcept {
  static_assert(DE + DM == 15 && SE >= DE && SM > DM);
  constexpr int kSrcBias = (1 << (SE - 1)) - 1;
  constexpr int kDstBias = (1 << (DE - 1)) - 1;
  constexpr int kDrop = SM - DM;  // mantissa bits that are rounded away
  constexpr U kSignBit = U(1) << (SE + SM);
  constexpr U kSrcInf = U((U(1) << SE) - 1) << SM;
  constexpr std::uint16_t kDstInf = std::uint16_t(((1u << DE) - 1) << DM);

  const auto sign = static_cast<std::uint16_t>((x >> (SE + SM - 15)) & 0x8000u);
  const U ax = x & ~kSignBit;

  if (ax >= kSrcInf) {
    if (ax == kSrcInf) return sign | kDstInf;
    // NaN: force the quiet bit so a payload living only in the dropped bits cannot turn the
    // result into an infinity; keep the top payload bits for debuggability.
    constexpr U kPayloadMask = (U(1) << (DM - 1)) - 1;
    return static_cast<std::uint16_t>(sign | kDstInf | (1u << (DM - 1)) |
                                      ((ax >> kDrop) & kPayloadMask));
  }

  // |x| >= smallest destination normal: rebias the exponent, then round the mantissa. A carry
  // out of the mantissa correctly bumps the exponent (and past the max finite value, gives inf).
  constexpr U kMinNormal = U(kSrcBias - kDstBias + 1) << SM;
  if (ax >= kMinNormal) {
    if constexpr (SE > DE) {
      // >= 2^(max_exp+1) would overflow the 15-bit result before the carry trick applies.
      constexpr U kOverflow = U(kSrcBias + kDstBias + 1) << SM;
      if (ax >= kOverflow) return sign | kDstInf;
    }
    U r = ax - (U(kSrcBias - kDstBias) << SM);
    r += (U(1) << (kDrop - 1)) - 1 + ((r >> kDrop) & 1);  // round half to even
    return static_cast<std::uint16_t>(sign | (r >> kDrop));
  }

  // Subnormal (or zero) result. Anything <= half the smallest subnormal rounds to zero (the tie
  // goes to zero because zero is even); checking that first also keeps the shift below < width.
  constexpr int kHalfMinSubExp = kSrcBias - kDstBias - DM;  // biased exponent of 2^(-bias-DM)
  if constexpr (kHalfMinSubExp >= 1) {
    if (ax <= (U(kHalfMinSubExp) << SM)) return sign;
  }
  int e = static_cast<int>(ax >> SM);
  U m = ax & ((U(1) << SM) - 1);
  if (e == 0) {
    e = 1;  // source subnormal: no implicit bit, same scale as exponent 1
  } else {
    m |= U(1) << SM;
  }
  // Result = m * 2^(e - kSrcBias - SM) / 2^(1 - kDstBias - DM), i.e. m >> shift, rounded.
  const int shift = kSrcBias + SM + 1 - kDstBias - DM - e;
  const U q = m >> shift;
  const U rem = m & ((U(1) << shift) - 1);
  const U half = U(1) << (shift - 1);
  // q == 1 << DM (a round-up into the smallest normal) is already the right encoding.
  return static_cast<std::uint16_t>(sign | (q + ((rem > half || (rem == half && (q & 1))) ? 1 : 0)));
}

constexpr std::uint16_t float_to_half_bits(float v) noexcept {
  return narrow_bits<std::uint32_t, 8, 23, 5, 10>(std::bit_cast<std::uint32_t>(v));
}
constexpr std::uint16_t double_to_half_bits(double v) noexcept {
  return narrow_bits<std::uint64_t, 11, 52, 5, 10>(std::bit_cast<std::uint64_t>(v));
}
constexpr std::uint16_t double_to_bfloat_bits(double v) noexcept {
  return narrow_bits<std::uint64_t, 11, 52, 8, 7>(std::bit_cast<std::uint64_t>(v));
}

constexpr std::uint16_t float_to_bfloat_bits(float v) noexcept {
  const auto x = std::bit_cast<std::uint32_t>(v);
  // Same exponent range as float, so rounding the low 16 bits handles normals, subnormals and
  // overflow to inf uniformly; only NaN needs care (its payload may sit in the dropped bits).
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x0040u);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

constexpr float half_bits_to_float(std::uint16_t h) noexcept {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1fu;
  const std::uint32_t m = h & 0x3ffu;
  if (e == 0x1f) return std::bit_cast<float>(sign | 0x7f800000u | (m << 13));  // inf / NaN
  if (e != 0) return std::bit_cast<float>(sign | ((e + (127 - 15)) << 23) | (m << 13));
  // Zero or subnormal: m * 2^-24 is exact in float (and keeps -0 via the sign bit).
  const float mag = static_cast<float>(m) * 0x1p-24f;
  return std::bit_cast<float>(sign | std::bit_cast<std::uint32_t>(mag));
}

}  // namespace detail

struct Float16 {
  std::uint16_t bits = 0;

  constexpr Float16() = default;
  constexpr explicit Float16(float v) : bits(detail::float_to_half_bits(v)) {}
  constexpr explicit Float16(double v) : bits(detail::double_to_half_bits(v)) {}

  static constexpr Float16 from_bits(std::uint16_t b) {
    Float16 r;
    r.bits = b;
    return r;
  }

  constexpr explicit operator float() const { return detail::half_bits_to_float(bits); }
  constexpr explicit operator double() const {
    return static_cast<double>(detail::half_bits_to_float(bits));
  }
};

struct BFloat16 {
  std::uint16_t bits = 0;

  constexpr BFloat16() = default;
  constexpr explicit BFloat16(float v) : bits(detail::float_to_bfloat_bits(v)) {}
  constexpr explicit BFloat16(double v) : bits(detail::double_to_bfloat_bits(v)) {}

  static constexpr BFloat16 from_bits(std::uint16_t b) {
    BFloat16 r;
    r.bits = b;
    return r;
  }

  constexpr explicit operator float() const {
    return std::bit_cast<float>(std::uint32_t(bits) << 16);
  }
  constexpr explicit operator double() const { return static_cast<double>(static_cast<float>(*this)); }
};

// Tensor storage relies on these being plain 2-byte values (memcpy, reinterpret of buffers).
static_assert(sizeof(Float16) == 2 && alignof(Float16) == 2);
static_assert(sizeof(BFloat16) == 2 && alignof(BFloat16) == 2);
static_assert(std::is_trivially_copyable_v<Float16> && std::is_standard_layout_v<Float16>);
static_assert(std::is_trivially_copyable_v<BFloat16> && std::is_standard_layout_v<BFloat16>);

// Value comparisons (IEEE semantics: NaN unordered, +0 == -0); widening to float is exact.
#define TENSORA_HALF_COMPARISONS(T)                                                                    \
  constexpr bool operator==(T a, T b) { return static_cast<float>(a) == static_cast<float>(b); } \
  constexpr bool operator!=(T a, T b) { return static_cast<float>(a) != static_cast<float>(b); } \
  constexpr bool operator<(T a, T b) { return static_cast<float>(a) < static_cast<float>(b); }   \
  constexpr bool operator<=(T a, T b) { return static_cast<float>(a) <= static_cast<float>(b); } \
  constexpr bool operator>(T a, T b) { return static_cast<float>(a) > static_cast<float>(b); }   \
  constexpr bool operator>=(T a, T b) { return static_cast<float>(a) >= static_cast<float>(b); }
TENSORA_HALF_COMPARISONS(Float16)
TENSORA_HALF_COMPARISONS(BFloat16)
#undef TENSORA_HALF_COMPARISONS

inline std::ostream& operator<<(std::ostream& os, Float16 v) { return os << static_cast<float>(v); }
inline std::ostream& operator<<(std::ostream& os, BFloat16 v) { return os << static_cast<float>(v); }

}  // namespace tensora

template <>
struct std::numeric_limits<tensora::Float16> {
 private:
  using T = tensora::Float16;

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr std::float_denorm_style has_denorm = std::denorm_present;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;
  static constexpr bool is_iec559 = true;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = 11;
  static constexpr int digits10 = 3;
  static constexpr int max_digits10 = 5;
  static constexpr int radix = 2;
  static constexpr int min_exponent = -13;
  static constexpr int min_exponent10 = -4;
  static constexpr int max_exponent = 16;
  static constexpr int max_exponent10 = 4;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;

  static constexpr T min() noexcept { return T::from_bits(0x0400); }  // 2^-14
  static constexpr T max() noexcept { return T::from_bits(0x7bff); }  // 65504
  static constexpr T lowest() noexcept { return T::from_bits(0xfbff); }
  static constexpr T epsilon() noexcept { return T::from_bits(0x1400); }  // 2^-10
  static constexpr T round_error() noexcept { return T::from_bits(0x3800); }  // 0.5
  static constexpr T infinity() noexcept { return T::from_bits(0x7c00); }
  static constexpr T quiet_NaN() noexcept { return T::from_bits(0x7e00); }
  static constexpr T signaling_NaN() noexcept { return T::from_bits(0x7d00); }
  static constexpr T denorm_min() noexcept { return T::from_bits(0x0001); }  // 2^-24
};

template <>
struct std::numeric_limits<tensora::BFloat16> {
 private:
  using T = tensora::BFloat16;

 public:
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr std::float_denorm_style has_denorm = std::denorm_present;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;
  static constexpr bool is_iec559 = false;  // not an IEEE 754 interchange format
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int digits = 8;
  static constexpr int digits10 = 2;
  static constexpr int max_digits10 = 4;
  static constexpr int radix = 2;
  static constexpr int min_exponent = -125;
  static constexpr int min_exponent10 = -37;
  static constexpr int max_exponent = 128;
  static constexpr int max_exponent10 = 38;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;

  static constexpr T min() noexcept { return T::from_bits(0x0080); }  // 2^-126
  static constexpr T max() noexcept { return T::from_bits(0x7f7f); }  // (2 - 2^-7) * 2^127
  static constexpr T lowest() noexcept { return T::from_bits(0xff7f); }
  static constexpr T epsilon() noexcept { return T::from_bits(0x3c00); }  // 2^-7
  static constexpr T round_error() noexcept { return T::from_bits(0x3f00); }  // 0.5
  static constexpr T infinity() noexcept { return T::from_bits(0x7f80); }
  static constexpr T quiet_NaN() noexcept { return T::from_bits(0x7fc0); }
  static constexpr T signaling_NaN() noexcept { return T::from_bits(0x7fa0); }
  static constexpr T denorm_min() noexcept { return T::from_bits(0x0001); }  // 2^-133
};
