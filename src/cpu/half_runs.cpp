// Vector F16/BF16 <-> F32 conversions for cpu/half_runs.hpp, compiled once per SIMD target.
// Highway's own F16 conversions on targets without F16C truncate instead of rounding, and its
// BF16 narrowing truncates everywhere, so only F16C's are used for F16 and BF16 rounds here.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/half_runs.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include "cpu/half_runs.hpp"

HWY_BEFORE_NAMESPACE();
namespace tensora::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// x86 targets from AVX2 up have F16C, whose conversions are IEEE's (round to nearest even).
constexpr bool kHasF16C = HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2;

bool WidenHalf(HalfKind kind, const std::uint16_t* in, float* out, int64_t n) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<std::uint16_t, decltype(df)> du16;
  const hn::Rebind<std::uint32_t, decltype(df)> du32;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  if (kind == HalfKind::F16) {
    if constexpr (!kHasF16C) {
      return false;
    } else {
      const hn::Rebind<hwy::float16_t, decltype(df)> dh;
      // F16C makes a signaling NaN quiet; the scalar definition keeps every bit of a NaN
      // (sign, all-ones exponent, the payload shifted up), and so does this.
      auto widen = [&](auto h) {
        const auto f = hn::PromoteTo(df, hn::BitCast(dh, h));
        const auto x = hn::PromoteTo(du32, h);
        const auto nan = hn::Gt(hn::And(x, hn::Set(du32, 0x7fffu)), hn::Set(du32, 0x7c00u));
        const auto bits = hn::Or(hn::Or(hn::ShiftLeft<16>(hn::And(x, hn::Set(du32, 0x8000u))), hn::Set(du32, 0x7f800000u)),
                                 hn::ShiftLeft<13>(hn::And(x, hn::Set(du32, 0x3ffu))));
        return hn::IfThenElse(hn::RebindMask(df, nan), hn::BitCast(df, bits), f);
      };
      int64_t i = 0;
      for (; i + N <= n; i += N) hn::StoreU(widen(hn::LoadU(du16, in + i)), df, out + i);
      for (; i < n; ++i) out[i] = static_cast<float>(Float16::from_bits(in[i]));  // the tail
      return true;
    }
  }
  // BF16 is the top half of an F32.
  auto widen = [&](auto bits) { return hn::BitCast(df, hn::ShiftLeft<16>(hn::PromoteTo(du32, bits))); };
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(widen(hn::LoadU(du16, in + i)), df, out + i);
  for (; i < n; ++i) out[i] = static_cast<float>(BFloat16::from_bits(in[i]));
  return true;
}

bool NarrowHalf(HalfKind kind, const float* in, std::uint16_t* out, int64_t n) {
  const hn::ScalableTag<float> df;
  const hn::Rebind<std::uint16_t, decltype(df)> du16;
  const hn::Rebind<std::uint32_t, decltype(df)> du32;
  const hn::Rebind<std::int32_t, decltype(df)> di32;
  const auto N = static_cast<int64_t>(hn::Lanes(df));
  if (kind == HalfKind::F16) {
    if constexpr (!kHasF16C) {
      return false;
    } else {
      const hn::Rebind<hwy::float16_t, decltype(df)> dh;
      auto* dst = reinterpret_cast<hwy::float16_t*>(out);
      int64_t i = 0;
      for (; i + N <= n; i += N) hn::StoreU(hn::DemoteTo(dh, hn::LoadU(df, in + i)), dh, dst + i);
      for (; i < n; ++i) out[i] = Float16(in[i]).bits;
      return true;
    }
  }
  // BFloat16(float): add 0x7fff plus the kept part's lowest bit (to nearest even; a carry into
  // the exponent gives the next binade or infinity), keep the top 16 bits; a NaN keeps its top
  // bits and is made quiet.
  auto narrow = [&](auto v) {
    const auto x = hn::BitCast(du32, v);
    const auto rounded = hn::ShiftRight<16>(hn::Add(x, hn::Add(hn::Set(du32, 0x7fffu),
                                                              hn::And(hn::ShiftRight<16>(x), hn::Set(du32, 1u)))));
    const auto nan = hn::Or(hn::ShiftRight<16>(x), hn::Set(du32, 0x40u));
    const auto bits = hn::IfThenElse(hn::RebindMask(du32, hn::IsNaN(v)), nan, rounded);
    return hn::DemoteTo(du16, hn::BitCast(di32, bits));  // every value fits: no saturation
  };
  int64_t i = 0;
  for (; i + N <= n; i += N) hn::StoreU(narrow(hn::LoadU(df, in + i)), du16, out + i);
  for (; i < n; ++i) out[i] = BFloat16(in[i]).bits;  // the tail: the scalar definition
  return true;
}

}  // namespace tensora::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tensora::simd {

HWY_EXPORT(WidenHalf);
HWY_EXPORT(NarrowHalf);

bool widen_half(HalfKind kind, const std::uint16_t* in, float* out, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(WidenHalf)(kind, in, out, n);
}
bool narrow_half(HalfKind kind, const float* in, std::uint16_t* out, std::int64_t n) {
  return HWY_DYNAMIC_DISPATCH(NarrowHalf)(kind, in, out, n);
}

}  // namespace tensora::simd
#endif  // HWY_ONCE
