// The 15 dtypes, their properties, and the promotion lattice against the spec table
// (../shared/promotion-table.md, embedded below verbatim).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "core/value_cast.hpp"
#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

using tensora::BFloat16;
using tensora::DType;
using tensora::DTypeKind;
using tensora::Float16;
using tensora::kAllDTypes;
using tensora::LatticeType;

// ---- names, kinds, sizes, C++ types ----------------------------------------------------

struct DTypeRow {
  DType dtype;
  const char* name;
  DTypeKind kind;
  std::size_t size;
};

constexpr DTypeRow kRows[] = {
    {DType::Bool, "Bool", DTypeKind::Bool, 1},      {DType::I8, "I8", DTypeKind::SignedInt, 1},
    {DType::I16, "I16", DTypeKind::SignedInt, 2},   {DType::I32, "I32", DTypeKind::SignedInt, 4},
    {DType::I64, "I64", DTypeKind::SignedInt, 8},   {DType::U8, "U8", DTypeKind::UnsignedInt, 1},
    {DType::U16, "U16", DTypeKind::UnsignedInt, 2}, {DType::U32, "U32", DTypeKind::UnsignedInt, 4},
    {DType::U64, "U64", DTypeKind::UnsignedInt, 8}, {DType::F16, "F16", DTypeKind::Float, 2},
    {DType::BF16, "BF16", DTypeKind::Float, 2},     {DType::F32, "F32", DTypeKind::Float, 4},
    {DType::F64, "F64", DTypeKind::Float, 8},       {DType::C64, "C64", DTypeKind::Complex, 8},
    {DType::C128, "C128", DTypeKind::Complex, 16},
};

TEST(DType, NamesKindsAndSizes) {
  ASSERT_EQ(std::size(kRows), static_cast<std::size_t>(tensora::kNumDTypes));
  for (int i = 0; i < tensora::kNumDTypes; ++i) {
    const auto& row = kRows[i];
    SCOPED_TRACE(row.name);
    EXPECT_EQ(kAllDTypes[i], row.dtype);  // kAllDTypes is in enum order
    EXPECT_EQ(tensora::name(row.dtype), row.name);
    EXPECT_EQ(tensora::kind(row.dtype), row.kind);
    EXPECT_EQ(tensora::size_of(row.dtype), row.size);
    EXPECT_EQ(tensora::is_integer(row.dtype),
              row.kind == DTypeKind::SignedInt || row.kind == DTypeKind::UnsignedInt);
    EXPECT_EQ(tensora::is_floating(row.dtype), row.kind == DTypeKind::Float);
    EXPECT_EQ(tensora::is_complex(row.dtype), row.kind == DTypeKind::Complex);
    EXPECT_EQ(tensora::is_inexact(row.dtype),
              row.kind == DTypeKind::Float || row.kind == DTypeKind::Complex);
  }
}

TEST(DType, KindNames) {
  EXPECT_EQ(tensora::name(DTypeKind::Bool), "bool");
  EXPECT_EQ(tensora::name(DTypeKind::SignedInt), "signed int");
  EXPECT_EQ(tensora::name(DTypeKind::UnsignedInt), "unsigned int");
  EXPECT_EQ(tensora::name(DTypeKind::Float), "float");
  EXPECT_EQ(tensora::name(DTypeKind::Complex), "complex");
}

TEST(DType, RealAndComplexCounterparts) {
  EXPECT_EQ(tensora::real_dtype(DType::C64), DType::F32);
  EXPECT_EQ(tensora::real_dtype(DType::C128), DType::F64);
  EXPECT_EQ(tensora::real_dtype(DType::F16), DType::F16);
  EXPECT_EQ(tensora::real_dtype(DType::I32), DType::I32);
  EXPECT_EQ(tensora::complex_dtype(DType::F64), DType::C128);
  EXPECT_EQ(tensora::complex_dtype(DType::F32), DType::C64);
  EXPECT_EQ(tensora::complex_dtype(DType::F16), DType::C64);
  EXPECT_EQ(tensora::complex_dtype(DType::BF16), DType::C64);
  EXPECT_EQ(tensora::complex_dtype(DType::C128), DType::C128);
}

