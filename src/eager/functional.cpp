// vjp / jvp / grad: functions of eager tensors, evaluated on fresh variables made from primals.
#include "core/checks.hpp"
#include "eager/node.hpp"

namespace tensora {

using eager_detail::Node;
using eager_detail::NodePtr;

namespace {

std::vector<EagerTensor> fresh_variables(const char* op, const std::vector<Tensor>& primals,
                                         Engine& e) {
  std::vector<EagerTensor> vars;
  for (std::size_t i = 0; i < primals.size(); ++i) {
    const Tensor& p = primals[i];
    if (!p.defined())
      check::fail_invalid(op, "primal " + std::to_string(i) + " is empty", "primals",
                          SourceLocation::current());
    if (p.device() != e.device())
      check::fail_device_mismatch(op, e.device(), p.device(), SourceLocation::current());
    if (!is_inexact(p.dtype()))
      throw Error(ErrorKind::InvalidArgument, op,
                  "primal " + std::to_string(i) + " has dtype " + std::string(name(p.dtype())) +
                      ", which has no gradient; primals must be float or complex",
                  InvalidArgument{"primals"});
    vars.emplace_back(std::make_shared<Node>(p, true));
  }
  return vars;
}

// The companion tensor (cotangent / tangent) must match its value in shape and dtype.
void check_like(const char* op, const char* what, std::size_t i, const Tensor& t,
                const Tensor& like) {
  if (!t.defined() || t.shape() != like.shape() || t.dtype() != like.dtype())
    throw Error(
        ErrorKind::Validation, op,
        std::string(what) + " " + std::to_string(i) + " must have shape " +
            to_string(like.shape()) + " and dtype " + std::string(name(like.dtype())) +
            (t.defined() ? ", got " + to_string(t.shape()) + " " + std::string(name(t.dtype()))
                         : ", got an empty tensor"),
        ShapeMismatch{like.shape(), t.defined() ? t.shape() : Shape{}});
}

void check_count(const char* op, const char* what, std::size_t got, std::size_t want) {
  if (got != want)
    throw Error(ErrorKind::InvalidArgument, op,
                "expected " + std::to_string(want) + " " + what + ", got " + std::to_string(got),
                InvalidArgument{what});
}

// With `cotangents` null, f's first output must be a one-element real value seeded with one.
VjpResult vjp_impl(const char* op, EagerSession& s, const EagerFunction& f,
                   const std::vector<Tensor>& primals, const std::vector<Tensor>* cotangents) {
  const auto vars = fresh_variables(op, primals, s.engine());
  auto outs = f(s, vars);
  std::vector<Tensor> seeds;
  if (cotangents == nullptr) {
    if (outs.empty())
      throw Error(ErrorKind::InvalidArgument, op, "the function returned no output",
                  InvalidArgument{"f"});
    outs.resize(1);
    const Tensor& v = outs.front().value();
    if (v.numel() != 1 || !is_floating(v.dtype()))
      throw Error(ErrorKind::Validation, op,
                  "the function's first output must be a one-element real float value, got " +
                      std::string(name(v.dtype())) + " " + to_string(v.shape()),
                  ShapeMismatch{{}, v.shape()});
    seeds.push_back(Tensor::ones(v.shape(), TensorOptions(v.device(), v.dtype())));
  } else {
    check_count(op, "cotangents", cotangents->size(), outs.size());
    seeds = *cotangents;
  }
  std::vector<NodePtr> roots;
  VjpResult r;
  for (std::size_t i = 0; i < outs.size(); ++i) {
    check_like(op, "cotangent", i, seeds[i], outs[i].value());
    roots.push_back(outs[i].node());
    r.outputs.push_back(outs[i].value());
  }
  std::vector<Node*> targets;
  for (const auto& v : vars) targets.push_back(v.node().get());
  r.cotangents = eager_detail::run_backward(roots, seeds, s.engine(), &targets);
  return r;
}

}  // namespace

VjpResult vjp(EagerSession& s, const EagerFunction& f, const std::vector<Tensor>& primals,
              const std::vector<Tensor>& cotangents) {
  return vjp_impl("vjp", s, f, primals, &cotangents);
}

JvpResult jvp(EagerSession& s, const EagerFunction& f, const std::vector<Tensor>& primals,
              const std::vector<Tensor>& tangents) {
  check_count("jvp", "tangents", tangents.size(), primals.size());
  for (std::size_t i = 0; i < primals.size(); ++i)
    if (primals[i].defined()) check_like("jvp", "tangent", i, tangents[i], primals[i]);
  const auto vars = fresh_variables("jvp", primals, s.engine());
  for (std::size_t i = 0; i < vars.size(); ++i) vars[i].node()->pending = tangents[i];
  std::vector<EagerTensor> outs;
  try {
    outs = f(s, vars);
  } catch (...) {
    for (const auto& v : vars) v.node()->pending = Tensor();
    throw;
  }
  std::vector<NodePtr> roots;
  JvpResult r;
  for (const auto& o : outs) {
    roots.push_back(o.node());
    r.outputs.push_back(o.value());
  }
  r.tangents = eager_detail::run_forward(roots, s.engine());
  for (const auto& v : vars) v.node()->pending = Tensor();
  return r;
}

std::function<std::vector<Tensor>(EagerSession&, const std::vector<Tensor>&)> grad(
    EagerFunction f) {
  return [f = std::move(f)](EagerSession& s, const std::vector<Tensor>& primals) {
    return vjp_impl("grad", s, f, primals, nullptr).cotangents;
  };
}

}  // namespace tensora
