// Reference dot_general: for every output element, one sequential sum over the contracting
// positions (column-major), accumulated in double (complex<double>) for floating dtypes and in
// the integer type itself, wrapping, for integers. No blocking, no BLAS.
#include <complex>
#include <cstring>

#include "core/element_access.hpp"
#include "ops/elementwise_functors.hpp"
#include "reference/reference_backend.hpp"
#include "reference/walk.hpp"

namespace tensora::reference {

namespace {

template <class T>
using sum_t = std::conditional_t<is_complex_v<T>, std::complex<double>, std::conditional_t<is_int_v<T>, T, double>>;

Shape extents(const Tensor& t, const std::vector<std::int64_t>& axes) {
  Shape s;
  for (auto a : axes) s.push_back(t.shape()[static_cast<std::size_t>(a)]);
  return s;
}

}  // namespace

void dot_general(const Tensor& out, const Tensor& lhs, const Tensor& rhs, const backend::ContractionDims& d) {
  const Shape batch = extents(lhs, d.lhs_batch), lhs_free = extents(lhs, d.lhs_free),
              rhs_free = extents(rhs, d.rhs_free), contract = extents(lhs, d.lhs_contract);
  std::vector<std::int64_t> out_axes(out.shape().size());
  for (std::size_t i = 0; i < out_axes.size(); ++i) out_axes[i] = static_cast<std::int64_t>(i);
  visit_dtype(out.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      using S = sum_t<compute_t<T>>;
      for (std::int64_t o = 0; o < out.numel(); ++o) {
        const auto index = unravel(o, out.shape());
        const auto at = [&](std::size_t from, std::size_t count) {
          return std::vector<std::int64_t>(index.begin() + static_cast<std::ptrdiff_t>(from),
                                           index.begin() + static_cast<std::ptrdiff_t>(from + count));
        };
        const auto b = at(0, batch.size()), f1 = at(batch.size(), lhs_free.size()),
                   f2 = at(batch.size() + lhs_free.size(), rhs_free.size());
        const char* l = base_of(lhs) + byte_offset(lhs, d.lhs_batch, b) + byte_offset(lhs, d.lhs_free, f1);
        const char* r = base_of(rhs) + byte_offset(rhs, d.rhs_batch, b) + byte_offset(rhs, d.rhs_free, f2);
        S acc{};
        for (std::int64_t c = 0; c < numel(contract); ++c) {
          const auto k = unravel(c, contract);
          const S x = static_cast<S>(load_as_compute<T>(l + byte_offset(lhs, d.lhs_contract, k)));
          const S y = static_cast<S>(load_as_compute<T>(r + byte_offset(rhs, d.rhs_contract, k)));
          acc = fn::wrap_add(acc, fn::wrap_mul(x, y));
        }
        store_from_compute<T>(base_of(out) + byte_offset(out, out_axes, index), static_cast<compute_t<T>>(acc));
      }
    }
  });
}

}  // namespace tensora::reference
