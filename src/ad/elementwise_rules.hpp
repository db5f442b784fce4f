// AD rules of the elementwise family: unary, binary, clamp, select, convert/cast.
// Complex inputs follow the conjugate Wirtinger convention (PyTorch): for y = f(z) holomorphic,
// the cotangent of z is g * conj(f'(z)); non-holomorphic abs/real/imag/conj are spelled out.
#pragma once

#include <cmath>
#include <complex>
#include <numbers>

#include "ad/builder.hpp"
#include "core/checks.hpp"
#include "tensora/error.hpp"

namespace tensora::ad {

// Whether a result of `op` on inputs of `dtype` is recorded with a rule: the catalog's `ad`
// column (piecewise-constant and Bool-valued ops have none; sign has one for complex inputs).
constexpr bool differentiable(const ElementwiseInfo& op, DType dtype) {
  return op.ad == AdRule::Smooth || (op.ad == AdRule::ComplexOnly && is_complex(dtype));
}
constexpr bool differentiable(UnaryOp op, DType dtype) { return differentiable(info(op), dtype); }
constexpr bool differentiable(BinaryOp op, DType dtype) { return differentiable(info(op), dtype); }

struct UnaryRule {
  UnaryOp op;

  // f'(x) for the holomorphic / real ops, from the input x and the result y.
  template <class B, class V = typename B::Value>
  V derivative(B& b, const V& x, const V& y) const {
    using U = UnaryOp;
    using Bo = BinaryOp;
    switch (op) {
      case U::Exp:
        return y;
      case U::Expm1:
        return b.binary(Bo::Add, y, Scalar(1));
      case U::Log:
        return b.binary(Bo::Pow, x, Scalar(-1));
      case U::Log1p:
        return b.binary(Bo::Pow, b.binary(Bo::Add, x, Scalar(1)), Scalar(-1));
      case U::Sqrt:
        return b.binary(Bo::Div, b.binary(Bo::Pow, y, Scalar(-1)), Scalar(2));
      default:
        break;
    }
    return derivative_rest(b, x, y);
  }

  template <class B, class V = typename B::Value>
  V derivative_rest(B& b, const V& x, const V& y) const {
    using U = UnaryOp;
    using Bo = BinaryOp;
    switch (op) {
      case U::Rsqrt:
        return b.binary(Bo::Mul, b.binary(Bo::Div, y, x), Scalar(-0.5));
      case U::Sin:
        return b.unary(U::Cos, x);
      case U::Cos:
        return b.unary(U::Neg, b.unary(U::Sin, x));
      case U::Tan:
        return b.binary(Bo::Add, b.binary(Bo::Mul, y, y), Scalar(1));
      case U::Tanh:
        return b.unary(U::Neg, b.binary(Bo::Sub, b.binary(Bo::Mul, y, y), Scalar(1)));
      case U::Sigmoid:
        return b.binary(Bo::Mul, y, b.unary(U::Neg, b.binary(Bo::Sub, y, Scalar(1))));
      case U::Erf:
        return b.binary(Bo::Mul, b.unary(U::Exp, b.unary(U::Neg, b.binary(Bo::Mul, x, x))),
                        Scalar(2.0 / std::sqrt(std::numbers::pi)));
      default:
        break;
    }
    return derivative_more(b, x, y);
  }

  // 1 / v, as the rules above spell it (pow accepts every inexact dtype).
  template <class B, class V = typename B::Value>
  static V inverse(B& b, const V& v) {
    return b.binary(BinaryOp::Pow, v, Scalar(-1));
  }

