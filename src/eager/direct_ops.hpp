// The direct Tensor methods of the elementwise catalog, indexed by BinaryOp / UnaryOp, so eager
// and the AD builder dispatch through one table instead of a switch per call site.
#pragma once

#include <array>

#include "ops/elementwise_catalog.hpp"
#include "tensora/tensor.hpp"

namespace tensora::eager_detail {

using BinaryMethod = Tensor (Tensor::*)(const Tensor&, Engine&, SourceLocation) const;
using UnaryMethod = Tensor (Tensor::*)(Engine&, SourceLocation) const;

#define TENSORA_B(m) static_cast<BinaryMethod>(&Tensor::m)
inline constexpr std::array<BinaryMethod, kNumBinaryOps> kBinaryMethods = {
    TENSORA_B(add),         TENSORA_B(sub),        TENSORA_B(mul),        TENSORA_B(div),
    TENSORA_B(floor_div),   TENSORA_B(rem),        TENSORA_B(pow),        TENSORA_B(maximum),
    TENSORA_B(minimum),     TENSORA_B(atan2),      TENSORA_B(eq),         TENSORA_B(ne),
    TENSORA_B(lt),          TENSORA_B(le),         TENSORA_B(gt),         TENSORA_B(ge),
    TENSORA_B(logical_and), TENSORA_B(logical_or), TENSORA_B(logical_xor)};
#undef TENSORA_B

#define TENSORA_U(m) static_cast<UnaryMethod>(&Tensor::m)
inline constexpr std::array<UnaryMethod, kNumUnaryOps> kUnaryMethods = {
    TENSORA_U(neg),     TENSORA_U(abs),         TENSORA_U(sign),  TENSORA_U(exp),
    TENSORA_U(expm1),   TENSORA_U(log),         TENSORA_U(log1p), TENSORA_U(sqrt),
    TENSORA_U(rsqrt),   TENSORA_U(sin),         TENSORA_U(cos),   TENSORA_U(tan),
    TENSORA_U(tanh),    TENSORA_U(sigmoid),     TENSORA_U(erf),   TENSORA_U(floor),
    TENSORA_U(ceil),    TENSORA_U(round),       TENSORA_U(conj),  TENSORA_U(real),
    TENSORA_U(imag),    TENSORA_U(logical_not), TENSORA_U(isnan), TENSORA_U(isinf),
    TENSORA_U(isfinite)};
#undef TENSORA_U

inline Tensor run_binary(BinaryOp op, const Tensor& a, const Tensor& b, Engine& e,
                         SourceLocation where = SourceLocation::current()) {
  return (a.*kBinaryMethods[static_cast<std::size_t>(op)])(b, e, where);
}
inline Tensor run_unary(UnaryOp op, const Tensor& x, Engine& e,
                        SourceLocation where = SourceLocation::current()) {
  return (x.*kUnaryMethods[static_cast<std::size_t>(op)])(e, where);
}

}  // namespace tensora::eager_detail
