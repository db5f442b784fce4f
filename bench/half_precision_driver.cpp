// Stand-alone driver for docs/BENCHMARKS.md "Transposed inputs" (F16 and BF16 through F32
// vectors): half-precision elementwise ops and casts on 4096 x 4096 tensors, serial, best of 5
// calls each. Public API only, so it builds against an older libtensora.a too; build it
// against the libraries before and after a change and run them alternately:
//
//   g++ -std=c++20 -O2 -I include bench/half_precision_driver.cpp build/src/libtensora.a -lhwy -lz -ldl -lpthread -o /tmp/half
//   /tmp/half f16    # or bf16
//
// Prints, in ms: neg/add/exp into a dense destination, the casts to and from F32, and the
// allocating neg, add and F32 cast of transposed views (a column-major result of row-major data).
#include <cstdio>
#include <cstring>

#include "driver_timing.hpp"
#include "tensora/tensora.hpp"

namespace ta = tensora;

int main(int argc, char** argv) {
  if (argc < 2 || (std::strcmp(argv[1], "f16") != 0 && std::strcmp(argv[1], "bf16") != 0)) {
    std::fprintf(stderr, "usage: %s f16|bf16\n", argv[0]);
    return 2;
  }
  const ta::DType dt = std::strcmp(argv[1], "bf16") == 0 ? ta::DType::BF16 : ta::DType::F16;
  ta::CpuEngine e = ta::CpuEngine::serial();
  const std::int64_t n = 4096;
  const ta::TensorOptions half(ta::Device::cpu(), dt), f32(ta::Device::cpu(), ta::DType::F32);
  const ta::Tensor a = ta::Tensor::uniform({n, n}, 1, half, -1.0, 1.0), b = ta::Tensor::uniform({n, n}, 2, half, -1.0, 1.0);
  const ta::Tensor x = ta::Tensor::uniform({n, n}, 3, f32, -1.0, 1.0);
  const ta::Tensor out = ta::Tensor::zeros({n, n}, half);
  auto best_ms = [](auto&& f) { return bench::best_ms(5, f); };
  std::printf("%s  neg_into %.2f  add_into %.2f  exp_into %.2f  cast->f32 %.2f  f32->cast %.2f  ", argv[1],
              best_ms([&] { a.neg_into(e, out); }), best_ms([&] { a.add_into(b, e, out); }),
              best_ms([&] { a.exp_into(e, out); }), best_ms([&] { ta::Tensor r = a.cast(ta::DType::F32, e); }),
              best_ms([&] { ta::Tensor r = x.cast(dt, e); }));
  std::printf("transposed: neg %.2f  add %.2f  cast->f32 %.2f\n", best_ms([&] { ta::Tensor r = a.transpose().neg(e); }),
              best_ms([&] { ta::Tensor r = a.transpose().add(b.transpose(), e); }),
              best_ms([&] { ta::Tensor r = a.transpose().cast(ta::DType::F32, e); }));
}
