// Runs a fused elementwise kernel slab by slab. A slab is a range of the output's slowest
// non-trivial axis holding about kSlabElements elements: the output slab is contiguous, each
// intermediate lives in a scratch buffer that stays in cache, and slabs run in parallel.
#include <algorithm>

#include "core/storage.hpp"
#include "cpu/kernels.hpp"
#include "graph/fused_kernel.hpp"

namespace tensora::graph_detail {

namespace {

constexpr std::int64_t kSlabElements = 8192;

// Scratch slots for the steps: a step's buffer is free again after its last reader ran.
struct SlotPlan {
  std::vector<int> slot;  // per step; -1 for the result (written into the output)
  int count = 0;
};

SlotPlan plan_slots(const FusedKernel& k) {
  const auto n = static_cast<int>(k.steps.size());
  std::vector<int> last_use(static_cast<std::size_t>(n), -1);
  for (int s = 0; s < n; ++s)
    for (int a : k.steps[static_cast<std::size_t>(s)].args)
      if (a >= 0) last_use[static_cast<std::size_t>(a)] = s;
  SlotPlan p;
  p.slot.assign(static_cast<std::size_t>(n), -1);
  std::vector<int> free_slots;
  for (int s = 0; s < n; ++s) {
    // The result goes to the output; other steps take a free buffer. A step never writes over
    // its own arguments (a widening cast would overwrite elements it has not read yet).
    if (s < n - 1) {
      if (free_slots.empty()) {
        p.slot[static_cast<std::size_t>(s)] = p.count++;
      } else {
        p.slot[static_cast<std::size_t>(s)] = free_slots.back();
        free_slots.pop_back();
      }
    }
    for (int a : k.steps[static_cast<std::size_t>(s)].args)  // arguments read for the last time here
      if (a >= 0 && last_use[static_cast<std::size_t>(a)] == s &&
          std::find(free_slots.begin(), free_slots.end(), p.slot[static_cast<std::size_t>(a)]) == free_slots.end())
        free_slots.push_back(p.slot[static_cast<std::size_t>(a)]);
  }
  return p;
}

void run_step(const FusedKernel::Step& step, const Tensor& out, const std::vector<Tensor>& args, const Tensor& dense,
              Engine& engine) {
  switch (step.kind) {
    case OpKind::Unary:
      // Unary kernels take their SIMD path on contiguous input only; copying a strided slab
      // first keeps the fused result equal to the unfused op on dense data.
      if (!args[0].is_contiguous()) {
        cpu::copy(dense, args[0], engine);
        return cpu::unary(step.unary, out, dense, engine);
      }
      return cpu::unary(step.unary, out, args[0], engine);
    case OpKind::Binary:
      return cpu::binary(step.binary, out, args[0], args[1], engine);
    case OpKind::Select:
      return cpu::select(out, args[0], args[1], args[2], engine);
    default:  // Convert, Cast
      return cpu::cast(out, args[0], engine);
  }
}

}  // namespace

Tensor run_fused(const FusedKernel& k, std::span<const Tensor> inputs, Engine& engine) {
  const Device device = inputs.empty() ? engine.device() : inputs.front().device();
  Tensor out = Tensor::empty(k.shape, k.dtype, device);
  const std::int64_t total = out.numel();
  if (total == 0) return out;
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
  const SlotPlan slots = plan_slots(k);
  std::size_t widest = 1;
  for (const auto& s : k.steps) widest = std::max(widest, size_of(s.dtype));
  for (const auto& t : external) widest = std::max(widest, size_of(t.dtype()));
  const auto slab_bytes = static_cast<std::size_t>(std::min(extent, height) * per_index) * widest;

  auto body = [&](std::int64_t s0, std::int64_t s1) {
    CpuEngine serial = CpuEngine::serial(device);
    std::vector<std::shared_ptr<Storage>> scratch;
    for (int i = 0; i <= slots.count; ++i) scratch.push_back(Storage::allocate(slab_bytes, device));
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
        const int slot = slots.slot[i];
        values[i] = slot < 0 ? piece(out)
                             : Tensor(scratch[static_cast<std::size_t>(slot)], shape, strides, 0, step.dtype, device);
        const Tensor dense(scratch.back(), shape, strides, 0, args.empty() ? step.dtype : args[0].dtype(), device);
        run_step(step, values[i], args, dense, serial);
      }
    }
  };
  if (slabs == 1 || engine.threads() == 1) body(0, slabs);
  else engine.parallel_for(slabs, 1, body);
  return out;
}

std::string print_body(const FusedKernel& k, const std::string& indent) {
  std::string s;
  for (std::size_t i = 0; i < k.steps.size(); ++i) {
    const auto& step = k.steps[i];
    s += indent + "^" + std::to_string(i) + " = " + step.op + "(";
    for (std::size_t j = 0; j < step.args.size(); ++j) {
      const int a = step.args[j];
      s += (j ? ", " : "") + (a >= 0 ? "^" + std::to_string(a) : "in" + std::to_string(-a - 1));
    }
    s += ")";
    if (step.kind == OpKind::Convert || step.kind == OpKind::Cast) s += " {to=" + std::string(name(step.dtype)) + "}";
    s += " : " + std::string(name(step.dtype)) + "\n";
  }
  return s;
}

}  // namespace tensora::graph_detail
