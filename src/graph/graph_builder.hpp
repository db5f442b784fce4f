// The AD builder of the traced front door: the method list of src/ad/builder.hpp, each adding a
// graph node (with its own rule, so gradient graphs are differentiable again). New nodes carry
// the location of the user's line that built the op being differentiated.
#pragma once

#include <optional>
#include <utility>

#include "ad/builder.hpp"
#include "graph/ops.hpp"
#include "tensora/linalg.hpp"

namespace tensora::graph_detail {

struct GraphBuilder {
  using Value = TracedTensor;
  using T = TracedTensor;
  Loc where = Loc::current();
  Device device = Device::cpu();

  Shape shape(const T& x) const { return x.shape(); }
  DType dtype(const T& x) const { return x.dtype(); }
  T unary(UnaryOp op, const T& x) { return unary_node(op, x, where); }
  T binary(BinaryOp op, const T& a, const T& b) { return binary_node(op, a, b, where); }
  T binary(BinaryOp op, const T& a, Scalar s) {
    return binary_node(op, a, scalar_constant(info(op).name, s, a.dtype(), a.device(), where), where);
  }
  T conj(const T& x) { return is_complex(x.dtype()) ? unary_node(UnaryOp::Conj, x, where) : x; }
  T zeros(const Shape& s, DType d) { return zeros_node(s, d, device, where); }
  T cast(const T& x, DType d) { return x.dtype() == d ? x : cast_node(x, d, where); }
  T select(const T& p, const T& a, const T& b) { return select_node(p, a, b, where); }
  T sum(const T& x, const ad::Axes& axes, bool keepdims) { return sum_node(x, axes, keepdims, where); }
  T cumsum(const T& x, std::int64_t axis) { return x.cumsum(axis, where); }
  T cumprod(const T& x, std::int64_t axis) { return x.cumprod(axis, where); }
  T reshape(const T& x, const Shape& s) { return x.shape() == s ? x : x.reshape(s, where); }
  T permute(const T& x, const ad::Axes& axes) { return permute_node(x, axes, where); }
  T broadcast_to(const T& x, const Shape& s) { return x.shape() == s ? x : x.broadcast_to(s, where); }
  T slice(const T& x, std::int64_t axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
          std::int64_t step) {
    return x.slice(axis, start, stop, step, where);
  }
  T pad(const T& x, const ad::Widths& w) { return x.pad(w, {}, where); }
  T reverse(const T& x, const ad::Axes& axes) { return x.reverse(axes, where); }
  T concat(std::vector<T> xs, std::int64_t axis) { return tensora::concat(std::move(xs), axis, where); }
  T matmul(const T& a, const T& b) { return a.matmul(b, where); }
  T einsum(std::vector<ad::Labels> in, ad::Labels out, std::vector<T> ops) {
    return einsum_labels(std::move(in), std::move(out), std::move(ops), where);
  }
  T take_along_axis(const T& x, const T& idx, std::int64_t axis) { return x.take_along_axis(idx, axis, where); }
  T index_select(const T& x, std::int64_t axis, const T& idx) { return x.index_select(axis, idx, where); }
  T scatter_add(const T& x, std::int64_t axis, const T& idx, const T& src) {
    return x.scatter_add(axis, idx, src, where);
  }
  T indices(const std::vector<std::int64_t>& v) { return indices_constant(v, device, where); }
  T tril(const T& x, std::int64_t k) { return x.tril(k, where); }
  T triu(const T& x, std::int64_t k) { return x.triu(k, where); }
  T diagonal(const T& x, std::int64_t offset, std::int64_t a1, std::int64_t a2) {
    return x.diagonal(offset, a1, a2, where);
  }
  T embed_diag(const T& x, std::int64_t offset) { return x.embed_diag(offset, where); }
  T fft(const T& x, const fft_detail::Spec& spec) { return fft_node(x, spec, where); }
  T solve(const T& a, const T& b) { return linalg::solve(a, b, where); }
  T solve_triangular(const T& a, const T& b, linalg::TriangularOptions o) {
    return linalg::solve_triangular(a, b, o, where);
  }
  T eigh_vectors(const T& a, bool upper) { return linalg_factor_node(a, LinalgFactor::EighVectors, upper, where); }
  T svd_u(const T& a) { return linalg_factor_node(a, LinalgFactor::SvdU, false, where); }
  T svd_vh(const T& a) { return linalg_factor_node(a, LinalgFactor::SvdVh, false, where); }
  T matrix_exp(const T& a) { return linalg::matrix_exp(a, where); }
  T gauge_checked(const T& x, const T& residual, const T& scale, std::string_view op) {
    return gauge_check_node(x, residual, scale, op, where);
  }
};

template <class R>
void RuleOf<R>::vjp(GraphBuilder& b, std::span<const TracedTensor> in, const TracedTensor& out,
                    const TracedTensor& g, std::span<TracedTensor> gin, const bool* needs) const {
  rule.vjp(b, ad::RuleArgs<TracedTensor>{in, out}, g, gin, needs);
}

template <class R>
TracedTensor RuleOf<R>::jvp(GraphBuilder& b, std::span<const TracedTensor> in, const TracedTensor& out,
                            std::span<const TracedTensor> tangents) const {
  return rule.jvp(b, ad::RuleArgs<TracedTensor>{in, out}, tangents);
}

}  // namespace tensora::graph_detail
