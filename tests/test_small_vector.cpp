// core/small_vector.hpp: values stay in order across the move from inline storage to the heap,
// and copies are independent.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "core/small_vector.hpp"

namespace {

using Vec = tensora::SmallVector<std::int64_t, 3>;

std::vector<std::int64_t> items(const Vec& v) { return {v.begin(), v.end()}; }

TEST(SmallVector, KeepsOrderPastItsInlineCapacity) {
  Vec v;
  EXPECT_TRUE(v.empty());
  for (std::int64_t i = 1; i <= 7; ++i) {
    v.push_back(10 * i);
    ASSERT_EQ(v.size(), static_cast<std::size_t>(i));
    EXPECT_EQ(v.back(), 10 * i);
  }
  EXPECT_EQ(items(v), (std::vector<std::int64_t>{10, 20, 30, 40, 50, 60, 70}));
  v[4] = -1;
  EXPECT_EQ(v[4], -1);
}

TEST(SmallVector, CopiesAndComparesByValue) {
  const Vec short_one{4, 5};
  Vec long_one{1, 2, 3, 4, 5};
  Vec copy = long_one;
  copy[0] = 9;
  EXPECT_EQ(long_one[0], 1);
  EXPECT_EQ(items(copy), (std::vector<std::int64_t>{9, 2, 3, 4, 5}));
  EXPECT_FALSE(copy == long_one);
  copy[0] = 1;
  EXPECT_TRUE(copy == long_one);
  Vec inline_copy = short_one;
  inline_copy.push_back(6);
  EXPECT_EQ(items(short_one), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(items(inline_copy), (std::vector<std::int64_t>{4, 5, 6}));
  const Vec moved = std::move(long_one);
  EXPECT_EQ(items(moved), (std::vector<std::int64_t>{1, 2, 3, 4, 5}));
}

TEST(SmallVector, AssignmentMovesBetweenInlineAndHeap) {
  Vec v{1, 2, 3, 4, 5};  // on the heap
  const Vec short_one{7, 8};
  v = short_one;  // heap -> inline: the old heap values must not show through
  EXPECT_EQ(items(v), (std::vector<std::int64_t>{7, 8}));
  v.push_back(9);
  v.push_back(10);  // past the inline capacity again
  EXPECT_EQ(items(v), (std::vector<std::int64_t>{7, 8, 9, 10}));
  const Vec long_one{1, 2, 3, 4, 5, 6};
  Vec w{3};
  w = long_one;  // inline -> heap
  EXPECT_EQ(items(w), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
  const Vec& same = w;
  w = same;  // self-assignment keeps the values
  EXPECT_EQ(items(w), (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6}));
}

}  // namespace
