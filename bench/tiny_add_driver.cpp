// Stand-alone driver for docs/BENCHMARKS.md "Per-op cost" (issue 16): a 4-element F32 direct
// `add` (allocating and `add_into`) next to a plain loop that heap-allocates its 4-float
// result, interleaved in rounds of 20000 calls, best round of 100. Public API only, so it also
// builds against an older libtensora.a (run the two builds alternately for a before/after):
//
//   g++ -std=c++20 -O2 -I include bench/tiny_add_driver.cpp build/src/libtensora.a -llapack -lhwy -lz -ldl -lpthread -o /tmp/tiny_add
//   /tmp/tiny_add
//
// Prints ns per call and add / plain loop.
#include <chrono>
#include <cstdio>
#include <memory>

#include "tensora/tensora.hpp"

namespace ta = tensora;

namespace {

template <class F>
double round_ns(int calls, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) f();
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / calls;
}

}  // namespace

int main() {
  auto e = ta::CpuEngine::serial();
  const ta::TensorOptions f32(ta::Device::cpu(), ta::DType::F32);
  const ta::Tensor x = ta::Tensor::uniform({4}, 1, f32), y = ta::Tensor::uniform({4}, 2, f32);
  const ta::Tensor dest = x.add(y, e);
  const float* a = x.data<float>();
  const float* b = y.data<float>();
  constexpr int kCalls = 20000, kRounds = 100;
  double add = 1e30, into = 1e30, plain = 1e30;
  for (int r = 0; r < kRounds; ++r) {
    add = std::min(add, round_ns(kCalls, [&] {
                     const ta::Tensor z = x.add(y, e);
                     asm volatile("" : : "r"(&z) : "memory");
                   }));
    into = std::min(into, round_ns(kCalls, [&] { x.add_into(y, e, dest); }));
    plain = std::min(plain, round_ns(kCalls, [&] {
                       auto out = std::make_unique<float[]>(4);
                       for (int k = 0; k < 4; ++k) out[k] = a[k] + b[k];
                       asm volatile("" : : "r"(out.get()) : "memory");
                     }));
  }
  std::printf("add %.1f ns  add_into %.1f ns  plain loop %.1f ns  add / plain %.2f\n", add, into, plain, add / plain);
  return 0;
}
