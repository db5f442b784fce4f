// Text for one element, shared by the printer and error messages.
#pragma once

#include <complex>
#include <cstdio>
#include <string>

#include "core/dispatch.hpp"

namespace tensora {

inline std::string format_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // Prefer the shortest text that reads back to the same value.
  for (int p = 1; p <= 17; ++p) {
    char tmp[32];
    std::snprintf(tmp, sizeof tmp, "%.*g", p, v);
    if (std::strtod(tmp, nullptr) == v) return tmp;
  }
  return buf;
}

template <class T>
std::string format_element(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (is_complex_v<T>) {
    const double im = static_cast<double>(v.imag());
    return format_double(static_cast<double>(v.real())) + (im < 0 || std::signbit(im) ? "-" : "+") +
           format_double(std::abs(im)) + "i";
  } else if constexpr (std::is_same_v<T, float> || is_half_v<T>) {
    // Shortest text that reads back to the same float.
    const float f = static_cast<float>(v);
    for (int p = 1; p <= 9; ++p) {
      char tmp[32];
      std::snprintf(tmp, sizeof tmp, "%.*g", p, static_cast<double>(f));
      if (std::strtof(tmp, nullptr) == f) return tmp;
    }
    return format_double(static_cast<double>(f));
  } else if constexpr (std::is_floating_point_v<T>) {
    return format_double(v);
  } else {
    return std::to_string(v);
  }
}

}  // namespace tensora
