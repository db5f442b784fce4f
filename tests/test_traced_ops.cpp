// The traced front door op by op: every TracedTensor op, compiled and run, gives the eager
// result bit for bit (dtype, shape and every byte; NaN matches NaN) on the same engine with the
// same inputs, with the default passes, without elementwise fusion and without any pass (each
// program run twice: on the serial engine, then again on a parallel one).
// Then build-time errors (same kind, op and detail as eager, pointing at this file), the
// runtime's checks of its inputs, and the seed example of docs/traced.md.
//
// Each op case is one line: a name, its inputs and one generic lambda `(s, v)` that runs once
// with an EagerSession and once with TracedKit (below), which spells TracedTensor's ops the way
// EagerSession does (and passes the case's source line on). Inputs are placeholders unless
// marked constant (K).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tensora/tensora.hpp"
#include "test_support.hpp"

namespace {

namespace ta = tensora;
using enum ta::DType;
using ta::DType;
using ta::Shape;
using ta::TracedTensor;
using tensora_test::expect_error;
using Axes = std::vector<std::int64_t>;

// The base name errors print for this file ("(at test_traced_ops.cpp:LINE)").
std::string this_file() {
  const std::string f = ta::SourceLocation::current().file_name();
  return f.substr(f.find_last_of('/') + 1);
}

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// ---- TracedTensor with EagerSession's spelling -------------------------------------------------

struct TracedKit {
  using T = TracedTensor;
  using L = ta::SourceLocation;
  // clang-format off
  // Spelled from the catalog rows, so a new row is covered here without an edit.
#define TRACED_KIT_BINARY(op, ...)                                                           \
  T op(const T& a, const T& b, L w = L::current()) const { return a.op(b, w); }             \
  T op(const T& a, ta::Scalar b, L w = L::current()) const { return a.op(b, w); }
  TENSORA_BINARY_OPS(TRACED_KIT_BINARY)
#undef TRACED_KIT_BINARY
#define TRACED_KIT_UNARY(op, ...) T op(const T& x, L w = L::current()) const { return x.op(w); }
  TENSORA_UNARY_OPS(TRACED_KIT_UNARY)
#undef TRACED_KIT_UNARY
#define TRACED_KIT_REDUCE_Axes(op)                                                             \
  T op(const T& x, Axes axes, ta::ReduceOptions o = {}, L w = L::current()) const {           \
    return x.op(std::move(axes), o, w);                                                        \
  }                                                                                            \
  T op(const T& x, L w = L::current()) const { return x.op(w); }
#define TRACED_KIT_AXIS(op, ...) T op(const T& x, std::int64_t axis, L w = L::current()) const { return x.op(axis, w); }
#define TRACED_KIT_REDUCE_Axis(op) TRACED_KIT_AXIS(op)
#define TRACED_KIT_REDUCE_Scan(op) TRACED_KIT_AXIS(op)
#define TRACED_KIT_REDUCE(op, Enum, accepts, result, ad, form, ...) TRACED_KIT_REDUCE_##form(op)
  TENSORA_REDUCTIONS(TRACED_KIT_REDUCE)
  TENSORA_AXIS_OPS(TRACED_KIT_AXIS)
  TRACED_KIT_AXIS(unsqueeze)
#undef TRACED_KIT_REDUCE
#undef TRACED_KIT_REDUCE_Axes
#undef TRACED_KIT_REDUCE_Axis
#undef TRACED_KIT_REDUCE_Scan
#undef TRACED_KIT_AXIS
  // clang-format on
  T clamp(const T& x, ta::Scalar lo, ta::Scalar hi, L w = L::current()) const { return x.clamp(lo, hi, w); }
  T clamp(const T& x, const T& lo, const T& hi, L w = L::current()) const { return x.clamp(lo, hi, w); }
  T select(const T& p, const T& a, const T& b, L w = L::current()) const { return ta::select(p, a, b, w); }
  T where(const T& p, const T& a, const T& b, L w = L::current()) const { return ta::where(p, a, b, w); }
  T convert(const T& x, DType d, L w = L::current()) const { return x.convert(d, w); }
  T cast(const T& x, DType d, L w = L::current()) const { return x.cast(d, w); }
  T matmul(const T& a, const T& b, L w = L::current()) const { return a.matmul(b, w); }
  T dot_general(const T& a, const T& b, ta::DotGeneralConfig c, L w = L::current()) const {
    return a.dot_general(b, std::move(c), w);
  }
  T einsum(std::string_view subscripts, std::vector<T> xs, L w = L::current()) const {
    return ta::einsum(subscripts, std::move(xs), w);
  }
  T reshape(const T& x, Shape s, L w = L::current()) const { return x.reshape(std::move(s), w); }
  T permute(const T& x, Axes axes, L w = L::current()) const { return x.permute(std::move(axes), w); }
  T transpose(const T& x, L w = L::current()) const { return x.transpose(w); }
  T transpose(const T& x, std::int64_t a, std::int64_t b, L w = L::current()) const { return x.transpose(a, b, w); }
  T broadcast_to(const T& x, Shape s, L w = L::current()) const { return x.broadcast_to(std::move(s), w); }
  T expand(const T& x, Shape s, L w = L::current()) const { return x.expand(std::move(s), w); }
  std::vector<T> split(const T& x, std::vector<std::int64_t> sizes, std::int64_t axis, L w = L::current()) const {
    return x.split(std::move(sizes), axis, w);
  }
  T slice(const T& x, std::int64_t axis, std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
          std::int64_t step = 1, L w = L::current()) const {
    return x.slice(axis, start, stop, step, w);
  }
  T squeeze(const T& x, Axes axes, L w = L::current()) const { return x.squeeze(std::move(axes), w); }
  T reverse(const T& x, Axes axes, L w = L::current()) const { return x.reverse(std::move(axes), w); }
  T pad(const T& x, std::vector<std::pair<std::int64_t, std::int64_t>> widths, ta::PadOptions o = {},
        L w = L::current()) const {
    return x.pad(std::move(widths), o, w);
  }
  T concat(std::vector<T> xs, std::int64_t axis, L w = L::current()) const { return ta::concat(std::move(xs), axis, w); }
  T stack(std::vector<T> xs, std::int64_t axis, L w = L::current()) const { return ta::stack(std::move(xs), axis, w); }
  T take_along_axis(const T& x, const T& i, std::int64_t axis, L w = L::current()) const {
    return x.take_along_axis(i, axis, w);
  }
  T gather(const T& x, const T& i, std::int64_t axis, L w = L::current()) const { return x.gather(i, axis, w); }
  T index_select(const T& x, std::int64_t axis, const T& i, L w = L::current()) const {
    return x.index_select(axis, i, w);
  }
  T scatter_add(const T& x, std::int64_t axis, const T& i, const T& src, L w = L::current()) const {
    return x.scatter_add(axis, i, src, w);
  }
  T tril(const T& x, std::int64_t k, L w = L::current()) const { return x.tril(k, w); }
  T triu(const T& x, std::int64_t k, L w = L::current()) const { return x.triu(k, w); }
  T diagonal(const T& x, std::int64_t offset = 0, std::int64_t a1 = 0, std::int64_t a2 = 1, L w = L::current()) const {
    return x.diagonal(offset, a1, a2, w);
  }
  T embed_diag(const T& x, std::int64_t offset, L w = L::current()) const { return x.embed_diag(offset, w); }
};

// ---- cases ---------------------------------------------------------------------------------

using TracedFn = std::function<std::vector<TracedTensor>(TracedKit&, const std::vector<TracedTensor>&)>;
using EagerFn = std::function<std::vector<ta::EagerTensor>(ta::EagerSession&, const std::vector<ta::EagerTensor>&)>;

template <class X>
std::vector<X> as_vec(X x) {
  return {std::move(x)};
}
template <class X>
std::vector<X> as_vec(std::vector<X> xs) {
  return xs;
}

// One op expression for both front doors.
#define OP(...) [](auto& s, const auto& v) { (void)s, (void)v; return __VA_ARGS__; }

// How to make one input. Random values are uniform F64 in [lo, hi) cast to the dtype (ints
// truncate; Bool is `> 0`; complex has random real and imaginary parts).
struct In {
  DType dtype = F32;
  Shape shape;
  double lo = -1, hi = 1;
  bool integral = false;  // float dtypes: whole numbers (so comparisons see ties)
  bool strided = false;   // a transposed (rank >= 2) or reversed (rank 1) view
  bool constant = false;  // a TracedTensor::constant instead of a placeholder
  std::function<ta::Tensor(ta::Device)> make;  // explicit values
};

In R(DType d, Shape s, double lo = -1, double hi = 1) {
  In in;
  in.dtype = d;
  in.shape = std::move(s);
  in.lo = lo;
  in.hi = hi;
  return in;
}
In Z(DType d, Shape s, double lo, double hi) {
  In in = R(d, std::move(s), lo, hi);
  in.integral = true;
  return in;
}
In S(DType d, Shape s, double lo = -1, double hi = 1) {
  In in = R(d, std::move(s), lo, hi);
  in.strided = true;
  return in;
}
In K(In in) {
  in.constant = true;
  return in;
}
template <class T>
In V(Shape s, std::vector<T> values) {
  In in;
  in.dtype = ta::dtype_of<T>();
  in.shape = s;
  in.make = [s, values](ta::Device d) { return ta::Tensor::from_vec_col_major(s, values, ta::TensorOptions(d)); };
  return in;
}
In Idx(Shape s, std::vector<std::int64_t> values) { return V<std::int64_t>(std::move(s), std::move(values)); }

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kNaN64 = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf64 = std::numeric_limits<double>::infinity();

struct OpCase {
  std::string name;
  std::vector<In> inputs;
  TracedFn traced;
  EagerFn eager;
  int device = 0;  // cpu:1 has F64 as its default float (tests/test_support.hpp)
};

void PrintTo(const OpCase& c, std::ostream* os) { *os << c.name; }

template <class F>
OpCase C(std::string name, std::vector<In> inputs, F f, int device = 0) {
  return OpCase{std::move(name), std::move(inputs),
                [f](TracedKit& k, const std::vector<TracedTensor>& v) { return as_vec(f(k, v)); },
                [f](ta::EagerSession& s, const std::vector<ta::EagerTensor>& v) { return as_vec(f(s, v)); }, device};
}
// The same case on cpu:1, whose default float is F64.
template <class F>
OpCase D1(std::string name, std::vector<In> inputs, F f) {
  return C(std::move(name), std::move(inputs), f, tensora_test::kF64Device);
}

const ta::PadOptions kEdge{ta::PadMode::Edge, 0};
const ta::PadOptions kReflect{ta::PadMode::Reflect, 0};

// clang-format off
std::vector<OpCase> binary_cases() {
  return {
    C("add_f32_f64_broadcast", {R(F32, {2, 3}), R(F64, {3})}, OP(s.add(v[0], v[1]))),
    C("add_i32_f32", {R(I32, {2, 3}, -50, 50), R(F32, {2, 3})}, OP(s.add(v[0], v[1]))),
    C("add_u8_i8", {R(U8, {4}, 0, 250), R(I8, {4}, -100, 100)}, OP(s.add(v[0], v[1]))),
    C("add_bool_bool", {R(Bool, {5}), R(Bool, {5})}, OP(s.add(v[0], v[1]))),
    C("add_c64_f64", {R(C64, {3}), R(F64, {3})}, OP(s.add(v[0], v[1]))),
    C("add_f16_bf16", {R(F16, {2, 2}), R(BF16, {2, 2})}, OP(s.add(v[0], v[1]))),
    C("add_u64_i8", {R(U64, {3}, 0, 100), R(I8, {3}, -100, 100)}, OP(s.add(v[0], v[1]))),
    C("add_strided_f32", {S(F32, {3, 4}), R(F32, {3, 4})}, OP(s.add(v[0], v[1]))),
    C("add_i64_wraps", {V<std::int64_t>({2}, {INT64_MAX, INT64_MIN}), Idx({2}, {1, -1})}, OP(s.add(v[0], v[1]))),
    C("sub_f64_f32_outer", {R(F64, {3, 1}), R(F32, {1, 4})}, OP(s.sub(v[0], v[1]))),
    C("sub_i16_u8", {R(I16, {4}, -1000, 1000), R(U8, {4}, 0, 250)}, OP(s.sub(v[0], v[1]))),
    C("sub_strided_i32", {S(I32, {3, 4}, -50, 50), S(I32, {3, 4}, -50, 50)}, OP(s.sub(v[0], v[1]))),
    C("mul_f16", {R(F16, {3, 3}), R(F16, {3})}, OP(s.mul(v[0], v[1]))),
    C("mul_c128_c64", {R(C128, {2, 2}), R(C64, {2})}, OP(s.mul(v[0], v[1]))),
    C("mul_i32_bool", {R(I32, {4}, -9, 9), R(Bool, {4})}, OP(s.mul(v[0], v[1]))),
    C("div_f32_f64", {R(F32, {2, 3}), R(F64, {2, 3}, 0.5, 2)}, OP(s.div(v[0], v[1]))),
    C("div_i32_i64", {R(I32, {4}, -20, 20), R(I64, {4}, 1, 9)}, OP(s.div(v[0], v[1]))),
    C("div_c64", {R(C64, {3}), R(C64, {3})}, OP(s.div(v[0], v[1]))),
    C("div_bf16_strided", {S(BF16, {2, 3}), R(BF16, {2, 3}, 0.5, 2)}, OP(s.div(v[0], v[1]))),
    C("div_by_zero_f32", {V<float>({4}, {1, -1, 0, kNaN}), V<float>({4}, {0, 0, 0, 1})}, OP(s.div(v[0], v[1]))),
    C("floor_div_i32", {R(I32, {6}, -50, 50), R(I32, {6}, 1, 7)}, OP(s.floor_div(v[0], v[1]))),
    C("floor_div_f64_f32", {R(F64, {2, 3}, -5, 5), R(F32, {3}, 0.5, 2)}, OP(s.floor_div(v[0], v[1]))),
    C("rem_i64", {R(I64, {6}, -50, 50), R(I64, {6}, 1, 7)}, OP(s.rem(v[0], v[1]))),
    C("rem_f32_f64", {R(F32, {2, 3}, -5, 5), R(F64, {2, 3}, 0.5, 2)}, OP(s.rem(v[0], v[1]))),
    C("pow_f64_f32", {R(F64, {2, 3}, 0.5, 2), R(F32, {2, 3}, -2, 2)}, OP(s.pow(v[0], v[1]))),
    C("pow_i32", {R(I32, {5}, -3, 4), R(I32, {5}, 0, 4)}, OP(s.pow(v[0], v[1]))),
    C("pow_c64", {R(C64, {3}, 0.2, 1), R(C64, {3})}, OP(s.pow(v[0], v[1]))),
    C("maximum_f32_i32", {R(F32, {2, 3}, -5, 5), R(I32, {2, 3}, -5, 5)}, OP(s.maximum(v[0], v[1]))),
    C("maximum_u16_i8", {R(U16, {4}, 0, 300), R(I8, {4}, -100, 100)}, OP(s.maximum(v[0], v[1]))),
    C("maximum_nan_f64", {V<double>({3}, {kNaN64, 1, 2}), V<double>({3}, {0, kNaN64, 1})}, OP(s.maximum(v[0], v[1]))),
    C("minimum_f64_bf16", {R(F64, {3}), R(BF16, {3})}, OP(s.minimum(v[0], v[1]))),
    C("minimum_bool", {R(Bool, {4}), R(Bool, {4})}, OP(s.minimum(v[0], v[1]))),
    C("atan2_f32_f64", {R(F32, {2, 3}), R(F64, {2, 3})}, OP(s.atan2(v[0], v[1]))),
    C("atan2_i32_f16", {R(I32, {4}, -5, 5), R(F16, {4})}, OP(s.atan2(v[0], v[1]))),
    C("hypot_f32_f64", {R(F32, {2, 3}, -3, 3), R(F64, {3}, -3, 3)}, OP(s.hypot(v[0], v[1]))),
    C("hypot_i32", {Z(I32, {4}, -5, 5), Z(I32, {4}, -5, 5)}, OP(s.hypot(v[0], v[1]))),
    C("logaddexp_f32_strided", {S(F32, {3, 4}, -50, 50), R(F32, {3, 4}, -50, 50)}, OP(s.logaddexp(v[0], v[1]))),
    C("logaddexp_special_f64", {V<double>({4}, {-kInf64, kInf64, 1000, kNaN64}), V<double>({4}, {-kInf64, kInf64, 1000, 0})}, OP(s.logaddexp(v[0], v[1]))),
    C("xlogy_f64_zeros", {V<double>({4}, {0, 0, 2, 1}), V<double>({4}, {0, kNaN64, 3, 0})}, OP(s.xlogy(v[0], v[1]))),
    C("xlogy_bf16_f32", {R(BF16, {4}, 0, 2), R(F32, {4}, 0.5, 2)}, OP(s.xlogy(v[0], v[1]))),
    C("copysign_f32_signed_zero", {R(F32, {4}, -2, 2), V<float>({4}, {-0.0f, 0.0f, -1, 1})}, OP(s.copysign(v[0], v[1]))),
    C("eq_i32_f32", {Z(I32, {6}, 0, 3), Z(F32, {6}, 0, 3)}, OP(s.eq(v[0], v[1]))),
    C("eq_c64_c128", {R(C64, {3}), R(C128, {3})}, OP(s.eq(v[0], v[1]))),
    C("ne_u8_i64", {Z(U8, {6}, 0, 3), Z(I64, {6}, 0, 3)}, OP(s.ne(v[0], v[1]))),
    C("lt_i64_f64", {Z(I64, {6}, -3, 3), Z(F64, {6}, -3, 3)}, OP(s.lt(v[0], v[1]))),
    C("le_u8_i8", {Z(U8, {6}, 0, 3), Z(I8, {6}, -1, 3)}, OP(s.le(v[0], v[1]))),
    C("gt_f16_f32", {Z(F16, {2, 3}, -2, 2), Z(F32, {3}, -2, 2)}, OP(s.gt(v[0], v[1]))),
    C("ge_bool_i32", {R(Bool, {6}), Z(I32, {6}, -1, 2)}, OP(s.ge(v[0], v[1]))),
    C("logical_and_bool_f32", {R(Bool, {6}), Z(F32, {6}, -1, 2)}, OP(s.logical_and(v[0], v[1]))),
    C("logical_or_i32_bool", {Z(I32, {6}, -1, 2), R(Bool, {6})}, OP(s.logical_or(v[0], v[1]))),
    C("logical_xor_f64_i64", {Z(F64, {2, 3}, -1, 2), Z(I64, {3}, -1, 2)}, OP(s.logical_xor(v[0], v[1]))),
    C("logical_and_c64", {R(C64, {3}), Z(F32, {3}, -1, 2)}, OP(s.logical_and(v[0], v[1]))),
  };
}

std::vector<OpCase> scalar_cases() {
  return {
    C("add_i32_int", {Z(I32, {4}, -9, 9)}, OP(s.add(v[0], 2))),
    C("add_i32_float", {Z(I32, {4}, -9, 9)}, OP(s.add(v[0], 0.5))),
    C("add_u8_int", {Z(U8, {4}, 0, 250)}, OP(s.add(v[0], 55))),
    C("add_f16_float", {R(F16, {4})}, OP(s.add(v[0], 0.1))),
    C("add_bool_int", {R(Bool, {4})}, OP(s.add(v[0], 1))),
    C("add_i32_complex", {Z(I32, {3}, -9, 9)}, OP(s.add(v[0], std::complex<double>(1, 2)))),
    C("sub_i8_int", {Z(I8, {4}, -100, 100)}, OP(s.sub(v[0], 3))),
    C("sub_i16_float", {Z(I16, {4}, -100, 100)}, OP(s.sub(v[0], 1.5))),
    C("mul_u8_int_wraps", {Z(U8, {4}, 0, 250)}, OP(s.mul(v[0], 3))),
    C("mul_f64_complex", {R(F64, {3})}, OP(s.mul(v[0], std::complex<double>(0, 1)))),
    C("mul_bf16_float", {R(BF16, {5})}, OP(s.mul(v[0], 0.3))),
    C("div_i32_int", {Z(I32, {4}, -9, 9)}, OP(s.div(v[0], 2))),
    C("div_f32_float", {R(F32, {4})}, OP(s.div(v[0], 3.0))),
    C("floor_div_i64_int", {Z(I64, {5}, -20, 20)}, OP(s.floor_div(v[0], 3))),
    C("floor_div_f32_float", {R(F32, {5}, -2, 2)}, OP(s.floor_div(v[0], 0.3))),
    C("rem_i32_negative_int", {Z(I32, {5}, -20, 20)}, OP(s.rem(v[0], -4))),
    C("rem_f64_float", {R(F64, {5}, -2, 2)}, OP(s.rem(v[0], 0.7))),
    C("pow_f32_int", {R(F32, {5}, -2, 2)}, OP(s.pow(v[0], 2))),
    C("pow_f64_half", {R(F64, {5}, 0, 4)}, OP(s.pow(v[0], 0.5))),
    C("pow_i32_int", {Z(I32, {5}, -5, 5)}, OP(s.pow(v[0], 3))),
    C("pow_f16_float", {R(F16, {5}, 0.1, 2)}, OP(s.pow(v[0], 1.5))),
    C("maximum_i32_int", {Z(I32, {5}, -5, 5)}, OP(s.maximum(v[0], 0))),
    C("maximum_i32_float", {Z(I32, {5}, -5, 5)}, OP(s.maximum(v[0], 0.5))),
    C("minimum_f64_float", {R(F64, {5})}, OP(s.minimum(v[0], 0.25))),
    C("atan2_f32_float", {R(F32, {5})}, OP(s.atan2(v[0], 1.0))),
    C("atan2_i32_int", {Z(I32, {5}, -5, 5)}, OP(s.atan2(v[0], 2))),
    C("eq_i32_int", {Z(I32, {6}, 0, 3)}, OP(s.eq(v[0], 1))),
    C("ne_f32_float", {Z(F32, {6}, 0, 3)}, OP(s.ne(v[0], 1.0))),
    C("lt_f32_float", {R(F32, {6})}, OP(s.lt(v[0], 0.0))),
    C("le_u8_int", {Z(U8, {6}, 0, 200)}, OP(s.le(v[0], 100))),
    C("gt_i32_float", {Z(I32, {6}, -3, 3)}, OP(s.gt(v[0], 1.5))),
    C("ge_i64_int", {Z(I64, {6}, -3, 3)}, OP(s.ge(v[0], -1))),
    C("logical_and_f32_bool", {Z(F32, {6}, -1, 2)}, OP(s.logical_and(v[0], true))),
    C("logical_or_i32_int", {Z(I32, {6}, -1, 2)}, OP(s.logical_or(v[0], 0))),
    C("logical_xor_bool_bool", {R(Bool, {6})}, OP(s.logical_xor(v[0], true))),
  };
}

std::vector<OpCase> operator_cases() {
  return {
    C("op_add_f32_f64", {R(F32, {2, 3}), R(F64, {2, 3})}, OP(v[0] + v[1])),
    C("op_sub_i32_f32", {Z(I32, {2, 3}, -9, 9), R(F32, {3})}, OP(v[0] - v[1])),
    C("op_mul_i16_u16", {Z(I16, {4}, -300, 300), Z(U16, {4}, 0, 300)}, OP(v[0] * v[1])),
    C("op_div_f64_f32", {R(F64, {2, 3}), R(F32, {2, 3}, 0.5, 2)}, OP(v[0] / v[1])),
    C("op_div_i32_i32", {Z(I32, {4}, -9, 9), Z(I32, {4}, 1, 9)}, OP(v[0] / v[1])),
    C("op_add_scalar_right_i32", {Z(I32, {4}, -9, 9)}, OP(v[0] + 2)),
    C("op_sub_scalar_right_f16", {R(F16, {4})}, OP(v[0] - 0.25)),
    C("op_mul_scalar_right_u8", {Z(U8, {4}, 0, 250)}, OP(v[0] * 2)),
    C("op_div_scalar_right_i32", {Z(I32, {4}, -9, 9)}, OP(v[0] / 4)),
    C("op_add_scalar_left_i64", {Z(I64, {4}, -9, 9)}, OP(3 + v[0])),
    C("op_sub_scalar_left_f32", {R(F32, {4})}, OP(1.5 - v[0])),
    C("op_sub_scalar_left_i32", {Z(I32, {4}, -9, 9)}, OP(10 - v[0])),
    C("op_mul_scalar_left_c64", {R(C64, {3})}, OP(std::complex<double>(0, 1) * v[0])),
    C("op_mul_scalar_left_i8", {Z(I8, {3}, -9, 9)}, OP(2.5 * v[0])),
    C("op_div_scalar_left_f64", {R(F64, {4}, 0.5, 2)}, OP(1.0 / v[0])),
    C("op_div_scalar_left_i32", {Z(I32, {4}, 1, 9)}, OP(1 / v[0])),
    C("op_neg_f32", {R(F32, {2, 3})}, OP(-v[0])),
    C("op_neg_i8", {Z(I8, {4}, -100, 100)}, OP(-v[0])),
    C("op_neg_c128", {R(C128, {3})}, OP(-v[0])),
  };
}

std::vector<OpCase> unary_cases() {
  return {
    C("neg_f64", {R(F64, {2, 3})}, OP(s.neg(v[0]))),
    C("neg_i32_strided", {S(I32, {3, 4}, -50, 50)}, OP(s.neg(v[0]))),
    C("abs_f32_strided", {S(F32, {3, 4})}, OP(s.abs(v[0]))),
    C("abs_i16", {Z(I16, {5}, -100, 100)}, OP(s.abs(v[0]))),
    C("abs_c64", {R(C64, {2, 3})}, OP(s.abs(v[0]))),
    C("abs_c128", {R(C128, {3})}, OP(s.abs(v[0]))),
    C("sign_f32", {V<float>({5}, {-2, 0, 3, -0.0f, kNaN})}, OP(s.sign(v[0]))),
    C("sign_i64", {Z(I64, {5}, -3, 3)}, OP(s.sign(v[0]))),
    C("sign_c64", {R(C64, {3})}, OP(s.sign(v[0]))),
    C("exp_f32", {R(F32, {3, 4}, -3, 3)}, OP(s.exp(v[0]))),
    C("exp_f64", {R(F64, {3, 4}, -3, 3)}, OP(s.exp(v[0]))),
    C("exp_i64", {Z(I64, {4}, -3, 3)}, OP(s.exp(v[0]))),
    C("exp_c64", {R(C64, {3})}, OP(s.exp(v[0]))),
    C("exp_f16", {R(F16, {4}, -3, 3)}, OP(s.exp(v[0]))),
    C("exp_special_f32", {V<float>({6}, {-kInf, kInf, kNaN, 0, 100, -200})}, OP(s.exp(v[0]))),
    C("expm1_f64", {R(F64, {4})}, OP(s.expm1(v[0]))),
    C("expm1_bf16", {R(BF16, {4})}, OP(s.expm1(v[0]))),
    C("log_f32", {R(F32, {3, 4}, 0.1, 3)}, OP(s.log(v[0]))),
    C("log_f64_negative", {R(F64, {6})}, OP(s.log(v[0]))),
    C("log_c128", {R(C128, {3})}, OP(s.log(v[0]))),
    C("log1p_f32", {R(F32, {5}, 0, 2)}, OP(s.log1p(v[0]))),
    C("sqrt_f64", {R(F64, {5}, 0, 4)}, OP(s.sqrt(v[0]))),
    C("sqrt_i32", {Z(I32, {5}, 0, 20)}, OP(s.sqrt(v[0]))),
    C("sqrt_c64", {R(C64, {3})}, OP(s.sqrt(v[0]))),
    C("rsqrt_f32", {R(F32, {5}, 0.1, 4)}, OP(s.rsqrt(v[0]))),
    C("sin_f32", {R(F32, {3, 4}, -4, 4)}, OP(s.sin(v[0]))),
    C("sin_c64", {R(C64, {3})}, OP(s.sin(v[0]))),
    C("cos_f64", {R(F64, {3, 4}, -4, 4)}, OP(s.cos(v[0]))),
    C("tan_f32", {R(F32, {5})}, OP(s.tan(v[0]))),
    C("tanh_f64", {R(F64, {5}, -3, 3)}, OP(s.tanh(v[0]))),
    C("tanh_bf16", {R(BF16, {5}, -3, 3)}, OP(s.tanh(v[0]))),
    C("sigmoid_f32", {R(F32, {5}, -5, 5)}, OP(s.sigmoid(v[0]))),
    C("erf_f64", {R(F64, {5}, -2, 2)}, OP(s.erf(v[0]))),
    C("erf_f16", {R(F16, {5}, -2, 2)}, OP(s.erf(v[0]))),
    C("erfc_f64", {R(F64, {5}, -3, 3)}, OP(s.erfc(v[0]))),
    C("erfinv_f32_edges", {V<float>({6}, {-1, 1, 0.5f, -0.999f, 2, kNaN})}, OP(s.erfinv(v[0]))),
    C("lgamma_f64", {R(F64, {5}, -3, 8)}, OP(s.lgamma(v[0]))),
    C("digamma_f32_poles", {V<float>({5}, {0, -1, 0.5f, 7.5f, -2.5f})}, OP(s.digamma(v[0]))),
    C("trigamma_f64", {R(F64, {5}, 0.1, 9)}, OP(s.trigamma(v[0]))),
    C("sinh_f32", {R(F32, {5}, -3, 3)}, OP(s.sinh(v[0]))),
    C("cosh_c64", {R(C64, {3})}, OP(s.cosh(v[0]))),
    C("asin_f64_out_of_domain", {R(F64, {6}, -1.5, 1.5)}, OP(s.asin(v[0]))),
    C("acos_f16", {R(F16, {5})}, OP(s.acos(v[0]))),
    C("atan_i32", {Z(I32, {4}, -5, 5)}, OP(s.atan(v[0]))),
    C("asinh_strided_f32", {S(F32, {3, 4}, -3, 3)}, OP(s.asinh(v[0]))),
    C("acosh_f64", {R(F64, {5}, 1, 4)}, OP(s.acosh(v[0]))),
    C("atanh_c128", {R(C128, {3})}, OP(s.atanh(v[0]))),
    C("exp2_f32", {R(F32, {5}, -5, 5)}, OP(s.exp2(v[0]))),
    C("log2_f64", {R(F64, {5}, 0.1, 8)}, OP(s.log2(v[0]))),
    C("log10_c64", {R(C64, {3})}, OP(s.log10(v[0]))),
    C("trunc_f32", {V<float>({5}, {-2.5f, 2.5f, -0.4f, kInf, kNaN})}, OP(s.trunc(v[0]))),
    C("trunc_i16", {Z(I16, {4}, -9, 9)}, OP(s.trunc(v[0]))),
    C("reciprocal_f64", {R(F64, {5}, 0.5, 2)}, OP(s.reciprocal(v[0]))),
    C("reciprocal_i32_promotes", {Z(I32, {4}, 1, 5)}, OP(s.reciprocal(v[0]))),
    C("square_i8_wraps", {Z(I8, {4}, -100, 100)}, OP(s.square(v[0]))),
    C("square_c64", {R(C64, {3})}, OP(s.square(v[0]))),
    C("floor_f32_strided", {S(F32, {3, 4}, -5, 5)}, OP(s.floor(v[0]))),
    C("floor_i32", {Z(I32, {4}, -5, 5)}, OP(s.floor(v[0]))),
    C("ceil_f64", {R(F64, {5}, -5, 5)}, OP(s.ceil(v[0]))),
    C("round_f32_halves", {V<float>({7}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, -2.6f})}, OP(s.round(v[0]))),
    C("round_f64", {R(F64, {5}, -5, 5)}, OP(s.round(v[0]))),
    C("conj_c64", {R(C64, {3})}, OP(s.conj(v[0]))),
    C("conj_f32", {R(F32, {3})}, OP(s.conj(v[0]))),
    C("real_c128", {R(C128, {3})}, OP(s.real(v[0]))),
    C("real_f32", {R(F32, {3})}, OP(s.real(v[0]))),
    C("imag_c64", {R(C64, {3})}, OP(s.imag(v[0]))),
    C("imag_f64", {R(F64, {3})}, OP(s.imag(v[0]))),
    C("logical_not_f32", {Z(F32, {5}, -1, 2)}, OP(s.logical_not(v[0]))),
    C("logical_not_bool_strided", {S(Bool, {3, 4})}, OP(s.logical_not(v[0]))),
    C("isnan_f32", {V<float>({5}, {kNaN, kInf, -kInf, 0, 1})}, OP(s.isnan(v[0]))),
    C("isnan_i32", {Z(I32, {3}, -5, 5)}, OP(s.isnan(v[0]))),
    C("isinf_f64", {V<double>({5}, {kNaN64, kInf64, -kInf64, 0, 1})}, OP(s.isinf(v[0]))),
    C("isfinite_f32", {V<float>({5}, {kNaN, kInf, -kInf, 0, 1})}, OP(s.isfinite(v[0]))),
    C("isfinite_c64", {R(C64, {3})}, OP(s.isfinite(v[0]))),
    C("clamp_scalar_f32", {R(F32, {3, 4})}, OP(s.clamp(v[0], -0.5, 0.5))),
    C("clamp_scalar_i32", {Z(I32, {6}, -9, 9)}, OP(s.clamp(v[0], -2, 3))),
    C("clamp_float_bounds_i32", {Z(I32, {6}, -3, 3)}, OP(s.clamp(v[0], 0.5, 1.5))),
    C("clamp_tensor_f32_f64", {R(F32, {3, 3}), R(F64, {3, 3}, -1, -0.2), R(F32, {3}, 0.2, 1)}, OP(s.clamp(v[0], v[1], v[2]))),
    C("clamp_tensor_i32", {Z(I32, {6}, -9, 9), Z(I32, {6}, -5, 0), Z(I32, {1}, 0, 5)}, OP(s.clamp(v[0], v[1], v[2]))),
    C("convert_f32_f64", {R(F32, {2, 3})}, OP(s.convert(v[0], F64))),
    C("convert_i32_f64", {Z(I32, {4}, -99, 99)}, OP(s.convert(v[0], F64))),
    C("convert_f16_f32", {R(F16, {4})}, OP(s.convert(v[0], F32))),
    C("convert_u8_i16", {Z(U8, {4}, 0, 250)}, OP(s.convert(v[0], I16))),
    C("convert_bool_c64", {R(Bool, {4})}, OP(s.convert(v[0], C64))),
    C("convert_same_dtype", {R(F32, {4})}, OP(s.convert(v[0], F32))),
    C("cast_f64_f32", {R(F64, {2, 3})}, OP(s.cast(v[0], F32))),
    C("cast_f32_i32", {R(F32, {6}, -1000, 1000)}, OP(s.cast(v[0], I32))),
    C("cast_f64_f16", {R(F64, {6}, -100, 100)}, OP(s.cast(v[0], F16))),
    C("cast_f32_u8_saturates", {V<float>({5}, {-300, 300, 12.7f, kNaN, 255.5f})}, OP(s.cast(v[0], U8))),
    C("cast_f64_bool", {Z(F64, {5}, -1, 2)}, OP(s.cast(v[0], Bool))),
    C("cast_i64_i8", {Z(I64, {5}, -1000, 1000)}, OP(s.cast(v[0], I8))),
    C("cast_strided_f64_f32", {S(F64, {3, 4})}, OP(s.cast(v[0], F32))),
  };
}

