// Structural ops: concat, stack, split, pad, reverse, take_along_axis / gather, index_select,
// scatter_add, tril / triu, diagonal and embed_diag. Every op is checked against a plain loop
// over indices, on contiguous, transposed, negative-step and broadcast inputs of several dtypes;
// every op has bad-input tests; the copying ops give the same bits on every engine.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

using ::testing::HasSubstr;
using tensora::CpuEngine;
using tensora::Device;
using tensora::DType;
using tensora::Error;
using tensora::ErrorKind;
using tensora::Float16;
using tensora::PadMode;
using tensora::PadOptions;
using tensora::Scalar;
using tensora::Shape;
using tensora::Tensor;
using tensora_test::expect_error;
using c128 = std::complex<double>;
using Index = std::vector<std::int64_t>;

const Device kCpu = Device::cpu();
const Device kCpu1 = Device::cpu(tensora_test::kF64Device);  // only with explicit dtypes

// ---- helpers ------------------------------------------------------------------------------

// Column-major multi-index of a linear position, and back.
Index unravel(std::int64_t lin, const Shape& s) {
  Index idx(s.size());
  for (std::size_t d = 0; d < s.size(); ++d) {
    idx[d] = lin % s[d];
    lin /= s[d];
  }
  return idx;
}

std::int64_t ravel(const Index& idx, const Shape& s) {
  std::int64_t lin = 0, mul = 1;
  for (std::size_t d = 0; d < s.size(); ++d) {
    lin += idx[d] * mul;
    mul *= s[d];
  }
  return lin;
}

template <class T>
T value_at(std::int64_t i) {
  if constexpr (std::is_same_v<T, bool>) return i % 3 == 0;
  else if constexpr (std::is_same_v<T, Float16>) return Float16(static_cast<float>(i % 29) * 0.25f - 3.0f);
  else if constexpr (std::is_same_v<T, c128>) return c128(static_cast<double>(i) * 0.5 - 3.0, 1.0 - static_cast<double>(i) * 0.125);
  else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(i % 101) * T(0.75) - T(7);
  else if constexpr (std::is_signed_v<T>) return static_cast<T>(i % 41 - 20);
  else return static_cast<T>(i % 53);
}

template <class T>
std::vector<T> values(std::int64_t n, std::int64_t seed) {
  std::vector<T> v;
  v.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v.push_back(value_at<T>(i + seed));
  return v;
}

template <class T>
Tensor make(const Shape& s, std::int64_t seed = 0) {
  return Tensor::from_vec_col_major(s, values<T>(tensora::numel(s), seed), {kCpu});
}

// The same logical shape in four memory layouts (fewer for rank 0 / 1).
template <class T>
std::vector<std::pair<std::string, Tensor>> layouts(const Shape& s, std::int64_t seed = 0) {
  std::vector<std::pair<std::string, Tensor>> out;
  out.emplace_back("contiguous", make<T>(s, seed));
  if (s.size() >= 2) out.emplace_back("transposed", make<T>(Shape(s.rbegin(), s.rend()), seed).transpose());
  if (!s.empty() && s[0] > 0) {
    Shape b = s;
    b[0] = 2 * s[0];
    out.emplace_back("negative_step", make<T>(b, seed).slice(0, std::nullopt, std::nullopt, -2));
  }
  if (!s.empty()) {
    Shape b = s;
    b[0] = 1;
    out.emplace_back("broadcast", make<T>(b, seed).broadcast_to(s));
  }
  for (const auto& [name, t] : out) EXPECT_EQ(t.shape(), s) << name;
  return out;
}

template <class T>
bool same_bits(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, bool>) return a == b;
  else return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
void expect_values(const Tensor& got, const Shape& shape, const std::vector<T>& want) {
  ASSERT_EQ(got.dtype(), tensora::dtype_of<T>());
  ASSERT_EQ(got.shape(), shape);
  const std::vector<T> v = got.template to_vec<T>();
  ASSERT_EQ(v.size(), want.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!same_bits<T>(v[i], want[i])) {
      ADD_FAILURE() << "element " << i << " (index " << tensora::to_string(unravel(static_cast<std::int64_t>(i), shape))
                    << ") differs from the reference";
      return;
    }
}

void expect_same_bits(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  const std::size_t bytes = static_cast<std::size_t>(a.numel()) * tensora::size_of(a.dtype());
  std::vector<unsigned char> x(bytes), y(bytes);
  a.copy_to_buffer(x.data(), tensora::Layout::ColMajor);
  b.copy_to_buffer(y.data(), tensora::Layout::ColMajor);
  EXPECT_TRUE(x == y);
}

template <class T>
std::string type_name() {
  return std::string(tensora::name(tensora::dtype_of<T>()));
}

// Calls f.template operator()<T>() for each T.
template <class... Ts, class F>
void for_types(F&& f) {
  (f.template operator()<Ts>(), ...);
}
#define STRUCTURAL_TYPES bool, std::int8_t, Float16, c128, float, std::int64_t

template <class T>
T add_ref(T a, T b) {
  if constexpr (std::is_same_v<T, Float16>) return Float16(static_cast<float>(a) + static_cast<float>(b));
  else if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else return a + b;
}

Tensor index_tensor(const Shape& s, const std::vector<std::int64_t>& v, DType dtype = DType::I64) {
  return Tensor::from_vec_col_major(s, v, {kCpu, dtype});
}

// Deterministic pseudo-random indices in [-extent, extent).
std::vector<std::int64_t> random_indices(std::int64_t n, std::int64_t extent, std::uint64_t seed) {
  std::vector<std::int64_t> v(static_cast<std::size_t>(n));
  std::uint64_t x = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (auto& k : v) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    k = static_cast<std::int64_t>((x >> 33) % static_cast<std::uint64_t>(2 * extent)) - extent;
  }
  return v;
}

std::int64_t norm(std::int64_t k, std::int64_t n) { return k < 0 ? k + n : k; }

template <class D>
const D& detail_of(const Error& e) {
  const D* d = std::get_if<D>(&e.detail());
  if (d == nullptr) {
    ADD_FAILURE() << "unexpected detail for: " << e.what();
    static const D empty{};
    return empty;
  }
  return *d;
}

void expect_dtype_mismatch(const Error& e, const std::string& op, DType expected, DType actual) {
  EXPECT_EQ(e.kind(), ErrorKind::Validation) << e.what();
  EXPECT_EQ(e.op(), op);
  const auto& d = detail_of<tensora::DTypeMismatch>(e);
  EXPECT_EQ(d.expected, expected);
  EXPECT_EQ(d.actual, actual);
}

void expect_device_mismatch(const Error& e, const std::string& op) {
  EXPECT_EQ(e.kind(), ErrorKind::DeviceMismatch) << e.what();
  EXPECT_EQ(e.op(), op);
  const auto& d = detail_of<tensora::DeviceMismatch>(e);
  EXPECT_EQ(d.expected, "cpu:0");
  EXPECT_EQ(d.actual, "cpu:1");
  EXPECT_THAT(e.what(), HasSubstr("cpu:1"));
}

void expect_axis_error(const Error& e, const std::string& op, std::int64_t axis, std::int64_t rank) {
  EXPECT_EQ(e.kind(), ErrorKind::Validation) << e.what();
  EXPECT_EQ(e.op(), op);
  const auto& d = detail_of<tensora::AxisOutOfRange>(e);
  EXPECT_EQ(d.axis, axis);
  EXPECT_EQ(d.rank, rank);
  EXPECT_THAT(e.what(), HasSubstr("axis " + std::to_string(axis) + " out of range"));
}

