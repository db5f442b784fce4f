#include "cpu/fft_driver.hpp"

#include <algorithm>
#include <complex>
#include <vector>

#include "cpu/fft_provider.hpp"

namespace tensora::cpu {

namespace {

using fft_detail::Kind;

// Lines of one pass per parallel task: about this many points.
constexpr std::int64_t kPointsPerTask = 1 << 15;

// One pass: a 1-D transform of every line of `src` along `axis` into the same line of `dst`
// (src may be dst: each line is read whole before it is written), times `scale`.
template <class T>
void pass(const Tensor& dst, const Tensor& src, std::int64_t axis, std::int64_t n, fft::Kind kind, T scale,
          Engine& engine) {
  using C = std::complex<T>;
  const auto plan = fft::provider_plan<T>(n, kind);
  const Shape& shape = dst.shape();
  const auto ax = static_cast<std::size_t>(axis);
  const std::int64_t out_len = shape[ax];
  const std::int64_t lines = out_len == 0 ? 0 : numel(shape) / out_len;
  if (lines == 0) return;
  const bool real_in = kind == fft::Kind::RealToComplex, real_out = kind == fft::Kind::ComplexToReal;
  const std::size_t in_size = real_in ? sizeof(T) : sizeof(C), out_size = real_out ? sizeof(T) : sizeof(C);
  const auto* src_base = static_cast<const char*>(src.element_ptr());
  auto* dst_base = static_cast<char*>(const_cast<void*>(dst.element_ptr()));
  const Strides& ss = src.strides();
  const Strides& ds = dst.strides();
  const std::int64_t grain = std::max<std::int64_t>(1, kPointsPerTask / std::max<std::int64_t>(n, 1));
  auto body = [&](std::int64_t begin, std::int64_t end) {
    std::vector<T> scratch(plan->scratch_size());
    std::vector<C> line(static_cast<std::size_t>(out_len));
    for (std::int64_t l = begin; l < end; ++l) {
      // Column-major unravel of the line index over every axis but `axis`.
      std::int64_t rest = l;
      const char* s = src_base;
      char* d = dst_base;
      for (std::size_t k = 0; k < shape.size(); ++k) {
        if (k == ax) continue;
        const std::int64_t at = rest % shape[k];
        rest /= shape[k];
        s += at * ss[k] * static_cast<std::int64_t>(in_size);
        d += at * ds[k] * static_cast<std::int64_t>(out_size);
      }
      plan->execute(s, ss[ax], line.data(), 1, scratch.data());
      if (real_out) {
        const T* r = reinterpret_cast<const T*>(line.data());
        T* o = reinterpret_cast<T*>(d);
        for (std::int64_t j = 0; j < out_len; ++j) o[j * ds[ax]] = scale == T(1) ? r[j] : r[j] * scale;
      } else {
        C* o = reinterpret_cast<C*>(d);
        for (std::int64_t j = 0; j < out_len; ++j) {
          const C v = line[static_cast<std::size_t>(j)];
          o[j * ds[ax]] = scale == T(1) ? v : C(v.real() * scale, v.imag() * scale);
        }
      }
    }
  };
  if (lines <= grain) body(0, lines);
  else engine.parallel_for(lines, grain, body);
}

template <class T>
void run(const fft_detail::Spec& spec, const Tensor& out, const Tensor& in, Engine& engine) {
  const std::size_t count = spec.axes.size();
  const T scale = static_cast<T>(spec.scale);
  const std::int64_t last = spec.axes.back();
  const std::int64_t last_n = spec.lengths.back();
  switch (spec.kind) {
    case Kind::Forward:
    case Kind::Inverse: {
      const auto kind = spec.kind == Kind::Forward ? fft::Kind::Forward : fft::Kind::Inverse;
      for (std::size_t i = 0; i < count; ++i)
        pass<T>(out, i == 0 ? in : out, spec.axes[i], spec.lengths[i], kind, i + 1 == count ? scale : T(1), engine);
      return;
    }
    case Kind::RealToComplex:  // the real axis first, then the complex ones in place
      pass<T>(out, in, last, last_n, fft::Kind::RealToComplex, count == 1 ? scale : T(1), engine);
      for (std::size_t i = 0; i + 1 < count; ++i)
        pass<T>(out, out, spec.axes[i], spec.lengths[i], fft::Kind::Forward, i + 2 == count ? scale : T(1), engine);
      return;
    case Kind::ComplexToReal: {  // the complex axes first (into a scratch tensor), the real one last
      Tensor work = in;
      if (count > 1) {
        work = Tensor::empty(in.shape(), in.dtype(), in.device());
        for (std::size_t i = 0; i + 1 < count; ++i)
          pass<T>(work, i == 0 ? in : work, spec.axes[i], spec.lengths[i], fft::Kind::Inverse, T(1), engine);
      }
      pass<T>(out, work, last, last_n, fft::Kind::ComplexToReal, scale, engine);
      return;
    }
  }
}

}  // namespace

void run_fft(const fft_detail::Spec& spec, const Tensor& out, const Tensor& in, Engine& engine) {
  if (out.numel() == 0) return;
  if (real_dtype(spec.input_dtype) == DType::F64) run<double>(spec, out, in, engine);
  else run<float>(spec, out, in, engine);
}

}  // namespace tensora::cpu
