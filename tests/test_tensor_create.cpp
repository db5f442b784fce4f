// Creation: default dtypes per device, explicit dtype wins, lossless value conversion,
// zeros/ones/full/arange/linspace/eye, counter-based random numbers, TypedTensor creation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "core/random.hpp"
#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

using tensora::BFloat16;
using tensora::Device;
using tensora::DType;
using tensora::Error;
using tensora::ErrorKind;
using tensora::Float16;
using tensora::Shape;
using tensora::Tensor;
using tensora::TypedTensor;
using tensora_test::expect_error;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

const Device kCpu = Device::cpu();

void expect_invalid_value(const Error& e, const std::string& op, const std::string& value,
                          std::int64_t index, const std::string& dtype) {
  EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(e.op(), op);
  EXPECT_EQ(e.message(), "value " + value + " at index " + std::to_string(index) +
                             " does not fit dtype " + dtype +
                             " without loss; pass a wider dtype, or create it as is and cast()");
  const auto* detail = std::get_if<tensora::InvalidArgument>(&e.detail());
  ASSERT_NE(detail, nullptr);
  EXPECT_EQ(detail->argument, "values");
}

// ---- Must-show scenarios --------------------------------------------------------------------

TEST(Create, MustShow1_DefaultsAndExplicitDTypeWins) {
  const Tensor z = Tensor::zeros({2, 3}, {kCpu});
  EXPECT_EQ(z.dtype(), DType::F32);
  EXPECT_EQ(z.shape(), (Shape{2, 3}));
  EXPECT_EQ(z.device(), kCpu);
  EXPECT_EQ(z.to_vec<float>(), std::vector<float>(6, 0.0f));
  EXPECT_TRUE(z.is_contiguous());
  EXPECT_EQ(z.strides(), (tensora::Strides{1, 2}));  // column-major

  const Tensor r = Tensor::arange(0, 5, {kCpu});
  EXPECT_EQ(r.dtype(), DType::I64);
  EXPECT_EQ(r.shape(), (Shape{5}));
  EXPECT_EQ(r.to_vec<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));

  EXPECT_EQ(Tensor::zeros({2}, {kCpu, DType::F64}).dtype(), DType::F64);
  const Tensor rf = Tensor::arange(0, 3, {kCpu, DType::F32});
  EXPECT_EQ(rf.dtype(), DType::F32);
  EXPECT_EQ(rf.to_vec<float>(), (std::vector<float>{0, 1, 2}));
  EXPECT_EQ(Tensor::from_floats({1.5}, {kCpu, DType::F16}).dtype(), DType::F16);
  EXPECT_EQ(Tensor::from_vec_col_major({1}, std::vector<float>{1}, {kCpu, DType::F64}).dtype(),
            DType::F64);
  // Options may be just a dtype, on the default device.
  EXPECT_EQ(Tensor::zeros({1}, DType::I8).dtype(), DType::I8);
}

TEST(Create, MustShow3_FloatLiteralsGoStraightToTheTargetDType) {
  // cpu:4 belongs to this test (test_support.hpp); configure it unless a repeat already did.
  const Device dev = Device::cpu(4);
  if (dev.settings().float_dtype != DType::F64) dev.configure({DType::F64});

  const Tensor t = Tensor::from_floats({0.1, 0.2}, {dev});
  EXPECT_EQ(t.dtype(), DType::F64);
  EXPECT_EQ(t.device(), dev);
  const auto v = t.to_vec<double>();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], 0.1);  // exact: never through F32
  EXPECT_EQ(v[1], 0.2);

  const Tensor f = Tensor::from_floats({0.1, 0.2}, {dev, DType::F32});
  EXPECT_EQ(f.dtype(), DType::F32);
  EXPECT_EQ(static_cast<double>(f.to_vec<float>()[0]), 0.10000000149011612);
  EXPECT_EQ(f.to_vec<float>()[1], 0.2f);

  // Integer literals take the device's int dtype.
  EXPECT_EQ(Tensor::from_ints({1, 2}, {dev}).dtype(), DType::I64);
}

TEST(Create, MustShow4_VectorElementTypeSetsTheDType) {
  const Tensor d = Tensor::from_vec_col_major({3}, std::vector<double>{0.1, 0.2, 0.3});
  EXPECT_EQ(d.dtype(), DType::F64);
  EXPECT_EQ(d.to_vec<double>(), (std::vector<double>{0.1, 0.2, 0.3}));

  const std::int64_t big = std::int64_t{1} << 40;
  const Tensor i = Tensor::from_vec_col_major({1}, std::vector<std::int64_t>{big});
  EXPECT_EQ(i.dtype(), DType::I64);
  EXPECT_EQ(i.item<std::int64_t>(), big);
  // The same literal through from_ints, and a vector<float> stays F32 even on the F64 device.
  EXPECT_EQ(Tensor::from_ints({big}).item<std::int64_t>(), big);
  EXPECT_EQ(Tensor::from_vec_col_major({1}, std::vector<float>{1.0f}, {Device::cpu(1)}).dtype(),
            DType::F32);
}

// ---- element order ---------------------------------------------------------------------------

