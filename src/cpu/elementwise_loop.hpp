// Runs a kernel over K operands of one shape (operand 0 is the output) on an engine. Work is
// cut into fixed chunks of kElementGrain elements, so serial and parallel engines make the
// same runs and give bitwise equal results.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/strided_loop.hpp"
#include "cpu/simd.hpp"
#include "cpu/transpose_tile.hpp"
#include "tensora/engine.hpp"
#include "tensora/tensor.hpp"

namespace tensora {

inline constexpr std::int64_t kElementGrain = 1 << 16;

template <int K>
bool all_dense_col_major(const std::array<const Tensor*, K>& ops) {
  for (const Tensor* t : ops)
    if (!t->is_contiguous(Layout::ColMajor)) return false;
  return true;
}

// Operands that disagree on the fastest axis (a column-major output and a transposed input)
// are walked in tiles of the two axes, in one of two ways; both are fixed by the shapes, so
// results do not depend on the thread count.
//
// - A tile kernel (binary and unary SIMD ops) takes the whole tile: crossed operands are read
//   a cache line of each of a few rows at a time and transposed in registers, and the op is
//   applied to the columns before they are stored (simd::binary_tile, simd::unary_tile).
// - Otherwise the kernel's runs go along the axis on which most operands have unit stride, and
//   an operand with unit stride on the other axis is staged: an input is transposed into a
//   small buffer before the tile's runs, the output is computed into one and transposed out
//   after them (simd::transpose_tile). The kernel then sees contiguous runs only.
inline constexpr std::int64_t kMinCrossing = 16;  // a shorter crossing axis is not worth tiles
// Results at least this large are streamed past the caches: tile kernels' results from 8 MiB
// (their column pieces are the pattern streaming helps most), staged tiles' from 64 MiB (they
// write whole runs anyway; F16 results of 32 MiB were 10% slower streamed, C128 and cast
// results of 64-256 MiB 1.4-6x faster). docs/ops.md.
inline constexpr std::int64_t kStreamBytes = std::int64_t{8} << 20;
inline constexpr std::int64_t kStreamStagedBytes = std::int64_t{64} << 20;

// The loop dim (> 0) along which some operand has its unit stride while dim 0 (the output's
// fastest) is strided for it; 0 when every operand is happiest along dim 0.
template <int K>
std::size_t crossing_dim(const StridedLoop<K>& loop, const std::array<std::int64_t, K>& element_size) {
  if (loop.shape.size() < 2) return 0;
  for (int k = 1; k < K; ++k) {
    if (std::abs(loop.strides[k][0]) == element_size[k]) continue;
    for (std::size_t d = 1; d < loop.shape.size(); ++d)
      if (std::abs(loop.strides[k][d]) == element_size[k] && loop.shape[d] >= kMinCrossing) return d;
  }
  return 0;
}

// One operand of a tile as a tile kernel sees it (byte offsets; see simd::TileMode).
struct TilePart {
  char* p;
  std::int64_t stride;
  simd::TileMode mode;
};

template <class T>
simd::TileOperand<T> tile_operand(const TilePart& part) {
  return {reinterpret_cast<const T*>(part.p), part.stride, part.mode};
}

// No tile kernel: every tile is staged.
struct NoTileKernel {
  template <std::size_t K>
  bool operator()(const std::array<TilePart, K>&, std::int64_t, std::int64_t, bool) const {
    return false;
  }
};

template <int K>
std::int64_t widest(const std::array<std::int64_t, K>& element_size) {
  std::int64_t w = 1;
  for (auto e : element_size) w = std::max(w, e);
  return w;
}

template <int K, class Inner, class TileKernel>
void run_tiled(Engine& engine, const StridedLoop<K>& loop, std::size_t cross,
               const std::array<std::int64_t, K>& element_size, Inner& inner, const TileKernel& tile_kernel) {
  const auto unit = [&](int k, std::size_t d) { return loop.strides[k][d] == element_size[k]; };
  // A tile kernel takes straight, crossed and scalar operands into a straight output.
  std::array<TilePart, K> parts{};
  bool by_kernel = unit(0, 0);
  for (int k = 0; k < K; ++k) {
    if (unit(k, 0)) parts[k] = {nullptr, loop.strides[k][cross] / element_size[k], simd::TileMode::Straight};
    else if (unit(k, cross)) parts[k] = {nullptr, loop.strides[k][0] / element_size[k], simd::TileMode::Crossed};
    else if (loop.strides[k][0] == 0 && loop.strides[k][cross] == 0) parts[k] = {nullptr, 0, simd::TileMode::Scalar};
    else by_kernel = false;
  }
  by_kernel = by_kernel && tile_kernel(parts, 0, 0, false);  // an empty tile: does the kernel take this op?

  int staged_along_0 = 0, staged_along_cross = 0;
  for (int k = 0; k < K; ++k) {
    staged_along_0 += unit(k, cross) && !unit(k, 0);
    staged_along_cross += unit(k, 0) && !unit(k, cross);
  }
  bool straight_input = false;
  for (int k = 1; k < K; ++k) straight_input = straight_input || parts[k].mode == simd::TileMode::Straight;
  // r: the axis of the runs (or the tile kernel's rows), q: the other one.
  const std::size_t r = !by_kernel && staged_along_cross < staged_along_0 ? cross : 0;
  const std::size_t q = r == 0 ? cross : 0;
  // A result this large is not kept in the caches for the next op: tile kernels may store it
  // with non-temporal stores, which write each line once instead of reading it first, when
  // the output's columns are aligned for them.
  const std::int64_t w = widest<K>(element_size);
  std::int64_t result_bytes = element_size[0];
  for (const std::int64_t extent : loop.shape) result_bytes *= extent;
  const bool stream = result_bytes >= kStreamBytes;
  const auto align = static_cast<std::int64_t>(simd::tile_stream_alignment(static_cast<std::size_t>(w)));
  const bool unstreamable = stream && (reinterpret_cast<std::uintptr_t>(loop.base[0]) % align != 0 ||
                                       std::abs(loop.strides[0][cross]) % align != 0);
  // A tile's elements along each axis. Tile kernels: 4 KiB of the crossed rows along q, and
  // along r 128 bytes of the output's columns (two AVX-512 blocks of F32 rows: 32 x 1024 in F32;
  // 8 x 256 in C128) when only the output runs along r, 2 KiB (512 x 1024) when an input does
  // too or when a large output's columns cannot be streamed. Each crossed row is then read as
  // one stream and the output's short column pieces are streamed as whole lines; but a straight
  // input read in pieces that short is a stream per column, too many for the prefetchers
  // (4096 x 4096 F32 one-transposed-operand add 36-37 -> 16-17.5 ms), and column pieces written
  // with ordinary stores (4100 rows of F32: not a whole number of vectors) are read for
  // ownership, which long pieces do as streams (4100 x 4100 transposed F32 `add` 32-50 ->
  // 24-36 ms, F64 56-81 -> 41 ms). Taller tiles for streamed outputs and crossed inputs alone
  // measured slower (C128 `add` of two crossed inputs 104-113 ms with 16 rows, 41-59 with 8:
  // docs/ops.md). Staged tiles: 512 bytes both ways, whose buffers are then 64 KiB at most.
  const bool tall = straight_input || unstreamable;
  const std::int64_t side_r = by_kernel ? std::clamp<std::int64_t>((tall ? 2048 : 128) / w, 8, 512)
                                        : std::clamp<std::int64_t>(512 / w, 32, 128);
  const std::int64_t side_q = by_kernel ? 4096 / w : side_r;
  std::array<bool, K> staged{};
  std::array<std::int64_t, K> ld{}, offset{};
  std::int64_t stage_bytes = 0;
  for (int k = 0; k < K && !by_kernel; ++k) {
    staged[k] = unit(k, q) && !unit(k, r);
    if (!staged[k]) continue;
    ld[k] = side_r * element_size[k] + 64;  // padded: the buffer's columns do not alias in L1
    offset[k] = stage_bytes;
    stage_bytes += ld[k] * side_q;
  }
  // A large output that the runs write straight is computed into a buffer as well and streamed
  // out a column piece at a time, as the tile kernels store theirs.
  const bool stream_out = result_bytes >= kStreamStagedBytes && !by_kernel && unit(0, r);
  if (stream_out) {
    ld[0] = side_r * element_size[0] + 64;
    offset[0] = stage_bytes;
    stage_bytes += ld[0] * side_q;
  }
  std::vector<std::size_t> rest;
  std::int64_t outer = 1;
  for (std::size_t d = 1; d < loop.shape.size(); ++d)
    if (d != cross) {
      rest.push_back(d);
      outer *= loop.shape[d];
    }
  const std::int64_t nr = loop.shape[r], nq = loop.shape[q];
  const std::int64_t tiles_r = (nr + side_r - 1) / side_r, tiles_q = (nq + side_q - 1) / side_q;
  std::array<std::int64_t, K> step;
  for (int k = 0; k < K; ++k) step[k] = staged[k] || (k == 0 && stream_out) ? element_size[k] : loop.strides[k][r];
  auto body = [&](std::int64_t t0, std::int64_t t1) {
    std::vector<char> buffer(stage_bytes > 0 ? static_cast<std::size_t>(stage_bytes) + 64 : 0);
    char* stage = buffer.data() + (64 - reinterpret_cast<std::uintptr_t>(buffer.data()) % 64) % 64;
    for (std::int64_t t = t0; t < t1; ++t) {
      const std::int64_t o = t / (tiles_r * tiles_q), in_tile = t % (tiles_r * tiles_q);
      const std::int64_t r_lo = (in_tile % tiles_r) * side_r, q_lo = (in_tile / tiles_r) * side_q;
      const std::int64_t len_r = std::min(side_r, nr - r_lo), len_q = std::min(side_q, nq - q_lo);
      std::array<char*, K> corner = loop.base;
      std::int64_t rem = o;
      for (std::size_t d : rest) {
        const std::int64_t i = rem % loop.shape[d];
        rem /= loop.shape[d];
        for (int k = 0; k < K; ++k) corner[k] += i * loop.strides[k][d];
      }
      for (int k = 0; k < K; ++k) corner[k] += r_lo * loop.strides[k][r] + q_lo * loop.strides[k][q];
      if (by_kernel) {
        std::array<TilePart, K> tile = parts;
        for (int k = 0; k < K; ++k) tile[k].p = corner[k];
        tile_kernel(tile, len_r, len_q, stream);
        continue;
      }
      for (int k = 1; k < K; ++k)
        if (staged[k])
          simd::transpose_tile(static_cast<std::size_t>(element_size[k]), stage + offset[k], ld[k], corner[k],
                               loop.strides[k][r], len_r, len_q);
      for (std::int64_t j = 0; j < len_q; ++j) {
        std::array<char*, K> run;
        for (int k = 0; k < K; ++k)
          run[k] = staged[k] || (k == 0 && stream_out) ? stage + offset[k] + j * ld[k] : corner[k] + j * loop.strides[k][q];
        inner(run, step, len_r);
      }
      if (stream_out) {
        for (std::int64_t j = 0; j < len_q; ++j)
          simd::stream_copy(corner[0] + j * loop.strides[0][q], stage + offset[0] + j * ld[0],
                            static_cast<std::size_t>(len_r * element_size[0]));
      }
      if (staged[0])
        simd::transpose_tile(static_cast<std::size_t>(element_size[0]), corner[0], loop.strides[0][r],
                             stage + offset[0], ld[0], len_q, len_r);
    }
    if (stream_out) simd::stream_fence();  // the streamed lines are visible before the task ends
  };
  const std::int64_t tasks = outer * tiles_r * tiles_q;
  const std::int64_t grain = std::max<std::int64_t>(1, kElementGrain / (side_r * side_q));
  if (tasks <= grain) body(0, tasks);
  else engine.parallel_for(tasks, grain, body);
}

// out[i] = f(in[i]...) through typed pointers when the run is contiguous in every operand
// (operand 0 the output), a loop the compiler vectorizes; false otherwise, and the caller's
// byte-pointer loop takes the run.
template <class Out, class... In, class F>
bool typed_contiguous_run(const std::array<char*, sizeof...(In) + 1>& p,
                          const std::array<std::int64_t, sizeof...(In) + 1>& s, std::int64_t n, F&& f) {
  constexpr std::array<std::int64_t, sizeof...(In) + 1> kSizes{sizeof(Out), sizeof(In)...};
  if (s != kSizes) return false;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    auto* o = reinterpret_cast<Out*>(p[0]);
    for (std::int64_t i = 0; i < n; ++i) o[i] = static_cast<Out>(f(reinterpret_cast<const In*>(p[I + 1])[i]...));
  }(std::index_sequence_for<In...>{});
  return true;
}

