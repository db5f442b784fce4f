// tensora::Error: kinds, details, and the what() format "op: message (at file:line)" with the
// caller's file and line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <exception>
#include <set>
#include <string>
#include <type_traits>

#include "core/checks.hpp"
#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

using tensora::Device;
using tensora::DType;
using tensora::Error;
using tensora::ErrorKind;
using tensora::Tensor;
using tensora::TypedTensor;
using tensora_test::expect_error;
using ::testing::EndsWith;
using ::testing::HasSubstr;

std::string at(int line) {
  return " (at test_errors.cpp:" + std::to_string(line) + ")";
}

static_assert(std::is_base_of_v<std::exception, Error>);

TEST(Error, WhatIsOpMessageAndTheCallersLocation) {
  int line = 0;
  try {
    line = __LINE__ + 1;
    Tensor::zeros({2, -1});
    FAIL() << "no throw";
  } catch (const std::exception& ex) {  // catchable as a std::exception
    EXPECT_STREQ(ex.what(), ("zeros: negative extent in shape [2, -1]" + at(line)).c_str());
    const auto* e = dynamic_cast<const Error*>(&ex);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->op(), "zeros");
    EXPECT_EQ(e->message(), "negative extent in shape [2, -1]");
    EXPECT_EQ(e->where().line(), static_cast<unsigned>(line));
    EXPECT_THAT(e->where().file_name(), EndsWith("test_errors.cpp"));
  }
}

TEST(Error, LocationIsThePublicCallInTheTest) {
  const Tensor m = Tensor::zeros({2, 3});

  const int reshape_line = __LINE__ + 1;
  const Error reshape = expect_error([&] { m.reshape({7}); });
  EXPECT_EQ(std::string(reshape.what()),
            "reshape: cannot reshape 6 elements (shape [2, 3]) into [7]" + at(reshape_line));

  const int to_vec_line = __LINE__ + 1;
  const Error to_vec = expect_error([&] { (void)m.to_vec<double>(); });
  EXPECT_THAT(to_vec.what(), HasSubstr("to_vec: dtype mismatch: expected F32, actual F64"));
  EXPECT_THAT(to_vec.what(), EndsWith(at(to_vec_line)));

  // Through a TypedTensor method, a view of a view, and a creation that converts.
  const auto v = TypedTensor<float>::zeros({3});
  const int typed_line = __LINE__ + 1;
  const Error typed = expect_error([&] { v.transpose().slice(0, 0, 2, 0); });
  EXPECT_THAT(typed.what(), EndsWith(at(typed_line)));
  EXPECT_EQ(typed.op(), "slice");

  const tensora::TensorOptions i8{Device::cpu(), DType::I8};
  const int create_line = __LINE__ + 1;
  const Error create = expect_error([&] { Tensor::from_ints({1, 1000}, i8); });
  EXPECT_THAT(create.what(), EndsWith(at(create_line)));

  // A device name error points at the call too.
  const int device_line = __LINE__ + 1;
  const Error device = expect_error([] { Device::cpu(9); });
  EXPECT_THAT(device.what(), EndsWith(at(device_line)));

  // eye builds on zeros; the error still names eye and the test's line.
  const int eye_line = __LINE__ + 1;
  const Error eye = expect_error([] { Tensor::eye(2, -2); });
  EXPECT_EQ(std::string(eye.what()), "eye: negative extent in shape [2, -2]" + at(eye_line));
}

TEST(Error, ConstructedDirectly) {
  const int line = __LINE__ + 1;
  const Error e(ErrorKind::Internal, "myop", "something broke");
  EXPECT_EQ(std::string(e.what()), "myop: something broke" + at(line));
  EXPECT_EQ(e.kind(), ErrorKind::Internal);
  EXPECT_TRUE(std::holds_alternative<tensora::NoDetail>(e.detail()));
  // Copies keep everything.
  const Error copy = e;
  EXPECT_STREQ(copy.what(), e.what());
  EXPECT_EQ(copy.where().line(), e.where().line());
}

