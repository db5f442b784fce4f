// The elementwise ops that have a SIMD form, as X-macro lists: the op-by-op kernels (simd.cpp),
// the fused programs (simd_program.cpp) and their support check all switch over these lists.
#pragma once

#define TENSORA_SIMD_BINARY_OPS(X) X(Add) X(Sub) X(Mul) X(Div) X(Maximum) X(Minimum) X(CopySign)
#define TENSORA_SIMD_UNARY_OPS(X)                                                                     \
  X(Neg) X(Abs) X(Exp) X(Expm1) X(Log) X(Log1p) X(Sqrt) X(Rsqrt) X(Sin) X(Cos) X(Tanh) X(Sigmoid) \
  X(Floor) X(Ceil) X(Round) X(Trunc) X(Square) X(Reciprocal)
