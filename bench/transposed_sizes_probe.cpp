// Stand-alone probe: allocating transposed `add` and `neg` (and their `into` floors) for F32,
// F64 and C128 at 4096 x 4096 (power-of-two rows, aligned columns) and 4100 x 4100 (neither),
// one after the other in one process, printing the allocator's cache before each size. It
// shows two things docs/ops.md records: the cache's eviction order (a program that has used
// other sizes before must still reuse its result buffer; see "Memory") and the cost of
// unaligned output columns, which the tile kernels cannot stream ("Broadcasting and layouts").
// Public API only; not part of the build:
//
//   g++ -O2 -std=c++20 -Iinclude bench/transposed_sizes_probe.cpp build/src/libtensora.a -lhwy -lz -ldl -lpthread -o /tmp/sizes_probe
//   /tmp/sizes_probe
#include <tensora/tensora.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

using namespace tensora;

template <class F>
double best_ms(F f) {
  double b = 1e9;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    b = std::min(b, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return b;
}

int main() {
  CpuEngine e = CpuEngine::serial();
  for (DType dt : {DType::F32, DType::F64, DType::C128})
    for (std::int64_t n : {4096, 4100}) {
      const Tensor base_a = Tensor::uniform({n * n}, 1, TensorOptions(DType::F32)).cast(dt, e);
      const Tensor base_b = Tensor::uniform({n * n}, 2, TensorOptions(DType::F32)).cast(dt, e);
      const Tensor a = base_a.reshape({n, n}).transpose(), b = base_b.reshape({n, n}).transpose();
      const Tensor dest = Tensor::zeros({n, n}, TensorOptions(dt)).transpose();  // the inputs' layout
      const MemoryStats s = memory_stats(Device::cpu());
      std::printf("cache %zu MiB, in use %zu MiB\n", s.bytes_cached >> 20, s.bytes_in_use >> 20);
      const double add = best_ms([&] { (void)a.add(b, e); }), add_into = best_ms([&] { a.add_into(b, e, dest); });
      const double neg = best_ms([&] { (void)a.neg(e); }), neg_into = best_ms([&] { a.neg_into(e, dest); });
      std::printf("%-5s n=%lld  add %.1f ms (into %.1f, %.2fx)  neg %.1f ms (into %.1f, %.2fx)\n",
                  std::string(name(dt)).c_str(), static_cast<long long>(n), add, add_into, add / add_into, neg,
                  neg_into, neg / neg_into);
    }
}