  template <class B, class V = typename B::Value>
  V derivative_more(B& b, const V& x, const V& y) const {
    using U = UnaryOp;
    using Bo = BinaryOp;
    const auto x2 = [&] { return b.binary(Bo::Mul, x, x); };
    switch (op) {
      case U::Exp2:
        return b.binary(Bo::Mul, y, Scalar(std::numbers::ln2));
      case U::Log2:
        return b.binary(Bo::Div, inverse(b, x), Scalar(std::numbers::ln2));
      case U::Log10:
        return b.binary(Bo::Div, inverse(b, x), Scalar(std::numbers::ln10));
      case U::Reciprocal:
        return b.unary(U::Neg, b.binary(Bo::Mul, y, y));
      case U::Square:
        return b.binary(Bo::Mul, x, Scalar(2));
      case U::Asin:  // 1 / sqrt(1 - x^2)
        return inverse(b, b.unary(U::Sqrt, b.unary(U::Neg, b.binary(Bo::Sub, x2(), Scalar(1)))));
      case U::Acos:
        return b.unary(U::Neg, inverse(b, b.unary(U::Sqrt, b.unary(U::Neg, b.binary(Bo::Sub, x2(), Scalar(1))))));
      case U::Atan:
        return inverse(b, b.binary(Bo::Add, x2(), Scalar(1)));
      case U::Sinh:
        return b.unary(U::Cosh, x);
      case U::Cosh:
        return b.unary(U::Sinh, x);
      case U::Asinh:
        return inverse(b, b.unary(U::Sqrt, b.binary(Bo::Add, x2(), Scalar(1))));
      case U::Acosh:  // 1 / (sqrt(x - 1) sqrt(x + 1)): the branch that also holds for complex x
        return inverse(b, b.binary(Bo::Mul, b.unary(U::Sqrt, b.binary(Bo::Sub, x, Scalar(1))),
                                   b.unary(U::Sqrt, b.binary(Bo::Add, x, Scalar(1)))));
      case U::Atanh:
        return inverse(b, b.unary(U::Neg, b.binary(Bo::Sub, x2(), Scalar(1))));
      case U::Erfc:
        return b.binary(Bo::Mul, b.unary(U::Exp, b.unary(U::Neg, x2())),
                        Scalar(-2.0 / std::sqrt(std::numbers::pi)));
      case U::Erfinv:  // sqrt(pi) / 2 * exp(y^2)
        return b.binary(Bo::Mul, b.unary(U::Exp, b.binary(Bo::Mul, y, y)), Scalar(std::sqrt(std::numbers::pi) / 2));
      case U::Lgamma:
        return b.unary(U::Digamma, x);
      case U::Digamma:
        return b.unary(U::Trigamma, x);
      case U::Trigamma:
        throw Error(ErrorKind::Unsupported, "trigamma",
                    "trigamma has no derivative rule (it would need polygamma of order 2)", NoDetail{});
      default:
        break;
    }
    throw Error(ErrorKind::Internal, "eager", "no derivative for this unary op");
  }

  // sign(z) = z / |z| for complex z (not holomorphic): the real-linear map
  // v -> (v - s Re(conj(s) v)) / |z| is its own adjoint, so it serves as jvp and vjp; 0 at z = 0.
  template <class B, class V = typename B::Value>
  static V sign_derivative(B& b, const V& z, const V& s, const V& v) {
    using Bo = BinaryOp;
    const V absz = b.unary(UnaryOp::Abs, z);
    const V zero = b.binary(Bo::Eq, absz, Scalar(0));
    const V safe = b.cast(b.select(zero, b.binary(Bo::Add, b.zeros(b.shape(absz), b.dtype(absz)), Scalar(1)), absz),
                          b.dtype(z));
    const V along = b.binary(Bo::Mul, s, b.cast(b.unary(UnaryOp::Real, b.binary(Bo::Mul, b.conj(s), v)), b.dtype(z)));
    const V d = b.binary(Bo::Div, b.binary(Bo::Sub, v, along), safe);
    return b.select(zero, b.zeros(b.shape(d), b.dtype(d)), d);
  }

  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    const V& x = a.in[0];
    using U = UnaryOp;
    switch (op) {
      case U::Neg:
        gin[0] = b.unary(U::Neg, g);
        return;
      case U::Conj:
        gin[0] = b.conj(g);
        return;
      case U::Real:
        gin[0] = b.cast(g, b.dtype(x));
        return;
      // y = Im z: dL/da = 0, dL/db = g, so the cotangent is i*g; Im of a real value is 0.
      case U::Imag:
        if (!is_complex(b.dtype(x))) {
          gin[0] = b.zeros(b.shape(x), b.dtype(x));
          return;
        }
        gin[0] = b.binary(BinaryOp::Mul, b.cast(g, b.dtype(x)), Scalar(std::complex<double>(0, 1)));
        return;
      case U::Abs:
        gin[0] = b.binary(BinaryOp::Mul, b.cast(g, b.dtype(x)), unit(b, x, a.out));
        return;
      case U::Sign:  // recorded for complex inputs only (differentiable())
        gin[0] = sign_derivative(b, x, a.out, g);
        return;
      default:
        gin[0] = times_conj(b, g, derivative(b, x, a.out));
    }
  }

  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    const V& x = a.in[0];
    using U = UnaryOp;
    switch (op) {
      case U::Neg:
        return b.unary(U::Neg, t[0]);
      case U::Conj:
        return b.conj(t[0]);
      case U::Real:
        return b.unary(U::Real, t[0]);
      case U::Imag:
        return b.unary(U::Imag, t[0]);
      // d|z| = Re(conj(z/|z|) dz); for reals sign(x) dx.
      case U::Abs:
        return b.unary(U::Real, b.binary(BinaryOp::Mul, b.conj(unit(b, x, a.out)), t[0]));
      case U::Sign:
        return sign_derivative(b, x, a.out, t[0]);
      default:
        return b.binary(BinaryOp::Mul, t[0], derivative(b, x, a.out));
    }
  }

  // x / |x| with 0 where x == 0 (the subgradient PyTorch picks).
  template <class B, class V = typename B::Value>
  static V unit(B& b, const V& x, const V& absx) {
    if (!is_complex(b.dtype(x))) return b.unary(UnaryOp::Sign, x);
    const V zero = b.binary(BinaryOp::Eq, absx, Scalar(0));
    const V safe = b.select(
        zero, b.binary(BinaryOp::Add, b.binary(BinaryOp::Mul, absx, Scalar(0)), Scalar(1)), absx);
    const V u = b.binary(BinaryOp::Div, x, b.cast(safe, b.dtype(x)));
    return b.select(zero, b.binary(BinaryOp::Mul, u, Scalar(0)), u);
  }
};

