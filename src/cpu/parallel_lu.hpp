// LU with partial pivoting of one large matrix, and the solve with its factors, on the
// engine's threads (docs/linalg.md, "Threads"). LAPACK's own threaded getrf gives other bits
// for other thread counts; here the work is cut by the shapes alone (panels of kLuPanel
// columns, trailing updates in slabs of kLuSlab columns), each piece one single-threaded
// LAPACK or BLAS call, so serial and parallel engines make the same calls and agree bitwise.
#pragma once

#include "tensora/engine.hpp"

namespace tensora::cpu {

// Columns factored by one getrf call. A matrix with at most this many rows or columns is one
// call, as before this module (its bits are LAPACK's getrf's); larger ones are blocked.
inline constexpr int kLuPanel = 256;
// Columns of one trailing-update task (and of one getrs task over many right-hand sides).
inline constexpr int kLuSlab = 128;

// getrf's contract: a (m x n, leading dimension lda) = p l u in place, ipiv the 1-based row
// interchanges, the result LAPACK's info (the first exactly zero pivot, 1-based; 0: none).
template <class T>
int getrf_on(Engine& engine, int m, int n, T* a, int lda, int* ipiv);

// getrs's contract: b (n x nrhs) = op(a)^-1 b from getrf's factors, the right-hand sides in
// slabs of kLuSlab columns.
template <class T>
void getrs_on(Engine& engine, char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb);

}  // namespace tensora::cpu
