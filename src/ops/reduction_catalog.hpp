// The reductions, scans and axis normalizations, expanded from their catalog rows
// (tensora/op_catalog.hpp): one enum and one info table that the direct ops, the promotion
// plan and the AD rules all read, and the promotion policies of the remaining ops.
#pragma once

#include <array>
#include <span>
#include <cstdint>
#include <string_view>

#include "ops/elementwise_catalog.hpp"

namespace tensora {

enum class Reduction : std::uint8_t { TENSORA_REDUCTIONS(TENSORA_ENUMERATOR) };
enum class AxisOp : std::uint8_t { TENSORA_AXIS_OPS(TENSORA_ENUMERATOR) };
inline constexpr int kNumReductions = 0 TENSORA_REDUCTIONS(TENSORA_COUNT);
inline constexpr int kNumAxisOps = 0 TENSORA_AXIS_OPS(TENSORA_COUNT);

// The call shape of a reduction (see op_catalog.hpp).
enum class ReductionForm : std::uint8_t { Axes, Axis, Scan };

struct ReductionInfo {
  std::string_view name;
  std::uint8_t accepts;  // KindMask
  ResultRule result;
  AdRule ad;
  ReductionForm form;
  bool needs_identity;  // an empty reduced axis is an error (max, min, argmax, argmin)
  std::string_view hint;
};

// The promotion policy of an op that is not elementwise: the kinds it accepts and how many
// leading operands keep their dtype.
struct OtherOpInfo {
  std::string_view name;
  std::uint8_t accepts;
  std::size_t fixed;
};

namespace catalog_detail {
#define TENSORA_REDUCTION_INFO(name, Enum, accepts, result, ad, form, empty, hint) \
  ReductionInfo{#name, accepts, ResultRule::result, AdRule::ad, ReductionForm::form, empty, hint},
inline constexpr std::array<ReductionInfo, kNumReductions> kReductionInfo = {
    {TENSORA_REDUCTIONS(TENSORA_REDUCTION_INFO)}};
#undef TENSORA_REDUCTION_INFO
#define TENSORA_AXIS_INFO(name, Enum, accepts, result, ad, hint) \
  ElementwiseInfo{#name, accepts, ResultRule::result, AdRule::ad, hint},
inline constexpr std::array<ElementwiseInfo, kNumAxisOps> kAxisInfo = {{TENSORA_AXIS_OPS(TENSORA_AXIS_INFO)}};
#undef TENSORA_AXIS_INFO
#define TENSORA_OTHER_INFO(name, accepts, fixed) OtherOpInfo{#name, accepts, fixed},
inline constexpr OtherOpInfo kOtherInfo[] = {TENSORA_OTHER_OPS(TENSORA_OTHER_INFO)};
#undef TENSORA_OTHER_INFO
}  // namespace catalog_detail

constexpr const ReductionInfo& info(Reduction op) {
  return catalog_detail::kReductionInfo[static_cast<std::size_t>(op)];
}
constexpr const ElementwiseInfo& info(AxisOp op) { return catalog_detail::kAxisInfo[static_cast<std::size_t>(op)]; }
constexpr std::span<const OtherOpInfo> other_ops() { return catalog_detail::kOtherInfo; }

static_assert(info(Reduction::Sum).name == "sum" && info(Reduction::CumProd).name == "cumprod");
static_assert(info(AxisOp::LogSoftmax).name == "log_softmax");

}  // namespace tensora