std::vector<OpCase> reduction_cases() {
  const ta::ReduceOptions keep{.keepdims = true};
  return {
    C("sum_all_i32", {Z(I32, {3, 4}, -50, 50)}, OP(s.sum(v[0]))),
    C("sum_axis_keepdims_f32", {R(F32, {3, 4, 2})}, OP(s.sum(v[0], {1}, {.keepdims = true}))),
    C("sum_axis0_f16", {R(F16, {3, 4})}, OP(s.sum(v[0], {0}))),
    C("sum_bool", {R(Bool, {3, 4})}, OP(s.sum(v[0], {1}))),
    C("sum_strided_f32", {S(F32, {5, 6})}, OP(s.sum(v[0], {0}))),
    C("sum_c64_negative_axis", {R(C64, {3, 4})}, OP(s.sum(v[0], {-1}))),
    C("sum_no_axes_f64", {R(F64, {3, 4})}, OP(s.sum(v[0], Axes{}))),
    C("sum_long_f32", {R(F32, {40000})}, OP(s.sum(v[0]))),
    C("prod_all_f64", {R(F64, {3, 3}, 0.5, 1.5)}, OP(s.prod(v[0]))),
    C("prod_axes_keepdims_i64", {Z(I64, {2, 3, 2}, -3, 3)}, OP(s.prod(v[0], {0, 2}, {.keepdims = true}))),
    C("mean_all_i32", {Z(I32, {3, 4}, -9, 9)}, OP(s.mean(v[0]))),
    C("mean_axis_keepdims_f64", {R(F64, {3, 4})}, OP(s.mean(v[0], {-1}, {.keepdims = true}))),
    C("mean_c64", {R(C64, {3, 2})}, OP(s.mean(v[0], {0}))),
    C("max_all_f32", {R(F32, {3, 4})}, OP(s.max(v[0]))),
    C("max_axis_i16", {Z(I16, {3, 4}, -99, 99)}, OP(s.max(v[0], {0}))),
    C("max_keepdims_bf16", {R(BF16, {3, 4})}, OP(s.max(v[0], {1}, {.keepdims = true}))),
    C("max_nan_f32", {V<float>({2, 2}, {1, kNaN, 3, 4})}, OP(s.max(v[0], {0}))),
    C("min_all_f64", {R(F64, {3, 4})}, OP(s.min(v[0]))),
    C("min_axis_u8", {Z(U8, {3, 4}, 0, 250)}, OP(s.min(v[0], {1}))),
    C("logsumexp_all_f32", {R(F32, {3, 4}, -5, 5)}, OP(s.logsumexp(v[0]))),
    C("logsumexp_axis_keepdims_f64", {R(F64, {3, 4}, -5, 5)}, OP(s.logsumexp(v[0], {1}, {.keepdims = true}))),
    C("logsumexp_i32", {Z(I32, {4}, -5, 5)}, OP(s.logsumexp(v[0]))),
    C("var_all_f64", {R(F64, {3, 4})}, OP(s.var(v[0]))),
    C("var_ddof_f32", {R(F32, {3, 4})}, OP(s.var(v[0], {1}, {.keepdims = false, .ddof = 1}))),
    C("var_c64", {R(C64, {5})}, OP(s.var(v[0]))),
    C("std_all_f32", {R(F32, {3, 4})}, OP(s.std(v[0]))),
    C("std_axis_keepdims_f64", {R(F64, {3, 4})}, OP(s.std(v[0], {0}, {.keepdims = true, .ddof = 1}))),
    C("all_all_f32", {Z(F32, {3, 4}, 0, 3)}, OP(s.all(v[0]))),
    C("all_axis_bool", {R(Bool, {3, 4})}, OP(s.all(v[0], {1}))),
    C("any_all_i32", {Z(I32, {3, 4}, -1, 2)}, OP(s.any(v[0]))),
    C("any_axis_keepdims_bool", {R(Bool, {3, 4})}, OP(s.any(v[0], {0}, {.keepdims = true}))),
    C("argmax_f32", {R(F32, {3, 4})}, OP(s.argmax(v[0], 1))),
    C("argmax_i32_axis0", {Z(I32, {4, 3}, -3, 3)}, OP(s.argmax(v[0], 0))),
    C("argmin_f64_negative_axis", {R(F64, {3, 4})}, OP(s.argmin(v[0], -1))),
    C("argmin_bool", {R(Bool, {3, 4})}, OP(s.argmin(v[0], 0))),
    C("cumsum_f32_axis1", {R(F32, {3, 4})}, OP(s.cumsum(v[0], 1))),
    C("cumsum_i32_axis0", {Z(I32, {3, 4}, -9, 9)}, OP(s.cumsum(v[0], 0))),
    C("cumsum_f16", {R(F16, {6})}, OP(s.cumsum(v[0], 0))),
    C("cumprod_f64", {R(F64, {3, 4}, 0.5, 1.5)}, OP(s.cumprod(v[0], 0))),
    C("cumprod_i64", {Z(I64, {5}, -3, 3)}, OP(s.cumprod(v[0], -1))),
    C("softmax_f32_axis1", {R(F32, {3, 4}, -50, 50)}, OP(s.softmax(v[0], 1))),
    C("softmax_f64_strided", {S(F64, {3, 4}, -5, 5)}, OP(s.softmax(v[0], -1))),
    C("softmax_i32_promotes", {Z(I32, {4}, -3, 3)}, OP(s.softmax(v[0], 0))),
    C("log_softmax_f16", {R(F16, {2, 5}, -5, 5)}, OP(s.log_softmax(v[0], 1))),
    C("log_softmax_special_f64", {V<double>({2, 2}, {-kInf64, -kInf64, 0, 1})}, OP(s.log_softmax(v[0], 1))),
    C("sum_options_from_variable", {R(F64, {2, 3})}, ([keep](auto& s, const auto& v) { return s.sum(v[0], {0}, keep); })),
  };
}

