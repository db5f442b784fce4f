// Right-looking blocked LU with one panel of look-ahead. Step k has its panel (the columns
// [k, k + kb)) factored; one parallel_for then runs, as independent tasks,
//   - the look-ahead: the next panel's columns get step k's interchanges and update, then are
//     factored (so the next step's panel, the serial part, overlaps this step's updates);
//   - the trailing slabs right of it: interchanges, u12 = l11^-1 a12 (trsm), a22 -= l21 u12;
//   - the slabs left of the panel: step k's interchanges alone.
// The pieces depend on the shape only, never on the thread count (chunks of one task each).
#include "cpu/parallel_lu.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>

#include "cpu/lapack.hpp"

namespace tensora::cpu {

namespace {

int slabs(int columns) { return columns <= 0 ? 0 : (columns + kLuSlab - 1) / kLuSlab; }

template <class T>
T* at(T* a, int lda, int row, int col) {
  return a + row + static_cast<std::int64_t>(col) * lda;
}

}  // namespace

template <class T>
int getrf_on(Engine& engine, int m, int n, T* a, int lda, int* ipiv) {
  const int kmin = std::min(m, n);
  if (kmin <= kLuPanel) return lapack::getrf(m, n, a, lda, ipiv);
  int info = 0;
  // A panel's info (relative to its first column) joins the matrix's: the first zero pivot
  // wins, and panels are noted in column order.
  const auto note = [&](int panel_info, int first) {
    if (panel_info > 0 && info == 0) info = panel_info + first;
  };
  note(lapack::getrf(m, std::min(kLuPanel, kmin), a, lda, ipiv), 0);
  for (int k = 0; k < kmin; k += kLuPanel) {
    const int kb = std::min(kLuPanel, kmin - k);
    for (int i = k; i < k + kb; ++i) ipiv[i] += k;  // panel-relative rows -> the matrix's
    const int next = k + kb;
    const int ahead = next < kmin ? std::min(kLuPanel, kmin - next) : 0;
    const int rest = next + ahead, below = m - next;
    const int right = slabs(n - rest), left = slabs(k);
    // Step k's interchanges, then its update, on the columns [c0, c0 + w).
    const auto update = [&](int c0, int w) {
      lapack::laswp(w, at(a, lda, 0, c0), lda, k + 1, k + kb, ipiv);
      lapack::trsm('L', 'L', 'N', 'U', kb, w, T(1), at(a, lda, k, k), lda, at(a, lda, k, c0), lda);
      if (below > 0)
        lapack::gemm('N', 'N', below, w, kb, T(-1), at(a, lda, next, k), lda, at(a, lda, k, c0), lda, T(1),
                     at(a, lda, next, c0), lda);
    };
    int ahead_info = 0;
    const std::int64_t tasks = (ahead > 0 ? 1 : 0) + right + left;
    engine.parallel_for(tasks, 1, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t task = begin; task < end; ++task) {
        int t = static_cast<int>(task);
        if (ahead > 0) {
          if (t == 0) {
            update(next, ahead);
            ahead_info = lapack::getrf(below, ahead, at(a, lda, next, next), lda, ipiv + next);
            continue;
          }
          --t;
        }
        if (t < right) {
          const int c0 = rest + t * kLuSlab;
          update(c0, std::min(kLuSlab, n - c0));
        } else {
          const int c0 = (t - right) * kLuSlab;
          lapack::laswp(std::min(kLuSlab, k - c0), at(a, lda, 0, c0), lda, k + 1, k + kb, ipiv);
        }
      }
    });
    note(ahead_info, next);
  }
  return info;
}

template <class T>
void getrs_on(Engine& engine, char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb) {
  engine.parallel_for(slabs(nrhs), 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t s = begin; s < end; ++s) {
      const int c0 = static_cast<int>(s) * kLuSlab;
      lapack::getrs(trans, n, std::min(kLuSlab, nrhs - c0), a, lda, ipiv, at(b, ldb, 0, c0), ldb);
    }
  });
}

#define TENSORA_PARALLEL_LU_INSTANTIATE(T)                 \
  template int getrf_on<T>(Engine&, int, int, T*, int, int*); \
  template void getrs_on<T>(Engine&, char, int, int, const T*, int, const int*, T*, int);
TENSORA_PARALLEL_LU_INSTANTIATE(float)
TENSORA_PARALLEL_LU_INSTANTIATE(double)
TENSORA_PARALLEL_LU_INSTANTIATE(std::complex<float>)
TENSORA_PARALLEL_LU_INSTANTIATE(std::complex<double>)
#undef TENSORA_PARALLEL_LU_INSTANTIATE

}  // namespace tensora::cpu