// dtype_of<T>() and element_t<D> are inverse to each other for all 15 element types.
template <class T, DType D>
constexpr bool round_trips() {
  return tensora::dtype_of<T>() == D && std::is_same_v<tensora::element_t<D>, T> &&
         tensora::dtype_of<const T>() == D && tensora::Element<T>;
}
static_assert(round_trips<bool, DType::Bool>());
static_assert(round_trips<std::int8_t, DType::I8>());
static_assert(round_trips<std::int16_t, DType::I16>());
static_assert(round_trips<std::int32_t, DType::I32>());
static_assert(round_trips<std::int64_t, DType::I64>());
static_assert(round_trips<std::uint8_t, DType::U8>());
static_assert(round_trips<std::uint16_t, DType::U16>());
static_assert(round_trips<std::uint32_t, DType::U32>());
static_assert(round_trips<std::uint64_t, DType::U64>());
static_assert(round_trips<Float16, DType::F16>());
static_assert(round_trips<BFloat16, DType::BF16>());
static_assert(round_trips<float, DType::F32>());
static_assert(round_trips<double, DType::F64>());
static_assert(round_trips<std::complex<float>, DType::C64>());
static_assert(round_trips<std::complex<double>, DType::C128>());
static_assert(!tensora::Element<std::string>);
static_assert(!tensora::Element<char>);
static_assert(!tensora::Element<long double>);

// The C++ type of each dtype has the dtype's size.
TEST(DType, ElementTypeSizes) {
  auto check = [&]<DType D>() {
    EXPECT_EQ(sizeof(tensora::element_t<D>), tensora::size_of(D)) << tensora::name(D);
  };
  check.operator()<DType::Bool>();
  check.operator()<DType::I8>();
  check.operator()<DType::I16>();
  check.operator()<DType::I32>();
  check.operator()<DType::I64>();
  check.operator()<DType::U8>();
  check.operator()<DType::U16>();
  check.operator()<DType::U32>();
  check.operator()<DType::U64>();
  check.operator()<DType::F16>();
  check.operator()<DType::BF16>();
  check.operator()<DType::F32>();
  check.operator()<DType::F64>();
  check.operator()<DType::C64>();
  check.operator()<DType::C128>();
}

// ---- the promotion table -----------------------------------------------------------------

// Copied verbatim from ../shared/promotion-table.md (row ⊔ column).
constexpr const char* kSpecTable = R"(
| | Bool | I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64 | F16 | BF16 | F32 | F64 | C64 | C128 |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
| **Bool** | Bool | I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64 | F16 | BF16 | F32 | F64 | C64 | C128 |
| **I8** | I8 | I8 | I16 | I32 | I64 | I16 | I32 | I64 | F* | F16 | BF16 | F32 | F64 | C64 | C128 |
| **I16** | I16 | I16 | I16 | I32 | I64 | I16 | I32 | I64 | F* | F16 | BF16 | F32 | F64 | C64 | C128 |
| **I32** | I32 | I32 | I32 | I32 | I64 | I32 | I32 | I64 | F* | F16 | BF16 | F32 | F64 | C64 | C128 |
| **I64** | I64 | I64 | I64 | I64 | I64 | I64 | I64 | I64 | F* | F16 | BF16 | F32 | F64 | C64 | C128 |
| **U8** | U8 | I16 | I16 | I32 | I64 | U8 | U16 | U32 | U64 | F16 | BF16 | F32 | F64 | C64 | C128 |
| **U16** | U16 | I32 | I32 | I32 | I64 | U16 | U16 | U32 | U64 | F16 | BF16 | F32 | F64 | C64 | C128 |
| **U32** | U32 | I64 | I64 | I64 | I64 | U32 | U32 | U32 | U64 | F16 | BF16 | F32 | F64 | C64 | C128 |
| **U64** | U64 | F* | F* | F* | F* | U64 | U64 | U64 | U64 | F16 | BF16 | F32 | F64 | C64 | C128 |
| **F16** | F16 | F16 | F16 | F16 | F16 | F16 | F16 | F16 | F16 | F16 | F32 | F32 | F64 | C64 | C128 |
| **BF16** | BF16 | BF16 | BF16 | BF16 | BF16 | BF16 | BF16 | BF16 | BF16 | F32 | BF16 | F32 | F64 | C64 | C128 |
| **F32** | F32 | F32 | F32 | F32 | F32 | F32 | F32 | F32 | F32 | F32 | F32 | F32 | F64 | C64 | C128 |
| **F64** | F64 | F64 | F64 | F64 | F64 | F64 | F64 | F64 | F64 | F64 | F64 | F64 | F64 | C128 | C128 |
| **C64** | C64 | C64 | C64 | C64 | C64 | C64 | C64 | C64 | C64 | C64 | C64 | C64 | C128 | C64 | C128 |
| **C128** | C128 | C128 | C128 | C128 | C128 | C128 | C128 | C128 | C128 | C128 | C128 | C128 | C128 | C128 | C128 |
)";

