// The op catalog: one row per primitive of the elementwise, reduction and axis families. Every
// fact about such an op lives in its row; the enums and info tables of the library and the
// method tables of Tensor, TypedTensor, EagerSession, EagerTensor and TracedTensor are all
// expanded from these lists (X-macros), so they cannot fall out of step. docs/adding-an-op.md
// walks through adding a row; docs/architecture.md says who reads which column.
//
// Columns (a column a reader does not need is ignored by its expansion):
//   name     the method name in every front door (x.name(...), s.name(...))
//   Enum     the enumerator (BinaryOp::Enum, UnaryOp::Enum, Reduction::Enum, AxisOp::Enum)
//   accepts  the dtype kinds the direct op takes (kNumeric, kInexact, kFloat, kReal, kAny, ...);
//            eager and traced promote other inputs into this set
//   result   how the result dtype follows the input: Same, Bool, Real (complex -> its real
//            dtype), Index (I64)
//   ad       Smooth (has a derivative rule), ComplexOnly (a rule for complex inputs; real
//            inputs are piecewise constant), None (piecewise constant or Bool-valued)
//   hint     the fix an UnsupportedDType error suggests
#pragma once

// clang-format off
#define TENSORA_BINARY_OPS(X)                                                                                    \
  X(add,         Add,        kNumeric,     Same, Smooth, kUseLogical)                                           \
  X(sub,         Sub,        kNumeric,     Same, Smooth, kUseLogical)                                           \
  X(mul,         Mul,        kNumeric,     Same, Smooth, kUseLogical)                                           \
  X(div,         Div,        kInexact,     Same, Smooth,                                                        \
    "integer division is floor_div; for true division cast to a float dtype first")                             \
  X(floor_div,   FloorDiv,   kReal,        Same, None,   "floor_div is defined for real dtypes")                \
  X(rem,         Rem,        kReal,        Same, Smooth, "rem is defined for real dtypes")                      \
  X(pow,         Pow,        kNumeric,     Same, Smooth, kUseLogical)                                           \
  X(maximum,     Maximum,    kBool | kReal, Same, Smooth, kUnordered)                                           \
  X(minimum,     Minimum,    kBool | kReal, Same, Smooth, kUnordered)                                           \
  X(atan2,       Atan2,      kFloat,       Same, Smooth, kCastFloat)                                            \
  X(hypot,       Hypot,      kFloat,       Same, Smooth, kCastFloat)                                            \
  X(logaddexp,   LogAddExp,  kFloat,       Same, Smooth, kCastFloat)                                            \
  X(xlogy,       Xlogy,      kFloat,       Same, Smooth, kCastFloat)                                            \
  X(copysign,    CopySign,   kFloat,       Same, Smooth, kCastFloat)                                            \
  X(eq,          Eq,         kAny,         Bool, None,   "")                                                    \
  X(ne,          Ne,         kAny,         Bool, None,   "")                                                    \
  X(lt,          Lt,         kBool | kReal, Bool, None,  kUnordered)                                            \
  X(le,          Le,         kBool | kReal, Bool, None,  kUnordered)                                            \
  X(gt,          Gt,         kBool | kReal, Bool, None,  kUnordered)                                            \
  X(ge,          Ge,         kBool | kReal, Bool, None,  kUnordered)                                            \
  X(logical_and, LogicalAnd, kAny,         Bool, None,   "")                                                    \
  X(logical_or,  LogicalOr,  kAny,         Bool, None,   "")                                                    \
  X(logical_xor, LogicalXor, kAny,         Bool, None,   "")