void expect_shape_error(const Error& e, const std::string& op, const Shape& expected, const Shape& actual) {
  EXPECT_EQ(e.kind(), ErrorKind::Validation) << e.what();
  EXPECT_EQ(e.op(), op);
  const auto& d = detail_of<tensora::ShapeMismatch>(e);
  EXPECT_EQ(d.expected, expected);
  EXPECT_EQ(d.actual, actual);
  EXPECT_THAT(e.what(), HasSubstr(tensora::to_string(expected)));
  EXPECT_THAT(e.what(), HasSubstr(tensora::to_string(actual)));
}

void expect_invalid(const Error& e, const std::string& op, const std::string& argument) {
  EXPECT_EQ(e.kind(), ErrorKind::InvalidArgument) << e.what();
  EXPECT_EQ(e.op(), op);
  EXPECT_EQ(detail_of<tensora::InvalidArgument>(e).argument, argument);
}

const std::vector<int> kThreadCounts = {1, 2, 3, 8};

CpuEngine& serial_engine() {
  static CpuEngine e = CpuEngine::serial();
  return e;
}

// ---- references ---------------------------------------------------------------------------

template <class T>
std::vector<T> ref_concat(const std::vector<Tensor>& ts, std::size_t axis, const Shape& out_shape) {
  std::vector<std::vector<T>> host;
  for (const Tensor& t : ts) host.push_back(t.template to_vec<T>());
  std::vector<T> out(static_cast<std::size_t>(tensora::numel(out_shape)));
  for (std::int64_t lin = 0; lin < tensora::numel(out_shape); ++lin) {
    Index idx = unravel(lin, out_shape);
    std::size_t p = 0;
    while (idx[axis] >= ts[p].shape()[axis]) idx[axis] -= ts[p++].shape()[axis];
    out[static_cast<std::size_t>(lin)] = host[p][static_cast<std::size_t>(ravel(idx, ts[p].shape()))];
  }
  return out;
}

template <class T>
std::vector<T> ref_pad(const Tensor& x, const std::vector<std::pair<std::int64_t, std::int64_t>>& w, PadMode mode,
                       T value, const Shape& out_shape) {
  const std::vector<T> in = x.template to_vec<T>();
  std::vector<T> out(static_cast<std::size_t>(tensora::numel(out_shape)));
  for (std::int64_t lin = 0; lin < tensora::numel(out_shape); ++lin) {
    Index idx = unravel(lin, out_shape);
    bool border = false;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      const std::int64_t n = x.shape()[d];
      std::int64_t i = idx[d] - w[d].first;
      if (i < 0 || i >= n) {
        border = true;
        if (mode == PadMode::Edge) i = i < 0 ? 0 : n - 1;
        if (mode == PadMode::Reflect) i = i < 0 ? -i : 2 * (n - 1) - i;
      }
      idx[d] = i;
    }
    out[static_cast<std::size_t>(lin)] =
        border && mode == PadMode::Constant ? value : in[static_cast<std::size_t>(ravel(idx, x.shape()))];
  }
  return out;
}

template <class T>
std::vector<T> ref_take_along(const Tensor& x, const Tensor& ind, std::size_t axis, Shape& out_shape) {
  const Shape& s = x.shape();
  const Shape& is = ind.shape();
  out_shape = s;
  for (std::size_t d = 0; d < s.size(); ++d) out_shape[d] = d == axis ? is[d] : (s[d] == 1 ? is[d] : s[d]);
  const std::vector<T> in = x.template to_vec<T>();
  const std::vector<std::int64_t> k = ind.cast(DType::I64, serial_engine()).to_vec<std::int64_t>();
  std::vector<T> out(static_cast<std::size_t>(tensora::numel(out_shape)));
  for (std::int64_t lin = 0; lin < tensora::numel(out_shape); ++lin) {
    const Index idx = unravel(lin, out_shape);
    Index ii = idx, si = idx;
    for (std::size_t d = 0; d < s.size(); ++d) {
      if (is[d] == 1) ii[d] = 0;
      if (s[d] == 1) si[d] = 0;
    }
    si[axis] = norm(k[static_cast<std::size_t>(ravel(ii, is))], s[axis]);
    out[static_cast<std::size_t>(lin)] = in[static_cast<std::size_t>(ravel(si, s))];
  }
  return out;
}

template <class T>
std::vector<T> ref_scatter_add(const Tensor& self, std::size_t axis, const Tensor& ind, const Tensor& src) {
  std::vector<T> out = self.template to_vec<T>();
  const std::vector<T> sv = src.template to_vec<T>();
  const std::vector<std::int64_t> k = ind.to_vec<std::int64_t>();
  for (std::int64_t lin = 0; lin < ind.numel(); ++lin) {
    const Index idx = unravel(lin, ind.shape());
    Index tgt = idx;
    tgt[axis] = norm(k[static_cast<std::size_t>(lin)], self.shape()[axis]);
    const auto o = static_cast<std::size_t>(ravel(tgt, self.shape()));
    out[o] = add_ref<T>(out[o], sv[static_cast<std::size_t>(ravel(idx, src.shape()))]);
  }
  return out;
}

// ---- concat / stack -----------------------------------------------------------------------

TEST(StructuralConcat, MatchesReferenceOnEveryLayoutAndDType) {
  auto& e = serial_engine();
  for_types<STRUCTURAL_TYPES>([&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    for (std::int64_t axis : {0, 1, 2, -1}) {
      const auto a = static_cast<std::size_t>(axis < 0 ? axis + 3 : axis);
      std::vector<Shape> shapes;
      for (std::int64_t ext : {2, 1, 3}) {
        Shape s{3, 4, 5};
        s[a] = ext;
        shapes.push_back(s);
      }
      for (std::size_t k = 0; k < 4; ++k) {
        std::vector<Tensor> pieces;
        std::string names;
        for (std::size_t j = 0; j < shapes.size(); ++j) {
          auto ls = layouts<T>(shapes[j], static_cast<std::int64_t>(j * 100));
          const auto& [name, t] = ls[(k + j) % ls.size()];
          pieces.push_back(t);
          names += name + " ";
        }
        SCOPED_TRACE("axis " + std::to_string(axis) + ": " + names);
        Shape out_shape{3, 4, 5};
        out_shape[a] = 6;
        const Tensor out = tensora::concat(pieces, axis, e);
        EXPECT_TRUE(out.is_contiguous());
        expect_values<T>(out, out_shape, ref_concat<T>(pieces, a, out_shape));
      }
    }
  });
}

TEST(StructuralConcat, SingleEmptyAndRankOnePieces) {
  auto& e = serial_engine();
  const Tensor a = make<float>({3});
  const Tensor b = make<float>({0});
  const Tensor c = make<float>({2}, 7);
  const Tensor out = tensora::concat({a, b, c}, 0, e);
  expect_values<float>(out, {5}, ref_concat<float>({a, b, c}, 0, {5}));
  const Tensor one = tensora::concat({a}, -1, e);
  expect_values<float>(one, {3}, a.to_vec<float>());
  EXPECT_FALSE(one.shares_storage_with(a));  // always a copy
  const Tensor empty = tensora::concat({make<float>({0, 2}), make<float>({0, 2})}, 1, e);
  EXPECT_EQ(empty.shape(), (Shape{0, 4}));
}

