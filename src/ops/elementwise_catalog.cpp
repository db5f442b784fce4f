#include "ops/elementwise_catalog.hpp"

namespace tensora {

bool accepts(const ElementwiseInfo& info, DType dtype) {
  return (info.accepts & kind_bit(kind(dtype))) != 0;
}

DType result_dtype(const ElementwiseInfo& info, DType input) {
  switch (info.result) {
    case ResultRule::Same: return input;
    case ResultRule::Bool: return DType::Bool;
    case ResultRule::Real: return real_dtype(input);
  }
  return input;
}

}  // namespace tensora
