// Straight-line elementwise programs over F32 or F64: the inner loop of fused kernels. A block
// of elements runs through every op while it sits in registers and L1, instead of one pass per
// op; each op is the same per-vector function the op-by-op kernels use (cpu/simd_ops-inl.h), so
// results are bitwise the same.
#pragma once

#include <cstdint>

#include "ops/elementwise_catalog.hpp"

namespace tensora::simd {

struct VectorOp {
  bool is_unary;
  BinaryOp binary;
  UnaryOp unary;
  int dst;   // register written
  int a, b;  // registers read (b unused by unary ops)
};

// The most registers (inputs + temporaries + the result) a program may use.
inline constexpr int kMaxProgramRegisters = 32;

// True when every op has a vector form (add, sub, mul, div, maximum, minimum and the unary ops
// with a Highway kernel) and the registers fit.
bool program_supported(const VectorOp* ops, int count, int registers);

// Runs `ops` over n elements. Registers [0, num_inputs) are the inputs: inputs[r] with stride
// strides[r] (1: a run of n elements; 0: one value for all). Registers from num_inputs on are
// temporaries; register `result` is stored to out.
void run_program_f32(const VectorOp* ops, int count, const float* const* inputs, const std::int64_t* strides,
                     int num_inputs, int result, float* out, std::int64_t n);
void run_program_f64(const VectorOp* ops, int count, const double* const* inputs, const std::int64_t* strides,
                     int num_inputs, int result, double* out, std::int64_t n);

}  // namespace tensora::simd
