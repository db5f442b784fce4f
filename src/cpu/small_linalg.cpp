// Small-matrix kernels: kGroup matrices at a time, each element of a group one vector of
// kGroup lanes (a GCC vector type of that many elements, which the compiler splits into the
// instruction set's registers). The algorithms are LAPACK's unblocked ones (getf2, getrs,
// potf2) and cyclic Jacobi for eigh, written once over a lane vector; where LAPACK branches per matrix (the pivot row, a
// zero pivot, a failing minor), the lanes select. Instantiated for AVX-512, AVX2 and baseline
// x86-64, picked with the GEMM kernels' choice (gemm::kernel_isa).
#include "cpu/small_linalg.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string_view>

#include "backend/matrix_batch.hpp"
#include "cpu/gemm_kernels.hpp"

// Vector types as arguments of always-inline helpers: no ABI crosses a real call.
#pragma GCC diagnostic ignored "-Wpsabi"

#define TENSORA_KERNEL_INLINE [[gnu::always_inline]] inline

namespace tensora::cpu::small_linalg {

namespace {

using backend::MatrixBatch;
using linalg_detail::Call;
using linalg_detail::Failure;
using linalg_detail::Kind;
using linalg_detail::Status;
using linalg_detail::Trans;

constexpr int G = static_cast<int>(kGroup);
constexpr std::int64_t kMax = kMaxOrder;

template <class T>
struct Lanes {
  typedef T V __attribute__((vector_size(G * sizeof(T))));
};
template <class T>
using Vec = typename Lanes<T>::V;

template <class T>
TENSORA_KERNEL_INLINE Vec<T> splat(T x) {
  return Vec<T>{} + x;
}
template <class T>
TENSORA_KERNEL_INLINE Vec<T> abs_of(Vec<T> x) {
  return x < splat<T>(0) ? -x : x;
}

// ---- the algorithms, on n x n lane matrices (column-major, element (r, c) at r + c * n) ----

// getf2: a = p l u in place (l unit lower below the diagonal, u on and above it); piv the
// 1-based row interchanges; info the first exactly zero pivot (0: none), the factorization
// going on past it as LAPACK's does.
template <class T, int N>
TENSORA_KERNEL_INLINE void lu_factor(std::int64_t n_, Vec<T>* a, Vec<T>* piv, Vec<T>& info) {
  using W = Vec<T>;
  const std::int64_t n = N != 0 ? N : n_;
  for (std::int64_t k = 0; k < n; ++k) {
    // The first row of largest modulus (LAPACK's i?amax).
    W best = abs_of<T>(a[k + k * n]), p = splat<T>(static_cast<T>(k));
    for (std::int64_t r = k + 1; r < n; ++r) {
      const W x = abs_of<T>(a[r + k * n]);
      const auto larger = x > best;
      best = larger ? x : best;
      p = larger ? splat<T>(static_cast<T>(r)) : p;
    }
    piv[k] = p + static_cast<T>(1);
    for (std::int64_t r = k + 1; r < n; ++r) {
      const auto swap = p == splat<T>(static_cast<T>(r));
      for (std::int64_t c = 0; c < n; ++c) {
        const W x = a[k + c * n], y = a[r + c * n];
        a[k + c * n] = swap ? y : x;
        a[r + c * n] = swap ? x : y;
      }
    }
    const W pivot = a[k + k * n];
    const auto zero = pivot == splat<T>(0);
    info = (info == splat<T>(0)) & zero ? splat<T>(static_cast<T>(k + 1)) : info;
    // A zero pivot is the column's largest entry: the column below it is zero and stays so.
    const W divisor = zero ? splat<T>(1) : pivot;
    for (std::int64_t r = k + 1; r < n; ++r) a[r + k * n] /= divisor;
    for (std::int64_t c = k + 1; c < n; ++c)
      for (std::int64_t r = k + 1; r < n; ++r) a[r + c * n] -= a[r + k * n] * a[k + c * n];
  }
}

// getrs (no transpose): b (n x cols) = a^-1 b from lu_factor's lu and pivots.
template <class T, int N>
TENSORA_KERNEL_INLINE void lu_solve(std::int64_t n_, const Vec<T>* lu, const Vec<T>* piv, Vec<T>* b,
                                    std::int64_t cols) {
  using W = Vec<T>;
  const std::int64_t n = N != 0 ? N : n_;
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t r = k + 1; r < n; ++r) {
      const auto swap = piv[k] == splat<T>(static_cast<T>(r + 1));
      for (std::int64_t j = 0; j < cols; ++j) {
        const W x = b[k + j * n], y = b[r + j * n];
        b[k + j * n] = swap ? y : x;
        b[r + j * n] = swap ? x : y;
      }
    }
  for (std::int64_t j = 0; j < cols; ++j) {
    W* x = b + j * n;
    for (std::int64_t c = 0; c < n; ++c)
      for (std::int64_t r = c + 1; r < n; ++r) x[r] -= lu[r + c * n] * x[c];
    for (std::int64_t c = n - 1; c >= 0; --c) {
      x[c] /= lu[c + c * n];
      for (std::int64_t r = 0; r < c; ++r) x[r] -= lu[r + c * n] * x[c];
    }
  }
}

// potf2 (lower): a = l l^T in place in the lower triangle; info the order of the first leading
// minor that is not positive (0: none). A failing lane goes on with a unit pivot; its result is
// discarded by the caller, as LAPACK stops there.
template <class T, int N>
TENSORA_KERNEL_INLINE void cholesky(std::int64_t n_, Vec<T>* a, Vec<T>& info) {
  using W = Vec<T>;
  const std::int64_t n = N != 0 ? N : n_;
  for (std::int64_t j = 0; j < n; ++j) {
    W d = a[j + j * n];
    for (std::int64_t k = 0; k < j; ++k) d -= a[j + k * n] * a[j + k * n];
    const auto bad = ~(d > splat<T>(0));  // NaN fails too
    info = (info == splat<T>(0)) & bad ? splat<T>(static_cast<T>(j + 1)) : info;
    d = bad ? splat<T>(1) : d;
    W root = d;
    for (int l = 0; l < G; ++l) root[l] = std::sqrt(d[l]);
    a[j + j * n] = root;
    for (std::int64_t i = j + 1; i < n; ++i) {
      W s = a[i + j * n];
      for (std::int64_t k = 0; k < j; ++k) s -= a[i + k * n] * a[j + k * n];
      a[i + j * n] = s / root;
    }
  }
}

// Cyclic Jacobi on the symmetric a (both triangles filled): w ascending, v's columns the
// eigenvectors with their largest-modulus entry (the first of equals) positive, as every
// backend gauges them. Sweeps until every lane's off-diagonal mass is below eps^2 of its norm;
// info 1 for a lane still above it after kSweeps sweeps (syevd's "no convergence").
template <class T, int N>
TENSORA_KERNEL_INLINE void jacobi_eigh(std::int64_t n_, Vec<T>* a, Vec<T>* w, Vec<T>* v, bool vectors, Vec<T>& info) {
  using W = Vec<T>;
  constexpr int kSweeps = 60;
  const std::int64_t n = N != 0 ? N : n_;
  const T eps = std::numeric_limits<T>::epsilon();
  W norm2 = splat<T>(0);
  for (std::int64_t e = 0; e < n * n; ++e) norm2 += a[e] * a[e];
  for (std::int64_t c = 0; c < n; ++c)
    for (std::int64_t r = 0; r < n; ++r) v[r + c * n] = splat<T>(r == c ? 1 : 0);
  const auto off_mass = [&] {
    W off = splat<T>(0);
    for (std::int64_t c = 0; c < n; ++c)
      for (std::int64_t r = 0; r < n; ++r)
        if (r != c) off += a[r + c * n] * a[r + c * n];
    return off;
  };
  bool converged = false;
  for (int sweep = 0; sweep < kSweeps && !converged; ++sweep) {
    const auto done = off_mass() <= norm2 * (eps * eps);
    converged = true;
    for (int l = 0; l < G; ++l) converged = converged && done[l] != 0;
    if (converged) break;
    for (std::int64_t p = 0; p < n; ++p)
      for (std::int64_t q = p + 1; q < n; ++q) {
        const W apq = a[p + q * n];
        const auto zero = apq == splat<T>(0);
        // The rotation that zeroes a(p, q): t = tan, the smaller root (Golub and Van Loan 8.5.2).
        const W theta = (a[q + q * n] - a[p + p * n]) / (splat<T>(2) * (zero ? splat<T>(1) : apq));
        W root = theta * theta + splat<T>(1);
        for (int l = 0; l < G; ++l) root[l] = std::sqrt(root[l]);
        const W at = abs_of<T>(theta);
        W t = splat<T>(1) / (at + root);
        t = theta < splat<T>(0) ? -t : t;
        t = zero ? splat<T>(0) : t;
        W c = t * t + splat<T>(1);
        for (int l = 0; l < G; ++l) c[l] = T(1) / std::sqrt(c[l]);
        const W sn = t * c;
        for (std::int64_t k = 0; k < n; ++k) {  // columns p, q
          const W x = a[k + p * n], y = a[k + q * n];
          a[k + p * n] = c * x - sn * y;
          a[k + q * n] = sn * x + c * y;
        }
        for (std::int64_t k = 0; k < n; ++k) {  // rows p, q
          const W x = a[p + k * n], y = a[q + k * n];
          a[p + k * n] = c * x - sn * y;
          a[q + k * n] = sn * x + c * y;
        }
        a[p + q * n] = a[q + p * n] = splat<T>(0);  // what the rotation was chosen to make exactly
        if (vectors)
          for (std::int64_t k = 0; k < n; ++k) {
            const W x = v[k + p * n], y = v[k + q * n];
            v[k + p * n] = c * x - sn * y;
            v[k + q * n] = sn * x + c * y;
          }
      }
  }
  const auto done = off_mass() <= norm2 * (eps * eps);
  info = done ? info : splat<T>(1);
  for (std::int64_t i = 0; i < n; ++i) w[i] = a[i + i * n];
  // Ascending, stable: adjacent compare-swaps (a bubble sort), the vectors moving along.
  for (std::int64_t pass = 0; pass + 1 < n; ++pass)
    for (std::int64_t i = 0; i + 1 < n - pass; ++i) {
      const auto swap = w[i + 1] < w[i];
      const W x = w[i], y = w[i + 1];
      w[i] = swap ? y : x;
      w[i + 1] = swap ? x : y;
      if (vectors)
        for (std::int64_t k = 0; k < n; ++k) {
          const W vx = v[k + i * n], vy = v[k + (i + 1) * n];
          v[k + i * n] = swap ? vy : vx;
          v[k + (i + 1) * n] = swap ? vx : vy;
        }
    }
  if (!vectors) return;
  for (std::int64_t j = 0; j < n; ++j) {  // the gauge
    W best = abs_of<T>(v[j * n]), value = v[j * n];
    for (std::int64_t k = 1; k < n; ++k) {
      const W x = v[k + j * n];
      const auto larger = abs_of<T>(x) > best;
      best = larger ? abs_of<T>(x) : best;
      value = larger ? x : value;
    }
    const W sign = value < splat<T>(0) ? splat<T>(-1) : splat<T>(1);
    for (std::int64_t k = 0; k < n; ++k) v[k + j * n] *= sign;
  }
}

// ---- one group: gather, compute, scatter ------------------------------------------------

template <class T>
bool finite(const T* p, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i)
    if (!std::isfinite(p[i])) return false;
  return true;
}

