// Straight-line elementwise programs over F32 or F64: the inner loop of fused kernels. A chunk
// of a few vectors runs through every op while it sits in registers (docs/traced.md, "Vector
// programs"); each op is the same per-vector function the op-by-op kernels use
// (cpu/simd_ops-inl.h), so results are bitwise the same.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "cpu/simd_op_lists.hpp"
#include "ops/elementwise_catalog.hpp"

namespace tensora::simd {

// One op of a program over numbered registers, as the fused executor describes it.
struct VectorOp {
  bool is_unary;
  BinaryOp binary;
  UnaryOp unary;
  int dst;   // register written
  int a, b;  // registers read (b unused by unary ops)
};

// The most registers (inputs + temporaries + the result) a program may use.
inline constexpr int kMaxProgramRegisters = 32;

// What a compiled step does: the op, and for each operand whether it is the accumulator (the
// previous step's result, held in vector registers) or a register's memory.
enum class StepCode : std::uint8_t {
#define TENSORA_BINARY_STEP_CODES(name) name##AccAcc, name##AccMem, name##MemAcc, name##MemMem,
  TENSORA_SIMD_BINARY_OPS(TENSORA_BINARY_STEP_CODES)
#undef TENSORA_BINARY_STEP_CODES
#define TENSORA_UNARY_STEP_CODES(name) name##Acc, name##Mem,
  TENSORA_SIMD_UNARY_OPS(TENSORA_UNARY_STEP_CODES)
#undef TENSORA_UNARY_STEP_CODES
};

struct VectorStep {
  StepCode code;
  std::uint8_t a, b;  // registers read from memory (when the code says Mem)
  std::int8_t save;   // register whose memory receives the result; -1: the result only feeds the next step
};

// A program compiled for the accumulator interpreter. Registers [0, num_inputs) are the inputs;
// register `result` is the output.
struct VectorProgram {
  std::vector<VectorStep> steps;
  int num_inputs = 0;
  int result = 0;
};

// The program for `ops`, or nothing when an op has no vector form (add, sub, mul, div, maximum,
// minimum, copysign and the unary ops with a Highway kernel), the registers do not fit, or an op
// writes an input register.
std::optional<VectorProgram> compile_program(std::span<const VectorOp> ops, int num_inputs, int result);

// Runs `program` over n elements: inputs[r] with stride strides[r] (1: a run of n elements; 0:
// one value for all); the result is stored to out, with non-temporal stores when `stream` (a
// result of at least kStreamFlatBytes, simd.hpp) and out is aligned to the vector.
void run_program_f32(const VectorProgram& program, const float* const* inputs, const std::int64_t* strides, float* out,
                     std::int64_t n, bool stream);
void run_program_f64(const VectorProgram& program, const double* const* inputs, const std::int64_t* strides, double* out,
                     std::int64_t n, bool stream);

}  // namespace tensora::simd
