// Reduction and scan kernels. `x` is permuted so its first `kept` axes are the kept ones and
// the rest are reduced; `out` is dense with the kept extents.
#pragma once

#include "ops/reducers.hpp"
#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora::cpu {

void reduce(ReduceOp op, const Tensor& out, const Tensor& x, std::int64_t kept, Engine& engine);
// Index of the first max (or min) along the last axis of x; out is I64 with x's other extents.
void arg_extreme(bool max, const Tensor& out, const Tensor& x, Engine& engine);
// Running sum (or product) along `axis`; out has x's shape and dtype.
void scan(bool product, const Tensor& out, const Tensor& x, std::int64_t axis, Engine& engine);

}  // namespace tensora::cpu
