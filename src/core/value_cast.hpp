// Element conversions. `cast_value` is the lossy conversion of cast(): defined for every
// input (no UB). `exact_value` is the checked conversion of creation: it refuses to lose
// information except float rounding to a float target.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "core/dispatch.hpp"

namespace tensora {

namespace detail {

template <class T>
double real_part(T v) {
  if constexpr (is_complex_v<T>) return static_cast<double>(v.real());
  else if constexpr (is_half_v<T>) return static_cast<double>(v);
  else return static_cast<double>(v);
}

// Float -> integer: truncate toward zero, saturate, NaN -> 0.
template <class To>
To saturating_from_double(double v) {
  if (std::isnan(v)) return To{0};
  constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
  // max + 1 is a power of two, exact in double; anything at or above it saturates.
  constexpr double hi_exclusive = static_cast<double>(std::numeric_limits<To>::max() / 2 + 1) * 2.0;
  if (v <= lo) return std::numeric_limits<To>::min();
  if (v >= hi_exclusive) return std::numeric_limits<To>::max();
  return static_cast<To>(std::trunc(v));
}

}  // namespace detail

template <class To, class From>
To cast_value(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_complex_v<From>) return v.real() != 0 || v.imag() != 0;
    else if constexpr (is_half_v<From>) return static_cast<float>(v) != 0.0f;
    else return v != From{0};
  } else if constexpr (is_complex_v<To>) {
    using R = typename To::value_type;
    if constexpr (is_complex_v<From>) return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    else return To(cast_value<R>(v), R{0});
  } else if constexpr (is_complex_v<From>) {
    // complex -> real keeps the real part (NumPy's cast).
    return cast_value<To>(v.real());
  } else if constexpr (is_int_v<To>) {
    if constexpr (is_float_v<From>) return detail::saturating_from_double<To>(static_cast<double>(v));
    else return static_cast<To>(v);  // int -> int wraps modulo 2^bits, as C++ does
  } else if constexpr (is_half_v<To>) {
    if constexpr (std::is_integral_v<From>) {
      // long double holds every 64-bit integer exactly on x86-64, so one rounding happens.
      return To(static_cast<double>(static_cast<long double>(v)));
    } else {
      return To(static_cast<double>(v));
    }
  } else {  // float / double target
    if constexpr (is_half_v<From>) return static_cast<To>(static_cast<float>(v));
    else return static_cast<To>(v);
  }
}

// Checked creation conversion: true and `out` set when the value survives.
template <class To, class From>
bool exact_value(From v, To& out) {
  if constexpr (is_complex_v<From> && !is_complex_v<To>) {
    if (v.imag() != 0) return false;
    return exact_value<To>(v.real(), out);
  } else if constexpr (std::is_same_v<To, bool>) {
    const double r = detail::real_part(v);
    if (r != 0.0 && r != 1.0) return false;
    out = r != 0.0;
    return true;
  } else if constexpr (is_int_v<To>) {
    if constexpr (std::is_same_v<From, bool>) {
      out = static_cast<To>(v);
      return true;
    } else if constexpr (std::is_integral_v<From>) {
      if (!std::in_range<To>(v)) return false;
      out = static_cast<To>(v);
      return true;
    } else {
      const double r = static_cast<double>(v);
      if (!std::isfinite(r) || std::trunc(r) != r) return false;
      if (r < static_cast<double>(std::numeric_limits<To>::min()) ||
          r >= static_cast<double>(std::numeric_limits<To>::max() / 2 + 1) * 2.0)
        return false;
      out = static_cast<To>(r);
      return true;
    }
  } else {
    // Float and complex targets round to nearest; overflow to infinity is a loss.
    out = cast_value<To>(v);
    const double before = std::abs(detail::real_part(v));
    const double after = std::abs(detail::real_part(out));
    if (std::isinf(after) && !std::isinf(before)) return false;
    if constexpr (is_complex_v<To> && is_complex_v<From>) {
      if (std::isinf(std::abs(static_cast<double>(out.imag()))) &&
          !std::isinf(std::abs(static_cast<double>(v.imag()))))
        return false;
    }
    return true;
  }
}

}  // namespace tensora
