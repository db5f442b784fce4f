// Text for one element, shared by the printer and error messages.
#pragma once

#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/dispatch.hpp"

namespace tensora {

// The shortest text that reads back to the same value through `read_back` (strtod for
// double, strtof for float), with at most `max_digits` significant digits. Exponent notation
// only when it is clearly shorter: 10 prints as "10", 65520 as "65520", 1.5e10 as "1.5e+10".
template <class Read>
std::string shortest_text(double v, int max_digits, Read read_back) {
  char sci[40] = "";
  for (int p = 1; p <= max_digits; ++p) {
    std::snprintf(sci, sizeof sci, "%.*g", p, v);
    if (read_back(sci) == v) break;
  }
  const double mag = v < 0 ? -v : v;
  if (std::strchr(sci, 'e') == nullptr || mag < 1e-4 || mag >= 1e16) return sci;
  for (int d = 0; d <= 20; ++d) {
    char fixed[64];
    std::snprintf(fixed, sizeof fixed, "%.*f", d, v);
    if (read_back(fixed) == v) return std::strlen(fixed) <= std::strlen(sci) + 3 ? fixed : sci;
  }
  return sci;
}

inline std::string format_double(double v) {
  return shortest_text(v, 17, [](const char* t) { return std::strtod(t, nullptr); });
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
    return shortest_text(static_cast<double>(f), 9,
                         [](const char* t) { return static_cast<double>(std::strtof(t, nullptr)); });
  } else if constexpr (std::is_floating_point_v<T>) {
    return format_double(v);
  } else {
    return std::to_string(v);
  }
}

}  // namespace tensora