TEST(StructuralStack, MatchesReferenceOnEveryLayoutAndDType) {
  auto& e = serial_engine();
  for_types<STRUCTURAL_TYPES>([&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    const Shape s{3, 4};
    for (std::int64_t axis : {0, 1, 2, -1, -3}) {
      const auto a = static_cast<std::size_t>(axis < 0 ? axis + 3 : axis);
      std::vector<Tensor> pieces;
      for (std::size_t j = 0; j < 4; ++j) {
        auto ls = layouts<T>(s, static_cast<std::int64_t>(j * 10));
        pieces.push_back(ls[j % ls.size()].second);
      }
      SCOPED_TRACE("axis " + std::to_string(axis));
      const Tensor out = tensora::stack(pieces, axis, e);
      Shape out_shape = s;
      out_shape.insert(out_shape.begin() + static_cast<std::ptrdiff_t>(a), 4);
      std::vector<T> want(static_cast<std::size_t>(tensora::numel(out_shape)));
      std::vector<std::vector<T>> host;
      for (const Tensor& p : pieces) host.push_back(p.template to_vec<T>());
      for (std::int64_t lin = 0; lin < tensora::numel(out_shape); ++lin) {
        Index idx = unravel(lin, out_shape);
        const auto p = static_cast<std::size_t>(idx[a]);
        idx.erase(idx.begin() + static_cast<std::ptrdiff_t>(a));
        want[static_cast<std::size_t>(lin)] = host[p][static_cast<std::size_t>(ravel(idx, s))];
      }
      expect_values<T>(out, out_shape, want);
    }
  });
}

TEST(StructuralStack, RankZeroPiecesMakeAVector) {
  auto& e = serial_engine();
  const Tensor out = tensora::stack({make<double>({}, 1), make<double>({}, 2)}, 0, e);
  expect_values<double>(out, {2}, {value_at<double>(1), value_at<double>(2)});
}

TEST(StructuralConcat, BadInputs) {
  auto& e = serial_engine();
  const Tensor a = Tensor::zeros({2, 3}, {kCpu, DType::F32});
  expect_dtype_mismatch(expect_error([&] { tensora::concat({a, Tensor::zeros({2, 3}, {kCpu, DType::F64})}, 0, e); }),
                        "concat", DType::F32, DType::F64);
  expect_device_mismatch(
      expect_error([&] { tensora::concat({a, Tensor::zeros({2, 3}, {kCpu1, DType::F32})}, 0, e); }), "concat");
  {
    auto e1 = CpuEngine::serial(kCpu1);
    const Error err = expect_error([&] { tensora::concat({a, a}, 0, e1); });
    EXPECT_EQ(err.kind(), ErrorKind::DeviceMismatch);
    EXPECT_THAT(err.what(), HasSubstr("the engine runs on cpu:1"));
  }
  const Error shape = expect_error([&] { tensora::concat({a, Tensor::zeros({3, 4}, {kCpu, DType::F32})}, 0, e); });
  expect_shape_error(shape, "concat", {2, 3}, {3, 4});
  EXPECT_THAT(shape.what(), HasSubstr("tensor 1"));
  EXPECT_THAT(shape.what(), HasSubstr("axis 0"));
  expect_shape_error(expect_error([&] { tensora::concat({a, Tensor::zeros({2, 3, 1}, {kCpu, DType::F32})}, 1, e); }),
                     "concat", {2, 3}, {2, 3, 1});
  expect_axis_error(expect_error([&] { tensora::concat({a, a}, 2, e); }), "concat", 2, 2);
  expect_axis_error(expect_error([&] { tensora::concat({a, a}, -3, e); }), "concat", -3, 2);
  expect_axis_error(expect_error([&] { tensora::concat({make<float>({}), make<float>({})}, 0, e); }), "concat", 0, 0);
  expect_invalid(expect_error([&] { tensora::concat({}, 0, e); }), "concat", "tensors");
  expect_invalid(expect_error([&] { tensora::concat({a, Tensor()}, 0, e); }), "concat", "operand");
}

TEST(StructuralStack, BadInputs) {
  auto& e = serial_engine();
  const Tensor a = Tensor::zeros({2, 3}, {kCpu, DType::I32});
  expect_dtype_mismatch(expect_error([&] { tensora::stack({a, Tensor::zeros({2, 3}, {kCpu, DType::I64})}, 0, e); }),
                        "stack", DType::I32, DType::I64);
  expect_device_mismatch(expect_error([&] { tensora::stack({a, Tensor::zeros({2, 3}, {kCpu1, DType::I32})}, 0, e); }),
                         "stack");
  const Error shape = expect_error([&] { tensora::stack({a, Tensor::zeros({3, 2}, {kCpu, DType::I32})}, 1, e); });
  expect_shape_error(shape, "stack", {2, 3}, {3, 2});
  EXPECT_THAT(shape.what(), HasSubstr("axis 1"));
  expect_axis_error(expect_error([&] { tensora::stack({a, a}, 3, e); }), "stack", 3, 3);
  expect_axis_error(expect_error([&] { tensora::stack({a, a}, -4, e); }), "stack", -4, 3);
  expect_invalid(expect_error([&] { tensora::stack({}, 0, e); }), "stack", "tensors");
}

// ---- split (views) ------------------------------------------------------------------------

TEST(StructuralSplit, ZeroCopyPiecesMatchReference) {
  for_types<STRUCTURAL_TYPES>([&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    for (const auto& [name, x] : layouts<T>({5, 4})) {
      SCOPED_TRACE(name);
      for (std::int64_t axis : {0, 1, -2}) {
        const auto a = static_cast<std::size_t>(axis < 0 ? axis + 2 : axis);
        const std::vector<std::int64_t> sizes = a == 0 ? std::vector<std::int64_t>{2, 0, 3}
                                                       : std::vector<std::int64_t>{1, 3};
        const auto pieces = x.split(sizes, axis);
        ASSERT_EQ(pieces.size(), sizes.size());
        const std::vector<T> in = x.template to_vec<T>();
        std::int64_t at = 0;
        for (std::size_t p = 0; p < pieces.size(); ++p) {
          Shape s = x.shape();
          s[a] = sizes[p];
          EXPECT_TRUE(pieces[p].shares_storage_with(x));
          std::vector<T> want(static_cast<std::size_t>(tensora::numel(s)));
          for (std::int64_t lin = 0; lin < tensora::numel(s); ++lin) {
            Index idx = unravel(lin, s);
            idx[a] += at;
            want[static_cast<std::size_t>(lin)] = in[static_cast<std::size_t>(ravel(idx, x.shape()))];
          }
          expect_values<T>(pieces[p], s, want);
          at += sizes[p];
        }
      }
    }
  });
}

TEST(StructuralSplit, PiecesSeeWritesToTheSource) {
  const Tensor x = Tensor::zeros({4}, {kCpu, DType::F64});
  const auto pieces = x.split({1, 3}, 0);
  x.data<double>()[2] = 5.0;
  EXPECT_EQ(pieces[1].to_vec<double>(), (std::vector<double>{0, 5, 0}));
  EXPECT_EQ(pieces[1].offset(), x.offset() + 1);
  EXPECT_EQ(pieces[1].strides(), x.strides());
}

