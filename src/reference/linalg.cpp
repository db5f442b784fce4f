// The reference linear algebra: each matrix gathered into a dense buffer and factorized by a
// textbook algorithm in long double (complex long double for complex dtypes), rounded to the
// output dtype, gauged (ops/linalg_gauge.hpp) and scattered back. Serial, slow by design.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include "backend/matrix_batch.hpp"
#include "core/checks.hpp"
#include "ops/linalg_gauge.hpp"
#include "reference/reference_backend.hpp"

namespace tensora::reference {

namespace {

using backend::MatrixBatch;
using linalg_detail::Call;
using linalg_detail::conj_of;
using linalg_detail::Failure;
using linalg_detail::is_complex;
using linalg_detail::Kind;
using linalg_detail::phase_of;
using linalg_detail::Status;
using linalg_detail::Trans;
using L = long double;

// The element type the algorithms run in, and the real type of an element type.
template <class T>
using Work = std::conditional_t<is_complex<T>::value, std::complex<L>, L>;
template <class T>
using Real = decltype(std::abs(T{}));

constexpr int kMaxSweeps = 100;
constexpr L kEps = std::numeric_limits<L>::epsilon();

// A dense column-major matrix (leading dimension = rows).
template <class V>
struct Dense {
  std::int64_t rows = 0, cols = 0;
  std::vector<V> data;

