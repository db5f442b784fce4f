// The Hermitian (real: symmetric) eigensolver of one large matrix on the engine's threads
// (cpu/blocked_factor.hpp): LAPACK's heevd / syevd, with the tridiagonal reduction (hetrd /
// sytrd, nearly all of the time for the eigenvalues alone) written here so that its two halves
// can be shared:
//   - the panel (LAPACK's latrd, a column at a time): each column's product of the trailing
//     matrix with its reflector, half of the reduction's work and bound by reading the matrix,
//     is cut into column blocks fixed by the trailing size (cpu/symv_kernel.hpp), one task
//     each, their partial sums added in block order;
//   - the rank-2k update of the trailing matrix after each panel: slabs of kSlab columns, each
//     a her2k (syr2k) on its diagonal block and one gemm below it.
// There is no look-ahead: the next panel's products read the whole updated trailing matrix.
// The eigenvalues then come from sterf, the eigenvectors from stedc (both on the real
// tridiagonal matrix) and Q applied to them (ormtr / unmtr) in slabs of columns
// (apply_reflectors_on). The pieces
// depend on n alone, so every engine makes the same calls and gets the same bits.
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cpu/blocked_factor.hpp"
#include "cpu/lapack.hpp"
#include "cpu/scratch.hpp"
#include "cpu/symv_kernel.hpp"

namespace tensora::cpu {

namespace {

template <class T>
using Real = lapack::Real<T>;
template <class T>
constexpr bool kComplex = !std::is_same_v<T, Real<T>>;
template <class T>
T conj_of(T x) {
  if constexpr (kComplex<T>) return std::conj(x);
  else return x;
}
template <class T>
Real<T> real_of(T x) {
  if constexpr (kComplex<T>) return x.real();
  else return x;
}

// Columns per panel: LAPACK's block size for sytrd.
constexpr int kTridiagonalPanel = 32;
// The last columns, where the trailing matrix has at most this many, are one LAPACK sytrd call.
constexpr int kTridiagonalTail = 128;
// Below this order syevd / heevd is one LAPACK call. At 256 the blocked form took 1.00-1.03x
// dsyevd's time for the eigenvalues on one thread and 0.77-0.80x zheevd's (docs/linalg.md,
// "Threads"); below it the two are level for real matrices.
constexpr int kTridiagonalMinBlocked = 256;
// Entries of the trailing lower triangle per product block, and the most blocks.
constexpr std::int64_t kSymvBlockEntries = std::int64_t{1} << 14;
constexpr int kSymvMaxBlocks = 8;

// The column blocks of the product with a p x p trailing matrix: starts[0 .. count], equal
// shares of its lower triangle, each start a multiple of 4 (the kernel's column group).
struct SymvSplit {
  int count = 1;
  std::int64_t starts[kSymvMaxBlocks + 1] = {};

  explicit SymvSplit(std::int64_t p) {
    count = static_cast<int>(std::clamp<std::int64_t>(p * (p + 1) / 2 / kSymvBlockEntries, 1, kSymvMaxBlocks));
    for (int k = 1; k < count; ++k) {
      const double start = static_cast<double>(p) * (1 - std::sqrt(1 - static_cast<double>(k) / count));
      starts[k] = std::max(starts[k - 1], std::min(p, (static_cast<std::int64_t>(start) + 2) / 4 * 4));
    }
    starts[count] = p;
  }
};

// out (p) = s v for the p x p trailing matrix s (lower triangle, leading dimension lds), one
// task per block of the split, `partial` holding each block's rows (kSymvMaxBlocks x p).
template <class T>
void symv_on(Engine& engine, const T* s, int lds, std::int64_t p, const T* v, T* out, T* partial) {
  const SymvSplit split(p);
  if (split.count == 1) {
    simd::symv_lower_columns(s, lds, p, 0, p, v, out);
    return;
  }
  engine.parallel_for(split.count, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t k = begin; k < end; ++k)
      simd::symv_lower_columns(s, lds, p, split.starts[k], split.starts[k + 1], v, partial + k * p);
  });
  std::copy(partial, partial + p, out);  // block 0 covers every row
  for (int k = 1; k < split.count; ++k) {
    const T* part = partial + k * p;
    T* rows = out + split.starts[k];
    for (std::int64_t r = 0, count = p - split.starts[k]; r < count; ++r) rows[r] += part[r];
  }
}

