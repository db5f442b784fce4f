// The CPU backend's linear algebra: each matrix of the batch is copied into a dense
// column-major buffer, handed to one LAPACK routine (cpu/lapack.hpp) on one thread, gauged
// (ops/linalg_gauge.hpp) and copied out. The engine's threads split the batch, and the pieces
// of one large LU, LU solve or Cholesky (cpu/blocked_factor.hpp); a matrix's result does not
// depend on which thread ran it, so serial and parallel engines agree bitwise.
#pragma once

#include <span>

#include "ops/linalg_spec.hpp"
#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora::cpu {

linalg_detail::Status run_linalg(const linalg_detail::Call& call, std::span<const Tensor> outs,
                                 std::span<const Tensor> ins, Engine& engine);

}  // namespace tensora::cpu
