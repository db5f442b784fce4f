#include "cpu/fft_driver.hpp"

#include <algorithm>
#include <complex>
#include <memory>
#include <optional>

#include "cpu/fft_provider.hpp"
#include "cpu/scratch.hpp"

namespace tensora::cpu {

namespace {

using fft_detail::Kind;

// Lines of one pass per parallel task: about this many points.
constexpr std::int64_t kPointsPerTask = 1 << 15;

// Multiplies `count` values (reals or complex) at `p`, `stride` elements apart, by `scale`.
template <class T>
void scale_line(void* p, std::int64_t stride, std::int64_t count, bool real, T scale) {
  if (real) {
    T* r = static_cast<T*>(p);
    for (std::int64_t j = 0; j < count; ++j) r[j * stride] *= scale;
  } else {
    auto* c = static_cast<std::complex<T>*>(p);
    for (std::int64_t j = 0; j < count; ++j) c[j * stride] = {c[j * stride].real() * scale, c[j * stride].imag() * scale};
  }
}

// A task's plan scratch (`count` elements): the thread's kept buffer when it is at most
// kKeptScratchBytes, so a small transform does not pay an allocation as large as its own work
// on every call; above that one from the caching allocator, owned by `owned` (a buffer an
// earlier transform freed comes back without page faults). Tasks on one thread run one after
// another, so the kept buffer is never shared.
constexpr std::size_t kKeptScratchBytes = std::size_t{1} << 20;

template <class T>
T* task_scratch(std::size_t count, std::optional<Scratch<T>>& owned) {
  if (count * sizeof(T) > kKeptScratchBytes) return owned.emplace(count).data();  // plans overwrite it
  thread_local std::unique_ptr<T[]> kept;
  thread_local std::size_t kept_count = 0;
  if (kept_count < count) {
    kept.reset(new T[count]);
    kept_count = count;
  }
  return kept.get();
}

// Lines per tile on a strided axis.
constexpr std::int64_t kBlock = 8;

// tile[b * len + j] = line b's element j (lines start at `lines[b]`, elements `stride` apart).
template <class E>
void gather(const char* const* lines, std::int64_t count, std::int64_t stride, std::int64_t len, E* tile) {
  for (std::int64_t j = 0; j < len; ++j)
    for (std::int64_t b = 0; b < count; ++b) tile[b * len + j] = reinterpret_cast<const E*>(lines[b])[j * stride];
}
template <class E>
void scatter(const E* tile, char* const* lines, std::int64_t count, std::int64_t stride, std::int64_t len) {
  for (std::int64_t j = 0; j < len; ++j)
    for (std::int64_t b = 0; b < count; ++b) reinterpret_cast<E*>(lines[b])[j * stride] = tile[b * len + j];
}

// One pass: a 1-D transform of every line of `src` along `axis` into the same line of `dst`
// (src may be dst: each line is read whole before it is written), times `scale`.
template <class T>
void pass(const Tensor& dst, const Tensor& src, std::int64_t axis, std::int64_t n, fft::Kind kind, T scale,
          Engine& engine) {
  using C = std::complex<T>;
  const fft::Plan<T>& plan = fft::provider_plan<T>(n, kind);
  const Shape& shape = dst.shape();
  const auto ax = static_cast<std::size_t>(axis);
  const std::int64_t out_len = shape[ax];
  // The other axes' extents multiplied, not numel / out_len: no division on every call.
  std::int64_t lines = out_len == 0 ? 0 : 1;
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (k != ax) lines *= shape[k];
  if (lines == 0) return;
  const bool real_in = kind == fft::Kind::RealToComplex, real_out = kind == fft::Kind::ComplexToReal;
  const std::size_t in_size = real_in ? sizeof(T) : sizeof(C), out_size = real_out ? sizeof(T) : sizeof(C);
  const auto* src_base = static_cast<const char*>(src.element_ptr());
  auto* dst_base = static_cast<char*>(const_cast<void*>(dst.element_ptr()));
  const Strides& ss = src.strides();
  const Strides& ds = dst.strides();
  // Column-major unravel of a line index over every axis but `axis`: the line's first element.
  auto line_at = [&](std::int64_t l, const char*& s, char*& d) {
    s = src_base;
    d = dst_base;
    for (std::size_t k = 0; k < shape.size(); ++k) {
      if (k == ax) continue;
      const std::int64_t at = l % shape[k];
      l /= shape[k];
      s += at * ss[k] * static_cast<std::int64_t>(in_size);
      d += at * ds[k] * static_cast<std::int64_t>(out_size);
    }
  };
  const std::int64_t in_len = src.shape()[ax];
  // Lines along a strided axis are copied kBlock at a time through tiles (neighbouring lines
  // share cache lines, so each one read serves kBlock lines: a blocked transpose); unit-stride
  // lines are read in place and written directly, except in an in-place pass (plans read and
  // write separate arrays). Copies change no value, so every path gives the same bits.
  const bool tiled = ss[ax] != 1 || ds[ax] != 1 || src.element_ptr() == dst.element_ptr();
  // A single unit-stride line (one 1-D transform, the common small call): the plan runs on the
  // tensors' memory with no task, line arithmetic or tile around it.
  if (lines == 1 && !tiled) {
    std::optional<Scratch<T>> owned;
    plan.execute(src_base, 1, dst_base, 1, task_scratch<T>(plan.scratch_size(), owned));
    if (scale != T(1)) scale_line<T>(dst_base, 1, out_len, real_out, scale);
    return;
  }
  auto body = [&](std::int64_t begin, std::int64_t end) {
    std::optional<Scratch<T>> owned;
    T* const scratch = task_scratch<T>(plan.scratch_size(), owned);
    if (!tiled) {
      for (std::int64_t l = begin; l < end; ++l) {
        const char* s = nullptr;
        char* d = nullptr;
        line_at(l, s, d);
        plan.execute(s, 1, d, 1, scratch);
        if (scale != T(1)) scale_line<T>(d, 1, out_len, real_out, scale);
      }
      return;
    }
    const Scratch<C> in_tile(static_cast<std::size_t>(kBlock * in_len));  // no fresh pages per call
    const Scratch<C> out_tile(static_cast<std::size_t>(kBlock * out_len));
    const char* s[kBlock];
    char* d[kBlock];
    for (std::int64_t l0 = begin; l0 < end; l0 += kBlock) {
      const std::int64_t count = std::min<std::int64_t>(kBlock, end - l0);
      for (std::int64_t b = 0; b < count; ++b) line_at(l0 + b, s[b], d[b]);
      if (real_in) gather<T>(s, count, ss[ax], in_len, reinterpret_cast<T*>(in_tile.data()));
      else gather<C>(s, count, ss[ax], in_len, in_tile.data());
      for (std::int64_t b = 0; b < count; ++b) {
        const void* x = real_in ? static_cast<const void*>(reinterpret_cast<const T*>(in_tile.data()) + b * in_len)
                                : in_tile.data() + b * in_len;
        void* y = real_out ? static_cast<void*>(reinterpret_cast<T*>(out_tile.data()) + b * out_len)
                           : out_tile.data() + b * out_len;
        plan.execute(x, 1, y, 1, scratch);
        if (scale != T(1)) scale_line<T>(y, 1, out_len, real_out, scale);
      }
      if (real_out) scatter<T>(reinterpret_cast<const T*>(out_tile.data()), d, count, ds[ax], out_len);
      else scatter<C>(out_tile.data(), d, count, ds[ax], out_len);
    }
  };
  // One task when the lines hold at most kPointsPerTask points (lines <= kPointsPerTask / n,
  // tested without dividing), else tasks of about that many.
  if (lines == 1 || lines * n <= kPointsPerTask) body(0, lines);
  else engine.parallel_for(lines, std::max<std::int64_t>(1, kPointsPerTask / n), body);
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
