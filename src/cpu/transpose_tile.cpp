// Highway kernels for cpu/transpose_tile.hpp, compiled once per SIMD target: one template for
// every element size. Blocks of L x L elements (L = lanes of a 128-bit vector: 16, 8, 4 or 2;
// 1 for 16-byte elements) are transposed in registers (transpose_block-inl.h).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/transpose_tile.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include <cstdlib>
#include <cstring>
#include <numeric>

#include "cpu/transpose_tile.hpp"
#include "cpu/transpose_block-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensora::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

template <std::size_t E>
HWY_INLINE void CopyOne(char* d, const char* s) {
  std::memcpy(d, s, E);
}

// The scalar edges: rows [r0, r1) x cols [c0, c1).
template <std::size_t E>
HWY_INLINE void Edges(char* dst, int64_t ds, const char* src, int64_t ss, int64_t r0, int64_t r1, int64_t c0,
                      int64_t c1) {
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t c = c0; c < c1; ++c) CopyOne<E>(dst + r * static_cast<int64_t>(E) + c * ds, src + r * ss + c * static_cast<int64_t>(E));
}

#if HWY_TARGET != HWY_SCALAR
// One L x L block; 16-byte elements are a vector each (L = 1) and move without shuffles.
template <std::size_t E>
HWY_INLINE void Block(char* dst, int64_t ds, const char* src, int64_t ss) {
  if constexpr (E == 16) {
    CopyOne<16>(dst, src);
  } else {
    using T = hwy::UnsignedFromSize<E>;
    const BlockTag<T> d;
    constexpr int L = kBlockLanes<T>;
    using V = decltype(hn::Zero(d));
    V v[L];
    for (int k = 0; k < L; ++k) v[k] = hn::LoadU(d, reinterpret_cast<const T*>(src + k * ss));
    TransposeBlock<T>(v);
    for (int k = 0; k < L; ++k) hn::StoreU(v[k], d, reinterpret_cast<T*>(dst + k * ds));
  }
}
#endif

// Whether `lines` lines `stride` bytes apart, open at once, evict each other from L1: their
// set offsets repeat every 4096 / gcd(stride, 4096) lines, and past 8 per set (L1's ways) they
// do (power-of-two strides: the rows of a 4096-wide F32 matrix all share one set).
HWY_INLINE bool Thrashes(int64_t lines, int64_t stride) {
  const int64_t period = 4096 / std::gcd(stride, int64_t{4096});
  return lines / period > 8;
}

// The in-place transpose: blocks in the order that keeps few lines open on the side that
// needs it (`along_src`: L source rows at a time, one line per column open on the other side).
template <std::size_t E>
HWY_INLINE void Direct(char* dst, int64_t ds, const char* src, int64_t ss, int64_t rows, int64_t cols,
                       bool along_src) {
#if HWY_TARGET == HWY_SCALAR
  (void)along_src;
  Edges<E>(dst, ds, src, ss, 0, rows, 0, cols);
#else
  constexpr int64_t L = E == 16 ? 1 : static_cast<int64_t>(16 / E);
  const int64_t rows_full = rows - rows % L, cols_full = cols - cols % L;
  if constexpr (E == 16) {
    // A block is one element, so a sweep along one source row has a single line stream in
    // flight; sweeping kRows rows side by side keeps as many open as the smaller elements'
    // L-row blocks do (4096 x 4096 C128 transposed copy 150-220 -> 80-100 ms on Zen 3).
    constexpr int64_t kRows = 8;
    if (along_src) {
      const int64_t rows_grouped = rows - rows % kRows;
      for (int64_t r = 0; r < rows_grouped; r += kRows)
        for (int64_t c = 0; c < cols; ++c)
          for (int64_t k = r; k < r + kRows; ++k) Block<E>(dst + k * E + c * ds, ds, src + k * ss + c * E, ss);
      Edges<E>(dst, ds, src, ss, rows_grouped, rows, 0, cols);
      return;
    }
  }
  if (along_src) {
    for (int64_t r = 0; r < rows_full; r += L)
      for (int64_t c = 0; c < cols_full; c += L) Block<E>(dst + r * E + c * ds, ds, src + r * ss + c * E, ss);
  } else {
    for (int64_t c = 0; c < cols_full; c += L)
      for (int64_t r = 0; r < rows_full; r += L) Block<E>(dst + r * E + c * ds, ds, src + r * ss + c * E, ss);
  }
  Edges<E>(dst, ds, src, ss, 0, rows, cols_full, cols);
  Edges<E>(dst, ds, src, ss, rows_full, rows, 0, cols_full);
#endif
}

