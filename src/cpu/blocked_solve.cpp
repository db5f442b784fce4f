// Solves with many right-hand sides (cpu/blocked_factor.hpp): LAPACK's getrs and trtrs on slabs
// of kSlab columns of b, one task each. A column's solution depends on a and that column only,
// and the slabs on the shape only, so serial and parallel engines make the same calls.
#include "cpu/blocked_factor.hpp"

#include <complex>

#include "cpu/lapack.hpp"

namespace tensora::cpu {

namespace {

// Runs solve(c0, w) -> LAPACK's info on each slab of the nrhs right-hand sides and returns the
// first slab's info: every slab's call sees the same matrix, and the info (an argument error,
// or trtrs's zero diagonal entry) is a property of the matrix and the arguments alone.
template <class Solve>
int solve_in_slabs(Engine& engine, int nrhs, const Solve& solve) {
  int info = 0;
  for_each_slab(engine, 0, nrhs, [&](int c0, int w) {
    const int slab_info = solve(c0, w);
    if (c0 == 0) info = slab_info;
  });
  return info;
}

}  // namespace

template <class T>
int getrs_on(Engine& engine, char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb) {
  return solve_in_slabs(engine, nrhs, [&](int c0, int w) {
    return lapack::getrs(trans, n, w, a, lda, ipiv, element_at(b, ldb, 0, c0), ldb);
  });
}

template <class T>
int trtrs_on(Engine& engine, char uplo, char trans, char diag, int n, int nrhs, const T* a, int lda, T* b, int ldb) {
  return solve_in_slabs(engine, nrhs, [&](int c0, int w) {
    return lapack::trtrs(uplo, trans, diag, n, w, a, lda, element_at(b, ldb, 0, c0), ldb);
  });
}

#define TENSORA_BLOCKED_SOLVE_INSTANTIATE(T)                                                \
  template int getrs_on<T>(Engine&, char, int, int, const T*, int, const int*, T*, int);  \
  template int trtrs_on<T>(Engine&, char, char, char, int, int, const T*, int, T*, int);
TENSORA_LAPACK_TYPES(TENSORA_BLOCKED_SOLVE_INSTANTIATE)
#undef TENSORA_BLOCKED_SOLVE_INSTANTIATE

}  // namespace tensora::cpu
