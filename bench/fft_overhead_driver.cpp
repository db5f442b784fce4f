// Stand-alone driver for docs/BENCHMARKS.md "FFT" (the small rows): one n-point C128 transform
// through tensora's `fft::fft_into` (one destination), `fft::fft` (a fresh result) and FFTW's
// own execute on one plan (FFTW_ESTIMATE, as tensora plans), interleaved in rounds of 2000
// calls each, best round of 200. At 1000-1024 points a transform takes ~1.3-2.5 us, so the
// per-call cost around FFTW decides the ratio, and the Google Benchmark rows, which run one
// library after the other, swing by more than that cost on these VMs.
//
//   g++ -std=c++20 -O2 -I include bench/fft_overhead_driver.cpp build/src/libtensora.a -llapack -lhwy -lz -ldl -lpthread -o /tmp/fft_overhead
//   /tmp/fft_overhead 1024    # or 1000
//
// Prints ns per call and FFTW direct / tensora (above 1: tensora is faster).
#include <dlfcn.h>

#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tensora/fft.hpp"
#include "tensora/tensora.hpp"

namespace ta = tensora;
using cd = std::complex<double>;

namespace {

template <class F>
double round_ns(int calls, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / calls;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  void* h = ::dlopen("libfftw3.so.3", RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    std::fprintf(stderr, "FFTW (libfftw3.so.3) is not installed\n");
    return 1;
  }
  using plan_t = void*;
  auto plan_dft = reinterpret_cast<plan_t (*)(int, cd*, cd*, int, unsigned)>(::dlsym(h, "fftw_plan_dft_1d"));
  auto execute = reinterpret_cast<void (*)(plan_t)>(::dlsym(h, "fftw_execute"));
  constexpr unsigned kEstimate = 1U << 6;

  auto e = ta::CpuEngine::serial();
  const ta::Tensor x = ta::Tensor::uniform({n}, 3, {ta::Device::cpu(), ta::DType::F64}).cast(ta::DType::C128, e);
  const ta::Tensor dest = ta::fft::fft(x, e);
  std::vector<cd> in = x.to_vec<cd>(), out(static_cast<std::size_t>(n));
  plan_t plan = plan_dft(n, in.data(), out.data(), -1, kEstimate);

  constexpr int kCalls = 2000, kRounds = 200;
  double into = 1e30, alloc = 1e30, fftw = 1e30;
  for (int r = 0; r < kRounds; ++r) {
    into = std::min(into, round_ns(kCalls, [&] { ta::fft::fft_into(x, e, dest); }));
    fftw = std::min(fftw, round_ns(kCalls, [&] {
                      execute(plan);
                      asm volatile("" : : : "memory");
                    }));
    alloc = std::min(alloc, round_ns(kCalls, [&] {
                       const ta::Tensor y = ta::fft::fft(x, e);
                       asm volatile("" : : "r"(&y) : "memory");
                     }));
  }
  std::printf("n=%d  fft_into %.0f ns  fft %.0f ns  FFTW direct %.0f ns  FFTW/into %.3f  FFTW/fft %.3f\n", n, into,
              alloc, fftw, fftw / into, fftw / alloc);
  return 0;
}
