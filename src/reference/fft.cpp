// The reference FFT: the defining sums, O(n^2) per line, accumulated in long double with each
// twiddle's angle reduced exactly (j k mod n) before it is formed. One axis after another, as
// the CPU backend, but written from the definitions alone.
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "reference/reference_backend.hpp"

namespace tensora::reference {

namespace {

using fft_detail::Kind;
using L = long double;
using CL = std::complex<L>;

enum class Line { Forward, Inverse, RealToComplex, ComplexToReal };

CL twiddle(std::int64_t j, std::int64_t k, std::int64_t n, L sign) {
  // j, k < n, and an O(n^2) engine never sees n near 2^32, so j k fits 64 bits.
  const auto r = static_cast<L>((static_cast<std::uint64_t>(j) * static_cast<std::uint64_t>(k)) %
                                static_cast<std::uint64_t>(n));
  const L angle = sign * 2 * std::numbers::pi_v<L> * r / static_cast<L>(n);
  return {std::cos(angle), std::sin(angle)};
}

// One line: `x` holds the input points (n, or n/2 + 1 for ComplexToReal), the result has n
// points (n/2 + 1 for RealToComplex; real parts only for ComplexToReal).
std::vector<CL> transform(const std::vector<CL>& x, std::int64_t n, Line kind) {
  const std::int64_t outputs = kind == Line::RealToComplex ? n / 2 + 1 : n;
  std::vector<CL> y(static_cast<std::size_t>(outputs));
  for (std::int64_t k = 0; k < outputs; ++k) {
    CL sum = 0;
    if (kind == Line::ComplexToReal) {  // the Hermitian extension X_{n-j} = conj(X_j)
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t src = j <= n / 2 ? j : n - j;
        CL v = x[static_cast<std::size_t>(src)];
        if (j > n / 2) v = std::conj(v);
        if (j == 0 || 2 * j == n) v = v.real();
        sum += v * twiddle(j, k, n, 1);
      }
      sum = sum.real();
    } else {
      const L sign = kind == Line::Inverse ? 1 : -1;
      for (std::int64_t j = 0; j < n; ++j) sum += x[static_cast<std::size_t>(j)] * twiddle(j, k, n, sign);
    }
    y[static_cast<std::size_t>(k)] = sum;
  }
  return y;
}

template <class T>
void pass(const Tensor& dst, const Tensor& src, std::int64_t axis, std::int64_t n, Line kind, L scale) {
  using C = std::complex<T>;
  const Shape& shape = dst.shape();
  const auto ax = static_cast<std::size_t>(axis);
  const std::int64_t in_len = src.shape()[ax], out_len = shape[ax];
  const std::int64_t lines = out_len == 0 ? 0 : numel(shape) / out_len;
  const bool real_in = kind == Line::RealToComplex, real_out = kind == Line::ComplexToReal;
  for (std::int64_t l = 0; l < lines; ++l) {
    std::int64_t rest = l, s = 0, d = 0;
    for (std::size_t k = 0; k < shape.size(); ++k) {
      if (k == ax) continue;
      const std::int64_t at = rest % shape[k];
      rest /= shape[k];
      s += at * src.strides()[k];
      d += at * dst.strides()[k];
    }
    std::vector<CL> x(static_cast<std::size_t>(in_len));
    for (std::int64_t j = 0; j < in_len; ++j) {
      const std::int64_t at = s + j * src.strides()[ax];
      if (real_in) x[static_cast<std::size_t>(j)] = static_cast<const T*>(src.element_ptr())[at];
      else x[static_cast<std::size_t>(j)] = CL(static_cast<const C*>(src.element_ptr())[at]);
    }
    const std::vector<CL> y = transform(x, n, kind);
    for (std::int64_t j = 0; j < out_len; ++j) {
      const CL v = y[static_cast<std::size_t>(j)] * scale;
      const std::int64_t at = d + j * dst.strides()[ax];
      if (real_out) static_cast<T*>(const_cast<void*>(dst.element_ptr()))[at] = static_cast<T>(v.real());
      else static_cast<C*>(const_cast<void*>(dst.element_ptr()))[at] = C(static_cast<T>(v.real()), static_cast<T>(v.imag()));
    }
  }
}

template <class T>
void run(const fft_detail::Spec& spec, const Tensor& out, const Tensor& in) {
  const std::size_t count = spec.axes.size();
  const L scale = spec.scale;
  const std::int64_t last = spec.axes.back(), last_n = spec.lengths.back();
  switch (spec.kind) {
    case Kind::Forward:
    case Kind::Inverse:
      for (std::size_t i = 0; i < count; ++i)
        pass<T>(out, i == 0 ? in : out, spec.axes[i], spec.lengths[i],
                spec.kind == Kind::Forward ? Line::Forward : Line::Inverse, i + 1 == count ? scale : 1);
      return;
    case Kind::RealToComplex:
      pass<T>(out, in, last, last_n, Line::RealToComplex, count == 1 ? scale : 1);
      for (std::size_t i = 0; i + 1 < count; ++i)
        pass<T>(out, out, spec.axes[i], spec.lengths[i], Line::Forward, i + 2 == count ? scale : 1);
      return;
    case Kind::ComplexToReal: {
      Tensor work = in;
      if (count > 1) {
        work = Tensor::empty(in.shape(), in.dtype(), in.device());
        for (std::size_t i = 0; i + 1 < count; ++i)
          pass<T>(work, i == 0 ? in : work, spec.axes[i], spec.lengths[i], Line::Inverse, 1);
      }
      pass<T>(out, work, last, last_n, Line::ComplexToReal, scale);
      return;
    }
  }
}

}  // namespace

void fft(const fft_detail::Spec& spec, const Tensor& out, const Tensor& in) {
  if (out.numel() == 0) return;
  if (real_dtype(spec.input_dtype) == DType::F64) run<double>(spec, out, in);
  else run<float>(spec, out, in);
}

}  // namespace tensora::reference