std::vector<OpCase> contraction_cases() {
  return {
    C("matmul_2d_f32_f64", {R(F32, {3, 4}), R(F64, {4, 5})}, OP(s.matmul(v[0], v[1]))),
    C("matmul_1d_2d", {R(F64, {4}), R(F64, {4, 5})}, OP(s.matmul(v[0], v[1]))),
    C("matmul_2d_1d_i32_f32", {Z(I32, {3, 4}, -5, 5), R(F32, {4})}, OP(s.matmul(v[0], v[1]))),
    C("matmul_1d_1d", {R(F32, {6}), R(F32, {6})}, OP(s.matmul(v[0], v[1]))),
    C("matmul_batched_broadcast", {R(F32, {2, 1, 3, 4}), R(F32, {5, 4, 2})}, OP(s.matmul(v[0], v[1]))),
    C("matmul_batched_mixed", {R(F64, {2, 3, 4}), R(F32, {4, 2})}, OP(s.matmul(v[0], v[1]))),
    C("matmul_i64", {Z(I64, {2, 3}, -9, 9), Z(I64, {3, 2}, -9, 9)}, OP(s.matmul(v[0], v[1]))),
    C("matmul_c64_c128", {R(C64, {2, 3}), R(C128, {3, 2})}, OP(s.matmul(v[0], v[1]))),
    C("matmul_strided", {S(F64, {3, 4}), S(F64, {4, 2})}, OP(s.matmul(v[0], v[1]))),
    C("matmul_transposed_in_graph", {R(F32, {4, 3}), R(F32, {4, 5})}, OP(s.matmul(s.transpose(v[0]), v[1]))),
    C("matmul_both_transposed_batched", {R(F64, {2, 4, 3}), R(F64, {2, 5, 4})},
      OP(s.matmul(s.transpose(v[0], 1, 2), s.transpose(v[1], 1, 2)))),
    C("matmul_large_f32", {R(F32, {40, 70}), R(F32, {70, 30})}, OP(s.matmul(v[0], v[1]))),
    C("dot_general_batched_f64_f32", {R(F64, {2, 3, 4}), R(F32, {2, 4, 5})}, OP(s.dot_general(v[0], v[1], {{0}, {0}, {2}, {1}}))),
    C("dot_general_two_contracting", {R(F32, {3, 4, 5}), R(F32, {4, 5, 2})}, OP(s.dot_general(v[0], v[1], {{}, {}, {1, 2}, {0, 1}}))),
    C("dot_general_transposed_in_graph", {R(F64, {4, 3}), R(F64, {5, 4})},
      OP(s.dot_general(s.transpose(v[0]), s.transpose(v[1]), {{}, {}, {1}, {0}}))),
    C("dot_general_permuted_batch", {R(F32, {3, 2, 4}), R(F32, {4, 2, 5})},
      OP(s.dot_general(s.permute(v[0], {1, 0, 2}), s.permute(v[1], {1, 0, 2}), {{0}, {0}, {2}, {1}}))),
    C("einsum_ij_jk", {R(F32, {3, 4}), R(F64, {4, 5})}, OP(s.einsum("ij,jk->ik", {v[0], v[1]}))),
    C("einsum_bij_bjk", {R(F32, {2, 3, 4}), R(F32, {2, 4, 5})}, OP(s.einsum("bij,bjk->bik", {v[0], v[1]}))),
    C("einsum_diagonal", {R(F64, {4, 4})}, OP(s.einsum("ii->i", {v[0]}))),
    C("einsum_dot_f32_i32", {R(F32, {5}), Z(I32, {5}, -5, 5)}, OP(s.einsum("i,i->", {v[0], v[1]}))),
    C("einsum_trace", {R(F64, {3, 3})}, OP(s.einsum("ii->", {v[0]}))),
    C("einsum_transpose", {R(F32, {2, 3})}, OP(s.einsum("ij->ji", {v[0]}))),
    C("einsum_chain", {R(F64, {2, 3}), R(F64, {3, 4}), R(F32, {4, 2})}, OP(s.einsum("ab,bc,cd->ad", {v[0], v[1], v[2]}))),
    C("einsum_outer", {R(F32, {3}), R(F32, {2})}, OP(s.einsum("i,j->ij", {v[0], v[1]}))),
  };
}

