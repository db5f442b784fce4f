// Right-looking blocked LU (cpu/blocked_factor.hpp) with one panel of look-ahead. Step k has its
// panel (the columns [k, k + kb)) factored; one parallel_for then runs, as independent tasks,
//   - the look-ahead: the next panel's columns get step k's interchanges and update, then are
//     factored (so the next step's panel, the serial part, overlaps this step's updates);
//   - the trailing slabs right of it: interchanges, u12 = l11^-1 a12 (trsm), a22 -= l21 u12.
// The columns of each panel get the later panels' interchanges at the end, in one pass (laswp
// applies them in the same order as a step at a time would: the same moves).
#include "cpu/blocked_factor.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>

#include "cpu/lapack.hpp"

namespace tensora::cpu {

template <class T>
int getrf_on(Engine& engine, int m, int n, T* a, int lda, int* ipiv) {
  const int kmin = std::min(m, n);
  if (kmin <= kPanel) return lapack::getrf(m, n, a, lda, ipiv);
  int info = 0;
  // A panel's info (relative to its first column) joins the matrix's: the first zero pivot
  // wins, and panels are noted in column order.
  const auto note = [&](int panel_info, int first) {
    if (panel_info > 0 && info == 0) info = panel_info + first;
  };
  note(lapack::getrf(m, std::min(kPanel, kmin), a, lda, ipiv), 0);
  for (int k = 0; k < kmin; k += kPanel) {
    const int kb = std::min(kPanel, kmin - k);
    for (int i = k; i < k + kb; ++i) ipiv[i] += k;  // panel-relative rows -> the matrix's
    const int next = k + kb;
    const int ahead = next < kmin ? std::min(kPanel, kmin - next) : 0;
    const int below = m - next;
    // Step k's interchanges, then its update, on the columns [c0, c0 + w).
    const auto update = [&](int c0, int w) {
      lapack::laswp(w, element_at(a, lda, 0, c0), lda, k + 1, k + kb, ipiv);
      lapack::trsm('L', 'L', 'N', 'U', kb, w, T(1), element_at(a, lda, k, k), lda, element_at(a, lda, k, c0), lda);
      if (below > 0)
        lapack::gemm('N', 'N', below, w, kb, T(-1), element_at(a, lda, next, k), lda, element_at(a, lda, k, c0),
                     lda, T(1), element_at(a, lda, next, c0), lda);
    };
    int ahead_info = 0;
    const auto look_ahead = [&] {
      update(next, ahead);
      ahead_info = lapack::getrf(below, ahead, element_at(a, lda, next, next), lda, ipiv + next);
    };
    run_step(engine, ahead > 0, look_ahead, next + ahead, n, update);
    note(ahead_info, next);
  }
  // Panel j's columns (slabs of 128 inside panels of 256) get the interchanges of the panels after it.
  for_each_slab(engine, 0, kmin, [&](int c0, int w) {
    const int after = (c0 / kPanel + 1) * kPanel;
    if (after < kmin) lapack::laswp(w, element_at(a, lda, 0, c0), lda, after + 1, kmin, ipiv);
  });
  return info;
}

#define TENSORA_BLOCKED_LU_INSTANTIATE(T) template int getrf_on<T>(Engine&, int, int, T*, int, int*);
TENSORA_LAPACK_TYPES(TENSORA_BLOCKED_LU_INSTANTIATE)
#undef TENSORA_BLOCKED_LU_INSTANTIATE

}  // namespace tensora::cpu
