// AD rules of the reductions. Each holds the reduced axes (normalized, sorted) and keepdims.
#pragma once

#include "ad/builder.hpp"
#include "ops/reduction_catalog.hpp"

namespace tensora::ad {

// The rule of an axes-form reduction of the catalog (ops/reduction_catalog.hpp).
struct ReduceRule {
  Reduction kind;
  Axes axes;  // normalized and sorted
  bool keepdims;
  double ddof = 0;

  // A reduced-shape value broadcast back to the input's shape.
  template <class B, class V = typename B::Value>
  V expand(B& b, const V& r, const Shape& in) const {
    return b.broadcast_to(b.reshape(r, kept_shape(in, axes)), in);
  }
  std::int64_t count(const Shape& in) const {
    std::int64_t n = 1;
    for (auto a : axes) n *= in[static_cast<std::size_t>(a)];
    return n;
  }

  // For each element, the product of the other elements of its reduction (exact with zeros,
  // where out / x is not): the reduced axes are moved last and flattened to K, then an
  // exclusive product from the left times one from the right.
  template <class B, class V = typename B::Value>
  V others_product(B& b, const V& x) const {
    const Shape in = b.shape(x);
    const std::int64_t k = count(in);
    const V one = b.binary(BinaryOp::Add, b.zeros(in, b.dtype(x)), Scalar(1));
    if (k <= 1) return one;
    Axes perm;
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(in.size()); ++d)
      if (std::find(axes.begin(), axes.end(), d) == axes.end()) perm.push_back(d);
    perm.insert(perm.end(), axes.begin(), axes.end());
    const V moved = b.permute(x, perm);
    const Shape moved_shape = b.shape(moved);
    const std::int64_t m = numel(in) / k;
    const V flat = b.reshape(moved, Shape{m, k});
    const V ones = b.binary(BinaryOp::Add, b.zeros(Shape{m, 1}, b.dtype(x)), Scalar(1));
    auto exclusive = [&](const V& v) {  // [1, v0, v0 v1, ...] along axis 1
      return b.cumprod(b.concat({ones, b.slice(v, 1, 0, k - 1, 1)}, 1), 1);
    };
    const V left = exclusive(flat);
    const V right = b.reverse(exclusive(b.reverse(flat, {1})), {1});
    Axes inverse(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) inverse[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
    return b.permute(b.reshape(b.binary(BinaryOp::Mul, left, right), moved_shape), inverse);
  }

  // d out / d x as an input-shaped factor (for the non-linear reductions).
  template <class B, class V = typename B::Value>
  V factor(B& b, const V& x, const V& out) const {
    using Bo = BinaryOp;
    const Shape in = b.shape(x);
    const V ob = expand(b, out, in);
    switch (kind) {
      case Reduction::Prod:
        return others_product(b, x);
      case Reduction::Max:
      case Reduction::Min: {
        // Ties split the cotangent evenly between the extreme elements.
        const V hit = b.cast(b.binary(Bo::Eq, x, ob), b.dtype(x));
        return b.binary(Bo::Div, hit, expand(b, b.sum(hit, axes, false), in));
      }
      case Reduction::LogSumExp:
        return b.unary(UnaryOp::Exp, b.binary(Bo::Sub, x, ob));
      case Reduction::Var:
      case Reduction::Std: {
        // Real results of possibly complex inputs: the factor is (x - mean) * 2/n or
        // (x - mean) / (n std), in x's dtype; its cotangent rule takes no conj (see vjp).
        const double n = std::max(static_cast<double>(count(in)) - ddof, 0.0);  // as the value
        const V mean = expand(
            b, b.binary(Bo::Div, b.sum(x, axes, true), Scalar(static_cast<double>(count(in)))), in);
        const V centered = b.binary(Bo::Sub, x, mean);
        if (kind == Reduction::Var) return b.binary(Bo::Mul, centered, Scalar(2.0 / n));
        return b.binary(Bo::Div, centered, b.cast(b.binary(Bo::Mul, ob, Scalar(n)), b.dtype(x)));
      }
      default:
        break;
    }
    throw Error(ErrorKind::Internal, "eager", "reduction without a factor");
  }

  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    const Shape in = b.shape(a.in[0]);
    const V gb = expand(b, g, in);
    switch (kind) {
      case Reduction::Sum:
        gin[0] = gb;
        return;
      case Reduction::Mean:
        gin[0] = b.binary(BinaryOp::Div, gb, Scalar(static_cast<double>(count(in))));
        return;
      case Reduction::Var:
      case Reduction::Std:  // d/da + i d/db of a real function
        gin[0] = b.binary(BinaryOp::Mul, b.cast(gb, b.dtype(a.in[0])), factor(b, a.in[0], a.out));
        return;
      default:
        gin[0] = times_conj(b, gb, factor(b, a.in[0], a.out));
    }
  }

  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    const Shape in = b.shape(a.in[0]);
    switch (kind) {
      case Reduction::Sum:
        return b.sum(t[0], axes, keepdims);
      case Reduction::Mean:
        return b.binary(BinaryOp::Div, b.sum(t[0], axes, keepdims),
                        Scalar(static_cast<double>(count(in))));
      default: {
        const bool real_of_complex = is_complex(b.dtype(a.in[0])) && !is_complex(b.dtype(a.out));
        const V f = factor(b, a.in[0], a.out);
        V s = b.sum(b.binary(BinaryOp::Mul, real_of_complex ? b.conj(f) : f, t[0]), axes, true);
        if (real_of_complex) s = b.unary(UnaryOp::Real, s);  // Re(conj(f) dz)
        return keepdims ? s : b.reshape(s, b.shape(a.out));
      }
    }
  }
};

