#include "tensora/scalar.hpp"

#include "core/format.hpp"
#include "tensora/tensor_options.hpp"

namespace tensora {

double Scalar::as_double() const {
  switch (kind_) {
    case Kind::Float: return f_;
    case Kind::Complex: return c_.real();
    default: return is_u64_ ? static_cast<double>(u_) : static_cast<double>(i_);
  }
}

std::complex<double> Scalar::as_complex() const {
  return kind_ == Kind::Complex ? c_ : std::complex<double>(as_double(), 0.0);
}

std::string Scalar::to_string() const {
  switch (kind_) {
    case Kind::Bool: return i_ ? "true" : "false";
    case Kind::Int: return is_u64_ ? std::to_string(u_) : std::to_string(i_);
    case Kind::Float: return format_double(f_);
    case Kind::Complex: {
      // Appending (rather than "(" + string) avoids a GCC 12 -O3 false -Wrestrict error.
      std::string s = "(";
      s += format_element(c_);
      s += ')';
      return s;
    }
  }
  return "?";
}

std::string_view name(Scalar::Kind k) {
  switch (k) {
    case Scalar::Kind::Bool: return "bool";
    case Scalar::Kind::Int: return "int";
    case Scalar::Kind::Float: return "float";
    case Scalar::Kind::Complex: return "complex";
  }
  return "?";
}

Scalar::Kind scalar_kind(DType d) {
  switch (kind(d)) {
    case DTypeKind::Bool: return Scalar::Kind::Bool;
    case DTypeKind::SignedInt:
    case DTypeKind::UnsignedInt: return Scalar::Kind::Int;
    case DTypeKind::Float: return Scalar::Kind::Float;
    case DTypeKind::Complex: return Scalar::Kind::Complex;
  }
  return Scalar::Kind::Float;
}

TensorOptions::TensorOptions() : device(Device::default_device()) {}
TensorOptions::TensorOptions(DType t) : device(Device::default_device()), dtype(t) {}

}  // namespace tensora
