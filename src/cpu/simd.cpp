// Highway kernels, compiled once per SIMD target and picked at run time for the CPU.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <hwy/cache_control.h>
#include <hwy/highway.h>
#include <hwy/contrib/math/math-inl.h>

#include "ops/elementwise_functors.hpp"
#include "cpu/simd.hpp"
#include "cpu/simd_op_lists.hpp"
#include "cpu/simd_ops-inl.h"  // Bin, UnChecked: the per-vector ops
#include "cpu/transpose_block-inl.h"

HWY_BEFORE_NAMESPACE();
namespace tensora::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Stores a result vector: with `Stream`, a non-temporal store (the caller checked that `p` is
// aligned to the vector), so a result too large for the caches is written once instead of
// being read for ownership first.
template <bool Stream, class D, class V, class T>
HWY_INLINE void Put(D d, V v, T* p) {
  if constexpr (Stream) hn::Stream(v, d, p);
  else hn::StoreU(v, d, p);
}

template <BinaryOp Op, bool Stream, class T>
// No HWY_RESTRICT: an in-place op passes the same buffer as an input and the output.
HWY_INLINE void BinaryLoop(const T* a, int64_t sa, const T* b, int64_t sb, T* out, int64_t n) {
  const hn::ScalableTag<T> d;
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  auto load = [&](const T* p, int64_t s, int64_t i) { return s ? hn::LoadU(d, p + i) : hn::Set(d, p[0]); };
  int64_t i = 0;
  if (sa && sb) {
    for (; i + 2 * N <= n; i += 2 * N) {
      Put<Stream>(d, Bin<Op>(d, hn::LoadU(d, a + i), hn::LoadU(d, b + i)), out + i);
      Put<Stream>(d, Bin<Op>(d, hn::LoadU(d, a + i + N), hn::LoadU(d, b + i + N)), out + i + N);
    }
  } else if (sa) {  // a tensor with a scalar: the scalar's vector is made once
    const auto vb = hn::Set(d, b[0]);
    for (; i + 2 * N <= n; i += 2 * N) {
      Put<Stream>(d, Bin<Op>(d, hn::LoadU(d, a + i), vb), out + i);
      Put<Stream>(d, Bin<Op>(d, hn::LoadU(d, a + i + N), vb), out + i + N);
    }
  } else if (sb) {
    const auto va = hn::Set(d, a[0]);
    for (; i + 2 * N <= n; i += 2 * N) {
      Put<Stream>(d, Bin<Op>(d, va, hn::LoadU(d, b + i)), out + i);
      Put<Stream>(d, Bin<Op>(d, va, hn::LoadU(d, b + i + N)), out + i + N);
    }
  }
  for (; i + N <= n; i += N) Put<Stream>(d, Bin<Op>(d, load(a, sa, i), load(b, sb, i)), out + i);
  if (i < n) {
    const auto mask = hn::FirstN(d, static_cast<size_t>(n - i));
    const auto va = sa ? hn::MaskedLoad(mask, d, a + i) : hn::Set(d, a[0]);
    const auto vb = sb ? hn::MaskedLoad(mask, d, b + i) : hn::Set(d, b[0]);
    hn::BlendedStore(Bin<Op>(d, va, vb), mask, d, out + i);
  }
  if constexpr (Stream) hwy::FlushStream();  // the streamed lines are visible before the run is done
}

template <class T>
HWY_INLINE bool Binary(BinaryOp op, const T* a, int64_t sa, const T* b, int64_t sb, T* out, int64_t n, bool stream) {
  stream = stream && VectorAligned(hn::ScalableTag<T>(), out);  // streamed stores need it
  switch (op) {
#define TENSORA_BINARY_CASE(name)                                      \
  case BinaryOp::name:                                                 \
    if (stream) BinaryLoop<BinaryOp::name, true>(a, sa, b, sb, out, n); \
    else BinaryLoop<BinaryOp::name, false>(a, sa, b, sb, out, n);       \
    return true;
    TENSORA_SIMD_BINARY_OPS(TENSORA_BINARY_CASE)
#undef TENSORA_BINARY_CASE
    default: return false;
  }
}

bool BinaryF32(BinaryOp op, const float* a, int64_t sa, const float* b, int64_t sb, float* out, int64_t n,
               bool stream) {
  return Binary(op, a, sa, b, sb, out, n, stream);
}
bool BinaryF64(BinaryOp op, const double* a, int64_t sa, const double* b, int64_t sb, double* out, int64_t n,
               bool stream) {
  return Binary(op, a, sa, b, sb, out, n, stream);
}

template <UnaryOp Op, bool Stream, class T>
HWY_INLINE void UnaryLoop(const T* in, T* out, int64_t n) {  // in == out for in-place ops
  const hn::ScalableTag<T> d;
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  // Polynomial ops spend tens of instructions per vector, which leaves the hardware
  // prefetcher too few loads in flight; fetch a few KiB ahead by hand.
  constexpr int64_t kAhead = 2048 / sizeof(T);
  for (; i + N <= n; i += N) {
    hwy::Prefetch(in + i + kAhead);
    Put<Stream>(d, UnChecked<Op>(d, hn::LoadU(d, in + i)), out + i);
  }
  if (i < n) {
    const auto mask = hn::FirstN(d, static_cast<size_t>(n - i));
    // Inactive lanes hold 1, a value every op accepts without raising anything odd.
    const auto v = hn::IfThenElse(mask, hn::MaskedLoad(mask, d, in + i), hn::Set(d, T(1)));
    hn::BlendedStore(UnChecked<Op>(d, v), mask, d, out + i);
  }
  if constexpr (Stream) hwy::FlushStream();
}

// Ops with long vector forms (HasSpecialLanes) are bound by their arithmetic, not by memory:
// streamed, a 16M F32 tanh took 4-9% longer and exp gained nothing, so they store ordinarily.
template <class T>
HWY_INLINE bool Unary(UnaryOp op, const T* in, T* out, int64_t n, bool stream) {
  stream = stream && VectorAligned(hn::ScalableTag<T>(), out);  // streamed stores need it
  switch (op) {
#define TENSORA_UNARY_CASE(name)                                                        \
  case UnaryOp::name:                                                                   \
    if (!HasSpecialLanes(UnaryOp::name) && stream) UnaryLoop<UnaryOp::name, true>(in, out, n); \
    else UnaryLoop<UnaryOp::name, false>(in, out, n);                                   \
    return true;
    TENSORA_SIMD_UNARY_OPS(TENSORA_UNARY_CASE)
#undef TENSORA_UNARY_CASE
    default: return false;
  }
}

bool UnaryF32(UnaryOp op, const float* in, float* out, int64_t n, bool stream) {
  return Unary(op, in, out, n, stream);
}
bool UnaryF64(UnaryOp op, const double* in, double* out, int64_t n, bool stream) {
  return Unary(op, in, out, n, stream);
}

// ---- Transposing tiles (simd.hpp): L x L blocks, L = lanes of a 128-bit vector ----------------

#if HWY_TARGET != HWY_SCALAR
// Lanes(d) elements of U at p as T: widened exactly, or narrowed with the rounding of
// static_cast (two half-width conversions joined), as cast_value converts F32 <-> F64.
template <class T, class U, class D>
HWY_INLINE hn::Vec<D> LoadAs(D d, const U* p) {
  if constexpr (std::is_same_v<T, U>) {
    return hn::LoadU(d, p);
  } else if constexpr (sizeof(U) < sizeof(T)) {
    return hn::PromoteTo(d, hn::LoadU(hn::Rebind<U, D>(), p));
  } else {
    const hn::Half<D> dh;
    const hn::Rebind<U, decltype(dh)> du;
    return hn::Combine(d, hn::DemoteTo(dh, hn::LoadU(du, p + hn::Lanes(dh))), hn::DemoteTo(dh, hn::LoadU(du, p)));
  }
}

// The block's L columns of one operand (rows i0.., columns j0..), as T (an operand of another
// element type is a cast's input). A partial block at a tile's edge goes through a buffer
// padded with 1, a value every op accepts quietly, so edges take the vector op too and round
// like the flat kernels' masked tails.
template <class T, class U>
HWY_NOINLINE void EdgeColumns(const TileOperand<U>& x, int64_t i0, int64_t j0, int64_t ni, int64_t nj, T* buffer) {
  constexpr int64_t L = kBlockLanes<T>;
  const bool crossed = x.mode == TileMode::Crossed;
  for (int64_t j = 0; j < L; ++j)
    for (int64_t i = 0; i < L; ++i)
      buffer[j * L + i] =
          i < ni && j < nj ? static_cast<T>(x.p[crossed ? (i0 + i) * x.stride + j0 + j : i0 + i + (j0 + j) * x.stride])
                           : T(1);
}

template <class T, class U, class V>
HWY_INLINE void TileColumns(const TileOperand<U>& x, int64_t i0, int64_t j0, int64_t ni, int64_t nj, V* v) {
  const BlockTag<T> d;
  constexpr int64_t L = kBlockLanes<T>;
  if (x.mode == TileMode::Scalar) {
    for (int64_t j = 0; j < L; ++j) v[j] = hn::Set(d, static_cast<T>(x.p[0]));
    return;
  }
  const bool crossed = x.mode == TileMode::Crossed;
  if (ni == L && nj == L) {
    if (crossed) {
      for (int64_t i = 0; i < L; ++i) v[i] = LoadAs<T>(d, x.p + (i0 + i) * x.stride + j0);
      TransposeBlock<T>(v);
    } else {
      for (int64_t j = 0; j < L; ++j) v[j] = LoadAs<T>(d, x.p + i0 + (j0 + j) * x.stride);
    }
    return;
  }
  HWY_ALIGN T buffer[L * L];
  EdgeColumns(x, i0, j0, ni, nj, buffer);
  for (int64_t j = 0; j < L; ++j) v[j] = hn::Load(d, buffer + j * L);
}

template <class T, class V>
HWY_INLINE void StoreColumns(V* v, T* out, int64_t so, int64_t i0, int64_t j0, int64_t ni, int64_t nj) {
  const BlockTag<T> d;
  constexpr int64_t L = kBlockLanes<T>;
  if (ni == L && nj == L) {
    for (int64_t j = 0; j < L; ++j) hn::StoreU(v[j], d, out + i0 + (j0 + j) * so);
    return;
  }
  HWY_ALIGN T buffer[L * L];
  for (int64_t j = 0; j < L; ++j) hn::Store(v[j], d, buffer + j * L);
  for (int64_t j = 0; j < nj; ++j)
    for (int64_t i = 0; i < ni; ++i) out[i0 + i + (j0 + j) * so] = buffer[j * L + i];
}

// Fetches the line of row i at column j of a crossed operand ahead of its use: a strip reads
// one line from each of many rows, a pattern the hardware prefetchers do not follow far enough.
template <class T>
HWY_INLINE void PrefetchRow(const TileOperand<T>& x, int64_t i, int64_t j) {
  if (x.mode == TileMode::Crossed) hwy::Prefetch(x.p + i * x.stride + j);
}

// ---- Wide blocks: N x N, N = lanes of the widest vector (16 F32 with AVX-512) -------------------
// Each output column of a block is one full vector (a whole cache line with AVX-512), so a
// large result can be written with streaming stores; the 128-bit blocks above write a quarter
// line per column per step, which left a transposing op at 2-4x its flat pass.
template <class T>
using WideTag = hn::ScalableTag<T>;

// v[k] holds row k on entry and column k on return: log2(N) stages, each gathering the even
// and the odd lanes of neighbouring vectors (a perfect shuffle across the whole vector).
template <class T, class V>
HWY_INLINE void TransposeWide(V* v) {
  const WideTag<T> d;
  constexpr size_t N = hn::MaxLanes(d);
  for (size_t stage = 1; stage < N; stage *= 2) {
    V w[N];
    for (size_t j = 0; j < N / 2; ++j) {
      w[j] = hn::ConcatEven(d, v[2 * j + 1], v[2 * j]);
      w[j + N / 2] = hn::ConcatOdd(d, v[2 * j + 1], v[2 * j]);
    }
    for (size_t k = 0; k < N; ++k) v[k] = w[k];
  }
}

// The N columns of one operand's block at (i0, j0), whole, as T.
template <class T, class U, class V>
HWY_INLINE void WideColumns(const TileOperand<U>& x, int64_t i0, int64_t j0, V* v) {
  const WideTag<T> d;
  constexpr int64_t N = static_cast<int64_t>(hn::MaxLanes(d));
  if (x.mode == TileMode::Scalar) {
    for (int64_t j = 0; j < N; ++j) v[j] = hn::Set(d, static_cast<T>(x.p[0]));
  } else if (x.mode == TileMode::Crossed) {
    for (int64_t i = 0; i < N; ++i) v[i] = LoadAs<T>(d, x.p + (i0 + i) * x.stride + j0);
    TransposeWide<T>(v);
  } else {
    for (int64_t j = 0; j < N; ++j) v[j] = LoadAs<T>(d, x.p + i0 + (j0 + j) * x.stride);
  }
}

// The operand of the sub-tile starting at (i0, j0).
template <class T>
HWY_INLINE TileOperand<T> Shifted(const TileOperand<T>& x, int64_t i0, int64_t j0) {
  switch (x.mode) {
    case TileMode::Straight: return {x.p + i0 + j0 * x.stride, x.stride, x.mode};
    case TileMode::Crossed: return {x.p + i0 * x.stride + j0, x.stride, x.mode};
    case TileMode::Scalar: break;
  }
  return x;
}

template <BinaryOp Op, class T>
struct BinaryColumns {
  TileOperand<T> a;
  TileOperand<T> b;
  HWY_INLINE void Prefetch(int64_t i, int64_t j) const {
    PrefetchRow(a, i, j);
    PrefetchRow(b, i, j);
  }
  template <class V>
  HWY_INLINE void operator()(int64_t i0, int64_t j0, int64_t ni, int64_t nj, V* v) const {
    V w[kBlockLanes<T>];
    TileColumns<T>(a, i0, j0, ni, nj, v);
    TileColumns<T>(b, i0, j0, ni, nj, w);
    for (int j = 0; j < kBlockLanes<T>; ++j) v[j] = Bin<Op>(BlockTag<T>(), v[j], w[j]);
  }
  template <class V>
  HWY_INLINE void Wide(int64_t i0, int64_t j0, V* v) const {
    constexpr size_t N = hn::MaxLanes(WideTag<T>());
    V w[N];
    WideColumns<T>(a, i0, j0, v);
    WideColumns<T>(b, i0, j0, w);
    for (size_t j = 0; j < N; ++j) v[j] = Bin<Op>(WideTag<T>(), v[j], w[j]);
  }
  BinaryColumns Shift(int64_t i0, int64_t j0) const { return {Shifted(a, i0, j0), Shifted(b, i0, j0)}; }
};

template <UnaryOp Op, class T>
struct UnaryColumns {
  TileOperand<T> in;
  HWY_INLINE void Prefetch(int64_t i, int64_t j) const { PrefetchRow(in, i, j); }
  template <class V>
  HWY_INLINE void operator()(int64_t i0, int64_t j0, int64_t ni, int64_t nj, V* v) const {
    TileColumns<T>(in, i0, j0, ni, nj, v);
    for (int j = 0; j < kBlockLanes<T>; ++j) v[j] = UnChecked<Op>(BlockTag<T>(), v[j]);
  }
  template <class V>
  HWY_INLINE void Wide(int64_t i0, int64_t j0, V* v) const {
    WideColumns<T>(in, i0, j0, v);
    for (size_t j = 0; j < hn::MaxLanes(WideTag<T>()); ++j) v[j] = UnChecked<Op>(WideTag<T>(), v[j]);
  }
  UnaryColumns Shift(int64_t i0, int64_t j0) const { return {Shifted(in, i0, j0)}; }
};

// A cast's columns: the input's rows or columns converted to T as they are loaded (LoadAs),
// then transposed like any T block.
template <class U, class T>
struct CastColumns {
  TileOperand<U> in;
  HWY_INLINE void Prefetch(int64_t i, int64_t j) const { PrefetchRow(in, i, j); }
  template <class V>
  HWY_INLINE void operator()(int64_t i0, int64_t j0, int64_t ni, int64_t nj, V* v) const {
    TileColumns<T>(in, i0, j0, ni, nj, v);
  }
  template <class V>
  HWY_INLINE void Wide(int64_t i0, int64_t j0, V* v) const {
    WideColumns<T>(in, i0, j0, v);
  }
  CastColumns Shift(int64_t i0, int64_t j0) const { return {Shifted(in, i0, j0)}; }
};

// Blocks go down the tile in strips of one cache line of columns (64 bytes of a crossed
// operand's rows, used up at once) and L rows: each output column takes L lanes per step.
template <class T, class Columns>
HWY_INLINE void TileLoop(T* out, int64_t so, int64_t rows, int64_t cols, const Columns& columns) {
  constexpr int64_t L = kBlockLanes<T>, kStrip = 64 / sizeof(T), kAhead = 16;  // rows
  using V = decltype(hn::Zero(BlockTag<T>()));
  for (int64_t j0 = 0; j0 < cols; j0 += kStrip)
    for (int64_t i0 = 0; i0 < rows; i0 += L) {
      for (int64_t i = i0 + kAhead; i < i0 + kAhead + L; ++i) {
        if (i < rows) columns.Prefetch(i, j0);
        else if (j0 + kStrip < cols && i - rows < rows) columns.Prefetch(i - rows, j0 + kStrip);
      }
      for (int64_t jb = j0; jb < std::min(cols, j0 + kStrip); jb += L) {
        const int64_t ni = std::min(L, rows - i0), nj = std::min(L, cols - jb);
        V v[L];
        columns(i0, jb, ni, nj, v);
        StoreColumns<T>(v, out, so, i0, jb, ni, nj);
      }
    }
}

// The tile's whole N x N blocks, a strip of N columns at a time down the rows, then its edges
// (fewer than N rows or columns left) by the 128-bit loop. With `stream` (a result larger than
// the caches are meant to keep: simd.hpp) and aligned columns, each column vector is stored
// past the caches: the result's lines are then written once, never read for ownership.
template <class T, class Columns>
HWY_INLINE void WideTileLoop(T* out, int64_t so, int64_t rows, int64_t cols, const Columns& columns, bool stream) {
  const WideTag<T> d;
  constexpr int64_t N = static_cast<int64_t>(hn::MaxLanes(d));
  using V = hn::Vec<WideTag<T>>;
  stream = stream && VectorAligned(d, out) && so % N == 0;  // every column starts aligned
  const int64_t whole_rows = rows / N * N, whole_cols = cols / N * N;
  for (int64_t j0 = 0; j0 < whole_cols; j0 += N)
    for (int64_t i0 = 0; i0 < whole_rows; i0 += N) {
      V v[N];
      columns.Wide(i0, j0, v);
      if (stream) {
        for (int64_t j = 0; j < N; ++j) hn::Stream(v[j], d, out + i0 + (j0 + j) * so);
      } else {
        for (int64_t j = 0; j < N; ++j) hn::StoreU(v[j], d, out + i0 + (j0 + j) * so);
      }
    }
  if (stream) hwy::FlushStream();  // the streamed lines are visible before the tile is done
  if (whole_cols < cols) TileLoop<T>(out + whole_cols * so, so, rows, cols - whole_cols, columns.Shift(0, whole_cols));
  if (whole_rows < rows) TileLoop<T>(out + whole_rows, so, rows - whole_rows, whole_cols, columns.Shift(whole_rows, 0));
}

template <BinaryOp Op, class T>
HWY_INLINE void BinaryTileLoop(const TileOperand<T>& a, const TileOperand<T>& b, T* out, int64_t so, int64_t rows,
                               int64_t cols, bool stream) {
  WideTileLoop<T>(out, so, rows, cols, BinaryColumns<Op, T>{a, b}, stream);
}

template <UnaryOp Op, class T>
HWY_INLINE void UnaryTileLoop(const TileOperand<T>& in, T* out, int64_t so, int64_t rows, int64_t cols,
                              bool stream) {
  WideTileLoop<T>(out, so, rows, cols, UnaryColumns<Op, T>{in}, stream);
}
#endif

template <class T>
HWY_INLINE bool BinaryTile(BinaryOp op, const TileOperand<T>& a, const TileOperand<T>& b, T* out, int64_t so,
                           int64_t rows, int64_t cols, bool stream) {
#if HWY_TARGET == HWY_SCALAR
  (void)op, (void)a, (void)b, (void)out, (void)so, (void)rows, (void)cols, (void)stream;
  return false;
#else
  switch (op) {
#define TENSORA_BINARY_CASE(name) \
  case BinaryOp::name: BinaryTileLoop<BinaryOp::name>(a, b, out, so, rows, cols, stream); return true;
    TENSORA_SIMD_BINARY_OPS(TENSORA_BINARY_CASE)
#undef TENSORA_BINARY_CASE
    default: return false;
  }
#endif
}

template <class T>
HWY_INLINE bool UnaryTile(UnaryOp op, const TileOperand<T>& in, T* out, int64_t so, int64_t rows, int64_t cols,
                          bool stream) {
#if HWY_TARGET == HWY_SCALAR
  (void)op, (void)in, (void)out, (void)so, (void)rows, (void)cols, (void)stream;
  return false;
#else
  switch (op) {
#define TENSORA_UNARY_CASE(name) \
  case UnaryOp::name: UnaryTileLoop<UnaryOp::name>(in, out, so, rows, cols, stream); return true;
    TENSORA_SIMD_UNARY_OPS(TENSORA_UNARY_CASE)
#undef TENSORA_UNARY_CASE
    default: return false;
  }
#endif
}

bool BinaryTileF32(BinaryOp op, TileOperand<float> a, TileOperand<float> b, float* out, int64_t so, int64_t rows,
                   int64_t cols, bool stream) {
  return BinaryTile(op, a, b, out, so, rows, cols, stream);
}
bool BinaryTileF64(BinaryOp op, TileOperand<double> a, TileOperand<double> b, double* out, int64_t so, int64_t rows,
                   int64_t cols, bool stream) {
  return BinaryTile(op, a, b, out, so, rows, cols, stream);
}
bool UnaryTileF32(UnaryOp op, TileOperand<float> in, float* out, int64_t so, int64_t rows, int64_t cols,
                  bool stream) {
  return UnaryTile(op, in, out, so, rows, cols, stream);
}
bool UnaryTileF64(UnaryOp op, TileOperand<double> in, double* out, int64_t so, int64_t rows, int64_t cols,
                  bool stream) {
  return UnaryTile(op, in, out, so, rows, cols, stream);
}

template <class U, class T>
HWY_INLINE bool CastTile(const TileOperand<U>& in, T* out, int64_t so, int64_t rows, int64_t cols, bool stream) {
#if HWY_TARGET == HWY_SCALAR
  (void)in, (void)out, (void)so, (void)rows, (void)cols, (void)stream;
  return false;
#else
  WideTileLoop<T>(out, so, rows, cols, CastColumns<U, T>{in}, stream);
  return true;
#endif
}
bool CastTileF32ToF64(TileOperand<float> in, double* out, int64_t so, int64_t rows, int64_t cols, bool stream) {
  return CastTile(in, out, so, rows, cols, stream);
}
bool CastTileF64ToF32(TileOperand<double> in, float* out, int64_t so, int64_t rows, int64_t cols, bool stream) {
  return CastTile(in, out, so, rows, cols, stream);
}

// The bytes of the widest vector (WideTileLoop's blocks: their columns stream when aligned to it).
size_t WideVectorBytes() { return hn::Lanes(hn::ScalableTag<uint8_t>()); }

void StreamCopy(char* dst, const char* src, size_t bytes) {
  const hn::ScalableTag<uint8_t> d;
  const size_t N = hn::Lanes(d);
  const size_t head = std::min(bytes, (N - reinterpret_cast<std::uintptr_t>(dst) % N) % N);
  std::memcpy(dst, src, head);
  size_t i = head;
  for (; i + N <= bytes; i += N)
    hn::Stream(hn::LoadU(d, reinterpret_cast<const uint8_t*>(src) + i), d, reinterpret_cast<uint8_t*>(dst) + i);
  std::memcpy(dst + i, src + i, bytes - i);
}

// Sums in double with eight accumulators (the add latency times the adds per cycle); the
// lane layout is fixed per target. F32 is blocked: each float lane adds kDepth values, then
// the partials are widened into the double accumulators, so the float->double conversion is
// paid once per kDepth loads (a partial of 16 values keeps a relative error of 1e-6 even in
// the worst case; the F32 sum of 10^7 x 0.1 test checks the whole).
template <class T>
HWY_INLINE double SumLoop(const T* HWY_RESTRICT x, int64_t n) {
  const hn::ScalableTag<double> dd;
  const auto N = static_cast<int64_t>(hn::Lanes(dd));
  const hn::Rebind<float, decltype(dd)> dh;  // N floats
  auto load = [&](int64_t i) {
    if constexpr (sizeof(T) == 4) {
      return hn::PromoteTo(dd, hn::LoadU(dh, x + i));
    } else {
      return hn::LoadU(dd, x + i);
    }
  };
  hn::Vec<decltype(dd)> acc[8];
  for (auto& a : acc) a = hn::Zero(dd);
  int64_t i = 0;
  if constexpr (sizeof(T) == 4) {
    constexpr int kDepth = 16;
    const hn::ScalableTag<float> df;
    const auto NF = static_cast<int64_t>(hn::Lanes(df));
    HWY_ALIGN float partial[8 * hn::MaxLanes(df)];
    for (; i + kDepth * 8 * NF <= n; i += kDepth * 8 * NF) {
      hn::Vec<decltype(df)> f[8];
      for (auto& a : f) a = hn::Zero(df);
      for (int r = 0; r < kDepth; ++r)
        for (int j = 0; j < 8; ++j) f[j] = hn::Add(f[j], hn::LoadU(df, x + i + (r * 8 + j) * NF));
      for (int j = 0; j < 8; ++j) hn::Store(f[j], df, partial + j * NF);
      for (int64_t q = 0; q < 8 * NF; q += N) {
        auto& a = acc[(q / N) % 8];
        a = hn::Add(a, hn::PromoteTo(dd, hn::Load(dh, partial + q)));
      }
    }
  }
  for (; i + 8 * N <= n; i += 8 * N)
    for (int j = 0; j < 8; ++j) acc[j] = hn::Add(acc[j], load(i + j * N));
  for (; i + N <= n; i += N) acc[0] = hn::Add(acc[0], load(i));
  for (int w = 4; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] = hn::Add(acc[j], acc[j + w]);
  double total = hn::GetLane(hn::SumOfLanes(dd, acc[0]));
  for (; i < n; ++i) total += static_cast<double>(x[i]);
  return total;
}

double SumF32(const float* x, int64_t n) { return SumLoop(x, n); }
double SumF64(const double* x, int64_t n) { return SumLoop(x, n); }

// x - x is +0 for a finite x and NaN for inf or NaN, and NaN survives a sum: four independent
// sums, one compare at the end.
template <class T>
HWY_INLINE bool AllFiniteLoop(const T* HWY_RESTRICT x, int64_t n) {
  const hn::ScalableTag<T> d;
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  auto a0 = hn::Zero(d), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    const auto v0 = hn::LoadU(d, x + i), v1 = hn::LoadU(d, x + i + N), v2 = hn::LoadU(d, x + i + 2 * N),
               v3 = hn::LoadU(d, x + i + 3 * N);
    a0 = hn::Add(a0, hn::Sub(v0, v0));
    a1 = hn::Add(a1, hn::Sub(v1, v1));
    a2 = hn::Add(a2, hn::Sub(v2, v2));
    a3 = hn::Add(a3, hn::Sub(v3, v3));
  }
  for (; i + N <= n; i += N) {
    const auto v = hn::LoadU(d, x + i);
    a0 = hn::Add(a0, hn::Sub(v, v));
  }
  bool finite = hn::AllTrue(d, hn::Eq(hn::Add(hn::Add(a0, a1), hn::Add(a2, a3)), hn::Zero(d)));
  for (; i < n; ++i) finite = finite && x[i] - x[i] == T(0);
  return finite;
}

