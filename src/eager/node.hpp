// The tape: one node per eager tensor. A recorded op is an OpNode holding its rule (with the
// op's attributes) and its input nodes, allocated once; values live in the nodes themselves.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "eager/tensor_builder.hpp"
#include "tensora/eager.hpp"

namespace tensora::eager_detail {

using NodePtr = std::shared_ptr<Node>;

struct Node {
  Tensor value;
  Tensor grad;     // accumulated cotangent of a variable
  Tensor pending;  // cotangent or tangent during one sweep
  bool requires_grad = false;
  bool leaf = true;
  std::uint64_t mark = 0;  // sweep epoch (topological sort)

  Node() = default;
  // By reference: a tiny op's value is moved once into its node, not through every layer.
  explicit Node(const Tensor& v, bool rg = false) : value(v), requires_grad(rg) {}
  explicit Node(Tensor&& v, bool rg = false) : value(std::move(v)), requires_grad(rg) {}
  virtual ~Node() = default;
  virtual std::span<const NodePtr> inputs() const { return {}; }
  // Moves the input references out (the node is being destroyed; see release_inputs).
  virtual void take_inputs(std::vector<NodePtr>&) {}
  virtual void vjp(TensorBuilder&, const Tensor&, std::span<Tensor>, const bool*) const {}
  virtual Tensor jvp(TensorBuilder&, std::span<const Tensor>) const { return {}; }
};

// Destroying the last handle of a chain of n recorded ops would run n nested destructors (a
// 100000-op chain overflows the stack): a dying node instead unlinks, one by one, the inputs
// it holds the last reference to, so each of them dies with no inputs left. Called only when
// nested_release says the plain destructors would recurse.
void release_inputs(Node& dying);

// Whether destroying a node with these inputs would recurse: some input is held only here and
// has inputs of its own. Usually not (a variable, a value still in use, a constant), so the
// check is inline, over the node's own input container, with no virtual call.
template <class Inputs>
bool nested_release(const Inputs& ins) {
  for (const NodePtr& n : ins)
    if (n && n.use_count() == 1 && !n->inputs().empty()) return true;
  return false;
}

template <class Rule, class Inputs>
struct OpNode final : Node {
  Rule rule;
  Inputs ins;

  OpNode(Tensor&& v, Rule r, Inputs i)
      : Node(std::move(v), true), rule(std::move(r)), ins(std::move(i)) {
    leaf = false;
  }
  OpNode(const OpNode&) = delete;
  OpNode& operator=(const OpNode&) = delete;
  ~OpNode() override {
    if (nested_release(ins)) release_inputs(*this);
  }
  std::span<const NodePtr> inputs() const override { return {ins.data(), ins.size()}; }
  void take_inputs(std::vector<NodePtr>& out) override {
    for (auto& n : ins)
      if (n) out.push_back(std::move(n));
  }

  void vjp(TensorBuilder& b, const Tensor& g, std::span<Tensor> gin,
           const bool* needs) const override {
    const auto values = input_values();
    rule.vjp(b, ad::RuleArgs<Tensor>{values, value}, g, gin, needs);
  }
  Tensor jvp(TensorBuilder& b, std::span<const Tensor> t) const override {
    const auto values = input_values();
    return rule.jvp(b, ad::RuleArgs<Tensor>{values, value}, t);
  }

 private:
  std::vector<Tensor> input_values() const {
    std::vector<Tensor> v;
    v.reserve(ins.size());
    for (const auto& n : ins) v.push_back(n->value);
    return v;
  }
};

// Sweeps (src/eager/tape.cpp). Reverse mode seeds `roots` with `seeds`; with `targets` null the
// cotangents reaching variables accumulate into their grad, else they are returned for targets.
std::vector<Tensor> run_backward(std::span<const NodePtr> roots, std::span<const Tensor> seeds,
                                 Engine& engine, const std::vector<Node*>* targets);
// Forward mode: `seeded` nodes carry their tangent in `pending`; returns the tangents of outputs.
std::vector<Tensor> run_forward(std::span<const NodePtr> outputs, Engine& engine);

bool& grad_mode();

}  // namespace tensora::eager_detail
