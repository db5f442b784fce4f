// Batches of small real matrices (n <= kMaxOrder): Cholesky, LU factorization with partial
// pivoting, LU solves and symmetric eigendecomposition (Jacobi), computed a vector's worth of matrices at a time with the batch across
// the lanes, where LAPACK's per-call cost would dominate (docs/linalg.md, "Small matrices").
// Every matrix of such a batch takes this path whatever the batch's size, so a matrix's result
// does not depend on the batch it came in; the results follow LAPACK's (the same pivots, info
// and failure rules, the same gauge) to rounding.
#pragma once

#include <cstdint>
#include <span>

#include "ops/linalg_spec.hpp"
#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora::cpu::small_linalg {

inline constexpr std::int64_t kMaxOrder = 8;

// Whether `call` on (m x n) matrices of `dtype` runs here: F32 or F64, square, n <= kMaxOrder;
// Cholesky, LuFactor, Solve, Eigh and LuSolve without a transpose.
bool handles(const linalg_detail::Call& call, DType dtype, std::int64_t m, std::int64_t n);

// The primitive on matrices [begin, end) of the batch (the driver's contract,
// backend::Backend::linalg); the first failure among them in batch order.
linalg_detail::Status run(const linalg_detail::Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins,
                          std::int64_t begin, std::int64_t end);

// Matrices per group: the driver splits batches at multiples of it.
inline constexpr std::int64_t kGroup = 16;

}  // namespace tensora::cpu::small_linalg
