// The front-door layer below eager and traced: the promotion plan (each op's policy from its
// catalog row, the lattice join, weak scalars). Both front doors convert their inputs by it, so
// their wiring of an op is the same (src/frontdoor/promotion.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ops/reduction_catalog.hpp"
#include "tensora/device.hpp"
#include "tensora/dtype.hpp"
#include "tensora/error.hpp"
#include "tensora/scalar.hpp"

namespace tensora::frontdoor {

struct OpPolicy {
  std::uint8_t accepts;  // KindMask of the op's inputs
  std::size_t fixed;     // leading operands that keep their dtype (select's predicate)
};

// The policy of an op by its direct name, from its catalog row; InvalidArgument for an unknown
// name.
constexpr OpPolicy policy_of(std::string_view op) {
  for (int i = 0; i < kNumBinaryOps; ++i)
    if (info(static_cast<BinaryOp>(i)).name == op) return {info(static_cast<BinaryOp>(i)).accepts, 0};
  for (int i = 0; i < kNumUnaryOps; ++i)
    if (info(static_cast<UnaryOp>(i)).name == op) return {info(static_cast<UnaryOp>(i)).accepts, 0};
  for (int i = 0; i < kNumReductions; ++i)
    if (info(static_cast<Reduction>(i)).name == op) return {info(static_cast<Reduction>(i)).accepts, 0};
  for (int i = 0; i < kNumAxisOps; ++i)
    if (info(static_cast<AxisOp>(i)).name == op) return {info(static_cast<AxisOp>(i)).accepts, 0};
  for (const auto& p : other_ops())
    if (p.name == op) return {p.accepts, p.fixed};
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

}  // namespace tensora::frontdoor