bool AllFiniteF32(const float* x, int64_t n) { return AllFiniteLoop(x, n); }
bool AllFiniteF64(const double* x, int64_t n) { return AllFiniteLoop(x, n); }

// Four independent accumulators: a compare-and-blend chain has a latency of several cycles.
// NaN is tracked apart; ties follow IEEE 754-2019 (+0 above -0) in the lanes, the fold of the
// lanes and the tail, so the result does not depend on where the zeros are.
template <bool kMax, class T>
HWY_INLINE T ExtremeLoop(const T* HWY_RESTRICT x, int64_t n) {
  const hn::ScalableTag<T> d;
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  auto pick = [](auto acc, auto v) { return kMax ? MaxNoNaN(acc, v) : MinNoNaN(acc, v); };
  auto pick1 = [](T acc, T v) {
    return kMax ? fn::binary<BinaryOp::Maximum>(acc, v) : fn::binary<BinaryOp::Minimum>(acc, v);
  };
  T best = x[0];
  int64_t i = 0;
  if (n >= N) {
    auto a0 = hn::LoadU(d, x), a1 = a0, a2 = a0, a3 = a0;
    auto nan = hn::IsNaN(a0);
    for (i = N; i + 4 * N <= n; i += 4 * N) {
      const auto v0 = hn::LoadU(d, x + i), v1 = hn::LoadU(d, x + i + N);
      const auto v2 = hn::LoadU(d, x + i + 2 * N), v3 = hn::LoadU(d, x + i + 3 * N);
      nan = hn::Or(nan, hn::Or(hn::Or(hn::IsNaN(v0), hn::IsNaN(v1)), hn::Or(hn::IsNaN(v2), hn::IsNaN(v3))));
      a0 = pick(a0, v0);
      a1 = pick(a1, v1);
      a2 = pick(a2, v2);
      a3 = pick(a3, v3);
    }
    for (; i + N <= n; i += N) {
      const auto v = hn::LoadU(d, x + i);
      nan = hn::Or(nan, hn::IsNaN(v));
      a0 = pick(a0, v);
    }
    if (!hn::AllFalse(d, nan)) return std::numeric_limits<T>::quiet_NaN();
    HWY_ALIGN T lanes[hn::MaxLanes(d)];
    hn::Store(pick(pick(a0, a1), pick(a2, a3)), d, lanes);
    best = lanes[0];
    for (int64_t l = 1; l < N; ++l) best = pick1(best, lanes[l]);
  }
  for (; i < n; ++i) {
    if (x[i] != x[i]) return x[i];
    best = pick1(best, x[i]);
  }
  return best;
}