  Dense(std::int64_t r, std::int64_t c) : rows(r), cols(c), data(static_cast<std::size_t>(r * c), V(0)) {}
  V& operator()(std::int64_t r, std::int64_t c) { return data[static_cast<std::size_t>(r + c * rows)]; }
  const V& operator()(std::int64_t r, std::int64_t c) const { return data[static_cast<std::size_t>(r + c * rows)]; }
};

template <class V>
Dense<V> identity(std::int64_t rows, std::int64_t cols) {
  Dense<V> e(rows, cols);
  for (std::int64_t i = 0; i < std::min(rows, cols); ++i) e(i, i) = V(1);
  return e;
}

template <class V>
Dense<V> adjoint(const Dense<V>& a) {
  Dense<V> h(a.cols, a.rows);
  for (std::int64_t c = 0; c < a.cols; ++c)
    for (std::int64_t r = 0; r < a.rows; ++r) h(c, r) = conj_of(a(r, c));
  return h;
}

template <class V>
L real_of(V x) {
  if constexpr (is_complex<V>::value) return x.real();
  else return x;
}

template <class V>
L abs2(V x) {
  if constexpr (is_complex<V>::value) return std::norm(x);
  else return x * x;
}

template <class V>
L column_norm2(const Dense<V>& a, std::int64_t c) {
  L sum = 0;
  for (std::int64_t r = 0; r < a.rows; ++r) sum += abs2(a(r, c));
  return sum;
}

// ---- moving matrices in and out ---------------------------------------------------------

template <class T>
bool finite(T x) {
  if constexpr (is_complex<T>::value) return std::isfinite(x.real()) && std::isfinite(x.imag());
  else return std::isfinite(x);
}

// Matrix i of t in working precision; `all_finite` says whether every entry was finite.
template <class T>
Dense<Work<T>> load(const Tensor& t, std::int64_t i, bool* all_finite = nullptr) {
  const MatrixBatch batch(t);
  std::vector<T> buf(static_cast<std::size_t>(batch.rows() * batch.cols()));
  batch.gather(i, buf.data(), batch.rows());
  Dense<Work<T>> a(batch.rows(), batch.cols());
  for (std::size_t e = 0; e < buf.size(); ++e) a.data[e] = Work<T>(buf[e]);
  if (all_finite != nullptr) *all_finite = std::all_of(buf.begin(), buf.end(), finite<T>);
  return a;
}

// Rounded once, from long double straight to the output's precision.
template <class T>
std::vector<T> rounded(const Dense<Work<T>>& a) {
  std::vector<T> out(a.data.size());
  for (std::size_t e = 0; e < out.size(); ++e) {
    if constexpr (is_complex<T>::value)
      out[e] = T(static_cast<Real<T>>(a.data[e].real()), static_cast<Real<T>>(a.data[e].imag()));
    else out[e] = static_cast<T>(a.data[e]);
  }
  return out;
}

// Writes the dense matrix (leading dimension `ld`) as matrix i of t.
template <class T>
void store(const Tensor& t, std::int64_t i, const std::vector<T>& dense, std::int64_t ld) {
  MatrixBatch(t).scatter(i, dense.data(), ld);
}

// Writes a per-matrix vector (pivots, eigenvalues, singular values) as vector i of t.
template <class E, class S>
void store_vector(const Tensor& t, std::int64_t i, const std::vector<S>& v) {
  std::vector<E> out(v.size());
  for (std::size_t e = 0; e < v.size(); ++e) out[e] = static_cast<E>(v[e]);
  MatrixBatch(t, 1).scatter(i, out.data(), static_cast<std::int64_t>(out.size()));
}

// ---- the algorithms, on dense working-precision matrices ---------------------------------

// Cholesky-Banachiewicz on the lower triangle of h: h = l l^H. Returns the order of the first
// leading minor that is not positive (0 when it is positive definite); l stops there.
template <class V>
std::int64_t cholesky_lower(const Dense<V>& h, Dense<V>& l) {
  const std::int64_t n = h.rows;
  for (std::int64_t j = 0; j < n; ++j) {
    L d = real_of(h(j, j));  // a Hermitian matrix's diagonal is real
    for (std::int64_t k = 0; k < j; ++k) d -= abs2(l(j, k));
    if (!(d > 0) || !std::isfinite(d)) return j + 1;
    l(j, j) = std::sqrt(d);
    for (std::int64_t i = j + 1; i < n; ++i) {
      V sum = h(i, j);
      for (std::int64_t k = 0; k < j; ++k) sum -= l(i, k) * conj_of(l(j, k));
      l(i, j) = sum / l(j, j);
    }
  }
  return 0;
}

// Solves op(t) x = b in place (b: n x r) by substitution, reading only t's upper (or lower)
// triangle; a unit diagonal is taken as 1 and never read.
template <class V>
void substitute(const Dense<V>& t, bool upper, bool unit, Trans trans, Dense<V>& b) {
  const std::int64_t n = t.rows;
  const auto op = [&](std::int64_t i, std::int64_t j) -> V {
    if (trans == Trans::None) return t(i, j);
    return trans == Trans::Transpose ? t(j, i) : conj_of(t(j, i));
  };
  const bool forward = upper == (trans != Trans::None);  // op(t) is lower triangular
  for (std::int64_t c = 0; c < b.cols; ++c)
    for (std::int64_t step = 0; step < n; ++step) {
      const std::int64_t i = forward ? step : n - 1 - step;
      V sum = b(i, c);
      for (std::int64_t j = forward ? 0 : i + 1; j < (forward ? i : n); ++j) sum -= op(i, j) * b(j, c);
      b(i, c) = unit ? sum : sum / op(i, i);
    }
}

// The pivot measure of LAPACK's i?amax: |x| for real, |re| + |im| for complex.
template <class V>
L pivot_size(V x) {
  if constexpr (is_complex<V>::value) return std::abs(x.real()) + std::abs(x.imag());
  else return std::abs(x);
}

// getf2's right-looking LU with partial pivoting, in place: a = p l u, 1-based pivots. Returns
// the first column whose pivot is exactly zero (0 if none); that column is left undivided.
template <class V>
std::int64_t lu_factor(Dense<V>& a, std::vector<std::int32_t>& pivots) {
  const std::int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  std::int64_t info = 0;
  for (std::int64_t j = 0; j < k; ++j) {
    std::int64_t p = j;
    for (std::int64_t i = j + 1; i < m; ++i)
      if (pivot_size(a(i, j)) > pivot_size(a(p, j))) p = i;  // strict: the first of equals
    pivots[static_cast<std::size_t>(j)] = static_cast<std::int32_t>(p + 1);
    if (a(p, j) != V(0)) {
      if (p != j)
        for (std::int64_t c = 0; c < n; ++c) std::swap(a(j, c), a(p, c));
      for (std::int64_t i = j + 1; i < m; ++i) a(i, j) /= a(j, j);
    } else if (info == 0) {
      info = j + 1;
    }
    for (std::int64_t c = j + 1; c < n; ++c)
      for (std::int64_t i = j + 1; i < m; ++i) a(i, c) -= a(i, j) * a(j, c);
  }
  return info;
}

// op(a) x = b in place from lu_factor's factors, as getrs: a = p l u.
template <class V>
void lu_solve(const Dense<V>& lu, const std::vector<std::int32_t>& pivots, Trans trans, Dense<V>& b) {
  const auto interchange = [&](std::int64_t i) {
    const std::int64_t p = pivots[static_cast<std::size_t>(i)] - 1;
    if (p != i)
      for (std::int64_t c = 0; c < b.cols; ++c) std::swap(b(i, c), b(p, c));
  };
  const std::int64_t n = lu.rows;
  if (trans == Trans::None) {  // l u x = p^T b
    for (std::int64_t i = 0; i < n; ++i) interchange(i);
    substitute(lu, false, true, trans, b);
    substitute(lu, true, false, trans, b);
  } else {  // u^T l^T (p^T x) = b, then x = p (p^T x): the interchanges undone last to first
    substitute(lu, true, false, trans, b);
    substitute(lu, false, true, trans, b);
    for (std::int64_t i = n - 1; i >= 0; --i) interchange(i);
  }
}

// x <- (I - 2 w w^H / w^H w) x for columns [c0, c1) of x, on rows j.. (w has rows - j entries).
template <class V>
void reflect(const std::vector<V>& w, Dense<V>& x, std::int64_t j, std::int64_t c0, std::int64_t c1) {
  L ww = 0;
  for (const V& e : w) ww += abs2(e);
  for (std::int64_t c = c0; c < c1; ++c) {
    V dot = 0;
    for (std::size_t i = 0; i < w.size(); ++i) dot += conj_of(w[i]) * x(j + static_cast<std::int64_t>(i), c);
    const V f = dot * (2 / ww);
    for (std::size_t i = 0; i < w.size(); ++i) x(j + static_cast<std::int64_t>(i), c) -= f * w[i];
  }
}

// Householder QR: r (kq x n, rows from k on zero) and, with `vectors`, q (m x kq). Reflector j
// takes column j's rows j.. to a multiple of e_j; a column whose tail is already zero needs none.
template <class V>
void householder_qr(const Dense<V>& a, std::int64_t kq, bool vectors, Dense<V>& q, Dense<V>& r) {
  const std::int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  Dense<V> h = a;
  std::vector<std::vector<V>> reflectors(static_cast<std::size_t>(k));
  for (std::int64_t j = 0; j < k; ++j) {
    L tail = 0;
    for (std::int64_t i = j + 1; i < m; ++i) tail += abs2(h(i, j));
    if (tail == 0) continue;
    std::vector<V> w(static_cast<std::size_t>(m - j));
    for (std::int64_t i = j; i < m; ++i) w[static_cast<std::size_t>(i - j)] = h(i, j);
    w[0] += phase_of(h(j, j)) * std::sqrt(abs2(h(j, j)) + tail);  // no cancellation
    reflect(w, h, j, j, n);
    reflectors[static_cast<std::size_t>(j)] = std::move(w);
  }
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t i = 0; i <= std::min(c, k - 1); ++i) r(i, c) = h(i, c);
  if (!vectors) return;
  q = identity<V>(m, kq);  // q = h_0 h_1 ... h_{k-1} [I; 0], the last reflector applied first
  for (std::int64_t j = k - 1; j >= 0; --j)
    if (!reflectors[static_cast<std::size_t>(j)].empty()) reflect(reflectors[static_cast<std::size_t>(j)], q, j, 0, kq);
}

// The Jacobi rotation g = [[c, s z], [-s conj(z), c]] (z = the phase of apq) with
// g^H [[app, apq], [conj(apq), aqq]] g diagonal: the real symmetric rotation of Golub and
// Van Loan's sym.schur2 for |apq|, conjugated by diag(1, conj(z)). Needs apq != 0.
template <class V>
struct Rotation {
  L c, s;
  V z;
};

template <class V>
Rotation<V> jacobi_rotation(L app, L aqq, V apq) {
  const L mag = std::abs(apq);
  const L tau = (aqq - app) / (2 * mag);
  const L t = (tau >= 0 ? 1 : -1) / (std::abs(tau) + std::sqrt(1 + tau * tau));  // the smaller angle
  const L c = 1 / std::sqrt(1 + t * t);
  return {c, t * c, apq / mag};
}

// x <- x g on columns p, q.
template <class V>
void rotate_columns(Dense<V>& x, std::int64_t p, std::int64_t q, const Rotation<V>& g) {
  for (std::int64_t i = 0; i < x.rows; ++i) {
    const V xp = x(i, p), xq = x(i, q);
    x(i, p) = g.c * xp - g.s * conj_of(g.z) * xq;
    x(i, q) = g.s * g.z * xp + g.c * xq;
  }
}

// x <- g^H x on rows p, q.
template <class V>
void rotate_rows(Dense<V>& x, std::int64_t p, std::int64_t q, const Rotation<V>& g) {
  for (std::int64_t c = 0; c < x.cols; ++c) {
    const V xp = x(p, c), xq = x(q, c);
    x(p, c) = g.c * xp - g.s * g.z * xq;
    x(q, c) = g.s * conj_of(g.z) * xp + g.c * xq;
  }
}

// The stable permutation that sorts `keys` ascending (descending with `descending`).
std::vector<std::int64_t> sorted_order(const std::vector<L>& keys, bool descending) {
  std::vector<std::int64_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) {
    return descending ? keys[static_cast<std::size_t>(x)] > keys[static_cast<std::size_t>(y)]
                      : keys[static_cast<std::size_t>(x)] < keys[static_cast<std::size_t>(y)];
  });
  return order;
}

