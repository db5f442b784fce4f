// The matrix-vector product at the heart of the tridiagonal reduction (cpu/blocked_tridiagonal.cpp),
// cut into column blocks so that the engine's threads can share one product with fixed pieces.
#pragma once

#include <complex>
#include <cstdint>

namespace tensora::simd {

// A column block [j0, j1) of the symmetric (complex: Hermitian) p x p matrix s (its lower
// triangle, column-major with leading dimension lds) times x, as a partial result over the rows
// [j0, p):
//   y[r - j0] = sum over the block's stored entries s(i, j) of their two contributions,
//               s(i, j) x[j] to row i and, below the diagonal, conj(s(i, j)) x[i] to row j
// (a complex diagonal entry's imaginary part is not read, as LAPACK's hemv).
// The blocks of a split of [0, p), their y summed, make s x. Each entry is read once (the
// product on its lower triangle is read-bound); the order of the sums depends only on
// (p, j0, j1) and the CPU's vector width, so a split fixed by p gives the same bits on any
// number of threads.
void symv_lower_columns(const float* s, std::int64_t lds, std::int64_t p, std::int64_t j0, std::int64_t j1,
                        const float* x, float* y);
void symv_lower_columns(const double* s, std::int64_t lds, std::int64_t p, std::int64_t j0, std::int64_t j1,
                        const double* x, double* y);
void symv_lower_columns(const std::complex<float>* s, std::int64_t lds, std::int64_t p, std::int64_t j0,
                        std::int64_t j1, const std::complex<float>* x, std::complex<float>* y);
void symv_lower_columns(const std::complex<double>* s, std::int64_t lds, std::int64_t p, std::int64_t j0,
                        std::int64_t j1, const std::complex<double>* x, std::complex<double>* y);

}  // namespace tensora::simd
