// Solves the Poisson equation -(u_xx + u_yy) = f on the periodic square [0, 2 pi)^2 with a
// spectral method: rfft2 of f, divide by |k|^2, irfft2 back. The right-hand side comes from a
// known solution, so the error is printed against it (spectrally small for this band-limited u),
// then the same solve runs in eager mode and differentiates a loss through it.
#include <cmath>
#include <cstdio>
#include <numbers>

#include "tensora/tensora.hpp"

namespace ta = tensora;
namespace fft = tensora::fft;

namespace {

constexpr double kTwoPi = 2 * std::numbers::pi;

// u(x, y) = sin(x) cos(2y) + 0.5 sin(3x + y), so f = -lap u = 5 sin(x) cos(2y) + 5 sin(3x + y).
double exact_u(double x, double y) { return std::sin(x) * std::cos(2 * y) + 0.5 * std::sin(3 * x + y); }
double exact_f(double x, double y) { return 5 * std::sin(x) * std::cos(2 * y) + 5 * std::sin(3 * x + y); }

// Samples g on the n x n grid x_i = 2 pi i / n (axis 0), y_j = 2 pi j / n (axis 1).
template <class G>
ta::Tensor sample(std::int64_t n, G g) {
  std::vector<double> v(static_cast<std::size_t>(n * n));
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i + j * n)] = g(kTwoPi * i / n, kTwoPi * j / n);
  return ta::Tensor::from_vec_col_major({n, n}, v);
}

// |k|^2 on rfft2's half spectrum ([n, n/2 + 1]), with the zero mode set to 1 (its coefficient
// is f's mean, which is 0 for a solvable problem).
ta::Tensor laplacian_symbol(std::int64_t n, ta::Engine& e) {
  const ta::TensorOptions f64(ta::Device::cpu(), ta::DType::F64);
  // Angular wavenumbers: fftfreq with spacing 1/n gives the integers 0, 1, ..., -1.
  const ta::Tensor kx = fft::fftfreq(n, 1.0 / static_cast<double>(n), f64).reshape({n, 1});
  const ta::Tensor ky = fft::rfftfreq(n, 1.0 / static_cast<double>(n), f64).reshape({1, n / 2 + 1});
  const ta::Tensor k2 = kx.mul(kx, e).add(ky.mul(ky, e), e);
  return k2.add(k2.eq(0.0, e).convert(ta::DType::F64, e), e);
}

ta::Tensor solve(const ta::Tensor& f, ta::Engine& e) {
  const std::int64_t n = f.shape()[0];
  const ta::Tensor f_hat = fft::rfft2(f, e);
  const ta::Tensor u_hat = f_hat.div(laplacian_symbol(n, e).convert(ta::DType::C128, e), e);
  return fft::irfft2(u_hat, fft::FftnOptions{.s = ta::Shape{n, n}}, e);
}

}  // namespace

int main() {
  auto e = ta::CpuEngine::parallel(2);
  std::printf("spectral Poisson solve on the periodic square, F64\n");
  for (const std::int64_t n : {8, 16, 64, 256}) {
    const ta::Tensor u = solve(sample(n, exact_f), e);
    const ta::Tensor err = u.sub(sample(n, exact_u), e).abs(e).max(e);
    std::printf("  n = %4lld  max |u - u_exact| = %.3e\n", static_cast<long long>(n), err.item<double>());
  }

  // Eager: the same solve, recorded; d/df of 0.5 * sum(u^2) is A^T A f (A: the solve, symmetric
  // here), i.e. solving twice.
  const std::int64_t n = 32;
  ta::EagerRuntime rt;
  rt.with_eager_session(e, [&](ta::EagerSession& s) {
    const ta::EagerTensor f = rt.variable_from(sample(n, exact_f));
    const ta::EagerTensor sym = s.constant(laplacian_symbol(n, e).convert(ta::DType::C128, e));
    const ta::EagerTensor u = fft::irfft2(s.div(fft::rfft2(f), sym), fft::FftnOptions{.s = ta::Shape{n, n}});
    const ta::EagerTensor loss = s.mul(s.sum(s.mul(u, u)), 0.5);
    loss.backward();
    const ta::Tensor want = solve(solve(f.value(), e), e);
    const double diff = f.grad().sub(want, e).abs(e).max(e).item<double>();
    std::printf("  eager: loss = %.6f, max |grad - A^T A f| = %.3e\n", loss.value().item<double>(), diff);
  });
  return 0;
}
