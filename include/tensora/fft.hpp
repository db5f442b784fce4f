// Discrete Fourier transforms with numpy.fft's names and semantics (docs/fft.md): one axis
// (fft, ifft, rfft, irfft, hfft, ihfft), two (fft2, ...), several (fftn, ...), sample
// frequencies and shifts. Every transform exists in the three call forms: on a Tensor with an
// explicit engine (strict dtypes), on an EagerTensor (the thread's active session; recorded
// for autodiff) and on a TracedTensor (a graph node).
//
//   auto y = fft::rfft(x, fft::FftOptions{.n = 256, .norm = fft::Norm::Ortho}, e);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"
#include "tensora/tensor_options.hpp"

namespace tensora {

class EagerTensor;
class TracedTensor;

namespace fft {

// Which direction is scaled: Backward (the default) leaves the forward transform unscaled and
// divides the inverse by n; Ortho scales both by 1/sqrt(n); Forward divides the forward one.
enum class Norm { Backward, Ortho, Forward };

// One axis. n: the signal length along it (the input is cropped or zero-padded to n; for
// irfft / hfft the output length, default 2 * (m - 1) for m input points).
struct FftOptions {
  std::optional<std::int64_t> n = std::nullopt;
  std::int64_t axis = -1;
  Norm norm = Norm::Backward;
};

// Several axes. axes: default every axis (the last two for the *2 forms), or the last
// s->size() axes when only s is given; s: the signal length per axis (as n above).
struct FftnOptions {
  std::optional<Shape> s = std::nullopt;
  std::vector<std::int64_t> axes = {};
  Norm norm = Norm::Backward;
};

// The transforms, one row each: name, what it lowers to (fft_detail::Transform) and its form:
// One (one axis, FftOptions), Two (the last two axes by default, FftnOptions) or N (every axis
// by default, FftnOptions). The three front doors' declarations and definitions are expanded
// from this list.
#define TENSORA_FFT_TRANSFORMS(X)                                                                   \
  X(fft, Fft, One) X(ifft, Ifft, One) X(rfft, Rfft, One) X(irfft, Irfft, One) X(hfft, Hfft, One)   \
  X(ihfft, Ihfft, One) X(fft2, Fft, Two) X(ifft2, Ifft, Two) X(rfft2, Rfft, Two)                   \
  X(irfft2, Irfft, Two) X(fftn, Fft, N) X(ifftn, Ifft, N) X(rfftn, Rfft, N) X(irfftn, Irfft, N)
#define TENSORA_FFT_OPTIONS_One FftOptions
#define TENSORA_FFT_OPTIONS_Two FftnOptions
#define TENSORA_FFT_OPTIONS_N FftnOptions

#define TENSORA_FFT_DECLARE(name, transform, form)                                                        \
  Tensor name(const Tensor& x, Engine& engine, SourceLocation where = SourceLocation::current());        \
  Tensor name(const Tensor& x, const TENSORA_FFT_OPTIONS_##form& options, Engine& engine,                 \
              SourceLocation where = SourceLocation::current());                                         \
  void name##_into(const Tensor& x, Engine& engine, const Tensor& dest,                                   \
                   SourceLocation where = SourceLocation::current());                                    \
  void name##_into(const Tensor& x, const TENSORA_FFT_OPTIONS_##form& options, Engine& engine,           \
                   const Tensor& dest, SourceLocation where = SourceLocation::current());                \
  EagerTensor name(const EagerTensor& x, SourceLocation where = SourceLocation::current());              \
  EagerTensor name(const EagerTensor& x, const TENSORA_FFT_OPTIONS_##form& options,                      \
                   SourceLocation where = SourceLocation::current());                                    \
  TracedTensor name(const TracedTensor& x, SourceLocation where = SourceLocation::current());            \
  TracedTensor name(const TracedTensor& x, const TENSORA_FFT_OPTIONS_##form& options,                    \
                    SourceLocation where = SourceLocation::current());

// Complex results (C64 from F32/C64 input, C128 from F64/C128); rfft/rfftn/ihfft take real
// input; irfft/irfftn/hfft return real. The direct forms throw UnsupportedDType for integers,
// Bool, F16 and BF16 (convert first); eager and traced promote those to the default float.
// `name_into(x, [options,] engine, dest)` writes the result into dest (its dtype, shape and
// device must be the result's; an overlap with x is refused unless dest is the very same view,
// which transforms a complex tensor in place).
TENSORA_FFT_TRANSFORMS(TENSORA_FFT_DECLARE)
#undef TENSORA_FFT_DECLARE

// The sample frequencies of an n-point transform with sample spacing d, as numpy.fft:
// [0, 1, ..., (n-1)/2, -(n/2), ..., -1] / (d n), and rfftfreq's [0, 1, ..., n/2] / (d n).
// options: the device and a float dtype (default: the device's default float).
Tensor fftfreq(std::int64_t n, double d = 1.0, TensorOptions options = {},
               SourceLocation where = SourceLocation::current());
Tensor rfftfreq(std::int64_t n, double d = 1.0, TensorOptions options = {},
                SourceLocation where = SourceLocation::current());

// Rolls the zero frequency to the centre (fftshift) and back (ifftshift), along every axis or
// the given ones.
Tensor fftshift(const Tensor& x, Engine& engine, SourceLocation where = SourceLocation::current());
Tensor fftshift(const Tensor& x, const std::vector<std::int64_t>& axes, Engine& engine,
                SourceLocation where = SourceLocation::current());
Tensor ifftshift(const Tensor& x, Engine& engine, SourceLocation where = SourceLocation::current());
Tensor ifftshift(const Tensor& x, const std::vector<std::int64_t>& axes, Engine& engine,
                 SourceLocation where = SourceLocation::current());
EagerTensor fftshift(const EagerTensor& x, SourceLocation where = SourceLocation::current());
EagerTensor fftshift(const EagerTensor& x, const std::vector<std::int64_t>& axes,
                     SourceLocation where = SourceLocation::current());
EagerTensor ifftshift(const EagerTensor& x, SourceLocation where = SourceLocation::current());
EagerTensor ifftshift(const EagerTensor& x, const std::vector<std::int64_t>& axes,
                      SourceLocation where = SourceLocation::current());
TracedTensor fftshift(const TracedTensor& x, SourceLocation where = SourceLocation::current());
TracedTensor fftshift(const TracedTensor& x, const std::vector<std::int64_t>& axes,
                      SourceLocation where = SourceLocation::current());
TracedTensor ifftshift(const TracedTensor& x, SourceLocation where = SourceLocation::current());
TracedTensor ifftshift(const TracedTensor& x, const std::vector<std::int64_t>& axes,
                       SourceLocation where = SourceLocation::current());

}  // namespace fft

// The provider of the CPU engine's transforms: "FFTW 3.3.10" (loaded at run time when present)
// or "built-in" (docs/fft.md; TENSORA_FFT=fftw|builtin forces one).
std::string fft_backend();

}  // namespace tensora