TEST(Create, RowMajorAndColMajorElementOrder) {
  const std::vector<std::int32_t> values{1, 2, 3, 4, 5, 6};
  const Tensor c = Tensor::from_vec_col_major({2, 3}, values);
  const Tensor r = Tensor::from_vec_row_major({2, 3}, values);
  EXPECT_EQ(c.dtype(), DType::I32);
  EXPECT_EQ(r.dtype(), DType::I32);
  // c(i, j) = values[i + 2 j], r(i, j) = values[3 i + j]; to_vec reads column-major.
  EXPECT_EQ(c.to_vec<std::int32_t>(), values);
  EXPECT_EQ(r.to_vec<std::int32_t>(), (std::vector<std::int32_t>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(r.to_vec_row_major<std::int32_t>(), values);
  EXPECT_EQ(c.to_vec_row_major<std::int32_t>(), (std::vector<std::int32_t>{1, 3, 5, 2, 4, 6}));
  // Both results are dense column-major tensors.
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_EQ(r.strides(), (tensora::Strides{1, 2}));

  // Rank 3: r(i, j, k) = values[6 i + 3 j + k].
  std::vector<double> v24(24);
  std::iota(v24.begin(), v24.end(), 0.0);
  const Tensor r3 = Tensor::from_vec_row_major({2, 4, 3}, v24);
  const auto col = r3.to_vec<double>();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k)
        EXPECT_EQ(col[static_cast<std::size_t>(i + 2 * j + 8 * k)], 12 * i + 3 * j + k);
  EXPECT_EQ(r3.to_vec_row_major<double>(), v24);

  // Row-major data with a conversion to an explicit dtype.
  const Tensor rc = Tensor::from_vec_row_major({2, 3}, values, {kCpu, DType::F64});
  EXPECT_EQ(rc.to_vec<double>(), (std::vector<double>{1, 4, 2, 5, 3, 6}));
}

// ---- all 15 element types ------------------------------------------------------------------

template <class T>
constexpr bool kIsComplex = false;
template <class T>
constexpr bool kIsComplex<std::complex<T>> = true;

template <class T>
std::vector<T> sample_values() {
  if constexpr (std::is_same_v<T, bool>) {
    return {true, false, false, true, true, false};
  } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    return {T(1.5f), T(-0.25f), T(0.0f), T(3.0f), T(-7.0f), T(0.1f)};
  } else if constexpr (kIsComplex<T>) {
    using R = typename T::value_type;
    return {T(1, 2),
            T(-3, R(0.5)),
            T(0, 0),
            T(0, -1),
            T(std::numeric_limits<R>::max(), R(-1e-30)),
            T(R(0.1), R(0.2))};
  } else if constexpr (std::is_floating_point_v<T>) {
    return {T(1.5),
            T(-0.25),
            T(0.1),
            std::numeric_limits<T>::max(),
            std::numeric_limits<T>::lowest(),
            std::numeric_limits<T>::denorm_min()};
  } else {
    return {T(1), T(0), T(42), std::numeric_limits<T>::max(), std::numeric_limits<T>::min(), T(7)};
  }
}

template <class T>
void check_round_trip() {
  SCOPED_TRACE(std::string(tensora::name(tensora::dtype_of<T>())));
  const std::vector<T> values = sample_values<T>();
  ASSERT_EQ(values.size(), 6u);
  const Tensor t = Tensor::from_vec_col_major({2, 3}, values, {kCpu});
  EXPECT_EQ(t.dtype(), tensora::dtype_of<T>());
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  const std::vector<T> back = t.to_vec<T>();
  ASSERT_EQ(back.size(), values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      EXPECT_EQ(back[i].bits, values[i].bits) << i;
    } else {
      EXPECT_EQ(back[i], values[i]) << i;
    }
  }
  // Row-major reading of the same tensor, and a typed handle over it.
  const std::vector<T> rows = t.to_vec_row_major<T>();
  const std::size_t order[] = {0, 2, 4, 1, 3, 5};
  for (std::size_t i = 0; i < 6; ++i) EXPECT_TRUE(rows[i] == values[order[i]]) << i;
  // The typed handle reads the same values.
  const TypedTensor<T> typed = t.typed<T>();
  EXPECT_EQ(typed.dtype(), tensora::dtype_of<T>());
  EXPECT_TRUE(typed.to_vec() == back);
}

TEST(Create, AllFifteenElementTypesRoundTrip) {
  check_round_trip<bool>();
  check_round_trip<std::int8_t>();
  check_round_trip<std::int16_t>();
  check_round_trip<std::int32_t>();
  check_round_trip<std::int64_t>();
  check_round_trip<std::uint8_t>();
  check_round_trip<std::uint16_t>();
  check_round_trip<std::uint32_t>();
  check_round_trip<std::uint64_t>();
  check_round_trip<Float16>();
  check_round_trip<BFloat16>();
  check_round_trip<float>();
  check_round_trip<double>();
  check_round_trip<c64>();
  check_round_trip<c128>();
}

// ---- lossless conversion to an explicit dtype -------------------------------------------------

TEST(CreateConversion, IntegerThatDoesNotFitThrowsNamingValueAndDType) {
  expect_invalid_value(
      expect_error([] {
        Tensor::from_vec_col_major({3}, std::vector<std::int64_t>{1, 2, 300}, {kCpu, DType::U8});
      }),
      "from_vec_col_major", "300", 2, "U8");
  expect_invalid_value(expect_error([] {
                         Tensor::from_ints({1, std::int64_t{1} << 40}, {kCpu, DType::I32});
                       }),
                       "from_ints", "1099511627776", 1, "I32");
  expect_invalid_value(expect_error([] {
                         Tensor::from_ints({-1}, {kCpu, DType::U32});
                       }),
                       "from_ints", "-1", 0, "U32");
  expect_invalid_value(expect_error([] {
                         Tensor::from_ints({0, 1, 2}, {kCpu, DType::Bool});
                       }),
                       "from_ints", "2", 2, "Bool");
  expect_invalid_value(expect_error([] {
                         Tensor::from_vec_col_major({1},
                                                    std::vector<std::uint64_t>{~std::uint64_t{0}},
                                                    {kCpu, DType::I64});
                       }),
                       "from_vec_col_major", "18446744073709551615", 0, "I64");
  // The index is the position in the caller's vector, also for row-major data.
  expect_invalid_value(expect_error([] {
                         Tensor::from_vec_row_major({2, 2}, std::vector<std::int32_t>{1, 2, 3, -4},
                                                    {kCpu, DType::U16});
                       }),
                       "from_vec_row_major", "-4", 3, "U16");
  // Values that fit are exact.
  EXPECT_EQ(Tensor::from_ints({-128, 127}, {kCpu, DType::I8}).to_vec<std::int8_t>(),
            (std::vector<std::int8_t>{-128, 127}));
  EXPECT_EQ(Tensor::from_ints({0, 1}, {kCpu, DType::Bool}).to_vec<bool>(),
            (std::vector<bool>{false, true}));
  EXPECT_EQ(Tensor::from_vec_col_major({1}, std::vector<std::uint64_t>{~std::uint64_t{0}},
                                       {kCpu, DType::U64})
                .item<std::uint64_t>(),
            ~std::uint64_t{0});
}

