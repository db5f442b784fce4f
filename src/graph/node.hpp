// A graph node: what the op is (kind, name, printed attributes), its inputs, its inferred
// dtype and shape, where it was built, how it runs (the same direct op eager runs) and its AD
// rule. Nodes are immutable once built; compiler passes make new nodes instead of editing.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ops/elementwise_catalog.hpp"
#include "tensora/traced.hpp"

namespace tensora::graph_detail {

struct Node;
using NodePtr = std::shared_ptr<const Node>;

// What passes need to recognize; everything else is Other (it runs through `exec`).
enum class OpKind : std::uint8_t {
  Input, Constant, Unary, Binary, Select, Convert, Cast, Permute, DotGeneral, Fused, Other
};

// Runs the node's direct op on its input values.
using Exec = std::function<Tensor(std::span<const Tensor>, Engine&)>;

struct GraphBuilder;

// An AD rule bound to a node (the eager rule struct wrapped for traced values).
struct Rule {
  virtual ~Rule() = default;
  virtual void vjp(GraphBuilder& b, std::span<const TracedTensor> in, const TracedTensor& out,
                   const TracedTensor& g, std::span<TracedTensor> gin, const bool* needs) const = 0;
  virtual TracedTensor jvp(GraphBuilder& b, std::span<const TracedTensor> in, const TracedTensor& out,
                           std::span<const TracedTensor> tangents) const = 0;
};

struct FusedKernel;

struct Node {
  OpKind kind = OpKind::Other;
  std::string op;     // "add", "convert", "dot_general", ...
  std::string attrs;  // printed attributes; with op, kind and inputs it identifies the value (CSE)
  std::vector<NodePtr> inputs;
  DType dtype = DType::F32;
  Shape shape;
  Device device = Device::cpu();
  SourceLocation where;
  std::uint64_t id = 0;  // creation order (placeholder order)
  Exec exec;
  std::shared_ptr<const Rule> rule;  // null: no gradient flows through

  // Payloads the passes read.
  UnaryOp unary{};
  BinaryOp binary{};
  std::vector<std::int64_t> axes;  // Permute
  DotGeneralConfig config;         // DotGeneral
  std::string name;                // Input
  Tensor value;                    // Constant
  std::shared_ptr<const FusedKernel> fused;

  Node() = default;
  Node(const Node&) = default;
  Node(Node&&) = default;
  Node& operator=(const Node&) = default;
  Node& operator=(Node&&) = default;
  // Destroying the last handle of a chain of n nodes would run n nested destructors (a
  // 100000-node graph overflows the stack); this one unlinks the chain iteratively instead.
  ~Node();
};

std::uint64_t next_node_id();

// Gives a node its id and wraps it.
TracedTensor make_traced(Node node);
// The same node with other inputs (a pass's rewrite); keeps everything else.
NodePtr with_inputs(const Node& node, std::vector<NodePtr> inputs);

template <class R>
struct RuleOf final : Rule {
  R rule;
  explicit RuleOf(R r) : rule(std::move(r)) {}
  void vjp(GraphBuilder& b, std::span<const TracedTensor> in, const TracedTensor& out,
           const TracedTensor& g, std::span<TracedTensor> gin, const bool* needs) const override;
  TracedTensor jvp(GraphBuilder& b, std::span<const TracedTensor> in, const TracedTensor& out,
                   std::span<const TracedTensor> tangents) const override;
};

template <class R>
std::shared_ptr<const Rule> rule_of(R r) {
  return std::make_shared<RuleOf<R>>(std::move(r));
}

}  // namespace tensora::graph_detail