template <class V>
Dense<V> permuted_columns(const Dense<V>& a, const std::vector<std::int64_t>& order) {
  Dense<V> out(a.rows, a.cols);
  for (std::int64_t c = 0; c < a.cols; ++c)
    for (std::int64_t r = 0; r < a.rows; ++r) out(r, c) = a(r, order[static_cast<std::size_t>(c)]);
  return out;
}

// Cyclic Jacobi on the Hermitian h: w ascending, v's columns the eigenvectors. False when the
// off-diagonal mass is still above working precision after kMaxSweeps sweeps.
template <class V>
bool jacobi_eigh(Dense<V> h, std::vector<L>& w, Dense<V>& v) {
  const std::int64_t n = h.rows;
  L norm2 = 0;
  for (const V& e : h.data) norm2 += abs2(e);
  v = identity<V>(n, n);
  const auto converged = [&] {
    L off2 = 0;
    for (std::int64_t q = 0; q < n; ++q)
      for (std::int64_t p = 0; p < n; ++p)
        if (p != q) off2 += abs2(h(p, q));
    return off2 <= kEps * kEps * norm2;
  };
  for (int sweep = 0; sweep < kMaxSweeps && !converged(); ++sweep) {
    for (std::int64_t p = 0; p < n; ++p)
      for (std::int64_t q = p + 1; q < n; ++q) {
        if (h(p, q) == V(0)) continue;
        const Rotation<V> g = jacobi_rotation(real_of(h(p, p)), real_of(h(q, q)), h(p, q));
        rotate_columns(h, p, q, g);
        rotate_rows(h, p, q, g);
        rotate_columns(v, p, q, g);
        h(p, q) = h(q, p) = V(0);  // what the rotation was chosen to make exactly
        h(p, p) = real_of(h(p, p));
        h(q, q) = real_of(h(q, q));
      }
  }
  std::vector<L> diagonal(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) diagonal[static_cast<std::size_t>(i)] = real_of(h(i, i));
  const std::vector<std::int64_t> order = sorted_order(diagonal, false);
  w.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) w[static_cast<std::size_t>(i)] = diagonal[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
  v = permuted_columns(v, order);
  return converged();
}

