// Traced graphs (docs/traced.md): a compiled Program run by Runtime::run,
// side by side with the eager and direct front doors, LibTorch eager and a hand-written loop,
// in one run.
//
// Rows: BM_<Case>/<lib>/f32/<shape>/<form>/threads:<n>
//   Chain8     y = maximum(((x * 1.5 + 0.25) * x - 0.5) * (x * x + 1), -0.25) over 16M F32: 8
//              cheap elementwise ops, bandwidth-bound when unfused. All arithmetic, so the
//              hand-written loop computes the same values up to rounding (-march=native lets it
//              contract a multiply and an add into an FMA; a transcendental would measure the
//              math library, not fusion).
//   Chain8Div  the same with / in place of the second *: one division per element makes the
//              chain compute-heavy, where running steps one after another costs the most. lib tensora: forms traced-fused (GraphCompiler defaults) | traced-unfused
//              (fuse_elementwise = false) | eager (EagerSession on constants) | direct
//              (x.mul(1.5, e) ...); lib torch: form eager (torch::Tensor ops); lib ref: form
//              plain (one -O3 -march=native pass, ref::chain8). 1 and 2 threads (engine /
//              at::set_num_threads / the reference pool).
//   Replay100  h = x; 50 times { h = h + y; h = h * 0.5 } on 8-element F32 tensors: 100 ops.
//              tensora: traced-unfused (a program of 100 steps) | traced-fused | direct; torch:
//              eager | eager-inference (c10::InferenceMode). Counter per_op_ns = wall time of
//              one run / 100, in nanoseconds.
//   Peak20     h = x; 10 times { h = h * c_i; h = h + x } over 16M F32: 20 ops, traced-fused |
//              traced-unfused. Counter peak_buffers = the most bytes in use on the CPU device
//              during Runtime::run, less the bytes in use before it, in 64 MiB buffers (one
//              16M F32 tensor); the run's output counts, so 1 is the floor.
//
// Every traced row checks its program's output against the direct ops once before timing (the
// Chain8 reference loop is checked against the direct ops too) and fails the row on a mismatch.
// Counters on traced rows: fused = Program::count("fused"), steps = its elementwise and fused
// nodes. Chain8 and Peak20 rows also count faults_per_run: minor page faults of the process per
// timed iteration (fresh output pages that the allocator's cache should have made unnecessary).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <sys/resource.h>

#include "bench_common.hpp"
#include "tensora/traced.hpp"

