// Node factories shared by the public TracedTensor methods, the AD builder and the passes.
// They take operands that already have the op's dtype (promotion happens in the public
// methods), infer the result, and build one node that runs the same direct op eager runs.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graph/node.hpp"
#include "ops/fft_spec.hpp"

namespace tensora::graph_detail {

using Loc = SourceLocation;
using Axes = std::vector<std::int64_t>;
using Labels = std::vector<std::int64_t>;

// Every operand is defined and on the first one's device (DeviceMismatch otherwise).
void check_operands(std::string_view op, std::initializer_list<const TracedTensor*> xs, Loc where);

// The meta tensor (no data) with the shape, dtype and device of `x`: view ops (reshape,
// permute, slice, ...) run on it to infer and validate exactly as the direct op does.
Tensor meta_of(const TracedTensor& x);

// The visible convert node of the promotion plan (x itself when it already has `dtype`).
TracedTensor convert_to(const TracedTensor& x, DType dtype, Loc where);
// `x` checked and promoted to a LAPACK dtype (ops/lapack_dtypes.hpp): the first step of every
// linalg and fft function.
TracedTensor lapack_operand(std::string_view op, const TracedTensor& x, Loc where);
// A constant node holding `value`.
TracedTensor constant_node(const Tensor& value, Loc where);
// A 0-d constant holding a weak scalar in `dtype` (the value must fit, as in the direct ops).
TracedTensor scalar_constant(std::string_view op, const Scalar& value, DType dtype, Device device, Loc where);
// Zeros of a shape, made when the program runs (not stored in the program).
TracedTensor zeros_node(const Shape& shape, DType dtype, Device device, Loc where);
// A 1-D I64 constant.
TracedTensor indices_constant(const std::vector<std::int64_t>& values, Device device, Loc where);

TracedTensor unary_node(UnaryOp op, const TracedTensor& x, Loc where);
TracedTensor binary_node(BinaryOp op, const TracedTensor& a, const TracedTensor& b, Loc where);
TracedTensor select_node(const TracedTensor& pred, const TracedTensor& a, const TracedTensor& b, Loc where);
TracedTensor convert_node(const TracedTensor& x, DType dtype, Loc where);
TracedTensor cast_node(const TracedTensor& x, DType dtype, Loc where);
TracedTensor permute_node(const TracedTensor& x, Axes axes, Loc where);
TracedTensor dot_general_node(const TracedTensor& lhs, const TracedTensor& rhs, DotGeneralConfig config,
                              Loc where);
// einsum over integer labels (the AD rules' form).
TracedTensor einsum_labels(std::vector<Labels> inputs, Labels output, std::vector<TracedTensor> operands,
                           Loc where);
TracedTensor sum_node(const TracedTensor& x, Axes axes, bool keepdims, Loc where);
// The FFT primitive (x already has the spec's input dtype and extents).
TracedTensor fft_node(const TracedTensor& x, const fft_detail::Spec& spec, Loc where);
// A factor the linalg rules need (graph/traced_linalg.cpp); not differentiable itself.
enum class LinalgFactor : std::uint8_t { EighVectors, SvdU, SvdVh };
TracedTensor linalg_factor_node(const TracedTensor& a, LinalgFactor factor, bool upper, Loc where);
// x, passed through once frontdoor::check_phase_gauge accepted residual and scale at run time
// (the complex gauge check of the eigh / svd rules); cotangents pass through to x.
TracedTensor gauge_check_node(const TracedTensor& x, const TracedTensor& residual, const TracedTensor& scale,
                              std::string_view op, Loc where);

// Text helpers for node attributes.
std::string axes_text(std::span<const std::int64_t> v);

}  // namespace tensora::graph_detail
