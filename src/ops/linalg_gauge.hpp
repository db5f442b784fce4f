// The sign and phase conventions of the linalg primitives (ops/linalg_spec.hpp), applied by
// every backend to its dense column-major results so that backends, thread counts and LAPACK
// builds agree on the factors, not only on their products (docs/linalg.md, "Gauge").
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace tensora::linalg_detail {

template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};

// The unit-modulus factor of x (1 for x == 0).
template <class T>
T phase_of(T x) {
  if constexpr (is_complex<T>::value) {
    const auto r = std::abs(x);
    return r == 0 ? T(1) : x / r;
  } else {
    return x < 0 ? T(-1) : T(1);
  }
}

template <class T>
T conj_of(T x) {
  if constexpr (is_complex<T>::value) return std::conj(x);
  else return x;
}

// The index of the largest-modulus of `count` entries `stride` apart (the first of equals).
template <class T>
std::int64_t largest_entry(const T* p, std::int64_t count, std::int64_t stride) {
  std::int64_t best = 0;
  decltype(std::abs(T{})) best_abs = -1;
  for (std::int64_t i = 0; i < count; ++i) {
    const auto a = std::abs(p[i * stride]);
    if (a > best_abs) {
      best_abs = a;
      best = i;
    }
  }
  return best;
}

// The phase of column j's largest-modulus entry of the rows x cols matrix at v (leading
// dimension ld).
template <class T>
T column_phase(const T* v, std::int64_t rows, std::int64_t ld, std::int64_t j) {
  return phase_of(v[largest_entry(v + j * ld, rows, 1) + j * ld]);
}

// Makes each column of v (rows x cols) have its largest-modulus entry real and positive. When
// `rows_of` is given (the rows of a second factor, row j paired with column j, leading
// dimension ld2), row j is multiplied by the inverse phase so the product v w is unchanged;
// those rows are swept column by column, as gauge_qr's r is.
template <class T>
void gauge_columns(T* v, std::int64_t rows, std::int64_t cols, std::int64_t ld, T* rows_of = nullptr,
                   std::int64_t row_count = 0, std::int64_t ld2 = 0, std::int64_t paired = 0) {
  std::vector<T> phase(static_cast<std::size_t>(cols));
  for (std::int64_t j = 0; j < cols; ++j) {
    const T ph = phase[static_cast<std::size_t>(j)] = column_phase(v, rows, ld, j);
    if (ph == T(1)) continue;
    const T inv = conj_of(ph);
    for (std::int64_t i = 0; i < rows; ++i) v[i + j * ld] *= inv;
  }
  if (rows_of == nullptr) return;
  const std::int64_t pairs = std::min(paired, cols);
  for (std::int64_t c = 0; c < row_count; ++c)
    for (std::int64_t j = 0; j < pairs; ++j) {
      const T ph = phase[static_cast<std::size_t>(j)];
      if (is_complex<T>::value && ph == T(1)) continue;  // as in gauge_qr: x * 1 is x for reals
      rows_of[j + c * ld2] *= ph;
    }
}

// Makes each row i of w (rows x cols, leading dimension ld) have its largest-modulus entry real
// and positive (the extra rows of a complete vh, which pair with no column of u).
template <class T>
void gauge_rows(T* w, std::int64_t first, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  for (std::int64_t i = first; i < rows; ++i) {
    const std::int64_t best = largest_entry(w + i, cols, ld);
    const T inv = conj_of(phase_of(w[i + best * ld]));
    for (std::int64_t c = 0; c < cols; ++c) w[i + c * ld] *= inv;
  }
}

// QR's gauge: diag(r) real and non-negative; row i of r (k x n, ld_r) and column i of q
// (m x k, ld_q; null for mode R) exchange the phase of r(i, i). r is swept column by column
// (a row at a time strode through all of r: a third of a 256 x 256 QR's time outside LAPACK).
template <class T>
void gauge_qr(T* q, std::int64_t m, std::int64_t ld_q, T* r, std::int64_t k, std::int64_t n, std::int64_t ld_r) {
  const std::int64_t d = std::min(k, n);
  std::vector<T> phase(static_cast<std::size_t>(d));
  bool any = false;
  for (std::int64_t i = 0; i < d; ++i) {
    phase[static_cast<std::size_t>(i)] = phase_of(r[i + i * ld_r]);
    any = any || phase[static_cast<std::size_t>(i)] != T(1);
  }
  if (!any) return;
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t i = 0; i <= std::min(c, d - 1); ++i) {
      const T ph = phase[static_cast<std::size_t>(i)];
      // A real phase is +-1, and x * 1 is x exactly: no branch. A complex multiply by 1 could
      // flip the sign of a zero, so unit phases are skipped.
      if (is_complex<T>::value && ph == T(1)) continue;
      r[i + c * ld_r] *= conj_of(ph);
    }
  for (std::int64_t i = 0; i < d; ++i) {
    const T ph = phase[static_cast<std::size_t>(i)];
    if (ph == T(1)) continue;
    if constexpr (is_complex<T>::value) r[i + i * ld_r] = T(std::real(r[i + i * ld_r]), 0);
    if (q != nullptr)
      for (std::int64_t row = 0; row < m; ++row) q[row + i * ld_q] *= ph;
  }
}

}  // namespace tensora::linalg_detail
