// The reference backend's one loop: every position of a shape in column-major order, with
// each operand's element pointer computed from its strides. No coalescing, no blocking, no
// fast paths, so it is easy to see that it is right.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "tensora/tensor.hpp"

namespace tensora::reference {

inline char* base_of(const Tensor& t) { return static_cast<char*>(const_cast<void*>(t.element_ptr())); }

// Calls f(ptrs) for every position of `shape`; ptrs[k] points at that element of operand k
// (a view with `shape`, any strides).
template <std::size_t K, class F>
void for_each_position(const Shape& shape, const std::array<const Tensor*, K>& ops, F&& f) {
  const std::int64_t n = numel(shape);
  std::vector<std::int64_t> index(shape.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::array<char*, K> p;
    for (std::size_t k = 0; k < K; ++k) {
      std::int64_t offset = 0;
      for (std::size_t d = 0; d < shape.size(); ++d) offset += index[d] * ops[k]->strides()[d];
      p[k] = base_of(*ops[k]) + offset * static_cast<std::int64_t>(size_of(ops[k]->dtype()));
    }
    f(p);
    for (std::size_t d = 0; d < shape.size(); ++d) {  // next position, first axis fastest
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

// The column-major multi-index of linear position `i` in `shape`.
inline std::vector<std::int64_t> unravel(std::int64_t i, const Shape& shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    index[d] = i % shape[d];
    i /= shape[d];
  }
  return index;
}

// Byte offset of the element at `index` of `t`, reading axes `axes` of t for the entries.
inline std::int64_t byte_offset(const Tensor& t, const std::vector<std::int64_t>& axes,
                                const std::vector<std::int64_t>& index) {
  std::int64_t offset = 0;
  for (std::size_t j = 0; j < axes.size(); ++j) offset += index[j] * t.strides()[static_cast<std::size_t>(axes[j])];
  return offset * static_cast<std::int64_t>(size_of(t.dtype()));
}

}  // namespace tensora::reference