float MaxF32(const float* x, int64_t n) { return ExtremeLoop<true>(x, n); }
double MaxF64(const double* x, int64_t n) { return ExtremeLoop<true>(x, n); }
float MinF32(const float* x, int64_t n) { return ExtremeLoop<false>(x, n); }
double MinF64(const double* x, int64_t n) { return ExtremeLoop<false>(x, n); }

template <class T>
HWY_INLINE void AccumulateSum(double* HWY_RESTRICT acc, const T* HWY_RESTRICT x, int64_t n) {
  const hn::ScalableTag<double> dd;
  const auto N = static_cast<int64_t>(hn::Lanes(dd));
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    hn::Vec<decltype(dd)> v;
    if constexpr (sizeof(T) == 4) {
      const hn::Rebind<float, decltype(dd)> df;
      v = hn::PromoteTo(dd, hn::LoadU(df, x + i));
    } else {
      v = hn::LoadU(dd, x + i);
    }
    hn::StoreU(hn::Add(hn::LoadU(dd, acc + i), v), dd, acc + i);
  }
  for (; i < n; ++i) acc[i] += static_cast<double>(x[i]);
}

void AccumulateSumF32(double* acc, const float* x, int64_t n) { AccumulateSum(acc, x, n); }
void AccumulateSumF64(double* acc, const double* x, int64_t n) { AccumulateSum(acc, x, n); }

