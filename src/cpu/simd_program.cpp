// The fused-program interpreter (cpu/simd_program.hpp), compiled once per SIMD target.
//
// An accumulator machine: a chunk of kChunkVectors vectors goes through every step of the
// program in vector registers. A step reads each operand either from the accumulator (the
// previous step's result) or from a register's memory (an input run, a broadcast value, a saved
// temporary; a one-element input beside the accumulator is made a vector once per step), and
// stores its result only when a later step reads it from memory. The switch per step is paid
// once per chunk. An earlier form ran each op over a block of 256 elements in L1 (two loads and
// a store per op and vector) and was bound by those stores.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_program.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include <algorithm>
#include <utility>

#include "cpu/simd_op_lists.hpp"
#include "cpu/simd_ops-inl.h"
#include "cpu/simd_program.hpp"

HWY_BEFORE_NAMESPACE();
namespace tensora::simd::HWY_NAMESPACE {

// Vectors per chunk, all held in registers: AVX-512 has 32 vector registers, AVX2 and SSE 16.
constexpr size_t kChunkVectors = HWY_MAX_BYTES >= 64 ? 16 : 8;

// Lambdas given to Unrolled are inlined too: one left out of line would put the accumulator in memory.
#define TENSORA_ALWAYS_INLINE __attribute__((always_inline))

// Calls f(integral_constant<j>) for j < kChunkVectors: every accumulator index is a constant, so
// the accumulator stays in registers without relying on the unroller.
template <class F, size_t... J>
HWY_INLINE void UnrolledImpl(F& f, std::index_sequence<J...>) {
  (f(std::integral_constant<size_t, J>{}), ...);
}
template <class F>
HWY_INLINE void Unrolled(F&& f) {
  UnrolledImpl(f, std::make_index_sequence<kChunkVectors>{});
}

// Operand forms of a binary step, in StepCode's order.
enum Form : int { kAccAcc, kAccMem, kMemAcc, kMemMem };

// `a_one` / `b_one`: that memory operand is a one-element input; beside the accumulator it is
// made a vector once per step instead of loaded per vector.
template <BinaryOp Op, int F, class D, class V, class T>
HWY_INLINE void BinaryStep(D d, V* acc, const T* pa, const T* pb, bool a_one, bool b_one) {
  const size_t N = hn::Lanes(d);
  if constexpr (F == kAccMem) {
    if (b_one) {
      const V b = hn::Set(d, *pb);
      Unrolled([&](auto j) TENSORA_ALWAYS_INLINE { acc[j] = Bin<Op>(d, acc[j], b); });
      return;
    }
  }
  if constexpr (F == kMemAcc) {
    if (a_one) {
      const V a = hn::Set(d, *pa);
      Unrolled([&](auto j) TENSORA_ALWAYS_INLINE { acc[j] = Bin<Op>(d, a, acc[j]); });
      return;
    }
  }
  Unrolled([&](auto j) TENSORA_ALWAYS_INLINE {
    const V a = (F == kMemAcc || F == kMemMem) ? hn::LoadU(d, pa + j * N) : acc[j];
    const V b = (F == kAccMem || F == kMemMem) ? hn::LoadU(d, pb + j * N) : acc[j];
    acc[j] = Bin<Op>(d, a, b);
  });
}

// Unary ops with special lanes have long vector forms (polynomials, range reduction, the scalar
// fallback): they run out of line over the chunk in memory, so the inlined cases stay small and
// free of calls, and the accumulator spills only around them.

template <UnaryOp Op, class T>
HWY_NOINLINE void LongUnaryChunk(const T* src, T* dst) {
  const hn::ScalableTag<T> d;
  const size_t N = hn::Lanes(d);
  for (size_t j = 0; j < kChunkVectors; ++j) hn::Store(UnChecked<Op>(d, hn::LoadU(d, src + j * N)), d, dst + j * N);
}

template <UnaryOp Op, bool FromMemory, class D, class V, class T>
HWY_INLINE void UnaryStep(D d, V* acc, const T* pa, T* spill) {
  const size_t N = hn::Lanes(d);
  if constexpr (HasSpecialLanes(Op)) {
    if constexpr (!FromMemory) Unrolled([&](auto j) TENSORA_ALWAYS_INLINE { hn::Store(acc[j], d, spill + j * N); });
    LongUnaryChunk<Op>(FromMemory ? pa : spill, spill);
    Unrolled([&](auto j) TENSORA_ALWAYS_INLINE { acc[j] = hn::Load(d, spill + j * N); });
  } else {
    Unrolled([&](auto j) TENSORA_ALWAYS_INLINE { acc[j] = UnChecked<Op>(d, FromMemory ? hn::LoadU(d, pa + j * N) : acc[j]); });
  }
}

// Whether a step runs an op with a long vector form: such programs are bound by arithmetic, and
// their results are stored ordinarily (as the op-by-op kernels do, simd.cpp).
HWY_INLINE bool HasLongStep(const VectorStep* steps, int count) {
  for (int k = 0; k < count; ++k) {
    switch (steps[k].code) {
#define TENSORA_LONG_CASES(name) \
  case StepCode::name##Acc:      \
  case StepCode::name##Mem:      \
    if (HasSpecialLanes(UnaryOp::name)) return true;  \
    break;
      TENSORA_SIMD_UNARY_OPS(TENSORA_LONG_CASES)
#undef TENSORA_LONG_CASES
      default: break;
    }
  }
  return false;
}

template <class T>
HWY_INLINE void Program(const VectorStep* steps, int count, const T* const* inputs, const int64_t* strides,
                        int num_inputs, int result, T* out, int64_t n, bool stream) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const size_t N = hn::Lanes(d);
  constexpr size_t kMaxChunk = kChunkVectors * hn::MaxLanes(d);
  const auto chunk = static_cast<int64_t>(kChunkVectors * N);
  // Each register's memory: a broadcast one-value input, the padded last chunk of a run input
  // (padding lanes hold 1, a value every op takes without a special case), a saved temporary.
  HWY_ALIGN T memory[kMaxProgramRegisters][kMaxChunk];
  HWY_ALIGN T spill[kMaxChunk];
  const T* base[kMaxProgramRegisters];  // where each register is read in the current chunk
  for (int r = 0; r < kMaxProgramRegisters; ++r) base[r] = memory[r];
  for (int r = 0; r < num_inputs; ++r)
    if (strides[r] == 0) std::fill_n(memory[r], chunk, inputs[r][0]);
  V acc[kChunkVectors];
  Unrolled([&](auto j) TENSORA_ALWAYS_INLINE { acc[j] = hn::Zero(d); });
  // A chunk computes for about as long as memory takes to answer, so the streamed inputs (and
  // the output, which is written) are requested kAhead elements early.
  constexpr int64_t kAhead = 1024;
  constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(T));
  // Full chunks of a streamed result are stored straight from the accumulator, past the caches.
  stream = stream && VectorAligned(d, out) && !HasLongStep(steps, count);
  for (int64_t i = 0; i < n; i += chunk) {
    const int64_t len = std::min(chunk, n - i);
    if (i + kAhead + chunk <= n) {
      for (int r = 0; r < num_inputs; ++r)
        if (strides[r] != 0)
          for (int64_t j = 0; j < chunk; j += kLine) hwy::Prefetch(inputs[r] + i + kAhead + j);
      if (!stream)
        for (int64_t j = 0; j < chunk; j += kLine) __builtin_prefetch(out + i + kAhead + j, 1, 3);
    }
    for (int r = 0; r < num_inputs; ++r) {
      if (strides[r] == 0) continue;
      if (len == chunk) {
        base[r] = inputs[r] + i;
      } else {
        for (int64_t j = 0; j < chunk; ++j) memory[r][j] = j < len ? inputs[r][i + j] : T(1);
        base[r] = memory[r];
      }
    }
    T* const result_memory = len == chunk ? out + i : memory[result];
    for (int k = 0; k < count; ++k) {
      const VectorStep& s = steps[k];
      const T* pa = base[s.a];
      const T* pb = base[s.b];
      const bool a_one = s.a < num_inputs && strides[s.a] == 0, b_one = s.b < num_inputs && strides[s.b] == 0;
      switch (s.code) {
#define TENSORA_BINARY_CASES(name)                                                                       \
  case StepCode::name##AccAcc: BinaryStep<BinaryOp::name, kAccAcc>(d, acc, pa, pb, a_one, b_one); break; \
  case StepCode::name##AccMem: BinaryStep<BinaryOp::name, kAccMem>(d, acc, pa, pb, a_one, b_one); break; \
  case StepCode::name##MemAcc: BinaryStep<BinaryOp::name, kMemAcc>(d, acc, pa, pb, a_one, b_one); break; \
  case StepCode::name##MemMem: BinaryStep<BinaryOp::name, kMemMem>(d, acc, pa, pb, a_one, b_one); break;
        TENSORA_SIMD_BINARY_OPS(TENSORA_BINARY_CASES)
#undef TENSORA_BINARY_CASES
#define TENSORA_UNARY_CASES(name)                                                      \
  case StepCode::name##Acc: UnaryStep<UnaryOp::name, false>(d, acc, pa, spill); break; \
  case StepCode::name##Mem: UnaryStep<UnaryOp::name, true>(d, acc, pa, spill); break;
        TENSORA_SIMD_UNARY_OPS(TENSORA_UNARY_CASES)
#undef TENSORA_UNARY_CASES
      }
      if (s.save >= 0) {
        T* const dst = s.save == result ? result_memory : memory[s.save];
        if (stream && dst == out + i)
          Unrolled([&](auto j) TENSORA_ALWAYS_INLINE { hn::Stream(acc[j], d, dst + j * N); });
        else
          Unrolled([&](auto j) TENSORA_ALWAYS_INLINE { hn::StoreU(acc[j], d, dst + j * N); });
      }
    }
    if (len < chunk) std::copy_n(memory[result], len, out + i);
  }
  if (stream) hwy::FlushStream();  // the streamed lines are visible before the range is done
}