#define TENSORA_UNARY_OPS(X)                                                                                     \
  X(neg,         Neg,        kNumeric,     Same, Smooth, "use logical_not for Bool")                            \
  X(abs,         Abs,        kNumeric,     Real, Smooth, "use the tensor as is for Bool")                       \
  X(sign,        Sign,       kNumeric,     Same, ComplexOnly, "")                                               \
  X(exp,         Exp,        kInexact,     Same, Smooth, kCastFloat)                                            \
  X(exp2,        Exp2,       kFloat,       Same, Smooth, kCastFloat)                                            \
  X(expm1,       Expm1,      kFloat,       Same, Smooth, kCastFloat)                                            \
  X(log,         Log,        kInexact,     Same, Smooth, kCastFloat)                                            \
  X(log2,        Log2,       kFloat,       Same, Smooth, kCastFloat)                                            \
  X(log10,       Log10,      kInexact,     Same, Smooth, kCastFloat)                                            \
  X(log1p,       Log1p,      kFloat,       Same, Smooth, kCastFloat)                                            \
  X(sqrt,        Sqrt,       kInexact,     Same, Smooth, kCastFloat)                                            \
  X(rsqrt,       Rsqrt,      kFloat,       Same, Smooth, kCastFloat)                                            \
  X(reciprocal,  Reciprocal, kInexact,     Same, Smooth, "for integers use floor_div; else cast to a float dtype first") \
  X(square,      Square,     kNumeric,     Same, Smooth, "use the tensor as is for Bool (x * x == x)")          \
  X(sin,         Sin,        kInexact,     Same, Smooth, kCastFloat)                                            \
  X(cos,         Cos,        kInexact,     Same, Smooth, kCastFloat)                                            \
  X(tan,         Tan,        kInexact,     Same, Smooth, kCastFloat)                                            \
  X(asin,        Asin,       kInexact,     Same, Smooth, kCastFloat)                                            \
  X(acos,        Acos,       kInexact,     Same, Smooth, kCastFloat)                                            \
  X(atan,        Atan,       kInexact,     Same, Smooth, kCastFloat)                                            \
  X(sinh,        Sinh,       kInexact,     Same, Smooth, kCastFloat)                                            \
  X(cosh,        Cosh,       kInexact,     Same, Smooth, kCastFloat)                                            \
  X(tanh,        Tanh,       kInexact,     Same, Smooth, kCastFloat)                                            \
  X(asinh,       Asinh,      kInexact,     Same, Smooth, kCastFloat)                                            \
  X(acosh,       Acosh,      kInexact,     Same, Smooth, kCastFloat)                                            \
  X(atanh,       Atanh,      kInexact,     Same, Smooth, kCastFloat)                                            \
  X(sigmoid,     Sigmoid,    kFloat,       Same, Smooth, kCastFloat)                                            \
  X(erf,         Erf,        kFloat,       Same, Smooth, kCastFloat)                                            \
  X(erfc,        Erfc,       kFloat,       Same, Smooth, kCastFloat)                                            \
  X(erfinv,      Erfinv,     kFloat,       Same, Smooth, kCastFloat)                                            \
  X(lgamma,      Lgamma,     kFloat,       Same, Smooth, kCastFloat)                                            \
  X(digamma,     Digamma,    kFloat,       Same, Smooth, kCastFloat)                                            \
  X(trigamma,    Trigamma,   kFloat,       Same, Smooth, kCastFloat)                                            \
  X(floor,       Floor,      kReal,        Same, None,   "complex numbers have no floor")                       \
  X(ceil,        Ceil,       kReal,        Same, None,   "complex numbers have no ceil")                        \
  X(round,       Round,      kReal,        Same, None,   "complex numbers have no round")                       \
  X(trunc,       Trunc,      kReal,        Same, None,   "complex numbers have no trunc")                       \
  X(conj,        Conj,       kNumeric,     Same, Smooth, "")                                                    \
  X(real,        Real,       kNumeric,     Real, Smooth, "")                                                    \
  X(imag,        Imag,       kNumeric,     Real, Smooth, "")                                                    \
  X(logical_not, LogicalNot, kAny,         Bool, None,   "")                                                    \
  X(isnan,       IsNan,      kAny,         Bool, None,   "")                                                    \
  X(isinf,       IsInf,      kAny,         Bool, None,   "")                                                    \
  X(isfinite,    IsFinite,   kAny,         Bool, None,   "")

