// CPU kernel entry points. Inputs are validated by the op layer and already broadcast to
// the output's shape; outputs are allocated (or checked destinations).
#pragma once

#include "ops/elementwise_catalog.hpp"
#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora::cpu {

void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Engine& engine);
void unary(UnaryOp op, const Tensor& out, const Tensor& in, Engine& engine);
// out = pred ? a : b, elementwise.
void select(const Tensor& out, const Tensor& pred, const Tensor& a, const Tensor& b, Engine& engine);
// Elementwise conversion with cast_value semantics (also used by convert).
void cast(const Tensor& out, const Tensor& in, Engine& engine);
// Copies in into out (same dtype, any strides; no overlap): tiled where the fastest axes differ
// (copy_kernel.cpp).
void copy(const Tensor& out, const Tensor& in, Engine& engine);
// True when any element of `t` is zero.
bool any_zero(const Tensor& t, Engine& engine);

}  // namespace tensora::cpu
