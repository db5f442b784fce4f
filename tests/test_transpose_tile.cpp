// simd::transpose_tile (src/cpu/transpose_tile.hpp), the transpose under every layout change:
// every element size, odd tile sizes (block edges), both loop orders, and strides whose lines
// alias in the cache (powers of two), which take the buffered route; compared with a scalar
// transpose element by element.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cpu/transpose_tile.hpp"

namespace {

struct Case {
  std::int64_t rows, cols;
  std::int64_t src_pitch, dst_pitch;  // in elements; at least cols / rows
  const char* what;
};

// Element (r, c) of the source is at r * src_pitch + c, of the destination at r + c * dst_pitch.
void check(std::size_t esize, const Case& k) {
  SCOPED_TRACE(std::string(k.what) + ", " + std::to_string(esize) + "-byte elements");
  const auto e = static_cast<std::int64_t>(esize);
  std::vector<unsigned char> src(static_cast<std::size_t>(k.rows * k.src_pitch * e));
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>((i * 131 + i / 251) & 0xff);
  const std::size_t dst_bytes = static_cast<std::size_t>(k.cols * k.dst_pitch * e);
  std::vector<unsigned char> dst(dst_bytes, 0xa5), want(dst_bytes, 0xa5);
  for (std::int64_t r = 0; r < k.rows; ++r)
    for (std::int64_t c = 0; c < k.cols; ++c)
      std::memcpy(&want[static_cast<std::size_t>((r + c * k.dst_pitch) * e)],
                  &src[static_cast<std::size_t>((r * k.src_pitch + c) * e)], esize);
  tensora::simd::transpose_tile(esize, reinterpret_cast<char*>(dst.data()), k.dst_pitch * e,
                                reinterpret_cast<const char*>(src.data()), k.src_pitch * e, k.rows, k.cols);
  EXPECT_TRUE(dst == want) << "also checks that nothing outside the tile is written";
}

}  // namespace

TEST(TransposeTile, EveryElementSizeLayoutAndStride) {
  const std::vector<Case> cases = {
      {1, 1, 1, 1, "one element"},
      {7, 5, 9, 11, "smaller than a block"},
      {37, 29, 41, 43, "odd, strides that do not alias"},
      {128, 128, 4096, 4096, "both strides a multiple of the page (buffered)"},
      {131, 127, 1024, 2048, "power-of-two strides, odd sizes (buffered, edges)"},
      {128, 300, 4096, 128, "source far apart, destination dense"},
      {300, 128, 128, 4096, "destination far apart, source dense"},
      {97, 255, 512, 97, "in place with a short destination pitch"},
      {45, 37, 4096, 64, "source far apart, odd rows (16-byte elements' row groups and the rest)"},
  };
  for (const std::size_t esize : {1, 2, 4, 8, 16})
    for (const auto& k : cases) check(esize, k);
}