// Reductions. Extra columns: `form` is the call shape (Axes: x.op(axes[, ReduceOptions]) and
// x.op() over every axis; Axis: x.op(axis[, ReduceOptions]) and x.op() over the flattening;
// Scan: x.op(axis), same shape), `empty` says whether an empty reduced axis is an error (the op
// has no identity value).
#define TENSORA_REDUCTIONS(X)                                                                                    \
  X(sum,       Sum,       kNumeric,      Same,  Smooth, Axes, false, "cast Bool to an integer dtype to count")  \
  X(prod,      Prod,      kNumeric,      Same,  Smooth, Axes, false, "cast Bool to an integer dtype first")     \
  X(mean,      Mean,      kInexact,      Same,  Smooth, Axes, false, kCastFloat)                                \
  X(max,       Max,       kBool | kReal, Same,  Smooth, Axes, true,  kUnordered)                                \
  X(min,       Min,       kBool | kReal, Same,  Smooth, Axes, true,  kUnordered)                                \
  X(all,       All,       kAny,          Bool,  None,   Axes, false, "")                                        \
  X(any,       Any,       kAny,          Bool,  None,   Axes, false, "")                                        \
  X(logsumexp, LogSumExp, kFloat,        Same,  Smooth, Axes, false, kCastFloat)                                \
  X(var,       Var,       kInexact,      Real,  Smooth, Axes, false, kCastFloat)                                \
  X(std,       Std,       kInexact,      Real,  Smooth, Axes, false, kCastFloat)                                \
  X(argmax,    ArgMax,    kBool | kReal, Index, None,   Axis, true,  kUnordered)                                \
  X(argmin,    ArgMin,    kBool | kReal, Index, None,   Axis, true,  kUnordered)                                \
  X(cumsum,    CumSum,    kNumeric,      Same,  Smooth, Scan, false, "cast Bool to an integer dtype first")     \
  X(cumprod,   CumProd,   kNumeric,      Same,  Smooth, Scan, false, "cast Bool to an integer dtype first")

// Normalizations along one axis: x.op(axis), same shape and dtype.
#define TENSORA_AXIS_OPS(X)                                             \
  X(softmax,     Softmax,    kFloat, Same, Smooth, kCastFloat)          \
  X(log_softmax, LogSoftmax, kFloat, Same, Smooth, kCastFloat)

// The other ops of the set (structural, contractions, dtype changes): their methods have
// signatures of their own; their rows give eager and traced the promotion policy. `fixed` is
// the number of leading operands that keep their dtype (select's predicate).
#define TENSORA_OTHER_OPS(X)                                                                  \
  X(matmul, kNumeric, 0) X(dot_general, kNumeric, 0) X(einsum, kNumeric, 0)                   \
  X(concat, kAny, 0) X(stack, kAny, 0) X(select, kAny, 1) X(where, kAny, 1)                   \
  X(clamp, kBool | kReal, 0) X(scatter_add, kNumeric, 0) X(pad, kAny, 0)                      \
  X(take_along_axis, kAny, 0) X(gather, kAny, 0) X(index_select, kAny, 0)                     \
  X(tril, kAny, 0) X(triu, kAny, 0) X(embed_diag, kAny, 0) X(convert, kAny, 0)               \
  X(cast, kAny, 0) X(reshape, kAny, 0) X(permute, kAny, 0) X(transpose, kAny, 0)              \
  X(broadcast_to, kAny, 0) X(expand, kAny, 0) X(slice, kAny, 0) X(split, kAny, 0)             \
  X(squeeze, kAny, 0) X(unsqueeze, kAny, 0) X(reverse, kAny, 0) X(diagonal, kAny, 0)
// clang-format on
