// The elementwise layer: every binary and unary op against an independent long double /
// std::complex<long double> / 128-bit integer reference, for every dtype the op accepts, over
// contiguous, transposed, negative-step, broadcast, rank-0 and empty operands and sizes that
// exercise SIMD tails; special values; the dtype policy; bad inputs per op family; weak
// scalars; `_into` destinations; clamp and select/where.
//
// The reference never calls the library's functors: reals are computed in long double,
// complex numbers in std::complex<long double>, integers exactly in 128 bits and then wrapped.
// Float results are rounded once to the dtype and compared bit for bit (signed zeros
// included) for exact ops, within a few ulp for transcendental ones.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using tensora::BFloat16;
using tensora::CpuEngine;
using tensora::Device;
using tensora::DType;
using tensora::DTypeKind;
using tensora::Engine;
using tensora::Error;
using tensora::ErrorKind;
using tensora::Float16;
using tensora::Scalar;
using tensora::Shape;
using tensora::SourceLocation;
using tensora::Tensor;
using tensora_test::expect_error;

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;
using ld = long double;
using cld = std::complex<long double>;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

const Device kCpu = Device::cpu();

CpuEngine& eng() {
  static CpuEngine e = CpuEngine::serial();
  return e;
}

// ---- the test's own element traits ------------------------------------------------------------

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

template <class T>
struct real_of {
  using type = T;
};
template <class R>
struct real_of<std::complex<R>> {
  using type = R;
};
template <class T>
using real_t = typename real_of<T>::type;

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
cld to_cld(T v) {
  if constexpr (kCx<T>) return cld(static_cast<ld>(v.real()), static_cast<ld>(v.imag()));
  else return cld(to_ld(v), 0);
}
// One rounding from long double to the element type (halves through double, which is exact
// for every value the references below produce for exact ops).
template <class T>
T round_to(ld v) {
  if constexpr (kHalf<T>) return T(static_cast<double>(v));
  else if constexpr (kBoolT<T>) return v != 0;
  else return static_cast<T>(v);
}
template <class T>
T round_cx(cld v) {
  using R = real_t<T>;
  return T(static_cast<R>(v.real()), static_cast<R>(v.imag()));
}
template <class T>
T from_double(double v) {
  if constexpr (kHalf<T>) return T(v);
  else return static_cast<T>(v);
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

// ---- comparison ---------------------------------------------------------------------------------

template <class F>
bool is_nan_v(F v) {
  const ld x = to_ld(v);
  return x != x;
}
template <class F>
std::int64_t ordered(F v) {
  if constexpr (sizeof(F) == 2) {
    const auto b = std::bit_cast<std::uint16_t>(v);
    const std::int64_t mag = b & 0x7fff;
    return (b & 0x8000) ? -mag : mag;
  } else if constexpr (sizeof(F) == 4) {
    const auto b = std::bit_cast<std::uint32_t>(v);
    const std::int64_t mag = b & 0x7fffffffu;
    return (b >> 31) ? -mag : mag;
  } else {
    const auto b = std::bit_cast<std::uint64_t>(v);
    const auto mag = static_cast<std::int64_t>(b & 0x7fffffffffffffffull);
    return (b >> 63) ? -mag : mag;
  }
}

// How close a result must be. `ulps` for real results (0: bit-exact, signed zeros included);
// `rel` >= 0 compares complex results by |got - expected| <= rel * max(|expected|, 1).
struct Tol {
  int ulps = 0;
  double rel = -1;
};

template <class T>
bool matches(T got, T exp, Tol tol) {
  if constexpr (kBoolT<T> || kIntT<T>) {
    return got == exp;
  } else if constexpr (kFlt<T>) {
    if (is_nan_v(exp) || is_nan_v(got)) return is_nan_v(exp) && is_nan_v(got);
    if (to_ld(exp) == 0 && to_ld(got) == 0) return std::signbit(to_ld(exp)) == std::signbit(to_ld(got));
    const std::int64_t d = ordered(got) - ordered(exp);
    return (d < 0 ? -d : d) <= tol.ulps;
  } else {
    if (tol.rel < 0)
      return matches(got.real(), exp.real(), Tol{tol.ulps}) && matches(got.imag(), exp.imag(), Tol{tol.ulps});
    const bool en = is_nan_v(exp.real()) || is_nan_v(exp.imag());
    const bool gn = is_nan_v(got.real()) || is_nan_v(got.imag());
    if (en || gn) return en == gn;
    const cld g = to_cld(got), e = to_cld(exp);
    return std::abs(g - e) <= static_cast<ld>(tol.rel) * std::max<ld>(std::abs(e), 1.0L);
  }
}

// ---- the op tables (written from docs/ops.md, independently of the catalog) ---------------

enum Kinds : unsigned {
  kB = 1, kS = 2, kU = 4, kF = 8, kC = 16,
  kI = kS | kU, kR = kI | kF, kN = kR | kC, kX = kF | kC, kAll = kB | kN,
};
unsigned kind_bit(DType d) {
  switch (tensora::kind(d)) {
    case DTypeKind::Bool: return kB;
    case DTypeKind::SignedInt: return kS;
    case DTypeKind::UnsignedInt: return kU;
    case DTypeKind::Float: return kF;
    case DTypeKind::Complex: return kC;
  }
  return 0;
}
enum class Res { Same, Bool, Real };
DType result_dtype(Res r, DType d) {
  if (r == Res::Bool) return DType::Bool;
  if (r == Res::Real && d == DType::C64) return DType::F32;
  if (r == Res::Real && d == DType::C128) return DType::F64;
  return d;
}

enum class B { Add, Sub, Mul, Div, FloorDiv, Rem, Pow, Maximum, Minimum, Atan2, Eq, Ne, Lt, Le, Gt, Ge, And, Or, Xor };
enum class U {
  Neg, Abs, Sign, Exp, Expm1, Log, Log1p, Sqrt, Rsqrt, Sin, Cos, Tan, Tanh, Sigmoid, Erf,
  Floor, Ceil, Round, Conj, Real, Imag, Not, IsNan, IsInf, IsFinite,
};

using BinFn = Tensor (Tensor::*)(const Tensor&, Engine&, SourceLocation) const;
using BinScalarFn = Tensor (Tensor::*)(Scalar, Engine&, SourceLocation) const;
using BinIntoFn = void (Tensor::*)(const Tensor&, Engine&, const Tensor&, SourceLocation) const;
using UnFn = Tensor (Tensor::*)(Engine&, SourceLocation) const;
using UnIntoFn = void (Tensor::*)(Engine&, const Tensor&, SourceLocation) const;

struct BinarySpec {
  B op;
  const char* name;
  BinFn fn;
  BinScalarFn scalar_fn;
  BinIntoFn into_fn;
  unsigned accepts;
  Res res;
};
struct UnarySpec {
  U op;
  const char* name;
  UnFn fn;
  UnIntoFn into_fn;
  unsigned accepts;
  Res res;
};

#define TA_BIN(Op, method, acc, r)                                                               \
  BinarySpec {                                                                                   \
    B::Op, #method, static_cast<BinFn>(&Tensor::method), static_cast<BinScalarFn>(&Tensor::method), \
        &Tensor::method##_into, acc, Res::r                                                      \
  }
const std::vector<BinarySpec>& binary_specs() {
  static const std::vector<BinarySpec> specs = {
      TA_BIN(Add, add, kN, Same),           TA_BIN(Sub, sub, kN, Same),
      TA_BIN(Mul, mul, kN, Same),           TA_BIN(Div, div, kX, Same),
      TA_BIN(FloorDiv, floor_div, kR, Same), TA_BIN(Rem, rem, kR, Same),
      TA_BIN(Pow, pow, kN, Same),           TA_BIN(Maximum, maximum, kB | kR, Same),
      TA_BIN(Minimum, minimum, kB | kR, Same), TA_BIN(Atan2, atan2, kF, Same),
      TA_BIN(Eq, eq, kAll, Bool),           TA_BIN(Ne, ne, kAll, Bool),
      TA_BIN(Lt, lt, kB | kR, Bool),        TA_BIN(Le, le, kB | kR, Bool),
      TA_BIN(Gt, gt, kB | kR, Bool),        TA_BIN(Ge, ge, kB | kR, Bool),
      TA_BIN(And, logical_and, kAll, Bool), TA_BIN(Or, logical_or, kAll, Bool),
      TA_BIN(Xor, logical_xor, kAll, Bool),
  };
  return specs;
}
#undef TA_BIN

#define TA_UN(Op, method, acc, r) \
  UnarySpec { U::Op, #method, &Tensor::method, &Tensor::method##_into, acc, Res::r }
const std::vector<UnarySpec>& unary_specs() {
  static const std::vector<UnarySpec> specs = {
      TA_UN(Neg, neg, kN, Same),          TA_UN(Abs, abs, kN, Real),
      TA_UN(Sign, sign, kN, Same),        TA_UN(Exp, exp, kX, Same),
      TA_UN(Expm1, expm1, kF, Same),      TA_UN(Log, log, kX, Same),
      TA_UN(Log1p, log1p, kF, Same),      TA_UN(Sqrt, sqrt, kX, Same),
      TA_UN(Rsqrt, rsqrt, kF, Same),      TA_UN(Sin, sin, kX, Same),
      TA_UN(Cos, cos, kX, Same),          TA_UN(Tan, tan, kX, Same),
      TA_UN(Tanh, tanh, kX, Same),        TA_UN(Sigmoid, sigmoid, kF, Same),
      TA_UN(Erf, erf, kF, Same),          TA_UN(Floor, floor, kR, Same),
      TA_UN(Ceil, ceil, kR, Same),        TA_UN(Round, round, kR, Same),
      TA_UN(Conj, conj, kN, Same),        TA_UN(Real, real, kN, Real),
      TA_UN(Imag, imag, kN, Real),        TA_UN(Not, logical_not, kAll, Bool),
      TA_UN(IsNan, isnan, kAll, Bool),    TA_UN(IsInf, isinf, kAll, Bool),
      TA_UN(IsFinite, isfinite, kAll, Bool),
  };
  return specs;
}
#undef TA_UN

const BinarySpec& bspec(B op) { return binary_specs()[static_cast<std::size_t>(op)]; }
const UnarySpec& uspec(U op) { return unary_specs()[static_cast<std::size_t>(op)]; }

bool is_transcendental(B op) { return op == B::Pow || op == B::Atan2; }
bool is_transcendental(U op) {
  switch (op) {
    case U::Exp: case U::Expm1: case U::Log: case U::Log1p: case U::Rsqrt: case U::Sin: case U::Cos:
    case U::Tan: case U::Tanh: case U::Sigmoid: case U::Erf: return true;
    default: return false;
  }
}

Tol binary_tol(B op, DType d) {
  switch (d) {
    case DType::F16: case DType::BF16: return {is_transcendental(op) ? 1 : 0};
    case DType::F32: return {is_transcendental(op) ? 2 : 0};
    // The long double reference rounds twice on the way to double (64 then 53 bits).
    case DType::F64:
      return {is_transcendental(op) ? 2 : (op == B::Add || op == B::Sub || op == B::Mul || op == B::Div) ? 1 : 0};
    case DType::C64:
      if (op == B::Mul || op == B::Div) return {0, 4e-7};
      if (op == B::Pow) return {0, 2e-5};
      return {};
    case DType::C128:
      if (op == B::Mul || op == B::Div) return {0, 1e-15};
      if (op == B::Pow) return {0, 1e-13};
      return {};
    default: return {};
  }
}
Tol unary_tol(U op, DType d) {
  switch (d) {
    case DType::F16: case DType::BF16: return {is_transcendental(op) ? 1 : 0};
    case DType::F32: case DType::F64: return {is_transcendental(op) ? 4 : 0};
    case DType::C64: case DType::C128:
      if (op == U::Abs) return {2};
      if (op == U::Sign || op == U::Exp || op == U::Log || op == U::Sqrt || op == U::Sin || op == U::Cos ||
          op == U::Tan || op == U::Tanh)
        return {0, d == DType::C64 ? 2e-6 : 1e-14};
      return {};
    default: return {};
  }
}

// ---- references -----------------------------------------------------------------------------------

// CPython's float divmod (Python's // and % on doubles, bit for bit); NumPy's answer for a zero
// divisor (a / b and NaN). F32 and the 16-bit floats are exact in double, so Python's answer
// rounded once to the dtype is the reference for them too.
std::pair<double, double> py_divmod(double a, double b) {
  if (b == 0) return {a / b, std::fmod(a, b)};
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  double floordiv;
  if (div != 0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1;
  } else {
    floordiv = std::copysign(0.0, a / b);
  }
  return {floordiv, mod};
}

// Round half to even, keeping the sign of zero.
ld round_half_even(ld x) {
  if (!std::isfinite(x)) return x;
  const ld f = std::floor(x);
  const ld d = x - f;
  ld r = d > 0.5L ? f + 1 : d < 0.5L ? f : (std::fmod(f, 2.0L) == 0 ? f : f + 1);
  return r == 0 ? std::copysign(0.0L, x) : r;
}

// NumPy's maximum/minimum: NaN propagates (the first NaN wins), ties keep the first operand.
// IEEE 754-2019 maximum / minimum: NaN propagates, +0 is above -0.
ld ref_max(ld a, ld b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
  if (a == b) return std::signbit(a) ? b : a;
  return a < b ? b : a;
}
ld ref_min(ld a, ld b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
  if (a == b) return std::signbit(a) ? a : b;
  return b < a ? b : a;
}

ld ref_real_binary(B op, ld a, ld b) {
  switch (op) {
    case B::Add: return a + b;
    case B::Sub: return a - b;
    case B::Mul: return a * b;
    case B::Div: return a / b;
    case B::FloorDiv: return py_divmod(static_cast<double>(a), static_cast<double>(b)).first;
    case B::Rem: return py_divmod(static_cast<double>(a), static_cast<double>(b)).second;
    case B::Pow: return std::pow(a, b);
    case B::Maximum: return ref_max(a, b);
    case B::Minimum: return ref_min(a, b);
    case B::Atan2: return std::atan2(a, b);
    default: ADD_FAILURE() << "not a real arithmetic op"; return 0;
  }
}
cld ref_cx_binary(B op, cld a, cld b) {
  switch (op) {
    case B::Add: return a + b;
    case B::Sub: return a - b;
    case B::Mul: return a * b;
    case B::Div: return a / b;
    case B::Pow: return std::pow(a, b);
    default: ADD_FAILURE() << "not a complex arithmetic op"; return 0;
  }
}

template <class T>
T wrap(u128 v) {
  using UT = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<UT>(v));
}

template <class T>
T ref_int_pow(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    // 1 / a^|b| truncated toward zero; 0 to a negative power is defined as 0 (no UB, no error).
    if (b < 0) return a == 1 ? T{1} : a == -1 ? (b % 2 == 0 ? T{1} : T{-1}) : T{0};
  }
  const u128 mask = sizeof(T) == 8 ? ~std::uint64_t{0} : (u128{1} << (8 * sizeof(T))) - 1;
  u128 result = 1, base = static_cast<u128>(static_cast<i128>(a)) & mask;
  auto e = static_cast<std::uint64_t>(static_cast<std::make_unsigned_t<T>>(b));
  while (e) {
    if (e & 1) result = (result * base) & mask;
    base = (base * base) & mask;
    e >>= 1;
  }
  return wrap<T>(result);
}

