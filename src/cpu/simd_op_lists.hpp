// The elementwise ops that have a SIMD form, as X-macro lists: the op-by-op kernels (simd.cpp),
// the fused programs (simd_program.cpp) and their support check all switch over these lists.
#pragma once

#define TENSORA_SIMD_BINARY_OPS(X) X(Add) X(Sub) X(Mul) X(Div) X(Maximum) X(Minimum) X(CopySign)
#define TENSORA_SIMD_UNARY_OPS(X)                                                                     \
  X(Neg) X(Abs) X(Exp) X(Expm1) X(Log) X(Log1p) X(Sqrt) X(Rsqrt) X(Sin) X(Cos) X(Tanh) X(Sigmoid) \
  X(Floor) X(Ceil) X(Round) X(Trunc) X(Square) X(Reciprocal)
// The complex ops that work on the real and imaginary parts separately, each with its float op
// (bitwise the scalar complex arithmetic): a C128 element is then one vector of two F64 lanes,
// which the C128 tile kernels take whole (complex_tile.cpp).
#define TENSORA_SIMD_PARTWISE_BINARY_OPS(X) X(Add) X(Sub)
#define TENSORA_SIMD_PARTWISE_UNARY_OPS(X) X(Neg) X(Conj)
