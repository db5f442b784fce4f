// Right-looking blocked LU (cpu/blocked_factor.hpp) with one panel of look-ahead. Step k has its
// panel (the columns [k, k + kb)) factored; one parallel_for then runs, as independent tasks,
//   - the look-ahead: the next panel's columns get step k's interchanges and update, then are
//     factored (so the next step's panel, the serial part, overlaps this step's updates);
//   - the trailing slabs right of it: interchanges, u12 = l11^-1 a12 (trsm), a22 -= l21 u12;
//   - the slabs left of the panel: step k's interchanges alone.
// The pieces depend on the shape only, never on the thread count (chunks of one task each).
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
    const int rest = next + ahead, below = m - next;
    const int right = slab_count(n - rest), left = slab_count(k);
    // Step k's interchanges, then its update, on the columns [c0, c0 + w).
    const auto update = [&](int c0, int w) {
      lapack::laswp(w, element_at(a, lda, 0, c0), lda, k + 1, k + kb, ipiv);
      lapack::trsm('L', 'L', 'N', 'U', kb, w, T(1), element_at(a, lda, k, k), lda, element_at(a, lda, k, c0), lda);
      if (below > 0)
        lapack::gemm('N', 'N', below, w, kb, T(-1), element_at(a, lda, next, k), lda, element_at(a, lda, k, c0),
                     lda, T(1), element_at(a, lda, next, c0), lda);
    };
    int ahead_info = 0;
    const std::int64_t tasks = (ahead > 0 ? 1 : 0) + right + left;
    engine.parallel_for(tasks, 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t task = begin; task < end; ++task) {
        int t = static_cast<int>(task);
        if (ahead > 0) {
          if (t == 0) {
            update(next, ahead);
            ahead_info = lapack::getrf(below, ahead, element_at(a, lda, next, next), lda, ipiv + next);
            continue;
          }
          --t;
        }
        if (t < right) {
          const int c0 = rest + t * kSlab;
          update(c0, std::min(kSlab, n - c0));
        } else {
          const int c0 = (t - right) * kSlab;
          lapack::laswp(std::min(kSlab, k - c0), element_at(a, lda, 0, c0), lda, k + 1, k + kb, ipiv);
        }
      }
    });
    note(ahead_info, next);
  }
  return info;
}

#define TENSORA_BLOCKED_LU_INSTANTIATE(T)                 \
  template int getrf_on<T>(Engine&, int, int, T*, int, int*);
TENSORA_BLOCKED_LU_INSTANTIATE(float)
TENSORA_BLOCKED_LU_INSTANTIATE(double)
TENSORA_BLOCKED_LU_INSTANTIATE(std::complex<float>)
TENSORA_BLOCKED_LU_INSTANTIATE(std::complex<double>)
#undef TENSORA_BLOCKED_LU_INSTANTIATE

}  // namespace tensora::cpu
