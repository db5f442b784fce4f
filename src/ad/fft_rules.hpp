// The AD rule of the FFT primitive (ops/fft_spec.hpp), written once over the builder. The
// primitive is linear (real-linear for the real transforms), so its JVP is the primitive on the
// tangent and its VJP the adjoint transform (conjugate Wirtinger, as every rule here):
//   Forward / Inverse   the other direction, same scale;
//   RealToComplex       ComplexToReal of the cotangent with the points the real axis keeps once
//                       (k = 0 and, for even n, n/2) weighted 1 and the others 1/2: each of those
//                       stands for itself and its dropped conjugate twin;
//   ComplexToReal       RealToComplex of the cotangent, the twin-standing points weighted 2.
// (JAX's _rfft_transpose / _irfft_transpose, in the conjugate convention.)
#pragma once

#include "ad/builder.hpp"
#include "ops/fft_spec.hpp"

namespace tensora::ad {

struct FftRule {
  fft_detail::Spec spec;

  template <class B, class V = typename B::Value>
  void vjp(B& b, const RuleArgs<V>& /*a*/, const V& g, std::span<V> gin, const bool* needs) const {
    if (!needs[0]) return;
    const fft_detail::Spec back = fft_detail::adjoint(spec);
    switch (spec.kind) {
      case fft_detail::Kind::Forward:
      case fft_detail::Kind::Inverse: gin[0] = b.fft(g, back); break;
      case fft_detail::Kind::RealToComplex: gin[0] = b.fft(weigh_twins(b, g, 0.5), back); break;
      case fft_detail::Kind::ComplexToReal: gin[0] = weigh_twins(b, b.fft(g, back), 2.0); break;
    }
  }
  template <class B, class V = typename B::Value>
  V jvp(B& b, const RuleArgs<V>& /*a*/, std::span<const V> t) const {
    return b.fft(t[0], spec);
  }

 private:
  // x with the points 1 .. m - 1 - (n even) of the real axis (the half spectrum's points that
  // have a conjugate twin) multiplied by `w`.
  template <class B, class V>
  V weigh_twins(B& b, const V& x, double w) const {
    const std::int64_t axis = spec.axes.back(), n = spec.lengths.back(), m = n / 2 + 1;
    const std::int64_t end = n % 2 == 0 ? m - 1 : m;
    if (end <= 1) return x;
    std::vector<V> pieces{b.slice(x, axis, 0, 1, 1), b.binary(BinaryOp::Mul, b.slice(x, axis, 1, end, 1), Scalar(w))};
    if (end < m) pieces.push_back(b.slice(x, axis, end, m, 1));
    return b.concat(std::move(pieces), axis);
  }
};

}  // namespace tensora::ad
