#include "frontdoor/linalg_factors.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace tensora::frontdoor {

using linalg_detail::batch_of;

PackedLayout eigh_layout(const Shape& a) {
  const std::int64_t n = a.back();
  return {batch_of(a), {{{n}, true}, {{n, n}, false}}};
}

PackedLayout eig_layout(const Shape& a) {
  const std::int64_t n = a.back();
  return {batch_of(a), {{{n}, false}, {{n, n}, false}}, true};
}

PackedLayout svd_layout(const Shape& a, std::int64_t ku, std::int64_t k, std::int64_t kv) {
  const std::int64_t m = a[a.size() - 2], n = a.back();
  return {batch_of(a), {{{m, ku}, false}, {{k}, true}, {{kv, n}, false}}};
}

PackedLayout svd_layout_of_total(const Shape& a, std::int64_t total) {
  const std::int64_t m = a[a.size() - 2], n = a.back();
  const std::int64_t k = total / (m + n + 1);  // total = m k + k + k n for a reduced or truncated svd
  return svd_layout(a, k, k, k);
}

PackedLayout qr_layout(const Shape& a, std::int64_t kq) {
  const std::int64_t m = a[a.size() - 2], n = a.back();
  return {batch_of(a), {{{m, kq}, false}, {{kq, n}, false}}};
}

PackedLayout lu_layout(const Shape& a) {
  const std::int64_t m = a[a.size() - 2], n = a.back(), k = std::min(m, n);
  return {batch_of(a), {{{m, m}, false}, {{m, k}, false}, {{k, n}, false}}};
}

PackedLayout lu_factor_layout(const Shape& a) {
  const std::int64_t m = a[a.size() - 2], n = a.back();
  return {batch_of(a), {{{m, m}, false}, {{m, n}, false}}};
}

Tensor pack(const PackedLayout& layout, const std::vector<Tensor>& factors, DType dtype, Engine& engine) {
  std::vector<Tensor> flat;
  for (std::size_t i = 0; i < layout.parts.size(); ++i) {
    Shape s = layout.batch;
    s.push_back(layout.size(i));
    const Tensor& f = factors[i];
    flat.push_back((f.dtype() == dtype ? f : f.cast(dtype, engine)).reshape(s));
  }
  return concat(std::move(flat), -1, engine);
}

void check_phase_gauge(std::string_view op, const Tensor& residual, const Tensor& scale, Engine& engine,
                       SourceLocation where) {
  const bool single = residual.dtype() == DType::F32;
  const double tolerance =
      std::sqrt(single ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon());
  // Fresh column-major values: the batch is the leading axes, the vector index the last.
  const std::vector<double> r = residual.cast(DType::F64, engine).to_vec<double>();
  const std::vector<double> sc = scale.cast(DType::F64, engine).to_vec<double>();
  const std::int64_t batches = static_cast<std::int64_t>(sc.size());
  const std::int64_t k = batches == 0 ? 0 : static_cast<std::int64_t>(r.size()) / batches;
  for (std::int64_t j = 0; j < k; ++j)
    for (std::int64_t b = 0; b < batches; ++b) {
      const double v = r[static_cast<std::size_t>(j * batches + b)];
      if (!(std::abs(v) <= tolerance * sc[static_cast<std::size_t>(b)])) {
        const Shape batch(residual.shape().begin(), residual.shape().end() - 1);
        char value[32];
        std::snprintf(value, sizeof value, "%.3g", v);
        throw Error(ErrorKind::LinAlgError, std::string(op),
                    "the loss depends on the phase of the complex vectors of " +
                        linalg_detail::which_matrix(batch, b) + " (vector " + std::to_string(j) +
                        ": Im(v^H dL/dv) = " + value +
                        ", not 0); they are defined only up to a factor e^{i phi}: make the loss "
                        "invariant to it (e.g. use |v|^2, or v diag(s) v^H)",
                    LinAlgFailure{linalg_detail::batch_index(batch, b), 0, false}, where);
      }
    }
}

}  // namespace tensora::frontdoor
