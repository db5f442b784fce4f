// Views (transpose/permute, reshape, slice, broadcast, squeeze/unsqueeze) and copies
// (duplicate, contiguous, to_device).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

using tensora::Device;
using tensora::DType;
using tensora::Error;
using tensora::ErrorKind;
using tensora::Layout;
using tensora::Shape;
using tensora::Strides;
using tensora::Tensor;
using tensora::TypedTensor;
using tensora_test::expect_error;
using ::testing::HasSubstr;
using I64s = std::vector<std::int64_t>;

// 0, 1, ..., n-1 as an I64 tensor of the given shape, filled in column-major order.
Tensor iota(Shape shape) {
  I64s v(static_cast<std::size_t>(tensora::numel(shape)));
  std::iota(v.begin(), v.end(), 0);
  return Tensor::from_vec_col_major(std::move(shape), v);
}

// A 3x4 matrix with m(i, j) = 10 i + j (created row-major, stored column-major).
Tensor matrix34() {
  I64s v;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) v.push_back(10 * i + j);
  return Tensor::from_vec_row_major({3, 4}, v);
}

void expect_axis_error(const Error& e, const std::string& op, std::int64_t axis,
                       std::int64_t rank) {
  EXPECT_EQ(e.kind(), ErrorKind::Validation);
  EXPECT_EQ(e.op(), op);
  const auto* d = std::get_if<tensora::AxisOutOfRange>(&e.detail());
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->axis, axis);
  EXPECT_EQ(d->rank, rank);
  EXPECT_EQ(e.message(), "axis " + std::to_string(axis) + " out of range for rank " +
                             std::to_string(rank) + " (valid: " + std::to_string(-rank) + ".." +
                             std::to_string(rank - 1) + ")");
}

// ---- transpose / permute ---------------------------------------------------------------------