template <class T>
T ref_int_binary(B op, T a, T b) {
  const i128 x = a, y = b;
  switch (op) {
    case B::Add: return wrap<T>(static_cast<u128>(x) + static_cast<u128>(y));
    case B::Sub: return wrap<T>(static_cast<u128>(x) - static_cast<u128>(y));
    case B::Mul: return wrap<T>(static_cast<u128>(x) * static_cast<u128>(y));
    case B::FloorDiv:
    case B::Rem: {
      i128 q = x / y;
      if (q * y != x && ((x < 0) != (y < 0))) --q;
      return wrap<T>(static_cast<u128>(op == B::FloorDiv ? q : x - q * y));
    }
    case B::Pow: return ref_int_pow(a, b);
    case B::Maximum: return a < b ? b : a;
    case B::Minimum: return b < a ? b : a;
    default: ADD_FAILURE() << "not an integer op"; return 0;
  }
}

template <class V>
bool truth(V v) {
  return v != V{};
}
template <class V>
bool ref_predicate(B op, V a, V b) {
  switch (op) {
    case B::Eq: return a == b;
    case B::Ne: return a != b;
    case B::And: return truth(a) && truth(b);
    case B::Or: return truth(a) || truth(b);
    case B::Xor: return truth(a) != truth(b);
    default: break;
  }
  if constexpr (!std::is_same_v<V, cld>) {
    switch (op) {
      case B::Lt: return a < b;
      case B::Le: return a <= b;
      case B::Gt: return a > b;
      case B::Ge: return a >= b;
      default: break;
    }
  }
  ADD_FAILURE() << "not a predicate";
  return false;
}

// The expected result of `a op b` for inputs of type T and a result of type Out.
template <class T, class Out>
Out ref_binary(B op, T a, T b) {
  if constexpr (kBoolT<T> && kBoolT<Out>) {
    if (op == B::Maximum) return a || b;
    if (op == B::Minimum) return a && b;
    return ref_predicate(op, static_cast<int>(a), static_cast<int>(b));
  } else if constexpr (kBoolT<Out>) {
    if constexpr (kCx<T>) return ref_predicate(op, to_cld(a), to_cld(b));
    else if constexpr (kFlt<T>) return ref_predicate(op, to_ld(a), to_ld(b));
    else return ref_predicate(op, static_cast<i128>(a), static_cast<i128>(b));
  } else if constexpr (kIntT<T>) {
    return ref_int_binary(op, a, b);
  } else if constexpr (kFlt<T>) {
    return round_to<T>(ref_real_binary(op, to_ld(a), to_ld(b)));
  } else {
    return round_cx<T>(ref_cx_binary(op, to_cld(a), to_cld(b)));
  }
}

ld ref_real_unary(U op, ld x) {
  switch (op) {
    case U::Neg: return -x;
    case U::Abs: return std::fabs(x);
    case U::Sign: return std::isnan(x) ? x : x > 0 ? 1.0L : x < 0 ? -1.0L : x;
    case U::Exp: return std::exp(x);
    case U::Expm1: return std::expm1(x);
    case U::Log: return std::log(x);
    case U::Log1p: return std::log1p(x);
    case U::Sqrt: return std::sqrt(x);
    case U::Rsqrt: return 1.0L / std::sqrt(x);
    case U::Sin: return std::sin(x);
    case U::Cos: return std::cos(x);
    case U::Tan: return std::tan(x);
    case U::Tanh: return std::tanh(x);
    case U::Sigmoid:
      if (std::isnan(x)) return x;
      return x >= 0 ? 1.0L / (1.0L + std::exp(-x)) : std::exp(x) / (1.0L + std::exp(x));
    case U::Erf: return std::erf(x);
    case U::Floor: return std::floor(x);
    case U::Ceil: return std::ceil(x);
    case U::Round: return round_half_even(x);
    case U::Conj: case U::Real: return x;
    case U::Imag: return 0.0L;
    default: ADD_FAILURE() << "not a real unary op"; return 0;
  }
}
cld ref_cx_unary(U op, cld z) {
  switch (op) {
    case U::Neg: return cld(-z.real(), -z.imag());
    case U::Sign: return z == cld(0) ? cld(0) : z / std::abs(z);
    case U::Exp: return std::exp(z);
    case U::Log: return std::log(z);
    case U::Sqrt: return std::sqrt(z);
    case U::Sin: return std::sin(z);
    case U::Cos: return std::cos(z);
    case U::Tan: return std::tan(z);
    case U::Tanh: return std::tanh(z);
    case U::Conj: return cld(z.real(), -z.imag());
    default: ADD_FAILURE() << "not a complex unary op"; return 0;
  }
}

template <class T, class Out>
Out ref_unary(U op, T a) {
  if constexpr (kBoolT<Out>) {
    bool nan = false, inf = false;
    if constexpr (kCx<T>) {
      nan = std::isnan(to_ld(a.real())) || std::isnan(to_ld(a.imag()));
      inf = std::isinf(to_ld(a.real())) || std::isinf(to_ld(a.imag()));
    } else if constexpr (kFlt<T>) {
      nan = std::isnan(to_ld(a));
      inf = std::isinf(to_ld(a));
    }
    switch (op) {
      case U::Not:
        if constexpr (kCx<T>) return a.real() == real_t<T>{} && a.imag() == real_t<T>{};
        else if constexpr (kFlt<T>) return to_ld(a) == 0;
        else return a == T{};
      case U::IsNan: return nan;
      case U::IsInf: return inf;
      case U::IsFinite: return !nan && !inf;
      default: ADD_FAILURE() << "not a predicate"; return false;
    }
  } else if constexpr (kCx<T> && !kCx<Out>) {  // abs / real / imag of complex
    switch (op) {
      case U::Abs: return round_to<Out>(std::abs(to_cld(a)));
      case U::Real: return a.real();
      case U::Imag: return a.imag();
      default: ADD_FAILURE() << "not a complex -> real op"; return Out{};
    }
  } else if constexpr (kCx<T>) {
    return round_cx<T>(ref_cx_unary(op, to_cld(a)));
  } else if constexpr (kFlt<T>) {
    return round_to<T>(ref_real_unary(op, to_ld(a)));
  } else {  // integers
    const i128 x = a;
    switch (op) {
      case U::Neg: return wrap<T>(static_cast<u128>(-x));
      case U::Abs: return wrap<T>(static_cast<u128>(x < 0 ? -x : x));
      case U::Sign: return static_cast<T>((x > 0) - (x < 0));
      case U::Floor: case U::Ceil: case U::Round: case U::Conj: case U::Real: return a;
      case U::Imag: return T{0};
      default: ADD_FAILURE() << "not an integer unary op"; return T{};
    }
  }
}

// ---- inputs -------------------------------------------------------------------------------------

std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
double unit(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1p-53; }

const std::vector<double>& float_pool() {
  static const std::vector<double> pool = {
      0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, 2.0, -2.0, 3.0, -3.0, 0.1, -0.7,
      7.25, -7.25, 1e-3, -1e-3, 100.0, -100.0, 89.0, -89.0, 95.0, -95.0, 103.0, -103.0, 710.0, -710.0,
      745.5, -745.5, 1e4, -4e4, 65504.0, 65520.0, 1e6, -1e6, 3e5, 1e30, -1e30, 1e-30, 1e-40, -1e-42,
      -1e-310, 3.3e38, 1e300, 4503599627370497.0, 8388609.0, 0.49999997, -0.49999997, 1e-7, -1e-9,
      std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
      std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN()};
  return pool;
}

enum class Domain { Any, NonZero, Moderate };

template <class T>
T gen_value(std::uint64_t h, Domain dom) {
  const std::uint64_t r = mix(h);
  if constexpr (kBoolT<T>) {
    return (r & 1) != 0;
  } else if constexpr (kIntT<T>) {
    static const long long small[] = {0, 1, -1, 2, -2, 3, -3, 5, -7, 7, 10, -10, 100, -100, 127, -128};
    T v;
    switch (r % 4) {
      case 0: v = static_cast<T>(mix(r)); break;
      case 1: v = static_cast<T>(small[(r >> 8) % std::size(small)]); break;
      case 2: {
        const T ext[] = {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
                         static_cast<T>(std::numeric_limits<T>::min() + 1),
                         static_cast<T>(std::numeric_limits<T>::max() - 1)};
        v = ext[(r >> 8) % 4];
        break;
      }
      default: v = static_cast<T>(static_cast<long long>((r >> 8) % 41) - (std::is_signed_v<T> ? 20 : 0));
    }
    if (dom == Domain::NonZero && v == 0) v = static_cast<T>((r >> 20) & 1 ? 1 : -1);
    return v;
  } else if constexpr (kFlt<T>) {
    const auto& pool = float_pool();
    double v;
    switch (r % 4) {
      case 0: v = pool[(r >> 8) % pool.size()]; break;
      case 1: v = unit(mix(r)) * 20.0 - 10.0; break;
      case 2: v = ((r >> 9) & 1 ? -1.0 : 1.0) * std::pow(10.0, unit(mix(r)) * 16.0 - 8.0); break;
      default: v = (static_cast<double>((r >> 8) % 41) - 20.0) / 2.0;
    }
    if (dom == Domain::NonZero && v == 0) v = 1.0;
    return from_double<T>(v);
  } else {
    using R = real_t<T>;
    if (dom == Domain::Any && r % 8 == 0) {
      const auto& pool = float_pool();
      return T(static_cast<R>(pool[(r >> 8) % pool.size()]), static_cast<R>(pool[(r >> 24) % pool.size()]));
    }
    double re = unit(mix(r)) * 6.0 - 3.0, im = unit(mix(r + 1)) * 6.0 - 3.0;
    if (r % 8 == 1) im = 0.0;  // real values on the complex line
    if (std::hypot(re, im) < 0.25) re += 0.5;
    return T(static_cast<R>(re), static_cast<R>(im));
  }
}

