// Stand-alone driver for docs/BENCHMARKS.md "Traced" (accumulator programs): the traced Chain8 /
// Chain8Div program of bench_traced.cpp against the bench's hand loop (ref::chain8, -O3
// -march=native), alternated in one process, which on a noisy VM compares more steadily than
// two benchmark rows. Public API only, so it builds against an older libtensora.a too:
//
//   g++ -std=c++20 -O3 -march=native -fopenmp-simd -c bench/reference_kernels.cpp -o /tmp/ref.o
//   g++ -std=c++20 -O3 -I include bench/fused_chain_driver.cpp /tmp/ref.o build/src/libtensora.a -lhwy -lz -ldl -lpthread -o /tmp/fused_chain
//   /tmp/fused_chain 16777216 4 div   # elements, runs per round, "div" for Chain8Div
//
// After one untimed run of each (fresh pages), prints, for three rounds, the time of `runs` fused runs, of `runs` hand loops, and their ratio.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "reference_kernels.hpp"
#include "tensora/tensora.hpp"

namespace ta = tensora;

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s elements runs [div]\n", argv[0]);
    return 2;
  }
  const std::int64_t n = std::atoll(argv[1]);
  const long runs = std::atol(argv[2]);
  const bool divide = argc > 3 && std::strcmp(argv[3], "div") == 0;
  const ta::TensorOptions f32(ta::Device::cpu(), ta::DType::F32);
  const ta::Tensor xv = ta::Tensor::uniform({n}, 1, f32, -1.0, 1.0);
  const ta::Tensor out = ta::Tensor::zeros({n}, f32);
  const auto x = ta::TracedTensor::input("x", ta::DType::F32, {n});
  const ta::TracedTensor a = (x * 1.5 + 0.25) * x - 0.5, b = x * x + 1.0;
  const ta::Program program = ta::GraphCompiler().compile({(divide ? a / b : a * b).maximum(-0.25)});
  ta::CpuEngine engine = ta::CpuEngine::serial();
  const ta::Runtime runtime;
  using Clock = std::chrono::steady_clock;
  const auto ms = [](Clock::time_point t0, Clock::time_point t1) {
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
  };
  (void)runtime.run(program, engine, {xv});
  bench::ref::chain8(1, divide, out.data<float>(), xv.data<float>(), n);
  for (int round = 0; round < 3; ++round) {
    const auto t0 = Clock::now();
    for (long r = 0; r < runs; ++r) (void)runtime.run(program, engine, {xv});
    const auto t1 = Clock::now();
    for (long r = 0; r < runs; ++r) bench::ref::chain8(1, divide, out.data<float>(), xv.data<float>(), n);
    const auto t2 = Clock::now();
    std::printf("fused %.2f ms  hand %.2f ms  fused / hand %.2f\n", ms(t0, t1), ms(t1, t2), ms(t0, t1) / ms(t1, t2));
  }
}
