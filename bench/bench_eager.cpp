// Eager overhead (docs/eager.md, docs/BENCHMARKS.md section "eager"): per-op cost on 4-element
// tensors (direct vs eager without and with recording vs LibTorch autograd), and forward +
// backward of a 3-layer MLP (batch 256, width 512, F32) vs LibTorch, on one run.
//
// Rows: BM_<Case>/<lib>/f32/<shape>/<form>/threads:<n>
//   Add4:       x + y on 4 elements; forms direct | eager-const | eager-grad | torch-nograd |
//               (lib plain-loop: the heap-allocating hand loop, the per-op cost's floor)
//   torch-grad Chain1000:  1000 tiny adds then backward; forms eager-fwd | eager-fwd+bwd |
//   torch-fwd+bwd Mlp3:       3 dense layers (tanh) forward + backward; lib tensora | torch
#include <benchmark/benchmark.h>

#include <memory>
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

std::string row(const std::string& c, const std::string& lib, const std::string& shape,
                const std::string& form, int threads) {
  return "BM_" + c + "/" + lib + "/f32/" + shape + "/" + form +
         "/threads:" + std::to_string(threads);
}

ta::Engine& engine(int threads) {
  static ta::CpuEngine serial = ta::CpuEngine::serial();
  static ta::CpuEngine two = ta::CpuEngine::parallel(2);
  return threads == 1 ? static_cast<ta::Engine&>(serial) : static_cast<ta::Engine&>(two);
}

const ta::TensorOptions kF32(ta::Device::cpu(), ta::DType::F32);

void add4_direct(benchmark::State& state) {
  auto& e = engine(1);
  const auto x = ta::Tensor::uniform({4}, 1, kF32), y = ta::Tensor::uniform({4}, 2, kF32);
  for (auto _ : state) benchmark::DoNotOptimize(x.add(y, e));
}

// The floor the per-op cost is measured against: a loop that heap-allocates its 4-float result.
void add4_plain_loop(benchmark::State& state) {
  const auto x = ta::Tensor::uniform({4}, 1, kF32), y = ta::Tensor::uniform({4}, 2, kF32);
  const float* a = x.data<float>();
  const float* b = y.data<float>();
  for (auto _ : state) {
    auto out = std::make_unique<float[]>(4);
    for (int k = 0; k < 4; ++k) out[k] = a[k] + b[k];
    benchmark::DoNotOptimize(out);
  }
}

void add4_eager(benchmark::State& state, bool grad) {
  ta::EagerRuntime rt;
  const auto x = grad ? rt.variable_from(ta::Tensor::uniform({4}, 1, kF32))
                      : rt.constant_from(ta::Tensor::uniform({4}, 1, kF32));
  const auto y = rt.constant_from(ta::Tensor::uniform({4}, 2, kF32));
  rt.with_eager_session(engine(1), [&](ta::EagerSession& s) {
    for (auto _ : state) benchmark::DoNotOptimize(s.add(x, y));
  });
}

void chain_eager(benchmark::State& state, bool backward) {
  ta::EagerRuntime rt;
  const auto x = rt.variable_from(ta::Tensor::uniform({4}, 1, kF32));
  const auto y = rt.constant_from(ta::Tensor::uniform({4}, 2, kF32));
  rt.with_eager_session(engine(1), [&](ta::EagerSession& s) {
    for (auto _ : state) {
      ta::EagerTensor h = x;
      for (int i = 0; i < 1000; ++i) h = s.add(h, y);
      auto loss = s.sum(h);
      if (backward) {
        loss.backward();
        x.clear_grad();
      }
      benchmark::DoNotOptimize(loss);
    }
  });
}

// Three dense layers x -> tanh(x W1 + b1) -> tanh(. W2 + b2) -> . W3 + b3, loss = mean(out^2).
void mlp_tensora(benchmark::State& state, int threads) {
  constexpr std::int64_t kBatch = 256, kWidth = 512;
  ta::EagerRuntime rt;
  const auto x = rt.constant_from(ta::Tensor::normal({kBatch, kWidth}, 1, kF32));
  std::vector<ta::EagerTensor> w, b;
  for (int l = 0; l < 3; ++l) {
    w.push_back(rt.variable_from(
        ta::Tensor::normal({kWidth, kWidth}, 10 + static_cast<std::uint64_t>(l), kF32, 0.0, 0.04)));
    b.push_back(rt.variable_from(ta::Tensor::zeros({kWidth}, kF32)));
  }
  rt.with_eager_session(engine(threads), [&](ta::EagerSession& s) {
    for (auto _ : state) {
      auto h = s.tanh(s.add(s.matmul(x, w[0]), b[0]));
      h = s.tanh(s.add(s.matmul(h, w[1]), b[1]));
      const auto out = s.add(s.matmul(h, w[2]), b[2]);
      auto loss = s.mean(s.mul(out, out));
      loss.backward();
      rt.clear_grads();
      benchmark::DoNotOptimize(loss);
    }
  });
}