// Fills columns `have`.. of b, whose first `have` columns are orthonormal, with e_0, e_1, ...
// orthogonalized against the columns so far (twice, which is enough), skipping those too close
// to their span. Some e_c always clears 1 / (2 sqrt(rows)): their squared residuals sum to
// rows - have >= 1.
template <class V>
void complete_basis(Dense<V>& b, std::int64_t have) {
  const L keep = 1 / (2 * std::sqrt(static_cast<L>(b.rows)));
  for (std::int64_t e = 0; e < b.rows && have < b.cols; ++e) {
    std::vector<V> x(static_cast<std::size_t>(b.rows), V(0));
    x[static_cast<std::size_t>(e)] = V(1);
    for (int pass = 0; pass < 2; ++pass)
      for (std::int64_t j = 0; j < have; ++j) {
        V d = 0;
        for (std::int64_t i = 0; i < b.rows; ++i) d += conj_of(b(i, j)) * x[static_cast<std::size_t>(i)];
        for (std::int64_t i = 0; i < b.rows; ++i) x[static_cast<std::size_t>(i)] -= d * b(i, j);
      }
    L nx = 0;
    for (const V& xi : x) nx += abs2(xi);
    nx = std::sqrt(nx);
    if (nx <= keep) continue;
    for (std::int64_t i = 0; i < b.rows; ++i) b(i, have) = x[static_cast<std::size_t>(i)] / nx;
    ++have;
  }
}

// One-sided Jacobi (Hestenes) on g (p x q, p >= q): rotates column pairs until every pair is
// orthogonal to working precision, so g = left diag(s) v^H with s descending, v (q x q)
// unitary and left (p x cols) orthonormal: g's normalized columns, completed by
// complete_basis past the zero ones and up to `cols`. False without convergence.
template <class V>
bool hestenes_svd(Dense<V> g, std::int64_t cols, Dense<V>& left, std::vector<L>& s, Dense<V>& v) {
  const std::int64_t p = g.rows, q = g.cols;
  const L tol = kEps * static_cast<L>(std::max<std::int64_t>(p, 1));
  // A rank deficiency leaves columns of rounding residue that shrink sweep after sweep until
  // their squares underflow and the test below stops making sense; dropped once below
  // eps^2 of the matrix, far under any precision the results are rounded to.
  L norm2 = 0;
  for (const V& e : g.data) norm2 += abs2(e);
  const L negligible = kEps * kEps * kEps * kEps * norm2;
  const auto drop_if_negligible = [&](std::int64_t c, L c_norm2) {
    if (c_norm2 > negligible) return false;
    for (std::int64_t r = 0; r < p; ++r) g(r, c) = V(0);
    return true;
  };
  v = identity<V>(q, q);
  bool converged = false;
  for (int sweep = 0; sweep < kMaxSweeps && !converged; ++sweep) {
    converged = true;
    for (std::int64_t i = 0; i < q; ++i)
      for (std::int64_t j = i + 1; j < q; ++j) {
        const L alpha = column_norm2(g, i), beta = column_norm2(g, j);
        const bool dropped = drop_if_negligible(i, alpha);
        if (drop_if_negligible(j, beta) || dropped) continue;
        V gamma = 0;
        for (std::int64_t r = 0; r < p; ++r) gamma += conj_of(g(r, i)) * g(r, j);
        // Relative to the columns' lengths, so small singular values come out as accurate.
        if (std::abs(gamma) <= tol * std::sqrt(alpha) * std::sqrt(beta)) continue;
        const Rotation<V> rot = jacobi_rotation(alpha, beta, gamma);  // diagonalizes the pair's gram
        rotate_columns(g, i, j, rot);
        rotate_columns(v, i, j, rot);
        converged = false;
      }
  }
  std::vector<L> norms(static_cast<std::size_t>(q));
  for (std::int64_t j = 0; j < q; ++j) norms[static_cast<std::size_t>(j)] = std::sqrt(column_norm2(g, j));
  const std::vector<std::int64_t> order = sorted_order(norms, true);
  s.resize(static_cast<std::size_t>(q));
  left = Dense<V>(p, cols);
  std::int64_t nonzero = 0;
  for (std::int64_t j = 0; j < q; ++j) {
    const std::int64_t from = order[static_cast<std::size_t>(j)];
    const L sj = norms[static_cast<std::size_t>(from)];
    s[static_cast<std::size_t>(j)] = sj;
    if (sj == 0) continue;  // descending: the zero ones are last, completed below
    for (std::int64_t r = 0; r < p; ++r) left(r, j) = g(r, from) / sj;
    ++nonzero;
  }
  complete_basis(left, nonzero);
  v = permuted_columns(v, order);
  return converged;
}

