// A fused elementwise kernel: a chain of elementwise nodes of one output shape run slab by slab
// through cache-sized scratch, so each external input is read once and the result written once.
// Each step runs the same CPU kernel as the unfused op, so results are bitwise the same (see
// docs/traced.md for the one exception: transcendental ops on strided inputs).
#pragma once

#include <string>
#include <vector>

#include "graph/node.hpp"

namespace tensora::graph_detail {

struct FusedKernel {
  struct Step {
    OpKind kind;  // Unary, Binary, Select, Convert or Cast
    UnaryOp unary{};
    BinaryOp binary{};
    std::string op;
    DType dtype;
    std::vector<int> args;  // >= 0: an earlier step; < 0: external input -(arg + 1)
  };
  std::vector<Step> steps;  // the last step is the result
  Shape shape;
  DType dtype;
};

// Runs the kernel over `inputs` (one per external input, broadcastable to its shape).
Tensor run_fused(const FusedKernel& kernel, std::span<const Tensor> inputs, Engine& engine);

// The kernel's body as IR lines (for printing a program).
std::string print_body(const FusedKernel& kernel, const std::string& indent);

}  // namespace tensora::graph_detail