// One cell: a DType, or F* (the virtual float bottom).
struct Cell {
  bool float_bottom = false;
  DType dtype = DType::Bool;
};

DType parse_dtype(const std::string& s) {
  for (DType d : kAllDTypes)
    if (tensora::name(d) == s) return d;
  ADD_FAILURE() << "unknown dtype name in the spec table: '" << s << "'";
  return DType::Bool;
}

std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, '|')) {
    const auto b = cell.find_first_not_of(' ');
    const auto e = cell.find_last_not_of(' ');
    cell = b == std::string::npos ? "" : cell.substr(b, e - b + 1);
    // Row headers are bold: **U8**.
    if (cell.size() > 4 && cell.starts_with("**") && cell.ends_with("**"))
      cell = cell.substr(2, cell.size() - 4);
    cells.push_back(cell);
  }
  // "| a | b |" splits into "", "a", "b": drop the leading empty cell.
  if (!cells.empty() && cells.front().empty()) cells.erase(cells.begin());
  return cells;
}

struct SpecTable {
  std::vector<DType> columns;
  std::map<std::pair<DType, DType>, Cell> cells;
};

SpecTable parse_spec() {
  SpecTable t;
  std::istringstream in(kSpecTable);
  std::string line;
  bool header_seen = false;
  while (std::getline(in, line)) {
    if (line.empty() || line.starts_with("|---")) continue;
    auto cells = split_row(line);
    if (!header_seen) {
      header_seen = true;
      for (std::size_t c = 1; c < cells.size(); ++c) t.columns.push_back(parse_dtype(cells[c]));
      continue;
    }
    const DType row = parse_dtype(cells.at(0));
    EXPECT_EQ(cells.size(), t.columns.size() + 1) << line;
    for (std::size_t c = 1; c < cells.size() && c <= t.columns.size(); ++c) {
      Cell cell;
      if (cells[c] == "F*")
        cell.float_bottom = true;
      else
        cell.dtype = parse_dtype(cells[c]);
      t.cells[{row, t.columns[c - 1]}] = cell;
    }
  }
  return t;
}

const SpecTable& spec() {
  static const SpecTable t = parse_spec();
  return t;
}

TEST(Promotion, SpecTableIsComplete) {
  EXPECT_EQ(spec().columns.size(), 15u);
  EXPECT_EQ(spec().cells.size(), 225u);
  int f_star = 0;
  for (const auto& [key, cell] : spec().cells) f_star += cell.float_bottom;
  EXPECT_EQ(f_star, 8);  // U64 with each of the four signed integers, both ways round
}

