// Graph-level autodiff: the eager AD rules run against GraphBuilder, so gradients are new graph
// nodes (themselves differentiable: jvp of grad gives Hessian-vector products). A node takes
// part when it has a rule and depends on one of the xs; the xs are leaves (nothing flows past
// them). Gradients of converted inputs come back in the input's own dtype through the convert
// node's rule, as in eager.
#include <unordered_map>
#include <unordered_set>

#include "core/checks.hpp"
#include "graph/graph.hpp"
#include "graph/graph_builder.hpp"

namespace tensora {

namespace graph_detail {

namespace {

struct Sweep {
  Graph graph;
  std::unordered_set<const Node*> xs;
  std::unordered_set<const Node*> active;  // xs and the nodes that depend on them through rules
};

Sweep prepare(const std::vector<TracedTensor>& ys, const std::vector<TracedTensor>& xs, std::string_view op,
              SourceLocation where) {
  if (ys.empty()) check::fail_invalid(op, "needs at least one output", "ys", where);
  Sweep s;
  std::vector<NodePtr> outs;
  for (const auto& y : ys) {
    check_operands(op, {&y, &ys.front()}, where);
    outs.push_back(y.node());
  }
  for (const auto& x : xs) {
    check_operands(op, {&x, &ys.front()}, where);
    s.xs.insert(x.node().get());
  }
  s.graph = collect(outs, {});
  for (const auto& n : s.graph.nodes) {
    if (s.xs.count(n.get())) {
      s.active.insert(n.get());
      continue;
    }
    if (n->rule == nullptr) continue;
    for (const auto& in : n->inputs)
      if (s.active.count(in.get())) {
        s.active.insert(n.get());
        break;
      }
  }
  return s;
}

void check_seed(std::string_view op, const char* what, const TracedTensor& target, const TracedTensor& seed,
                SourceLocation where) {
  if (!seed.defined()) check::fail_invalid(op, std::string("a ") + what + " is empty", what, where);
  check::same_dtype(op, target.dtype(), seed.dtype(), where);
  if (seed.shape() != target.shape())
    check::fail_shape(op,
                      std::string("a ") + what + " must have its value's shape " + to_string(target.shape()) +
                          ", got " + to_string(seed.shape()),
                      target.shape(), seed.shape(), where);
}

std::vector<TracedTensor> inputs_of(const Node& n) {
  std::vector<TracedTensor> v;
  for (const auto& in : n.inputs) v.emplace_back(in);
  return v;
}

}  // namespace

}  // namespace graph_detail

using namespace graph_detail;  // NOLINT: this file is the layer's front

std::vector<TracedTensor> vjp(const std::vector<TracedTensor>& ys, const std::vector<TracedTensor>& xs,
                              const std::vector<TracedTensor>& cotangents, SourceLocation where) {
  Sweep s = prepare(ys, xs, "vjp", where);
  if (cotangents.size() != ys.size())
    check::fail_invalid("vjp", "needs one cotangent per output: " + std::to_string(ys.size()) + " outputs, " +
                                   std::to_string(cotangents.size()) + " cotangents",
                        "cotangents", where);
  GraphBuilder b;
  b.device = ys.front().device();
  std::unordered_map<const Node*, TracedTensor> grads;
  auto accumulate = [&](const Node* n, const TracedTensor& g) {
    auto [it, inserted] = grads.emplace(n, g);
    if (!inserted) it->second = binary_node(BinaryOp::Add, it->second, g, b.where);
  };
  for (std::size_t i = 0; i < ys.size(); ++i) {
    check_seed("vjp", "cotangent", ys[i], cotangents[i], where);
    if (s.active.count(ys[i].node().get())) accumulate(ys[i].node().get(), cotangents[i]);
  }
  for (auto it = s.graph.nodes.rbegin(); it != s.graph.nodes.rend(); ++it) {
    const Node& n = **it;
    if (s.xs.count(&n) || !s.active.count(&n)) continue;
    const auto g = grads.find(&n);
    if (g == grads.end()) continue;
    const std::vector<TracedTensor> ins = inputs_of(n);
    std::vector<TracedTensor> gin(ins.size());
    std::unique_ptr<bool[]> needs(new bool[ins.size()]);
    for (std::size_t i = 0; i < ins.size(); ++i) needs[i] = s.active.count(n.inputs[i].get()) > 0;
    b.where = n.where;
    n.rule->vjp(b, ins, TracedTensor(*it), g->second, gin, needs.get());
    for (std::size_t i = 0; i < ins.size(); ++i)
      if (needs[i] && gin[i].defined()) accumulate(n.inputs[i].get(), gin[i]);
  }
  std::vector<TracedTensor> out;
  for (const auto& x : xs) {
    const auto g = grads.find(x.node().get());
    out.push_back(g != grads.end() ? g->second : zeros_node(x.shape(), x.dtype(), x.device(), where));
  }
  return out;
}

std::vector<TracedTensor> grad(const TracedTensor& y, const std::vector<TracedTensor>& xs, SourceLocation where) {
  check_operands("grad", {&y}, where);
  if (y.numel() != 1 || !is_floating(y.dtype()))
    check::fail_invalid("grad",
                        "needs a one-element real floating-point value, got " + std::string(name(y.dtype())) +
                            to_string(y.shape()) + "; use vjp for other outputs",
                        "y", where);
  for (const auto& x : xs) {
    check_operands("grad", {&x, &y}, where);
    if (!is_inexact(x.dtype()))
      check::fail_invalid("grad", "cannot differentiate with respect to a " + std::string(name(x.dtype())) +
                                      " value; only float and complex values have gradients",
                          "xs", where);
  }
  const TracedTensor one = scalar_constant("grad", Scalar(1.0), y.dtype(), y.device(), where);
  const TracedTensor seed = y.rank() == 0 ? one : one.broadcast_to(y.shape(), where);
  return vjp({y}, xs, {seed}, where);
}

std::vector<TracedTensor> jvp(const std::vector<TracedTensor>& ys, const std::vector<TracedTensor>& xs,
                              const std::vector<TracedTensor>& tangents, SourceLocation where) {
  Sweep s = prepare(ys, xs, "jvp", where);
  if (tangents.size() != xs.size())
    check::fail_invalid("jvp", "needs one tangent per input: " + std::to_string(xs.size()) + " inputs, " +
                                   std::to_string(tangents.size()) + " tangents",
                        "tangents", where);
  std::unordered_map<const Node*, TracedTensor> tan;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    check_seed("jvp", "tangent", xs[i], tangents[i], where);
    tan[xs[i].node().get()] = tangents[i];
  }
  GraphBuilder b;
  b.device = ys.front().device();
  for (const auto& node : s.graph.nodes) {
    const Node& n = *node;
    if (s.xs.count(&n) || !s.active.count(&n)) continue;
    const std::vector<TracedTensor> ins = inputs_of(n);
    std::vector<TracedTensor> t(ins.size());
    b.where = n.where;
    for (std::size_t i = 0; i < ins.size(); ++i) {
      const auto it = tan.find(n.inputs[i].get());
      t[i] = it != tan.end() ? it->second : zeros_node(ins[i].shape(), ins[i].dtype(), ins[i].device(), n.where);
    }
    tan[&n] = n.rule->jvp(b, ins, TracedTensor(node), t);
  }
  std::vector<TracedTensor> out;
  for (const auto& y : ys) {
    const auto it = tan.find(y.node().get());
    out.push_back(it != tan.end() ? it->second : zeros_node(y.shape(), y.dtype(), y.device(), where));
  }
  return out;
}

}  // namespace tensora
