// einsum side by side: tensora (planned order, dot_general steps) vs LibTorch's torch::einsum,
// single-threaded; bench/numpy_einsum.py times NumPy's einsum(optimize=True) on the same cases.
// Rows: BM_Einsum/<who>/f64/<case>/threads:1 with <who>
//   tensora      column-major operands of the case's shapes (tensora's natural layout)
//   tensora-rm   the very memory LibTorch and NumPy use, in and out: every operand's shape and
//                subscript reversed (row-major [b, i, j] is column-major [j, i, b]), so the
//                column-major result has the bytes of the peers' row-major one
//   torch        torch::einsum, one intra-op thread and the process's OpenBLAS at one thread
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "tensora/tensora.hpp"
#include "torch_threads.hpp"

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

std::vector<ta::Tensor> operands(const Case& c, bool row_major) {
  std::vector<ta::Tensor> ops;
  std::uint64_t seed = 1;
  for (const auto& s : c.shapes) {
    const ta::Shape shape = row_major ? ta::Shape(s.rbegin(), s.rend()) : s;
    ops.push_back(ta::Tensor::uniform(shape, seed++, {ta::Device::cpu(), ta::DType::F64}));
  }
  return ops;
}

// "ab,bc->ac" -> "ba,cb->ca": the same contraction on the reversed (row-major) memory.
std::string reversed_terms(const std::string& subscripts) {
  std::string out, term;
  for (const char ch : subscripts + ",") {
    if (ch == ',' || ch == '-' || ch == '>') {
      out.append(term.rbegin(), term.rend());
      term.clear();
      if (ch != ',' || out.size() < subscripts.size()) out += ch;
    } else {
      term += ch;
    }
  }
  return out;
}

void BM_EinsumTensora(benchmark::State& state, const Case* c, bool row_major) {
  auto engine = ta::CpuEngine::serial();
  const auto ops = operands(*c, row_major);
  const std::string subscripts = row_major ? reversed_terms(c->subscripts) : c->subscripts;
  for (auto _ : state) benchmark::DoNotOptimize(ta::einsum(subscripts, ops, engine));
  state.counters["planned_flops"] = ta::einsum_path(subscripts, ops).flops;
  state.SetLabel(subscripts);
}

#if TENSORA_BENCH_HAVE_TORCH
void BM_EinsumTorch(benchmark::State& state, const Case* c) {
  bench::torch_threads(1);
  std::vector<torch::Tensor> ops;
  for (const auto& s : c->shapes) ops.push_back(torch::rand(s, torch::kFloat64));
  for (auto _ : state) benchmark::DoNotOptimize(torch::einsum(c->subscripts, ops));
}
#endif

[[maybe_unused]] const bool registered = [] {
  for (const auto& c : cases()) {
    for (const bool rm : {false, true})
      benchmark::RegisterBenchmark(
          (std::string("BM_Einsum/") + (rm ? "tensora-rm" : "tensora") + "/f64/" + c.name + "/threads:1").c_str(),
          BM_EinsumTensora, &c, rm)
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