TEST(Transpose, ReversesAxesAsAView) {
  const Tensor a = iota({2, 3});  // a(i, j) = i + 2 j
  const Tensor t = a.transpose();
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(t.strides(), (Strides{2, 1}));
  EXPECT_TRUE(t.shares_storage_with(a));
  EXPECT_EQ(t.dtype(), DType::I64);
  // t(i, j) = a(j, i) = j + 2 i, read column-major.
  EXPECT_EQ(t.to_vec<std::int64_t>(), (I64s{0, 2, 4, 1, 3, 5}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_TRUE(t.is_contiguous(Layout::RowMajor));
  EXPECT_EQ(t.transpose().to_vec<std::int64_t>(), a.to_vec<std::int64_t>());

  // transpose(a, b) swaps two axes; negative axes count from the end.
  const Tensor c = iota({2, 3, 4});
  const Tensor s = c.transpose(0, -1);
  EXPECT_EQ(s.shape(), (Shape{4, 3, 2}));
  EXPECT_EQ(s.strides(), (Strides{6, 2, 1}));
  expect_axis_error(expect_error([&] { c.transpose(0, 3); }), "transpose", 3, 3);
}

TEST(Permute, MovesAxesAndStrides) {
  const Tensor a = iota({2, 3, 4});  // a(i, j, k) = i + 2 j + 6 k
  const Tensor p = a.permute({2, 0, 1});
  EXPECT_EQ(p.shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(p.strides(), (Strides{6, 1, 2}));
  EXPECT_TRUE(p.shares_storage_with(a));
  const auto v = p.to_vec<std::int64_t>();
  // p(k, i, j) = a(i, j, k)
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(v[static_cast<std::size_t>(k + 4 * i + 8 * j)], i + 2 * j + 6 * k);
  EXPECT_EQ(a.permute({-1, 0, 1}).shape(), (Shape{4, 2, 3}));
  EXPECT_EQ(a.permute({0, 1, 2}).to_vec<std::int64_t>(), a.to_vec<std::int64_t>());
}

TEST(Permute, Errors) {
  const Tensor a = iota({2, 3, 4});
  const Error count = expect_error([&] { a.permute({0, 1}); });
  EXPECT_EQ(count.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(count.op(), "permute");
  EXPECT_EQ(count.message(), "needs 3 axes, got 2");
  EXPECT_EQ(std::get<tensora::InvalidArgument>(count.detail()).argument, "axes");

  const Error dup = expect_error([&] { a.permute({0, 1, -3}); });
  EXPECT_EQ(dup.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(dup.message(), "axis -3 appears twice");

  expect_axis_error(expect_error([&] { a.permute({0, 1, 3}); }), "permute", 3, 3);
  expect_axis_error(expect_error([&] { a.permute({-4, 1, 2}); }), "permute", -4, 3);
}

// ---- reshape ------------------------------------------------------------------------------------

TEST(Reshape, IsAViewWhenTheStridesAllowIt) {
  const Tensor a = iota({2, 3});
  const Tensor r = a.reshape({3, 2});
  EXPECT_TRUE(r.shares_storage_with(a));
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  EXPECT_EQ(r.strides(), (Strides{1, 3}));
  // Column-major element order: the flat order is unchanged.
  EXPECT_EQ(r.to_vec<std::int64_t>(), (I64s{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(a.reshape({6}).strides(), (Strides{1}));
  EXPECT_EQ(a.reshape({1, 6, 1}).to_vec<std::int64_t>(), (I64s{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(a.reshape({1, 6, 1}).shares_storage_with(a));

  // A strided 1-D view splits into a view: every other element of 0..11.
  const Tensor evens = iota({12}).slice(0, {}, {}, 2);
  const Tensor e23 = evens.reshape({2, 3});
  EXPECT_TRUE(e23.shares_storage_with(evens));
  EXPECT_EQ(e23.strides(), (Strides{2, 4}));
  EXPECT_EQ(e23.to_vec<std::int64_t>(), (I64s{0, 2, 4, 6, 8, 10}));

  // A row-major view keeps its layout when only size-1 axes are added.
  const Tensor rm = iota({3, 2}).transpose();  // shape [2, 3], strides [3, 1]
  const Tensor rm1 = rm.reshape({2, 1, 3});
  EXPECT_TRUE(rm1.shares_storage_with(rm));
  EXPECT_EQ(rm1.to_vec<std::int64_t>(), rm.to_vec<std::int64_t>());
}

TEST(Reshape, CopiesWhenTheStridesDoNotAllowAView) {
  const Tensor a = iota({2, 3});
  const Tensor t = a.transpose();  // 3x2, t(i, j) = j + 2 i
  const Tensor flat = t.reshape({6});
  EXPECT_FALSE(flat.shares_storage_with(a));
  EXPECT_TRUE(flat.is_contiguous());
  EXPECT_EQ(flat.to_vec<std::int64_t>(), (I64s{0, 2, 4, 1, 3, 5}));

  // A column slice of a 4x3 matrix cannot merge its axes.
  const Tensor top = iota({4, 3}).slice(0, 0, 2);  // shape [2, 3], strides [1, 4]
  const Tensor merged = top.reshape({6});
  EXPECT_FALSE(merged.shares_storage_with(top));
  EXPECT_EQ(merged.to_vec<std::int64_t>(), (I64s{0, 1, 4, 5, 8, 9}));

  // A broadcast (stride 0) input.
  const Tensor b = Tensor::from_ints({7, 8, 9}).broadcast_to({2, 3});
  EXPECT_EQ(b.reshape({6}).to_vec<std::int64_t>(), (I64s{7, 7, 8, 8, 9, 9}));
}

TEST(Reshape, ColumnMajorElementOrder) {
  // As Julia/Fortran (NumPy order='F'): the first index runs fastest in both shapes.
  const Tensor m = Tensor::from_vec_row_major({2, 3}, I64s{1, 2, 3, 4, 5, 6});
  const Tensor r = m.reshape({3, 2});
  EXPECT_EQ(r.to_vec_row_major<std::int64_t>(), (I64s{1, 5, 4, 3, 2, 6}));
  EXPECT_EQ(r.to_vec<std::int64_t>(), m.to_vec<std::int64_t>());
}

TEST(Reshape, InfersOneExtent) {
  const Tensor a = iota({2, 3, 2});
  EXPECT_EQ(a.reshape({-1}).shape(), (Shape{12}));
  EXPECT_EQ(a.reshape({3, -1}).shape(), (Shape{3, 4}));
  EXPECT_EQ(a.reshape({-1, 6}).shape(), (Shape{2, 6}));
  EXPECT_EQ(iota({0, 3}).reshape({3, 0}).shape(), (Shape{3, 0}));
  // Rank 0 <-> [1, 1].
  const Tensor s = Tensor::from_vec_col_major({}, std::vector<double>{5});
  EXPECT_EQ(s.reshape({1, 1}).shape(), (Shape{1, 1}));
  EXPECT_EQ(s.reshape({1, 1}).reshape({}).item<double>(), 5.0);
  EXPECT_EQ(s.reshape({-1}).shape(), (Shape{1}));
}

TEST(Reshape, Errors) {
  const Tensor a = iota({2, 3});
  const Error e = expect_error([&] { a.reshape({4}); });
  EXPECT_EQ(e.kind(), ErrorKind::Validation);
  EXPECT_EQ(e.op(), "reshape");
  EXPECT_EQ(e.message(), "cannot reshape 6 elements (shape [2, 3]) into [4]");
  const auto* d = std::get_if<tensora::ShapeMismatch>(&e.detail());
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->expected, (Shape{2, 3}));
  EXPECT_EQ(d->actual, (Shape{4}));

  const Error inferred = expect_error([&] { a.reshape({4, -1}); });
  EXPECT_EQ(inferred.kind(), ErrorKind::Validation);
  EXPECT_EQ(inferred.message(), "cannot reshape 6 elements (shape [2, 3]) into [4, -1]");

  const Error two = expect_error([&] { a.reshape({-1, -1}); });
  EXPECT_EQ(two.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(two.message(), "only one extent may be -1 in [-1, -1]");
  const Error neg = expect_error([&] { a.reshape({-2, -3}); });
  EXPECT_EQ(neg.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(neg.message(), "negative extent in shape [-2, -3]");
}

// ---- slice --------------------------------------------------------------------------------------

TEST(Slice, StartStopStep) {
  const Tensor v = Tensor::arange(0, 10);
  const Tensor s = v.slice(0, 2, 8, 2);
  EXPECT_EQ(s.to_vec<std::int64_t>(), (I64s{2, 4, 6}));
  EXPECT_EQ(s.shape(), (Shape{3}));
  EXPECT_EQ(s.strides(), (Strides{2}));
  EXPECT_EQ(s.offset(), 2);
  EXPECT_TRUE(s.shares_storage_with(v));
  EXPECT_EQ(v.slice(0, 1, 10, 3).to_vec<std::int64_t>(), (I64s{1, 4, 7}));
  EXPECT_EQ(v.slice(0, {}, 3).to_vec<std::int64_t>(), (I64s{0, 1, 2}));
  EXPECT_EQ(v.slice(0, 7, {}).to_vec<std::int64_t>(), (I64s{7, 8, 9}));
  // Out-of-range bounds clamp, as in Python.
  EXPECT_EQ(v.slice(0, -100, 3).to_vec<std::int64_t>(), (I64s{0, 1, 2}));
  EXPECT_EQ(v.slice(0, 8, 100).to_vec<std::int64_t>(), (I64s{8, 9}));
}

TEST(Slice, NegativeIndicesAndSteps) {
  const Tensor v = Tensor::arange(0, 10);
  EXPECT_EQ(v.slice(0, -3, {}).to_vec<std::int64_t>(), (I64s{7, 8, 9}));
  EXPECT_EQ(v.slice(0, {}, -1).to_vec<std::int64_t>(), (I64s{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  const Tensor rev = v.slice(0, {}, {}, -1);
  EXPECT_EQ(rev.to_vec<std::int64_t>(), (I64s{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(rev.strides(), (Strides{-1}));
  EXPECT_EQ(rev.offset(), 9);
  EXPECT_TRUE(rev.shares_storage_with(v));
  EXPECT_EQ(v.slice(0, 8, 2, -3).to_vec<std::int64_t>(), (I64s{8, 5}));
  EXPECT_EQ(v.slice(0, {}, {}, -4).to_vec<std::int64_t>(), (I64s{9, 5, 1}));
  EXPECT_EQ(v.slice(0, -2, -6, -2).to_vec<std::int64_t>(), (I64s{8, 6}));
  EXPECT_EQ(v.slice(0, 100, {}, -1).to_vec<std::int64_t>().front(), 9);
  EXPECT_EQ(rev.slice(0, {}, {}, -1).to_vec<std::int64_t>(), v.to_vec<std::int64_t>());
}

TEST(Slice, EmptyResults) {
  const Tensor v = Tensor::arange(0, 10);
  for (const Tensor& e : {v.slice(0, 5, 2), v.slice(0, 100, 200), v.slice(0, 2, 5, -1),
                          v.slice(0, 3, 3), v.slice(0, -1, -100, 1)}) {
    EXPECT_EQ(e.shape(), (Shape{0}));
    EXPECT_TRUE(e.to_vec<std::int64_t>().empty());
  }
  EXPECT_EQ(Tensor::arange(0, 0).slice(0, {}, {}, -1).shape(), (Shape{0}));
}

TEST(Slice, OneAxisOfAMatrix) {
  const Tensor m = matrix34();  // m(i, j) = 10 i + j
  const Tensor cols = m.slice(1, 1, 3);
  EXPECT_EQ(cols.shape(), (Shape{3, 2}));
  EXPECT_EQ(cols.to_vec_row_major<std::int64_t>(), (I64s{1, 2, 11, 12, 21, 22}));
  const Tensor rows = m.slice(-2, {}, {}, -2);  // axis -2 is axis 0
  EXPECT_EQ(rows.to_vec_row_major<std::int64_t>(), (I64s{20, 21, 22, 23, 0, 1, 2, 3}));
}

TEST(Slice, Errors) {
  const Tensor v = Tensor::arange(0, 10);
  const Error step = expect_error([&] { v.slice(0, 0, 5, 0); });
  EXPECT_EQ(step.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(step.op(), "slice");
  EXPECT_EQ(step.message(), "step must not be 0");
  EXPECT_EQ(std::get<tensora::InvalidArgument>(step.detail()).argument, "step");
  expect_axis_error(expect_error([&] { v.slice(1, 0, 5); }), "slice", 1, 1);
  expect_axis_error(expect_error([&] { v.slice(-2, 0, 5); }), "slice", -2, 1);
  const Error scalar = expect_error([] { Tensor::full({}, 1.0).slice(0, 0, 1); });
  EXPECT_EQ(scalar.message(), "axis 0 out of range for rank 0 (valid: none for a rank-0 tensor)");
}

TEST(Slice, ViewsSeeWritesToTheParent) {
  const Tensor v = Tensor::arange(0, 10);
  const Tensor s = v.slice(0, 2, 8, 2);
  v.data<std::int64_t>()[4] = 100;
  EXPECT_EQ(s.to_vec<std::int64_t>(), (I64s{2, 100, 6}));
}

// ---- broadcast / squeeze / unsqueeze
// ---------------------------------------------------------------

TEST(Broadcast, NewAndSizeOneAxesGetStrideZero) {
  const Tensor x = Tensor::from_vec_col_major({3}, std::vector<double>{1, 2, 3});
  const Tensor b = x.broadcast_to({2, 3});
  EXPECT_EQ(b.shape(), (Shape{2, 3}));
  EXPECT_EQ(b.strides(), (Strides{0, 1}));
  EXPECT_TRUE(b.shares_storage_with(x));
  EXPECT_EQ(b.to_vec<double>(), (std::vector<double>{1, 1, 2, 2, 3, 3}));
  EXPECT_FALSE(b.is_contiguous());

  const Tensor col = x.reshape({3, 1}).broadcast_to({3, 4});
  EXPECT_EQ(col.strides(), (Strides{1, 0}));
  EXPECT_EQ(col.to_vec_row_major<double>(),
            (std::vector<double>{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}));
  EXPECT_EQ(Tensor::from_floats({4}).expand({2, 2}).to_vec<float>(), std::vector<float>(4, 4.0f));
  EXPECT_EQ(x.broadcast_to({3}).strides(), (Strides{1}));
  EXPECT_EQ(x.broadcast_to({0, 3}).numel(), 0);
}

TEST(Broadcast, ShapesThatDoNotBroadcast) {
  const Tensor x = Tensor::from_floats({1, 2, 3});
  const Error e = expect_error([&] { x.broadcast_to({2, 4}); });
  EXPECT_EQ(e.kind(), ErrorKind::Validation);
  EXPECT_EQ(e.op(), "broadcast_to");
  EXPECT_EQ(e.message(), "cannot broadcast shape [3] to [2, 4] (trailing axes must match or be 1)");
  const auto* d = std::get_if<tensora::ShapeMismatch>(&e.detail());
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->expected, (Shape{2, 4}));
  EXPECT_EQ(d->actual, (Shape{3}));
  const Error fewer = expect_error([] { Tensor::zeros({2, 3}).broadcast_to({3}); });
  EXPECT_EQ(fewer.message(),
            "cannot broadcast shape [2, 3] to [3] (trailing axes must match or be 1)");
  const Error shrink = expect_error([] { Tensor::zeros({2, 1}).broadcast_to({1, 1}); });
  EXPECT_EQ(shrink.kind(), ErrorKind::Validation);
  EXPECT_EQ(expect_error([&] { x.broadcast_to({-1, 3}); }).kind(), ErrorKind::InvalidArgument);
}

TEST(Squeeze, DropsSizeOneAxes) {
  const Tensor a = iota({1, 3, 1, 2});
  EXPECT_EQ(a.squeeze().shape(), (Shape{3, 2}));
  EXPECT_EQ(a.squeeze().to_vec<std::int64_t>(), a.to_vec<std::int64_t>());
  EXPECT_TRUE(a.squeeze().shares_storage_with(a));
  EXPECT_EQ(a.squeeze({0}).shape(), (Shape{3, 1, 2}));
  EXPECT_EQ(a.squeeze({-2}).shape(), (Shape{1, 3, 2}));
  EXPECT_EQ(a.squeeze({0, 2}).shape(), (Shape{3, 2}));
  EXPECT_EQ(Tensor::zeros({1, 1}).squeeze().shape(), (Shape{}));

  const Error e = expect_error([&] { a.squeeze({1}); });
  EXPECT_EQ(e.kind(), ErrorKind::Validation);
  EXPECT_EQ(e.op(), "squeeze");
  EXPECT_EQ(e.message(), "axis 1 has extent 3, only extent-1 axes can be squeezed");
  const auto* d = std::get_if<tensora::ShapeMismatch>(&e.detail());
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->expected, (Shape{1}));
  EXPECT_EQ(d->actual, (Shape{3}));
  expect_axis_error(expect_error([&] { a.squeeze({4}); }), "squeeze", 4, 4);
}

TEST(Unsqueeze, InsertsASizeOneAxis) {
  const Tensor v = Tensor::arange(0, 3);
  EXPECT_EQ(v.unsqueeze(0).shape(), (Shape{1, 3}));
  EXPECT_EQ(v.unsqueeze(1).shape(), (Shape{3, 1}));
  EXPECT_EQ(v.unsqueeze(-1).shape(), (Shape{3, 1}));
  EXPECT_EQ(v.unsqueeze(-2).shape(), (Shape{1, 3}));
  EXPECT_TRUE(v.unsqueeze(0).is_contiguous());
  EXPECT_TRUE(v.unsqueeze(1).is_contiguous());
  EXPECT_TRUE(v.unsqueeze(1).shares_storage_with(v));
  EXPECT_EQ(v.unsqueeze(1).to_vec<std::int64_t>(), (I64s{0, 1, 2}));
  EXPECT_EQ(iota({2, 3}).unsqueeze(1).shape(), (Shape{2, 1, 3}));
  EXPECT_EQ(iota({2, 3}).unsqueeze(1).squeeze({1}).to_vec<std::int64_t>(),
            iota({2, 3}).to_vec<std::int64_t>());
  // The valid positions are -(rank + 1) .. rank.
  expect_axis_error(expect_error([&] { v.unsqueeze(2); }), "unsqueeze", 2, 2);
  expect_axis_error(expect_error([&] { v.unsqueeze(-3); }), "unsqueeze", -3, 2);
}

// ---- copies
// --------------------------------------------------------------------------------------

TEST(Duplicate, IsCompactAndIndependent) {
  const Tensor a = Tensor::from_vec_col_major({2, 3}, std::vector<float>{0, 1, 2, 3, 4, 5});
  const Tensor t = a.transpose();
  const Tensor d = t.duplicate();
  EXPECT_FALSE(d.shares_storage_with(t));
  EXPECT_TRUE(d.is_contiguous());
  EXPECT_EQ(d.strides(), (Strides{1, 3}));
  EXPECT_EQ(d.offset(), 0);
  EXPECT_EQ(d.to_vec<float>(), t.to_vec<float>());
  d.data<float>()[0] = 99;
  d.data<float>()[1] = 98;
  EXPECT_EQ(a.to_vec<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(t.to_vec<float>(), (std::vector<float>{0, 2, 4, 1, 3, 5}));

  // A duplicate of a dense tensor is a new buffer too.
  const Tensor a2 = a.duplicate();
  EXPECT_FALSE(a2.shares_storage_with(a));
  a2.data<float>()[5] = -1;
  EXPECT_EQ(a.to_vec<float>()[5], 5.0f);
  // Of a reversed slice.
  const Tensor r = Tensor::arange(0, 5).slice(0, {}, {}, -2).duplicate();
  EXPECT_EQ(r.strides(), (Strides{1}));
  EXPECT_EQ(r.to_vec<std::int64_t>(), (I64s{4, 2, 0}));
}

TEST(Contiguous, ReturnsSelfWhenCompactElseACopy) {
  const Tensor a = iota({2, 3});
  const Tensor same = a.contiguous();
  EXPECT_TRUE(same.shares_storage_with(a));
  EXPECT_EQ(same.strides(), a.strides());
  const Tensor t = a.transpose().contiguous();
  EXPECT_FALSE(t.shares_storage_with(a));
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_EQ(t.to_vec<std::int64_t>(), (I64s{0, 2, 4, 1, 3, 5}));
  // An offset view that is still dense is kept.
  const Tensor tail = iota({2, 3}).slice(1, 1, 3);
  EXPECT_TRUE(tail.is_contiguous());
  EXPECT_TRUE(tail.contiguous().shares_storage_with(tail));
  EXPECT_EQ(tail.data<std::int64_t>()[0], 2);
}

TEST(ToDevice, MustShow5_KeepsTheDType) {
  const Tensor x = Tensor::from_vec_col_major({2, 2}, std::vector<std::int32_t>{1, 2, 3, 4});
  const Device cpu1 = Device::cpu(1);  // configured with float F64: irrelevant to an I32 tensor
  const Tensor y = x.to_device(cpu1);
  EXPECT_EQ(y.dtype(), DType::I32);
  EXPECT_EQ(y.device(), cpu1);
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_FALSE(y.shares_storage_with(x));
  EXPECT_EQ(y.to_vec<std::int32_t>(), (std::vector<std::int32_t>{1, 2, 3, 4}));
  const std::string printed = y.to_string();
  EXPECT_THAT(printed, HasSubstr("dtype=I32"));
  EXPECT_THAT(printed, HasSubstr("device=cpu:1"));
  EXPECT_EQ(x.device(), Device::cpu(0));

  // A strided view arrives compact; F16 stays F16 on a device whose float default is F64.
  const Tensor v =
      Tensor::from_floats({1, 2, 3, 4}, {Device::cpu(0), DType::F16}).slice(0, {}, {}, -1);
  const Tensor w = v.to_device(cpu1);
  EXPECT_EQ(w.dtype(), DType::F16);
  EXPECT_TRUE(w.is_contiguous());
  EXPECT_EQ(w.to_vec<tensora::Float16>(), v.to_vec<tensora::Float16>());
  // And back.
  EXPECT_EQ(w.to_device(Device::cpu(0)).device(), Device::cpu(0));
}

// ---- layouts and views of views
// -------------------------------------------------------------------

TEST(Layout, IsContiguousForBothLayouts) {
  const Tensor a = iota({2, 3});
  EXPECT_TRUE(a.is_contiguous(Layout::ColMajor));
  EXPECT_FALSE(a.is_contiguous(Layout::RowMajor));
  EXPECT_TRUE(a.transpose().is_contiguous(Layout::RowMajor));
  EXPECT_FALSE(a.transpose().is_contiguous(Layout::ColMajor));
  const Tensor v = Tensor::arange(0, 4);
  EXPECT_TRUE(v.is_contiguous(Layout::ColMajor));
  EXPECT_TRUE(v.is_contiguous(Layout::RowMajor));
  // Size-1 axes do not matter.
  const Tensor row = iota({1, 3});
  EXPECT_TRUE(row.is_contiguous(Layout::ColMajor));
  EXPECT_TRUE(row.is_contiguous(Layout::RowMajor));
  EXPECT_FALSE(v.slice(0, {}, {}, 2).is_contiguous(Layout::ColMajor));
  EXPECT_FALSE(v.slice(0, {}, {}, 2).is_contiguous(Layout::RowMajor));
  EXPECT_FALSE(v.slice(0, {}, {}, -1).is_contiguous());
  EXPECT_TRUE(Tensor::zeros({0, 5}).slice(1, {}, {}, 2).is_contiguous());
  EXPECT_TRUE(Tensor::full({}, 1.0).is_contiguous());
}

TEST(ViewsOfViews, ReadBackCorrectly) {
  const Tensor m = matrix34();  // m(i, j) = 10 i + j
  // Slice of a transpose: mt(j, i) = m(i, j); rows j = 1, 3.
  const Tensor s = m.transpose().slice(0, 1, 4, 2);
  EXPECT_EQ(s.shape(), (Shape{2, 3}));
  EXPECT_EQ(s.to_vec_row_major<std::int64_t>(), (I64s{1, 11, 21, 3, 13, 23}));
  // Reversed along the other axis, then transposed back.
  const Tensor r = s.slice(1, {}, {}, -1);
  EXPECT_EQ(r.to_vec_row_major<std::int64_t>(), (I64s{21, 11, 1, 23, 13, 3}));
  EXPECT_EQ(r.transpose().to_vec_row_major<std::int64_t>(), (I64s{21, 23, 11, 13, 1, 3}));
  EXPECT_TRUE(r.transpose().shares_storage_with(m));
  // Reshape of the strided view (a copy) in column-major order.
  EXPECT_EQ(r.reshape({6}).to_vec<std::int64_t>(), (I64s{21, 23, 11, 13, 1, 3}));
  // Broadcast of a slice, then a permute.
  const Tensor row1 = m.slice(0, 1, 2);           // [1, 4]: 10 .. 13
  const Tensor b = row1.broadcast_to({2, 3, 4});  // b(x, y, j) = 10 + j
  const Tensor p = b.permute({2, 0, 1});          // [4, 2, 3]
  const auto pv = p.to_vec<std::int64_t>();
  ASSERT_EQ(pv.size(), 24u);
  for (std::size_t k = 0; k < pv.size(); ++k)
    EXPECT_EQ(pv[k], 10 + static_cast<std::int64_t>(k % 4));
  // Unsqueeze + squeeze of a reversed slice keep the element order.
  const Tensor u = m.slice(1, {}, {}, -1).unsqueeze(0).squeeze();
  EXPECT_EQ(u.to_vec_row_major<std::int64_t>(), (I64s{3, 2, 1, 0, 13, 12, 11, 10, 23, 22, 21, 20}));
  // Duplicate of a view of a view.
  EXPECT_EQ(s.slice(1, 1, {}).duplicate().to_vec_row_major<std::int64_t>(), (I64s{11, 21, 13, 23}));
}

TEST(TypedViews, KeepTheElementType) {
  const auto m = TypedTensor<double>::from_vec_row_major({2, 3}, {1, 2, 3, 4, 5, 6});
  const TypedTensor<double> t = m.transpose();
  EXPECT_EQ(t.shape(), (Shape{3, 2}));
  EXPECT_EQ(t.tensor().to_vec_row_major<double>(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(m.slice(1, {}, {}, -1).tensor().to_vec_row_major<double>(),
            (std::vector<double>{3, 2, 1, 6, 5, 4}));
  EXPECT_EQ(m.reshape({-1}).to_vec(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(m.permute({1, 0}).shape(), (Shape{3, 2}));
  EXPECT_EQ(m.unsqueeze(0).squeeze().shape(), (Shape{2, 3}));
  EXPECT_EQ(m.slice(0, 0, 1).broadcast_to({4, 3}).numel(), 12);
  const TypedTensor<double> d = m.transpose().duplicate();
  EXPECT_TRUE(d.is_contiguous());
  EXPECT_EQ(m.to_device(Device::cpu(6)).device(), Device::cpu(6));
}

}  // namespace