void ProgramF32(const VectorStep* steps, int count, const float* const* inputs, const int64_t* strides,
                int num_inputs, int result, float* out, int64_t n, bool stream) {
  Program(steps, count, inputs, strides, num_inputs, result, out, n, stream);
}
void ProgramF64(const VectorStep* steps, int count, const double* const* inputs, const int64_t* strides,
                int num_inputs, int result, double* out, int64_t n, bool stream) {
  Program(steps, count, inputs, strides, num_inputs, result, out, n, stream);
}

}  // namespace tensora::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tensora::simd {

HWY_EXPORT(ProgramF32);
HWY_EXPORT(ProgramF64);

namespace {

// The step code of `op` with both operands in the accumulator (unary: the accumulator); the
// other forms follow it in StepCode.
std::optional<StepCode> first_code(const VectorOp& op) {
  if (op.is_unary) {
    switch (op.unary) {
#define TENSORA_UNARY_CODE(name) \
  case UnaryOp::name: return StepCode::name##Acc;
      TENSORA_SIMD_UNARY_OPS(TENSORA_UNARY_CODE)
#undef TENSORA_UNARY_CODE
      default: return std::nullopt;
    }
  }
  switch (op.binary) {
#define TENSORA_BINARY_CODE(name) \
  case BinaryOp::name: return StepCode::name##AccAcc;
    TENSORA_SIMD_BINARY_OPS(TENSORA_BINARY_CODE)
#undef TENSORA_BINARY_CODE
    default: return std::nullopt;
  }
}

bool reads(const VectorOp& op, int r) {
  return op.a == r || (!op.is_unary && op.b == r);
}

}  // namespace