std::vector<OpCase> structural_cases() {
  return {
    C("reshape_f32", {R(F32, {2, 3, 4})}, OP(s.reshape(v[0], {6, 4}))),
    C("reshape_infer", {R(I32, {2, 3, 4}, -9, 9)}, OP(s.reshape(v[0], {-1, 2}))),
    C("reshape_strided_copy", {S(F64, {3, 4})}, OP(s.reshape(v[0], {2, 6}))),
    C("permute_i32", {Z(I32, {2, 3, 4}, -9, 9)}, OP(s.permute(v[0], {2, 0, 1}))),
    C("transpose_all", {R(F32, {2, 3, 4})}, OP(s.transpose(v[0]))),
    C("transpose_pair", {R(F64, {2, 3, 4})}, OP(s.transpose(v[0], 0, 2))),
    C("broadcast_to_f64", {R(F64, {3, 1})}, OP(s.broadcast_to(v[0], {2, 3, 4}))),
    C("expand_bool", {R(Bool, {1, 4})}, OP(s.expand(v[0], {3, 4}))),
    C("slice_step", {R(F32, {4, 7})}, OP(s.slice(v[0], 1, 1, 6, 2))),
    C("slice_open_negative", {R(F32, {4, 7})}, OP(s.slice(v[0], 0, -3, std::nullopt))),
    C("slice_negative_step", {R(C64, {4, 7})}, OP(s.slice(v[0], 1, std::nullopt, std::nullopt, -2))),
    C("split_f32", {R(F32, {3, 5})}, OP(s.split(v[0], {1, 3, 1}, 1))),
    C("split_axis0_i64", {Z(I64, {4, 2}, -9, 9)}, OP(s.split(v[0], {2, 0, 2}, 0))),
    C("squeeze", {R(F32, {3, 1, 4, 1})}, OP(s.squeeze(v[0], {1, -1}))),
    C("unsqueeze", {Z(I64, {3, 4}, -9, 9)}, OP(s.unsqueeze(v[0], 1))),
    C("unsqueeze_last", {R(F16, {3, 4})}, OP(s.unsqueeze(v[0], -1))),
    C("reverse", {R(F64, {3, 4})}, OP(s.reverse(v[0], {0, 1}))),
    C("reverse_none", {R(F64, {3, 4})}, OP(s.reverse(v[0], {}))),
    C("pad_constant_default", {R(F32, {2, 3})}, OP(s.pad(v[0], {{1, 2}, {0, 1}}))),
    C("pad_constant_value", {R(F32, {2, 3})}, OP(s.pad(v[0], {{1, 0}, {2, 2}}, {ta::PadMode::Constant, 1.5}))),
    C("pad_constant_weak_int", {Z(I32, {2, 3}, -9, 9)}, OP(s.pad(v[0], {{1, 1}, {1, 1}}, {ta::PadMode::Constant, 7}))),
    C("pad_edge", {R(F64, {3, 4})}, OP(s.pad(v[0], {{2, 1}, {0, 3}}, kEdge))),
    C("pad_reflect", {R(F32, {3, 4})}, OP(s.pad(v[0], {{2, 1}, {1, 3}}, kReflect))),
    C("pad_reflect_strided", {S(I16, {3, 4}, -99, 99)}, OP(s.pad(v[0], {{1, 2}, {3, 0}}, kReflect))),
    C("take_along_axis", {R(F32, {3, 4}), Idx({3, 2}, {0, 3, -1, 1, 2, 0})}, OP(s.take_along_axis(v[0], v[1], 1))),
    C("take_along_axis_broadcast", {R(F64, {3, 4}), Idx({1, 4}, {2, 0, 1, 2})}, OP(s.take_along_axis(v[0], v[1], 0))),
    C("gather_i32_indices", {R(F32, {3, 4}), V<std::int32_t>({3, 1}, {1, 2, 3})}, OP(s.gather(v[0], v[1], 1))),
    C("index_select", {R(F64, {3, 4}), Idx({3}, {2, 0, 2})}, OP(s.index_select(v[0], 0, v[1]))),
    C("index_select_axis1_i32", {Z(I32, {3, 4}, -9, 9), Idx({5}, {3, 3, 0, 1, 2})}, OP(s.index_select(v[0], 1, v[1]))),
    C("scatter_add", {R(F32, {3, 4}), Idx({3, 2}, {0, 3, 3, 1, 2, 0}), R(F32, {3, 2})}, OP(s.scatter_add(v[0], 1, v[1], v[2]))),
    C("scatter_add_mixed", {R(F32, {3, 4}), Idx({2, 2}, {1, 1, 0, 3}), R(F64, {3, 2})}, OP(s.scatter_add(v[0], 1, v[1], v[2]))),
    C("scatter_add_duplicates_i32", {Z(I32, {4}, -9, 9), Idx({5}, {1, 1, 3, 1, 0}), Z(I32, {5}, -9, 9)}, OP(s.scatter_add(v[0], 0, v[1], v[2]))),
    C("tril", {R(F32, {3, 4})}, OP(s.tril(v[0], 0))),
    C("tril_batched_below", {R(F64, {2, 3, 4})}, OP(s.tril(v[0], -1))),
    C("triu", {R(F32, {4, 3})}, OP(s.triu(v[0], 1))),
    C("triu_i32_strided", {S(I32, {3, 4}, -9, 9)}, OP(s.triu(v[0], 0))),
    C("diagonal_default", {R(F32, {3, 4})}, OP(s.diagonal(v[0]))),
    C("diagonal_offset_axes", {R(F64, {2, 3, 4})}, OP(s.diagonal(v[0], 1, 1, 2))),
    C("diagonal_below", {R(F32, {4, 3})}, OP(s.diagonal(v[0], -1, 0, 1))),
    C("embed_diag", {R(F32, {2, 3})}, OP(s.embed_diag(v[0], 0))),
    C("embed_diag_offset", {Z(I64, {3}, -9, 9)}, OP(s.embed_diag(v[0], -1))),
    C("select_f32_f64", {R(Bool, {2, 3}), R(F32, {2, 3}), R(F64, {3})}, OP(s.select(v[0], v[1], v[2]))),
    C("where_i32_f32_broadcast", {R(Bool, {3, 1}), Z(I32, {3, 4}, -9, 9), R(F32, {1, 4})}, OP(s.where(v[0], v[1], v[2]))),
    C("select_f16_bf16", {R(Bool, {4}), R(F16, {4}), R(BF16, {4})}, OP(s.select(v[0], v[1], v[2]))),
    C("select_pred_in_graph", {R(F64, {3, 4}), R(F32, {3, 4})}, OP(s.select(s.gt(v[0], 0.0), v[0], v[1]))),
    C("concat_f32_f64", {R(F32, {2, 3}), R(F64, {1, 3})}, OP(s.concat({v[0], v[1]}, 0))),
    C("concat_three_axis1", {Z(I32, {2, 1}, -9, 9), Z(I32, {2, 3}, -9, 9), Z(I32, {2, 2}, -9, 9)}, OP(s.concat({v[0], v[1], v[2]}, 1))),
    C("stack_f32", {R(F32, {2, 3}), R(F32, {2, 3})}, OP(s.stack({v[0], v[1]}, 1))),
    C("stack_i32_f16", {Z(I32, {3}, -9, 9), R(F16, {3})}, OP(s.stack({v[0], v[1]}, 0))),
    C("stack_last_axis", {R(F64, {2, 2}), R(F64, {2, 2}), R(F64, {2, 2})}, OP(s.stack({v[0], v[1], v[2]}, -1))),
  };
}