// Blocks go along the lines of the side farther apart in memory (usually the other side is a
// buffer in L1), so that only L of its lines are open at a time, each used up before the next
// is touched. The other side then has a line open per row (or column) of the tile; when those
// alias too (both sides far apart, with power-of-two strides: a 256 x 1024 F32 transpose ran at
// 4x memcpy against 1.6x for 250 x 1000), the tile goes through a buffer of padded rows in
// pieces: transposed into it with L source rows open, then copied out a destination row
// segment at a time (256 x 1024: 2.5x memcpy; 4096 x 4096: 3.4x -> 2.3x).
template <std::size_t E>
HWY_INLINE void Tile(char* dst, int64_t ds, const char* src, int64_t ss, int64_t rows, int64_t cols) {
  const bool along_src = std::abs(ss) >= std::abs(ds);
  const bool src_thrashes = Thrashes(rows, std::abs(ss)), dst_thrashes = Thrashes(cols, std::abs(ds));
  if (along_src ? !dst_thrashes : !src_thrashes) return Direct<E>(dst, ds, src, ss, rows, cols, along_src);
  if (along_src ? !src_thrashes : !dst_thrashes) return Direct<E>(dst, ds, src, ss, rows, cols, !along_src);
  constexpr int64_t kPiece = static_cast<int64_t>(512 / E);  // rows per piece: 512-byte segments
  constexpr int64_t kPitch = 512 + 64;                        // a buffer row, padded by a line
  constexpr int64_t kCols = 128;                              // columns per piece: 72 KB
  alignas(64) char buf[kCols * kPitch];
  for (int64_t c0 = 0; c0 < cols; c0 += kCols) {
    const int64_t nc = std::min(kCols, cols - c0);
    for (int64_t r0 = 0; r0 < rows; r0 += kPiece) {
      const int64_t nr = std::min(kPiece, rows - r0);
      Direct<E>(buf, kPitch, src + r0 * ss + c0 * static_cast<int64_t>(E), ss, nr, nc, true);
      for (int64_t c = 0; c < nc; ++c)
        std::memcpy(dst + r0 * static_cast<int64_t>(E) + (c0 + c) * ds, buf + c * kPitch,
                    static_cast<std::size_t>(nr) * E);
    }
  }
}

void TransposeTile(std::size_t esize, char* dst, int64_t ds, const char* src, int64_t ss, int64_t rows,
                   int64_t cols) {
  switch (esize) {
    case 1: return Tile<1>(dst, ds, src, ss, rows, cols);
    case 2: return Tile<2>(dst, ds, src, ss, rows, cols);
    case 4: return Tile<4>(dst, ds, src, ss, rows, cols);
    case 8: return Tile<8>(dst, ds, src, ss, rows, cols);
    default: return Tile<16>(dst, ds, src, ss, rows, cols);
  }
}

}  // namespace tensora::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tensora::simd {

HWY_EXPORT(TransposeTile);

void transpose_tile(std::size_t esize, char* dst, std::int64_t dst_stride, const char* src,
                    std::int64_t src_stride, std::int64_t rows, std::int64_t cols) {
  HWY_DYNAMIC_DISPATCH(TransposeTile)(esize, dst, dst_stride, src, src_stride, rows, cols);
}

}  // namespace tensora::simd
#endif