// LAPACK's latrd (latrd / zlatrd) for the lower triangle: reduces the first nb columns of the
// m x m matrix a, leaving the reflectors below the subdiagonal (with a unit on it), their
// scalars in tau, the real subdiagonal in e, and w (m x nb, leading dimension m) such that the
// trailing matrix's update is a22 - v w^H - w v^H.
template <class T>
void latrd(Engine& engine, int m, int nb, T* a, int lda, Real<T>* e, T* tau, T* w, T* partial) {
  const auto at = [&](int r, int c) { return element_at(a, lda, r, c); };
  const auto wt = [&](int r, int c) { return element_at(w, m, r, c); };
  std::array<T, kTridiagonalPanel> row{};  // a row of w or a, conjugated (LAPACK's lacgv)
  const auto conj_row = [&](const T* p, int ld, int count) {
    for (int k = 0; k < count; ++k) row[static_cast<std::size_t>(k)] = conj_of(p[k * ld]);
    return row.data();
  };
  for (int c = 0; c < nb; ++c) {
    // This column's update by the panel's earlier ones; a Hermitian diagonal entry is real.
    *at(c, c) = real_of(*at(c, c));
    if (c > 0) {
      lapack::gemv('N', m - c, c, T(-1), at(c, 0), lda, conj_row(wt(c, 0), m, c), 1, T(1), at(c, c));
      lapack::gemv('N', m - c, c, T(-1), wt(c, 0), m, conj_row(at(c, 0), lda, c), 1, T(1), at(c, c));
      *at(c, c) = real_of(*at(c, c));
    }
    const int q = m - c - 1;  // the reflector's length (m > nb: at least 1)
    lapack::larfg(q, at(c + 1, c), at(std::min(c + 2, m - 1), c), tau + c);
    e[c] = real_of(*at(c + 1, c));
    *at(c + 1, c) = T(1);
    const T* v = at(c + 1, c);
    T* wc = wt(c + 1, c);
    symv_on(engine, at(c + 1, c + 1), lda, q, v, wc, partial);
    if (c > 0) {  // w's column, less the panel's earlier columns' share (w's rows < c: scratch)
      T* tmp = wt(0, c);
      lapack::gemv('C', q, c, T(1), wt(c + 1, 0), m, v, 1, T(0), tmp);
      lapack::gemv('N', q, c, T(-1), at(c + 1, 0), lda, tmp, 1, T(1), wc);
      lapack::gemv('C', q, c, T(1), at(c + 1, 0), lda, v, 1, T(0), tmp);
      lapack::gemv('N', q, c, T(-1), wt(c + 1, 0), m, tmp, 1, T(1), wc);
    }
    T dot = 0;  // w^H v
    for (int r = 0; r < q; ++r) dot += conj_of(wc[r] *= tau[c]) * v[r];
    const T alpha = Real<T>(-0.5) * tau[c] * dot;
    for (int r = 0; r < q; ++r) wc[r] += alpha * v[r];
  }
}

}  // namespace

template <class T>
void sytrd_on(Engine& engine, int n, T* a, int lda, Real<T>* d, Real<T>* e, T* tau) {
  constexpr int nb = kTridiagonalPanel;
  Scratch<T> w(static_cast<std::size_t>(n) * 3 * nb);  // latrd's w, then [w v w] for the update
  Scratch<T> partial(static_cast<std::size_t>(n) * kSymvMaxBlocks);
  int i = 0;
  for (; n - i > std::max(kTridiagonalTail, nb); i += nb) {
    const int m = n - i, t = m - nb;  // the panel's rows, the trailing matrix's order
    T* panel = element_at(a, lda, i, i);
    latrd(engine, m, nb, panel, lda, e + i, tau + i, w.data(), partial.data());
    // z = [w v w] (rows nb .. m): the update a22 -= v w^H + w v^H is [v w] [w v]^H.
    T* z = w.data();
    for (int c = 0; c < nb; ++c) {
      std::copy(element_at(panel, lda, nb, c), element_at(panel, lda, m, c), element_at(z, m, nb, nb + c));
      std::copy(element_at(z, m, nb, c), element_at(z, m, m, c), element_at(z, m, nb, 2 * nb + c));
    }
    T* a22 = element_at(panel, lda, nb, nb);
    const T* vw = element_at(z, m, nb, nb);  // [v w], row 0 = the trailing matrix's row 0
    const T* wv = element_at(z, m, nb, 0);   // [w v]
    for_each_slab(engine, 0, t, [&](int c0, int cw) {
      lapack::her2k(cw, nb, T(-1), vw + c0, m, wv + c0, m, Real<T>(1), element_at(a22, lda, c0, c0), lda);
      if (t - c0 - cw > 0)
        lapack::gemm('N', 'C', t - c0 - cw, cw, 2 * nb, T(-1), vw + c0 + cw, m, wv + c0, m, T(1),
                     element_at(a22, lda, c0 + cw, c0), lda);
    });
    for (int c = 0; c < nb; ++c) {
      *element_at(panel, lda, c + 1, c) = e[i + c];
      d[i + c] = real_of(*element_at(panel, lda, c, c));
    }
  }
  lapack::hetrd(n - i, element_at(a, lda, i, i), lda, d + i, e + i, tau + i);
}