TEST(Promotion, PromoteTypesMatchesTheFullTable) {
  const tensora::Device cpu0 = tensora::Device::cpu(0);
  const DType float_default = cpu0.settings().float_dtype;
  ASSERT_EQ(float_default, DType::F32);  // cpu:0 is never configured (see test_support.hpp)
  for (DType a : kAllDTypes)
    for (DType b : kAllDTypes) {
      SCOPED_TRACE(std::string(tensora::name(a)) + " ⊔ " + std::string(tensora::name(b)));
      const Cell& cell = spec().cells.at({a, b});
      const LatticeType j = tensora::join(a, b);
      if (cell.float_bottom) {
        EXPECT_EQ(j, LatticeType::float_bottom());
        EXPECT_TRUE(j.is_float_bottom());
        EXPECT_EQ(tensora::promote_types(a, b, cpu0), DType::F32);
        EXPECT_EQ(j.resolve(DType::F16), DType::F16);
      } else {
        EXPECT_EQ(j, LatticeType(cell.dtype));
        EXPECT_FALSE(j.is_float_bottom());
        EXPECT_EQ(tensora::promote_types(a, b, cpu0), cell.dtype);
      }
      // Without a device, F* resolves on Device::default_device().
      EXPECT_EQ(tensora::promote_types(a, b),
                tensora::promote_types(a, b, tensora::Device::default_device()));
    }
}

TEST(Promotion, FloatBottomResolvesToTheDeviceFloatDefault) {
  // cpu:1 is configured to F64 for the whole test binary (test_support.hpp).
  const tensora::Device f64_device = tensora::Device::cpu(tensora_test::kF64Device);
  ASSERT_EQ(f64_device.settings().float_dtype, DType::F64);
  EXPECT_EQ(tensora::promote_types(DType::U64, DType::I8, f64_device), DType::F64);
  EXPECT_EQ(tensora::promote_types(DType::I64, DType::U64, f64_device), DType::F64);
  // Only F* depends on the device.
  EXPECT_EQ(tensora::promote_types(DType::I32, DType::F16, f64_device), DType::F16);
  EXPECT_EQ(tensora::promote_types(DType::U64, DType::U8, f64_device), DType::U64);
  {
    tensora_test::ScopedEnv env("TENSORA_DEVICE", "cpu:1");
    EXPECT_EQ(tensora::promote_types(DType::U64, DType::I16), DType::F64);
  }
  {
    tensora_test::ScopedEnv env("TENSORA_DEVICE", nullptr);
    EXPECT_EQ(tensora::promote_types(DType::U64, DType::I16), DType::F32);
  }
}

TEST(Promotion, NamedCasesFromTheDesign) {
  const auto cpu = tensora::Device::cpu();
  EXPECT_EQ(tensora::promote_types(DType::I32, DType::F32, cpu), DType::F32);
  EXPECT_EQ(tensora::promote_types(DType::I64, DType::F16, cpu), DType::F16);
  EXPECT_EQ(tensora::promote_types(DType::F16, DType::BF16, cpu), DType::F32);
  EXPECT_EQ(tensora::promote_types(DType::U8, DType::I8, cpu), DType::I16);
  EXPECT_EQ(tensora::promote_types(DType::F64, DType::C64, cpu), DType::C128);
  EXPECT_EQ(tensora::promote_types(DType::U32, DType::I32, cpu), DType::I64);
  EXPECT_EQ(tensora::promote_types(DType::Bool, DType::Bool, cpu), DType::Bool);
  EXPECT_TRUE(tensora::join(DType::U64, DType::I8).is_float_bottom());
}

// ---- algebraic laws --------------------------------------------------------------------------

std::vector<LatticeType> all_lattice_points() {
  std::vector<LatticeType> points(std::begin(kAllDTypes), std::end(kAllDTypes));
  points.push_back(LatticeType::float_bottom());
  return points;
}

TEST(Promotion, Commutative) {
  for (DType a : kAllDTypes)
    for (DType b : kAllDTypes) {
      EXPECT_EQ(tensora::promote_types(a, b), tensora::promote_types(b, a))
          << tensora::name(a) << ", " << tensora::name(b);
    }
  for (LatticeType a : all_lattice_points())
    for (LatticeType b : all_lattice_points())
      EXPECT_EQ(tensora::join(a, b), tensora::join(b, a)) << a.index() << ", " << b.index();
}