// The general eigenproblem in complex working precision: Householder reduction to Hessenberg
// form, the single-shift QR algorithm (Wilkinson shifts, Givens rotations) to the complex Schur
// form t = q^H a q, then t's eigenvectors by back substitution, taken back by q and scaled to
// unit norm. w in Schur order. False without convergence.
using CL = std::complex<L>;

// The rotation g = [[c, s], [-conj(s), c]] (c real) with g [x; y] = [r; 0].
struct Givens {
  L c;
  CL s;
};
Givens givens(CL x, CL y) {
  const L ax = std::abs(x), rho = std::hypot(ax, std::abs(y));
  if (rho == 0) return {1, 0};
  if (ax == 0) return {0, 1};
  return {ax / rho, (x / ax) * std::conj(y) / rho};
}
// Rows k, k+1 of h, columns [from, to) <- g times them.
void rotate_rows_from(Dense<CL>& h, std::int64_t k, const Givens& g, std::int64_t from, std::int64_t to) {
  for (std::int64_t j = from; j < to; ++j) {
    const CL a = h(k, j), b = h(k + 1, j);
    h(k, j) = g.c * a + g.s * b;
    h(k + 1, j) = -std::conj(g.s) * a + g.c * b;
  }
}
// Columns k, k+1 of h, rows [0, to) <- them times g^H.
void rotate_columns_to(Dense<CL>& h, std::int64_t k, const Givens& g, std::int64_t to) {
  for (std::int64_t i = 0; i < to; ++i) {
    const CL a = h(i, k), b = h(i, k + 1);
    h(i, k) = a * g.c + b * std::conj(g.s);
    h(i, k + 1) = -a * g.s + b * g.c;
  }
}

void hessenberg(Dense<CL>& h, Dense<CL>& q) {
  const std::int64_t n = h.rows;
  for (std::int64_t k = 0; k + 2 < n; ++k) {
    std::vector<CL> v(static_cast<std::size_t>(n - k - 1));
    L norm2 = 0;
    for (std::int64_t i = k + 1; i < n; ++i) norm2 += std::norm(v[static_cast<std::size_t>(i - k - 1)] = h(i, k));
    if (norm2 == 0) continue;
    const CL alpha = -linalg_detail::phase_of(v[0]) * std::sqrt(norm2);
    v[0] -= alpha;
    L vnorm2 = 0;
    for (const CL& x : v) vnorm2 += std::norm(x);
    if (vnorm2 == 0) continue;
    const auto at = [&](std::int64_t i) { return v[static_cast<std::size_t>(i - k - 1)]; };
    // h <- (I - 2 v v^H / |v|^2) h (I - 2 v v^H / |v|^2); q <- q (I - ...).
    for (std::int64_t j = 0; j < n; ++j) {
      CL d = 0;
      for (std::int64_t i = k + 1; i < n; ++i) d += std::conj(at(i)) * h(i, j);
      d *= L(2) / vnorm2;
      for (std::int64_t i = k + 1; i < n; ++i) h(i, j) -= at(i) * d;
    }
    for (Dense<CL>* m : {&h, &q})
      for (std::int64_t i = 0; i < n; ++i) {
        CL d = 0;
        for (std::int64_t j = k + 1; j < n; ++j) d += (*m)(i, j) * at(j);
        d *= L(2) / vnorm2;
        for (std::int64_t j = k + 1; j < n; ++j) (*m)(i, j) -= d * std::conj(at(j));
      }
    for (std::int64_t i = k + 2; i < n; ++i) h(i, k) = 0;
  }
}