template <class T>
HWY_INLINE void AccumulateExtreme(bool max, T* HWY_RESTRICT acc, const T* HWY_RESTRICT x, int64_t n) {
  const hn::ScalableTag<T> d;
  const auto N = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + N <= n; i += N) {
    const auto a = hn::LoadU(d, acc + i), v = hn::LoadU(d, x + i);
    const auto r = max ? Bin<BinaryOp::Maximum>(d, a, v) : Bin<BinaryOp::Minimum>(d, a, v);
    hn::StoreU(r, d, acc + i);
  }
  for (; i < n; ++i) {
    const T a = acc[i], v = x[i];
    acc[i] = a != a ? a : v != v ? v : (max ? (a < v ? v : a) : (v < a ? v : a));
  }
}

void AccumulateExtremeF32(bool max, float* acc, const float* x, int64_t n) { AccumulateExtreme(max, acc, x, n); }
void AccumulateExtremeF64(bool max, double* acc, const double* x, int64_t n) { AccumulateExtreme(max, acc, x, n); }

}  // namespace tensora::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tensora::simd {

HWY_EXPORT(BinaryF32);
HWY_EXPORT(BinaryF64);
HWY_EXPORT(UnaryF32);
HWY_EXPORT(UnaryF64);
HWY_EXPORT(BinaryTileF32);
HWY_EXPORT(BinaryTileF64);
HWY_EXPORT(UnaryTileF32);
HWY_EXPORT(UnaryTileF64);
HWY_EXPORT(CastTileF32ToF64);
HWY_EXPORT(CastTileF64ToF32);
HWY_EXPORT(StreamCopy);
HWY_EXPORT(WideVectorBytes);
HWY_EXPORT(SumF32);
HWY_EXPORT(SumF64);
HWY_EXPORT(AllFiniteF32);
HWY_EXPORT(AllFiniteF64);
HWY_EXPORT(MaxF32);
HWY_EXPORT(MaxF64);
HWY_EXPORT(MinF32);
HWY_EXPORT(MinF64);
HWY_EXPORT(AccumulateSumF32);
HWY_EXPORT(AccumulateSumF64);
HWY_EXPORT(AccumulateExtremeF32);
HWY_EXPORT(AccumulateExtremeF64);