// Lane buffer <- matrix first + l of `batch` (rows x cols) for l < count; the other lanes get
// `pad` (an identity keeps them from failing). `transpose`: the lane holds the matrix's transpose.
template <class T, class E>
void gather(const MatrixBatch& batch, std::int64_t first, int count, Vec<T>* lanes, E* dense, bool transpose,
            const T* pad, bool* all_finite) {
  const std::int64_t rows = batch.rows(), cols = batch.cols(), size = rows * cols;
  for (int l = 0; l < G; ++l) {
    if (l < count) {
      batch.gather(first + l, dense, rows);
      if (all_finite != nullptr) all_finite[l] = finite(dense, size);
    }
    for (std::int64_t c = 0; c < cols; ++c)
      for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t e = r + c * rows;
        lanes[transpose ? c + r * cols : e][l] = l < count ? static_cast<T>(dense[e]) : pad[e];
      }
  }
}

// Matrix first + l of `batch` <- lane l, for l < count.
template <class T, class E>
void scatter(const MatrixBatch& batch, std::int64_t first, int count, const Vec<T>* lanes, E* dense, bool transpose) {
  const std::int64_t rows = batch.rows(), cols = batch.cols();
  for (int l = 0; l < count; ++l) {
    for (std::int64_t c = 0; c < cols; ++c)
      for (std::int64_t r = 0; r < rows; ++r)
        dense[r + c * rows] = static_cast<E>(lanes[transpose ? c + r * cols : r + c * rows][l]);
    batch.scatter(first + l, dense, rows);
  }
}