TEST(CreateConversion, FloatIntoIntegerNeedsAnExactIntegralValue) {
  expect_invalid_value(expect_error([] {
                         Tensor::from_floats({1.0, 0.5}, {kCpu, DType::I32});
                       }),
                       "from_floats", "0.5", 1, "I32");
  expect_invalid_value(expect_error([] {
                         Tensor::from_floats({std::nan("")}, {kCpu, DType::I64});
                       }),
                       "from_floats", "nan", 0, "I64");
  expect_invalid_value(expect_error([] {
                         Tensor::from_floats({-1.0}, {kCpu, DType::U8});
                       }),
                       "from_floats", "-1", 0, "U8");
  expect_invalid_value(expect_error([] {
                         Tensor::from_floats({9223372036854775808.0}, {kCpu, DType::I64});
                       }),
                       "from_floats", "9.223372036854776e+18", 0, "I64");
  EXPECT_EQ(Tensor::from_floats({1.0, -2.0, 3e9}, {kCpu, DType::I64}).to_vec<std::int64_t>(),
            (std::vector<std::int64_t>{1, -2, 3000000000}));
  EXPECT_EQ(Tensor::from_floats({0.0, 1.0}, {kCpu, DType::Bool}).to_vec<bool>(),
            (std::vector<bool>{false, true}));
  expect_invalid_value(expect_error([] {
                         Tensor::from_floats({0.5}, {kCpu, DType::Bool});
                       }),
                       "from_floats", "0.5", 0, "Bool");
}

TEST(CreateConversion, FloatTargetsRoundToNearestButRejectOverflow) {
  expect_invalid_value(expect_error([] {
                         Tensor::from_floats({1.0, 1e300}, {kCpu, DType::F32});
                       }),
                       "from_floats", "1e+300", 1, "F32");
  // Values print in their shortest round-trip form.
  expect_invalid_value(expect_error([] {
                         Tensor::from_floats({65520.0}, {kCpu, DType::F16});
                       }),
                       "from_floats", "65520", 0, "F16");
  expect_invalid_value(expect_error([] {
                         Tensor::from_ints({100000}, {kCpu, DType::F16});
                       }),
                       "from_ints", "100000", 0, "F16");
  // 65519 rounds down to the largest F16 (65504): rounding, not overflow.
  EXPECT_EQ(Tensor::from_floats({65519.0}, {kCpu, DType::F16}).item<Float16>().bits, 0x7bff);

  // 0.1 goes straight from double to F16, rounded to nearest even.
  const Tensor h = Tensor::from_floats({0.1}, {kCpu, DType::F16});
  EXPECT_EQ(h.dtype(), DType::F16);
  EXPECT_EQ(h.item<Float16>().bits, Float16(0.1).bits);
  EXPECT_EQ(h.item<Float16>().bits, 0x2e66);
  // Ties go to the even neighbour: 1 + 2^-11 -> 1, 1 + 3 * 2^-11 -> 1 + 2^-9.
  const auto ties =
      Tensor::from_floats({1.0 + std::ldexp(1.0, -11), 1.0 + 3 * std::ldexp(1.0, -11)},
                          {kCpu, DType::F16})
          .to_vec<Float16>();
  EXPECT_EQ(ties[0].bits, 0x3c00);
  EXPECT_EQ(ties[1].bits, 0x3c02);
  EXPECT_EQ(Tensor::from_floats({0.1}, {kCpu, DType::BF16}).item<BFloat16>().bits,
            BFloat16(0.1).bits);

  // Infinity and NaN are values of a float dtype, not an overflow.
  const auto special =
      Tensor::from_floats({INFINITY, -INFINITY, NAN}, {kCpu, DType::F32}).to_vec<float>();
  EXPECT_EQ(special[0], INFINITY);
  EXPECT_EQ(special[1], -INFINITY);
  EXPECT_TRUE(std::isnan(special[2]));

  // Integers into float targets round once, to nearest even.
  const std::int64_t odd = (std::int64_t{1} << 24) + 1;  // not an F32
  EXPECT_EQ(Tensor::from_ints({odd}, {kCpu, DType::F32}).item<float>(), 16777216.0f);
}

// An integer into a 16-bit float rounds once, however many bits the integer has.
TEST(CreateConversion, LargeIntegersIntoBFloat16RoundOnce) {
  // 2^62 + 2^54 + 1 is just above the midpoint between the BF16 neighbours 2^62 and 2^62 + 2^55;
  // rounding it to double first would land exactly on the midpoint and then round to even (2^62).
  const std::int64_t v = (std::int64_t{1} << 62) + (std::int64_t{1} << 54) + 1;
  const BFloat16 expected(std::ldexp(1.0, 62) + std::ldexp(1.0, 55));
  EXPECT_EQ(Tensor::from_ints({v}, {kCpu, DType::BF16}).item<BFloat16>().bits, expected.bits);
  EXPECT_EQ(Tensor::from_ints({-v}, {kCpu, DType::BF16}).item<BFloat16>().bits,
            BFloat16(-static_cast<double>(expected)).bits);
  const std::uint64_t u = (std::uint64_t{1} << 63) + (std::uint64_t{1} << 55) + 1;
  EXPECT_EQ(Tensor::from_vec_col_major({1}, std::vector<std::uint64_t>{u}, {kCpu, DType::BF16})
                .item<BFloat16>()
                .bits,
            BFloat16(std::ldexp(1.0, 63) + std::ldexp(1.0, 56)).bits);
  // Exactly on a midpoint: ties to even.
  const std::int64_t tie = (std::int64_t{1} << 62) + (std::int64_t{1} << 54);
  EXPECT_EQ(Tensor::from_ints({tie}, {kCpu, DType::BF16}).item<BFloat16>().bits,
            BFloat16(std::ldexp(1.0, 62)).bits);
}