void accumulate_sum_f32(double* acc, const float* x, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateSumF32)(acc, x, n);
}
void accumulate_sum_f64(double* acc, const double* x, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateSumF64)(acc, x, n);
}
void accumulate_extreme_f32(bool max, float* acc, const float* x, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateExtremeF32)(max, acc, x, n);
}
void accumulate_extreme_f64(bool max, double* acc, const double* x, std::int64_t n) {
  HWY_DYNAMIC_DISPATCH(AccumulateExtremeF64)(max, acc, x, n);
}

bool binary_f32(BinaryOp op, const float* a, std::int64_t sa, const float* b, std::int64_t sb,
                float* out, std::int64_t n, bool stream) {
  return HWY_DYNAMIC_DISPATCH(BinaryF32)(op, a, sa, b, sb, out, n, stream);
}
bool binary_f64(BinaryOp op, const double* a, std::int64_t sa, const double* b, std::int64_t sb,
                double* out, std::int64_t n, bool stream) {
  return HWY_DYNAMIC_DISPATCH(BinaryF64)(op, a, sa, b, sb, out, n, stream);
}
bool unary_f32(UnaryOp op, const float* in, float* out, std::int64_t n, bool stream) {
  return HWY_DYNAMIC_DISPATCH(UnaryF32)(op, in, out, n, stream);
}
bool unary_f64(UnaryOp op, const double* in, double* out, std::int64_t n, bool stream) {
  return HWY_DYNAMIC_DISPATCH(UnaryF64)(op, in, out, n, stream);
}
bool binary_tile(BinaryOp op, TileOperand<float> a, TileOperand<float> b, float* out, std::int64_t out_stride,
                 std::int64_t rows, std::int64_t cols, bool stream) {
  return HWY_DYNAMIC_DISPATCH(BinaryTileF32)(op, a, b, out, out_stride, rows, cols, stream);
}
bool binary_tile(BinaryOp op, TileOperand<double> a, TileOperand<double> b, double* out, std::int64_t out_stride,
                 std::int64_t rows, std::int64_t cols, bool stream) {
  return HWY_DYNAMIC_DISPATCH(BinaryTileF64)(op, a, b, out, out_stride, rows, cols, stream);
}
bool unary_tile(UnaryOp op, TileOperand<float> in, float* out, std::int64_t out_stride, std::int64_t rows,
                std::int64_t cols, bool stream) {
  return HWY_DYNAMIC_DISPATCH(UnaryTileF32)(op, in, out, out_stride, rows, cols, stream);
}
bool unary_tile(UnaryOp op, TileOperand<double> in, double* out, std::int64_t out_stride, std::int64_t rows,
                std::int64_t cols, bool stream) {
  return HWY_DYNAMIC_DISPATCH(UnaryTileF64)(op, in, out, out_stride, rows, cols, stream);
}
bool cast_tile(TileOperand<float> in, double* out, std::int64_t out_stride, std::int64_t rows, std::int64_t cols,
               bool stream) {
  return HWY_DYNAMIC_DISPATCH(CastTileF32ToF64)(in, out, out_stride, rows, cols, stream);
}
bool cast_tile(TileOperand<double> in, float* out, std::int64_t out_stride, std::int64_t rows, std::int64_t cols,
               bool stream) {
  return HWY_DYNAMIC_DISPATCH(CastTileF64ToF32)(in, out, out_stride, rows, cols, stream);
}
void stream_copy(char* dst, const char* src, std::size_t bytes) { HWY_DYNAMIC_DISPATCH(StreamCopy)(dst, src, bytes); }
void stream_fence() { hwy::FlushStream(); }

