// The linalg functions that are compositions of other ops (norms, pinv, lstsq), written once for
// the eager and traced front doors over their common tensor methods: each step is a recorded
// op or a differentiable factorization (svd, eigh, svdvals), so the compositions differentiate
// with no rule of their own. The values follow the direct forms (src/direct/linalg.cpp), which
// compute the same steps on plain tensors; options are checked with the direct forms' messages.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/checks.hpp"
#include "ops/linalg_spec.hpp"
#include "tensora/linalg.hpp"

namespace tensora::frontdoor::composite {

using Loc = SourceLocation;

inline double epsilon(DType d) {
  return d == DType::F32 || d == DType::C64 ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
}

template <class T>
T adjoint(const T& x, Loc where) {
  const T t = x.transpose(-2, -1, where);
  return is_complex(x.dtype()) ? t.conj(where) : t;
}

// v diag(d) for real d (..., k), in v's dtype.
template <class T>
T scale_columns(const T& v, const T& d, Loc where) {
  return v.mul(d.unsqueeze(-2, where).cast(v.dtype(), where), where);
}

// Where |s| > rtol * max |s| (per matrix): 1, else 0, in s's dtype (no gradient flows through it).
template <class T>
T kept(const T& s, double rtol, Loc where) {
  const T a = s.abs(where);
  const T top = a.max({-1}, ReduceOptions{.keepdims = true}, where);
  return a.gt(top.mul(Scalar(rtol), where), where).cast(s.dtype(), where);
}

// 1 / s where kept, 0 elsewhere: keep / (s keep + 1 - keep), which has no 0 / 0 anywhere.
template <class T>
T inverted(const T& s, const T& keep, Loc where) {
  return keep.div(s.mul(keep, where).sub(keep, where).add(Scalar(1.0), where), where);
}

template <class T>
T vector_norm(const T& x, const linalg::VectorNormOptions& o, Loc where) {
  const char* op = "vector_norm";
  if (!o.ord.name.empty())
    check::fail_invalid(op, "ord must be a number (p, inf, -inf or 0) for a vector norm, got \"" + o.ord.name + "\"",
                        "ord", where);
  std::vector<std::int64_t> axes = o.axes;
  if (axes.empty())
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(x.shape().size()); ++d) axes.push_back(d);
  const ReduceOptions keep{.keepdims = o.keepdims};
  const double p = o.ord.p;
  const T a = x.abs(where);
  if (p == linalg::inf) return a.max(axes, keep, where);
  if (p == -linalg::inf) return a.min(axes, keep, where);
  if (p == 0) return a.ne(Scalar(0.0), where).cast(a.dtype(), where).sum(axes, keep, where);
  if (p == 1) return a.sum(axes, keep, where);
  if (p == 2) return a.mul(a, where).sum(axes, keep, where).sqrt(where);
  return a.pow(Scalar(p), where).sum(axes, keep, where).pow(Scalar(1.0 / p), where);
}

template <class T>
T matrix_norm(const T& a, const linalg::NormOptions& o, Loc where) {
  const char* op = "matrix_norm";
  linalg_detail::check_matrix(op, "a", a.shape(), a.dtype(), where);
  const auto axes = linalg_detail::norm_axes(op, o.axes, static_cast<std::int64_t>(a.shape().size()), where);
  const T m = a.permute(axes.order, where);
  const double p = o.ord.p;
  T result;
  if (o.ord.name == "fro") {
    const T x = m.abs(where);
    result = x.mul(x, where).sum({-2, -1}, {}, where).sqrt(where);
  } else if (o.ord.name == "nuc") {
    result = linalg::svdvals(m, where).sum({-1}, {}, where);
  } else if (!o.ord.name.empty()) {
    check::fail_invalid(op, "ord must be \"fro\", \"nuc\", 1, -1, 2, -2, inf or -inf, got \"" + o.ord.name + "\"",
                        "ord", where);
  } else if (p == 2 || p == -2) {
    const T s = linalg::svdvals(m, where);
    result = p == 2 ? s.max({-1}, {}, where) : s.min({-1}, {}, where);
  } else if (p == 1 || p == -1 || p == linalg::inf || p == -linalg::inf) {
    const T sums = m.abs(where).sum({std::abs(p) == 1 ? -2 : -1}, {}, where);
    result = p > 0 ? sums.max({-1}, {}, where) : sums.min({-1}, {}, where);
  } else {
    check::fail_invalid(op, "ord must be \"fro\", \"nuc\", 1, -1, 2, -2, inf or -inf, got " + std::to_string(p), "ord",
                        where);
  }
  if (!o.keepdims) return result;
  Shape shape = a.shape();
  shape[static_cast<std::size_t>(axes.rows)] = 1;
  shape[static_cast<std::size_t>(axes.cols)] = 1;
  return result.reshape(shape, where);
}

inline double default_rtol(const Shape& a, DType dtype) {
  return static_cast<double>(std::max(a[a.size() - 2], a.back())) * epsilon(dtype);
}

template <class T>
T pinv(const T& a, const linalg::PinvOptions& o, Loc where) {
  const double rtol = o.rtol.value_or(default_rtol(a.shape(), a.dtype()));
  if (!(rtol >= 0)) check::fail_invalid("pinv", "rtol must be non-negative", "rtol", where);
  if (o.hermitian) {  // v diag(1 / w) v^H
    const auto h = linalg::eigh(a, where);
    const T inv = inverted(h.eigenvalues, kept(h.eigenvalues, rtol, where), where);
    return scale_columns(h.eigenvectors, inv, where).matmul(adjoint(h.eigenvectors, where), where);
  }
  const auto s = linalg::svd(a, where);  // v diag(1 / s) u^H
  return scale_columns(adjoint(s.vh, where), inverted(s.s, kept(s.s, rtol, where), where), where)
      .matmul(adjoint(s.u, where), where);
}

// lstsq's parts; residuals are computed when m > n (the front door decides whether to keep
// them: NumPy keeps them only when every matrix has full rank).
template <class T>
linalg::BasicLstsq<T> lstsq(const T& a, const T& b, const linalg::LstsqOptions& o, Loc where) {
  const char* op = "lstsq";
  const bool vector = linalg_detail::vector_rhs(a.shape(), b.shape());
  const T rhs = vector ? b.unsqueeze(-1, where) : b;
  linalg_detail::check_rhs(op, a.shape(), rhs.shape(), true, where);
  const std::int64_t m = a.shape()[a.shape().size() - 2], n = a.shape().back();
  const double rcond = o.rcond.value_or(default_rtol(a.shape(), a.dtype()));
  const auto s = linalg::svd(a, where);
  const T keep = kept(s.s, rcond, where);
  T x = scale_columns(adjoint(s.vh, where), inverted(s.s, keep, where), where)
            .matmul(adjoint(s.u, where).matmul(rhs, where), where);
  T residuals;
  if (m > n) {
    const T r = a.matmul(x, where).sub(rhs, where).abs(where);
    residuals = r.mul(r, where).sum({-2}, {}, where);
    if (vector) residuals = residuals.squeeze({-1}, where);
  }
  const T rank = keep.cast(DType::I64, where).sum({-1}, {}, where);
  if (vector) x = x.squeeze({-1}, where);
  return {x, residuals, rank, s.s};
}

}  // namespace tensora::frontdoor::composite
