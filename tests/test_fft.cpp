// tensora::fft against the defining sums (long double), numpy.fft's identities, its errors, the
// engines (serial, parallel, reference) and the three front doors with their gradients.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <numbers>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cpu/fft_kernels.hpp"
#include "cpu/fftw_provider.hpp"
#include "ops/fft_spec.hpp"
#include "tensora/tensora.hpp"
#include "test_eager_check.hpp"
#include "test_support.hpp"

namespace {

namespace ta = tensora;
namespace fft = tensora::fft;
using ta::DType;
using ta::Shape;
using ta::Tensor;
using tensora_test::expect_error;
using cd = std::complex<double>;
using CL = std::complex<long double>;

ta::TensorOptions opts(DType d) { return ta::TensorOptions(ta::Device::cpu(), d); }

ta::CpuEngine& serial() {
  static ta::CpuEngine e = ta::CpuEngine::serial();
  return e;
}
ta::CpuEngine& parallel3() {
  static ta::CpuEngine e = ta::CpuEngine::parallel(3);
  return e;
}

// Random values of `dtype` (complex: both parts), deterministic per seed.
Tensor random(Shape shape, DType dtype, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  if (ta::is_complex(dtype)) {
    std::vector<cd> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = cd(u(rng), u(rng));
    return Tensor::from_vec_col_major(shape, v).cast(dtype, serial());
  }
  std::vector<double> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = u(rng);
  return Tensor::from_vec_col_major(shape, v).cast(dtype, serial());
}

std::vector<cd> values(const Tensor& t) {
  const Tensor c = t.cast(ta::is_complex(t.dtype()) || ta::is_floating(t.dtype()) ? DType::C128 : DType::C128, serial());
  return c.to_vec<cd>();
}

// The defining sum of a 1-D line, exp(sign 2 pi i jk/n), in long double with exact angle reduction.
std::vector<CL> dft(const std::vector<cd>& x, std::int64_t n, int sign) {
  std::vector<CL> w(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < n; ++r) {
    const long double a = sign * 2 * std::numbers::pi_v<long double> * r / n;
    w[static_cast<std::size_t>(r)] = {std::cos(a), std::sin(a)};
  }
  std::vector<CL> y(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) {
    CL s = 0;
    for (std::int64_t j = 0; j < n; ++j)
      s += CL(x[static_cast<std::size_t>(j)]) * w[static_cast<std::size_t>((j * k) % n)];
    y[static_cast<std::size_t>(k)] = s;
  }
  return y;
}

// max |got - want| / max |want|.
template <class W>
double rel_error(const std::vector<cd>& got, const std::vector<W>& want) {
  EXPECT_EQ(got.size(), want.size());
  long double err = 0, scale = 0;
  for (std::size_t i = 0; i < got.size() && i < want.size(); ++i) {
    err = std::max(err, std::abs(CL(got[i]) - CL(want[i])));
    scale = std::max(scale, std::abs(CL(want[i])));
  }
  return static_cast<double>(scale == 0 ? err : err / scale);
}

double tolerance(DType d, std::int64_t n) {
  const double lg = std::log2(static_cast<double>(std::max<std::int64_t>(n, 2)));
  return (ta::real_dtype(d) == DType::F64 ? 4e-16 : 2e-7) * 8 * lg;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const auto x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.element_ptr(), y.element_ptr(), static_cast<std::size_t>(a.numel()) * ta::size_of(a.dtype())) == 0;
}

// ---- values --------------------------------------------------------------------------------

TEST(FftValues, EverySizeFrom1To64AgainstTheLongDoubleSum) {
  for (const DType dt : {DType::C128, DType::C64}) {
    for (std::int64_t n = 1; n <= 64; ++n) {
      SCOPED_TRACE(std::string(ta::name(dt)) + " n=" + std::to_string(n));
      const Tensor x = random({n}, dt, 100 + n);
      const auto xv = values(x);
      const Tensor y = fft::fft(x, serial());
      EXPECT_EQ(y.dtype(), dt);
      EXPECT_EQ(y.shape(), (Shape{n}));
      EXPECT_LT(rel_error(values(y), dft(xv, n, -1)), tolerance(dt, n));
      auto inv = dft(xv, n, +1);
      for (auto& v : inv) v /= static_cast<long double>(n);
      EXPECT_LT(rel_error(values(fft::ifft(x, serial())), inv), tolerance(dt, n));
    }
  }
  for (const DType dt : {DType::F64, DType::F32}) {
    for (std::int64_t n = 1; n <= 64; ++n) {
      SCOPED_TRACE(std::string(ta::name(dt)) + " real n=" + std::to_string(n));
      const Tensor x = random({n}, dt, 200 + n);
      const auto full = dft(values(x), n, -1);
      const Tensor y = fft::rfft(x, serial());
      EXPECT_EQ(y.dtype(), ta::complex_dtype(dt));
      EXPECT_EQ(y.shape(), (Shape{n / 2 + 1}));
      EXPECT_LT(rel_error(values(y), std::vector<CL>(full.begin(), full.begin() + n / 2 + 1)), tolerance(dt, n));
      // irfft of the half spectrum gives the signal back; fft of a real input is complex.
      const Tensor back = fft::irfft(y, fft::FftOptions{.n = n}, serial());
      EXPECT_EQ(back.dtype(), dt);
      EXPECT_LT(rel_error(values(back), values(x)), 4 * tolerance(dt, n));
      const auto spectrum = values(fft::fft(x, serial()));
      EXPECT_LT(rel_error(spectrum, full), tolerance(dt, n));
      // A real signal's spectrum is Hermitian: X_{n-k} = conj(X_k).
      std::vector<cd> mirrored;
      for (std::int64_t k = 0; k < n; ++k) mirrored.push_back(std::conj(spectrum[static_cast<std::size_t>((n - k) % n)]));
      EXPECT_LT(rel_error(mirrored, spectrum), 2 * tolerance(dt, n));
    }
  }
}

