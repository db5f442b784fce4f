// The CPU executor of fused programs (backend/fused_program.hpp). It plans a program once
// (scratch slots, the vector program) and runs it in one of three ways (docs/traced.md): as a
// vector program (cpu/simd_program), as flat runs of the CPU kernels over cache-resident
// scratch, or slab by slab along the output's slowest non-trivial axis for any other input
// layout. Each step runs the same CPU kernel as the unfused op, so results are bitwise the same.
#include <algorithm>
#include <optional>

#include "core/storage.hpp"
#include "core/tensor_internals.hpp"
#include "cpu/cpu_backend.hpp"
#include "cpu/kernels.hpp"
#include "cpu/simd.hpp"
#include "cpu/simd_program.hpp"

namespace tensora::cpu {

namespace {

using Step = backend::FusedStep;
using Kind = backend::FusedStep::Kind;

// The program as this executor runs it, planned once per program.
struct CpuFusedPlan final : backend::FusedPlan {
  std::vector<int> slot;  // scratch slot per step; -1 for the result (written into the output)
  int slot_count = 0;
  // The steps as a straight-line vector program, when every step is an F32 (or every step an
  // F64) op with a vector form and every input has that dtype. Registers: the external inputs,
  // then one per scratch slot, then the result.
  std::optional<simd::VectorProgram> program;
};

constexpr std::int64_t kSlabElements = 8192;

void run_step(const Step& step, const Tensor& out, const std::vector<Tensor>& args, const Tensor& dense,
              Engine& engine) {
  switch (step.kind) {
    case Kind::Unary:
      // Unary kernels take their SIMD path on contiguous input only; copying a strided slab
      // first keeps the fused result equal to the unfused op on dense data.
      if (!args[0].is_contiguous() && dense.defined()) {
        cpu::copy(dense, args[0], engine);
        return cpu::unary(step.unary, out, dense, engine);
      }
      return cpu::unary(step.unary, out, args[0], engine);
    case Kind::Binary:
      return cpu::binary(step.binary, out, args[0], args[1], engine);
    case Kind::Select:
      return cpu::select(out, args[0], args[1], args[2], engine);
    case Kind::Cast:
      return cpu::cast(out, args[0], engine);
  }
}


// ---- flat mode: every external input is dense column-major with the result's shape, or holds
// one element. Values are then runs of a flat index range, and F32/F64 arithmetic and unary ops
// call the SIMD kernels on raw pointers (no views built per step); anything else goes through
// 1-D views to the same CPU kernels.

constexpr std::int64_t kFlatRun = 2048;  // elements per run: a few runs of F64 fit in L1

struct FlatValue {
  const std::shared_ptr<Storage>* storage;
  std::int64_t offset;  // elements
  std::int64_t stride;  // 1, or 0 for a one-element input
  DType dtype;
  char* ptr() const {
    return static_cast<char*>((*storage)->data()) + offset * static_cast<std::int64_t>(size_of(dtype));
  }
  Tensor view(std::int64_t n, Device device) const {
    return TensorInternals::view(*storage, Shape{n}, Strides{stride}, offset, dtype, device);
  }
};

bool flat_inputs(const backend::FusedProgram& k, std::span<const Tensor> inputs) {
  for (const auto& t : inputs)
    if (t.numel() != 1 && !(t.shape() == k.shape && t.is_contiguous())) return false;
  return true;
}

// The SIMD kernel for a step on raw runs, when there is one; false sends the step to the views.
template <class T>
bool simd_step(const Step& step, const std::vector<FlatValue>& args, char* out, std::int64_t n) {
  auto p = [&](std::size_t i) { return reinterpret_cast<const T*>(args[i].ptr()); };
  if (step.kind == Kind::Binary && args[0].dtype == step.dtype) {
    if constexpr (std::is_same_v<T, float>)
      return simd::binary_f32(step.binary, p(0), args[0].stride, p(1), args[1].stride, reinterpret_cast<float*>(out), n);
    else
      return simd::binary_f64(step.binary, p(0), args[0].stride, p(1), args[1].stride, reinterpret_cast<double*>(out), n);
  }
  if (step.kind == Kind::Unary && args[0].dtype == step.dtype && args[0].stride == 1) {
    if constexpr (std::is_same_v<T, float>)
      return simd::unary_f32(step.unary, p(0), reinterpret_cast<float*>(out), n);
    else
      return simd::unary_f64(step.unary, p(0), reinterpret_cast<double*>(out), n);
  }
  return false;
}

// Asks for part `part` of `parts` of the next run of every streamed input (and of the output,
// for writing) while this run computes in cache. Spread over the steps, the requests keep the
// memory bus busy between the first read and the last write instead of stalling in one burst.
void prefetch_part(std::span<const Tensor> inputs, const Tensor& out, std::int64_t lo, std::int64_t n,
                   std::int64_t part, std::int64_t parts) {
  constexpr std::int64_t kLine = 64;
  auto fetch = [&](const Tensor& t, bool write) {
    const auto size = static_cast<std::int64_t>(size_of(t.dtype()));
    const std::int64_t bytes = n * size, b0 = bytes * part / parts / kLine * kLine,
                       b1 = bytes * (part + 1) / parts;
    const char* p = static_cast<const char*>(t.element_ptr()) + lo * size;
    for (std::int64_t b = b0; b < b1; b += kLine) {
      if (write) __builtin_prefetch(p + b, 1, 2);
      else __builtin_prefetch(p + b, 0, 2);
    }
  };
  for (const auto& t : inputs)
    if (t.numel() != 1) fetch(t, false);
  fetch(out, true);
}

template <class T>
void run_vector_program(const simd::VectorProgram& p, std::span<const Tensor> inputs, const std::vector<bool>& scalar,
                        const Tensor& out, std::int64_t lo, std::int64_t n) {
  std::vector<const T*> ptrs;
  std::vector<std::int64_t> strides;
  for (std::size_t j = 0; j < inputs.size(); ++j) {
    const T* base = static_cast<const T*>(inputs[j].element_ptr());
    ptrs.push_back(scalar[j] ? base : base + lo);
    strides.push_back(scalar[j] ? 0 : 1);
  }
  T* dst = static_cast<T*>(const_cast<void*>(out.element_ptr())) + lo;
  const bool stream = out.numel() * static_cast<std::int64_t>(sizeof(T)) >= simd::kStreamFlatBytes;
  if constexpr (std::is_same_v<T, float>) simd::run_program_f32(p, ptrs.data(), strides.data(), dst, n, stream);
  else simd::run_program_f64(p, ptrs.data(), strides.data(), dst, n, stream);
}

void run_flat(const backend::FusedProgram& k, const CpuFusedPlan& plan, std::span<const Tensor> inputs,
              const Tensor& out, Engine& engine) {
  const std::int64_t total = out.numel();
  const Device device = out.device();
  std::vector<bool> scalar(inputs.size());  // one-element inputs broadcast (stride 0)
  for (std::size_t j = 0; j < inputs.size(); ++j) scalar[j] = inputs[j].numel() == 1 && total > 1;
  if (const auto& program = plan.program) {
    // Contiguous ranges, a few per thread; each range streams through the program block by block.
    const std::int64_t chunks = std::min<std::int64_t>((total + kFlatRun - 1) / kFlatRun,
                                                       4 * static_cast<std::int64_t>(engine.threads()));
    auto range = [&](std::int64_t c0, std::int64_t c1) {
      for (std::int64_t c = c0; c < c1; ++c) {
        // Ranges end on 64-element boundaries: each range of an aligned result starts aligned,
        // as streamed stores need.
        const auto edge = [&](std::int64_t j) { return j == chunks ? total : (j * total / chunks) & ~std::int64_t{63}; };
        const std::int64_t lo = edge(c), hi = edge(c + 1);
        if (k.dtype == DType::F32) run_vector_program<float>(*program, inputs, scalar, out, lo, hi - lo);
        else run_vector_program<double>(*program, inputs, scalar, out, lo, hi - lo);
      }
    };
    if (chunks <= 1) range(0, 1);
    else engine.parallel_for(chunks, 1, range);
    return;
  }
  std::size_t widest = 1;
  for (const auto& s : k.steps) widest = std::max(widest, size_of(s.dtype));
  const std::int64_t run = std::min(total, kFlatRun);
  const std::int64_t runs = (total + run - 1) / run;
  // One scratch block per task. Slot i starts at i * stride + (i + 1) * kStagger: the stride is
  // a whole number of cache lines, and the growing stagger keeps the slots and the streamed
  // inputs from sharing their low address bits (loads that alias a recent store 4 KiB away
  // stall). Offsets are multiples of 64, so of every element size.
  constexpr std::int64_t kStagger = 320;
  const std::int64_t stride = (run * static_cast<std::int64_t>(widest) + 63) / 64 * 64;
  const std::int64_t block_bytes = plan.slot_count * stride + (plan.slot_count + 1) * kStagger;
  auto task = [&](std::int64_t r0, std::int64_t r1) {
    CpuEngine serial = CpuEngine::serial(device);
    const auto block = Storage::allocate(static_cast<std::size_t>(block_bytes), device);
    std::vector<std::int64_t> scratch;  // byte offsets of the slots in the block
    for (int i = 0; i < plan.slot_count; ++i) scratch.push_back(i * stride + (i + 1) * kStagger);
    std::vector<FlatValue> values(k.steps.size());
    std::vector<FlatValue> args;
    std::vector<Tensor> views;
    for (std::int64_t r = r0; r < r1; ++r) {
      const std::int64_t lo = r * run, n = std::min(total, lo + run) - lo;
      const std::int64_t next = r + 1 < r1 ? std::min(run, total - lo - n) : 0;
      for (std::size_t i = 0; i < k.steps.size(); ++i) {
        const auto& step = k.steps[i];
        if (next > 0)
          prefetch_part(inputs, out, lo + n, next, static_cast<std::int64_t>(i), static_cast<std::int64_t>(k.steps.size()));
        args.clear();
        for (int a : step.args) {
          if (a >= 0) {
            args.push_back(values[static_cast<std::size_t>(a)]);
          } else {
            const auto j = static_cast<std::size_t>(-a - 1);
            const Tensor& t = inputs[j];
            args.push_back({&TensorInternals::storage(t), t.offset() + (scalar[j] ? 0 : lo), scalar[j] ? 0 : 1, t.dtype()});
          }
        }
        const int slot = plan.slot[i];
        values[i] = slot < 0 ? FlatValue{&TensorInternals::storage(out), out.offset() + lo, 1, step.dtype}
                             : FlatValue{&block,
                                         scratch[static_cast<std::size_t>(slot)] /
                                             static_cast<std::int64_t>(size_of(step.dtype)),
                                         1, step.dtype};
        char* dst = values[i].ptr();
        bool done = false;
        if (step.dtype == DType::F32) done = simd_step<float>(step, args, dst, n);
        else if (step.dtype == DType::F64) done = simd_step<double>(step, args, dst, n);
        if (done) continue;
        views.clear();
        for (const auto& a : args) views.push_back(a.view(n, device));
        run_step(step, values[i].view(n, device), views, Tensor(), serial);
      }
    }
  };
  // Contiguous blocks of runs per task, a few tasks per thread (each task sets up its scratch once).
  const std::int64_t tasks = std::min<std::int64_t>(runs, 4 * static_cast<std::int64_t>(engine.threads()));
  auto body = [&](std::int64_t t0, std::int64_t t1) {
    for (std::int64_t t = t0; t < t1; ++t) task(t * runs / tasks, (t + 1) * runs / tasks);
  };
  if (tasks == 1) body(0, 1);
  else engine.parallel_for(tasks, 1, body);
}

// Scratch slots (a step's buffer is free again after its last reader ran; a step never writes
// over its own arguments) and the vector program when there is one.
std::unique_ptr<const CpuFusedPlan> plan_program(const backend::FusedProgram& prog) {
  auto plan = std::make_unique<CpuFusedPlan>();
  CpuFusedPlan& k = *plan;
  const auto& input_dtypes = prog.inputs;
  const auto& steps = prog.steps;
  const auto n = static_cast<int>(steps.size());
  const auto at = [](int i) { return static_cast<std::size_t>(i); };
  std::vector<int> last_use(at(n), -1);
  for (int s = 0; s < n; ++s)
    for (int a : steps[at(s)].args)
      if (a >= 0) last_use[at(a)] = s;
  k.slot.assign(at(n), -1);
  k.slot_count = 0;
  std::vector<int> free_slots;
  for (int s = 0; s < n; ++s) {
    // The result goes to the output; other steps take a free buffer. A step never writes over
    // its own arguments (a widening cast would overwrite elements it has not read yet).
    if (s < n - 1) {
      if (free_slots.empty()) {
        k.slot[at(s)] = k.slot_count++;
      } else {
        k.slot[at(s)] = free_slots.back();
        free_slots.pop_back();
      }
    }
    for (int a : steps[at(s)].args)  // arguments read for the last time here
      if (a >= 0 && last_use[at(a)] == s &&
          std::find(free_slots.begin(), free_slots.end(), k.slot[at(a)]) == free_slots.end())
        free_slots.push_back(k.slot[at(a)]);
  }

  if (prog.dtype != DType::F32 && prog.dtype != DType::F64) return plan;
  for (const DType d : input_dtypes)
    if (d != prog.dtype) return plan;
  const auto num_inputs = static_cast<int>(input_dtypes.size());
  std::vector<simd::VectorOp> ops;
  const int result = num_inputs + k.slot_count;
  // The register of an argument: an external input, a scratch slot or the result.
  auto reg = [&](int arg) { return arg < 0 ? -arg - 1 : (k.slot[at(arg)] < 0 ? result : num_inputs + k.slot[at(arg)]); };
  for (int i = 0; i < n; ++i) {
    const auto& s = steps[at(i)];
    if (s.dtype != prog.dtype || (s.kind != Kind::Unary && s.kind != Kind::Binary)) return plan;
    const int a = reg(s.args[0]), b = s.kind == Kind::Binary ? reg(s.args[1]) : a;
    ops.push_back({s.kind == Kind::Unary, s.binary, s.unary, reg(i), a, b});
  }
  k.program = simd::compile_program(ops, num_inputs, result);
  return plan;
}

}  // namespace

void run_fused(const backend::Backend& self, const backend::FusedProgram& k, std::span<const Tensor> inputs,
               const Tensor& out, Engine& engine) {
  const auto& plan = static_cast<const CpuFusedPlan&>(k.plan(self, [&] { return plan_program(k); }));
  const Device device = out.device();
  const std::int64_t total = out.numel();
  if (total == 0) return;
  if (flat_inputs(k, inputs)) {
    run_flat(k, plan, inputs, out, engine);
    return;
  }
  std::vector<Tensor> external;
  external.reserve(inputs.size());
  for (const auto& t : inputs) external.push_back(t.shape() == k.shape ? t : t.broadcast_to(k.shape));
  // Slabs along the slowest axis with extent > 1 (axes after it have extent 1).
  std::size_t axis = 0;
  for (std::size_t d = 0; d < k.shape.size(); ++d)
    if (k.shape[d] > 1) axis = d;
  const std::int64_t extent = k.shape.empty() ? 1 : k.shape[axis];
  const std::int64_t per_index = total / extent;
  const std::int64_t height = std::max<std::int64_t>(1, kSlabElements / per_index);
  const std::int64_t slabs = (extent + height - 1) / height;
  std::size_t widest = 1;
  for (const auto& s : k.steps) widest = std::max(widest, size_of(s.dtype));
  for (const auto& t : external) widest = std::max(widest, size_of(t.dtype()));
  const auto slab_bytes = static_cast<std::size_t>(std::min(extent, height) * per_index) * widest;

  auto body = [&](std::int64_t s0, std::int64_t s1) {
    CpuEngine serial = CpuEngine::serial(device);
    std::vector<std::shared_ptr<Storage>> scratch;
    for (int i = 0; i <= plan.slot_count; ++i) scratch.push_back(Storage::allocate(slab_bytes, device));
    std::vector<Tensor> values(k.steps.size());
    std::vector<Tensor> args;
    for (std::int64_t s = s0; s < s1; ++s) {
      const std::int64_t lo = s * height, hi = std::min(extent, lo + height);
      Shape shape = k.shape;
      if (!shape.empty()) shape[axis] = hi - lo;
      const Strides strides = col_major_strides(shape);
      auto piece = [&](const Tensor& t) {
        return k.shape.empty() ? t : t.slice(static_cast<std::int64_t>(axis), lo, hi);
      };
      for (std::size_t i = 0; i < k.steps.size(); ++i) {
        const auto& step = k.steps[i];
        args.clear();
        for (int a : step.args)
          args.push_back(a >= 0 ? values[static_cast<std::size_t>(a)] : piece(external[static_cast<std::size_t>(-a - 1)]));
        const int slot = plan.slot[i];
        values[i] = slot < 0 ? piece(out)
                             : TensorInternals::view(scratch[static_cast<std::size_t>(slot)], shape, strides, 0, step.dtype, device);
        const Tensor dense = TensorInternals::view(scratch.back(), shape, strides, 0,
                                                   args.empty() ? step.dtype : args[0].dtype(), device);
        run_step(step, values[i], args, dense, serial);
      }
    }
  };
  if (slabs == 1 || engine.threads() == 1) body(0, slabs);
  else engine.parallel_for(slabs, 1, body);
}

}  // namespace tensora::cpu
