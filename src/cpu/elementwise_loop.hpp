// Runs a kernel over K operands of one shape (operand 0 is the output) on an engine. Work is
// cut into fixed chunks of kElementGrain elements, so serial and parallel engines make the
// same runs and give bitwise equal results.
#pragma once

#include <array>
#include <cstdlib>
#include <vector>

#include "core/strided_loop.hpp"
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
// are walked in kTile x kTile tiles of the two axes, so the cache lines an operand reads
// across are reused while the tile lasts instead of being fetched once per element.
inline constexpr std::int64_t kTile = 64;

// The loop dim (> 0) along which some operand has its unit stride while dim 0 (the output's
// fastest) is strided for it; 0 when every operand is happiest along dim 0.
template <int K>
std::size_t crossing_dim(const StridedLoop<K>& loop, const std::array<std::int64_t, K>& element_size) {
  if (loop.shape.size() < 2) return 0;
  for (int k = 1; k < K; ++k) {
    if (std::abs(loop.strides[k][0]) == element_size[k]) continue;
    for (std::size_t d = 1; d < loop.shape.size(); ++d)
      if (std::abs(loop.strides[k][d]) == element_size[k] && loop.shape[d] >= kTile / 4) return d;
  }
  return 0;
}

template <int K, class Inner>
void run_tiled(Engine& engine, const StridedLoop<K>& loop, std::size_t cross, Inner& inner) {
  const std::int64_t n0 = loop.shape[0], nc = loop.shape[cross];
  std::vector<std::size_t> rest;
  std::int64_t outer = 1;
  for (std::size_t d = 1; d < loop.shape.size(); ++d)
    if (d != cross) {
      rest.push_back(d);
      outer *= loop.shape[d];
    }
  const std::int64_t tiles0 = (n0 + kTile - 1) / kTile, tiles_c = (nc + kTile - 1) / kTile;
  std::array<std::int64_t, K> step{};
  for (int k = 0; k < K; ++k) step[k] = loop.strides[k][0];
  auto body = [&](std::int64_t t0, std::int64_t t1) {
    for (std::int64_t t = t0; t < t1; ++t) {
      const std::int64_t o = t / (tiles0 * tiles_c), r = t % (tiles0 * tiles_c);
      const std::int64_t lo = (r % tiles0) * kTile, len = std::min(kTile, n0 - lo);
      const std::int64_t c_lo = (r / tiles0) * kTile, c_hi = std::min(nc, c_lo + kTile);
      std::array<char*, K> p = loop.base;
      std::int64_t rem = o;
      for (std::size_t d : rest) {
        const std::int64_t i = rem % loop.shape[d];
        rem /= loop.shape[d];
        for (int k = 0; k < K; ++k) p[k] += i * loop.strides[k][d];
      }
      for (std::int64_t c = c_lo; c < c_hi; ++c) {
        std::array<char*, K> run;
        for (int k = 0; k < K; ++k) run[k] = p[k] + lo * step[k] + c * loop.strides[k][cross];
        inner(run, step, len);
      }
    }
  };
  const std::int64_t tasks = outer * tiles0 * tiles_c;
  const std::int64_t grain = std::max<std::int64_t>(1, kElementGrain / (kTile * kTile));
  if (tasks <= grain) body(0, tasks);
  else engine.parallel_for(tasks, grain, body);
}

// inner(ptrs, byte_strides, n) handles one run of n elements.
template <int K, class Inner>
void run_elementwise(Engine& engine, const std::array<const Tensor*, K>& ops, Inner&& inner) {
  const Tensor& out = *ops[0];
  const std::int64_t count = out.numel();
  if (count == 0) return;
  std::array<char*, K> base;
  for (int k = 0; k < K; ++k) base[k] = static_cast<char*>(const_cast<void*>(ops[k]->element_ptr()));
  if (all_dense_col_major<K>(ops)) {
    // Fast path: one flat run per chunk, no loop set-up.
    std::array<std::int64_t, K> strides;
    for (int k = 0; k < K; ++k) strides[k] = static_cast<std::int64_t>(size_of(ops[k]->dtype()));
    auto flat = [&](std::int64_t b, std::int64_t e) {
      std::array<char*, K> p = base;
      for (int k = 0; k < K; ++k) p[k] += b * strides[k];
      inner(p, strides, e - b);
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
      return run_tiled<K>(engine, loop, cross, inner);
  }
  auto range = [&](std::int64_t b, std::int64_t e) { run_strided_range(loop, inner, b, e); };
  if (count <= kElementGrain) range(0, count);
  else engine.parallel_for(count, kElementGrain, range);
}

}  // namespace tensora
