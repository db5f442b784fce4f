// Before/after driver for docs/BENCHMARKS.md "Transposed inputs": public API only, so it builds
// against an older libtensora.a too (the command is in that section). Args: case [threads].
#include <tensora/tensora.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
using namespace tensora;
template <class F> double best(F f) {
  double b = 1e9;
  for (int r = 0; r < 7; ++r) { auto t0 = std::chrono::steady_clock::now(); f(); b = std::min(b, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()); }
  return b;
}
int main(int argc, char** argv) {
  const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
  CpuEngine e = threads == 1 ? CpuEngine::serial() : CpuEngine::parallel(threads);
  const long n = 4096;
  const char* mode = argc > 1 ? argv[1] : "add";
  DType dt = std::strstr(mode, "f64") ? DType::F64 : std::strstr(mode, "f16") ? DType::F16 : std::strstr(mode, "c128") ? DType::C128 : DType::F32;
  Tensor base_a = Tensor::uniform({n * n}, 1, TensorOptions(DType::F32)).cast(dt, e);
  Tensor base_b = Tensor::uniform({n * n}, 2, TensorOptions(DType::F32)).cast(dt, e);
  Tensor a = base_a.reshape({n, n}).transpose(), b = base_b.reshape({n, n}).transpose();
  Tensor c = base_b.reshape({n, n});  // column-major
  Tensor dT = Tensor::zeros({n, n}, TensorOptions(dt)).transpose(), dC = Tensor::zeros({n, n}, TensorOptions(dt));
  double alloc = 0, into = 0;
  if (std::strncmp(mode, "add", 3) == 0) { alloc = best([&] { Tensor r = a.add(b, e); }); into = best([&] { a.add_into(b, e, dT); }); }
  else if (std::strncmp(mode, "one", 3) == 0) { alloc = best([&] { Tensor r = a.add(c, e); }); into = best([&] { c.add_into(c, e, dC); }); }
  else if (std::strncmp(mode, "neg", 3) == 0) { alloc = best([&] { Tensor r = a.neg(e); }); into = best([&] { a.neg_into(e, dT); }); }
  else if (std::strncmp(mode, "cast", 4) == 0) {
    DType to = dt == DType::F64 ? DType::F32 : DType::F64;
    Tensor dT2 = Tensor::zeros({n, n}, TensorOptions(to)).transpose();
    alloc = best([&] { Tensor r = a.cast(to, e); }); into = best([&] { Tensor r = a.transpose().cast(to, e); }); }
  std::printf("%-10s threads %d: alloc %.2f ms  into %.2f ms  ratio %.2f\n", mode, threads, alloc, into, alloc / into);
}