TEST(StructuralSplit, BadInputs) {
  const Tensor x = Tensor::zeros({5, 4}, {kCpu, DType::F32});
  expect_axis_error(expect_error([&] { x.split({5}, 2); }), "split", 2, 2);
  const Error sum = expect_error([&] { x.split({2, 2}, 0); });
  expect_invalid(sum, "split", "sizes");
  EXPECT_THAT(sum.what(), HasSubstr("[2, 2]"));
  EXPECT_THAT(sum.what(), HasSubstr("extent 5"));
  expect_invalid(expect_error([&] { x.split({6, -1}, 0); }), "split", "sizes");
  expect_invalid(expect_error([&] { x.split({INT64_MAX, INT64_MAX, 2}, 0); }), "split", "sizes");
  expect_invalid(expect_error([&] { Tensor().split({1}, 0); }), "split", "self");
}

// ---- pad ----------------------------------------------------------------------------------

template <class T>
std::pair<Scalar, T> pad_value() {
  if constexpr (std::is_same_v<T, bool>) return {Scalar(true), true};
  else if constexpr (std::is_same_v<T, Float16>) return {Scalar(2.5), Float16(2.5f)};
  else if constexpr (std::is_same_v<T, c128>) return {Scalar(c128(1.0, -2.0)), c128(1.0, -2.0)};
  else if constexpr (std::is_floating_point_v<T>) return {Scalar(2.5), T(2.5)};
  else return {Scalar(5), T(5)};
}

TEST(StructuralPad, EveryModeMatchesReference) {
  auto& e = serial_engine();
  for_types<STRUCTURAL_TYPES>([&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    const std::vector<std::pair<Shape, std::vector<std::pair<std::int64_t, std::int64_t>>>> cases = {
        {{3, 4}, {{2, 1}, {3, 2}}},
        {{4, 3, 5}, {{0, 3}, {1, 0}, {4, 4}}},
        {{5}, {{4, 2}}},
    };
    for (const auto& [shape, widths] : cases) {
      Shape out_shape = shape;
      for (std::size_t d = 0; d < shape.size(); ++d) out_shape[d] += widths[d].first + widths[d].second;
      for (const auto& [name, x] : layouts<T>(shape)) {
        for (PadMode mode : {PadMode::Constant, PadMode::Edge, PadMode::Reflect}) {
          SCOPED_TRACE(name + " mode " + std::to_string(static_cast<int>(mode)) + " shape " + tensora::to_string(shape));
          const auto [scalar, value] = pad_value<T>();
          const Tensor out = x.pad(widths, PadOptions{mode, scalar}, e);
          expect_values<T>(out, out_shape, ref_pad<T>(x, widths, mode, value, out_shape));
        }
      }
    }
  });
}

TEST(StructuralPad, DefaultIsConstantZeroAndEdgeCases) {
  auto& e = serial_engine();
  const Tensor x = make<std::int32_t>({2, 2});
  const Tensor z = x.pad({{1, 0}, {0, 1}}, e);
  expect_values<std::int32_t>(z, {3, 3}, ref_pad<std::int32_t>(x, {{1, 0}, {0, 1}}, PadMode::Constant, 0, {3, 3}));
  // Zero widths copy; an empty axis pads with the constant; a rank-0 tensor copies.
  const Tensor same = x.pad({{0, 0}, {0, 0}}, PadOptions{PadMode::Reflect}, e);
  EXPECT_FALSE(same.shares_storage_with(x));
  expect_values<std::int32_t>(same, {2, 2}, x.to_vec<std::int32_t>());
  const Tensor from_empty = make<std::int32_t>({0, 2}).pad({{1, 1}, {0, 0}}, PadOptions{PadMode::Constant, 7}, e);
  expect_values<std::int32_t>(from_empty, {2, 2}, {7, 7, 7, 7});
  const Tensor scalar = make<double>({}, 3).pad({}, e);
  expect_values<double>(scalar, {}, {value_at<double>(3)});
  // Weak scalar: an int constant on a float tensor takes the tensor's dtype.
  const Tensor f16 = make<Float16>({1}).pad({{1, 0}}, PadOptions{PadMode::Constant, 3}, e);
  expect_values<Float16>(f16, {2}, {Float16(3.0f), value_at<Float16>(0)});
}

TEST(StructuralPad, BadInputs) {
  auto& e = serial_engine();
  const Tensor x = Tensor::zeros({3, 4}, {kCpu, DType::I32});
  expect_invalid(expect_error([&] { x.pad({{1, 1}}, e); }), "pad", "widths");
  const Error neg = expect_error([&] { x.pad({{1, 1}, {-1, 0}}, e); });
  expect_invalid(neg, "pad", "widths");
  EXPECT_THAT(neg.what(), HasSubstr("axis 1"));
  const Error reflect = expect_error([&] { x.pad({{3, 0}, {0, 0}}, PadOptions{PadMode::Reflect}, e); });
  expect_invalid(reflect, "pad", "widths");
  EXPECT_THAT(reflect.what(), HasSubstr("below the extent 3"));
  EXPECT_THAT(reflect.what(), HasSubstr("axis 0"));
  expect_invalid(expect_error([&] { x.pad({{0, 0}, {0, 4}}, PadOptions{PadMode::Reflect}, e); }), "pad", "widths");
  expect_invalid(expect_error([&] {
                   Tensor::zeros({0}, {kCpu, DType::F32}).pad({{1, 0}}, PadOptions{PadMode::Edge}, e);
                 }),
                 "pad", "widths");
  expect_invalid(expect_error([&] { x.pad({{INT64_MAX, 1}, {0, 0}}, e); }), "pad", "widths");
  // The constant is a weak scalar: a float on an int tensor, or 300 on U8, is refused.
  const Error weak = expect_error([&] { x.pad({{1, 1}, {1, 1}}, PadOptions{PadMode::Constant, 0.5}, e); });
  expect_invalid(weak, "pad", "scalar");
  EXPECT_THAT(weak.what(), HasSubstr("scalar 0.5 (float) does not fit tensor dtype I32"));
  expect_invalid(expect_error([&] {
                   Tensor::zeros({2}, {kCpu, DType::U8}).pad({{1, 1}}, PadOptions{PadMode::Constant, 300}, e);
                 }),
                 "pad", "scalar");
  auto e1 = CpuEngine::serial(kCpu1);
  const Error dev = expect_error([&] { x.pad({{1, 1}, {1, 1}}, e1); });
  EXPECT_EQ(dev.kind(), ErrorKind::DeviceMismatch);
  EXPECT_EQ(detail_of<tensora::DeviceMismatch>(dev).expected, "cpu:1");
  EXPECT_EQ(detail_of<tensora::DeviceMismatch>(dev).actual, "cpu:0");
  expect_invalid(expect_error([&] { x.pad({{1, 1}, {1, 1}}, PadOptions{static_cast<PadMode>(9)}, e); }), "pad",
                 "mode");
}

// ---- reverse (view) -----------------------------------------------------------------------

