#include "ops/elementwise_catalog.hpp"

namespace tensora {

bool accepts(const ElementwiseInfo& info, DType dtype) { return accepts(info.accepts, dtype); }


}  // namespace tensora
