// Contractions: tensora vs the BLAS it runs on called directly vs OpenBLAS vs LibTorch, in
// one run of one binary. Rendered into docs/BENCHMARKS.md (section "contraction") by
// bench/numpy_contraction.py, which adds NumPy's np.matmul at the same sizes.
//
// Row names: BM_<Op>/<lib>/<dtype>/<shape>/<form>/threads:<n>
//   Gemm  square n x n products, n = 256, 1024, 2048
//         tensora  a.matmul(b, e) (alloc) / a.dot_into(b, e, c) (into); engine serial or
//                  parallel(2): fixed column blocks, one single-threaded BLAS call each
//         blis     BLIS's own bli_?gemm_ex into a preallocated C, BLIS threading n threads
//                  (the library tensora runs on, configured the same way: skx kernels)
//         openblas cblas_?gemm of the process's OpenBLAS (the one LibTorch loaded), n threads
//         torch    torch::matmul, at::set_num_threads(n) and OpenBLAS at n threads
//   Bmm   10000 products of 8 x 8 F64 matrices
//         tensora           [10000, 8, 8] column-major: the batch is the fastest axis
//         tensora-rowmajor  the very memory of the torch row (one dense row-major matrix per
//                           product), viewed by tensora
//         blis-loop         one BLIS call per product (what per-call overhead costs)
//         torch             torch::bmm
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cpu/blas_provider.hpp"
#include "tensora/tensora.hpp"
#include "torch_threads.hpp"

#if TENSORA_BENCH_HAVE_TORCH
#include <ATen/Parallel.h>
#include <torch/torch.h>
#endif

