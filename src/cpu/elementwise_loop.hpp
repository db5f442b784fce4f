// Runs a kernel over K operands of one shape (operand 0 is the output) on an engine. Work is
// cut into fixed chunks of kElementGrain elements, so serial and parallel engines make the
// same runs and give bitwise equal results.
#pragma once

#include <array>

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
  auto range = [&](std::int64_t b, std::int64_t e) { run_strided_range(loop, inner, b, e); };
  if (count <= kElementGrain) range(0, count);
  else engine.parallel_for(count, kElementGrain, range);
}

}  // namespace tensora
