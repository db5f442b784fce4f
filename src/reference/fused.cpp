// Reference fused programs: the steps one by one, each into its own fresh tensor, with the
// reference kernels; the last step writes the output.
#include <vector>

#include "reference/reference_backend.hpp"

namespace tensora::reference {

void run_fused(const backend::FusedProgram& program, std::span<const Tensor> inputs, const Tensor& out) {
  using Kind = backend::FusedStep::Kind;
  std::vector<Tensor> values(program.steps.size());
  for (std::size_t i = 0; i < program.steps.size(); ++i) {
    const auto& step = program.steps[i];
    std::vector<Tensor> args;
    for (const int a : step.args) {
      const Tensor& t = a >= 0 ? values[static_cast<std::size_t>(a)] : inputs[static_cast<std::size_t>(-a - 1)];
      args.push_back(t.shape() == program.shape ? t : t.broadcast_to(program.shape));
    }
    const bool last = i + 1 == program.steps.size();
    values[i] = last ? out : Tensor::empty(program.shape, step.dtype, out.device());
    switch (step.kind) {
      case Kind::Unary: unary(step.unary, values[i], args[0]); break;
      case Kind::Binary: binary(step.binary, values[i], args[0], args[1]); break;
      case Kind::Select: select(values[i], args[0], args[1], args[2]); break;
      case Kind::Cast: cast(values[i], args[0]); break;
    }
  }
}

}  // namespace tensora::reference
