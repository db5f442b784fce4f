// einsum side by side: tensora (planned order, dot_general steps) vs LibTorch's torch::einsum,
// single-threaded; bench/numpy_einsum.py times NumPy's einsum(optimize=True) on the same cases.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "tensora/tensora.hpp"

#if TENSORA_BENCH_HAVE_TORCH
#include <ATen/Parallel.h>
#include <torch/torch.h>
#endif

namespace {

namespace ta = tensora;

struct Case {
  const char* name;
  const char* subscripts;
  std::vector<ta::Shape> shapes;
};

// Column-major shapes here are the same logical shapes LibTorch sees (values differ only in
// memory order, which does not matter for timing a contraction of random data).
const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"batched_matmul", "bij,bjk->bik", {{64, 96, 96}, {64, 96, 96}}},
      {"tensor_contraction", "abc,cbd->ad", {{256, 48, 48}, {48, 48, 256}}},
      {"matrix_chain5", "ab,bc,cd,de,ef->af", {{400, 40}, {40, 500}, {500, 20}, {20, 300}, {300, 600}}},
  };
  return all;
}

std::vector<ta::Tensor> operands(const Case& c) {
  std::vector<ta::Tensor> ops;
  std::uint64_t seed = 1;
  for (const auto& s : c.shapes) ops.push_back(ta::Tensor::uniform(s, seed++, {ta::Device::cpu(), ta::DType::F64}));
  return ops;
}

void BM_EinsumTensora(benchmark::State& state, const Case* c) {
  auto engine = ta::CpuEngine::serial();
  const auto ops = operands(*c);
  for (auto _ : state) benchmark::DoNotOptimize(ta::einsum(c->subscripts, ops, engine));
  state.counters["planned_flops"] = ta::einsum_path(c->subscripts, ops).flops;
}

#if TENSORA_BENCH_HAVE_TORCH
void BM_EinsumTorch(benchmark::State& state, const Case* c) {
  at::set_num_threads(1);
  std::vector<torch::Tensor> ops;
  for (const auto& s : c->shapes) ops.push_back(torch::rand(s, torch::kFloat64));
  for (auto _ : state) benchmark::DoNotOptimize(torch::einsum(c->subscripts, ops));
}
#endif

[[maybe_unused]] const bool registered = [] {
  for (const auto& c : cases()) {
    benchmark::RegisterBenchmark((std::string("BM_Einsum/tensora/f64/") + c.name + "/threads:1").c_str(),
                                 BM_EinsumTensora, &c)
        ->Unit(benchmark::kMillisecond);
#if TENSORA_BENCH_HAVE_TORCH
    benchmark::RegisterBenchmark((std::string("BM_Einsum/torch/f64/") + c.name + "/threads:1").c_str(),
                                 BM_EinsumTorch, &c)
        ->Unit(benchmark::kMillisecond);
#endif
  }
  return true;
}();

}  // namespace
