// Traced contractions: matmul is a dot_general node (after broadcast_to of batch axes, as the
// direct matmul does); einsum keeps its contraction path from build time. dot_general and
// einsum share the eager einsum rule over integer labels.
#include "ad/contraction_rules.hpp"
#include "core/checks.hpp"
#include "graph/graph_builder.hpp"
#include "ops/inference.hpp"
#include "tensora/eager.hpp"
#include "tensora/einsum.hpp"

namespace tensora {

namespace graph_detail {

namespace {

// dot_general as einsum labels: lhs axes are 0..r-1, rhs batch/contracting axes reuse the lhs
// label they pair with, rhs free axes get new labels; the output is [batch, lhs free, rhs free].
ad::EinsumRule dot_general_rule(std::int64_t lhs_rank, std::int64_t rhs_rank, const DotGeneralConfig& c) {
  Labels lhs(static_cast<std::size_t>(lhs_rank)), rhs(static_cast<std::size_t>(rhs_rank), -1);
  for (std::int64_t d = 0; d < lhs_rank; ++d) lhs[static_cast<std::size_t>(d)] = d;
  auto norm = [](std::int64_t d, std::int64_t r) { return d < 0 ? d + r : d; };
  for (std::size_t i = 0; i < c.rhs_batch_dims.size(); ++i)
    rhs[static_cast<std::size_t>(norm(c.rhs_batch_dims[i], rhs_rank))] = norm(c.lhs_batch_dims[i], lhs_rank);
  for (std::size_t i = 0; i < c.rhs_contracting_dims.size(); ++i)
    rhs[static_cast<std::size_t>(norm(c.rhs_contracting_dims[i], rhs_rank))] =
        norm(c.lhs_contracting_dims[i], lhs_rank);
  std::int64_t next = lhs_rank;
  Labels out;
  for (auto d : c.lhs_batch_dims) out.push_back(norm(d, lhs_rank));
  for (std::int64_t d = 0; d < lhs_rank; ++d) {
    const bool paired = std::any_of(c.lhs_batch_dims.begin(), c.lhs_batch_dims.end(),
                                    [&](auto x) { return norm(x, lhs_rank) == d; }) ||
                        std::any_of(c.lhs_contracting_dims.begin(), c.lhs_contracting_dims.end(),
                                    [&](auto x) { return norm(x, lhs_rank) == d; });
    if (!paired) out.push_back(d);
  }
  for (auto& l : rhs)
    if (l < 0) {
      l = next++;
      out.push_back(l);
    }
  return ad::EinsumRule{{lhs, rhs}, out};
}

std::string config_text(const DotGeneralConfig& c) {
  std::string s = "contract=" + axes_text(c.lhs_contracting_dims) + "x" + axes_text(c.rhs_contracting_dims);
  if (!c.lhs_batch_dims.empty()) s += ", batch=" + axes_text(c.lhs_batch_dims) + "x" + axes_text(c.rhs_batch_dims);
  return s;
}

std::string letters(const Labels& labels) {
  static constexpr std::string_view kAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  std::string s;
  for (auto l : labels) {
    if (l < 0 || l >= static_cast<std::int64_t>(kAlphabet.size()))
      throw Error(ErrorKind::Unsupported, "einsum", "traced einsum supports at most 52 distinct labels");
    s += kAlphabet[static_cast<std::size_t>(l)];
  }
  return s;
}

}  // namespace

TracedTensor dot_general_node(const TracedTensor& lhs, const TracedTensor& rhs, DotGeneralConfig config, Loc where) {
  check_operands("dot_general", {&lhs, &rhs}, where);
  infer::contraction_dtypes("dot_general", lhs.dtype(), rhs.dtype(), where);
  Node n;
  n.kind = OpKind::DotGeneral;
  n.op = "dot_general";
  n.attrs = config_text(config);
  n.shape = infer::dot_general(meta_of(lhs), meta_of(rhs), config, where);
  n.dtype = lhs.dtype();
  n.device = lhs.device();
  n.where = where;
  n.inputs = {lhs.node(), rhs.node()};
  n.config = config;
  n.exec = [config, where](std::span<const Tensor> in, Engine& e) { return in[0].dot_general(in[1], config, e, where); };
  if (is_inexact(n.dtype)) n.rule = rule_of(dot_general_rule(lhs.rank(), rhs.rank(), config));
  return make_traced(std::move(n));
}

TracedTensor einsum_labels(std::vector<Labels> inputs, Labels output, std::vector<TracedTensor> operands, Loc where) {
  std::string subscripts;
  std::vector<Shape> shapes;
  for (std::size_t i = 0; i < operands.size(); ++i) {
    check_operands("einsum", {&operands[i], &operands.front()}, where);
    check::same_dtype("einsum", operands.front().dtype(), operands[i].dtype(), where);
    subscripts += (i ? "," : "") + letters(inputs[i]);
    shapes.push_back(operands[i].shape());
  }
  subscripts += "->" + letters(output);
  const EinsumPath path = einsum_path(subscripts, shapes, where);
  Node n;
  n.op = "einsum";
  n.attrs = "\"" + subscripts + "\"";
  for (auto l : path.output) n.shape.push_back(path.extents.at(l));
  n.dtype = operands.front().dtype();
  n.device = operands.front().device();
  n.where = where;
  for (const auto& x : operands) n.inputs.push_back(x.node());
  n.exec = [inputs, output, where](std::span<const Tensor> in, Engine& e) {
    return tensora::einsum(inputs, output, std::vector<Tensor>(in.begin(), in.end()), e, where);
  };
  if (is_inexact(n.dtype)) n.rule = rule_of(ad::EinsumRule{inputs, output});
  return make_traced(std::move(n));
}

}  // namespace graph_detail

using namespace graph_detail;  // NOLINT: this file is the layer's front

TracedTensor TracedTensor::dot_general(const TracedTensor& rhs, DotGeneralConfig config, Loc where) const {
  check_operands("dot_general", {this, &rhs}, where);
  const DType target = eager_input_promotion_plan("dot_general", {dtype(), rhs.dtype()}, device())[0];
  return dot_general_node(convert_to(*this, target, where), convert_to(rhs, target, where), std::move(config),
                          where);
}

TracedTensor TracedTensor::matmul(const TracedTensor& rhs, Loc where) const {
  check_operands("matmul", {this, &rhs}, where);
  const DType target = eager_input_promotion_plan("matmul", {dtype(), rhs.dtype()}, device())[0];
  TracedTensor a = convert_to(*this, target, where), b = convert_to(rhs, target, where);
  infer::contraction_dtypes("matmul", a.dtype(), b.dtype(), where);
  const infer::MatmulForm f = infer::matmul(meta_of(a), meta_of(b), where);
  if (f.lhs_shape != a.shape()) a = a.broadcast_to(f.lhs_shape, where);
  if (f.rhs_shape != b.shape()) b = b.broadcast_to(f.rhs_shape, where);
  return dot_general_node(a, b, f.config, where);
}

TracedTensor einsum(std::string_view subscripts, std::vector<TracedTensor> operands, SourceLocation where) {
  if (operands.empty()) check::fail_invalid("einsum", "needs at least one operand", "operands", where);
  std::vector<DType> dtypes;
  for (const auto& x : operands) {
    check_operands("einsum", {&x, &operands.front()}, where);
    dtypes.push_back(x.dtype());
  }
  const DType target = eager_input_promotion_plan("einsum", dtypes, operands.front().device())[0];
  std::vector<Shape> shapes;
  for (auto& x : operands) {
    x = convert_to(x, target, where);
    shapes.push_back(x.shape());
  }
  if (target == DType::Bool)
    check::fail_unsupported_dtype("einsum", DType::Bool, "cast Bool operands to an integer or float dtype first",
                                  where);
  const EinsumPath path = einsum_path(subscripts, shapes, where);
  // A repeated label in one operand (ii, iij) becomes a diagonal node first
  // (ad::take_repeated_labels), so the graph is differentiable whatever is asked of it later.
  std::vector<Labels> inputs = path.inputs;
  bool rewritten = false;
  for (std::size_t i = 0; i < operands.size(); ++i)
    rewritten = ad::take_repeated_labels(inputs[i], [&](std::int64_t p, std::int64_t q) {
                  operands[i] = operands[i].diagonal(0, p, q, where);
                }) || rewritten;
  if (rewritten) return einsum_labels(std::move(inputs), path.output, std::move(operands), where);
  Node n;
  n.op = "einsum";
  n.attrs = "\"" + std::string(subscripts) + "\"";
  for (auto l : path.output) n.shape.push_back(path.extents.at(l));
  n.dtype = target;
  n.device = operands.front().device();
  n.where = where;
  for (const auto& x : operands) n.inputs.push_back(x.node());
  n.exec = [path, where](std::span<const Tensor> in, Engine& e) {
    return tensora::einsum(path, std::vector<Tensor>(in.begin(), in.end()), e, where);
  };
  if (is_inexact(target)) n.rule = rule_of(ad::EinsumRule{path.inputs, path.output});
  return make_traced(std::move(n));
}

}  // namespace tensora