TEST(FftValues, ComplexToRealIsTheInverseOfTheHermitianExtension) {
  // irfft against the defining sum of the extension (imaginary parts of X_0 and X_{n/2} ignored).
  for (std::int64_t n = 1; n <= 40; ++n) {
    SCOPED_TRACE(n);
    const std::int64_t m = n / 2 + 1;
    const Tensor z = random({m}, DType::C128, 300 + n);
    const auto zv = values(z);
    std::vector<cd> ext(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n; ++k) {
      const cd v = k < m ? zv[static_cast<std::size_t>(k)] : std::conj(zv[static_cast<std::size_t>(n - k)]);
      ext[static_cast<std::size_t>(k)] = (k == 0 || 2 * k == n) ? cd(v.real(), 0) : v;
    }
    auto want = dft(ext, n, +1);
    for (auto& v : want) v = v.real() / static_cast<long double>(n);
    EXPECT_LT(rel_error(values(fft::irfft(z, fft::FftOptions{.n = n}, serial())), want), tolerance(DType::F64, n));
  }
}

TEST(FftValues, PowersOfTwoPrimesAndProductsOfLargePrimes) {
  // A pure tone exp(2 pi i f j / n) transforms to n at bin f and 0 elsewhere; the round trip
  // returns the input; 10007 (prime) also against the long double sum.
  for (const std::int64_t n : std::vector<std::int64_t>{2, 4, 1024, 4096, 1 << 14, 1 << 16, 1 << 20, 97, 10007, 20014,
                                                        1009 * 1013, 65537, 3 * 5 * 7 * 11 * 13}) {
    SCOPED_TRACE(n);
    const std::int64_t f = n / 3;
    std::vector<cd> tone(static_cast<std::size_t>(n));
    for (std::int64_t j = 0; j < n; ++j) {
      const long double a = 2 * std::numbers::pi_v<long double> * static_cast<long double>((j * f) % n) / n;
      tone[static_cast<std::size_t>(j)] = cd(static_cast<double>(std::cos(a)), static_cast<double>(std::sin(a)));
    }
    const auto y = values(fft::fft(Tensor::from_vec_col_major({n}, tone), serial()));
    std::vector<cd> want(static_cast<std::size_t>(n));
    want[static_cast<std::size_t>(f)] = static_cast<double>(n);
    EXPECT_LT(rel_error(y, want), tolerance(DType::F64, n));
    const Tensor x = random({n}, DType::C128, 7);
    EXPECT_LT(rel_error(values(fft::ifft(fft::fft(x, serial()), serial())), values(x)), 2 * tolerance(DType::F64, n));
    if (n <= 65537) {  // the real path of the largest sizes runs in FftValues.RealTransformsAtLargeSizes
      const Tensor r = random({n}, DType::F64, 8);
      EXPECT_LT(rel_error(values(fft::irfft(fft::rfft(r, serial()), fft::FftOptions{.n = n}, serial())), values(r)),
                2 * tolerance(DType::F64, n));
    }
    if (n == 10007 || n == 20014 || n == (1 << 20) || n == 1009 * 1013) {
      // The defining sum in long double at bins spread over the spectrum.
      const auto xv = values(x);
      const auto y = values(fft::fft(x, serial()));
      std::vector<CL> w(static_cast<std::size_t>(n));  // exp(-2 pi i r / n), r = j k mod n
      for (std::int64_t r = 0; r < n; ++r) {
        const long double a = -2 * std::numbers::pi_v<long double> * static_cast<long double>(r) / n;
        w[static_cast<std::size_t>(r)] = CL(std::cos(a), std::sin(a));
      }
      std::vector<cd> got;
      std::vector<CL> want;
      const std::int64_t bins = n > 100000 ? 13 : 97;  // O(bins n) under the sanitizers too
      for (std::int64_t k = 0; k < n; k += n / bins) {
        CL sum = 0;
        for (std::int64_t j = 0, r = 0; j < n; ++j, r = r + k >= n ? r + k - n : r + k)
          sum += CL(xv[static_cast<std::size_t>(j)]) * w[static_cast<std::size_t>(r)];
        got.push_back(y[static_cast<std::size_t>(k)]);
        want.push_back(sum);
      }
      EXPECT_LT(rel_error(got, want), tolerance(DType::F64, n));
    }
  }
}

TEST(FftValues, RealTransformsAtLargeSizes) {
  // rfft of 2^20 (even: the half-length path) and of a product of two large primes (odd:
  // Bluestein), against the complex transform of the same signal; irfft back.
  for (const std::int64_t n : {std::int64_t{1} << 20, std::int64_t{1009} * 1013}) {
    SCOPED_TRACE(n);
    const Tensor r = random({n}, DType::F64, 21);
    const Tensor half = fft::rfft(r, serial());
    const Tensor full = fft::fft(r, serial()).slice(0, 0, n / 2 + 1);
    EXPECT_LT(rel_error(values(half), values(full)), tolerance(DType::F64, n));
    EXPECT_LT(rel_error(values(fft::irfft(half, fft::FftOptions{.n = n}, serial())), values(r)),
              2 * tolerance(DType::F64, n));
  }
}

