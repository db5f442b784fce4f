// Shared set-up for the benchmark files: input data made once and shared by all three
// columns (tensora, LibTorch views of the same memory, reference loops), the engines, and
// the naming scheme compare.py parses.
//
// Row names: BM_<Op>/<lib>/<dtype>/<shape>/<form>/threads:<n>
//   lib   tensora | torch | torch-<variant> | ref
//   shape 16M (1<<24 elements, 1-D) | 4096x4096T (a 4096x4096 matrix viewed transposed)
//         | 4096x4096 | 4
//   form  alloc (x.op(y, e) / torch::op) | into (x.op_into(y, e, dest) / torch::op_out)
//         | plain (reference loop) | all | inner | outer (reductions)
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reference_kernels.hpp"
#include "torch_threads.hpp"
#include "tensora/tensora.hpp"

#if TENSORA_BENCH_HAVE_TORCH
#include <ATen/Parallel.h>
#include <torch/torch.h>
#include <torch/version.h>
#endif

namespace bench {

inline constexpr std::int64_t kN = std::int64_t{1} << 24;  // 16M elements
inline constexpr std::int64_t kSide = 4096;                 // kSide * kSide == kN
inline constexpr int kThreadCounts[] = {1, 2};

inline tensora::Engine& engine(int threads) {
  static tensora::CpuEngine serial = tensora::CpuEngine::serial();
  static tensora::CpuEngine two = tensora::CpuEngine::parallel(2);
  return threads == 1 ? static_cast<tensora::Engine&>(serial) : static_cast<tensora::Engine&>(two);
}

template <class T>
constexpr tensora::DType dtype_of() {
  return sizeof(T) == 4 ? tensora::DType::F32 : tensora::DType::F64;
}
template <class T>
constexpr const char* dtype_name() {
  return sizeof(T) == 4 ? "f32" : "f64";
}

// Three 16M-element inputs with values in [-1, 1), made once per dtype.
template <class T>
struct Inputs {
  tensora::Tensor a, b, c;
  T* pa() const { return a.data<T>(); }
  T* pb() const { return b.data<T>(); }
  T* pc() const { return c.data<T>(); }
};

template <class T>
const Inputs<T>& inputs() {
  static const Inputs<T> in = [] {
    const tensora::TensorOptions opt(tensora::Device::cpu(), dtype_of<T>());
    return Inputs<T>{tensora::Tensor::uniform({kN}, 1, opt, -1.0, 1.0),
                     tensora::Tensor::uniform({kN}, 2, opt, -1.0, 1.0),
                     tensora::Tensor::uniform({kN}, 3, opt, -1.0, 1.0)};
  }();
  return in;
}

// tensora: the 1-D input, or the same memory as a 4096x4096 column-major matrix viewed
// transposed (strides {4096, 1}: row-major, not dense in tensora's native order).
inline tensora::Tensor shaped(const tensora::Tensor& flat, bool transposed) {
  return transposed ? flat.reshape({kSide, kSide}).transpose() : flat;
}
inline tensora::Tensor empty_like_layout(tensora::DType dt, bool transposed) {
  return transposed ? tensora::Tensor::empty({kSide, kSide}, dt, tensora::Device::cpu()).transpose()
                    : tensora::Tensor::empty({kN}, dt, tensora::Device::cpu());
}

// The destination of the `into` rows, made once per dtype and layout so its pages are
// faulted in once for the whole run (a fresh 64 MiB buffer per call would make the first
// timed iteration of each call pay for page faults).
template <class T>
const tensora::Tensor& tensora_dest(bool transposed) {
  static tensora::Tensor dest[2];
  tensora::Tensor& d = dest[transposed ? 1 : 0];
  if (!d.defined()) d = empty_like_layout(dtype_of<T>(), transposed);
  return d;
}

#if TENSORA_BENCH_HAVE_TORCH
template <class T>
torch::Dtype torch_dtype() {
  return sizeof(T) == 4 ? torch::kFloat32 : torch::kFloat64;
}
// A LibTorch view of the same memory: 1-D, or a 4096x4096 row-major (LibTorch's native
// order) matrix viewed transposed, i.e. `.t()`, not dense in LibTorch's order either.
template <class T>
torch::Tensor torch_view(T* data, bool transposed) {
  auto opt = torch::TensorOptions().dtype(torch_dtype<T>());
  if (!transposed) return torch::from_blob(data, {kN}, opt);
  return torch::from_blob(data, {kSide, kSide}, opt).t();
}
template <class T>
torch::Tensor torch_empty_like_layout(bool transposed) {
  auto opt = torch::TensorOptions().dtype(torch_dtype<T>());
  return transposed ? torch::empty({kSide, kSide}, opt).t() : torch::empty({kN}, opt);
}
template <class T>
torch::Tensor& torch_dest(bool transposed) {
  static torch::Tensor dest[2];
  torch::Tensor& d = dest[transposed ? 1 : 0];
  if (!d.defined()) d = torch_empty_like_layout<T>(transposed);
  return d;
}
#endif

inline std::string row_name(const std::string& op, const std::string& lib, const std::string& dtype,
                            const std::string& shape, const std::string& form, int threads) {
  return "BM_" + op + "/" + lib + "/" + dtype + "/" + shape + "/" + form + "/threads:" +
         std::to_string(threads);
}

// True on the first call of the running row's function, when it should make one untimed call
// (faulting in its output pages, filling allocator caches) before the timed loop. Later calls
// (the iteration-count runs and repetitions of the same row) find everything warm already.
inline bool& warmup_flag() {
  static bool flag = false;
  return flag;
}
inline bool need_warmup() { return warmup_flag(); }

template <class F>
benchmark::internal::Benchmark* add_row(const std::string& name, F fn,
                                        benchmark::TimeUnit unit = benchmark::kMillisecond) {
  auto warmed = std::make_shared<bool>(false);
  auto body = [fn = std::move(fn), warmed](benchmark::State& state) {
    warmup_flag() = !*warmed;
    *warmed = true;
    fn(state);
  };
  return benchmark::RegisterBenchmark(name.c_str(), std::move(body))->UseRealTime()->Unit(unit);
}

}  // namespace bench
