// Stand-alone driver for docs/BENCHMARKS.md "Linear algebra" (batched small matrices): the
// small-matrix kernels on 10000 x 8x8 and 100000 x 3x3 F64 stacks (the bench's inputs), serial,
// best of 15 calls each, next to two flat passes over the same stack (a copy and a negation:
// the memory traffic every kernel pays at least). Public API only, so it builds against an
// older libtensora.a too; build it against the libraries before and after a change and run
// them alternately:
//
//   g++ -std=c++20 -O2 -I include bench/small_linalg_driver.cpp build/src/libtensora.a -llapack -lhwy -lz -ldl -lpthread -o /tmp/small
//   /tmp/small 8      # or 3
//
// Prints, in ms: inv, solve (one right-hand side vector), det, cholesky, eigvalsh, eigh (with
// vectors), and the flat neg and contiguous copy of the stack.
#include <cstdio>
#include <cstdlib>

#include "driver_timing.hpp"
#include "tensora/linalg.hpp"
#include "tensora/tensora.hpp"

namespace ta = tensora;
namespace la = tensora::linalg;

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoi(argv[1]) : 8;
  if (n != 3 && n != 8) {
    std::fprintf(stderr, "usage: %s 8|3\n", argv[0]);
    return 2;
  }
  const std::int64_t batch = n == 8 ? 10000 : 100000;
  ta::CpuEngine e = ta::CpuEngine::serial();
  const ta::TensorOptions f64(ta::Device::cpu(), ta::DType::F64);
  const ta::Tensor x = ta::Tensor::uniform({batch, n, n}, 7, f64, -1, 1);
  const ta::Tensor eye = ta::Tensor::eye(n, f64).mul(ta::Scalar(static_cast<double>(n)), e);
  const ta::Tensor general = x.add(eye, e), spd = x.matmul(x.transpose(-2, -1), e).add(eye, e),
                   sym = x.add(x.transpose(-2, -1), e);
  const ta::Tensor b = ta::Tensor::uniform({batch, n}, 8, f64, -1, 1);
  auto best_ms = [](auto&& f) { return bench::best_ms(15, f); };
  std::printf("%lldx%lld  inv %.3f  solve %.3f  det %.3f  cholesky %.3f  eigvalsh %.3f  eigh %.3f  neg %.3f  copy %.3f\n",
              static_cast<long long>(batch), static_cast<long long>(n),
              best_ms([&] { ta::Tensor r = la::inv(general, e); }),
              best_ms([&] { ta::Tensor r = la::solve(general, b, e); }),
              best_ms([&] { ta::Tensor r = la::det(general, e); }),
              best_ms([&] { ta::Tensor r = la::cholesky(spd, e); }),
              best_ms([&] { ta::Tensor r = la::eigvalsh(sym, e); }),
              best_ms([&] { auto r = la::eigh(sym, e); }),
              best_ms([&] { ta::Tensor r = general.neg(e); }),
              best_ms([&] { ta::Tensor r = general.duplicate(); }));
}