std::size_t tile_stream_alignment(std::size_t widest_element_bytes) {
  return widest_element_bytes >= 16 ? 16 : HWY_DYNAMIC_DISPATCH(WideVectorBytes)();
}
double sum_f32(const float* x, std::int64_t n) { return HWY_DYNAMIC_DISPATCH(SumF32)(x, n); }
double sum_f64(const double* x, std::int64_t n) { return HWY_DYNAMIC_DISPATCH(SumF64)(x, n); }
bool all_finite_f32(const float* x, std::int64_t n) { return HWY_DYNAMIC_DISPATCH(AllFiniteF32)(x, n); }
bool all_finite_f64(const double* x, std::int64_t n) { return HWY_DYNAMIC_DISPATCH(AllFiniteF64)(x, n); }
float max_f32(const float* x, std::int64_t n) { return HWY_DYNAMIC_DISPATCH(MaxF32)(x, n); }
double max_f64(const double* x, std::int64_t n) { return HWY_DYNAMIC_DISPATCH(MaxF64)(x, n); }
float min_f32(const float* x, std::int64_t n) { return HWY_DYNAMIC_DISPATCH(MinF32)(x, n); }
double min_f64(const double* x, std::int64_t n) { return HWY_DYNAMIC_DISPATCH(MinF64)(x, n); }

}  // namespace tensora::simd
#endif
