// The scalar definition of every elementwise primitive, written once as templates over the
// compute type (F16/BF16 compute in float): the catalog's functors. Every backend computes
// with these (the CPU backend's SIMD kernels must agree with them).
#pragma once

#include <math.h>  // lgamma_r

#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

#include "core/dispatch.hpp"
#include "ops/elementwise_catalog.hpp"

namespace tensora::fn {

template <class T>
using unsigned_of = std::make_unsigned_t<T>;

// Signed integer overflow wraps (two's complement) instead of being UB.
template <class T>
T wrap_add(T a, T b) {
  if constexpr (is_int_v<T>) return static_cast<T>(static_cast<unsigned_of<T>>(a) + static_cast<unsigned_of<T>>(b));
  else return a + b;
}
template <class T>
T wrap_sub(T a, T b) {
  if constexpr (is_int_v<T>) return static_cast<T>(static_cast<unsigned_of<T>>(a) - static_cast<unsigned_of<T>>(b));
  else return a - b;
}
template <class T>
T wrap_mul(T a, T b) {
  if constexpr (is_int_v<T>) {
    // Multiply in at least unsigned int so small types do not promote to signed int.
    using U = std::common_type_t<unsigned_of<T>, unsigned>;
    return static_cast<T>(static_cast<U>(static_cast<unsigned_of<T>>(a)) * static_cast<U>(static_cast<unsigned_of<T>>(b)));
  } else {
    return a * b;
  }
}

template <class T>
bool is_nan(T v) {
  if constexpr (is_complex_v<T>) return std::isnan(v.real()) || std::isnan(v.imag());
  else if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// Python's floor division and modulo. Floats follow CPython's float_divmod: the quotient is
// floored and then rounded to an integral value, a zero quotient takes the sign of a / b and a
// zero remainder the sign of b. F32 (and F16/BF16, which compute in float) work in double, so
// their result is Python's answer rounded once. A zero divisor gives a / b and NaN (NumPy).
template <class T>
T floor_div(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    using W = std::conditional_t<std::is_same_v<T, float>, double, T>;
    const W x = a, y = b;
    if (y == 0) return static_cast<T>(x / y);
    const W m = std::fmod(x, y);
    W q = (x - m) / y;
    if (m != 0 && ((y < 0) != (m < 0))) q -= 1;
    if (q == 0) return static_cast<T>(std::copysign(W{0}, x / y));
    const W f = std::floor(q);
    return static_cast<T>(q - f > W{0.5} ? f + 1 : f);
  } else if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrap_sub(T{0}, a);  // INT_MIN // -1 wraps
    T q = static_cast<T>(a / b);
    if ((a % b != 0) && ((a < 0) != (b < 0))) q = static_cast<T>(q - 1);
    return q;
  } else {
    return static_cast<T>(a / b);
  }
}
template <class T>
T py_rem(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const T m = std::fmod(a, b);
    if (m == 0) return std::copysign(T{0}, b);
    if ((b < 0) != (m < 0)) return m + b;
    return m;
  } else if constexpr (std::is_signed_v<T>) {
    if (b == -1) return T{0};
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return static_cast<T>(a % b);
  }
}

template <class T>
T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    // Negative exponents truncate 1 / base^|exp| toward zero.
    if (exp < 0) return base == 1 ? T{1} : base == -1 ? ((exp & 1) ? T{-1} : T{1}) : T{0};
  }
  T result = 1;
  auto e = static_cast<unsigned_of<T>>(exp);
  while (e) {
    if (e & 1) result = wrap_mul(result, base);
    base = wrap_mul(base, base);
    e >>= 1;
  }
  return result;
}

template <class T>
bool truth(T v) {
  if constexpr (is_complex_v<T>) return v.real() != 0 || v.imag() != 0;
  else return v != T{0};
}