TEST(StructuralReverse, NegativeStrideViewsMatchReference) {
  for_types<STRUCTURAL_TYPES>([&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    for (const auto& [name, x] : layouts<T>({3, 4, 2})) {
      SCOPED_TRACE(name);
      for (const std::vector<std::int64_t>& axes :
           std::vector<std::vector<std::int64_t>>{{}, {0}, {1}, {-1, 0}, {0, 1, 2}}) {
        const Tensor r = x.reverse(axes);
        EXPECT_TRUE(r.shares_storage_with(x));
        std::vector<bool> flip(3, false);
        for (auto a : axes) flip[static_cast<std::size_t>(a < 0 ? a + 3 : a)] = true;
        const std::vector<T> in = x.template to_vec<T>();
        std::vector<T> want(in.size());
        for (std::int64_t lin = 0; lin < x.numel(); ++lin) {
          Index idx = unravel(lin, x.shape());
          for (std::size_t d = 0; d < 3; ++d)
            if (flip[d]) idx[d] = x.shape()[d] - 1 - idx[d];
          want[static_cast<std::size_t>(lin)] = in[static_cast<std::size_t>(ravel(idx, x.shape()))];
        }
        expect_values<T>(r, x.shape(), want);
      }
    }
  });
  const Tensor c = make<float>({4});
  EXPECT_EQ(c.reverse({0}).strides(), (tensora::Strides{-1}));
  EXPECT_EQ(c.reverse({0}).reverse({0}).to_vec<float>(), c.to_vec<float>());
  EXPECT_EQ(make<float>({0, 2}).reverse({0, 1}).shape(), (Shape{0, 2}));
}

TEST(StructuralReverse, BadInputs) {
  const Tensor x = Tensor::zeros({2, 3}, {kCpu, DType::F32});
  expect_axis_error(expect_error([&] { x.reverse({2}); }), "reverse", 2, 2);
  expect_axis_error(expect_error([&] { x.reverse({-3}); }), "reverse", -3, 2);
  const Error twice = expect_error([&] { x.reverse({1, -1}); });
  expect_invalid(twice, "reverse", "axes");
  EXPECT_THAT(twice.what(), HasSubstr("appears twice"));
}

// ---- take_along_axis / gather / index_select ----------------------------------------------

TEST(StructuralTakeAlongAxis, MatchesReferenceOnEveryLayoutAndDType) {
  auto& e = serial_engine();
  for_types<STRUCTURAL_TYPES>([&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    const Shape s{4, 3, 5};
    for (const auto& [name, x] : layouts<T>(s)) {
      for (std::int64_t axis : {0, 1, -1}) {
        const auto a = static_cast<std::size_t>(axis < 0 ? axis + 3 : axis);
        SCOPED_TRACE(name + " axis " + std::to_string(axis));
        // Indices with 6 entries along the axis, full extents elsewhere, in a few layouts/dtypes.
        Shape is = s;
        is[a] = 6;
        const auto raw = random_indices(tensora::numel(is), s[a], 11 + a);
        std::vector<Tensor> indices = {index_tensor(is, raw), index_tensor(is, raw, DType::I32)};
        // Transposed I32 indices, and indices broadcast along the first non-gather axis.
        Shape rs(is.rbegin(), is.rend());
        indices.push_back(index_tensor(rs, random_indices(tensora::numel(rs), s[a], 5), DType::I32).transpose());
        Shape bs = is;
        const std::size_t b = a == 0 ? 1 : 0;
        bs[b] = 1;
        indices.push_back(index_tensor(bs, random_indices(tensora::numel(bs), s[a], 9)).broadcast_to(is));
        // And indices of extent 1 on a non-gather axis that broadcast inside the op.
        indices.push_back(index_tensor(bs, random_indices(tensora::numel(bs), s[a], 13)));
        for (const Tensor& ind : indices) {
          Shape out_shape;
          const auto want = ref_take_along<T>(x, ind, a, out_shape);
          expect_values<T>(x.take_along_axis(ind, axis, e), out_shape, want);
          expect_values<T>(x.gather(ind, axis, e), out_shape, want);
        }
      }
    }
  });
}

TEST(StructuralTakeAlongAxis, SelfBroadcastsAgainstIndices) {
  auto& e = serial_engine();
  const Tensor x = make<double>({1, 4});
  const Tensor ind = index_tensor({3, 2}, {0, -1, 2, 3, 1, -4});
  Shape out_shape;
  const auto want = ref_take_along<double>(x, ind, 1, out_shape);
  EXPECT_EQ(out_shape, (Shape{3, 2}));
  expect_values<double>(x.take_along_axis(ind, 1, e), out_shape, want);
  EXPECT_EQ(x.take_along_axis(index_tensor({1, 0}, {}), 1, e).shape(), (Shape{1, 0}));
}

TEST(StructuralTakeAlongAxis, BadInputs) {
  auto& e = serial_engine();
  const Tensor x = Tensor::zeros({3, 4}, {kCpu, DType::F32});
  const Tensor ind = index_tensor({3, 2}, {0, 1, 2, 3, 0, 1});
  for (const char* op : {"take_along_axis", "gather"}) {
    SCOPED_TRACE(op);
    auto call = [&](const Tensor& i, std::int64_t axis, tensora::Engine& eng) {
      return std::string(op) == "gather" ? x.gather(i, axis, eng) : x.take_along_axis(i, axis, eng);
    };
    const Error dt = expect_error([&] { call(Tensor::zeros({3, 2}, {kCpu, DType::F32}), 1, e); });
    expect_dtype_mismatch(dt, op, DType::I64, DType::F32);
    EXPECT_THAT(dt.what(), HasSubstr("indices must be I32 or I64, got F32"));
    expect_dtype_mismatch(expect_error([&] { call(Tensor::zeros({3, 2}, {kCpu, DType::U8}), 1, e); }), op, DType::I64,
                          DType::U8);
    expect_device_mismatch(expect_error([&] { call(Tensor::zeros({3, 2}, {kCpu1, DType::I64}), 1, e); }), op);
    expect_axis_error(expect_error([&] { call(ind, 2, e); }), op, 2, 2);
    expect_shape_error(expect_error([&] { call(index_tensor({6}, {0, 1, 2, 3, 0, 1}), 1, e); }), op, {3, 4}, {6});
    const Error bc = expect_error([&] { call(index_tensor({2, 2}, {0, 1, 2, 3}), 1, e); });
    expect_shape_error(bc, op, {3, 4}, {2, 2});
    EXPECT_THAT(bc.what(), HasSubstr("axis 0"));
    const Error range = expect_error([&] { call(index_tensor({3, 2}, {0, 1, 2, 4, 0, 1}), 1, e); });
    expect_invalid(range, op, "indices");
    EXPECT_THAT(range.what(), HasSubstr("index 4 is out of range"));
    EXPECT_THAT(range.what(), HasSubstr("extent 4"));
    const Error low = expect_error([&] { call(index_tensor({3, 2}, {0, 1, -5, 3, 0, 1}, DType::I32), 1, e); });
    EXPECT_THAT(low.what(), HasSubstr("index -5 is out of range"));
  }
}

