// Reverse and forward sweeps over the tape, and the EagerTensor methods that start them.
#include <atomic>
#include <exception>
#include <memory>

#include "eager/node.hpp"
#include "tensora/shape.hpp"

namespace tensora::eager_detail {

namespace {

std::atomic<std::uint64_t> g_epoch{0};

// Nodes that need grad reachable from `roots`, inputs before users.
std::vector<Node*> topological(std::span<const NodePtr> roots) {
  const std::uint64_t epoch = ++g_epoch;
  std::vector<Node*> order;
  std::vector<std::pair<Node*, std::size_t>> stack;
  for (const auto& r : roots) {
    if (!r || !r->requires_grad || r->mark == epoch) continue;
    r->mark = epoch;
    stack.emplace_back(r.get(), 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const auto ins = node->inputs();
      if (next < ins.size()) {
        Node* child = ins[next++].get();
        if (child->requires_grad && child->mark != epoch) {
          child->mark = epoch;
          stack.emplace_back(child, 0);
        }
      } else {
        order.push_back(node);
        stack.pop_back();
      }
    }
  }
  return order;
}

void accumulate(Tensor& slot, const Tensor& g, Engine& e) {
  slot = slot.defined() ? slot.add(g, e) : g;
}

// A throwing rule must not leave cotangents behind for the next sweep.
struct ClearPendingOnThrow {
  const std::vector<Node*>& nodes;
  ~ClearPendingOnThrow() {
    if (std::uncaught_exceptions() > 0)
      for (Node* n : nodes) n->pending = Tensor();
  }
};

}  // namespace

bool& grad_mode() {
  thread_local bool enabled = true;
  return enabled;
}

std::vector<Tensor> run_backward(std::span<const NodePtr> roots, std::span<const Tensor> seeds,
                                 Engine& engine, const std::vector<Node*>* targets) {
  const auto order = topological(roots);
  for (std::size_t i = 0; i < roots.size(); ++i)
    if (roots[i]->requires_grad) accumulate(roots[i]->pending, seeds[i], engine);
  const ClearPendingOnThrow guard{order};
  TensorBuilder b{engine};
  std::vector<Tensor> gin;
  std::unique_ptr<bool[]> needs;
  std::size_t needs_size = 0;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* node = *it;
    if (!node->pending.defined()) continue;
    if (node->leaf) {
      if (targets == nullptr) {
        accumulate(node->grad, node->pending, engine);
        node->pending = Tensor();
      }
      continue;
    }
    const auto ins = node->inputs();
    gin.assign(ins.size(), Tensor());
    if (needs_size < ins.size()) {
      needs_size = ins.size();
      needs = std::make_unique<bool[]>(needs_size);
    }
    for (std::size_t i = 0; i < ins.size(); ++i) needs[i] = ins[i]->requires_grad;
    node->vjp(b, node->pending, gin, needs.get());
    node->pending = Tensor();
    for (std::size_t i = 0; i < ins.size(); ++i) {
      if (!needs[i] || !gin[i].defined()) continue;
      const Tensor& v = ins[i]->value;
      if (gin[i].shape() != v.shape() || gin[i].dtype() != v.dtype())
        throw Error(ErrorKind::Internal, "backward",
                    "a rule returned a cotangent of " + std::string(name(gin[i].dtype())) + " " +
                        to_string(gin[i].shape()) + " for an input of " +
                        std::string(name(v.dtype())) + " " + to_string(v.shape()));
      accumulate(ins[i]->pending, gin[i], engine);
    }
  }
  std::vector<Tensor> out;
  if (targets != nullptr) {
    for (Node* t : *targets) {
      out.push_back(t->pending.defined()
                        ? t->pending
                        : Tensor::zeros(t->value.shape(),
                                        TensorOptions(t->value.device(), t->value.dtype())));
    }
    for (Node* n : order) n->pending = Tensor();
  }
  return out;
}

std::vector<Tensor> run_forward(std::span<const NodePtr> outputs, Engine& engine) {
  const auto order = topological(outputs);
  const ClearPendingOnThrow guard{order};
  TensorBuilder b{engine};
  auto zeros_of = [](const Tensor& v) {
    return Tensor::zeros(v.shape(), TensorOptions(v.device(), v.dtype()));
  };
  std::vector<Tensor> t;
  for (Node* node : order) {
    if (node->leaf) continue;  // seeded variables carry their tangent already
    const auto ins = node->inputs();
    t.clear();
    for (const auto& in : ins)
      t.push_back(in->pending.defined() ? in->pending : zeros_of(in->value));
    node->pending = node->jvp(b, t);
  }
  std::vector<Tensor> out;
  for (const auto& o : outputs) {
    out.push_back(o->requires_grad && o->pending.defined() ? o->pending : zeros_of(o->value));
  }
  for (Node* n : order) n->pending = Tensor();
  return out;
}