// Several ops in one graph: fusion, CSE, constant folding, convert chains, multiple outputs.
std::vector<OpCase> chain_cases() {
  return {
    C("chain_exp_f32", {R(F32, {3, 4}), R(F32, {3, 4})}, OP(s.exp(v[0] * v[1] + v[0]))),
    C("chain_tanh_div_f64", {R(F64, {3, 4}), R(F64, {4})}, OP(s.tanh(v[0] * 2.0 - v[1]) / (v[1] + 3.0))),
    C("chain_f16_rounds_each_op", {R(F16, {3, 4}), R(F16, {3, 4})}, OP(v[0] * v[1] + v[0] - v[1] * 0.3)),
    C("chain_bf16_transcendental", {R(BF16, {5}), R(BF16, {5})}, OP(s.sigmoid(s.exp(v[0]) * v[1]))),
    C("chain_int_scalars", {Z(I32, {6}, -50, 50)}, OP((v[0] * 3 + 7) - v[0] * v[0])),
    C("chain_mixed_promotion", {R(F32, {2, 3}), R(F64, {2, 3}), Z(I32, {3}, -5, 5)}, OP(v[0] * v[1] + v[2])),
    C("chain_cse", {R(F32, {3}), R(F32, {3})}, OP(s.add(s.mul(v[0], v[1]), s.mul(v[0], v[1])))),
    C("chain_multi_output", {R(F32, {2, 3}), R(F32, {2, 3})}, OP(std::vector{v[0] + v[1], s.exp(v[0] + v[1]), v[0] * v[1]})),
    C("chain_strided_arithmetic", {S(F32, {4, 5}), S(F32, {4, 5})}, OP(v[0] * v[1] + v[0] - 1.0)),
    C("chain_reduce", {R(F32, {3, 4}), R(F32, {3, 4})}, OP(s.sum(s.exp(v[0]) * v[1], {1}))),
    C("chain_compare_select", {R(F32, {3, 4}), R(F32, {3, 4})}, OP(s.select(s.lt(v[0], v[1]), s.sqrt(s.abs(v[0])), -v[1]))),
    C("chain_cast_then_convert", {R(F64, {4})}, OP(s.convert(s.cast(v[0], F32), F64) * 2.0)),
    C("chain_convert_convert", {R(F16, {4})}, OP(s.convert(s.convert(v[0], F32), F64))),
    C("chain_matmul_bias_tanh", {R(F32, {3, 4}), R(F32, {4, 2}), R(F32, {2})}, OP(s.tanh(s.matmul(v[0], v[1]) + v[2]))),
    C("chain_broadcast_fused", {R(F32, {3, 1}), R(F32, {1, 4})}, OP(s.exp(v[0] + v[1]) * v[0])),
    C("chain_transpose_then_elementwise", {R(F32, {3, 4}), R(F32, {4, 3})}, OP(s.transpose(v[0]) * v[1] + 1.0)),
    C("chain_constant_folding", {K(R(F32, {3})), K(R(F32, {3})), R(F32, {3})}, OP((v[0] * v[1] + 1.0) * v[2])),
    C("chain_constants_only", {K(R(F64, {2, 2})), K(R(F32, {2, 2}))}, OP(s.exp(s.matmul(v[0], v[1])))),
    C("chain_constant_operand_promoted", {R(F64, {3}), K(R(F32, {3}))}, OP(v[0] - v[1])),
    C("chain_large_fused_f32", {R(F32, {300, 301}), R(F32, {300, 301})}, OP(s.exp(v[0] * v[1]) + s.tanh(v[0]))),
  };
}

// cpu:1 has F64 as its default float: ints promote to F64 there.
std::vector<OpCase> f64_device_cases() {
  return {
    D1("div_i32_on_f64_device", {Z(I32, {4}, 1, 9), Z(I32, {4}, 1, 9)}, OP(s.div(v[0], v[1]))),
    D1("add_i32_float_on_f64_device", {Z(I32, {4}, -9, 9)}, OP(v[0] + 0.5)),
    D1("mean_i64_on_f64_device", {Z(I64, {3, 4}, -9, 9)}, OP(s.mean(v[0], {1}))),
    D1("add_u64_i8_on_f64_device", {R(U64, {3}, 0, 100), R(I8, {3}, -100, 100)}, OP(s.add(v[0], v[1]))),
    D1("exp_i32_on_f64_device", {Z(I32, {4}, -3, 3)}, OP(s.exp(v[0]))),
  };
}
// clang-format on

std::vector<OpCase> all_op_cases() {
  std::vector<OpCase> all;
  for (auto part : {binary_cases(), scalar_cases(), operator_cases(), unary_cases(), reduction_cases(),
                    contraction_cases(), structural_cases(), chain_cases(), f64_device_cases()})
    for (auto& c : part) all.push_back(std::move(c));
  return all;
}

// ---- making inputs ---------------------------------------------------------------------------

std::uint64_t seed_of(const std::string& name, std::size_t index) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (const char ch : name) h = (h ^ static_cast<unsigned char>(ch)) * 1099511628211ull;
  return h + 7919 * index;
}

ta::Tensor random_tensor(const In& in, const Shape& shape, std::uint64_t seed, ta::Engine& e, ta::Device dev) {
  const ta::TensorOptions f64(dev, F64);
  if (ta::is_complex(in.dtype)) {
    const auto re = ta::Tensor::uniform(shape, seed, f64, in.lo, in.hi).to_vec<double>();
    const auto im = ta::Tensor::uniform(shape, seed + 1, f64, in.lo, in.hi).to_vec<double>();
    std::vector<std::complex<double>> z(re.size());
    for (std::size_t i = 0; i < z.size(); ++i) z[i] = {re[i], im[i]};
    return ta::Tensor::from_vec_col_major(shape, z, ta::TensorOptions(dev, C128)).cast(in.dtype, e);
  }
  ta::Tensor u = ta::Tensor::uniform(shape, seed, f64, in.lo, in.hi);
  if (in.dtype == Bool) return u.gt(0.0, e);
  if (in.integral) u = u.cast(I64, e);
  return u.cast(in.dtype, e);
}

ta::Tensor make_value(const In& in, std::uint64_t seed, ta::Engine& e, ta::Device dev) {
  if (in.make) return in.make(dev);
  Shape gen = in.shape;
  const bool view = in.strided && !gen.empty();
  if (view) std::reverse(gen.begin(), gen.end());
  const ta::Tensor t = random_tensor(in, gen, seed, e, dev);
  if (!view) return t;
  return gen.size() > 1 ? t.transpose() : t.reverse({0});
}

// ---- comparing -------------------------------------------------------------------------------

using tensora_test::bytes_of;

