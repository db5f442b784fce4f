// A C++ number passed to an op. Scalars are weak: they take the tensor's dtype when their
// kind is the same or lower (docs/dtypes.md).
#pragma once

#include <complex>
#include <concepts>
#include <cstdint>
#include <string>

#include "tensora/dtype.hpp"

namespace tensora {

class Scalar {
 public:
  // The kind a scalar brings to promotion: bool < int < float < complex.
  enum class Kind { Bool, Int, Float, Complex };

  Scalar(bool v) : kind_(Kind::Bool), i_(v ? 1 : 0) {}  // NOLINT: implicit by design
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  Scalar(T v) : kind_(Kind::Int) {  // NOLINT
    if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
      // Keep the full u64 range: store values above INT64_MAX in the unsigned slot.
      is_u64_ = v > static_cast<std::uint64_t>(INT64_MAX);
      u_ = v;
      i_ = static_cast<std::int64_t>(v);
    } else {
      i_ = static_cast<std::int64_t>(v);
    }
  }
  Scalar(float v) : kind_(Kind::Float), f_(v) {}   // NOLINT
  Scalar(double v) : kind_(Kind::Float), f_(v) {}  // NOLINT
  Scalar(Float16 v) : kind_(Kind::Float), f_(static_cast<double>(v)) {}   // NOLINT
  Scalar(BFloat16 v) : kind_(Kind::Float), f_(static_cast<double>(v)) {}  // NOLINT
  Scalar(std::complex<float> v) : kind_(Kind::Complex), c_(v) {}          // NOLINT
  Scalar(std::complex<double> v) : kind_(Kind::Complex), c_(v) {}         // NOLINT

  Kind kind() const { return kind_; }
  bool is_u64_above_i64() const { return is_u64_; }
  std::int64_t as_int() const { return i_; }
  std::uint64_t as_u64() const { return is_u64_ ? u_ : static_cast<std::uint64_t>(i_); }
  double as_double() const;
  std::complex<double> as_complex() const;

  // The default dtype for a scalar of this kind on a device with these settings.
  std::string to_string() const;  // "0.5", "300", "(1+2i)"

 private:
  Kind kind_;
  bool is_u64_ = false;
  std::int64_t i_ = 0;
  std::uint64_t u_ = 0;
  double f_ = 0;
  std::complex<double> c_{};
};

std::string_view name(Scalar::Kind);  // "bool", "int", "float", "complex"

// The scalar kind of a dtype (U8 -> Int, C64 -> Complex).
Scalar::Kind scalar_kind(DType);

}  // namespace tensora