#if TENSORA_BENCH_HAVE_TORCH
using bench::torch_threads;
void add4_torch(benchmark::State& state, bool grad) {
  torch_threads(1);
  const auto x = torch::rand({4}).set_requires_grad(grad), y = torch::rand({4});
  for (auto _ : state) benchmark::DoNotOptimize(x + y);
}
void chain_torch(benchmark::State& state) {
  torch_threads(1);
  auto x = torch::rand({4}).set_requires_grad(true);
  const auto y = torch::rand({4});
  for (auto _ : state) {
    torch::Tensor h = x;
    for (int i = 0; i < 1000; ++i) h = h + y;
    auto loss = h.sum();
    loss.backward();
    x.mutable_grad().reset();
    benchmark::DoNotOptimize(loss);
  }
}
void mlp_torch(benchmark::State& state, int threads) {
  torch_threads(threads);
  constexpr std::int64_t kBatch = 256, kWidth = 512;
  const auto x = torch::randn({kBatch, kWidth});
  std::vector<torch::Tensor> w, b;
  for (int l = 0; l < 3; ++l) {
    w.push_back((torch::randn({kWidth, kWidth}) * 0.04).set_requires_grad(true));
    b.push_back(torch::zeros({kWidth}).set_requires_grad(true));
  }
  for (auto _ : state) {
    auto h = torch::tanh(torch::matmul(x, w[0]) + b[0]);
    h = torch::tanh(torch::matmul(h, w[1]) + b[1]);
    const auto out = torch::matmul(h, w[2]) + b[2];
    auto loss = (out * out).mean();
    loss.backward();
    for (auto& p : w) p.mutable_grad().reset();
    for (auto& p : b) p.mutable_grad().reset();
    benchmark::DoNotOptimize(loss);
  }
}
#endif

template <class F>
void add(const std::string& name, F fn, benchmark::TimeUnit unit) {
  benchmark::RegisterBenchmark(name.c_str(), fn)->UseRealTime()->Unit(unit);
}

const bool registered = [] {
  const auto ns = benchmark::kNanosecond, us = benchmark::kMicrosecond,
             ms = benchmark::kMillisecond;
  add(row("Add4", "tensora", "4", "direct", 1), add4_direct, ns);
  add(row("Add4", "plain-loop", "4", "direct", 1), add4_plain_loop, ns);
  add(
      row("Add4", "tensora", "4", "eager-const", 1),
      [](benchmark::State& s) { add4_eager(s, false); }, ns);
  add(
      row("Add4", "tensora", "4", "eager-grad", 1),
      [](benchmark::State& s) { add4_eager(s, true); }, ns);
  add(
      row("Chain1000", "tensora", "4", "eager-fwd", 1),
      [](benchmark::State& s) { chain_eager(s, false); }, us);
  add(
      row("Chain1000", "tensora", "4", "eager-fwd+bwd", 1),
      [](benchmark::State& s) { chain_eager(s, true); }, us);
#if TENSORA_BENCH_HAVE_TORCH
  add(
      row("Add4", "torch", "4", "torch-nograd", 1),
      [](benchmark::State& s) { add4_torch(s, false); }, ns);
  add(
      row("Add4", "torch", "4", "torch-grad", 1), [](benchmark::State& s) { add4_torch(s, true); },
      ns);
  add(row("Chain1000", "torch", "4", "torch-fwd+bwd", 1), chain_torch, us);
#endif
  for (const int t : {1, 2}) {
    add(
        row("Mlp3", "tensora", "256x512", "fwd+bwd", t),
        [t](benchmark::State& s) { mlp_tensora(s, t); }, ms);
#if TENSORA_BENCH_HAVE_TORCH
    add(
        row("Mlp3", "torch", "256x512", "fwd+bwd", t),
        [t](benchmark::State& s) { mlp_torch(s, t); }, ms);
#endif
  }
  return true;
}();

}  // namespace
