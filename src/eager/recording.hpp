// How a session turns a direct result into an eager tensor: a constant node, or one OpNode with
// the rule when grad mode is on, the result is float/complex, and some input requires grad.
#pragma once

#include <array>
#include <vector>

#include "eager/node.hpp"

namespace tensora::eager_detail {

// A defined handle's node read inline: EagerTensor's value() and requires_grad() are out of
// line (Node is incomplete in the public header), and a tiny op asks for them several times.
inline const Tensor& value_of(const EagerTensor& x) {
  return x.node()->value;
}
inline bool requires_grad_of(const EagerTensor& x) {
  return x.node() && x.node()->requires_grad;
}

// By rvalue reference, the value moved once into its node (a tiny op's handle moves cost
// as much as a tenth of the op); the const& form copies it there.
inline EagerTensor constant_node(Tensor&& value) {
  return EagerTensor(std::make_shared<Node>(std::move(value), false));
}
inline EagerTensor constant_node(const Tensor& value) {
  return EagerTensor(std::make_shared<Node>(value, false));
}

inline bool should_record(const Tensor& out, bool any_input_requires_grad) {
  return any_input_requires_grad && grad_mode() && is_inexact(out.dtype());
}

template <class Rule, std::size_t N>
EagerTensor record(Rule rule, const std::array<const EagerTensor*, N>& ins, Tensor&& out) {
  bool any = false;
  for (const auto* in : ins) any = any || requires_grad_of(*in);
  if (!should_record(out, any)) return constant_node(std::move(out));
  std::array<NodePtr, N> nodes;
  for (std::size_t i = 0; i < N; ++i) nodes[i] = ins[i]->node();
  return EagerTensor(std::make_shared<OpNode<Rule, std::array<NodePtr, N>>>(
      std::move(out), std::move(rule), std::move(nodes)));
}

template <class Rule>
EagerTensor record_n(Rule rule, const std::vector<EagerTensor>& ins, Tensor out) {
  bool any = false;
  for (const auto& in : ins) any = any || requires_grad_of(in);
  if (!should_record(out, any)) return constant_node(std::move(out));
  std::vector<NodePtr> nodes;
  nodes.reserve(ins.size());
  for (const auto& in : ins) nodes.push_back(in.node());
  return EagerTensor(std::make_shared<OpNode<Rule, std::vector<NodePtr>>>(
      std::move(out), std::move(rule), std::move(nodes)));
}

}  // namespace tensora::eager_detail