TEST(Promotion, JoinIsIdempotentAndBoolIsTheBottom) {
  for (LatticeType a : all_lattice_points()) {
    EXPECT_EQ(tensora::join(a, a), a) << a.index();
    EXPECT_EQ(tensora::join(a, DType::Bool), a) << a.index();
    EXPECT_EQ(tensora::join(a, DType::C128), LatticeType(DType::C128)) << a.index();
  }
}

TEST(Promotion, FloatBottomSitsBetweenIntegersAndF16BF16) {
  const LatticeType fb = LatticeType::float_bottom();
  for (DType d : kAllDTypes) {
    SCOPED_TRACE(tensora::name(d));
    if (tensora::is_integer(d) || d == DType::Bool)
      EXPECT_EQ(tensora::join(fb, d), fb);
    else
      EXPECT_EQ(tensora::join(fb, d), LatticeType(d));
  }
  EXPECT_EQ(fb.resolve(DType::F64), DType::F64);
  EXPECT_EQ(LatticeType(DType::I8).resolve(DType::F64), DType::I8);
}

TEST(Promotion, JoinIsAssociativeOverAllTriplesIncludingFloatBottom) {
  const auto points = all_lattice_points();
  ASSERT_EQ(points.size(), 16u);
  int checked = 0;
  for (LatticeType a : points)
    for (LatticeType b : points)
      for (LatticeType c : points) {
        ASSERT_EQ(tensora::join(tensora::join(a, b), c), tensora::join(a, tensora::join(b, c)))
            << a.index() << ", " << b.index() << ", " << c.index();
        ++checked;
      }
  EXPECT_EQ(checked, 16 * 16 * 16);
}

// promote_types materializes F* after every step, so a chain of binary promotions is only
// associative away from F*; the n-ary join (above) is the associative one.
TEST(Promotion, PromoteTypesIsAssociativeExceptThroughFloatBottom) {
  const auto cpu = tensora::Device::cpu();
  int broken = 0;
  for (DType a : kAllDTypes)
    for (DType b : kAllDTypes)
      for (DType c : kAllDTypes) {
        const DType left = tensora::promote_types(tensora::promote_types(a, b, cpu), c, cpu);
        const DType right = tensora::promote_types(a, tensora::promote_types(b, c, cpu), cpu);
        if (left == right) continue;
        ++broken;
        EXPECT_TRUE(tensora::join(a, b).is_float_bottom() || tensora::join(b, c).is_float_bottom())
            << tensora::name(a) << ", " << tensora::name(b) << ", " << tensora::name(c);
        // The join of all three is what an n-ary promotion gives.
        const DType joined = tensora::join(tensora::join(a, b), c).resolve(DType::F32);
        EXPECT_TRUE(joined == left || joined == right);
      }
  EXPECT_GT(broken, 0);
  // The example of the spec: (U64 ⊔ I8) ⊔ F16 = F16 = U64 ⊔ (I8 ⊔ F16).
  EXPECT_EQ(tensora::join(tensora::join(DType::U64, DType::I8), DType::F16),
            LatticeType(DType::F16));
  EXPECT_EQ(tensora::join(DType::U64, tensora::join(DType::I8, DType::F16)),
            LatticeType(DType::F16));
  EXPECT_EQ(
      tensora::promote_types(tensora::promote_types(DType::U64, DType::I8, cpu), DType::F16, cpu),
      DType::F32);
}

