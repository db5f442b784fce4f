// Half-precision elementwise runs through F32 vectors. An op on F16 or BF16 is defined as the
// op in F32 rounded once to the half type (docs/ops.md); the scalar loop does that one element
// at a time, with software conversions. Here a block is widened to F32 with vector
// instructions, the F32 vector op runs (cpu/simd.hpp), and the block is narrowed back.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cpu/simd.hpp"
#include "tensora/half.hpp"

namespace tensora::simd {

enum class HalfKind : std::uint8_t { F16, BF16 };

// out[i] = the F32 value of in[i]: bitwise static_cast<float> of Float16 / BFloat16 (exact;
// a NaN keeps its sign and payload).
bool widen_half(HalfKind kind, const std::uint16_t* in, float* out, std::int64_t n);
// out[i] = in[i] rounded to the half type: bitwise Float16(float) / BFloat16(float) (to
// nearest even, overflow to infinity, NaN quiet with its top payload bits).
bool narrow_half(HalfKind kind, const float* in, std::uint16_t* out, std::int64_t n);
// Both return false, touching nothing, where the CPU has no exact vector form (F16 needs x86's
// F16C conversions, which AVX2 and AVX-512 targets have); the caller then runs its scalar loop.

template <class T>
inline constexpr HalfKind kHalfKind = std::is_same_v<T, Float16> ? HalfKind::F16 : HalfKind::BF16;

// Float16 and BFloat16 are their 16 bits.
template <class T>
const std::uint16_t* bits(const T* p) {
  return reinterpret_cast<const std::uint16_t*>(p);
}
template <class T>
std::uint16_t* bits(T* p) {
  return reinterpret_cast<std::uint16_t*>(p);
}

// out[i] = op(in[i]) for a contiguous run of half elements; false, with nothing written, when
// the conversions or the op have no vector form (asked first: with n = 0 those functions
// touch no memory and say whether they would run).
template <class T>
bool half_unary_run(UnaryOp op, const T* in, T* out, std::int64_t n) {
  constexpr std::int64_t kBlock = 256;
  alignas(64) float x[kBlock], r[kBlock];
  const HalfKind kind = kHalfKind<T>;
  if (!widen_half(kind, nullptr, nullptr, 0) || !unary_f32(op, nullptr, nullptr, 0)) return false;
  for (std::int64_t i = 0; i < n; i += kBlock) {
    const std::int64_t len = std::min(kBlock, n - i);
    widen_half(kind, bits(in + i), x, len);
    unary_f32(op, x, r, len);
    narrow_half(kind, r, bits(out + i), len);
  }
  return true;
}

// out[i] = a[i * sa] op b[i * sb] with sa, sb in {0, 1} (0: one value for all).
template <class T>
bool half_binary_run(BinaryOp op, const T* a, std::int64_t sa, const T* b, std::int64_t sb, T* out, std::int64_t n) {
  constexpr std::int64_t kBlock = 256;
  alignas(64) float x[kBlock], y[kBlock], r[kBlock];
  const HalfKind kind = kHalfKind<T>;
  if (!widen_half(kind, nullptr, nullptr, 0) || !binary_f32(op, nullptr, 1, nullptr, 1, nullptr, 0)) return false;
  for (std::int64_t i = 0; i < n; i += kBlock) {
    const std::int64_t len = std::min(kBlock, n - i);
    widen_half(kind, bits(a + i * sa), x, sa == 0 ? 1 : len);
    widen_half(kind, bits(b + i * sb), y, sb == 0 ? 1 : len);
    binary_f32(op, x, sa, y, sb, r, len);
    narrow_half(kind, r, bits(out + i), len);
  }
  return true;
}

}  // namespace tensora::simd
