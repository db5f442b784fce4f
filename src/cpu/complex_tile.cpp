// Transposing tiles of C128 ops (simd.hpp): a 16-byte element is one 128-bit vector, so a
// tile needs no in-register transpose and no staging buffer: each element is loaded from its
// crossed row once and stored into its output column once. Compiled once per SIMD target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/complex_tile.cpp"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>
#include <algorithm>
#include <complex>
#include <cstdint>

#include "cpu/simd.hpp"
#include "cpu/simd_op_lists.hpp"
#include "cpu/simd_ops-inl.h"  // Bin, UnChecked: the per-vector ops

HWY_BEFORE_NAMESPACE();
namespace tensora::simd::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using C128 = std::complex<double>;

#if HWY_TARGET != HWY_SCALAR
using Parts = hn::FixedTag<double, 2>;  // one C128 element: (real, imag)
using V = hn::Vec<Parts>;

// Element (i, j) of an operand at p + 2 * (i * di + j * dj) doubles, whatever its mode.
struct Elements {
  const double* p;
  int64_t di, dj;
  explicit Elements(const TileOperand<C128>& x) : p(reinterpret_cast<const double*>(x.p)) {
    switch (x.mode) {
      case TileMode::Straight:
        di = 1, dj = x.stride;
        break;
      case TileMode::Crossed:
        di = x.stride, dj = 1;
        break;
      case TileMode::Scalar:
        di = 0, dj = 0;
        break;
    }
  }
  HWY_INLINE V operator()(int64_t i, int64_t j) const {
    return hn::LoadU(Parts(), p + 2 * (i * di + j * dj));
  }
};

template <BinaryOp Op>
struct BinaryElement {
  Elements a, b;
  HWY_INLINE V operator()(int64_t i, int64_t j) const { return Bin<Op>(Parts(), a(i, j), b(i, j)); }
};

template <UnaryOp Op>
struct UnaryElement {
  Elements in;
  HWY_INLINE V operator()(int64_t i, int64_t j) const {
    if constexpr (Op == UnaryOp::Conj) {
      const Parts d;
      return hn::Xor(in(i, j),
                     hn::InterleaveLower(d, hn::Zero(d), hn::Set(d, -0.0)));  // flips the imag sign
    } else {
      return UnChecked<Op>(Parts(), in(i, j));
    }
  }
};

// The tile's elements in blocks of one cache line of each crossed row (4 columns) by one line
// of each output column (kRows elements), a strip of 4 columns at a time down the rows; `put`
// stores the output vectors of rows i, i + 1, ... (one C128 element or two C64 ones). With
// `stream`, every store is non-temporal: a column's line is then written once, never read for
// ownership, as the F32/F64 tile kernels store theirs (docs/ops.md).
template <int64_t kRows, int64_t kRowsPerPut, class Put>
HWY_INLINE void ElementTileLoop(int64_t rows, int64_t cols, const Put& put) {
  constexpr int64_t kStrip = 4;  // 64 bytes of a crossed C128 row
  const int64_t whole_rows = rows / kRows * kRows;
  for (int64_t j0 = 0; j0 < cols; j0 += kStrip) {
    const int64_t j1 = std::min(cols, j0 + kStrip);
    for (int64_t i0 = 0; i0 < whole_rows; i0 += kRows)
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = i0; i < i0 + kRows; i += kRowsPerPut) put(i, j, kRowsPerPut);
    for (int64_t j = j0; j < j1; ++j)
      for (int64_t i = whole_rows; i < rows; i += kRowsPerPut)
        put(i, j, std::min(kRowsPerPut, rows - i));
  }
}

template <class Element>
HWY_INLINE void C128TileLoop(const Element& element, C128* out, int64_t so, int64_t rows,
                             int64_t cols, bool stream) {
  const Parts d;
  auto* o = reinterpret_cast<double*>(out);
  if (stream && VectorAligned(d, o)) {  // every element then is (so is in whole elements)
    ElementTileLoop<4, 1>(rows, cols, [&](int64_t i, int64_t j, int64_t) {
      hn::Stream(element(i, j), d, o + 2 * (i + j * so));
    });
    hwy::FlushStream();  // the streamed lines are visible before the tile is done
  } else {
    ElementTileLoop<4, 1>(rows, cols, [&](int64_t i, int64_t j, int64_t) {
      hn::StoreU(element(i, j), d, o + 2 * (i + j * so));
    });
  }
}
#endif