// Inclusive cumulative sum: the cotangent is the reversed cumulative sum of the cotangent.
struct CumsumRule {
  std::int64_t axis;
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>&, const V& g, std::span<V> gin, const bool*) const {
    gin[0] = b.reverse(b.cumsum(b.reverse(g, {axis}), axis), {axis});
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>&, std::span<const V> t) const {
    return b.cumsum(t[0], axis);
  }
};

// Inclusive cumulative product, exact with zeros, and written so that its own derivatives
// are exact too (second order through prod and cumprod). Along the axis, with z the first zero
// of x, E = prod_{j<z} x_j and Q_i = prod_{z<j<=i} x_j:
//   d out_i / d x_k = out_i / x_k              for k < z (no zero divides),
//                   = E * Q_i                  for k = z, i >= z,
//                   = x_z * E * Q_i / x_k      for z < k <= i (0 in value: x_z = 0; the factor
//                                              x_z is kept so the derivative in x_z is right).
// The masks are data, computed where the rule runs (eager now, traced at run time). A second
// zero at k (x_k = 0, k > z) has the value 0 there, exact, and a zero second derivative.
struct CumprodRule {
  std::int64_t axis;

  template <class V>
  struct Parts {
    V before, first, after, safe, safe_after, xz, e, q, zeros;
  };
  template <class B, class V = typename B::Value>
  Parts<V> parts(B& b, const V& x) const {
    using Bo = BinaryOp;
    const Shape shape = b.shape(x);
    const DType dt = b.dtype(x);
    const V zeros = b.zeros(shape, dt);
    const V one = b.binary(Bo::Add, zeros, Scalar(1));
    const V zero = b.binary(Bo::Eq, x, Scalar(0));
    const V count = b.cumsum(b.cast(zero, dt), axis);  // zeros up to and including i
    const V before = b.binary(Bo::Eq, count, Scalar(0));
    const V first = b.binary(Bo::LogicalAnd, zero, b.binary(Bo::Eq, count, Scalar(1)));
    const V after = b.unary(UnaryOp::LogicalNot, b.binary(Bo::LogicalOr, before, first));
    const V safe = b.select(before, x, one);
    const V safe_after = b.select(b.binary(Bo::LogicalAnd, after, b.unary(UnaryOp::LogicalNot, zero)), x, one);
    const V xz = b.cumsum(b.select(first, x, zeros), axis);  // x_z from z on (its value is 0)
    return {before, first, after, safe, safe_after, xz, b.cumprod(safe, axis),
            b.cumprod(b.select(after, x, one), axis), zeros};
  }
  template <class B, class V = typename B::Value>
  V reverse_cumsum(B& b, const V& v) const {
    return b.reverse(b.cumsum(b.reverse(v, {axis}), axis), {axis});
  }

  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    using Bo = BinaryOp;
    const Parts<V> p = parts(b, a.in[0]);
    const V early = b.binary(Bo::Div, reverse_cumsum(b, times_conj(b, g, a.out)), b.conj(p.safe));
    const V tail = reverse_cumsum(b, times_conj(b, g, p.q));  // sum_{i>=k} g_i conj(Q_i)
    const V at_zero = b.binary(Bo::Mul, b.conj(p.e), tail);
    const V later = b.binary(Bo::Div, b.binary(Bo::Mul, b.conj(b.binary(Bo::Mul, p.xz, p.e)), tail), b.conj(p.safe_after));
    gin[0] = b.binary(Bo::Add, b.binary(Bo::Add, b.select(p.before, early, p.zeros), b.select(p.first, at_zero, p.zeros)),
                      b.select(p.after, later, p.zeros));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    using Bo = BinaryOp;
    const Parts<V> p = parts(b, a.in[0]);
    const V early = b.binary(Bo::Mul, a.out, b.cumsum(b.binary(Bo::Div, t[0], p.safe), axis));
    const V spread = b.cumsum(b.select(p.first, b.binary(Bo::Mul, t[0], p.e), p.zeros), axis);
    const V later = b.binary(Bo::Mul, b.binary(Bo::Mul, p.xz, p.e),
                             b.cumsum(b.select(p.after, b.binary(Bo::Div, t[0], p.safe_after), p.zeros), axis));
    return b.binary(Bo::Add, b.select(p.before, early, p.zeros),
                    b.binary(Bo::Mul, b.binary(Bo::Add, spread, later), p.q));
  }
};

}  // namespace tensora::ad
