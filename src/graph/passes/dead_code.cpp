// Dead-code elimination: keeps the nodes the outputs depend on, in their order.
#include <unordered_set>

#include "graph/graph.hpp"

namespace tensora::graph_detail {

Graph eliminate_dead_code(const Graph& g) {
  std::unordered_set<const Node*> live;
  for (const auto& o : g.outputs) live.insert(o.get());
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it)
    if (live.count(it->get()))
      for (const auto& in : (*it)->inputs) live.insert(in.get());
  Graph out;
  out.inputs = g.inputs;
  out.outputs = g.outputs;
  for (const auto& n : g.nodes)
    if (live.count(n.get())) out.nodes.push_back(n);
  return out;
}

}  // namespace tensora::graph_detail