bool BinaryTileC128(BinaryOp op, TileOperand<C128> a, TileOperand<C128> b, C128* out, int64_t so,
                    int64_t rows, int64_t cols, bool stream) {
#if HWY_TARGET == HWY_SCALAR
  (void)op, (void)a, (void)b, (void)out, (void)so, (void)rows, (void)cols, (void)stream;
  return false;
#else
  switch (op) {
#define TENSORA_BINARY_CASE(name)                                                              \
  case BinaryOp::name:                                                                         \
    C128TileLoop(BinaryElement<BinaryOp::name>{Elements(a), Elements(b)}, out, so, rows, cols, \
                 stream);                                                                      \
    return true;
    TENSORA_SIMD_PARTWISE_BINARY_OPS(TENSORA_BINARY_CASE)
#undef TENSORA_BINARY_CASE
    default:
      return false;
  }
#endif
}

bool UnaryTileC128(UnaryOp op, TileOperand<C128> in, C128* out, int64_t so, int64_t rows,
                   int64_t cols, bool stream) {
#if HWY_TARGET == HWY_SCALAR
  (void)op, (void)in, (void)out, (void)so, (void)rows, (void)cols, (void)stream;
  return false;
#else
  switch (op) {
#define TENSORA_UNARY_CASE(name)                                                          \
  case UnaryOp::name:                                                                     \
    C128TileLoop(UnaryElement<UnaryOp::name>{Elements(in)}, out, so, rows, cols, stream); \
    return true;
    TENSORA_SIMD_PARTWISE_UNARY_OPS(TENSORA_UNARY_CASE)
#undef TENSORA_UNARY_CASE
    default:
      return false;
  }
#endif
}

// C128 -> C64: each part rounded to nearest as cast_value's static_cast; two output elements
// (rows i and i + 1 of a column) make one 128-bit vector, a lone last row is stored alone.
bool CastTileC128ToC64(TileOperand<C128> in, std::complex<float>* out, int64_t so, int64_t rows,
                       int64_t cols, bool stream) {
#if HWY_TARGET == HWY_SCALAR
  (void)in, (void)out, (void)so, (void)rows, (void)cols, (void)stream;
  return false;
#else
  const hn::FixedTag<float, 4> d2;  // two C64 elements
  const hn::FixedTag<float, 2> d1;  // one
  const Elements x(in);
  auto* o = reinterpret_cast<float*>(out);
  auto pair = [&](int64_t i, int64_t j) {
    return hn::Combine(d2, hn::DemoteTo(d1, x(i + 1, j)), hn::DemoteTo(d1, x(i, j)));
  };
  auto put = [&](auto store) {
    ElementTileLoop<8, 2>(rows, cols, [&](int64_t i, int64_t j, int64_t n) {
      if (n == 2)
        store(pair(i, j), o + 2 * (i + j * so));
      else
        hn::StoreU(hn::DemoteTo(d1, x(i, j)), d1, o + 2 * (i + j * so));
    });
  };
  // Streamed only when every pair is aligned: the output and its column length are.
  if (stream && VectorAligned(d2, o) && so % 2 == 0) {
    put([&](auto v, float* p) { hn::Stream(v, d2, p); });
    hwy::FlushStream();
  } else {
    put([&](auto v, float* p) { hn::StoreU(v, d2, p); });
  }
  return true;
#endif
}

}  // namespace tensora::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tensora::simd {

HWY_EXPORT(BinaryTileC128);
HWY_EXPORT(UnaryTileC128);
HWY_EXPORT(CastTileC128ToC64);

bool binary_tile(BinaryOp op, TileOperand<std::complex<double>> a,
                 TileOperand<std::complex<double>> b, std::complex<double>* out,
                 std::int64_t out_stride, std::int64_t rows, std::int64_t cols, bool stream) {
  return HWY_DYNAMIC_DISPATCH(BinaryTileC128)(op, a, b, out, out_stride, rows, cols, stream);
}
bool unary_tile(UnaryOp op, TileOperand<std::complex<double>> in, std::complex<double>* out,
                std::int64_t out_stride, std::int64_t rows, std::int64_t cols, bool stream) {
  return HWY_DYNAMIC_DISPATCH(UnaryTileC128)(op, in, out, out_stride, rows, cols, stream);
}
bool cast_tile(TileOperand<std::complex<double>> in, std::complex<float>* out,
               std::int64_t out_stride, std::int64_t rows, std::int64_t cols, bool stream) {
  return HWY_DYNAMIC_DISPATCH(CastTileC128ToC64)(in, out, out_stride, rows, cols, stream);
}

}  // namespace tensora::simd
#endif
