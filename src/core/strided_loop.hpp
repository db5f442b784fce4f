// Walks K operands that share one shape, each with its own byte strides. Dimensions are
// coalesced and ordered so the innermost run is as long and as dense as possible; the
// caller's `inner(ptrs, strides, n)` then handles one run of n elements.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <vector>

#include "tensora/shape.hpp"

namespace tensora {

template <int K>
struct StridedLoop {
  std::array<char*, K> base{};
  std::vector<std::int64_t> shape;                 // coalesced; empty means a single element
  std::array<std::vector<std::int64_t>, K> strides;  // byte strides per operand
  std::int64_t count = 1;                          // elements in total

};

// Builds the loop. Operand 0 leads the order (usually the output): its smallest stride goes
// innermost, so writes stay sequential.
template <int K>
StridedLoop<K> make_strided_loop(const Shape& shape, std::array<char*, K> base,
                                 const std::array<Strides, K>& byte_strides) {
  StridedLoop<K> loop;
  loop.base = base;
  loop.count = numel(shape);
  const std::size_t rank = shape.size();
  std::vector<std::size_t> order;
  for (std::size_t d = 0; d < rank; ++d)
    if (shape[d] != 1) order.push_back(d);
  // Stable sort by operand 0's |stride|, ties broken by the next operands.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    for (int k = 0; k < K; ++k) {
      const auto sa = std::abs(byte_strides[k][a]), sb = std::abs(byte_strides[k][b]);
      if (sa != sb) return sa < sb;
    }
    return false;
  });
  for (std::size_t d : order) {
    const std::int64_t n = shape[d];
    if (!loop.shape.empty()) {
      // Merge with the previous dim when every operand steps through both as one.
      bool mergeable = true;
      const std::int64_t prev_n = loop.shape.back();
      for (int k = 0; k < K; ++k)
        if (byte_strides[k][d] != loop.strides[k].back() * prev_n) mergeable = false;
      if (mergeable) {
        loop.shape.back() *= n;
        continue;
      }
    }
    loop.shape.push_back(n);
    for (int k = 0; k < K; ++k) loop.strides[k].push_back(byte_strides[k][d]);
  }
  return loop;
}

// Runs inner(ptrs, inner_strides, n) over the elements [begin, end) of the loop, in its
// (coalesced) order; runs are cut at begin and end.
// The same walk from other base pointers (a loop reused at many offsets, no copy).
template <int K, class Inner>
void run_strided_range_at(const StridedLoop<K>& loop, const std::type_identity_t<std::array<char*, K>>& base, Inner&& inner,
                          std::int64_t begin, std::int64_t end) {
  if (loop.count == 0 || begin >= end) return;
  std::array<std::int64_t, K> inner_strides{};
  if (loop.shape.empty()) {
    inner(base, inner_strides, std::int64_t{1});
    return;
  }
  for (int k = 0; k < K; ++k) inner_strides[k] = loop.strides[k][0];
  const std::int64_t n = loop.shape[0];
  if (loop.shape.size() == 1) {  // one run: the common contiguous case
    std::array<char*, K> ptrs = base;
    for (int k = 0; k < K; ++k) ptrs[k] += begin * inner_strides[k];
    inner(ptrs, inner_strides, end - begin);
    return;
  }
  const std::size_t outer_rank = loop.shape.size() - 1;
  std::int64_t idx_small[8];
  std::vector<std::int64_t> idx_big;
  std::int64_t* idx = idx_small;
  if (outer_rank > 8) {
    idx_big.resize(outer_rank);
    idx = idx_big.data();
  }
  std::array<char*, K> ptrs = base;
  std::int64_t rest = begin / n;
  std::int64_t i0 = begin % n;
  for (std::size_t d = 0; d < outer_rank; ++d) {
    idx[d] = rest % loop.shape[d + 1];
    rest /= loop.shape[d + 1];
    for (int k = 0; k < K; ++k) ptrs[k] += idx[d] * loop.strides[k][d + 1];
  }
  for (std::int64_t pos = begin; pos < end;) {
    const std::int64_t len = std::min(n - i0, end - pos);
    std::array<char*, K> run = ptrs;
    for (int k = 0; k < K; ++k) run[k] += i0 * inner_strides[k];
    inner(run, inner_strides, len);
    pos += len;
    i0 = 0;
    for (std::size_t d = 0; d < outer_rank; ++d) {
      for (int k = 0; k < K; ++k) ptrs[k] += loop.strides[k][d + 1];
      if (++idx[d] < loop.shape[d + 1]) break;
      for (int k = 0; k < K; ++k) ptrs[k] -= loop.shape[d + 1] * loop.strides[k][d + 1];
      idx[d] = 0;
    }
  }
}

template <int K, class Inner>
void run_strided_range(const StridedLoop<K>& loop, Inner&& inner, std::int64_t begin,
                       std::int64_t end) {
  run_strided_range_at(loop, loop.base, inner, begin, end);
}

template <int K, class Inner>
void run_strided_loop(const StridedLoop<K>& loop, Inner&& inner) {
  run_strided_range(loop, inner, 0, loop.count);
}

}  // namespace tensora
