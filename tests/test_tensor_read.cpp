// Reading tensors: checked to_vec / item / data, empty handles, and the printer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/format.hpp"
#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

using tensora::Device;
using tensora::DType;
using tensora::Error;
using tensora::ErrorKind;
using tensora::Layout;
using tensora::Shape;
using tensora::Tensor;
using tensora::TypedTensor;
using tensora_test::expect_error;
using ::testing::HasSubstr;

void expect_dtype_mismatch(const Error& e, const std::string& op, DType tensor_dtype,
                           DType requested) {
  EXPECT_EQ(e.kind(), ErrorKind::Validation);
  EXPECT_EQ(e.op(), op);
  const auto* d = std::get_if<tensora::DTypeMismatch>(&e.detail());
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->expected, tensor_dtype);
  EXPECT_EQ(d->actual, requested);
  EXPECT_EQ(e.message(),
            "dtype mismatch: expected " + std::string(tensora::name(tensor_dtype)) + ", actual " +
                std::string(tensora::name(requested)) +
                " (the element type asked for does not match the tensor; convert or cast the "
                "tensor first)");
}

// ---- checked reads
// ---------------------------------------------------------------------------------

TEST(Read, ToVecChecksTheElementType) {
  const Tensor f = Tensor::from_floats({1, 2, 3});  // F32
  expect_dtype_mismatch(expect_error([&] { (void)f.to_vec<double>(); }), "to_vec", DType::F32,
                        DType::F64);
  expect_dtype_mismatch(expect_error([&] { (void)f.to_vec_row_major<std::int32_t>(); }),
                        "to_vec_row_major", DType::F32, DType::I32);
  expect_dtype_mismatch(expect_error([&] { (void)f.slice(0, 0, 1).item<double>(); }), "item",
                        DType::F32, DType::F64);
  expect_dtype_mismatch(expect_error([&] { (void)f.data<std::uint32_t>(); }), "data", DType::F32,
                        DType::U32);
  // Same size is not enough: I64 is not U64, nor F64.
  const Tensor i = Tensor::from_ints({1});
  expect_dtype_mismatch(expect_error([&] { (void)i.to_vec<std::uint64_t>(); }), "to_vec",
                        DType::I64, DType::U64);
  expect_dtype_mismatch(expect_error([&] { (void)i.item<double>(); }), "item", DType::I64,
                        DType::F64);
  const Tensor h = Tensor::from_floats({1}, {Device::cpu(), DType::F16});
  expect_dtype_mismatch(expect_error([&] { (void)h.to_vec<tensora::BFloat16>(); }), "to_vec",
                        DType::F16, DType::BF16);
}

TEST(Read, ItemNeedsExactlyOneElement) {
  const Tensor v = Tensor::arange(0, 3);
  const Error e = expect_error([&] { (void)v.item<std::int64_t>(); });
  EXPECT_EQ(e.kind(), ErrorKind::Validation);
  EXPECT_EQ(e.op(), "item");
  EXPECT_EQ(e.message(), "item() needs exactly one element, the tensor has 3 (shape [3])");
  const auto* d = std::get_if<tensora::ShapeMismatch>(&e.detail());
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->expected, (Shape{}));
  EXPECT_EQ(d->actual, (Shape{3}));
  EXPECT_EQ(expect_error([] { (void)Tensor::zeros({0}).item<float>(); }).message(),
            "item() needs exactly one element, the tensor has 0 (shape [0])");

  // One element of any rank is fine, also at an offset in a view.
  EXPECT_EQ(Tensor::full({1, 1}, 2.5, {Device::cpu(), DType::F64}).item<double>(), 2.5);
  EXPECT_EQ(Tensor::full({}, 7).item<std::int64_t>(), 7);
  EXPECT_EQ(v.slice(0, 2, 3).item<std::int64_t>(), 2);
  EXPECT_EQ(Tensor::arange(0, 6).reshape({2, 3}).slice(0, 1, 2).slice(1, 2, 3).item<std::int64_t>(),
            5);
  EXPECT_EQ(TypedTensor<float>::full({1, 1, 1}, 4.0f).item(), 4.0f);
}

TEST(Read, DataNeedsAColumnMajorContiguousTensor) {
  const Tensor a = Tensor::arange(0, 6).reshape({2, 3});
  std::int64_t* p = a.data<std::int64_t>();
  EXPECT_EQ(p[5], 5);
  p[0] = 42;  // writes through
  EXPECT_EQ(a.to_vec<std::int64_t>()[0], 42);

  for (const Tensor& view : {a.transpose(), a.slice(1, {}, {}, 2), a.slice(0, {}, {}, -1)}) {
    const Error e = expect_error([&] { (void)view.data<std::int64_t>(); });
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(e.op(), "data");
    EXPECT_EQ(e.message(),
              "data() needs a column-major contiguous tensor; call contiguous() first");
    EXPECT_EQ(std::get<tensora::InvalidArgument>(e.detail()).argument, "self");
    EXPECT_EQ(view.contiguous().data<std::int64_t>()[0], view.to_vec<std::int64_t>()[0]);
  }
  // A dense view at an offset points at its first element.
  EXPECT_EQ(a.slice(1, 1, 3).data<std::int64_t>()[0], 2);
}

