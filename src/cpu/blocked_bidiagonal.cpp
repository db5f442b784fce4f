// The SVD of one large real matrix on the engine's threads (cpu/blocked_factor.hpp): gesdd's
// steps (scaling, the bidiagonal reduction, bdsdc, and for the vectors Q and P applied to
// bdsdc's), with the reduction (gebrd, nearly all of the time for the values alone) written
// here so that its parts can be shared:
//   - the panel (LAPACK's labrd, a column at a time): each column's two products with the
//     trailing matrix, a^T u and a v, half of the reduction's work and bound by reading the
//     matrix, are cut into fixed blocks, a^T u by columns and a v by rows, one task each (every
//     entry of a result is one block's, so nothing is summed across blocks);
//   - the trailing update after each panel, a22 -= v y^T + x u^T: slabs of kSlab columns, two
//     gemm each;
//   - Q and P applied to the bidiagonal matrix's vectors in slabs of columns
//     (apply_reflectors_on).
// The pieces depend on the shape alone, so every engine makes the same calls and gets the
// same bits.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "cpu/blocked_factor.hpp"
#include "cpu/lapack.hpp"
#include "cpu/scratch.hpp"

namespace tensora::cpu {

namespace {

// Columns per panel and the last columns done by one LAPACK gebrd call (LAPACK's nb and nx).
constexpr int kBidiagonalPanel = 32;
constexpr int kBidiagonalTail = 128;
// The blocked form for matrices with at least this many rows and columns (one panel before the
// tail; from 136 to 224 it took 0.92-0.93x gesdd's time on one thread), and at most gesdd's 11/6
// more rows than columns (beyond it gesdd factors QR first).
constexpr int kBidiagonalMinBlocked = 160;
// Blocks of one product: one per kProductBlock rows or columns (rounded), at most
// kProductBlocks. At 1024 x 1024 blocks of 512 took 0.97x gesdd's time on one thread and were
// 1.22-1.28x faster on two, blocks of 256 1.02x and 1.23-1.34x, of 128 1.06x and 1.26x (gemv's
// set-up per column weighs more on a shorter block).
constexpr int kProductBlock = 512;
constexpr int kProductBlocks = 8;

// f(begin, end) for the blocks of [0, count): equal blocks, a multiple of 8 each, their number
// fixed by count; one task each.
template <class F>
void for_each_block(Engine& engine, int count, const F& f) {
  const int blocks = std::clamp((count + kProductBlock / 2) / kProductBlock, 1, kProductBlocks);
  const int size = ((count + blocks - 1) / blocks + 7) / 8 * 8;
  if (blocks == 1) {
    f(0, count);
    return;
  }
  engine.parallel_for(blocks, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t b = begin; b < end; ++b) {
      const int first = static_cast<int>(b) * size;
      if (first < count) f(first, std::min(count, first + size));
    }
  });
}

// dst (cols x rows, leading dimension ldd) = src^T (rows x cols, leading dimension lds), in
// square tiles so that both sides stream (a plain loop touches a new cache line per element on
// one side).
template <class T>
void transpose_into(const T* src, int lds, int rows, int cols, T* dst, int ldd) {
  constexpr int kTile = 64;
  for (int c0 = 0; c0 < cols; c0 += kTile)
    for (int r0 = 0; r0 < rows; r0 += kTile)
      for (int c = c0; c < std::min(cols, c0 + kTile); ++c)
        for (int r = r0; r < std::min(rows, r0 + kTile); ++r) *element_at(dst, ldd, c, r) = *element_at(src, lds, r, c);
}

