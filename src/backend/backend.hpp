// The backend seam: every kernel the op layer runs, by family. An engine owns the choice of
// backend (Engine::backend()); the op layer validates, allocates and then makes one call here
// per op. Kernels assume validated input: shapes agree (elementwise inputs are already
// broadcast to the output's shape), dtypes are accepted, outputs are allocated or checked
// destinations. Every entry takes the engine the op runs on, for its device and threads.
// docs/architecture.md lists who implements what.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "backend/fused_program.hpp"
#include "ops/fft_spec.hpp"
#include "ops/linalg_spec.hpp"
#include "ops/elementwise_catalog.hpp"
#include "ops/reduce_ops.hpp"
#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora::backend {

// Normalized (non-negative), validated dot_general dims. lhs_free / rhs_free are increasing.
struct ContractionDims {
  std::vector<std::int64_t> lhs_batch, lhs_free, lhs_contract;
  std::vector<std::int64_t> rhs_batch, rhs_contract, rhs_free;
};

// Whether an elementwise output was just allocated (column-major, seen by nobody else), so a
// backend may fill it in any order, or is a caller's view (a destination, an in-place update).
enum class Output : std::uint8_t { Given, Fresh };

class Backend {
 public:
  virtual ~Backend() = default;

  // ---- elementwise ---------------------------------------------------------------------
  virtual void binary(BinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b, Output kind,
                      Engine& engine) = 0;
  virtual void unary(UnaryOp op, const Tensor& out, const Tensor& in, Output kind, Engine& engine) = 0;
  // out = pred ? a : b.
  virtual void select(const Tensor& out, const Tensor& pred, const Tensor& a, const Tensor& b, Engine& engine) = 0;
  // True when any element of `t` is zero (the integer division check).
  virtual bool any_zero(const Tensor& t, Engine& engine) = 0;

  // ---- copy / cast ---------------------------------------------------------------------
  // Same dtype and shape, any strides, no overlap.
  virtual void copy(const Tensor& out, const Tensor& in, Engine& engine) = 0;
  // Elementwise conversion with cast_value semantics (convert and cast both land here).
  virtual void cast(const Tensor& out, const Tensor& in, Engine& engine) = 0;

  // ---- reduce --------------------------------------------------------------------------
  // `x` is permuted so its first `kept` axes are kept and the rest reduced; `out` is dense
  // with the kept extents.
  virtual void reduce(ReduceOp op, const Tensor& out, const Tensor& x, std::int64_t kept, Engine& engine) = 0;
  // Index of the first max (min) along x's last axis (a NaN wins); out is I64.
  virtual void arg_extreme(bool max, const Tensor& out, const Tensor& x, Engine& engine) = 0;
  // Running sum (product) along `axis`, rounded from the accumulator at every step.
  virtual void scan(bool product, const Tensor& out, const Tensor& x, std::int64_t axis, Engine& engine) = 0;

  // ---- structural ----------------------------------------------------------------------
  // Every element of `out` = the element at `value` (out's dtype).
  virtual void fill(const Tensor& out, const void* value, Engine& engine) = 0;
  // The first index (I32/I64) outside [-extent, extent) in column-major order; nullopt if none.
  virtual std::optional<std::int64_t> find_out_of_range(const Tensor& indices, std::int64_t extent,
                                                        Engine& engine) = 0;
  // out[p] = src[p + normalize(idx[p]) * axis_stride]; src has stride 0 on the gathered axis.
  virtual void take_along(const Tensor& out, const Tensor& src, const Tensor& idx, std::int64_t axis_stride,
                          std::int64_t extent, Engine& engine) = 0;
  // out[p + normalize(idx[p + j*idx_stride]) * out_stride] += src[p + j*src_stride], j in
  // [0, length) in increasing order for each position p of the views' common shape.
  virtual void scatter_add(const Tensor& out, const Tensor& idx, const Tensor& src, std::int64_t out_stride,
                           std::int64_t idx_stride, std::int64_t src_stride, std::int64_t length,
                           std::int64_t extent, Engine& engine) = 0;
  // out = in with (i, j) of the last two axes zeroed where j - i > k (lower) or < k (upper).
  virtual void triangle(const Tensor& out, const Tensor& in, std::int64_t k, bool lower, Engine& engine) = 0;

  // ---- contraction ---------------------------------------------------------------------
  // out [batch..., lhs free..., rhs free...] = the contraction; out does not overlap lhs/rhs.
  virtual void dot_general(const Tensor& out, const Tensor& lhs, const Tensor& rhs, const ContractionDims& dims,
                           Engine& engine) = 0;

  // ---- fused program -------------------------------------------------------------------
  // out (program.shape / program.dtype, fresh) = the program over `inputs` (one per external
  // input, broadcastable to program.shape). Results equal running the steps one by one.
  virtual void run_fused(const FusedProgram& program, std::span<const Tensor> inputs, const Tensor& out,
                         Engine& engine) = 0;

  // ---- fft -----------------------------------------------------------------------------
  // out = spec.scale * the unnormalized transform (spec.kind) of `in` over spec.axes; `in` has
  // the spec's input extents and dtype, `out` the output shape and dtype, any strides; `out` is
  // fresh or (an in-place `_into`) the very same view as `in`, so a line is read whole before
  // it is written. The conj steps of hfft / ihfft are the op layer's (fft_detail::lower).
  virtual void fft(const fft_detail::Spec& spec, const Tensor& out, const Tensor& in, Engine& engine) = 0;

  // ---- linalg --------------------------------------------------------------------------
  // One primitive (ops/linalg_spec.hpp: what each kind reads and writes) per matrix of the
  // batch, in any order; `outs` are fresh, the batch shape of every operand the same. Returns
  // the first failure in batch order (the outputs of the other matrices are still written).
  virtual linalg_detail::Status linalg(const linalg_detail::Call& call, std::span<const Tensor> outs,
                                       std::span<const Tensor> ins, Engine& engine) = 0;
};

}  // namespace tensora::backend