bool schur_eig(Dense<CL> h, std::vector<CL>& w, Dense<CL>* vectors) {
  const std::int64_t n = h.rows;
  Dense<CL> q = identity<CL>(n, n);
  hessenberg(h, q);
  std::int64_t hi = n - 1, iterations = 0;
  while (hi > 0) {
    std::int64_t l = hi;
    for (; l > 0; --l) {
      const L scale = std::abs(h(l - 1, l - 1)) + std::abs(h(l, l));
      if (std::abs(h(l, l - 1)) <= kEps * scale || std::abs(h(l, l - 1)) < std::numeric_limits<L>::min()) {
        h(l, l - 1) = 0;
        break;
      }
    }
    if (l == hi) {  // h(hi, hi) is an eigenvalue
      --hi;
      iterations = 0;
      continue;
    }
    if (++iterations > 30 * std::max<std::int64_t>(n, 10)) return false;
    // Wilkinson's shift: the eigenvalue of the trailing 2 x 2 closer to its last entry; an
    // exceptional one now and then, against the cycles a fixed rule can fall into.
    const CL a = h(hi - 1, hi - 1), b = h(hi - 1, hi), c = h(hi, hi - 1), d = h(hi, hi);
    CL mu;
    if (iterations % 11 == 10) {
      mu = d + CL(std::abs(c) * L(0.75), 0);
    } else {
      const CL half = (a - d) / L(2), root = std::sqrt(half * half + b * c);
      const CL m1 = d - b * c / (half + root), m2 = d - b * c / (half - root);
      const bool finite1 = std::isfinite(std::abs(m1)), finite2 = std::isfinite(std::abs(m2));
      mu = !finite1 ? m2 : !finite2 ? m1 : std::abs(m1 - d) <= std::abs(m2 - d) ? m1 : m2;
      if (!std::isfinite(std::abs(mu))) mu = d;
    }
    // One implicit QR step on rows and columns l..hi (the bulge chase).
    for (std::int64_t k = l; k < hi; ++k) {
      const Givens g = k == l ? givens(h(l, l) - mu, h(l + 1, l)) : givens(h(k, k - 1), h(k + 1, k - 1));
      rotate_rows_from(h, k, g, k == l ? l : k - 1, n);
      rotate_columns_to(h, k, g, std::min(k + 3, hi + 1));
      rotate_columns_to(q, k, g, n);
      if (k > l) h(k + 1, k - 1) = 0;  // what the rotation was chosen to make exactly
    }
  }
  w.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) w[static_cast<std::size_t>(i)] = h(i, i);
  if (vectors == nullptr) return true;
  // t y = w_k y with y_k = 1 below k zero; a zero difference of eigenvalues is nudged, as LAPACK's
  // trevc does, so repeated eigenvalues still give finite vectors.
  L tnorm = 0;
  for (const CL& x : h.data) tnorm = std::max(tnorm, std::abs(x));
  const L small = std::max(kEps * tnorm, std::numeric_limits<L>::min());
  Dense<CL>& v = *vectors;
  v = Dense<CL>(n, n);
  for (std::int64_t k = 0; k < n; ++k) {
    std::vector<CL> y(static_cast<std::size_t>(n), CL(0));
    y[static_cast<std::size_t>(k)] = 1;
    for (std::int64_t i = k - 1; i >= 0; --i) {
      CL sum = 0;
      for (std::int64_t j = i + 1; j <= k; ++j) sum += h(i, j) * y[static_cast<std::size_t>(j)];
      CL diff = h(i, i) - h(k, k);
      if (std::abs(diff) < small) diff = small;
      y[static_cast<std::size_t>(i)] = -sum / diff;
    }
    L norm2 = 0;
    for (std::int64_t r = 0; r < n; ++r) {
      CL x = 0;
      for (std::int64_t j = 0; j <= k; ++j) x += q(r, j) * y[static_cast<std::size_t>(j)];
      v(r, k) = x;
      norm2 += std::norm(x);
    }
    const L norm = std::sqrt(norm2);
    for (std::int64_t r = 0; r < n; ++r) v(r, k) /= norm;
  }
  return true;
}

// ---- one matrix of the batch per kind: load, compute, round, gauge, store ----------------

template <class T>
std::int64_t cholesky_matrix(const Call& call, const Dense<Work<T>>& a, const Tensor& out, std::int64_t i) {
  // a = u^H u is a^H = l l^H for the lower triangle conj(a^T): the same algorithm, transposed.
  const Dense<Work<T>> h = call.upper ? adjoint(a) : a;
  Dense<Work<T>> l(a.rows, a.rows);
  const std::int64_t info = cholesky_lower(h, l);
  store(out, i, rounded<T>(call.upper ? adjoint(l) : l), a.rows);
  return info;
}

