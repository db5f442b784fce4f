// SIMD fast paths for contiguous runs (Highway, runtime dispatch to the best target the CPU
// has). Each returns false when it has no vector version for the op, and the caller then
// runs the scalar definition from elementwise_functors.hpp.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ops/elementwise_catalog.hpp"

namespace tensora::simd {

// Flat results (every operand in one layout) of at least this many bytes are written with
// non-temporal stores where the kernel can: smaller results may still be read from the
// last-level cache by the next op. Measured on a 32 MiB L3 (docs/ops.md, "Streaming stores"):
// a 4 MiB F32 neg streamed took 1.5x as long, results of 12-64 MiB 0.6-0.8x.
inline constexpr std::int64_t kStreamFlatBytes = std::int64_t{16} << 20;

// out[i] = a[i * sa] op b[i * sb] with sa, sb in {0, 1} (0: a broadcast scalar). `stream`: the
// run belongs to a result too large to stay in the caches (elementwise_loop.hpp,
// streams_result), so an aligned `out` is written with non-temporal stores; the values are the
// same either way.
bool binary_f32(BinaryOp op, const float* a, std::int64_t sa, const float* b, std::int64_t sb,
                float* out, std::int64_t n, bool stream = false);
bool binary_f64(BinaryOp op, const double* a, std::int64_t sa, const double* b, std::int64_t sb,
                double* out, std::int64_t n, bool stream = false);
bool unary_f32(UnaryOp op, const float* in, float* out, std::int64_t n, bool stream = false);
bool unary_f64(UnaryOp op, const double* in, double* out, std::int64_t n, bool stream = false);

// One operand of a transposing tile: element (i, j) is p[i + j * stride] when Straight
// (contiguous along i, the output's axis), p[i * stride + j] when Crossed, p[0] when Scalar.
enum class TileMode : std::uint8_t { Straight, Crossed, Scalar };
template <class T>
struct TileOperand {
  const T* p;
  std::int64_t stride;
  TileMode mode;
};

// out[i + j * out_stride] = a(i, j) op b(i, j) (or op in(i, j)) for i < rows, j < cols: the op
// is applied to columns that crossed operands give after an in-register transpose, so an op on
// transposed inputs into a column-major output streams every operand once. `stream`: the
// output is too large to keep in the caches (the caller's kStreamBytes), so aligned column
// vectors may be stored with non-temporal stores. Bitwise the same values as binary_f32 and
// friends; false when the op has no vector version. Overloaded per element type
// (kHasTileKernels below).
bool binary_tile(BinaryOp op, TileOperand<float> a, TileOperand<float> b, float* out, std::int64_t out_stride,
                 std::int64_t rows, std::int64_t cols, bool stream);
bool binary_tile(BinaryOp op, TileOperand<double> a, TileOperand<double> b, double* out, std::int64_t out_stride,
                 std::int64_t rows, std::int64_t cols, bool stream);
bool unary_tile(UnaryOp op, TileOperand<float> in, float* out, std::int64_t out_stride, std::int64_t rows,
                std::int64_t cols, bool stream);
bool unary_tile(UnaryOp op, TileOperand<double> in, double* out, std::int64_t out_stride, std::int64_t rows,
                std::int64_t cols, bool stream);
// The same for the casts between F32 and F64 (rounded as cast_value rounds).
bool cast_tile(TileOperand<float> in, double* out, std::int64_t out_stride, std::int64_t rows, std::int64_t cols,
               bool stream);
bool cast_tile(TileOperand<double> in, float* out, std::int64_t out_stride, std::int64_t rows, std::int64_t cols,
               bool stream);
// C128 ops that act on the real and imaginary parts alone (TENSORA_SIMD_PARTWISE_*_OPS), and
// the C128 -> C64 cast: each element is one 128-bit vector, moved without staging
// (complex_tile.cpp). Same values as the scalar loops; false for any other op.
bool binary_tile(BinaryOp op, TileOperand<std::complex<double>> a, TileOperand<std::complex<double>> b,
                 std::complex<double>* out, std::int64_t out_stride, std::int64_t rows, std::int64_t cols, bool stream);
bool unary_tile(UnaryOp op, TileOperand<std::complex<double>> in, std::complex<double>* out, std::int64_t out_stride,
                std::int64_t rows, std::int64_t cols, bool stream);
bool cast_tile(TileOperand<std::complex<double>> in, std::complex<float>* out, std::int64_t out_stride,
               std::int64_t rows, std::int64_t cols, bool stream);
// The alignment, in bytes, that a tile kernel's output columns need for its streamed stores:
// the widest vector of the running target, or 16 when an operand has 16-byte elements (moved
// one 128-bit vector each).
std::size_t tile_stream_alignment(std::size_t widest_element_bytes);
// The element types that binary_tile and unary_tile take.
template <class T>
inline constexpr bool kHasTileKernels =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::complex<double>>;

// dst[0, bytes) = src[0, bytes) with non-temporal stores from the first address of dst aligned
// to the vector on (memcpy for the head and tail): a large result written once and not read
// soon. The writer calls stream_fence() before the data is read elsewhere.
void stream_copy(char* dst, const char* src, std::size_t bytes);
void stream_fence();

// Sums in double for accuracy; the blocking is fixed so results are deterministic.
double sum_f32(const float* x, std::int64_t n);
double sum_f64(const double* x, std::int64_t n);
// Whether no element is inf or NaN.
bool all_finite_f32(const float* x, std::int64_t n);
bool all_finite_f64(const double* x, std::int64_t n);
float max_f32(const float* x, std::int64_t n);  // NaN propagates
double max_f64(const double* x, std::int64_t n);
float min_f32(const float* x, std::int64_t n);
double min_f64(const double* x, std::int64_t n);

// acc[i] += x[i] (in double) and acc[i] = max/min(acc[i], x[i]) with the scalar definition's
// NaN and tie rules: the column sweeps of outer reductions.
void accumulate_sum_f32(double* acc, const float* x, std::int64_t n);
void accumulate_sum_f64(double* acc, const double* x, std::int64_t n);
void accumulate_extreme_f32(bool max, float* acc, const float* x, std::int64_t n);
void accumulate_extreme_f64(bool max, double* acc, const double* x, std::int64_t n);

}  // namespace tensora::simd