template <class T, int N>
TENSORA_KERNEL_INLINE Status group(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins,
                                   std::int64_t first, int count) {
  using W = Vec<T>;
  const MatrixBatch a(ins[0]);
  const std::int64_t n = a.rows();
  T eye[kMax * kMax] = {};
  for (std::int64_t i = 0; i < n; ++i) eye[i + i * n] = T(1);
  T dense[kMax * kMax];
  W m[kMax * kMax], piv[kMax];
  W info = splat<T>(0);
  bool ok[G];
  std::fill(ok, ok + G, true);
  switch (call.kind) {
    case Kind::Cholesky: {
      // upper: a = u^T u is a^T = l l^T for the lower triangle of a^T, read from a's upper one.
      gather<T>(a, first, count, m, dense, call.upper, eye, ok);
      cholesky<T, N>(n, m, info);
      for (std::int64_t c = 0; c < n; ++c)
        for (std::int64_t r = 0; r < c; ++r) m[r + c * n] = splat<T>(0);
      scatter<T>(MatrixBatch(outs[0]), first, count, m, dense, call.upper);
      break;
    }
    case Kind::LuFactor: {
      gather<T>(a, first, count, m, dense, false, eye, ok);
      lu_factor<T, N>(n, m, piv, info);
      scatter<T>(MatrixBatch(outs[0]), first, count, m, dense, false);
      std::int32_t p[kMax];
      scatter<T>(MatrixBatch(outs[1], 1), first, count, piv, p, false);
      break;
    }
    case Kind::LuSolve: {
      gather<T>(a, first, count, m, dense, false, eye, nullptr);
      std::int32_t p[kMax];
      T pad[kMax];  // no interchange
      for (std::int64_t i = 0; i < n; ++i) pad[i] = static_cast<T>(i + 1);
      gather<T>(MatrixBatch(ins[1], 1), first, count, piv, p, false, pad, nullptr);
      // The right-hand sides kMax columns at a time, on the stack (lane vectors are over-aligned).
      const std::int64_t cols = ins[2].shape().back();
      const T zeros[kMax * kMax] = {};
      for (std::int64_t j0 = 0; j0 < cols; j0 += kMax) {
        const std::int64_t j1 = std::min(cols, j0 + kMax);
        const Tensor b = ins[2].slice(-1, j0, j1), x_out = outs[0].slice(-1, j0, j1);
        W x[kMax * kMax];
        gather<T>(MatrixBatch(b), first, count, x, dense, false, zeros, nullptr);
        lu_solve<T, N>(n, m, piv, x, j1 - j0);
        scatter<T>(MatrixBatch(x_out), first, count, x, dense, false);
      }
      break;
    }
    case Kind::Eigh: {
      // The triangle read, mirrored into the other one.
      gather<T>(a, first, count, m, dense, false, eye, ok);
      for (std::int64_t c = 0; c < n; ++c)
        for (std::int64_t r = 0; r < n; ++r)
          if (call.upper ? r > c : r < c) m[r + c * n] = m[c + r * n];
      W w[kMax], v[kMax * kMax];
      jacobi_eigh<T, N>(n, m, w, v, call.vectors, info);
      T values[kMax];
      scatter<T>(MatrixBatch(outs[0], 1), first, count, w, values, false);
      if (call.vectors) scatter<T>(MatrixBatch(outs[1]), first, count, v, dense, false);
      break;
    }
    default: break;
  }
  for (int l = 0; l < count; ++l) {
    if (!ok[l]) return Failure{first + l, 0, true};
    if (info[l] != 0) return Failure{first + l, static_cast<std::int64_t>(info[l]), false};
  }
  return std::nullopt;
}

