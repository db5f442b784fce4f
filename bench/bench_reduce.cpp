// Reductions: sum and max of 16M F32 elements, over all axes and along the inner and the
// outer axis of a 4096x4096 matrix; tensora vs LibTorch vs plain loops, 1 and 2 threads.
// Built only with -DTENSORA_BENCH_REDUCE=ON (it needs the reductions API:
// x.sum(e), x.sum(std::vector<std::int64_t>{axes}, e), x.max(e), x.max(axes, e)).
//
// The matrix is the same memory for every column: tensora sees it column-major, so its
// inner (contiguous) axis is 0; LibTorch sees it row-major, so its inner axis is 1.
#include "bench_common.hpp"

namespace bench {
namespace {

using tensora::Tensor;

enum class Red { Sum, Max };
enum class Axes { All, Inner, Outer };

const char* red_name(Red op) { return op == Red::Sum ? "Sum" : "Max"; }
const char* axes_name(Axes a) { return a == Axes::All ? "all" : a == Axes::Inner ? "inner" : "outer"; }
const char* shape_name(Axes a) { return a == Axes::All ? "16M" : "4096x4096"; }

void set_bytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * kN *
                          static_cast<std::int64_t>(sizeof(float)));
}

template <class Run>
void loop(benchmark::State& state, Run&& run) {
  if (need_warmup()) {
    auto warm = run();
    benchmark::DoNotOptimize(warm);
  }
  for (auto _ : state) {
    auto r = run();
    benchmark::DoNotOptimize(r);
  }
  set_bytes(state);
}

void tensora_reduce(benchmark::State& state, Red op, Axes axes, int threads) {
  tensora::Engine& e = engine(threads);
  const Tensor& flat = inputs<float>().a;
  const Tensor m = flat.reshape({kSide, kSide});  // column-major: axis 0 is contiguous
  const std::int64_t axis = axes == Axes::Inner ? 0 : 1;
  loop(state, [&] {
    if (axes == Axes::All) return op == Red::Sum ? flat.sum(e) : flat.max(e);
    return op == Red::Sum ? m.sum(std::vector<std::int64_t>{axis}, e)
                          : m.max(std::vector<std::int64_t>{axis}, e);
  });
}

#if TENSORA_BENCH_HAVE_TORCH
void torch_reduce(benchmark::State& state, Red op, Axes axes, int threads) {
  torch_threads(threads);
  float* p = inputs<float>().pa();
  const torch::Tensor flat = torch_view(p, false);
  const torch::Tensor m = torch::from_blob(p, {kSide, kSide}, torch::kFloat32);  // row-major
  const std::int64_t dim = axes == Axes::Inner ? 1 : 0;
  loop(state, [&] {
    if (axes == Axes::All) return op == Red::Sum ? flat.sum() : flat.max();
    return op == Red::Sum ? m.sum(dim) : m.amax(dim);
  });
}
#endif

void ref_reduce(benchmark::State& state, Red op, Axes axes, int threads) {
  const float* x = inputs<float>().pa();
  static float* out = static_cast<float*>(ref::aligned_zeroed(kSide * sizeof(float)));
  loop(state, [&] {
    double r = 0;
    if (axes == Axes::All) {
      r = op == Red::Sum ? ref::sum(threads, x, kN) : static_cast<double>(ref::max(threads, x, kN));
    } else if (op == Red::Sum) {
      axes == Axes::Inner ? ref::sum_inner(threads, out, x, kSide, kSide)
                          : ref::sum_outer(threads, out, x, kSide, kSide);
      r = out[0];
    } else {
      axes == Axes::Inner ? ref::max_inner(threads, out, x, kSide, kSide)
                          : ref::max_outer(threads, out, x, kSide, kSide);
      r = out[0];
    }
    return r;
  });
}

const bool registered = [] {
  for (Red op : {Red::Sum, Red::Max})
    for (Axes axes : {Axes::All, Axes::Inner, Axes::Outer})
      for (int th : kThreadCounts) {
        add_row(row_name(red_name(op), "tensora", "f32", shape_name(axes), axes_name(axes), th),
                [=](benchmark::State& s) { tensora_reduce(s, op, axes, th); });
#if TENSORA_BENCH_HAVE_TORCH
        add_row(row_name(red_name(op), "torch", "f32", shape_name(axes), axes_name(axes), th),
                [=](benchmark::State& s) { torch_reduce(s, op, axes, th); });
#endif
        add_row(row_name(red_name(op), "ref", "f32", shape_name(axes), axes_name(axes), th),
                [=](benchmark::State& s) { ref_reduce(s, op, axes, th); });
      }
  return true;
}();

}  // namespace
}  // namespace bench
