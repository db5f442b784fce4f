// Transpose folding: dot_general(permute(a, p), b) becomes dot_general(a, b) with the operand's
// batch and contracting dims mapped through p. It applies when p keeps the free (result) axes in
// order, so the result layout is unchanged; the product then reads a with its own strides
// (BLAS transpose flags instead of a permuted view).
#include "graph/graph.hpp"
#include "graph/ops.hpp"

namespace tensora::graph_detail {

namespace {

bool contains(const std::vector<std::int64_t>& v, std::int64_t x) {
  for (auto y : v)
    if (y == x) return true;
  return false;
}

// Maps an operand's dims through its permutation when the free dims stay in increasing order.
bool remap(const Node& permute, std::vector<std::int64_t>& batch, std::vector<std::int64_t>& contract) {
  const auto& p = permute.axes;
  const auto rank = static_cast<std::int64_t>(p.size());
  auto norm = [&](std::int64_t d) { return d < 0 ? d + rank : d; };
  std::int64_t last = -1;
  for (std::int64_t d = 0; d < rank; ++d) {
    if (contains(batch, d) || contains(batch, d - rank) || contains(contract, d) || contains(contract, d - rank))
      continue;
    if (p[static_cast<std::size_t>(d)] < last) return false;
    last = p[static_cast<std::size_t>(d)];
  }
  for (auto& d : batch) d = p[static_cast<std::size_t>(norm(d))];
  for (auto& d : contract) d = p[static_cast<std::size_t>(norm(d))];
  return true;
}

}  // namespace

Graph fold_transposes(const Graph& g) {
  return rewrite(g, [&](const NodePtr& n) -> NodePtr {
    if (n->kind != OpKind::DotGeneral) return nullptr;
    NodePtr lhs = n->inputs[0], rhs = n->inputs[1];
    DotGeneralConfig c = n->config;
    bool changed = false;
    if (lhs->kind == OpKind::Permute && remap(*lhs, c.lhs_batch_dims, c.lhs_contracting_dims)) {
      lhs = lhs->inputs[0];
      changed = true;
    }
    if (rhs->kind == OpKind::Permute && remap(*rhs, c.rhs_batch_dims, c.rhs_contracting_dims)) {
      rhs = rhs->inputs[0];
      changed = true;
    }
    if (!changed) return nullptr;
    return dot_general_node(TracedTensor(lhs), TracedTensor(rhs), c, n->where).node();
  });
}

}  // namespace tensora::graph_detail