TEST(StructuralIndexSelect, MatchesReferenceOnEveryLayoutAndDType) {
  auto& e = serial_engine();
  for_types<STRUCTURAL_TYPES>([&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    const Shape s{4, 3, 5};
    for (const auto& [name, x] : layouts<T>(s)) {
      for (std::int64_t axis : {0, 1, -1}) {
        const auto a = static_cast<std::size_t>(axis < 0 ? axis + 3 : axis);
        SCOPED_TRACE(name + " axis " + std::to_string(axis));
        const auto raw = random_indices(7, s[a], 3 + a);
        const std::vector<Tensor> indices = {
            index_tensor({7}, raw), index_tensor({7}, raw, DType::I32),
            index_tensor({14}, random_indices(14, s[a], 4)).slice(0, std::nullopt, std::nullopt, -2)};
        for (const Tensor& ind : indices) {
          const std::vector<std::int64_t> k = ind.cast(DType::I64, e).to_vec<std::int64_t>();
          Shape out_shape = s;
          out_shape[a] = 7;
          const std::vector<T> in = x.template to_vec<T>();
          std::vector<T> want(static_cast<std::size_t>(tensora::numel(out_shape)));
          for (std::int64_t lin = 0; lin < tensora::numel(out_shape); ++lin) {
            Index idx = unravel(lin, out_shape);
            idx[a] = norm(k[static_cast<std::size_t>(idx[a])], s[a]);
            want[static_cast<std::size_t>(lin)] = in[static_cast<std::size_t>(ravel(idx, s))];
          }
          expect_values<T>(x.index_select(axis, ind, e), out_shape, want);
        }
      }
    }
  });
}

TEST(StructuralIndexSelect, BadInputs) {
  auto& e = serial_engine();
  const Tensor x = Tensor::zeros({3, 4}, {kCpu, DType::F64});
  const Tensor ind = index_tensor({2}, {0, 2});
  const Error dt = expect_error([&] { x.index_select(0, Tensor::zeros({2}, {kCpu, DType::Bool}), e); });
  expect_dtype_mismatch(dt, "index_select", DType::I64, DType::Bool);
  EXPECT_THAT(dt.what(), HasSubstr("got Bool"));
  expect_device_mismatch(expect_error([&] { x.index_select(0, Tensor::zeros({2}, {kCpu1, DType::I32}), e); }),
                         "index_select");
  expect_axis_error(expect_error([&] { x.index_select(-3, ind, e); }), "index_select", -3, 2);
  expect_shape_error(expect_error([&] { x.index_select(0, index_tensor({1, 2}, {0, 1}), e); }), "index_select", {2},
                     {1, 2});
  const Error range = expect_error([&] { x.index_select(0, index_tensor({2}, {0, 3}), e); });
  expect_invalid(range, "index_select", "indices");
  EXPECT_THAT(range.what(), HasSubstr("index 3 is out of range for axis 0 with extent 3"));
}

// ---- scatter_add --------------------------------------------------------------------------

TEST(StructuralScatterAdd, MatchesReferenceWithDuplicates) {
  auto& e = serial_engine();
  // Bool has no addition (see BadInputs); every other kind is covered.
  for_types<std::int8_t, Float16, c128, float, std::int64_t, std::uint16_t>([&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    const Shape s{4, 3, 5};
    for (const auto& [name, self] : layouts<T>(s)) {
      for (std::int64_t axis : {0, 1, -1}) {
        const auto a = static_cast<std::size_t>(axis < 0 ? axis + 3 : axis);
        SCOPED_TRACE(name + " axis " + std::to_string(axis));
        // Index extents: 7 along the axis (duplicates), smaller than self elsewhere on one axis.
        Shape is = s;
        is[a] = 7;
        is[a == 2 ? 0 : 2] -= 1;
        Shape ss = is;
        ss[a] += 1;  // src may be larger than the index
        for (const auto& [src_name, src] : layouts<T>(ss, 50)) {
          SCOPED_TRACE("src " + src_name);
          const Tensor ind = index_tensor(is, random_indices(tensora::numel(is), s[a], 21 + a));
          expect_values<T>(self.scatter_add(axis, ind, src, e), s, ref_scatter_add<T>(self, a, ind, src));
          // Transposed I32 indices with the same values.
          const Tensor ind32 = ind.cast(DType::I32, e).transpose().duplicate().transpose();
          ASSERT_EQ(ind32.shape(), is);
          expect_values<T>(self.scatter_add(axis, ind32, src, e), s, ref_scatter_add<T>(self, a, ind, src));
        }
      }
    }
  });
}

TEST(StructuralScatterAdd, ReturnsACopyAndHandlesEmptyIndices) {
  auto& e = serial_engine();
  const Tensor self = make<float>({3, 2});
  const Tensor out = self.scatter_add(0, index_tensor({0, 2}, {}), make<float>({0, 2}), e);
  EXPECT_FALSE(out.shares_storage_with(self));
  expect_values<float>(out, {3, 2}, self.to_vec<float>());
  // Every index hits element 0: the sum of the column in index order.
  const Tensor ones = Tensor::ones({5, 1}, {kCpu, DType::F64});
  const Tensor acc = Tensor::zeros({2, 1}, {kCpu, DType::F64}).scatter_add(0, index_tensor({5, 1}, {0, 0, -2, 0, 1}), ones, e);
  expect_values<double>(acc, {2, 1}, {4.0, 1.0});
}

TEST(StructuralScatterAdd, AccumulatesInIndexOrder) {
  auto& e = serial_engine();
  // In index order (0 + 1) + 1e8 rounds to 1e8, so the total is 0; reversed it would be 1.
  const Tensor src = Tensor::from_vec_col_major<float>({3, 2}, {1.0f, 1e8f, -1e8f, -1e8f, 1e8f, 1.0f}, {kCpu});
  const Tensor ind = index_tensor({3, 2}, {0, 0, 0, 1, 1, -1});
  for (int n : kThreadCounts) {
    auto par = CpuEngine::parallel(n);
    const Tensor out = Tensor::zeros({2, 2}, {kCpu, DType::F32}).scatter_add(0, ind, src, n == 1 ? e : par);
    expect_values<float>(out, {2, 2}, {0.0f, 0.0f, 0.0f, 1.0f});
  }
}

