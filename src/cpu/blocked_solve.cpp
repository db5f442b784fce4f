// Solves with many right-hand sides (cpu/blocked_factor.hpp): LAPACK's getrs and trtrs on slabs
// of kSlab columns of b, one task each. A column's solution depends on a and that column only,
// and the slabs on the shape only, so serial and parallel engines make the same calls.
#include "cpu/blocked_factor.hpp"

#include <complex>

#include "cpu/lapack.hpp"

namespace tensora::cpu {

template <class T>
void getrs_on(Engine& engine, char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb) {
  for_each_slab(engine, 0, nrhs, [&](int c0, int w) {
    lapack::getrs(trans, n, w, a, lda, ipiv, element_at(b, ldb, 0, c0), ldb);
  });
}

template <class T>
int trtrs_on(Engine& engine, char uplo, char trans, char diag, int n, int nrhs, const T* a, int lda, T* b, int ldb) {
  int info = 0;
  for_each_slab(engine, 0, nrhs, [&](int c0, int w) {
    const int slab_info = lapack::trtrs(uplo, trans, diag, n, w, a, lda, element_at(b, ldb, 0, c0), ldb);
    if (c0 == 0) info = slab_info;  // every slab finds the same: it is a property of a alone
  });
  return info;
}

#define TENSORA_BLOCKED_SOLVE_INSTANTIATE(T)                                                \
  template void getrs_on<T>(Engine&, char, int, int, const T*, int, const int*, T*, int); \
  template int trtrs_on<T>(Engine&, char, char, char, int, int, const T*, int, T*, int);
TENSORA_LAPACK_TYPES(TENSORA_BLOCKED_SOLVE_INSTANTIATE)
#undef TENSORA_BLOCKED_SOLVE_INSTANTIATE

}  // namespace tensora::cpu
