// Right-looking blocked Cholesky (cpu/blocked_factor.hpp), written for the lower factor
// (a = l l^H) and mirrored for the upper one (a = u^H u). Step k starts with the diagonal block
// of the panel [k, k + kb) factored (potrf) and runs two parallel_for:
//   - the rest of the panel, in slabs: l21 = a21 l11^-H by rows (or u12 = u11^-H a12 by
//     columns), each slab one trsm;
//   - the trailing updates a22 -= l21 l21^H in slabs of columns (herk on the slab's diagonal
//     block, gemm below it), the first task updating the next panel's columns and factoring
//     its diagonal block (the serial part, overlapped with the other slabs).
// LAPACK's potrf stops at the first minor that is not positive definite; so does this, at the
// end of the step that met it.
#include "cpu/blocked_factor.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>

#include "cpu/lapack.hpp"

namespace tensora::cpu {

template <class T>
int potrf_on(Engine& engine, char uplo, int n, T* a, int lda) {
  if (n <= kPanel) return lapack::potrf(uplo, n, a, lda);
  const bool lower = uplo == 'L';
  if (const int info = lapack::potrf(uplo, kPanel, a, lda); info != 0) return info;
  for (int k = 0; k < n; k += kPanel) {
    const int kb = std::min(kPanel, n - k);
    const int next = k + kb;
    if (next == n) break;
    for_each_slab(engine, next, n, [&](int c0, int w) {
      if (lower)
        lapack::trsm('R', 'L', 'C', 'N', w, kb, T(1), element_at(a, lda, k, k), lda, element_at(a, lda, c0, k), lda);
      else
        lapack::trsm('L', 'U', 'C', 'N', kb, w, T(1), element_at(a, lda, k, k), lda, element_at(a, lda, k, c0), lda);
    });
    const int ahead = std::min(kPanel, n - next), rest = next + ahead;
    // The panel's update of the columns [c0, c0 + w) on and below (above) the diagonal: the
    // diagonal block's triangle, then the rectangle below it (above it).
    const auto update = [&](int c0, int w) {
      using R = lapack::Real<T>;
      if (lower) {
        lapack::herk('L', 'N', w, kb, R(-1), element_at(a, lda, c0, k), lda, R(1), element_at(a, lda, c0, c0), lda);
        if (n - c0 - w > 0)
          lapack::gemm('N', 'C', n - c0 - w, w, kb, T(-1), element_at(a, lda, c0 + w, k), lda,
                       element_at(a, lda, c0, k), lda, T(1), element_at(a, lda, c0 + w, c0), lda);
      } else {
        lapack::herk('U', 'C', w, kb, R(-1), element_at(a, lda, k, c0), lda, R(1), element_at(a, lda, c0, c0), lda);
        if (c0 > next)
          lapack::gemm('C', 'N', c0 - next, w, kb, T(-1), element_at(a, lda, k, next), lda,
                       element_at(a, lda, k, c0), lda, T(1), element_at(a, lda, next, c0), lda);
      }
    };
    int ahead_info = 0;
    const auto look_ahead = [&] {
      update(next, ahead);
      ahead_info = lapack::potrf(uplo, ahead, element_at(a, lda, next, next), lda);
    };
    run_step(engine, true, look_ahead, rest, n, update);
    if (ahead_info != 0) return ahead_info + next;
  }
  return 0;
}

#define TENSORA_BLOCKED_CHOLESKY_INSTANTIATE(T) template int potrf_on<T>(Engine&, char, int, T*, int);
TENSORA_LAPACK_TYPES(TENSORA_BLOCKED_CHOLESKY_INSTANTIATE)
#undef TENSORA_BLOCKED_CHOLESKY_INSTANTIATE

}  // namespace tensora::cpu
