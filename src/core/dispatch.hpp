// One switch from a runtime DType to a C++ element type: kernels are templates written once
// and instantiated here, never copied per dtype.
#pragma once

#include <complex>
#include <cstdint>
#include <type_traits>

#include "tensora/dtype.hpp"

namespace tensora {

// Calls f.template operator()<T>() with T the element type of `d`.
template <class F>
decltype(auto) visit_dtype(DType d, F&& f) {
  switch (d) {
    case DType::Bool: return f.template operator()<bool>();
    case DType::I8: return f.template operator()<std::int8_t>();
    case DType::I16: return f.template operator()<std::int16_t>();
    case DType::I32: return f.template operator()<std::int32_t>();
    case DType::I64: return f.template operator()<std::int64_t>();
    case DType::U8: return f.template operator()<std::uint8_t>();
    case DType::U16: return f.template operator()<std::uint16_t>();
    case DType::U32: return f.template operator()<std::uint32_t>();
    case DType::U64: return f.template operator()<std::uint64_t>();
    case DType::F16: return f.template operator()<Float16>();
    case DType::BF16: return f.template operator()<BFloat16>();
    case DType::F32: return f.template operator()<float>();
    case DType::F64: return f.template operator()<double>();
    case DType::C64: return f.template operator()<std::complex<float>>();
    case DType::C128: return f.template operator()<std::complex<double>>();
  }
  return f.template operator()<float>();
}

template <class T>
inline constexpr bool is_complex_v = false;
template <class T>
inline constexpr bool is_complex_v<std::complex<T>> = true;

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

template <class T>
inline constexpr bool is_float_v = std::is_floating_point_v<T> || is_half_v<T>;

template <class T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The kind of an element type, usable at compile time.
template <class T>
constexpr DTypeKind element_kind() {
  if constexpr (std::is_same_v<T, bool>) return DTypeKind::Bool;
  else if constexpr (is_complex_v<T>) return DTypeKind::Complex;
  else if constexpr (is_float_v<T>) return DTypeKind::Float;
  else if constexpr (std::is_signed_v<T>) return DTypeKind::SignedInt;
  else return DTypeKind::UnsignedInt;
}

// The type kernels compute in: F16/BF16 compute in float and round once when stored.
template <class T>
struct compute_type {
  using type = T;
};
template <>
struct compute_type<Float16> {
  using type = float;
};
template <>
struct compute_type<BFloat16> {
  using type = float;
};
template <class T>
using compute_t = typename compute_type<T>::type;

}  // namespace tensora