namespace {

using tensora::DType;
using tensora::Tensor;

tensora::Engine& engine(int threads) {
  static tensora::CpuEngine serial = tensora::CpuEngine::serial();
  static tensora::CpuEngine two = tensora::CpuEngine::parallel(2);
  return threads == 1 ? static_cast<tensora::Engine&>(serial) : static_cast<tensora::Engine&>(two);
}

template <class T>
DType dtype_of() {
  return sizeof(T) == 4 ? DType::F32 : DType::F64;
}
template <class T>
const char* dtype_name() {
  return sizeof(T) == 4 ? "f32" : "f64";
}

std::string row(const std::string& op, const std::string& lib, const std::string& dtype, const std::string& shape,
                const std::string& form, int threads) {
  return "BM_" + op + "/" + lib + "/" + dtype + "/" + shape + "/" + form + "/threads:" + std::to_string(threads);
}

void flops(benchmark::State& state, double per_iteration) {
  state.counters["GFLOP/s"] = benchmark::Counter(per_iteration / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// Two n x n inputs with values in [-1, 1) and an output, made once per (dtype, n).
template <class T>
struct Square {
  Tensor a, b, c;
};
template <class T>
const Square<T>& square(std::int64_t n) {
  static std::vector<std::pair<std::int64_t, Square<T>>> cache;
  for (const auto& [k, v] : cache)
    if (k == n) return v;
  const tensora::TensorOptions opt(tensora::Device::cpu(), dtype_of<T>());
  cache.emplace_back(n, Square<T>{Tensor::uniform({n, n}, 1, opt, -1.0, 1.0), Tensor::uniform({n, n}, 2, opt, -1.0, 1.0),
                                  Tensor::zeros({n, n}, opt)});
  return cache.back().second;
}

template <class T>
void gemm_tensora(benchmark::State& state, std::int64_t n, bool into, int threads) {
  const auto& s = square<T>(n);
  tensora::Engine& e = engine(threads);
  if (into) {
    for (auto _ : state) {
      s.a.dot_into(s.b, e, s.c);
      benchmark::ClobberMemory();
    }
  } else {
    for (auto _ : state) {
      Tensor r = s.a.matmul(s.b, e);
      benchmark::DoNotOptimize(r);
    }
  }
  flops(state, 2.0 * n * n * n);
}

template <class T>
void gemm_direct(benchmark::State& state, tensora::cpu::BlasProvider* p, std::int64_t n, int threads) {
  if (p == nullptr) return state.SkipWithError("library not available");
  const auto& s = square<T>(n);
  p->set_threads(threads);
  for (auto _ : state) {
    p->gemm(tensora::cpu::BlasOp::N, tensora::cpu::BlasOp::N, n, n, n, T(1), s.a.template data<T>(), n,
            s.b.template data<T>(), n, T(0), s.c.template data<T>(), n);
    benchmark::ClobberMemory();
  }
  p->set_threads(1);  // tensora's own calls are single-threaded
  flops(state, 2.0 * n * n * n);
}

#if TENSORA_BENCH_HAVE_TORCH
using bench::torch_threads;

template <class T>
void gemm_torch(benchmark::State& state, std::int64_t n, int threads) {
  torch_threads(threads);
  const auto& s = square<T>(n);
  const auto opt = torch::TensorOptions().dtype(sizeof(T) == 4 ? torch::kFloat32 : torch::kFloat64);
  // The same values (LibTorch is row-major; the product's cost does not depend on the layout).
  const torch::Tensor a = torch::from_blob(s.a.template data<T>(), {n, n}, opt);
  const torch::Tensor b = torch::from_blob(s.b.template data<T>(), {n, n}, opt);
  for (auto _ : state) {
    torch::Tensor r = torch::matmul(a, b);
    benchmark::DoNotOptimize(r);
  }
  flops(state, 2.0 * n * n * n);
}
#endif

// ---- 10000 products of 8 x 8 --------------------------------------------------------------

constexpr std::int64_t kBatch = 10000, kSmall = 8;

struct Batch {
  Tensor a, b;      // [10000, 8, 8] column-major (batch fastest)
  Tensor ra, rb;    // [8, 8, 10000] column-major = row-major [10000, 8, 8]
};
const Batch& batch() {
  static const Batch b = [] {
    const tensora::TensorOptions opt(tensora::Device::cpu(), DType::F64);
    return Batch{Tensor::uniform({kBatch, kSmall, kSmall}, 3, opt, -1.0, 1.0),
                 Tensor::uniform({kBatch, kSmall, kSmall}, 4, opt, -1.0, 1.0),
                 Tensor::uniform({kSmall, kSmall, kBatch}, 5, opt, -1.0, 1.0),
                 Tensor::uniform({kSmall, kSmall, kBatch}, 6, opt, -1.0, 1.0)};
  }();
  return b;
}
constexpr double kBmmFlops = 2.0 * kBatch * kSmall * kSmall * kSmall;

void bmm_tensora(benchmark::State& state, bool rowmajor, int threads) {
  const Batch& in = batch();
  tensora::Engine& e = engine(threads);
  // Row-major [b][i][j] memory is tensora's [j, i, b]; permute to [b, i, j].
  const Tensor a = rowmajor ? in.ra.permute({2, 1, 0}) : in.a;
  const Tensor b = rowmajor ? in.rb.permute({2, 1, 0}) : in.b;
  for (auto _ : state) {
    Tensor r = a.matmul(b, e);
    benchmark::DoNotOptimize(r);
  }
  flops(state, kBmmFlops);
}

void bmm_blis_loop(benchmark::State& state, int threads) {
  tensora::cpu::BlasProvider* p = tensora::cpu::blas_by_name("blis");
  if (p == nullptr) return state.SkipWithError("BLIS not available");
  const Batch& in = batch();
  std::vector<double> c(static_cast<std::size_t>(kBatch * kSmall * kSmall));
  const double* a = in.ra.data<double>();
  const double* b = in.rb.data<double>();
  tensora::Engine& e = engine(threads);
  for (auto _ : state) {
    e.parallel_for(kBatch, 256, [&](std::int64_t q0, std::int64_t q1) {
      for (std::int64_t q = q0; q < q1; ++q)
        p->gemm(tensora::cpu::BlasOp::N, tensora::cpu::BlasOp::N, kSmall, kSmall, kSmall, 1.0, a + q * 64, kSmall,
                b + q * 64, kSmall, 0.0, c.data() + q * 64, kSmall);
    });
    benchmark::ClobberMemory();
  }
  flops(state, kBmmFlops);
}

#if TENSORA_BENCH_HAVE_TORCH
void bmm_torch(benchmark::State& state, int threads) {
  torch_threads(threads);
  const Batch& in = batch();
  const auto opt = torch::TensorOptions().dtype(torch::kFloat64);
  const torch::Tensor a = torch::from_blob(in.ra.data<double>(), {kBatch, kSmall, kSmall}, opt);
  const torch::Tensor b = torch::from_blob(in.rb.data<double>(), {kBatch, kSmall, kSmall}, opt);
  for (auto _ : state) {
    torch::Tensor r = torch::bmm(a, b);
    benchmark::DoNotOptimize(r);
  }
  flops(state, kBmmFlops);
}
#endif

template <class F>
void add(const std::string& name, F fn) {
  benchmark::RegisterBenchmark(name.c_str(), fn)->UseRealTime()->Unit(benchmark::kMillisecond);
}

template <class T>
void register_gemm() {
  for (const std::int64_t n : {256, 1024, 2048}) {
    const std::string dt = dtype_name<T>(), shape = std::to_string(n);
    for (const int t : {1, 2}) {
      add(row("Gemm", "tensora", dt, shape, "alloc", t), [=](benchmark::State& s) { gemm_tensora<T>(s, n, false, t); });
      add(row("Gemm", "tensora", dt, shape, "into", t), [=](benchmark::State& s) { gemm_tensora<T>(s, n, true, t); });
      add(row("Gemm", "blis", dt, shape, "direct", t),
          [=](benchmark::State& s) { gemm_direct<T>(s, tensora::cpu::blas_by_name("blis"), n, t); });
      add(row("Gemm", "openblas", dt, shape, "direct", t),
          [=](benchmark::State& s) { gemm_direct<T>(s, tensora::cpu::blas_by_name("openblas"), n, t); });
#if TENSORA_BENCH_HAVE_TORCH
      add(row("Gemm", "torch", dt, shape, "alloc", t), [=](benchmark::State& s) { gemm_torch<T>(s, n, t); });
#endif
    }
  }
}

const bool registered = [] {
  // Load tensora's BLAS first (it sets BLIS_ARCH_TYPE before BLIS initializes).
  benchmark::AddCustomContext("tensora_blas", tensora::blas_backend());
  if (auto* ob = tensora::cpu::blas_by_name("openblas")) benchmark::AddCustomContext("openblas", ob->name());
  register_gemm<float>();
  register_gemm<double>();
  const std::string shape = std::to_string(kBatch) + "x8x8";
  for (const int t : {1, 2}) {
    add(row("Bmm", "tensora", "f64", shape, "alloc", t), [=](benchmark::State& s) { bmm_tensora(s, false, t); });
    add(row("Bmm", "tensora-rowmajor", "f64", shape, "alloc", t), [=](benchmark::State& s) { bmm_tensora(s, true, t); });
    add(row("Bmm", "blis-loop", "f64", shape, "direct", t), [=](benchmark::State& s) { bmm_blis_loop(s, t); });
#if TENSORA_BENCH_HAVE_TORCH
    add(row("Bmm", "torch", "f64", shape, "alloc", t), [=](benchmark::State& s) { bmm_torch(s, t); });
#endif
  }
  return true;
}();

}  // namespace
