// AD rules of the normalizations along one axis (softmax, log_softmax). Both are float-only
// (their catalog rows), so no conjugates appear.
#pragma once

#include "ad/builder.hpp"
#include "ops/reduction_catalog.hpp"

namespace tensora::ad {

struct AxisOpRule {
  AxisOp op;
  std::int64_t axis;

  template <class B, class V = typename B::Value>
  V axis_sum(B& b, const V& v) const {
    return b.sum(v, {normalize_axis(axis, static_cast<std::int64_t>(b.shape(v).size()))}, true);
  }

  // softmax y: dx = y * (g - sum(g y));  log_softmax y: dx = g - exp(y) sum(g).
  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& a, const V& g, std::span<V> gin, const bool*) const {
    using Bo = BinaryOp;
    if (op == AxisOp::Softmax) {
      gin[0] = b.binary(Bo::Mul, a.out, b.binary(Bo::Sub, g, axis_sum(b, b.binary(Bo::Mul, g, a.out))));
    } else {
      gin[0] = b.binary(Bo::Sub, g, b.binary(Bo::Mul, b.unary(UnaryOp::Exp, a.out), axis_sum(b, g)));
    }
  }
  // softmax: dy = y * (t - sum(t y));  log_softmax: dy = t - sum(exp(y) t).
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& a, std::span<const V> t) const {
    using Bo = BinaryOp;
    if (op == AxisOp::Softmax)
      return b.binary(Bo::Mul, a.out, b.binary(Bo::Sub, t[0], axis_sum(b, b.binary(Bo::Mul, t[0], a.out))));
    return b.binary(Bo::Sub, t[0], axis_sum(b, b.binary(Bo::Mul, b.unary(UnaryOp::Exp, a.out), t[0])));
  }
};

}  // namespace tensora::ad
