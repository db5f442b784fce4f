// Element types, their properties, and the promotion lattice (docs/dtypes.md).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "tensora/half.hpp"

namespace tensora {

class Device;

enum class DType { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64, C64, C128 };

inline constexpr int kNumDTypes = 15;

inline constexpr DType kAllDTypes[kNumDTypes] = {
    DType::Bool, DType::I8,  DType::I16, DType::I32,  DType::I64, DType::U8,  DType::U16, DType::U32,
    DType::U64,  DType::F16, DType::BF16, DType::F32, DType::F64, DType::C64, DType::C128};

enum class DTypeKind { Bool, SignedInt, UnsignedInt, Float, Complex };

std::string_view name(DType);     // "F32"
std::string_view name(DTypeKind);  // "float"
// Bytes per element and kind, by table: both sit on every op's hot path.
constexpr std::size_t size_of(DType d) {
  constexpr std::size_t sizes[kNumDTypes] = {1, 1, 2, 4, 8, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  return sizes[static_cast<int>(d)];
}
constexpr DTypeKind kind(DType d) {
  constexpr DTypeKind kinds[kNumDTypes] = {
      DTypeKind::Bool,        DTypeKind::SignedInt,   DTypeKind::SignedInt,   DTypeKind::SignedInt,
      DTypeKind::SignedInt,   DTypeKind::UnsignedInt, DTypeKind::UnsignedInt, DTypeKind::UnsignedInt,
      DTypeKind::UnsignedInt, DTypeKind::Float,       DTypeKind::Float,       DTypeKind::Float,
      DTypeKind::Float,       DTypeKind::Complex,     DTypeKind::Complex};
  return kinds[static_cast<int>(d)];
}

constexpr bool is_integer(DType d) {
  return kind(d) == DTypeKind::SignedInt || kind(d) == DTypeKind::UnsignedInt;
}
constexpr bool is_floating(DType d) { return kind(d) == DTypeKind::Float; }
constexpr bool is_complex(DType d) { return kind(d) == DTypeKind::Complex; }
// Floats and complex: the dtypes with a gradient.
constexpr bool is_inexact(DType d) { return is_floating(d) || is_complex(d); }

// The real dtype of a complex one (C64 -> F32); identity for the others.
DType real_dtype(DType);
// The complex dtype that holds a float one (F64 -> C128, F16/BF16/F32 -> C64).
DType complex_dtype(DType);

// ---- C++ element type <-> DType -------------------------------------------------------

template <class T>
struct dtype_traits {
  static constexpr bool is_element = false;
};

#define TENSORA_ELEMENT(CppType, Tag)                 \
  template <>                                         \
  struct dtype_traits<CppType> {                      \
    static constexpr bool is_element = true;          \
    static constexpr DType value = DType::Tag;        \
  };
TENSORA_ELEMENT(bool, Bool)
TENSORA_ELEMENT(std::int8_t, I8)
TENSORA_ELEMENT(std::int16_t, I16)
TENSORA_ELEMENT(std::int32_t, I32)
TENSORA_ELEMENT(std::int64_t, I64)
TENSORA_ELEMENT(std::uint8_t, U8)
TENSORA_ELEMENT(std::uint16_t, U16)
TENSORA_ELEMENT(std::uint32_t, U32)
TENSORA_ELEMENT(std::uint64_t, U64)
TENSORA_ELEMENT(Float16, F16)
TENSORA_ELEMENT(BFloat16, BF16)
TENSORA_ELEMENT(float, F32)
TENSORA_ELEMENT(double, F64)
TENSORA_ELEMENT(std::complex<float>, C64)
TENSORA_ELEMENT(std::complex<double>, C128)
#undef TENSORA_ELEMENT

// True for the 15 C++ types that tensors store.
template <class T>
concept Element = dtype_traits<std::remove_cv_t<T>>::is_element;

template <Element T>
constexpr DType dtype_of() {
  return dtype_traits<std::remove_cv_t<T>>::value;
}

namespace detail {
template <DType D> struct element_of;
template <> struct element_of<DType::Bool> { using type = bool; };
template <> struct element_of<DType::I8> { using type = std::int8_t; };
template <> struct element_of<DType::I16> { using type = std::int16_t; };
template <> struct element_of<DType::I32> { using type = std::int32_t; };
template <> struct element_of<DType::I64> { using type = std::int64_t; };
template <> struct element_of<DType::U8> { using type = std::uint8_t; };
template <> struct element_of<DType::U16> { using type = std::uint16_t; };
template <> struct element_of<DType::U32> { using type = std::uint32_t; };
template <> struct element_of<DType::U64> { using type = std::uint64_t; };
template <> struct element_of<DType::F16> { using type = Float16; };
template <> struct element_of<DType::BF16> { using type = BFloat16; };
template <> struct element_of<DType::F32> { using type = float; };
template <> struct element_of<DType::F64> { using type = double; };
template <> struct element_of<DType::C64> { using type = std::complex<float>; };
template <> struct element_of<DType::C128> { using type = std::complex<double>; };
}  // namespace detail

template <DType D>
using element_t = typename detail::element_of<D>::type;

// ---- Promotion ------------------------------------------------------------------------

// A point of the lattice: a DType or the virtual float bottom F* that sits above every
// integer and below F16 and BF16. Joins stay in this type until a promotion finishes,
// which keeps n-ary promotion associative.
class LatticeType {
 public:
  constexpr LatticeType(DType d) : index_(static_cast<int>(d)) {}  // NOLINT: implicit by design
  static constexpr LatticeType float_bottom() { return LatticeType(kNumDTypes); }

  constexpr bool is_float_bottom() const { return index_ == kNumDTypes; }
  // The DType, with F* materialized as `float_default`.
  constexpr DType resolve(DType float_default) const {
    return is_float_bottom() ? float_default : static_cast<DType>(index_);
  }
  constexpr int index() const { return index_; }
  friend constexpr bool operator==(LatticeType, LatticeType) = default;

 private:
  constexpr explicit LatticeType(int i) : index_(i) {}
  int index_;
};

// The least upper bound of two lattice points.
LatticeType join(LatticeType a, LatticeType b);

// promote_types resolves F* to the float default of the given device (or of
// Device::default_device() when none is given).
DType promote_types(DType a, DType b);
DType promote_types(DType a, DType b, const Device& device);

// True when `from` converts to `to` without loss: promote_types(from, to) == to.
bool can_convert(DType from, DType to);

}  // namespace tensora
