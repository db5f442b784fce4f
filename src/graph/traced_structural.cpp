// Traced structural and indexing ops. View ops infer by running the direct view on a shape
// proxy (the same checks and the same result shape); the others use ops/inference.hpp.
#include <array>
#include <numeric>

#include "ad/structural_rules.hpp"
#include "core/checks.hpp"
#include "graph/graph_builder.hpp"
#include "ops/inference.hpp"
#include "tensora/eager.hpp"

namespace tensora {

namespace graph_detail {

namespace {

Node structural(std::string_view op, std::string attrs, const Shape& shape, std::vector<const TracedTensor*> ins,
                Loc where) {
  Node n;
  n.op = std::string(op);
  n.attrs = std::move(attrs);
  n.dtype = ins.front()->dtype();
  n.shape = shape;
  n.device = ins.front()->device();
  n.where = where;
  for (const auto* x : ins) n.inputs.push_back(x->node());
  return n;
}

// A node whose differentiability follows its (first) input's dtype.
template <class R>
TracedTensor finish(Node n, R rule) {
  if (is_inexact(n.dtype)) n.rule = rule_of(std::move(rule));
  return make_traced(std::move(n));
}

std::string widths_text(const std::vector<std::pair<std::int64_t, std::int64_t>>& w) {
  std::string s = "[";
  for (std::size_t i = 0; i < w.size(); ++i)
    s += (i ? ", " : "") + std::string("(") + std::to_string(w[i].first) + ", " + std::to_string(w[i].second) + ")";
  return s + "]";
}

std::string opt_text(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "none"; }

}  // namespace

TracedTensor permute_node(const TracedTensor& x, Axes axes, Loc where) {
  check_operands("permute", {&x}, where);
  const Tensor view = meta_of(x).permute(axes, where);  // validates the axes
  for (auto& a : axes) a = ad::normalize_axis(a, x.rank());
  Node n = structural("permute", "axes=" + axes_text(axes), view.shape(), {&x}, where);
  n.kind = OpKind::Permute;
  n.axes = axes;
  n.exec = [axes, where](std::span<const Tensor> in, Engine&) { return in[0].permute(axes, where); };
  return finish(std::move(n), ad::PermuteRule{axes});
}

}  // namespace graph_detail

using namespace graph_detail;  // NOLINT: this file is the layer's front

TracedTensor TracedTensor::reshape(Shape shape, Loc where) const {
  check_operands("reshape", {this}, where);
  const Shape out = meta_of(*this).reshape(shape, where).shape();
  Node n = structural("reshape", "shape=" + to_string(out), out, {this}, where);
  n.exec = [out, where](std::span<const Tensor> in, Engine&) { return in[0].reshape(out, where); };
  return finish(std::move(n), ad::ReshapeRule{});
}

TracedTensor TracedTensor::squeeze(Axes axes, Loc where) const {
  check_operands("squeeze", {this}, where);
  const Shape out = meta_of(*this).squeeze(axes, where).shape();
  Node n = structural("squeeze", "axes=" + axes_text(axes), out, {this}, where);
  n.exec = [axes, where](std::span<const Tensor> in, Engine&) { return in[0].squeeze(axes, where); };
  return finish(std::move(n), ad::ReshapeRule{});
}

TracedTensor TracedTensor::unsqueeze(std::int64_t axis, Loc where) const {
  check_operands("unsqueeze", {this}, where);
  const Shape out = meta_of(*this).unsqueeze(axis, where).shape();
  Node n = structural("unsqueeze", "axis=" + std::to_string(axis), out, {this}, where);
  n.exec = [axis, where](std::span<const Tensor> in, Engine&) { return in[0].unsqueeze(axis, where); };
  return finish(std::move(n), ad::ReshapeRule{});
}

TracedTensor TracedTensor::permute(Axes axes, Loc where) const { return permute_node(*this, std::move(axes), where); }

TracedTensor TracedTensor::transpose(Loc where) const {
  check_operands("transpose", {this}, where);
  Axes axes;
  for (std::int64_t d = rank() - 1; d >= 0; --d) axes.push_back(d);
  return permute_node(*this, std::move(axes), where);
}

TracedTensor TracedTensor::transpose(std::int64_t a, std::int64_t b, Loc where) const {
  check_operands("transpose", {this}, where);
  (void)meta_of(*this).transpose(a, b, where);  // validates the axes
  Axes axes(static_cast<std::size_t>(rank()));
  std::iota(axes.begin(), axes.end(), 0);
  std::swap(axes[static_cast<std::size_t>(ad::normalize_axis(a, rank()))],
            axes[static_cast<std::size_t>(ad::normalize_axis(b, rank()))]);
  return permute_node(*this, std::move(axes), where);
}

TracedTensor TracedTensor::broadcast_to(Shape shape, Loc where) const {
  check_operands("broadcast_to", {this}, where);
  const Shape out = meta_of(*this).broadcast_to(shape, where).shape();
  Node n = structural("broadcast_to", "shape=" + to_string(out), out, {this}, where);
  n.exec = [out, where](std::span<const Tensor> in, Engine&) { return in[0].broadcast_to(out, where); };
  return finish(std::move(n), ad::BroadcastRule{});
}

TracedTensor TracedTensor::slice(std::int64_t axis, std::optional<std::int64_t> start,
                                 std::optional<std::int64_t> stop, std::int64_t step, Loc where) const {
  check_operands("slice", {this}, where);
  const Shape out = meta_of(*this).slice(axis, start, stop, step, where).shape();  // validates
  const std::int64_t ax = ad::normalize_axis(axis, rank());
  Node n = structural("slice",
                      "axis=" + std::to_string(ax) + ", start=" + opt_text(start) + ", stop=" + opt_text(stop) +
                          ", step=" + std::to_string(step),
                      out, {this}, where);
  n.exec = [ax, start, stop, step, where](std::span<const Tensor> in, Engine&) {
    return in[0].slice(ax, start, stop, step, where);
  };
  return finish(std::move(n), ad::SliceRule::of(ax, shape()[static_cast<std::size_t>(ax)], start, stop, step));
}

std::vector<TracedTensor> TracedTensor::split(std::vector<std::int64_t> sizes, std::int64_t axis, Loc where) const {
  check_operands("split", {this}, where);
  (void)meta_of(*this).split(sizes, axis, where);  // validates sizes and axis
  std::vector<TracedTensor> pieces;
  std::int64_t at = 0;
  for (auto n : sizes) {
    pieces.push_back(slice(axis, at, at + n, 1, where));
    at += n;
  }
  return pieces;
}

TracedTensor TracedTensor::reverse(Axes axes, Loc where) const {
  check_operands("reverse", {this}, where);
  const Shape out = meta_of(*this).reverse(axes, where).shape();
  Node n = structural("reverse", "axes=" + axes_text(axes), out, {this}, where);
  n.exec = [axes, where](std::span<const Tensor> in, Engine&) { return in[0].reverse(axes, where); };
  return finish(std::move(n), ad::ReverseRule{axes});
}

TracedTensor TracedTensor::diagonal(std::int64_t offset, std::int64_t axis1, std::int64_t axis2, Loc where) const {
  check_operands("diagonal", {this}, where);
  const Shape out = meta_of(*this).diagonal(offset, axis1, axis2, where).shape();
  Node n = structural("diagonal",
                      "offset=" + std::to_string(offset) + ", axes=" + axes_text(std::array<std::int64_t, 2>{axis1, axis2}), out, {this}, where);
  n.exec = [offset, axis1, axis2, where](std::span<const Tensor> in, Engine&) {
    return in[0].diagonal(offset, axis1, axis2, where);
  };
  return finish(std::move(n), ad::DiagonalRule{offset, ad::normalize_axis(axis1, rank()),
                                               ad::normalize_axis(axis2, rank())});
}

TracedTensor TracedTensor::pad(std::vector<std::pair<std::int64_t, std::int64_t>> widths, PadOptions options,
                               Loc where) const {
  check_operands("pad", {this}, where);
  const Shape out = infer::pad(meta_of(*this), widths, options, where);
  std::string attrs = "widths=" + widths_text(widths);
  if (options.mode == PadMode::Edge) attrs += ", mode=edge";
  if (options.mode == PadMode::Reflect) attrs += ", mode=reflect";
  if (options.mode == PadMode::Constant && options.value) attrs += ", value=" + options.value->to_string();
  Node n = structural("pad", attrs, out, {this}, where);
  n.exec = [widths, options, where](std::span<const Tensor> in, Engine& e) { return in[0].pad(widths, options, e, where); };
  if (options.mode != PadMode::Constant)
    return finish(std::move(n), ad::GatherPadRule{widths, options.mode == PadMode::Reflect});
  return finish(std::move(n), ad::PadRule{widths});
}

TracedTensor TracedTensor::take_along_axis(const TracedTensor& indices, std::int64_t axis, Loc where) const {
  check_operands("take_along_axis", {this, &indices}, where);
  const Shape out = infer::take_along_axis("take_along_axis", meta_of(*this), meta_of(indices), axis, where);
  Node n = structural("take_along_axis", "axis=" + std::to_string(axis), out, {this, &indices}, where);
  n.exec = [axis, where](std::span<const Tensor> in, Engine& e) { return in[0].take_along_axis(in[1], axis, e, where); };
  return finish(std::move(n), ad::TakeAlongAxisRule{ad::normalize_axis(axis, rank())});
}

TracedTensor TracedTensor::index_select(std::int64_t axis, const TracedTensor& indices, Loc where) const {
  check_operands("index_select", {this, &indices}, where);
  const Shape out = infer::index_select(meta_of(*this), axis, meta_of(indices), where);
  Node n = structural("index_select", "axis=" + std::to_string(axis), out, {this, &indices}, where);
  n.exec = [axis, where](std::span<const Tensor> in, Engine& e) { return in[0].index_select(axis, in[1], e, where); };
  return finish(std::move(n), ad::IndexSelectRule{ad::normalize_axis(axis, rank())});
}

TracedTensor TracedTensor::scatter_add(std::int64_t axis, const TracedTensor& indices, const TracedTensor& src,
                                       Loc where) const {
  check_operands("scatter_add", {this, &indices, &src}, where);
  const DType target = eager_input_promotion_plan("scatter_add", {dtype(), src.dtype()}, device())[0];
  const TracedTensor cx = convert_to(*this, target, where), cs = convert_to(src, target, where);
  infer::scatter_add(meta_of(cx), axis, meta_of(indices), meta_of(cs), where);
  Node n = structural("scatter_add", "axis=" + std::to_string(axis), cx.shape(), {&cx, &indices, &cs}, where);
  n.exec = [axis, where](std::span<const Tensor> in, Engine& e) {
    return in[0].scatter_add(axis, in[1], in[2], e, where);
  };
  return finish(std::move(n), ad::ScatterAddRule{ad::normalize_axis(axis, rank())});
}

TracedTensor TracedTensor::tril(std::int64_t k, Loc where) const {
  check_operands("tril", {this}, where);
  infer::triangle("tril", meta_of(*this), where);
  Node n = structural("tril", "k=" + std::to_string(k), shape(), {this}, where);
  n.exec = [k, where](std::span<const Tensor> in, Engine& e) { return in[0].tril(k, e, where); };
  return finish(std::move(n), ad::TriangleRule{true, k});
}

TracedTensor TracedTensor::triu(std::int64_t k, Loc where) const {
  check_operands("triu", {this}, where);
  infer::triangle("triu", meta_of(*this), where);
  Node n = structural("triu", "k=" + std::to_string(k), shape(), {this}, where);
  n.exec = [k, where](std::span<const Tensor> in, Engine& e) { return in[0].triu(k, e, where); };
  return finish(std::move(n), ad::TriangleRule{false, k});
}

TracedTensor TracedTensor::embed_diag(std::int64_t offset, Loc where) const {
  check_operands("embed_diag", {this}, where);
  const Shape out = infer::embed_diag(meta_of(*this), offset, where);
  Node n = structural("embed_diag", "offset=" + std::to_string(offset), out, {this}, where);
  n.exec = [offset, where](std::span<const Tensor> in, Engine& e) { return in[0].embed_diag(offset, e, where); };
  return finish(std::move(n), ad::EmbedDiagRule{offset});
}

namespace {

// The inputs promoted to their join (the eager plan of `op`).
std::vector<TracedTensor> joined(std::string_view op, std::vector<TracedTensor> xs, Loc where) {
  if (xs.empty()) check::fail_invalid(op, "needs at least one tensor", "tensors", where);
  std::vector<DType> dtypes;
  for (const auto& x : xs) {
    check_operands(op, {&xs.front(), &x}, where);
    dtypes.push_back(x.dtype());
  }
  const DType target = eager_input_promotion_plan(op, dtypes, xs.front().device())[0];
  for (auto& x : xs) x = convert_to(x, target, where);
  return xs;
}

std::vector<Tensor> proxies(const std::vector<TracedTensor>& xs) {
  std::vector<Tensor> p;
  for (const auto& x : xs) p.push_back(meta_of(x));
  return p;
}

}  // namespace

TracedTensor concat(std::vector<TracedTensor> xs, std::int64_t axis, SourceLocation where) {
  xs = joined("concat", std::move(xs), where);
  const Shape out = infer::concat(proxies(xs), axis, where);
  std::vector<const TracedTensor*> ins;
  for (const auto& x : xs) ins.push_back(&x);
  Node n = structural("concat", "axis=" + std::to_string(axis), out, ins, where);
  n.exec = [axis, where](std::span<const Tensor> in, Engine& e) {
    return tensora::concat(std::vector<Tensor>(in.begin(), in.end()), axis, e, where);
  };
  return finish(std::move(n), ad::ConcatRule{ad::normalize_axis(axis, static_cast<std::int64_t>(out.size()))});
}

// stack = concat of the inputs with a new extent-1 axis, as in eager.
TracedTensor stack(std::vector<TracedTensor> xs, std::int64_t axis, SourceLocation where) {
  xs = joined("stack", std::move(xs), where);
  (void)infer::stack(proxies(xs), axis, where);  // validates shapes and the axis
  const std::int64_t ax = axis < 0 ? axis + xs.front().rank() + 1 : axis;
  for (auto& x : xs) x = x.unsqueeze(ax, where);
  return concat(std::move(xs), ax, where);
}

}  // namespace tensora