template <class T>
std::int64_t triangular_solve_matrix(const Call& call, const Dense<Work<T>>& a, std::span<const Tensor> outs,
                              std::span<const Tensor> ins, std::int64_t i) {
  Dense<Work<T>> x = load<T>(ins[1], i);
  if (x.cols == 0) return 0;  // nothing to solve, so nothing to fail
  if (!call.unit_diagonal)  // trtrs checks the whole diagonal before it solves
    for (std::int64_t j = 0; j < a.rows; ++j)
      if (a(j, j) == Work<T>(0)) return j + 1;
  substitute(a, call.upper, call.unit_diagonal, call.trans, x);
  store(outs[0], i, rounded<T>(x), x.rows);
  return 0;
}

template <class T>
std::int64_t lu_factor_matrix(Dense<Work<T>> a, std::span<const Tensor> outs, std::int64_t i) {
  std::vector<std::int32_t> pivots(static_cast<std::size_t>(std::min(a.rows, a.cols)));
  const std::int64_t info = lu_factor(a, pivots);
  store(outs[0], i, rounded<T>(a), a.rows);
  store_vector<std::int32_t>(outs[1], i, pivots);
  return info;
}

// Det: the signed pivots' product in working precision, rounded once; exactly zero for an
// exactly zero pivot (ops/det_product.hpp's rule).
template <class T>
std::int64_t det_matrix(Dense<Work<T>> a, std::span<const Tensor> outs, std::int64_t i) {
  std::vector<std::int32_t> pivots(static_cast<std::size_t>(a.rows));
  const std::int64_t info = lu_factor(a, pivots);
  Work<T> det(1);
  for (std::int64_t k = 0; k < a.rows; ++k)
    det *= pivots[static_cast<std::size_t>(k)] != k + 1 ? -a(k, k) : a(k, k);
  Dense<Work<T>> d(1, 1);
  d.data[0] = info > 0 ? Work<T>(0) : det;
  store_vector<T>(outs[0], i, rounded<T>(d));
  return info;
}

template <class T>
void lu_solve_matrix(const Call& call, const Dense<Work<T>>& lu, std::span<const Tensor> outs, std::span<const Tensor> ins,
              std::int64_t i) {
  std::vector<std::int32_t> pivots(static_cast<std::size_t>(lu.rows));
  MatrixBatch(ins[1], 1).gather(i, pivots.data(), lu.rows);
  Dense<Work<T>> x = load<T>(ins[2], i);
  lu_solve(lu, pivots, call.trans, x);
  store(outs[0], i, rounded<T>(x), x.rows);
}

// Solve: lu_factor's factors, unrounded, then lu_solve's substitutions.
template <class T>
std::int64_t solve_matrix(Dense<Work<T>> a, std::span<const Tensor> outs, std::span<const Tensor> ins, std::int64_t i) {
  std::vector<std::int32_t> pivots(static_cast<std::size_t>(a.rows));
  const std::int64_t info = lu_factor(a, pivots);
  if (info != 0) return info;
  Dense<Work<T>> x = load<T>(ins[1], i);
  lu_solve(a, pivots, Trans::None, x);
  store(outs[0], i, rounded<T>(x), x.rows);
  return 0;
}

template <class T>
void qr_matrix(const Call& call, const Dense<Work<T>>& a, std::span<const Tensor> outs, std::int64_t i) {
  const std::int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  const std::int64_t kq = call.vectors && call.complete ? m : k;
  Dense<Work<T>> q(0, 0), r(kq, n);
  householder_qr(a, kq, call.vectors, q, r);
  std::vector<T> rr = rounded<T>(r);
  if (!call.vectors) {
    linalg_detail::gauge_qr<T>(nullptr, m, m, rr.data(), k, n, kq);
    store(outs[0], i, rr, kq);
    return;
  }
  std::vector<T> qq = rounded<T>(q);
  linalg_detail::gauge_qr(qq.data(), m, m, rr.data(), k, n, kq);
  store(outs[0], i, qq, m);
  store(outs[1], i, rr, kq);
}

template <class T>
std::int64_t eigh_matrix(const Call& call, const Dense<Work<T>>& a, std::span<const Tensor> outs, std::int64_t i) {
  const std::int64_t n = a.rows;
  Dense<Work<T>> h(n, n);  // the Hermitian matrix of the triangle read
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t r = 0; r < n; ++r) {
      const bool read = call.upper ? r <= c : r >= c;
      h(r, c) = r == c ? Work<T>(real_of(a(r, c))) : read ? a(r, c) : conj_of(a(c, r));
    }
  std::vector<L> w;
  Dense<Work<T>> v(0, 0);
  const bool converged = jacobi_eigh(h, w, v);
  store_vector<Real<T>>(outs[0], i, w);
  if (call.vectors) {
    std::vector<T> vv = rounded<T>(v);
    linalg_detail::gauge_columns(vv.data(), n, n, n);
    store(outs[1], i, vv, n);
  }
  return converged ? 0 : 1;
}