template <class T>
std::vector<T> gen_values(std::int64_t n, std::uint64_t seed, Domain dom) {
  std::vector<T> v;
  v.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v.push_back(gen_value<T>(seed * 1000003u + static_cast<std::uint64_t>(i), dom));
  return v;
}

// ---- layouts: tensors whose logical (column-major) values are known -----------------------------

enum class Lay { Contig, Transposed, NegStep };

std::vector<std::int64_t> unravel(std::int64_t k, const Shape& s) {
  std::vector<std::int64_t> idx(s.size());
  for (std::size_t d = 0; d < s.size(); ++d) {
    idx[d] = k % s[d];
    k /= s[d];
  }
  return idx;
}
std::int64_t ravel(const std::vector<std::int64_t>& idx, const Shape& s) {
  std::int64_t k = 0, mul = 1;
  for (std::size_t d = 0; d < s.size(); ++d) {
    k += idx[d] * mul;
    mul *= s[d];
  }
  return k;
}
std::int64_t count(const Shape& s) {
  std::int64_t n = 1;
  for (auto e : s) n *= e;
  return n;
}

template <class T>
Tensor contiguous_tensor(const Shape& s, const std::vector<T>& values, Device dev = kCpu) {
  return Tensor::from_vec_col_major(s, values, {dev, tensora::dtype_of<T>()});
}

// A view with logical shape `s` and column-major values `values`, laid out as asked.
template <class T>
Tensor make_tensor(const Shape& s, const std::vector<T>& values, Lay lay, Device dev = kCpu) {
  const std::int64_t n = count(s);
  if (lay == Lay::Contig || s.empty()) return contiguous_tensor(s, values, dev);
  if (lay == Lay::Transposed) {
    // base has the reversed shape; its column-major data is the logical row-major order.
    const Shape rs(s.rbegin(), s.rend());
    std::vector<T> base(values.size());
    for (std::int64_t k = 0; k < n; ++k) {
      auto idx = unravel(k, s);
      std::reverse(idx.begin(), idx.end());
      base[static_cast<std::size_t>(ravel(idx, rs))] = values[static_cast<std::size_t>(k)];
    }
    Tensor t = contiguous_tensor(rs, base, dev).transpose();
    EXPECT_EQ(t.shape(), s);
    return t;
  }
  // NegStep: axis 0 of a twice as long base, read backwards with step -2.
  Shape bs = s;
  bs[0] = 2 * s[0];
  std::vector<T> base(static_cast<std::size_t>(count(bs)), values.empty() ? T{} : values[0]);
  for (std::int64_t k = 0; k < n; ++k) {
    auto idx = unravel(k, s);
    idx[0] = bs[0] - 1 - 2 * idx[0];
    base[static_cast<std::size_t>(ravel(idx, bs))] = values[static_cast<std::size_t>(k)];
  }
  Tensor t = contiguous_tensor(bs, base, dev).slice(0, std::nullopt, std::nullopt, -2);
  EXPECT_EQ(t.shape(), s);
  return t;
}

// NumPy broadcasting, written out here rather than taken from the library.
std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
  const std::size_t r = std::max(a.size(), b.size());
  Shape out(r);
  for (std::size_t i = 0; i < r; ++i) {
    const std::int64_t x = i + a.size() >= r ? a[i + a.size() - r] : 1;
    const std::int64_t y = i + b.size() >= r ? b[i + b.size() - r] : 1;
    if (x != y && x != 1 && y != 1) return std::nullopt;
    out[i] = x == 1 ? y : x;
  }
  return out;
}
// The column-major position in an operand of shape `in` that output index `o` reads.
std::int64_t source_index(const std::vector<std::int64_t>& o, const Shape& out, const Shape& in) {
  std::vector<std::int64_t> idx(in.size());
  for (std::size_t d = 0; d < in.size(); ++d) idx[d] = in[d] == 1 ? 0 : o[d + out.size() - in.size()];
  return ravel(idx, in);
}

template <class T>
std::vector<T> read(const Tensor& t) {
  return t.to_vec<T>();
}

// Reports the first few mismatches of one case.
struct Mismatches {
  std::string where;
  int count = 0;
  void report(const std::string& what) {
    if (++count <= 6) ADD_FAILURE() << where << ": " << what;
  }
  ~Mismatches() {
    if (count > 6) ADD_FAILURE() << where << ": " << count << " mismatches in all";
  }
};

std::string param_name(const std::string& op, DType d) { return op + "_" + std::string(tensora::name(d)); }

// ---- binary ops against the reference ----------------------------------------------------------

struct BinCase {
  const char* name;
  Shape a;
  Lay la;
  Shape b;
  Lay lb;
  bool check_into;
};
const BinCase kBinCases[] = {
    {"contig1", {1}, Lay::Contig, {1}, Lay::Contig, false},
    {"contig7", {7}, Lay::Contig, {7}, Lay::Contig, false},
    {"contig33", {33}, Lay::Contig, {33}, Lay::Contig, true},
    {"contig1003", {1003}, Lay::Contig, {1003}, Lay::Contig, true},
    {"transposed", {7, 9}, Lay::Transposed, {7, 9}, Lay::Contig, true},
    {"both_transposed_3d", {5, 4, 3}, Lay::Transposed, {5, 4, 3}, Lay::Transposed, false},
    {"negstep_vs_transposed", {6, 5}, Lay::NegStep, {6, 5}, Lay::Transposed, false},
    {"negstep_long", {1003}, Lay::NegStep, {1003}, Lay::Contig, true},
    {"broadcast_3d", {5, 1, 3}, Lay::Transposed, {4, 1}, Lay::Contig, true},
    {"broadcast_size1_axes", {1, 6}, Lay::Contig, {7, 1}, Lay::NegStep, false},
    {"broadcast_rows", {33, 4}, Lay::Contig, {1, 4}, Lay::Contig, false},
    {"broadcast_new_axes", {1003}, Lay::Contig, {2, 1, 1}, Lay::Contig, false},
    {"rank0_lhs", {}, Lay::Contig, {33}, Lay::Contig, false},
    {"rank0_rhs", {1003}, Lay::Contig, {}, Lay::Contig, true},
    {"rank0_both", {}, Lay::Contig, {}, Lay::Contig, true},
    {"empty", {0, 3}, Lay::Contig, {1}, Lay::Contig, true},
};

struct OpDType {
  int op;
  DType dtype;
};
void PrintTo(const OpDType& p, std::ostream* os) { *os << "op " << p.op << " " << tensora::name(p.dtype); }

std::vector<OpDType> accepted_binary() {
  std::vector<OpDType> out;
  for (const auto& s : binary_specs())
    for (DType d : tensora::kAllDTypes)
      if (s.accepts & kind_bit(d)) out.push_back({static_cast<int>(s.op), d});
  return out;
}
std::vector<OpDType> accepted_unary() {
  std::vector<OpDType> out;
  for (const auto& s : unary_specs())
    for (DType d : tensora::kAllDTypes)
      if (s.accepts & kind_bit(d)) out.push_back({static_cast<int>(s.op), d});
  return out;
}

Domain domain_for(B op, DType d, bool rhs) {
  if ((op == B::FloorDiv || op == B::Rem) && rhs && tensora::is_integer(d)) return Domain::NonZero;
  if (tensora::is_complex(d) && (op == B::Mul || op == B::Div || op == B::Pow)) return Domain::Moderate;
  return Domain::Any;
}
Domain domain_for(U op, DType d) {
  if (!tensora::is_complex(d)) return Domain::Any;
  switch (op) {
    case U::Neg: case U::Conj: case U::Real: case U::Imag: case U::Not: case U::IsNan: case U::IsInf:
    case U::IsFinite: return Domain::Any;
    default: return Domain::Moderate;
  }
}

template <class T, class Out>
void check_binary_values(const BinarySpec& spec, DType d, const BinCase& c, std::uint64_t seed) {
  const Shape out_shape = *broadcast(c.a, c.b);
  const auto av = gen_values<T>(count(c.a), seed, domain_for(spec.op, d, false));
  const auto bv = gen_values<T>(count(c.b), seed + 77, domain_for(spec.op, d, true));
  const Tensor a = make_tensor(c.a, av, c.la);
  const Tensor b = make_tensor(c.b, bv, c.lb);
  const Tol tol = binary_tol(spec.op, d);
  const DType rd = result_dtype(spec.res, d);

  auto verify = [&](const Tensor& r, const std::string& how, auto&& lhs_at, auto&& rhs_at) {
    ASSERT_EQ(r.dtype(), rd) << how;
    ASSERT_EQ(r.shape(), out_shape) << how;
    ASSERT_EQ(r.device(), kCpu) << how;
    const auto got = read<Out>(r);
    Mismatches mm{param_name(spec.name, d) + " " + c.name + " " + how};
    for (std::int64_t k = 0; k < count(out_shape); ++k) {
      const auto o = unravel(k, out_shape);
      const T x = lhs_at(o), y = rhs_at(o);
      const Out want = ref_binary<T, Out>(spec.op, x, y);
      const Out have = got[static_cast<std::size_t>(k)];
      if (!matches(have, want, tol))
        mm.report("at " + std::to_string(k) + ": " + show(x) + " " + spec.name + " " + show(y) + " = " +
                  show(have) + ", expected " + show(want));
    }
  };
  auto lhs = [&](const std::vector<std::int64_t>& o) { return av[static_cast<std::size_t>(source_index(o, out_shape, c.a))]; };
  auto rhs = [&](const std::vector<std::int64_t>& o) { return bv[static_cast<std::size_t>(source_index(o, out_shape, c.b))]; };

  verify((a.*spec.fn)(b, eng(), SourceLocation::current()), "op", lhs, rhs);

  if (c.check_into) {
    // Into a strided (negative step) destination.
    const Lay dl = out_shape.empty() ? Lay::Contig : Lay::NegStep;
    const Tensor dest = make_tensor(out_shape, std::vector<Out>(static_cast<std::size_t>(count(out_shape))), dl);
    (a.*spec.into_fn)(b, eng(), dest, SourceLocation::current());
    verify(dest, "into", lhs, rhs);
    // In place: the destination is the very same view as the left operand.
    if (rd == d && c.a == out_shape) {
      const Tensor a2 = make_tensor(c.a, av, c.la);
      (a2.*spec.into_fn)(b, eng(), a2, SourceLocation::current());
      verify(a2, "in-place", lhs, rhs);
    }
  }
  // A weak scalar of the same kind on the right (exactly representable: it comes from T).
  if (!bv.empty() && (c.b.empty() || std::string(c.name) == "contig33")) {
    const T s = bv[0];
    Scalar scalar = [&]() -> Scalar {
      if constexpr (kHalf<T>) return Scalar(s);
      else if constexpr (std::is_same_v<T, c64>) return Scalar(c128(s.real(), s.imag()));
      else return Scalar(s);
    }();
    const Tensor r = (a.*spec.scalar_fn)(scalar, eng(), SourceLocation::current());
    ASSERT_EQ(r.shape(), c.a);
    const auto got = read<Out>(r);
    Mismatches mm{param_name(spec.name, d) + " " + c.name + " scalar"};
    for (std::size_t k = 0; k < av.size(); ++k) {
      const Out want = ref_binary<T, Out>(spec.op, av[k], s);
      if (!matches(got[k], want, tol))
        mm.report(show(av[k]) + " " + spec.name + " scalar " + show(s) + " = " + show(got[k]) + ", expected " + show(want));
    }
  }
}

class ElementwiseBinary : public ::testing::TestWithParam<OpDType> {};

TEST_P(ElementwiseBinary, MatchesReferenceOnEveryLayout) {
  const BinarySpec& spec = binary_specs()[static_cast<std::size_t>(GetParam().op)];
  const DType d = GetParam().dtype;
  std::uint64_t seed = static_cast<std::uint64_t>(GetParam().op) * 131 + static_cast<std::uint64_t>(d) * 7 + 1;
  with_type(d, [&]<class T>() {
    const DType rd = result_dtype(spec.res, d);
    with_type(rd, [&]<class Out>() {
      if constexpr (std::is_same_v<Out, T> || std::is_same_v<Out, bool>) {
        for (const BinCase& c : kBinCases) check_binary_values<T, Out>(spec, d, c, seed++);
      } else {
        FAIL() << "unexpected result type";
      }
    });
  });
}

INSTANTIATE_TEST_SUITE_P(Elementwise, ElementwiseBinary, ::testing::ValuesIn(accepted_binary()),
                         [](const ::testing::TestParamInfo<OpDType>& info) {
                           return param_name(binary_specs()[static_cast<std::size_t>(info.param.op)].name,
                                             info.param.dtype);
                         });

// ---- unary ops against the reference -------------------------------------------------------------

