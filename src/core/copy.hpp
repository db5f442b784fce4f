// Strided element copies between views of the same dtype (no conversion).
#pragma once

#include "tensora/tensor.hpp"

namespace tensora {

// Copies every element of `src` into `dst_base` laid out with `dst_strides` (in elements).
void copy_strided(const Tensor& src, void* dst_base, const Strides& dst_strides);

}  // namespace tensora
