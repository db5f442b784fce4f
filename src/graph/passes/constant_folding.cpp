// Constant folding: a node whose inputs are all constants runs once at compile time (on the
// device's serial engine, backend/serial_engine.hpp, with the same direct op, so the constant
// has the bits a run would give) and becomes a constant. Not folded: converts and casts (every
// precision change stays visible in the program, as docs/traced.md asks), results above
// `max_elements`, and nodes whose result is larger than their inputs (a broadcast or zeros is
// cheaper to make at run time than to carry in the program).
#include <algorithm>

#include "backend/serial_engine.hpp"
#include "graph/graph.hpp"
#include "graph/ops.hpp"

namespace tensora::graph_detail {

Graph fold_constants(const Graph& g, std::int64_t max_elements) {
  return rewrite(g, [&](const NodePtr& n) -> NodePtr {
    if (n->kind == OpKind::Input || n->kind == OpKind::Constant || n->kind == OpKind::Convert ||
        n->kind == OpKind::Cast || numel(n->shape) > max_elements)
      return nullptr;
    std::vector<Tensor> values;
    std::int64_t largest_input = 0;
    for (const auto& in : n->inputs) {
      if (in->kind != OpKind::Constant) return nullptr;
      values.push_back(in->value);
      largest_input = std::max(largest_input, numel(in->shape));
    }
    if (numel(n->shape) > std::max<std::int64_t>(largest_input, 1)) return nullptr;
    const auto engine = backend::serial_engine(n->device);
    const Tensor value = n->exec(values, *engine);
    return constant_node(value.contiguous(), n->where).node();
  });
}

}  // namespace tensora::graph_detail
