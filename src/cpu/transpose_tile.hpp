// The in-register transpose under every layout-changing loop: moves a tile between an
// operand whose elements are contiguous along one axis and a buffer (or output) contiguous
// along the other. One template serves every element size (1, 2, 4, 8 and 16 bytes).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tensora::simd {

// dst[r * esize + c * dst_stride] = src[r * src_stride + c * esize] for r < rows, c < cols
// (byte offsets): a rows x cols tile whose rows are contiguous becomes one whose columns are.
// No overlap. esize is 1, 2, 4, 8 or 16.
void transpose_tile(std::size_t esize, char* dst, std::int64_t dst_stride, const char* src,
                    std::int64_t src_stride, std::int64_t rows, std::int64_t cols);

}  // namespace tensora::simd