// LAPACK's labrd for m >= n: reduces the first nb rows and columns of the m x n matrix a to
// upper bidiagonal form (d, e; the reflectors' scalars in tauq, taup), leaving x (m x nb) and
// y (n x nb) such that the trailing matrix's update is a22 - v y^T - x u^T.
template <class T>
void labrd(Engine& engine, int m, int n, int nb, T* a, int lda, T* d, T* e, T* tauq, T* taup, T* x, T* y,
           T* row) {
  const auto at = [&](int r, int c) { return element_at(a, lda, r, c); };
  const auto xt = [&](int r, int c) { return element_at(x, m, r, c); };
  const auto yt = [&](int r, int c) { return element_at(y, n, r, c); };
  for (int c = 0; c < nb; ++c) {
    // Column c's update by the panel's earlier rows and columns.
    lapack::gemv('N', m - c, c, T(-1), at(c, 0), lda, yt(c, 0), n, T(1), at(c, c));
    lapack::gemv('N', m - c, c, T(-1), xt(c, 0), m, at(0, c), 1, T(1), at(c, c));
    lapack::larfg(m - c, at(c, c), at(std::min(c + 1, m - 1), c), tauq + c);
    d[c] = *at(c, c);
    *at(c, c) = T(1);
    // y(c+1:n, c) = a(c:m, c+1:n)^T u, by blocks of columns.
    const T* u = at(c, c);
    for_each_block(engine, n - c - 1, [&](int b0, int b1) {
      lapack::gemv('T', m - c, b1 - b0, T(1), at(c, c + 1 + b0), lda, u, 1, T(0), yt(c + 1 + b0, c));
    });
    T* tmp = yt(0, c);  // y's rows < c + 1 of this column: scratch
    lapack::gemv('T', m - c, c, T(1), at(c, 0), lda, u, 1, T(0), tmp);
    lapack::gemv('N', n - c - 1, c, T(-1), yt(c + 1, 0), n, tmp, 1, T(1), yt(c + 1, c));
    lapack::gemv('T', m - c, c, T(1), xt(c, 0), m, u, 1, T(0), tmp);
    lapack::gemv('T', c, n - c - 1, T(-1), at(0, c + 1), lda, tmp, 1, T(1), yt(c + 1, c));
    for (int r = c + 1; r < n; ++r) *yt(r, c) *= tauq[c];
    // Row c's update, then the reflector that clears it right of the superdiagonal, on a
    // contiguous copy of the row (its entries are lda apart, a cache line each: LAPACK's labrd
    // passes over it nine times, which at 1024 was a quarter of the reduction's time).
    const int q = n - c - 1;
    for (int j = 0; j < q; ++j) row[j] = *at(c, c + 1 + j);
    lapack::gemv('N', q, c + 1, T(-1), yt(c + 1, 0), n, at(c, 0), lda, T(1), row);
    lapack::gemv('T', c, q, T(-1), at(0, c + 1), lda, xt(c, 0), m, T(1), row);
    lapack::larfg(q, row, row + std::min(1, q - 1), taup + c);
    e[c] = row[0];
    row[0] = T(1);
    for (int j = 0; j < q; ++j) *at(c, c + 1 + j) = row[j];
    // x(c+1:m, c) = a(c+1:m, c+1:n) v, by blocks of rows.
    const T* v = row;
    for_each_block(engine, m - c - 1, [&](int b0, int b1) {
      lapack::gemv('N', b1 - b0, n - c - 1, T(1), at(c + 1 + b0, c + 1), lda, v, 1, T(0), xt(c + 1 + b0, c));
    });
    T* xtmp = xt(0, c);  // x's rows < c + 1 of this column: scratch
    lapack::gemv('T', n - c - 1, c + 1, T(1), yt(c + 1, 0), n, v, 1, T(0), xtmp);
    lapack::gemv('N', m - c - 1, c + 1, T(-1), at(c + 1, 0), lda, xtmp, 1, T(1), xt(c + 1, c));
    lapack::gemv('N', c, n - c - 1, T(1), at(0, c + 1), lda, v, 1, T(0), xtmp);
    lapack::gemv('N', m - c - 1, c, T(-1), xt(c + 1, 0), m, xtmp, 1, T(1), xt(c + 1, c));
    for (int r = c + 1; r < m; ++r) *xt(r, c) *= taup[c];
  }
}

// gebrd for m >= n: a = Q B P^T with B upper bidiagonal (d, e).
template <class T>
void gebrd_on(Engine& engine, int m, int n, T* a, int lda, T* d, T* e, T* tauq, T* taup) {
  constexpr int nb = kBidiagonalPanel;
  Scratch<T> x(static_cast<std::size_t>(m) * nb), y(static_cast<std::size_t>(n) * nb), row(static_cast<std::size_t>(n));
  int i = 0;
  for (; n - i > std::max(kBidiagonalTail, nb); i += nb) {
    const int pm = m - i, pn = n - i;  // the panel's rows and columns
    T* panel = element_at(a, lda, i, i);
    labrd(engine, pm, pn, nb, panel, lda, d + i, e + i, tauq + i, taup + i, x.data(), y.data(), row.data());
    // a22 -= v y^T + x u^T, v the panel's columns below it, u its rows right of it.
    for_each_slab(engine, nb, pn, [&](int c0, int w) {
      T* c = element_at(panel, lda, nb, c0);
      lapack::gemm('N', 'T', pm - nb, w, nb, T(-1), element_at(panel, lda, nb, 0), lda, element_at(y.data(), pn, c0, 0),
                   pn, T(1), c, lda);
      lapack::gemm('N', 'N', pm - nb, w, nb, T(-1), element_at(x.data(), pm, nb, 0), pm, element_at(panel, lda, 0, c0),
                   lda, T(1), c, lda);
    });
    for (int c = 0; c < nb; ++c) {
      *element_at(panel, lda, c, c) = d[i + c];
      *element_at(panel, lda, c, c + 1) = e[i + c];
    }
  }
  lapack::gebrd(m - i, n - i, element_at(a, lda, i, i), lda, d + i, e + i, tauq + i, taup + i);
}