TEST(Read, RowMajorReading) {
  const Tensor m = Tensor::from_vec_col_major({2, 3}, std::vector<double>{1, 2, 3, 4, 5, 6});
  EXPECT_EQ(m.to_vec<double>(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(m.to_vec_row_major<double>(), (std::vector<double>{1, 3, 5, 2, 4, 6}));
  EXPECT_EQ(m.transpose().to_vec_row_major<double>(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  std::vector<double> raw(6);
  m.copy_to_buffer(raw.data(), Layout::RowMajor);
  EXPECT_EQ(raw, (std::vector<double>{1, 3, 5, 2, 4, 6}));
  EXPECT_EQ(Tensor::from_vec_col_major({2, 2}, std::vector<bool>{true, false, false, false})
                .to_vec_row_major<bool>(),
            (std::vector<bool>{true, false, false, false}));
}

TEST(Read, DimAndProperties) {
  const Tensor a = Tensor::zeros({2, 3, 4});
  EXPECT_EQ(a.rank(), 3);
  EXPECT_EQ(a.numel(), 24);
  EXPECT_EQ(a.dim(0), 2);
  EXPECT_EQ(a.dim(-1), 4);
  const Error e = expect_error([&] { (void)a.dim(3); });
  EXPECT_EQ(e.kind(), ErrorKind::Validation);
  EXPECT_EQ(e.op(), "dim");
  EXPECT_EQ(std::get<tensora::AxisOutOfRange>(e.detail()).axis, 3);
  EXPECT_TRUE(a.defined());
  EXPECT_EQ(a.offset(), 0);
}

// ---- empty handles
// -------------------------------------------------------------------------------

TEST(EmptyHandle, EveryOperationThrowsInvalidArgument) {
  const Tensor t;
  EXPECT_FALSE(t.defined());
  const std::vector<std::pair<std::string, std::function<void()>>> calls = {
      {"to_vec", [&] { (void)t.to_vec<float>(); }},
      {"to_vec_row_major", [&] { (void)t.to_vec_row_major<float>(); }},
      {"item", [&] { (void)t.item<float>(); }},
      {"data", [&] { (void)t.data<float>(); }},
      {"typed", [&] { (void)t.typed<float>(); }},
      {"dim", [&] { (void)t.dim(0); }},
      {"permute", [&] { (void)t.permute({}); }},
      {"transpose", [&] { (void)t.transpose(); }},
      {"transpose", [&] { (void)t.transpose(0, 1); }},
      {"reshape", [&] { (void)t.reshape({1}); }},
      {"slice", [&] { (void)t.slice(0, 0, 1); }},
      {"broadcast_to", [&] { (void)t.broadcast_to({2}); }},
      {"broadcast_to", [&] { (void)t.expand({2}); }},
      {"squeeze", [&] { (void)t.squeeze(); }},
      {"squeeze", [&] { (void)t.squeeze({0}); }},
      {"unsqueeze", [&] { (void)t.unsqueeze(0); }},
      {"duplicate", [&] { (void)t.duplicate(); }},
      {"contiguous", [&] { (void)t.contiguous(); }},
      {"to_device", [&] { (void)t.to_device(Device::cpu()); }},
      {"copy_to_buffer",
       [&] {
         float x;
         t.copy_to_buffer(&x, Layout::ColMajor);
       }},
      {"element_ptr", [&] { (void)t.element_ptr(); }},
  };
  for (const auto& [op, call] : calls) {
    SCOPED_TRACE(op);
    const Error e = expect_error(call);
    EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(e.op(), op);
    EXPECT_EQ(e.message(), "the tensor is empty (default-constructed)");
    EXPECT_EQ(std::get<tensora::InvalidArgument>(e.detail()).argument, "self");
  }
  // A typed empty handle too.
  EXPECT_EQ(expect_error([] { (void)TypedTensor<double>().to_vec(); }).kind(),
            ErrorKind::InvalidArgument);
  // Printing does not throw.
  EXPECT_EQ(t.to_string(), "Tensor(empty handle)\n");
}

// ---- the printer
// ---------------------------------------------------------------------------------

TEST(Print, MatrixF64) {
  const Tensor m = Tensor::from_vec_row_major({2, 2}, std::vector<double>{1.0, 2.5, -3.0, 4.0});
  EXPECT_EQ(m.to_string(),
            "Tensor(dtype=F64, device=cpu:0, shape=[2, 2]), rows = axis 0, columns = axis 1:\n"
            "  [[  1, 2.5],\n"
            "   [ -3,   4]]\n");
  std::ostringstream os;
  os << m;
  EXPECT_EQ(os.str(), m.to_string());
  // Shortest round-trip text for every value.
  EXPECT_EQ(
      Tensor::from_floats({0.1, 0.25}, {Device::cpu(), DType::F64}).reshape({1, 2}).to_string(),
      "Tensor(dtype=F64, device=cpu:0, shape=[1, 2]), rows = axis 0, columns = axis 1:\n"
      "  [[ 0.1, 0.25]]\n");
}

TEST(Print, VectorI32) {
  const Tensor v = Tensor::from_vec_col_major({3}, std::vector<std::int32_t>{1, -20, 300});
  EXPECT_EQ(v.to_string(), "Tensor(dtype=I32, device=cpu:0, shape=[3]):\n  [1, -20, 300]\n");
}

TEST(Print, RankZero) {
  EXPECT_EQ(Tensor::full({}, 2.5).to_string(),
            "Tensor(dtype=F32, device=cpu:0, shape=[]):\n  2.5\n");
  EXPECT_EQ(Tensor::full({}, 0.1).to_string(),
            "Tensor(dtype=F32, device=cpu:0, shape=[]):\n  0.1\n");
}

TEST(Print, RankThreeShowsOneMatrixPerTrailingIndex) {
  const Tensor t = Tensor::arange(0, 8).reshape({2, 2, 2});
  EXPECT_EQ(t.to_string(),
            "Tensor(dtype=I64, device=cpu:0, shape=[2, 2, 2]), rows = axis 0, columns = axis 1:\n"
            "  [:, :, 0] =\n"
            "  [[0, 2],\n"
            "   [1, 3]]\n"
            "  [:, :, 1] =\n"
            "  [[4, 6],\n"
            "   [5, 7]]\n");
}

TEST(Print, BoolAndComplex) {
  const Tensor b = Tensor::from_vec_row_major({2, 2}, std::vector<bool>{true, false, false, true});
  EXPECT_EQ(b.to_string(),
            "Tensor(dtype=Bool, device=cpu:0, shape=[2, 2]), rows = axis 0, columns = axis 1:\n"
            "  [[ true, false],\n"
            "   [false,  true]]\n");
  const Tensor c =
      Tensor::from_vec_col_major({2}, std::vector<std::complex<float>>{{1, 2}, {-0.5f, -1}});
  EXPECT_EQ(c.to_string(), "Tensor(dtype=C64, device=cpu:0, shape=[2]):\n  [1+2i, -0.5-1i]\n");
}

TEST(Print, ViewsDeviceAndSummaries) {
  // A strided view prints by index, like its compact copy.
  const Tensor m = Tensor::from_vec_row_major({2, 3}, std::vector<std::int32_t>{1, 2, 3, 4, 5, 6});
  EXPECT_EQ(m.transpose().to_string(),
            "Tensor(dtype=I32, device=cpu:0, shape=[3, 2]), rows = axis 0, columns = axis 1:\n"
            "  [[1, 4],\n"
            "   [2, 5],\n"
            "   [3, 6]]\n");
  EXPECT_EQ(Tensor::from_ints({1, 2}, {Device::cpu(6), DType::U8}).to_string(),
            "Tensor(dtype=U8, device=cpu:6, shape=[2]):\n  [1, 2]\n");
  EXPECT_EQ(Tensor::zeros({0, 3}).to_string(),
            "Tensor(dtype=F32, device=cpu:0, shape=[0, 3]) with no elements\n");
  EXPECT_EQ(Tensor::zeros({1001}).to_string(),
            "Tensor(dtype=F32, device=cpu:0, shape=[1001]) with 1001 elements (not shown)\n");
  std::ostringstream os;
  os << TypedTensor<std::int8_t>::full({2}, -1);
  EXPECT_EQ(os.str(), "Tensor(dtype=I8, device=cpu:0, shape=[2]):\n  [-1, -1]\n");
  EXPECT_EQ(Tensor::from_floats({1.5, -2}, {Device::cpu(), DType::F16}).to_string(),
            "Tensor(dtype=F16, device=cpu:0, shape=[2]):\n  [1.5, -2]\n");
}

}  // namespace

// Numbers print in their shortest round-trip form, in plain notation unless an exponent is
// clearly shorter (10 is "10", not "1e+01").
TEST(Print, NumbersUsePlainNotationUnlessAnExponentIsClearlyShorter) {
  using tensora::format_double;
  EXPECT_EQ(format_double(10), "10");
  EXPECT_EQ(format_double(100000), "100000");
  EXPECT_EQ(format_double(65520), "65520");
  EXPECT_EQ(format_double(0.1), "0.1");
  EXPECT_EQ(format_double(-2.5), "-2.5");
  EXPECT_EQ(format_double(1.5e10), "1.5e+10");
  EXPECT_EQ(format_double(1e-5), "1e-05");
  EXPECT_EQ(format_double(9.223372036854776e18), "9.223372036854776e+18");
  EXPECT_EQ(format_double(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(tensora::format_element(10.0f), "10");
  EXPECT_EQ(tensora::format_element(0.1f), "0.1");
  std::ostringstream os;
  os << Tensor::from_vec_col_major<double>({2}, {10, 22});
  EXPECT_NE(os.str().find("[10, 22]"), std::string::npos) << os.str();
}