TEST(Promotion, CanConvertIsPromoteToTheTarget) {
  for (DType from : kAllDTypes)
    for (DType to : kAllDTypes) {
      SCOPED_TRACE(std::string(tensora::name(from)) + " -> " + std::string(tensora::name(to)));
      EXPECT_EQ(tensora::can_convert(from, to), tensora::promote_types(from, to) == to);
      const Cell& cell = spec().cells.at({from, to});
      EXPECT_EQ(tensora::can_convert(from, to), !cell.float_bottom && cell.dtype == to);
    }
  EXPECT_TRUE(tensora::can_convert(DType::I32, DType::I64));
  EXPECT_TRUE(tensora::can_convert(DType::I64, DType::F16));  // the lattice says so, lossy or not
  EXPECT_TRUE(tensora::can_convert(DType::F32, DType::C64));
  EXPECT_FALSE(tensora::can_convert(DType::F64, DType::F32));
  EXPECT_FALSE(tensora::can_convert(DType::F16, DType::BF16));
  EXPECT_FALSE(tensora::can_convert(DType::U64, DType::I64));
  EXPECT_FALSE(tensora::can_convert(DType::F64, DType::C64));
}

// ---- element conversion rules (cast_value: cast(); exact_value: creation)
// ------------------------- docs/dtypes.md documents these; the cast() op applies cast_value to
// every element.

