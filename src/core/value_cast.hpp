// Element conversions. `cast_value` is the lossy conversion of cast(): defined for every
// input (no UB). `exact_value` is the checked conversion of creation: it refuses to lose
// information except float rounding to a float target.
#pragma once

#include <bit>
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

// An integer as a double, rounded to odd when it has more than 53 significant bits: the
// dropped bits survive as a sticky last bit, so one more rounding to a format of at most 51
// bits (F16, BF16) gives the correctly rounded result. Rounding to nearest here instead would
// round twice (2^62 + 2^54 + 1 would land on a BF16 midpoint and then go to even).
template <class I>
double int_to_double_round_to_odd(I v) {
  if constexpr (std::numeric_limits<I>::digits <= 53) {
    return static_cast<double>(v);
  } else {
    using U = std::make_unsigned_t<I>;
    bool negative = false;
    if constexpr (std::is_signed_v<I>) negative = v < 0;
    U mag = negative ? static_cast<U>(U(0) - static_cast<U>(v)) : static_cast<U>(v);
    const int excess = std::bit_width(mag) - 53;
    if (excess > 0) {
      const bool sticky = (mag & ((U(1) << excess) - 1)) != 0;
      mag = (mag >> excess) | (sticky ? U(1) : U(0));
    }
    const double d = std::ldexp(static_cast<double>(mag), excess > 0 ? excess : 0);
    return negative ? -d : d;
  }
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
      return To(detail::int_to_double_round_to_odd(v));
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
