// Stand-alone driver for the copying Tensor methods (docs/ops.md "Copies"): `contiguous()` of a
// transposed 4096 x 4096 view and of a stack of 64 96 x 96 matrices stored batch-fastest (made
// batch-slowest, as a batched product's operand is), a flat `duplicate()` (the memcpy floor)
// and the per-call cost of a 4-element `duplicate()`.
// Public API only, so it also builds against an older libtensora.a (run the two builds
// alternately for a before/after); bench/numpy_copy.py times NumPy's `asfortranarray` beside it:
//
//   g++ -std=c++20 -O2 -I include bench/copy_driver.cpp build/src/libtensora.a -llapack -lhwy -lz -ldl -lpthread -o /tmp/copy_driver
//   /tmp/copy_driver && /usr/bin/python3 bench/numpy_copy.py
//
// Prints the best of 5 (20 for the stack) in ms, and ns per call for the small copy.
#include <chrono>
#include <cstdio>
#include <string>

#include "driver_timing.hpp"
#include "tensora/tensora.hpp"

namespace ta = tensora;

int main() {
  auto e = ta::CpuEngine::serial();
  for (ta::DType d : {ta::DType::F16, ta::DType::F32, ta::DType::F64, ta::DType::C128}) {
    const ta::Tensor x = ta::Tensor::uniform({4096, 4096}, 1, ta::TensorOptions(ta::DType::F32), -1.0, 1.0).cast(d, e);
    const ta::Tensor xt = x.transpose();
    const double transposed = bench::best_ms(5, [&] { (void)xt.contiguous(); });
    const double flat = bench::best_ms(5, [&] { (void)x.duplicate(); });
    const ta::Tensor stack =
        ta::Tensor::uniform({64, 96, 96}, 2, ta::TensorOptions(ta::DType::F32), -1.0, 1.0).cast(d, e).permute({1, 2, 0});
    const double batched = bench::best_ms(20, [&] { (void)stack.contiguous(); });
    std::printf("%-5s 4096^2 transposed contiguous() %7.2f ms   flat duplicate() %6.2f ms   stack to batch-slowest %6.3f ms\n",
                std::string(ta::name(d)).c_str(), transposed, flat, batched);
  }
  const ta::Tensor small = ta::Tensor::uniform({4}, 3, ta::TensorOptions(ta::DType::F32), -1.0, 1.0);
  double best = 1e30;
  for (int round = 0; round < 20; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 20000; ++i) (void)small.duplicate();
    best = std::min(best, std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / 20000);
  }
  std::printf("4-element F32 duplicate() %.0f ns per call\n", best);
}