TEST(CastValue, FloatToIntegerTruncatesSaturatesAndMapsNaNToZero) {
  using tensora::cast_value;
  EXPECT_EQ(cast_value<std::int32_t>(2.7), 2);
  EXPECT_EQ(cast_value<std::int32_t>(-2.7), -2);
  EXPECT_EQ(cast_value<std::int32_t>(1e10), std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(cast_value<std::int32_t>(-1e10), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(cast_value<std::uint8_t>(-1.0), 0);
  EXPECT_EQ(cast_value<std::uint8_t>(255.9), 255);
  EXPECT_EQ(cast_value<std::uint8_t>(256.0), 255);
  EXPECT_EQ(cast_value<std::int64_t>(INFINITY), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(cast_value<std::int64_t>(-INFINITY), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(cast_value<std::int64_t>(9223372036854775808.0),
            std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(cast_value<std::uint64_t>(18446744073709551616.0),
            std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(cast_value<std::int32_t>(std::nan("")), 0);
  EXPECT_EQ(cast_value<std::uint16_t>(std::nanf("")), 0);
  EXPECT_EQ(cast_value<std::int8_t>(Float16(-3.5f)), -3);
  EXPECT_EQ(cast_value<std::int16_t>(BFloat16(1e30f)), std::numeric_limits<std::int16_t>::max());
}

TEST(CastValue, IntegerToIntegerWrapsModuloTwoToTheBits) {
  using tensora::cast_value;
  EXPECT_EQ(cast_value<std::uint8_t>(std::int32_t{300}), 44);
  EXPECT_EQ(cast_value<std::uint16_t>(std::int64_t{-1}), 65535);
  EXPECT_EQ(cast_value<std::int32_t>(std::int64_t{1} << 31),
            std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(cast_value<std::int8_t>(std::uint64_t{255}), -1);
}

TEST(CastValue, BoolComplexAndFloatRules) {
  using tensora::cast_value;
  using c64 = std::complex<float>;
  using c128 = std::complex<double>;
  EXPECT_TRUE(cast_value<bool>(std::nan("")));
  EXPECT_TRUE(cast_value<bool>(-0.5));
  EXPECT_FALSE(cast_value<bool>(-0.0));
  EXPECT_TRUE(cast_value<bool>(c64(0, 1)));
  EXPECT_FALSE(cast_value<bool>(Float16(0.0f)));
  EXPECT_EQ(cast_value<double>(true), 1.0);
  EXPECT_EQ(cast_value<std::int32_t>(false), 0);
  // complex -> real keeps the real part; real -> complex has a zero imaginary part.
  EXPECT_EQ(cast_value<double>(c128(1.5, -2)), 1.5);
  EXPECT_EQ(cast_value<std::int32_t>(c64(-2.5f, 9)), -2);
  EXPECT_EQ(cast_value<c128>(std::int32_t{3}), c128(3, 0));
  EXPECT_EQ(cast_value<c64>(c128(0.1, 1e300)), c64(0.1f, INFINITY));
  // F64 -> F16 rounds once, to nearest even, and overflows to inf.
  EXPECT_EQ(cast_value<Float16>(0.1).bits, Float16(0.1).bits);
  const double just_above_tie =
      1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);  // through F32 would tie
  EXPECT_EQ(cast_value<Float16>(just_above_tie).bits, 0x3c01);
  EXPECT_EQ(cast_value<Float16>(1e6).bits, 0x7c00);
  EXPECT_EQ(cast_value<float>(1e300), INFINITY);
  EXPECT_EQ(cast_value<float>(std::int64_t{(1 << 24) + 1}), 16777216.0f);
  EXPECT_EQ(cast_value<BFloat16>(Float16(1.5f)).bits, BFloat16(1.5f).bits);
  EXPECT_EQ(cast_value<Float16>(std::int32_t{100000}).bits, 0x7c00);
}

// An integer with more than 53 significant bits rounds once into F16/BF16 (not through double).
TEST(CastValue, WideIntegersRoundOnceIntoSixteenBitFloats) {
  using tensora::cast_value;
  const std::int64_t v =
      (std::int64_t{1} << 62) + (std::int64_t{1} << 54) + 1;  // just above a BF16 tie
  EXPECT_EQ(cast_value<BFloat16>(v).bits, BFloat16(std::ldexp(1.0, 62) + std::ldexp(1.0, 55)).bits);
  EXPECT_EQ(cast_value<BFloat16>(-v).bits,
            BFloat16(-(std::ldexp(1.0, 62) + std::ldexp(1.0, 55))).bits);
  EXPECT_EQ(cast_value<BFloat16>(std::numeric_limits<std::int64_t>::min()).bits,
            BFloat16(-std::ldexp(1.0, 63)).bits);
  EXPECT_EQ(cast_value<BFloat16>(std::numeric_limits<std::uint64_t>::max()).bits,
            BFloat16(std::ldexp(1.0, 64)).bits);
  EXPECT_EQ(cast_value<Float16>(std::numeric_limits<std::int64_t>::max()).bits, 0x7c00);
  // Exhaustively near a tie: every offset below, at and above the midpoint.
  for (std::int64_t d = -3; d <= 3; ++d) {
    const std::int64_t x = (std::int64_t{1} << 62) + (std::int64_t{1} << 54) + d;
    const std::uint16_t expected = d > 0 ? BFloat16(std::ldexp(1.0, 62) + std::ldexp(1.0, 55)).bits
                                         : BFloat16(std::ldexp(1.0, 62)).bits;
    EXPECT_EQ(cast_value<BFloat16>(x).bits, expected) << d;
  }
}

TEST(ExactValue, CreationRefusesLoss) {
  using tensora::exact_value;
  std::int32_t i = 0;
  EXPECT_TRUE(exact_value<std::int32_t>(3.0, i));
  EXPECT_EQ(i, 3);
  EXPECT_FALSE(exact_value<std::int32_t>(3.5, i));
  EXPECT_FALSE(exact_value<std::int32_t>(std::int64_t{1} << 40, i));
  EXPECT_FALSE(exact_value<std::int32_t>(std::nan(""), i));
  float f = 0;
  EXPECT_TRUE(exact_value<float>(0.1, f));  // rounding to a float target is allowed
  EXPECT_EQ(f, 0.1f);
  EXPECT_FALSE(exact_value<float>(1e300, f));  // overflow to inf is not
  EXPECT_TRUE(exact_value<float>(INFINITY, f));
  bool b = false;
  EXPECT_TRUE(exact_value<bool>(std::int64_t{1}, b));
  EXPECT_FALSE(exact_value<bool>(std::int64_t{2}, b));
  double d = 0;
  EXPECT_FALSE(exact_value<double>(std::complex<double>(1, 1), d));
  EXPECT_TRUE(exact_value<double>(std::complex<double>(1, 0), d));
}

}  // namespace
