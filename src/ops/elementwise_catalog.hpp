// The elementwise primitives: one entry each with its name, the dtypes it accepts and the
// dtype it returns. Direct, eager and traced front doors all validate through this table.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "tensora/dtype.hpp"

namespace tensora {

enum class BinaryOp : std::uint8_t {
  Add, Sub, Mul, Div, FloorDiv, Rem, Pow, Maximum, Minimum, Atan2,
  Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor,
};
inline constexpr int kNumBinaryOps = 19;

enum class UnaryOp : std::uint8_t {
  Neg, Abs, Sign, Exp, Expm1, Log, Log1p, Sqrt, Rsqrt, Sin, Cos, Tan, Tanh, Sigmoid, Erf,
  Floor, Ceil, Round, Conj, Real, Imag, LogicalNot, IsNan, IsInf, IsFinite,
};
inline constexpr int kNumUnaryOps = 25;

// Which dtype kinds an op accepts, as a bit set over DTypeKind.
enum KindMask : std::uint8_t {
  kBool = 1 << 0, kSigned = 1 << 1, kUnsigned = 1 << 2, kFloat = 1 << 3, kComplex = 1 << 4,
  kInt = kSigned | kUnsigned,
  kReal = kInt | kFloat,
  kNumeric = kReal | kComplex,
  kInexact = kFloat | kComplex,
  kAny = kBool | kNumeric,
};

// How the result dtype follows the (common) input dtype.
enum class ResultRule : std::uint8_t { Same, Bool, Real };

struct ElementwiseInfo {
  std::string_view name;
  std::uint8_t accepts;  // KindMask
  ResultRule result;
  std::string_view hint;  // the fix suggested when a dtype is not accepted
};

namespace catalog_detail {
inline constexpr std::string_view kUseLogical = "use logical_and/or/xor for Bool";
inline constexpr std::string_view kCastFloat = "cast the tensor to a float dtype first";

inline constexpr std::array<ElementwiseInfo, kNumBinaryOps> kBinaryInfo = {{
    {"add", kNumeric, ResultRule::Same, kUseLogical},
    {"sub", kNumeric, ResultRule::Same, kUseLogical},
    {"mul", kNumeric, ResultRule::Same, kUseLogical},
    {"div", kInexact, ResultRule::Same, "integer division is floor_div; for true division cast to a float dtype first"},
    {"floor_div", kReal, ResultRule::Same, "floor_div is defined for real dtypes"},
    {"rem", kReal, ResultRule::Same, "rem is defined for real dtypes"},
    {"pow", kNumeric, ResultRule::Same, kUseLogical},
    {"maximum", kBool | kReal, ResultRule::Same, "complex numbers are not ordered"},
    {"minimum", kBool | kReal, ResultRule::Same, "complex numbers are not ordered"},
    {"atan2", kFloat, ResultRule::Same, kCastFloat},
    {"eq", kAny, ResultRule::Bool, ""},
    {"ne", kAny, ResultRule::Bool, ""},
    {"lt", kBool | kReal, ResultRule::Bool, "complex numbers are not ordered"},
    {"le", kBool | kReal, ResultRule::Bool, "complex numbers are not ordered"},
    {"gt", kBool | kReal, ResultRule::Bool, "complex numbers are not ordered"},
    {"ge", kBool | kReal, ResultRule::Bool, "complex numbers are not ordered"},
    {"logical_and", kAny, ResultRule::Bool, ""},
    {"logical_or", kAny, ResultRule::Bool, ""},
    {"logical_xor", kAny, ResultRule::Bool, ""},
}};

inline constexpr std::array<ElementwiseInfo, kNumUnaryOps> kUnaryInfo = {{
    {"neg", kNumeric, ResultRule::Same, "use logical_not for Bool"},
    {"abs", kNumeric, ResultRule::Real, "use the tensor as is for Bool"},
    {"sign", kNumeric, ResultRule::Same, ""},
    {"exp", kInexact, ResultRule::Same, kCastFloat},
    {"expm1", kFloat, ResultRule::Same, kCastFloat},
    {"log", kInexact, ResultRule::Same, kCastFloat},
    {"log1p", kFloat, ResultRule::Same, kCastFloat},
    {"sqrt", kInexact, ResultRule::Same, kCastFloat},
    {"rsqrt", kFloat, ResultRule::Same, kCastFloat},
    {"sin", kInexact, ResultRule::Same, kCastFloat},
    {"cos", kInexact, ResultRule::Same, kCastFloat},
    {"tan", kInexact, ResultRule::Same, kCastFloat},
    {"tanh", kInexact, ResultRule::Same, kCastFloat},
    {"sigmoid", kFloat, ResultRule::Same, kCastFloat},
    {"erf", kFloat, ResultRule::Same, kCastFloat},
    {"floor", kReal, ResultRule::Same, "complex numbers have no floor"},
    {"ceil", kReal, ResultRule::Same, "complex numbers have no ceil"},
    {"round", kReal, ResultRule::Same, "complex numbers have no round"},
    {"conj", kNumeric, ResultRule::Same, ""},
    {"real", kNumeric, ResultRule::Real, ""},
    {"imag", kNumeric, ResultRule::Real, ""},
    {"logical_not", kAny, ResultRule::Bool, ""},
    {"isnan", kAny, ResultRule::Bool, ""},
    {"isinf", kAny, ResultRule::Bool, ""},
    {"isfinite", kAny, ResultRule::Bool, ""},
}};

}  // namespace catalog_detail

constexpr const ElementwiseInfo& info(BinaryOp op) {
  return catalog_detail::kBinaryInfo[static_cast<std::size_t>(op)];
}
constexpr const ElementwiseInfo& info(UnaryOp op) {
  return catalog_detail::kUnaryInfo[static_cast<std::size_t>(op)];
}

// The KindMask bit of a dtype.
constexpr std::uint8_t kind_bit(DTypeKind k) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(k)); }

bool accepts(const ElementwiseInfo& info, DType dtype);
DType result_dtype(const ElementwiseInfo& info, DType input);

}  // namespace tensora