template <class T>
int heevd_on(Engine& engine, char jobz, char uplo, int n, T* a, int lda, Real<T>* w) {
  using R = Real<T>;
  if (n < kTridiagonalMinBlocked) return lapack::heevd(jobz, uplo, n, a, lda, w);
  // The upper triangle mirrored into the lower one, in tiles (a conjugate transpose).
  if (uplo == 'U') {
    constexpr int kTile = 64;
    for (int c0 = 0; c0 < n; c0 += kTile)
      for (int r0 = 0; r0 <= c0; r0 += kTile)
        for (int c = c0; c < std::min(n, c0 + kTile); ++c)
          for (int r = r0; r < std::min(c, r0 + kTile); ++r)
            *element_at(a, lda, c, r) = conj_of(*element_at(a, lda, r, c));
  }
  // syevd's scaling: a matrix whose largest entry is outside [rmin, rmax] is scaled into it
  // first (the reduction's sums of squares neither overflow nor underflow) and the
  // eigenvalues scaled back. A complex entry's size is its larger part here (within sqrt(2) of
  // its modulus, without a hypot per entry).
  const R eps = std::numeric_limits<R>::epsilon(), smallest = std::numeric_limits<R>::min() / eps;
  const R rmin = std::sqrt(smallest), rmax = std::sqrt(1 / smallest);
  R norm = 0;
  for (int c = 0; c < n; ++c)
    for (int r = c; r < n; ++r) {
      const T x = *element_at(a, lda, r, c);
      if constexpr (kComplex<T>) norm = std::max({norm, std::abs(x.real()), std::abs(x.imag())});
      else norm = std::max(norm, std::abs(x));
    }
  const R sigma = norm > 0 && norm < rmin ? rmin / norm : norm > rmax ? rmax / norm : R(1);
  if (sigma != 1)
    for (int c = 0; c < n; ++c)
      for (int r = c; r < n; ++r) *element_at(a, lda, r, c) *= sigma;
  Scratch<R> e(static_cast<std::size_t>(n));
  Scratch<T> tau(static_cast<std::size_t>(n));
  sytrd_on(engine, n, a, lda, w, e.data(), tau.data());
  int info = 0;
  if (jobz == 'N') {
    info = lapack::sterf(n, w, e.data());
  } else {
    // The tridiagonal matrix's eigenvectors are real; Q turns them into a's.
    Scratch<R> z(static_cast<std::size_t>(n) * n);
    info = lapack::stedc(n, w, e.data(), z.data(), n);
    if (info == 0) {
      // Q applies in place of the vectors (complex: a complex copy of them), then into a.
      // Q = diag(1, H(0) ... H(n - 2)), the reflectors below a's subdiagonal.
      const auto finish = [&](T* vectors) {
        apply_reflectors_on(engine, n - 1, n - 1, element_at(a, lda, 1, 0), lda, tau.data(),
                            element_at(vectors, n, 1, 0), n, n);
        for (int c = 0; c < n; ++c)
          std::copy(element_at(vectors, n, 0, c), element_at(vectors, n, n, c), element_at(a, lda, 0, c));
      };
      if constexpr (kComplex<T>) {
        Scratch<T> vectors(static_cast<std::size_t>(n) * n);
        std::copy(z.begin(), z.end(), vectors.begin());
        finish(vectors.data());
      } else {
        finish(z.data());
      }
    }
  }
  if (sigma != 1)
    for (int k = 0; k < n; ++k) w[k] /= sigma;
  return info;
}

#define TENSORA_BLOCKED_TRIDIAGONAL_INSTANTIATE(T) \
  template int heevd_on<T>(Engine&, char, char, int, T*, int, lapack::Real<T>*);
TENSORA_LAPACK_TYPES(TENSORA_BLOCKED_TRIDIAGONAL_INSTANTIATE)
#undef TENSORA_BLOCKED_TRIDIAGONAL_INSTANTIATE
#define TENSORA_SYTRD_INSTANTIATE(T) \
  template void sytrd_on<T>(Engine&, int, T*, int, lapack::Real<T>*, lapack::Real<T>*, T*);
TENSORA_LAPACK_TYPES(TENSORA_SYTRD_INSTANTIATE)
#undef TENSORA_SYTRD_INSTANTIATE

}  // namespace tensora::cpu
