// Elementwise ops: tensora vs LibTorch vs a plain -O3 -march=native loop, in one run.
// Every case is registered for 1 and 2 threads. See bench_common.hpp for the row names and
// docs/BENCHMARKS.md for the results and how to reproduce them.
//
// Bytes (SetBytesProcessed) count the arrays an op must touch at least once, STREAM style:
// add 3 (2 reads + 1 write), a*b+c 4, exp/tanh 2, triad 3. Write-allocate traffic is not
// counted, for tensora, LibTorch and the reference alike.
#include "bench_common.hpp"

namespace bench {
namespace {

using tensora::Tensor;

enum class Bin { Add, Fma };  // a + b, a * b + c

const char* bin_name(Bin op) { return op == Bin::Add ? "Add" : "Fma"; }
int bin_arrays(Bin op) { return op == Bin::Add ? 3 : 4; }

template <class T>
void set_bytes(benchmark::State& state, int arrays, std::int64_t n = kN) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * arrays * n *
                          static_cast<std::int64_t>(sizeof(T)));
}

// ---- tensora --------------------------------------------------------------------------
template <class T>
void tensora_binary(benchmark::State& state, Bin op, bool transposed, bool into, int threads) {
  const auto& in = inputs<T>();
  tensora::Engine& e = engine(threads);
  const Tensor a = shaped(in.a, transposed), b = shaped(in.b, transposed), c = shaped(in.c, transposed);
  if (into) {
    const Tensor& dest = tensora_dest<T>(transposed);
    auto run = [&] {
      if (op == Bin::Add) {
        a.add_into(b, e, dest);
      } else {
        // No fused op in tensora yet: two passes, the second in place.
        a.mul_into(b, e, dest);
        dest.add_into(c, e, dest);
      }
    };
    if (need_warmup()) run();  // pages and caches
    for (auto _ : state) {
      run();
      benchmark::ClobberMemory();
    }
  } else {
    auto run = [&] { return op == Bin::Add ? a.add(b, e) : a.mul(b, e).add(c, e); };
    if (need_warmup()) (void)run();
    for (auto _ : state) {
      Tensor r = run();
      benchmark::DoNotOptimize(r);
    }
  }
  set_bytes<T>(state, bin_arrays(op));
}

template <class T>
void tensora_unary(benchmark::State& state, bool is_exp, bool into, int threads) {
  const auto& in = inputs<T>();
  tensora::Engine& e = engine(threads);
  const Tensor& x = in.a;
  if (into) {
    const Tensor& dest = tensora_dest<T>(false);
    auto run = [&] { is_exp ? x.exp_into(e, dest) : x.tanh_into(e, dest); };
    if (need_warmup()) run();
    for (auto _ : state) {
      run();
      benchmark::ClobberMemory();
    }
  } else {
    auto run = [&] { return is_exp ? x.exp(e) : x.tanh(e); };
    if (need_warmup()) (void)run();
    for (auto _ : state) {
      Tensor r = run();
      benchmark::DoNotOptimize(r);
    }
  }
  set_bytes<T>(state, 2);
}

// ---- LibTorch -------------------------------------------------------------------------
#if TENSORA_BENCH_HAVE_TORCH
template <class T>
void torch_binary(benchmark::State& state, Bin op, bool transposed, bool into, bool fused, int threads) {
  torch_threads(threads);
  const auto& in = inputs<T>();
  const torch::Tensor a = torch_view(in.pa(), transposed), b = torch_view(in.pb(), transposed),
                      c = torch_view(in.pc(), transposed);
  if (into) {
    torch::Tensor& dest = torch_dest<T>(transposed);
    auto run = [&] {
      if (op == Bin::Add) {
        torch::add_out(dest, a, b);
      } else if (fused) {
        torch::addcmul_out(dest, c, a, b);  // c + a * b in one pass
      } else {
        torch::mul_out(dest, a, b);
        torch::add_out(dest, dest, c);
      }
    };
    if (need_warmup()) run();
    for (auto _ : state) {
      run();
      benchmark::ClobberMemory();
    }
  } else {
    auto run = [&] {
      if (op == Bin::Add) return torch::add(a, b);
      return fused ? torch::addcmul(c, a, b) : torch::add(torch::mul(a, b), c);
    };
    if (need_warmup()) (void)run();
    for (auto _ : state) {
      torch::Tensor r = run();
      benchmark::DoNotOptimize(r);
    }
  }
  set_bytes<T>(state, bin_arrays(op));
}

