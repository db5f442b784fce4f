// Meta tensors: dtype, shape and device without data. Views and copies stay meta and agree
// with the same view of a real tensor; anything that reads elements or runs a kernel refuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <vector>

#include "tensora/dlpack.hpp"
#include "tensora/io.hpp"
#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

using tensora::CpuEngine;
using tensora::Device;
using tensora::DType;
using tensora::Error;
using tensora::ErrorKind;
using tensora::Layout;
using tensora::Shape;
using tensora::Strides;
using tensora::Tensor;
using tensora_test::expect_error;
using ::testing::HasSubstr;

void expect_same_layout(const Tensor& meta, const Tensor& real) {
  EXPECT_TRUE(meta.is_meta());
  EXPECT_FALSE(real.is_meta());
  EXPECT_EQ(meta.shape(), real.shape());
  EXPECT_EQ(meta.strides(), real.strides());
  EXPECT_EQ(meta.offset(), real.offset());
  EXPECT_EQ(meta.dtype(), real.dtype());
  EXPECT_EQ(meta.device(), real.device());
}

TEST(MetaTensor, CarriesDtypeShapeAndDeviceWithColumnMajorStrides) {
  const Tensor m = Tensor::meta({2, 3, 4}, DType::BF16, Device::cpu(1));
  EXPECT_TRUE(m.defined());
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.dtype(), DType::BF16);
  EXPECT_EQ(m.shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(m.strides(), (Strides{1, 2, 6}));
  EXPECT_EQ(m.offset(), 0);
  EXPECT_EQ(m.device(), Device::cpu(1));
  EXPECT_EQ(m.numel(), 24);
  EXPECT_TRUE(m.is_contiguous());
  EXPECT_FALSE(Tensor::zeros({2}).is_meta());
  EXPECT_FALSE(Tensor().is_meta());
}

TEST(MetaTensor, AHugeShapeAllocatesNothing) {
  const Tensor m = Tensor::meta({1 << 20, 1 << 20}, DType::F64);
  EXPECT_EQ(m.numel(), std::int64_t{1} << 40);
  EXPECT_EQ(m.transpose().reshape({-1}).shape(), (Shape{std::int64_t{1} << 40}));
}

TEST(MetaTensor, ViewsAgreeWithTheSameViewOfARealTensor) {
  const Tensor m = Tensor::meta({2, 3, 4}, DType::F32);
  const Tensor r = Tensor::zeros({2, 3, 4}, tensora::TensorOptions(DType::F32));
  expect_same_layout(m.permute({2, 0, 1}), r.permute({2, 0, 1}));
  expect_same_layout(m.transpose(0, 2), r.transpose(0, 2));
  expect_same_layout(m.reshape({6, -1}), r.reshape({6, -1}));
  expect_same_layout(m.slice(1, 1, 3), r.slice(1, 1, 3));
  expect_same_layout(m.slice(2, 3, 0, -2), r.slice(2, 3, 0, -2));
  expect_same_layout(m.unsqueeze(1).broadcast_to({2, 5, 3, 4}), r.unsqueeze(1).broadcast_to({2, 5, 3, 4}));
  expect_same_layout(m.reverse({0}), r.reverse({0}));
  expect_same_layout(m.diagonal(0, 0, 1), r.diagonal(0, 0, 1));
  expect_same_layout(m.slice(0, 0, 1).squeeze({0}), r.slice(0, 0, 1).squeeze({0}));
  const auto ms = m.split({1, 3}, 2);
  const auto rs = r.split({1, 3}, 2);
  ASSERT_EQ(ms.size(), 2u);
  for (std::size_t i = 0; i < ms.size(); ++i) expect_same_layout(ms[i], rs[i]);
}

TEST(MetaTensor, CopiesAndReshapesThatNeedACopyStayMeta) {
  const Tensor t = Tensor::meta({3, 4}, DType::I32).transpose();
  EXPECT_FALSE(t.is_contiguous());
  const Tensor flat = t.reshape({12});  // a real tensor would copy here
  EXPECT_TRUE(flat.is_meta());
  EXPECT_EQ(flat.shape(), (Shape{12}));
  EXPECT_EQ(flat.strides(), (Strides{1}));
  const Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_meta());
  EXPECT_EQ(c.strides(), (Strides{1, 4}));
  EXPECT_TRUE(t.duplicate().is_meta());
  const Tensor moved = t.to_device(Device::cpu(2));
  EXPECT_TRUE(moved.is_meta());
  EXPECT_EQ(moved.device(), Device::cpu(2));
}