// log(exp(a) + exp(b)) without overflow; equal arguments (infinities included) give a + log 2.
template <class C>
C logaddexp(C a, C b) {
  if (a == b) return a + static_cast<C>(0.693147180559945309417232121458176568);
  const C m = a > b ? a : b;
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

// x * log(y), 0 where x == 0 (also for y == 0), NaN where y is NaN (SciPy's xlogy).
template <class C>
C xlogy(C x, C y) {
  if (std::isnan(y)) return y;
  if (x == 0) return C{0};
  return x * std::log(y);
}

// The special functions that <cmath> lacks, computed in double and rounded once.
// digamma: reflection for x < 0, recurrence up to 10, then the asymptotic series.
inline double digamma(double x) {
  constexpr double kPi = 3.141592653589793238462643383279502884;
  if (std::isnan(x) || x == -std::numeric_limits<double>::infinity()) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0) return -std::numeric_limits<double>::infinity();  // as PyTorch
  double result = 0;
  if (x < 0) {
    if (x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();  // poles
    result = -kPi / std::tan(kPi * x);
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double f = 1 / (x * x);
  return result + std::log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}
// trigamma = d digamma / dx: reflection, recurrence up to 15, asymptotic series; +inf at the poles.
inline double trigamma(double x) {
  constexpr double kPi = 3.141592653589793238462643383279502884;
  if (std::isnan(x) || x == -std::numeric_limits<double>::infinity()) return std::numeric_limits<double>::quiet_NaN();
  if (x <= 0 && x == std::floor(x)) return std::numeric_limits<double>::infinity();
  if (x < 0) {
    const double s = std::sin(kPi * x);
    return kPi * kPi / (s * s) - trigamma(1 - x);
  }
  double result = 0;
  while (x < 15) {  // the series' first omitted term is below 1e-16 of the value from 15 on
    result += 1 / (x * x);
    x += 1;
  }
  const double f = 1 / (x * x);
  return result + 1 / x + f / 2 + f / x * (1.0 / 6 - f * (1.0 / 30 - f * (1.0 / 42 - f * (1.0 / 30 - f * 5.0 / 66))));
}
// erfinv: Giles' approximation ("Approximating the erfinv function", 2010) refined by two
// Newton steps on erf, which brings it to double precision.
inline double erfinv(double x) {
  if (std::isnan(x) || x < -1 || x > 1) return std::numeric_limits<double>::quiet_NaN();
  if (x == 1 || x == -1) return std::copysign(std::numeric_limits<double>::infinity(), x);
  double w = -std::log((1 - x) * (1 + x)), p;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941})
      p = c + p * w;
  } else {
    w = std::sqrt(w) - 3;
    p = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                     1.00167406, 2.83297682})
      p = c + p * w;
  }
  double y = p * x;
  constexpr double kTwoOverSqrtPi = 1.128379167095512573896158903121545172;
  for (int i = 0; i < 2; ++i) y -= (std::erf(y) - x) / (kTwoOverSqrtPi * std::exp(-y * y));
  return y;
}
// lgamma without the global signgam write of std::lgamma (a data race across threads).
inline double lgamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}

// Binary ops on the compute type C; R is the result compute type.
template <BinaryOp Op, class C>
auto binary(C a, C b) {
  if constexpr (Op == BinaryOp::Add) return wrap_add(a, b);
  else if constexpr (Op == BinaryOp::Sub) return wrap_sub(a, b);
  else if constexpr (Op == BinaryOp::Mul) return wrap_mul(a, b);
  else if constexpr (Op == BinaryOp::Div) return a / b;
  else if constexpr (Op == BinaryOp::FloorDiv) return floor_div(a, b);
  else if constexpr (Op == BinaryOp::Rem) return py_rem(a, b);
  else if constexpr (Op == BinaryOp::Pow) {
    if constexpr (is_int_v<C>) return int_pow(a, b);
    else return static_cast<C>(std::pow(a, b));
  } else if constexpr (Op == BinaryOp::Maximum) {
    // IEEE 754-2019 maximum: NaN wins, and +0 is above -0.
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    if constexpr (std::is_floating_point_v<C>)
      if (a == b) return std::signbit(a) ? b : a;
    return a < b ? b : a;
  } else if constexpr (Op == BinaryOp::Minimum) {
    if (is_nan(a)) return a;
    if (is_nan(b)) return b;
    if constexpr (std::is_floating_point_v<C>)
      if (a == b) return std::signbit(a) ? a : b;
    return b < a ? b : a;
  } else if constexpr (Op == BinaryOp::Atan2) return static_cast<C>(std::atan2(a, b));
  else if constexpr (Op == BinaryOp::Hypot) return static_cast<C>(std::hypot(a, b));
  else if constexpr (Op == BinaryOp::LogAddExp) return logaddexp(a, b);
  else if constexpr (Op == BinaryOp::Xlogy) return xlogy(a, b);
  else if constexpr (Op == BinaryOp::CopySign) return static_cast<C>(std::copysign(a, b));
  else if constexpr (Op == BinaryOp::Eq) return a == b;
  else if constexpr (Op == BinaryOp::Ne) return a != b;
  else if constexpr (Op == BinaryOp::Lt) return a < b;
  else if constexpr (Op == BinaryOp::Le) return a <= b;
  else if constexpr (Op == BinaryOp::Gt) return a > b;
  else if constexpr (Op == BinaryOp::Ge) return a >= b;
  else if constexpr (Op == BinaryOp::LogicalAnd) return truth(a) && truth(b);
  else if constexpr (Op == BinaryOp::LogicalOr) return truth(a) || truth(b);
  else return truth(a) != truth(b);  // LogicalXor
}

template <class C>
C sigmoid(C x) {
  // Split by sign so exp never overflows.
  if (x >= 0) return C{1} / (C{1} + std::exp(-x));
  const C e = std::exp(x);
  return e / (C{1} + e);
}

