// LU with partial pivoting, Cholesky and Householder QR of one large matrix, and solves with
// many right-hand sides, on the engine's threads (docs/linalg.md, "Threads"). LAPACK's own
// threaded routines give other bits for other thread counts; here the work is cut by the shapes
// alone (panels of kPanel columns, updates in slabs of kSlab columns), each piece one
// single-threaded LAPACK or BLAS call, so serial and parallel engines make the same calls and
// agree bitwise.
#pragma once

#include <algorithm>
#include <cstdint>

#include "cpu/lapack.hpp"
#include "tensora/engine.hpp"

namespace tensora::cpu {

// Columns factored by one LAPACK call (getrf, potrf). A matrix with at most this many rows or
// columns is that one call (its bits are LAPACK's); larger ones are blocked.
inline constexpr int kPanel = 256;
// Columns of one update task (and of one getrs task over many right-hand sides).
inline constexpr int kSlab = 128;
static_assert(kPanel % kSlab == 0, "a slab counted from column 0 lies in one panel");

// getrf's contract: a (m x n, leading dimension lda) = p l u in place, ipiv the 1-based row
// interchanges, the result LAPACK's info (the first exactly zero pivot, 1-based; 0: none).
template <class T>
int getrf_on(Engine& engine, int m, int n, T* a, int lda, int* ipiv);

// getrs's contract: b (n x nrhs) = op(a)^-1 b from getrf's factors, the right-hand sides in
// slabs of kSlab columns; the result LAPACK's info (nonzero only for an argument error).
template <class T>
int getrs_on(Engine& engine, char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb);

// geqrf's contract: a (m x n) = q r in place (r on and above the diagonal, the reflectors below
// it, their scalars in tau); and orgqr's: the first n columns of q from k such reflectors, in
// place of them. Blocked from 512 reflectors on, in blocks of 64 (blocked_qr.cpp says why).
template <class T>
void geqrf_on(Engine& engine, int m, int n, T* a, int lda, T* tau);
template <class T>
void orgqr_on(Engine& engine, int m, int n, int k, T* a, int lda, const T* tau);

// c (m x n) = H(0) ... H(k - 1) c for k reflectors stored as geqrf leaves them (reflector i in
// column i of v, m x k, its unit at row i, below it its tail; tau its scalars): ormqr's contract
// for side 'L', no transpose. Backward in blocks of 64 reflectors, each block's triangular factor
// formed once (larft), then the columns of c in slabs of kSlab, one task each (ormqr or ormtr
// called per slab would form every factor again for every slab: 1.3x one call at 1024).
template <class T>
void apply_reflectors_on(Engine& engine, int m, int k, const T* v, int ldv, const T* tau, T* c, int ldc, int n);

// trtrs's contract: b (n x nrhs) = op(a)^-1 b for triangular a, the right-hand sides in slabs
// of kSlab columns; the result LAPACK's info (the first zero diagonal entry, 1-based; 0: none),
// which every slab finds alike.
template <class T>
int trtrs_on(Engine& engine, char uplo, char trans, char diag, int n, int nrhs, const T* a, int lda, T* b, int ldb);

// potrf's contract: the uplo ('L' or 'U') triangle of a (n x n) = its Cholesky factor in place,
// the result LAPACK's info (the order of the first leading minor that is not positive
// definite; 0: none). The other triangle is not referenced.
template <class T>
int potrf_on(Engine& engine, char uplo, int n, T* a, int lda);

// heevd's contract (syevd for real T): the eigenvalues of the Hermitian a (its uplo triangle) in
// w, ascending, and with jobz 'V' the eigenvectors in a's columns; the result LAPACK's info (no
// convergence). From order 256 the tridiagonal reduction runs on the engine's threads
// (blocked_tridiagonal.cpp, sytrd_on); smaller matrices are one LAPACK call.
template <class T>
int heevd_on(Engine& engine, char jobz, char uplo, int n, T* a, int lda, lapack::Real<T>* w);
// hetrd's contract (sytrd for real T) for the lower triangle: a = Q tridiag(d, e) Q^H with real
// d and e, Q's reflectors below the subdiagonal and their scalars in tau.
template <class T>
void sytrd_on(Engine& engine, int n, T* a, int lda, lapack::Real<T>* d, lapack::Real<T>* e, T* tau);

// gesdd's contract: the singular values of a (m x n, overwritten) in s, descending, and for
// jobz 'S' or 'A' the reduced or complete u (m x k or m x m) and vt (k x n or n x n); the result
// LAPACK's info (no convergence). Real matrices from 160 rows and columns (and at most 11/6 as
// many of one as of the other) reduce to bidiagonal form on the engine's threads
// (blocked_bidiagonal.cpp); the others are one LAPACK call.
template <class T>
int gesdd_on(Engine& engine, char jobz, int m, int n, T* a, int lda, lapack::Real<T>* s, T* u, int ldu, T* vt,
             int ldvt);

// The number of slabs `columns` columns make, and the address of a(row, col).
inline int slab_count(int columns) { return columns <= 0 ? 0 : (columns + kSlab - 1) / kSlab; }
template <class T>
T* element_at(T* a, int lda, int row, int col) {
  return a + row + static_cast<std::int64_t>(col) * lda;
}
// One step of a blocked factorization, as independent tasks of one parallel_for: look_ahead()
// when `with_look_ahead` (first: it is the longest), and slab(c0, w) for each slab [c0, c0 + w)
// of the columns [first, end).
template <class A, class F>
void run_step(Engine& engine, bool with_look_ahead, const A& look_ahead, int first, int end, const F& slab) {
  const int lead = with_look_ahead ? 1 : 0;
  engine.parallel_for(lead + slab_count(end - first), 1, [&](std::int64_t begin, std::int64_t stop) {
    for (std::int64_t t = begin; t < stop; ++t) {
      if (t < lead) {
        look_ahead();
        continue;
      }
      const int c0 = first + static_cast<int>(t - lead) * kSlab;
      slab(c0, std::min(kSlab, end - c0));
    }
  });
}
// f(c0, w) for the slabs of the columns [first, end), one task each.
template <class F>
void for_each_slab(Engine& engine, int first, int end, const F& f) {
  run_step(engine, false, [] {}, first, end, f);
}

}  // namespace tensora::cpu