struct BinaryRule {
  BinaryOp op;

  // The full-shape cotangents of x and y (before summing back over broadcast axes).
  template <class B, class V = typename B::Value>
  std::pair<V, V> partials(B& b, const V& x, const V& y, const V& out, const V& g,
                           const bool* needs) const {
    using Bo = BinaryOp;
    using U = UnaryOp;
    V gx, gy;
    switch (op) {
      case Bo::Add:
        gx = g;
        if (needs[1]) gy = g;
        break;
      case Bo::Sub:
        gx = g;
        if (needs[1]) gy = b.unary(U::Neg, g);
        break;
      case Bo::Mul:
        if (needs[0]) gx = times_conj(b, g, y);
        if (needs[1]) gy = times_conj(b, g, x);
        break;
      case Bo::Div: {
        const V gx_full = b.binary(Bo::Div, g, b.conj(y));
        gx = gx_full;
        if (needs[1]) gy = b.unary(U::Neg, times_conj(b, gx_full, out));  // -g conj(x/y^2)
        break;
      }
      case Bo::Rem:  // x - y * floor(x / y)
        gx = g;
        if (needs[1]) gy = b.unary(U::Neg, b.binary(Bo::Mul, g, b.binary(Bo::FloorDiv, x, y)));
        break;
      case Bo::Pow: {
        if (needs[0]) {  // y * x^(y - 1)
          gx = times_conj(
              b, g, b.binary(Bo::Mul, y, b.binary(Bo::Pow, x, b.binary(Bo::Sub, y, Scalar(1)))));
        }
        if (needs[1]) {  // out * log(x), 0 where x == 0 (PyTorch)
          const V d = b.binary(Bo::Mul, out, b.unary(U::Log, x));
          const V x0 = b.binary(Bo::Eq, x, Scalar(0));
          gy = times_conj(b, g, b.select(x0, b.binary(Bo::Mul, out, Scalar(0)), d));
        }
        break;
      }
      case Bo::Maximum:
      case Bo::Minimum: {
        // The winner gets the cotangent; ties split it evenly.
        const V win = b.binary(op == Bo::Maximum ? Bo::Gt : Bo::Lt, x, y);
        const V tie = b.binary(Bo::Eq, x, y);
        const DType dt = b.dtype(g);
        const V w =
            b.binary(Bo::Add, b.cast(win, dt), b.binary(Bo::Mul, b.cast(tie, dt), Scalar(0.5)));
        const V gx_full = b.binary(Bo::Mul, g, w);
        gx = gx_full;
        if (needs[1]) gy = b.binary(Bo::Sub, g, gx_full);
        break;
      }
      case Bo::Atan2: {  // atan2(x, y): d/dx = y / r2, d/dy = -x / r2
        const V r2 = b.binary(Bo::Add, b.binary(Bo::Mul, x, x), b.binary(Bo::Mul, y, y));
        const V gr = b.binary(Bo::Div, g, r2);
        gx = b.binary(Bo::Mul, gr, y);
        if (needs[1]) gy = b.unary(U::Neg, b.binary(Bo::Mul, gr, x));
        break;
      }
      case Bo::Hypot:  // d/dx = x / h, d/dy = y / h
        gx = b.binary(Bo::Mul, g, b.binary(Bo::Div, x, out));
        if (needs[1]) gy = b.binary(Bo::Mul, g, b.binary(Bo::Div, y, out));
        break;
      case Bo::LogAddExp:  // d/dx = exp(x - out), d/dy = exp(y - out)
        gx = b.binary(Bo::Mul, g, b.unary(U::Exp, b.binary(Bo::Sub, x, out)));
        if (needs[1]) gy = b.binary(Bo::Mul, g, b.unary(U::Exp, b.binary(Bo::Sub, y, out)));
        break;
      case Bo::Xlogy: {  // d/dx = log(y), 0 where x == 0 (as the value); d/dy = x / y
        const V zeros = b.zeros(b.shape(g), b.dtype(g));
        gx = b.binary(Bo::Mul, g, b.select(b.binary(Bo::Eq, x, Scalar(0)), zeros, b.unary(U::Log, y)));
        if (needs[1]) gy = b.binary(Bo::Mul, g, b.binary(Bo::Div, x, y));
        break;
      }
      case Bo::CopySign: {  // |x| with y's sign: d/dx = out / x (0 at x == 0), d/dy = 0
        const V zeros = b.zeros(b.shape(g), b.dtype(g));
        gx = b.binary(Bo::Mul, g, b.select(b.binary(Bo::Eq, x, Scalar(0)), zeros, b.binary(Bo::Div, out, x)));
        if (needs[1]) gy = zeros;
        break;
      }
      default:
        throw Error(ErrorKind::Internal, "eager", "binary op without a rule was recorded");
    }
    return {gx, gy};
  }

  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    auto [gx, gy] = partials(b, a.in[0], a.in[1], a.out, g, needs);
    if (needs[0]) gin[0] = sum_to(b, gx, b.shape(a.in[0]));
    if (needs[1]) gin[1] = sum_to(b, gy, b.shape(a.in[1]));
  }

  // Linear in the tangents: J u = d/dx * tx + d/dy * ty, from the same partials with g = 1
  // (holomorphic ops: the partials carry conj, so conjugate them back).
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    using Bo = BinaryOp;
    const V& x = a.in[0];
    const V& y = a.in[1];
    switch (op) {
      case Bo::Add:
        return b.binary(Bo::Add, t[0], t[1]);
      case Bo::Sub:
        return b.binary(Bo::Sub, t[0], t[1]);
      case Bo::Mul:
        return b.binary(Bo::Add, b.binary(Bo::Mul, t[0], y), b.binary(Bo::Mul, x, t[1]));
      case Bo::Div:
        return b.binary(Bo::Div, b.binary(Bo::Sub, t[0], b.binary(Bo::Mul, a.out, t[1])), y);
      case Bo::Pow: {
        // The exponent's term out * log(x) enters only where its tangent is nonzero: log(x) is
        // NaN for x < 0, and a constant exponent (zero tangent) must not bring it in.
        const V dx = b.binary(Bo::Mul, y, b.binary(Bo::Pow, x, b.binary(Bo::Sub, y, Scalar(1))));
        const V zeros = b.zeros(b.shape(a.out), b.dtype(a.out));
        const V log_term = b.binary(Bo::Mul, b.select(b.binary(Bo::Eq, x, Scalar(0)), zeros,
                                                      b.binary(Bo::Mul, a.out, b.unary(UnaryOp::Log, x))),
                                    t[1]);
        return b.binary(Bo::Add, b.binary(Bo::Mul, dx, t[0]),
                        b.select(b.binary(Bo::Eq, t[1], Scalar(0)), zeros, log_term));
      }
      default:
        break;
    }
    const bool both[2] = {true, true};
    const V one = b.binary(Bo::Add, b.binary(Bo::Mul, a.out, Scalar(0)), Scalar(1));
    auto [dx, dy] = partials(b, x, y, a.out, one, both);
    return b.binary(Bo::Add, b.binary(Bo::Mul, b.conj(dx), t[0]),
                    b.binary(Bo::Mul, b.conj(dy), t[1]));
  }
};

