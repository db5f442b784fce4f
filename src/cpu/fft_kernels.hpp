// The built-in FFT algorithm core: plans for unnormalized 1-D complex and real transforms of any
// length n >= 1 in O(n log n) (mixed-radix Stockham, four-step for large n, Bluestein for lengths
// with a large prime factor), cached per (n, kind) for the life of the process. A plan is immutable
// and executes one line at a time with caller-owned scratch, so many threads may share it; the
// result depends only on (n, kind, input values), never on strides, alignment or threads.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace tensora::cpu::fft {

// Unnormalized 1-D transforms of a signal of length n:
//   Forward        complex n -> complex n, X_k = sum_j x_j exp(-2 pi i j k / n)
//   Inverse        complex n -> complex n, x_j = sum_k X_k exp(+2 pi i j k / n)   (no 1/n)
//   RealToComplex  real n    -> complex n/2+1 (the first n/2+1 outputs of Forward on the real signal)
//   ComplexToReal  complex n/2+1 -> real n: the Inverse of the Hermitian extension
//                  (X_{n-k} = conj(X_k)); the imaginary parts of X_0 and, for even n, X_{n/2}
//                  are ignored (as FFTW and NumPy's irfft do).
enum class Kind : std::uint8_t { Forward, Inverse, RealToComplex, ComplexToReal };

template <class T>  // T = float or double
class Plan {
 public:
  virtual ~Plan() = default;
  virtual std::int64_t size() const = 0;  // n, the signal length
  virtual Kind kind() const = 0;
  // Elements of T of scratch one execute() needs (the caller owns it; one buffer per thread).
  virtual std::size_t scratch_size() const = 0;
  // One transform. `in` / `out` point at the first element; strides are in elements of the
  // element type (std::complex<T> for complex sides, T for real sides), may be any non-zero
  // value (negative too). in and out do not overlap. const and thread-safe: many threads may
  // execute one plan at once, each with its own scratch.
  virtual void execute(const void* in, std::int64_t in_stride, void* out, std::int64_t out_stride,
                       T* scratch) const = 0;
};

// The plan for (n, kind), n >= 1, built once and cached for the life of the process (cache
// guarded by a mutex; plans are immutable). Thread-safe. Throws std::invalid_argument for n < 1
// or n > 2^40.
template <class T>
std::shared_ptr<const Plan<T>> plan(std::int64_t n, Kind kind);

}  // namespace tensora::cpu::fft
