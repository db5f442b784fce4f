// GraphCompiler, Program and Runtime.
#include "graph/program.hpp"

#include <algorithm>
#include <ostream>
#include <unordered_map>
#include <unordered_set>

#include "core/checks.hpp"
#include "graph/fused_kernel.hpp"

namespace tensora {

namespace graph_detail {

Graph optimize(Graph g, const CompileOptions& o) {
  if (o.fold_convert_chains) g = fold_convert_chains(g);
  if (o.fold_transposes) g = fold_transposes(g);
  g = eliminate_dead_code(g);
  if (o.fold_constants) g = eliminate_dead_code(fold_constants(g));
  if (o.eliminate_common_subexpressions) g = eliminate_dead_code(eliminate_common_subexpressions(g));
  if (o.fuse_elementwise) g = eliminate_dead_code(fuse_elementwise(g));
  return g;
}

namespace {

std::shared_ptr<ProgramImpl> lower(Graph g, Device device) {
  auto p = std::make_shared<ProgramImpl>();
  p->device = device;
  std::unordered_map<const Node*, int> slot;
  int next = 0;
  for (const auto& in : g.inputs) {
    slot[in.get()] = next;
    p->input_slots.push_back(next++);
    p->inputs.push_back({in->name, in->dtype, in->shape});
  }
  std::unordered_map<int, std::size_t> last_reader;  // slot -> step index
  for (const auto& node : g.nodes) {
    if (node->kind == OpKind::Input) continue;
    ProgramImpl::Step step{node.get(), {}, next, {}};
    slot[node.get()] = next++;
    for (const auto& in : node->inputs) {
      const int s = slot.at(in.get());
      step.args.push_back(s);
      last_reader[s] = p->steps.size();
    }
    p->steps.push_back(std::move(step));
  }
  std::unordered_set<int> kept;  // outputs and inputs stay alive (inputs belong to the caller)
  for (const auto& o : g.outputs) {
    p->output_slots.push_back(slot.at(o.get()));
    kept.insert(p->output_slots.back());
  }
  for (int s : p->input_slots) kept.insert(s);
  for (const auto& [s, reader] : last_reader)
    if (!kept.count(s)) p->steps[reader].release.push_back(s);
  for (auto& step : p->steps) std::sort(step.release.begin(), step.release.end());
  p->num_slots = next;
  p->graph = std::move(g);
  return p;
}

[[noreturn]] void fail_input(std::string message, ErrorDetail detail, SourceLocation where) {
  throw Error(ErrorKind::Validation, "run", std::move(message), std::move(detail), where);
}

}  // namespace

}  // namespace graph_detail

using namespace graph_detail;  // NOLINT: this file is the layer's front

Program GraphCompiler::compile(std::vector<TracedTensor> outputs, SourceLocation where) {
  return compile(std::move(outputs), {}, where);
}

Program GraphCompiler::compile(std::vector<TracedTensor> outputs, std::vector<TracedTensor> inputs,
                               SourceLocation where) {
  if (outputs.empty()) check::fail_invalid("compile", "needs at least one output", "outputs", where);
  std::vector<NodePtr> outs, ins;
  for (const auto& o : outputs) {
    if (!o.defined()) check::fail_invalid("compile", "an output is empty (default-constructed)", "outputs", where);
    if (o.device() != outputs.front().device())
      check::fail_device_mismatch("compile", outputs.front().device(), o.device(), where);
    outs.push_back(o.node());
  }
  for (const auto& i : inputs) {
    if (!i.defined() || i.node()->kind != OpKind::Input)
      check::fail_invalid("compile", "the explicit inputs must be placeholders (TracedTensor::input)", "inputs", where);
    ins.push_back(i.node());
  }
  Graph g = collect(outs, ins);
  std::unordered_set<const Node*> listed;
  for (const auto& in : g.inputs) listed.insert(in.get());
  std::unordered_set<std::string> names;
  for (const auto& in : g.inputs)
    if (!names.insert(in->name).second)
      check::fail_invalid("compile", "two placeholders are named '" + in->name + "'; names must be unique", "inputs",
                          where);
  for (const auto& n : g.nodes)
    if (n->kind == OpKind::Input && !listed.count(n.get()))
      check::fail_invalid("compile", "the outputs need placeholder '" + n->name + "', which the inputs do not list",
                          "inputs", where);
  return Program(lower(optimize(std::move(g), options_), outputs.front().device()));
}

const ProgramImpl& Program::impl() const {
  if (impl_ == nullptr)
    throw Error(ErrorKind::InvalidArgument, "program", "the program is empty (default-constructed); compile one first",
                InvalidArgument{"program"});
  return *impl_;
}
const std::vector<ProgramInput>& Program::inputs() const { return impl().inputs; }
std::size_t Program::num_outputs() const { return impl().output_slots.size(); }
Device Program::device() const { return impl().device; }
std::string Program::to_string() const { return print(impl().graph, true); }

std::vector<Conversion> Program::conversions() const {
  std::vector<Conversion> out;
  for (const auto& n : impl().graph.nodes) {
    if (n->kind == OpKind::Convert || n->kind == OpKind::Cast)
      out.push_back({n->op, n->inputs[0]->dtype, n->dtype, n->where});
    if (n->kind == OpKind::Fused) {
      const auto& steps = n->fused->program.steps;
      for (std::size_t i = 0; i < steps.size(); ++i) {
        const auto& s = steps[i];
        if (s.kind != backend::FusedStep::Kind::Cast) continue;  // a convert or a cast
        // The source dtype: the argument's dtype (a step or an external input).
        const int a = s.args[0];
        const DType from = a >= 0 ? steps[static_cast<std::size_t>(a)].dtype
                                  : n->inputs[static_cast<std::size_t>(-a - 1)]->dtype;
        out.push_back({n->fused->ops[i], from, s.dtype, n->where});
      }
    }
  }
  return out;
}

std::size_t Program::count(std::string_view op) const {
  return static_cast<std::size_t>(std::count_if(impl().graph.nodes.begin(), impl().graph.nodes.end(),
                                                [&](const NodePtr& n) { return n->op == op; }));
}

std::ostream& operator<<(std::ostream& os, const Program& program) { return os << program.to_string(); }

std::vector<Tensor> Runtime::run(const Program& program, Engine& engine, std::vector<Tensor> inputs,
                                 SourceLocation where) const {
  const ProgramImpl& p = program.impl();
  if (engine.device() != p.device) check::fail_device_mismatch("run", p.device, engine.device(), where);
  if (inputs.size() != p.inputs.size()) {
    std::string names;
    for (std::size_t i = 0; i < p.inputs.size(); ++i) names += (i ? ", '" : "'") + p.inputs[i].name + "'";
    std::string what = "the program takes " + std::to_string(p.inputs.size()) + " inputs (" + names + "), got " +
                       std::to_string(inputs.size());
    if (inputs.size() < p.inputs.size()) what += ": missing '" + p.inputs[inputs.size()].name + "'";
    check::fail_invalid("run", what, "inputs", where);
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const ProgramInput& want = p.inputs[i];
    const Tensor& t = inputs[i];
    auto label = [&] { return "input " + std::to_string(i) + " ('" + want.name + "')"; };  // built on failure only
    if (!t.defined()) check::fail_invalid("run", label() + " is an empty tensor", want.name, where);
    if (t.dtype() != want.dtype)
      fail_input(label() + ": dtype mismatch: expected " + std::string(name(want.dtype)) + ", actual " +
                     std::string(name(t.dtype())),
                 DTypeMismatch{want.dtype, t.dtype()}, where);
    if (t.shape() != want.shape)
      fail_input(label() + ": shape mismatch: expected " + tensora::to_string(want.shape) + ", actual " +
                     tensora::to_string(t.shape()),
                 ShapeMismatch{want.shape, t.shape()}, where);
    if (t.device() != p.device)
      throw Error(ErrorKind::DeviceMismatch, "run",
                  label() + ": device mismatch: expected " + p.device.to_string() + ", actual " +
                      t.device().to_string() + "; move it with to_device()",
                  DeviceMismatch{p.device.to_string(), t.device().to_string()}, where);
  }
  std::vector<Tensor> slots(static_cast<std::size_t>(p.num_slots));
  for (std::size_t i = 0; i < inputs.size(); ++i) slots[static_cast<std::size_t>(p.input_slots[i])] = std::move(inputs[i]);
  std::vector<Tensor> args;
  for (const auto& step : p.steps) {
    args.clear();
    for (int s : step.args) args.push_back(slots[static_cast<std::size_t>(s)]);
    slots[static_cast<std::size_t>(step.slot)] = step.node->exec(args, engine);
    args.clear();
    for (int s : step.release) slots[static_cast<std::size_t>(s)] = Tensor();
  }
  std::vector<Tensor> out;
  out.reserve(p.output_slots.size());
  for (int s : p.output_slots) out.push_back(slots[static_cast<std::size_t>(s)]);
  return out;
}

}  // namespace tensora
