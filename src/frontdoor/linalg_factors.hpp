// Factorizations with several results (eigh, svd, qr) in the eager and traced front doors. The
// tape and the graph have one result per node, and a factorization's rule needs every factor
// and every cotangent at once (the complex gauge check of svd adds U's and V's terms). So the
// factors are packed side by side along one last axis into a single value of a's dtype, the
// node's result; the front door hands out views of it (recorded slices and reshapes, so each
// factor's cotangent flows back into the packed one), and the rule unpacks the same way. Real
// factors (eigenvalues, singular values) travel as a's dtype and come out through `real`.
//
// A part of m x n matrices over a batch B occupies m * n entries of the packed axis: the packed
// value is (B..., total) and the part is its slice reshaped to (B..., m, n) (column-major, so the
// slice of a fresh packed tensor is a view).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "ops/elementwise_catalog.hpp"
#include "ops/linalg_spec.hpp"
#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora::frontdoor {

struct PackedPart {
  Shape tail;         // the part's own extents after the batch: {n} for a vector, {m, n}
  bool real = false;  // a real factor of a complex decomposition
};

struct PackedLayout {
  Shape batch;
  std::vector<PackedPart> parts;
  bool complex = false;  // the factors are complex for a real a too (eig)

  // The dtype of the packed value of a factorization of an `a` of dtype `a`.
  DType packed_dtype(DType a) const { return complex ? complex_dtype(a) : a; }

  std::int64_t size(std::size_t i) const {
    std::int64_t s = 1;
    for (auto e : parts[i].tail) s *= e;
    return s;
  }
  std::int64_t offset(std::size_t i) const {
    std::int64_t o = 0;
    for (std::size_t j = 0; j < i; ++j) o += size(j);
    return o;
  }
  Shape full_shape(std::size_t i) const {
    Shape s = batch;
    s.insert(s.end(), parts[i].tail.begin(), parts[i].tail.end());
    return s;
  }
  Shape packed_shape() const {
    Shape s = batch;
    s.push_back(offset(parts.size()));
    return s;
  }
};

// The layouts of the differentiable factorizations of an (..., m, n) matrix a.
//   eigh: {w (n, real), v (n x n)}
//   eig:  {w (n), v (n x n)}, both complex (the packed value is complex for a real a too)
//   svd:  {u (m x k), s (k, real), vh (k x n)}; k is the kept rank (min(m, n) untruncated; m and
//         n for u and vh with full_matrices)
//   qr:   {q (m x kq), r (kq x n)}; kq = min(m, n), m when complete
//   lu:   {p (m x m), l (m x k), u (k x n)}; k = min(m, n)
//   lu_factor: {p (m x m), lu (m x n)}: lu_factor's packed lu, with p for the rule
PackedLayout eigh_layout(const Shape& a);
PackedLayout eig_layout(const Shape& a);
PackedLayout svd_layout(const Shape& a, std::int64_t ku, std::int64_t k, std::int64_t kv);
PackedLayout qr_layout(const Shape& a, std::int64_t kq);
PackedLayout lu_layout(const Shape& a);
PackedLayout lu_factor_layout(const Shape& a);
// The svd layout whose packed axis has `total` entries (the kept rank read back from a packed
// value, for the rule of a truncated svd).
PackedLayout svd_layout_of_total(const Shape& a, std::int64_t total);

// Factors (fresh tensors of the layout's shapes) packed into one tensor of `dtype`.
Tensor pack(const PackedLayout& layout, const std::vector<Tensor>& factors, DType dtype, Engine& engine);

// The factors of a packed value over any builder-like `b` (the AD builders of src/ad/builder.hpp:
// slice, reshape, unary; the rules use it on values and cotangents).
template <class B, class V>
std::vector<V> unpack(B& b, const V& packed, const PackedLayout& layout) {
  std::vector<V> out;
  const bool complex = is_complex(b.dtype(packed));
  for (std::size_t i = 0; i < layout.parts.size(); ++i) {
    const std::int64_t start = layout.offset(i);
    V part = b.reshape(b.slice(packed, -1, start, start + layout.size(i), 1), layout.full_shape(i));
    if (layout.parts[i].real && complex) part = b.unary(UnaryOp::Real, part);
    out.push_back(std::move(part));
  }
  return out;
}

// The inverse of unpack over a builder: the packed tangent of a rule's jvp.
template <class B, class V>
V pack(B& b, const PackedLayout& layout, const std::vector<V>& factors, DType dtype) {
  std::vector<V> flat;
  for (std::size_t i = 0; i < layout.parts.size(); ++i) {
    Shape s = layout.batch;
    s.push_back(layout.size(i));
    flat.push_back(b.reshape(b.cast(factors[i], dtype), s));
  }
  return b.concat(std::move(flat), -1);
}

// The complex gauge check of the eigh / svd rules: a loss that is invariant under the phase of
// each eigenvector (singular vector pair) has residual[..., j] = Im(v_j^H gv_j [+ u_j^H gu_j])
// = 0. Throws LinAlgError naming the first matrix of the batch whose residual exceeds
// sqrt(eps) times its cotangent's size `scale` (..., 1). PyTorch reports the same condition.
void check_phase_gauge(std::string_view op, const Tensor& residual, const Tensor& scale, Engine& engine,
                       SourceLocation where);

}  // namespace tensora::frontdoor
