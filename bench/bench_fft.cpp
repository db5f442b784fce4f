// FFTs side by side: tensora (whichever provider TENSORA_FFT picks: FFTW when installed, or
// TENSORA_FFT=builtin), LibTorch's torch::fft, and FFTW called directly (one plan for the whole
// case, FFTW_ESTIMATE as tensora uses it, one thread). bench/numpy_fft.py runs this binary under
// both providers, times numpy.fft on the same cases and prints docs/BENCHMARKS.md's table.
//
// Rows: BM_Fft/<lib>/<dtype>/<case>/<form>/threads:<n>   form: alloc (a fresh result per call),
//       into (tensora's `_into`, one destination reused) or direct (FFTW's execute)
//   case  c1024 c65536 c1048576 c1000 c10007 (1-D complex fft), r1048576 (1-D rfft),
//         2d1024x1024 (fft2), batch1000x1024 (1000 transforms of 1024 points)
#include <dlfcn.h>

#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "tensora/fft.hpp"

namespace {

namespace ta = tensora;
namespace fft = tensora::fft;
using cd = std::complex<double>;

struct Case {
  std::string name;
  ta::Shape shape;  // tensora's (column-major) shape; the transform runs along axis 0 (and 1 for 2-D)
  bool real;
  bool two_d;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> c{
      {"c1024", {1024}, false, false},          {"c65536", {65536}, false, false},
      {"c1048576", {1 << 20}, false, false},    {"c1000", {1000}, false, false},
      {"c10007", {10007}, false, false},        {"r1048576", {1 << 20}, true, false},
      {"2d1024x1024", {1024, 1024}, false, true}, {"batch1000x1024", {1024, 1000}, false, false},
  };
  return c;
}

const ta::Tensor& input(const Case& c) {
  static std::vector<ta::Tensor> made(cases().size());
  const auto i = static_cast<std::size_t>(&c - cases().data());
  if (!made[i].defined()) {
    const ta::TensorOptions f64(ta::Device::cpu(), ta::DType::F64);
    const ta::Tensor re = ta::Tensor::uniform(c.shape, 10 + i, f64, -1, 1);
    made[i] = c.real ? re : re.cast(ta::DType::C128, bench::engine(1));
    if (!c.real) {
      auto* z = made[i].data<cd>();
      const auto im = ta::Tensor::uniform(c.shape, 50 + i, f64, -1, 1).to_vec<double>();
      for (std::size_t k = 0; k < im.size(); ++k) z[k] = cd(z[k].real(), im[k]);
    }
  }
  return made[i];
}

ta::Tensor transform(const Case& c, const ta::Tensor& x, ta::Engine& e) {
  if (c.two_d) return fft::fft2(x, fft::FftnOptions{.axes = {0, 1}}, e);
  if (c.real) return fft::rfft(x, fft::FftOptions{.axis = 0}, e);
  return fft::fft(x, fft::FftOptions{.axis = 0}, e);
}

void tensora_row(benchmark::State& state, const Case& c, int threads) {
  const ta::Tensor& x = input(c);
  ta::Engine& e = bench::engine(threads);
  for (auto _ : state) {
    ta::Tensor y = transform(c, x, e);
    benchmark::DoNotOptimize(y);
  }
}

// The `_into` form: one destination for every iteration, as FFTW's direct rows reuse theirs.
void tensora_into_row(benchmark::State& state, const Case& c, int threads) {
  const ta::Tensor& x = input(c);
  ta::Engine& e = bench::engine(threads);
  const ta::Tensor dest = transform(c, x, e);
  for (auto _ : state) {
    if (c.two_d) fft::fft2_into(x, fft::FftnOptions{.axes = {0, 1}}, e, dest);
    else if (c.real) fft::rfft_into(x, fft::FftOptions{.axis = 0}, e, dest);
    else fft::fft_into(x, fft::FftOptions{.axis = 0}, e, dest);
    benchmark::ClobberMemory();
  }
}

// ---- FFTW, called directly -----------------------------------------------------------------

struct Fftw {
  using plan_t = void*;
  plan_t (*many)(int, const int*, int, cd*, const int*, int, int, cd*, const int*, int, int, int, unsigned) = nullptr;
  plan_t (*r2c)(int, double*, cd*, unsigned) = nullptr;
  void (*execute)(plan_t) = nullptr;
  void (*destroy)(plan_t) = nullptr;
  static const Fftw& get() {
    static const Fftw f = [] {
      Fftw f;
      if (void* h = ::dlopen("libfftw3.so.3", RTLD_NOW | RTLD_LOCAL)) {
        f.many = reinterpret_cast<decltype(f.many)>(::dlsym(h, "fftw_plan_many_dft"));
        f.r2c = reinterpret_cast<decltype(f.r2c)>(::dlsym(h, "fftw_plan_dft_r2c_1d"));
        f.execute = reinterpret_cast<decltype(f.execute)>(::dlsym(h, "fftw_execute"));
        f.destroy = reinterpret_cast<decltype(f.destroy)>(::dlsym(h, "fftw_destroy_plan"));
      }
      return f;
    }();
    return f;
  }
};

void fftw_row(benchmark::State& state, const Case& c) {
  const Fftw& f = Fftw::get();
  if (f.many == nullptr) return state.SkipWithError("FFTW not installed");
  constexpr unsigned kEstimate = 1U << 6;
  const ta::Tensor& x = input(c);
  const std::int64_t n0 = c.shape[0];
  std::vector<cd> out(static_cast<std::size_t>(x.numel()));
  Fftw::plan_t plan = nullptr;
  std::vector<double> rin;
  std::vector<cd> cin;
  if (c.real) {
    rin = x.to_vec<double>();
    plan = f.r2c(static_cast<int>(n0), rin.data(), out.data(), kEstimate);
  } else {
    cin = x.to_vec<cd>();
    if (c.two_d) {  // column-major [n0, n1] is FFTW's row-major [n1][n0]
      const int dims[2] = {static_cast<int>(c.shape[1]), static_cast<int>(n0)};
      plan = f.many(2, dims, 1, cin.data(), nullptr, 1, 0, out.data(), nullptr, 1, 0, -1, kEstimate);
    } else {
      const int dims[1] = {static_cast<int>(n0)};
      const int howmany = static_cast<int>(x.numel() / n0);
      plan = f.many(1, dims, howmany, cin.data(), nullptr, 1, static_cast<int>(n0), out.data(), nullptr, 1,
                    static_cast<int>(n0), -1, kEstimate);
    }
  }
  for (auto _ : state) {
    f.execute(plan);
    benchmark::ClobberMemory();
  }
  f.destroy(plan);
}

#if TENSORA_BENCH_HAVE_TORCH
void torch_row(benchmark::State& state, const Case& c, int threads) {
  bench::torch_threads(threads);
  const ta::Tensor& x = input(c);
  // tensora's column-major [n0, n1] is torch's row-major [n1, n0]: transform torch's last axes.
  std::vector<std::int64_t> sizes(c.shape.rbegin(), c.shape.rend());
  const auto opt = torch::TensorOptions().dtype(c.real ? torch::kFloat64 : torch::kComplexDouble);
  const torch::Tensor t = torch::from_blob(const_cast<void*>(x.element_ptr()), sizes, opt);
  for (auto _ : state) {
    torch::Tensor y = c.two_d ? torch::fft::fft2(t) : c.real ? torch::fft::rfft(t) : torch::fft::fft(t);
    benchmark::DoNotOptimize(y);
  }
}
#endif

const bool registered = [] {
  benchmark::AddCustomContext("tensora_fft", ta::fft_backend());
  for (const Case& c : cases()) {
    const std::string dt = c.real ? "f64" : "c128";
    for (const int t : {1, 2}) {
      const std::string suffix = "/" + dt + "/" + c.name + "/alloc/threads:" + std::to_string(t);
      benchmark::RegisterBenchmark(("BM_Fft/tensora" + suffix).c_str(), [&c, t](benchmark::State& s) {
        tensora_row(s, c, t);
      })->UseRealTime()->Unit(benchmark::kMillisecond);
      const std::string into = "/" + dt + "/" + c.name + "/into/threads:" + std::to_string(t);
      benchmark::RegisterBenchmark(("BM_Fft/tensora" + into).c_str(), [&c, t](benchmark::State& s) {
        tensora_into_row(s, c, t);
      })->UseRealTime()->Unit(benchmark::kMillisecond);
#if TENSORA_BENCH_HAVE_TORCH
      benchmark::RegisterBenchmark(("BM_Fft/torch" + suffix).c_str(), [&c, t](benchmark::State& s) {
        torch_row(s, c, t);
      })->UseRealTime()->Unit(benchmark::kMillisecond);
#endif
    }
    benchmark::RegisterBenchmark(("BM_Fft/fftw/" + dt + "/" + c.name + "/direct/threads:1").c_str(),
                                 [&c](benchmark::State& s) { fftw_row(s, c); })
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