namespace bench {
namespace {

namespace ta = tensora;
using ta::Tensor;
using ta::TracedTensor;

constexpr double kMiB64 = 64.0 * 1024.0 * 1024.0;

const ta::TensorOptions kF32(ta::Device::cpu(), ta::DType::F32);

// ---- the computations, one overload per front door (traced, direct, eager) -----------------
// Each op below is one graph node / one direct op; the LibTorch rows spell the same ops inline.

TracedTensor chain8(const TracedTensor& x, bool divide) {
  const TracedTensor a = (x * 1.5 + 0.25) * x - 0.5, b = x * x + 1.0;
  return (divide ? a / b : a * b).maximum(-0.25);
}
Tensor chain8(const Tensor& x, bool divide, ta::Engine& e) {
  const Tensor a = x.mul(1.5, e).add(0.25, e).mul(x, e).sub(0.5, e), b = x.mul(x, e).add(1.0, e);
  return (divide ? a.div(b, e) : a.mul(b, e)).maximum(-0.25, e);
}
ta::EagerTensor chain8(ta::EagerSession& s, const ta::EagerTensor& x, bool divide) {
  const auto a = s.sub(s.mul(s.add(s.mul(x, 1.5), 0.25), x), 0.5), b = s.add(s.mul(x, x), 1.0);
  return s.maximum(divide ? s.div(a, b) : s.mul(a, b), -0.25);
}

constexpr int kReplayPairs = 50;  // 100 ops
constexpr int kReplayOps = 2 * kReplayPairs;
constexpr std::int64_t kTiny = 8;

TracedTensor replay100(const TracedTensor& x, const TracedTensor& y) {
  TracedTensor h = x;
  for (int i = 0; i < kReplayPairs; ++i) h = (h + y) * 0.5;
  return h;
}
Tensor replay100(const Tensor& x, const Tensor& y, ta::Engine& e) {
  Tensor h = x;
  for (int i = 0; i < kReplayPairs; ++i) h = h.add(y, e).mul(0.5, e);
  return h;
}

constexpr int kPeakPairs = 10;  // 20 ops
double peak_coef(int i) {
  return 1.0 - 0.01 * i;
}
TracedTensor peak20(const TracedTensor& x) {
  TracedTensor h = x;
  for (int i = 0; i < kPeakPairs; ++i) h = h * peak_coef(i) + x;
  return h;
}
Tensor peak20(const Tensor& x, ta::Engine& e) {
  Tensor h = x;
  for (int i = 0; i < kPeakPairs; ++i) h = h.mul(peak_coef(i), e).add(x, e);
  return h;
}

// ---- helpers -------------------------------------------------------------------------------

ta::Program compile(const TracedTensor& out, bool fuse) {
  ta::CompileOptions options;
  options.fuse_elementwise = fuse;
  return ta::GraphCompiler(options).compile({out});
}

void program_counters(benchmark::State& state, const ta::Program& program) {
  state.counters["fused"] = static_cast<double>(program.count("fused"));
  state.counters["steps"] =
      static_cast<double>(program.count("fused") + program.count("add") + program.count("sub") +
                          program.count("mul") + program.count("div") + program.count("maximum"));
}

// Largest |a - b| over two F32 tensors of the same shape (checked once per row, untimed).
double max_abs_diff(const Tensor& a, const Tensor& b) {
  const auto va = a.to_vec<float>(), vb = b.to_vec<float>();
  if (va.size() != vb.size()) return INFINITY;
  double m = 0;
  for (std::size_t i = 0; i < va.size(); ++i)
    m = std::max(m, std::fabs(static_cast<double>(va[i]) - static_cast<double>(vb[i])));
  return m;
}
double max_abs_diff(const Tensor& a, const float* b) {
  const auto va = a.to_vec<float>();
  double m = 0;
  for (std::size_t i = 0; i < va.size(); ++i)
    m = std::max(m, std::fabs(static_cast<double>(va[i]) - static_cast<double>(b[i])));
  return m;
}

// Fails the row (and returns false) unless `got` matches `want` within `tol`.
bool check(benchmark::State& state, double diff, double tol) {
  if (diff <= tol) return true;
  const std::string msg = "output differs from the direct ops by " + std::to_string(diff);
  state.SkipWithError(msg.c_str());
  return false;
}

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

// Counts the minor page faults of the timed loop that follows (call at the loop's start; the
// counter is set when the object goes out of scope, after the loop).
class FaultCounter {
 public:
  explicit FaultCounter(benchmark::State& state) : state_(state), start_(minor_faults()) {}
  ~FaultCounter() {
    if (state_.iterations() > 0)
      state_.counters["faults_per_run"] =
          static_cast<double>(minor_faults() - start_) / static_cast<double>(state_.iterations());
  }
  FaultCounter(const FaultCounter&) = delete;
  FaultCounter& operator=(const FaultCounter&) = delete;