std::optional<VectorProgram> compile_program(std::span<const VectorOp> ops, int num_inputs, int result) {
  if (ops.empty() || num_inputs < 0 || result < num_inputs || result >= kMaxProgramRegisters ||
      ops.back().dst != result)
    return std::nullopt;
  const auto in_range = [&](int r) { return r >= 0 && r <= result; };
  VectorProgram program;
  program.num_inputs = num_inputs;
  program.result = result;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const VectorOp& op = ops[k];
    const auto code = first_code(op);
    const int b = op.is_unary ? op.a : op.b;
    if (!code || op.dst < num_inputs || !in_range(op.dst) || !in_range(op.a) || !in_range(b)) return std::nullopt;
    // An operand is the accumulator when the previous step just wrote its register.
    const int previous = k > 0 ? ops[k - 1].dst : -1;
    const bool a_acc = op.a == previous, b_acc = b == previous;
    const int form = op.is_unary ? (a_acc ? 0 : 1) : (a_acc ? (b_acc ? 0 : 1) : (b_acc ? 2 : 3));
    // Stored when a step after the next reads it from memory before the register is written again.
    bool save = op.dst == result;
    for (std::size_t j = k + 1; j < ops.size() && !save; ++j) {
      if (j > k + 1 && reads(ops[j], op.dst)) save = true;
      if (ops[j].dst == op.dst) break;
    }
    program.steps.push_back({static_cast<StepCode>(static_cast<int>(*code) + form), static_cast<std::uint8_t>(op.a),
                             static_cast<std::uint8_t>(b), static_cast<std::int8_t>(save ? op.dst : -1)});
  }
  return program;
}

void run_program_f32(const VectorProgram& p, const float* const* inputs, const std::int64_t* strides, float* out,
                     std::int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(ProgramF32)
  (p.steps.data(), static_cast<int>(p.steps.size()), inputs, strides, p.num_inputs, p.result, out, n, stream);
}
void run_program_f64(const VectorProgram& p, const double* const* inputs, const std::int64_t* strides, double* out,
                     std::int64_t n, bool stream) {
  HWY_DYNAMIC_DISPATCH(ProgramF64)
  (p.steps.data(), static_cast<int>(p.steps.size()), inputs, strides, p.num_inputs, p.result, out, n, stream);
}

}  // namespace tensora::simd
#endif  // HWY_ONCE
