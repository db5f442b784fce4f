// The promotion plan of eager (and traced) ops: the lattice join of the inputs, then the op's
// own policy, derived from the elementwise catalog where the op is elementwise.
#include <array>
#include <string>

#include "frontdoor/promotion.hpp"
#include "ops/elementwise_catalog.hpp"
#include "tensora/eager.hpp"

namespace tensora {

namespace frontdoor {

DType apply_policy(std::uint8_t accepts, LatticeType joined, const Device& device) {
  if (!joined.is_float_bottom()) {
    const DType d = joined.resolve(DType::F32);
    if (accepts & kind_bit(kind(d))) return d;  // the common case: no settings lookup
  }
  const DeviceSettings s = device.settings();
  const DType d = joined.resolve(s.float_dtype);
  const DTypeKind k = kind(d);
  if (accepts & kind_bit(k)) return d;
  if (k == DTypeKind::Bool && (accepts & kInt)) return s.int_dtype;  // True + True = 2
  if ((k == DTypeKind::Bool || is_integer(d)) && (accepts & kFloat)) return s.float_dtype;
  return d;  // not acceptable either way: the direct op names the problem and the fix
}

}  // namespace frontdoor

std::vector<DType> eager_input_promotion_plan(std::string_view op, const std::vector<DType>& dtypes,
                                              Device device) {
  const auto policy = frontdoor::policy_of(op);
  std::vector<DType> out = dtypes;
  if (dtypes.size() <= policy.fixed) return out;
  LatticeType j = dtypes[policy.fixed];
  for (std::size_t i = policy.fixed + 1; i < dtypes.size(); ++i) j = join(j, dtypes[i]);
  const DType target = frontdoor::apply_policy(policy.accepts, j, device);
  for (std::size_t i = policy.fixed; i < dtypes.size(); ++i) out[i] = target;
  return out;
}

std::vector<DType> eager_input_promotion_plan(std::string_view op,
                                              const std::vector<DType>& dtypes) {
  return eager_input_promotion_plan(op, dtypes, Device::default_device());
}

DType eager_scalar_promotion(std::string_view op, DType tensor, Scalar::Kind scalar,
                             Device device) {
  return frontdoor::scalar_target(frontdoor::policy_of(op).accepts, tensor, scalar, device);
}

namespace frontdoor {

DType scalar_target(std::uint8_t accepts, DType tensor, Scalar::Kind scalar, const Device& device) {
  DType d = tensor;
  if (static_cast<int>(scalar) > static_cast<int>(scalar_kind(tensor))) {
    const DeviceSettings s = device.settings();
    switch (scalar) {
      case Scalar::Kind::Int:
        d = s.int_dtype;
        break;
      case Scalar::Kind::Float:
        d = s.float_dtype;
        break;
      default:
        d = is_floating(tensor) ? complex_dtype(tensor) : s.complex_dtype();
        break;
    }
  }
  return apply_policy(accepts, d, device);
}

}  // namespace frontdoor

}  // namespace tensora
