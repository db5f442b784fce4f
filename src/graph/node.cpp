// Node identity, the TracedTensor accessors, placeholders and constants.
#include <atomic>
#include <sstream>

#include "core/checks.hpp"
#include "core/dispatch.hpp"
#include "core/format.hpp"
#include "core/storage.hpp"
#include "core/tensor_internals.hpp"
#include "graph/graph_builder.hpp"
#include "ops/lapack_dtypes.hpp"
#include "ops/validate.hpp"

namespace tensora {

namespace graph_detail {

std::uint64_t next_node_id() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

TracedTensor make_traced(Node node) {
  node.id = next_node_id();
  return TracedTensor(std::make_shared<Node>(std::move(node)));
}

NodePtr with_inputs(const Node& node, std::vector<NodePtr> inputs) {
  Node copy = node;
  copy.inputs = std::move(inputs);
  return std::make_shared<Node>(std::move(copy));
}

void check_operands(std::string_view op, std::initializer_list<const TracedTensor*> xs, Loc where) {
  const TracedTensor* first = nullptr;
  for (const auto* x : xs) {
    if (!x->defined())
      check::fail_invalid(op, "a traced operand is empty (default-constructed)", "tensor", where);
    if (first == nullptr) first = x;
    else if (x->device() != first->device())
      check::fail_device_mismatch(op, first->device(), x->device(), where);
  }
}

Node::~Node() {
  std::vector<NodePtr> pending = std::move(inputs);
  while (!pending.empty()) {
    NodePtr n = std::move(pending.back());
    pending.pop_back();
    if (n.use_count() != 1) continue;
    // The last reference: take its inputs so that it dies bare. Nodes are created non-const
    // (make_shared<Node>) and only handed out as const, so this write is to a dying object.
    auto& ins = const_cast<Node&>(*n).inputs;
    for (auto& in : ins) pending.push_back(std::move(in));
    ins.clear();
  }
}

Tensor meta_of(const TracedTensor& x) { return Tensor::meta(x.shape(), x.dtype(), x.device()); }

std::string axes_text(std::span<const std::int64_t> v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

TracedTensor convert_to(const TracedTensor& x, DType dtype, Loc where) {
  return x.dtype() == dtype ? x : convert_node(x, dtype, where);
}

TracedTensor lapack_operand(std::string_view op, const TracedTensor& x, Loc where) {
  check_operands(op, {&x}, where);
  return convert_to(x, promoted_to_lapack_dtype(x.dtype(), x.device().settings().float_dtype), where);
}

namespace {

// Small constants are named by value (so equal scalars merge under CSE), large ones by identity.
std::string constant_attrs(const Tensor& v) {
  if (v.numel() <= 8) {
    std::string s;
    visit_dtype(v.dtype(), [&]<class T>() {
      const Tensor c = v.contiguous();
      const T* p = static_cast<const T*>(c.element_ptr());
      for (std::int64_t i = 0; i < c.numel(); ++i) s += (i ? ", " : "") + format_element(p[i]);
    });
    return v.rank() == 0 ? s : "[" + s + "]";
  }
  std::ostringstream os;
  os << "#" << static_cast<const void*>(TensorInternals::storage(v).get()) << "+" << v.offset() << axes_text(v.strides());
  return os.str();
}

}  // namespace

TracedTensor constant_node(const Tensor& value, Loc where) {
  Node n;
  n.kind = OpKind::Constant;
  n.op = "constant";
  n.attrs = constant_attrs(value);
  n.dtype = value.dtype();
  n.shape = value.shape();
  n.device = value.device();
  n.where = where;
  n.value = value;
  n.exec = [value](std::span<const Tensor>, Engine&) { return value; };
  return make_traced(std::move(n));
}

TracedTensor scalar_constant(std::string_view op, const Scalar& value, DType dtype, Device device, Loc where) {
  return constant_node(validate::weak_scalar(op, value, dtype, device, where), where);
}

TracedTensor zeros_node(const Shape& shape, DType dtype, Device device, Loc where) {
  check::valid_shape("zeros", shape, where);
  Node n;
  n.op = "zeros";
  n.dtype = dtype;
  n.shape = shape;
  n.device = device;
  n.where = where;
  n.exec = [shape, dtype, device, where](std::span<const Tensor>, Engine&) {
    return Tensor::zeros(shape, TensorOptions(device, dtype), where);
  };
  return make_traced(std::move(n));
}

TracedTensor indices_constant(const std::vector<std::int64_t>& values, Device device, Loc where) {
  return constant_node(Tensor::from_ints(values, TensorOptions(device, DType::I64), where), where);
}

}  // namespace graph_detail

using namespace graph_detail;  // NOLINT: this file is the layer's front

TracedTensor TracedTensor::input(std::string name, DType dtype, Shape shape, Loc where) {
  return input(std::move(name), dtype, std::move(shape), Device::default_device(), where);
}

TracedTensor TracedTensor::input(std::string name, DType dtype, Shape shape, Device device, Loc where) {
  check::valid_shape("input", shape, where);
  if (name.empty()) check::fail_invalid("input", "a placeholder needs a name", "name", where);
  if (!device.supports(dtype))
    check::fail_unsupported_dtype("input", dtype, "not supported on " + device.to_string(), where);
  Node n;
  n.kind = OpKind::Input;
  n.op = "input";
  n.attrs = "\"" + name + "\"";
  n.name = std::move(name);
  n.dtype = dtype;
  n.shape = std::move(shape);
  n.device = device;
  n.where = where;
  return make_traced(std::move(n));
}

TracedTensor TracedTensor::constant(const Tensor& value, Loc where) {
  if (!value.defined()) check::fail_invalid("constant", "the tensor is empty", "tensor", where);
  return constant_node(value, where);
}

namespace {
const Node& checked(const std::shared_ptr<const Node>& n, const char* what) {
  if (n == nullptr)
    throw Error(ErrorKind::InvalidArgument, what, "the traced tensor is empty (default-constructed)",
                InvalidArgument{"tensor"});
  return *n;
}
}  // namespace

DType TracedTensor::dtype() const { return checked(node_, "dtype").dtype; }
const Shape& TracedTensor::shape() const { return checked(node_, "shape").shape; }
Device TracedTensor::device() const { return checked(node_, "device").device; }
std::string_view TracedTensor::op() const { return checked(node_, "op").op; }

}  // namespace tensora