TEST(StructuralScatterAdd, BadInputs) {
  auto& e = serial_engine();
  const Tensor self = Tensor::zeros({3, 4}, {kCpu, DType::F32});
  const Tensor src = Tensor::ones({3, 4}, {kCpu, DType::F32});
  const Tensor ind = index_tensor({2, 4}, {0, 1, 2, 0, 1, 2, 0, 1});
  expect_dtype_mismatch(expect_error([&] { self.scatter_add(0, ind, Tensor::ones({3, 4}, {kCpu, DType::F64}), e); }),
                        "scatter_add", DType::F32, DType::F64);
  const Error idt = expect_error([&] { self.scatter_add(0, Tensor::zeros({2, 4}, {kCpu, DType::I16}), src, e); });
  expect_dtype_mismatch(idt, "scatter_add", DType::I64, DType::I16);
  EXPECT_THAT(idt.what(), HasSubstr("got I16"));
  const Error bdt = expect_error([&] {
    Tensor::zeros({3, 4}, {kCpu, DType::Bool}).scatter_add(0, ind, Tensor::zeros({3, 4}, {kCpu, DType::Bool}), e);
  });
  EXPECT_EQ(bdt.kind(), ErrorKind::UnsupportedDType);
  EXPECT_EQ(detail_of<tensora::UnsupportedDType>(bdt).dtype, DType::Bool);
  EXPECT_THAT(bdt.what(), HasSubstr("unsupported dtype Bool"));
  expect_device_mismatch(expect_error([&] { self.scatter_add(0, ind, Tensor::ones({3, 4}, {kCpu1, DType::F32}), e); }),
                         "scatter_add");
  expect_device_mismatch(expect_error([&] { self.scatter_add(0, Tensor::zeros({2, 4}, {kCpu1, DType::I64}), src, e); }),
                         "scatter_add");
  expect_axis_error(expect_error([&] { self.scatter_add(2, ind, src, e); }), "scatter_add", 2, 2);
  const Error big_src = expect_error([&] { self.scatter_add(0, ind, Tensor::ones({3, 3}, {kCpu, DType::F32}), e); });
  expect_shape_error(big_src, "scatter_add", {3, 3}, {2, 4});
  EXPECT_THAT(big_src.what(), HasSubstr("on axis 1"));
  const Error big_self =
      expect_error([&] { self.scatter_add(1, index_tensor({4, 1}, {0, 0, 0, 0}), Tensor::ones({4, 4}, {kCpu, DType::F32}), e); });
  expect_shape_error(big_self, "scatter_add", {3, 4}, {4, 1});
  EXPECT_THAT(big_self.what(), HasSubstr("on axis 0"));
  expect_shape_error(expect_error([&] { self.scatter_add(0, index_tensor({8}, {0, 1, 2, 0, 1, 2, 0, 1}), src, e); }),
                     "scatter_add", {3, 4}, {8});
  const Error range = expect_error([&] { self.scatter_add(0, index_tensor({2, 4}, {0, 1, 2, 0, 1, -4, 0, 1}), src, e); });
  expect_invalid(range, "scatter_add", "indices");
  EXPECT_THAT(range.what(), HasSubstr("index -4 is out of range for axis 0 with extent 3"));
}

// ---- tril / triu --------------------------------------------------------------------------

TEST(StructuralTriangle, MatchesReferenceBatched) {
  auto& e = serial_engine();
  for_types<STRUCTURAL_TYPES>([&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    for (const Shape& s : {Shape{4, 5}, Shape{3, 5, 4}, Shape{2, 3, 1, 6}}) {
      for (const auto& [name, x] : layouts<T>(s)) {
        for (std::int64_t k : std::vector<std::int64_t>{-7, -2, -1, 0, 1, 3, 9, INT64_MIN, INT64_MAX}) {
          SCOPED_TRACE(name + " " + tensora::to_string(s) + " k " + std::to_string(k));
          const std::vector<T> in = x.template to_vec<T>();
          std::vector<T> lo(in.size()), up(in.size());
          const std::size_t r = s.size();
          for (std::int64_t lin = 0; lin < x.numel(); ++lin) {
            const Index idx = unravel(lin, s);
            const long double diff = static_cast<long double>(idx[r - 1]) - static_cast<long double>(idx[r - 2]);
            const auto u = static_cast<std::size_t>(lin);
            lo[u] = diff <= static_cast<long double>(k) ? in[u] : T{};
            up[u] = diff >= static_cast<long double>(k) ? in[u] : T{};
          }
          expect_values<T>(x.tril(k, e), s, lo);
          expect_values<T>(x.triu(k, e), s, up);
        }
      }
    }
  });
}

TEST(StructuralTriangle, BadInputs) {
  auto& e = serial_engine();
  const Tensor v = Tensor::zeros({4}, {kCpu, DType::F32});
  expect_axis_error(expect_error([&] { v.tril(0, e); }), "tril", -2, 1);
  expect_axis_error(expect_error([&] { v.triu(0, e); }), "triu", -2, 1);
  auto e1 = CpuEngine::serial(kCpu1);
  const Tensor m = Tensor::zeros({2, 2}, {kCpu, DType::F32});
  EXPECT_EQ(expect_error([&] { m.tril(0, e1); }).kind(), ErrorKind::DeviceMismatch);
  EXPECT_EQ(expect_error([&] { m.triu(0, e1); }).kind(), ErrorKind::DeviceMismatch);
  expect_invalid(expect_error([&] { Tensor().tril(0, e); }), "tril", "operand");
}

// ---- diagonal (view) / embed_diag ---------------------------------------------------------

TEST(StructuralDiagonal, NumPyViewsMatchReference) {
  for_types<STRUCTURAL_TYPES>([&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    const Shape s{4, 3, 5};
    for (const auto& [name, x] : layouts<T>(s)) {
      for (const auto& [a1, a2] : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 1}, {1, 0}, {0, 2}, {-1, 1}}) {
        for (std::int64_t off : {-4, -2, -1, 0, 1, 2, 5, 9}) {
          SCOPED_TRACE(name + " axes " + std::to_string(a1) + "," + std::to_string(a2) + " offset " + std::to_string(off));
          const auto u1 = static_cast<std::size_t>(a1 < 0 ? a1 + 3 : a1);
          const auto u2 = static_cast<std::size_t>(a2 < 0 ? a2 + 3 : a2);
          const std::int64_t n1 = s[u1], n2 = s[u2];
          const std::int64_t len = std::max<std::int64_t>(0, off >= 0 ? std::min(n1, n2 - off) : std::min(n1 + off, n2));
          std::size_t other = 0;
          while (other == u1 || other == u2) ++other;
          const Shape out_shape{s[other], len};
          const Tensor d = x.diagonal(off, a1, a2);
          EXPECT_TRUE(d.shares_storage_with(x));
          const std::vector<T> in = x.template to_vec<T>();
          std::vector<T> want(static_cast<std::size_t>(tensora::numel(out_shape)));
          for (std::int64_t lin = 0; lin < tensora::numel(out_shape); ++lin) {
            const Index o = unravel(lin, out_shape);
            Index idx(3);
            idx[other] = o[0];
            idx[u1] = o[1] + std::max<std::int64_t>(-off, 0);
            idx[u2] = o[1] + std::max<std::int64_t>(off, 0);
            want[static_cast<std::size_t>(lin)] = in[static_cast<std::size_t>(ravel(idx, s))];
          }
          expect_values<T>(d, out_shape, want);
        }
      }
    }
  });
  EXPECT_EQ(make<float>({3, 3}).diagonal().to_vec<float>(),
            (std::vector<float>{value_at<float>(0), value_at<float>(4), value_at<float>(8)}));
}

TEST(StructuralDiagonal, BadInputs) {
  const Tensor x = Tensor::zeros({3, 3}, {kCpu, DType::F32});
  expect_axis_error(expect_error([&] { x.diagonal(0, 0, 2); }), "diagonal", 2, 2);
  expect_axis_error(expect_error([&] { Tensor::zeros({3}, {kCpu, DType::F32}).diagonal(); }), "diagonal", 1, 1);
  const Error same = expect_error([&] { x.diagonal(0, 1, -1); });
  expect_invalid(same, "diagonal", "axis2");
  EXPECT_THAT(same.what(), HasSubstr("must be different axes"));
}