template <UnaryOp Op, class C>
auto unary(C a) {
  if constexpr (Op == UnaryOp::Neg) {
    if constexpr (is_int_v<C>) return wrap_sub(C{0}, a);
    else return -a;  // 0 - x would turn -(+0) into +0
  }
  else if constexpr (Op == UnaryOp::Abs) {
    if constexpr (is_complex_v<C>) return std::abs(a);
    else if constexpr (std::is_unsigned_v<C>) return a;
    else if constexpr (is_int_v<C>) return a < 0 ? wrap_sub(C{0}, a) : a;
    else return std::fabs(a);
  } else if constexpr (Op == UnaryOp::Sign) {
    if constexpr (is_complex_v<C>) {
      const auto m = std::abs(a);
      return m == 0 ? C{0} : a / m;
    } else if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(a)) return a;
      return a > 0 ? C{1} : a < 0 ? C{-1} : a;  // keeps the sign of zero
    } else if constexpr (std::is_unsigned_v<C>) {
      return static_cast<C>(a > 0);
    } else {
      return static_cast<C>((a > 0) - (a < 0));
    }
  } else if constexpr (Op == UnaryOp::Exp) return std::exp(a);
  else if constexpr (Op == UnaryOp::Exp2) return std::exp2(a);
  else if constexpr (Op == UnaryOp::Log2) return std::log2(a);
  else if constexpr (Op == UnaryOp::Log10) return std::log10(a);
  else if constexpr (Op == UnaryOp::Reciprocal) return C{1} / a;
  else if constexpr (Op == UnaryOp::Square) {
    if constexpr (is_int_v<C>) return wrap_mul(a, a);
    else return a * a;
  }
  else if constexpr (Op == UnaryOp::Asin) return std::asin(a);
  else if constexpr (Op == UnaryOp::Acos) return std::acos(a);
  else if constexpr (Op == UnaryOp::Atan) return std::atan(a);
  else if constexpr (Op == UnaryOp::Sinh) return std::sinh(a);
  else if constexpr (Op == UnaryOp::Cosh) return std::cosh(a);
  else if constexpr (Op == UnaryOp::Asinh) return std::asinh(a);
  else if constexpr (Op == UnaryOp::Acosh) return std::acosh(a);
  else if constexpr (Op == UnaryOp::Atanh) return std::atanh(a);
  else if constexpr (Op == UnaryOp::Erfc) return std::erfc(a);
  else if constexpr (Op == UnaryOp::Erfinv) return static_cast<C>(erfinv(a));
  else if constexpr (Op == UnaryOp::Lgamma) return static_cast<C>(lgamma(a));
  else if constexpr (Op == UnaryOp::Digamma) return static_cast<C>(digamma(a));
  else if constexpr (Op == UnaryOp::Trigamma) return static_cast<C>(trigamma(a));
  else if constexpr (Op == UnaryOp::Trunc) {
    if constexpr (std::is_floating_point_v<C>) return std::trunc(a);
    else return a;
  }
  else if constexpr (Op == UnaryOp::Expm1) return std::expm1(a);
  else if constexpr (Op == UnaryOp::Log) return std::log(a);
  else if constexpr (Op == UnaryOp::Log1p) return std::log1p(a);
  else if constexpr (Op == UnaryOp::Sqrt) return std::sqrt(a);
  else if constexpr (Op == UnaryOp::Rsqrt) return C{1} / std::sqrt(a);
  else if constexpr (Op == UnaryOp::Sin) return std::sin(a);
  else if constexpr (Op == UnaryOp::Cos) return std::cos(a);
  else if constexpr (Op == UnaryOp::Tan) return std::tan(a);
  else if constexpr (Op == UnaryOp::Tanh) return std::tanh(a);
  else if constexpr (Op == UnaryOp::Sigmoid) return sigmoid(a);
  else if constexpr (Op == UnaryOp::Erf) return std::erf(a);
  else if constexpr (Op == UnaryOp::Floor) {
    if constexpr (std::is_floating_point_v<C>) return std::floor(a);
    else return a;
  } else if constexpr (Op == UnaryOp::Ceil) {
    if constexpr (std::is_floating_point_v<C>) return std::ceil(a);
    else return a;
  } else if constexpr (Op == UnaryOp::Round) {
    if constexpr (std::is_floating_point_v<C>) return std::nearbyint(a);  // half to even
    else return a;
  } else if constexpr (Op == UnaryOp::Conj) {
    if constexpr (is_complex_v<C>) return std::conj(a);
    else return a;
  } else if constexpr (Op == UnaryOp::Real) {
    if constexpr (is_complex_v<C>) return a.real();
    else return a;
  } else if constexpr (Op == UnaryOp::Imag) {
    if constexpr (is_complex_v<C>) return a.imag();
    else return C{0};
  } else if constexpr (Op == UnaryOp::LogicalNot) return !truth(a);
  else if constexpr (Op == UnaryOp::IsNan) return is_nan(a);
  else if constexpr (Op == UnaryOp::IsInf) {
    if constexpr (is_complex_v<C>) return std::isinf(a.real()) || std::isinf(a.imag());
    else if constexpr (std::is_floating_point_v<C>) return std::isinf(a);
    else return false;
  } else {  // IsFinite
    if constexpr (is_complex_v<C>) return std::isfinite(a.real()) && std::isfinite(a.imag());
    else if constexpr (std::is_floating_point_v<C>) return std::isfinite(a);
    else return true;
  }
}

}  // namespace tensora::fn