template <class T>
std::int64_t svd_matrix(const Call& call, const Dense<Work<T>>& a, std::span<const Tensor> outs, std::int64_t i) {
  const std::int64_t m = a.rows, n = a.cols, k = std::min(m, n);
  const std::int64_t ku = call.complete ? m : k, kv = call.complete ? n : k;
  // Hestenes wants at least as many rows as columns: a^H = v diag(s) left^H when m < n.
  const bool tall = m >= n;
  Dense<Work<T>> left(0, 0), right(0, 0);
  std::vector<L> s;
  const bool converged = hestenes_svd(tall ? a : adjoint(a), tall ? ku : kv, left, s, right);
  if (!call.vectors) {
    store_vector<Real<T>>(outs[0], i, s);
    return converged ? 0 : 1;
  }
  std::vector<T> u = rounded<T>(tall ? left : right), vh = rounded<T>(adjoint(tall ? right : left));
  linalg_detail::gauge_columns(u.data(), m, k, m, vh.data(), n, kv, k);
  if (ku > k) linalg_detail::gauge_columns(u.data() + k * m, m, ku - k, m);
  if (kv > k) linalg_detail::gauge_rows(vh.data(), k, kv, n, kv);
  store(outs[0], i, u, m);
  store_vector<Real<T>>(outs[1], i, s);
  store(outs[2], i, vh, kv);
  return converged ? 0 : 1;
}

template <class T>
std::int64_t eig_matrix(const Call& call, const Dense<Work<T>>& a, std::span<const Tensor> outs, std::int64_t i) {
  using C = std::complex<Real<T>>;
  const std::int64_t n = a.rows;
  Dense<CL> h(n, n);
  for (std::size_t e = 0; e < h.data.size(); ++e) h.data[e] = CL(a.data[e]);
  std::vector<CL> w;
  Dense<CL> v(0, 0);
  if (!schur_eig(std::move(h), w, call.vectors ? &v : nullptr)) return 1;
  store_vector<C>(outs[0], i, w);
  if (call.vectors) {
    std::vector<C> vv = rounded<C>(v);
    linalg_detail::gauge_columns(vv.data(), n, n, n);
    store(outs[1], i, vv, n);
  }
  return 0;
}

// Matrix i: LAPACK's info (0 on success), or a failure for a non-finite input.
template <class T>
Status one_matrix(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins, std::int64_t i) {
  bool all_finite = true;
  const Dense<Work<T>> a = load<T>(ins[0], i, &all_finite);
  if (linalg_detail::factorizes(call.kind) && !all_finite) return Failure{i, 0, true};
  std::int64_t info = 0;
  switch (call.kind) {
    case Kind::Cholesky: info = cholesky_matrix<T>(call, a, outs[0], i); break;
    case Kind::TriangularSolve: info = triangular_solve_matrix<T>(call, a, outs, ins, i); break;
    case Kind::LuFactor: info = lu_factor_matrix<T>(a, outs, i); break;
    case Kind::Det: info = det_matrix<T>(a, outs, i); break;
    case Kind::LuSolve: lu_solve_matrix<T>(call, a, outs, ins, i); break;
    case Kind::Solve: info = solve_matrix<T>(a, outs, ins, i); break;
    case Kind::Qr: qr_matrix<T>(call, a, outs, i); break;
    case Kind::Eigh: info = eigh_matrix<T>(call, a, outs, i); break;
    case Kind::Svd: info = svd_matrix<T>(call, a, outs, i); break;
    case Kind::Eig: info = eig_matrix<T>(call, a, outs, i); break;
  }
  if (info != 0) return Failure{i, info, false};
  return std::nullopt;
}

template <class T>
Status run(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins) {
  Status first;
  const std::int64_t count = MatrixBatch(ins[0]).count();
  for (std::int64_t i = 0; i < count; ++i) {
    const Status status = one_matrix<T>(call, outs, ins, i);
    if (status && !first) first = status;
  }
  return first;
}

}  // namespace

linalg_detail::Status linalg(const linalg_detail::Call& call, std::span<const Tensor> outs,
                             std::span<const Tensor> ins) {
  switch (ins[0].dtype()) {
    case DType::F32: return run<float>(call, outs, ins);
    case DType::F64: return run<double>(call, outs, ins);
    case DType::C64: return run<std::complex<float>>(call, outs, ins);
    case DType::C128: return run<std::complex<double>>(call, outs, ins);
    default:
      check::fail_unsupported_dtype("linalg", ins[0].dtype(), "F32, F64, C64 or C128", SourceLocation::current());
  }
}

}  // namespace tensora::reference