template <class T>
void torch_unary(benchmark::State& state, bool is_exp, bool into, int threads) {
  torch_threads(threads);
  const auto& in = inputs<T>();
  const torch::Tensor x = torch_view(in.pa(), false);
  if (into) {
    torch::Tensor& dest = torch_dest<T>(false);
    auto run = [&] { is_exp ? torch::exp_out(dest, x) : torch::tanh_out(dest, x); };
    if (need_warmup()) run();
    for (auto _ : state) {
      run();
      benchmark::ClobberMemory();
    }
  } else {
    auto run = [&] { return is_exp ? torch::exp(x) : torch::tanh(x); };
    if (need_warmup()) (void)run();
    for (auto _ : state) {
      torch::Tensor r = run();
      benchmark::DoNotOptimize(r);
    }
  }
  set_bytes<T>(state, 2);
}
#endif

// ---- reference loops ------------------------------------------------------------------
// A buffer of kN elements owned by the reference column (zeroed, so already faulted in).
template <class T>
T* ref_out() {
  static T* p = static_cast<T*>(ref::aligned_zeroed(static_cast<std::size_t>(kN) * sizeof(T)));
  return p;
}

template <class T>
void ref_binary(benchmark::State& state, Bin op, int threads) {
  // The transposed case has the same floor: every operand has one layout, so the loop is flat.
  const auto& in = inputs<T>();
  T* out = ref_out<T>();
  auto run = [&] {
    if (op == Bin::Add) ref::add(threads, out, in.pa(), in.pb(), kN);
    else ref::fma(threads, out, in.pa(), in.pb(), in.pc(), kN);
  };
  if (need_warmup()) run();
  for (auto _ : state) {
    run();
    benchmark::ClobberMemory();
  }
  set_bytes<T>(state, bin_arrays(op));
}

template <class T>
void ref_scale(benchmark::State& state, int threads) {
  const auto& in = inputs<T>();
  T* out = ref_out<T>();
  if (need_warmup()) ref::scale(threads, out, in.pa(), T(3), kN);
  for (auto _ : state) {
    ref::scale(threads, out, in.pa(), T(3), kN);
    benchmark::ClobberMemory();
  }
  set_bytes<T>(state, 2);
}

template <class T>
void ref_triad(benchmark::State& state, int threads) {
  const auto& in = inputs<T>();
  T* out = ref_out<T>();
  if (need_warmup()) ref::triad(threads, out, in.pb(), in.pc(), T(3), kN);
  for (auto _ : state) {
    ref::triad(threads, out, in.pb(), in.pc(), T(3), kN);
    benchmark::ClobberMemory();
  }
  set_bytes<T>(state, 3);
}

// ---- per-op overhead: a 4-element add -------------------------------------------------
void tensora_tiny(benchmark::State& state, bool into, int threads) {
  tensora::Engine& e = engine(threads);
  const Tensor a = Tensor::from_floats({1, 2, 3, 4}, {tensora::Device::cpu(), tensora::DType::F32});
  const Tensor b = Tensor::from_floats({5, 6, 7, 8}, {tensora::Device::cpu(), tensora::DType::F32});
  const Tensor dest = Tensor::empty({4}, tensora::DType::F32, tensora::Device::cpu());
  for (auto _ : state) {
    if (into) {
      a.add_into(b, e, dest);
      benchmark::ClobberMemory();
    } else {
      Tensor r = a.add(b, e);
      benchmark::DoNotOptimize(r);
    }
  }
}

#if TENSORA_BENCH_HAVE_TORCH
void torch_tiny(benchmark::State& state, bool into, bool inference_mode, int threads) {
  torch_threads(threads);
  std::optional<c10::InferenceMode> guard;
  if (inference_mode) guard.emplace();
  const torch::Tensor a = torch::tensor({1.f, 2.f, 3.f, 4.f});
  const torch::Tensor b = torch::tensor({5.f, 6.f, 7.f, 8.f});
  torch::Tensor dest = torch::empty({4});
  for (auto _ : state) {
    if (into) {
      torch::add_out(dest, a, b);
      benchmark::ClobberMemory();
    } else {
      torch::Tensor r = torch::add(a, b);
      benchmark::DoNotOptimize(r);
    }
  }
}
#endif