struct UnCase {
  const char* name;
  Shape shape;  // of the operand
  Lay lay;
  std::optional<Shape> expand_to;  // broadcast the operand to this shape first (zero strides)
  bool check_into;
};
const UnCase kUnCases[] = {
    {"contig1", {1}, Lay::Contig, std::nullopt, false},
    {"contig7", {7}, Lay::Contig, std::nullopt, false},
    {"contig33", {33}, Lay::Contig, std::nullopt, true},
    {"contig1003", {1003}, Lay::Contig, std::nullopt, true},
    {"transposed", {7, 9}, Lay::Transposed, std::nullopt, true},
    {"transposed_3d", {3, 5, 4}, Lay::Transposed, std::nullopt, false},
    {"negstep33", {33}, Lay::NegStep, std::nullopt, false},
    {"negstep1003", {1003}, Lay::NegStep, std::nullopt, true},
    {"negstep_2d", {6, 7}, Lay::NegStep, std::nullopt, false},
    {"expanded", {3, 1}, Lay::Contig, Shape{2, 3, 4}, true},
    {"rank0", {}, Lay::Contig, std::nullopt, true},
    {"empty", {0}, Lay::Contig, std::nullopt, true},
};

template <class T, class Out>
void check_unary_values(const UnarySpec& spec, DType d, const UnCase& c, std::uint64_t seed) {
  const auto xv = gen_values<T>(count(c.shape), seed, domain_for(spec.op, d));
  Tensor x = make_tensor(c.shape, xv, c.lay);
  const Shape out_shape = c.expand_to ? *c.expand_to : c.shape;
  if (c.expand_to) x = x.broadcast_to(out_shape);
  const Tol tol = unary_tol(spec.op, d);
  const DType rd = result_dtype(spec.res, d);

  auto verify = [&](const Tensor& r, const std::string& how) {
    ASSERT_EQ(r.dtype(), rd) << how;
    ASSERT_EQ(r.shape(), out_shape) << how;
    const auto got = read<Out>(r);
    Mismatches mm{param_name(spec.name, d) + " " + c.name + " " + how};
    for (std::int64_t k = 0; k < count(out_shape); ++k) {
      const T v = xv[static_cast<std::size_t>(source_index(unravel(k, out_shape), out_shape, c.shape))];
      const Out want = ref_unary<T, Out>(spec.op, v);
      if (!matches(got[static_cast<std::size_t>(k)], want, tol))
        mm.report(std::string(spec.name) + "(" + show(v) + ") = " + show(got[static_cast<std::size_t>(k)]) +
                  ", expected " + show(want));
    }
  };
  verify((x.*spec.fn)(eng(), SourceLocation::current()), "op");
  if (c.check_into) {
    const Lay dl = out_shape.empty() ? Lay::Contig : Lay::NegStep;
    const Tensor dest = make_tensor(out_shape, std::vector<Out>(static_cast<std::size_t>(count(out_shape))), dl);
    (x.*spec.into_fn)(eng(), dest, SourceLocation::current());
    verify(dest, "into");
    if (rd == d && !c.expand_to) {
      const Tensor x2 = make_tensor(c.shape, xv, c.lay);
      (x2.*spec.into_fn)(eng(), x2, SourceLocation::current());
      verify(x2, "in-place");
    }
  }
}

class ElementwiseUnary : public ::testing::TestWithParam<OpDType> {};

TEST_P(ElementwiseUnary, MatchesReferenceOnEveryLayout) {
  const UnarySpec& spec = unary_specs()[static_cast<std::size_t>(GetParam().op)];
  const DType d = GetParam().dtype;
  std::uint64_t seed = static_cast<std::uint64_t>(GetParam().op) * 977 + static_cast<std::uint64_t>(d) * 13 + 5;
  with_type(d, [&]<class T>() {
    with_type(result_dtype(spec.res, d), [&]<class Out>() {
      if constexpr (std::is_same_v<Out, T> || std::is_same_v<Out, bool> ||
                    (kCx<T> && std::is_same_v<Out, real_t<T>>)) {
        for (const UnCase& c : kUnCases) check_unary_values<T, Out>(spec, d, c, seed++);
      } else {
        FAIL() << "unexpected result type";
      }
    });
  });
}

INSTANTIATE_TEST_SUITE_P(Elementwise, ElementwiseUnary, ::testing::ValuesIn(accepted_unary()),
                         [](const ::testing::TestParamInfo<OpDType>& info) {
                           return param_name(unary_specs()[static_cast<std::size_t>(info.param.op)].name,
                                             info.param.dtype);
                         });

// ---- special values, spelled out ------------------------------------------------------------------

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Runs a unary op on `in` (as dtype T) in a long contiguous tensor (SIMD body and tail), a
// short one, and a strided one, and checks each element against `want` bit for bit.
template <class T>
void expect_unary_exact(U op, const std::vector<double>& in, const std::vector<double>& want, int ulps = 0) {
  ASSERT_EQ(in.size(), want.size());
  const UnarySpec& spec = uspec(op);
  std::vector<T> xs, ws;
  for (std::size_t r = 0; r < 5; ++r)  // repeated: more than one vector, plus a tail
    for (std::size_t i = 0; i < in.size(); ++i) {
      xs.push_back(from_double<T>(in[i]));
      ws.push_back(from_double<T>(want[i]));
    }
  const auto n = static_cast<std::int64_t>(xs.size());
  for (Lay lay : {Lay::Contig, Lay::NegStep}) {
    for (std::int64_t len : {n, static_cast<std::int64_t>(in.size())}) {
      std::vector<T> x(xs.begin(), xs.begin() + len), w(ws.begin(), ws.begin() + len);
      const Tensor r = (make_tensor(Shape{len}, x, lay).*spec.fn)(eng(), SourceLocation::current());
      const auto got = r.to_vec<T>();
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_TRUE(matches(got[i], w[i], Tol{ulps}))
            << spec.name << "(" << show(x[i]) << ") = " << show(got[i]) << ", expected " << show(w[i]) << " ["
            << tensora::name(tensora::dtype_of<T>()) << (lay == Lay::Contig ? " contiguous" : " strided") << " n=" << len << "]";
    }
  }
}

template <class T>
void expect_binary_exact(B op, const std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& want) {
  ASSERT_EQ(a.size(), want.size());
  ASSERT_EQ(b.size(), want.size());
  const BinarySpec& spec = bspec(op);
  std::vector<T> xs, ys, ws;
  for (std::size_t r = 0; r < 5; ++r)
    for (std::size_t i = 0; i < a.size(); ++i) {
      xs.push_back(from_double<T>(a[i]));
      ys.push_back(from_double<T>(b[i]));
      ws.push_back(from_double<T>(want[i]));
    }
  const auto n = static_cast<std::int64_t>(xs.size());
  for (Lay lay : {Lay::Contig, Lay::NegStep}) {
    const Tensor r = (make_tensor(Shape{n}, xs, lay).*spec.fn)(make_tensor(Shape{n}, ys, Lay::Contig), eng(),
                                                                 SourceLocation::current());
    const auto got = r.to_vec<T>();
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_TRUE(matches(got[i], ws[i], Tol{}))
          << show(xs[i]) << " " << spec.name << " " << show(ys[i]) << " = " << show(got[i]) << ", expected "
          << show(ws[i]) << " [" << tensora::name(tensora::dtype_of<T>()) << (lay == Lay::Contig ? " contiguous" : " strided") << "]";
  }
}

template <class F>
void for_float_types(F&& f) {
  f.template operator()<float>();
  f.template operator()<double>();
  f.template operator()<Float16>();
  f.template operator()<BFloat16>();
}

