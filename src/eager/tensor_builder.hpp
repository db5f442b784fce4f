// The AD builder of eager mode: every method runs the direct op now on one engine and records
// nothing (backward and jvp sweeps are not themselves differentiated).
#pragma once

#include <utility>

#include "ad/builder.hpp"
#include "direct/direct.hpp"
#include "frontdoor/linalg_factors.hpp"
#include "ops/validate.hpp"
#include "tensora/einsum.hpp"
#include "tensora/linalg.hpp"

namespace tensora::eager_detail {

struct TensorBuilder {
  using Value = Tensor;
  Engine& e;

  Shape shape(const Tensor& x) const { return x.shape(); }
  DType dtype(const Tensor& x) const { return x.dtype(); }
  Tensor unary(UnaryOp op, const Tensor& x) { return direct::unary(op, x, e, SourceLocation::current()); }
  Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b) { return direct::binary(op, a, b, e, SourceLocation::current()); }
  Tensor binary(BinaryOp op, const Tensor& a, Scalar s) {
    // Rules pass real constants (0.5, 2, -1); they fit every inexact dtype.
    return direct::binary(op, a, validate::weak_scalar(info(op).name, s, a.dtype(), a.device(), SourceLocation::current()),
                          e, SourceLocation::current());
  }
  Tensor conj(const Tensor& x) { return is_complex(x.dtype()) ? x.conj(e) : x; }
  Tensor zeros(const Shape& s, DType d) { return Tensor::zeros(s, TensorOptions(e.device(), d)); }
  Tensor cast(const Tensor& x, DType d) { return x.dtype() == d ? x : x.cast(d, e); }
  Tensor select(const Tensor& p, const Tensor& a, const Tensor& b) {
    return tensora::select(p, a, b, e);
  }
  Tensor sum(const Tensor& x, const ad::Axes& axes, bool keepdims) {
    return x.sum(axes, ReduceOptions{keepdims, 0}, e);
  }
  Tensor cumsum(const Tensor& x, std::int64_t axis) { return x.cumsum(axis, e); }
  Tensor cumprod(const Tensor& x, std::int64_t axis) { return x.cumprod(axis, e); }
  Tensor reshape(const Tensor& x, const Shape& s) { return x.reshape(s); }
  Tensor permute(const Tensor& x, const ad::Axes& axes) { return x.permute(axes); }
  Tensor broadcast_to(const Tensor& x, const Shape& s) {
    return x.shape() == s ? x : x.broadcast_to(s);
  }
  Tensor slice(const Tensor& x, std::int64_t axis, std::optional<std::int64_t> start,
               std::optional<std::int64_t> stop, std::int64_t step) {
    return x.slice(axis, start, stop, step);
  }
  Tensor pad(const Tensor& x, const ad::Widths& w) { return x.pad(w, e); }
  Tensor reverse(const Tensor& x, const ad::Axes& axes) { return x.reverse(axes); }
  Tensor concat(std::vector<Tensor> xs, std::int64_t axis) {
    return tensora::concat(std::move(xs), axis, e);
  }
  Tensor matmul(const Tensor& a, const Tensor& b) { return a.matmul(b, e); }
  Tensor einsum(std::vector<ad::Labels> in, ad::Labels out, std::vector<Tensor> ops) {
    return tensora::einsum(std::move(in), std::move(out), std::move(ops), e);
  }
  Tensor take_along_axis(const Tensor& x, const Tensor& idx, std::int64_t axis) {
    return x.take_along_axis(idx, axis, e);
  }
  Tensor index_select(const Tensor& x, std::int64_t axis, const Tensor& idx) {
    return x.index_select(axis, idx, e);
  }
  Tensor scatter_add(const Tensor& x, std::int64_t axis, const Tensor& idx, const Tensor& src) {
    return x.scatter_add(axis, idx, src, e);
  }
  Tensor indices(const std::vector<std::int64_t>& v) {
    return Tensor::from_ints(v, TensorOptions(e.device(), DType::I64));
  }
  Tensor tril(const Tensor& x, std::int64_t k) { return x.tril(k, e); }
  Tensor triu(const Tensor& x, std::int64_t k) { return x.triu(k, e); }
  Tensor diagonal(const Tensor& x, std::int64_t offset, std::int64_t a1, std::int64_t a2) {
    return x.diagonal(offset, a1, a2);
  }
  Tensor embed_diag(const Tensor& x, std::int64_t offset) { return x.embed_diag(offset, e); }
  Tensor fft(const Tensor& x, const fft_detail::Spec& spec) {
    return direct::fft_transform(x, spec, e, SourceLocation::current());
  }
  Tensor solve(const Tensor& a, const Tensor& b) { return linalg::solve(a, b, e); }
  Tensor solve_triangular(const Tensor& a, const Tensor& b, linalg::TriangularOptions o) {
    return linalg::solve_triangular(a, b, o, e);
  }
  Tensor eigh_vectors(const Tensor& a, bool upper) { return linalg::eigh(a, {.upper = upper}, e).eigenvectors; }
  Tensor svd_u(const Tensor& a) { return linalg::svd(a, e).u; }
  Tensor svd_vh(const Tensor& a) { return linalg::svd(a, e).vh; }
  Tensor matrix_exp(const Tensor& a) { return linalg::matrix_exp(a, e); }
  Tensor gauge_checked(const Tensor& x, const Tensor& residual, const Tensor& scale, std::string_view op) {
    frontdoor::check_phase_gauge(op, residual, scale, e, SourceLocation::current());
    return x;
  }
};

}  // namespace tensora::eager_detail
