// A fused elementwise kernel: a chain of elementwise nodes of one output shape, described to
// the engine's backend as a fused program (backend/fused_program.hpp), which runs it so each
// external input is read once and the result written once. Results are bitwise those of the
// unfused ops (see docs/traced.md for the one exception: transcendental ops on strided inputs).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "backend/fused_program.hpp"
#include "graph/node.hpp"

namespace tensora::graph_detail {

struct FusedKernel {
  backend::FusedProgram program;
  std::vector<std::string> ops;  // each step's op name, for printing
};

// Adds a step (a Unary, Binary, Select, Convert or Cast node's payload) to the kernel.
void add_step(FusedKernel& kernel, const Node& member, std::vector<int> args);

// Runs the kernel over `inputs` (one per external input, broadcastable to its shape).
Tensor run_fused(const FusedKernel& kernel, std::span<const Tensor> inputs, Engine& engine);

// The kernel's body as IR lines (for printing a program).
std::string print_body(const FusedKernel& kernel, const std::string& indent);

}  // namespace tensora::graph_detail
