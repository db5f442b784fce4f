// The per-vector elementwise ops of the Highway kernels (simd.cpp) and of the fused programs
// (simd_program.cpp): one definition, so a fused chain rounds exactly like the op-by-op kernels.
// Included once per SIMD target (Highway's -inl.h convention).
#if defined(TENSORA_CPU_SIMD_OPS_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef TENSORA_CPU_SIMD_OPS_INL_H_
#undef TENSORA_CPU_SIMD_OPS_INL_H_
#else
#define TENSORA_CPU_SIMD_OPS_INL_H_
#endif

#include <cstdint>

#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include "ops/elementwise_functors.hpp"
#include "ops/elementwise_catalog.hpp"

HWY_BEFORE_NAMESPACE();
namespace tensora::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether p is aligned to one whole vector of d, as non-temporal stores (hn::Stream) need.
template <class D, class T>
HWY_INLINE bool VectorAligned(D d, const T* p) {
  return reinterpret_cast<std::uintptr_t>(p) % (hn::Lanes(d) * sizeof(T)) == 0;
}

// IEEE 754-2019 maximum / minimum of non-NaN lanes: equal lanes combine bitwise, so that
// max(-0, +0) = +0 (AND of the sign bits) and min(-0, +0) = -0 (OR), in either order.
template <class V>
HWY_INLINE V MaxNoNaN(V a, V b) {
  return hn::IfThenElse(hn::Lt(a, b), b, hn::IfThenElse(hn::Eq(a, b), hn::And(a, b), a));
}
template <class V>
HWY_INLINE V MinNoNaN(V a, V b) {
  return hn::IfThenElse(hn::Lt(b, a), b, hn::IfThenElse(hn::Eq(a, b), hn::Or(a, b), a));
}

template <BinaryOp Op, class D, class V>
HWY_INLINE V Bin(D, V a, V b) {
  if constexpr (Op == BinaryOp::Add) return hn::Add(a, b);
  else if constexpr (Op == BinaryOp::Sub) return hn::Sub(a, b);
  else if constexpr (Op == BinaryOp::Mul) return hn::Mul(a, b);
  else if constexpr (Op == BinaryOp::Div) return hn::Div(a, b);
  // Same selection as the scalar definition (NaN first, +0 above -0), not maxps.
  else if constexpr (Op == BinaryOp::Maximum)
    return hn::IfThenElse(hn::IsNaN(a), a, hn::IfThenElse(hn::IsNaN(b), b, MaxNoNaN(a, b)));
  else if constexpr (Op == BinaryOp::Minimum)
    return hn::IfThenElse(hn::IsNaN(a), a, hn::IfThenElse(hn::IsNaN(b), b, MinNoNaN(a, b)));
  else
    return hn::CopySign(a, b);  // CopySign: exact, as std::copysign
}

template <UnaryOp Op, class D, class V>
HWY_INLINE V Un(D d, V x) {
  using T = hn::TFromD<D>;
  if constexpr (Op == UnaryOp::Neg) return hn::Neg(x);
  else if constexpr (Op == UnaryOp::Abs) return hn::Abs(x);
  else if constexpr (Op == UnaryOp::Exp) return hn::Exp(d, x);
  // Expm1 and Sin return +0 for -0; keep the sign of zero as the scalar definition does.
  else if constexpr (Op == UnaryOp::Expm1) return hn::IfThenElse(hn::Eq(x, hn::Zero(d)), x, hn::Expm1(d, x));
  else if constexpr (Op == UnaryOp::Log) return hn::Log(d, x);
  else if constexpr (Op == UnaryOp::Log1p) return hn::Log1p(d, x);
  else if constexpr (Op == UnaryOp::Sqrt) return hn::Sqrt(x);
  else if constexpr (Op == UnaryOp::Rsqrt) return hn::Div(hn::Set(d, T(1)), hn::Sqrt(x));
  else if constexpr (Op == UnaryOp::Sin) return hn::IfThenElse(hn::Eq(x, hn::Zero(d)), x, hn::Sin(d, x));
  else if constexpr (Op == UnaryOp::Cos) return hn::Cos(d, x);
  else if constexpr (Op == UnaryOp::Tanh) return hn::Tanh(d, x);
  else if constexpr (Op == UnaryOp::Sigmoid) {
    // 1 / (1 + exp(-x)); exp(-x) -> inf gives 0, as the scalar form does.
    return hn::Div(hn::Set(d, T(1)), hn::Add(hn::Set(d, T(1)), hn::Exp(d, hn::Neg(x))));
  } else if constexpr (Op == UnaryOp::Square) return hn::Mul(x, x);
  else if constexpr (Op == UnaryOp::Reciprocal) return hn::Div(hn::Set(d, T(1)), x);
  else if constexpr (Op == UnaryOp::Trunc) return hn::Trunc(x);
  else if constexpr (Op == UnaryOp::Floor) return hn::Floor(x);
  else if constexpr (Op == UnaryOp::Ceil) return hn::Ceil(x);
  else return hn::Round(x);  // Round: half to even
}

