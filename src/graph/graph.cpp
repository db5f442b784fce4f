// Collecting, printing and rewriting graphs.
#include "graph/graph.hpp"

#include <algorithm>
#include <unordered_set>

#include "graph/fused_kernel.hpp"

namespace tensora::graph_detail {

Graph collect(const std::vector<NodePtr>& outputs, std::vector<NodePtr> inputs) {
  Graph g;
  g.outputs = outputs;
  std::unordered_set<const Node*> seen;
  // Iterative post-order walk: a node is listed after all its inputs.
  std::vector<std::pair<NodePtr, std::size_t>> stack;
  for (const auto& out : outputs) {
    if (!seen.insert(out.get()).second) continue;
    stack.emplace_back(out, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->inputs.size()) {
        const NodePtr& in = node->inputs[next++];
        if (seen.insert(in.get()).second) stack.emplace_back(in, 0);
      } else {
        g.nodes.push_back(node);
        stack.pop_back();
      }
    }
  }
  if (inputs.empty()) {
    for (const auto& n : g.nodes)
      if (n->kind == OpKind::Input) inputs.push_back(n);
    std::sort(inputs.begin(), inputs.end(), [](const NodePtr& a, const NodePtr& b) { return a->id < b->id; });
  }
  g.inputs = std::move(inputs);
  return g;
}

namespace {

std::string type_text(const Node& n) { return std::string(name(n.dtype)) + to_string(n.shape); }

std::string location_text(const SourceLocation& where) {
  std::string file = where.file_name();
  if (const auto slash = file.find_last_of('/'); slash != std::string::npos) file = file.substr(slash + 1);
  return file + ":" + std::to_string(where.line());
}

}  // namespace

std::string print(const Graph& g, bool locations) {
  std::unordered_map<const Node*, std::string> names;
  std::string s = "program(";
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const Node& n = *g.inputs[i];
    s += (i ? ", " : "") + n.name + ": " + type_text(n);
  }
  s += ") {\n";
  int next = 0;
  for (const auto& node : g.nodes) {
    const Node& n = *node;
    const std::string id = "%" + std::to_string(next++);
    names[&n] = id;
    s += "  " + id + " = " + n.op;
    if (!n.inputs.empty()) {
      s += "(";
      for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        const auto it = names.find(n.inputs[i].get());
        s += (i ? ", " : "") + (it == names.end() ? std::string("?") : it->second);
      }
      s += ")";
    }
    if (!n.attrs.empty()) s += " {" + n.attrs + "}";
    s += " : " + type_text(n);
    if (locations && (n.kind == OpKind::Convert || n.kind == OpKind::Cast)) s += "  // " + location_text(n.where);
    s += "\n";
    if (n.kind == OpKind::Fused) s += print_body(*n.fused, "      ");
  }
  s += "  return ";
  for (std::size_t i = 0; i < g.outputs.size(); ++i) {
    const auto it = names.find(g.outputs[i].get());
    s += (i ? ", " : "") + (it == names.end() ? std::string("?") : it->second);
  }
  return s + "\n}\n";
}

Graph rewrite(const Graph& g, const std::function<NodePtr(const NodePtr&)>& fn) {
  std::unordered_map<const Node*, NodePtr> replaced;
  auto current = [&](const NodePtr& n) {
    const auto it = replaced.find(n.get());
    return it == replaced.end() ? n : it->second;
  };
  Graph out;
  out.inputs = g.inputs;
  std::unordered_set<const Node*> listed;
  for (const auto& node : g.nodes) {
    NodePtr n = node;
    bool changed = false;
    std::vector<NodePtr> inputs;
    inputs.reserve(node->inputs.size());
    for (const auto& in : node->inputs) {
      inputs.push_back(current(in));
      changed = changed || inputs.back() != in;
    }
    if (changed) n = with_inputs(*node, std::move(inputs));
    if (NodePtr r = fn(n)) n = r;
    if (n != node) replaced[node.get()] = n;
    // A replacement is an earlier node (listed already) or a new one whose inputs are earlier.
    if (listed.insert(n.get()).second) out.nodes.push_back(n);
  }
  for (const auto& o : g.outputs) out.outputs.push_back(current(o));
  return out;
}

}  // namespace tensora::graph_detail