TEST(CreateConversion, ComplexIntoRealNeedsAZeroImaginaryPart) {
  const Tensor ok =
      Tensor::from_vec_col_major({2}, std::vector<c128>{{1, 0}, {-2.5, 0}}, {kCpu, DType::F64});
  EXPECT_EQ(ok.to_vec<double>(), (std::vector<double>{1, -2.5}));
  expect_invalid_value(
      expect_error([] {
        Tensor::from_vec_col_major({2}, std::vector<c128>{{1, 0}, {1, 2}}, {kCpu, DType::F64});
      }),
      "from_vec_col_major", "1+2i", 1, "F64");
  // Real into complex.
  EXPECT_EQ(Tensor::from_floats({1.5}, {kCpu, DType::C64}).item<c64>(), c64(1.5f, 0));
  EXPECT_EQ(Tensor::from_ints({3}, {kCpu, DType::C128}).item<c128>(), c128(3, 0));
  // C128 -> C64 rounds, but overflow of either part is a loss.
  expect_invalid_value(
      expect_error([] {
        Tensor::from_vec_col_major({1}, std::vector<c128>{{0, 1e300}}, {kCpu, DType::C64});
      }),
      "from_vec_col_major", "0+1e+300i", 0, "C64");
}

TEST(CreateConversion, BoolIntoOtherDTypes) {
  EXPECT_EQ(Tensor::from_vec_col_major({2}, std::vector<bool>{true, false}, {kCpu, DType::F32})
                .to_vec<float>(),
            (std::vector<float>{1, 0}));
  EXPECT_EQ(Tensor::from_vec_col_major({2}, std::vector<bool>{true, false}, {kCpu, DType::U8})
                .to_vec<std::uint8_t>(),
            (std::vector<std::uint8_t>{1, 0}));
}

// ---- shapes
// --------------------------------------------------------------------------------------

TEST(CreateShape, LengthMismatchIsAValidationError) {
  const Error e = expect_error([] { Tensor::from_vec_col_major({2, 3}, std::vector<float>(5)); });
  EXPECT_EQ(e.kind(), ErrorKind::Validation);
  EXPECT_EQ(e.op(), "from_vec_col_major");
  EXPECT_EQ(e.message(), "shape [2, 3] needs 6 elements, got 5");
  const auto* d = std::get_if<tensora::ShapeDataLengthMismatch>(&e.detail());
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->expected, 6);
  EXPECT_EQ(d->actual, 5);

  const Error r = expect_error([] {
    Tensor::from_vec_row_major({4}, std::vector<int>{1, 2, 3, 4, 5});
  });
  EXPECT_EQ(r.op(), "from_vec_row_major");
  EXPECT_EQ(r.message(), "shape [4] needs 4 elements, got 5");

  // A rank-0 shape holds one element.
  EXPECT_EQ(Tensor::from_vec_col_major({}, std::vector<double>{2.5}).item<double>(), 2.5);
  const Error r0 = expect_error([] { Tensor::from_vec_col_major({}, std::vector<double>{}); });
  EXPECT_EQ(r0.message(), "shape [] needs 1 elements, got 0");
}