TEST(StructuralEmbedDiag, MatchesReferenceAndInvertsDiagonal) {
  auto& e = serial_engine();
  for_types<STRUCTURAL_TYPES>([&]<class T>() {
    SCOPED_TRACE(type_name<T>());
    for (const Shape& s : {Shape{4}, Shape{3, 4}, Shape{2, 3, 2}}) {
      for (const auto& [name, x] : layouts<T>(s)) {
        for (std::int64_t k : {-2, 0, 1, 3}) {
          SCOPED_TRACE(name + " " + tensora::to_string(s) + " k " + std::to_string(k));
          const std::int64_t n = s.back(), m = n + (k < 0 ? -k : k);
          Shape out_shape(s.begin(), s.end() - 1);
          out_shape.push_back(m);
          out_shape.push_back(m);
          const std::vector<T> in = x.template to_vec<T>();
          std::vector<T> want(static_cast<std::size_t>(tensora::numel(out_shape)));
          const std::size_t r = out_shape.size();
          for (std::int64_t lin = 0; lin < tensora::numel(out_shape); ++lin) {
            const Index idx = unravel(lin, out_shape);
            const std::int64_t row = idx[r - 2], col = idx[r - 1];
            if (col - row != k) continue;
            Index src(idx.begin(), idx.end() - 1);
            src.back() = k >= 0 ? row : col;
            want[static_cast<std::size_t>(lin)] = in[static_cast<std::size_t>(ravel(src, s))];
          }
          const Tensor out = x.embed_diag(k, e);
          expect_values<T>(out, out_shape, want);
          expect_values<T>(out.diagonal(k, -2, -1), s, in);
        }
      }
    }
  });
}

TEST(StructuralEmbedDiag, BadInputs) {
  auto& e = serial_engine();
  expect_axis_error(expect_error([&] { Tensor::zeros({}, {kCpu, DType::F32}).embed_diag(0, e); }), "embed_diag", -1, 0);
  auto e1 = CpuEngine::serial(kCpu1);
  const Error dev = expect_error([&] { Tensor::zeros({3}, {kCpu, DType::F32}).embed_diag(0, e1); });
  EXPECT_EQ(dev.kind(), ErrorKind::DeviceMismatch);
  EXPECT_EQ(detail_of<tensora::DeviceMismatch>(dev).actual, "cpu:0");
  expect_invalid(expect_error([&] { Tensor::zeros({3}, {kCpu, DType::F32}).embed_diag(INT64_MIN, e); }), "embed_diag",
                 "offset");
}

// ---- where (select) is part of the structural family too -----------------------------------

TEST(StructuralWhere, PicksByPredicateWithBroadcasting) {
  auto& e = serial_engine();
  const Tensor pred = Tensor::from_vec_col_major<bool>({2, 1}, {true, false}, {kCpu});
  const Tensor a = make<std::int8_t>({2, 3});
  const Tensor b = make<std::int8_t>({1, 3}, 40);
  const Tensor out = tensora::where(pred, a, b, e);
  const auto av = a.to_vec<std::int8_t>();
  const auto bv = b.to_vec<std::int8_t>();
  std::vector<std::int8_t> want(6);
  for (std::int64_t lin = 0; lin < 6; ++lin) {
    const Index idx = unravel(lin, {2, 3});
    want[static_cast<std::size_t>(lin)] = idx[0] == 0 ? av[static_cast<std::size_t>(lin)] : bv[static_cast<std::size_t>(idx[1])];
  }
  expect_values<std::int8_t>(out, {2, 3}, want);
  expect_dtype_mismatch(expect_error([&] { tensora::where(a, a, a, e); }), "select", DType::Bool, DType::I8);
}

// ---- serial == parallel, bitwise ----------------------------------------------------------

TEST(StructuralParallel, ScatterAddIsBitwiseIdenticalOnEveryEngine) {
  auto& serial = serial_engine();
  // 70001 fibers (more than one fixed chunk), 9 float contributions each onto 5 slots.
  const Shape s{5, 70001}, is{9, 70001};
  const Tensor self = Tensor::uniform(s, 1, {kCpu, DType::F32});
  const Tensor src = Tensor::normal(is, 2, {kCpu, DType::F32}, 0.0, 1e3);
  const Tensor ind = index_tensor(is, random_indices(tensora::numel(is), 5, 3));
  const Tensor want = self.scatter_add(0, ind, src, serial);
  // The transposed problem scatters along the fast axis.
  const Tensor self_t = self.transpose(), src_t = src.transpose(), ind_t = ind.transpose();
  const Tensor want_t = self_t.scatter_add(1, ind_t, src_t, serial);
  const Tensor src16 = src.cast(DType::F16, serial);
  const Tensor self16 = self.cast(DType::F16, serial);
  const Tensor want16 = self16.scatter_add(-2, ind, src16, serial);
  for (int n : kThreadCounts) {
    SCOPED_TRACE(n);
    auto par = CpuEngine::parallel(n);
    expect_same_bits(self.scatter_add(0, ind, src, par), want);
    expect_same_bits(self_t.scatter_add(1, ind_t, src_t, par), want_t);
    expect_same_bits(self16.scatter_add(-2, ind, src16, par), want16);
  }
}

TEST(StructuralParallel, ConcatPadTakeAlongAxisAreBitwiseIdenticalOnEveryEngine) {
  auto& serial = serial_engine();
  const Tensor a = Tensor::normal({3, 40001}, 4, {kCpu, DType::F64});
  const Tensor b = Tensor::normal({40001, 2}, 5, {kCpu, DType::F64}).transpose();
  const Tensor c = Tensor::normal({2, 40001}, 6, {kCpu, DType::F64}).slice(1, std::nullopt, std::nullopt, -1);
  const Tensor cat = tensora::concat({a, b, c}, 0, serial);
  const Tensor x = Tensor::normal({301, 257}, 7, {kCpu, DType::F32});
  const std::vector<std::pair<std::int64_t, std::int64_t>> w = {{3, 4}, {5, 2}};
  const Tensor pad_c = x.pad(w, PadOptions{PadMode::Constant, 1.5}, serial);
  const Tensor pad_r = x.transpose().pad(w, PadOptions{PadMode::Reflect}, serial);
  const Tensor pad_e = x.pad(w, PadOptions{PadMode::Edge}, serial);
  const Tensor y = Tensor::normal({7, 30011}, 8, {kCpu, DType::F32});
  const Tensor ind = index_tensor({13, 30011}, random_indices(13 * 30011, 7, 9));
  const Tensor take = y.take_along_axis(ind, 0, serial);
  for (int n : kThreadCounts) {
    SCOPED_TRACE(n);
    auto par = CpuEngine::parallel(n);
    expect_same_bits(tensora::concat({a, b, c}, 0, par), cat);
    expect_same_bits(x.pad(w, PadOptions{PadMode::Constant, 1.5}, par), pad_c);
    expect_same_bits(x.transpose().pad(w, PadOptions{PadMode::Reflect}, par), pad_r);
    expect_same_bits(x.pad(w, PadOptions{PadMode::Edge}, par), pad_e);
    expect_same_bits(y.take_along_axis(ind, 0, par), take);
    // The error for a bad index is the same on every engine too.
    std::vector<std::int64_t> bad = random_indices(13 * 30011, 7, 9);
    bad[100000] = 99;
    bad[200000] = -98;
    const Error err = expect_error([&] { y.take_along_axis(index_tensor({13, 30011}, bad), 0, par); });
    EXPECT_THAT(err.what(), HasSubstr("index 99 is out of range"));
  }
  // Reference check of the large cases on the serial engine.
  expect_values<double>(cat, {7, 40001}, ref_concat<double>({a, b, c}, 0, {7, 40001}));
  Shape out_shape;
  expect_values<float>(take, {13, 30011}, ref_take_along<float>(y, ind, 0, out_shape));
}

}  // namespace
