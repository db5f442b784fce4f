// Checks every op makes at the API boundary, before any allocation or kernel. They are the
// same in Debug and Release builds.
#pragma once

#include <initializer_list>
#include <string_view>

#include "core/checks.hpp"
#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora::validate {

// Raises the first failure of operands() below (out of line: only reached on bad input).
[[noreturn]] void fail_operands(std::string_view op, Engine& engine, std::initializer_list<const Tensor*> tensors,
                                SourceLocation where);
// Every operand is defined, all share one device, and the engine runs on that device. Inline,
// as one pass of compares: every direct op asks, tiny ones would feel a call per check.
inline void operands(std::string_view op, Engine& engine, std::initializer_list<const Tensor*> tensors,
                     SourceLocation where) {
  const Device device = engine.device();
  bool ok = true;
  for (const Tensor* t : tensors) ok = ok && t->defined() && !t->is_meta() && t->device() == device;
  if (!ok) [[unlikely]] fail_operands(op, engine, tensors, where);
}
// Every operand has the first operand's dtype.
void same_dtypes(std::string_view op, std::initializer_list<const Tensor*> tensors,
                 SourceLocation where);
// A destination for `_into`: defined, on the operands' device, with the expected dtype and
// shape, no internal overlap (zero strides), and no overlap with an input unless it is the
// very same view (elementwise ops may then run in place).
void destination(std::string_view op, const Tensor& dest, DType dtype, const Shape& shape,
                 Device device, std::initializer_list<const Tensor*> inputs, SourceLocation where);
// The weak-scalar rule for direct ops: a 0-d tensor of `dtype` holding `value`, or an error
// naming the scalar, the dtype and the fix.
Tensor weak_scalar(std::string_view op, const Scalar& value, DType dtype, Device device,
                   SourceLocation where);

}  // namespace tensora::validate
