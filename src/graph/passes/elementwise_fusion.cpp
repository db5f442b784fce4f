// Elementwise fusion: a connected group of elementwise nodes (unary, binary, select, convert,
// cast) with one result shape becomes one fused node. A group grows from its last node into
// inputs that have the same shape and no other consumer, so every value computed inside the group
// is used only inside it; the group reads its external inputs once and writes one result.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "graph/fused_kernel.hpp"
#include "graph/graph.hpp"

namespace tensora::graph_detail {

namespace {

bool fusible(const Node& n) {
  switch (n.kind) {
    case OpKind::Unary:
    case OpKind::Binary:
    case OpKind::Select:
    case OpKind::Convert:
    case OpKind::Cast:
      return true;
    default:
      return false;
  }
}

}  // namespace

Graph fuse_elementwise(const Graph& g) {
  std::unordered_map<const Node*, int> uses;
  for (const auto& n : g.nodes)
    for (const auto& in : n->inputs) ++uses[in.get()];
  for (const auto& o : g.outputs) ++uses[o.get()];

  // Group roots, last to first; members are claimed by the first root that reaches them.
  std::unordered_map<const Node*, const Node*> group_of;  // member -> root
  std::unordered_map<const Node*, std::vector<const Node*>> members;
  for (auto it = g.nodes.rbegin(); it != g.nodes.rend(); ++it) {
    const Node* root = it->get();
    if (!fusible(*root) || group_of.count(root)) continue;
    group_of[root] = root;
    std::vector<const Node*> group{root}, work{root};
    while (!work.empty()) {
      const Node* m = work.back();
      work.pop_back();
      for (const auto& in : m->inputs) {
        const Node* c = in.get();
        if (!fusible(*c) || group_of.count(c) || uses[c] != 1 || c->shape != root->shape) continue;
        group_of[c] = root;
        group.push_back(c);
        work.push_back(c);
      }
    }
    if (group.size() > 1) members[root] = std::move(group);
  }
  if (members.empty()) return g;

  std::unordered_map<const Node*, NodePtr> replaced;  // original -> rewritten
  auto current = [&](const NodePtr& n) {
    const auto it = replaced.find(n.get());
    return it == replaced.end() ? n : it->second;
  };
  Graph out;
  out.inputs = g.inputs;
  for (const auto& node : g.nodes) {
    const auto m = members.find(node.get());
    if (m == members.end()) {
      std::vector<NodePtr> inputs;
      bool changed = false;
      for (const auto& in : node->inputs) {
        inputs.push_back(current(in));
        changed = changed || inputs.back() != in;
      }
      NodePtr n = changed ? with_inputs(*node, std::move(inputs)) : node;
      if (changed) replaced[node.get()] = n;
      out.nodes.push_back(n);
      continue;
    }
    const std::unordered_set<const Node*> in_group(m->second.begin(), m->second.end());
    auto kernel = std::make_shared<FusedKernel>();
    kernel->program.shape = node->shape;
    kernel->program.dtype = node->dtype;
    std::unordered_map<const Node*, int> step_of;
    std::vector<NodePtr> externals;
    std::unordered_map<const Node*, int> external_of;
    for (const auto& member : g.nodes) {  // members in the graph's (topological) order
      if (!in_group.count(member.get())) continue;
      std::vector<int> args;
      for (const auto& in : member->inputs) {
        if (const auto st = step_of.find(in.get()); st != step_of.end()) {
          args.push_back(st->second);
          continue;
        }
        auto [e, inserted] = external_of.emplace(in.get(), static_cast<int>(externals.size()));
        if (inserted) externals.push_back(current(in));
        args.push_back(-(e->second + 1));
      }
      step_of[member.get()] = static_cast<int>(kernel->program.steps.size());
      add_step(*kernel, *member, std::move(args));
    }
    for (const auto& e : externals) kernel->program.inputs.push_back(e->dtype);
    Node f;
    f.kind = OpKind::Fused;
    f.op = "fused";
    f.inputs = std::move(externals);
    f.dtype = node->dtype;
    f.shape = node->shape;
    f.device = node->device;
    f.where = node->where;
    f.id = next_node_id();
    f.fused = kernel;
    f.exec = [kernel](std::span<const Tensor> in, Engine& e) { return run_fused(*kernel, in, e); };
    NodePtr fn = std::make_shared<Node>(std::move(f));
    replaced[node.get()] = fn;
    out.nodes.push_back(fn);
  }
  for (const auto& o : g.outputs) out.outputs.push_back(current(o));
  return out;
}

}  // namespace tensora::graph_detail