// Calls inner on one run, telling a kernel that takes a fourth argument whether the run belongs
// to a result large enough to stream (simd::kStreamFlatBytes; simd::binary_f32 and friends).
template <int K, class Inner>
void run_flat_run(Inner& inner, const std::array<char*, K>& p, const std::array<std::int64_t, K>& s, std::int64_t n,
                  bool stream) {
  if constexpr (std::is_invocable_v<Inner&, std::array<char*, K>, std::array<std::int64_t, K>, std::int64_t, bool>)
    inner(p, s, n, stream);
  else
    inner(p, s, n);
}

// inner(ptrs, byte_strides, n) handles one run of n elements; tile_kernel(parts, rows, cols),
// where given, a whole transposing tile (false: it does not take this op).
template <int K, class Inner, class TileKernel = NoTileKernel>
void run_elementwise(Engine& engine, const std::array<const Tensor*, K>& ops, Inner&& inner,
                     const TileKernel& tile_kernel = {}) {
  const Tensor& out = *ops[0];
  const std::int64_t count = out.numel();
  if (count == 0) return;
  std::array<char*, K> base;
  for (int k = 0; k < K; ++k) base[k] = static_cast<char*>(const_cast<void*>(ops[k]->element_ptr()));
  if (all_dense_col_major<K>(ops)) {
    // Fast path: one flat run per chunk, no loop set-up.
    std::array<std::int64_t, K> strides;
    for (int k = 0; k < K; ++k) strides[k] = static_cast<std::int64_t>(size_of(ops[k]->dtype()));
    const bool stream = count * strides[0] >= simd::kStreamFlatBytes;
    auto flat = [&](std::int64_t b, std::int64_t e) {
      std::array<char*, K> p = base;
      for (int k = 0; k < K; ++k) p[k] += b * strides[k];
      run_flat_run<K>(inner, p, strides, e - b, stream);
    };
    if (count <= kElementGrain) flat(0, count);
    else engine.parallel_for(count, kElementGrain, flat);
    return;
  }
  std::array<Strides, K> byte_strides;
  for (int k = 0; k < K; ++k) {
    byte_strides[k] = ops[k]->strides();
    for (auto& s : byte_strides[k]) s *= static_cast<std::int64_t>(size_of(ops[k]->dtype()));
  }
  const auto loop = make_strided_loop<K>(out.shape(), base, byte_strides);
  std::array<std::int64_t, K> element_size;
  for (int k = 0; k < K; ++k) element_size[k] = static_cast<std::int64_t>(size_of(ops[k]->dtype()));
  if (count > kElementGrain) {
    if (const std::size_t cross = crossing_dim<K>(loop, element_size); cross != 0)
      return run_tiled<K>(engine, loop, cross, element_size, inner, tile_kernel);
  }
  // Operands that share one layout other than column-major (transposed views into a transposed
  // destination) coalesce to a single run per chunk, which streams as the flat pass does.
  const bool stream = loop.shape.size() == 1 && count * element_size[0] >= simd::kStreamFlatBytes;
  auto run = [&](const std::array<char*, K>& p, const std::array<std::int64_t, K>& s, std::int64_t n) {
    run_flat_run<K>(inner, p, s, n, stream);
  };
  auto range = [&](std::int64_t b, std::int64_t e) { run_strided_range(loop, run, b, e); };
  if (count <= kElementGrain) range(0, count);
  else engine.parallel_for(count, kElementGrain, range);
}

}  // namespace tensora
