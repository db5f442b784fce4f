// The fused-program interpreter (cpu/simd_program.hpp), compiled once per SIMD target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_program.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/cache_control.h>
#include <hwy/highway.h>

#include "cpu/simd_op_lists.hpp"
#include "cpu/simd_ops-inl.h"
#include "cpu/simd_program.hpp"

HWY_BEFORE_NAMESPACE();
namespace tensora::simd::HWY_NAMESPACE {

// Elements per block: every register of a block stays in L1, and the switch per op is paid
// once per kBlock elements.
constexpr int64_t kBlock = 256;

// One op over a block; a one-value input is made a vector once instead of loaded per vector.
template <BinaryOp Op, class D, class T>
HWY_INLINE void BinaryRun(D d, const T* a, bool a_scalar, const T* b, bool b_scalar, T* out) {
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  if (b_scalar) {
    const auto vb = hn::Set(d, *b);
    for (int64_t j = 0; j < kBlock; j += N) hn::StoreU(Bin<Op>(d, hn::LoadU(d, a + j), vb), d, out + j);
  } else if (a_scalar) {
    const auto va = hn::Set(d, *a);
    for (int64_t j = 0; j < kBlock; j += N) hn::StoreU(Bin<Op>(d, va, hn::LoadU(d, b + j)), d, out + j);
  } else {
    for (int64_t j = 0; j < kBlock; j += N)
      hn::StoreU(Bin<Op>(d, hn::LoadU(d, a + j), hn::LoadU(d, b + j)), d, out + j);
  }
}

template <class T, class D>
HWY_INLINE void BinaryBlock(D d, BinaryOp op, const T* a, bool a_scalar, const T* b, bool b_scalar, T* out) {
  switch (op) {
#define TENSORA_PROGRAM_BINARY(name) \
  case BinaryOp::name: return BinaryRun<BinaryOp::name>(d, a, a_scalar, b, b_scalar, out);
    TENSORA_SIMD_BINARY_OPS(TENSORA_PROGRAM_BINARY)
#undef TENSORA_PROGRAM_BINARY
    default: return;
  }
}

template <class T, class D>
HWY_INLINE void UnaryBlock(D d, UnaryOp op, const T* in, T* out) {
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  switch (op) {
#define TENSORA_PROGRAM_UNARY(name)                                                       \
  case UnaryOp::name:                                                                     \
    for (int64_t j = 0; j < kBlock; j += N)                                               \
      hn::StoreU(UnChecked<UnaryOp::name>(d, hn::LoadU(d, in + j)), d, out + j);            \
    return;
    TENSORA_SIMD_UNARY_OPS(TENSORA_PROGRAM_UNARY)
#undef TENSORA_PROGRAM_UNARY
    default: return;
  }
}

template <class T>
HWY_INLINE void Program(const VectorOp* ops, int count, const T* const* inputs, const int64_t* strides,
                        int num_inputs, int result, T* out, int64_t n) {
  const hn::ScalableTag<T> d;
  // Temporaries, the broadcast one-value inputs, and a padded copy of each run input for the
  // last (partial) block. Padding lanes hold 1, a value every op takes without a special case.
  HWY_ALIGN T temp[kMaxProgramRegisters][kBlock];
  const T* src[kMaxProgramRegisters];
  for (int r = 0; r < num_inputs; ++r)
    if (strides[r] == 0)
      for (int64_t j = 0; j < kBlock; ++j) temp[r][j] = inputs[r][0];
  // A block computes for about as long as memory takes to answer, so the next blocks of every
  // streamed input (and of the output, which is written) are requested kAhead elements early.
  constexpr int64_t kAhead = 4 * kBlock;
  constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(T));
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t len = n - i < kBlock ? n - i : kBlock;
    if (i + kAhead + kBlock <= n) {
      for (int r = 0; r < num_inputs; ++r)
        if (strides[r] != 0)
          for (int64_t j = 0; j < kBlock; j += kLine) hwy::Prefetch(inputs[r] + i + kAhead + j);
      for (int64_t j = 0; j < kBlock; j += kLine) __builtin_prefetch(out + i + kAhead + j, 1, 3);
    }
    for (int r = 0; r < num_inputs; ++r) {
      if (strides[r] == 0) {
        src[r] = temp[r];
      } else if (len == kBlock) {
        src[r] = inputs[r] + i;
      } else {
        for (int64_t j = 0; j < kBlock; ++j) temp[r][j] = j < len ? inputs[r][i + j] : T(1);
        src[r] = temp[r];
      }
    }
    T* dst_result = len == kBlock ? out + i : temp[result];
    for (int k = 0; k < count; ++k) {
      const VectorOp& op = ops[k];
      T* dst = op.dst == result ? dst_result : temp[op.dst];
      const T* a = op.a < num_inputs ? src[op.a] : temp[op.a];
      if (op.is_unary) {
        UnaryBlock(d, op.unary, a, dst);
      } else {
        const T* b = op.b < num_inputs ? src[op.b] : temp[op.b];
        const bool a_scalar = op.a < num_inputs && strides[op.a] == 0;
        const bool b_scalar = op.b < num_inputs && strides[op.b] == 0;
        BinaryBlock(d, op.binary, a, a_scalar, b, b_scalar, dst);
      }
    }
    if (len < kBlock)
      for (int64_t j = 0; j < len; ++j) out[i + j] = temp[result][j];
  }
}

void ProgramF32(const VectorOp* ops, int count, const float* const* inputs, const int64_t* strides, int num_inputs,
                int result, float* out, int64_t n) {
  Program(ops, count, inputs, strides, num_inputs, result, out, n);
}
void ProgramF64(const VectorOp* ops, int count, const double* const* inputs, const int64_t* strides, int num_inputs,
                int result, double* out, int64_t n) {
  Program(ops, count, inputs, strides, num_inputs, result, out, n);
}

}  // namespace tensora::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tensora::simd {

HWY_EXPORT(ProgramF32);
HWY_EXPORT(ProgramF64);

bool program_supported(const VectorOp* ops, int count, int registers) {
  if (registers > kMaxProgramRegisters) return false;
  for (int k = 0; k < count; ++k) {
    const VectorOp& op = ops[k];
#define TENSORA_SUPPORTED(name) case name:
    if (op.is_unary) {
      using enum UnaryOp;
      switch (op.unary) {
        TENSORA_SIMD_UNARY_OPS(TENSORA_SUPPORTED) break;
        default: return false;
      }
    } else {
      using enum BinaryOp;
      switch (op.binary) {
        TENSORA_SIMD_BINARY_OPS(TENSORA_SUPPORTED) break;
        default: return false;
      }
    }
#undef TENSORA_SUPPORTED
  }
  return true;
}

void run_program_f32(const VectorOp* ops, int count, const float* const* inputs, const std::int64_t* strides,
                     int num_inputs, int result, float* out, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(ProgramF32)(ops, count, inputs, strides, num_inputs, result, out, n);
}
void run_program_f64(const VectorOp* ops, int count, const double* const* inputs, const std::int64_t* strides,
                     int num_inputs, int result, double* out, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(ProgramF64)(ops, count, inputs, strides, num_inputs, result, out, n);
}

}  // namespace tensora::simd
#endif  // HWY_ONCE