void release_inputs(Node& dying) {
  std::vector<NodePtr> pending;
  dying.take_inputs(pending);
  while (!pending.empty()) {
    NodePtr n = std::move(pending.back());
    pending.pop_back();
    if (n.use_count() == 1) n->take_inputs(pending);  // the last reference: it dies below, bare
  }
}

}  // namespace tensora::eager_detail

namespace tensora {

using eager_detail::Node;

namespace {
[[noreturn]] void empty_handle(const char* op) {
  throw Error(ErrorKind::InvalidArgument, op, "the eager tensor is empty (default-constructed)",
              InvalidArgument{"tensor"});
}
}  // namespace

const Tensor& EagerTensor::value() const {
  if (!node_) empty_handle("value");
  return node_->value;
}
bool EagerTensor::requires_grad() const {
  return node_ && node_->requires_grad;
}
bool EagerTensor::is_leaf() const {
  return node_ && node_->leaf;
}

void EagerTensor::backward() const {
  EagerSession* s = EagerSession::active();
  if (s == nullptr)
    throw Error(ErrorKind::InvalidArgument, "backward",
                "needs an engine: call it inside with_eager_session or pass one (backward(engine))",
                InvalidArgument{"engine"});
  backward(s->engine());
}

void EagerTensor::backward(Engine& engine) const {
  const Tensor& v = value();
  if (v.numel() != 1)
    throw Error(ErrorKind::Validation, "backward",
                "needs a one-element result, got shape " + to_string(v.shape()) +
                    "; reduce it first (sum, mean) or use vjp with a cotangent",
                ShapeMismatch{{}, v.shape()});
  if (!is_floating(v.dtype()))
    throw Error(ErrorKind::Validation, "backward",
                "needs a real float result, got " + std::string(name(v.dtype())) +
                    "; take real() or abs() of a complex loss first",
                UnsupportedDType{v.dtype()});
  if (!node_->requires_grad)
    throw Error(
        ErrorKind::InvalidArgument, "backward",
        "the result does not depend on any variable (made with constant_from, detach(), under "
        "NoGradGuard, or through a non-differentiable op)",
        InvalidArgument{"tensor"});
  const Tensor seed = Tensor::ones(v.shape(), TensorOptions(v.device(), v.dtype()));
  const eager_detail::NodePtr roots[1] = {node_};
  eager_detail::run_backward(roots, {&seed, 1}, engine, nullptr);
}

Tensor EagerTensor::grad() const {
  const Tensor& v = value();
  if (!node_->leaf || !node_->requires_grad)
    throw Error(ErrorKind::InvalidArgument, "grad",
                "only variables (variable_from) keep a gradient; this tensor is " +
                    std::string(node_->leaf ? "a constant" : "an intermediate result"),
                InvalidArgument{"tensor"});
  if (node_->grad.defined()) return node_->grad;
  return Tensor::zeros(v.shape(), TensorOptions(v.device(), v.dtype()));
}
bool EagerTensor::has_grad() const {
  return node_ && node_->grad.defined();
}
void EagerTensor::clear_grad() const {
  if (node_) node_->grad = Tensor();
}
EagerTensor EagerTensor::detach() const {
  return EagerTensor(std::make_shared<Node>(value(), false));
}

NoGradGuard::NoGradGuard() : previous_(eager_detail::grad_mode()) {
  eager_detail::grad_mode() = false;
}
NoGradGuard::~NoGradGuard() {
  eager_detail::grad_mode() = previous_;
}
bool grad_enabled() {
  return eager_detail::grad_mode();
}

struct EagerRuntime::Variables {
  std::vector<std::weak_ptr<Node>> nodes;
};

EagerRuntime::EagerRuntime() : variables_(std::make_unique<Variables>()) {}
EagerRuntime::~EagerRuntime() = default;

EagerTensor EagerRuntime::constant_from(const Tensor& value) {
  if (!value.defined()) empty_handle("constant_from");
  return EagerTensor(std::make_shared<Node>(value, false));
}

EagerTensor EagerRuntime::variable_from(const Tensor& value) {
  if (!value.defined()) empty_handle("variable_from");
  if (!is_inexact(value.dtype()))
    throw Error(ErrorKind::InvalidArgument, "variable_from",
                "dtype " + std::string(name(value.dtype())) +
                    " has no gradient; variables must be float or complex (cast first, or use "
                    "constant_from)",
                InvalidArgument{"tensor"});
  auto node = std::make_shared<Node>(value, true);
  auto& nodes = variables_->nodes;
  // Forget dropped variables now and then so the list stays as long as the live ones.
  if (nodes.size() >= 64 && (nodes.size() & (nodes.size() - 1)) == 0)
    std::erase_if(nodes, [](const std::weak_ptr<Node>& w) { return w.expired(); });
  nodes.push_back(node);
  return EagerTensor(std::move(node));
}

void EagerRuntime::clear_grads() {
  for (const auto& w : variables_->nodes)
    if (auto n = w.lock()) n->grad = Tensor();
}

}  // namespace tensora