template <class T>
TENSORA_KERNEL_INLINE Status range_impl(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins,
                                        std::int64_t begin, std::int64_t end) {
  const std::int64_t n = MatrixBatch(ins[0]).rows();
  for (std::int64_t first = begin; first < end; first += G) {
    const int count = static_cast<int>(std::min<std::int64_t>(G, end - first));
    Status s;
    switch (n) {  // fixed sizes: loops fully unrolled
      case 2: s = group<T, 2>(call, outs, ins, first, count); break;
      case 3: s = group<T, 3>(call, outs, ins, first, count); break;
      case 4: s = group<T, 4>(call, outs, ins, first, count); break;
      default: s = group<T, 0>(call, outs, ins, first, count); break;
    }
    if (s) return s;  // groups run in batch order: the first failure is the batch's first
  }
  return std::nullopt;
}

#define TENSORA_TARGET_AVX512 __attribute__((target("avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,bmi2")))
#define TENSORA_TARGET_AVX2 __attribute__((target("avx2,fma,bmi2")))

template <class T>
TENSORA_TARGET_AVX512 Status range_avx512(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins,
                                          std::int64_t begin, std::int64_t end) {
  return range_impl<T>(call, outs, ins, begin, end);
}
template <class T>
TENSORA_TARGET_AVX2 Status range_avx2(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins,
                                      std::int64_t begin, std::int64_t end) {
  return range_impl<T>(call, outs, ins, begin, end);
}
template <class T>
Status range_base(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins, std::int64_t begin,
                  std::int64_t end) {
  return range_impl<T>(call, outs, ins, begin, end);
}

template <class T>
Status range(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins, std::int64_t begin,
             std::int64_t end) {
  const std::string_view isa = gemm::kernel_isa();
  if (isa == "avx512") return range_avx512<T>(call, outs, ins, begin, end);
  if (isa == "avx2") return range_avx2<T>(call, outs, ins, begin, end);
  return range_base<T>(call, outs, ins, begin, end);
}

}  // namespace

bool handles(const Call& call, DType dtype, std::int64_t m, std::int64_t n) {
  if (dtype != DType::F32 && dtype != DType::F64) return false;
  if (m != n || n < 1 || n > kMaxOrder) return false;
  return call.kind == Kind::Cholesky || call.kind == Kind::LuFactor || call.kind == Kind::Eigh ||
         (call.kind == Kind::LuSolve && call.trans == Trans::None);
}

Status run(const Call& call, std::span<const Tensor> outs, std::span<const Tensor> ins, std::int64_t begin,
           std::int64_t end) {
  return ins[0].dtype() == DType::F32 ? range<float>(call, outs, ins, begin, end)
                                      : range<double>(call, outs, ins, begin, end);
}

}  // namespace tensora::cpu::small_linalg
