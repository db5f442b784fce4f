// Loading and storing one element through a byte pointer: F16/BF16 widen to float on load
// and round once on store; memcpy keeps strided and unaligned access well defined.
#pragma once

#include <cstring>

#include "core/dispatch.hpp"

namespace tensora {

template <class T>
inline compute_t<T> load_as_compute(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if constexpr (is_half_v<T>) return static_cast<float>(v);
  else return v;
}

template <class T, class V>
inline void store_from_compute(char* p, V v) {
  T out;
  if constexpr (is_half_v<T>) out = T(static_cast<float>(v));
  else out = static_cast<T>(v);
  std::memcpy(p, &out, sizeof(T));
}

}  // namespace tensora
