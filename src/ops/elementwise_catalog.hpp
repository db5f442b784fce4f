// The elementwise primitives, expanded from their catalog rows (tensora/op_catalog.hpp): the
// enums and the info table that direct, eager and traced validate through.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "tensora/dtype.hpp"
#include "tensora/op_catalog.hpp"

namespace tensora {

#define TENSORA_ENUMERATOR(name, Enum, ...) Enum,
#define TENSORA_COUNT(...) +1
enum class BinaryOp : std::uint8_t { TENSORA_BINARY_OPS(TENSORA_ENUMERATOR) };
enum class UnaryOp : std::uint8_t { TENSORA_UNARY_OPS(TENSORA_ENUMERATOR) };
inline constexpr int kNumBinaryOps = 0 TENSORA_BINARY_OPS(TENSORA_COUNT);
inline constexpr int kNumUnaryOps = 0 TENSORA_UNARY_OPS(TENSORA_COUNT);

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
enum class ResultRule : std::uint8_t { Same, Bool, Real, Index };
// Whether an op has a derivative rule (see the catalog's `ad` column).
enum class AdRule : std::uint8_t { Smooth, ComplexOnly, None };

struct ElementwiseInfo {
  std::string_view name;
  std::uint8_t accepts;  // KindMask
  ResultRule result;
  AdRule ad;
  std::string_view hint;  // the fix suggested when a dtype is not accepted
};

namespace catalog_detail {
// Hints that several rows share.
inline constexpr std::string_view kUseLogical = "use logical_and/or/xor for Bool";
inline constexpr std::string_view kCastFloat = "cast the tensor to a float dtype first";
inline constexpr std::string_view kUnordered = "complex numbers are not ordered";

#define TENSORA_ELEMENTWISE_INFO(name, Enum, accepts, result, ad, hint) \
  ElementwiseInfo{#name, accepts, ResultRule::result, AdRule::ad, hint},
inline constexpr std::array<ElementwiseInfo, kNumBinaryOps> kBinaryInfo = {
    {TENSORA_BINARY_OPS(TENSORA_ELEMENTWISE_INFO)}};
inline constexpr std::array<ElementwiseInfo, kNumUnaryOps> kUnaryInfo = {
    {TENSORA_UNARY_OPS(TENSORA_ELEMENTWISE_INFO)}};
#undef TENSORA_ELEMENTWISE_INFO
}  // namespace catalog_detail

constexpr const ElementwiseInfo& info(BinaryOp op) {
  return catalog_detail::kBinaryInfo[static_cast<std::size_t>(op)];
}
constexpr const ElementwiseInfo& info(UnaryOp op) {
  return catalog_detail::kUnaryInfo[static_cast<std::size_t>(op)];
}

// The table and the enum come from one list; a row in the wrong place would show here.
static_assert(info(BinaryOp::Add).name == "add" && info(BinaryOp::LogicalXor).name == "logical_xor");
static_assert(info(UnaryOp::Neg).name == "neg" && info(UnaryOp::IsFinite).name == "isfinite");

// The KindMask bit of a dtype.
constexpr std::uint8_t kind_bit(DTypeKind k) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(k)); }

constexpr bool accepts(std::uint8_t mask, DType dtype) { return (mask & kind_bit(kind(dtype))) != 0; }
constexpr bool accepts(const ElementwiseInfo& info, DType dtype) { return accepts(info.accepts, dtype); }
// Inline: every direct op asks, and the answer is one switch.
inline DType result_dtype(ResultRule rule, DType input) {
  switch (rule) {
    case ResultRule::Same: return input;
    case ResultRule::Bool: return DType::Bool;
    case ResultRule::Real: return real_dtype(input);
    case ResultRule::Index: return DType::I64;
  }
  return input;
}
inline DType result_dtype(const ElementwiseInfo& info, DType input) { return result_dtype(info.result, input); }

}  // namespace tensora
