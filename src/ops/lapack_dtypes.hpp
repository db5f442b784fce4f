// The dtypes the numerical libraries behind linalg and fft compute in (LAPACK's and FFTW's s, d,
// c, z), and the one promotion the eager and traced front doors apply before those ops.
#pragma once

#include "tensora/dtype.hpp"

namespace tensora {

constexpr bool is_lapack_dtype(DType d) {
  return d == DType::F32 || d == DType::F64 || d == DType::C64 || d == DType::C128;
}

// Integers, Bool, F16 and BF16 become `default_float` (the device's default float); the
// others stay.
constexpr DType promoted_to_lapack_dtype(DType d, DType default_float) {
  return is_lapack_dtype(d) ? d : default_float;
}

}  // namespace tensora