TEST(FftValues, NormModesAndParseval) {
  const std::int64_t n = 36;
  const Tensor x = random({n}, DType::C128, 9);
  auto energy = [](const Tensor& t) {
    double s = 0;
    for (const cd v : values(t)) s += std::norm(v);
    return s;
  };
  const double ex = energy(x);
  EXPECT_NEAR(energy(fft::fft(x, serial())), n * ex, 1e-11 * n * ex);
  EXPECT_NEAR(energy(fft::fft(x, fft::FftOptions{.norm = fft::Norm::Ortho}, serial())), ex, 1e-12 * ex);
  EXPECT_NEAR(energy(fft::fft(x, fft::FftOptions{.norm = fft::Norm::Forward}, serial())), ex / n, 1e-12 * ex);
  for (const auto norm : {fft::Norm::Backward, fft::Norm::Ortho, fft::Norm::Forward}) {
    const fft::FftOptions o{.norm = norm};
    EXPECT_LT(rel_error(values(fft::ifft(fft::fft(x, o, serial()), o, serial())), values(x)), 1e-14);
    const Tensor r = random({n + 1}, DType::F64, 10);
    EXPECT_LT(rel_error(values(fft::irfft(fft::rfft(r, o, serial()), fft::FftOptions{.n = n + 1, .norm = norm},
                                           serial())),
                        values(r)),
              1e-14);
    // hfft / ihfft are irfft / rfft with the direction swapped (numpy.fft).
    const Tensor h = random({n / 2 + 1}, DType::C128, 11);
    const double s = norm == fft::Norm::Backward ? n : norm == fft::Norm::Ortho ? std::sqrt(double(n)) : 1.0;
    const Tensor hf = fft::hfft(h, fft::FftOptions{.n = n, .norm = norm}, serial());
    const Tensor ir = fft::irfft(h.conj(serial()), fft::FftOptions{.n = n}, serial());
    auto want = values(ir);
    for (auto& v : want) v *= s;
    EXPECT_LT(rel_error(values(hf), want), 1e-14);
    const Tensor ih = fft::ihfft(r, fft::FftOptions{.norm = norm}, serial());
    auto want_ih = values(fft::rfft(r, serial()).conj(serial()));
    const double si = norm == fft::Norm::Backward ? 1.0 / (n + 1) : norm == fft::Norm::Ortho ? 1 / std::sqrt(n + 1.0) : 1.0;
    for (auto& v : want_ih) v *= si;
    EXPECT_LT(rel_error(values(ih), want_ih), 1e-14);
  }
}

