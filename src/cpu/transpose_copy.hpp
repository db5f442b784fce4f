// Layout changes for the contraction layer: copies between views of one dtype and shape with
// any strides. When the destination's fastest-moving axis is not the source's, a plain
// strided copy would touch a new cache line for every element on one side; this copy walks
// square tiles instead (a cache-blocked transpose), so both sides stream.
#pragma once

#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora::cpu {

// dst[i] = src[i] for every index; same dtype and shape, no overlap. Parallel over fixed
// tiles of the engine (the result is a copy, so it does not depend on the thread count).
void transpose_copy(const Tensor& dst, const Tensor& src, Engine& engine);

}  // namespace tensora::cpu