 private:
  benchmark::State& state_;
  long start_;
};

void set_bytes(benchmark::State& state, int arrays) {
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * arrays * kN *
                          static_cast<std::int64_t>(sizeof(float)));
}

// ---- Chain8 --------------------------------------------------------------------------------

const Tensor& chain8_expected(bool divide) {
  static const Tensor with_div = chain8(inputs<float>().a, true, engine(1));
  static const Tensor with_mul = chain8(inputs<float>().a, false, engine(1));
  return divide ? with_div : with_mul;
}

void chain8_traced(benchmark::State& state, bool divide, bool fuse, int threads) {
  const Tensor& xv = inputs<float>().a;
  ta::Engine& e = engine(threads);
  const auto x = TracedTensor::input("x", ta::DType::F32, {kN});
  const ta::Program program = compile(chain8(x, divide), fuse);
  const ta::Runtime rt;
  if (need_warmup() &&
      !check(state, max_abs_diff(rt.run(program, e, {xv}).at(0), chain8_expected(divide)), 1e-5))
    return;
  FaultCounter faults(state);
  for (auto _ : state) {
    std::vector<Tensor> out = rt.run(program, e, {xv});
    benchmark::DoNotOptimize(out);
  }
  program_counters(state, program);
  set_bytes(state, 2);
}

void chain8_direct(benchmark::State& state, bool divide, int threads) {
  const Tensor& x = inputs<float>().a;
  ta::Engine& e = engine(threads);
  if (need_warmup()) (void)chain8(x, divide, e);
  FaultCounter faults(state);
  for (auto _ : state) {
    Tensor r = chain8(x, divide, e);
    benchmark::DoNotOptimize(r);
  }
  set_bytes(state, 2);
}

void chain8_eager(benchmark::State& state, bool divide, int threads) {
  ta::EagerRuntime rt;
  const auto x = rt.constant_from(inputs<float>().a);
  rt.with_eager_session(engine(threads), [&](ta::EagerSession& s) {
    if (need_warmup() && !check(state, max_abs_diff(chain8(s, x, divide).value(), chain8_expected(divide)), 1e-5))
      return;
    FaultCounter faults(state);
    for (auto _ : state) {
      auto r = chain8(s, x, divide);
      benchmark::DoNotOptimize(r);
    }
  });
  set_bytes(state, 2);
}

float* ref_out() {
  static float* p =
      static_cast<float*>(ref::aligned_zeroed(static_cast<std::size_t>(kN) * sizeof(float)));
  return p;
}

void chain8_ref(benchmark::State& state, bool divide, int threads) {
  const float* x = inputs<float>().pa();
  float* out = ref_out();
  if (need_warmup()) {
    ref::chain8(threads, divide, out, x, kN);
    // FMA contraction under -march=native: a few F32 ulp of the direct ops.
    if (!check(state, max_abs_diff(chain8_expected(divide), out), 1e-5)) return;
  }
  FaultCounter faults(state);
  for (auto _ : state) {
    ref::chain8(threads, divide, out, x, kN);
    benchmark::ClobberMemory();
  }
  set_bytes(state, 2);
}

#if TENSORA_BENCH_HAVE_TORCH
void chain8_torch(benchmark::State& state, bool divide, int threads) {
  torch_threads(threads);
  const torch::Tensor x = torch_view(inputs<float>().pa(), false);
  auto run = [&] {
    const torch::Tensor a = (x * 1.5 + 0.25) * x - 0.5, b = x * x + 1.0;
    return torch::clamp_min(divide ? a / b : a * b, -0.25);
  };
  if (need_warmup()) {
    const torch::Tensor r = run();
    if (!check(state, max_abs_diff(chain8_expected(divide), r.data_ptr<float>()), 1e-5)) return;
  }
  FaultCounter faults(state);
  for (auto _ : state) {
    torch::Tensor r = run();
    benchmark::DoNotOptimize(r);
  }
  set_bytes(state, 2);
}
#endif

// ---- Replay100 -----------------------------------------------------------------------------

struct Tiny {
  Tensor x = Tensor::uniform({kTiny}, 11, kF32, -1.0, 1.0);
  Tensor y = Tensor::uniform({kTiny}, 12, kF32, -1.0, 1.0);
};
const Tiny& tiny() {
  static const Tiny t;
  return t;
}

// Runs body() in the timed loop and sets per_op_ns from the loop's wall time.
template <class F>
void per_op_loop(benchmark::State& state, F body) {
  const auto t0 = std::chrono::steady_clock::now();
  for (auto _ : state) body();
  const double ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  if (state.iterations() > 0)
    state.counters["per_op_ns"] = ns / static_cast<double>(state.iterations()) / kReplayOps;
}

void replay_traced(benchmark::State& state, bool fuse, int threads) {
  ta::Engine& e = engine(threads);
  const auto x = TracedTensor::input("x", ta::DType::F32, {kTiny});
  const auto y = TracedTensor::input("y", ta::DType::F32, {kTiny});
  const ta::Program program = compile(replay100(x, y), fuse);
  const ta::Runtime rt;
  const Tensor xv = tiny().x, yv = tiny().y;
  if (!check(state, max_abs_diff(rt.run(program, e, {xv, yv}).at(0), replay100(xv, yv, e)), 1e-6))
    return;
  per_op_loop(state, [&] {
    std::vector<Tensor> out = rt.run(program, e, {xv, yv});
    benchmark::DoNotOptimize(out);
  });
  program_counters(state, program);
}

void replay_direct(benchmark::State& state, int threads) {
  ta::Engine& e = engine(threads);
  const Tensor xv = tiny().x, yv = tiny().y;
  per_op_loop(state, [&] {
    Tensor r = replay100(xv, yv, e);
    benchmark::DoNotOptimize(r);
  });
}

#if TENSORA_BENCH_HAVE_TORCH
void replay_torch(benchmark::State& state, bool inference_mode, int threads) {
  torch_threads(threads);
  std::optional<c10::InferenceMode> guard;
  if (inference_mode) guard.emplace();
  const torch::Tensor x = torch::rand({kTiny}), y = torch::rand({kTiny});
  per_op_loop(state, [&] {
    torch::Tensor h = x;
    for (int i = 0; i < kReplayPairs; ++i) h = (h + y) * 0.5;
    benchmark::DoNotOptimize(h);
  });
}
#endif

// ---- Peak20 --------------------------------------------------------------------------------

void peak_traced(benchmark::State& state, bool fuse, int threads) {
  const Tensor& xv = inputs<float>().a;
  ta::Engine& e = engine(threads);
  const ta::Device dev = ta::Device::cpu();
  const auto x = TracedTensor::input("x", ta::DType::F32, {kN});
  const ta::Program program = compile(peak20(x), fuse);
  const ta::Runtime rt;
  if (need_warmup() &&
      !check(state, max_abs_diff(rt.run(program, e, {xv}).at(0), peak20(xv, e)), 1e-4))
    return;
  double peak = 0;
  FaultCounter faults(state);
  for (auto _ : state) {
    const std::size_t before = ta::memory_stats(dev).bytes_in_use;
    ta::reset_peak_memory(dev);
    std::vector<Tensor> out = rt.run(program, e, {xv});
    const std::size_t top = ta::memory_stats(dev).peak_bytes_in_use;
    peak = std::max(peak, static_cast<double>(top) - static_cast<double>(before));
    benchmark::DoNotOptimize(out);
  }
  state.counters["peak_buffers"] = peak / kMiB64;
  program_counters(state, program);
  set_bytes(state, 2);
}

// ---- registration --------------------------------------------------------------------------

const bool registered = [] {
#if TENSORA_BENCH_HAVE_TORCH
  benchmark::AddCustomContext("torch_version", TORCH_VERSION);
#endif
  const auto us = benchmark::kMicrosecond;
  for (const int t : kThreadCounts) {
    auto name = [t](const std::string& c, const std::string& lib, const std::string& shape,
                    const std::string& form) { return row_name(c, lib, "f32", shape, form, t); };
    for (const bool d : {false, true}) {
      const std::string c = d ? "Chain8Div" : "Chain8";
      add_row(name(c, "tensora", "16M", "traced-fused"), [t, d](benchmark::State& s) { chain8_traced(s, d, true, t); });
      add_row(name(c, "tensora", "16M", "traced-unfused"),
              [t, d](benchmark::State& s) { chain8_traced(s, d, false, t); });
      add_row(name(c, "tensora", "16M", "eager"), [t, d](benchmark::State& s) { chain8_eager(s, d, t); });
      add_row(name(c, "tensora", "16M", "direct"), [t, d](benchmark::State& s) { chain8_direct(s, d, t); });
#if TENSORA_BENCH_HAVE_TORCH
      add_row(name(c, "torch", "16M", "eager"), [t, d](benchmark::State& s) { chain8_torch(s, d, t); });
#endif
      add_row(name(c, "ref", "16M", "plain"), [t, d](benchmark::State& s) { chain8_ref(s, d, t); });
    }
  }
  // Tiny tensors stay on one thread whatever the engine; one thread count is enough here.
  {
    const int t = 1;
    auto name = [t](const std::string& form, const std::string& lib) {
      return row_name("Replay100", lib, "f32", std::to_string(kTiny), form, t);
    };
    add_row(
        name("traced-unfused", "tensora"), [t](benchmark::State& s) { replay_traced(s, false, t); },
        us);
    add_row(
        name("traced-fused", "tensora"), [t](benchmark::State& s) { replay_traced(s, true, t); },
        us);
    add_row(
        name("direct", "tensora"), [t](benchmark::State& s) { replay_direct(s, t); }, us);
#if TENSORA_BENCH_HAVE_TORCH
    add_row(
        name("eager", "torch"), [t](benchmark::State& s) { replay_torch(s, false, t); }, us);
    add_row(
        name("eager-inference", "torch"), [t](benchmark::State& s) { replay_torch(s, true, t); },
        us);
#endif
  }
  for (const int t : kThreadCounts) {
    add_row(row_name("Peak20", "tensora", "f32", "16M", "traced-fused", t),
            [t](benchmark::State& s) { peak_traced(s, true, t); });
    add_row(row_name("Peak20", "tensora", "f32", "16M", "traced-unfused", t),
            [t](benchmark::State& s) { peak_traced(s, false, t); });
  }
  return true;
}();

}  // namespace
}  // namespace bench