// clamp(x, lo, hi) with scalar bounds: the cotangent passes where lo <= x <= hi.
struct ClampRule {
  Scalar lo, hi;

  template <class B, class V = typename B::Value>
  V mask(B& b, const V& x) const {
    return b.binary(BinaryOp::LogicalAnd, b.binary(BinaryOp::Ge, x, lo),
                    b.binary(BinaryOp::Le, x, hi));
  }
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    gin[0] = b.select(mask(b, a.in[0]), g, b.zeros(b.shape(g), b.dtype(g)));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    return b.select(mask(b, a.in[0]), t[0], b.zeros(b.shape(t[0]), b.dtype(t[0])));
  }
};

// select(pred, a, b): inputs are (pred, a, b); pred is never differentiated.
struct SelectRule {
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool* needs) const {
    const V zero = b.zeros(b.shape(g), b.dtype(g));
    if (needs[1]) gin[1] = sum_to(b, b.select(a.in[0], g, zero), b.shape(a.in[1]));
    if (needs[2]) gin[2] = sum_to(b, b.select(a.in[0], zero, g), b.shape(a.in[2]));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    return b.select(a.in[0], t[1], t[2]);
  }
};

// convert / cast between inexact dtypes: the cotangent goes back to the input's dtype (a real
// input of a complex result keeps the real part).
struct CastRule {
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    gin[0] = b.cast(g, b.dtype(a.in[0]));
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    return b.cast(t[0], b.dtype(a.out));
  }
};

}  // namespace tensora::ad
