// A fused elementwise kernel: a chain of elementwise nodes of one output shape run slab by slab
// through cache-sized scratch, so each external input is read once and the result written once.
// Each step runs the same CPU kernel as the unfused op, so results are bitwise the same (see
// docs/traced.md for the one exception: transcendental ops on strided inputs).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cpu/simd_program.hpp"
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

  // Planned once, when the fused node is built (plan_fused_kernel); every run reads them.
  std::vector<int> slot;  // scratch slot per step; -1 for the result (written into the output)
  int slot_count = 0;
  // The steps as a straight-line vector program, when every step is an F32 (or every step an
  // F64) op with a vector form and every input has that dtype. Registers: the external inputs,
  // then one per scratch slot, then the result.
  struct Program {
    std::vector<simd::VectorOp> ops;
    int result = 0;
  };
  std::optional<Program> program;
};

// Plans a kernel whose steps are filled in, for inputs of `input_dtypes`: scratch slots (a
// step's buffer is free again after its last reader ran; a step never writes over its own
// arguments) and the vector program when there is one.
void plan_fused_kernel(FusedKernel& kernel, const std::vector<DType>& input_dtypes);

// Runs the kernel over `inputs` (one per external input, broadcastable to its shape).
Tensor run_fused(const FusedKernel& kernel, std::span<const Tensor> inputs, Engine& engine);

// The kernel's body as IR lines (for printing a program).
std::string print_body(const FusedKernel& kernel, const std::string& indent);

}  // namespace tensora::graph_detail