// A float component (F16/BF16/F32/F64, or a part of a complex) that is NaN.
bool is_nan_component(DType d, const unsigned char* p) {
  switch (d) {
    case F16: case BF16: {
      std::uint16_t b;
      std::memcpy(&b, p, 2);
      return d == F16 ? ((b & 0x7c00) == 0x7c00 && (b & 0x03ff) != 0) : ((b & 0x7f80) == 0x7f80 && (b & 0x007f) != 0);
    }
    case F32: case C64: {
      float f;
      std::memcpy(&f, p, 4);
      return std::isnan(f);
    }
    case F64: case C128: {
      double f;
      std::memcpy(&f, p, 8);
      return std::isnan(f);
    }
    default:
      return false;
  }
}

// Bytes equal, or both NaN, component by component.
bool same_element(DType d, const unsigned char* a, const unsigned char* b) {
  const std::size_t size = ta::size_of(d);
  if (std::memcmp(a, b, size) == 0) return true;
  if (!ta::is_inexact(d)) return false;
  const std::size_t part = ta::is_complex(d) ? size / 2 : size;
  for (std::size_t off = 0; off < size; off += part) {
    const bool eq = std::memcmp(a + off, b + off, part) == 0;
    if (!eq && !(is_nan_component(d, a + off) && is_nan_component(d, b + off))) return false;
  }
  return true;
}

std::string hex(const unsigned char* p, std::size_t n) {
  std::ostringstream os;
  os << std::hex;
  for (std::size_t i = n; i-- > 0;) os << (p[i] < 16 ? "0" : "") << static_cast<int>(p[i]);
  return os.str();
}

// dtype, shape and every element (column-major) of `got` equal `want`.
void expect_bitwise_equal(const ta::Tensor& want, const ta::Tensor& got, const std::string& label) {
  SCOPED_TRACE(label);
  ASSERT_TRUE(got.defined());
  ASSERT_EQ(got.dtype(), want.dtype()) << "eager " << ta::name(want.dtype()) << ", traced " << ta::name(got.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  ASSERT_EQ(got.device(), want.device());
  const auto w = bytes_of(want), g = bytes_of(got);
  const std::size_t size = ta::size_of(want.dtype());
  int reported = 0;
  std::int64_t differing = 0;
  for (std::size_t i = 0; i < w.size(); i += size) {
    if (same_element(want.dtype(), &w[i], &g[i])) continue;
    ++differing;
    if (reported++ < 3)
      ADD_FAILURE() << "element " << i / size << " (column-major) differs: eager 0x" << hex(&w[i], size)
                    << ", traced 0x" << hex(&g[i], size);
  }
  if (differing > 0)
    ADD_FAILURE() << differing << " of " << want.numel() << " elements differ\neager:  " << want.to_string()
                  << "\ntraced: " << got.to_string();
}

// ---- running ---------------------------------------------------------------------------------

std::vector<ta::Tensor> run_eager(const EagerFn& f, const std::vector<ta::Tensor>& values, ta::Engine& e) {
  ta::EagerRuntime rt;
  std::vector<ta::EagerTensor> xs;
  for (const auto& v : values) xs.push_back(rt.constant_from(v));
  return rt.with_eager_session(e, [&](ta::EagerSession& s) {
    std::vector<ta::Tensor> out;
    for (const auto& y : f(s, xs)) out.push_back(y.value());
    return out;
  });
}

struct Feed {
  std::string name;
  ta::Tensor value;
};

// The values of a program's placeholders, in its input order.
std::vector<ta::Tensor> feeds_for(const ta::Program& p, const std::vector<Feed>& feeds) {
  std::vector<ta::Tensor> out;
  for (const auto& in : p.inputs()) {
    const auto it = std::find_if(feeds.begin(), feeds.end(), [&](const Feed& f) { return f.name == in.name; });
    if (it == feeds.end()) {
      ADD_FAILURE() << "the program reads an unknown placeholder " << in.name;
      continue;
    }
    out.push_back(it->value);
  }
  return out;
}

struct Config {
  const char* label;
  ta::CompileOptions options;
};
const Config kConfigs[] = {
    {"default passes", ta::CompileOptions{}},
    {"fuse_elementwise=false", ta::CompileOptions{.fuse_elementwise = false}},
    {"no passes", ta::CompileOptions{.eliminate_common_subexpressions = false,
                                     .fold_constants = false,
                                     .fold_convert_chains = false,
                                     .fold_transposes = false,
                                     .fuse_elementwise = false}},
};

class TracedOps : public ::testing::TestWithParam<OpCase> {};

TEST_P(TracedOps, MatchesEagerBitForBit) {
  const OpCase& c = GetParam();
  const ta::Device dev = ta::Device::cpu(c.device);
  auto engine = ta::CpuEngine::serial(dev);
  std::vector<ta::Tensor> values;
  for (std::size_t i = 0; i < c.inputs.size(); ++i)
    values.push_back(make_value(c.inputs[i], seed_of(c.name, i), engine, dev));

  std::vector<ta::Tensor> want;
  try {
    want = run_eager(c.eager, values, engine);
  } catch (const std::exception& e) {
    FAIL() << "the eager reference threw (a bad case): " << e.what();
  }

  TracedKit kit;
  std::vector<TracedTensor> xs;
  std::vector<Feed> feeds;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (c.inputs[i].constant) {
      xs.push_back(TracedTensor::constant(values[i]));
      continue;
    }
    const std::string name = "x" + std::to_string(i);
    xs.push_back(c.device == 0 ? TracedTensor::input(name, values[i].dtype(), values[i].shape())
                               : TracedTensor::input(name, values[i].dtype(), values[i].shape(), dev));
    feeds.push_back({name, values[i]});
  }
  const std::vector<TracedTensor> outs = c.traced(kit, xs);
  ASSERT_EQ(outs.size(), want.size());
  for (std::size_t i = 0; i < outs.size(); ++i) {
    EXPECT_EQ(outs[i].dtype(), want[i].dtype()) << "inferred dtype of output " << i;
    EXPECT_EQ(outs[i].shape(), want[i].shape()) << "inferred shape of output " << i;
    EXPECT_EQ(outs[i].device(), dev);
  }

  for (const Config& config : kConfigs) {
    SCOPED_TRACE(config.label);
    const ta::Program program = ta::GraphCompiler(config.options).compile(outs);
    EXPECT_EQ(program.num_outputs(), outs.size());
    ta::Runtime runtime;
    // Twice: the program is reusable, and a parallel engine gives the serial bits.
    auto parallel = ta::CpuEngine::parallel(3, dev);
    const std::pair<const char*, ta::Engine*> runs[] = {{"serial engine", &engine}, {"parallel engine, second run", &parallel}};
    for (const auto& [run, eng] : runs) {
      const std::vector<ta::Tensor> got = runtime.run(program, *eng, feeds_for(program, feeds));
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i)
        expect_bitwise_equal(want[i], got[i], "output " + std::to_string(i) + ", " + run);
    }
    if (HasFailure()) {
      std::cout << "program (" << config.label << "):\n" << program.to_string() << "\n";
      return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Traced, TracedOps, ::testing::ValuesIn(all_op_cases()),
                         [](const ::testing::TestParamInfo<OpCase>& info) { return info.param.name; });

// The harness is not vacuous: the comparison sees one ulp and accepts any NaN for NaN, and the
// default passes really fuse the chain cases while fuse_elementwise=false does not.
TEST(TracedOpsHarness, ComparisonSeesOneUlpAndMatchesNaNs) {
  const auto a = ta::Tensor::from_vec_col_major<float>({2}, {1.0f, kNaN});
  const auto b = ta::Tensor::from_vec_col_major<float>({2}, {std::nextafter(1.0f, 2.0f), -kNaN});
  const auto c = ta::Tensor::from_vec_col_major<float>({2}, {1.0f, -kNaN});
  auto e = ta::CpuEngine::serial();
  const auto d = a.cast(F64, e);
  ::testing::TestPartResultArray results;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    expect_bitwise_equal(a, b, "one ulp");
    expect_bitwise_equal(a, c, "NaN payloads");
    expect_bitwise_equal(a, d, "dtype");
  }
  ASSERT_EQ(results.size(), 3) << "one ulp: 2 failures (element, summary); NaN: none; dtype: 1";
  EXPECT_TRUE(contains(results.GetTestPartResult(0).message(), "element 0")) << results.GetTestPartResult(0).message();
}

TEST(TracedOpsHarness, ChainCasesAreFusedByDefaultOnly) {
  const auto x = TracedTensor::input("x", F32, {3, 4});
  const auto y = TracedTensor::input("y", F32, {3, 4});
  const auto z = (x * y + x).exp();
  EXPECT_EQ(ta::GraphCompiler().compile({z}).count("fused"), 1u);
  EXPECT_EQ(ta::GraphCompiler(ta::CompileOptions{.fuse_elementwise = false}).compile({z}).count("fused"), 0u);
}

// ---- build-time errors ---------------------------------------------------------------------

template <class D>
std::size_t detail_index() {
  return ta::ErrorDetail(std::in_place_type<D>).index();
}

struct ErrIn {
  DType dtype;
  Shape shape;
  int device = 0;
};

struct ErrorCase {
  std::string name;
  std::vector<ErrIn> inputs;
  TracedFn traced;
  EagerFn eager;
  ta::ErrorKind kind;
  std::string op;
  std::size_t detail;
  std::string message_part;  // part of what() besides the op name
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.name; }

template <class F>
ErrorCase E(std::string name, std::vector<ErrIn> inputs, F f, ta::ErrorKind kind, std::string op, std::size_t detail,
            std::string message_part = "") {
  const OpCase c = C(name, {}, f);
  return ErrorCase{std::move(name), std::move(inputs), c.traced, c.eager, kind, std::move(op), detail,
                   std::move(message_part)};
}

using K_ = ta::ErrorKind;
const std::size_t kShape = detail_index<ta::ShapeMismatch>();
const std::size_t kAxis = detail_index<ta::AxisOutOfRange>();
const std::size_t kDevice = detail_index<ta::DeviceMismatch>();
const std::size_t kConversion = detail_index<ta::UnsupportedDTypeConversion>();
const std::size_t kBadDType = detail_index<ta::UnsupportedDType>();
const std::size_t kDTypeMismatch = detail_index<ta::DTypeMismatch>();
const std::size_t kInvalid = detail_index<ta::InvalidArgument>();