void ref_tiny(benchmark::State& state, int) {
  alignas(64) float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, out[4];
  for (auto _ : state) {
    benchmark::DoNotOptimize(a);
    ref::add_tiny(out, a, b, 4);
    benchmark::DoNotOptimize(out);
  }
}

// ---- registration ---------------------------------------------------------------------
template <class T>
void register_binary(Bin op) {
  const std::string dt = dtype_name<T>();
  for (bool transposed : {false, true}) {
    const std::string shape = transposed ? "4096x4096T" : "16M";
    for (int th : kThreadCounts) {
      for (bool into : {false, true}) {
        const std::string form = into ? "into" : "alloc";
        add_row(row_name(bin_name(op), "tensora", dt, shape, form, th),
                [=](benchmark::State& s) { tensora_binary<T>(s, op, transposed, into, th); });
#if TENSORA_BENCH_HAVE_TORCH
        add_row(row_name(bin_name(op), "torch", dt, shape, form, th),
                [=](benchmark::State& s) { torch_binary<T>(s, op, transposed, into, false, th); });
        if (op == Bin::Fma)
          add_row(row_name(bin_name(op), "torch-addcmul", dt, shape, form, th),
                  [=](benchmark::State& s) { torch_binary<T>(s, op, transposed, into, true, th); });
#endif
      }
      add_row(row_name(bin_name(op), "ref", dt, shape, "plain", th),
              [=](benchmark::State& s) { ref_binary<T>(s, op, th); });
    }
  }
}

void register_unary(bool is_exp) {
  const std::string op = is_exp ? "Exp" : "Tanh";
  for (int th : kThreadCounts) {
    for (bool into : {false, true}) {
      const std::string form = into ? "into" : "alloc";
      add_row(row_name(op, "tensora", "f32", "16M", form, th),
              [=](benchmark::State& s) { tensora_unary<float>(s, is_exp, into, th); });
#if TENSORA_BENCH_HAVE_TORCH
      add_row(row_name(op, "torch", "f32", "16M", form, th),
              [=](benchmark::State& s) { torch_unary<float>(s, is_exp, into, th); });
#endif
    }
    // The memory floor of a unary op: one read, one write (STREAM "scale").
    add_row(row_name(op, "ref", "f32", "16M", "plain", th),
            [=](benchmark::State& s) { ref_scale<float>(s, th); });
  }
}

void register_tiny() {
  for (int th : kThreadCounts) {
    for (bool into : {false, true}) {
      const std::string form = into ? "into" : "alloc";
      add_row(row_name("TinyAdd", "tensora", "f32", "4", form, th),
              [=](benchmark::State& s) { tensora_tiny(s, into, th); }, benchmark::kNanosecond);
#if TENSORA_BENCH_HAVE_TORCH
      add_row(row_name("TinyAdd", "torch", "f32", "4", form, th),
              [=](benchmark::State& s) { torch_tiny(s, into, false, th); }, benchmark::kNanosecond);
      add_row(row_name("TinyAdd", "torch-inference", "f32", "4", form, th),
              [=](benchmark::State& s) { torch_tiny(s, into, true, th); }, benchmark::kNanosecond);
#endif
    }
    add_row(row_name("TinyAdd", "ref", "f32", "4", "plain", th),
            [=](benchmark::State& s) { ref_tiny(s, th); }, benchmark::kNanosecond);
  }
}

const bool registered = [] {
#if TENSORA_BENCH_HAVE_TORCH
  benchmark::AddCustomContext("torch_version", TORCH_VERSION);
#endif
  // STREAM triad (double, as STREAM itself): the bandwidth every row is measured against.
  for (int th : kThreadCounts)
    add_row(row_name("Triad", "ref", "f64", "16M", "plain", th),
            [=](benchmark::State& s) { ref_triad<double>(s, th); });
  register_binary<float>(Bin::Add);
  register_binary<double>(Bin::Add);
  register_binary<float>(Bin::Fma);
  register_binary<double>(Bin::Fma);
  register_unary(true);
  register_unary(false);
  register_tiny();
  return true;
}();

}  // namespace
}  // namespace bench
