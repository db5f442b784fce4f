// The direct op of a catalog row, for eager sessions and the AD builders.
#pragma once

#include "ops/direct.hpp"

namespace tensora::eager_detail {

inline Tensor run_binary(BinaryOp op, const Tensor& a, const Tensor& b, Engine& e,
                         SourceLocation where = SourceLocation::current()) {
  return direct::binary(op, a, b, e, where);
}
inline Tensor run_unary(UnaryOp op, const Tensor& x, Engine& e,
                        SourceLocation where = SourceLocation::current()) {
  return direct::unary(op, x, e, where);
}

}  // namespace tensora::eager_detail