// clang-format off
std::vector<ErrorCase> error_cases() {
  return {
    // dtype not handled by the op
    E("maximum_c64", {{C64, {2}}, {C64, {2}}}, OP(s.maximum(v[0], v[1])), K_::UnsupportedDType, "maximum", kBadDType, "C64"),
    E("atan2_c128_f64", {{C128, {2}}, {F64, {2}}}, OP(s.atan2(v[0], v[1])), K_::UnsupportedDType, "atan2", kBadDType, "C128"),
    E("lt_c64_f32", {{C64, {3}}, {F32, {3}}}, OP(s.lt(v[0], v[1])), K_::UnsupportedDType, "lt", kBadDType),
    E("floor_c64", {{C64, {3}}}, OP(s.floor(v[0])), K_::UnsupportedDType, "floor", kBadDType),
    E("erf_c64", {{C64, {3}}}, OP(s.erf(v[0])), K_::UnsupportedDType, "erf", kBadDType),
    E("floor_div_c64", {{C64, {3}}, {C64, {3}}}, OP(s.floor_div(v[0], v[1])), K_::UnsupportedDType, "floor_div", kBadDType),
    E("max_c64", {{C64, {3}}}, OP(s.max(v[0])), K_::UnsupportedDType, "max", kBadDType),
    E("logsumexp_c128", {{C128, {3}}}, OP(s.logsumexp(v[0], {0})), K_::UnsupportedDType, "logsumexp", kBadDType),
    E("argmax_c64", {{C64, {3}}}, OP(s.argmax(v[0], 0)), K_::UnsupportedDType, "argmax", kBadDType),
    // shapes
    E("add_shape", {{F32, {2, 3}}, {F32, {4}}}, OP(s.add(v[0], v[1])), K_::Validation, "add", kShape, "[2, 3] and [4] do not broadcast"),
    E("add_shape_mixed_dtypes", {{F32, {2, 3}}, {F64, {4}}}, OP(s.add(v[0], v[1])), K_::Validation, "add", kShape, "do not broadcast"),
    E("select_shape", {{Bool, {2}}, {F32, {3}}, {F32, {3}}}, OP(s.select(v[0], v[1], v[2])), K_::Validation, "select", kShape),
    E("reshape_numel", {{F32, {2, 3}}}, OP(s.reshape(v[0], {7})), K_::Validation, "reshape", kShape, "cannot reshape 6 elements"),
    E("broadcast_to_bad", {{F32, {3}}}, OP(s.broadcast_to(v[0], {2, 4})), K_::Validation, "broadcast_to", kShape),
    E("squeeze_not_one", {{F32, {2, 3}}}, OP(s.squeeze(v[0], {0})), K_::Validation, "squeeze", kShape),
    E("matmul_no_chain", {{F32, {2, 3}}, {F32, {4, 5}}}, OP(s.matmul(v[0], v[1])), K_::Validation, "matmul", kShape, "do not chain"),
    E("matmul_no_chain_mixed", {{F64, {2, 3}}, {F32, {2}}}, OP(s.matmul(v[0], v[1])), K_::Validation, "matmul", kShape, "do not chain"),
    E("matmul_batch_mismatch", {{F32, {2, 3, 4}}, {F32, {3, 4, 5}}}, OP(s.matmul(v[0], v[1])), K_::Validation, "matmul", kShape),
    E("matmul_0d", {{F32, {}}, {F32, {3}}}, OP(s.matmul(v[0], v[1])), K_::InvalidArgument, "matmul", kInvalid, "rank >= 1"),
    E("dot_general_contracting_sizes", {{F64, {2, 3, 4}}, {F64, {2, 4, 5}}}, OP(s.dot_general(v[0], v[1], {{0}, {0}, {1}, {1}})),
      K_::Validation, "dot_general", kShape, "contracting dims differ in size"),
    E("dot_general_dim_range", {{F64, {2, 3, 4}}, {F32, {2, 4, 5}}}, OP(s.dot_general(v[0], v[1], {{0}, {0}, {3}, {1}})),
      K_::Validation, "dot_general", kAxis),
    E("einsum_extent", {{F32, {2, 4}}, {F32, {5, 3}}}, OP(s.einsum("ij,jk->ik", {v[0], v[1]})), K_::Validation, "einsum", kShape, "label 'j'"),
    E("einsum_unknown_output_label", {{F32, {2, 3}}}, OP(s.einsum("ij->iz", {v[0]})), K_::InvalidArgument, "einsum", kInvalid),
    E("concat_shape", {{F32, {2, 3}}, {F32, {3, 4}}}, OP(s.concat({v[0], v[1]}, 0)), K_::Validation, "concat", kShape),
    E("stack_shape", {{F32, {2}}, {F64, {3}}}, OP(s.stack({v[0], v[1]}, 0)), K_::Validation, "stack", kShape),
    E("take_along_axis_rank", {{F32, {3, 4}}, {I64, {3}}}, OP(s.take_along_axis(v[0], v[1], 1)), K_::Validation, "take_along_axis", kShape),
    E("index_select_2d_indices", {{F32, {3, 4}}, {I64, {2, 2}}}, OP(s.index_select(v[0], 0, v[1])), K_::Validation, "index_select", kShape),
    E("scatter_add_bounds", {{F32, {3, 4}}, {I64, {4, 2}}, {F32, {4, 2}}}, OP(s.scatter_add(v[0], 1, v[1], v[2])), K_::Validation, "scatter_add", kShape),
    // axes
    E("sum_axis", {{F32, {2, 3}}}, OP(s.sum(v[0], {5})), K_::Validation, "sum", kAxis, "axis 5 out of range"),
    E("mean_negative_axis", {{F64, {2, 3}}}, OP(s.mean(v[0], {-3})), K_::Validation, "mean", kAxis),
    E("var_axis_i32", {{I32, {2, 3}}}, OP(s.var(v[0], {2})), K_::Validation, "var", kAxis),
    E("argmax_axis", {{F32, {2, 3}}}, OP(s.argmax(v[0], 2)), K_::Validation, "argmax", kAxis),
    E("cumsum_axis", {{I32, {2, 3}}}, OP(s.cumsum(v[0], -3)), K_::Validation, "cumsum", kAxis),
    E("permute_axis", {{F32, {2, 3}}}, OP(s.permute(v[0], {0, 2})), K_::Validation, "permute", kAxis),
    E("transpose_axis", {{F32, {2, 3}}}, OP(s.transpose(v[0], 0, 3)), K_::Validation, "transpose", kAxis),
    E("unsqueeze_axis", {{F32, {2, 3}}}, OP(s.unsqueeze(v[0], 4)), K_::Validation, "unsqueeze", kAxis),
    E("slice_axis", {{F32, {2, 3}}}, OP(s.slice(v[0], 2, 0, 1)), K_::Validation, "slice", kAxis),
    E("concat_axis", {{F32, {2, 3}}, {F32, {2, 3}}}, OP(s.concat({v[0], v[1]}, 2)), K_::Validation, "concat", kAxis),
    E("tril_rank1", {{F32, {3}}}, OP(s.tril(v[0], 0)), K_::Validation, "tril", kAxis),
    // devices (cpu:6 is free for tensors, tests/test_support.hpp)
    E("add_devices", {{F32, {2}}, {F32, {2}, 6}}, OP(s.add(v[0], v[1])), K_::DeviceMismatch, "add", kDevice, "cpu:6"),
    E("matmul_devices", {{F64, {2, 2}}, {F32, {2, 2}, 6}}, OP(s.matmul(v[0], v[1])), K_::DeviceMismatch, "matmul", kDevice, "cpu:6"),
    E("concat_devices", {{F32, {2}}, {F32, {2}, 6}}, OP(s.concat({v[0], v[1]}, 0)), K_::DeviceMismatch, "concat", kDevice, "cpu:6"),
    E("select_devices", {{Bool, {2}}, {F32, {2}}, {F32, {2}, 6}}, OP(s.select(v[0], v[1], v[2])), K_::DeviceMismatch, "select", kDevice, "cpu:6"),
    // dtype changes and predicates
    E("convert_f64_f32", {{F64, {2}}}, OP(s.convert(v[0], F32)), K_::UnsupportedDTypeConversion, "convert", kConversion, "use cast(F32)"),
    E("convert_c64_f64", {{C64, {2}}}, OP(s.convert(v[0], F64)), K_::UnsupportedDTypeConversion, "convert", kConversion),
    E("convert_i64_i32", {{I64, {2}}}, OP(s.convert(v[0], I32)), K_::UnsupportedDTypeConversion, "convert", kConversion),
    E("select_pred_f32", {{F32, {3}}, {F32, {3}}, {F32, {3}}}, OP(s.select(v[0], v[1], v[2])), K_::Validation, "select", kDTypeMismatch),
    E("where_pred_i32", {{I32, {3}}, {F32, {3}}, {F64, {3}}}, OP(s.where(v[0], v[1], v[2])), K_::Validation, "select", kDTypeMismatch),
    E("take_along_axis_float_indices", {{F32, {3, 4}}, {F32, {3, 4}}}, OP(s.take_along_axis(v[0], v[1], 1)), K_::Validation, "take_along_axis", kDTypeMismatch, "I32 or I64"),
    // argument values
    E("add_u8_300", {{U8, {2}}}, OP(s.add(v[0], 300)), K_::InvalidArgument, "add", kInvalid, "scalar 300 (int) does not fit tensor dtype U8"),
    E("slice_step_zero", {{F32, {4}}}, OP(s.slice(v[0], 0, 0, 4, 0)), K_::InvalidArgument, "slice", kInvalid),
    E("split_sizes", {{F32, {5, 4}}}, OP(s.split(v[0], {2, 2}, 0)), K_::InvalidArgument, "split", kInvalid, "do not sum"),
    E("pad_reflect_too_wide", {{F32, {3}}}, OP(s.pad(v[0], {{3, 0}}, kReflect)), K_::InvalidArgument, "pad", kInvalid),
    E("pad_pair_count", {{F32, {3, 2}}}, OP(s.pad(v[0], {{1, 1}})), K_::InvalidArgument, "pad", kInvalid),
    E("diagonal_same_axes", {{F32, {3, 3}}}, OP(s.diagonal(v[0], 0, 1, 1)), K_::InvalidArgument, "diagonal", kInvalid),
    E("reverse_axis_twice", {{F32, {3, 3}}}, OP(s.reverse(v[0], {1, -1})), K_::InvalidArgument, "reverse", kInvalid),
    E("stack_nothing", {}, OP(s.stack({}, 0)), K_::InvalidArgument, "stack", kInvalid, "at least one tensor"),
  };
}
// clang-format on

class TracedBuildErrors : public ::testing::TestWithParam<ErrorCase> {};

// The traced op throws when the node is built, with the kind, op and detail eager reports for
// the same operands, at the same line (the case's line in this file).
TEST_P(TracedBuildErrors, MatchEager) {
  const ErrorCase& c = GetParam();
  TracedKit kit;
  std::vector<TracedTensor> xs;
  std::vector<ta::Tensor> values;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const ErrIn& in = c.inputs[i];
    const ta::Device dev = ta::Device::cpu(in.device);
    xs.push_back(TracedTensor::input("x" + std::to_string(i), in.dtype, in.shape, dev));
    values.push_back(ta::Tensor::zeros(in.shape, ta::TensorOptions(dev, in.dtype)));
  }
  const ta::Error traced = expect_error([&] { (void)c.traced(kit, xs); });
  EXPECT_EQ(traced.kind(), c.kind) << traced.what();
  EXPECT_EQ(traced.op(), c.op) << traced.what();
  EXPECT_EQ(traced.detail().index(), c.detail) << traced.what();
  const std::string what = traced.what();
  EXPECT_TRUE(contains(what, c.op + ": ")) << what;
  EXPECT_TRUE(contains(what, c.message_part)) << what;
  EXPECT_TRUE(contains(what, "(at " + this_file() + ":")) << what;

  auto engine = ta::CpuEngine::serial();
  ta::EagerRuntime rt;
  std::vector<ta::EagerTensor> ev;
  for (const auto& v : values) ev.push_back(rt.constant_from(v));
  const ta::Error eager = rt.with_eager_session(
      engine, [&](ta::EagerSession& s) { return expect_error([&] { (void)c.eager(s, ev); }); });
  EXPECT_EQ(eager.kind(), traced.kind()) << "eager: " << eager.what() << "\ntraced: " << what;
  EXPECT_EQ(eager.op(), traced.op()) << "eager: " << eager.what() << "\ntraced: " << what;
  EXPECT_EQ(eager.detail().index(), traced.detail().index()) << "eager: " << eager.what() << "\ntraced: " << what;
  // Both point at the case's line in this file.
  EXPECT_EQ(traced.where().line(), eager.where().line()) << "eager: " << eager.what() << "\ntraced: " << what;
}

INSTANTIATE_TEST_SUITE_P(Traced, TracedBuildErrors, ::testing::ValuesIn(error_cases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; });

TEST(TracedErrors, ErrorPointsAtTheLineThatBuiltTheNode) {
  const auto x = TracedTensor::input("x", F32, {2, 3});
  const auto y = TracedTensor::input("y", F32, {4});
  const auto line = ta::SourceLocation::current().line() + 1;
  const ta::Error err = expect_error([&] { (void)x.add(y); });
  EXPECT_EQ(err.where().line(), line);
  EXPECT_TRUE(contains(err.what(), "(at " + this_file() + ":" + std::to_string(line) + ")")) << err.what();
  const auto* d = std::get_if<ta::ShapeMismatch>(&err.detail());
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->expected, (Shape{2, 3}));
  EXPECT_EQ(d->actual, (Shape{4}));

  const auto z = TracedTensor::input("z", F64, {2});
  const auto line2 = ta::SourceLocation::current().line() + 1;
  const ta::Error conv = expect_error([&] { (void)z.convert(F32); });
  EXPECT_EQ(conv.where().line(), line2);
  const auto* cd = std::get_if<ta::UnsupportedDTypeConversion>(&conv.detail());
  ASSERT_NE(cd, nullptr);
  EXPECT_EQ(cd->from, F64);
  EXPECT_EQ(cd->to, F32);
  EXPECT_TRUE(contains(conv.what(), "convert: cannot convert F64 to F32")) << conv.what();

  const ta::Error ax = expect_error([&] { (void)x.sum({5}); });
  const auto* ad = std::get_if<ta::AxisOutOfRange>(&ax.detail());
  ASSERT_NE(ad, nullptr);
  EXPECT_EQ(ad->axis, 5);
  EXPECT_EQ(ad->rank, 2);
}