// A call resolves every argument even when the one before it had the same input shape (the
// thread keeps its last resolution: ops/fft_spec.cpp).
TEST(FftValues, RepeatedCallsResolveEveryArgument) {
  const std::int64_t n = 12;
  const Tensor x = random({n}, DType::C128, 21);
  const Tensor y = fft::fft(x, serial());
  EXPECT_LT(rel_error(values(y), dft(values(x), n, -1)), 1e-14);
  auto scaled = [](std::vector<cd> v, double s) {
    for (auto& e : v) e *= s;
    return v;
  };
  EXPECT_LT(rel_error(values(fft::fft(x, fft::FftOptions{.norm = fft::Norm::Ortho}, serial())),
                      scaled(values(y), 1 / std::sqrt(double(n)))),
            1e-14);
  EXPECT_EQ(fft::fft(x, fft::FftOptions{.n = 5}, serial()).shape(), (Shape{5}));
  EXPECT_LT(rel_error(values(fft::ifft(x, serial())), scaled(values(fft::fft(x.conj(serial()), serial()).conj(serial())), 1.0 / n)),
            1e-14);
  const auto err = expect_error([&] { (void)fft::fft(x, fft::FftOptions{.n = 0}, serial()); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
  EXPECT_TRUE(same_bits(fft::fft(x, serial()), y));
  EXPECT_EQ(fft::fft(x.cast(DType::C64, serial()), serial()).dtype(), DType::C64);
  const Tensor m = random({3, 4}, DType::C128, 22);
  EXPECT_EQ(fft::fft(m, serial()).shape(), (Shape{3, 4}));
  const Tensor along0 = fft::fft(m, fft::FftOptions{.axis = 0}, serial());
  EXPECT_FALSE(same_bits(along0, fft::fft(m, serial())));
  EXPECT_TRUE(same_bits(along0, fft::fft(m.transpose(), serial()).transpose()));
  EXPECT_EQ(expect_error([&] { (void)fft::fft(m, fft::FftOptions{.axis = 2}, serial()); }).kind(),
            ta::ErrorKind::Validation);
}

TEST(FftValues, CropAndZeroPad) {
  const Tensor x = random({10}, DType::C128, 12);
  auto ref = [&](std::int64_t n) {
    std::vector<cd> v = values(x);
    v.resize(static_cast<std::size_t>(n));
    return dft(v, n, -1);
  };
  for (const std::int64_t n : {1, 4, 10, 16, 23}) {
    SCOPED_TRACE(n);
    const Tensor y = fft::fft(x, fft::FftOptions{.n = n}, serial());
    EXPECT_EQ(y.shape(), (Shape{n}));
    EXPECT_LT(rel_error(values(y), ref(n)), 1e-14);
  }
  // irfft's n picks the input points used: n/2 + 1 of them, zero-padded when fewer.
  const Tensor z = random({4}, DType::C128, 13);
  EXPECT_EQ(fft::irfft(z, serial()).shape(), (Shape{6}));
  EXPECT_EQ(fft::irfft(z, fft::FftOptions{.n = 3}, serial()).shape(), (Shape{3}));
  EXPECT_EQ(fft::irfft(z, fft::FftOptions{.n = 11}, serial()).shape(), (Shape{11}));
  EXPECT_TRUE(same_bits(fft::irfft(z, fft::FftOptions{.n = 3}, serial()),
                        fft::irfft(z.slice(0, 0, 2), fft::FftOptions{.n = 3}, serial())));
}

TEST(FftValues, EveryAxisOfAStridedThreeDInput) {
  // A permuted, reversed view: every axis, several axes, real and complex forms, each against
  // the same transform of a compact copy.
  const Tensor base = random({5, 6, 7}, DType::C128, 14);
  const Tensor view = base.permute({2, 0, 1}).reverse({1});  // [7, 5, 6], non-unit strides
  const Tensor compact = view.duplicate();
  ASSERT_FALSE(view.is_contiguous());
  for (std::int64_t axis = -3; axis < 3; ++axis) {
    SCOPED_TRACE(axis);
    const fft::FftOptions o{.axis = axis};
    EXPECT_LT(rel_error(values(fft::fft(view, o, serial())), values(fft::fft(compact, o, serial()))), 1e-15);
    const Tensor rv = view.real(serial());
    EXPECT_LT(rel_error(values(fft::rfft(rv, o, serial())), values(fft::rfft(rv.duplicate(), o, serial()))), 1e-15);
  }
  // fftn = one axis after another, in any order; fft2 = the last two.
  const Tensor seq = fft::fft(fft::fft(fft::fft(compact, fft::FftOptions{.axis = 0}, serial()),
                                       fft::FftOptions{.axis = 1}, serial()),
                              fft::FftOptions{.axis = 2}, serial());
  EXPECT_LT(rel_error(values(fft::fftn(view, serial())), values(seq)), 1e-14);
  const Tensor two = fft::fft(fft::fft(compact, fft::FftOptions{.axis = 1}, serial()), fft::FftOptions{.axis = 2},
                              serial());
  EXPECT_LT(rel_error(values(fft::fft2(view, serial())), values(two)), 1e-14);
  // rfftn: the real axis is the last of `axes`; irfftn inverts it with s.
  const Tensor r = view.real(serial());
  const fft::FftnOptions ax{.axes = {2, 0}};
  const Tensor rn = fft::rfftn(r, ax, serial());
  EXPECT_EQ(rn.shape(), (Shape{4, 5, 6}));
  const Tensor rn_seq = fft::fft(fft::rfft(r, fft::FftOptions{.axis = 0}, serial()), fft::FftOptions{.axis = 2}, serial());
  EXPECT_LT(rel_error(values(rn), values(rn_seq)), 1e-14);
  const Tensor back = fft::irfftn(rn, fft::FftnOptions{.s = Shape{6, 7}, .axes = {2, 0}}, serial());
  EXPECT_EQ(back.shape(), (Shape{7, 5, 6}));
  EXPECT_LT(rel_error(values(back), values(r)), 1e-14);
  const Tensor b2 = fft::irfft2(fft::rfft2(r, serial()), fft::FftnOptions{.s = Shape{5, 6}}, serial());
  EXPECT_LT(rel_error(values(b2), values(r)), 1e-14);
}

TEST(FftValues, FiveAxesAreOneAxisAfterAnother) {
  // More axes than a call keeps inline (fft_detail::AxisList): fftn and rfftn with an n per
  // axis against the one-axis transforms, and irfftn back.
  const Tensor x = random({2, 3, 2, 3, 4}, DType::C128, 15);
  Tensor seq = x;
  for (std::int64_t a = 0; a < 5; ++a) seq = fft::fft(seq, fft::FftOptions{.axis = a}, serial());
  EXPECT_LT(rel_error(values(fft::fftn(x, serial())), values(seq)), 1e-14);
  const Tensor r = x.real(serial());
  const fft::FftnOptions s{.s = Shape{3, 3, 2, 3, 6}, .axes = {4, 1, 0, 3, 2}};
  Tensor rseq = fft::rfft(r, fft::FftOptions{.n = 6, .axis = 2}, serial());
  for (const auto& [a, n] : {std::pair{4, 3}, std::pair{1, 3}, std::pair{0, 2}, std::pair{3, 3}})
    rseq = fft::fft(rseq, fft::FftOptions{.n = n, .axis = a}, serial());
  const Tensor rn = fft::rfftn(r, s, serial());
  EXPECT_EQ(rn.shape(), (Shape{2, 3, 4, 3, 3}));
  EXPECT_LT(rel_error(values(rn), values(rseq)), 1e-14);
  const Tensor back = fft::irfftn(rn, s, serial());
  EXPECT_EQ(back.shape(), (Shape{2, 3, 6, 3, 3}));
}

TEST(FftValues, FrequenciesAndShifts) {
  EXPECT_EQ(fft::fftfreq(5, 0.5).to_vec<float>(), (std::vector<float>{0, 0.4f, 0.8f, -0.8f, -0.4f}));
  EXPECT_EQ(fft::fftfreq(4, 1.0, opts(DType::F64)).to_vec<double>(), (std::vector<double>{0, 0.25, -0.5, -0.25}));
  EXPECT_EQ(fft::rfftfreq(5, 1.0, opts(DType::F64)).to_vec<double>(), (std::vector<double>{0, 0.2, 0.4}));
  EXPECT_EQ(fft::rfftfreq(4, 1.0, opts(DType::F64)).to_vec<double>(), (std::vector<double>{0, 0.25, 0.5}));
  EXPECT_EQ(fft::fftfreq(3).dtype(), DType::F32);  // the device's default float
  const Tensor odd = Tensor::arange(0, 5, opts(DType::F64));
  EXPECT_EQ(fft::fftshift(odd, serial()).to_vec<double>(), (std::vector<double>{3, 4, 0, 1, 2}));
  EXPECT_EQ(fft::ifftshift(odd, serial()).to_vec<double>(), (std::vector<double>{2, 3, 4, 0, 1}));
  const Tensor even = Tensor::arange(0, 6, opts(DType::F64));
  EXPECT_EQ(fft::fftshift(even, serial()).to_vec<double>(), (std::vector<double>{3, 4, 5, 0, 1, 2}));
  // ifftshift undoes fftshift on every axis; one axis only.
  const Tensor m = random({3, 4}, DType::F64, 15);
  EXPECT_TRUE(same_bits(fft::ifftshift(fft::fftshift(m, serial()), serial()), m));
  // Extent-1 axes do not move: a fresh copy with the same values.
  const Tensor single = random({1, 1}, DType::C64, 22);
  EXPECT_TRUE(same_bits(fft::fftshift(single, serial()), single));
  const Tensor s1 = fft::fftshift(m, {1}, serial());
  EXPECT_TRUE(same_bits(s1.slice(1, 0, 2), m.slice(1, 2, 4)));
}

// ---- errors --------------------------------------------------------------------------------

TEST(FftErrors, BadInputsAreStructured) {
  const Tensor c = random({8}, DType::C64, 16);
  {
    const auto err = expect_error([&] { (void)fft::fft(Tensor::zeros({8}, opts(DType::F16)), serial()); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::UnsupportedDType);
    EXPECT_EQ(err.op(), "fft");
    EXPECT_EQ(std::get<ta::UnsupportedDType>(err.detail()).dtype, DType::F16);
    EXPECT_NE(std::string(err.message()).find("convert to F32 or F64"), std::string::npos) << err.what();
  }
  {
    const auto err = expect_error([&] { (void)fft::rfft(Tensor::zeros({8}, opts(DType::I32)), serial()); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::UnsupportedDType);
    EXPECT_EQ(err.op(), "rfft");
  }
  {
    const auto err = expect_error([&] { (void)fft::rfft(c, serial()); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::UnsupportedDType);
    EXPECT_NE(std::string(err.message()).find("takes a real input; use fft"), std::string::npos) << err.what();
  }
  {
    const auto err = expect_error([&] { (void)fft::fft(c, fft::FftOptions{.n = 0}, serial()); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_EQ(std::get<ta::InvalidArgument>(err.detail()).argument, "n");
    EXPECT_NE(std::string(err.message()).find("at least 1, got 0"), std::string::npos) << err.what();
  }
  {
    const auto err = expect_error([&] { (void)fft::fft(c, fft::FftOptions{.axis = 1}, serial()); });
    EXPECT_EQ(std::get<ta::AxisOutOfRange>(err.detail()).axis, 1);
    EXPECT_EQ(std::get<ta::AxisOutOfRange>(err.detail()).rank, 1);
  }
  const Tensor m = random({4, 6}, DType::C128, 17);
  {
    const auto err = expect_error([&] { (void)fft::fftn(m, fft::FftnOptions{.axes = {1, -1}}, serial()); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_EQ(std::get<ta::InvalidArgument>(err.detail()).argument, "axes");
    EXPECT_NE(std::string(err.message()).find("repeated"), std::string::npos) << err.what();
  }
  {
    const auto err =
        expect_error([&] { (void)fft::fftn(m, fft::FftnOptions{.s = Shape{4, 6, 2}, .axes = {0, 1}}, serial()); });
    EXPECT_EQ(std::get<ta::InvalidArgument>(err.detail()).argument, "s");
    EXPECT_NE(std::string(err.message()).find("s has 3 lengths for 2 axes"), std::string::npos) << err.what();
  }
  {
    const auto err = expect_error([&] { (void)fft::irfft(Tensor::zeros({1}, opts(DType::C64)), serial()); });
    EXPECT_EQ(std::get<ta::InvalidArgument>(err.detail()).argument, "n");
    EXPECT_NE(std::string(err.message()).find("pass the output length n"), std::string::npos) << err.what();
  }
  {
    const auto err = expect_error([&] { (void)fft::fft2(Tensor::zeros({3}, opts(DType::C64)), serial()); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
  }
  {
    ta::ReferenceEngine other(ta::Device::cpu(1));
    const auto err = expect_error([&] { (void)fft::fft(c, other); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::DeviceMismatch);
  }
  EXPECT_EQ(expect_error([&] { (void)fft::fftfreq(0); }).kind(), ta::ErrorKind::InvalidArgument);
  EXPECT_EQ(expect_error([&] { (void)fft::fftshift(m, {2}, serial()); }).kind(), ta::ErrorKind::Validation);
}

// ---- into a destination --------------------------------------------------------------------

// Every transform of the catalog: `name_into` writes what `name` returns, bit for bit, into a
// column-major destination and into a transposed (strided) one, on both engines.
TEST(FftInto, EveryTransformWritesItsAllocatingResult) {
  const Tensor complex_input = random({6, 5}, DType::C128, 40);
  const Tensor real_input = complex_input.real(serial());
  int checked = 0;
  const auto check = [&](std::string_view name, ta::fft_detail::Transform t, auto alloc, auto into) {
    const bool real = t == ta::fft_detail::Transform::Rfft || t == ta::fft_detail::Transform::Ihfft;
    const Tensor& x = real ? real_input : complex_input;
    for (ta::Engine* e : {static_cast<ta::Engine*>(&serial()), static_cast<ta::Engine*>(&parallel3())}) {
      const Tensor want = alloc(x, *e);
      const Tensor dense = Tensor::empty(want.shape(), want.dtype(), ta::Device::cpu());
      into(x, *e, dense);
      EXPECT_TRUE(same_bits(dense, want)) << name;
      Shape reversed(want.shape().rbegin(), want.shape().rend());
      const Tensor strided = Tensor::empty(reversed, want.dtype(), ta::Device::cpu()).transpose();
      into(x, *e, strided);
      EXPECT_TRUE(same_bits(strided, want)) << name << " into a transposed destination";
    }
    ++checked;
  };
#define TENSORA_TEST_INTO(name, kind, form)                                                                   \
  check(#name, ta::fft_detail::Transform::kind, [](const Tensor& x, ta::Engine& e) { return fft::name(x, e); },  \
        [](const Tensor& x, ta::Engine& e, const Tensor& d) { fft::name##_into(x, e, d); });
  TENSORA_FFT_TRANSFORMS(TENSORA_TEST_INTO)
#undef TENSORA_TEST_INTO
  EXPECT_EQ(checked, 14);
  // With options: a crop, a zero-pad, another axis and a norm.
  const fft::FftOptions crop{.n = 4, .axis = 0, .norm = fft::Norm::Ortho};
  Tensor d = Tensor::empty({4, 5}, DType::C128, ta::Device::cpu());
  fft::fft_into(complex_input, crop, serial(), d);
  EXPECT_TRUE(same_bits(d, fft::fft(complex_input, crop, serial())));
  const fft::FftnOptions pad{.s = Shape{8, 7}, .norm = fft::Norm::Forward};
  d = Tensor::empty({8, 4}, DType::C128, ta::Device::cpu());
  fft::rfft2_into(real_input, pad, serial(), d);
  EXPECT_TRUE(same_bits(d, fft::rfft2(real_input, pad, serial())));
}

TEST(FftInto, TheSameViewIsTransformedInPlace) {
  for (ta::Engine* e : {static_cast<ta::Engine*>(&serial()), static_cast<ta::Engine*>(&parallel3())}) {
    const Tensor x = random({16, 3}, DType::C128, 41);
    const Tensor want = fft::fft2(x, *e);
    const Tensor buffer = x.duplicate();
    fft::fft2_into(buffer, *e, buffer);
    EXPECT_TRUE(same_bits(buffer, want));
    fft::ifft2_into(buffer, *e, buffer);
    EXPECT_LT(rel_error(values(buffer), values(x)), tolerance(DType::C128, 48));
    // A strided view in place (every other row of a larger buffer), along axis 0.
    const Tensor big = random({32, 3}, DType::C64, 42);
    const Tensor rows = big.slice(0, 0, 32, 2);
    const Tensor rows_want = fft::fft(rows, fft::FftOptions{.axis = 0}, *e);
    fft::fft_into(rows, fft::FftOptions{.axis = 0}, *e, rows);
    EXPECT_TRUE(same_bits(rows, rows_want));
  }
}

TEST(FftInto, DestinationErrorsAreStructured) {
  const Tensor x = random({8}, DType::C128, 43);
  {
    const auto err = expect_error([&] { fft::fft_into(x, serial(), Tensor::zeros({8}, opts(DType::C64))); });
    EXPECT_EQ(err.op(), "fft_into");
    const auto* d = std::get_if<ta::DTypeMismatch>(&err.detail());
    ASSERT_NE(d, nullptr) << err.what();
    EXPECT_EQ(d->expected, DType::C128);
    EXPECT_EQ(d->actual, DType::C64);
  }
  {
    const auto err = expect_error([&] { fft::rfft_into(x.real(serial()), serial(), Tensor::zeros({8}, opts(DType::C128))); });
    EXPECT_EQ(err.op(), "rfft_into");
    const auto* d = std::get_if<ta::ShapeMismatch>(&err.detail());
    ASSERT_NE(d, nullptr) << err.what();
    EXPECT_EQ(d->expected, (Shape{5}));
    EXPECT_EQ(d->actual, (Shape{8}));
  }
  {
    const auto err = expect_error([&] { fft::irfft_into(x, serial(), Tensor::zeros({14, 1}, opts(DType::F64))); });
    const auto* d = std::get_if<ta::ShapeMismatch>(&err.detail());
    ASSERT_NE(d, nullptr) << err.what();
    EXPECT_EQ(d->expected, (Shape{14}));
  }
  {
    const ta::CpuEngine other = ta::CpuEngine::serial(ta::Device::cpu(1));
    const Tensor elsewhere = Tensor::zeros({8}, ta::TensorOptions(ta::Device::cpu(1), DType::C128));
    const auto err = expect_error([&] { fft::fft_into(x, serial(), elsewhere); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::DeviceMismatch);
    EXPECT_EQ(err.op(), "fft_into");
  }
  {
    // Overlapping the input with another layout: refused before anything is written.
    const Tensor buffer = random({16}, DType::C128, 44);
    const Tensor before = buffer.duplicate();
    const auto err = expect_error(
        [&] { fft::fft_into(buffer.slice(0, 0, 8), serial(), buffer.slice(0, 4, 12)); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
    EXPECT_EQ(std::get<ta::InvalidArgument>(err.detail()).argument, "dest");
    EXPECT_NE(std::string(err.message()).find("overlaps an input"), std::string::npos) << err.what();
    EXPECT_TRUE(same_bits(buffer, before));
  }
  {
    const auto err = expect_error([&] { fft::fft_into(x, serial(), Tensor()); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
  }
  {
    const auto err = expect_error(
        [&] { fft::fft_into(x, fft::FftOptions{.axis = 1}, serial(), Tensor::zeros({8}, opts(DType::C128))); });
    EXPECT_EQ(err.op(), "fft");
    const auto* d = std::get_if<ta::AxisOutOfRange>(&err.detail());
    ASSERT_NE(d, nullptr) << err.what();
    EXPECT_EQ(d->axis, 1);
    EXPECT_EQ(d->rank, 1);
  }
  {
    // The call's own errors come first, named by the transform.
    const auto err = expect_error(
        [&] { fft::fft_into(Tensor::zeros({8}, opts(DType::F16)), serial(), Tensor::zeros({8}, opts(DType::C64))); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::UnsupportedDType);
    EXPECT_EQ(err.op(), "fft");
  }
}

// ---- engines -------------------------------------------------------------------------------

TEST(FftEngines, ParallelIsBitwiseSerialAndTheReferenceAgrees) {
  ta::ReferenceEngine reference;
  for (const DType dt : {DType::C128, DType::C64}) {
    const Tensor x = random({33, 20, 3}, dt, 18);
    for (const fft::FftnOptions& o : {fft::FftnOptions{.axes = {0}}, fft::FftnOptions{.axes = {1, 0}},
                                      fft::FftnOptions{.axes = {2, 1, 0}}}) {
      const Tensor want = fft::fftn(x, o, serial());
      EXPECT_TRUE(same_bits(fft::fftn(x, o, parallel3()), want));
      EXPECT_LT(rel_error(values(fft::fftn(x, o, reference)), values(want)), tolerance(dt, 33 * 20 * 3));
      const Tensor r = x.real(serial());
      const Tensor rw = fft::rfftn(r, o, serial());
      EXPECT_TRUE(same_bits(fft::rfftn(r, o, parallel3()), rw));
      EXPECT_LT(rel_error(values(fft::rfftn(r, o, reference)), values(rw)), tolerance(dt, 33 * 20 * 3));
      EXPECT_TRUE(same_bits(fft::irfftn(rw, o, parallel3()), fft::irfftn(rw, o, serial())));
    }
  }
}

TEST(FftEngines, PlansAreSharedByThreads) {
  // Several threads transform the same sizes at once (one plan each, built by whoever comes
  // first); every result has the single-threaded bits.
  const std::vector<std::int64_t> sizes{1000, 1024, 10007, 4096 * 3};
  std::vector<Tensor> inputs, want;
  for (std::size_t i = 0; i < sizes.size(); ++i) inputs.push_back(random({sizes[i], 3}, DType::C128, 40 + i));
  std::vector<std::vector<bool>> ok(4, std::vector<bool>(sizes.size(), false));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      auto e = ta::CpuEngine::serial();
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const std::size_t k = (i + static_cast<std::size_t>(t)) % sizes.size();
        ok[static_cast<std::size_t>(t)][k] = fft::fft(inputs[k], fft::FftOptions{.axis = 0}, e).numel() > 0;
      }
    });
  for (auto& th : threads) th.join();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const Tensor once = fft::fft(inputs[i], fft::FftOptions{.axis = 0}, serial());
    for (int t = 0; t < 4; ++t) EXPECT_TRUE(ok[static_cast<std::size_t>(t)][i]);
    EXPECT_TRUE(same_bits(fft::fft(inputs[i], fft::FftOptions{.axis = 0}, parallel3()), once));
  }
}

// ---- providers -----------------------------------------------------------------------------

template <class T>
void compare_providers(std::int64_t n, ta::cpu::fft::Kind kind) {
  using C = std::complex<T>;
  namespace cf = ta::cpu::fft;
  const auto fftw = cf::fftw_plan<T>(n, kind);
  ASSERT_NE(fftw, nullptr);
  const auto own = cf::plan<T>(n, kind);
  const bool real_in = kind == cf::Kind::RealToComplex, real_out = kind == cf::Kind::ComplexToReal;
  const std::int64_t in_len = real_out ? n / 2 + 1 : n, out_len = real_in ? n / 2 + 1 : n;
  std::mt19937_64 rng(static_cast<std::uint64_t>(n));
  std::uniform_real_distribution<T> u(-1, 1);
  std::vector<C> in(static_cast<std::size_t>(in_len));
  for (auto& v : in) v = C(u(rng), real_in ? T(0) : u(rng));
  std::vector<T> real_input(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) real_input[i] = in[i].real();
  std::vector<C> a(static_cast<std::size_t>(out_len)), b(a.size());
  std::vector<T> sa(fftw->scratch_size()), sb(own->scratch_size());
  const void* src = real_in ? static_cast<const void*>(real_input.data()) : in.data();
  fftw->execute(src, 1, a.data(), 1, sa.data());
  own->execute(src, 1, b.data(), 1, sb.data());
  std::vector<cd> got, want;
  for (std::int64_t i = 0; i < out_len; ++i) {
    // A real output fills the first out_len reals of the buffer.
    const auto at = static_cast<std::size_t>(i);
    got.emplace_back(real_out ? cd(reinterpret_cast<const T*>(b.data())[at]) : cd(b[at]));
    want.emplace_back(real_out ? cd(reinterpret_cast<const T*>(a.data())[at]) : cd(a[at]));
  }
  EXPECT_LT(rel_error(got, want), 2 * tolerance(sizeof(T) == 8 ? DType::F64 : DType::F32, n))
      << "n=" << n << " kind=" << static_cast<int>(kind);
}

TEST(FftProviders, FftwAndTheBuiltInPlansAgree) {
  // FFTW is installed by scripts/install-deps.sh; without it this test has nothing to compare.
  if (ta::cpu::fft::fftw_version().empty()) GTEST_SKIP() << "FFTW not installed (apt-get install libfftw3-dev)";
  namespace cf = ta::cpu::fft;
  std::vector<std::int64_t> sizes;
  for (std::int64_t n = 1; n <= 40; ++n) sizes.push_back(n);
  for (std::int64_t n : {64, 100, 243, 1000, 1024, 4096, 10007}) sizes.push_back(n);
  for (const auto kind : {cf::Kind::Forward, cf::Kind::Inverse, cf::Kind::RealToComplex, cf::Kind::ComplexToReal})
    for (const std::int64_t n : sizes) {
      compare_providers<double>(n, kind);
      compare_providers<float>(n, kind);
    }
}

TEST(FftProviders, TheBackendNamesItsProvider) {
  const std::string name = ta::fft_backend();
  const char* env = std::getenv("TENSORA_FFT");
  if ((env != nullptr && std::string(env) == "builtin") || ta::cpu::fft::fftw_version().empty())
    EXPECT_EQ(name, "built-in");
  else
    EXPECT_EQ(name.rfind("FFTW 3.", 0), 0u) << name;
}

// ---- eager and traced ----------------------------------------------------------------------

using eager_test::check_gradients;
using ta::EagerSession;
using ta::EagerTensor;
using Args = std::vector<EagerTensor>;

using eager_test::complex_of;
using eager_test::parts;

TEST(FftEager, GradientsAgainstFiniteDifferences) {
  using eager_test::rnd;
  using O = fft::FftOptions;
  // Real F64 inputs.
  check_gradients("rfft", [](EagerSession& s, const Args& x) { return parts(s, fft::rfft(x[0])); }, {rnd({7}, 1)});
  check_gradients("rfft even, cropped",
                  [](EagerSession& s, const Args& x) { return parts(s, fft::rfft(x[0], O{.n = 6})); }, {rnd({9}, 2)});
  check_gradients("rfft padded, ortho", [](EagerSession& s, const Args& x) {
    return parts(s, fft::rfft(x[0], O{.n = 12, .norm = fft::Norm::Ortho}));
  }, {rnd({9}, 3)});
  check_gradients("fft of real", [](EagerSession& s, const Args& x) { return parts(s, fft::fft(x[0])); }, {rnd({6}, 4)});
  check_gradients("ihfft", [](EagerSession& s, const Args& x) { return parts(s, fft::ihfft(x[0])); }, {rnd({8}, 5)});
  check_gradients("rfftn", [](EagerSession& s, const Args& x) { return parts(s, fft::rfftn(x[0])); }, {rnd({3, 4, 5}, 6)});
  // C128 inputs (through their real and imaginary parts).
  const auto cplx = [](auto f) {
    return [f](EagerSession& s, const Args& x) { return parts(s, f(complex_of(s, x[0], x[1]))); };
  };
  check_gradients("fft", cplx([](const EagerTensor& z) { return fft::fft(z); }), {rnd({5}, 7), rnd({5}, 8)});
  check_gradients("ifft padded", cplx([](const EagerTensor& z) { return fft::ifft(z, O{.n = 8}); }),
                  {rnd({5}, 9), rnd({5}, 10)});
  check_gradients("fft2 forward norm", cplx([](const EagerTensor& z) {
    return fft::fft2(z, fft::FftnOptions{.norm = fft::Norm::Forward});
  }), {rnd({3, 4}, 11), rnd({3, 4}, 12)});
  for (const std::int64_t n : {6, 7}) {
    check_gradients("irfft n=" + std::to_string(n),
                    cplx([n](const EagerTensor& z) { return fft::irfft(z, O{.n = n}); }), {rnd({4}, 13), rnd({4}, 14)});
    check_gradients("hfft n=" + std::to_string(n),
                    cplx([n](const EagerTensor& z) { return fft::hfft(z, O{.n = n}); }), {rnd({4}, 15), rnd({4}, 16)});
  }
  check_gradients("irfftn", cplx([](const EagerTensor& z) {
    return fft::irfftn(z, fft::FftnOptions{.s = Shape{3, 6}});
  }), {rnd({3, 4}, 17), rnd({3, 4}, 18)});
  check_gradients("fftshift", [](EagerSession& s, const Args& x) { return fft::fftshift(s.mul(x[0], x[0])); },
                  {rnd({3, 5}, 19)});
}

TEST(FftEager, PromotesIntegersAndHalvesAndChecksDevices) {
  ta::EagerRuntime rt;
  auto e = ta::CpuEngine::serial();
  rt.with_eager_session(e, [&](EagerSession& s) {
    const EagerTensor i = s.constant(Tensor::arange(0, 8, opts(DType::I32)));
    const EagerTensor y = fft::fft(i);
    EXPECT_EQ(y.dtype(), DType::C64);  // I32 -> the default float F32 -> complex
    EXPECT_TRUE(same_bits(y.value(), fft::fft(i.value().convert(DType::F32, e), e)));
    EXPECT_EQ(fft::rfft(s.constant(Tensor::zeros({4}, opts(DType::F16)))).dtype(), DType::C64);
    const auto err = expect_error([&] { (void)fft::rfft(s.constant(random({4}, DType::C64, 1))); });
    EXPECT_EQ(err.kind(), ta::ErrorKind::UnsupportedDType);
  });
  EXPECT_EQ(expect_error([&] { (void)fft::fft(EagerTensor()); }).kind(), ta::ErrorKind::InvalidArgument);
}

TEST(FftTraced, EqualsEagerBitwiseAndDifferentiates) {
  using ta::TracedTensor;
  const Tensor xv = random({6, 5}, DType::F64, 20);
  auto x = TracedTensor::input("x", DType::F64, {6, 5});
  const TracedTensor spec = fft::rfft2(x, fft::FftnOptions{.norm = fft::Norm::Ortho});
  const TracedTensor back = fft::irfft(fft::ifft(spec, fft::FftOptions{.axis = 0}), fft::FftOptions{.n = 5});
  const TracedTensor loss = fft::fftshift(back).mul(x).sum();
  const auto g = ta::grad(loss, {x});
  auto e = ta::CpuEngine::serial();
  const auto out = ta::Runtime().run(ta::GraphCompiler().compile({spec, back, loss, g[0]}, {x}), e, {xv});
  EXPECT_EQ(out[0].dtype(), DType::C128);
  EXPECT_EQ(out[0].shape(), (Shape{6, 3}));
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](EagerSession& s) {
    const EagerTensor ex = rt.variable_from(xv);
    const EagerTensor es = fft::rfft2(ex, fft::FftnOptions{.norm = fft::Norm::Ortho});
    const EagerTensor eb = fft::irfft(fft::ifft(es, fft::FftOptions{.axis = 0}), fft::FftOptions{.n = 5});
    const EagerTensor el = s.sum(s.mul(fft::fftshift(eb), ex));
    EXPECT_TRUE(same_bits(out[0], es.value()));
    EXPECT_TRUE(same_bits(out[1], eb.value()));
    EXPECT_TRUE(same_bits(out[2], el.value()));
    el.backward();
    EXPECT_LT(rel_error(values(out[3]), values(ex.grad())), 1e-14);
  });
  // Build-time errors are the direct ones.
  const auto err = expect_error([&] { (void)fft::rfft(TracedTensor::input("c", DType::C64, {4})); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::UnsupportedDType);
}

}  // namespace