// gesdd for m >= n on the blocked reduction: the singular values in s and, for jobz 'S' or 'A',
// u (m x n or m x m) and vt (n x n).
template <class T>
int tall_svd(Engine& engine, char jobz, int m, int n, T* a, int lda, T* s, T* u, int ldu, T* vt, int ldvt) {
  // gesdd's scaling: a matrix whose largest entry is outside [smlnum, bignum] is scaled into it
  // first and the singular values scaled back.
  const T eps = std::numeric_limits<T>::epsilon();
  const T smlnum = std::sqrt(std::numeric_limits<T>::min()) / eps, bignum = 1 / smlnum;
  T norm = 0;
  for (int c = 0; c < n; ++c)
    for (int r = 0; r < m; ++r) norm = std::max(norm, std::abs(*element_at(a, lda, r, c)));
  const T sigma = norm > 0 && norm < smlnum ? smlnum / norm : norm > bignum ? bignum / norm : T(1);
  if (sigma != 1)
    for (int c = 0; c < n; ++c)
      for (int r = 0; r < m; ++r) *element_at(a, lda, r, c) *= sigma;
  const std::size_t nn = static_cast<std::size_t>(n);
  Scratch<T> e(nn), tauq(nn), taup(nn);
  gebrd_on(engine, m, n, a, lda, s, e.data(), tauq.data(), taup.data());
  int info = 0;
  if (jobz == 'N') {
    info = lapack::bdsdc(n, s, e.data());
  } else {
    Scratch<T> ub(nn * nn), vtb(nn * nn);  // B = ub diag(s) vtb
    info = lapack::bdsdc(n, s, e.data(), ub.data(), n, vtb.data(), n);
    if (info == 0) {
      // u = Q [ub 0; 0 I], Q's reflectors below a's diagonal.
      const int ku = jobz == 'A' ? m : n;
      for (int c = 0; c < ku; ++c)
        for (int r = 0; r < m; ++r)
          *element_at(u, ldu, r, c) = c < n ? (r < n ? *element_at(ub.data(), n, r, c) : T(0)) : T(r == c ? 1 : 0);
      apply_reflectors_on(engine, m, n, a, lda, tauq.data(), u, ldu, ku);
      // vt = vtb P^T, that is vt^T = P vtb^T with P = diag(1, G(0) ... G(n - 2)), G(i)'s reflector
      // in a's row i right of the superdiagonal: copied into a column for apply_reflectors_on.
      Scratch<T> p(nn * nn, T(0)), w(nn * nn);
      for (int i = 0; i < n; ++i)
        for (int j = i + 2; j < n; ++j) *element_at(p.data(), n, j, i) = *element_at(a, lda, i, j);
      transpose_into(vtb.data(), n, n, n, w.data(), n);
      apply_reflectors_on(engine, n - 1, n - 1, element_at(p.data(), n, 1, 0), n, taup.data(),
                          element_at(w.data(), n, 1, 0), n, n);
      transpose_into(w.data(), n, n, n, vt, ldvt);
    }
  }
  if (sigma != 1)
    for (int j = 0; j < n; ++j) s[j] /= sigma;
  return info;
}

}  // namespace

template <class T>
int gesdd_on(Engine& engine, char jobz, int m, int n, T* a, int lda, lapack::Real<T>* s, T* u, int ldu, T* vt,
             int ldvt) {
  const int k = std::min(m, n), big = std::max(m, n);
  if constexpr (!std::is_same_v<T, lapack::Real<T>>) {
    return lapack::gesdd(jobz, m, n, a, lda, s, u, ldu, vt, ldvt);
  } else {
    if (k < kBidiagonalMinBlocked || 6 * big >= 11 * k) return lapack::gesdd(jobz, m, n, a, lda, s, u, ldu, vt, ldvt);
    if (m >= n) return tall_svd(engine, jobz, m, n, a, lda, s, u, ldu, vt, ldvt);
    // More columns than rows: a^T = u' diag(s) vt' (tall), so u = vt'^T and vt = u'^T.
    const std::size_t mm = static_cast<std::size_t>(m), nn = static_cast<std::size_t>(n);
    Scratch<T> b(mm * nn);
    transpose_into(a, lda, m, n, b.data(), n);
    if (jobz == 'N') return tall_svd(engine, 'N', n, m, b.data(), n, s, u, ldu, vt, ldvt);
    const int ku = jobz == 'A' ? n : m;  // u' is n x ku
    Scratch<T> ut(nn * static_cast<std::size_t>(ku)), vtt(mm * mm);
    const int info = tall_svd(engine, jobz, n, m, b.data(), n, s, ut.data(), n, vtt.data(), m);
    if (info != 0) return info;
    transpose_into(vtt.data(), m, m, m, u, ldu);
    transpose_into(ut.data(), n, n, ku, vt, ldvt);
    return 0;
  }
}

#define TENSORA_BLOCKED_BIDIAGONAL_INSTANTIATE(T) \
  template int gesdd_on<T>(Engine&, char, int, int, T*, int, lapack::Real<T>*, T*, int, T*, int);
TENSORA_LAPACK_TYPES(TENSORA_BLOCKED_BIDIAGONAL_INSTANTIATE)
#undef TENSORA_BLOCKED_BIDIAGONAL_INSTANTIATE

}  // namespace tensora::cpu
