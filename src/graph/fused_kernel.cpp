// Fused kernels on the graph side: build the backend-neutral program, run it on the engine's
// backend, print it.
#include "graph/fused_kernel.hpp"

#include "backend/backend.hpp"

namespace tensora::graph_detail {

void add_step(FusedKernel& k, const Node& member, std::vector<int> args) {
  using Kind = backend::FusedStep::Kind;
  const Kind kind = member.kind == OpKind::Unary    ? Kind::Unary
                    : member.kind == OpKind::Binary ? Kind::Binary
                    : member.kind == OpKind::Select ? Kind::Select
                                                    : Kind::Cast;  // Convert, Cast
  k.program.steps.push_back({kind, member.unary, member.binary, member.dtype, std::move(args)});
  k.ops.push_back(member.op);
}

Tensor run_fused(const FusedKernel& k, std::span<const Tensor> inputs, Engine& engine) {
  const Device device = inputs.empty() ? engine.device() : inputs.front().device();
  Tensor out = Tensor::empty(k.program.shape, k.program.dtype, device);
  engine.backend().run_fused(k.program, inputs, out, engine);
  return out;
}

std::string print_body(const FusedKernel& k, const std::string& indent) {
  std::string s;
  for (std::size_t i = 0; i < k.program.steps.size(); ++i) {
    const auto& step = k.program.steps[i];
    s += indent + "^" + std::to_string(i) + " = " + k.ops[i] + "(";
    for (std::size_t j = 0; j < step.args.size(); ++j) {
      const int a = step.args[j];
      s += (j ? ", " : "") + (a >= 0 ? "^" + std::to_string(a) : "in" + std::to_string(-a - 1));
    }
    s += ")";
    if (step.kind == backend::FusedStep::Kind::Cast) s += " {to=" + std::string(name(step.dtype)) + "}";
    s += " : " + std::string(name(step.dtype)) + "\n";
  }
  return s;
}

}  // namespace tensora::graph_detail
