// AD rules of the reductions. Each holds the reduced axes (normalized, sorted) and keepdims.
#pragma once

#include "ad/builder.hpp"

namespace tensora::ad {

enum class ReduceKind { Sum, Mean, Prod, Max, Min, Var, Std, Logsumexp };

struct ReduceRule {
  ReduceKind kind;
  Axes axes;  // normalized and sorted
  bool keepdims;
  std::int64_t ddof = 0;

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

  // d out / d x as an input-shaped factor (for the non-linear reductions).
  template <class B, class V = typename B::Value>
  V factor(B& b, const V& x, const V& out) const {
    using Bo = BinaryOp;
    const Shape in = b.shape(x);
    const V ob = expand(b, out, in);
    switch (kind) {
      case ReduceKind::Prod:
        return b.binary(Bo::Div, ob, x);  // product of the others (x != 0)
      case ReduceKind::Max:
      case ReduceKind::Min: {
        // Ties split the cotangent evenly between the extreme elements.
        const V hit = b.cast(b.binary(Bo::Eq, x, ob), b.dtype(x));
        return b.binary(Bo::Div, hit, expand(b, b.sum(hit, axes, false), in));
      }
      case ReduceKind::Logsumexp:
        return b.unary(UnaryOp::Exp, b.binary(Bo::Sub, x, ob));
      case ReduceKind::Var:
      case ReduceKind::Std: {
        // Real results of possibly complex inputs: the factor is (x - mean) * 2/n or
        // (x - mean) / (n std), in x's dtype; its cotangent rule takes no conj (see vjp).
        const double n = static_cast<double>(count(in) - ddof);
        const V mean = expand(
            b, b.binary(Bo::Div, b.sum(x, axes, true), Scalar(static_cast<double>(count(in)))), in);
        const V centered = b.binary(Bo::Sub, x, mean);
        if (kind == ReduceKind::Var) return b.binary(Bo::Mul, centered, Scalar(2.0 / n));
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
      case ReduceKind::Sum:
        gin[0] = gb;
        return;
      case ReduceKind::Mean:
        gin[0] = b.binary(BinaryOp::Div, gb, Scalar(static_cast<double>(count(in))));
        return;
      case ReduceKind::Var:
      case ReduceKind::Std:  // d/da + i d/db of a real function
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
      case ReduceKind::Sum:
        return b.sum(t[0], axes, keepdims);
      case ReduceKind::Mean:
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

// Inclusive cumulative product, for inputs without zeros: dout_j/dx_i = out_j / x_i (j >= i).
struct CumprodRule {
  std::int64_t axis;
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    const V go = times_conj(b, g, a.out);
    const V rc = b.reverse(b.cumsum(b.reverse(go, {axis}), axis), {axis});
    gin[0] = b.binary(BinaryOp::Div, rc, b.conj(a.in[0]));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    return b.binary(BinaryOp::Mul, a.out, b.cumsum(b.binary(BinaryOp::Div, t[0], a.in[0]), axis));
  }
};

}  // namespace tensora::ad
