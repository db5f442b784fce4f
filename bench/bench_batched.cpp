// Batched products of medium matrices (issue 16): stacks of b products of n x n, F32 and F64,
// 1 and 2 threads, tensora beside LibTorch in one run; bench/numpy_batched.py adds NumPy's
// np.matmul and np.einsum on the same memory and renders the table in docs/BENCHMARKS.md.
//
// Row names: BM_Batched/<who>/<dtype>/<b>x<n>/threads:<t>
//   tensora-einsum  einsum on the very memory the peers use, in and out: row-major [b, i, j] is
//                   column-major [j, i, b], so `bij,bjk->bik` is spelled `jib,kjb->kib` and the
//                   column-major result has the bytes of the peers' row-major one
//   tensora-into    a.dot_into(b, e, dest) on the same memory: a, b and dest are [b, i, j] views
//                   of row-major stacks (the like-for-like matmul)
//   tensora-matmul  a.matmul(b, e) on those views: an allocating matmul keeps tensora's promise of
//                   a column-major result, so it writes the batch as the fastest axis
//   tensora-cm      a.matmul(b, e) on column-major [b, i, j] operands (tensora's own layout,
//                   the batch fastest)
//   torch           torch::matmul (bmm) on row-major [b, i, j] stacks
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "tensora/tensora.hpp"
#include "torch_threads.hpp"

#if TENSORA_BENCH_HAVE_TORCH
#include <torch/torch.h>
#endif

namespace {

namespace ta = tensora;

struct Shape3 {
  std::int64_t b, n;
};
constexpr Shape3 kShapes[] = {{64, 96}, {256, 32}, {16, 256}};

ta::Engine& engine(int threads) {
  static ta::CpuEngine serial = ta::CpuEngine::serial();
  static ta::CpuEngine two = ta::CpuEngine::parallel(2);
  return threads == 1 ? static_cast<ta::Engine&>(serial) : static_cast<ta::Engine&>(two);
}

double flops(Shape3 s) { return 2.0 * static_cast<double>(s.b) * static_cast<double>(s.n * s.n * s.n); }

void count(benchmark::State& state, Shape3 s) {
  state.counters["GFLOP/s"] = benchmark::Counter(flops(s) / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

// Row-major [b, n, n] stacks as tensora sees them: column-major [n, n, b].
ta::Tensor row_major_stack(Shape3 s, ta::DType dt, std::uint64_t seed) {
  return ta::Tensor::uniform({s.n, s.n, s.b}, seed, {ta::Device::cpu(), dt}, -1.0, 1.0);
}

void tensora_row(benchmark::State& state, const std::string& who, ta::DType dt, Shape3 s, int threads) {
  ta::Engine& e = engine(threads);
  if (who == "tensora-cm") {
    const ta::TensorOptions opt(ta::Device::cpu(), dt);
    const ta::Tensor a = ta::Tensor::uniform({s.b, s.n, s.n}, 1, opt, -1.0, 1.0);
    const ta::Tensor b = ta::Tensor::uniform({s.b, s.n, s.n}, 2, opt, -1.0, 1.0);
    for (auto _ : state) benchmark::DoNotOptimize(a.matmul(b, e));
  } else if (who == "tensora-einsum") {
    const std::vector<ta::Tensor> ops = {row_major_stack(s, dt, 1), row_major_stack(s, dt, 2)};
    for (auto _ : state) benchmark::DoNotOptimize(ta::einsum("jib,kjb->kib", ops, e));
  } else {
    const ta::Tensor a = row_major_stack(s, dt, 1).permute({2, 1, 0});
    const ta::Tensor b = row_major_stack(s, dt, 2).permute({2, 1, 0});
    if (who == "tensora-into") {
      const ta::Tensor dest = row_major_stack(s, dt, 3).permute({2, 1, 0});
      for (auto _ : state) {
        a.dot_into(b, e, dest);
        benchmark::ClobberMemory();
      }
    } else {
      for (auto _ : state) benchmark::DoNotOptimize(a.matmul(b, e));
    }
  }
  count(state, s);
}

#if TENSORA_BENCH_HAVE_TORCH
void torch_row(benchmark::State& state, ta::DType dt, Shape3 s, int threads) {
  bench::torch_threads(threads);
  const auto opt = torch::TensorOptions().dtype(dt == ta::DType::F32 ? torch::kFloat32 : torch::kFloat64);
  const torch::Tensor a = torch::rand({s.b, s.n, s.n}, opt), b = torch::rand({s.b, s.n, s.n}, opt);
  for (auto _ : state) benchmark::DoNotOptimize(torch::matmul(a, b));
  count(state, s);
}
#endif

[[maybe_unused]] const bool registered = [] {
  benchmark::AddCustomContext("tensora_blas", ta::blas_backend());
  for (const Shape3 s : kShapes) {
    for (const ta::DType dt : {ta::DType::F32, ta::DType::F64}) {
      const std::string tail = std::string("/") + (dt == ta::DType::F32 ? "f32" : "f64") + "/" + std::to_string(s.b) +
                               "x" + std::to_string(s.n);
      for (const int t : {1, 2}) {
        const std::string threads = "/threads:" + std::to_string(t);
        for (const char* who : {"tensora-einsum", "tensora-into", "tensora-matmul", "tensora-cm"})
          benchmark::RegisterBenchmark(
              ("BM_Batched/" + std::string(who) + tail + threads).c_str(),
              [=](benchmark::State& st) { tensora_row(st, who, dt, s, t); })
              ->UseRealTime()
              ->Unit(benchmark::kMillisecond);
#if TENSORA_BENCH_HAVE_TORCH
        benchmark::RegisterBenchmark(("BM_Batched/torch" + tail + threads).c_str(),
                                     [=](benchmark::State& st) { torch_row(st, dt, s, t); })
            ->UseRealTime()
            ->Unit(benchmark::kMillisecond);
#endif
      }
    }
  }
  return true;
}();

}  // namespace
