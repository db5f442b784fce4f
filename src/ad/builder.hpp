// The builder interface that AD rules are written against, and helpers shared by the rules.
//
// A rule is a struct holding its op's attributes with two member templates over a builder B:
//   void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const;
//   V    jvp(B& b, const RuleArgs<V>& a, std::span<const V> tangents) const;
// where V = typename B::Value, a.in are the op's (already promoted) inputs, a.out its result, g
// the cotangent of the result, gin[i] receives the cotangent of input i when needs[i] is true,
// and tangents[i] is the tangent of input i (zeros when the input is constant).
//
// The builder's methods are the op set the rules need, nothing more. Eager runs them with
// TensorBuilder (src/eager/tensor_builder.hpp: executes direct ops now); the traced front door
// implements the same list by adding graph nodes.
//   Shape shape(const V&); DType dtype(const V&);
//   V unary(UnaryOp, const V&);  V binary(BinaryOp, const V&, const V&);
//   V binary(BinaryOp, const V&, Scalar);            // weak scalar on the right
//   V conj(const V&);                                 // identity for real dtypes
//   V zeros(const Shape&, DType);  V cast(const V&, DType);
//   V select(const V& pred, const V& a, const V& b);
//   V sum(const V&, Axes, bool keepdims);  V cumsum(const V&, int64 axis);  V cumprod(const V&, int64 axis);
//   V reshape(const V&, Shape);  V permute(const V&, Axes);  V broadcast_to(const V&, Shape);
//   V slice(const V&, int64 axis, int64 start, int64 stop, int64 step);
//   V pad(const V&, Widths);  V reverse(const V&, Axes);  V concat(std::vector<V>, int64 axis);
//   V matmul(const V&, const V&);
//   V einsum(std::vector<Labels> inputs, Labels output, std::vector<V> operands);
//   V take_along_axis(const V&, const V& idx, int64 axis);
//   V scatter_add(const V&, int64 axis, const V& idx, const V& src);
//   V indices(std::vector<int64>);                    // a 1-D I64 constant
//   V tril(const V&, int64);  V triu(const V&, int64);
//   V diagonal(const V&, int64 offset, int64 axis1, int64 axis2);  V embed_diag(const V&, int64);
//   V fft(const V&, fft_detail::Spec);               // the FFT primitive
//   V solve(a, b); V solve_triangular(a, b, TriangularOptions);   // linalg (linalg_rules.hpp)
//   V eigh_vectors(a, upper); V svd_u(a); V svd_vh(a); V matrix_exp(a);
//   V gauge_checked(x, residual, scale, op);         // x, once the complex gauge check passed
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "ops/elementwise_catalog.hpp"
#include "tensora/tensor.hpp"

namespace tensora::ad {

using Axes = std::vector<std::int64_t>;
using Labels = std::vector<std::int64_t>;
using Widths = std::vector<std::pair<std::int64_t, std::int64_t>>;

template <class V>
struct RuleArgs {
  std::span<const V> in;
  const V& out;
};

inline std::int64_t normalize_axis(std::int64_t axis, std::int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

// Sums a broadcast cotangent back to `shape` (the inverse of NumPy broadcasting).
template <class B, class V = typename B::Value>
V sum_to(B& b, const V& g, const Shape& shape) {
  const Shape gs = b.shape(g);
  if (gs == shape) return g;
  const auto lead = static_cast<std::int64_t>(gs.size()) - static_cast<std::int64_t>(shape.size());
  Axes axes;
  for (std::int64_t d = 0; d < static_cast<std::int64_t>(gs.size()); ++d) {
    if (d < lead ||
        (shape[static_cast<std::size_t>(d - lead)] == 1 && gs[static_cast<std::size_t>(d)] != 1))
      axes.push_back(d);
  }
  V r = axes.empty() ? g : b.sum(g, axes, true);
  return b.reshape(r, shape);
}

// g * conj(d): the cotangent rule of a holomorphic (or real) derivative d (conjugate Wirtinger).
template <class B, class V = typename B::Value>
V times_conj(B& b, const V& g, const V& d) {
  return b.binary(BinaryOp::Mul, g, b.conj(d));
}

// The reduced axes of a reduction, normalized and sorted (all axes when `axes` is empty and
// `all_axes` is set).
inline Axes reduced_axes(const Axes& axes, bool all_axes, std::int64_t rank) {
  Axes r;
  if (all_axes) {
    for (std::int64_t d = 0; d < rank; ++d) r.push_back(d);
    return r;
  }
  for (auto a : axes) r.push_back(normalize_axis(a, rank));
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

// The shape of a keepdims reduction of `shape` over `axes`.
inline Shape kept_shape(Shape shape, const Axes& axes) {
  for (auto a : axes) shape[static_cast<std::size_t>(a)] = 1;
  return shape;
}

}  // namespace tensora::ad