TEST(TracedErrors, MaximumOfComplexNamesTheOp) {
  const auto a = TracedTensor::input("a", C64, {2});
  const auto b = TracedTensor::input("b", C64, {2});
  const ta::Error err = expect_error([&] { (void)a.maximum(b); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::UnsupportedDType);
  EXPECT_EQ(err.op(), "maximum");
  EXPECT_TRUE(contains(err.what(), "maximum")) << err.what();
  EXPECT_TRUE(contains(err.what(), this_file())) << err.what();
  const ta::Error scalar = expect_error([&] { (void)a.maximum(1.0); });
  EXPECT_EQ(scalar.kind(), ta::ErrorKind::UnsupportedDType);
  EXPECT_EQ(scalar.op(), "maximum");
}

TEST(TracedErrors, OperatorsReportTheirOp) {
  const auto a = TracedTensor::input("a", F32, {2, 3});
  const auto b = TracedTensor::input("b", F64, {4});
  const auto u8 = TracedTensor::input("u", U8, {2});
  EXPECT_EQ(expect_error([&] { (void)(a + b); }).op(), "add");
  EXPECT_EQ(expect_error([&] { (void)(a - b); }).op(), "sub");
  EXPECT_EQ(expect_error([&] { (void)(a * b); }).op(), "mul");
  EXPECT_EQ(expect_error([&] { (void)(a / b); }).op(), "div");
  const ta::Error err = expect_error([&] { (void)(u8 + 300); });
  EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument);
  EXPECT_TRUE(contains(err.what(), "scalar 300 (int) does not fit tensor dtype U8")) << err.what();
  EXPECT_EQ(expect_error([&] { (void)(300 - u8); }).kind(), ta::ErrorKind::InvalidArgument);
}

TEST(TracedErrors, EmptyOperandIsAnInvalidArgument) {
  const TracedTensor empty;
  EXPECT_FALSE(empty.defined());
  const auto x = TracedTensor::input("x", F32, {2});
  const auto p = TracedTensor::input("p", Bool, {2});
  struct Use {
    const char* op;  // "" when not pinned
    std::function<void()> f;
  };
  const Use uses[] = {
      {"add", [&] { (void)x.add(empty); }},
      {"add", [&] { (void)empty.add(x); }},
      {"add", [&] { (void)empty.add(1.0); }},
      {"exp", [&] { (void)empty.exp(); }},
      {"sum", [&] { (void)empty.sum(); }},
      {"convert", [&] { (void)empty.convert(F64); }},
      {"reshape", [&] { (void)empty.reshape({2}); }},
      {"", [&] { (void)x.matmul(empty); }},
      {"select", [&] { (void)ta::select(p, x, empty); }},
      {"concat", [&] { (void)ta::concat({x, empty}, 0); }},
      {"einsum", [&] { (void)ta::einsum("i->i", {empty}); }},
      {"", [&] { (void)(x * empty); }},
  };
  for (const Use& u : uses) {
    SCOPED_TRACE(u.op);
    const ta::Error err = expect_error(u.f);
    EXPECT_EQ(err.kind(), ta::ErrorKind::InvalidArgument) << err.what();
    if (*u.op) {
      EXPECT_EQ(err.op(), u.op) << err.what();
      EXPECT_TRUE(contains(err.what(), this_file())) << err.what();
    }
  }
  EXPECT_EQ(expect_error([&] { (void)ta::GraphCompiler().compile({empty}); }).kind(),
            ta::ErrorKind::InvalidArgument);
}

// ---- the runtime checks its inputs ---------------------------------------------------------

TEST(TracedRuntime, InputsAreCheckedAgainstTheirPlaceholders) {
  const auto alpha = TracedTensor::input("alpha", F32, {2, 3});
  const auto beta = TracedTensor::input("beta", F64, {3});
  const ta::Program program = ta::GraphCompiler().compile({alpha + beta});
  ASSERT_EQ(program.inputs().size(), 2u);
  EXPECT_EQ(program.inputs()[0].name, "alpha");
  EXPECT_EQ(program.inputs()[0].dtype, F32);
  EXPECT_EQ(program.inputs()[0].shape, (Shape{2, 3}));
  EXPECT_EQ(program.inputs()[1].name, "beta");
  EXPECT_EQ(program.inputs()[1].dtype, F64);
  EXPECT_EQ(program.device(), ta::Device::cpu());

  auto e = ta::CpuEngine::serial();
  const ta::Tensor a = ta::Tensor::uniform({2, 3}, 1, ta::TensorOptions(ta::Device::cpu(), F32));
  const ta::Tensor b = ta::Tensor::uniform({3}, 2, ta::TensorOptions(ta::Device::cpu(), F64));
  ta::Runtime runtime;
  const auto out = runtime.run(program, e, {a, b});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), F64);

  struct Bad {
    const char* label;
    std::vector<ta::Tensor> inputs;
    ta::ErrorKind kind;
    const char* names;  // the placeholder the message names
  };
  const Bad bad[] = {
      {"too few", {a}, ta::ErrorKind::InvalidArgument, "beta"},
      {"none", {}, ta::ErrorKind::InvalidArgument, "alpha"},
      {"too many", {a, b, b}, ta::ErrorKind::InvalidArgument, "2"},
      {"wrong dtype", {a.cast(F64, e), b}, ta::ErrorKind::Validation, "alpha"},
      {"wrong dtype 2", {a, b.cast(F32, e)}, ta::ErrorKind::Validation, "beta"},
      {"wrong shape", {a.reshape({3, 2}), b}, ta::ErrorKind::Validation, "alpha"},
      {"wrong shape 2", {a, ta::Tensor::zeros({4}, ta::TensorOptions(ta::Device::cpu(), F64))},
       ta::ErrorKind::Validation, "beta"},
      {"wrong device", {a.to_device(ta::Device::cpu(6)), b}, ta::ErrorKind::DeviceMismatch, "alpha"},
      {"empty tensor", {ta::Tensor(), b}, ta::ErrorKind::InvalidArgument, "alpha"},
  };
  for (const Bad& c : bad) {
    SCOPED_TRACE(c.label);
    const ta::Error err = expect_error([&] { (void)runtime.run(program, e, c.inputs); });
    EXPECT_EQ(err.kind(), c.kind) << err.what();
    EXPECT_TRUE(contains(err.what(), c.names)) << err.what();
    EXPECT_TRUE(contains(err.what(), this_file())) << err.what();
  }
  const ta::Error dt = expect_error([&] { (void)runtime.run(program, e, {a.cast(F64, e), b}); });
  const auto* d = std::get_if<ta::DTypeMismatch>(&dt.detail());
  ASSERT_NE(d, nullptr) << dt.what();
  EXPECT_EQ(d->expected, F32);
  EXPECT_EQ(d->actual, F64);
  const ta::Error sh = expect_error([&] { (void)runtime.run(program, e, {a.reshape({3, 2}), b}); });
  const auto* sd = std::get_if<ta::ShapeMismatch>(&sh.detail());
  ASSERT_NE(sd, nullptr) << sh.what();
  EXPECT_EQ(sd->expected, (Shape{2, 3}));
  EXPECT_EQ(sd->actual, (Shape{3, 2}));

  // An engine on another device than the program's.
  auto other = ta::CpuEngine::serial(ta::Device::cpu(6));
  EXPECT_EQ(expect_error([&] { (void)runtime.run(program, other, {a, b}); }).kind(), ta::ErrorKind::DeviceMismatch);
  // A default-constructed program.
  EXPECT_EQ(expect_error([&] { (void)runtime.run(ta::Program(), e, {}); }).kind(), ta::ErrorKind::InvalidArgument);
}

TEST(TracedRuntime, ExplicitInputOrderIsTheRunOrder) {
  const auto x = TracedTensor::input("x", F32, {3});
  const auto y = TracedTensor::input("y", F32, {3});
  const ta::Program program = ta::GraphCompiler().compile({x - y}, {y, x});
  ASSERT_EQ(program.inputs().size(), 2u);
  EXPECT_EQ(program.inputs()[0].name, "y");
  EXPECT_EQ(program.inputs()[1].name, "x");
  auto e = ta::CpuEngine::serial();
  const auto xv = ta::Tensor::from_vec_col_major<float>({3}, {5, 6, 7});
  const auto yv = ta::Tensor::from_vec_col_major<float>({3}, {1, 2, 4});
  EXPECT_EQ(ta::Runtime().run(program, e, {yv, xv})[0].to_vec<float>(), (std::vector<float>{4, 4, 3}));
  // A placeholder the outputs need but the list leaves out.
  (void)expect_error([&] { (void)ta::GraphCompiler().compile({x - y}, {x}); });
}

// ---- the seed example (docs/traced.md) ------------------------------------------------------

TEST(TracedProgram, SeedExampleHasOneVisibleConvert) {
  const auto a = TracedTensor::input("a", F64, {2, 2});
  const auto b = TracedTensor::from_vec_col_major({2, 2}, std::vector<float>{0.5f, 0.25f, 1.5f, -2.0f});
  EXPECT_EQ(b.dtype(), F32);
  const auto line = ta::SourceLocation::current().line() + 1;
  const auto y = a.matmul(b);  // inserts convert(F32->F64) on b
  EXPECT_EQ(y.dtype(), F64);
  EXPECT_EQ(y.shape(), (Shape{2, 2}));

  ta::GraphCompiler compiler;
  const ta::Program program = compiler.compile({y});
  const auto conversions = program.conversions();
  ASSERT_EQ(conversions.size(), 1u) << program.to_string();
  EXPECT_EQ(conversions[0].op, "convert");
  EXPECT_EQ(conversions[0].from, F32);
  EXPECT_EQ(conversions[0].to, F64);
  EXPECT_EQ(conversions[0].where.line(), line);
  EXPECT_TRUE(contains(conversions[0].where.file_name(), this_file()));
  const std::string ir = program.to_string();
  EXPECT_TRUE(contains(ir, "convert")) << ir;
  EXPECT_TRUE(contains(ir, "dot_general")) << ir;
  std::ostringstream os;
  os << program;
  EXPECT_EQ(os.str(), ir);
  ASSERT_EQ(program.inputs().size(), 1u);
  EXPECT_EQ(program.inputs()[0].name, "a");

  auto engine = ta::CpuEngine::serial();
  const auto a_value = ta::Tensor::from_vec_col_major<double>({2, 2}, {1, 2, 3, 4});
  ta::Runtime runtime;
  const std::vector<ta::Tensor> out = runtime.run(program, engine, {a_value});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dtype(), F64);
  // [[1, 3], [2, 4]] x [[0.5, 1.5], [0.25, -2]], column-major.
  EXPECT_EQ(out[0].to_vec<double>(), (std::vector<double>{1.25, 2, -4.5, -5}));

  ta::EagerRuntime rt;
  const auto ea = rt.constant_from(a_value);
  const auto eb = rt.constant_from(ta::Tensor::from_vec_col_major({2, 2}, std::vector<float>{0.5f, 0.25f, 1.5f, -2.0f}));
  const ta::Tensor want = rt.with_eager_session(engine, [&](ta::EagerSession& s) { return s.matmul(ea, eb).value(); });
  expect_bitwise_equal(want, out[0], "seed example");
}

}  // namespace