TEST(Error, CheckHelpersReadLikeTheDesign) {
  // docs/errors.md: "dot_general: dtype mismatch: expected F64, actual F32 (at fit.cpp:42)",
  // expected = the left operand's dtype, actual = the right's.
  const Error d = expect_error([] {
    tensora::check::same_dtype("dot_general", DType::F64, DType::F32,
                               tensora::SourceLocation::current());
  });
  // The check helpers take the location explicitly; public functions default it to the caller.
  EXPECT_EQ(std::string(d.what()), "dot_general: dtype mismatch: expected F64, actual F32" +
                                       at(static_cast<int>(d.where().line())));
  EXPECT_EQ(d.kind(), ErrorKind::Validation);
  EXPECT_EQ(std::get<tensora::DTypeMismatch>(d.detail()).expected, DType::F64);
  EXPECT_EQ(std::get<tensora::DTypeMismatch>(d.detail()).actual, DType::F32);

  const Error dev = expect_error([] {
    tensora::check::same_device("add", Device::cpu(0), Device::cpu(1),
                                tensora::SourceLocation::current());
  });
  EXPECT_EQ(dev.kind(), ErrorKind::DeviceMismatch);
  EXPECT_EQ(dev.message(),
            "device mismatch: expected cpu:0, actual cpu:1; move one operand with to_device()");
  EXPECT_EQ(std::get<tensora::DeviceMismatch>(dev.detail()).expected, "cpu:0");
  EXPECT_EQ(std::get<tensora::DeviceMismatch>(dev.detail()).actual, "cpu:1");

  const Error shape = expect_error([] {
    tensora::check::fail_shape("add", "shapes [2] and [3] do not broadcast", {2}, {3},
                               tensora::SourceLocation::current());
  });
  EXPECT_EQ(shape.kind(), ErrorKind::Validation);
  EXPECT_EQ(std::get<tensora::ShapeMismatch>(shape.detail()).actual, (tensora::Shape{3}));

  const Error unsupported = expect_error([] {
    tensora::check::fail_unsupported_dtype("sqrt", DType::Bool, "",
                                           tensora::SourceLocation::current());
  });
  EXPECT_EQ(unsupported.kind(), ErrorKind::UnsupportedDType);
  EXPECT_EQ(unsupported.message(), "unsupported dtype Bool");

  EXPECT_NO_THROW(
      tensora::check::same_dtype("add", DType::I8, DType::I8, tensora::SourceLocation::current()));
  EXPECT_EQ(tensora::check::axis("sum", -1, 3, tensora::SourceLocation::current()), 2);
}

TEST(ErrorKind, EveryKindHasAUniqueName) {
  const std::pair<ErrorKind, const char*> kinds[] = {
      {ErrorKind::Validation, "Validation"},
      {ErrorKind::UnsupportedDTypeConversion, "UnsupportedDTypeConversion"},
      {ErrorKind::UnsupportedDType, "UnsupportedDType"},
      {ErrorKind::DeviceMismatch, "DeviceMismatch"},
      {ErrorKind::AlreadyInitialized, "AlreadyInitialized"},
      {ErrorKind::InvalidArgument, "InvalidArgument"},
      {ErrorKind::Unsupported, "Unsupported"},
      {ErrorKind::Internal, "Internal"},
      {ErrorKind::LinAlgError, "LinAlgError"},
      {ErrorKind::IoError, "IoError"},
      {ErrorKind::OutOfMemory, "OutOfMemory"},
  };
  std::set<std::string> seen;
  for (const auto& [kind, text] : kinds) {
    EXPECT_EQ(tensora::name(kind), text);
    seen.insert(std::string(tensora::name(kind)));
  }
  EXPECT_EQ(seen.size(), std::size(kinds));
  // The enum has exactly these values: the one after the last has no name.
  EXPECT_EQ(static_cast<int>(ErrorKind::OutOfMemory), static_cast<int>(std::size(kinds)) - 1);
  for (int k = 0; k < static_cast<int>(std::size(kinds)); ++k)
    EXPECT_NE(tensora::name(static_cast<ErrorKind>(k)), "Unknown") << k;
}

TEST(ErrorDetail, EveryDetailTypeIsAnAlternative) {
  // The catalogue in docs/errors.md lists exactly these.
  using tensora::ErrorDetail;
  static_assert(std::variant_size_v<ErrorDetail> == 13);
  const ErrorDetail details[] = {
      tensora::NoDetail{},
      tensora::DTypeMismatch{DType::F64, DType::F32},
      tensora::ShapeMismatch{{2}, {3}},
      tensora::ShapeDataLengthMismatch{6, 5},
      tensora::AxisOutOfRange{3, 2},
      tensora::DeviceMismatch{"cpu:0", "cpu:1"},
      tensora::UnsupportedDTypeConversion{DType::F64, DType::I32},
      tensora::UnsupportedDType{DType::Bool},
      tensora::AlreadyInitialized{"cpu:1"},
      tensora::InvalidArgument{"step"},
      tensora::IoError{"a.npy", "truncated data"},
      tensora::OutOfMemory{1 << 20, "cpu:0", 0},
      tensora::LinAlgFailure{{1}, 2, false},
  };
  for (std::size_t i = 0; i < std::size(details); ++i) EXPECT_EQ(details[i].index(), i);
}

}  // namespace
