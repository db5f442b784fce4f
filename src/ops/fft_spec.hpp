// What one public FFT call computes, resolved from its arguments and the input's shape and
// dtype before any buffer is touched, so the three front doors validate alike and lower to the
// same primitive: (optional conj) -> crop / zero-pad -> one unnormalized multi-axis transform
// with a real scale -> (optional conj). docs/fft.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/small_vector.hpp"
#include "tensora/dtype.hpp"
#include "tensora/error.hpp"
#include "tensora/fft.hpp"
#include "tensora/shape.hpp"

namespace tensora::fft_detail {

// The primitive's kinds, unnormalized, over `axes`:
//   Forward / Inverse  complex -> complex, exp(-/+ 2 pi i jk/n) along every axis;
//   RealToComplex      real -> complex: the last axis keeps n/2 + 1 outputs, the others are
//                      Forward transforms;
//   ComplexToReal      complex -> real: Inverse along all but the last axis, then the inverse of
//                      the Hermitian extension along the last (input n/2 + 1 points, output n).
enum class Kind : std::uint8_t { Forward, Inverse, RealToComplex, ComplexToReal };

// The public transforms; the 2-D and n-D forms are the same four over several axes.
enum class Transform : std::uint8_t { Fft, Ifft, Rfft, Irfft, Hfft, Ihfft };
// A row's form in TENSORA_FFT_TRANSFORMS: one axis, the last two by default, or every axis.
enum class Form : std::uint8_t { One, Two, N };

// Axes or lengths of one call: inline up to four (a transform allocates only its result).
using AxisList = SmallVector<std::int64_t, 4>;

struct Spec {
  Kind kind;
  AxisList axes;     // normalized, distinct, as given
  AxisList lengths;  // the signal length along each axis
  double scale = 1.0;                 // applied to the transform's result
  bool conj_input = false;            // hfft: transform conj(x)
  bool conj_output = false;           // ihfft: return conj of the transform
  DType input_dtype;                  // the primitive's input: complex, or real for RealToComplex
  DType output_dtype;
};

// The extent the primitive's input has along axes[i] (the caller crops or pads to it), and the
// extent its output has there (inline: every call asks, once per axis).
inline std::int64_t input_extent(const Spec& spec, std::size_t i) {
  const bool last = i + 1 == spec.axes.size();
  return spec.kind == Kind::ComplexToReal && last ? spec.lengths[i] / 2 + 1 : spec.lengths[i];
}
inline std::int64_t output_extent(const Spec& spec, std::size_t i) {
  const bool last = i + 1 == spec.axes.size();
  return spec.kind == Kind::RealToComplex && last ? spec.lengths[i] / 2 + 1 : spec.lengths[i];
}
// Whether `shape` has the primitive's input extents along the spec's axes.
inline bool has_input_extents(const Spec& spec, const Shape& shape) {
  bool agree = true;
  for (std::size_t i = 0; i < spec.axes.size(); ++i)
    agree = agree && shape[static_cast<std::size_t>(spec.axes[i])] == input_extent(spec, i);
  return agree;
}
// The extent along axis `a` of `shape` once the spec's input (output) extents replace those of
// its axes: what output_shape computes, one axis at a time, building no shape.
inline std::int64_t extent_along(const Spec& spec, const Shape& shape, std::size_t a, bool output) {
  for (std::size_t i = 0; i < spec.axes.size(); ++i)
    if (spec.axes[i] == static_cast<std::int64_t>(a)) return output ? output_extent(spec, i) : input_extent(spec, i);
  return shape[a];
}
// Whether `out` is the primitive's output shape for an input of shape `in`.
inline bool is_output_shape(const Spec& spec, const Shape& in, const Shape& out) {
  if (out.size() != in.size()) return false;
  for (std::size_t a = 0; a < in.size(); ++a)
    if (out[a] != extent_along(spec, in, a, true)) return false;
  return true;
}
// The primitive's output shape for an input of shape `shape`; the same in place.
Shape output_shape(const Spec& spec, const Shape& shape);
void set_output_extents(const Spec& spec, Shape& shape);

// One axis (options.n, options.axis).
Spec resolve(Transform t, std::string_view op, const Shape& shape, DType dtype, const fft::FftOptions& options,
             const SourceLocation& where);
// Several axes (Form::Two or Form::N: the axes taken when neither axes nor s are given).
Spec resolve(Transform t, std::string_view op, const Shape& shape, DType dtype, const fft::FftnOptions& options,
             Form form, const SourceLocation& where);

// The primitive's own checks (also run by the direct primitive): dtype and extents agree with
// the spec. Used by backends' callers, never by kernels.
void check_primitive(const Spec& spec, const Shape& shape, DType dtype, const SourceLocation& where);

// The primitive whose result is the adjoint (conjugate transpose, as a real-linear map) of
// `spec`'s up to the Hermitian weights of the real axis (ad/fft_rules.hpp): Forward <->
// Inverse, RealToComplex <-> ComplexToReal, same axes, lengths and scale.
Spec adjoint(const Spec& spec);


// fftshift (inverse = false) / ifftshift: (axis, split) for each axis the roll moves (normalized
// axes; every axis when `axes` is empty), the result being concat(x[split:], x[:split]) along
// each. Axes of extent 0 or 1 move nothing and are left out.
std::vector<std::pair<std::int64_t, std::int64_t>> shifts(std::string_view op, const Shape& shape,
                                                          const std::vector<std::int64_t>& axes, bool inverse,
                                                          const SourceLocation& where);

// Stages one resolved call's input over `b`, the ops of a front door (direct, eager or traced),
// so each runs the same steps: convert a real input to complex where the transform wants
// complex, conj (hfft), crop (a view) and zero-pad to the input extents; then returns
// `primitive(staged)`. B provides shape(V) (a reference: no copy per call), dtype(V),
// convert(V, DType), conj(V), slice(V, axis, start, stop) and pad(V, widths).
template <class B, class V, class Primitive>
decltype(auto) with_staged_input(B& b, const V& input, const Spec& spec, Primitive&& primitive) {
  // The common case first: an input that needs no step goes to the primitive as it is (not
  // even an empty slot for a staged value is built: zeroing one showed in a 1024-point FFT).
  if (b.dtype(input) == spec.input_dtype && !spec.conj_input && has_input_extents(spec, b.shape(input)))
    return primitive(input);
  // Each step that makes a new value leaves it in `staged`; an input that needs none is not
  // copied (copying a tensor handle copies its shape and strides).
  std::optional<V> staged;
  const auto current = [&]() -> const V& { return staged ? *staged : input; };
  if (b.dtype(input) != spec.input_dtype) staged = b.convert(input, spec.input_dtype);
  if (spec.conj_input) staged = b.conj(current());
  // The axes are distinct, so cropping one leaves the others' extents as they were.
  std::vector<std::pair<std::int64_t, std::int64_t>> widths;  // sized when an axis is padded
  for (std::size_t i = 0; i < spec.axes.size(); ++i) {
    const auto axis = static_cast<std::size_t>(spec.axes[i]);
    const std::int64_t want = input_extent(spec, i);
    const std::int64_t have = b.shape(current())[axis];
    if (have > want) staged = b.slice(current(), spec.axes[i], 0, want);
    if (have < want) {
      if (widths.empty()) widths.assign(b.shape(current()).size(), {0, 0});
      widths[axis].second = want - have;
    }
  }
  if (!widths.empty()) staged = b.pad(current(), widths);
  return primitive(current());
}

// Lowers one resolved call: the staged input, the primitive (b.transform(V, Spec)), conj (ihfft).
template <class B, class V>
V lower(B& b, const V& input, const Spec& spec) {
  return with_staged_input(b, input, spec, [&](const V& x) {
    V y = b.transform(x, spec);
    if (spec.conj_output) y = b.conj(y);
    return y;
  });
}

// The rolls of `shifts(...)` over a front door's ops (slice(V, axis, start, stop), concat).
template <class B, class V>
V roll(B& b, V x, const std::vector<std::pair<std::int64_t, std::int64_t>>& shifts) {
  for (const auto& [axis, split] : shifts) {
    const std::int64_t n = b.shape(x)[static_cast<std::size_t>(axis)];
    x = b.concat({b.slice(x, axis, split, n), b.slice(x, axis, 0, split)}, axis);
  }
  return x;
}

}  // namespace tensora::fft_detail
