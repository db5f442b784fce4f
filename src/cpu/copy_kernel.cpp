// cpu::copy (kernels.hpp): copies between views of one dtype and shape with any strides, for
// every caller (the direct copies, Tensor::duplicate and contiguous, the contraction layer's
// operand and result layouts). When the destination's fastest-moving axis is not the source's,
// a plain strided copy would touch a new cache line for every element on one side; this copy
// walks square tiles instead (a cache-blocked transpose, simd::transpose_tile), so both sides
// stream. Parallel over fixed tiles of the engine (a copy does not depend on the thread count).
// These direct tiles measured 1.2-3.3x faster than the elementwise loop's staged tiles on
// batched and rectangular layouts; results of 64 MiB and more still take the staged tiles,
// which stream them out (docs/ops.md, "Copies").
#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <cstring>

#include "core/strided_loop.hpp"
#include "cpu/elementwise_loop.hpp"
#include "cpu/kernels.hpp"
#include "cpu/transpose_tile.hpp"

namespace tensora::cpu {

namespace {

template <std::size_t Bytes>
inline void copy_one(char* d, const char* s) {
  std::memcpy(d, s, Bytes);
}

// One run of n elements (byte strides s), for the strided loop and the elementwise loop alike.
template <std::size_t Bytes>
struct CopyRun {
  void operator()(std::array<char*, 2> p, std::array<std::int64_t, 2> s, std::int64_t n) const {
    if (s[0] == static_cast<std::int64_t>(Bytes) && s[1] == static_cast<std::int64_t>(Bytes)) {
      std::memcpy(p[0], p[1], static_cast<std::size_t>(n) * Bytes);
      return;
    }
    for (std::int64_t i = 0; i < n; ++i) copy_one<Bytes>(p[0] + i * s[0], p[1] + i * s[1]);
  }
};

// Plain strided runs: the destination's fastest axis is also the source's.
template <std::size_t Bytes>
void copy_runs(const StridedLoop<2>& loop, Engine& engine) {
  auto range = [&](std::int64_t b, std::int64_t e) { run_strided_range(loop, CopyRun<Bytes>{}, b, e); };
  if (loop.count <= kElementGrain) range(0, loop.count);
  else engine.parallel_for(loop.count, kElementGrain, range);
}

// Tiled copy over two axes: `a` is the destination's fastest (loop axis 0), `t` the source's.
template <std::size_t Bytes>
void copy_tiles(const StridedLoop<2>& loop, std::size_t t, Engine& engine) {
  constexpr std::int64_t kTile = std::clamp<std::int64_t>(512 / Bytes, 32, 128);
  const std::size_t rank = loop.shape.size();
  const std::int64_t na = loop.shape[0], nt = loop.shape[t];
  const std::int64_t tiles_a = (na + kTile - 1) / kTile, tiles_t = (nt + kTile - 1) / kTile;
  std::int64_t outer = 1;
  for (std::size_t d = 1; d < rank; ++d)
    if (d != t) outer *= loop.shape[d];
  const std::int64_t units = tiles_a * tiles_t * outer;
  const std::int64_t da = loop.strides[0][0], sa = loop.strides[1][0];
  const std::int64_t dt = loop.strides[0][t], st = loop.strides[1][t];
  auto run = [&](std::int64_t u0, std::int64_t u1) {
    for (std::int64_t u = u0; u < u1; ++u) {
      std::int64_t rest = u;
      const std::int64_t ia = rest % tiles_a;
      rest /= tiles_a;
      const std::int64_t it = rest % tiles_t;
      rest /= tiles_t;
      char* d = loop.base[0];
      const char* s = loop.base[1];
      for (std::size_t k = 1; k < rank; ++k) {
        if (k == t) continue;
        const std::int64_t idx = rest % loop.shape[k];
        rest /= loop.shape[k];
        d += idx * loop.strides[0][k];
        s += idx * loop.strides[1][k];
      }
      const std::int64_t a0 = ia * kTile, a1 = std::min(na, a0 + kTile);
      const std::int64_t t0 = it * kTile, t1 = std::min(nt, t0 + kTile);
      std::int64_t j_done = t0;
      if (da == static_cast<std::int64_t>(Bytes) && st == static_cast<std::int64_t>(Bytes)) {
        simd::transpose_tile(Bytes, d + t0 * dt + a0 * da, dt, s + t0 * st + a0 * sa, sa, a1 - a0, t1 - t0);
        j_done = t1;
      }
      for (std::int64_t j = j_done; j < t1; ++j) {
        char* dj = d + j * dt;
        const char* sj = s + j * st;
        for (std::int64_t i = a0; i < a1; ++i) copy_one<Bytes>(dj + i * da, sj + i * sa);
      }
    }
  };
  const std::int64_t grain = std::max<std::int64_t>(1, kElementGrain / (kTile * kTile));
  if (units <= grain) run(0, units);
  else engine.parallel_for(units, grain, run);
}

template <std::size_t Bytes>
void copy_sized(const Tensor& dst, const Tensor& src, Engine& engine) {
  if (dst.numel() * static_cast<std::int64_t>(Bytes) >= kStreamStagedBytes) {
    // A result this large is not kept in the caches: the elementwise loop's staged tiles
    // transpose through an L1 buffer and stream each column piece out, so its lines are not
    // read for ownership (4096 x 4096 C128 transposed, serial: 150-174 -> ~80 ms).
    CopyRun<Bytes> run;
    return run_elementwise<2>(engine, {&dst, &src}, run);
  }
  Strides dst_bytes = dst.strides(), src_bytes = src.strides();
  for (auto& v : dst_bytes) v *= static_cast<std::int64_t>(Bytes);
  for (auto& v : src_bytes) v *= static_cast<std::int64_t>(Bytes);
  const auto loop = make_strided_loop<2>(
      dst.shape(),
      {static_cast<char*>(const_cast<void*>(dst.element_ptr())), static_cast<char*>(const_cast<void*>(src.element_ptr()))},
      {dst_bytes, src_bytes});
  if (loop.count == 0) return;
  if (loop.shape.size() <= 1) return copy_runs<Bytes>(loop, engine);
  // The source's fastest axis among the coalesced ones.
  std::size_t t = 0;
  for (std::size_t d = 1; d < loop.shape.size(); ++d)
    if (std::abs(loop.strides[1][d]) < std::abs(loop.strides[1][t])) t = d;
  if (t == 0 || std::abs(loop.strides[1][0]) <= static_cast<std::int64_t>(Bytes)) copy_runs<Bytes>(loop, engine);
  else copy_tiles<Bytes>(loop, t, engine);
}

}  // namespace

void copy(const Tensor& dst, const Tensor& src, Engine& engine) {
  const auto esize = static_cast<std::int64_t>(size_of(src.dtype()));
  const std::int64_t n = dst.numel();
  if (dst.is_contiguous(Layout::ColMajor) && src.is_contiguous(Layout::ColMajor)) {
    // One flat run (duplicate() of a compact tensor): no loop to build, one memcpy per thread.
    // Not kernel-grain chunks: memcpy streams a large copy past the caches itself, and 1 MiB
    // pieces are below its threshold (4096 x 4096 C128, serial: 24-30 ms whole, 56 in pieces).
    char* d = static_cast<char*>(const_cast<void*>(dst.element_ptr()));
    const char* s = static_cast<const char*>(src.element_ptr());
    auto run = [&](std::int64_t b, std::int64_t e) {
      std::memcpy(d + b * esize, s + b * esize, static_cast<std::size_t>((e - b) * esize));
    };
    const std::int64_t per_thread = (n + engine.threads() - 1) / engine.threads();
    if (n <= kElementGrain || engine.threads() == 1) run(0, n);
    else engine.parallel_for(n, std::max(kElementGrain, per_thread), run);
    return;
  }
  switch (esize) {
    case 1: return copy_sized<1>(dst, src, engine);
    case 2: return copy_sized<2>(dst, src, engine);
    case 4: return copy_sized<4>(dst, src, engine);
    case 8: return copy_sized<8>(dst, src, engine);
    default: return copy_sized<16>(dst, src, engine);
  }
}

}  // namespace tensora::cpu
