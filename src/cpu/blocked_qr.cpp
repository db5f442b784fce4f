// Blocked Householder QR and the forming of Q (cpu/blocked_factor.hpp), for matrices with at
// least kQrMinBlocked rows and columns. geqrf: panels of kQrBlock columns, each one LAPACK geqrf
// call; after a panel, its reflectors' triangular factor (larft), then one parallel_for applies
// H^H to the columns right of it in slabs (larfb), the first task also factoring the next panel
// once its columns are updated (one panel of look-ahead). orgqr: LAPACK's backward accumulation
// in kQrBlock-wide blocks, the columns right of a block updated in slabs (larfb), the block's own
// columns formed by one orgqr call. The pieces depend on the shape only.
#include "cpu/blocked_factor.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>

#include "cpu/lapack.hpp"
#include "cpu/scratch.hpp"

namespace tensora::cpu {

namespace {

// Reflectors per block. larft forms a block's factor with m k^2 / 2 matrix-vector flops, so wide
// blocks cost: at 1024 x 1024 on one thread, blocks of 256 took 1.1-1.2x LAPACK's geqrf + orgqr
// (whose blocks are 32), blocks of 64 0.91-0.94x, with two threads 1.45x and 1.6x faster.
constexpr int kQrBlock = 64;
// Below this many reflectors one LAPACK call: from 300 to 400 the blocked form was 1.10-1.20x
// the call on one thread and no faster on two (its steps have one to three slabs each); from
// 512 it is 0.96-1.03x on one thread and 1.4-1.6x faster on two.
constexpr int kQrMinBlocked = 512;

}  // namespace

template <class T>
void geqrf_on(Engine& engine, int m, int n, T* a, int lda, T* tau) {
  const int kmin = std::min(m, n);
  if (kmin < kQrMinBlocked) {
    lapack::geqrf(m, n, a, lda, tau);
    return;
  }
  Scratch<T> factor(static_cast<std::size_t>(kQrBlock) * kQrBlock);  // the panel's larft
  lapack::geqrf(m, kQrBlock, a, lda, tau);
  for (int k = 0; k < kmin; k += kQrBlock) {
    const int kb = std::min(kQrBlock, kmin - k);
    const int next = k + kb;
    if (next >= n) break;
    lapack::larft(m - k, kb, element_at(a, lda, k, k), lda, tau + k, factor.data(), kb);
    const auto apply = [&](int c0, int w) {
      lapack::larfb('C', m - k, w, kb, element_at(a, lda, k, k), lda, factor.data(), kb, element_at(a, lda, k, c0),
                    lda);
    };
    const int ahead = next < kmin ? std::min(kQrBlock, kmin - next) : 0;
    const int rest = next + ahead;
    const auto look_ahead = [&] {
      apply(next, ahead);
      lapack::geqrf(m - next, ahead, element_at(a, lda, next, next), lda, tau + next);
    };
    run_step(engine, ahead > 0, look_ahead, rest, n, apply);
  }
}

template <class T>
void orgqr_on(Engine& engine, int m, int n, int k, T* a, int lda, const T* tau) {
  if (k < kQrMinBlocked) {
    lapack::orgqr(m, n, k, a, lda, tau);
    return;
  }
  // Columns past the reflectors start as the identity's; the blocks then apply backward.
  for (int c = k; c < n; ++c)
    for (int r = 0; r < m; ++r) *element_at(a, lda, r, c) = r == c ? T(1) : T(0);
  Scratch<T> factor(static_cast<std::size_t>(kQrBlock) * kQrBlock);
  for (int s = (k - 1) / kQrBlock * kQrBlock; s >= 0; s -= kQrBlock) {
    const int b = std::min(kQrBlock, k - s), right = s + b;
    if (right < n) {
      lapack::larft(m - s, b, element_at(a, lda, s, s), lda, tau + s, factor.data(), b);
      for_each_slab(engine, right, n, [&](int c0, int w) {
        lapack::larfb('N', m - s, w, b, element_at(a, lda, s, s), lda, factor.data(), b, element_at(a, lda, s, c0),
                      lda);
      });
    }
    lapack::orgqr(m - s, b, b, element_at(a, lda, s, s), lda, tau + s);  // the block's own columns
    for (int c = s; c < right; ++c)
      for (int r = 0; r < s; ++r) *element_at(a, lda, r, c) = T(0);
  }
}

template <class T>
void apply_reflectors_on(Engine& engine, int m, int k, const T* v, int ldv, const T* tau, T* c, int ldc, int n) {
  if (k <= 0) return;
  const int blocks = (k + kQrBlock - 1) / kQrBlock;
  const auto block_factor = [](Scratch<T>& f, int b) { return f.data() + static_cast<std::int64_t>(b) * kQrBlock * kQrBlock; };
  Scratch<T> factors(static_cast<std::size_t>(blocks) * kQrBlock * kQrBlock);
  engine.parallel_for(blocks, 1, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t b = begin; b < end; ++b) {
      const int s = static_cast<int>(b) * kQrBlock, kb = std::min(kQrBlock, k - s);
      lapack::larft(m - s, kb, element_at(v, ldv, s, s), ldv, tau + s, block_factor(factors, static_cast<int>(b)), kb);
    }
  });
  for_each_slab(engine, 0, n, [&](int c0, int w) {
    for (int b = blocks - 1; b >= 0; --b) {
      const int s = b * kQrBlock, kb = std::min(kQrBlock, k - s);
      lapack::larfb('N', m - s, w, kb, element_at(v, ldv, s, s), ldv, block_factor(factors, b), kb,
                    element_at(c, ldc, s, c0), ldc);
    }
  });
}

#define TENSORA_BLOCKED_QR_INSTANTIATE(T)                                    \
  template void geqrf_on<T>(Engine&, int, int, T*, int, T*);                 \
  template void orgqr_on<T>(Engine&, int, int, int, T*, int, const T*);      \
  template void apply_reflectors_on<T>(Engine&, int, int, const T*, int, const T*, T*, int, int);
TENSORA_LAPACK_TYPES(TENSORA_BLOCKED_QR_INSTANTIATE)
#undef TENSORA_BLOCKED_QR_INSTANTIATE

}  // namespace tensora::cpu