TEST(CreateShape, NegativeExtentIsInvalid) {
  const Error e = expect_error([] { Tensor::from_vec_col_major({2, -1}, std::vector<float>{}); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(e.op(), "from_vec_col_major");
  EXPECT_EQ(e.message(), "negative extent in shape [2, -1]");
  ASSERT_NE(std::get_if<tensora::InvalidArgument>(&e.detail()), nullptr);
  EXPECT_EQ(std::get<tensora::InvalidArgument>(e.detail()).argument, "shape");
  for (auto op : {"zeros", "ones", "full", "uniform", "normal", "eye"}) {
    SCOPED_TRACE(op);
    const Error z = expect_error([&] {
      const std::string name = op;
      if (name == "zeros") Tensor::zeros({-3});
      if (name == "ones") Tensor::ones({-3});
      if (name == "full") Tensor::full({-3}, 1.0);
      if (name == "uniform") Tensor::uniform({-3}, 1);
      if (name == "normal") Tensor::normal({-3}, 1);
      if (name == "eye") Tensor::eye(-3);
    });
    EXPECT_EQ(z.kind(), ErrorKind::InvalidArgument);
    EXPECT_EQ(z.op(), op);
  }
}

TEST(CreateShape, EmptyTensors) {
  const Tensor e = Tensor::zeros({0, 3});
  EXPECT_EQ(e.numel(), 0);
  EXPECT_TRUE(e.to_vec<float>().empty());
  EXPECT_EQ(Tensor::from_floats({}).shape(), (Shape{0}));
  EXPECT_EQ(Tensor::from_floats({}, {Device::cpu(1)}).dtype(),
            DType::F64);  // F64 device: no conversion
  EXPECT_EQ(Tensor::from_vec_col_major({0}, std::vector<double>{}).numel(), 0);
}

// ---- zeros / ones / full ----------------------------------------------------------------------

TEST(CreateFill, Ones) {
  EXPECT_EQ(Tensor::ones({2}).dtype(), DType::F32);
  EXPECT_EQ(Tensor::ones({2}).to_vec<float>(), (std::vector<float>{1, 1}));
  EXPECT_EQ(Tensor::ones({2}, {kCpu, DType::I8}).to_vec<std::int8_t>(),
            (std::vector<std::int8_t>{1, 1}));
  EXPECT_EQ(Tensor::ones({1}, {kCpu, DType::Bool}).item<bool>(), true);
  EXPECT_EQ(Tensor::ones({1}, {kCpu, DType::C128}).item<c128>(), c128(1, 0));
  EXPECT_EQ(Tensor::ones({1}, {kCpu, DType::F16}).item<Float16>().bits, 0x3c00);
  EXPECT_EQ(Tensor::zeros({2}, {kCpu, DType::C64}).to_vec<c64>(), (std::vector<c64>{0, 0}));
}

TEST(CreateFill, FullTakesTheValueKindUnlessADTypeIsGiven) {
  const Tensor i = Tensor::full({2}, 7);
  EXPECT_EQ(i.dtype(), DType::I64);
  EXPECT_EQ(i.to_vec<std::int64_t>(), (std::vector<std::int64_t>{7, 7}));
  const Tensor f = Tensor::full({2, 2}, 2.5);
  EXPECT_EQ(f.dtype(), DType::F32);
  EXPECT_EQ(f.to_vec<float>(), std::vector<float>(4, 2.5f));
  const Tensor b = Tensor::full({1}, true);
  EXPECT_EQ(b.dtype(), DType::Bool);
  EXPECT_EQ(b.item<bool>(), true);
  const Tensor c = Tensor::full({1}, c128(1, -2));
  EXPECT_EQ(c.dtype(), DType::C64);
  EXPECT_EQ(c.item<c64>(), c64(1, -2));
  // On the F64 device the float and complex defaults widen.
  EXPECT_EQ(Tensor::full({1}, 0.5, {Device::cpu(1)}).dtype(), DType::F64);
  EXPECT_EQ(Tensor::full({1}, c128(0, 1), {Device::cpu(1)}).dtype(), DType::C128);
  // Explicit dtypes, incl. a lower kind into a higher one.
  EXPECT_EQ(Tensor::full({1}, 3, {kCpu, DType::F64}).item<double>(), 3.0);
  EXPECT_EQ(Tensor::full({1}, 2.0, {kCpu, DType::I32}).item<std::int32_t>(), 2);
  EXPECT_EQ(Tensor::full({1}, true, {kCpu, DType::I32}).item<std::int32_t>(), 1);
  EXPECT_EQ(Tensor::full({1}, ~std::uint64_t{0}, {kCpu, DType::U64}).item<std::uint64_t>(),
            ~std::uint64_t{0});
  EXPECT_EQ(Tensor::full({1}, 0.1, {kCpu, DType::F16}).item<Float16>().bits, Float16(0.1).bits);
}

TEST(CreateFill, FullRejectsAValueThatDoesNotFit) {
  const Error e = expect_error([] { Tensor::full({2}, 0.5, {kCpu, DType::I32}); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(e.op(), "full");
  EXPECT_EQ(e.message(), "value 0.5 (float) does not fit dtype I32 without loss");
  ASSERT_NE(std::get_if<tensora::InvalidArgument>(&e.detail()), nullptr);
  EXPECT_EQ(std::get<tensora::InvalidArgument>(e.detail()).argument, "value");

  EXPECT_EQ(expect_error([] {
              Tensor::full({1}, 300, {kCpu, DType::U8});
            }).message(),
            "value 300 (int) does not fit dtype U8 without loss");
  EXPECT_EQ(expect_error([] {
              Tensor::full({1}, -1, {kCpu, DType::U64});
            }).message(),
            "value -1 (int) does not fit dtype U64 without loss");
  EXPECT_EQ(expect_error([] { Tensor::full({1}, 1e300); }).message(),
            "value 1e+300 (float) does not fit dtype F32 without loss");
  EXPECT_EQ(expect_error([] {
              Tensor::full({1}, c128(1, 1), {kCpu, DType::F64});
            }).message(),
            "value (1+1i) (complex) does not fit dtype F64 without loss");
  EXPECT_EQ(expect_error([] {
              Tensor::full({1}, ~std::uint64_t{0}, {kCpu, DType::I64});
            }).message(),
            "value 18446744073709551615 (int) does not fit dtype I64 without loss");
}

// ---- arange / linspace / eye
// ---------------------------------------------------------------------

TEST(CreateRange, ArangeWithSteps) {
  EXPECT_EQ(Tensor::arange(0, 10, 3).to_vec<std::int64_t>(),
            (std::vector<std::int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(Tensor::arange(0, 9, 3).to_vec<std::int64_t>(), (std::vector<std::int64_t>{0, 3, 6}));
  EXPECT_EQ(Tensor::arange(5, 0, -2).to_vec<std::int64_t>(), (std::vector<std::int64_t>{5, 3, 1}));
  EXPECT_EQ(Tensor::arange(-2, 2).to_vec<std::int64_t>(),
            (std::vector<std::int64_t>{-2, -1, 0, 1}));
  EXPECT_EQ(Tensor::arange(3, 3).shape(), (Shape{0}));
  EXPECT_EQ(Tensor::arange(5, 0).shape(), (Shape{0}));
  EXPECT_EQ(Tensor::arange(0, 5, -1).shape(), (Shape{0}));
  EXPECT_EQ(Tensor::arange(0, 4, {kCpu, DType::F64}).to_vec<double>(),
            (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(Tensor::arange(250, 256, {kCpu, DType::U8}).to_vec<std::uint8_t>(),
            (std::vector<std::uint8_t>{250, 251, 252, 253, 254, 255}));
}

TEST(CreateRange, ArangeErrors) {
  const Error e = expect_error([] { Tensor::arange(0, 3, 0); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(e.op(), "arange");
  EXPECT_EQ(e.message(), "step must not be 0");
  EXPECT_EQ(std::get<tensora::InvalidArgument>(e.detail()).argument, "step");

  expect_invalid_value(expect_error([] {
                         Tensor::arange(250, 260, {kCpu, DType::U8});
                       }),
                       "arange", "256", 6, "U8");
  expect_invalid_value(expect_error([] {
                         Tensor::arange(-1, 2, {kCpu, DType::U32});
                       }),
                       "arange", "-1", 0, "U32");
  expect_invalid_value(expect_error([] {
                         Tensor::arange(0, 3, {kCpu, DType::Bool});
                       }),
                       "arange", "2", 2, "Bool");
}

TEST(CreateRange, LinspaceEndpointsAreExact) {
  const Tensor l = Tensor::linspace(0, 1, 5);
  EXPECT_EQ(l.dtype(), DType::F32);
  EXPECT_EQ(l.to_vec<float>(), (std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1}));
  const auto d = Tensor::linspace(0.1, 0.7, 7, {kCpu, DType::F64}).to_vec<double>();
  ASSERT_EQ(d.size(), 7u);
  EXPECT_EQ(d.front(), 0.1);
  EXPECT_EQ(d.back(), 0.7);
  for (std::size_t i = 0; i < d.size(); ++i)
    EXPECT_NEAR(d[i], 0.1 + 0.1 * static_cast<double>(i), 1e-15);
  const auto down = Tensor::linspace(1, -1, 3, {kCpu, DType::F64}).to_vec<double>();
  EXPECT_EQ(down, (std::vector<double>{1, 0, -1}));
  EXPECT_EQ(Tensor::linspace(2, 5, 1, {kCpu, DType::F64}).to_vec<double>(),
            (std::vector<double>{2}));
  EXPECT_EQ(Tensor::linspace(2, 5, 0).shape(), (Shape{0}));
  EXPECT_EQ(Tensor::linspace(0, 2, 3, {kCpu, DType::C64}).to_vec<c64>(),
            (std::vector<c64>{0, 1, 2}));
  EXPECT_EQ(Tensor::linspace(0, 1, 2, {Device::cpu(1)}).dtype(), DType::F64);
}

TEST(CreateRange, LinspaceRejectsIntegerDTypesAndNegativeCounts) {
  for (DType d : {DType::I32, DType::U8, DType::Bool, DType::I64}) {
    const Error e = expect_error([&] { Tensor::linspace(0, 1, 3, {kCpu, d}); });
    EXPECT_EQ(e.kind(), ErrorKind::UnsupportedDType);
    EXPECT_EQ(e.op(), "linspace");
    EXPECT_EQ(e.message(), "unsupported dtype " + std::string(tensora::name(d)) +
                               ": linspace needs a float or complex dtype");
    const auto* detail = std::get_if<tensora::UnsupportedDType>(&e.detail());
    ASSERT_NE(detail, nullptr);
    EXPECT_EQ(detail->dtype, d);
  }
  const Error n = expect_error([] { Tensor::linspace(0, 1, -1); });
  EXPECT_EQ(n.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(n.message(), "num must be >= 0, got -1");
}

TEST(CreateRange, Eye) {
  const Tensor i3 = Tensor::eye(3);
  EXPECT_EQ(i3.dtype(), DType::F32);
  EXPECT_EQ(i3.shape(), (Shape{3, 3}));
  EXPECT_EQ(i3.to_vec<float>(), (std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  // Rectangular, column-major: 2x3 has ones at (0,0) and (1,1).
  EXPECT_EQ(Tensor::eye(2, 3, {kCpu, DType::I32}).to_vec<std::int32_t>(),
            (std::vector<std::int32_t>{1, 0, 0, 1, 0, 0}));
  EXPECT_EQ(Tensor::eye(3, 2, {kCpu, DType::I32}).to_vec_row_major<std::int32_t>(),
            (std::vector<std::int32_t>{1, 0, 0, 1, 0, 0}));
  EXPECT_EQ(Tensor::eye(3, 2, {kCpu, DType::I32}).to_vec<std::int32_t>(),
            (std::vector<std::int32_t>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(Tensor::eye(2, {kCpu, DType::Bool}).to_vec<bool>(),
            (std::vector<bool>{true, false, false, true}));
  EXPECT_EQ(Tensor::eye(1, {kCpu, DType::C128}).item<c128>(), c128(1, 0));
  EXPECT_EQ(Tensor::eye(0).shape(), (Shape{0, 0}));
  EXPECT_EQ(Tensor::eye(2, {Device::cpu(1)}).dtype(), DType::F64);
}

// ---- random ------------------------------------------------------------------------------------

TEST(Random, PhiloxMatchesTheRandom123KnownAnswers) {
  using Block = std::array<std::uint32_t, 4>;
  EXPECT_EQ(tensora::philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (Block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(tensora::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                                   {0xffffffff, 0xffffffff}),
            (Block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(tensora::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                                   {0xa4093822, 0x299f31d0}),
            (Block{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
  // Element 0 of seed 0 is the zero block's first 53 bits.
  EXPECT_EQ(Tensor::uniform({1}, 0, {kCpu, DType::F64}).item<double>(), 0.3990464708489645);
}

TEST(Random, SameSeedSameValuesDifferentSeedDifferentValues) {
  const auto a = Tensor::uniform({1000}, 42).to_vec<float>();
  const auto b = Tensor::uniform({1000}, 42).to_vec<float>();
  const auto c = Tensor::uniform({1000}, 43).to_vec<float>();
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  int equal = 0;
  for (std::size_t i = 0; i < a.size(); ++i) equal += a[i] == c[i];
  EXPECT_LT(equal, 5);
  EXPECT_EQ(Tensor::normal({100}, 7).to_vec<float>(), Tensor::normal({100}, 7).to_vec<float>());
  EXPECT_NE(Tensor::normal({100}, 7).to_vec<float>(), Tensor::normal({100}, 8).to_vec<float>());
  // Neighbouring elements differ.
  EXPECT_NE(a[0], a[1]);
}

TEST(Random, DrawsThatOverflowTheDTypeThrow) {
  // F16 tops out at 65504: a finite range beyond it would silently give inf.
  const auto err = tensora_test::expect_error(
      [] { Tensor::uniform({100}, 1, {kCpu, DType::F16}, 0.0, 1e6); });
  EXPECT_EQ(err.kind(), tensora::ErrorKind::InvalidArgument);
  EXPECT_EQ(err.op(), "uniform");
  EXPECT_THAT(err.what(), ::testing::HasSubstr("overflows F16; use a wider dtype or a smaller range"));
  const auto big = tensora_test::expect_error(
      [] { Tensor::normal({1000}, 1, {kCpu, DType::F16}, 0.0, 1e5); });
  EXPECT_EQ(big.op(), "normal");
  EXPECT_THAT(big.what(), ::testing::HasSubstr("overflows F16"));
  // In range, and the same range in F32, are fine.
  const auto ok = Tensor::uniform({100}, 1, {kCpu, DType::F16}, -60000.0, 60000.0).to_vec<tensora::Float16>();
  for (auto v : ok) ASSERT_TRUE(std::isfinite(static_cast<float>(v)));
  EXPECT_NO_THROW(Tensor::uniform({100}, 1, {kCpu, DType::F32}, 0.0, 1e6));
}

TEST(Random, ElementIDependsOnlyOnSeedAndI) {
  const auto flat = Tensor::uniform({6}, 9, {kCpu, DType::F64}).to_vec<double>();
  // The shape and the device do not matter: the counter is the column-major element index.
  EXPECT_EQ(Tensor::uniform({2, 3}, 9, {kCpu, DType::F64}).to_vec<double>(), flat);
  EXPECT_EQ(Tensor::uniform({6}, 9, {Device::cpu(6), DType::F64}).to_vec<double>(), flat);
  const auto prefix = Tensor::uniform({3}, 9, {kCpu, DType::F64}).to_vec<double>();
  EXPECT_EQ(prefix, std::vector<double>(flat.begin(), flat.begin() + 3));
  for (std::size_t i = 0; i < flat.size(); ++i) EXPECT_EQ(flat[i], tensora::philox_uniform(9, i));
}

TEST(Random, UniformStaysWithinBounds) {
  const auto v = Tensor::uniform({20000}, 3, {kCpu, DType::F64}, -2.0, 3.0).to_vec<double>();
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  EXPECT_GE(*lo, -2.0);
  EXPECT_LE(*hi, 3.0);
  EXPECT_LT(*lo, -1.9);  // and covers the range
  EXPECT_GT(*hi, 2.9);
  const auto f = Tensor::uniform({20000}, 3, {kCpu, DType::F32}, 10.0, 11.0).to_vec<float>();
  for (float x : f) ASSERT_TRUE(x >= 10.0f && x <= 11.0f) << x;
  const auto degenerate = Tensor::uniform({4}, 3, {kCpu, DType::F64}, 5.0, 5.0).to_vec<double>();
  EXPECT_EQ(degenerate, std::vector<double>(4, 5.0));
}

TEST(Random, NormalMomentsOf100kSamples) {
  auto moments = [](const std::vector<double>& v) {
    double mean = 0;
    for (double x : v) mean += x;
    mean /= static_cast<double>(v.size());
    double var = 0;
    for (double x : v) var += (x - mean) * (x - mean);
    return std::pair{mean, std::sqrt(var / static_cast<double>(v.size() - 1))};
  };
  // The standard error of the mean is 1/sqrt(1e5) ~ 0.003; tolerances are ~6 of it.
  const auto [m, s] = moments(Tensor::normal({100000}, 11, {kCpu, DType::F64}).to_vec<double>());
  EXPECT_NEAR(m, 0.0, 0.02);
  EXPECT_NEAR(s, 1.0, 0.02);
  const auto [m2, s2] =
      moments(Tensor::normal({100000}, 12, {kCpu, DType::F64}, 2.0, 3.0).to_vec<double>());
  EXPECT_NEAR(m2, 2.0, 0.06);
  EXPECT_NEAR(s2, 3.0, 0.06);
  const auto [mu, su] = moments(Tensor::uniform({100000}, 13, {kCpu, DType::F64}).to_vec<double>());
  EXPECT_NEAR(mu, 0.5, 0.01);
  EXPECT_NEAR(su, std::sqrt(1.0 / 12.0), 0.01);
}

TEST(Random, NarrowerDTypesRoundTheSameDraws) {
  const auto u64 = Tensor::uniform({1000}, 5, {kCpu, DType::F64}).to_vec<double>();
  const auto u32 = Tensor::uniform({1000}, 5, {kCpu, DType::F32}).to_vec<float>();
  const auto u16 = Tensor::uniform({1000}, 5, {kCpu, DType::F16}).to_vec<Float16>();
  const auto ub16 = Tensor::uniform({1000}, 5, {kCpu, DType::BF16}).to_vec<BFloat16>();
  for (std::size_t i = 0; i < u64.size(); ++i) {
    ASSERT_EQ(u32[i], static_cast<float>(u64[i])) << i;
    ASSERT_EQ(u16[i].bits, Float16(u64[i]).bits) << i;
    ASSERT_EQ(ub16[i].bits, BFloat16(u64[i]).bits) << i;
  }
  const auto n64 = Tensor::normal({1000}, 5, {kCpu, DType::F64}, 1.0, 2.0).to_vec<double>();
  const auto n32 = Tensor::normal({1000}, 5, {kCpu, DType::F32}, 1.0, 2.0).to_vec<float>();
  for (std::size_t i = 0; i < n64.size(); ++i) ASSERT_EQ(n32[i], static_cast<float>(n64[i])) << i;
  // The default is the device's float dtype.
  EXPECT_EQ(Tensor::uniform({2}, 5).dtype(), DType::F32);
  EXPECT_EQ(Tensor::normal({2}, 5, {Device::cpu(1)}).dtype(), DType::F64);
}

TEST(Random, RejectsNonFloatDTypesAndBadParameters) {
  for (DType d : {DType::I32, DType::U8, DType::Bool, DType::C64}) {
    for (const char* op : {"uniform", "normal"}) {
      SCOPED_TRACE(std::string(op) + " " + std::string(tensora::name(d)));
      const Error e = expect_error([&] {
        if (std::string(op) == "uniform")
          Tensor::uniform({2}, 1, {kCpu, d});
        else
          Tensor::normal({2}, 1, {kCpu, d});
      });
      EXPECT_EQ(e.kind(), ErrorKind::UnsupportedDType);
      EXPECT_EQ(e.op(), op);
      EXPECT_EQ(e.message(), "unsupported dtype " + std::string(tensora::name(d)) +
                                 ": random numbers need a float dtype");
      EXPECT_EQ(std::get<tensora::UnsupportedDType>(e.detail()).dtype, d);
    }
  }
  const Error u = expect_error([] { Tensor::uniform({2}, 1, {kCpu}, 1.0, 0.0); });
  EXPECT_EQ(u.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(u.message(), "needs finite low <= high");
  EXPECT_EQ(expect_error([] { Tensor::uniform({2}, 1, {kCpu}, 0.0, INFINITY); }).kind(),
            ErrorKind::InvalidArgument);
  const Error n = expect_error([] { Tensor::normal({2}, 1, {kCpu}, 0.0, -1.0); });
  EXPECT_EQ(n.kind(), ErrorKind::InvalidArgument);
  EXPECT_EQ(n.message(), "needs a finite mean and stddev >= 0");
  EXPECT_EQ(expect_error([] { Tensor::normal({2}, 1, {kCpu}, NAN, 1.0); }).kind(),
            ErrorKind::InvalidArgument);
}

// ---- TypedTensor --------------------------------------------------------------------------------

TEST(TypedCreate, DTypeIsAlwaysTheElementType) {
  const auto d = TypedTensor<double>::from_vec_col_major({2}, {1.0, 2.0});
  static_assert(TypedTensor<double>::dtype() == DType::F64);
  EXPECT_EQ(d.dtype(), DType::F64);
  EXPECT_EQ(d.device(), Device::default_device());
  EXPECT_EQ(d.to_vec(), (std::vector<double>{1, 2}));
  // Even on the F64 device, TypedTensor<float> is F32.
  const auto z = TypedTensor<float>::zeros({2, 2}, Device::cpu(1));
  EXPECT_EQ(z.tensor().dtype(), DType::F32);
  EXPECT_EQ(z.device(), Device::cpu(1));
  EXPECT_EQ(z.shape(), (Shape{2, 2}));
  EXPECT_EQ(TypedTensor<std::int32_t>::arange(0, 4).to_vec(),
            (std::vector<std::int32_t>{0, 1, 2, 3}));
  EXPECT_EQ(TypedTensor<std::int8_t>::full({2}, 5).to_vec(), (std::vector<std::int8_t>{5, 5}));
  EXPECT_EQ(TypedTensor<bool>::full({1}, true).item(), true);
  EXPECT_EQ(TypedTensor<std::uint16_t>::ones({3}).to_vec(), (std::vector<std::uint16_t>{1, 1, 1}));
  EXPECT_EQ(TypedTensor<double>::linspace(0, 1, 3).to_vec(), (std::vector<double>{0, 0.5, 1}));
  EXPECT_EQ(TypedTensor<float>::eye(2).to_vec(), (std::vector<float>{1, 0, 0, 1}));
  EXPECT_EQ(TypedTensor<std::int64_t>::from_vec_row_major({2, 2}, {1, 2, 3, 4}).to_vec(),
            (std::vector<std::int64_t>{1, 3, 2, 4}));
  EXPECT_EQ(TypedTensor<double>::uniform({4}, 2).to_vec(),
            Tensor::uniform({4}, 2, {kCpu, DType::F64}).to_vec<double>());
  EXPECT_EQ(TypedTensor<float>::normal({4}, 2).to_vec(),
            Tensor::normal({4}, 2, {kCpu, DType::F32}).to_vec<float>());
  EXPECT_EQ(expect_error([] { TypedTensor<std::int32_t>::linspace(0, 1, 3); }).kind(),
            ErrorKind::UnsupportedDType);
  EXPECT_EQ(expect_error([] { TypedTensor<std::uint8_t>::arange(0, 300); }).kind(),
            ErrorKind::InvalidArgument);
}

TEST(TypedCreate, TypedChecksTheDTypeAndErasureKeepsTheStorage) {
  const Tensor t = Tensor::from_floats({1.0, 2.0});  // F32
  const TypedTensor<float> typed = t.typed<float>();
  EXPECT_EQ(typed.to_vec(), (std::vector<float>{1, 2}));
  EXPECT_TRUE(typed.tensor().shares_storage_with(t));

  const int line = __LINE__ + 1;
  const Error e = expect_error([&] { (void)t.typed<double>(); });
  EXPECT_EQ(e.kind(), ErrorKind::Validation);
  EXPECT_EQ(e.op(), "typed");
  const auto* d = std::get_if<tensora::DTypeMismatch>(&e.detail());
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->expected, DType::F32);  // the tensor's dtype
  EXPECT_EQ(d->actual, DType::F64);    // the one asked for
  EXPECT_THAT(e.what(), HasSubstr("typed: dtype mismatch: expected F32, actual F64"));
  EXPECT_THAT(e.what(), HasSubstr("(at test_tensor_create.cpp:" + std::to_string(line) + ")"));

  // Tensor(typed) erases the type and shares the storage.
  const Tensor erased(typed);
  EXPECT_EQ(erased.dtype(), DType::F32);
  EXPECT_TRUE(erased.shares_storage_with(t));
  const Tensor assigned = TypedTensor<std::int16_t>::zeros({3});
  EXPECT_EQ(assigned.dtype(), DType::I16);
  EXPECT_EQ(assigned.shape(), (Shape{3}));

  EXPECT_EQ(expect_error([] { (void)Tensor().typed<float>(); }).kind(), ErrorKind::InvalidArgument);
}

}  // namespace
