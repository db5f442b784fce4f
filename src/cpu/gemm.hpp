// The CPU side of dot_general: folds the operands' dims into batched matrix products,
// picks a path (BLAS, batched tiny-product kernel, generic kernel) and runs it on the engine
// with a fixed blocking, so serial and parallel engines give bitwise identical results.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/backend.hpp"
#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora::cpu {

using backend::ContractionDims;

// out (shape [batch..., lhs free..., rhs free...], out's dtype = the operands') = the
// contraction. `out` may have any strides but must not overlap lhs or rhs.
void dot_general(const Tensor& out, const Tensor& lhs, const Tensor& rhs, const ContractionDims& dims,
                 Engine& engine);

// The smallest m*n*k of one real / complex product that goes to the BLAS (defaults 80^3 and
// 24^3). Tests lower them to reach the BLAS path with small operands; returns the old values.
struct BlasThresholds {
  double real, complex;
};
BlasThresholds set_blas_thresholds(BlasThresholds thresholds);

// Which path a product of these sizes takes (for tests and benchmarks): "blas", "lanes" or
// "generic".
const char* contraction_path(DType dtype, std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k);

}  // namespace tensora::cpu