TEST(MetaTensor, ViewErrorsAreTheRealTensorsErrors) {
  const Tensor m = Tensor::meta({2, 3}, DType::F32);
  const Error e = expect_error([&] { (void)m.reshape({4}); });
  const Error r = expect_error([&] { (void)Tensor::zeros({2, 3}).reshape({4}); });
  EXPECT_EQ(e.kind(), r.kind());
  EXPECT_EQ(e.op(), "reshape");
  EXPECT_EQ(e.message(), r.message());
  const Error axis = expect_error([&] { (void)m.permute({0, 2}); });
  EXPECT_EQ(axis.kind(), ErrorKind::Validation);
  EXPECT_EQ(axis.op(), "permute");
}

TEST(MetaTensor, ReadingElementsIsRefused) {
  const Tensor m = Tensor::meta({2}, DType::F32);
  for (const Error& e : {expect_error([&] { (void)m.to_vec<float>(); }),
                         expect_error([&] { (void)m.data<float>(); }),
                         expect_error([&] { (void)m.element_ptr(); })}) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_THAT(e.message(), HasSubstr("meta tensor (dtype, shape and device only, no data)"));
  }
  const Error item = expect_error([&] { (void)Tensor::meta({}, DType::F64).item<double>(); });
  EXPECT_EQ(item.kind(), ErrorKind::InvalidArgument);
  EXPECT_THAT(item.message(), HasSubstr("meta tensor"));
}

TEST(MetaTensor, KernelsRefuseMetaOperandsAndDestinations) {
  auto e = CpuEngine::serial();
  const Tensor m = Tensor::meta({2}, DType::F32);
  const Tensor real = Tensor::ones({2}, tensora::TensorOptions(DType::F32));
  const Error add = expect_error([&] { (void)real.add(m, e); });
  EXPECT_EQ(add.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(add.op(), "add");
  EXPECT_EQ(add.message(), "an operand is a meta tensor (dtype, shape and device only, no data)");
  const Error sum = expect_error([&] { (void)m.sum({0}, e); });
  EXPECT_EQ(sum.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(sum.op(), "sum");
  const Error into = expect_error([&] { real.exp_into(e, m); });
  EXPECT_EQ(into.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(into.op(), "exp_into");
  EXPECT_EQ(into.message(), "the destination is a meta tensor (no data to write)");
}

TEST(MetaTensor, FilesAndDLPackRefuseMetaTensors) {
  const Tensor m = Tensor::meta({2}, DType::F32);
  const auto path = std::filesystem::temp_directory_path() / "tensora_meta_refused.npy";
  const Error npy = expect_error([&] { tensora::io::save_npy(path, m); });
  EXPECT_EQ(npy.kind(), ErrorKind::IoError);
  EXPECT_THAT(npy.message(), HasSubstr("meta tensor"));
  EXPECT_FALSE(std::filesystem::exists(path));
  const Error dl = expect_error([&] { (void)tensora::to_dlpack(m); });
  EXPECT_THAT(dl.message(), HasSubstr("meta tensor (no data to share)"));
}

TEST(MetaTensor, PrintsWithoutData) {
  EXPECT_EQ(Tensor::meta({2, 3}, DType::F16).to_string(),
            "Tensor(dtype=F16, device=cpu:0, shape=[2, 3]), meta: no data\n");
}

TEST(MetaTensor, SharesStorageWithNothing) {
  const Tensor m = Tensor::meta({2}, DType::F32);
  EXPECT_FALSE(m.shares_storage_with(m.reshape({2})));
  EXPECT_FALSE(Tensor().shares_storage_with(Tensor()));
}

TEST(MetaTensor, BadShapesAreRefused) {
  const Error e = expect_error([] { (void)Tensor::meta({2, -1}, DType::F32); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(e.op(), "meta");
  EXPECT_THAT(e.message(), HasSubstr("negative extent"));
}

}  // namespace