TEST(ElementwiseSpecial, MaximumMinimumPropagateNaNFromEitherSide) {
  for_float_types([]<class T>() {
    const std::vector<double> a = {1, kNaN, 3, kNaN, -kInf, 2, 0.5, kNaN, -1};
    const std::vector<double> b = {kNaN, 2, kNaN, kNaN, 5, kInf, -0.5, 0, -2};
    expect_binary_exact<T>(B::Maximum, a, b, {kNaN, kNaN, kNaN, kNaN, 5, kInf, 0.5, kNaN, -1});
    expect_binary_exact<T>(B::Minimum, a, b, {kNaN, kNaN, kNaN, kNaN, -kInf, 2, -0.5, kNaN, -2});
  });
  // Against a NaN scalar and with a NaN broadcast along a SIMD run.
  const Tensor x = Tensor::from_floats({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, {kCpu, DType::F32});
  for (float v : x.maximum(kNaN, eng()).to_vec<float>()) EXPECT_TRUE(std::isnan(v));
  for (float v : x.minimum(Tensor::from_floats({kNaN}, {kCpu, DType::F32}), eng()).to_vec<float>())
    EXPECT_TRUE(std::isnan(v));
}

TEST(ElementwiseSpecial, SignedZeros) {
  for_float_types([]<class T>() {
    expect_unary_exact<T>(U::Neg, {0.0, -0.0, 1.5}, {-0.0, 0.0, -1.5});
    expect_unary_exact<T>(U::Abs, {-0.0, 0.0, -2.0}, {0.0, 0.0, 2.0});
    expect_unary_exact<T>(U::Sign, {-0.0, 0.0, -3.0, 0.25}, {-0.0, 0.0, -1.0, 1.0});
    expect_unary_exact<T>(U::Floor, {-0.0, 0.5, -0.5}, {-0.0, 0.0, -1.0});
    expect_unary_exact<T>(U::Ceil, {-0.0, -0.5, 0.5}, {-0.0, -0.0, 1.0});
    expect_unary_exact<T>(U::Round, {-0.0, -0.4, 0.4, -0.5}, {-0.0, -0.0, 0.0, -0.0});
    expect_unary_exact<T>(U::Sqrt, {-0.0, 0.0}, {-0.0, 0.0});
    expect_unary_exact<T>(U::Sin, {-0.0, 0.0}, {-0.0, 0.0});
    expect_unary_exact<T>(U::Tanh, {-0.0, 0.0}, {-0.0, 0.0});
    expect_unary_exact<T>(U::Expm1, {-0.0, 0.0}, {-0.0, 0.0});
    expect_unary_exact<T>(U::Log1p, {-0.0, 0.0}, {-0.0, 0.0});
    expect_unary_exact<T>(U::Erf, {-0.0, 0.0}, {-0.0, 0.0});
    expect_unary_exact<T>(U::Rsqrt, {-0.0, 0.0}, {-kInf, kInf});
    expect_binary_exact<T>(B::Mul, {-0.0, 0.0, -0.0}, {5.0, -5.0, -5.0}, {-0.0, -0.0, 0.0});
    expect_binary_exact<T>(B::Add, {-0.0, -0.0, 0.0}, {-0.0, 0.0, -0.0}, {-0.0, 0.0, 0.0});
    expect_binary_exact<T>(B::Sub, {0.0, -0.0}, {0.0, 0.0}, {0.0, -0.0});
    // Python: the sign of a zero quotient follows a / b, a zero remainder takes b's sign.
    expect_binary_exact<T>(B::FloorDiv, {-1.0, 1.0, 0.0, -0.0, 1.0, -1.0}, {-3.0, 3.0, -2.0, 2.0, -3.0, 3.0},
                           {0.0, 0.0, -0.0, -0.0, -1.0, -1.0});
    expect_binary_exact<T>(B::Rem, {-4.0, 4.0, 0.0, -0.0, 6.0}, {2.0, -2.0, -3.0, 3.0, 3.0},
                           {0.0, -0.0, -0.0, 0.0, 0.0});
    // IEEE 754-2019 maximum/minimum order -0 below +0, whichever operand holds it.
    expect_binary_exact<T>(B::Maximum, {-0.0, 0.0, -0.0}, {0.0, -0.0, -0.0}, {0.0, 0.0, -0.0});
    expect_binary_exact<T>(B::Minimum, {-0.0, 0.0, 0.0}, {0.0, -0.0, 0.0}, {-0.0, -0.0, 0.0});
  });
}

TEST(ElementwiseSpecial, InfinitiesNaNsAndLargeArguments) {
  for_float_types([]<class T>() {
    expect_unary_exact<T>(U::Exp, {kInf, -kInf, kNaN, 0.0, -0.0, 1000.0, -1000.0}, {kInf, 0.0, kNaN, 1.0, 1.0, kInf, 0.0});
    expect_unary_exact<T>(U::Expm1, {kInf, -kInf, kNaN, 1000.0, -1000.0}, {kInf, -1.0, kNaN, kInf, -1.0});
    expect_unary_exact<T>(U::Log, {0.0, -0.0, kInf, -1.0, kNaN, -kInf, 1.0}, {-kInf, -kInf, kInf, kNaN, kNaN, kNaN, 0.0});
    expect_unary_exact<T>(U::Log1p, {-1.0, kInf, -2.0, kNaN, -kInf}, {-kInf, kInf, kNaN, kNaN, kNaN});
    expect_unary_exact<T>(U::Sqrt, {kInf, -1.0, kNaN, -kInf, 4.0}, {kInf, kNaN, kNaN, kNaN, 2.0});
    expect_unary_exact<T>(U::Rsqrt, {kInf, -1.0, kNaN, 4.0}, {0.0, kNaN, kNaN, 0.5});
    expect_unary_exact<T>(U::Sin, {kInf, -kInf, kNaN}, {kNaN, kNaN, kNaN});
    expect_unary_exact<T>(U::Cos, {kInf, -kInf, kNaN, 0.0}, {kNaN, kNaN, kNaN, 1.0}, 4);
    expect_unary_exact<T>(U::Tan, {kInf, kNaN}, {kNaN, kNaN});
    expect_unary_exact<T>(U::Tanh, {kInf, -kInf, kNaN, 100.0, -100.0}, {1.0, -1.0, kNaN, 1.0, -1.0});
    expect_unary_exact<T>(U::Sigmoid, {kInf, -kInf, kNaN, 0.0, 1000.0, -1000.0}, {1.0, 0.0, kNaN, 0.5, 1.0, 0.0});
    expect_unary_exact<T>(U::Erf, {kInf, -kInf, kNaN}, {1.0, -1.0, kNaN});
    expect_unary_exact<T>(U::Floor, {kInf, -kInf, kNaN}, {kInf, -kInf, kNaN});
    expect_unary_exact<T>(U::Round, {kInf, -kInf, kNaN}, {kInf, -kInf, kNaN});
    expect_unary_exact<T>(U::Abs, {-kInf, kNaN}, {kInf, kNaN});
    expect_unary_exact<T>(U::Sign, {-kInf, kInf, kNaN}, {-1.0, 1.0, kNaN});
    expect_binary_exact<T>(B::Div, {1.0, -1.0, 0.0, kInf}, {0.0, 0.0, 0.0, kInf}, {kInf, -kInf, kNaN, kNaN});
    expect_binary_exact<T>(B::Add, {kInf, kInf, kNaN}, {-kInf, kInf, 1.0}, {kNaN, kInf, kNaN});
    expect_binary_exact<T>(B::FloorDiv, {1.0, -1.0, kInf, 1.0, 0.0}, {0.0, 0.0, 2.0, kInf, 0.0}, {kInf, -kInf, kNaN, 0.0, kNaN});
    expect_binary_exact<T>(B::Rem, {1.0, kInf, 1.0, -1.0}, {0.0, 2.0, kInf, kInf}, {kNaN, kNaN, 1.0, kInf});
    expect_binary_exact<T>(B::Pow, {0.0, -0.0, kNaN, 1.0, -8.0, 2.0}, {-1.0, -1.0, 0.0, kNaN, 1.0 / 3.0, 10.0},
                           {kInf, -kInf, 1.0, 1.0, kNaN, 1024.0});
  });
  // Large arguments: outside the range of any polynomial approximation.
  expect_unary_exact<float>(U::Sin, {1e6, -3e5, 1e30, 39001.0}, {std::sin(1e6f), std::sin(-3e5f), std::sin(1e30f), std::sin(39001.0f)}, 4);
  expect_unary_exact<float>(U::Cos, {1e6, -3e5, 1e30}, {std::cos(1e6f), std::cos(-3e5f), std::cos(1e30f)}, 4);
  expect_unary_exact<double>(U::Sin, {1e6, 1e300, -4e4}, {std::sin(1e6), std::sin(1e300), std::sin(-4e4)}, 4);
  expect_unary_exact<double>(U::Cos, {1e6, 1e300, -4e4}, {std::cos(1e6), std::cos(1e300), std::cos(-4e4)}, 4);
  // Subnormal results near the bottom of the exponent range.
  expect_unary_exact<float>(U::Exp, {-100.0, -95.0, -103.0, 88.0, 89.0}, {std::exp(-100.0f), std::exp(-95.0f), std::exp(-103.0f), std::exp(88.0f), kInf}, 4);
  expect_unary_exact<float>(U::Sigmoid, {-95.0, -100.0, -103.0}, {std::exp(-95.0f), std::exp(-100.0f), std::exp(-103.0f)}, 4);
  expect_unary_exact<double>(U::Exp, {-740.0, 709.0, 710.0}, {std::exp(-740.0), std::exp(709.0), kInf}, 4);
}

TEST(ElementwiseSpecial, RoundHalfToEven) {
  for_float_types([]<class T>() {
    expect_unary_exact<T>(U::Round, {0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5, 2.4, 2.6, -2.6, 7.0},
                          {0.0, 2.0, 2.0, 4.0, -0.0, -2.0, -2.0, -4.0, 2.0, 3.0, -3.0, 7.0});
  });
  expect_unary_exact<float>(U::Round, {0.49999997, 8388609.0, 8388608.5, 16777215.0}, {0.0, 8388609.0, 8388608.0, 16777215.0});
  expect_unary_exact<double>(U::Round, {0.49999999999999994, 4503599627370497.0, 4503599627370496.5},
                             {0.0, 4503599627370497.0, 4503599627370496.0});
}

TEST(ElementwiseSpecial, FloatFloorDivMatchesPython) {
  // (a - fmod(a, b)) / b is not exact in these cases; Python floors and rounds the quotient,
  // so the answers below are what Python prints for a // b.
  expect_binary_exact<double>(B::FloorDiv, {0.00334, -302000000000.0, 2110000.0, -0.0105, -3.13e17, 7420000000000.0},
                              {-5.9e-05, 0.069, -0.0031, -9000.0, 45000.0, 0.0034},
                              {-57.0, -4376811594203.0, -680645162.0, 0.0, -6955555555556.0, 2182352941176470.0});
  // F32 values are exact doubles: Python's answer rounded once to F32.
  expect_binary_exact<float>(B::FloorDiv, {33554436.0, -33554436.0}, {7.0, 7.0}, {4793490.0, -4793491.0});
  const Tensor q = Tensor::from_floats({1e30, -1e30, 7e20, 3e9}, {kCpu, DType::F32}).floor_div(0.1, eng());
  for (float v : q.to_vec<float>()) EXPECT_EQ(v, std::floor(v)) << v;
}

template <class T>
void expect_ints(B op, std::vector<long long> a, std::vector<long long> b, std::vector<long long> want) {
  std::vector<T> x, y, w;
  for (std::size_t i = 0; i < a.size(); ++i) {
    x.push_back(static_cast<T>(a[i]));
    y.push_back(static_cast<T>(b[i]));
    w.push_back(static_cast<T>(want[i]));
  }
  const auto n = static_cast<std::int64_t>(x.size());
  const Tensor r = (contiguous_tensor(Shape{n}, x).*bspec(op).fn)(contiguous_tensor(Shape{n}, y), eng(), SourceLocation::current());
  EXPECT_EQ(r.to_vec<T>(), w) << bspec(op).name << " " << tensora::name(tensora::dtype_of<T>());
}

TEST(ElementwiseSpecial, IntegerWrappingAndPythonDivision) {
  expect_ints<std::int8_t>(B::Add, {127, -128, 100}, {1, -1, 100}, {-128, 127, -56});
  expect_ints<std::int32_t>(B::Mul, {2147483647, -2147483647 - 1, 65536}, {2, -1, 65536}, {-2, -2147483647 - 1, 0});
  expect_ints<std::uint8_t>(B::Sub, {0, 5}, {1, 10}, {255, 251});
  expect_ints<std::uint16_t>(B::Mul, {65535, 300}, {65535, 300}, {1, 24464});
  expect_ints<std::int64_t>(B::Add, {INT64_MAX}, {1}, {INT64_MIN});
  // Python's // and %: the quotient floors, the remainder takes the divisor's sign.
  for (auto op : {B::FloorDiv, B::Rem}) {
    const bool q = op == B::FloorDiv;
    expect_ints<std::int32_t>(op, {-7, 7, -7, 7, 0, -1, INT32_MIN, INT32_MIN}, {2, -2, -2, 2, -3, 5, -1, 1},
                              q ? std::vector<long long>{-4, -4, 3, 3, 0, -1, INT32_MIN, INT32_MIN}
                                : std::vector<long long>{1, -1, -1, 1, 0, 4, 0, 0});
    expect_ints<std::int8_t>(op, {-128, -128, 127, -1}, {-1, 3, -128, -128},
                             q ? std::vector<long long>{-128, -43, -1, 0} : std::vector<long long>{0, 1, -1, -1});
    expect_ints<std::uint32_t>(op, {7, 4294967295}, {2, 10}, q ? std::vector<long long>{3, 429496729} : std::vector<long long>{1, 5});
  }
  // Integer powers wrap; negative exponents truncate 1 / x^|e| toward zero.
  expect_ints<std::int32_t>(B::Pow, {3, 2, -2, 2, -1, -1, 1, 0, 5}, {40, 31, 31, -1, -3, -4, -5, 0, 0},
                            {689956897, INT32_MIN, INT32_MIN, 0, -1, 1, 1, 1, 1});
  expect_ints<std::uint8_t>(B::Pow, {2, 3, 255}, {8, 5, 2}, {0, 243, 1});
  // neg / abs of the most negative value wrap to itself.
  const Tensor m = Tensor::from_ints({-128, 5}, {kCpu, DType::I8});
  EXPECT_EQ(m.neg(eng()).to_vec<std::int8_t>(), (std::vector<std::int8_t>{-128, -5}));
  EXPECT_EQ(m.abs(eng()).to_vec<std::int8_t>(), (std::vector<std::int8_t>{-128, 5}));
}

TEST(ElementwiseSpecial, ComplexPredicatesAndParts) {
  const Tensor z = Tensor::from_vec_col_major({4}, std::vector<c128>{{1, kNaN}, {kInf, 0}, {0, 0}, {0, -2}});
  EXPECT_EQ(z.isnan(eng()).to_vec<bool>(), (std::vector<bool>{true, false, false, false}));
  EXPECT_EQ(z.isinf(eng()).to_vec<bool>(), (std::vector<bool>{false, true, false, false}));
  EXPECT_EQ(z.isfinite(eng()).to_vec<bool>(), (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(z.logical_not(eng()).to_vec<bool>(), (std::vector<bool>{false, false, true, false}));
  const Tensor im = z.imag(eng());
  EXPECT_EQ(im.dtype(), DType::F64);
  EXPECT_EQ(z.abs(eng()).dtype(), DType::F64);
  EXPECT_EQ(z.real(eng()).to_vec<double>()[1], kInf);
  EXPECT_EQ(im.to_vec<double>()[3], -2.0);
  const auto c = Tensor::from_vec_col_major({1}, std::vector<c64>{{3, 4}}).abs(eng());
  EXPECT_EQ(c.dtype(), DType::F32);
  EXPECT_EQ(c.item<float>(), 5.0f);
}

// ---- the dtype policy: accepted kinds and result dtypes ----------------------------------------------

TEST(ElementwisePolicy, EveryBinaryOpAcceptsExactlyItsKindsAndNamesTheResultDType) {
  for (const BinarySpec& spec : binary_specs()) {
    for (DType d : tensora::kAllDTypes) {
      SCOPED_TRACE(param_name(spec.name, d));
      const Tensor a = Tensor::ones({3}, {kCpu, d});
      if (spec.accepts & kind_bit(d)) {
        const Tensor r = (a.*spec.fn)(a, eng(), SourceLocation::current());
        EXPECT_EQ(r.dtype(), result_dtype(spec.res, d));
        EXPECT_EQ(r.shape(), Shape{3});
      } else {
        const Error e = expect_error([&] { (void)(a.*spec.fn)(a, eng(), SourceLocation::current()); });
        EXPECT_EQ(e.kind(), ErrorKind::UnsupportedDType);
        EXPECT_EQ(e.op(), spec.name);
        const auto* det = std::get_if<tensora::UnsupportedDType>(&e.detail());
        ASSERT_NE(det, nullptr);
        EXPECT_EQ(det->dtype, d);
        const std::string head = "unsupported dtype " + std::string(tensora::name(d));
        EXPECT_THAT(std::string(e.message()), StartsWith(head));
        // The into and scalar forms refuse the same dtypes.
        EXPECT_EQ(expect_error([&] { (a.*spec.into_fn)(a, eng(), a, SourceLocation::current()); }).kind(),
                  ErrorKind::UnsupportedDType);
      }
    }
  }
}

TEST(ElementwisePolicy, EveryUnaryOpAcceptsExactlyItsKindsAndNamesTheResultDType) {
  for (const UnarySpec& spec : unary_specs()) {
    for (DType d : tensora::kAllDTypes) {
      SCOPED_TRACE(param_name(spec.name, d));
      const Tensor a = Tensor::ones({2, 2}, {kCpu, d});
      if (spec.accepts & kind_bit(d)) {
        const Tensor r = (a.*spec.fn)(eng(), SourceLocation::current());
        EXPECT_EQ(r.dtype(), result_dtype(spec.res, d));
        EXPECT_EQ(r.shape(), (Shape{2, 2}));
      } else {
        const Error e = expect_error([&] { (void)(a.*spec.fn)(eng(), SourceLocation::current()); });
        EXPECT_EQ(e.kind(), ErrorKind::UnsupportedDType);
        EXPECT_EQ(e.op(), spec.name);
        const auto* det = std::get_if<tensora::UnsupportedDType>(&e.detail());
        ASSERT_NE(det, nullptr);
        EXPECT_EQ(det->dtype, d);
        EXPECT_THAT(std::string(e.message()), StartsWith("unsupported dtype " + std::string(tensora::name(d))));
      }
    }
  }
}

TEST(ElementwisePolicy, UnsupportedDTypeMessagesCarryTheHint) {
  auto msg = [](auto&& f) { return std::string(expect_error(f).message()); };
  const Tensor i = Tensor::ones({2}, {kCpu, DType::I32});
  const Tensor b = Tensor::ones({2}, {kCpu, DType::Bool});
  const Tensor c = Tensor::ones({2}, {kCpu, DType::C64});
  EXPECT_EQ(msg([&] { (void)i.div(i, eng()); }),
            "unsupported dtype I32: integer division is floor_div; for true division cast to a float dtype first");
  EXPECT_EQ(msg([&] { (void)b.add(b, eng()); }), "unsupported dtype Bool: use logical_and/or/xor for Bool");
  EXPECT_EQ(msg([&] { (void)b.mul(b, eng()); }), "unsupported dtype Bool: use logical_and/or/xor for Bool");
  EXPECT_EQ(msg([&] { (void)c.atan2(c, eng()); }), "unsupported dtype C64: cast the tensor to a float dtype first");
  EXPECT_EQ(msg([&] { (void)i.atan2(i, eng()); }), "unsupported dtype I32: cast the tensor to a float dtype first");
  EXPECT_EQ(msg([&] { (void)c.floor_div(c, eng()); }), "unsupported dtype C64: floor_div is defined for real dtypes");
  EXPECT_EQ(msg([&] { (void)c.maximum(c, eng()); }), "unsupported dtype C64: complex numbers are not ordered");
  EXPECT_EQ(msg([&] { (void)c.lt(c, eng()); }), "unsupported dtype C64: complex numbers are not ordered");
  EXPECT_EQ(msg([&] { (void)i.exp(eng()); }), "unsupported dtype I32: cast the tensor to a float dtype first");
  EXPECT_EQ(msg([&] { (void)c.erf(eng()); }), "unsupported dtype C64: cast the tensor to a float dtype first");
  EXPECT_EQ(msg([&] { (void)c.floor(eng()); }), "unsupported dtype C64: complex numbers have no floor");
  EXPECT_EQ(msg([&] { (void)b.neg(eng()); }), "unsupported dtype Bool: use logical_not for Bool");
  // The scalar forms check the dtype before the scalar.
  EXPECT_EQ(msg([&] { (void)i.div(2, eng()); }),
            "unsupported dtype I32: integer division is floor_div; for true division cast to a float dtype first");
  EXPECT_EQ(expect_error([&] { (void)b.add(true, eng()); }).kind(), ErrorKind::UnsupportedDType);
}

// ---- bad inputs per op family ----------------------------------------------------------------------

TEST(ElementwiseErrors, DTypeMismatchForEveryBinaryOp) {
  const Tensor a = Tensor::ones({2}, {kCpu, DType::F64});
  const Tensor b = Tensor::ones({2}, {kCpu, DType::F32});
  for (const BinarySpec& spec : binary_specs()) {
    SCOPED_TRACE(spec.name);
    for (bool into : {false, true}) {
      const Error e = expect_error([&] {
        if (into) (a.*spec.into_fn)(b, eng(), Tensor::ones({2}, {kCpu, DType::F64}), SourceLocation::current());
        else (void)(a.*spec.fn)(b, eng(), SourceLocation::current());
      });
      EXPECT_EQ(e.kind(), ErrorKind::Validation);
      EXPECT_EQ(e.op(), spec.name);
      EXPECT_EQ(std::string(e.op()) + ": " + std::string(e.message()),
                std::string(spec.name) + ": dtype mismatch: expected F64, actual F32");
      EXPECT_THAT(e.what(), StartsWith(std::string(spec.name) + ": dtype mismatch: expected F64, actual F32 (at "));
      EXPECT_THAT(e.what(), HasSubstr("test_elementwise.cpp:"));
      const auto* det = std::get_if<tensora::DTypeMismatch>(&e.detail());
      ASSERT_NE(det, nullptr);
      EXPECT_EQ(det->expected, DType::F64);
      EXPECT_EQ(det->actual, DType::F32);
    }
  }
}

TEST(ElementwiseErrors, DeviceMismatchBetweenOperandsNamesBothDevices) {
  const Tensor a = Tensor::ones({2}, {kCpu, DType::F32});
  const Tensor b = Tensor::ones({2}, {Device::cpu(1), DType::F32});
  auto check = [](const Error& e, const std::string& op, const std::string& expected, const std::string& actual) {
    EXPECT_EQ(e.kind(), ErrorKind::DeviceMismatch) << op;
    EXPECT_EQ(e.op(), op);
    EXPECT_THAT(std::string(e.message()), HasSubstr(expected)) << op;
    EXPECT_THAT(std::string(e.message()), HasSubstr(actual)) << op;
    const auto* det = std::get_if<tensora::DeviceMismatch>(&e.detail());
    ASSERT_NE(det, nullptr) << op;
    EXPECT_EQ(det->expected, expected);
    EXPECT_EQ(det->actual, actual);
  };
  for (const BinarySpec& spec : binary_specs()) {
    const Error e = expect_error([&] { (void)(a.*spec.fn)(b, eng(), SourceLocation::current()); });
    check(e, spec.name, "cpu:0", "cpu:1");
    EXPECT_EQ(std::string(e.message()), "device mismatch: expected cpu:0, actual cpu:1; move one operand with to_device()");
  }
  check(expect_error([&] { (void)b.add(a, eng()); }), "add", "cpu:1", "cpu:0");
  check(expect_error([&] { (void)tensora::select(Tensor::ones({2}, {kCpu, DType::Bool}), a, b, eng()); }), "select", "cpu:0", "cpu:1");
  check(expect_error([&] { (void)a.clamp(b, a, eng()); }), "clamp", "cpu:0", "cpu:1");
}

TEST(ElementwiseErrors, EngineOnAnotherDeviceIsRejectedForEveryOp) {
  CpuEngine other = CpuEngine::serial(Device::cpu(1));
  const Tensor a = Tensor::ones({2}, {kCpu, DType::F32});
  auto check = [](const Error& e, const std::string& op) {
    EXPECT_EQ(e.kind(), ErrorKind::DeviceMismatch) << op;
    EXPECT_EQ(e.op(), op);
    EXPECT_THAT(std::string(e.message()), StartsWith("device mismatch: expected cpu:1, actual cpu:0")) << op;
    const auto* det = std::get_if<tensora::DeviceMismatch>(&e.detail());
    ASSERT_NE(det, nullptr);
    EXPECT_EQ(det->expected, "cpu:1");
    EXPECT_EQ(det->actual, "cpu:0");
  };
  for (const BinarySpec& spec : binary_specs()) {
    check(expect_error([&] { (void)(a.*spec.fn)(a, other, SourceLocation::current()); }), spec.name);
    check(expect_error([&] { (void)(a.*spec.scalar_fn)(1, other, SourceLocation::current()); }), spec.name);
  }
  for (const UnarySpec& spec : unary_specs())
    check(expect_error([&] { (void)(a.*spec.fn)(other, SourceLocation::current()); }), spec.name);
  check(expect_error([&] { (void)a.clamp(0, 1, other); }), "clamp");
  check(expect_error([&] { (void)tensora::where(Tensor::ones({2}, {kCpu, DType::Bool}), a, a, other); }), "select");
}

TEST(ElementwiseErrors, ShapesThatDoNotBroadcast) {
  const Tensor a = Tensor::ones({2, 3}, {kCpu, DType::F32});
  const Tensor b = Tensor::ones({4}, {kCpu, DType::F32});
  for (const BinarySpec& spec : binary_specs()) {
    const Error e = expect_error([&] { (void)(a.*spec.fn)(b, eng(), SourceLocation::current()); });
    EXPECT_EQ(e.kind(), ErrorKind::Validation) << spec.name;
    EXPECT_EQ(e.op(), spec.name);
    EXPECT_EQ(std::string(e.message()), "shape mismatch: [2, 3] and [4] do not broadcast") << spec.name;
    const auto* det = std::get_if<tensora::ShapeMismatch>(&e.detail());
    ASSERT_NE(det, nullptr);
    EXPECT_EQ(det->expected, (Shape{2, 3}));
    EXPECT_EQ(det->actual, (Shape{4}));
  }
  // Size-1 axes and missing leading axes broadcast; anything else does not.
  EXPECT_EQ(Tensor::ones({3, 1, 5}, {kCpu, DType::F32}).add(Tensor::ones({4, 1}, {kCpu, DType::F32}), eng()).shape(),
            (Shape{3, 4, 5}));
  EXPECT_EQ(expect_error([&] { (void)Tensor::ones({3, 2}, {kCpu, DType::F32}).add(Tensor::ones({2, 2}, {kCpu, DType::F32}), eng()); })
                .kind(),
            ErrorKind::Validation);
  EXPECT_EQ(expect_error([&] { (void)Tensor::ones({0}, {kCpu, DType::F32}).add(Tensor::ones({2}, {kCpu, DType::F32}), eng()); })
                .kind(),
            ErrorKind::Validation);
}

TEST(ElementwiseErrors, IntegerDivisionByZeroIsInvalidArgument) {
  for (DType d : {DType::I8, DType::I32, DType::I64, DType::U8, DType::U64}) {
    const Tensor a = Tensor::from_ints({7, 8, 9}, {kCpu, d});
    const Tensor zero_inside = Tensor::from_ints({1, 0, 2}, {kCpu, d});
    for (B op : {B::FloorDiv, B::Rem}) {
      const BinarySpec& spec = bspec(op);
      SCOPED_TRACE(param_name(spec.name, d));
      for (int form = 0; form < 4; ++form) {
        const Error e = expect_error([&] {
          if (form == 0) (void)(a.*spec.fn)(zero_inside, eng(), SourceLocation::current());
          if (form == 1) (void)(a.*spec.scalar_fn)(0, eng(), SourceLocation::current());
          if (form == 2) (a.*spec.into_fn)(zero_inside, eng(), Tensor::zeros({3}, {kCpu, d}), SourceLocation::current());
          if (form == 3) (void)(a.*spec.fn)(zero_inside.slice(0, 1, 2).broadcast_to({3}), eng(), SourceLocation::current());
        });
        EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
        EXPECT_EQ(e.op(), spec.name);
        EXPECT_EQ(std::string(e.message()), "integer division by zero");
        ASSERT_NE(std::get_if<tensora::InvalidArgument>(&e.detail()), nullptr);
      }
    }
  }
  // Float division by zero is IEEE, not an error.
  const Tensor f = Tensor::from_floats({1, -1}, {kCpu, DType::F32});
  EXPECT_EQ(f.floor_div(0.0, eng()).to_vec<float>(), (std::vector<float>{INFINITY, -INFINITY}));
}

TEST(ElementwiseErrors, UndefinedOperandsAreInvalidArguments) {
  const Tensor a = Tensor::ones({2}, {kCpu, DType::F32});
  const Tensor none;
  EXPECT_EQ(expect_error([&] { (void)a.add(none, eng()); }).kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(expect_error([&] { (void)none.add(a, eng()); }).kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(expect_error([&] { (void)none.exp(eng()); }).kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(expect_error([&] { (void)none.add(1.0, eng()); }).kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(expect_error([&] { a.add_into(a, eng(), none); }).kind(), ErrorKind::InvalidArgument);
}

// ---- weak scalars --------------------------------------------------------------------------------------

TEST(ElementwiseWeakScalar, SameOrLowerKindTakesTheTensorDType) {
  const Tensor i = Tensor::from_ints({1, 2, 3}, {kCpu, DType::I32});
  const Tensor r = i.add(2, eng());
  EXPECT_EQ(r.dtype(), DType::I32);
  EXPECT_EQ(r.to_vec<std::int32_t>(), (std::vector<std::int32_t>{3, 4, 5}));

  const Tensor h = Tensor::from_floats({1.0, 0.5}, {kCpu, DType::F16});
  const Tensor hr = h.add(2.0, eng());
  EXPECT_EQ(hr.dtype(), DType::F16);
  EXPECT_EQ(hr.to_vec<Float16>()[0], Float16(3.0));
  EXPECT_EQ(hr.to_vec<Float16>()[1], Float16(2.5));
  // A float scalar rounds to the float dtype like a literal (0.1 is not exact in F16).
  EXPECT_EQ(h.mul(0.1, eng()).to_vec<Float16>()[0], Float16(0.1));
  EXPECT_EQ(h.add(2, eng()).dtype(), DType::F16);        // int into a float tensor
  EXPECT_EQ(i.mul(true, eng()).to_vec<std::int32_t>(), (std::vector<std::int32_t>{1, 2, 3}));  // Bool into int
  EXPECT_EQ(i.add(false, eng()).dtype(), DType::I32);
  const Tensor bf = Tensor::from_floats({1.0}, {kCpu, DType::BF16});
  EXPECT_EQ(bf.sub(0.5, eng()).dtype(), DType::BF16);
  const Tensor c = Tensor::from_vec_col_major({1}, std::vector<c64>{{1, 1}});
  EXPECT_EQ(c.mul(c128(0, 1), eng()).to_vec<c64>()[0], c64(-1, 1));
  EXPECT_EQ(c.add(2.0, eng()).to_vec<c64>()[0], c64(3, 1));  // float into complex
  EXPECT_EQ(Tensor::from_ints({5}, {kCpu, DType::U8}).add(250, eng()).to_vec<std::uint8_t>()[0], 255);
  EXPECT_EQ(Tensor::from_ints({5}, {kCpu, DType::U8}).add(251, eng()).to_vec<std::uint8_t>()[0], 0);  // the op wraps
  const Tensor u64 = Tensor::from_vec_col_major({1}, std::vector<std::uint64_t>{1});
  EXPECT_EQ(u64.add(std::uint64_t{0x8000000000000001ull}, eng()).to_vec<std::uint64_t>()[0], 0x8000000000000002ull);
  // Comparisons with a weak scalar give Bool.
  EXPECT_EQ(i.gt(2, eng()).to_vec<bool>(), (std::vector<bool>{false, false, true}));
  const Tensor bools = Tensor::from_vec_col_major({2}, std::vector<bool>{true, false});
  EXPECT_EQ(bools.logical_and(true, eng()).to_vec<bool>(), (std::vector<bool>{true, false}));
}

TEST(ElementwiseWeakScalar, HigherKindOrOutOfRangeThrows) {
  const Tensor i = Tensor::from_ints({1, 2, 3}, {kCpu, DType::I32});
  const Error e = expect_error([&] { (void)i.add(0.5, eng()); });
  EXPECT_EQ(e.op(), "add");
  EXPECT_EQ(std::string(e.op()) + ": " + std::string(e.message()),
            "add: scalar 0.5 (float) does not fit tensor dtype I32; cast the tensor first");
  EXPECT_THAT(e.what(), StartsWith("add: scalar 0.5 (float) does not fit tensor dtype I32; cast the tensor first (at "));
  EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  const auto* det = std::get_if<tensora::InvalidArgument>(&e.detail());
  ASSERT_NE(det, nullptr);
  EXPECT_EQ(det->argument, "scalar");
  // Even a float scalar with an integral value has a higher kind.
  EXPECT_EQ(std::string(expect_error([&] { (void)i.mul(2.0, eng()); }).message()),
            "scalar 2 (float) does not fit tensor dtype I32; cast the tensor first");

  const Tensor u8 = Tensor::from_ints({1}, {kCpu, DType::U8});
  const Error big = expect_error([&] { (void)u8.add(300, eng()); });
  EXPECT_EQ(big.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(std::string(big.message()), "scalar 300 (int) does not fit tensor dtype U8; cast the tensor first");
  EXPECT_EQ(std::string(expect_error([&] { (void)u8.sub(-1, eng()); }).message()),
            "scalar -1 (int) does not fit tensor dtype U8; cast the tensor first");
  EXPECT_EQ(expect_error([&] { (void)Tensor::from_ints({1}, {kCpu, DType::I8}).add(128, eng()); }).kind(),
            ErrorKind::InvalidArgument);
  EXPECT_EQ(expect_error([&] { (void)Tensor::from_ints({1}, {kCpu, DType::I64}).add(std::uint64_t{1} << 63, eng()); }).kind(),
            ErrorKind::InvalidArgument);
  // Complex into a real tensor, even with a zero imaginary part.
  const Tensor f = Tensor::from_floats({1.0}, {kCpu, DType::F32});
  const Error cx = expect_error([&] { (void)f.add(c128(1, 2), eng()); });
  EXPECT_EQ(cx.kind(), ErrorKind::InvalidArgument);
  EXPECT_THAT(std::string(cx.message()), HasSubstr("(complex) does not fit tensor dtype F32; cast the tensor first"));
  EXPECT_EQ(expect_error([&] { (void)f.add(c128(1, 0), eng()); }).kind(), ErrorKind::InvalidArgument);
  // A float scalar that overflows the float dtype is not silently infinite.
  EXPECT_EQ(expect_error([&] { (void)Tensor::from_floats({1.0}, {kCpu, DType::F16}).add(70000.0, eng()); }).kind(),
            ErrorKind::InvalidArgument);
  EXPECT_EQ(expect_error([&] { (void)f.mul(1e300, eng()); }).kind(), ErrorKind::InvalidArgument);
  // An int scalar into a Bool tensor has a higher kind.
  const Tensor bools = Tensor::from_vec_col_major({1}, std::vector<bool>{true});
  EXPECT_EQ(std::string(expect_error([&] { (void)bools.logical_or(2, eng()); }).message()),
            "scalar 2 (int) does not fit tensor dtype Bool; cast the tensor first");
  EXPECT_EQ(expect_error([&] { (void)i.eq(0.5, eng()); }).op(), "eq");
}

// ---- `_into` destinations ----------------------------------------------------------------------------

TEST(ElementwiseInto, DestinationDTypeShapeAndDeviceAreChecked) {
  const Tensor a = Tensor::from_floats({1, 2, 3, 4}, {kCpu, DType::F32});
  const Error dt = expect_error([&] { a.add_into(a, eng(), Tensor::zeros({4}, {kCpu, DType::F64})); });
  EXPECT_EQ(dt.kind(), ErrorKind::Validation);
  EXPECT_EQ(dt.op(), "add_into");
  EXPECT_EQ(std::string(dt.message()), "dtype mismatch: expected F32, actual F64");
  const auto* dtd = std::get_if<tensora::DTypeMismatch>(&dt.detail());
  ASSERT_NE(dtd, nullptr);
  EXPECT_EQ(dtd->expected, DType::F32);
  EXPECT_EQ(dtd->actual, DType::F64);
  // A comparison writes Bool.
  EXPECT_EQ(expect_error([&] { a.lt_into(a, eng(), Tensor::zeros({4}, {kCpu, DType::F32})); }).kind(), ErrorKind::Validation);
  const Tensor bdest = Tensor::zeros({4}, {kCpu, DType::Bool});
  a.lt_into(a.mul(2.0, eng()), eng(), bdest);
  EXPECT_EQ(bdest.to_vec<bool>(), (std::vector<bool>{true, true, true, true}));
  // abs of complex writes the real dtype.
  const Tensor z = Tensor::from_vec_col_major({2}, std::vector<c64>{{3, 4}, {0, -1}});
  EXPECT_EQ(expect_error([&] { z.abs_into(eng(), Tensor::zeros({2}, {kCpu, DType::C64})); }).kind(), ErrorKind::Validation);
  const Tensor adest = Tensor::zeros({2}, {kCpu, DType::F32});
  z.abs_into(eng(), adest);
  EXPECT_EQ(adest.to_vec<float>(), (std::vector<float>{5, 1}));

  const Error sh = expect_error([&] { a.add_into(a, eng(), Tensor::zeros({2, 2}, {kCpu, DType::F32})); });
  EXPECT_EQ(sh.kind(), ErrorKind::Validation);
  EXPECT_EQ(sh.op(), "add_into");
  const auto* shd = std::get_if<tensora::ShapeMismatch>(&sh.detail());
  ASSERT_NE(shd, nullptr);
  EXPECT_EQ(shd->expected, Shape{4});
  EXPECT_EQ(shd->actual, (Shape{2, 2}));
  EXPECT_EQ(expect_error([&] { a.exp_into(eng(), Tensor::zeros({5}, {kCpu, DType::F32})); }).kind(), ErrorKind::Validation);

  const Error dev = expect_error([&] { a.add_into(a, eng(), Tensor::zeros({4}, {Device::cpu(1), DType::F32})); });
  EXPECT_EQ(dev.kind(), ErrorKind::DeviceMismatch);
  const auto* devd = std::get_if<tensora::DeviceMismatch>(&dev.detail());
  ASSERT_NE(devd, nullptr);
  EXPECT_EQ(devd->expected, "cpu:0");
  EXPECT_EQ(devd->actual, "cpu:1");
  EXPECT_EQ(expect_error([&] { a.neg_into(eng(), Tensor::zeros({4}, {Device::cpu(1), DType::F32})); }).kind(),
            ErrorKind::DeviceMismatch);
  // The destination is written with the op's broadcast shape.
  const Tensor bd = Tensor::zeros({2, 4}, {kCpu, DType::F32});
  a.add_into(Tensor::from_floats({10, 20}, {kCpu, DType::F32}).reshape({2, 1}), eng(), bd);
  EXPECT_EQ(bd.to_vec<float>(), (std::vector<float>{11, 21, 12, 22, 13, 23, 14, 24}));
}

TEST(ElementwiseInto, InPlaceOnTheSameViewWorks) {
  const Tensor x = Tensor::from_floats({1, 2, 3, 4, 5, 6}, {kCpu, DType::F64}).reshape({2, 3});
  const Tensor y = Tensor::from_floats({10, 20, 30, 40, 50, 60}, {kCpu, DType::F64}).reshape({2, 3});
  x.add_into(y, eng(), x);
  EXPECT_EQ(x.to_vec<double>(), (std::vector<double>{11, 22, 33, 44, 55, 66}));
  // The right operand as destination.
  x.sub_into(y, eng(), y);
  EXPECT_EQ(y.to_vec<double>(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  // Both operands and the destination the same strided view.
  const Tensor xt = x.transpose();
  xt.mul_into(xt, eng(), xt);
  EXPECT_EQ(x.to_vec<double>(), (std::vector<double>{121, 484, 1089, 1936, 3025, 4356}));
  const Tensor rev = x.reshape({6}).slice(0, std::nullopt, std::nullopt, -1);
  rev.sqrt_into(eng(), rev);
  EXPECT_EQ(x.to_vec<double>(), (std::vector<double>{11, 22, 33, 44, 55, 66}));
  // Long F32 in place on the SIMD path.
  const Tensor big = Tensor::arange(0, 1003, {kCpu, DType::F32});
  big.neg_into(eng(), big);
  big.maximum_into(Tensor::from_floats({-500.0}, {kCpu, DType::F32}), eng(), big);
  const auto v = big.to_vec<float>();
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i], std::max(-static_cast<float>(i), -500.0f));
  // Views of one buffer that do not overlap may be combined.
  const Tensor buf = Tensor::from_floats({1, 2, 3, 4}, {kCpu, DType::F32});
  buf.slice(0, 0, 2).add_into(buf.slice(0, 0, 2), eng(), buf.slice(0, 2, 4));
  EXPECT_EQ(buf.to_vec<float>(), (std::vector<float>{1, 2, 2, 4}));
}

TEST(ElementwiseInto, OverlapInAnotherLayoutIsRejected) {
  const Tensor x = Tensor::from_floats({1, 2, 3, 4, 5, 6, 7, 8, 9}, {kCpu, DType::F32}).reshape({3, 3});
  const Tensor y = Tensor::ones({3, 3}, {kCpu, DType::F32});
  const auto before = x.to_vec<float>();
  auto check = [&](const Error& e, const std::string& op) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << op;
    EXPECT_EQ(e.op(), op);
    EXPECT_THAT(std::string(e.message()), HasSubstr("overlaps an input"));
    const auto* det = std::get_if<tensora::InvalidArgument>(&e.detail());
    ASSERT_NE(det, nullptr);
    EXPECT_EQ(det->argument, "dest");
  };
  check(expect_error([&] { x.add_into(y, eng(), x.transpose()); }), "add_into");
  check(expect_error([&] { y.add_into(x, eng(), x.transpose()); }), "add_into");
  check(expect_error([&] { x.neg_into(eng(), x.transpose()); }), "neg_into");
  // A shifted window of the same buffer.
  const Tensor flat = Tensor::arange(0, 10, {kCpu, DType::F32});
  check(expect_error([&] { flat.slice(0, 0, 8).add_into(flat.slice(0, 0, 8), eng(), flat.slice(0, 2, 10)); }), "add_into");
  check(expect_error([&] { flat.slice(0, 0, 5).exp_into(eng(), flat.slice(0, 5, 0, -1)); }), "exp_into");
  EXPECT_EQ(x.to_vec<float>(), before);  // nothing was written
}

TEST(ElementwiseInto, BroadcastDestinationIsRejected) {
  const Tensor a = Tensor::ones({3, 4}, {kCpu, DType::F32});
  const Tensor row = Tensor::zeros({1, 4}, {kCpu, DType::F32});
  const Tensor dest = row.broadcast_to({3, 4});
  for (int form = 0; form < 2; ++form) {
    const Error e = expect_error([&] {
      if (form == 0) a.add_into(a, eng(), dest);
      else a.exp_into(eng(), dest);
    });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_THAT(std::string(e.message()), HasSubstr("zero stride"));
    const auto* det = std::get_if<tensora::InvalidArgument>(&e.detail());
    ASSERT_NE(det, nullptr);
    EXPECT_EQ(det->argument, "dest");
  }
  EXPECT_EQ(row.to_vec<float>(), std::vector<float>(4, 0.0f));
}

// ---- clamp ----------------------------------------------------------------------------------------------

TEST(ElementwiseClamp, ScalarBounds) {
  const Tensor x = Tensor::from_floats({-3, -1, 0, 0.5, 2, 7, kNaN}, {kCpu, DType::F32});
  const Tensor r = x.clamp(-1.5, 2.0, eng());
  EXPECT_EQ(r.dtype(), DType::F32);
  const auto v = r.to_vec<float>();
  EXPECT_EQ(std::vector<float>(v.begin(), v.end() - 1), (std::vector<float>{-1.5f, -1, 0, 0.5f, 2, 2}));
  EXPECT_TRUE(std::isnan(v.back()));  // NaN propagates
  const Tensor i = Tensor::from_ints({-100, -5, 3, 50}, {kCpu, DType::I16});
  EXPECT_EQ(i.clamp(-10, 10, eng()).to_vec<std::int16_t>(), (std::vector<std::int16_t>{-10, -5, 3, 10}));
  // lo > hi gives hi everywhere, as min(max(x, lo), hi).
  EXPECT_EQ(i.clamp(5, 1, eng()).to_vec<std::int16_t>(), (std::vector<std::int16_t>(4, 1)));
  const Tensor u = Tensor::from_ints({0, 200}, {kCpu, DType::U8});
  EXPECT_EQ(u.clamp(10, 100, eng()).to_vec<std::uint8_t>(), (std::vector<std::uint8_t>{10, 100}));
  EXPECT_EQ(Tensor::from_floats({0.25, 3.0}, {kCpu, DType::F16}).clamp(0.5, 1, eng()).to_vec<Float16>(),
            (std::vector<Float16>{Float16(0.5), Float16(1.0)}));
  // Strided input, long enough for SIMD.
  const Tensor big = Tensor::arange(0, 2006, {kCpu, DType::F64}).slice(0, std::nullopt, std::nullopt, -2);
  const auto bv = big.clamp(100, 900, eng()).to_vec<double>();
  for (std::size_t k = 0; k < bv.size(); ++k) EXPECT_EQ(bv[k], std::clamp(2005.0 - 2.0 * static_cast<double>(k), 100.0, 900.0));
  // Errors: a scalar of a higher kind, an unordered dtype, the engine's device.
  EXPECT_EQ(expect_error([&] { (void)i.clamp(0.5, 10, eng()); }).kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(expect_error([&] { (void)u.clamp(-1, 10, eng()); }).kind(), ErrorKind::InvalidArgument);
  const Error c = expect_error([&] { (void)Tensor::ones({2}, {kCpu, DType::C64}).clamp(0, 1, eng()); });
  EXPECT_EQ(c.kind(), ErrorKind::UnsupportedDType);
  EXPECT_EQ(c.op(), "clamp");
}

TEST(ElementwiseClamp, TensorBoundsBroadcast) {
  const Tensor x = Tensor::from_floats({-5, 0, 5, 10, -5, 0, 5, 10}, {kCpu, DType::F64}).reshape({4, 2});
  const Tensor lo = Tensor::from_floats({-1, 1}, {kCpu, DType::F64}).reshape({1, 2});
  const Tensor hi = Tensor::from_floats({6}, {kCpu, DType::F64});
  const Tensor r = x.clamp(lo, hi, eng());
  EXPECT_EQ(r.shape(), (Shape{4, 2}));
  EXPECT_EQ(r.to_vec<double>(), (std::vector<double>{-1, 0, 5, 6, 1, 1, 5, 6}));
  // Bounds may widen the result shape.
  const Tensor wide = Tensor::from_floats({1, 2, 3}, {kCpu, DType::F64}).clamp(
      Tensor::from_floats({0, 2.5}, {kCpu, DType::F64}).reshape({2, 1}), Tensor::from_floats({10}, {kCpu, DType::F64}), eng());
  EXPECT_EQ(wide.shape(), (Shape{2, 3}));
  EXPECT_EQ(wide.to_vec<double>(), (std::vector<double>{1, 2.5, 2, 2.5, 3, 3}));
  // dtype, shape errors.
  const Error dt = expect_error([&] { (void)x.clamp(lo.cast(DType::F32, eng()), hi, eng()); });
  EXPECT_EQ(dt.kind(), ErrorKind::Validation);
  ASSERT_NE(std::get_if<tensora::DTypeMismatch>(&dt.detail()), nullptr);
  const Error sh = expect_error([&] { (void)x.clamp(Tensor::zeros({3}, {kCpu, DType::F64}), hi, eng()); });
  EXPECT_EQ(sh.kind(), ErrorKind::Validation);
  ASSERT_NE(std::get_if<tensora::ShapeMismatch>(&sh.detail()), nullptr);
}

// ---- select / where --------------------------------------------------------------------------------------

TEST(ElementwiseSelect, EveryDTypeBitExactWithBroadcasting) {
  for (DType d : tensora::kAllDTypes) {
    with_type(d, [&]<class T>() {
      SCOPED_TRACE(tensora::name(d));
      const auto av = gen_values<T>(12, 11, Domain::Any), bv = gen_values<T>(4, 12, Domain::Any);
      const Tensor a = make_tensor(Shape{3, 4}, av, Lay::Transposed);
      const Tensor b = contiguous_tensor(Shape{1, 4}, bv);
      const std::vector<bool> pv = {true, false, true};
      const Tensor pred = Tensor::from_vec_col_major({3, 1}, pv);
      const Tensor r = tensora::select(pred, a, b, eng());
      EXPECT_EQ(r.dtype(), d);
      ASSERT_EQ(r.shape(), (Shape{3, 4}));
      const auto got = r.to_vec<T>();
      for (std::int64_t k = 0; k < 12; ++k) {
        const auto o = unravel(k, {3, 4});
        const T want = pv[static_cast<std::size_t>(o[0])] ? av[static_cast<std::size_t>(k)] : bv[static_cast<std::size_t>(o[1])];
        const T have = got[static_cast<std::size_t>(k)];
        EXPECT_EQ(std::memcmp(&have, &want, sizeof(T)), 0) << k;
      }
    });
  }
}

TEST(ElementwiseSelect, WhereIsSelectAndBroadcastsThePredicate) {
  const Tensor x = Tensor::arange(0, 1003, {kCpu, DType::F32});
  const Tensor pred = x.rem(3.0, eng()).eq(0.0, eng());
  const Tensor r = tensora::where(pred, x, x.neg(eng()), eng());
  const auto v = r.to_vec<float>();
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i], i % 3 == 0 ? static_cast<float>(i) : -static_cast<float>(i));
  // A rank-0 predicate and a rank-0 branch.
  const Tensor t = Tensor::from_vec_col_major({}, std::vector<bool>{false});
  const Tensor s = tensora::where(t, x, Tensor::from_floats({7}, {kCpu, DType::F32}).reshape({}), eng());
  EXPECT_EQ(s.shape(), Shape{1003});
  EXPECT_EQ(s.to_vec<float>(), std::vector<float>(1003, 7.0f));
}

TEST(ElementwiseSelect, BadInputs) {
  const Tensor a = Tensor::ones({3}, {kCpu, DType::F32});
  const Error np = expect_error([&] { (void)tensora::select(a, a, a, eng()); });
  EXPECT_EQ(np.kind(), ErrorKind::Validation);
  EXPECT_EQ(np.op(), "select");
  EXPECT_EQ(std::string(np.message()), "dtype mismatch: expected Bool, actual F32");
  const auto* det = std::get_if<tensora::DTypeMismatch>(&np.detail());
  ASSERT_NE(det, nullptr);
  EXPECT_EQ(det->expected, DType::Bool);
  EXPECT_EQ(det->actual, DType::F32);
  const Tensor p = Tensor::ones({3}, {kCpu, DType::Bool});
  const Error dt = expect_error([&] { (void)tensora::select(p, a, Tensor::ones({3}, {kCpu, DType::F64}), eng()); });
  EXPECT_EQ(std::string(dt.message()), "dtype mismatch: expected F32, actual F64");
  const Error sh = expect_error([&] { (void)tensora::where(Tensor::ones({2}, {kCpu, DType::Bool}), a, a, eng()); });
  EXPECT_EQ(sh.kind(), ErrorKind::Validation);
  ASSERT_NE(std::get_if<tensora::ShapeMismatch>(&sh.detail()), nullptr);
}

}  // namespace

// Large operands whose layouts disagree: the allocating form of all-transposed inputs runs
// panel by panel in their layout and transposes each panel (column-major result); an output
// whose fastest axis differs from an input's is walked in 2-D tiles. Sizes are above the
// grain and not multiples of the tile or block sizes.
TEST(ElementwiseLayouts, LargeTransposedAndMixedOperandsMatchTheFlatComputation) {
  CpuEngine serial = CpuEngine::serial();
  CpuEngine two = CpuEngine::parallel(3);
  for (const DType dt : {DType::F32, DType::F64, DType::I32, DType::F16}) {
    SCOPED_TRACE(std::string(tensora::name(dt)));
    const Tensor a = Tensor::uniform({301, 263}, 5, {Device::cpu(), DType::F64}, -4, 4).cast(dt, serial);
    const Tensor b = Tensor::uniform({301, 263}, 6, {Device::cpu(), DType::F64}, -4, 4).cast(dt, serial);
    const Tensor at = a.transpose(), bt = b.transpose();  // [263, 301], row-major memory
    const Tensor want = a.add(b, serial).transpose().contiguous();  // computed flat
    for (Engine* e : {static_cast<Engine*>(&serial), static_cast<Engine*>(&two)}) {
      const Tensor got = at.add(bt, *e);
      EXPECT_TRUE(got.is_contiguous());
      EXPECT_EQ(got.cast(DType::F64, serial).to_vec<double>(), want.cast(DType::F64, serial).to_vec<double>());
      // Mixed: a column-major operand with a transposed one (tiled walk), allocating and into.
      const Tensor mixed = want.sub(bt, *e);
      EXPECT_TRUE(mixed.is_contiguous());
      EXPECT_EQ(mixed.cast(DType::F64, serial).to_vec<double>(),
                want.sub(bt.contiguous(), serial).cast(DType::F64, serial).to_vec<double>());
      const Tensor dest = Tensor::zeros({263, 301}, {Device::cpu(), dt});
      at.add_into(want.contiguous(), *e, dest);
      EXPECT_EQ(dest.cast(DType::F64, serial).to_vec<double>(),
                at.contiguous().add(want, serial).cast(DType::F64, serial).to_vec<double>());
    }
    if (dt == DType::F32 || dt == DType::F64) {  // a unary op on the transposing path
      const Tensor e_got = at.exp(two), e_want = at.contiguous().exp(serial);
      EXPECT_EQ(e_got.numel(), 263 * 301);
      EXPECT_EQ(e_got.cast(DType::F64, serial).to_vec<double>(), e_want.cast(DType::F64, serial).to_vec<double>());
    }
  }
}
