// The direct FFT op set (tensora/fft.hpp on Tensor): resolve the call (ops/fft_spec), lower it
// over direct ops, and run the primitive as one backend call. Frequencies and shifts.
#include <cmath>
#include <string_view>

#include "backend/backend.hpp"
#include "core/checks.hpp"
#include "direct/direct.hpp"
#include "ops/validate.hpp"
#include "tensora/fft.hpp"

namespace tensora {

namespace {

using fft_detail::Spec;
using fft_detail::Transform;
using Loc = SourceLocation;

// fft_detail::lower's ops on tensors and one engine.
struct DirectOps {
  Engine& e;
  Loc where;
  const Shape& shape(const Tensor& x) const { return x.shape(); }
  DType dtype(const Tensor& x) const { return x.dtype(); }
  Tensor convert(const Tensor& x, DType d) { return x.convert(d, e, where); }
  Tensor conj(const Tensor& x) { return x.conj(e, where); }
  Tensor slice(const Tensor& x, std::int64_t axis, std::int64_t start, std::int64_t stop) {
    return x.slice(axis, start, stop, 1, where);
  }
  Tensor concat(std::vector<Tensor> xs, std::int64_t axis) { return tensora::concat(std::move(xs), axis, e, where); }
  Tensor pad(const Tensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& w) { return x.pad(w, e, where); }
  Tensor transform(const Tensor& x, const Spec& spec) { return direct::fft_transform(x, spec, e, where); }
};

Tensor run(const Tensor& x, const Spec& spec, Engine& e, Loc where) {
  DirectOps ops{e, where};
  return fft_detail::lower(ops, x, spec);
}

// The `_into` forms: the result written into `dest`, which must have the result's dtype, shape
// and device; an overlap with `x` is refused unless dest is the very same view (an in-place
// complex transform, which the backends run line by line). No buffer is allocated when the
// input needs no staging, so a loop of transforms into one buffer pays only the transform.
void run_into(std::string_view op, const Tensor& x, const Spec& spec, Engine& e, const Tensor& dest, const Loc& where) {
  // The expected shape is built only when dest's differs (for the error's message).
  if (dest.defined() && fft_detail::is_output_shape(spec, x.shape(), dest.shape()))
    validate::destination(op, dest, spec.output_dtype, dest.shape(), e.device(), {&x}, where);
  else
    validate::destination(op, dest, spec.output_dtype, fft_detail::output_shape(spec, x.shape()), e.device(), {&x},
                          where);
  DirectOps ops{e, where};
  // The staged input has the spec's dtype and extents by construction (the spec was resolved
  // from x), so the primitive's own check (fft_transform's) is not repeated.
  fft_detail::with_staged_input(ops, x, spec, [&](const Tensor& staged) {
    e.backend().fft(spec, dest, staged, e);
    if (spec.conj_output) dest.conj_into(e, dest, where);
  });
}

Tensor apply(Transform t, std::string_view op, fft_detail::Form, const Tensor& x, const fft::FftOptions& o, Engine& e,
                const Loc& where) {
  validate::operands(op, e, {&x}, where);
  return run(x, fft_detail::resolve(t, op, x.shape(), x.dtype(), o, where), e, where);
}

Tensor apply(Transform t, std::string_view op, fft_detail::Form form, const Tensor& x, const fft::FftnOptions& o,
                Engine& e, const Loc& where) {
  validate::operands(op, e, {&x}, where);
  return run(x, fft_detail::resolve(t, op, x.shape(), x.dtype(), o, form, where), e, where);
}

void apply_into(Transform t, std::string_view op, fft_detail::Form, const Tensor& x, const fft::FftOptions& o, Engine& e,
                const Tensor& dest, const Loc& where) {
  validate::operands(op, e, {&x}, where);
  run_into(op, x, fft_detail::resolve(t, op, x.shape(), x.dtype(), o, where), e, dest, where);
}

void apply_into(Transform t, std::string_view op, fft_detail::Form form, const Tensor& x, const fft::FftnOptions& o,
                Engine& e, const Tensor& dest, const Loc& where) {
  validate::operands(op, e, {&x}, where);
  run_into(op, x, fft_detail::resolve(t, op, x.shape(), x.dtype(), o, form, where), e, dest, where);
}

Tensor shift(const char* op, const Tensor& x, const std::vector<std::int64_t>& axes, bool inverse, Engine& e,
             Loc where) {
  validate::operands(op, e, {&x}, where);
  const auto rolls = fft_detail::shifts(op, x.shape(), axes, inverse, where);
  if (rolls.empty()) return x.duplicate(where);  // a new tensor either way, as every direct op
  DirectOps ops{e, where};
  return fft_detail::roll(ops, x, rolls);
}

Tensor frequencies(const char* op, std::int64_t n, double d, TensorOptions options, bool real, Loc where) {
  if (n < 1) check::fail_invalid(op, "n must be at least 1, got " + std::to_string(n), "n", where);
  if (d == 0 || !std::isfinite(d))
    check::fail_invalid(op, "the sample spacing d must be finite and non-zero, got " + std::to_string(d), "d", where);
  const DType dtype = options.dtype.value_or(options.device.settings().float_dtype);
  if (!is_floating(dtype) || dtype == DType::F16 || dtype == DType::BF16)
    check::fail_unsupported_dtype(op, dtype, "frequencies are F32 or F64", where);
  const std::int64_t count = real ? n / 2 + 1 : n;
  std::vector<double> f(static_cast<std::size_t>(count));
  const double step = 1.0 / (d * static_cast<double>(n));
  for (std::int64_t k = 0; k < count; ++k) {
    const std::int64_t index = real || k <= (n - 1) / 2 ? k : k - n;
    f[static_cast<std::size_t>(k)] = static_cast<double>(index) * step;
  }
  return Tensor::from_floats(std::move(f), TensorOptions(options.device, dtype), where);
}

}  // namespace

Tensor direct::fft_transform(const Tensor& x, const Spec& spec, Engine& engine, Loc where) {
  validate::operands("fft", engine, {&x}, where);
  fft_detail::check_primitive(spec, x.shape(), x.dtype(), where);
  Tensor out = Tensor::empty(fft_detail::output_shape(spec, x.shape()), spec.output_dtype, x.device(), where);
  engine.backend().fft(spec, out, x, engine);
  return out;
}

namespace fft {

#define TENSORA_FFT_DEFINE(name, kind, form)                                                       \
  Tensor name(const Tensor& x, Engine& e, Loc where) {                                                    \
    return apply(Transform::kind, #name, fft_detail::Form::form, x, TENSORA_FFT_OPTIONS_##form{}, e, where); \
  }                                                                                                       \
  Tensor name(const Tensor& x, const TENSORA_FFT_OPTIONS_##form& o, Engine& e, Loc where) {               \
    return apply(Transform::kind, #name, fft_detail::Form::form, x, o, e, where);                \
  }                                                                                                       \
  void name##_into(const Tensor& x, Engine& e, const Tensor& dest, Loc where) {                           \
    apply_into(Transform::kind, #name, fft_detail::Form::form, x, TENSORA_FFT_OPTIONS_##form{}, e, dest, where); \
  }                                                                                                       \
  void name##_into(const Tensor& x, const TENSORA_FFT_OPTIONS_##form& o, Engine& e, const Tensor& dest,  \
                   Loc where) {                                                                          \
    apply_into(Transform::kind, #name, fft_detail::Form::form, x, o, e, dest, where);                   \
  }
TENSORA_FFT_TRANSFORMS(TENSORA_FFT_DEFINE)
#undef TENSORA_FFT_DEFINE

Tensor fftfreq(std::int64_t n, double d, TensorOptions options, Loc where) {
  return frequencies("fftfreq", n, d, options, false, where);
}
Tensor rfftfreq(std::int64_t n, double d, TensorOptions options, Loc where) {
  return frequencies("rfftfreq", n, d, options, true, where);
}

Tensor fftshift(const Tensor& x, Engine& e, Loc where) { return shift("fftshift", x, {}, false, e, where); }
Tensor fftshift(const Tensor& x, const std::vector<std::int64_t>& axes, Engine& e, Loc where) {
  return shift("fftshift", x, axes, false, e, where);
}
Tensor ifftshift(const Tensor& x, Engine& e, Loc where) { return shift("ifftshift", x, {}, true, e, where); }
Tensor ifftshift(const Tensor& x, const std::vector<std::int64_t>& axes, Engine& e, Loc where) {
  return shift("ifftshift", x, axes, true, e, where);
}

}  // namespace fft
}  // namespace tensora
