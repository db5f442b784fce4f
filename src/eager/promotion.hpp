// Internals of the promotion plan shared by the eager session (src/eager/promotion.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ops/elementwise_catalog.hpp"
#include "tensora/device.hpp"
#include "tensora/dtype.hpp"
#include "tensora/error.hpp"
#include "tensora/scalar.hpp"

namespace tensora::eager_detail {

struct OpPolicy {
  std::uint8_t accepts;  // KindMask of the op's inputs
  std::size_t fixed;     // leading operands that keep their dtype (select's predicate)
};

namespace promotion_detail {
struct NamedPolicy {
  std::string_view name;
  OpPolicy policy;
};
// Non-elementwise ops (elementwise ones come from the catalog). `accepts` uses the catalog's
// kind masks; views and other dtype-preserving ops accept everything.
inline constexpr NamedPolicy kOtherPolicies[] = {
    {"sum", {kNumeric, 0}},
    {"prod", {kNumeric, 0}},
    {"mean", {kInexact, 0}},
    {"max", {kBool | kReal, 0}},
    {"min", {kBool | kReal, 0}},
    {"logsumexp", {kFloat, 0}},
    {"var", {kInexact, 0}},
    {"std", {kInexact, 0}},
    {"all", {kAny, 0}},
    {"any", {kAny, 0}},
    {"argmax", {kBool | kReal, 0}},
    {"argmin", {kBool | kReal, 0}},
    {"cumsum", {kNumeric, 0}},
    {"cumprod", {kNumeric, 0}},
    {"matmul", {kNumeric, 0}},
    {"dot_general", {kNumeric, 0}},
    {"einsum", {kNumeric, 0}},
    {"concat", {kAny, 0}},
    {"stack", {kAny, 0}},
    {"select", {kAny, 1}},
    {"where", {kAny, 1}},
    {"clamp", {kBool | kReal, 0}},
    {"scatter_add", {kNumeric, 0}},
    {"pad", {kAny, 0}},
    {"take_along_axis", {kAny, 0}},
    {"gather", {kAny, 0}},
    {"index_select", {kAny, 0}},
    {"tril", {kAny, 0}},
    {"triu", {kAny, 0}},
    {"embed_diag", {kAny, 0}},
    {"convert", {kAny, 0}},
    {"cast", {kAny, 0}},
    {"reshape", {kAny, 0}},
    {"permute", {kAny, 0}},
    {"transpose", {kAny, 0}},
    {"broadcast_to", {kAny, 0}},
    {"expand", {kAny, 0}},
    {"slice", {kAny, 0}},
    {"split", {kAny, 0}},
    {"squeeze", {kAny, 0}},
    {"unsqueeze", {kAny, 0}},
    {"reverse", {kAny, 0}},
    {"diagonal", {kAny, 0}},
};
}  // namespace promotion_detail

// The policy of an op by its direct name; InvalidArgument for an unknown name.
constexpr OpPolicy policy_of(std::string_view op) {
  for (int i = 0; i < kNumBinaryOps; ++i)
    if (info(static_cast<BinaryOp>(i)).name == op)
      return {info(static_cast<BinaryOp>(i)).accepts, 0};
  for (int i = 0; i < kNumUnaryOps; ++i)
    if (info(static_cast<UnaryOp>(i)).name == op) return {info(static_cast<UnaryOp>(i)).accepts, 0};
  for (const auto& p : promotion_detail::kOtherPolicies)
    if (p.name == op) return p.policy;
  throw Error(ErrorKind::InvalidArgument, "eager_input_promotion_plan",
              "unknown op '" + std::string(op) + "'", InvalidArgument{"op"});
}
// The same, resolved at compile time (session ops name their op literally).
consteval OpPolicy policy(std::string_view op) {
  return policy_of(op);
}
// The target dtype of a join under an op's accepted kinds (F* -> the device's default float).
DType apply_policy(std::uint8_t accepts, LatticeType joined, const Device& device);
// The dtype a tensor takes with a weak scalar of a higher or lower kind, then the op's policy.
DType scalar_target(std::uint8_t accepts, DType tensor, Scalar::Kind scalar, const Device& device);

}  // namespace tensora::eager_detail
