// The direct ops by catalog enumerator: what a Tensor method of that row runs. The front doors
// (eager sessions, graph nodes, the AD builders) call these instead of keeping tables of method
// pointers, so a new row needs no wiring outside the catalog.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ops/fft_spec.hpp"
#include "ops/reduction_catalog.hpp"
#include "tensora/tensor.hpp"

namespace tensora::direct {

Tensor binary(BinaryOp op, const Tensor& a, const Tensor& b, Engine& engine, SourceLocation where);
Tensor unary(UnaryOp op, const Tensor& x, Engine& engine, SourceLocation where);
// Axes-form reductions (sum, mean, var, ...).
Tensor reduce(Reduction op, const Tensor& x, const std::vector<std::int64_t>& axes, const ReduceOptions& options,
              Engine& engine, SourceLocation where);
// argmax / argmin along `axis`, or over the column-major flattening without one.
Tensor reduce_axis(Reduction op, const Tensor& x, std::optional<std::int64_t> axis, const ReduceOptions& options,
                   Engine& engine, SourceLocation where);
// cumsum / cumprod.
Tensor scan(Reduction op, const Tensor& x, std::int64_t axis, Engine& engine, SourceLocation where);
// softmax / log_softmax.
Tensor axis_op(AxisOp op, const Tensor& x, std::int64_t axis, Engine& engine, SourceLocation where);
// The FFT primitive: `x` has the spec's input dtype and extents (fft_detail::lower gets it there).
Tensor fft_transform(const Tensor& x, const fft_detail::Spec& spec, Engine& engine, SourceLocation where);

// lu_factor's pivots (batch..., k; I32, 1-based row interchanges) as permutation matrices
// (batch..., m, m) in `dtype`, with a = p l u. A pivot outside [1, m] is an InvalidArgument
// naming "pivots" (in op `op`).
Tensor lu_permutation(const char* op, const Tensor& pivots, std::int64_t m, DType dtype, Engine& engine,
                      SourceLocation where);
// The inverse: the k pivots (I32, 1-based) whose interchanges give the permutation matrices `p`
// (batch..., m, m; entries 0 and 1 in any dtype), equal to LAPACK's: its k-th interchange never
// moves rows above k. A traced lu_factor reads its pivots from its `p` instead of factoring again.
Tensor lu_pivots_of_permutation(const Tensor& p, std::int64_t k, Engine& engine, SourceLocation where);

}  // namespace tensora::direct