// The ops whose Highway form (a polynomial, a range reduction) has lanes outside its domain.
constexpr bool HasSpecialLanes(UnaryOp op) {
  using enum UnaryOp;
  return op == Exp || op == Expm1 || op == Sigmoid || op == Log || op == Log1p || op == Sin || op == Cos ||
         op == Tanh;
}

// Lanes where Highway's polynomial is outside its domain (NaN, infinities, overflow, huge
// trig arguments, log of <= 0): those lanes are recomputed with the scalar definition, so
// special values follow the C library exactly.
template <UnaryOp Op, class D, class V>
HWY_INLINE auto Special(D d, V x) {
  using T = hn::TFromD<D>;
  constexpr bool kF32 = sizeof(T) == 4;
  if constexpr (Op == UnaryOp::Exp || Op == UnaryOp::Expm1 || Op == UnaryOp::Sigmoid) {
    const T bound = kF32 ? T(87) : T(708);  // inside the finite range of exp
    return hn::Not(hn::Le(hn::Abs(x), hn::Set(d, bound)));
  } else if constexpr (Op == UnaryOp::Log) {
    return hn::Or(hn::Not(hn::Gt(x, hn::Zero(d))), hn::IsInf(x));
  } else if constexpr (Op == UnaryOp::Log1p) {
    return hn::Or(hn::Not(hn::Gt(x, hn::Set(d, T(-1)))), hn::IsInf(x));
  } else if constexpr (Op == UnaryOp::Sin || Op == UnaryOp::Cos) {
    return hn::Not(hn::Le(hn::Abs(x), hn::Set(d, T(1000))));
  } else {
    static_assert(Op == UnaryOp::Tanh, "HasSpecialLanes and Special list the same ops");
    return hn::IsNaN(x);
  }
}

template <UnaryOp Op, class D, class V>
HWY_INLINE V UnChecked(D d, V x) {
  using T = hn::TFromD<D>;
  V r = Un<Op>(d, x);
  // Exact ops have no special lanes; leaving them out also keeps the scalar fallback (a call)
  // out of the callers' loops.
  if constexpr (HasSpecialLanes(Op)) {
    const auto special = Special<Op>(d, x);
    if (HWY_UNLIKELY(!hn::AllFalse(d, special))) {
      HWY_ALIGN T xs[hn::MaxLanes(d)];
      HWY_ALIGN T rs[hn::MaxLanes(d)];
      hn::Store(x, d, xs);
      hn::Store(r, d, rs);
      const auto sm = hn::IfThenElseZero(special, hn::Set(d, T(1)));
      HWY_ALIGN T flags[hn::MaxLanes(d)];
      hn::Store(sm, d, flags);
      for (size_t i = 0; i < hn::Lanes(d); ++i)
        if (flags[i] != T(0)) rs[i] = static_cast<T>(fn::unary<Op>(xs[i]));
      r = hn::Load(d, rs);
    }
  }
  return r;
}

}  // namespace tensora::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // TENSORA_CPU_SIMD_OPS_INL_H_
