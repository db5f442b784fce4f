#include "ops/elementwise_catalog.hpp"

namespace tensora {

bool accepts(const ElementwiseInfo& info, DType dtype) { return accepts(info.accepts, dtype); }

DType result_dtype(ResultRule rule, DType input) {
  switch (rule) {
    case ResultRule::Same: return input;
    case ResultRule::Bool: return DType::Bool;
    case ResultRule::Real: return real_dtype(input);
    case ResultRule::Index: return DType::I64;
  }
  return input;
}

DType result_dtype(const ElementwiseInfo& info, DType input) { return result_dtype(info.result, input); }

}  // namespace tensora
