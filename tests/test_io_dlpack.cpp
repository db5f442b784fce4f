// DLPack: zero-copy both ways for the 1.x and pre-1.0 structs, explicit strides, the
// read-only flag, and deleters that run exactly once.
#include <gtest/gtest.h>

#include "io/io_test_support.hpp"
#include "test_support.hpp"
#include "tensora/dlpack.hpp"

namespace {

using namespace tensora_io_test;
using tensora::Error;
using tensora::ErrorKind;

// A producer-owned buffer exported as DLPack, counting deleter calls.
struct Producer {
  std::vector<float> data = {1, 2, 3, 4, 5, 6};
  std::int64_t shape[2] = {2, 3};
  std::int64_t strides[2] = {3, 1};
  int deleted = 0;

  template <class M>
  M* make(bool null_strides = false) {
    auto* m = new M{};
    m->dl_tensor.data = data.data();
    m->dl_tensor.device = DLDevice{kDLCPU, 0};
    m->dl_tensor.ndim = 2;
    m->dl_tensor.dtype = DLDataType{kDLFloat, 32, 1};
    m->dl_tensor.shape = shape;
    m->dl_tensor.strides = null_strides ? nullptr : strides;
    m->manager_ctx = this;
    m->deleter = [](M* self) {
      ++static_cast<Producer*>(self->manager_ctx)->deleted;
      delete self;
    };
    return m;
  }
};

DLManagedTensorVersioned* versioned(Producer& p, std::uint64_t flags = 0, bool null_strides = false) {
  auto* m = p.make<DLManagedTensorVersioned>(null_strides);
  m->version = DLPackVersion{1, 0};
  m->flags = flags;
  return m;
}

TEST(IoDLPack, ExportIsZeroCopyWithExplicitStrides) {
  const Tensor t = Tensor::from_vec_col_major<double>({2, 3}, {1, 2, 3, 4, 5, 6}).transpose();
  DLManagedTensorVersioned* m = tensora::to_dlpack(t);
  EXPECT_EQ(m->version.major, 1u);
  EXPECT_EQ(m->flags, 0u);
  EXPECT_EQ(m->dl_tensor.data, t.element_ptr());
  EXPECT_EQ(m->dl_tensor.byte_offset, 0u);
  EXPECT_EQ(m->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(m->dl_tensor.ndim, 2);
  EXPECT_EQ(m->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(m->dl_tensor.dtype.bits, 64);
  EXPECT_EQ(m->dl_tensor.dtype.lanes, 1);
  ASSERT_NE(m->dl_tensor.strides, nullptr);
  EXPECT_EQ(m->dl_tensor.shape[0], 3);
  EXPECT_EQ(m->dl_tensor.shape[1], 2);
  EXPECT_EQ(m->dl_tensor.strides[0], 2);  // a column-major tensor's transpose
  EXPECT_EQ(m->dl_tensor.strides[1], 1);
  m->deleter(m);
}

TEST(IoDLPack, ZeroDimensionalExportStillHasAStridesPointer) {
  DLManagedTensor* m = tensora::to_dlpack_unversioned(Tensor::full({}, 3.0, {tensora::Device::cpu(), DType::F32}));
  EXPECT_EQ(m->dl_tensor.ndim, 0);
  EXPECT_NE(m->dl_tensor.strides, nullptr);
  EXPECT_NE(m->dl_tensor.shape, nullptr);
  m->deleter(m);
}

TEST(IoDLPack, ExportKeepsTheTensorAliveUntilTheDeleter) {
  DLManagedTensorVersioned* m = nullptr;
  {
    const Tensor t = Tensor::from_vec_col_major<std::int32_t>({3}, {7, 8, 9});
    m = tensora::to_dlpack(t);
  }
  EXPECT_EQ(static_cast<const std::int32_t*>(m->dl_tensor.data)[2], 9);
  m->deleter(m);
}

TEST(IoDLPack, VersionedRoundTripIsZeroCopyForEveryDType) {
  for (const DType d : tensora::kAllDTypes)
    for (const Order o : {Order::ColMajor, Order::RowMajor, Order::Strided}) {
      const Tensor t = make_tensor(d, {2, 3, 4}, o);
      const Tensor back = tensora::from_dlpack(tensora::to_dlpack(t));
      const std::string what = std::string(tensora::name(d)) + " " + order_name(o);
      EXPECT_EQ(back.element_ptr(), t.element_ptr()) << what;
      EXPECT_EQ(back.strides(), t.strides()) << what;
      expect_same(t, back, what);
    }
}

TEST(IoDLPack, UnversionedRoundTripIsZeroCopy) {
  const Tensor t = make_tensor(DType::C128, {3, 2}, Order::Strided);
  const Tensor back = tensora::from_dlpack(tensora::to_dlpack_unversioned(t));
  EXPECT_EQ(back.element_ptr(), t.element_ptr());
  EXPECT_EQ(back.strides(), t.strides());
  expect_same(t, back, "C128");
}

TEST(IoDLPack, NegativeStridesAndZeroSizeRoundTrip) {
  const Tensor r = Tensor::from_vec_col_major<float>({4}, {1, 2, 3, 4}).reverse({0});
  const Tensor back = tensora::from_dlpack(tensora::to_dlpack(r));
  EXPECT_EQ(back.to_vec<float>(), (std::vector<float>{4, 3, 2, 1}));
  EXPECT_EQ(back.element_ptr(), r.element_ptr());
  const Tensor z = Tensor::zeros({0, 5}, {tensora::Device::cpu(), DType::I16});
  const Tensor zb = tensora::from_dlpack(tensora::to_dlpack(z));
  EXPECT_EQ(zb.shape(), (Shape{0, 5}));
  EXPECT_EQ(zb.dtype(), DType::I16);
}

TEST(IoDLPack, ImportKeepsTheProducerAliveAndDeletesOnce) {
  Producer p;
  {
    Tensor a = tensora::from_dlpack(versioned(p));
    EXPECT_EQ(a.element_ptr(), p.data.data());
    EXPECT_EQ(a.to_vec_row_major<float>(), p.data);
    Tensor view = a.transpose();
    a = Tensor();
    EXPECT_EQ(p.deleted, 0);  // the view still uses the memory
    EXPECT_EQ(view.shape(), (Shape{3, 2}));
  }
  EXPECT_EQ(p.deleted, 1);
  {
    const Tensor b = tensora::from_dlpack(p.make<DLManagedTensor>());
    EXPECT_EQ(b.element_ptr(), p.data.data());
  }
  EXPECT_EQ(p.deleted, 2);
}

TEST(IoDLPack, NullStridesMeanRowMajor) {
  Producer p;
  const Tensor t = tensora::from_dlpack(versioned(p, 0, /*null_strides=*/true));
  EXPECT_EQ(t.strides(), (tensora::Strides{3, 1}));
  EXPECT_EQ(t.to_vec_row_major<float>(), p.data);
}

TEST(IoDLPack, ReadOnlyImportRejectsIntoOps) {
  Producer p;
  const Tensor t = tensora::from_dlpack(versioned(p, DLPACK_FLAG_BITMASK_READ_ONLY));
  auto eng = tensora::CpuEngine::serial();
  const Tensor other = Tensor::ones({2, 3}, {tensora::Device::cpu(), DType::F32});
  const Error e = tensora_test::expect_error([&] { other.add_into(other, eng, t); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(e.op(), "add_into");
  EXPECT_NE(std::string(e.message()).find("read-only"), std::string::npos) << e.what();
  ASSERT_TRUE(std::holds_alternative<tensora::InvalidArgument>(e.detail()));
  EXPECT_EQ(std::get<tensora::InvalidArgument>(e.detail()).argument, "dest");
  EXPECT_EQ(p.data[0], 1.0f);  // nothing was written
  // Reading and computing from it is fine, and re-exporting carries the flag.
  EXPECT_EQ(t.add(other, eng).to_vec_row_major<float>()[0], 2.0f);
  DLManagedTensorVersioned* again = tensora::to_dlpack(t);
  EXPECT_EQ(again->flags & DLPACK_FLAG_BITMASK_READ_ONLY, DLPACK_FLAG_BITMASK_READ_ONLY);
  again->deleter(again);
}

TEST(IoDLPack, BadImportsFailAndStillDeleteOnce) {
  Producer p;
  const auto expect_bad = [&](auto* m, const std::string& problem) {
    const int before = p.deleted;
    const Error e = tensora_test::expect_error([&] { (void)tensora::from_dlpack(m); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << e.what();
    EXPECT_EQ(e.op(), "from_dlpack");
    EXPECT_NE(std::string(e.message()).find(problem), std::string::npos) << e.what();
    EXPECT_EQ(p.deleted, before + 1) << problem;
  };
  auto* v2 = versioned(p);
  v2->version.major = 2;
  expect_bad(v2, "DLPack major version 2 is not supported");
  auto* gpu = versioned(p);
  gpu->dl_tensor.device.device_type = kDLCUDA;
  expect_bad(gpu, "device type 2 is not supported");
  auto* lanes = p.make<DLManagedTensor>();
  lanes->dl_tensor.dtype.lanes = 4;
  expect_bad(lanes, "unsupported DLPack dtype (code 2, bits 32, lanes 4)");
  auto* neg = versioned(p);
  p.shape[0] = -2;
  expect_bad(neg, "negative extent -2");
  p.shape[0] = 2;
  auto* huge = versioned(p, 0, /*null_strides=*/true);
  std::int64_t huge_shape[2] = {0, std::int64_t{1} << 62};
  huge->dl_tensor.shape = huge_shape;
  expect_bad(huge, "the shape's strides overflow 64 bits");
  auto* nodata = versioned(p);
  nodata->dl_tensor.data = nullptr;
  expect_bad(nodata, "the data pointer is null");
  auto* misaligned = versioned(p);
  misaligned->dl_tensor.byte_offset = 2;
  expect_bad(misaligned, "not aligned for F32");
  const Error null_error = tensora_test::expect_error([] { (void)tensora::from_dlpack(static_cast<DLManagedTensor*>(nullptr)); });
  EXPECT_NE(std::string(null_error.message()).find("null"), std::string::npos);
}

}  // namespace
