// Common-subexpression elimination: two nodes with the same op, attributes, result type and
// (already merged) inputs compute the same value; the later one is replaced by the earlier.
// Placeholders are never merged; constants merge by value when small (their attributes print
// the value) and by identity otherwise.
#include <sstream>
#include <unordered_map>

#include "graph/graph.hpp"

namespace tensora::graph_detail {

namespace {

std::string key_of(const Node& n) {
  std::ostringstream k;
  k << static_cast<int>(n.kind) << '|' << n.op << '|' << n.attrs << '|' << name(n.dtype) << to_string(n.shape) << '|'
    << n.device.to_string();
  for (const auto& in : n.inputs) k << '|' << static_cast<const void*>(in.get());
  return k.str();
}

}  // namespace

Graph eliminate_common_subexpressions(const Graph& g) {
  std::unordered_map<std::string, NodePtr> first;
  return rewrite(g, [&](const NodePtr& n) -> NodePtr {
    if (n->kind == OpKind::Input || n->kind == OpKind::Fused) return nullptr;
    auto [it, inserted] = first.emplace(key_of(*n), n);
    return inserted ? nullptr : it->second;
  });
}

}  // namespace tensora::graph_detail
